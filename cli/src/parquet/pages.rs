//! Column chunks encoded here, not by the `parquet` crate's column writers: the
//! encodings `calls` uses (`DELTA_BINARY_PACKED`, run-length levels and dictionary
//! indices, bit-packed booleans) written straight from typed slices into V1 data pages,
//! compressed with zstd, framed by the crate's page writer and handed to its row group
//! writer as a finished chunk (`append_column`). The crate's writers spent most of an
//! export in per-value bookkeeping (mini-batches, statistics per value, a generic
//! bit packer); here a value costs a subtraction, a comparison and a shift.

use bytes::Bytes;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::data_type::ByteArray;
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::statistics::{Statistics, ValueStatistics};
use parquet::file::writer::{SerializedPageWriter, TrackedWrite};
use parquet::schema::types::ColumnDescPtr;

/// Values (rows) per data page.
pub const PAGE_ROWS: usize = 1 << 16;

/// zstd level of every page jtrace encodes: a fast (negative) level, which on javac's
/// export costs 2.3% fewer instructions than level 1 for `calls` files 4.6% larger
/// (the crate's writers keep level 1 for the small tables).
pub const LEVEL: i32 = -3;

#[inline]
fn uleb(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Values per `DELTA_BINARY_PACKED` block, miniblocks per block, values per miniblock.
const BLOCK: usize = 128;
const MINIBLOCKS: usize = 4;
const MINI: usize = BLOCK / MINIBLOCKS;

/// `MINI` values of `W` bits each into `out`'s first `W / 2` words, least significant
/// bit first: written out value by value (a macro, not a loop, which the compiler left
/// rolled), so with `W` a constant every position is one too: a shift and an or each.
#[inline(always)]
fn pack_w<const W: usize>(vals: &[u64; MINI], out: &mut [u64; MINI]) {
    macro_rules! put {
        ($($i:literal)*) => {$(
            let bit = $i * W;
            let (word, off) = (bit / 64, bit % 64);
            out[word] |= vals[$i] << off;
            if off + W > 64 {
                out[word + 1] |= vals[$i] >> (64 - off);
            }
        )*};
    }
    put!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
}

#[cfg(test)]
/// The inverse of [`pack_w`].
#[inline]
fn unpack_w<const W: usize>(words: &[u64; MINI + 1], out: &mut [u64; MINI]) {
    let mask = if W == 64 { u64::MAX } else { (1u64 << W) - 1 };
    for (i, v) in out.iter_mut().enumerate() {
        let bit = i * W;
        let (word, off) = (bit / 64, bit % 64);
        let mut x = words[word] >> off;
        if off + W > 64 {
            x |= words[word + 1] << (64 - off);
        }
        *v = x & mask;
    }
}

/// Calls `$f::<W>` for the width `$w` (0 to 64).
macro_rules! by_width {
    ($w:expr, $f:ident, $($arg:expr),*) => {
        match $w {
            1 => $f::<1>($($arg),*), 2 => $f::<2>($($arg),*), 3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*), 5 => $f::<5>($($arg),*), 6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*), 8 => $f::<8>($($arg),*), 9 => $f::<9>($($arg),*),
            10 => $f::<10>($($arg),*), 11 => $f::<11>($($arg),*), 12 => $f::<12>($($arg),*),
            13 => $f::<13>($($arg),*), 14 => $f::<14>($($arg),*), 15 => $f::<15>($($arg),*),
            16 => $f::<16>($($arg),*), 17 => $f::<17>($($arg),*), 18 => $f::<18>($($arg),*),
            19 => $f::<19>($($arg),*), 20 => $f::<20>($($arg),*), 21 => $f::<21>($($arg),*),
            22 => $f::<22>($($arg),*), 23 => $f::<23>($($arg),*), 24 => $f::<24>($($arg),*),
            25 => $f::<25>($($arg),*), 26 => $f::<26>($($arg),*), 27 => $f::<27>($($arg),*),
            28 => $f::<28>($($arg),*), 29 => $f::<29>($($arg),*), 30 => $f::<30>($($arg),*),
            31 => $f::<31>($($arg),*), 32 => $f::<32>($($arg),*), 33 => $f::<33>($($arg),*),
            34 => $f::<34>($($arg),*), 35 => $f::<35>($($arg),*), 36 => $f::<36>($($arg),*),
            37 => $f::<37>($($arg),*), 38 => $f::<38>($($arg),*), 39 => $f::<39>($($arg),*),
            40 => $f::<40>($($arg),*), 41 => $f::<41>($($arg),*), 42 => $f::<42>($($arg),*),
            43 => $f::<43>($($arg),*), 44 => $f::<44>($($arg),*), 45 => $f::<45>($($arg),*),
            46 => $f::<46>($($arg),*), 47 => $f::<47>($($arg),*), 48 => $f::<48>($($arg),*),
            49 => $f::<49>($($arg),*), 50 => $f::<50>($($arg),*), 51 => $f::<51>($($arg),*),
            52 => $f::<52>($($arg),*), 53 => $f::<53>($($arg),*), 54 => $f::<54>($($arg),*),
            55 => $f::<55>($($arg),*), 56 => $f::<56>($($arg),*), 57 => $f::<57>($($arg),*),
            58 => $f::<58>($($arg),*), 59 => $f::<59>($($arg),*), 60 => $f::<60>($($arg),*),
            61 => $f::<61>($($arg),*), 62 => $f::<62>($($arg),*), 63 => $f::<63>($($arg),*),
            _ => $f::<64>($($arg),*),
        }
    };
}

