//! Define before use: every thread, class, method and object an element names is defined and live, and each thread's time never goes backwards.

use crate::attrs::{fmt_time, get, parse_i64, Attrs};
use crate::model::State;
use crate::violation::Rule;

impl State {
    /// The live thread `attrs[key]` names, after checking it and the element's time.
    pub(crate) fn thread_ref(
        &mut self,
        line: u64,
        name: &str,
        attrs: &Attrs,
        key: &str,
        time: Option<u128>,
    ) -> Option<u64> {
        let id = self.opt_u64(line, name, attrs, key);
        self.thread_id_ref(line, name, key, id, time)
    }

    /// [`State::thread_ref`] on a parsed value.
    pub(crate) fn thread_id_ref(
        &mut self,
        line: u64,
        name: &str,
        key: &str,
        id: Option<u64>,
        time: Option<u128>,
    ) -> Option<u64> {
        let id = id?;
        let Some(th) = self.threads.get_mut(&id) else {
            let why = match self.ended_thread_lines.get(&id) {
                Some(l) => format!("it ended at line {l}"),
                None => "no threadStart defines it".to_string(),
            };
            self.err(
                line,
                Rule::Ids,
                format!("<{name}> {key}=\"{id}\" names no live thread: {why}"),
            );
            return None;
        };
        // Time never goes backwards within a thread.
        let Some(t) = time else { return Some(id) };
        match th.last_time {
            Some((p, pl)) if t < p => self.err(
                line,
                Rule::Time,
                format!(
                    "<{name}> time goes backwards in thread {id}: {} after {} (line {pl})",
                    fmt_time(t),
                    fmt_time(p)
                ),
            ),
            _ => th.last_time = Some((t, line)),
        }
        Some(id)
    }

    pub(crate) fn class_ref(
        &mut self,
        line: u64,
        name: &str,
        attrs: &Attrs,
        key: &str,
        zero_ok: bool,
    ) {
        let id = self.opt_u64(line, name, attrs, key);
        self.class_id_ref(line, name, key, id, zero_ok);
    }

    /// [`State::class_ref`] on a parsed value.
    pub(crate) fn class_id_ref(
        &mut self,
        line: u64,
        name: &str,
        key: &str,
        id: Option<u64>,
        zero_ok: bool,
    ) {
        let Some(id) = id else {
            return;
        };
        if id == 0 && zero_ok {
            return;
        }
        match self.classes.get(&id) {
            Some(c) if c.live => {}
            Some(c) => {
                let msg = format!(
                    "<{name}> {key}=\"{id}\" names class {} which was unloaded",
                    c.name
                );
                self.err(line, Rule::Ids, msg);
            }
            None => self.err(
                line,
                Rule::Ids,
                format!("<{name}> {key}=\"{id}\": no classDef defines class {id}"),
            ),
        }
    }

    pub(crate) fn method_ref(
        &mut self,
        line: u64,
        name: &str,
        attrs: &Attrs,
        key: &str,
        zero_ok: bool,
        dead_ok: bool,
    ) {
        let id = self.opt_u64(line, name, attrs, key);
        self.method_id_ref(line, name, key, id, zero_ok, dead_ok);
    }

    /// [`State::method_ref`] on a parsed value.
    pub(crate) fn method_id_ref(
        &mut self,
        line: u64,
        name: &str,
        key: &str,
        id: Option<u64>,
        zero_ok: bool,
        dead_ok: bool,
    ) {
        let Some(id) = id else {
            return;
        };
        if id == 0 && zero_ok {
            return;
        }
        match self.methods.get(&id) {
            Some(m) if m.live || dead_ok => {}
            Some(m) => {
                let msg = format!(
                    "<{name}> {key}=\"{id}\" names method {} whose class was unloaded",
                    m.key
                );
                self.err(line, Rule::Ids, msg);
            }
            None => self.err(
                line,
                Rule::Ids,
                format!("<{name}> {key}=\"{id}\": no methodDef defines method {id}"),
            ),
        }
    }

    pub(crate) fn object_ref(&mut self, line: u64, name: &str, attrs: &Attrs) -> Option<i64> {
        let raw = get(attrs, "objIdRef")?;
        let Some(id) = parse_i64(raw) else {
            self.err(
                line,
                Rule::Attribute,
                format!("<{name}> objIdRef=\"{raw}\" is not a decimal integer"),
            );
            return None;
        };
        let minus_one_ok = matches!(name, "monWait" | "monWaited");
        if id == 0 || (id == -1 && minus_one_ok) {
            return Some(id);
        }
        if id < 0 {
            self.err(
                line,
                Rule::Attribute,
                format!("<{name}> objIdRef=\"{id}\" is negative"),
            );
            return Some(id);
        }
        if !self.objects.contains_key(&id) {
            self.err(
                line,
                Rule::Ids,
                format!(
                    "<{name}> objIdRef=\"{id}\": no live objAlloc or objDef defines object {id}"
                ),
            );
        }
        Some(id)
    }
}
