//! `.jtr` round trips: a stream written and read back renders the same document as the messages rendered directly; cut-short and foreign files.

use super::*;
use crate::defs::{ClassDef, Def, MethodDef, ThreadDef};
use crate::record::{id_obj_tick, id_tick, TAG_ENTRY, TAG_EXIT, TAG_EXIT_EXC, TAG_THREAD_END};

fn header() -> (Header, Converter) {
    let h = Header {
        node_id: "n".into(),
        hostname: "h".into(),
        ipaddress: "127.0.0.1".into(),
        timezone_minutes_west: -60,
        boot_ns: 1,
        process_id: "p".into(),
        pid: 42,
        process_name: "java".into(),
        command_line: "java Main".into(),
        process_start_ns: 2,
        agent_id: "a".into(),
        agent_parameters: "out=x.jtr".into(),
        agent_version: "0.1.0".into(),
        trace_id: "t".into(),
        start_ns: 3,
        options: vec![("mode".into(), "bci".into())],
        gc_thread_id: 9,
        exceptions: true,
        filters: vec![("java.".into(), "suffix".into(), "exclude".into())],
        jvm: vec![
            ("java.vm.vendor".into(), "Eclipse Adoptium".into()),
            ("java.vm.version".into(), "21.0.5+11-LTS".into()),
            ("sun.java.command".into(), "Main \"a b\" <&>".into()),
        ],
    };
    let conv = Converter {
        base_ticks: 1000,
        base_real_ns: 1_716_203_600_000_000_000,
        mult: 3 << 30,
    };
    (h, conv)
}

fn messages() -> Vec<Msg> {
    let mut d = vec![
        Def::Thread(ThreadDef {
            tid: 1,
            obj: 7,
            t: 1001,
            name: "main".into(),
            group: "main".into(),
            parent: "system".into(),
            before_trace: false,
        }),
        Def::Class(ClassDef {
            cid: 1,
            tid: 1,
            t: 1002,
            name: "Main".into(),
            source: "Main.java".into(),
            superclass: "java.lang.Object".into(),
            interfaces: vec!["java.lang.Runnable".into()],
            loader: "app".into(),
            access: 0x21,
            static_fields: 1,
            instance_fields: 2,
            num_methods: 2,
            instrumented: true,
            annotations: vec![("methodNames".into(), "a()V+b()V".into())],
        }),
        Def::Untraced("Odd".into(), "too big".into()),
        Def::PartlyTraced(
            "Big".into(),
            "big(I)I: too large; traced without line probes".into(),
        ),
    ];
    for mid in 1..=2 {
        d.push(Def::Method(MethodDef {
            mid,
            cid: 1,
            name: format!("m{mid}"),
            signature: "()V".into(),
            access: 0x9,
            exceptions: vec!["java.io.IOException".into()],
            lines: Some((10, 20)),
            line_numbers: vec![(0, 10), (4, 11)],
            unit_lines: vec![10, 11],
            alloc_sites: vec![4],
        }));
    }
    let mut data = Vec::new();
    data.extend_from_slice(&id_tick(TAG_ENTRY, 1, 1010));
    data.extend_from_slice(&id_tick(TAG_ENTRY, 2, 1011));
    data.extend_from_slice(&id_tick(TAG_EXIT, 2, 1012));
    data.extend_from_slice(id_obj_tick(TAG_EXIT_EXC, 1, 5, 1013).bytes());
    let mut more = Vec::new();
    more.extend_from_slice(&id_tick(TAG_ENTRY, 1, 1020));
    vec![
        Msg::Defs(d),
        Msg::Chunk { tid: 1, data },
        Msg::Chunks(vec![
            (1, more),
            (
                1,
                crate::record::tick_only(TAG_THREAD_END, 1030)
                    .bytes()
                    .to_vec(),
            ),
        ]),
        Msg::Finish {
            t: 1040,
            tid: None,
            dropped_bytes: 3,
            shutdown: true,
            count_base: Vec::new(),
            notes: Vec::new(),
        },
    ]
}

fn direct_xml() -> Vec<u8> {
    let (h, conv) = header();
    let mut r = Renderer::new(Vec::new(), &h, conv);
    for m in messages() {
        r.handle(m, drop);
    }
    r.sink_mut().clone()
}

