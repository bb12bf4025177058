//! A trace's bytes as a stream: the one place that knows file kinds (`.xml`, `.xml.gz`,
//! `.xml.zst`, `.jtr`) and turns a file into a [`Source`] (XML bytes, or `.jtr` records)
//! with progress reporting, or into an XML document.

use super::progress::{Counting, Progress};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};

/// Read buffer: large enough that system calls and progress updates are rare.
const BUF: usize = 1 << 20;

/// What an opened trace's bytes are.
pub enum Source {
    /// An XML document, decompressed.
    Xml(Box<dyn BufRead>),
    /// A `.jtr` file (its magic checked), for `trace::jtr::Opened::replay`; seekable, so that
    /// a reader with the file's index reads only what an answer needs.
    Jtr(Box<dyn ReadSeek + Send>),
}

/// A file's bytes, read in order or sought in.
pub trait ReadSeek: Read + std::io::Seek {}
impl<T: Read + std::io::Seek> ReadSeek for T {}

/// An opened trace: its bytes and what to call it in messages.
pub struct Input {
    /// The path as the user gave it.
    pub name: String,
    pub source: Source,
    /// Whether `reader` decompresses (then `size` is not the XML's size).
    pub compressed: bool,
    /// Kept alive while reading: clears the progress bar when dropped.
    _progress: Progress,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Xml,
    Gzip,
    Zstd,
    Jtr,
}

/// The kind from the file name, else from the first bytes (`.jtr`, gzip and zstd magic).
pub(super) fn kind(path: &Path, head: &[u8]) -> Kind {
    let name = path.to_string_lossy();
    if name.ends_with(".jtr") || head.starts_with(&trace::jtr::MAGIC) {
        Kind::Jtr
    } else if name.ends_with(".gz") || head.starts_with(&[0x1f, 0x8b]) {
        Kind::Gzip
    } else if name.ends_with(".zst") || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Kind::Zstd
    } else {
        Kind::Xml
    }
}

/// The bytes of `file` (called `name` in messages), of kind `kind` and `size` bytes, as
/// a stream, reporting on `progress` if given; `read` are the bytes already read from a
/// file that cannot rewind (a pipe: `<(zstdcat t.xml.zst)`), which come first.
pub(super) fn open(
    name: &str,
    (file, read): (File, Vec<u8>),
    kind: Kind,
    size: u64,
    progress: Option<Progress>,
) -> Result<Input, String> {
    let name = name.to_string();
    let progress = progress.unwrap_or_else(|| Progress::new(size));
    if kind == Kind::Jtr {
        // Unbuffered: the reader takes whole blocks (64 KiB chunks) straight into its
        // own buffer, one read each, instead of through a second copy.
        return Ok(Input {
            name,
            source: Source::Jtr(Box::new(Counting::new(file, progress.clone()))),
            compressed: false,
            _progress: progress,
        });
    }
    // A pipe cannot rewind: the bytes read to tell its kind come first.
    let bytes = std::io::Cursor::new(read).chain(file);
    let raw = BufReader::with_capacity(BUF, Counting::new(bytes, progress.clone()));
    let (source, compressed) = match kind {
        Kind::Xml => (Source::Xml(Box::new(raw)), false),
        Kind::Gzip => (
            Source::Xml(Box::new(BufReader::with_capacity(
                BUF,
                flate2::bufread::MultiGzDecoder::new(raw),
            ))),
            true,
        ),
        Kind::Zstd => {
            let d = zstd::stream::read::Decoder::with_buffer(raw)
                .map_err(|e| format!("{name}: not a zstd stream: {e}"))?;
            (
                Source::Xml(Box::new(BufReader::with_capacity(BUF, d))),
                true,
            )
        }
        Kind::Jtr => unreachable!("a .jtr is returned above"),
    };
    Ok(Input {
        name,
        source,
        compressed,
        _progress: progress,
    })
}

/// A trace as an XML document (for `jtrace record`'s listing): a `.jtr` is rendered as
/// the document the agent would have written, by the trace crate's renderer on a
/// thread (a `.jtr` cut short renders closed, with a `recordingCutShort` annotation).
pub struct XmlDocument {
    pub reader: Box<dyn BufRead>,
    _progress: Progress,
}

