//! `jtrace replay`: the exact sequence of calls per thread, with durations, exceptions
//! inline, allocations and monitor waits, streamed as it is read.

use crate::cmd::common::Input;

use super::common::{duration, Select, Stream};
use crate::analysis::replay::{class_of, Line, Replay, Show, What};
use crate::model::names::Names;
use crate::model::{BlockKind, Symbols};
use crate::pass;
use crate::render::fmt::{self, NsText, NS_TEXT};
use std::io::Write;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub select: Select,
    /// Show only calls that took at least TIME (e.g. 1ms), with what is inside them
    #[arg(long, value_name = "TIME", value_parser = duration, default_value = "0ns")]
    pub min_time: u64,
    /// Show calls at most N deep (1: each thread's outermost calls)
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// JSON (an array, one object per line) instead of text
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub out: super::common::Out,
}

/// One line's JSON object.
#[derive(serde::Serialize)]
struct JsonLine<'a> {
    thread: &'a str,
    depth: usize,
    kind: &'static str,
    start_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<String>,
    /// `Class.method(descriptor)`: the JVM's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    jvm: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    exception_exit: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    open: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    class: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    caught_in: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    owner: Option<&'a str>,
}

struct Printer {
    names: Names,
    json: bool,
    first: bool,
    out: Stream,
    error: Option<std::io::Error>,
    /// Text lines made and not yet written.
    buf: Vec<u8>,
    /// Each thread's column and INDENT spaces, by thread index (made on first use).
    columns: Vec<Vec<u8>>,
}

/// The indentation a thread's column carries with it (deeper lines add more).
const INDENT: usize = 256;

impl Printer {
    fn method(&self, s: &Symbols, m: u32) -> String {
        s.method(m).readable.clone()
    }

    /// A line of text appended to `o`; calls, entries and exits (nearly every line)
    /// without an allocation, in a few copies: the two number columns as one fixed
    /// piece, the thread's column and the indentation as one, then the method.
    fn text_into(&mut self, s: &Symbols, l: &Line) {
        let o = &mut self.buf;
        let time = NsText::new(l.time.saturating_sub(s.start));
        let dur = l.duration.map(NsText::new);
        let (tl, dl) = (time.width(), dur.as_ref().map_or(0, NsText::width));
        if tl <= 11 && dl <= 10 {
            // `+time` right-aligned in 12 columns, a space, the duration in 10.
            let mut head = [b' '; 23];
            head[1..12].copy_from_slice(&time.padded()[NS_TEXT - 11..]);
            head[11 - tl] = b'+';
            if let Some(d) = &dur {
                head[13..23].copy_from_slice(&d.padded()[NS_TEXT - 10..]);
            }
            o.extend_from_slice(&head);
        } else {
            o.resize(o.len() + 11usize.saturating_sub(tl), b' ');
            o.push(b'+');
            o.extend_from_slice(time.as_str().as_bytes());
            o.push(b' ');
            o.resize(o.len() + 10usize.saturating_sub(dl), b' ');
            if let Some(d) = &dur {
                o.extend_from_slice(d.as_str().as_bytes());
            }
        }
        // The thread's column (with the spaces around it) and then INDENT spaces, made
        // once per thread: the column and the line's indentation are one copy.
        let columns = &mut self.columns;
        let t = l.thread as usize;
        if columns.len() <= t {
            columns.resize(t + 1, Vec::new());
        }
        if columns[t].is_empty() {
            let name = thread_name(s, l.thread);
            let c = &mut columns[t];
            c.extend_from_slice(b"  ");
            c.extend_from_slice(name.as_bytes());
            c.resize(
                c.len() + 16usize.saturating_sub(name.chars().count()) + 1,
                b' ',
            );
            c.resize(c.len() + INDENT, b' ');
        }
        let c = &columns[t];
        let indent = 2 * l.depth.saturating_sub(1);
        if indent <= INDENT {
            o.extend_from_slice(&c[..c.len() - INDENT + indent]);
        } else {
            o.extend_from_slice(c);
            o.resize(o.len() + indent - INDENT, b' ');
        }
        match &l.what {
            What::Call {
                method,
                threw,
                open,
            } => {
                o.extend_from_slice(s.method(*method).readable.as_bytes());
                if *threw || *open {
                    o.extend_from_slice(suffix(*threw, *open).as_bytes());
                }
                o.push(b'\n');
            }
            What::Enter { method } => {
                o.extend_from_slice(s.method(*method).readable.as_bytes());
                o.extend_from_slice(b" {\n");
            }
            What::Exit {
                method,
                threw,
                open,
            } => {
                o.extend_from_slice(b"} ");
                o.extend_from_slice(s.method(*method).readable.as_bytes());
                if *threw || *open {
                    o.extend_from_slice(suffix(*threw, *open).as_bytes());
                }
                o.push(b'\n');
            }
            _ => {
                o.extend_from_slice(what(&self.names, s, &l.what).as_bytes());
                o.push(b'\n');
            }
        }
    }

