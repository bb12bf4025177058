//! The session facts at the top of a trace (node, process, agent, the JVM, options, filters): written by the renderer, stored in a `.jtr` header.

/// The session-level facts written at the top of the document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    pub node_id: String,
    pub hostname: String,
    pub ipaddress: String,
    pub timezone_minutes_west: i64,
    pub boot_ns: u64,
    pub process_id: String,
    pub pid: u32,
    pub process_name: String,
    pub command_line: String,
    pub process_start_ns: u64,
    pub agent_id: String,
    pub agent_parameters: String,
    /// The agent's version (`agentCreate version`): the recording agent's, not the renderer's.
    pub agent_version: String,
    pub trace_id: String,
    pub start_ns: u64,
    /// Effective options, echoed as `option` elements: (key, value).
    pub options: Vec<(String, String)>,
    /// The thread id that garbage collections are written on (reserved by the agent at
    /// the start, defined at the first collection; 0 without gc=on).
    pub gc_thread_id: u32,
    /// Write throw/catch elements (option `exceptions`).
    pub exceptions: bool,
    /// Filter rules, echoed as `filter` elements: (pattern, genericPattern, mode).
    pub filters: Vec<(String, String, String)>,
    /// The JVM's own facts, (name, value) in order: its system properties
    /// `java.vm.vendor`, `java.vm.name`, `java.vm.version`, ... as the JVM reported them
    /// when the agent loaded (`agentCreate`'s `annotation` children); empty in a trace
    /// from an agent that did not record them.
    pub jvm: Vec<(String, String)>,
}
