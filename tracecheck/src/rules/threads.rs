//! Thread lifetimes: threadStart defines a thread once, threadEnd ends a live one.

use crate::attrs::{get, Attrs};
use crate::model::{State, Thread};
use crate::summary::ThreadInfo;
use crate::violation::Rule;

impl State {
    pub(crate) fn thread_start(&mut self, line: u64, attrs: &Attrs, time: Option<u128>) {
        let Some(id) = self.req_u64(line, "threadStart", attrs, "threadId") else {
            return;
        };
        if let Some(t) = self.threads.get(&id) {
            let l = t.start_line;
            self.err(
                line,
                Rule::Ids,
                format!("threadId {id} redefined while live (started at line {l})"),
            );
            return;
        }
        self.thread_seq += 1;
        self.threads.insert(
            id,
            Thread {
                seq: self.thread_seq,
                info: ThreadInfo {
                    id,
                    name: get(attrs, "threadName").unwrap_or("").to_string(),
                    group: get(attrs, "groupName").unwrap_or("").to_string(),
                    ..ThreadInfo::default()
                },
                start_line: line,
                stack: Vec::new(),
                last_ticket: None,
                last_time: time.map(|t| (t, line)),
                contending: None,
                waiting: None,
                per_method: Default::default(),
            },
        );
    }

    pub(crate) fn thread_end(&mut self, line: u64, thread: Option<u64>) {
        let Some(id) = thread else { return };
        let mut th = self.threads.remove(&id).expect("live thread");
        let open = th.stack.len();
        th.info.open_frames_at_end = open as u64;
        th.info.ended_after_shutdown = self.shutdown_line.is_some();
        if open > 0 && self.shutdown_line.is_none() {
            let top = th.stack.last().expect("open frame");
            let msg = format!(
                "thread {id} ({}) ends before runtimeShutdown with {open} open frame(s), innermost {} ticket {} entered at line {}",
                th.info.name,
                self.method_name(top.method),
                top.ticket,
                top.line
            );
            // Accepted if only the close follows: a stopped trace.
            self.integrity.open_at_end(line, msg);
        }
        self.ended_thread_lines.insert(id, line);
        self.finished_threads.push(th);
    }
}