/// `MINI` values of `w` bits each, least significant bit first (`MINI * w / 8` bytes).
#[inline]
fn pack(vals: &[u64; MINI], w: u32, out: &mut Vec<u8>) {
    if w == 0 {
        return;
    }
    let mut words = [0u64; MINI];
    by_width!(w, pack_w, vals, &mut words);
    // 32 values of w bits: w / 2 whole words, and half a word more when w is odd.
    let n = MINI * w as usize / 8;
    for word in &words[..n / 8] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    if !n.is_multiple_of(8) {
        out.extend_from_slice(&words[n / 8].to_le_bytes()[..4]);
    }
}

/// [`delta`] of `n` values from `first` by `step`: every miniblock 0 bits wide.
pub fn delta_stride(first: i64, step: i64, n: usize, out: &mut Vec<u8>) {
    uleb(out, BLOCK as u64);
    uleb(out, MINIBLOCKS as u64);
    uleb(out, n as u64);
    uleb(out, zigzag(first));
    let mut block = Vec::with_capacity(16);
    uleb(&mut block, zigzag(step));
    block.extend_from_slice(&[0; MINIBLOCKS]);
    for _ in 0..(n - 1).div_ceil(BLOCK) {
        out.extend_from_slice(&block);
    }
}

/// The step between `vals` when it is the same throughout (ids in a row, a constant).
pub fn stride(vals: &[i64]) -> Option<i64> {
    let (&first, rest) = vals.split_first()?;
    let step = rest.first().map_or(0, |&v| v.wrapping_sub(first));
    // Most columns that are not evenly spaced show it in their first block.
    if vals.len() > BLOCK && stride(&vals[..BLOCK]).is_none() {
        return None;
    }
    // No early exit: the loop vectorises.
    let mut off = 0i64;
    let mut prev = first;
    for &v in rest {
        off |= v.wrapping_sub(prev) ^ step;
        prev = v;
    }
    (off == 0).then_some(step)
}