fn jtr_bytes() -> Vec<u8> {
    let (h, conv) = header();
    let mut w = JtrWriter::new(Vec::new(), &h, &conv).unwrap();
    for m in messages() {
        w.write(&m).unwrap();
    }
    assert_eq!(w.bytes() as usize, w.into_inner().len());
    let mut w = JtrWriter::new(Vec::new(), &h, &conv).unwrap();
    for m in messages() {
        w.write(&m).unwrap();
    }
    w.into_inner()
}

#[test]
fn header_round_trips() {
    let (h, conv) = header();
    let bytes = jtr_bytes();
    let r = JtrReader::open(&bytes[..]).unwrap();
    assert_eq!(r.header, h);
    assert_eq!(r.conv, conv);
    assert_eq!(r.version, VERSION);
}

/// The JVM facts are the header's optional last field: a header from before them (its
/// bytes end where the list would start) reads with none, and a reader that stops
/// before the list (the earlier reader) reads every field it knows unchanged.
#[test]
fn jvm_facts_are_an_optional_header_tail() {
    let (h, conv) = header();
    let mut with = Vec::new();
    super::body::encode_header(&mut with, &h, &conv);
    let old = Header {
        jvm: Vec::new(),
        ..h.clone()
    };
    let mut tail = Vec::new();
    super::wire::put_uvar(&mut tail, h.jvm.len() as u64);
    for (k, v) in &h.jvm {
        super::wire::put_str(&mut tail, k);
        super::wire::put_str(&mut tail, v);
    }
    assert!(with.ends_with(&tail));
    let before = &with[..with.len() - tail.len()];
    let (read, _) = super::body::decode_header(&mut super::wire::Cursor::new(before)).unwrap();
    assert_eq!(read, old);
    let (read, _) = super::body::decode_header(&mut super::wire::Cursor::new(&with)).unwrap();
    assert_eq!(read, h);
}

#[test]
fn rendering_a_jtr_gives_the_direct_document() {
    let mut xml = Vec::new();
    let done = to_xml(&jtr_bytes()[..], &mut xml).unwrap();
    assert!(done.cut_short.is_none());
    let direct = direct_xml();
    assert_eq!(
        String::from_utf8(xml).unwrap(),
        String::from_utf8(direct).unwrap()
    );
}

#[test]
fn every_cut_renders_a_closed_document_without_panicking() {
    let full = jtr_bytes();
    // The index follows the finish: a file cut inside it is whole (without an index).
    let whole = index_at(&full) as usize;
    // The preamble (10 bytes), then the header block (kind byte, u32 length, body).
    let header_end = 15 + u32::from_le_bytes(full[11..15].try_into().unwrap()) as usize;
    for cut in 0..full.len() {
        let mut xml = Vec::new();
        match to_xml(&full[..cut], &mut xml) {
            Ok(done) if cut >= whole => {
                assert!(done.cut_short.is_none(), "cut at {cut}");
                assert!(JtrReader::open(std::io::Cursor::new(&full[..cut]))
                    .unwrap()
                    .index()
                    .is_none());
            }
            Ok(done) => {
                assert!(done.cut_short.is_some(), "cut at {cut} not noticed");
                let text = String::from_utf8(xml).unwrap();
                assert!(text.ends_with("</TRACE>\n"), "cut at {cut}");
                assert!(text.contains("recordingCutShort"));
            }
            // Only a cut inside the preamble or header block is fatal.
            Err(JtrError::NotJtr) | Err(JtrError::Corrupt { .. }) => {
                assert!(cut < header_end, "cut {cut}")
            }
            Err(e) => panic!("cut at {cut}: {e}"),
        }
    }
}

#[test]
fn a_cut_names_the_block_it_falls_in() {
    // The reader takes each block's header with the block before it: a cut inside a
    // header or a body is still said of the block it falls in, at that block's start.
    let full = jtr_bytes();
    let whole = index_at(&full) as usize;
    let mut starts = Vec::new();
    let mut at = 10;
    while at < whole {
        starts.push(at);
        at += 5 + u32::from_le_bytes(full[at + 1..at + 5].try_into().unwrap()) as usize;
    }
    assert_eq!(at, whole);
    for (k, &start) in starts.iter().enumerate().skip(1) {
        let end = starts.get(k + 1).copied().unwrap_or(whole);
        for cut in start + 1..end {
            let done = to_xml(&full[..cut], Vec::new()).unwrap();
            let why = done.cut_short.unwrap_or_default();
            let expect = if cut < start + 5 {
                format!("a block header cut short at byte {start}")
            } else {
                format!("the block at byte {start} cut short")
            };
            assert!(why.starts_with(&expect), "cut at {cut}: {why}");
        }
        let done = to_xml(&full[..start], Vec::new()).unwrap();
        let why = done.cut_short.unwrap_or_default();
        let expect = format!("the file ends at byte {start}");
        assert!(why.contains(&expect), "cut at {start}: {why}");
    }
}

