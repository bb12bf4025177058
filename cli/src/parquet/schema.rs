//! The six tables' columns, in one place: names, Parquet types, encodings and meaning
//! (docs/PARQUET.md describes the same columns for readers).

use super::table::{Column, Enc, Kind};

const fn col(name: &'static str, kind: Kind, enc: Enc, doc: &'static str) -> Column {
    Column {
        name,
        kind,
        enc,
        doc,
    }
}

use Enc::{Delta, Dict, Front, Plain};
use Kind::{Bool, Const, Int, OptInt, OptText, Text};

/// The last column of every table: the trace's id, the same in every row of a file and
/// equal to the `trace_id=<id>` directory it is in, so engines that do not read the
/// directory name as a column (Spark given `DIR/*/calls.parquet`) still have it.
pub const TRACE_ID: Column = col(
    "trace_id",
    Const,
    Dict,
    "the trace: --trace-id, else its own id, else its file name; its trace_id=<id> directory",
);

/// `calls`: one row per call, sorted by thread then start.
pub mod calls {
    use super::*;
    pub const CALL_ID: usize = 0;
    pub const PARENT_ID: usize = 1;
    pub const THREAD_ID: usize = 2;
    pub const METHOD_ID: usize = 3;
    pub const PATH_ID: usize = 4;
    pub const DEPTH: usize = 5;
    pub const START_NS: usize = 6;
    pub const DUR_NS: usize = 7;
    pub const SELF_NS: usize = 8;
    pub const EXIT_KIND: usize = 9;
    pub const RECURSIVE: usize = 10;
    pub const EXCEPTION_CLASS: usize = 11;
    pub const ALLOC_BYTES: usize = 12;
    pub const ALLOC_COUNT: usize = 13;
    pub const WINDOW_ID: usize = 14;
    pub const COLUMNS: &[Column] = &[
        col("call_id", Int, Delta, "the call's number, from 0, in the order the trace's records give entries: rising with start_ns within a thread, across threads only nearly in time order (sort by start_ns for that)"),
        col("parent_id", OptInt, Delta, "call_id of the caller; null for a thread's outermost traced call"),
        col("thread_id", Int, Delta, "threads.thread_id"),
        col("method_id", Int, Delta, "methods.method_id"),
        col("path_id", Int, Delta, "paths.path_id: the root-to-method path"),
        col("depth", Int, Delta, "0 for a thread's outermost traced call"),
        col("start_ns", Int, Delta, "entry, ns since the trace's start"),
        col("dur_ns", Int, Delta, "inclusive time; for an open call, up to its thread's or the trace's end"),
        col("self_ns", Int, Delta, "dur_ns minus the children's dur_ns"),
        col("exit_kind", Text, Dict, "return | throw (an exception was thrown here and left) | unwind (one thrown deeper passed through) | open (still running at the end)"),
        col("recursive", Bool, Plain, "the same method is open further down the stack (leave out of sums of dur_ns)"),
        col("exception_class", OptText, Dict, "class of the exception that ended the call (throw, unwind), when the trace names it"),
        col("alloc_bytes", Int, Delta, "bytes allocated while the call was the innermost traced one (alloc=exact|sampled)"),
        col("alloc_count", Int, Delta, "objects allocated likewise"),
        col("window_id", OptInt, Delta, "the window (window=, keep=failed) the call ran in, as jtrace windows and --window name it; null outside windows"),
        TRACE_ID,
    ];
}

