//! Progress on stderr for inputs that take a while: an `indicatif` bar over the bytes
//! read from disk, shown only after a second and only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Read};
use std::time::{Duration, Instant};

/// Inputs read faster than this never show a bar.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A cheap, clonable handle on the (possibly hidden) bar.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    tty: bool,
}

impl Progress {
    pub fn new(total: u64) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} reading {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left) {wide_bar}",
        ) {
            bar.set_style(style);
        }
        Progress {
            bar,
            started: Instant::now(),
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
        // The bar stays hidden (indicatif draws nothing) until the input has taken a
        // second: most traces are read before anyone could look at it.
        if self.tty && self.bar.is_hidden() && self.started.elapsed() >= SHOW_AFTER {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        // Every handle shares the one bar; clearing it twice is harmless, and no bar
        // is left behind on stderr whichever handle goes first.
        self.bar.finish_and_clear();
    }
}

/// A reader that reports the bytes it hands out.
pub struct Counting<R> {
    inner: R,
    progress: Progress,
}

impl<R> Counting<R> {
    pub fn new(inner: R, progress: Progress) -> Counting<R> {
        Counting { inner, progress }
    }
}

/// Seeking moves past bytes without reading them: the bar shows what was read.
impl<R: std::io::Seek> std::io::Seek for Counting<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}
