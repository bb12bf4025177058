//! Document structure: the header's order, what may follow traceEnd and agentDestroy, and the id hierarchy (node, process, agent, trace).

use crate::attrs::{get, Attrs};
use crate::model::{Phase, State};
use crate::violation::Rule;

/// The elements that must open a trace, in this order.
pub(crate) const HEADER: [&str; 4] = ["node", "processCreate", "agentCreate", "traceStart"];

impl State {
    pub(crate) fn structure(&mut self, line: u64, name: &str) {
        match self.phase {
            Phase::Header(i) => {
                if name == HEADER[i] {
                    self.phase = if i + 1 == HEADER.len() {
                        Phase::Body
                    } else {
                        Phase::Header(i + 1)
                    };
                } else {
                    self.err(
                        line,
                        Rule::Structure,
                        format!(
                            "expected <{}> (a trace starts with node, processCreate, agentCreate, traceStart), found <{name}>",
                            HEADER[i]
                        ),
                    );
                    self.phase = match HEADER.iter().position(|h| *h == name) {
                        Some(j) if j + 1 < HEADER.len() => Phase::Header(j + 1),
                        _ => Phase::Body,
                    };
                }
            }
            Phase::Body => match name {
                _ if HEADER.contains(&name) => self.err(
                    line,
                    Rule::Structure,
                    format!("<{name}> may appear only once, at the start of the trace"),
                ),
                "traceEnd" => self.phase = Phase::AfterTraceEnd,
                // The counts of a class being unloaded come just before its
                // classUnload, inside the GC bracket (TPTP allows methodCount at any
                // earlier time); after classUnload nothing may name its methods.
                "methodCount" if self.gc_open.is_some() => {}
                "methodCount" => self.err(
                    line,
                    Rule::Structure,
                    "<methodCount> before <traceEnd> outside a GC bracket (only an unloading class's counts may come early; the rest belong between traceEnd and agentDestroy)"
                        .to_string(),
                ),
                "agentDestroy" => {
                    self.err(
                        line,
                        Rule::Structure,
                        "<agentDestroy> before <traceEnd>".to_string(),
                    );
                    self.phase = Phase::AfterAgentDestroy;
                }
                _ => {}
            },
            Phase::AfterTraceEnd => match name {
                "methodCount" => {}
                "agentDestroy" => self.phase = Phase::AfterAgentDestroy,
                _ => self.err(
                    line,
                    Rule::Structure,
                    format!("<{name}> after <traceEnd> (only methodCount and agentDestroy may follow it)"),
                ),
            },
            Phase::AfterAgentDestroy => self.err(
                line,
                Rule::Structure,
                format!("<{name}> after <agentDestroy> (it must be the last element)"),
            ),
        }
    }

    pub(crate) fn hierarchy(&mut self, line: u64, name: &str, attrs: &Attrs) {
        let own = |s: Option<&str>| s.map(str::to_string);
        let expect = |st: &mut State, key: &str, want: &Option<String>, what: &str| {
            let got = get(attrs, key);
            if let (Some(got), Some(want)) = (got, want) {
                if got != want {
                    st.err(
                        line,
                        Rule::Structure,
                        format!("<{name}> {key}=\"{got}\" does not match {what} \"{want}\""),
                    );
                }
            }
        };
        match name {
            "node" => self.node_id = own(get(attrs, "nodeId")),
            "processCreate" => {
                let want = self.node_id.clone();
                expect(self, "nodeIdRef", &want, "node@nodeId");
                self.process_id = own(get(attrs, "processId"));
            }
            "agentCreate" => {
                let want = self.process_id.clone();
                expect(self, "processIdRef", &want, "processCreate@processId");
                self.agent_id = own(get(attrs, "agentId"));
            }
            "traceStart" => {
                let want = self.agent_id.clone();
                expect(self, "agentIdRef", &want, "agentCreate@agentId");
                self.trace_id = own(get(attrs, "traceId"));
            }
            "agentDestroy" => {
                let want = self.agent_id.clone();
                expect(self, "agentIdRef", &want, "agentCreate@agentId");
            }
            _ => {
                if get(attrs, "traceIdRef").is_some() {
                    let want = self.trace_id.clone();
                    expect(self, "traceIdRef", &want, "traceStart@traceId");
                }
            }
        }
    }
}
