//! Progress on stderr for inputs that take a while: an `indicatif` bar over the bytes
//! read from disk, shown only after a second and only when stderr is a terminal. The
//! workers of one answer (`--jobs`) share one bar.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Inputs read faster than this never show a bar.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A cheap, clonable handle on the (possibly hidden) bar.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    tty: bool,
    /// Handles alive: the last one dropped clears the bar.
    handles: Arc<AtomicUsize>,
}

impl Clone for Progress {
    fn clone(&self) -> Progress {
        self.handles.fetch_add(1, Ordering::Relaxed);
        Progress {
            bar: self.bar.clone(),
            started: self.started,
            tty: self.tty,
            handles: self.handles.clone(),
        }
    }
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
            handles: Arc::new(AtomicUsize::new(1)),
        }
    }

    fn advance(&self, n: u64) {
        // Workers sharing the bar read some blocks each (definitions): never past
        // the whole.
        self.bar.inc(n);
        let total = self.bar.length().unwrap_or(u64::MAX);
        if self.bar.position() > total {
            self.bar.set_position(total);
        }
        // The bar stays hidden (indicatif draws nothing) until the input has taken a
        // second: most traces are read before anyone could look at it.
        if self.tty && self.bar.is_hidden() && self.started.elapsed() >= SHOW_AFTER {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        // Every handle shares the one bar: the last one clears it, so that a worker
        // done first leaves the bar to the others, and none is left behind on stderr.
        if self.handles.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.bar.finish_and_clear();
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two workers' readers on one bar: it counts what both read, never past the
    /// whole, and is cleared when the last handle goes, not the first.
    #[test]
    fn workers_share_one_bar() {
        let bar = Progress::new(100);
        let mut a = Counting::new(&[0u8; 70][..], bar.clone());
        let mut b = Counting::new(&[0u8; 60][..], bar.clone());
        let mut sink = Vec::new();
        a.read_to_end(&mut sink).unwrap();
        assert_eq!(bar.bar.position(), 70);
        b.read_to_end(&mut sink).unwrap();
        assert_eq!(bar.bar.position(), 100);
        drop(a);
        assert!(!bar.bar.is_finished());
        drop(b);
        assert!(!bar.bar.is_finished());
        let handle = bar.bar.clone();
        drop(bar);
        assert!(handle.is_finished());
    }
}
