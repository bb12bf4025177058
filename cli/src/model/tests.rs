//! The stack machine on hand-made event sequences: exact self/total time, recursion,
//! exits by exception, frames left open, exits that close several frames, the window.

use super::*;
use crate::read::Event;
use std::borrow::Cow;

#[derive(Default)]
struct Calls(Vec<(String, u64, u64, bool, bool, bool)>);

impl Analysis for Calls {
    fn exit(&mut self, s: &Symbols, _t: u32, c: &Call, _p: &[Frame]) {
        if c.counted {
            self.0.push((
                s.method(c.method).short.clone(),
                c.incl,
                c.self_ns,
                c.recursive,
                c.by_exception,
                c.open,
            ));
        }
    }
}

/// Thread 1 (`main`), class 1 (`A`) and its methods 1 (`f()V`) and 2 (`g()V`).
pub(crate) fn defs() -> Vec<Event<'static>> {
    vec![
        Event::TraceStart { time: 0 },
        Event::ThreadStart {
            id: 1,
            time: 0,
            name: Cow::Borrowed("main"),
        },
        Event::ClassDef {
            id: 1,
            name: Cow::Borrowed("A"),
        },
        Event::MethodDef {
            id: 1,
            class: 1,
            name: Cow::Borrowed("f"),
            signature: Cow::Borrowed("()V"),
        },
        Event::MethodDef {
            id: 2,
            class: 1,
            name: Cow::Borrowed("g"),
            signature: Cow::Borrowed("()V"),
        },
    ]
}

/// An entry on thread 1.
pub(crate) fn entry(method: u64, ticket: u64, time: u64) -> Event<'static> {
    Event::Entry {
        thread: 1,
        method,
        ticket,
        time,
    }
}

/// An exit on thread 1.
pub(crate) fn exit(method: u64, ticket: u64, time: u64) -> Event<'static> {
    Event::Exit {
        thread: 1,
        method,
        ticket,
        time,
    }
}

fn run(filter: Filter, evs: &[Event]) -> (Model, Calls) {
    let mut a = Calls::default();
    let m = run_into(filter, evs, &mut a);
    (m, a)
}

/// [`defs`] and then `evs` through a model into `a`, finished.
fn run_into<A: Analysis>(filter: Filter, evs: &[Event], a: &mut A) -> Model {
    let mut m = Model::new(filter);
    for e in defs().iter().chain(evs) {
        m.event(e, a);
    }
    m.finish(a);
    m
}

#[test]
fn self_is_inclusive_minus_children() {
    let (_, a) = run(
        Filter::default(),
        &[
            entry(1, 1, 10),
            entry(2, 2, 20),
            exit(2, 2, 50),
            exit(1, 1, 100),
        ],
    );
    assert_eq!(a.0[0], ("A.g".into(), 30, 30, false, false, false));
    assert_eq!(a.0[1], ("A.f".into(), 90, 60, false, false, false));
}

#[test]
fn recursion_is_marked_and_exceptions_exit() {
    let (m, a) = run(
        Filter::default(),
        &[
            entry(1, 1, 0),
            entry(1, 2, 10),
            Event::Throw {
                thread: 1,
                obj: 7,
                method: 1,
                ticket: 2,
                time: 15,
            },
            exit(1, 2, 20),
            Event::Throw {
                thread: 1,
                obj: 7,
                method: 1,
                ticket: 1,
                time: 20,
            },
            Event::Catch {
                thread: 1,
                obj: 7,
                method: 1,
                ticket: 1,
                time: 21,
            },
            exit(1, 1, 30),
        ],
    );
    assert_eq!(a.0[0], ("A.f".into(), 10, 10, true, true, false));
    assert_eq!(a.0[1], ("A.f".into(), 30, 20, false, false, false));
    assert_eq!(m.totals.open_frames, 0);
}

#[test]
fn open_frames_end_with_the_trace_and_outer_exits_close_inner_frames() {
    let (m, a) = run(
        Filter::default(),
        &[
            entry(1, 1, 0),
            entry(2, 2, 10),
            entry(2, 3, 20),
            exit(1, 1, 40), // closes 3 and 2 too
            entry(1, 4, 50),
            exit(2, 99, 55), // names no open frame
            entry(2, 5, 60),
        ],
    );
    assert_eq!(m.totals.inferred_exits, 2);
    assert_eq!(m.totals.mismatched_exits, 1);
    assert_eq!(m.totals.open_frames, 2);
    let open: Vec<_> = a.0.iter().filter(|c| c.5).collect();
    assert_eq!(open.len(), 2);
    // Closed at the last time seen (60).
    assert_eq!(open[0].1, 0);
    assert_eq!(open[1].1, 10);
}

