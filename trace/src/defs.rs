//! Messages to the sink (the agent's sink thread, which hands them to the renderer or a `.jtr`): per-thread record chunks and the definitions (threads, classes, methods) they refer to.
//!
//! Definitions travel on the same FIFO channel as chunks. A definition is sent before
//! the event that makes its id usable can happen (a class is prepared before any of
//! its methods run; a thread is registered before it records anything), and a chunk
//! is sent after the events in it happened, so the sink (and the renderer after it) always sees a definition
//! before any chunk that refers to it: define-before-use across threads for free.

/// A thread, sent when it is first seen.
#[derive(Debug, Clone, Default)]
pub struct ThreadDef {
    pub tid: u32,
    /// Object id of the java.lang.Thread (0 if unknown).
    pub obj: u64,
    pub t: u64,
    pub name: String,
    pub group: String,
    pub parent: String,
    /// Alive before its trace started (re-sent, or found at a later start): frames it
    /// entered earlier may return during the trace, with no entry in it.
    pub before_trace: bool,
}

/// A class, sent when it is prepared.
#[derive(Debug, Clone, Default)]
pub struct ClassDef {
    pub cid: u32,
    /// Loading thread (0 if unknown).
    pub tid: u32,
    pub t: u64,
    /// The JVM's internal name (`java/lang/String`), or the descriptor of an array
    /// class (`[I`); the renderer spells it TPTP's way.
    pub name: String,
    pub source: String,
    /// Internal names, like `name` (the loader: its class's name, or `bootstrap`).
    pub superclass: String,
    pub interfaces: Vec<String>,
    pub loader: String,
    pub access: u16,
    pub static_fields: u32,
    pub instance_fields: u32,
    pub num_methods: u32,
    /// Rewritten with probes (mode=bci).
    pub instrumented: bool,
    /// Probekit strings (`methodNames`, `methodLineTables`) for traced classes.
    pub annotations: Vec<(String, String)>,
}

/// A method of a class, sent right after its class.
#[derive(Debug, Clone, Default)]
pub struct MethodDef {
    pub mid: u32,
    pub cid: u32,
    /// The JVM's name (`<init>`, `<clinit>` for constructors and static initialisers).
    pub name: String,
    pub signature: String,
    pub access: u16,
    /// Declared exceptions, internal names.
    pub exceptions: Vec<String>,
    /// (start, end) source lines, if the method has a line number table.
    pub lines: Option<(u32, u32)>,
    /// (bytecode index, line) of the code the JVM runs (after rewriting), for
    /// allocation sites; empty when not needed.
    pub line_numbers: Vec<(u32, u32)>,
    /// Source line of each executable unit, for `line` elements; empty when not needed.
    pub unit_lines: Vec<u32>,
    /// Bytecode indexes of the allocating instructions of the code the JVM runs:
    /// only allocations there are the method's own (others, e.g. a string literal
    /// the VM creates when resolving `ldc`, happen on its behalf).
    pub alloc_sites: Vec<u32>,
}

/// An object first named by an event other than its allocation (objDef), with its
/// class as an allocation would name it: the class itself, or for an array its
/// element class and the TPTP `isArray` code. `cid` 0: the class is not known (files
/// of format versions 1 and 2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjDef {
    pub obj: u64,
    pub cid: u32,
    pub is_array: u8,
}

/// A tag the application wrote into the trace (`jtrace.Trace.tag`; the JUnit listener
/// marks tests with it): on thread `tid` at tick `t`, a name and key/value pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagDef {
    pub tid: u32,
    pub t: u64,
    pub name: String,
    pub fields: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
pub enum Def {
    /// An object first named by an event other than its allocation (objDef).
    Object(ObjDef),
    /// A class that should have been traced but could not be rewritten: (name, why).
    Untraced(String, String),
    /// A method of a traced class rewritten with less than asked: (class name,
    /// `method(descriptor): why; what it kept`), e.g. its line probes dropped to stay
    /// under the JVM's 64 KiB of code.
    PartlyTraced(String, String),
    Thread(ThreadDef),
    Class(ClassDef),
    Method(MethodDef),
    /// Sent after the tagging thread's earlier records (its buffer is flushed first), so
    /// it takes its place among that thread's events.
    Tag(TagDef),
}

/// What the sink receives.
#[derive(Debug)]
pub enum Msg {
    /// Records of one thread, in the order they happened.
    Chunk {
        tid: u32,
        data: Vec<u8>,
    },
    /// Several threads' records at once (a steal at GC start), in this order.
    Chunks(Vec<(u32, Vec<u8>)>),
    Defs(Vec<Def>),
    /// A point in the stream and nothing else: everything sent before it has reached
    /// the sink once the sink sees it (a ring's dump waits for it). Never written.
    Mark(u64),
    /// All records are in: write runtimeShutdown (on thread `tid` if it is still
    /// alive; the VM may post VM death after that thread's end) and close the document.
    Finish {
        t: u64,
        tid: Option<u32>,
        /// Bytes of records that never reached the sink (`droppedRecordBytes`).
        dropped_bytes: u64,
        /// The VM is shutting down (write runtimeShutdown); false for `jtrace stop`,
        /// which ends a trace while the JVM goes on.
        shutdown: bool,
        /// Invocations of methods made outside this trace (between traces, or counted
        /// by earlier traces): added to the trace's own entries in `methodCount`,
        /// which counts every invocation since the class was instrumented.
        count_base: Vec<(u32, u64)>,
        /// Counts the agent adds to traceEnd's annotations, by name (windows seen and
        /// kept); empty in files written before.
        notes: Vec<(String, u64)>,
    },
}
