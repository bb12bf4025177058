//! Output formats chosen by file name (`.jtr`, `.xml`, `.xml.gz`, `.xml.zst`) and the compressing writers behind the compressed ones.

use std::io::{self, Write};

/// What a trace file holds, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The TPTP XML document.
    Xml,
    /// The XML document, gzip-compressed (`.gz`; xmllint reads it as is).
    XmlGzip,
    /// The XML document, zstd-compressed (`.zst`).
    XmlZstd,
    /// The compact record stream (`.jtr`, docs/JTR_FORMAT.md).
    Jtr,
}

impl Format {
    /// The format a path names: by its last extension; anything unknown is XML.
    pub fn from_path(path: &str) -> Format {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".jtr") {
            Format::Jtr
        } else if lower.ends_with(".gz") {
            Format::XmlGzip
        } else if lower.ends_with(".zst") {
            Format::XmlZstd
        } else {
            Format::Xml
        }
    }
}

/// zstd level for traces: level 3 (zstd's default) compresses XML traces about 20x at
/// several hundred MB/s on one core, faster than this machine's disk takes the XML.
const ZSTD_LEVEL: i32 = 3;
/// gzip level: 6 (gzip's default) is ~3x slower than 1 for a few % smaller traces;
/// a trace is written once and mostly read by jtrace, so speed wins.
const GZIP_LEVEL: u32 = 1;

/// A writer that compresses (or not) according to the output format.
pub enum Compressed<W: Write> {
    Plain(W),
    Gzip(flate2::write::GzEncoder<W>),
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> Compressed<W> {
    /// Wraps `w` for `format` (`Jtr` and `Xml` write as is).
    pub fn new(w: W, format: Format) -> io::Result<Self> {
        Self::with_workers(w, format, 0)
    }

    /// Like `new`, with `workers` extra threads compressing zstd (0: on the calling
    /// thread; gzip and plain output ignore it).
    pub fn with_workers(w: W, format: Format, workers: u32) -> io::Result<Self> {
        Ok(match format {
            Format::Xml | Format::Jtr => Compressed::Plain(w),
            Format::XmlGzip => Compressed::Gzip(flate2::write::GzEncoder::new(
                w,
                flate2::Compression::new(GZIP_LEVEL),
            )),
            Format::XmlZstd => {
                let mut e = zstd::stream::write::Encoder::new(w, ZSTD_LEVEL)?;
                if workers > 0 {
                    e.multithread(workers)?;
                }
                Compressed::Zstd(e)
            }
        })
    }

    /// Writes the compressed stream's trailer and returns the inner writer, flushed.
    pub fn finish(self) -> io::Result<W> {
        let mut w = match self {
            Compressed::Plain(w) => w,
            Compressed::Gzip(e) => e.finish()?,
            Compressed::Zstd(e) => e.finish()?,
        };
        w.flush()?;
        Ok(w)
    }
}

impl<W: Write> Write for Compressed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Compressed::Plain(w) => w.write(buf),
            Compressed::Gzip(w) => w.write(buf),
            Compressed::Zstd(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Compressed::Plain(w) => w.write_all(buf),
            Compressed::Gzip(w) => w.write_all(buf),
            Compressed::Zstd(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Compressed::Plain(w) => w.flush(),
            Compressed::Gzip(w) => w.flush(),
            Compressed::Zstd(w) => w.flush(),
        }
    }
}

/// Opens a reader over a trace file's bytes, decompressing by name (`.gz`, `.zst`).
pub fn decompressed<R: io::Read + 'static>(r: R, format: Format) -> io::Result<Box<dyn io::Read>> {
    Ok(match format {
        Format::Xml | Format::Jtr => Box::new(r),
        Format::XmlGzip => Box::new(flate2::read::MultiGzDecoder::new(r)),
        Format::XmlZstd => Box::new(zstd::stream::read::Decoder::new(r)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn formats_by_name() {
        assert_eq!(Format::from_path("t.jtr"), Format::Jtr);
        assert_eq!(Format::from_path("t.xml"), Format::Xml);
        assert_eq!(Format::from_path("T.XML.GZ"), Format::XmlGzip);
        assert_eq!(Format::from_path("t.xml.zst"), Format::XmlZstd);
        assert_eq!(Format::from_path("trace"), Format::Xml);
    }

    #[test]
    fn compressed_round_trips() {
        let text = b"<TRACE>\n<a/>\n</TRACE>\n".repeat(1000);
        for f in [Format::Xml, Format::XmlGzip, Format::XmlZstd] {
            let mut c = Compressed::new(Vec::new(), f).unwrap();
            c.write_all(&text).unwrap();
            let bytes = c.finish().unwrap();
            if f != Format::Xml {
                assert!(bytes.len() < text.len() / 10, "{f:?}");
            }
            let mut back = Vec::new();
            decompressed(std::io::Cursor::new(bytes), f)
                .unwrap()
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, text, "{f:?}");
        }
    }
}
