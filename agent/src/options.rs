//! Agent option string parsing: pure, no side effects.
//!
//! The JVM hands the agent everything after `=` in `-agentpath:libjtrace.so=...` as one
//! string. It is a `,`-separated list of `key=value` items (plus the bare `help`).
//! Parsing reads the whole string and collects every problem before failing, so a user
//! with three typos sees all three at once instead of restarting the JVM three times.
//! Nothing here touches the environment, the clock or stderr: the caller decides what
//! to print and how to stop, which keeps this module trivially testable.
//!
//! The user-facing description lives in `docs/OPTIONS.md`; keep the two in step.

use std::fmt;

/// Instrumentation strategy when `mode=` is not given. A constant (not a literal in
/// `Default`) so that the help text and the option table's default column follow it.
pub const DEFAULT_MODE: Mode = Mode::Bci;

/// Default output template: one file per process, so parallel JVMs never clobber each other;
/// compact records (13 bytes per method event where XML takes about 240), so that tracing a
/// whole program fits the disk; `jtrace xml` renders the document from them.
pub const DEFAULT_OUT: &str = "jtrace-%p.jtr";

/// The XML trace `jtr=` writes beside, when no `out=` names it.
pub const DEFAULT_XML_OUT: &str = "jtrace-%p.xml";

/// JDK packages excluded after the user's rules: tracing the platform drowns the
/// application's own calls and costs most of the overhead.
pub const DEFAULT_EXCLUDES: [&str; 5] = ["java.*", "javax.*", "jdk.*", "sun.*", "com.sun.*"];

/// The agent's own Java helpers live here; tracing them would make the agent observe
/// (and recurse into) itself, so no rule can turn them on.
pub const SELF_PACKAGE_PREFIX: &str = "jtrace.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Jvmti,
    Bci,
}

impl Mode {
    // const so the option table's default column can be derived from DEFAULT_MODE.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Jvmti => "jvmti",
            Mode::Bci => "bci",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocMode {
    Off,
    Exact,
    /// Record roughly one allocation per this many allocated bytes.
    Sampled(u64),
}

impl AllocMode {
    /// The value as it would be written in the option string (sizes normalised to bytes).
    pub fn value(self) -> String {
        match self {
            AllocMode::Off => "off".to_string(),
            AllocMode::Exact => "exact".to_string(),
            AllocMode::Sampled(bytes) => format!("sampled:{bytes}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterMode {
    Include,
    Exclude,
}

impl FilterMode {
    pub fn as_str(self) -> &'static str {
        match self {
            FilterMode::Include => "include",
            FilterMode::Exclude => "exclude",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterRule {
    /// As written, with its `*`.
    pub pattern: String,
    /// Method name pattern (TPTP filter files); `None` means every method.
    pub method: Option<String>,
    pub mode: FilterMode,
}

/// A filter rule in the shape of the TPTP `<filter>` element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EchoFilter {
    /// The pattern with its `*` removed.
    pub pattern: String,
    /// `none` (exact), `suffix` (trailing `*`: names starting with `pattern`),
    /// `prefix` (leading `*`: names ending with `pattern`).
    pub generic_pattern: &'static str,
    pub mode: &'static str,
}

impl FilterRule {
    fn new(pattern: &str, mode: FilterMode) -> FilterRule {
        FilterRule {
            pattern: pattern.to_string(),
            method: None,
            mode,
        }
    }

    /// Whether this rule's pattern matches a dotted class name.
    pub fn matches(&self, dotted_class_name: &str) -> bool {
        wildcard_match(&self.pattern, dotted_class_name)
    }

    /// Whether the rule covers every method of the classes it matches.
    pub fn all_methods(&self) -> bool {
        self.method.as_deref().is_none_or(|m| m == "*")
    }

    /// Whether this rule matches method `method` of class `dotted_class_name`.
    pub fn matches_method(&self, dotted_class_name: &str, method: &str) -> bool {
        self.matches(dotted_class_name)
            && self
                .method
                .as_deref()
                .is_none_or(|m| wildcard_match(m, method))
    }

    /// The rule as a line of a TPTP filter file (`CLASS METHOD MODE`).
    pub fn file_line(&self) -> String {
        format!(
            "{} {} {}",
            self.pattern,
            self.method.as_deref().unwrap_or("*"),
            self.mode.as_str().to_ascii_uppercase()
        )
    }

    /// TPTP's naming is from the wildcard's point of view: a trailing `*` means the
    /// rest of the name is a free *suffix*. The lone `*` becomes an empty "suffix"
    /// pattern, which matches every name just like the rule itself.
    pub fn echo(&self) -> EchoFilter {
        let p = self.pattern.as_str();
        let (pattern, generic_pattern) = if p == "*" {
            ("", "suffix")
        } else if let Some(rest) = p.strip_prefix('*') {
            (rest, "prefix")
        } else if let Some(rest) = p.strip_suffix('*') {
            (rest, "suffix")
        } else {
            (p, "none")
        };
        EchoFilter {
            pattern: pattern.to_string(),
            generic_pattern,
            mode: self.mode.as_str(),
        }
    }
}

/// A pattern with an optional `*` at its start, at its end, or alone.
fn wildcard_match(p: &str, name: &str) -> bool {
    if p == "*" {
        true
    } else if let Some(suffix) = p.strip_prefix('*') {
        name.ends_with(suffix)
    } else if let Some(prefix) = p.strip_suffix('*') {
        name.starts_with(prefix)
    } else {
        name == p
    }
}

/// A method as `window=` names it: `Class.method`, the class as in `include` (`*`
/// first or last), the method a name or `*` (the last dot separates them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodPattern {
    pub class: String,
    pub method: String,
}

impl MethodPattern {
    fn parse(p: &str) -> Result<MethodPattern, String> {
        let Some((class, method)) = p.rsplit_once('.') else {
            return Err(
                "a window is a method: Class.method (the last dot before the method)".into(),
            );
        };
        check_pattern(class)?;
        if method.is_empty() || (method != "*" && !is_java_name(method)) {
            return Err(format!("\"{method}\" is not a method name or *"));
        }
        Ok(MethodPattern {
            class: class.to_string(),
            method: method.to_string(),
        })
    }

    /// Whether method `method` of class `dotted_class_name` is one this pattern names.
    pub fn matches(&self, dotted_class_name: &str, method: &str) -> bool {
        wildcard_match(&self.class, dotted_class_name)
            && (self.method == "*" || self.method == method)
    }

    fn value(&self) -> String {
        format!("{}.{}", self.class, self.method)
    }
}

fn is_java_name(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '<' || c == '>')
}

/// The smallest `ring=`.
pub const MIN_RING: u64 = 1 << 20;

/// The smallest `max-size=`.
pub const MIN_SERIES: u64 = 4 << 20;

/// Bytes one window may hold back by default while its fate is open (`window-max=`).
pub const DEFAULT_WINDOW_MAX: u64 = 8 * 1024 * 1024;

/// `keep=`: the rules that decide, while recording, which windows are written; a window
/// any rule keeps is written. No rule (`all`): every window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Keep {
    /// `over:DURATION`: windows that took longer, in ms.
    pub over_ms: Option<u64>,
    /// `exception`: windows that ended by an exception.
    pub exception: bool,
    /// `sample:1/N`: one window in N, chosen when it opens.
    pub sample: Option<u64>,
    /// `failed`: the tests the JUnit marks say failed; each test is a window then.
    pub failed: bool,
}

impl Keep {
    /// Whether every window is written (no rule given).
    pub fn all(&self) -> bool {
        *self == Keep::default()
    }

    fn parse(v: &str) -> Result<Keep, Refused> {
        let mut k = Keep::default();
        if v == "all" {
            return Ok(k);
        }
        for rule in v.split('|') {
            if rule == "exception" {
                k.exception = true;
            } else if rule == "failed" {
                k.failed = true;
            } else if let Some(d) = rule.strip_prefix("over:") {
                let ms = parse_duration_ms(d).filter(|&ms| ms > 0).ok_or_else(|| {
                    Refused::Because(format!("over:{d} is not a duration above 0"))
                })?;
                k.over_ms = Some(ms);
            } else if let Some(s) = rule.strip_prefix("sample:") {
                let n = s
                    .strip_prefix("1/")
                    .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|n| n.parse::<u64>().ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| {
                        Refused::Because(format!(
                            "sample:{s} is not 1/N with N a whole number above 0"
                        ))
                    })?;
                k.sample = Some(n);
            } else {
                return Err(Refused::Because(format!("unknown rule \"{rule}\"")));
            }
        }
        Ok(k)
    }

