//! `calls.parquet`, the table with a row per call: columns buffered as typed vectors
//! for a row group, then each encoded into its column chunk by [`pages`] and appended
//! to the file through the crate's row group writer (schema, footer and the other
//! tables stay the crate's; see [`super::table`]).

use super::order::CallRow;
use super::pages::{self, Chunk, PAGE_ROWS};
use super::schema::calls;
use super::table::{err, finish, open, Writer, GROUP_ROWS};
use crate::model::idmap::FastMap;
use crate::model::NONE;
use bytes::Bytes;
use parquet::basic::Encoding;
use parquet::column::writer::ColumnCloseResult;
use parquet::data_type::ByteArray;
use parquet::schema::types::ColumnDescPtr;
use std::path::{Path, PathBuf};

/// A dictionary-encoded string column: the file's dictionary so far, each row's index.
#[derive(Default)]
struct DictColumn {
    dict: Vec<ByteArray>,
    /// Index per non-null row.
    idx: Vec<u32>,
    /// Per row, whether it has a value (nullable columns only).
    present: Vec<bool>,
}

/// `calls.parquet` being written; [`Calls::push`] a row, then [`Calls::close`].
pub struct Calls {
    path: PathBuf,
    writer: Option<Writer>,
    descrs: Vec<ColumnDescPtr>,
    zstd: zstd::bulk::Compressor<'static>,
    call_id: Vec<i64>,
    parent_id: Vec<i64>,
    has_parent: Vec<bool>,
    thread_id: Vec<i64>,
    method_id: Vec<i64>,
    path_id: Vec<i64>,
    depth: Vec<i64>,
    start: Vec<i64>,
    dur: Vec<i64>,
    self_ns: Vec<i64>,
    alloc_bytes: Vec<i64>,
    alloc_count: Vec<i64>,
    recursive: Vec<bool>,
    exit_kind: DictColumn,
    exception: DictColumn,
    /// Class index → its entry in `exception.dict`.
    exception_entry: FastMap<u32, u32>,
    trace_id: ByteArray,
    rows: usize,
    /// Rows written in all.
    pub total: u64,
}

type Encoded = (Bytes, ColumnCloseResult);

/// A page's definition levels of rows `rows` (none for a required column); the
/// values it holds.
fn page_levels(
    present: Option<&[bool]>,
    rows: std::ops::Range<usize>,
    body: &mut Vec<u8>,
) -> usize {
    match present {
        Some(p) => {
            let p = &p[rows];
            pages::levels(p, body);
            p.iter().filter(|&&x| x).count()
        }
        None => rows.len(),
    }
}

/// An `INT64` column chunk, `DELTA_BINARY_PACKED`: `vals` are the non-null values,
/// `present` (nullable columns) says which of the `rows` rows have one.
fn int_chunk(
    z: &mut zstd::bulk::Compressor,
    descr: ColumnDescPtr,
    vals: &[i64],
    present: Option<&[bool]>,
    rows: usize,
) -> Result<Encoded, String> {
    let mut ch = Chunk::new(true);
    let mut body = Vec::new();
    let mut at = 0;
    for r0 in (0..rows).step_by(PAGE_ROWS) {
        let r1 = (r0 + PAGE_ROWS).min(rows);
        body.clear();
        let n = page_levels(present, r0..r1, &mut body);
        pages::delta(&vals[at..at + n], &mut body);
        at += n;
        ch.data_page(z, &body, (r1 - r0) as u32, Encoding::DELTA_BINARY_PACKED)?;
    }
    let (min, max) = vals.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &v| {
        (if v < lo { v } else { lo }, if v > hi { v } else { hi })
    });
    let (min, max) = if vals.is_empty() {
        (None, None)
    } else {
        (Some(min), Some(max))
    };
    let nulls = (rows - vals.len()) as u64;
    ch.finish(descr, rows as u64, Some(pages::int_stats(min, max, nulls)))
}