/// `vals` as `DELTA_BINARY_PACKED` (128-value blocks of four miniblocks, as the
/// `parquet` crate writes it). Returns the values' smallest and largest (for the
/// chunk's statistics: taken in the same pass; `(i64::MAX, i64::MIN)` when empty).
///
/// Also compiled for AVX2, chosen at run time where the processor has it: x86-64's
/// baseline (SSE2) has no 64-bit comparison, so the minima and maxima are a compare
/// and a move per value; with AVX2 four at a time (35% fewer instructions).
#[multiversion::multiversion(targets("x86_64+avx2"))]
pub fn delta(vals: &[i64], out: &mut Vec<u8>) -> (i64, i64) {
    uleb(out, BLOCK as u64);
    uleb(out, MINIBLOCKS as u64);
    uleb(out, vals.len() as u64);
    let Some((&first, rest)) = vals.split_first() else {
        uleb(out, 0);
        return (i64::MAX, i64::MIN);
    };
    uleb(out, zigzag(first));
    let (mut lo, mut hi) = (first, first);
    let mut prev = first;
    let mut d = [0i64; BLOCK];
    let mut packed = [[0u64; MINI]; MINIBLOCKS];
    for block in rest.chunks(BLOCK) {
        let n = block.len();
        let min = if let Ok(full) = <&[i64; BLOCK]>::try_from(block) {
            // A whole block: fixed-length loops the compiler unrolls and vectorises,
            // minima and maxima kept in four lanes to break the dependency chains.
            d[0] = full[0].wrapping_sub(prev);
            for i in 1..BLOCK {
                d[i] = full[i].wrapping_sub(full[i - 1]);
            }
            prev = full[BLOCK - 1];
            let mut lanes = [i64::MAX; 4];
            let (mut vlo, mut vhi) = ([i64::MAX; 4], [i64::MIN; 4]);
            for (c, v) in d.chunks_exact(4).zip(full.chunks_exact(4)) {
                for k in 0..4 {
                    lanes[k] = lanes[k].min(c[k]);
                    vlo[k] = vlo[k].min(v[k]);
                    vhi[k] = vhi[k].max(v[k]);
                }
            }
            lo = lo.min(vlo[0].min(vlo[1]).min(vlo[2].min(vlo[3])));
            hi = hi.max(vhi[0].max(vhi[1]).max(vhi[2].max(vhi[3])));
            lanes[0].min(lanes[1]).min(lanes[2].min(lanes[3]))
        } else {
            let mut min = i64::MAX;
            for (slot, &v) in d.iter_mut().zip(block) {
                *slot = v.wrapping_sub(prev);
                prev = v;
                min = min.min(*slot);
                lo = lo.min(v);
                hi = hi.max(v);
            }
            min
        };
        uleb(out, zigzag(min));
        // Past the last value, deltas of `min`: the padding packs as zeros.
        d[n..].fill(min);
        let mut widths = [0u8; MINIBLOCKS];
        let used = n.div_ceil(MINI);
        for m in 0..used {
            let mut or = 0u64;
            for (p, &x) in packed[m].iter_mut().zip(&d[m * MINI..(m + 1) * MINI]) {
                *p = x.wrapping_sub(min) as u64;
                or |= *p;
            }
            widths[m] = (64 - or.leading_zeros()) as u8;
        }
        out.extend_from_slice(&widths);
        for m in 0..used {
            pack(&packed[m], widths[m] as u32, out);
        }
    }
    (lo, hi)
}

#[cfg(test)]
fn get_uleb(input: &mut &[u8]) -> Result<u64, String> {
    let mut v = 0u64;
    for (i, &b) in input.iter().enumerate().take(10) {
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b < 0x80 {
            *input = &input[i + 1..];
            return Ok(v);
        }
    }
    Err("bad varint".into())
}

#[cfg(test)]
/// `MINI` values of `w` bits from the front of `input` (the inverse of [`pack`]).
#[inline]
fn unpack(input: &[u8], w: u32, out: &mut [u64; MINI]) {
    if w == 0 {
        *out = [0; MINI];
        return;
    }
    let n = MINI * w as usize / 8;
    let mut words = [0u64; MINI + 1];
    let mut chunks = input[..n].chunks_exact(8);
    for (word, c) in words.iter_mut().zip(&mut chunks) {
        *word = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        words[n / 8] = u64::from_le_bytes(last);
    }
    by_width!(w, unpack_w, &words, out);
}

