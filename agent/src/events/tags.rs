//! The application's tags (`jtrace.Trace.tag`, the JUnit listener's test marks): a name and key/value pairs, sent as a definition in the calling thread's order.

use crate::buffer;
use crate::clock;
use crate::control::{Outcome, Reply};
use crate::events::threads;
use crate::jvmti::Jvmti;
use trace::defs::{Def, TagDef};

/// Records a tag on the current thread. `lines`: the name, then keys and values
/// alternately, one per line (a key without a value gets "").
pub fn tag(jvmti: Jvmti, lines: &str) -> Reply {
    // Producers are stopped whenever no trace is recording (idle, stopped, shutting down).
    if buffer::is_stopping() {
        return (Outcome::Refused, "jtrace: no trace is running".to_string());
    }
    let Ok(thread) = jvmti.current_thread() else {
        return (Outcome::Refused, "jtrace: no current thread".to_string());
    };
    let Some(b) = threads::current(jvmti, thread) else {
        return (
            Outcome::Refused,
            "jtrace: this thread is not traced".to_string(),
        );
    };
    let mut it = lines.split('\n');
    let name = it.next().unwrap_or_default().to_string();
    let mut fields = Vec::new();
    while let Some(k) = it.next() {
        fields.push((k.to_string(), it.next().unwrap_or_default().to_string()));
    }
    // With keep=failed each test is a window: its start mark opens it (after the mark),
    // its end mark decides it (before the mark).
    let test = (crate::window::tests_are_windows() && name == "test").then(|| {
        let get = |k: &str| {
            fields
                .iter()
                .find(|(n, _)| n == k)
                .map_or_else(String::new, |(_, v)| v.clone())
        };
        (get("event"), get("id"), get("outcome") == "FAILED")
    });
    if let Some((event, id, failed)) = &test {
        if event == "end" {
            b.test_mark(false, id, *failed);
        }
    }
    // Flushes this thread's earlier records first: the tag takes its place among them.
    buffer::send_defs(vec![Def::Tag(TagDef {
        tid: b.tid,
        t: clock::ticks(),
        name,
        fields,
    })]);
    if let Some((event, id, _)) = &test {
        if event == "start" {
            b.test_mark(true, id, false);
        }
    }
    (Outcome::Ok, String::new())
}
