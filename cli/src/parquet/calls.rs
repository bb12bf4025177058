//! `calls.parquet`, the table with a row per call: rows held column by column
//! ([`Cols`]), each row group's columns encoded into column chunks by [`pages`] and
//! appended to the file through the crate's row group writer (schema, footer and the
//! other tables stay the crate's; see [`super::table`]). A row group can also be
//! written ahead, while the trace is still being read ([`Calls::store`]), and put in
//! its place in the row groups' order later ([`Calls::append`]): the file's row groups
//! lie in the order they were written, and the footer lists them in the rows' order
//! (what a reader reads them in). That lets [`super::order`] write a thread's calls as
//! they finish, in bounded memory, each byte once.

use super::pages::{self, dict_chunk, int_chunk, Chunk, Enc, PAGE_ROWS};
use super::schema::calls;
use super::table::{err, open, text, Writer};
use crate::model::idmap::FastMap;
use crate::model::NONE;
use bytes::Bytes;
use parquet::basic::Encoding;
use parquet::column::writer::ColumnCloseResult;
use parquet::data_type::ByteArray;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataWriter};
use parquet::schema::types::ColumnDescPtr;
use std::fs::OpenOptions;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// `exit_kind`'s codes, in [`CallRow::exit`], and their values ([`EXIT_KINDS`]).
pub const RETURN: u8 = 0;
pub const THROW: u8 = 1;
pub const UNWIND: u8 = 2;
pub const OPEN: u8 = 3;
pub const EXIT_KINDS: [&str; 4] = ["return", "throw", "unwind", "open"];

/// Rows [`Cols::grow`] adds (under 2 KiB a column).
pub const GROW: usize = 240;

/// `parent_id` of a thread's outermost call.
pub const NO_PARENT: i64 = -1;

/// What a call's row holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallRow {
    pub call_id: i64,
    /// [`NO_PARENT`]: none.
    pub parent_id: i64,
    pub thread: i64,
    pub method: i64,
    pub path: i64,
    pub depth: i64,
    pub start: i64,
    pub dur: i64,
    pub self_ns: i64,
    pub alloc_bytes: i64,
    pub alloc_count: i64,
    /// The window's id; [`NO_PARENT`]: none.
    pub window: i64,
    pub exit: u8,
    pub recursive: bool,
    /// Class of the exception that ended the call (`NONE`: none known).
    pub exc: u32,
}

impl CallRow {
    /// A row of defaults, that tests make rows from.
    #[cfg(test)]
    pub const HOLE: CallRow = CallRow {
        call_id: 0,
        parent_id: NO_PARENT,
        thread: 0,
        method: 0,
        path: 0,
        depth: 0,
        start: 0,
        dur: 0,
        self_ns: 0,
        alloc_bytes: 0,
        alloc_count: 0,
        window: NO_PARENT,
        exit: OPEN,
        recursive: false,
        exc: NONE,
    };
}

/// Rows of `calls`, column by column: a row group's columns are slices of these.
///
/// The twelve integer columns share one block, each [`Cols::stride`] long. Their starts
/// are [`SKEW`] apart modulo a page: a finished call writes its row into every column
/// at once, and columns each in their own allocation (page-aligned, as the allocator
/// maps large blocks) put those twelve stores in one cache set, and each on the same
/// page offset as the last (on javac the whole export took 2.86 s of user time so,
/// 2.41–2.58 s with the columns skewed).
#[derive(Default)]
pub struct Cols {
    ints: Vec<i64>,
    /// Elements from one integer column's start to the next's.
    stride: usize,
    /// Rows each column can hold before the block is made again, larger.
    room: usize,
    len: usize,
    exit: Vec<u8>,
    recursive: Vec<bool>,
    exc: Vec<u32>,
}