/// A `STRING` column chunk, dictionary-encoded (the whole dictionary, then indices).
fn dict_chunk(
    z: &mut zstd::bulk::Compressor,
    descr: ColumnDescPtr,
    c: &DictColumn,
    nullable: bool,
    rows: usize,
) -> Result<Encoded, String> {
    let mut ch = Chunk::new(true);
    let mut body = Vec::new();
    let present = nullable.then_some(c.present.as_slice());
    if !c.dict.is_empty() {
        pages::plain_strings(c.dict.iter(), &mut body);
        ch.dict_page(z, &body, c.dict.len() as u32)?;
    }
    let w = pages::width(c.dict.len().saturating_sub(1) as u64).max(1);
    let mut at = 0;
    for r0 in (0..rows).step_by(PAGE_ROWS) {
        let r1 = (r0 + PAGE_ROWS).min(rows);
        body.clear();
        let n = page_levels(present, r0..r1, &mut body);
        let enc = if c.dict.is_empty() {
            // Every row null: no values, no dictionary.
            Encoding::PLAIN
        } else {
            body.push(w);
            pages::runs(c.idx[at..at + n].iter().copied(), w, &mut body);
            Encoding::RLE_DICTIONARY
        };
        at += n;
        ch.data_page(z, &body, (r1 - r0) as u32, enc)?;
    }
    let mut used = vec![false; c.dict.len()];
    for &i in &c.idx {
        used[i as usize] = true;
    }
    let mut vals = c.dict.iter().zip(&used).filter(|(_, &u)| u).map(|(v, _)| v);
    let first = vals.next();
    let (mut min, mut max) = (first, first);
    for v in vals {
        if Some(v.data()) < min.map(|m| m.data()) {
            min = Some(v);
        }
        if Some(v.data()) > max.map(|m| m.data()) {
            max = Some(v);
        }
    }
    let nulls = (rows - c.idx.len()) as u64;
    let stats = pages::text_stats(min.cloned(), max.cloned(), nulls);
    ch.finish(descr, rows as u64, Some(stats))
}

/// A `BOOLEAN` column chunk, `PLAIN` (bit-packed).
fn bool_chunk(
    z: &mut zstd::bulk::Compressor,
    descr: ColumnDescPtr,
    vals: &[bool],
) -> Result<Encoded, String> {
    let mut ch = Chunk::new(true);
    let mut body = Vec::new();
    for page in vals.chunks(PAGE_ROWS) {
        body.clear();
        pages::bools(page, &mut body);
        ch.data_page(z, &body, page.len() as u32, Encoding::PLAIN)?;
    }
    let any = |b: bool| vals.contains(&b);
    let (min, max) = if vals.is_empty() {
        (None, None)
    } else {
        (Some(!any(false)), Some(any(true)))
    };
    ch.finish(descr, vals.len() as u64, Some(pages::bool_stats(min, max)))
}

impl Calls {
    /// `exit_kinds` are `exit_kind`'s values by [`CallRow::exit`]; `trace_id` the
    /// value of every row's `trace_id`.
    pub fn create(path: &Path, exit_kinds: &[&str], trace_id: &ByteArray) -> Result<Calls, String> {
        let writer = open(path, calls::COLUMNS)?;
        let descrs = writer.schema_descr().columns().to_vec();
        let zstd = zstd::bulk::Compressor::new(1).map_err(|e| err(path, e))?;
        Ok(Calls {
            path: path.to_path_buf(),
            writer: Some(writer),
            descrs,
            zstd,
            call_id: Vec::new(),
            parent_id: Vec::new(),
            has_parent: Vec::new(),
            thread_id: Vec::new(),
            method_id: Vec::new(),
            path_id: Vec::new(),
            depth: Vec::new(),
            start: Vec::new(),
            dur: Vec::new(),
            self_ns: Vec::new(),
            alloc_bytes: Vec::new(),
            alloc_count: Vec::new(),
            recursive: Vec::new(),
            exit_kind: DictColumn {
                dict: exit_kinds.iter().map(|k| super::table::text(k)).collect(),
                ..DictColumn::default()
            },
            exception: DictColumn::default(),
            exception_entry: FastMap::default(),
            trace_id: trace_id.clone(),
            rows: 0,
            total: 0,
        })
    }

