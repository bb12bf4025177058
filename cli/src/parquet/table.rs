//! One Parquet file written row group by row group: typed column buffers over the
//! `parquet` crate's column writers (no Arrow arrays in between), flushed every
//! [`GROUP_ROWS`] rows so memory stays bounded whatever the table's length.

use super::pages;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::column::writer::ColumnCloseResult;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnDescPtr, ColumnPath, Type};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows per row group: about 30 MB of buffers for `calls`, and row groups large enough
/// for dictionaries and zstd to pay off (DuckDB reads 122,880-row groups in parallel).
pub const GROUP_ROWS: usize = 1 << 18;

/// Bytes of strings buffered before a row group is written, whatever its rows: a
/// deep program's `paths.stack` values reach kilobytes each (javac's average 2.4 KB).
const GROUP_TEXT: usize = 32 << 20;

/// A column's Parquet type: every engine reads these without options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `INT64`, required.
    Int,
    /// `INT64`, null allowed.
    OptInt,
    /// `BYTE_ARRAY (STRING)`, required.
    Text,
    /// `BYTE_ARRAY (STRING)`, null allowed.
    OptText,
    /// `BOOLEAN`, required.
    Bool,
    /// `BYTE_ARRAY (STRING)`, required, the same value in every row of the file: set
    /// once with [`Table::set_const`], never pushed row by row.
    Const,
}

/// How a column's pages are encoded (all of them then compressed with zstd).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enc {
    /// Dictionary, run-length encoded indices: few distinct values (ids, names, kinds).
    Dict,
    /// `DELTA_BINARY_PACKED`: rising values (ids in entry order, start times).
    Delta,
    /// Plain: values with no pattern (durations).
    Plain,
    /// `DELTA_BYTE_ARRAY` (front coding), pushed with [`Table::front`] as the bytes
    /// kept of the value before and the rest: strings that extend each other
    /// (`paths.stack`, a path's being its parent's and one more frame), never held
    /// whole. Encoded here ([`super::pages::front`]), not by the crate.
    Front,
}

/// Rows per page of a [`Enc::Front`] column (its first value is whole).
const FRONT_PAGE_ROWS: usize = 1 << 14;

/// One column of a table's schema.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub enc: Enc,
    /// What it holds (docs/PARQUET.md says the same).
    pub doc: &'static str,
}

enum Buf {
    Int(Vec<i64>, Vec<i16>),
    Text(Vec<ByteArray>, Vec<i16>),
    Bool(Vec<bool>),
    /// The file's constant value.
    Const(Option<ByteArray>),
    Front(Front),
}

/// A [`Enc::Front`] column's rows: per row the bytes kept of the row before and the
/// length of its rest; the rests; the last value whole (for a page's first row).
#[derive(Default)]
struct Front {
    keep: Vec<i64>,
    lens: Vec<i64>,
    rest: Vec<u8>,
    last: Vec<u8>,
}

/// A Parquet file being written; push values column by column, then [`Table::row`].
pub struct Table {
    path: PathBuf,
    spec: &'static [Column],
    writer: Option<Writer>,
    bufs: Vec<Buf>,
    rows: usize,
    /// Bytes of the strings buffered.
    text_bytes: usize,
    /// Rows written in all.
    pub total: u64,
    /// The compressor of the columns encoded here (made at the first).
    zstd: Option<zstd::bulk::Compressor<'static>>,
    /// A page's body before compression.
    body: Vec<u8>,
    /// A column chunk's bytes (see [`pages::Enc::sink`]).
    sink: Vec<u8>,
}

pub fn err(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: cannot write: {e}", path.display())
}

/// A Parquet file's writer.
pub type Writer = SerializedFileWriter<BufWriter<File>>;

/// Creates `path` as a Parquet file of the columns `spec`.
pub fn open(path: &Path, spec: &[Column]) -> Result<Writer, String> {
    let file = File::create(path).map_err(|e| err(path, e))?;
    SerializedFileWriter::new(
        BufWriter::with_capacity(1 << 20, file),
        Arc::new(schema(spec)?),
        Arc::new(properties(spec)?),
    )
    .map_err(|e| err(path, e))
}