#[test]
fn window_clips_calls() {
    let f = Filter {
        from: Some(20),
        to: Some(50),
        ..Filter::default()
    };
    let (_, a) = run(
        f,
        &[
            entry(1, 1, 0),
            entry(2, 2, 5),
            exit(2, 2, 10), // before the window: not counted
            entry(2, 3, 30),
            exit(2, 3, 40),
            exit(1, 1, 100), // after the window: not read, f is open at its end
        ],
    );
    assert_eq!(a.0.len(), 2);
    assert_eq!(a.0[0], ("A.g".into(), 10, 10, false, false, false));
    // Open, up to the trace's last time (40): this trace has no end of its own.
    assert_eq!(a.0[1], ("A.f".into(), 20, 10, false, false, true));
}

/// Under a window, the analysis is handed only the calls that reach it: a call that
/// ended before it is never entered, one open at its start is entered when its thread
/// first reaches the window (so an answer read from the window's start is the same).
#[test]
fn window_hands_over_only_what_reaches_it() {
    #[derive(Default)]
    struct Seen(Vec<String>);
    impl Analysis for Seen {
        fn enter(&mut self, s: &Symbols, _t: u32, st: &[Frame]) {
            let f = st.last().unwrap();
            self.0
                .push(format!("enter {} {}", s.method(f.method).short, st.len()));
        }
        fn exit(&mut self, s: &Symbols, _t: u32, c: &Call, _p: &[Frame]) {
            self.0
                .push(format!("exit {} {}", s.method(c.method).short, c.open));
        }
    }
    let f = Filter {
        from: Some(20),
        to: Some(50),
        ..Filter::default()
    };
    let mut m = Model::new(f.clone());
    let mut a = Seen::default();
    let evs = [
        entry(1, 1, 0),
        entry(2, 2, 5),
        exit(2, 2, 10),
        entry(2, 3, 30),
    ];
    for e in defs().iter().chain(evs.iter()) {
        m.event(e, &mut a);
    }
    m.finish(&mut a);
    let want = [
        "enter A.f 1",
        "enter A.g 2",
        "exit A.g true",
        "exit A.f true",
    ];
    assert_eq!(a.0, want);
}

#[test]
fn thread_filter_skips_other_threads() {
    let f = Filter {
        thread: Some(filter::Pattern::new("worker*")),
        ..Filter::default()
    };
    let (m, a) = run(f, &[entry(1, 1, 0), exit(1, 1, 10)]);
    assert!(a.0.is_empty());
    assert_eq!(m.totals.entries, 0);
}

fn tag(thread: u64, time: u64, event: &str, id: &str) -> Event<'static> {
    Event::Tag {
        thread,
        time,
        name: Cow::Borrowed("test"),
        fields: vec![
            ("event".into(), event.into()),
            ("id".into(), id.into()),
            ("name".into(), format!("{id}()")),
            ("class".into(), "T".into()),
            ("method".into(), id.into()),
            (
                "outcome".into(),
                if event == "end" {
                    "SUCCESSFUL".into()
                } else {
                    String::new()
                },
            ),
        ],
    }
}

/// Calls of the test's own thread that started inside it are the test's (the runner's
/// enclosing frame is not); another thread's calls go by time to the one open test.
#[test]
fn events_belong_to_tests_by_thread_and_time() {
    use super::testcase::Tests;
    #[derive(Default)]
    struct ByTest(Tests, Vec<(String, Option<usize>)>);
    impl Analysis for ByTest {
        fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _p: &[Frame]) {
            self.1
                .push((s.method(c.method).short.clone(), self.0.at(t, c.start)));
        }
        fn tag(&mut self, _s: &Symbols, t: u32, tag: &Tag, _st: &[Frame]) {
            self.0.tag(t, tag);
        }
    }
    let mut evs = defs();
    evs.push(Event::ThreadStart {
        id: 2,
        time: 0,
        name: Cow::Borrowed("worker"),
    });
    evs.extend([
        entry(1, 1, 5), // the runner's frame, open around both tests
        tag(1, 10, "start", "a"),
        entry(2, 2, 11),
        exit(2, 2, 12),
        tag(1, 20, "end", "a"),
        tag(1, 30, "start", "b"),
        Event::Entry {
            thread: 2,
            method: 2,
            ticket: 1,
            time: 31,
        },
        Event::Exit {
            thread: 2,
            method: 2,
            ticket: 1,
            time: 32,
        },
        tag(1, 40, "end", "b"),
        Event::Entry {
            thread: 2,
            method: 2,
            ticket: 2,
            time: 41,
        },
        Event::Exit {
            thread: 2,
            method: 2,
            ticket: 2,
            time: 42,
        },
        exit(1, 1, 50),
    ]);
    let mut m = Model::new(Filter::default());
    let mut a = ByTest::default();
    for e in &evs {
        m.event(e, &mut a);
    }
    m.finish(&mut a);
    let got: Vec<Option<usize>> = a.1.iter().map(|x| x.1).collect();
    // g in a (own thread), g on the worker in b (by time), g on the worker after b: none,
    // f (the runner's frame, started before a): none.
    assert_eq!(got, vec![Some(0), Some(1), None, None]);
    assert_eq!(a.0.cases[1].outcome, "SUCCESSFUL");
    assert_eq!(a.0.cases[0].duration(), Some(10));
}