    /// Thread `t`'s call `r`; `class_name` names an exception class the first time.
    #[inline]
    pub fn push(
        &mut self,
        t: u32,
        r: &CallRow,
        class_name: impl FnOnce(u32) -> String,
    ) -> Result<(), String> {
        self.call_id.push(r.call_id as i64);
        let has_parent = r.parent_id != u64::MAX;
        self.has_parent.push(has_parent);
        if has_parent {
            self.parent_id.push(r.parent_id as i64);
        }
        self.thread_id.push(t as i64);
        self.method_id.push(r.method as i64);
        self.path_id.push(r.path as i64);
        self.depth.push(r.depth as i64);
        self.start.push(r.start);
        self.dur.push(r.dur);
        self.self_ns.push(r.self_ns);
        self.exit_kind.idx.push(r.exit as u32);
        self.recursive.push(r.recursive);
        let has_exc = r.exc != NONE;
        self.exception.present.push(has_exc);
        if has_exc {
            let e = &mut self.exception;
            let i = *self.exception_entry.entry(r.exc).or_insert_with(|| {
                e.dict.push(super::table::text(&class_name(r.exc)));
                e.dict.len() as u32 - 1
            });
            e.idx.push(i);
        }
        self.alloc_bytes.push(r.alloc_bytes as i64);
        self.alloc_count.push(r.alloc_count as i64);
        self.rows += 1;
        self.total += 1;
        if self.rows >= GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), String> {
        let rows = self.rows;
        if rows == 0 {
            return Ok(());
        }
        let path = &self.path;
        let writer = self.writer.as_mut().ok_or_else(|| err(path, "closed"))?;
        let mut rg = writer.next_row_group().map_err(|e| err(path, e))?;
        let z = &mut self.zstd;
        let trace_id = DictColumn {
            dict: vec![self.trace_id.clone()],
            idx: vec![0; rows],
            present: Vec::new(),
        };
        for (c, col) in calls::COLUMNS.iter().enumerate() {
            let d = self.descrs[c].clone();
            let int = |z: &mut _, v: &Vec<i64>| int_chunk(z, d.clone(), v, None, rows);
            let (bytes, close) = match c {
                calls::CALL_ID => int(z, &self.call_id),
                calls::PARENT_ID => {
                    int_chunk(z, d.clone(), &self.parent_id, Some(&self.has_parent), rows)
                }
                calls::THREAD_ID => int(z, &self.thread_id),
                calls::METHOD_ID => int(z, &self.method_id),
                calls::PATH_ID => int(z, &self.path_id),
                calls::DEPTH => int(z, &self.depth),
                calls::START_NS => int(z, &self.start),
                calls::DUR_NS => int(z, &self.dur),
                calls::SELF_NS => int(z, &self.self_ns),
                calls::EXIT_KIND => dict_chunk(z, d.clone(), &self.exit_kind, false, rows),
                calls::RECURSIVE => bool_chunk(z, d.clone(), &self.recursive),
                calls::EXCEPTION_CLASS => dict_chunk(z, d.clone(), &self.exception, true, rows),
                calls::ALLOC_BYTES => int(z, &self.alloc_bytes),
                calls::ALLOC_COUNT => int(z, &self.alloc_count),
                _ => dict_chunk(z, d.clone(), &trace_id, false, rows),
            }
            .map_err(|e| err(path, format!("column {}: {e}", col.name)))?;
            rg.append_column(&bytes, close)
                .map_err(|e| err(path, format!("column {}: {e}", col.name)))?;
        }
        rg.close().map_err(|e| err(path, e))?;
        for v in [
            &mut self.call_id,
            &mut self.parent_id,
            &mut self.thread_id,
            &mut self.method_id,
            &mut self.path_id,
            &mut self.depth,
            &mut self.start,
            &mut self.dur,
            &mut self.self_ns,
            &mut self.alloc_bytes,
            &mut self.alloc_count,
        ] {
            v.clear();
        }
        self.has_parent.clear();
        self.recursive.clear();
        self.exit_kind.idx.clear();
        self.exception.idx.clear();
        self.exception.present.clear();
        self.rows = 0;
        Ok(())
    }