#[cfg(test)]
/// Appends the values of one `DELTA_BINARY_PACKED` run at the front of `input` (as
/// [`delta`] writes it: 32-value miniblocks) to `out`, and moves `input` past it.
pub fn undelta(input: &mut &[u8], out: &mut Vec<i64>) -> Result<(), String> {
    let block = get_uleb(input)? as usize;
    let minis = get_uleb(input)? as usize;
    let total = get_uleb(input)? as usize;
    let first = unzigzag(get_uleb(input)?);
    if minis == 0 || block != minis * MINI {
        return Err(format!(
            "delta blocks of {block} values in {minis} miniblocks"
        ));
    }
    if total == 0 {
        return Ok(());
    }
    out.push(first);
    let mut prev = first;
    let mut left = total - 1;
    let mut vals = [0u64; MINI];
    while left > 0 {
        let min = unzigzag(get_uleb(input)?);
        let (widths, rest) = input
            .split_at_checked(minis)
            .ok_or("delta block cut short")?;
        *input = rest;
        for &w in widths {
            if left == 0 {
                break;
            }
            let len = MINI * w as usize / 8;
            if w > 64 || input.len() < len {
                return Err("delta miniblock cut short".into());
            }
            unpack(input, w as u32, &mut vals);
            *input = &input[len..];
            let n = left.min(MINI);
            for &v in &vals[..n] {
                prev = prev.wrapping_add(min.wrapping_add(v as i64));
                out.push(prev);
            }
            left -= n;
        }
    }
    Ok(())
}

#[cfg(test)]
#[inline]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Bits needed for values up to `max`.
pub fn width(max: u64) -> u8 {
    (64 - max.leading_zeros()) as u8
}

/// `n` copies of `v` (below `1 << w`) as one run of the run-length/bit-packing hybrid.
pub fn run(v: u32, n: u64, w: u8, out: &mut Vec<u8>) {
    if n == 0 {
        return;
    }
    uleb(out, n << 1);
    out.extend_from_slice(&v.to_le_bytes()[..(w as usize).div_ceil(8)]);
}

/// The run-length/bit-packing hybrid of `vals` (each below `1 << w`), as runs only:
/// levels and dictionary indices of `calls` come in long runs.
pub fn runs(vals: impl Iterator<Item = u32>, w: u8, out: &mut Vec<u8>) {
    let mut cur: Option<(u32, u64)> = None;
    for v in vals {
        match &mut cur {
            Some((r, n)) if *r == v => *n += 1,
            _ => {
                if let Some((r, n)) = cur {
                    run(r, n, w, out);
                }
                cur = Some((v, 1));
            }
        }
    }
    if let Some((r, n)) = cur {
        run(r, n, w, out);
    }
}

/// [`levels`] of `n` rows all present or all null.
pub fn levels_run(present: bool, n: u64, out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    run(present as u32, n, 1, out);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// Definition levels of a V1 page (1 present, 0 null): their length, then the runs.
pub fn levels(present: impl Iterator<Item = u32>, out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    runs(present, 1, out);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// Booleans, `PLAIN`: one bit each, least significant first.
pub fn bools(vals: &[bool], out: &mut Vec<u8>) {
    for c in vals.chunks(8) {
        let mut b = 0u8;
        for (i, &v) in c.iter().enumerate() {
            b |= (v as u8) << i;
        }
        out.push(b);
    }
}

/// Strings as `DELTA_BYTE_ARRAY` (front coding): each value is the first `keep[i]`
/// bytes of the one before it (none for the first of a page) followed by its own
/// `rest`, the `lens[i]` bytes of `rest` after the previous ones. Written as the
/// prefix lengths (`DELTA_BINARY_PACKED`), then the rests as `DELTA_LENGTH_BYTE_ARRAY`
/// (their lengths, `DELTA_BINARY_PACKED`, then their bytes).
pub fn front(keep: &[i64], lens: &[i64], rest: &[u8], out: &mut Vec<u8>) {
    delta(keep, out);
    delta(lens, out);
    out.extend_from_slice(rest);
}

/// A dictionary page's body: `PLAIN` byte arrays (length, bytes).
pub fn plain_strings<'a>(vals: impl Iterator<Item = &'a ByteArray>, out: &mut Vec<u8>) {
    for v in vals {
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v.data());
    }
}