    /// The value as the option string would write it.
    pub fn value(&self) -> String {
        let mut rules = Vec::new();
        if let Some(ms) = self.over_ms {
            rules.push(format!("over:{ms}ms"));
        }
        if self.exception {
            rules.push("exception".to_string());
        }
        if let Some(n) = self.sample {
            rules.push(format!("sample:1/{n}"));
        }
        if self.failed {
            rules.push("failed".to_string());
        }
        if rules.is_empty() {
            "all".to_string()
        } else {
            rules.join("|")
        }
    }
}

/// Whether the trace starts with the agent (`start=on`, the default) or waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartMode {
    /// Tracing from load (or from attach).
    On,
    /// Loaded idle: nothing is traced until `jtrace start` or `jtrace.Trace.start`.
    Off,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The option string as given (`""` if none).
    pub raw: String,
    /// Output path template (`%p`, `%t`, `%%`), see [`expand_out`].
    pub out: String,
    /// Also keep the compact records here (`jtr=PATH`, same escapes as `out`).
    pub jtr: Option<String>,
    pub mode: Mode,
    /// The full ordered rule list in force: user rules, JDK excludes, catch-all.
    pub filters: Vec<FilterRule>,
    pub alloc: AllocMode,
    pub gc: bool,
    pub monitors: bool,
    pub exceptions: bool,
    pub lines: bool,
    pub help: bool,
    pub start: StartMode,
    /// Milliseconds to wait before the trace starts (JFR's `delay`).
    pub delay_ms: u64,
    /// Milliseconds after which the trace stops on its own; 0: until stopped (JFR's `duration`).
    pub duration_ms: u64,
    /// A TPTP filter file (`filters=FILE`): its rules come before include/exclude.
    /// Read by the caller (`apply_filter_file`), so that parsing stays pure.
    pub filters_file: Option<String>,
    /// The user's own rules (from the filter file, include and exclude), before the
    /// JDK excludes and the catch-all are appended.
    pub user_rules: Vec<FilterRule>,
    /// `counts=all`: between traces, entries still call the agent to be counted.
    pub counts_all: bool,
    /// `inline`: whether the JIT may inline traced methods into their callers; `None`
    /// (`auto`): not in classes instrumented while a trace records.
    pub inline: Option<bool>,
    /// `waits=on`: the JDK's blocking methods (`trace::waits::PROBED`) get probes even
    /// when the filters leave their classes out.
    pub waits: bool,
    /// `window=`: the methods whose calls are windows; empty: no windows (every call
    /// of a traced method is recorded).
    pub windows: Vec<MethodPattern>,
    /// `keep=`: which windows are written.
    pub keep: Keep,
    /// `window-max=`: bytes of records one window may hold back while its fate is open.
    pub window_max: u64,
    /// `ring=`: bytes of the newest records kept in memory instead of written (0: no
    /// ring, every record is written).
    pub ring: u64,
    /// `dump-on=exit`: the ring is written to `out` when the trace ends.
    pub dump_on_exit: bool,
    /// `max-size=`: bytes the series of files may take on disk (0: one file, no series).
    pub max_size: u64,
    /// `max-age=`: how long a file of the series is kept after it is complete, in ms
    /// (0: no limit).
    pub max_age_ms: u64,
}

impl Options {
    /// Whether the trace is written as a series of files (`max-size=`, `max-age=`).
    pub fn series(&self) -> bool {
        self.max_size > 0 || self.max_age_ms > 0
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            raw: String::new(),
            out: DEFAULT_OUT.to_string(),
            jtr: None,
            mode: DEFAULT_MODE,
            filters: rules_in_force(Vec::new()),
            alloc: AllocMode::Off,
            gc: true,
            monitors: true,
            exceptions: true,
            lines: false,
            help: false,
            start: StartMode::On,
            delay_ms: 0,
            duration_ms: 0,
            filters_file: None,
            user_rules: Vec::new(),
            counts_all: false,
            inline: None,
            waits: true,
            windows: Vec::new(),
            keep: Keep::default(),
            window_max: DEFAULT_WINDOW_MAX,
            ring: 0,
            dump_on_exit: false,
            max_size: 0,
            max_age_ms: 0,
        }
    }
}

impl Options {
    /// Whether threads record only inside windows: `window=` names methods, or
    /// `keep=failed` makes each marked test one.
    pub fn windowed(&self) -> bool {
        !self.windows.is_empty() || self.keep.failed
    }

    /// Every non-filter key with its effective value, in table order, so the trace
    /// records exactly what was in force (defaults included), not just what was typed.
    pub fn effective(&self) -> Vec<(&'static str, String)> {
        KEYS.iter()
            .filter_map(|k| Some((k.key, (k.get)(self)?)))
            .collect()
    }

    /// First matching rule wins; the list always ends in a catch-all, so every name
    /// gets an answer. `jtrace.*` is never traced, whatever the rules say.
    pub fn is_traced(&self, dotted_class_name: &str) -> bool {
        self.filters_trace(dotted_class_name) || self.waits_only(dotted_class_name)
    }

    /// Whether the filters select the class (some method of it may be traced).
    fn filters_trace(&self, dotted_class_name: &str) -> bool {
        if dotted_class_name.starts_with(SELF_PACKAGE_PREFIX) {
            return false;
        }
        // A class is instrumented if some method of it may be traced: the first
        // class-wide rule decides, unless a method rule before it includes something.
        for r in self.filters.iter().filter(|r| r.matches(dotted_class_name)) {
            if r.all_methods() {
                return r.mode == FilterMode::Include;
            }
            if r.mode == FilterMode::Include {
                return true;
            }
        }
        true
    }

    /// Whether method `method` (its Java name: `<init>` for constructors) of a traced
    /// class is traced: the first rule matching both class and method wins.
    pub fn is_method_traced(&self, dotted_class_name: &str, method: &str) -> bool {
        if !self.filters_trace(dotted_class_name) {
            return self.waits_probe(dotted_class_name, method);
        }
        self.filters
            .iter()
            .find(|r| r.matches_method(dotted_class_name, method))
            .is_none_or(|r| r.mode == FilterMode::Include)
    }

    /// Whether the methods of this class are checked one by one (a method rule, or a
    /// class the filters leave out whose blocking methods `waits=on` probes), not just
    /// the class.
    pub fn selects_methods(&self, dotted_class_name: &str) -> bool {
        self.filters.iter().any(|r| !r.all_methods()) || self.waits_only(dotted_class_name)
    }

    /// A class the filters leave out that has methods `waits=on` probes.
    pub fn waits_only(&self, dotted_class_name: &str) -> bool {
        self.waits
            && trace::waits::probes_class(dotted_class_name)
            && !self.filters_trace(dotted_class_name)
            && trace::waits::PROBED
                .iter()
                .filter(|(c, _)| *c == dotted_class_name)
                .flat_map(|(_, names)| names.iter())
                .any(|m| self.waits_probe(dotted_class_name, m))
    }

    /// `waits=on` probes this blocking method unless one of the user's own rules
    /// excludes it (the JDK excludes and the catch-all do not apply to it).
    fn waits_probe(&self, dotted_class_name: &str, method: &str) -> bool {
        self.waits
            && trace::waits::probed(dotted_class_name, method)
            && self
                .user_rules
                .iter()
                .find(|r| r.matches_method(dotted_class_name, method))
                .is_none_or(|r| r.mode == FilterMode::Include)
    }
}

fn on_off(b: bool) -> String {
    if b { "on" } else { "off" }.to_string()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    pub message: String,
}

