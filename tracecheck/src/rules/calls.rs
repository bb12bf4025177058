//! Calls: methodEntry/methodExit nesting per thread, tickets, stack depths, and the frame events (throw, catch, line).

use crate::attrs::{get, Attrs, Call};
use crate::model::{Frame, State};
use crate::violation::Rule;

/// Largest `methodEntry@stackDepth` (traceEvents.xsd: `xsd:short`); deeper entries omit it.
pub(crate) const MAX_STACK_DEPTH: u64 = i16::MAX as u64;

impl State {
    pub(crate) fn method_entry(&mut self, line: u64, call: &Call, thread: Option<u64>) {
        let el = "methodEntry";
        let (method, ticket, depth, class) = (call.method, call.ticket, call.depth, call.class);
        let (Some(tid), Some(method), Some(ticket)) = (thread, method, ticket) else {
            return;
        };
        let th = self.threads.get_mut(&tid).expect("live thread");
        let prev = th.last_ticket;
        th.last_ticket = Some(prev.map_or(ticket, |p| p.max(ticket)));
        let expected_depth = th.stack.len() as u64 + 1;
        if let Some(top) = th.stack.last_mut() {
            top.throwing = false;
        }
        th.stack.push(Frame {
            method,
            ticket,
            line,
            throwing: false,
        });
        th.info.entries += 1;
        *th.per_method.entry(method).or_default() += 1;
        if let Some(p) = prev.filter(|&p| ticket <= p) {
            self.err(
                line,
                Rule::Nesting,
                format!(
                    "ticket {ticket} of thread {tid} is not greater than its previous ticket {p}"
                ),
            );
        }
        // Deeper than xsd:short allows: clamped at MAX_STACK_DEPTH.
        let want = expected_depth.min(MAX_STACK_DEPTH);
        match depth {
            Some(d) if d > MAX_STACK_DEPTH => self.err(
                line,
                Rule::Attribute,
                format!("stackDepth=\"{d}\" exceeds {MAX_STACK_DEPTH} (xsd:short); deeper frames say {MAX_STACK_DEPTH}"),
            ),
            Some(d) if d != want => self.err(
                line,
                Rule::Nesting,
                format!("stackDepth=\"{d}\" but thread {tid} has {expected_depth} open frame(s) including this one"),
            ),
            None => self.err(
                line,
                Rule::Attribute,
                format!("<{el}> lacks attribute stackDepth (depth {expected_depth})"),
            ),
            _ => {}
        }
        // The depth the nesting proves, whether or not the attribute could carry it.
        self.summary.max_depth = self.summary.max_depth.max(expected_depth);
        if expected_depth > MAX_STACK_DEPTH {
            self.clamped_depths += 1;
            self.deepest_depth = self.deepest_depth.max(expected_depth);
        }
        // One look-up of the method: its figures, and its class against classIdRef.
        let Some(m) = self.methods.get_mut(&method) else {
            return;
        };
        m.stats.entries += 1;
        m.stats.max_depth = m.stats.max_depth.max(expected_depth);
        let method_class = m.class;
        match class {
            Some(class) if class != method_class => {
                let msg = format!(
                    "<methodEntry> classIdRef=\"{class}\" but {} belongs to class {method_class}",
                    self.method_name(method),
                );
                self.err(line, Rule::Nesting, msg);
            }
            _ => {}
        }
    }

