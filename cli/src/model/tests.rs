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

fn defs() -> Vec<Event<'static>> {
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

fn entry(method: u64, ticket: u64, time: u64) -> Event<'static> {
    Event::Entry {
        thread: 1,
        method,
        ticket,
        time,
    }
}

fn exit(method: u64, ticket: u64, time: u64) -> Event<'static> {
    Event::Exit {
        thread: 1,
        method,
        ticket,
        time,
    }
}

fn run(filter: Filter, evs: &[Event]) -> (Model, Calls) {
    let mut m = Model::new(filter);
    let mut a = Calls::default();
    for e in defs().iter().chain(evs) {
        m.event(e, &mut a);
    }
    m.finish(&mut a);
    (m, a)
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
            exit(1, 1, 100),
        ],
    );
    assert_eq!(a.0.len(), 2);
    assert_eq!(a.0[0], ("A.g".into(), 10, 10, false, false, false));
    assert_eq!(a.0[1], ("A.f".into(), 30, 20, false, false, false));
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