impl Input {
    pub fn into_xml(self) -> Result<XmlDocument, String> {
        let reader: Box<dyn BufRead> = match self.source {
            Source::Xml(r) => r,
            Source::Jtr(r) => Box::new(BufReader::with_capacity(BUF, jtr_as_xml(self.name, r)?)),
        };
        Ok(XmlDocument {
            reader,
            _progress: self._progress,
        })
    }
}

/// Pieces of rendered XML in flight between the render thread and the reader.
const IN_FLIGHT: usize = 4;

type Piece = Result<Vec<u8>, String>;

/// Starts the renderer on `jtr`; the returned reader yields the XML document.
fn jtr_as_xml(name: String, jtr: impl Read + Send + 'static) -> Result<JtrXml, String> {
    let (tx, rx) = mpsc::sync_channel::<Piece>(IN_FLIGHT);
    std::thread::Builder::new()
        .name("jtrace-render".into())
        .spawn(move || {
            let out = PieceWriter { tx: tx.clone() };
            if let Err(e) = trace::jtr::to_xml(jtr, out) {
                // The reader may be gone (it stopped early): nobody to tell then.
                drop(tx.send(Err(format!("{name}: {e}"))));
            }
        })
        .map_err(|e| format!("cannot start the .jtr renderer: {e}"))?;
    Ok(JtrXml {
        rx,
        piece: Vec::new(),
        pos: 0,
    })
}

/// The renderer's side of the pipe: each write the renderer makes (about 1 MiB) is one
/// piece.
struct PieceWriter {
    tx: SyncSender<Piece>,
}

impl Write for PieceWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tx
            .send(Ok(buf.to_vec()))
            .map_err(|_| std::io::Error::other("the reader stopped"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The reader's side: the rendered XML, piece after piece; a rendering error becomes
/// a read error carrying its message.
struct JtrXml {
    rx: Receiver<Piece>,
    piece: Vec<u8>,
    pos: usize,
}

impl Read for JtrXml {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.piece.len() {
            match self.rx.recv() {
                Ok(Ok(p)) => {
                    self.piece = p;
                    self.pos = 0;
                }
                Ok(Err(e)) => return Err(std::io::Error::other(e)),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.piece.len() - self.pos);
        buf[..n].copy_from_slice(&self.piece[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::Trace;

    #[test]
    fn kinds_by_name_then_magic() {
        assert_eq!(kind(Path::new("a.xml"), b"<?xml"), Kind::Xml);
        assert_eq!(kind(Path::new("a.xml.gz"), b"<"), Kind::Gzip);
        assert_eq!(kind(Path::new("a.xml.zst"), b"<"), Kind::Zstd);
        assert_eq!(kind(Path::new("a.jtr"), b""), Kind::Jtr);
        assert_eq!(kind(Path::new("a"), &[0x1f, 0x8b, 8]), Kind::Gzip);
        assert_eq!(kind(Path::new("a"), &[0x28, 0xb5, 0x2f, 0xfd]), Kind::Zstd);
        assert_eq!(kind(Path::new("a"), &trace::jtr::MAGIC), Kind::Jtr);
    }

    #[test]
    fn a_jtr_reads_as_the_agents_xml() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../trace/tests/data");
        let mut doc = Trace::open(&data.join("v3-monitors.jtr"))
            .unwrap()
            .input(None)
            .unwrap()
            .into_xml()
            .unwrap();
        let mut xml = String::new();
        doc.reader.read_to_string(&mut xml).unwrap();
        // The earlier agent wrote no virtual machine's thread (TRACE_FORMAT.md, Threads).
        let agents = std::fs::read_to_string(data.join("v3-monitors.xml")).unwrap();
        assert!(trace::render::without_vm_thread(&xml) == agents);
    }

    #[test]
    fn missing_empty_and_jtr_files_are_one_line_errors() {
        let open = Trace::open;
        let dir = std::env::temp_dir().join(format!("jtrace-cli-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = open(&dir.join("nope.xml")).err().unwrap();
        assert!(e.contains("nope.xml") && e.contains("cannot open"), "{e}");
        std::fs::write(dir.join("empty.xml"), "").unwrap();
        let e = open(&dir.join("empty.xml")).err().unwrap();
        assert!(e.contains("empty file"), "{e}");
        std::fs::write(dir.join("t.jtr"), "x").unwrap();
        let e = open(&dir.join("t.jtr")).err().unwrap();
        assert!(e.contains("not a jtrace .jtr file"), "{e}");
        assert!(!e.contains('\n'));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