/// One column chunk being assembled in memory: pages framed by the crate's page writer.
pub struct Chunk {
    sink: TrackedWrite<Vec<u8>>,
    zstd: bool,
    dict_offset: Option<i64>,
    data_offset: Option<i64>,
    compressed: i64,
    uncompressed: i64,
    values: i64,
    encodings: Vec<Encoding>,
}

impl Chunk {
    /// A chunk assembled in `e.sink` (taken: [`reclaim`] gives it back once the chunk is
    /// written), its pages compressed (at [`LEVEL`]) if `e.zstd`, with room for about
    /// `bytes` (the buffer grown by copying past that).
    pub fn start(e: &mut Enc, bytes: usize) -> Chunk {
        let mut buf = std::mem::take(e.sink);
        buf.clear();
        buf.reserve(bytes);
        Chunk {
            sink: TrackedWrite::new(buf),
            zstd: e.zstd,
            dict_offset: None,
            data_offset: None,
            compressed: 0,
            uncompressed: 0,
            values: 0,
            encodings: vec![Encoding::RLE],
        }
    }

    fn page(&mut self, page: Page, len: usize) -> Result<i64, String> {
        let page = CompressedPage::new(page, len);
        let spec = SerializedPageWriter::new(&mut self.sink)
            .write_page(page)
            .map_err(|e| e.to_string())?;
        self.compressed += spec.compressed_size as i64;
        self.uncompressed += spec.uncompressed_size as i64;
        Ok(spec.offset as i64)
    }

    /// `body` as a page's buffer: compressed into a new one, or `body`'s own (no copy;
    /// [`Chunk::give_back`] returns it once the page is written).
    fn body(&self, z: &mut zstd::bulk::Compressor, body: &mut Vec<u8>) -> Result<Bytes, String> {
        if self.zstd {
            z.compress(body).map(Bytes::from).map_err(|e| e.to_string())
        } else {
            Ok(Bytes::from(std::mem::take(body)))
        }
    }

    /// A page's buffer made by [`Chunk::body`], written: `body`'s again if it was.
    fn give_back(&self, buf: Bytes, body: &mut Vec<u8>) {
        if !self.zstd {
            *body = reclaim(buf);
        }
    }

    /// The dictionary page (before any data page): `entries` values, `PLAIN`.
    pub fn dict_page(
        &mut self,
        z: &mut zstd::bulk::Compressor,
        body: &mut Vec<u8>,
        entries: u32,
    ) -> Result<(), String> {
        let len = body.len();
        let buf = self.body(z, body)?;
        let page = Page::DictionaryPage {
            buf: buf.clone(),
            num_values: entries,
            encoding: Encoding::PLAIN,
            is_sorted: false,
        };
        let at = self.page(page, len)?;
        self.give_back(buf, body);
        self.dict_offset = Some(at);
        if !self.encodings.contains(&Encoding::PLAIN) {
            self.encodings.push(Encoding::PLAIN);
        }
        Ok(())
    }