#[test]
fn foreign_and_future_files_are_refused() {
    assert!(matches!(
        to_xml(&b"<?xml version"[..], Vec::new()),
        Err(JtrError::NotJtr)
    ));
    let mut future = jtr_bytes();
    future[8] = 99;
    let e = to_xml(&future[..], Vec::new()).unwrap_err();
    assert!(matches!(e, JtrError::Version(99)), "{e}");
    assert!(e.to_string().contains("newer"));
}

#[test]
fn corrupt_bodies_are_errors() {
    let mut bad = jtr_bytes();
    // The first block after the header is the definitions: break its first kind byte.
    let hlen = u32::from_le_bytes(bad[11..15].try_into().unwrap()) as usize;
    let defs_body = 10 + 5 + hlen + 5;
    bad[defs_body] = 77;
    let e = to_xml(&bad[..], Vec::new()).unwrap_err();
    assert!(e.to_string().contains("unknown definition kind 77"), "{e}");
}

/// A later trace's pieces (`jtrace stop`/`start`): a thread alive before the trace and
/// a finish that is not VM death and carries a count base survive the round trip.
#[test]
fn later_trace_pieces_round_trip() {
    use super::body::{decode_defs, decode_finish, encode_defs, encode_finish};
    use super::wire::Cursor;
    let t = ThreadDef {
        tid: 3,
        before_trace: true,
        ..ThreadDef::default()
    };
    let mut out = Vec::new();
    encode_defs(&mut out, &[Def::Thread(t)]);
    match &decode_defs(&mut Cursor::new(&out)).unwrap()[..] {
        [Def::Thread(back)] => assert!(back.before_trace && back.tid == 3),
        other => panic!("{other:?}"),
    }
    let finish = Msg::Finish {
        t: 9,
        tid: Some(2),
        dropped_bytes: 0,
        shutdown: false,
        count_base: vec![(4, 17), (5, 1)],
        notes: vec![("windowsSeen".into(), 12), ("windowsKept".into(), 3)],
    };
    let mut out = Vec::new();
    encode_finish(&mut out, &finish);
    match decode_finish(&mut Cursor::new(&out)).unwrap() {
        Msg::Finish {
            shutdown,
            count_base,
            notes,
            ..
        } => assert!(
            !shutdown
                && count_base == vec![(4, 17), (5, 1)]
                && notes == vec![("windowsSeen".into(), 12), ("windowsKept".into(), 3)]
        ),
        other => panic!("{other:?}"),
    }
    // A shutdown with no base but notes still carries them.
    let finish = Msg::Finish {
        t: 9,
        tid: None,
        dropped_bytes: 0,
        shutdown: true,
        count_base: Vec::new(),
        notes: vec![("windowsSeen".into(), 1)],
    };
    let mut out = Vec::new();
    encode_finish(&mut out, &finish);
    match decode_finish(&mut Cursor::new(&out)).unwrap() {
        Msg::Finish { notes, .. } => assert_eq!(notes, vec![("windowsSeen".into(), 1)]),
        other => panic!("{other:?}"),
    }
}

/// A tag (definition kind 7) survives the round trip with its pairs, commas and quotes.
#[test]
fn tags_round_trip() {
    use super::body::{decode_defs, encode_defs};
    use super::wire::Cursor;
    use crate::defs::TagDef;
    let t = TagDef {
        tid: 4,
        t: 12345,
        name: "test".into(),
        fields: vec![
            ("id".into(), "[engine:x]/[m:a, \"b\"]".into()),
            ("k".into(), String::new()),
        ],
    };
    let mut out = Vec::new();
    encode_defs(&mut out, &[Def::Tag(t.clone())]);
    match &decode_defs(&mut Cursor::new(&out)).unwrap()[..] {
        [Def::Tag(back)] => assert_eq!(back, &t),
        other => panic!("{other:?}"),
    }
}

/// Where the index block starts (from the file's trailer).
fn index_at(file: &[u8]) -> u64 {
    assert_eq!(&file[file.len() - 4..], &index::INDEX_MAGIC);
    u64::from_le_bytes(file[file.len() - 12..file.len() - 4].try_into().unwrap())
}

