//! A writer that hands its bytes to another thread: the renderer formats on one thread while a second one compresses and writes (`jtrace xml --threads`).

use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Bytes gathered before a hand-off (the renderer already flushes in 1 MiB pieces).
const PIECE: usize = 1 << 20;
/// A piece's capacity: the renderer's pieces are a little over `PIECE` (the element
/// that crosses it), so a buffer of `PIECE` bytes would grow, copying, for each.
const CAPACITY: usize = PIECE + (128 << 10);
/// Pieces in flight: enough to keep both threads busy, little memory.
const IN_FLIGHT: usize = 4;

/// The sending half; `finish` waits for the writing thread and returns its writer.
pub struct Pipe<W: Write + Send + 'static> {
    buf: Vec<u8>,
    tx: Option<SyncSender<Vec<u8>>>,
    thread: Option<JoinHandle<io::Result<W>>>,
}

fn drain<W: Write>(mut w: W, rx: Receiver<Vec<u8>>) -> io::Result<W> {
    for piece in rx {
        w.write_all(&piece)?;
    }
    w.flush()?;
    Ok(w)
}

impl<W: Write + Send + 'static> Pipe<W> {
    pub fn new(w: W) -> io::Result<Self> {
        let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT);
        let thread = std::thread::Builder::new()
            .name("jtrace-xml-write".into())
            .spawn(move || drain(w, rx))?;
        Ok(Pipe {
            buf: Vec::with_capacity(CAPACITY),
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let piece = std::mem::replace(&mut self.buf, Vec::with_capacity(CAPACITY));
        match &self.tx {
            Some(tx) if tx.send(piece).is_ok() => Ok(()),
            // The writing thread stopped: its error comes out of `finish`.
            _ => Err(io::Error::other("the writing thread stopped")),
        }
    }

    /// Sends what is left, waits for the writing thread and returns its writer.
    pub fn finish(mut self) -> io::Result<W> {
        let sent = self.send();
        drop(self.tx.take());
        let written = match self.thread.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            _ => Err(io::Error::other("the writing thread failed")),
        };
        let w = written?;
        sent?;
        Ok(w)
    }
}

impl<W: Write + Send + 'static> Write for Pipe<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= PIECE {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_arrive_in_order() {
        let mut p = Pipe::new(Vec::new()).unwrap();
        let mut want = Vec::new();
        for i in 0..50_000u32 {
            let line = format!("<e n=\"{i}\"/>\n");
            p.write_all(line.as_bytes()).unwrap();
            want.extend_from_slice(line.as_bytes());
        }
        assert_eq!(p.finish().unwrap(), want);
    }
}