/// `--test` hands the inner analysis only the selected test's calls.
#[test]
fn test_scope_narrows() {
    use super::testcase::TestScope;
    let mut evs = defs();
    evs.extend([
        tag(1, 10, "start", "a"),
        entry(1, 1, 11),
        exit(1, 1, 12),
        tag(1, 20, "end", "a"),
        tag(1, 30, "start", "b"),
        entry(2, 2, 31),
        exit(2, 2, 35),
        tag(1, 40, "end", "b"),
    ]);
    let mut inner = Calls::default();
    {
        let mut scope = TestScope::new(filter::Pattern::new("T.b"), &mut inner);
        let mut m = Model::new(Filter::default());
        for e in &evs {
            m.event(e, &mut scope);
        }
        m.finish(&mut scope);
        assert_eq!(scope.counts(), (2, 1));
    }
    assert_eq!(inner.0, vec![("A.g".into(), 4, 4, false, false, false)]);
}

/// A method open on two threads at once: each thread's recursion is its own, whichever
/// thread counts the method's frames (its owner) and whichever counts them apart.
#[test]
fn recursion_is_per_thread_when_threads_share_a_method() {
    let on = |thread: u64, e: Event<'static>| match e {
        Event::Entry {
            method,
            ticket,
            time,
            ..
        } => Event::Entry {
            thread,
            method,
            ticket,
            time,
        },
        Event::Exit {
            method,
            ticket,
            time,
            ..
        } => Event::Exit {
            thread,
            method,
            ticket,
            time,
        },
        e => e,
    };
    let (_, a) = run(
        Filter::default(),
        &[
            Event::ThreadStart {
                id: 2,
                time: 0,
                name: Cow::Borrowed("w"),
            },
            on(1, entry(1, 1, 0)), // main owns f
            on(2, entry(1, 1, 1)), // w's f counted apart
            on(1, exit(1, 1, 2)),  // main: f not recursive
            on(2, entry(1, 2, 3)), // w claims f: still recursive (its first f is open)
            on(1, entry(1, 2, 4)), // main: f open on w, not on main
            on(2, exit(1, 2, 5)),  // w's inner f: recursive
            on(2, exit(1, 1, 6)),  // w's outer f
            on(1, entry(1, 3, 7)), // main's second f, inside its first: recursive
            on(1, exit(1, 3, 8)),
            on(1, exit(1, 2, 9)),
        ],
    );
    let flags: Vec<bool> = a.0.iter().map(|c| c.3).collect();
    assert_eq!(flags, [false, true, false, true, false]);
}

#[test]
fn a_wait_still_open_at_the_end_is_waiting_up_to_the_end() {
    #[derive(Default)]
    struct Waits(Vec<(BlockKind, u64, u64, bool, Option<String>)>);
    impl Analysis for Waits {
        fn blocked(&mut self, s: &Symbols, b: &Blocked) {
            let site = b.site.map(|m| s.method(m).short.clone());
            self.0.push((b.kind, b.start, b.end, b.open, site));
        }
    }
    let mut a = Waits::default();
    let evs = [
        entry(1, 1, 0),
        Event::Wait {
            thread: 1,
            obj: 7,
            time: 10,
        },
        Event::Waited {
            thread: 1,
            obj: 7,
            time: 30,
        },
        Event::Wait {
            thread: 1,
            obj: 7,
            time: 40,
        },
        Event::TraceEnd { time: 100 },
    ];
    run_into(Filter::default(), &evs, &mut a);
    let f = Some("A.f".to_string());
    assert_eq!(
        a.0,
        vec![
            (BlockKind::Wait, 10, 30, false, f.clone()),
            (BlockKind::Wait, 40, 100, true, f),
        ]
    );
}

/// An exception that leaves a thread's last traced frame is reported as uncaught at
/// that frame's exit, before what the thread runs next (an uncaught-exception
/// handler), not after it.
#[test]
fn an_exception_leaving_the_traced_code_is_reported_before_what_runs_next() {
    #[derive(Default)]
    struct Order(Vec<String>);
    impl Analysis for Order {
        fn enter(&mut self, s: &Symbols, _t: u32, st: &[Frame]) {
            let m = st
                .last()
                .map_or("?".into(), |f| s.method(f.method).short.clone());
            self.0.push(format!("enter {m}"));
        }
        fn exception(&mut self, s: &Symbols, e: &Exception) {
            let caught = e.caught_in.map(|m| s.method(m).short.clone());
            self.0.push(format!("exception caught in {caught:?}"));
        }
    }
    let mut a = Order::default();
    let evs = [
        entry(1, 1, 0),
        Event::Throw {
            thread: 1,
            obj: 7,
            method: 1,
            ticket: 1,
            time: 5,
        },
        exit(1, 1, 6),
        // The handler, called by the JVM on the same thread.
        entry(2, 2, 8),
        exit(2, 2, 9),
    ];
    run_into(Filter::default(), &evs, &mut a);
    assert_eq!(
        a.0,
        ["enter A.f", "exception caught in None", "enter A.g"],
        "{:?}",
        a.0
    );
}