impl OptionError {
    fn new(message: String) -> OptionError {
        OptionError { message }
    }
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OptionError {}

/// Why `KeyInfo::set` refused a value (parse turns it into the message).
enum Refused {
    /// Not one of the valid values: "bad value ... (valid: VALUES)".
    Value,
    /// A valid shape but a bad choice, with the reason.
    Because(String),
    /// Whole messages (one per bad pattern of a list).
    Messages(Vec<String>),
}

/// One option key and everything about it: its help line, how its value is read, how
/// its effective value is echoed, and whether a later trace may change it.
struct KeyInfo {
    key: &'static str,
    /// Valid values as shown to the user; also quoted in error messages.
    values: &'static str,
    default: &'static str,
    what: &'static str,
    /// May be given more than once.
    repeatable: bool,
    /// A trace started by a control request (`jtrace start PID OPTIONS`) may set it;
    /// the others are fixed when the agent loads (capabilities, events, rewriting).
    per_trace: bool,
    /// Reads the value into the options (rules into the user's rule list).
    set: fn(&mut Options, &mut Vec<FilterRule>, &str) -> Result<(), Refused>,
    /// The effective value echoed as an `option` element (None: not echoed; the
    /// filters are `filter` elements).
    get: fn(&Options) -> Option<String>,
    /// Copies what this key decides from a trace's options onto the load options.
    carry: fn(&mut Options, &Options),
}

/// `carry` of a key fixed at load: nothing to copy.
fn fixed(_: &mut Options, _: &Options) {}

fn on_off_value(v: &str) -> Result<bool, Refused> {
    match v {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(Refused::Value),
    }
}

fn out_value(v: &str) -> Result<String, Refused> {
    check_out_template(v).map_err(Refused::Because)?;
    Ok(v.to_string())
}

fn rules_value(
    key: &str,
    mode: FilterMode,
    value: &str,
    rules: &mut Vec<FilterRule>,
) -> Result<(), Refused> {
    let mut bad = Vec::new();
    for pattern in value.split(';') {
        match check_pattern(pattern) {
            Ok(()) => rules.push(FilterRule::new(pattern, mode)),
            Err(why) => bad.push(format!(
                "bad pattern \"{pattern}\" in {key}={value}: {why} \
                 (valid: com.foo.*, *Test, com.foo.Exact, *)"
            )),
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Refused::Messages(bad))
    }
}

/// The trace's rules: the user's, with the JDK excludes and the catch-all.
fn carry_rules(o: &mut Options, t: &Options) {
    o.filters = t.filters.clone();
    o.user_rules = t.user_rules.clone();
}

/// The single source of truth for keys: parsing, `effective`, errors, help, the keys a
/// later trace may set and docs/OPTIONS.md's check all read it, so a new key cannot be
/// half-added.
const KEYS: &[KeyInfo] = &[
    KeyInfo {
        key: "out",
        values: "PATH (%p = pid, %t = start time yyyyMMdd-HHmmss UTC, %n = trace number, %% = %)",
        default: DEFAULT_OUT,
        what: "trace file to write: .jtr = compact records (render with `jtrace xml`), \
               .xml.gz / .xml.zst = compressed XML, anything else = XML",
        repeatable: false,
        per_trace: true,
        set: |o, _, v| out_value(v).map(|x| o.out = x),
        get: |o| Some(o.out.clone()),
        carry: |o, t| o.out = t.out.clone(),
    },
    KeyInfo {
        key: "jtr",
        values: "PATH (same escapes as out)",
        default: "(none)",
        what: "also keep the compact records (.jtr) beside an XML out",
        repeatable: false,
        per_trace: true,
        set: |o, _, v| out_value(v).map(|x| o.jtr = Some(x)),
        get: |o| o.jtr.clone(),
        carry: |o, t| o.jtr = t.jtr.clone(),
    },
    KeyInfo {
        key: "mode",
        values: "jvmti, bci",
        default: DEFAULT_MODE.as_str(),
        what: "how method entry/exit is observed",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            o.mode = match v {
                "jvmti" => Mode::Jvmti,
                "bci" => Mode::Bci,
                _ => return Err(Refused::Value),
            };
            Ok(())
        },
        get: |o| Some(o.mode.as_str().to_string()),
        carry: fixed,
    },
    KeyInfo {
        key: "include",
        values: "PATTERN;PATTERN;... (com.foo.*, *Test, exact.Name, *)",
        default: "(none)",
        what: "classes to trace (repeatable)",
        repeatable: true,
        per_trace: true,
        set: |_, r, v| rules_value("include", FilterMode::Include, v, r),
        get: |_| None,
        carry: carry_rules,
    },
    KeyInfo {
        key: "exclude",
        values: "PATTERN;PATTERN;... (com.foo.*, *Test, exact.Name, *)",
        default: "(none; JDK packages are excluded anyway)",
        what: "classes not to trace (repeatable)",
        repeatable: true,
        per_trace: true,
        set: |_, r, v| rules_value("exclude", FilterMode::Exclude, v, r),
        get: |_| None,
        carry: carry_rules,
    },
    KeyInfo {
        key: "alloc",
        values: "off, exact, sampled:BYTES (suffix k or m allowed)",
        default: "off",
        what: "object allocation events",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| parse_alloc(v).ok_or(Refused::Value).map(|x| o.alloc = x),
        get: |o| Some(o.alloc.value()),
        carry: fixed,
    },
    KeyInfo {
        key: "gc",
        values: "on, off",
        default: "on",
        what: "garbage collection events",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| on_off_value(v).map(|x| o.gc = x),
        get: |o| Some(on_off(o.gc)),
        carry: fixed,
    },
    KeyInfo {
        key: "monitors",
        values: "on, off",
        default: "on",
        what: "monitor contention/wait events",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| on_off_value(v).map(|x| o.monitors = x),
        get: |o| Some(on_off(o.monitors)),
        carry: fixed,
    },
    KeyInfo {
        key: "exceptions",
        values: "on, off",
        default: "on",
        what: "exception throw/catch events",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| on_off_value(v).map(|x| o.exceptions = x),
        get: |o| Some(on_off(o.exceptions)),
        carry: fixed,
    },
    KeyInfo {
        key: "lines",
        values: "on, off",
        default: "off",
        what: "one event per executed source line",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| on_off_value(v).map(|x| o.lines = x),
        get: |o| Some(on_off(o.lines)),
        carry: fixed,
    },
    KeyInfo {
        key: "filters",
        values: "FILE (TPTP filter file: CLASS METHOD INCLUDE|EXCLUDE per line)",
        default: "(none)",
        what: "filter rules read from a file, before include/exclude",
        repeatable: false,
        per_trace: true,
        set: |o, _, v| {
            if v.is_empty() {
                return Err(Refused::Value);
            }
            o.filters_file = Some(v.to_string());
            Ok(())
        },
        get: |_| None,
        carry: |o, t| {
            o.filters_file = t.filters_file.clone();
            carry_rules(o, t);
        },
    },
    KeyInfo {
        key: "start",
        values: "on, off",
        default: "on",
        what: "off: load idle; trace only after jtrace start or jtrace.Trace.start",
        repeatable: false,
        per_trace: true,
        set: |o, _, v| {
            o.start = if on_off_value(v)? {
                StartMode::On
            } else {
                StartMode::Off
            };
            Ok(())
        },
        get: |o| Some(on_off(o.start == StartMode::On)),
        carry: |o, t| o.start = t.start,
    },
    KeyInfo {
        key: "delay",
        values: "DURATION (500ms, 30s, 5m, 1h, 1d; 0 = none)",
        default: "0",
        what: "wait this long before the trace starts",
        repeatable: false,
        per_trace: true,
        set: |o, _, v| parse_duration_ms(v).ok_or(Refused::Value).map(|x| o.delay_ms = x),
        get: |o| Some(format!("{}ms", o.delay_ms)),
        carry: |o, t| o.delay_ms = t.delay_ms,
    },
    KeyInfo {
        key: "duration",
        values: "DURATION (500ms, 30s, 5m, 1h, 1d; 0 = until stopped)",
        default: "0",
        what: "stop the trace after this long (the JVM goes on)",
        repeatable: false,
        per_trace: true,
        set: |o, _, v| parse_duration_ms(v).ok_or(Refused::Value).map(|x| o.duration_ms = x),
        get: |o| Some(format!("{}ms", o.duration_ms)),
        carry: |o, t| o.duration_ms = t.duration_ms,
    },
    KeyInfo {
        key: "counts",
        values: "traced, all",
        default: "traced",
        what: "methodCount: traced invocations (traced: probes cost a field read between traces) or every one (all: ~2 ns per call between traces)",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            o.counts_all = match v {
                "all" => true,
                "traced" => false,
                _ => return Err(Refused::Value),
            };
            Ok(())
        },
        get: |o| Some(if o.counts_all { "all" } else { "traced" }.to_string()),
        carry: fixed,
    },
    KeyInfo {
        key: "inline",
        values: "auto, on, off",
        default: "auto",
        what: "whether the JIT may inline traced methods into their callers (off: each is compiled once, on its own; auto: off in classes instrumented while a trace records)",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            o.inline = match v {
                "auto" => None,
                "on" => Some(true),
                "off" => Some(false),
                _ => return Err(Refused::Value),
            };
            Ok(())
        },
        get: |o| {
            Some(
                match o.inline {
                    None => "auto",
                    Some(true) => "on",
                    Some(false) => "off",
                }
                .to_string(),
            )
        },
        carry: fixed,
    },
    KeyInfo {
        key: "waits",
        values: "on, off",
        default: "on",
        what: "probe the JDK's blocking methods (LockSupport.park*, Thread.sleep, socket accept/connect/read, select, Process.waitFor) even when the JDK is not traced, so that waiting shows apart from working",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| on_off_value(v).map(|x| o.waits = x),
        get: |o| Some(on_off(o.waits)),
        carry: fixed,
    },
    KeyInfo {
        key: "window",
        values: "METHOD;METHOD;... (Class.method: Requests.handle, com.example.*.handle, *Service.*)",
        default: "(none)",
        what: "record a thread only while it is inside a call of these methods (a window); keep= decides which windows are written",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            let mut bad = Vec::new();
            for p in v.split(';') {
                match MethodPattern::parse(p) {
                    Ok(m) => o.windows.push(m),
                    Err(why) => bad.push(format!(
                        "bad method \"{p}\" in window={v}: {why} \
                         (valid: Requests.handle, com.example.*.handle, *Service.*)"
                    )),
                }
            }
            if bad.is_empty() {
                Ok(())
            } else {
                Err(Refused::Messages(bad))
            }
        },
        get: |o| {
            (!o.windows.is_empty()).then(|| {
                o.windows
                    .iter()
                    .map(MethodPattern::value)
                    .collect::<Vec<_>>()
                    .join(";")
            })
        },
        carry: fixed,
    },
    KeyInfo {
        key: "keep",
        values: "all, or rules joined by | : over:DURATION, exception, sample:1/N, failed (keep=over:200ms|exception)",
        default: "all",
        what: "which windows are written, decided while recording: those that took longer, ended by an exception, or one in N; failed: each JUnit test is a window, the failing ones are written",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| Keep::parse(v).map(|k| o.keep = k),
        get: |o| o.windowed().then(|| o.keep.value()),
        carry: fixed,
    },
    KeyInfo {
        key: "window-max",
        values: "BYTES (suffix k or m allowed)",
        default: "8m",
        what: "records one window may hold back while keep= has not decided; a window that outgrows it is not written (counted in the trace)",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            parse_size(v)
                .filter(|&b| b >= 1024)
                .ok_or(Refused::Value)
                .map(|b| o.window_max = b)
        },
        get: |o| o.windowed().then(|| o.window_max.to_string()),
        carry: fixed,
    },
    KeyInfo {
        key: "ring",
        values: "BYTES (suffix k, m or g allowed; at least 1m)",
        default: "(none)",
        what: "keep the newest records in memory instead of writing them; jtrace dump, jtrace.Trace.dump or dump-on=exit writes them as a complete trace",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            parse_size(v)
                .filter(|&b| b >= MIN_RING)
                .ok_or(Refused::Value)
                .map(|b| o.ring = b)
        },
        get: |o| (o.ring > 0).then(|| o.ring.to_string()),
        carry: fixed,
    },
    KeyInfo {
        key: "dump-on",
        values: "exit, off",
        default: "off",
        what: "with ring=: write the ring to out= when the trace ends (the JVM exits, jtrace stop, duration= is over)",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            o.dump_on_exit = match v {
                "exit" => true,
                "off" => false,
                _ => return Err(Refused::Value),
            };
            Ok(())
        },
        get: |o| (o.ring > 0).then(|| if o.dump_on_exit { "exit" } else { "off" }.to_string()),
        carry: fixed,
    },
    KeyInfo {
        key: "max-size",
        values: "BYTES (suffix k, m or g allowed; at least 4m)",
        default: "(none)",
        what: "write the trace as a series of .jtr files (out= with %n), each complete; a new file past a quarter of BYTES, the oldest removed while the series takes more",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            parse_size(v)
                .filter(|&b| b >= MIN_SERIES)
                .ok_or(Refused::Value)
                .map(|b| o.max_size = b)
        },
        get: |o| (o.max_size > 0).then(|| o.max_size.to_string()),
        carry: fixed,
    },
    KeyInfo {
        key: "max-age",
        values: "DURATION (500ms, 30s, 5m, 1h, 1d)",
        default: "(none)",
        what: "write the trace as a series of .jtr files (out= with %n), each complete; a new file after a quarter of DURATION, a file removed once it is older",
        repeatable: false,
        per_trace: false,
        set: |o, _, v| {
            parse_duration_ms(v)
                .filter(|&ms| ms > 0)
                .ok_or(Refused::Value)
                .map(|ms| o.max_age_ms = ms)
        },
        get: |o| (o.max_age_ms > 0).then(|| format!("{}ms", o.max_age_ms)),
        carry: fixed,
    },
    KeyInfo {
        key: "help",
        values: "(no value)",
        default: "-",
        what: "print this table; the JVM does not start",
        repeatable: false,
        per_trace: false,
        // Takes no value: `parse` handles the bare key.
        set: |_, _, _| Err(Refused::Value),
        get: |o| Some(on_off(o.help)),
        carry: fixed,
    },
];