/// Writes the footer of the file `writer` is writing (once: `None` after).
pub fn finish(path: &Path, writer: &mut Option<Writer>) -> Result<(), String> {
    let w = writer.take().ok_or_else(|| err(path, "closed"))?;
    w.close().map(drop).map_err(|e| err(path, e))
}

/// The schema as Parquet's message type.
pub fn schema(spec: &[Column]) -> Result<Type, String> {
    let mut fields = Vec::with_capacity(spec.len());
    for c in spec {
        use parquet::basic::{LogicalType, Repetition, Type as Physical};
        let (physical, logical, rep) = match c.kind {
            Kind::Int => (Physical::INT64, None, Repetition::REQUIRED),
            Kind::OptInt => (Physical::INT64, None, Repetition::OPTIONAL),
            Kind::Text | Kind::Const => (
                Physical::BYTE_ARRAY,
                Some(LogicalType::String),
                Repetition::REQUIRED,
            ),
            Kind::OptText => (
                Physical::BYTE_ARRAY,
                Some(LogicalType::String),
                Repetition::OPTIONAL,
            ),
            Kind::Bool => (Physical::BOOLEAN, None, Repetition::REQUIRED),
        };
        let t = Type::primitive_type_builder(c.name, physical)
            .with_logical_type(logical)
            .with_repetition(rep)
            .build()
            .map_err(|e| e.to_string())?;
        fields.push(Arc::new(t));
    }
    Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
        .map_err(|e| e.to_string())
}

pub fn properties(spec: &[Column]) -> Result<WriterProperties, String> {
    let level = ZstdLevel::try_new(1).map_err(|e| e.to_string())?;
    let mut b = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_max_row_group_row_count(Some(GROUP_ROWS))
        .set_created_by(format!("jtrace {}", trace::VERSION));
    for c in spec {
        let path = ColumnPath::from(c.name);
        match c.enc {
            Enc::Dict => b = b.set_column_dictionary_enabled(path, true),
            Enc::Delta => {
                b = b
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_encoding(path, Encoding::DELTA_BINARY_PACKED)
            }
            // Plain strings are long and distinct (paths.stack, methods.method_key):
            // no engine prunes by their minimum and maximum, which cost a comparison
            // of every value.
            Enc::Plain if matches!(c.kind, Kind::Text | Kind::OptText) => {
                b = b
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_statistics_enabled(path, EnabledStatistics::None)
            }
            Enc::Plain => b = b.set_column_dictionary_enabled(path, false),
            // Encoded by jtrace (the crate's writer never sees the column).
            Enc::Front => {
                b = b
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_statistics_enabled(path, EnabledStatistics::None)
            }
        }
    }
    Ok(b.build())
}

impl Table {
    pub fn create(path: &Path, spec: &'static [Column]) -> Result<Table, String> {
        let writer = open(path, spec)?;
        let bufs = spec
            .iter()
            .map(|c| match c.kind {
                Kind::Int | Kind::OptInt => Buf::Int(Vec::new(), Vec::new()),
                Kind::Text if c.enc == Enc::Front => Buf::Front(Front::default()),
                Kind::Text | Kind::OptText => Buf::Text(Vec::new(), Vec::new()),
                Kind::Bool => Buf::Bool(Vec::new()),
                Kind::Const => Buf::Const(None),
            })
            .collect();
        Ok(Table {
            path: path.to_path_buf(),
            spec,
            writer: Some(writer),
            bufs,
            rows: 0,
            text_bytes: 0,
            total: 0,
            zstd: None,
            body: Vec::new(),
            sink: Vec::new(),
        })
    }

    #[inline]
    pub fn int(&mut self, c: usize, v: i64) {
        if let Buf::Int(vals, _) = &mut self.bufs[c] {
            vals.push(v);
        }
    }