    /// A V1 data page of `rows` values (nulls included): levels, then values.
    pub fn data_page(
        &mut self,
        z: &mut zstd::bulk::Compressor,
        body: &mut Vec<u8>,
        rows: u32,
        encoding: Encoding,
    ) -> Result<(), String> {
        let len = body.len();
        let buf = self.body(z, body)?;
        let page = Page::DataPage {
            buf: buf.clone(),
            num_values: rows,
            encoding,
            def_level_encoding: Encoding::RLE,
            rep_level_encoding: Encoding::RLE,
            statistics: None,
        };
        let at = self.page(page, len)?;
        self.give_back(buf, body);
        self.data_offset.get_or_insert(at);
        self.values += rows as i64;
        if !self.encodings.contains(&encoding) {
            self.encodings.push(encoding);
        }
        Ok(())
    }

    /// The chunk's bytes and what the row group writer needs to append them.
    pub fn finish(
        self,
        descr: ColumnDescPtr,
        rows: u64,
        stats: Option<Statistics>,
    ) -> Result<(Bytes, ColumnCloseResult), String> {
        let compression = if self.zstd {
            Compression::ZSTD(ZstdLevel::default())
        } else {
            Compression::UNCOMPRESSED
        };
        let mut b = ColumnChunkMetaData::builder(descr)
            .set_compression(compression)
            .set_encodings(self.encodings)
            .set_total_compressed_size(self.compressed)
            .set_total_uncompressed_size(self.uncompressed)
            .set_num_values(self.values)
            .set_data_page_offset(self.data_offset.unwrap_or(0))
            .set_dictionary_page_offset(self.dict_offset);
        if let Some(s) = stats {
            b = b.set_statistics(s);
        }
        let metadata = b.build().map_err(|e| e.to_string())?;
        let bytes = self.sink.into_inner().map_err(|e| e.to_string())?;
        let close = ColumnCloseResult {
            bytes_written: bytes.len() as u64,
            rows_written: rows,
            metadata,
            bloom_filter: None,
            column_index: None,
            offset_index: None,
        };
        Ok((Bytes::from(bytes), close))
    }
}

/// What a column chunk is encoded with: the compressor, whether to use it, the page
/// buffer and the chunk's.
pub struct Enc<'a> {
    pub z: &'a mut zstd::bulk::Compressor<'static>,
    pub zstd: bool,
    pub body: &'a mut Vec<u8>,
    /// The buffer a chunk is assembled in, the same from one chunk to the next
    /// ([`Chunk::start`], [`reclaim`]), so it stays in the processor's cache (a fresh
    /// one of up to 2 MiB per chunk, fourteen per row group held until it was written,
    /// cost about 2% of the export on javac).
    pub sink: &'a mut Vec<u8>,
}

/// The buffer of a chunk's bytes once they are written, to assemble the next chunk in
/// (a new one if they are still shared).
pub fn reclaim(bytes: Bytes) -> Vec<u8> {
    bytes.try_into_mut().map(Vec::from).unwrap_or_default()
}