/// The keys a trace started later may set, in table order.
pub fn per_trace_keys() -> Vec<&'static str> {
    KEYS.iter().filter(|k| k.per_trace).map(|k| k.key).collect()
}

/// The options of a later trace: `base` (the load options) with everything the
/// per-trace keys decide taken from `trace` (every per-trace key, given or not: a
/// trace that names no include gets the default rules, not the last trace's), except
/// the file: a trace that names no `out` writes where the agent was loaded to write
/// (`out` and `jtr` of `base`), so `jtrace.Trace.start("")` keeps the load-time file.
pub fn for_trace(base: &Options, raw: &str, trace: &Options) -> Options {
    let mut merged = base.clone();
    merged.raw = raw.to_string();
    let names_out = raw
        .split(',')
        .any(|i| i.split('=').next().is_some_and(|k| k == "out"));
    for k in KEYS.iter().filter(|k| k.per_trace) {
        if !names_out && (k.key == "out" || k.key == "jtr") {
            continue;
        }
        (k.carry)(&mut merged, trace);
    }
    merged
}

/// Every option key, in table order (docs/OPTIONS.md is checked against it).
pub fn keys() -> Vec<&'static str> {
    KEYS.iter().map(|k| k.key).collect()
}

fn key_list() -> String {
    KEYS.iter().map(|k| k.key).collect::<Vec<_>>().join(", ")
}

/// The option table, for `help` and for appending to error output.
pub fn help_text() -> String {
    let kw = KEYS.iter().map(|k| k.key.len()).max().unwrap_or(0);
    let mut s = String::from(
        "jtrace options: -agentpath:/path/to/libjtrace.so=key=value,key=value,...\n\n",
    );
    for k in KEYS {
        s.push_str(&format!(
            "  {:kw$}  {}\n  {:kw$}    values:  {}\n  {:kw$}    default: {}\n",
            k.key, k.what, "", k.values, "", k.default
        ));
    }
    s.push_str(
        "\nFilters: rules apply in the order written, first match wins; then the JDK\n\
         (java.*, javax.*, jdk.*, sun.*, com.sun.*) is excluded; anything left is traced\n\
         unless you wrote an include rule. Classes in jtrace.* are never traced.\n",
    );
    s
}

/// All errors as one block for a single stderr write, followed by the option table so
/// the user does not need a second run with `help`.
pub fn error_report(errors: &[OptionError]) -> String {
    let mut s = String::from("jtrace: invalid agent options:\n");
    for e in errors {
        s.push_str("  - ");
        s.push_str(&e.message);
        s.push('\n');
    }
    s.push('\n');
    s.push_str(&help_text());
    s
}

/// User rules first (they win), then the JDK excludes, then the catch-all whose
/// direction depends on whether the user asked for a whitelist.
fn rules_in_force(user: Vec<FilterRule>) -> Vec<FilterRule> {
    let any_include = user.iter().any(|r| r.mode == FilterMode::Include);
    let mut rules = user;
    rules.extend(
        DEFAULT_EXCLUDES
            .iter()
            .map(|p| FilterRule::new(p, FilterMode::Exclude)),
    );
    let catch_all = if any_include {
        FilterMode::Exclude
    } else {
        FilterMode::Include
    };
    rules.push(FilterRule::new("*", catch_all));
    rules
}

pub fn parse(s: &str) -> Result<Options, Vec<OptionError>> {
    let mut opts = Options {
        raw: s.to_string(),
        ..Options::default()
    };
    let mut errors = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut user_rules = Vec::new();

    for item in s.split(',') {
        // Empty items (",," or a trailing ",") are harmless and common in scripts
        // that build the string by concatenation.
        if item.is_empty() {
            continue;
        }
        let (key, value) = match item.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (item, None),
        };
        let Some(info) = KEYS.iter().find(|k| k.key == key) else {
            errors.push(OptionError::new(format!(
                "unknown option key \"{key}\" (valid keys: {})",
                key_list()
            )));
            continue;
        };
        if !info.repeatable {
            if seen.contains(&key) {
                errors.push(OptionError::new(format!(
                    "option \"{key}\" given more than once (only include and exclude may repeat)"
                )));
                continue;
            }
            seen.push(key);
        }
        let value = match (key, value) {
            ("help", None) => {
                opts.help = true;
                continue;
            }
            ("help", Some(v)) => {
                errors.push(OptionError::new(format!(
                    "option \"help\" takes no value, got help={v}"
                )));
                continue;
            }
            (_, None) => {
                errors.push(OptionError::new(format!(
                    "option \"{key}\" needs a value: {key}=VALUE (valid: {})",
                    info.values
                )));
                continue;
            }
            (_, Some(v)) => v,
        };
        match (info.set)(&mut opts, &mut user_rules, value) {
            Ok(()) => {}
            Err(Refused::Value) => errors.push(OptionError::new(format!(
                "bad value \"{value}\" for option \"{key}\" (valid: {})",
                info.values
            ))),
            Err(Refused::Because(why)) => errors.push(OptionError::new(format!(
                "bad value \"{value}\" for option \"{key}\": {why} (valid: {})",
                info.values
            ))),
            Err(Refused::Messages(m)) => errors.extend(m.into_iter().map(OptionError::new)),
        }
    }

    if opts.start == StartMode::Off && opts.delay_ms > 0 {
        errors.push(OptionError::new(
            "start=off and delay= contradict each other: delay starts the trace on its own \
             (give one of them)"
                .to_string(),
        ));
    }
    if !opts.windowed() {
        for key in ["keep", "window-max"]
            .into_iter()
            .filter(|k| seen.contains(k))
        {
            errors.push(OptionError::new(format!(
                "option \"{key}\" decides about windows, but no window= names any \
                 (valid: window=Class.method with {key}=, or keep=failed: the tests are the windows)"
            )));
        }
    } else if opts.alloc != AllocMode::Off {
        errors.push(OptionError::new(format!(
            "window= and alloc={} cannot be combined yet: an allocation in a window that is \
             not written would leave its object undefined where the collector frees it \
             (valid: window= with alloc=off)",
            opts.alloc.value()
        )));
    }
    if opts.ring == 0 && seen.contains(&"dump-on") {
        errors.push(OptionError::new(
            "option \"dump-on\" writes the ring, but no ring= keeps one \
             (valid: ring=SIZE with dump-on=exit; without a ring every record is written anyway)"
                .to_string(),
        ));
    }
    if opts.series() {
        let mut why = Vec::new();
        if !opts.out.contains("%n") {
            why.push(format!(
                "out={} has no %n to number the files (valid: out=trace-%n.jtr)",
                opts.out
            ));
        }
        if trace::compress::Format::from_path(&opts.out) != trace::compress::Format::Jtr
            || opts.jtr.is_some()
        {
            why.push("a series is written as .jtr files (valid: out=PATH-%n.jtr without jtr=; jtrace xml renders one)".to_string());
        }
        for (on, what) in [
            (opts.ring > 0, "ring= (it writes only when asked)"),
            (
                opts.windowed(),
                "window= or keep=failed (a window may span two files)",
            ),
            (
                opts.alloc != AllocMode::Off,
                "alloc= (an object may be allocated in one file and freed in the next)",
            ),
        ] {
            if on {
                why.push(format!("not with {what}"));
            }
        }
        for w in why {
            errors.push(OptionError::new(format!("max-size=/max-age=: {w}")));
        }
    }
    if opts.ring > 0 && opts.alloc != AllocMode::Off {
        errors.push(OptionError::new(format!(
            "ring= and alloc={} cannot be combined yet: an allocation that leaves the ring \
                 would leave its object undefined where the collector frees it \
                 (valid: ring= with alloc=off)",
            opts.alloc.value()
        )));
    }
    // `jtr=` keeps the records beside an XML trace: without `out=`, that trace is the
    // default name's XML.
    if opts.jtr.is_some() && !seen.contains(&"out") {
        opts.out = DEFAULT_XML_OUT.to_string();
    }
    if let Some(jtr) = &opts.jtr {
        if trace::compress::Format::from_path(&opts.out) == trace::compress::Format::Jtr {
            errors.push(OptionError::new(format!(
                "option \"jtr={jtr}\" keeps the records beside an XML trace, but out={} \
                 is already a .jtr (valid: out=PATH.xml with jtr=PATH.jtr, or out=PATH.jtr alone)",
                opts.out
            )));
        } else if *jtr == opts.out {
            errors.push(OptionError::new(format!(
                "options \"out\" and \"jtr\" name the same file {jtr} (valid: two different paths)"
            )));
        }
    }

    if errors.is_empty() {
        opts.user_rules = user_rules.clone();
        opts.filters = rules_in_force(user_rules);
        Ok(opts)
    } else {
        Err(errors)
    }
}