    #[inline]
    pub fn opt_int(&mut self, c: usize, v: Option<i64>) {
        if let Buf::Int(vals, def) = &mut self.bufs[c] {
            def.push(v.is_some() as i16);
            if let Some(v) = v {
                vals.push(v);
            }
        }
    }

    #[inline]
    pub fn text(&mut self, c: usize, v: ByteArray) {
        self.text_bytes += v.len();
        if let Buf::Text(vals, _) = &mut self.bufs[c] {
            vals.push(v);
        }
    }

    #[inline]
    pub fn opt_text(&mut self, c: usize, v: Option<ByteArray>) {
        self.text_bytes += v.as_ref().map_or(0, |v| v.len());
        if let Buf::Text(vals, def) = &mut self.bufs[c] {
            def.push(v.is_some() as i16);
            if let Some(v) = v {
                vals.push(v);
            }
        }
    }

    /// The value of the [`Enc::Front`] column `c`: the first `keep` bytes of the row
    /// before's, then `rest`.
    #[inline]
    pub fn front(&mut self, c: usize, keep: usize, rest: &[u8]) {
        let first = self.rows.is_multiple_of(FRONT_PAGE_ROWS);
        if let Buf::Front(f) = &mut self.bufs[c] {
            let keep = keep.min(f.last.len());
            f.last.truncate(keep);
            f.last.extend_from_slice(rest);
            // A page's first value is whole: a reader starts each page afresh.
            let (keep, rest) = if first {
                (0, &f.last[..])
            } else {
                (keep, rest)
            };
            f.keep.push(keep as i64);
            f.lens.push(rest.len() as i64);
            f.rest.extend_from_slice(rest);
            self.text_bytes += rest.len();
        }
    }

    #[inline]
    pub fn bool(&mut self, c: usize, v: bool) {
        if let Buf::Bool(vals) = &mut self.bufs[c] {
            vals.push(v);
        }
    }

    /// Sets the value of the [`Kind::Const`] columns for every row, before the first
    /// row group is written (a later value is ignored: a file holds one).
    pub fn set_const(&mut self, v: &ByteArray) {
        for b in &mut self.bufs {
            if let Buf::Const(c) = b {
                c.get_or_insert_with(|| v.clone());
            }
        }
    }

