//! The renderer on hand-built message streams: each element it writes, from the records and definitions that make it, and every document judged by tracecheck (the oracle, which shares no code with the renderer).

use trace::clock::Converter;
use trace::defs::{ClassDef, Def, MethodDef, Msg, ObjDef, ThreadDef};
use trace::header::Header;
use trace::record::Rec;
use trace::render::Renderer;

const BASE: u64 = 1000;

fn header() -> (Header, Converter) {
    let h = Header {
        node_id: "n".into(),
        hostname: "h".into(),
        ipaddress: "127.0.0.1".into(),
        process_id: "p".into(),
        pid: 42,
        process_name: "java".into(),
        command_line: "java Main".into(),
        agent_id: "a".into(),
        agent_parameters: "out=x.xml".into(),
        agent_version: "0.1.0".into(),
        trace_id: "t".into(),
        start_ns: 3,
        options: vec![("mode".into(), "bci".into())],
        gc_thread_id: 9,
        exceptions: true,
        jvm: vec![("java.vm.name".into(), "OpenJDK 64-Bit Server VM".into())],
        ..Header::default()
    };
    // One tick is one nanosecond from BASE on.
    let conv = Converter {
        base_ticks: BASE,
        base_real_ns: 1_716_203_600_000_000_000,
        mult: 1 << 32,
    };
    (h, conv)
}

/// Thread 1 `main` and thread 2 `worker`; class 1 `app/Main` with methods 1 `run`,
/// 2 `work` (its second unit on line 11, an allocation at bci 4); class 2 `app/Thing`;
/// objects 101, 102 (the threads), 77 and 600.
fn defs() -> Msg {
    let thread = |tid: u32, obj: u64, name: &str| {
        Def::Thread(ThreadDef {
            tid,
            obj,
            t: BASE + 1,
            name: name.into(),
            group: "main".into(),
            parent: "system".into(),
            before_trace: false,
        })
    };
    let class = |cid: u32, name: &str, methods: u32| {
        Def::Class(ClassDef {
            cid,
            tid: 1,
            t: BASE + 2,
            name: name.into(),
            source: "Main.java".into(),
            superclass: "java/lang/Object".into(),
            loader: "app".into(),
            access: 0x21,
            num_methods: methods,
            instrumented: true,
            ..ClassDef::default()
        })
    };
    let method = |mid: u32, name: &str| {
        Def::Method(MethodDef {
            mid,
            cid: 1,
            name: name.into(),
            signature: "()V".into(),
            access: 0x9,
            lines: Some((10, 12)),
            line_numbers: vec![(0, 10), (4, 11)],
            unit_lines: vec![10, 11],
            alloc_sites: vec![4],
            ..MethodDef::default()
        })
    };
    Msg::Defs(vec![
        // Objects named before any allocation of theirs: the threads, the exception
        // (77) and the monitor (600).
        obj(101),
        obj(102),
        obj(77),
        obj(600),
        thread(1, 101, "main"),
        thread(2, 102, "worker"),
        class(1, "app/Main", 2),
        method(1, "run"),
        method(2, "work"),
        class(2, "app/Thing", 0),
    ])
}

/// An object named before its class is known (no classIdRef).
fn obj(obj: u64) -> Def {
    Def::Object(ObjDef {
        obj,
        cid: 0,
        is_array: 0,
    })
}

fn chunk(tid: u32, recs: &[Rec]) -> Msg {
    let mut data = Vec::new();
    for r in recs {
        data.extend_from_slice(r.encode().bytes());
    }
    Msg::Chunk { tid, data }
}

/// Renders the definitions, `msgs` and a closing Finish; the document must pass
/// tracecheck.
fn render(msgs: Vec<Msg>) -> String {
    let (h, conv) = header();
    let mut r = Renderer::new(Vec::new(), &h, conv);
    r.handle(defs(), drop);
    for m in msgs {
        r.handle(m, drop);
    }
    r.handle(
        Msg::Finish {
            t: BASE + 10_000,
            tid: None,
            dropped_bytes: 0,
            shutdown: true,
            count_base: Vec::new(),
            notes: Vec::new(),
        },
        drop,
    );
    let xml = String::from_utf8(r.into_sink()).expect("UTF-8");
    if let Err(v) = tracecheck::check_reader(xml.as_bytes()) {
        panic!("tracecheck refuses the document: {v:?}\n{xml}");
    }
    xml
}

