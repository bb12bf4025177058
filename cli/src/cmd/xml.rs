//! `jtrace xml`: renders a `.jtr` record file as the TPTP XML document the agent would have written (plain, `.gz` or `.zst` by the output's name).

use crate::pipe::Pipe;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use trace::compress::{Compressed, Format};

#[derive(clap::Args)]
pub struct Args {
    /// The `.jtr` file written by the agent (`out=trace.jtr` or `jtr=...`).
    input: PathBuf,
    /// The other files of its series (max-size=, max-age=), in any order: rendered as
    /// one document
    #[arg(value_name = "MORE")]
    more: Vec<PathBuf>,
    /// Where to write the XML: `.xml`, `.xml.gz` or `.xml.zst` by name, `-` for stdout
    /// [default: the input with `.xml` in place of `.jtr`].
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Threads: 1 renders, compresses and writes on one thread; 2 renders on one and
    /// compresses and writes on another; each further thread compresses zstd output.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    threads: u32,
}

/// The default output: `trace.jtr` -> `trace.xml`.
fn default_output(input: &Path) -> PathBuf {
    input.with_extension("xml")
}

type Sink = Compressed<BufWriter<Box<dyn Write + Send>>>;

/// Where the renderer's bytes go: straight into the (compressing) writer, or through a
/// pipe to a second thread that compresses and writes.
enum Out {
    Inline(Sink),
    Piped(Pipe<Sink>),
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::Inline(w) => w.write(buf),
            Out::Piped(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::Inline(w) => w.flush(),
            Out::Piped(w) => w.flush(),
        }
    }
}

impl Out {
    fn finish(self) -> std::io::Result<()> {
        let sink = match self {
            Out::Inline(w) => w,
            Out::Piped(p) => p.finish()?,
        };
        sink.finish().map(drop)
    }
}

pub fn run(args: Args) -> Result<(), String> {
    let input = &args.input;
    // A series is joined first; the joined file lives as long as `series`.
    let series = (!args.more.is_empty())
        .then(|| crate::read::Trace::open_series(input, &args.more))
        .transpose()?;
    let source = series.as_ref().map_or(input.as_path(), |t| t.path());
    let file = File::open(source).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let output = args.output.unwrap_or_else(|| default_output(input));
    if output == *input {
        return Err(format!(
            "the output {} would overwrite the input; give another with -o",
            output.display()
        ));
    }
    let format = Format::from_path(&output.to_string_lossy());
    if format == Format::Jtr {
        return Err(format!(
            "the output {} is a .jtr name; `jtrace xml` writes XML (.xml, .xml.gz, .xml.zst)",
            output.display()
        ));
    }
    let to_stdout = output.as_os_str() == "-";
    let dest: Box<dyn Write + Send> = if to_stdout {
        Box::new(std::io::stdout())
    } else {
        let f =
            File::create(&output).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
        Box::new(f)
    };
    let workers = args.threads.saturating_sub(2);
    let sink = Compressed::with_workers(BufWriter::with_capacity(1 << 20, dest), format, workers)
        .map_err(|e| format!("{}: {e}", output.display()))?;
    let out = if args.threads >= 2 {
        Out::Piped(Pipe::new(sink).map_err(|e| format!("cannot start a thread: {e}"))?)
    } else {
        Out::Inline(sink)
    };
    let mut out = Some(out);
    let done = trace::jtr::to_xml(BufReader::with_capacity(1 << 20, file), WriteRef(&mut out))
        .map_err(|e| format!("{}: {e}", input.display()))?;
    out.take()
        .expect("writer kept")
        .finish()
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    if let Some(why) = &done.cut_short {
        eprintln!(
            "jtrace: warning: {} was cut short ({why}); rendered up to its last whole block, \
             open frames closed at the end",
            input.display()
        );
    }
    if !to_stdout {
        eprintln!(
            "jtrace: wrote {}: {} events, {} elements",
            output.display(),
            done.stats.events,
            done.stats.elements
        );
    }
    Ok(())
}

/// Lends the writer to the renderer, which takes its output by value, so that the stream
/// can still be finished (its trailer written, its thread joined) afterwards.
struct WriteRef<'a, W: Write>(&'a mut Option<W>);

impl<W: Write> Write for WriteRef<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.as_mut().map_or(Ok(0), |w| w.write(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.as_mut().map_or(Ok(()), |w| w.flush())
    }
}