    /// Ends a row (every column got its value); writes a row group when one is full.
    #[inline]
    pub fn row(&mut self) -> Result<(), String> {
        self.rows += 1;
        self.total += 1;
        if self.rows >= GROUP_ROWS || self.text_bytes >= GROUP_TEXT {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), String> {
        if self.rows == 0 {
            return Ok(());
        }
        let path = &self.path;
        let writer = self.writer.as_mut().ok_or_else(|| err(path, "closed"))?;
        let descrs = writer.schema_descr().columns().to_vec();
        let mut rg = writer.next_row_group().map_err(|e| err(path, e))?;
        for ((c, buf), descr) in self.spec.iter().zip(&mut self.bufs).zip(descrs) {
            if let Buf::Front(f) = buf {
                let z = compressor(&mut self.zstd, path)?;
                let e = &mut pages::Enc {
                    z,
                    zstd: true,
                    body: &mut self.body,
                    sink: &mut self.sink,
                };
                let (bytes, close) = front_chunk(e, descr, f)
                    .map_err(|e| err(path, format!("column {}: {e}", c.name)))?;
                rg.append_column(&bytes, close)
                    .map_err(|e| err(path, format!("column {}: {e}", c.name)))?;
                self.sink = pages::reclaim(bytes);
                continue;
            }
            if let Buf::Const(v) = buf {
                // Encoded here: one dictionary value and one run of its index (the
                // crate's dictionary writer hashed the value again in every row, a
                // third of `paths`' cost).
                let v = v
                    .as_ref()
                    .ok_or_else(|| err(path, format!("column {}: no value set", c.name)))?;
                let z = compressor(&mut self.zstd, path)?;
                let e = &mut pages::Enc {
                    z,
                    zstd: true,
                    body: &mut self.body,
                    sink: &mut self.sink,
                };
                let dict = std::slice::from_ref(v);
                let (bytes, close) =
                    pages::dict_chunk(e, descr, dict, self.rows, false, |_| Some(0), Some(Some(0)))
                        .map_err(|e| err(path, format!("column {}: {e}", c.name)))?;
                rg.append_column(&bytes, close)
                    .map_err(|e| err(path, format!("column {}: {e}", c.name)))?;
                self.sink = pages::reclaim(bytes);
                continue;
            }
            if let (Buf::Int(v, d), Enc::Delta) = (&mut *buf, c.enc) {
                // Encoded here too (the crate's writer spends about 170 instructions a
                // value); a null is a value no row has.
                let optional = c.kind == Kind::OptInt;
                if !optional || !v.contains(&i64::MIN) {
                    let z = compressor(&mut self.zstd, path)?;
                    let e = &mut pages::Enc {
                        z,
                        zstd: true,
                        body: &mut self.body,
                        sink: &mut self.sink,
                    };
                    let (mut scratch, mut all) = (Vec::new(), Vec::new());
                    let vals = if optional {
                        let mut present = v.iter();
                        all.extend(d.iter().map(|&d| match d {
                            0 => i64::MIN,
                            _ => present.next().copied().unwrap_or(i64::MIN),
                        }));
                        &all[..]
                    } else {
                        &v[..]
                    };
                    let null = optional.then_some(i64::MIN);
                    let (bytes, close) = pages::int_chunk(e, descr, vals, null, &mut scratch)
                        .map_err(|e| err(path, format!("column {}: {e}", c.name)))?;
                    rg.append_column(&bytes, close)
                        .map_err(|e| err(path, format!("column {}: {e}", c.name)))?;
                    self.sink = pages::reclaim(bytes);
                    v.clear();
                    d.clear();
                    continue;
                }
            }
            let mut cw = rg
                .next_column()
                .map_err(|e| err(path, e))?
                .ok_or_else(|| err(path, "fewer columns than the schema"))?;
            let optional = matches!(c.kind, Kind::OptInt | Kind::OptText);
            let wrote = match buf {
                Buf::Int(v, d) => {
                    let def = optional.then_some(d.as_slice());
                    let r = cw.typed::<Int64Type>().write_batch(v, def, None);
                    v.clear();
                    d.clear();
                    r
                }
                Buf::Text(v, d) => {
                    let def = optional.then_some(d.as_slice());
                    let r = cw.typed::<ByteArrayType>().write_batch(v, def, None);
                    v.clear();
                    d.clear();
                    r
                }
                Buf::Bool(v) => {
                    let r = cw.typed::<BoolType>().write_batch(v, None, None);
                    v.clear();
                    r
                }
                // Appended above.
                Buf::Front(_) | Buf::Const(_) => Ok(0),
            };
            wrote.map_err(|e| err(path, format!("column {}: {e}", c.name)))?;
            cw.close().map_err(|e| err(path, e))?;
        }
        rg.close().map_err(|e| err(path, e))?;
        self.rows = 0;
        self.text_bytes = 0;
        Ok(())
    }

    /// Writes what is buffered and the footer.
    pub fn close(mut self) -> Result<u64, String> {
        self.flush()?;
        finish(&self.path, &mut self.writer)?;
        Ok(self.total)
    }
}

/// The compressor in `slot`, made the first time.
fn compressor<'a>(
    slot: &'a mut Option<zstd::bulk::Compressor<'static>>,
    path: &Path,
) -> Result<&'a mut zstd::bulk::Compressor<'static>, String> {
    if slot.is_none() {
        *slot = Some(zstd::bulk::Compressor::new(pages::LEVEL).map_err(|e| err(path, e))?);
    }
    slot.as_mut().ok_or_else(|| err(path, "no compressor"))
}