/// The lines of `xml` that open element `name`.
fn elements<'a>(xml: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name} ");
    let bare = format!("<{name}>");
    let empty = format!("<{name}/>");
    xml.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with(&open) || l.starts_with(&bare) || l.starts_with(&empty))
        .collect()
}

fn attr<'a>(element: &'a str, key: &str) -> Option<&'a str> {
    let k = format!(" {key}=\"");
    let rest = &element[element.find(&k)? + k.len()..];
    Some(&rest[..rest.find('"')?])
}

fn only<'a>(xml: &'a str, name: &str) -> &'a str {
    let e = elements(xml, name);
    assert_eq!(e.len(), 1, "<{name}> elements: {e:?}\n{xml}");
    e[0]
}

#[test]
fn the_header_and_the_end_frame_every_document() {
    let xml = render(Vec::new());
    for name in ["node", "processCreate", "agentCreate", "traceStart"] {
        only(&xml, name);
    }
    for name in ["threadStart", "classDef", "methodDef"] {
        assert!(!elements(&xml, name).is_empty(), "no <{name}>\n{xml}");
    }
    assert_eq!(attr(only(&xml, "option"), "key"), Some("mode"));
    only(&xml, "runtimeShutdown");
    only(&xml, "traceEnd");
    only(&xml, "agentDestroy");
    assert!(xml.trim_end().ends_with("</TRACE>"));
}

#[test]
fn calls_get_tickets_depths_and_counts() {
    let xml = render(vec![chunk(
        1,
        &[
            Rec::Entry {
                mid: 1,
                t: BASE + 10,
            },
            Rec::Entry {
                mid: 2,
                t: BASE + 20,
            },
            Rec::Exit {
                mid: 2,
                t: BASE + 30,
            },
            Rec::Entry {
                mid: 2,
                t: BASE + 40,
            },
            Rec::Exit {
                mid: 2,
                t: BASE + 50,
            },
            Rec::Exit {
                mid: 1,
                t: BASE + 60,
            },
        ],
    )]);
    let entries = elements(&xml, "methodEntry");
    let exits = elements(&xml, "methodExit");
    assert_eq!(entries.len(), 3);
    assert_eq!(exits.len(), 3);
    let depths: Vec<_> = entries.iter().map(|e| attr(e, "stackDepth")).collect();
    assert_eq!(depths, [Some("1"), Some("2"), Some("2")]);
    let tickets: Vec<_> = entries.iter().map(|e| attr(e, "ticket")).collect();
    assert_eq!(tickets, [Some("1"), Some("2"), Some("3")]);
    // Exits name their entry's ticket, innermost first.
    let exit_tickets: Vec<_> = exits.iter().map(|e| attr(e, "ticket")).collect();
    assert_eq!(exit_tickets, [Some("2"), Some("3"), Some("1")]);
    let counts: Vec<_> = elements(&xml, "methodCount")
        .iter()
        .map(|e| (attr(e, "methodIdRef"), attr(e, "count")))
        .collect();
    assert!(counts.contains(&(Some("1"), Some("1"))), "{counts:?}");
    assert!(counts.contains(&(Some("2"), Some("2"))), "{counts:?}");
}

#[test]
fn an_exception_unwinds_and_is_caught() {
    let xml = render(vec![chunk(
        1,
        &[
            Rec::Entry {
                mid: 1,
                t: BASE + 10,
            },
            Rec::Entry {
                mid: 2,
                t: BASE + 20,
            },
            Rec::ExitExc {
                mid: 2,
                obj: 77,
                t: BASE + 30,
            },
            Rec::Catch {
                mid: 1,
                obj: 77,
                t: BASE + 40,
            },
            Rec::Exit {
                mid: 1,
                t: BASE + 50,
            },
        ],
    )]);
    assert_eq!(elements(&xml, "methodExit").len(), 2);
    assert!(!elements(&xml, "throw").is_empty(), "no <throw>\n{xml}");
    let c = only(&xml, "catch");
    assert_eq!(attr(c, "objIdRef"), Some("77"));
}