    /// Writes what is buffered and the footer; the rows written.
    pub fn close(mut self) -> Result<u64, String> {
        self.flush()?;
        finish(&self.path, &mut self.writer)?;
        Ok(self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    /// Rows over several pages and two row groups, with nulls, every exit kind, the
    /// extremes of every number and exceptions appearing late, read back by the
    /// `parquet` crate's own reader.
    #[test]
    fn the_crate_reads_back_what_was_written() {
        let dir = std::env::temp_dir().join(format!("jtrace-calls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("calls.parquet");
        let kinds = ["return", "throw", "unwind", "open"];
        let id = super::super::table::text("run-1");
        let n = GROUP_ROWS as u64 + PAGE_ROWS as u64 + 17;
        let row = |i: u64| CallRow {
            call_id: i,
            parent_id: if i.is_multiple_of(1000) {
                u64::MAX
            } else {
                i - 1
            },
            method: (i % 7) as u32,
            path: (i % 5000) as u32,
            depth: (i % 1000) as u32,
            exc: if i > 300_000 && i.is_multiple_of(3) {
                (i % 4) as u32
            } else {
                NONE
            },
            exit: (i / 50_000 % 4) as u8,
            recursive: i.is_multiple_of(5),
            start: i as i64 * 997,
            dur: match i % 3 {
                0 => i64::MAX,
                1 => i64::MIN,
                _ => -(i as i64),
            },
            self_ns: (i as i64).wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as i64),
            alloc_bytes: if i.is_multiple_of(11) {
                u64::MAX >> 1
            } else {
                0
            },
            alloc_count: i % 11,
        };
        let mut c = Calls::create(&file, &kinds, &id).unwrap();
        for i in 0..n {
            c.push(3, &row(i), |e| format!("E{e}")).unwrap();
        }
        assert_eq!(c.close().unwrap(), n);
        let reader = SerializedFileReader::try_from(std::fs::File::open(&file).unwrap()).unwrap();
        assert_eq!(reader.metadata().num_row_groups(), 2);
        let mut i = 0u64;
        for r in reader.get_row_iter(None).unwrap() {
            let r = r.unwrap();
            let want = row(i);
            let long = |v: i64| Field::Long(v);
            let text = |s: &str| Field::Str(s.to_string());
            let expect = [
                long(want.call_id as i64),
                if want.parent_id == u64::MAX {
                    Field::Null
                } else {
                    long(want.parent_id as i64)
                },
                long(3),
                long(want.method as i64),
                long(want.path as i64),
                long(want.depth as i64),
                long(want.start),
                long(want.dur),
                long(want.self_ns),
                text(kinds[want.exit as usize]),
                Field::Bool(want.recursive),
                if want.exc == NONE {
                    Field::Null
                } else {
                    text(&format!("E{}", want.exc))
                },
                long(want.alloc_bytes as i64),
                long(want.alloc_count as i64),
                text("run-1"),
            ];
            let got: Vec<&Field> = r.get_column_iter().map(|(_, f)| f).collect();
            assert_eq!(got, expect.iter().collect::<Vec<_>>(), "row {i}");
            i += 1;
        }
        assert_eq!(i, n);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