/// A `STRING` column chunk, dictionary-encoded: `dict` the values, `idx` each row's
/// index into it (`None`: null, in a nullable column); `uniform`, when every row's is
/// the same.
pub fn dict_chunk(
    e: &mut Enc,
    descr: ColumnDescPtr,
    dict: &[ByteArray],
    rows: usize,
    nullable: bool,
    idx: impl Fn(usize) -> Option<u32>,
    uniform: Option<Option<u32>>,
) -> Result<(Bytes, ColumnCloseResult), String> {
    let mut ch = Chunk::start(e, 1 << 16);
    e.body.clear();
    if !dict.is_empty() {
        plain_strings(dict.iter(), e.body);
        ch.dict_page(e.z, e.body, dict.len() as u32)?;
    }
    let w = width(dict.len().saturating_sub(1) as u64).max(1);
    let mut used = vec![false; dict.len()];
    let mut nulls = 0u64;
    for r0 in (0..rows).step_by(PAGE_ROWS) {
        let r1 = (r0 + PAGE_ROWS).min(rows);
        e.body.clear();
        let n = (r1 - r0) as u64;
        if let Some(v) = uniform {
            if nullable {
                levels_run(v.is_some(), n, e.body);
            }
            let enc = if dict.is_empty() {
                nulls += n;
                Encoding::PLAIN
            } else {
                e.body.push(w);
                match v {
                    Some(v) => {
                        used[v as usize] = true;
                        run(v, n, w, e.body);
                    }
                    None => nulls += n,
                }
                Encoding::RLE_DICTIONARY
            };
            ch.data_page(e.z, e.body, n as u32, enc)?;
            continue;
        }
        if nullable {
            levels((r0..r1).map(|i| idx(i).is_some() as u32), e.body);
        }
        let enc = if dict.is_empty() {
            // Every row null: no values, no dictionary.
            nulls += (r1 - r0) as u64;
            Encoding::PLAIN
        } else {
            e.body.push(w);
            runs(
                (r0..r1).filter_map(|i| {
                    let v = idx(i);
                    match v {
                        Some(v) => used[v as usize] = true,
                        None => nulls += 1,
                    }
                    v
                }),
                w,
                e.body,
            );
            Encoding::RLE_DICTIONARY
        };
        ch.data_page(e.z, e.body, (r1 - r0) as u32, enc)?;
    }
    let mut vals = dict.iter().zip(&used).filter(|(_, &u)| u).map(|(v, _)| v);
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
    let stats = text_stats(min.cloned(), max.cloned(), nulls);
    ch.finish(descr, rows as u64, Some(stats))
}

/// An `INT64` column chunk, `DELTA_BINARY_PACKED`; in a nullable column, the value
/// `null` marks a null (`calls.parent_id`'s -1).
pub fn int_chunk(
    e: &mut Enc,
    descr: ColumnDescPtr,
    vals: &[i64],
    null: Option<i64>,
    scratch: &mut Vec<i64>,
) -> Result<(Bytes, ColumnCloseResult), String> {
    let nullable = null.is_some();
    let null = null.unwrap_or(0);
    let rows = vals.len();
    // Room for 8 bytes a value raw (delta-packed values take fewer), 2 compressed: a
    // chunk's buffer grown page by page had cost a copy of it at every doubling.
    let room = rows * if e.zstd { 2 } else { 8 };
    let mut ch = Chunk::start(e, room + 4096);
    let (mut min, mut max, mut nulls) = (i64::MAX, i64::MIN, 0u64);
    for page in vals.chunks(PAGE_ROWS) {
        e.body.clear();
        let mut vals = page;
        // No early exit: the loop vectorises.
        if nullable && !page.iter().fold(false, |a, &v| a | (v == null)) {
            levels_run(true, page.len() as u64, e.body);
        } else if nullable {
            levels(page.iter().map(|&v| (v != null) as u32), e.body);
            scratch.clear();
            scratch.extend(page.iter().filter(|&&v| v != null));
            nulls += (page.len() - scratch.len()) as u64;
            vals = scratch;
        }
        let (first, last) = (vals.first(), vals.last());
        match (stride(vals), first, last) {
            // Evenly spaced without wrapping around: the ends are the extremes.
            (Some(step), Some(&a), Some(&b))
                if a as i128 + step as i128 * (vals.len() as i128 - 1) == b as i128 =>
            {
                min = min.min(a.min(b));
                max = max.max(a.max(b));
                delta_stride(a, step, vals.len(), e.body);
            }
            _ => {
                let (lo, hi) = delta(vals, e.body);
                min = min.min(lo);
                max = max.max(hi);
            }
        }
        ch.data_page(
            e.z,
            e.body,
            page.len() as u32,
            Encoding::DELTA_BINARY_PACKED,
        )?;
    }
    let some = nulls < rows as u64;
    let stats = int_stats(some.then_some(min), some.then_some(max), nulls);
    ch.finish(descr, rows as u64, Some(stats))
}

