//! The end of a trace: methodCount against the entries seen, traceEnd and agentDestroy.

use crate::attrs::Attrs;
use crate::model::State;
use crate::rules::calls::MAX_STACK_DEPTH;
use crate::violation::Rule;

impl State {
    pub(crate) fn method_count(&mut self, line: u64, attrs: &Attrs) {
        let Some(id) = self.req_u64(line, "methodCount", attrs, "methodIdRef") else {
            return;
        };
        let count = self.req_u64(line, "methodCount", attrs, "count");
        let Some(m) = self.methods.get_mut(&id) else {
            return;
        };
        if m.count_seen {
            let msg = format!("second <methodCount> for {}", self.method_name(id));
            self.err(line, Rule::MethodCount, msg);
            return;
        }
        m.count_seen = true;
        let Some(count) = count else { return };
        m.stats.method_count = Some(count);
        let entries = m.stats.entries;
        // Invocations outside the trace are only possible when traceEnd declares them.
        let declared = self
            .summary
            .end_counts
            .contains_key("invocationsOutsideTrace");
        if !declared && count != entries {
            let msg = format!(
                "<methodCount> count=\"{count}\" for {} but the trace has {entries} methodEntry element(s) for it (rule: count == entries, as traceEnd declares no invocationsOutsideTrace)",
                self.method_name(id)
            );
            self.err(line, Rule::MethodCount, msg);
        } else if count < entries {
            let msg = format!(
                "<methodCount> count=\"{count}\" for {} but the trace has {entries} methodEntry element(s) for it (rule: count >= entries)",
                self.method_name(id)
            );
            self.err(line, Rule::MethodCount, msg);
        } else {
            self.counts_outside += count - entries;
        }
    }

    pub(crate) fn trace_end(&mut self, line: u64) {
        if let Some(l) = self.gc_open {
            self.err(
                line,
                Rule::Gc,
                format!("<traceEnd> inside the GC started at line {l}"),
            );
        }
        let mut running: Vec<(u64, String, u64)> = self
            .threads
            .iter()
            .map(|(id, t)| (id, t.info.name.clone(), t.start_line))
            .collect();
        running.sort();
        for (id, name, l) in running {
            self.err(
                line,
                Rule::Structure,
                format!(
                    "thread {id} ({name}, started at line {l}) has no threadEnd before <traceEnd>"
                ),
            );
        }
    }

    pub(crate) fn agent_destroy(&mut self, line: u64) {
        // A clamped stackDepth is accepted only where traceEnd says how many entries
        // were clamped and how deep the deepest went.
        let said = |k: &str| self.summary.end_counts.get(k).copied();
        let declared = (said("clampedStackDepths"), said("deepestStackDepth"));
        let seen = (self.clamped_depths, self.deepest_depth);
        let fine = match declared {
            (None, None) => seen.0 == 0,
            (c, d) => c.unwrap_or(0) == seen.0 && d.unwrap_or(0) == seen.1,
        };
        if !fine {
            let msg = format!(
                "{} methodEntry element(s) are deeper than {MAX_STACK_DEPTH} (the deepest at {}) and say {MAX_STACK_DEPTH}, but traceEnd declares clampedStackDepths={} and deepestStackDepth={}",
                seen.0,
                seen.1,
                declared.0.map_or("(none)".to_string(), |v| v.to_string()),
                declared.1.map_or("(none)".to_string(), |v| v.to_string()),
            );
            self.err(line, Rule::Nesting, msg);
        }
        let declared = self
            .summary
            .end_counts
            .get("invocationsOutsideTrace")
            .copied()
            .unwrap_or(0);
        if self
            .summary
            .end_counts
            .contains_key("invocationsOutsideTrace")
            && declared != self.counts_outside
        {
            let msg = format!(
                "methodCount elements exceed the methods' entries by {} in all, but traceEnd declares invocationsOutsideTrace={declared}",
                self.counts_outside
            );
            self.err(line, Rule::MethodCount, msg);
        }
        let mut missing: Vec<u64> = self
            .methods
            .iter()
            .filter(|(_, m)| !m.count_seen)
            .map(|(id, _)| id)
            .collect();
        missing.sort();
        for id in missing {
            let msg = format!(
                "no <methodCount> for {} before <agentDestroy>",
                self.method_name(id)
            );
            self.err(line, Rule::MethodCount, msg);
        }
    }
}