/// The rows of a [`Enc::Front`] column as a column chunk, zstd-compressed; the rows
/// are cleared (the last value stays, for the next row's prefix).
fn front_chunk(
    e: &mut pages::Enc,
    descr: ColumnDescPtr,
    f: &mut Front,
) -> Result<(bytes::Bytes, ColumnCloseResult), String> {
    let rows = f.keep.len();
    let mut ch = pages::Chunk::start(e, 1 << 16);
    let (z, body) = (&mut *e.z, &mut *e.body);
    let mut at = 0;
    for r0 in (0..rows).step_by(FRONT_PAGE_ROWS) {
        let r1 = (r0 + FRONT_PAGE_ROWS).min(rows);
        let len = f.lens[r0..r1].iter().sum::<i64>() as usize;
        body.clear();
        pages::front(
            &f.keep[r0..r1],
            &f.lens[r0..r1],
            &f.rest[at..at + len],
            body,
        );
        at += len;
        ch.data_page(z, body, (r1 - r0) as u32, Encoding::DELTA_BYTE_ARRAY)?;
    }
    f.keep.clear();
    f.lens.clear();
    f.rest.clear();
    ch.finish(descr, rows as u64, None)
}

/// A string as a Parquet value.
pub fn text(s: &str) -> ByteArray {
    ByteArray::from(s.as_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::super::schema::paths;
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    /// `paths` as the export writes it: stacks front-coded against the row before
    /// (keeping less than they share, too), integer columns by jtrace's coder, a null
    /// parent at each root; over several pages and two row groups, read back by the
    /// crate's own reader value for value.
    #[test]
    fn front_coded_stacks_and_coded_ints_read_back() {
        let dir = std::env::temp_dir().join(format!("jtrace-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("paths.parquet");
        let mut t = Table::create(&file, paths::COLUMNS).unwrap();
        t.set_const(&text("run-1"));
        let n = GROUP_ROWS + 3 * FRONT_PAGE_ROWS + 5;
        let (mut seed, mut prev, mut want) = (7u64, String::new(), Vec::new());
        let mut stack: Vec<String> = Vec::new();
        for i in 0..n {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (seed >> 33) as usize;
            if stack.len() > 1 + r % 60 {
                stack.truncate(r % 7);
            }
            stack.push(format!("C{}.m{}", r % 13, i % 3));
            let s = stack.join(";");
            let shared = prev
                .bytes()
                .zip(s.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            let keep = shared - (r % 3).min(shared);
            let parent = (stack.len() > 1).then_some(i as i64 - 1);
            t.int(paths::PATH_ID, i as i64);
            t.opt_int(paths::PARENT_PATH_ID, parent);
            t.int(paths::METHOD_ID, (r % 13) as i64);
            t.int(paths::DEPTH, stack.len() as i64 - 1);
            t.front(paths::STACK, keep, &s.as_bytes()[keep..]);
            t.row().unwrap();
            want.push((parent, stack.len() as i64 - 1, s.clone()));
            prev = s;
        }
        assert_eq!(t.close().unwrap(), n as u64);
        let reader = SerializedFileReader::try_from(std::fs::File::open(&file).unwrap()).unwrap();
        assert_eq!(reader.metadata().num_row_groups(), 2);
        let mut i = 0;
        for r in reader.get_row_iter(None).unwrap() {
            let got: Vec<Field> = r
                .unwrap()
                .get_column_iter()
                .map(|(_, f)| f.clone())
                .collect();
            let (parent, depth, s) = &want[i];
            let parent = parent.map_or(Field::Null, Field::Long);
            assert_eq!(got[0], Field::Long(i as i64), "row {i}");
            assert_eq!(got[1], parent, "row {i}");
            assert_eq!(got[3], Field::Long(*depth), "row {i}");
            assert_eq!(got[4], Field::Str(s.clone()), "row {i}");
            assert_eq!(got[5], Field::Str("run-1".into()), "row {i}");
            i += 1;
        }
        assert_eq!(i, n);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