/// A file's index lists every chunk block with its thread, ticks and kinds of records;
/// readers that stop at the finish never see it; the chunks of threads an answer does
/// not need are sought past, and what the others give is the same.
#[test]
fn the_index_lists_every_chunk_and_lets_a_reader_seek() {
    let file = jtr_bytes();
    let mut r = JtrReader::open(std::io::Cursor::new(&file)).unwrap();
    let ix = r.index().expect("an index");
    let mut chunks = Vec::new();
    let mut at = r.offset;
    while let Some(m) = r.next_msg().unwrap() {
        if let Msg::Chunk { tid, data } = &m {
            chunks.push((at, *tid, crate::record::scan(data)));
        }
        at = r.offset;
        if matches!(m, Msg::Finish { .. }) {
            break;
        }
    }
    assert_eq!(at, index_at(&file));
    assert_eq!(ix.len(), chunks.len());
    for (e, (at, tid, scan)) in ix.iter().zip(&chunks) {
        assert_eq!((e.offset, e.tid), (*at, *tid));
        assert_eq!(e.ticks, scan.first_tick.zip(scan.last_tick));
        assert_eq!((e.allocs, e.thread_end), (scan.allocs, scan.thread_end));
    }
    // The same events with and without the index, for each thread alone.
    let bare = &file[..index_at(&file) as usize];
    for name in ["main", "worker", "nobody"] {
        let events = |bytes: &[u8]| {
            let mut v = Vec::new();
            let opened = Opened::read(std::io::Cursor::new(bytes)).unwrap();
            let sel = Selection {
                threads: Some(Box::new(|_, n: &str| n.contains(name))),
                ..Selection::default()
            };
            let done = opened
                .replay(std::io::Cursor::new(bytes), sel, |e| {
                    v.push(format!("{e:?}"))
                })
                .unwrap();
            (v, done)
        };
        let (with, done) = events(&file);
        let (without, plain) = events(bare);
        assert_eq!(with, without, "{name}");
        assert_eq!(plain.chunks_unread, 0);
        assert_eq!(done.chunks_skipped, plain.chunks_skipped, "{name}");
        if done.chunks_skipped > 0 {
            assert!(done.chunks_unread > 0, "{name}: nothing sought past");
        }
    }
}

/// The writer's resume points follow each thread's stack by the renderer's rules: the
/// depth at a chunk's start and end, the fewest frames in it, where it last came down
/// to them and the tickets there; a wait still pending at a chunk's end is flagged.
#[test]
fn resume_points_follow_the_stack() {
    let mut d = depth::Depths::default();
    d.note(&messages()[0]);
    let rec = |tag, mid| id_tick(tag, mid, 5).to_vec();
    let chunk = |recs: &[Vec<u8>]| recs.concat();
    // Enter 1, 2; 2 returns; enter 2 again.
    let a = chunk(&[
        rec(TAG_ENTRY, 1),
        rec(TAG_ENTRY, 2),
        rec(TAG_EXIT, 2),
        rec(TAG_ENTRY, 2),
    ]);
    let r = d.chunk(1, &a);
    assert_eq!((r.depth, r.min, r.end, r.at, r.tickets), (0, 0, 2, 0, 0));
    // 2 returns, then 1: down to none after 26 bytes; enter 1; a wait begins.
    let mut b = chunk(&[rec(TAG_EXIT, 2), rec(TAG_EXIT, 1), rec(TAG_ENTRY, 1)]);
    b.extend_from_slice(
        crate::record::Rec::MonWait {
            obj: 3,
            timeout: 0,
            t: 6,
        }
        .encode()
        .bytes(),
    );
    let r = d.chunk(1, &b);
    assert_eq!((r.depth, r.min, r.end, r.at), (2, 0, 1, 26));
    assert_eq!((r.tickets, r.at_tickets), (3, 3));
    assert_eq!(r.flags & index::PENDING, index::PENDING);
    // Enter 2, 2; an exception unwinds to 1's frame, which catches it: 1 open.
    let c = chunk(&[
        rec(TAG_ENTRY, 2),
        rec(TAG_ENTRY, 2),
        id_obj_tick(TAG_EXIT_EXC, 2, 9, 7).bytes().to_vec(),
        id_obj_tick(crate::record::TAG_CATCH, 1, 9, 8)
            .bytes()
            .to_vec(),
    ]);
    let r = d.chunk(1, &c);
    assert_eq!((r.depth, r.min, r.end), (1, 1, 1));
    assert_eq!(r.at as usize, c.len());
    assert_eq!(r.flags & index::PENDING, index::PENDING, "still waiting");
    // Caught: nothing pending; no line reported in 1's frame.
    assert_eq!(r.end_state, Some(index::End::default()));
    // 1 runs unit 1, enters 2, which runs unit 0 and is unwound by exception 9: the
    // frame at the fewest (1's) last ran unit 1, and 9 is pending, last leaving 2.
    let line = |mid, unit| {
        crate::record::Rec::Line { mid, unit, t: 9 }
            .encode()
            .bytes()
            .to_vec()
    };
    let e = chunk(&[
        line(1, 1),
        rec(TAG_ENTRY, 2),
        line(2, 0),
        line(1, 0),
        line(2, 5),
        id_obj_tick(TAG_EXIT_EXC, 2, 9, 10).bytes().to_vec(),
    ]);
    let r = d.chunk(1, &e);
    assert_eq!((r.depth, r.min, r.end), (1, 1, 1));
    assert_eq!(r.flags & index::LINES, index::LINES);
    let end = r.end_state.unwrap();
    assert_eq!((end.unit, end.exception), (Some(1), Some((9, 2))));
    // A record of an unknown thread, and the VM's: no frames.
    let none = index::Resume {
        end_state: Some(index::End::default()),
        ..index::Resume::default()
    };
    assert_eq!(d.chunk(0, &a), none);
    // Class 1 is unloaded (the VM's stream): a later entry of its method 2 opens no
    // frame (the renderer no longer knows the method), and 1's open frame still closes.
    let unload = crate::record::Rec::ClassUnload { cid: 1, t: 11 }.encode();
    d.chunk(0, unload.bytes());
    let r = d.chunk(1, &chunk(&[rec(TAG_ENTRY, 2), rec(TAG_EXIT, 1)]));
    assert_eq!(
        (r.depth, r.min, r.end, r.at_tickets),
        (1, 0, 0, 7),
        "no ticket for it"
    );
}