/// Reject unknown `%` escapes up front: silently keeping `%x` would produce a file
/// name the user did not intend, discovered only after the run.
fn check_out_template(t: &str) -> Result<(), String> {
    if t.is_empty() {
        return Err("the path must not be empty".to_string());
    }
    let mut chars = t.chars();
    while let Some(c) = chars.next() {
        if c == '%' {
            match chars.next() {
                Some('p' | 't' | 'n' | '%') => {}
                Some(other) => return Err(format!("unknown escape \"%{other}\"")),
                None => return Err("lone \"%\" at the end".to_string()),
            }
        }
    }
    Ok(())
}

fn check_pattern(p: &str) -> Result<(), String> {
    if p.is_empty() {
        return Err("empty pattern".to_string());
    }
    if p == "*" {
        return Ok(());
    }
    let stars = p.matches('*').count();
    let lead = p.starts_with('*');
    let trail = p.ends_with('*');
    if lead && trail {
        return Err("'*' may be at the start or at the end, not both".to_string());
    }
    if stars > usize::from(lead) + usize::from(trail) {
        return Err("'*' is allowed only as the first or last character".to_string());
    }
    // A common slip is the JVM-internal form; say so instead of matching nothing.
    if p.contains('/') {
        return Err("class names are dotted (com.foo.Bar), not slashed".to_string());
    }
    if p.chars().any(char::is_whitespace) {
        return Err("whitespace is not allowed in a class name".to_string());
    }
    Ok(())
}