    fn json<'s>(&self, s: &'s Symbols, l: &Line) -> Result<String, String> {
        let mut j: JsonLine<'s> = JsonLine {
            thread: thread_name(s, l.thread),
            depth: l.depth,
            kind: "",
            start_ns: l.time.saturating_sub(s.start),
            duration_ns: l.duration,
            method: None,
            jvm: None,
            exception_exit: false,
            open: false,
            class: None,
            bytes: None,
            line: None,
            caught_in: None,
            owner: None,
        };
        let method = |j: &mut JsonLine<'s>, m: u32| {
            j.method = Some(self.method(s, m));
            let i = s.method(m);
            j.jvm = Some(crate::model::names::jvm(&i.class, &i.name, &i.signature));
        };
        match &l.what {
            What::Call {
                method: m,
                threw,
                open,
            }
            | What::Exit {
                method: m,
                threw,
                open,
            } => {
                j.kind = if matches!(l.what, What::Call { .. }) {
                    "call"
                } else {
                    "exit"
                };
                method(&mut j, *m);
                j.exception_exit = *threw;
                j.open = *open;
            }
            What::Enter { method: m } => {
                j.kind = "enter";
                method(&mut j, *m);
            }
            What::Exception {
                class,
                thrown_in,
                line,
                caught_in,
            } => {
                j.kind = "exception";
                method(&mut j, *thrown_in);
                j.class = Some(self.names.class(&class_of(s, *class)));
                j.line = Some(*line);
                j.caught_in = caught_in.map(|m| self.method(s, m));
            }
            What::Alloc {
                class,
                is_array,
                size,
                line,
            } => {
                j.kind = "alloc";
                j.class = Some(self.names.class(&s.alloc_class(*class, *is_array)));
                j.bytes = Some(*size);
                j.line = Some(*line);
            }
            What::Blocked {
                kind,
                class,
                owner,
                open,
            } => {
                j.open = *open;
                j.kind = match kind {
                    BlockKind::Contended => "blocked",
                    BlockKind::Wait => "wait",
                };
                j.class = Some(self.names.class(&class_of(s, *class)));
                j.owner = owner.map(|o| thread_name(s, o));
            }
        }
        serde_json::to_string(&j).map_err(|e| e.to_string())
    }

    fn line(&mut self, s: &Symbols, l: &Line) {
        if self.error.is_some() {
            return;
        }
        let r = if self.json {
            let sep = if self.first { "[\n" } else { ",\n" };
            self.first = false;
            match self.json(s, l) {
                Ok(j) => self.out.write_all(format!("{sep}{j}").as_bytes()),
                Err(e) => Err(std::io::Error::other(e)),
            }
        } else {
            // Text lines gather in `buf` and are written 1 MiB at a time: as large as
            // `Stream`'s buffer, which then passes them on without copying.
            self.text_into(s, l);
            if self.buf.len() < 1 << 20 {
                return;
            }
            self.flush()
        };
        if let Err(e) = r {
            self.error = Some(e);
        }
    }

    /// Writes the text lines gathered.
    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.out.write_all(&self.buf);
        self.buf.clear();
        r
    }
}

/// What happened, for the lines other than calls, entries and exits.
fn what(names: &Names, s: &Symbols, what: &What) -> String {
    match what {
        What::Call { .. } | What::Enter { .. } | What::Exit { .. } => String::new(),
        What::Exception {
            class,
            thrown_in,
            line,
            caught_in,
        } => format!(
            "! {} thrown in {}{}, {}",
            names.class(&class_of(s, *class)),
            s.method(*thrown_in).readable,
            if *line > 0 {
                format!(" line {line}")
            } else {
                String::new()
            },
            match caught_in {
                Some(m) => format!("caught in {}", s.method(*m).readable),
                None => "not caught in traced code".to_string(),
            }
        ),
        What::Alloc {
            class,
            is_array,
            size,
            line,
        } => format!(
            "+ new {} ({}){}",
            names.class(&s.alloc_class(*class, *is_array)),
            fmt::bytes(*size),
            if *line > 0 {
                format!(" line {line}")
            } else {
                String::new()
            }
        ),
        What::Blocked {
            kind,
            class,
            owner,
            open,
        } => format!(
            "~ {} {}{}{}",
            match kind {
                BlockKind::Contended => "blocked on",
                BlockKind::Wait => "waited on",
            },
            names.class(&class_of(s, *class)),
            owner
                .map(|o| format!(" (held by {})", thread_name(s, o)))
                .unwrap_or_default(),
            if *open {
                " (still waiting at the end)"
            } else {
                ""
            }
        ),
    }
}

fn suffix(threw: bool, open: bool) -> &'static str {
    match (threw, open) {
        (_, true) => " (still open at the end)",
        (true, false) => " (left by an exception)",
        _ => "",
    }
}

fn thread_name(s: &Symbols, t: u32) -> &str {
    s.threads.get(t as usize).map_or("?", |t| t.name.as_str())
}

pub fn run(mut a: Args) -> Result<(), String> {
    a.json = super::common::wants_json(a.out.output.as_deref(), a.json)?;
    let out = Stream::open(a.out.output.as_deref())?;
    let mut p = Printer {
        names: a.select.naming.names(),
        json: a.json,
        first: true,
        out,
        error: None,
        buf: Vec::with_capacity((1 << 20) + (1 << 12)),
        columns: Default::default(),
    };
    if !a.json {
        let _ = writeln!(
            p.out,
            "jtrace replay: {}\n{:>12} {:>10}  {:<16} call",
            a.input.trace.display(),
            "start",
            "duration",
            "thread"
        );
    }
    let show = Show {
        min_time: a.min_time,
        max_depth: a.depth,
    };
    let mut r = Replay::new(show, |s: &Symbols, l: &Line| p.line(s, l));
    let s = pass::run(
        &a.input.open()?,
        a.select.every_method("replay shows every method")?,
        &mut r,
    )?;
    r.finish(&s.model.syms);
    drop(r);
    if let (Err(e), None) = (p.flush(), &p.error) {
        p.error = Some(e);
    }
    if a.json {
        let end = if p.first { "[]\n" } else { "\n]\n" };
        let _ = p.out.write_all(end.as_bytes());
    }
    let r = match p.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    };
    p.out.finish(r)
}
