//! Opening a trace: the one place that knows file kinds (`.xml`, `.xml.gz`, `.xml.zst`,
//! `.jtr`) and turns a path into a stream of XML bytes with progress reporting.

use super::progress::{Counting, Progress};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Read buffer: large enough that system calls and progress updates are rare.
const BUF: usize = 1 << 20;

/// An opened trace: its XML bytes and what to call it in messages.
pub struct Input {
    /// The path as the user gave it.
    pub name: String,
    /// The XML document, decompressed.
    pub reader: Box<dyn BufRead>,
    /// Whether `reader` decompresses (then `size` is not the XML's size).
    pub compressed: bool,
    /// Kept alive while reading: clears the progress bar when dropped.
    _progress: Progress,
}

#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Xml,
    Gzip,
    Zstd,
    Jtr,
}

/// The kind from the file name, else from the first bytes (gzip and zstd magic).
fn kind(path: &Path, head: &[u8]) -> Kind {
    let name = path.to_string_lossy();
    if name.ends_with(".jtr") {
        Kind::Jtr
    } else if name.ends_with(".gz") || head.starts_with(&[0x1f, 0x8b]) {
        Kind::Gzip
    } else if name.ends_with(".zst") || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Kind::Zstd
    } else {
        Kind::Xml
    }
}

/// Opens `path` for reading as a jtrace XML document; `Err` is one line naming the file.
pub fn open(path: &Path) -> Result<Input, String> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| format!("{name}: cannot open: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("{name}: cannot read: {e}"))?;
    if meta.is_dir() {
        return Err(format!("{name}: is a directory, not a trace"));
    }
    let size = meta.len();
    let progress = Progress::new(size);
    let mut raw = BufReader::with_capacity(BUF, Counting::new(file, progress.clone()));
    let head = raw
        .fill_buf()
        .map_err(|e| format!("{name}: cannot read: {e}"))?
        .to_vec();
    if head.is_empty() {
        return Err(format!("{name}: empty file, not a trace"));
    }
    let (reader, compressed): (Box<dyn BufRead>, bool) = match kind(path, &head) {
        Kind::Xml => (Box::new(raw), false),
        Kind::Gzip => (
            Box::new(BufReader::with_capacity(
                BUF,
                flate2::bufread::MultiGzDecoder::new(raw),
            )),
            true,
        ),
        Kind::Zstd => {
            let d = zstd::stream::read::Decoder::with_buffer(raw)
                .map_err(|e| format!("{name}: not a zstd stream: {e}"))?;
            (Box::new(BufReader::with_capacity(BUF, d)), true)
        }
        // The `.jtr` branch: the trace crate renders a .jtr as the XML document
        // (`trace::jtr::to_xml(impl Read, impl Write)`); wire it in here, e.g. through
        // a pipe fed by a thread, and every subcommand reads .jtr files.
        Kind::Jtr => return Err(jtr_unsupported(&name, raw)),
    };
    Ok(Input {
        name,
        reader,
        compressed,
        _progress: progress,
    })
}

fn jtr_unsupported(name: &str, _raw: impl Read) -> String {
    format!(
        "{name}: `.jtr` input needs the trace crate's renderer (trace::jtr::to_xml), \
         which this build does not have yet; render it to XML first"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_name_then_magic() {
        assert_eq!(kind(Path::new("a.xml"), b"<?xml"), Kind::Xml);
        assert_eq!(kind(Path::new("a.xml.gz"), b"<"), Kind::Gzip);
        assert_eq!(kind(Path::new("a.xml.zst"), b"<"), Kind::Zstd);
        assert_eq!(kind(Path::new("a.jtr"), b""), Kind::Jtr);
        assert_eq!(kind(Path::new("a"), &[0x1f, 0x8b, 8]), Kind::Gzip);
        assert_eq!(kind(Path::new("a"), &[0x28, 0xb5, 0x2f, 0xfd]), Kind::Zstd);
    }

    #[test]
    fn missing_empty_and_jtr_files_are_one_line_errors() {
        let dir = std::env::temp_dir().join(format!("jtrace-cli-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = open(&dir.join("nope.xml")).err().unwrap();
        assert!(e.contains("nope.xml") && e.contains("cannot open"), "{e}");
        std::fs::write(dir.join("empty.xml"), "").unwrap();
        let e = open(&dir.join("empty.xml")).err().unwrap();
        assert!(e.contains("empty file"), "{e}");
        std::fs::write(dir.join("t.jtr"), "x").unwrap();
        let e = open(&dir.join("t.jtr")).err().unwrap();
        assert!(e.contains("`.jtr` input needs"), "{e}");
        assert!(!e.contains('\n'));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