    pub(crate) fn method_exit(&mut self, line: u64, call: &Call, thread: Option<u64>) {
        let (method, ticket) = (call.method, call.ticket);
        let (Some(tid), Some(method), Some(ticket)) = (thread, method, ticket) else {
            return;
        };
        let th = self.threads.get_mut(&tid).expect("live thread");
        let Some(top) = th.stack.last() else {
            let msg = format!(
                "<methodExit> of {} ticket {ticket} but thread {tid} has no open frame",
                self.method_name(method)
            );
            self.err(line, Rule::Nesting, msg);
            return;
        };
        if top.method == method && top.ticket == ticket {
            let frame = th.stack.pop().expect("top frame");
            if frame.throwing {
                if let Some(caller) = th.stack.last_mut() {
                    caller.throwing = true;
                }
            }
            if let Some(m) = self.methods.get_mut(&method) {
                m.stats.exits += 1;
                if frame.throwing {
                    m.stats.exception_exits += 1;
                }
            }
            return;
        }
        let (top_method, top_ticket, top_line) = (top.method, top.ticket, top.line);
        // Resynchronise on the matching frame if there is one, to avoid a cascade.
        if let Some(pos) = th
            .stack
            .iter()
            .rposition(|f| f.method == method && f.ticket == ticket)
        {
            th.stack.truncate(pos);
        }
        let msg = format!(
            "<methodExit> of {} ticket {ticket} does not close the innermost open entry of thread {tid}: {} ticket {top_ticket} (line {top_line})",
            self.method_name(method),
            self.method_name(top_method)
        );
        self.err(line, Rule::Nesting, msg);
    }

    pub(crate) fn frame_event(
        &mut self,
        line: u64,
        name: &str,
        attrs: &Attrs,
        thread: Option<u64>,
    ) {
        let method = self.req_u64(line, name, attrs, "methodIdRef");
        let ticket = self.req_u64(line, name, attrs, "ticket");
        let line_number = if name == "line" {
            self.opt_u64(line, name, attrs, "line_number")
        } else {
            None
        };
        let mut table_problem = None;
        if let Some(m) = method.and_then(|id| self.methods.get_mut(&id)) {
            match name {
                "throw" => m.stats.throws += 1,
                "catch" => m.stats.catches += 1,
                _ => {
                    if let Some(n) = line_number {
                        m.stats.lines.insert(n);
                        *m.stats.line_counts.entry(n).or_default() += 1;
                        if let Some(t) = &m.line_numbers {
                            let known = u32::try_from(n).is_ok_and(|n| t.binary_search(&n).is_ok());
                            if !known {
                                table_problem = Some(format!(
                                    "<line> line_number=\"{n}\" is not in the methodLineTables entry of {} ({t:?})",
                                    m.key
                                ));
                            }
                        }
                        let source = self.classes.get(&m.class).map(|c| c.source.as_str());
                        let file = get(attrs, "file_name");
                        if let (Some(src), Some(file)) = (source, file) {
                            if !src.is_empty() && src != file {
                                table_problem = Some(format!(
                                    "<line> file_name=\"{file}\" but the sourceName of {}'s class is \"{src}\"",
                                    m.key
                                ));
                            }
                        }
                    }
                }
            }
        }
        if let Some(msg) = table_problem {
            self.err(line, Rule::LineTable, msg);
        }
        let (Some(tid), Some(method), Some(ticket)) = (thread, method, ticket) else {
            return;
        };
        let th = self.threads.get_mut(&tid).expect("live thread");
        let depth = th.stack.len();
        let pos = th
            .stack
            .iter()
            .rposition(|f| f.method == method && f.ticket == ticket);
        match (name, pos) {
            ("catch", Some(p)) if p + 1 == depth => th.stack[p].throwing = false,
            ("catch", _) => {
                let msg = format!(
                    "<catch> names {} ticket {ticket}, which is not the innermost open frame of thread {tid}",
                    self.method_name(method)
                );
                self.err(line, Rule::Frames, msg);
            }
            ("throw", Some(p)) => th.stack[p].throwing = true,
            (_, Some(p)) => {
                if p + 1 == depth {
                    th.stack[p].throwing = false;
                }
            }
            (_, None) => {
                let msg = format!(
                    "<{name}> names {} ticket {ticket}, which is not an open frame of thread {tid}",
                    self.method_name(method)
                );
                self.err(line, Rule::Frames, msg);
            }
        }
    }

    /// Counts the first throw of each live exception object, by its class.
    pub(crate) fn thrown(&mut self, object: Option<i64>) {
        let Some(id) = object.filter(|&id| id > 0) else {
            return;
        };
        if !self.thrown_objects.insert(id) {
            return;
        }
        let class = self.objects.get(&id).copied().unwrap_or(0);
        let name = self.class_name_of(class);
        *self.summary.thrown.entry(name).or_default() += 1;
    }
}