/// The integer columns, in [`Cols::ints`]' order (and [`CallRow::ints`]').
const SLOTS: [usize; 12] = [
    calls::CALL_ID,
    calls::PARENT_ID,
    calls::THREAD_ID,
    calls::METHOD_ID,
    calls::PATH_ID,
    calls::DEPTH,
    calls::START_NS,
    calls::DUR_NS,
    calls::SELF_NS,
    calls::ALLOC_BYTES,
    calls::ALLOC_COUNT,
    calls::WINDOW_ID,
];
const INTS: usize = SLOTS.len();

/// Where `calls` column `col` is among [`Cols`]' integer columns, if it is one.
fn int_slot(col: usize) -> Option<usize> {
    SLOTS.iter().position(|&c| c == col)
}

/// Elements one integer column's start is from the next's, past a multiple of a page
/// (384 bytes: the twelve starts fall in twelve different cache sets of a page, the twelfth
/// 128 bytes past the page that the first eleven span).
const SKEW: usize = 48;

/// A page's worth of `i64`.
const PAGE: usize = 512;

impl CallRow {
    /// The row's integer columns, in [`SLOTS`]' order.
    #[inline(always)]
    fn ints(&self) -> [i64; INTS] {
        [
            self.call_id,
            self.parent_id,
            self.thread,
            self.method,
            self.path,
            self.depth,
            self.start,
            self.dur,
            self.self_ns,
            self.alloc_bytes,
            self.alloc_count,
            self.window,
        ]
    }

    /// The row of integer columns `v` (in [`SLOTS`]' order) and the rest.
    #[inline(always)]
    fn from_ints(v: [i64; INTS], exit: u8, recursive: bool, exc: u32) -> CallRow {
        let [call_id, parent_id, thread, method, path, depth, start, dur, self_ns, alloc_bytes, alloc_count, window] =
            v;
        CallRow {
            call_id,
            parent_id,
            thread,
            method,
            path,
            depth,
            start,
            dur,
            self_ns,
            alloc_bytes,
            alloc_count,
            window,
            exit,
            recursive,
            exc,
        }
    }
}

impl Cols {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `calls` column `col`'s rows, an integer column.
    fn int(&self, col: usize) -> &[i64] {
        let k = int_slot(col).expect("an integer column");
        &self.ints[k * self.stride..k * self.stride + self.len]
    }

    /// Room for `rows` rows in every column: the block made again, larger, if it has
    /// less (the rows kept in place).
    fn make_room(&mut self, rows: usize) {
        if rows <= self.room {
            return;
        }
        let room = rows.max(2 * self.room).next_multiple_of(PAGE);
        let stride = room + SKEW;
        let mut ints = vec![0i64; INTS * stride];
        for k in 0..INTS {
            let from = k * self.stride;
            ints[k * stride..k * stride + self.len]
                .copy_from_slice(&self.ints[from..from + self.len]);
        }
        self.ints = ints;
        self.stride = stride;
        self.room = room;
        self.exit.resize(room, OPEN);
        self.recursive.resize(room, false);
        self.exc.resize(room, NONE);
    }

    #[inline]
    pub fn push(&mut self, r: &CallRow) {
        self.make_room(self.len + 1);
        self.len += 1;
        self.set(self.len - 1, r);
    }

    /// [`GROW`] more rows, each to be [`Cols::set`] before it is read: until then it
    /// holds no row's values (zeros, or a row dropped from the front). Filling them
    /// cost 7% of the export: a second pass over memory the rows are written to anyway.
    #[inline(never)]
    pub fn grow(&mut self) {
        self.make_room(self.len + GROW);
        self.len += GROW;
    }