/// The sink's cost of the index (scan plus resume walk) per record, for callgrind:
/// `cargo test --release -p trace writer_cost -- --ignored`.
#[test]
#[ignore]
fn writer_cost() {
    let (h, conv) = header();
    let mut w = JtrWriter::new(std::io::sink(), &h, &conv).unwrap();
    w.write(&messages()[0]).unwrap();
    let mut data = Vec::new();
    for i in 0..5000u64 {
        let (tag, mid) = if i % 2 == 0 {
            (TAG_ENTRY, 1)
        } else {
            (TAG_EXIT, 1)
        };
        data.extend_from_slice(&id_tick(tag, mid, i));
    }
    for _ in 0..400 {
        w.write(&Msg::Chunk {
            tid: 1,
            data: data.clone(),
        })
        .unwrap();
    }
}

/// A definition naming an id far past the others (a corrupt file) renders as that
/// definition, without a table sized by the id: before, the renderer's and the depth
/// walk's vectors grew to the id and aborted on the allocation.
#[test]
fn a_far_id_costs_no_table_of_its_size() {
    let (h, conv) = header();
    let mut msgs = messages();
    let far = u32::MAX - 3;
    let Msg::Defs(defs) = &mut msgs[0] else {
        panic!("the first message defines")
    };
    for d in defs.iter_mut() {
        match d {
            Def::Method(m) if m.mid == 2 => m.mid = far,
            Def::Thread(t) => t.tid = far - 1,
            _ => {}
        }
    }
    let mut w = JtrWriter::new(Vec::new(), &h, &conv).unwrap();
    for m in &msgs {
        w.write(m).unwrap();
    }
    let mut xml = Vec::new();
    to_xml(&w.into_inner()[..], &mut xml).unwrap();
    let xml = String::from_utf8(xml).unwrap();
    assert!(xml.contains(&format!("methodId=\"{far}\"")), "{xml}");
    assert!(xml.contains(&format!("threadId=\"{}\"", far - 1)), "{xml}");
}

/// Every byte of a small file set to each of two values that make a varint long or
/// huge: rendering ends, with a document or an error, never a panic or an abort.
#[test]
fn every_corrupt_byte_renders_or_errs() {
    let full = jtr_bytes();
    for at in 0..full.len() {
        for v in [0xFF, 0x8F] {
            let mut bad = full.clone();
            bad[at] = v;
            let _ = to_xml(&bad[..], Vec::new());
        }
    }
}
