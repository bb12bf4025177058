//! Arguments and output plumbing every analysing subcommand shares.

use crate::analysis::tree::{PathTree, ANSWER_BYTES, MAX_PATHS, MORE_NAME};
use crate::model::filter::{parse_duration, Filter, Pattern};
use crate::model::names::{Inner, Names, Style};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

/// A duration with a unit (`10ms`).
pub fn duration(s: &str) -> Result<u64, String> {
    parse_duration(s, false)
}

/// A time from the trace's start (`1.5s`, `200ms`; a bare number is seconds).
pub fn offset(s: &str) -> Result<u64, String> {
    parse_duration(s, true)
}

/// Which threads, methods and time window to look at.
/// The trace an answer reads: one file, or the files of one series (written with
/// `max-size=`/`max-age=`), read as one: `jtrace report trace-*.jtr`.
#[derive(clap::Args, Debug)]
pub struct Input {
    /// The trace (.xml, .xml.gz, .xml.zst, .jtr)
    pub trace: PathBuf,
    /// The other files of its series (max-size=, max-age=), in any order
    #[arg(value_name = "MORE")]
    pub more: Vec<PathBuf>,
}

impl Input {
    /// Opens the trace (a series joined first).
    pub fn open(&self) -> Result<crate::read::Trace, String> {
        crate::read::Trace::open_series(&self.trace, &self.more)
    }
}

#[derive(clap::Args, Debug, Clone, Default)]
pub struct Select {
    /// Only threads whose name matches PATTERN (`*` and `?` wildcards; without them,
    /// any name containing PATTERN)
    #[arg(long, value_name = "PATTERN")]
    pub thread: Option<String>,
    /// Only methods (`Class.method`) matching PATTERN, same syntax as --thread (report,
    /// slow and diff; the views of every method refuse it)
    #[arg(long, value_name = "PATTERN")]
    pub method: Option<String>,
    /// Start of the time window, from the trace's start (`1.5s`, `200ms`; bare numbers are seconds)
    #[arg(long, value_name = "TIME", value_parser = offset)]
    pub from: Option<u64>,
    /// End of the time window, from the trace's start
    #[arg(long, value_name = "TIME", value_parser = offset)]
    pub to: Option<u64>,
    /// Only what ran in the test(s) named ID: method name, display name, unique id,
    /// Class.method, exactly; or a pattern with * and ? wildcards (see jtrace tests)
    #[arg(long, value_name = "ID")]
    pub test: Option<String>,
    /// Only what ran in the window (a trace recorded with window=) with this id (see
    /// jtrace windows)
    #[arg(long, value_name = "ID", conflicts_with = "test")]
    pub window: Option<String>,
    #[command(flatten)]
    pub naming: Naming,
    /// Cores for one answer: a `.jtr` with its index is read by N workers, each taking
    /// some threads, merged into the answer one core gives (default: the machine's cores)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

impl Select {
    /// [`Select::filter`] for a view `--method` does not apply to (`why`: what the view
    /// shows instead): there it is refused, not ignored.
    pub fn every_method(&self, why: &str) -> Result<Filter, String> {
        if let Some(m) = &self.method {
            return Err(format!(
                "--method {m}: {why}; --method selects the rows of report, slow and diff"
            ));
        }
        self.filter()
    }

    pub fn filter(&self) -> Result<Filter, String> {
        if let (Some(a), Some(b)) = (self.from, self.to) {
            if a > b {
                return Err("--from is after --to".to_string());
            }
        }
        Ok(Filter {
            thread: self.thread.as_deref().map(Pattern::new),
            method: self.method.as_deref().map(Pattern::new),
            from: self.from,
            to: self.to,
            test: self.test.as_deref().map(Pattern::new),
            window: self.window.clone(),
            names: self.naming.names(),
            jobs: self.jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                usize::from,
            ),
        })
    }
}

/// How methods are named (`--names`, `--inner`), in every view.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct Naming {
    /// How methods are named
    #[arg(long, value_enum, default_value = "short")]
    pub names: Style,
    /// How nested classes are written
    #[arg(long, value_enum, default_value = "dot")]
    pub inner: Inner,
}

