//! What a check finds: the rule a trace breaks (`Rule`) and where (`Violation`), and how many are told at most.

use std::fmt;

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
    /// Windows (`window=`): each `window` tag pair opens and closes one window on a
    /// defined thread, with the same id and method; its end's `calls` is the number of
    /// entries between them; with the `window` option no entry lies outside a window.
    Windows,
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
            Rule::Windows => "windows",
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