/// A duration in JFR's spelling (`500ms`, `30s`, `5m`, `2h`, `1d`; `0` alone), in ms.
pub fn parse_duration_ms(v: &str) -> Option<u64> {
    if v == "0" {
        return Some(0);
    }
    let digits_end = v.bytes().position(|b| !b.is_ascii_digit())?;
    let (digits, unit) = v.split_at(digits_end);
    if digits.is_empty() {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    let scale = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// Adds the rules of a TPTP filter file (`text`, read from `path` by the caller) in
/// front of the include/exclude rules. One rule per line: `CLASS METHOD MODE`, with
/// `*` wildcards and MODE `INCLUDE` or `EXCLUDE`; blank lines and lines starting
/// with `#` are skipped. Every bad line is reported with its number.
pub fn apply_filter_file(
    opts: &mut Options,
    path: &str,
    text: &str,
) -> Result<(), Vec<OptionError>> {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: String| {
            OptionError::new(format!(
                "{path}:{}: {why} in \"{line}\" (valid: CLASS METHOD INCLUDE|EXCLUDE, \
                 e.g. com.foo.* * INCLUDE or com.foo.Bar get* EXCLUDE)",
                i + 1
            ))
        };
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [class, method, mode] = fields[..] else {
            errors.push(bad(format!("{} fields, expected 3", fields.len())));
            continue;
        };
        let mode = match mode.to_ascii_uppercase().as_str() {
            "INCLUDE" => FilterMode::Include,
            "EXCLUDE" => FilterMode::Exclude,
            _ => {
                errors.push(bad(format!("mode \"{mode}\" is not INCLUDE or EXCLUDE")));
                continue;
            }
        };
        if let Err(why) = check_pattern(class) {
            errors.push(bad(format!("class pattern \"{class}\": {why}")));
            continue;
        }
        if let Err(why) = check_method_pattern(method) {
            errors.push(bad(format!("method pattern \"{method}\": {why}")));
            continue;
        }
        rules.push(FilterRule {
            pattern: class.to_string(),
            method: (method != "*").then(|| method.to_string()),
            mode,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    rules.append(&mut opts.user_rules);
    opts.user_rules = rules.clone();
    opts.filters = rules_in_force(rules);
    Ok(())
}

fn check_method_pattern(p: &str) -> Result<(), String> {
    if p == "*" {
        return Ok(());
    }
    let stars = p.matches('*').count();
    let lead = p.starts_with('*');
    let trail = p.ends_with('*');
    if (lead && trail) || stars > usize::from(lead) + usize::from(trail) {
        return Err("'*' may be only the first or the last character".to_string());
    }
    if p.contains(['.', '/', '(', ';']) {
        return Err(
            "a method pattern is a name (get*, run), without class or signature".to_string(),
        );
    }
    Ok(())
}

fn parse_alloc(v: &str) -> Option<AllocMode> {
    match v {
        "off" => return Some(AllocMode::Off),
        "exact" => return Some(AllocMode::Exact),
        _ => {}
    }
    parse_size(v.strip_prefix("sampled:")?)
        .filter(|&b| b > 0)
        .map(AllocMode::Sampled)
}

/// A size in bytes, with an optional `k`, `m` or `g` suffix.
fn parse_size(size: &str) -> Option<u64> {
    let (digits, unit) = match size.as_bytes().last()? {
        b'k' | b'K' => (&size[..size.len() - 1], 1024),
        b'm' | b'M' => (&size[..size.len() - 1], 1024 * 1024),
        b'g' | b'G' => (&size[..size.len() - 1], 1024 * 1024 * 1024),
        _ => (size, 1),
    };
    // `u64::from_str` would also take a leading '+'; insist on plain digits.
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// Expand the output template. Unknown escapes are kept verbatim ([`parse`] already
/// rejects them; this stays total so it can never fail at trace-open time).
pub fn expand_out(template: &str, pid: u32, start_unix_secs: u64, seq: u32) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut chars = template.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('p') => out.push_str(&pid.to_string()),
            Some('t') => out.push_str(&utc_stamp(start_unix_secs)),
            Some('n') => out.push_str(&seq.to_string()),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

/// `yyyyMMdd-HHmmss` in UTC. Computed here rather than via libc so this stays pure
/// and independent of the process time zone.
fn utc_stamp(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
/// Howard Hinnant's `civil_from_days`, restricted to non-negative days.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468; // shift the epoch to 0000-03-01 so leap days end a year
    let era = z / 146_097;
    let doe = z - era * 146_097; // day of 400-year era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // 0..=399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of March-based year
    let mp = (5 * doy + 2) / 153; // March = 0
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn errs(s: &str) -> Vec<String> {
        parse(s)
            .expect_err("expected errors")
            .into_iter()
            .map(|e| e.message)
            .collect()
    }

    fn patterns(o: &Options) -> Vec<(String, FilterMode)> {
        o.filters
            .iter()
            .map(|r| (r.pattern.clone(), r.mode))
            .collect()
    }

    #[test]
    fn empty_string_gives_defaults() {
        let o = parse("").unwrap();
        assert_eq!(o, Options::default());
        assert_eq!(o.raw, "");
        assert_eq!(o.out, "jtrace-%p.jtr");
        // jtr= alone: the records beside the default name's XML.
        let o = parse("jtr=r.jtr").unwrap();
        assert_eq!(
            (o.out.as_str(), o.jtr.as_deref()),
            ("jtrace-%p.xml", Some("r.jtr"))
        );
        assert_eq!(o.mode, DEFAULT_MODE);
        assert_eq!(o.mode, Mode::Bci);
        assert_eq!(o.alloc, AllocMode::Off);
        assert!(o.gc && o.monitors && o.exceptions);
        assert!(!o.lines && !o.help);
    }

    #[test]
    fn waits_probe_the_jdks_blocking_methods_alone() {
        let o = parse("").unwrap();
        assert!(o.waits);
        let park = "java.util.concurrent.locks.LockSupport";
        assert!(o.is_traced(park) && o.selects_methods(park));
        assert!(o.is_method_traced(park, "parkNanos"));
        assert!(!o.is_method_traced(park, "unpark"));
        assert!(!o.is_traced("java.util.HashMap"));
        assert!(!o.is_method_traced("java.util.HashMap", "get"));
        // Application classes: every method, as before.
        assert!(o.is_traced("com.foo.Bar") && !o.selects_methods("com.foo.Bar"));
        assert!(o.is_method_traced("com.foo.Bar", "run"));
        // An include elsewhere keeps them; the user's own exclude wins.
        let o = parse("include=com.foo.*").unwrap();
        assert!(o.is_method_traced("java.lang.Thread", "sleep"));
        assert!(!o.is_method_traced("java.lang.Thread", "run"));
        let o = parse("exclude=java.lang.Thread").unwrap();
        assert!(!o.is_traced("java.lang.Thread"));
        assert!(!o.is_method_traced("java.lang.Thread", "sleep"));
        // The JDK traced: the class's own filters decide, every method.
        let o = parse("include=java.*").unwrap();
        assert!(o.is_traced(park) && !o.selects_methods(park));
        assert!(o.is_method_traced(park, "unpark"));
        // Off: nothing of the JDK.
        let o = parse("waits=off").unwrap();
        assert!(!o.waits && !o.is_traced(park) && !o.is_method_traced(park, "park"));
        assert!(o.effective().contains(&("waits", "off".to_string())));
    }

    #[test]
    fn empty_items_are_ignored() {
        let o = parse(",,gc=off,,").unwrap();
        assert!(!o.gc);
        assert_eq!(o.raw, ",,gc=off,,");
        assert_eq!(parse(",").unwrap().raw, ",");
    }

    #[test]
    fn all_keys_parse() {
        let o = parse(
            "out=/tmp/t-%t.xml,mode=bci,include=com.foo.*,exclude=*Test,alloc=exact,\
             gc=off,monitors=off,exceptions=off,lines=on,help",
        )
        .unwrap();
        assert_eq!(o.out, "/tmp/t-%t.xml");
        assert_eq!(o.mode, Mode::Bci);
        assert_eq!(o.alloc, AllocMode::Exact);
        assert!(!o.gc && !o.monitors && !o.exceptions);
        assert!(o.lines && o.help);
        assert_eq!(
            o.filters[0],
            FilterRule::new("com.foo.*", FilterMode::Include)
        );
        assert_eq!(o.filters[1], FilterRule::new("*Test", FilterMode::Exclude));
    }

    #[test]
    fn mode_values() {
        assert_eq!(parse("mode=jvmti").unwrap().mode, Mode::Jvmti);
        assert_eq!(parse("mode=bci").unwrap().mode, Mode::Bci);
        let e = errs("mode=asm");
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("\"asm\"") && e[0].contains("mode"));
        assert!(e[0].contains("jvmti, bci"));
    }

    #[test]
    fn alloc_values() {
        let a = |s: &str| parse(&format!("alloc={s}")).map(|o| o.alloc);
        assert_eq!(a("off").unwrap(), AllocMode::Off);
        assert_eq!(a("exact").unwrap(), AllocMode::Exact);
        assert_eq!(a("sampled:1").unwrap(), AllocMode::Sampled(1));
        assert_eq!(a("sampled:512").unwrap(), AllocMode::Sampled(512));
        assert_eq!(a("sampled:4k").unwrap(), AllocMode::Sampled(4096));
        assert_eq!(a("sampled:4K").unwrap(), AllocMode::Sampled(4096));
        assert_eq!(a("sampled:2m").unwrap(), AllocMode::Sampled(2 << 20));
        assert_eq!(a("sampled:2M").unwrap(), AllocMode::Sampled(2 << 20));
        for bad in [
            "",
            "on",
            "sampled",
            "sampled:",
            "sampled:0",
            "sampled:0k",
            "sampled:k",
            "sampled:-1",
            "sampled:+5",
            "sampled:1.5m",
            "sampled:5t",
            "sampled:99999999999999999999",
            "sampled:18014398509481984m", // overflows u64 after scaling
            "Exact",
        ] {
            let e = a(bad).expect_err(bad);
            assert_eq!(e.len(), 1, "{bad}");
            assert!(e[0].message.contains("alloc"), "{}", e[0]);
            assert!(e[0].message.contains("sampled:BYTES"), "{}", e[0]);
        }
    }

    #[test]
    fn boolean_keys() {
        for key in ["gc", "monitors", "exceptions", "lines"] {
            let on = parse(&format!("{key}=on")).unwrap();
            let off = parse(&format!("{key}=off")).unwrap();
            let get = |o: &Options| match key {
                "gc" => o.gc,
                "monitors" => o.monitors,
                "exceptions" => o.exceptions,
                _ => o.lines,
            };
            assert!(get(&on) && !get(&off), "{key}");
            let e = errs(&format!("{key}=yes"));
            assert_eq!(e.len(), 1);
            assert!(e[0].contains(key) && e[0].contains("\"yes\"") && e[0].contains("on, off"));
        }
    }

    #[test]
    fn out_validation() {
        assert_eq!(parse("out=a%%b.xml").unwrap().out, "a%%b.xml");
        assert!(errs("out=")[0].contains("empty"));
        assert!(errs("out=a%x")[0].contains("%x"));
        assert!(errs("out=a%")[0].contains("lone"));
        let e = errs("out");
        assert!(e[0].contains("needs a value"), "{}", e[0]);
    }

    #[test]
    fn help_takes_no_value() {
        assert!(parse("help").unwrap().help);
        let e = errs("help=yes");
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("no value"));
    }

    #[test]
    fn unknown_key_lists_valid_keys() {
        let e = errs("foo=bar");
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("\"foo\""));
        assert!(e[0].contains(
            "out, jtr, mode, include, exclude, alloc, gc, monitors, exceptions, lines, filters, start, delay, duration, counts, inline, waits, window, keep, window-max, ring, dump-on, max-size, max-age, help"
        ));
        // Keys are case-sensitive; a key without '=' is still a key.
        assert_eq!(errs("GC=on").len(), 1);
        assert_eq!(errs("verbose").len(), 1);
    }

    #[test]
    fn repeated_keys() {
        let o = parse("include=a.*,exclude=b.*,include=c.*;d.X").unwrap();
        let user: Vec<_> = patterns(&o).into_iter().take(4).collect();
        assert_eq!(
            user,
            vec![
                ("a.*".to_string(), FilterMode::Include),
                ("b.*".to_string(), FilterMode::Exclude),
                ("c.*".to_string(), FilterMode::Include),
                ("d.X".to_string(), FilterMode::Include),
            ]
        );
        for key in ["gc=on", "mode=bci", "out=x", "alloc=off", "help"] {
            let e = errs(&format!("{key},{key}"));
            assert_eq!(e.len(), 1, "{key}");
            assert!(e[0].contains("more than once"));
        }
    }

    #[test]
    fn many_errors_reported_at_once() {
        let e = errs("foo=1,gc=maybe,mode=x,include=a*b;;*c*,gc=off,alloc=sampled:0,out=");
        // foo, gc=maybe, mode=x, a*b, empty pattern, *c*, repeated gc, alloc, out
        assert_eq!(e.len(), 9, "{e:#?}");
        assert!(e[0].contains("foo"));
        assert!(e[1].contains("maybe"));
        assert!(e[2].contains("mode"));
        assert!(e[3].contains("\"a*b\""));
        assert!(e[4].contains("empty pattern"));
        assert!(e[5].contains("\"*c*\""));
        assert!(e[6].contains("more than once"));
        assert!(e[7].contains("alloc"));
        assert!(e[8].contains("out"));
    }

    #[test]
    fn pattern_validation() {
        for ok in [
            "*",
            "com.foo.*",
            "*Test",
            "com.foo.Bar",
            "com.foo*",
            "Bar$1",
        ] {
            assert!(check_pattern(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "**",
            "*foo*",
            "a*b",
            "*a*b",
            "a*b*",
            "com/foo/*",
            "com.foo. *",
        ] {
            assert!(check_pattern(bad).is_err(), "{bad:?}");
        }
        let e = errs("exclude=*x*");
        assert!(e[0].contains("\"*x*\"") && e[0].contains("not both"));
        assert!(errs("include=")[0].contains("empty pattern"));
        assert!(errs("include=a;")[0].contains("empty pattern"));
    }

    #[test]
    fn default_filter_list() {
        let o = parse("").unwrap();
        let names: Vec<_> = patterns(&o);
        assert_eq!(
            names,
            vec![
                ("java.*".to_string(), FilterMode::Exclude),
                ("javax.*".to_string(), FilterMode::Exclude),
                ("jdk.*".to_string(), FilterMode::Exclude),
                ("sun.*".to_string(), FilterMode::Exclude),
                ("com.sun.*".to_string(), FilterMode::Exclude),
                ("*".to_string(), FilterMode::Include),
            ]
        );
        assert!(o.is_traced("Main"));
        assert!(o.is_traced("com.foo.Bar"));
        assert!(o.is_traced("javafx.Foo")); // "java.*" needs the dot
        assert!(!o.is_traced("java.lang.String"));
        assert!(!o.is_traced("javax.swing.JFrame"));
        assert!(!o.is_traced("jdk.internal.misc.Unsafe"));
        assert!(!o.is_traced("sun.misc.Unsafe"));
        assert!(!o.is_traced("com.sun.proxy.$Proxy1"));
    }

    #[test]
    fn include_turns_catch_all_into_exclude() {
        let o = parse("include=com.foo.*").unwrap();
        assert_eq!(
            o.filters.last().unwrap(),
            &FilterRule::new("*", FilterMode::Exclude)
        );
        assert_eq!(o.filters.len(), 7);
        assert!(o.is_traced("com.foo.Bar"));
        assert!(o.is_traced("com.foo.bar.Baz$1"));
        assert!(!o.is_traced("com.foobar.X"));
        assert!(!o.is_traced("Main"));
        assert!(!o.is_traced("java.lang.String"));
    }

    #[test]
    fn include_star_traces_everything() {
        let o = parse("include=*").unwrap();
        assert!(o.is_traced("java.lang.String"));
        assert!(o.is_traced("Main"));
        assert!(!o.is_traced("jtrace.Helper"));
    }

    #[test]
    fn first_match_wins() {
        let o = parse("exclude=com.foo.Secret,include=com.foo.*").unwrap();
        assert!(!o.is_traced("com.foo.Secret"));
        assert!(o.is_traced("com.foo.Public"));
        let o = parse("include=com.foo.*,exclude=com.foo.Secret").unwrap();
        assert!(o.is_traced("com.foo.Secret"));
        // A user include can override a JDK default exclude because it comes first.
        let o = parse("include=java.util.*").unwrap();
        assert!(o.is_traced("java.util.HashMap"));
        assert!(!o.is_traced("java.lang.String"));
        // Exclude-only: the catch-all stays include.
        let o = parse("exclude=*Test").unwrap();
        assert!(!o.is_traced("com.foo.BarTest"));
        assert!(o.is_traced("com.foo.Bar"));
    }

    #[test]
    fn jtrace_package_is_never_traced() {
        for s in ["", "include=*", "include=jtrace.*", "include=jtrace.Agent"] {
            let o = parse(s).unwrap();
            assert!(!o.is_traced("jtrace.Agent"), "{s}");
        }
        assert!(parse("").unwrap().is_traced("jtraceX.Agent"));
    }

    #[test]
    fn matching_kinds() {
        let r = |p: &str| FilterRule::new(p, FilterMode::Include);
        assert!(r("*").matches(""));
        assert!(r("*").matches("a.B"));
        assert!(r("*Test").matches("a.BTest"));
        assert!(!r("*Test").matches("a.TestB"));
        assert!(r("a.b.*").matches("a.b.C"));
        assert!(!r("a.b.*").matches("a.b"));
        assert!(r("a.B").matches("a.B"));
        assert!(!r("a.B").matches("a.BC"));
    }

    #[test]
    fn echo_filters() {
        let e = |p: &str, m| FilterRule::new(p, m).echo();
        assert_eq!(
            e("java.*", FilterMode::Exclude),
            EchoFilter {
                pattern: "java.".to_string(),
                generic_pattern: "suffix",
                mode: "exclude"
            }
        );
        assert_eq!(
            e("*Test", FilterMode::Include),
            EchoFilter {
                pattern: "Test".to_string(),
                generic_pattern: "prefix",
                mode: "include"
            }
        );
        assert_eq!(
            e("a.B", FilterMode::Include),
            EchoFilter {
                pattern: "a.B".to_string(),
                generic_pattern: "none",
                mode: "include"
            }
        );
        assert_eq!(
            e("*", FilterMode::Exclude),
            EchoFilter {
                pattern: String::new(),
                generic_pattern: "suffix",
                mode: "exclude"
            }
        );
    }

    #[test]
    fn effective_lists_every_non_filter_key_in_table_order() {
        let o = parse("alloc=sampled:1k,lines=on,out=x.xml").unwrap();
        let eff = o.effective();
        let expect: Vec<(&str, String)> = vec![
            ("out", "x.xml".into()),
            ("mode", "bci".into()),
            ("alloc", "sampled:1024".into()),
            ("gc", "on".into()),
            ("monitors", "on".into()),
            ("exceptions", "on".into()),
            ("lines", "on".into()),
            ("start", "on".into()),
            ("delay", "0ms".into()),
            ("duration", "0ms".into()),
            ("counts", "traced".into()),
            ("inline", "auto".into()),
            ("waits", "on".into()),
            ("help", "off".into()),
        ];
        assert_eq!(eff, expect);
        // Each echoed value parses back to the same setting.
        let reparsed: Vec<String> = eff
            .iter()
            .filter(|(k, _)| *k != "help")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let o2 = parse(&reparsed.join(",")).unwrap();
        assert_eq!(o2.effective(), eff);
    }

    #[test]
    fn a_later_trace_takes_only_its_per_trace_keys() {
        let base = parse("mode=jvmti,include=a.*,out=load.xml,gc=off,delay=1s").unwrap();
        let t = parse("out=t.xml,exclude=b.*,duration=2s").unwrap();
        let m = for_trace(&base, "out=t.xml,exclude=b.*,duration=2s", &t);
        assert_eq!(m.raw, "out=t.xml,exclude=b.*,duration=2s");
        assert_eq!(
            (m.out.as_str(), m.duration_ms, m.delay_ms),
            ("t.xml", 2000, 0)
        );
        assert_eq!(m.user_rules, t.user_rules);
        assert_eq!(m.filters, t.filters);
        // Fixed at load.
        assert_eq!((m.mode, m.gc), (Mode::Jvmti, false));
        // No out: the load-time file (and its jtr), whatever else the trace sets.
        let base = parse("out=load-%n.xml,jtr=load-%n.jtr,start=off").unwrap();
        for raw in ["", "duration=2s"] {
            let m = for_trace(&base, raw, &parse(raw).unwrap());
            assert_eq!(m.out, "load-%n.xml", "{raw:?}");
            assert_eq!(m.jtr.as_deref(), Some("load-%n.jtr"), "{raw:?}");
        }
        let m = for_trace(&base, "out=t.xml", &parse("out=t.xml").unwrap());
        assert_eq!((m.out.as_str(), m.jtr.as_deref()), ("t.xml", None));
        assert_eq!(
            per_trace_keys(),
            ["out", "jtr", "include", "exclude", "filters", "start", "delay", "duration"]
        );
    }

    #[test]
    fn windows_and_their_rules() {
        let o =
            parse("window=com.example.*.handle;Requests.serve,keep=over:200ms|exception").unwrap();
        assert_eq!(o.windows.len(), 2);
        assert!(o.windows[0].matches("com.example.a.Server", "handle"));
        assert!(!o.windows[0].matches("com.example.a.Server", "handled"));
        assert!(o.windows[1].matches("Requests", "serve"));
        assert_eq!(o.keep.over_ms, Some(200));
        assert!(o.keep.exception && o.keep.sample.is_none());
        let eff = o.effective();
        assert!(eff.contains(&("keep", "over:200ms|exception".to_string())));
        assert!(eff.contains(&("window-max", DEFAULT_WINDOW_MAX.to_string())));
        assert_eq!(
            parse("window=A.*,keep=sample:1/100").unwrap().keep.sample,
            Some(100)
        );
        // keep=failed needs no window=: the tests are the windows.
        let f = parse("keep=failed|over:2s").unwrap();
        assert!(f.keep.failed && f.windowed() && f.windows.is_empty());
        assert!(f
            .effective()
            .contains(&("keep", "over:2000ms|failed".to_string())));
        assert!(parse("keep=failed,alloc=exact").is_err());
        // Without windows, keep and window-max are not echoed.
        assert!(!parse("")
            .unwrap()
            .effective()
            .iter()
            .any(|(k, _)| *k == "keep"));
        for (bad, says) in [
            ("window=handle", "Class.method"),
            ("window=a/B.c", "dotted"),
            ("window=A.b-c", "not a method name"),
            ("window=A.b,keep=over:0s", "above 0"),
            ("window=A.b,keep=sample:1/0", "1/N"),
            ("window=A.b,keep=sample:2/3", "1/N"),
            ("window=A.b,keep=slow", "unknown rule"),
            ("window=A.b,window-max=12", "valid: BYTES"),
            ("keep=exception", "no window= names any"),
            ("keep=exception|over:1s", "no window= names any"),
            ("window-max=1m", "no window= names any"),
            ("window=A.b,alloc=exact", "cannot be combined"),
            ("ring=512k", "at least 1m"),
            ("ring=lots", "valid: BYTES"),
            ("dump-on=exit", "no ring= keeps one"),
            ("ring=4m,dump-on=never", "valid: exit, off"),
            ("ring=4m,alloc=exact", "cannot be combined"),
            ("max-size=1m,out=t-%n.jtr", "at least 4m"),
            ("max-size=8m,out=t.jtr", "no %n"),
            ("max-size=8m,out=t-%n.xml", "written as .jtr"),
            ("max-age=1h,out=t-%n.jtr,window=A.b", "a window may span"),
            ("max-age=0,out=t-%n.jtr", "valid: DURATION"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.iter().any(|e| e.message.contains(says)), "{bad}: {e:?}");
        }
    }

    #[test]
    fn every_table_key_is_handled() {
        for k in KEYS {
            let item = match k.key {
                "help" => "help".to_string(),
                "out" => "out=x".to_string(),
                "jtr" => "jtr=x.jtr".to_string(),
                "mode" => "mode=bci".to_string(),
                "include" | "exclude" => format!("{}=a.*", k.key),
                "alloc" => "alloc=exact".to_string(),
                "filters" => "filters=f.txt".to_string(),
                "delay" | "duration" => format!("{}=30s", k.key),
                "counts" => "counts=all".to_string(),
                "window" => "window=a.B.handle".to_string(),
                "keep" => "window=a.B.c,keep=over:1s|exception|sample:1/10".to_string(),
                "window-max" => "window=a.B.c,window-max=64k".to_string(),
                "ring" => "ring=64m".to_string(),
                "dump-on" => "ring=1g,dump-on=exit".to_string(),
                "max-size" => "max-size=1g,out=t-%n.jtr".to_string(),
                "max-age" => "max-age=1h,out=t-%n.jtr".to_string(),
                _ => format!("{}=on", k.key),
            };
            assert!(parse(&item).is_ok(), "{item}");
        }
    }

    #[test]
    fn help_and_error_report_mention_every_key() {
        let h = help_text();
        for k in KEYS {
            assert!(h.contains(k.key), "{}", k.key);
        }
        let r = error_report(&parse("x=1,gc=2").unwrap_err());
        assert!(r.contains("\"x\"") && r.contains("\"2\"") && r.contains("default"));
    }

    #[test]
    fn durations_in_jfr_spelling() {
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("30s"), Some(30_000));
        assert_eq!(parse_duration_ms("2m"), Some(120_000));
        assert_eq!(parse_duration_ms("1h"), Some(3_600_000));
        assert_eq!(parse_duration_ms("1d"), Some(86_400_000));
        assert_eq!(parse_duration_ms("0"), Some(0));
        for bad in ["", "30", "s", "1.5s", "-1s", "10 s", "5sec"] {
            assert_eq!(parse_duration_ms(bad), None, "{bad}");
        }
        let o = parse("delay=2s,duration=500ms").unwrap();
        assert_eq!((o.delay_ms, o.duration_ms), (2000, 500));
        assert!(errs("start=off,delay=1s")[0].contains("contradict"));
        assert!(errs("duration=forever")[0].contains("500ms"));
        assert_eq!(parse("start=off").unwrap().start, StartMode::Off);
    }

    #[test]
    fn filter_files_with_method_rules() {
        let mut o = parse("include=b.*").unwrap();
        let text =
            "# comment\n\na.Hot fib INCLUDE\na.Hot * EXCLUDE\na.* get* exclude\na.* * INCLUDE\n";
        apply_filter_file(&mut o, "f.txt", text).unwrap();
        assert!(o.is_traced("a.Hot"), "a method rule includes fib");
        assert!(o.is_method_traced("a.Hot", "fib"));
        assert!(!o.is_method_traced("a.Hot", "main"));
        assert!(o.is_traced("a.Other"));
        assert!(!o.is_method_traced("a.Other", "getX"));
        assert!(o.is_method_traced("a.Other", "run"));
        assert!(o.is_traced("b.X"), "include= rules follow the file's");
        assert!(!o.is_traced("c.X"));
        assert!(o.selects_methods("com.foo.Bar"));
        assert_eq!(o.filters[0].file_line(), "a.Hot fib INCLUDE");
    }

    #[test]
    fn bad_filter_files_name_file_and_line() {
        let mut o = parse("").unwrap();
        let e = apply_filter_file(
            &mut o,
            "f.txt",
            "a.* * INCLUDE\na.B\nc/D * EXCLUDE\nx * MAYBE\n",
        )
        .unwrap_err();
        let e: Vec<String> = e.into_iter().map(|e| e.message).collect();
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(
            e[0].starts_with("f.txt:2: 1 fields, expected 3"),
            "{}",
            e[0]
        );
        assert!(e[1].starts_with("f.txt:3: class pattern"), "{}", e[1]);
        assert!(e[2].starts_with("f.txt:4: mode \"MAYBE\""), "{}", e[2]);
        assert_eq!(o, parse("").unwrap(), "nothing applied");
    }

    #[test]
    fn expand_out_escapes() {
        assert_eq!(expand_out("jtrace-%p.xml", 4242, 0, 1), "jtrace-4242.xml");
        assert_eq!(expand_out("t-%t.xml", 1, 0, 1), "t-19700101-000000.xml");
        assert_eq!(expand_out("100%%-%p", 7, 0, 1), "100%-7");
        assert_eq!(expand_out("%x%", 7, 0, 1), "%x%");
        assert_eq!(expand_out("plain", 7, 0, 1), "plain");
        assert_eq!(expand_out("t-%n.xml", 7, 0, 3), "t-3.xml");
        assert_eq!(expand_out("%p%p", 12, 0, 1), "1212");
    }

    #[test]
    fn utc_stamps() {
        assert_eq!(utc_stamp(0), "19700101-000000");
        assert_eq!(utc_stamp(86_399), "19700101-235959");
        assert_eq!(utc_stamp(951_782_400), "20000229-000000"); // leap day, 400-year rule
        assert_eq!(utc_stamp(951_868_800), "20000301-000000");
        assert_eq!(utc_stamp(1_709_164_800), "20240229-000000");
        assert_eq!(utc_stamp(1_716_203_600), "20240520-111320");
        assert_eq!(utc_stamp(4_102_444_799), "20991231-235959");
        assert_eq!(utc_stamp(4_107_456_000), "21000228-000000"); // 2100 is not leap
        assert_eq!(utc_stamp(4_107_542_400), "21000301-000000");
        // Must not panic or overflow on absurd inputs.
        let _ = utc_stamp(u64::MAX);
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in ".*") {
            let _ = parse(&s);
        }

        #[test]
        fn parse_never_panics_on_option_like_strings(
            s in "[a-z=,;:*%.0-9kKmM]{0,60}"
        ) {
            if let Ok(o) = parse(&s) {
                // Successful parses are internally consistent.
                prop_assert_eq!(o.effective().len(), 14);
                prop_assert_eq!(&o.filters.last().unwrap().pattern, "*");
                let _ = expand_out(&o.out, 1, 0, 1);
            }
        }

        /// Every rejection names the problem: each message quotes the offending item or
        /// its key, so a user can find it in a long option string.
        #[test]
        fn every_rejection_names_the_problem(
            items in prop::collection::vec(
                prop_oneof![
                    "(out|mode|include|exclude|alloc|gc|monitors|exceptions|lines|help|[a-zA-Z]{0,6})",
                    "(out|mode|include|exclude|alloc|gc|monitors|exceptions|lines|help|[a-z]{0,6})=[a-zA-Z0-9%*;:.=_ -]{0,12}",
                ],
                0..6,
            )
        ) {
            let s = items.join(",");
            if let Err(errors) = parse(&s) {
                prop_assert!(!errors.is_empty());
                for e in &errors {
                    let named = items.iter().any(|it| {
                        let key = it.split('=').next().unwrap_or("");
                        !it.is_empty()
                            && (e.message.contains(it.as_str())
                                || e.message.contains(&format!("\"{key}\"")))
                    });
                    prop_assert!(named, "{:?} does not name its item in {:?}", e.message, s);
                }
                let report = error_report(&errors);
                prop_assert!(report.starts_with("jtrace: invalid agent options:\n"));
            }
        }

        #[test]
        fn civil_date_matches_day_arithmetic(days in 0u64..3_000_000) {
            // Consecutive days are either the next day of the month or the 1st.
            let (y0, m0, d0) = civil_from_days(days);
            let (y1, m1, d1) = civil_from_days(days + 1);
            prop_assert!((1..=12).contains(&m0) && (1..=31).contains(&d0));
            if d1 != 1 {
                prop_assert_eq!((y1, m1, d1), (y0, m0, d0 + 1));
            } else if m1 == 1 {
                prop_assert_eq!((y1, m0, d0), (y0 + 1, 12, 31));
            } else {
                prop_assert_eq!((y1, m1), (y0, m0 + 1));
            }
        }
    }
}