/// `methods`: every method the trace defines, called or not.
pub mod methods {
    use super::*;
    pub const METHOD_ID: usize = 0;
    pub const METHOD_KEY: usize = 1;
    pub const CLASS: usize = 2;
    pub const METHOD: usize = 3;
    pub const SIGNATURE: usize = 4;
    pub const SOURCE_FILE: usize = 5;
    pub const FIRST_LINE: usize = 6;
    pub const CLASS_LOADER: usize = 7;
    pub const COLUMNS: &[Column] = &[
        col("method_id", Int, Plain, "the method within this trace"),
        col(
            "method_key",
            Text,
            Plain,
            "Class.method(signature) with the JVM's method name (`<init>`, `<clinit>`): the same method in every trace",
        ),
        col("class", Text, Dict, "dotted class name"),
        col(
            "method",
            Text,
            Dict,
            "method name, as the JVM and javap write it (`<init>`, not TPTP's `-init-`)",
        ),
        col("signature", Text, Dict, "JNI descriptor"),
        col(
            "source_file",
            OptText,
            Dict,
            "the class's source file, when compiled with it",
        ),
        col(
            "first_line",
            OptInt,
            Plain,
            "the method's first source line, when known",
        ),
        col(
            "class_loader",
            OptText,
            Dict,
            "the class's loader (bootstrap, the loader's class)",
        ),
        TRACE_ID,
    ];
}

/// `threads`: every thread the trace saw.
pub mod threads {
    use super::*;
    pub const THREAD_ID: usize = 0;
    pub const THREAD_KEY: usize = 1;
    pub const NAME: usize = 2;
    pub const START_NS: usize = 3;
    pub const END_NS: usize = 4;
    pub const GROUP: usize = 5;
    pub const IS_VIRTUAL: usize = 6;
    pub const COLUMNS: &[Column] = &[
        col(
            "thread_id",
            Int,
            Plain,
            "the thread within this trace (order of first appearance)",
        ),
        col(
            "thread_key",
            Int,
            Plain,
            "the trace's own thread id (threadId)",
        ),
        col("name", Text, Dict, "thread name"),
        col("start_ns", Int, Plain, "ns since the trace's start"),
        col(
            "end_ns",
            OptInt,
            Plain,
            "ns since the trace's start; null if it never ended in the trace",
        ),
        col(
            "thread_group",
            OptText,
            Dict,
            "its thread group, when the trace names one",
        ),
        col(
            "is_virtual",
            Bool,
            Plain,
            "a virtual thread (its group is the JVM's VirtualThreads)",
        ),
        TRACE_ID,
    ];
}

/// `paths`: the calling-context tree, one row per distinct root-to-method path.
pub mod paths {
    use super::*;
    pub const PATH_ID: usize = 0;
    pub const PARENT_PATH_ID: usize = 1;
    pub const METHOD_ID: usize = 2;
    pub const DEPTH: usize = 3;
    pub const STACK: usize = 4;
    pub const COLUMNS: &[Column] = &[
        col("path_id", Int, Delta, "the path within this trace"),
        col(
            "parent_path_id",
            OptInt,
            Delta,
            "the caller's path; null at a thread's root",
        ),
        col("method_id", Int, Delta, "the path's last method"),
        col("depth", Int, Delta, "0 at a root"),
        col(
            "stack",
            Text,
            Front,
            "Class.method;Class.method;... from the root (folded-stack form)",
        ),
        TRACE_ID,
    ];
}