#[test]
fn a_thread_ends() {
    let xml = render(vec![
        chunk(
            2,
            &[
                Rec::Entry {
                    mid: 1,
                    t: BASE + 10,
                },
                Rec::Exit {
                    mid: 1,
                    t: BASE + 20,
                },
            ],
        ),
        chunk(2, &[Rec::ThreadEnd { t: BASE + 30 }]),
    ]);
    let ends = elements(&xml, "threadEnd");
    assert!(
        ends.iter().any(|e| attr(e, "threadIdRef") == Some("2")),
        "{ends:?}"
    );
}

#[test]
fn init_done_is_runtime_init_done() {
    let xml = render(vec![chunk(1, &[Rec::InitDone { t: BASE + 5 }])]);
    only(&xml, "runtimeInitDone");
}

#[test]
fn lines_name_their_source_line() {
    let xml = render(vec![chunk(
        1,
        &[
            Rec::Entry {
                mid: 2,
                t: BASE + 10,
            },
            Rec::Line {
                mid: 2,
                unit: 1,
                t: BASE + 11,
            },
            Rec::Exit {
                mid: 2,
                t: BASE + 20,
            },
        ],
    )]);
    let l = only(&xml, "line");
    assert_eq!(attr(l, "line_number"), Some("11"), "{l}");
}

#[test]
fn an_allocation_a_collection_and_a_free() {
    let xml = render(vec![
        chunk(
            1,
            &[
                Rec::Entry {
                    mid: 2,
                    t: BASE + 10,
                },
                Rec::Alloc {
                    obj: 500,
                    cid: 2,
                    is_array: 0,
                    size: 24,
                    mid: 2,
                    loc: 4,
                    t: BASE + 11,
                },
                Rec::Exit {
                    mid: 2,
                    t: BASE + 20,
                },
            ],
        ),
        chunk(
            0,
            &[
                Rec::GcStart { t: BASE + 30 },
                Rec::ObjFree {
                    obj: 500,
                    t: BASE + 31,
                },
                Rec::Heap {
                    total: 1000,
                    used: 400,
                },
                Rec::GcFinish { t: BASE + 40 },
                Rec::ClassUnload {
                    cid: 2,
                    t: BASE + 41,
                },
            ],
        ),
    ]);
    let a = only(&xml, "objAlloc");
    assert_eq!(attr(a, "objId"), Some("500"));
    assert_eq!(attr(a, "size"), Some("24"));
    assert_eq!(attr(a, "aLineNr"), Some("11"), "{a}");
    assert_eq!(attr(a, "aMethodIdRef"), Some("2"), "{a}");
    only(&xml, "gcStart");
    let f = only(&xml, "gcFinish");
    assert_eq!(attr(f, "usedObjectSpace"), Some("400"), "{f}");
    assert_eq!(attr(f, "totalObjectSpace"), Some("1000"), "{f}");
    assert_eq!(attr(only(&xml, "objFree"), "objIdRef"), Some("500"));
    assert_eq!(attr(only(&xml, "classUnload"), "classIdRef"), Some("2"));
}

#[test]
fn monitors_contend_and_wait() {
    let xml = render(vec![chunk(
        1,
        &[
            Rec::MonEnter {
                obj: 600,
                t: BASE + 10,
            },
            Rec::MonOwner { owner: 2 },
            Rec::MonEntered {
                obj: 600,
                t: BASE + 20,
            },
            Rec::MonWait {
                obj: 600,
                timeout: 5,
                t: BASE + 30,
            },
            Rec::MonWaited {
                obj: 600,
                timed_out: true,
                t: BASE + 40,
            },
        ],
    )]);
    let e = only(&xml, "monContendedEnter");
    assert_eq!(attr(e, "objIdRef"), Some("600"));
    only(&xml, "monContendedEntered");
    only(&xml, "monWait");
    only(&xml, "monWaited");
}

#[test]
fn exits_in_the_vms_own_chunk_are_dropped_not_a_panic() {
    // Thread 0 carries the VM's records (collections); a broken file may put a call's
    // records there: they name no frame, and the document stays valid.
    let xml = render(vec![chunk(
        0,
        &[
            Rec::Exit {
                mid: 1,
                t: BASE + 10,
            },
            Rec::ExitExc {
                mid: 1,
                obj: 5,
                t: BASE + 20,
            },
            Rec::Catch {
                mid: 1,
                obj: 5,
                t: BASE + 30,
            },
        ],
    )]);
    assert!(elements(&xml, "methodExit").is_empty(), "{xml}");
    assert!(elements(&xml, "catch").is_empty(), "{xml}");
}