impl Naming {
    pub fn names(&self) -> Names {
        Names::new(self.names, self.inner)
    }
}

/// Writes `data` to `path`, or to stdout when `None`. A closed stdout (`| head`) is not
/// an error.
pub fn emit(path: Option<&Path>, data: &[u8]) -> Result<(), String> {
    match path {
        Some(p) => {
            std::fs::write(p, data).map_err(|e| format!("{}: cannot write: {e}", p.display()))?;
            eprintln!(
                "jtrace: wrote {} ({})",
                p.display(),
                crate::render::fmt::bytes(data.len() as u64)
            );
            Ok(())
        }
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(data).and_then(|()| out.flush()) {
                Err(e) if e.kind() != ErrorKind::BrokenPipe => {
                    Err(format!("cannot write to stdout: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// Refuses, before any trace is read, an output path that cannot be written: its
/// directory missing, or a directory in its place.
pub fn writable(path: Option<&Path>) -> Result<(), String> {
    let Some(p) = path else { return Ok(()) };
    if p.is_dir() {
        return Err(format!(
            "{}: is a directory; name a file to write",
            p.display()
        ));
    }
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "{}: cannot write: no directory {}",
            p.display(),
            dir.display()
        ));
    }
    Ok(())
}

/// `-o FILE` as the command line is parsed, so a path that cannot be written is refused
/// before any trace is read ([`writable`]).
pub fn out_file(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    writable(Some(&p))?;
    Ok(p)
}

/// `-o FILE` whose extension chooses the format: one of `formats` (lower case, with the
/// dot), else an error naming them (never a file in another format than its name says).
/// A device or pipe (`/dev/null`, `/dev/stdout`) takes the first format.
pub fn out_format(s: &str, formats: &[&str]) -> Result<PathBuf, String> {
    let lower = s.to_lowercase();
    let special = std::fs::metadata(s).is_ok_and(|m| !m.is_file() && !m.is_dir());
    if !special && !formats.iter().any(|f| lower.ends_with(f)) {
        return Err(format!(
            "the format is chosen by the extension; this command writes {}",
            formats.join(", ")
        ));
    }
    out_file(s)
}

/// What an answer is written as, where `-o FILE`'s extension may choose it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Text,
    Json,
    Html,
    Markdown,
    JunitXml,
    /// Collapsed stacks (`stack;frames weight` lines).
    Collapsed,
}

impl Form {
    /// The extensions that name it (lower case, with the dot).
    fn extensions(self) -> &'static [&'static str] {
        match self {
            Form::Text => &[".txt", ".text"],
            Form::Json => &[".json"],
            Form::Html => &[".html", ".htm"],
            Form::Markdown => &[".md", ".markdown"],
            Form::JunitXml => &[".xml"],
            Form::Collapsed => &[".folded", ".collapsed", ".txt"],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Form::Text => "text",
            Form::Json => "JSON",
            Form::Html => "HTML",
            Form::Markdown => "Markdown",
            Form::JunitXml => "JUnit XML",
            Form::Collapsed => "collapsed stacks",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            Form::Json => "--json",
            Form::Html => "--html",
            Form::Markdown => "--markdown",
            Form::JunitXml => "--junit-xml",
            Form::Text | Form::Collapsed => "",
        }
    }
}

/// The form an answer is written in, decided before any trace is read: the one a flag
/// asks for (`flags`: each form the command writes besides `default`, and whether its
/// flag was given), else the one `-o FILE`'s extension names (`-o report.json` writes
/// JSON), else `default`. An extension naming a form the command does not write, or
/// another than a flag asks for, is an error naming those that work (never a file in
/// another format than its name says); a name without an extension, or a device
/// (`/dev/null`), takes the flags' form.
pub fn form(output: Option<&Path>, default: Form, flags: &[(Form, bool)]) -> Result<Form, String> {
    let asked = flags.iter().find(|(_, on)| *on).map(|(f, _)| *f);
    let Some(path) = output else {
        return Ok(asked.unwrap_or(default));
    };
    let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if special || !name.contains('.') {
        return Ok(asked.unwrap_or(default));
    }
    let offered: Vec<Form> = std::iter::once(default)
        .chain(flags.iter().map(|(f, _)| *f))
        .collect();
    let named = |f: &Form| f.extensions().iter().any(|e| name.ends_with(e));
    // The flag's form first: `.txt` names text and collapsed stacks alike.
    let by_name = asked
        .filter(named)
        .or_else(|| offered.iter().copied().find(named));
    match (by_name, asked) {
        (Some(n), Some(a)) if n != a => Err(format!(
            "{}: the name says {} but {} asks for {}",
            path.display(),
            n.name(),
            a.flag(),
            a.name()
        )),
        (Some(n), _) => Ok(n),
        (None, _) => Err(format!(
            "{}: the format is chosen by the extension or a flag; this command writes {}",
            path.display(),
            offered
                .iter()
                .map(|f| {
                    let ext = f.extensions().join(", ");
                    match (f.flag(), *f == default) {
                        (_, true) => format!("{} ({ext}, or no extension)", f.name()),
                        (flag, false) => format!("{} ({ext}, {flag})", f.name()),
                    }
                })
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

/// [`form`] for a command that writes text or, with `--json` (`json`), JSON: whether
/// it writes JSON.
pub fn wants_json(output: Option<&Path>, json: bool) -> Result<bool, String> {
    Ok(form(output, Form::Text, &[(Form::Json, json)])? == Form::Json)
}

/// An answer written as it is made (to FILE, or stdout), for answers too large to
/// hold: `finish` flushes and says where it went, as [`emit`] does.
pub struct Stream {
    path: Option<std::path::PathBuf>,
    out: std::io::BufWriter<Box<dyn Write>>,
    pub bytes: u64,
}

impl Stream {
    pub fn open(path: Option<&Path>) -> Result<Stream, String> {
        let out: Box<dyn Write> = match path {
            Some(p) => Box::new(
                std::fs::File::create(p)
                    .map_err(|e| format!("{}: cannot write: {e}", p.display()))?,
            ),
            None => Box::new(std::io::stdout()),
        };
        Ok(Stream {
            path: path.map(Path::to_path_buf),
            out: std::io::BufWriter::with_capacity(1 << 20, out),
            bytes: 0,
        })
    }

    /// Flushes; a closed stdout (`| head`) is not an error.
    pub fn finish(mut self, result: std::io::Result<()>) -> Result<(), String> {
        match result.and_then(|()| self.out.flush()) {
            Err(e) if self.path.is_some() || e.kind() != ErrorKind::BrokenPipe => {
                Err(format!("cannot write: {e}"))
            }
            _ => {
                if let Some(p) = &self.path {
                    eprintln!(
                        "jtrace: wrote {} ({})",
                        p.display(),
                        crate::render::fmt::bytes(self.bytes)
                    );
                }
                Ok(())
            }
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// JSON with a trailing newline.
/// Where a view writes: `-o FILE`, whose extension may name the form (see [`form`]).
#[derive(clap::Args, Debug, Default)]
pub struct Out {
    /// Write to FILE instead of stdout
    #[arg(short, long, value_name = "FILE", value_parser = out_file)]
    pub output: Option<PathBuf>,
}

pub fn json<T: serde::Serialize>(v: &T) -> Result<Vec<u8>, String> {
    let mut s = serde_json::to_vec_pretty(v).map_err(|e| format!("JSON: {e}"))?;
    s.push(b'\n');
    Ok(s)
}

/// Says once on stderr that a bounded path tree (`analysis::tree::MAX_PATHS`) merged the
/// paths past its bound into `[more paths]` frames.
pub fn say_cut(file: &str, t: &PathTree) {
    if t.is_cut() {
        eprintln!(
            "jtrace: {file}: more than {MAX_PATHS} distinct call paths; the calls of paths \
             past them are counted, exactly, in `{MORE_NAME}` frames under the deepest frame \
             they share"
        );
    }
}

/// What the `min` `analysis::folded::folded` used means, said once on stderr when it
/// left something out: `what` is the answer (`collapsed`, `flame`), `all` the flag that
/// shows every stack.
pub fn say_min(what: &str, min: u64, total: u64, all: &str) {
    if min == 0 || total == 0 {
        return;
    }
    eprintln!(
        "jtrace: {what}: stacks lighter than {:.4}% of the total ({min} ns) are counted in \
         their caller's own time, to keep the answer under {} MB{all}",
        min as f64 * 100.0 / total as f64,
        ANSWER_BYTES / 1_000_000
    );
}

/// The `min_total` of `t`'s rows for answer `what`: `given` (`--min-time`), or the
/// least that keeps them under `budget` bytes of text (said on stderr when it leaves
/// something out; `--min-time 0ns` shows every path).
pub fn min_or_fit(
    what: &str,
    given: Option<u64>,
    s: &crate::model::Symbols,
    t: &PathTree,
    budget: u64,
    depth: Option<usize>,
) -> u64 {
    given.unwrap_or_else(|| {
        let min = t.fit_rows(budget, depth, &crate::render::text::row_bytes(s, t));
        if min > 0 {
            eprintln!(
                "jtrace: {what}: paths of less than {} in all are left out, to keep the \
                 answer under {} MB (--min-time 0ns shows more)",
                crate::render::fmt::ns(min),
                ANSWER_BYTES / 1_000_000
            );
        }
        min
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_refused_before_any_read() {
        let dir = std::env::temp_dir();
        let ok = dir.join("jtrace-out-test.svg");
        assert_eq!(out_format(ok.to_str().unwrap(), &[".svg"]), Ok(ok.clone()));
        assert_eq!(out_format("X.SVG", &[".svg"]), Ok(PathBuf::from("X.SVG")));
        assert_eq!(
            out_format("/dev/null", &[".svg"]),
            Ok(PathBuf::from("/dev/null"))
        );
        let e = out_format("x.png", &[".svg", ".html"]).unwrap_err();
        assert!(e.contains(".svg, .html"), "{e}");
        let e = out_file("/no/such/dir/x.txt").unwrap_err();
        assert!(e.contains("no directory /no/such/dir"), "{e}");
        let e = out_file(dir.to_str().unwrap()).unwrap_err();
        assert!(e.contains("is a directory"), "{e}");
    }

    #[test]
    fn the_output_names_its_form_or_is_refused() {
        let report = |o: Option<&str>, json: bool, html: bool| {
            form(
                o.map(Path::new),
                Form::Text,
                &[(Form::Json, json), (Form::Html, html)],
            )
        };
        assert_eq!(report(None, false, false), Ok(Form::Text));
        assert_eq!(report(None, true, false), Ok(Form::Json));
        assert_eq!(report(Some("r.json"), false, false), Ok(Form::Json));
        assert_eq!(report(Some("R.HTM"), false, false), Ok(Form::Html));
        assert_eq!(report(Some("r.txt"), false, false), Ok(Form::Text));
        assert_eq!(report(Some("report"), true, false), Ok(Form::Json));
        assert_eq!(report(Some("/dev/null"), false, true), Ok(Form::Html));
        let e = report(Some("r.png"), false, false).unwrap_err();
        assert!(
            e.contains("text (.txt, .text, or no extension)")
                && e.contains("JSON (.json, --json)")
                && e.contains("HTML (.html, .htm, --html)"),
            "{e}"
        );
        let e = report(Some("r.html"), true, false).unwrap_err();
        assert!(
            e.contains("the name says HTML but --json asks for JSON"),
            "{e}"
        );
        // `.txt` names collapsed stacks where those are the default.
        assert_eq!(
            form(Some(Path::new("s.txt")), Form::Collapsed, &[]),
            Ok(Form::Collapsed)
        );
    }
}