/// `trace`: one row about the trace as a whole.
pub mod trace {
    use super::*;
    pub const TRACE_UUID: usize = 0;
    pub const FILE: usize = 1;
    pub const HOST: usize = 2;
    pub const PID: usize = 3;
    pub const COMMAND: usize = 4;
    pub const AGENT_OPTIONS: usize = 5;
    pub const AGENT_VERSION: usize = 6;
    pub const START_UNIX_NS: usize = 7;
    pub const DURATION_NS: usize = 8;
    pub const COMPLETE: usize = 9;
    pub const CALLS: usize = 10;
    pub const THREADS: usize = 11;
    pub const METHODS: usize = 12;
    pub const OPEN_CALLS: usize = 13;
    pub const INFERRED_EXITS: usize = 14;
    pub const MISMATCHED_EXITS: usize = 15;
    pub const GCS: usize = 16;
    pub const DROPPED_RECORD_BYTES: usize = 17;
    pub const UNDEFINED_METHOD_RECORDS: usize = 18;
    pub const UNKNOWN_THREAD_RECORDS: usize = 19;
    pub const JVM_VENDOR: usize = 20;
    pub const JVM_NAME: usize = 21;
    pub const JVM_VERSION: usize = 22;
    pub const JAVA_SPEC_VERSION: usize = 23;
    pub const JAVA_HOME: usize = 24;
    pub const JAVA_COMMAND: usize = 25;
    /// The JVM system property each JVM column holds (agentCreate's annotations).
    pub const JVM_FACTS: [(usize, &str); 6] = [
        (JVM_VENDOR, "java.vm.vendor"),
        (JVM_NAME, "java.vm.name"),
        (JVM_VERSION, "java.vm.version"),
        (JAVA_SPEC_VERSION, "java.vm.specification.version"),
        (JAVA_HOME, "java.home"),
        (JAVA_COMMAND, "sun.java.command"),
    ];
    pub const COLUMNS: &[Column] = &[
        col(
            "trace_uuid",
            OptText,
            Plain,
            "the trace's own id (traceStart traceId)",
        ),
        col("file", Text, Plain, "the file exported, as given"),
        col("host", OptText, Plain, "host name"),
        col("pid", OptInt, Plain, "process id"),
        col("command", OptText, Plain, "the JVM's command line"),
        col("agent_options", OptText, Plain, "the agent's option string"),
        col(
            "agent_version",
            OptText,
            Plain,
            "jtrace version that wrote the trace",
        ),
        col(
            "start_unix_ns",
            Int,
            Plain,
            "the trace's start, ns since the Unix epoch (every *_ns is relative to it)",
        ),
        col("duration_ns", Int, Plain, "trace end minus start"),
        col(
            "complete",
            Bool,
            Plain,
            "the trace was closed properly (not cut short)",
        ),
        col("calls", Int, Plain, "rows in calls"),
        col("threads", Int, Plain, "rows in threads"),
        col("methods", Int, Plain, "rows in methods"),
        col(
            "open_calls",
            Int,
            Plain,
            "calls still open at the end (exit_kind open)",
        ),
        col(
            "inferred_exits",
            Int,
            Plain,
            "exits the reader inferred (frames closed with an outer exit)",
        ),
        col(
            "mismatched_exits",
            Int,
            Plain,
            "exits naming no open frame (ignored)",
        ),
        col("gcs", Int, Plain, "garbage collections"),
        col(
            "dropped_record_bytes",
            OptInt,
            Plain,
            "bytes of records the agent could not write (dropped events; traceEnd droppedRecordBytes)",
        ),
        col(
            "undefined_method_records",
            OptInt,
            Plain,
            "records naming a method never defined, dropped (recordsOfUndefinedMethods)",
        ),
        col(
            "unknown_thread_records",
            OptInt,
            Plain,
            "records of a thread never defined, dropped (recordsOfUnknownThreads)",
        ),
        col("jvm_vendor", OptText, Plain, "the JVM's vendor (java.vm.vendor); null in a trace that does not record the JVM"),
        col("jvm_name", OptText, Plain, "the JVM's name (java.vm.name)"),
        col("jvm_version", OptText, Plain, "the JVM's version (java.vm.version; on OpenJDK builds the same as java.runtime.version)"),
        col("java_spec_version", OptText, Plain, "the Java SE version it implements (java.vm.specification.version, e.g. 21)"),
        col("java_home", OptText, Plain, "its installation directory (java.home)"),
        col("java_command", OptText, Plain, "main class or jar and its arguments, as the java launcher gave them (sun.java.command)"),
        TRACE_ID,
    ];
}

