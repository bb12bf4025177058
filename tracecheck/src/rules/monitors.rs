//! Monitors: contended enter/entered and wait/waited pairs per thread and object.

use crate::attrs::{get, Attrs};
use crate::model::State;
use crate::violation::Rule;

impl State {
    pub(crate) fn monitor(
        &mut self,
        line: u64,
        name: &str,
        attrs: &Attrs,
        thread: Option<u64>,
        object: Option<i64>,
    ) {
        let required: &[&str] = match name {
            "monContendedEnter" => &["threadOwner"],
            "monWait" => &["timeout"],
            "monWaited" => &["timeout", "isTimedOut"],
            _ => &[],
        };
        for key in required {
            if get(attrs, key).is_none() {
                self.err(
                    line,
                    Rule::Monitors,
                    format!("<{name}> lacks attribute {key}"),
                );
            }
        }
        if name == "monContendedEnter" {
            if let Some(owner) = self.opt_u64(line, name, attrs, "threadOwner") {
                if owner != 0
                    && !self.threads.contains_key(&owner)
                    && !self.ended_thread_lines.contains_key(&owner)
                {
                    self.err(
                        line,
                        Rule::Ids,
                        format!("<monContendedEnter> threadOwner=\"{owner}\": no threadStart defines it"),
                    );
                }
                if let Some(tid) = thread {
                    if owner == tid {
                        self.err(
                            line,
                            Rule::Monitors,
                            format!("<monContendedEnter> thread {tid} contends for a monitor it owns itself (threadOwner=\"{owner}\")"),
                        );
                    }
                    let me = self.thread_name_of(tid);
                    let owner_name = if owner == 0 {
                        String::new()
                    } else {
                        self.thread_name_of(owner)
                    };
                    *self.summary.contended.entry((me, owner_name)).or_default() += 1;
                    let class = object
                        .and_then(|o| self.objects.get(&o).copied())
                        .unwrap_or(0);
                    let class = self.class_name_of(class);
                    *self.summary.contended_classes.entry(class).or_default() += 1;
                }
            }
        }
        if name == "monWait" {
            self.opt_u64(line, name, attrs, "timeout");
        }
        if name == "monWaited" {
            let waited = self.opt_u64(line, name, attrs, "timeout");
            let timed_out = match get(attrs, "isTimedOut") {
                Some("true") => true,
                Some("false") | None => false,
                Some(v) => {
                    self.err(
                        line,
                        Rule::Monitors,
                        format!("<monWaited> isTimedOut=\"{v}\" is not true or false"),
                    );
                    false
                }
            };
            if let (Some(tid), Some(obj)) = (thread, object) {
                if obj != -1 {
                    let me = self.thread_name_of(tid);
                    let w = self.summary.waits.entry(me).or_default();
                    w.waits += 1;
                    w.waited_ms += waited.unwrap_or(0);
                    w.timed_out += u64::from(timed_out);
                }
            }
        }
        let (Some(tid), Some(obj)) = (thread, object) else {
            return;
        };
        let th = self.threads.get_mut(&tid).expect("live thread");
        let (slot, opening, opener) = match name {
            "monContendedEnter" => (&mut th.contending, true, "monContendedEnter"),
            "monContendedEntered" => (&mut th.contending, false, "monContendedEnter"),
            "monWait" => (&mut th.waiting, true, "monWait"),
            _ => (&mut th.waiting, false, "monWait"),
        };
        let msg = if opening {
            let prev = slot.replace((obj, line));
            prev.map(|(o, l)| {
                format!("<{name}> on object {obj} while thread {tid} is still in the {opener} on object {o} (line {l})")
            })
        } else {
            match slot.take() {
                Some((o, _)) if o == obj => None,
                Some((o, l)) => Some(format!(
                    "<{name}> on object {obj} but the {opener} of thread {tid} (line {l}) was on object {o}"
                )),
                None => Some(format!(
                    "<{name}> on object {obj} without a preceding <{opener}> in thread {tid}"
                )),
            }
        };
        if let Some(msg) = msg {
            self.err(line, Rule::Monitors, msg);
        }
    }
}
