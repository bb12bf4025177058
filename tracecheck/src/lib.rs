//! tracecheck: semantic checks over a jtrace TPTP trace.
//!
//! [`check`] streams a trace file once (constant memory in the trace length, apart from
//! the live ids) and either returns a [`Summary`] of what it contains or the first
//! [`MAX_VIOLATIONS`] rule violations, each with the line it was found on. The rules are
//! listed on [`Rule`]; `docs/TRACE_FORMAT.md` describes them for readers of traces.

#![forbid(unsafe_code)]

mod attrs;
mod census;
mod checker;
mod idmap;
mod integrity;
mod lines;
pub mod linetable;
mod model;
mod read;
mod rules;
pub mod summary;
pub mod vocab;

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

pub use attrs::Call;
pub use census::{census, Census};
pub use checker::Checker;
pub use summary::{AllocStats, MethodStats, Summary, ThreadInfo, WaitStats};

/// Checking stops after this many violations.
pub const MAX_VIOLATIONS: usize = 20;

/// The rule a violation breaks (also its name in messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Well-formed XML (as far as the streaming parser sees).
    Xml,
    /// Root `TRACE`; `node`, `processCreate`, `agentCreate`, `traceStart` first; `traceEnd`,
    /// `methodCount`*, `agentDestroy` last; hierarchy idrefs match.
    Structure,
    /// Element names, attribute names and child elements from the TPTP vocabulary.
    Vocabulary,
    /// An attribute the checks need is missing or not a number.
    Attribute,
    /// Ids are defined before use, not used after being undefined, not redefined while live.
    /// Objects are defined by `objAlloc` or `objDef` (an object first named by an exception
    /// or a monitor) and undefined by `objFree`/`objMove`; classes and their methods are
    /// undefined by `classUnload`. One class, one classDef: a class name defined by the
    /// boot, platform or application loader (one instance each) is not defined again
    /// while its first classDef lives; no classDef is named `X[]` (array classes go by
    /// their descriptor, `[I`, as TPTP's importer needs).
    Ids,
    /// `time` is `\d+\.\d{9}` and never decreases within a thread.
    Time,
    /// Per thread: exits close the innermost entry; tickets increase; stackDepth is the
    /// number of open frames (clamped at 32767, the xsd:short range: `Attribute`); entry classIdRef is the method's class; frames are closed at
    /// threadEnd unless the thread ended after runtimeShutdown, or at the close of a
    /// stopped trace (its threadEnd is followed only by other threadEnds, gcFinish and
    /// traceEnd: those calls were still running at the stop).
    Nesting,
    /// throw/line name an open frame of their thread, catch the innermost one.
    Frames,
    /// objFree/objMove/classUnload inside gcStart..gcFinish; gcStart and gcFinish alternate;
    /// gcFinish usedObjectSpace <= totalObjectSpace.
    Gc,
    /// Exactly one methodCount per method, never fewer than the methodEntry elements of
    /// that method; what the counts exceed the entries by, summed over methods, is
    /// traceEnd's `invocationsOutsideTrace` annotation (0 when absent): invocations
    /// made while no trace recorded (`jtrace stop`/`start`, `start=off`, `delay=`).
    MethodCount,
    /// monContendedEntered follows monContendedEnter (same thread and object);
    /// monWaited follows monWait; a thread never contends with itself (threadOwner);
    /// timeout, threadOwner and isTimedOut (`true`/`false`) are present and well-formed.
    Monitors,
    /// objAlloc: isArray is 0, 2 or 4..=11; objects and object arrays name a class
    /// (the element class for arrays: `int`, `byte`, ... for primitive arrays); size > 0; the allocating
    /// method (aMethodIdRef) belongs to aClassIdRef; aLineNr lies within the method's
    /// startLineNumber..endLineNumber.
    Alloc,
    /// With `lines=on`: a classDef's `methodLineTables` annotation decodes, with one
    /// entry per `methodNames` entry (and per numMethods); every `line@line_number` is in
    /// its method's decoded table and `line@file_name` is its class's sourceName.
    LineTable,
    /// The file could not be read.
    Io,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::Xml => "xml",
            Rule::Structure => "structure",
            Rule::Vocabulary => "vocabulary",
            Rule::Attribute => "attribute",
            Rule::Ids => "ids",
            Rule::Time => "time",
            Rule::Nesting => "nesting",
            Rule::Frames => "frames",
            Rule::Gc => "gc-bracket",
            Rule::MethodCount => "method-count",
            Rule::Monitors => "monitors",
            Rule::Alloc => "alloc",
            Rule::LineTable => "line-table",
            Rule::Io => "io",
        }
    }
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// 1-based line of the element (0 if not tied to a line).
    pub line: u64,
    pub rule: Rule,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: [{}] {}",
            self.line,
            self.rule.name(),
            self.message
        )
    }
}

/// Checks the trace at `path`.
pub fn check(path: impl AsRef<Path>) -> Result<Summary, Vec<Violation>> {
    let path = path.as_ref();
    match File::open(path) {
        Ok(f) => check_reader(BufReader::with_capacity(1 << 20, f)),
        Err(e) => Err(vec![Violation {
            line: 0,
            rule: Rule::Io,
            message: format!("cannot open {}: {e}", path.display()),
        }]),
    }
}

/// Checks a trace read from `reader`.
pub fn check_reader<R: BufRead>(reader: R) -> Result<Summary, Vec<Violation>> {
    read::run(reader)
}

/// What [`check_prefix`] found.
#[derive(Debug, Clone)]
pub enum Checked {
    /// A complete, valid trace.
    Complete(Summary),
    /// A readable prefix: every whole line up to `lines` obeys every rule, then the
    /// file stops before `</TRACE>` (the writer was killed or ran out of disk). The
    /// summary covers the prefix.
    CutShort { lines: u64, summary: Summary },
}

/// Checks a trace that may have been cut short. A partial last line (an element the
/// writer had not finished) is left out: jtrace writes one element per line, so the
/// prefix up to the last newline is what a reader can use. A file that is complete
/// gives [`Checked::Complete`]; violations before the cut are still violations.
pub fn check_prefix(path: impl AsRef<Path>) -> Result<Checked, Vec<Violation>> {
    let path = path.as_ref();
    let io = |e: std::io::Error| {
        vec![Violation {
            line: 0,
            rule: Rule::Io,
            message: format!("cannot read {}: {e}", path.display()),
        }]
    };
    let mut f = File::open(path).map_err(io)?;
    let whole = last_newline(&mut f).map_err(io)?;
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    let reader = BufReader::with_capacity(1 << 20, f.take(whole));
    let (summary, cut) = read::run_with(reader, true)?;
    Ok(match cut {
        None => Checked::Complete(summary),
        Some(lines) => Checked::CutShort { lines, summary },
    })
}

/// The length of the file up to and including its last newline (0 if none).
fn last_newline(f: &mut File) -> std::io::Result<u64> {
    let len = f.metadata()?.len();
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Checks a trace held in memory (handy in tests).
pub fn check_str(trace: &str) -> Result<Summary, Vec<Violation>> {
    check_reader(trace.as_bytes())
}