/// `events`: what is not a call, each tied to the call it happened in.
pub mod events {
    use super::*;
    pub const KIND: usize = 0;
    pub const THREAD_ID: usize = 1;
    pub const CALL_ID: usize = 2;
    pub const TIME_NS: usize = 3;
    pub const DUR_NS: usize = 4;
    pub const METHOD_ID: usize = 5;
    pub const LINE: usize = 6;
    pub const CLASS: usize = 7;
    pub const BYTES: usize = 8;
    pub const PEER_THREAD_ID: usize = 9;
    pub const CATCH_METHOD_ID: usize = 10;
    pub const COLUMNS: &[Column] = &[
        col("kind", Text, Dict, "alloc | gc | contended | wait | exception | line"),
        col("thread_id", OptInt, Dict, "null for gc"),
        col("call_id", OptInt, Plain, "the innermost traced call open on the thread (exception: the call it was thrown in; line: the call of method_id it ran in, when traced); null outside any"),
        col("time_ns", Int, Plain, "ns since the trace's start (exception: when thrown; contended, wait, gc: when it began; line: when reached)"),
        col(
            "dur_ns",
            OptInt,
            Plain,
            "gc pause, time blocked or waiting (a wait or contended enter still open at the end: up to its thread's or the trace's end, as an open call's)",
        ),
        col("method_id", OptInt, Dict, "alloc: allocating method; exception: where thrown; contended, wait: the blocked method; line: the method running it"),
        col("line", OptInt, Dict, "source line of method_id's alloc or throw (lines=on or alloc site); line: the line executed (lines=on)"),
        col("class", OptText, Dict, "allocated class, exception class, or monitor's class"),
        col("bytes", OptInt, Plain, "alloc: size"),
        col("peer_thread_id", OptInt, Dict, "contended: the thread owning the monitor"),
        col("catch_method_id", OptInt, Dict, "exception: the method that caught it; null if it left the traced code"),
        TRACE_ID,
    ];
}

/// Every table: its name (its file, `<name>.parquet`), what a row is, its columns.
pub const ALL: [(&str, &str, &[Column]); 6] = [
    (
        "calls",
        "one row per call, sorted by thread then start",
        calls::COLUMNS,
    ),
    (
        "methods",
        "every method the trace defines, called or not",
        methods::COLUMNS,
    ),
    ("threads", "every thread the trace saw", threads::COLUMNS),
    (
        "paths",
        "the calling-context tree: one row per distinct root-to-method path",
        paths::COLUMNS,
    ),
    (
        "trace",
        "one row about the trace as a whole",
        trace::COLUMNS,
    ),
    (
        "events",
        "what is not a call, each tied to the call it happened in",
        events::COLUMNS,
    ),
];

/// The schema as Markdown tables (`jtrace parquet --schema`; docs/PARQUET.md shows it).
pub fn markdown() -> String {
    let mut s = String::new();
    for (name, what, cols) in ALL {
        s.push_str(&format!(
            "### `{name}`: {what}\n\n| column | type | encoding | meaning |\n|---|---|---|---|\n"
        ));
        for c in cols {
            let ty = match c.kind {
                Kind::Int => "INT64",
                Kind::OptInt => "INT64, null",
                Kind::Text | Kind::Const => "STRING",
                Kind::OptText => "STRING, null",
                Kind::Bool => "BOOLEAN",
            };
            let enc = match c.enc {
                _ if c.kind == Kind::Bool => "plain",
                Enc::Dict => "dictionary",
                Enc::Delta => "delta",
                Enc::Plain => "plain",
                Enc::Front => "front-coded",
            };
            s.push_str(&format!(
                "| `{}` | {ty} | {enc} | {} |\n",
                c.name,
                c.doc.replace('|', "\\|")
            ));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    /// docs/PARQUET.md shows the schema exactly as the code writes it.
    #[test]
    fn docs_show_the_schema() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/PARQUET.md");
        let docs = std::fs::read_to_string(path).expect("docs/PARQUET.md");
        assert!(
            docs.contains(&super::markdown()),
            "docs/PARQUET.md's schema differs from `jtrace parquet --schema`; paste its output"
        );
    }
}