/// Chunk statistics of an `INT64` column (signed order, written in both the current
/// and the deprecated fields, as the crate does).
pub fn int_stats(min: Option<i64>, max: Option<i64>, nulls: u64) -> Statistics {
    Statistics::Int64(
        ValueStatistics::new(min, max, None, Some(nulls), false)
            .with_backwards_compatible_min_max(true),
    )
}

/// Chunk statistics of a `BOOLEAN` column.
pub fn bool_stats(min: Option<bool>, max: Option<bool>) -> Statistics {
    Statistics::Boolean(
        ValueStatistics::new(min, max, None, Some(0), false)
            .with_backwards_compatible_min_max(true),
    )
}

/// Chunk statistics of a `STRING` column (unsigned byte order: only the current fields).
pub fn text_stats(min: Option<ByteArray>, max: Option<ByteArray>, nulls: u64) -> Statistics {
    Statistics::ByteArray(ValueStatistics::new(min, max, None, Some(nulls), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every width, runs of every length around the block and miniblock sizes.
    #[test]
    fn delta_round_trip() {
        let mut cases: Vec<Vec<i64>> = vec![vec![], vec![7], vec![i64::MIN, i64::MAX, 0, -1]];
        for n in [2, 31, 32, 33, 127, 128, 129, 130, 1000] {
            cases.push((0..n).map(|i| i * 3).collect());
            cases.push(
                (0..n)
                    .map(|i: i64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15u64 as i64) >> (i % 64))
                    .collect(),
            );
            cases.push(
                (0..n)
                    .map(|i| if i % 2 == 0 { i64::MAX } else { i64::MIN })
                    .collect(),
            );
        }
        let mut b = Vec::new();
        for c in &cases {
            let want = (
                c.iter().copied().min().unwrap_or(i64::MAX),
                c.iter().copied().max().unwrap_or(i64::MIN),
            );
            assert_eq!(delta(c, &mut b), want);
        }
        let mut input = &b[..];
        for c in &cases {
            let mut got = Vec::new();
            undelta(&mut input, &mut got).unwrap();
            assert_eq!(&got, c);
        }
        assert!(input.is_empty());
    }

    /// Evenly spaced values take the short form, byte for byte what [`delta`] writes.
    #[test]
    fn stride_is_delta() {
        for n in [1, 2, 3, 128, 129, 1000] {
            for (first, step) in [(0, 0), (5, 1), (-3, -7), (i64::MAX, 1), (7, i64::MIN)] {
                let v: Vec<i64> = (0..n as i64)
                    .map(|i| first.wrapping_add(step.wrapping_mul(i)))
                    .collect();
                let want_step = if n == 1 { 0 } else { step };
                assert_eq!(stride(&v), Some(want_step));
                let (mut a, mut b) = (Vec::new(), Vec::new());
                delta(&v, &mut a);
                delta_stride(first, want_step, n, &mut b);
                assert_eq!(a, b, "n {n} step {step}");
            }
        }
        assert_eq!(stride(&[1, 2, 4]), None);
        assert_eq!(stride(&[]), None);
    }

    #[test]
    fn bit_packing_of_every_width() {
        for w in 0..=64u32 {
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let mut vals = [0u64; MINI];
            for (i, v) in vals.iter_mut().enumerate() {
                *v = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) & mask;
            }
            let mut out = Vec::new();
            pack(&vals, w, &mut out);
            assert_eq!(out.len(), MINI * w as usize / 8, "width {w}");
            let mut back = [0u64; MINI];
            unpack(&out, w, &mut back);
            assert_eq!(back, vals, "width {w}");
            for (i, &v) in vals.iter().enumerate() {
                let mut got = 0u64;
                for b in 0..w as usize {
                    let bit = i * w as usize + b;
                    got |= (((out[bit / 8] >> (bit % 8)) & 1) as u64) << b;
                }
                assert_eq!(got, v, "width {w} value {i}");
            }
        }
    }
}