    /// Row `i` becomes `r`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, r: &CallRow) {
        assert!(i < self.len);
        let s = self.stride;
        for (k, v) in r.ints().into_iter().enumerate() {
            self.ints[k * s + i] = v;
        }
        self.exit[i] = r.exit;
        self.recursive[i] = r.recursive;
        self.exc[i] = r.exc;
    }

    pub fn row(&self, i: usize) -> CallRow {
        assert!(i < self.len);
        CallRow::from_ints(
            std::array::from_fn(|k| self.ints[k * self.stride + i]),
            self.exit[i],
            self.recursive[i],
            self.exc[i],
        )
    }

    pub fn call_id(&self, i: usize) -> i64 {
        self.int(calls::CALL_ID)[i]
    }

    /// Row `i`'s exception class and exit kind.
    pub fn set_exception(&mut self, i: usize, exc: u32, exit: Option<u8>) {
        assert!(i < self.len);
        self.exc[i] = exc;
        if let Some(e) = exit {
            self.exit[i] = e;
        }
    }

    /// `exit_kind`'s codes of the rows.
    fn exits(&self) -> &[u8] {
        &self.exit[..self.len]
    }

    fn recursives(&self) -> &[bool] {
        &self.recursive[..self.len]
    }

    /// Exception classes of the rows.
    fn excs(&self) -> &[u32] {
        &self.exc[..self.len]
    }

    /// Removes the first `n` rows.
    pub fn drop_front(&mut self, n: usize) {
        let n = n.min(self.len);
        for k in 0..INTS {
            let at = k * self.stride;
            self.ints.copy_within(at + n..at + self.len, at);
        }
        self.exit.copy_within(n..self.len, 0);
        self.recursive.copy_within(n..self.len, 0);
        self.exc.copy_within(n..self.len, 0);
        self.len -= n;
    }

    /// Appends `other`'s rows `r`.
    pub fn extend(&mut self, other: &Cols, r: Range<usize>) {
        assert!(r.end <= other.len);
        self.make_room(self.len + r.len());
        for k in 0..INTS {
            let (to, from) = (k * self.stride + self.len, k * other.stride);
            self.ints[to..to + r.len()].copy_from_slice(&other.ints[from + r.start..from + r.end]);
        }
        let to = self.len..self.len + r.len();
        self.exit[to.clone()].copy_from_slice(&other.exit[r.clone()]);
        self.recursive[to.clone()].copy_from_slice(&other.recursive[r.clone()]);
        self.exc[to].copy_from_slice(&other.exc[r.clone()]);
        self.len += r.len();
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

type Encoded = (Bytes, ColumnCloseResult);

/// A row group written ahead: its place among the file's row groups.
pub struct Stored(usize);

/// Whether zstd pays on a column: its chunks are compressed while it quarters them at
/// least; a column it did not is stored raw and tried again every [`PROBE_EVERY`]
/// chunks (on one of [`DECIDE_ROWS`] rows or more). (zstd costs about 25 instructions
/// a byte; durations barely shrink, and javac's `method_id`, `path_id` and `depth`,
/// which it cuts by about 3x, are not worth it: `calls.parquet` 14% larger, 0.35x the
/// `.jtr`.)
#[derive(Clone, Copy)]
struct Squeeze {
    pays: bool,
    /// Chunks since the last one compressed.
    since: u32,
}

impl Default for Squeeze {
    fn default() -> Squeeze {
        Squeeze {
            pays: true,
            since: 0,
        }
    }
}

/// How many times smaller zstd must make a column's chunks to stay on it.
const SQUEEZE: i64 = 4;

/// Chunks a column is stored raw before zstd is tried on it again.
const PROBE_EVERY: u32 = 16;

/// Rows of a chunk that decides whether zstd pays.
const DECIDE_ROWS: usize = 4096;

/// The value every element of `v` has, if one.
fn uniform<T: Copy + Eq + std::ops::BitXor<Output = T> + std::ops::BitOr<Output = T> + Default>(
    v: &[T],
) -> Option<T> {
    let &first = v.first()?;
    // No early exit: the loop vectorises.
    let diff = v.iter().fold(T::default(), |a, &x| a | (x ^ first));
    (diff == T::default()).then_some(first)
}

/// A `BOOLEAN` column chunk, `PLAIN` (bit-packed).
fn bool_chunk(e: &mut Enc, descr: ColumnDescPtr, vals: &[bool]) -> Result<Encoded, String> {
    let mut ch = Chunk::start(e, 1 << 16);
    for page in vals.chunks(PAGE_ROWS) {
        e.body.clear();
        pages::bools(page, e.body);
        ch.data_page(e.z, e.body, page.len() as u32, Encoding::PLAIN)?;
    }
    let any = |b: bool| vals.contains(&b);
    let (min, max) = if vals.is_empty() {
        (None, None)
    } else {
        (Some(!any(false)), Some(any(true)))
    };
    ch.finish(descr, vals.len() as u64, Some(pages::bool_stats(min, max)))
}

/// `calls.parquet` being written: row groups from [`Cols`], written at once
/// ([`Calls::write`]) or ahead ([`Calls::store`], then [`Calls::append`]).
pub struct Calls {
    path: PathBuf,
    writer: Option<Writer>,
    descrs: Vec<ColumnDescPtr>,
    zstd: zstd::bulk::Compressor<'static>,
    exit_kinds: Vec<ByteArray>,
    trace_id: [ByteArray; 1],
    /// Exception classes named so far (every chunk's dictionary is all of them).
    exc_dict: Vec<ByteArray>,
    /// Class index → its entry in `exc_dict`.
    exc_entry: FastMap<u32, u32>,
    /// Row groups written so far.
    groups: usize,
    /// The row groups in the rows' order, by their place in the file.
    order: Vec<usize>,
    scratch: Vec<i64>,
    /// A page's body before compression.
    body: Vec<u8>,
    /// A column chunk's bytes (see [`Enc::sink`]).
    sink: Vec<u8>,
    /// Per column, whether zstd pays.
    squeeze: Vec<Squeeze>,
    /// Rows written in all.
    pub total: u64,
    /// Rows encoded ahead.
    pub ahead: u64,
}

impl Calls {
    /// `calls.parquet` at `path`, every row's `trace_id` `trace_id`.
    pub fn create(path: &Path, trace_id: &ByteArray) -> Result<Calls, String> {
        let writer = open(path, calls::COLUMNS)?;
        let descrs = writer.schema_descr().columns().to_vec();
        let zstd = zstd::bulk::Compressor::new(pages::LEVEL).map_err(|e| err(path, e))?;
        Ok(Calls {
            path: path.to_path_buf(),
            writer: Some(writer),
            descrs,
            zstd,
            exit_kinds: EXIT_KINDS.iter().map(|k| text(k)).collect(),
            trace_id: [trace_id.clone()],
            exc_dict: Vec::new(),
            exc_entry: FastMap::default(),
            groups: 0,
            order: Vec::new(),
            scratch: Vec::new(),
            body: Vec::new(),
            sink: Vec::new(),
            squeeze: vec![Squeeze::default(); calls::COLUMNS.len()],
            total: 0,
            ahead: 0,
        })
    }

    /// Rows `r` of `c` as a row group's column chunks; `class_name` names an exception
    /// class the first time.
    fn encode(
        &mut self,
        c: &Cols,
        r: Range<usize>,
        class_name: &dyn Fn(u32) -> String,
        put: &mut dyn FnMut(&Bytes, ColumnCloseResult) -> Result<(), String>,
    ) -> Result<(), String> {
        let rows = r.len();
        for &e in &c.excs()[r.clone()] {
            if e != NONE && !self.exc_entry.contains_key(&e) {
                self.exc_entry.insert(e, self.exc_dict.len() as u32);
                self.exc_dict.push(text(&class_name(e)));
            }
        }
        let s = &mut self.scratch;
        for (i, col) in calls::COLUMNS.iter().enumerate() {
            let d = self.descrs[i].clone();
            let squeeze = &mut self.squeeze[i];
            // A column it does not pay on is tried again on a chunk that decides (a
            // small one had kept zstd on until the next large one).
            let probe = squeeze.since >= PROBE_EVERY && rows >= DECIDE_ROWS;
            let zstd = squeeze.pays || probe;
            let z = &mut Enc {
                z: &mut self.zstd,
                zstd,
                body: &mut self.body,
                sink: &mut self.sink,
            };
            let (bytes, close) = match i {
                calls::PARENT_ID | calls::WINDOW_ID => {
                    int_chunk(z, d.clone(), &c.int(i)[r.clone()], Some(NO_PARENT), s)
                }
                i if int_slot(i).is_some() => {
                    int_chunk(z, d.clone(), &c.int(i)[r.clone()], None, s)
                }
                calls::EXIT_KIND => {
                    let e = &c.exits()[r.clone()];
                    let idx = |i: usize| Some(e[i] as u32);
                    let u = uniform(e).map(|v| Some(v as u32));
                    dict_chunk(z, d.clone(), &self.exit_kinds, rows, false, idx, u)
                }
                calls::RECURSIVE => bool_chunk(z, d.clone(), &c.recursives()[r.clone()]),
                calls::EXCEPTION_CLASS => {
                    let e = &c.excs()[r.clone()];
                    let entry = &self.exc_entry;
                    let entry_of =
                        |v: u32| (v != NONE).then(|| entry.get(&v).copied().unwrap_or(0));
                    let idx = |i: usize| entry_of(e[i]);
                    let u = uniform(e).map(entry_of);
                    dict_chunk(z, d.clone(), &self.exc_dict, rows, true, idx, u)
                }
                _ => {
                    let (id, u) = (&self.trace_id, Some(Some(0)));
                    dict_chunk(z, d.clone(), id, rows, false, |_| Some(0), u)
                }
            }
            .map_err(|e| err(&self.path, format!("column {}: {e}", col.name)))?;
            let m = &close.metadata;
            if !zstd {
                squeeze.since += 1;
            } else if rows >= DECIDE_ROWS {
                // zstd stays on a column while it at least quarters its chunks (a
                // small chunk, all frame and header, says nothing).
                squeeze.pays = m.compressed_size() * SQUEEZE <= m.uncompressed_size();
                squeeze.since = 0;
            }
            put(&bytes, close).map_err(|e| err(&self.path, format!("column {}: {e}", col.name)))?;
            self.sink = pages::reclaim(bytes);
        }
        Ok(())
    }

    /// Rows `r` of `c` as the file's next row group, next in the rows' order too.
    pub fn write(
        &mut self,
        c: &Cols,
        r: Range<usize>,
        class_name: &dyn Fn(u32) -> String,
    ) -> Result<(), String> {
        if r.is_empty() {
            return Ok(());
        }
        let g = self.put_group(c, r, class_name)?;
        self.order.push(g);
        Ok(())
    }

    /// Rows `r` of `c` as the file's next row group; its place in the file.
    fn put_group(
        &mut self,
        c: &Cols,
        r: Range<usize>,
        class_name: &dyn Fn(u32) -> String,
    ) -> Result<usize, String> {
        let rows = r.len() as u64;
        // Each column chunk appended once encoded, its buffer then the next one's; the
        // writer is out of `self` meanwhile (put back, but an error ends the export).
        let path = self.path.clone();
        let mut writer = self.writer.take().ok_or_else(|| err(&path, "closed"))?;
        let group = || -> Result<(), String> {
            let mut rg = writer.next_row_group().map_err(|e| err(&path, e))?;
            // Its errors name the file and the column.
            self.encode(c, r, class_name, &mut |bytes, close| {
                rg.append_column(bytes, close).map_err(|e| e.to_string())
            })?;
            rg.close().map(|_| ()).map_err(|e| err(&path, e))
        };
        let written = group();
        self.writer = Some(writer);
        written?;
        self.total += rows;
        self.groups += 1;
        Ok(self.groups - 1)
    }

    /// Rows `r` of `c` written ahead, as a row group whose place in the rows' order
    /// [`Calls::append`] gives later.
    pub fn store(
        &mut self,
        c: &Cols,
        r: Range<usize>,
        class_name: &dyn Fn(u32) -> String,
    ) -> Result<Stored, String> {
        let rows = r.len() as u64;
        let g = self.put_group(c, r, class_name)?;
        self.ahead += rows;
        Ok(Stored(g))
    }

    /// A row group [`Calls::store`]d is the next in the rows' order.
    pub fn append(&mut self, g: Stored) {
        self.order.push(g.0);
    }

    /// Writes the footer, its row groups in the rows' order; the rows written.
    pub fn close(mut self) -> Result<u64, String> {
        let path = &self.path;
        let order = std::mem::take(&mut self.order);
        // Every row group written, each once.
        let mut seen = vec![false; self.groups];
        for &g in &order {
            match seen.get_mut(g) {
                Some(s) if !*s => *s = true,
                _ => return Err(err(path, "a row group put in order twice")),
            }
        }
        if seen.contains(&false) {
            return Err(err(
                path,
                "a row group written ahead was never put in order",
            ));
        }
        let w = self.writer.as_mut().ok_or_else(|| err(path, "closed"))?;
        let data_end = w.bytes_written() as u64;
        let written = w.finish().map_err(|e| err(path, e))?;
        self.writer = None;
        if order.iter().enumerate().all(|(i, &g)| i == g) {
            return Ok(self.total);
        }
        // The crate's footer lists the row groups as written: it is replaced by one
        // listing them in the rows' order (ordinals renumbered to match).
        let groups = written.row_groups();
        let mut sorted = Vec::with_capacity(order.len());
        // Every index is a row group's (checked above).
        for (i, g) in order.into_iter().enumerate() {
            let rg = groups[g]
                .clone()
                .into_builder()
                .set_ordinal(i as i32)
                .build()
                .map_err(|e| err(path, e))?;
            sorted.push(rg);
        }
        let md = ParquetMetaData::new(written.file_metadata().clone(), sorted);
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| err(path, e))?;
        file.set_len(data_end).map_err(|e| err(path, e))?;
        let mut out = BufWriter::new(file);
        out.seek(SeekFrom::End(0)).map_err(|e| err(path, e))?;
        // Page index locations (none are written: the chunks carry none) would point
        // into the footer cut off; they are dropped, never carried over.
        ParquetMetaDataWriter::new(&mut out, &md)
            .with_preserve_page_index_locations(false)
            .finish()
            .map_err(|e| err(path, e))?;
        out.flush().map_err(|e| err(path, e))?;
        Ok(self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::GROUP_ROWS;
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    /// A row with every column its own value, from `i`.
    fn sample(i: u64) -> CallRow {
        let row = CallRow::from_ints(
            std::array::from_fn(|k| i as i64 * 16 + k as i64),
            (i % 4) as u8,
            i.is_multiple_of(3),
            i as u32,
        );
        // Each column its own value: a column read for another shows.
        assert_eq!(row.ints()[10], i as i64 * 16 + 10);
        assert_eq!(row.alloc_count, i as i64 * 16 + 10);
        row
    }

    /// Every way rows come and go keeps each column's rows, as a list of rows kept
    /// beside them says, across the block being made again many times.
    #[test]
    fn columns_keep_their_rows_through_growth_and_cuts() {
        let mut cols = Cols::default();
        let mut want: Vec<CallRow> = Vec::new();
        let mut next = 0u64;
        for round in 0..40 {
            for _ in 0..(round * 97 % 1500) {
                cols.push(&sample(next));
                want.push(sample(next));
                next += 1;
            }
            // Grown rows are each set before they are read, the last first (as calls
            // finish: callees before their callers).
            let at = cols.len();
            cols.grow();
            want.resize(cols.len(), CallRow::HOLE);
            for i in (at..cols.len()).rev() {
                cols.set(i, &sample(next));
                want[i] = sample(next);
                next += 1;
            }
            if round % 3 == 2 {
                let n = want.len() / 2;
                cols.drop_front(n);
                want.drain(..n);
            }
            if round % 5 == 4 {
                let mut other = Cols::default();
                other.extend(&cols, 3..cols.len() - 1);
                cols = other;
                want = want[3..want.len() - 1].to_vec();
            }
            assert_eq!(cols.len(), want.len());
            for (i, w) in want.iter().enumerate() {
                assert_eq!(cols.row(i), *w, "round {round}, row {i}");
            }
            for (k, &col) in SLOTS.iter().enumerate() {
                let got: Vec<i64> = cols.int(col).to_vec();
                let exp: Vec<i64> = want.iter().map(|r| r.ints()[k]).collect();
                assert_eq!(got, exp, "round {round}, column {col}");
            }
        }
        assert!(cols.room > 4 * GROW, "the block was made again");
    }

    /// Rows over several pages and three row groups (the second written ahead of the
    /// first and put in its place in the footer), with nulls, every exit kind, the extremes of every number and
    /// exceptions appearing late, read back by the `parquet` crate's own reader.
    #[test]
    fn the_crate_reads_back_what_was_written() {
        let dir = std::env::temp_dir().join(format!("jtrace-calls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("calls.parquet");
        let id = text("run-1");
        let n = GROUP_ROWS as u64 + PAGE_ROWS as u64 + 17;
        let row = |i: u64| CallRow {
            call_id: i as i64,
            parent_id: if i.is_multiple_of(1000) {
                NO_PARENT
            } else {
                i as i64 - 1
            },
            thread: 3,
            method: (i % 7) as i64,
            path: (i % 5000) as i64,
            depth: (i % 1000) as i64,
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
            alloc_bytes: if i.is_multiple_of(11) { i64::MAX } else { 0 },
            alloc_count: (i % 11) as i64,
            window: if i.is_multiple_of(7) {
                NO_PARENT
            } else {
                (i / 100) as i64
            },
        };
        let mut cols = Cols::default();
        for i in 0..n {
            cols.push(&row(i));
        }
        let names = |e: u32| format!("E{e}");
        let mut c = Calls::create(&file, &id).unwrap();
        let first = 1000;
        // The second row group is written first, and put in its place after the first.
        let ahead = c.store(&cols, first..GROUP_ROWS, &names).unwrap();
        c.write(&cols, 0..first, &names).unwrap();
        c.append(ahead);
        c.write(&cols, GROUP_ROWS..n as usize, &names).unwrap();
        assert_eq!(c.close().unwrap(), n);
        let reader = SerializedFileReader::try_from(std::fs::File::open(&file).unwrap()).unwrap();
        assert_eq!(reader.metadata().num_row_groups(), 3);
        let mut i = 0u64;
        for r in reader.get_row_iter(None).unwrap() {
            let r = r.unwrap();
            let want = row(i);
            let long = Field::Long;
            let text = |s: &str| Field::Str(s.to_string());
            let expect = [
                long(want.call_id),
                if want.parent_id == NO_PARENT {
                    Field::Null
                } else {
                    long(want.parent_id)
                },
                long(3),
                long(want.method),
                long(want.path),
                long(want.depth),
                long(want.start),
                long(want.dur),
                long(want.self_ns),
                text(EXIT_KINDS[want.exit as usize]),
                Field::Bool(want.recursive),
                if want.exc == NONE {
                    Field::Null
                } else {
                    text(&format!("E{}", want.exc))
                },
                long(want.alloc_bytes),
                long(want.alloc_count),
                if want.window == NO_PARENT {
                    Field::Null
                } else {
                    long(want.window)
                },
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
