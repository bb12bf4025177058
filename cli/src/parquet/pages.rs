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

/// zstd level of every page (as the crate's writers use for the other tables).
const LEVEL: i32 = 1;

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

/// `MINI` values of `w` bits each, least significant bit first (`MINI * w / 8` bytes).
#[inline]
fn pack(vals: &[u64; MINI], w: u32, out: &mut Vec<u8>) {
    if w == 0 {
        return;
    }
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    for &v in vals {
        acc |= (v as u128) << bits;
        bits += w;
        if bits >= 64 {
            out.extend_from_slice(&(acc as u64).to_le_bytes());
            acc >>= 64;
            bits -= 64;
        }
    }
    // 32 values of w bits: a whole number of 32-bit words.
    if bits > 0 {
        out.extend_from_slice(&(acc as u32).to_le_bytes());
    }
}

/// `vals` as `DELTA_BINARY_PACKED` (128-value blocks of four miniblocks, as the
/// `parquet` crate writes it).
pub fn delta(vals: &[i64], out: &mut Vec<u8>) {
    uleb(out, BLOCK as u64);
    uleb(out, MINIBLOCKS as u64);
    uleb(out, vals.len() as u64);
    let Some((&first, rest)) = vals.split_first() else {
        uleb(out, 0);
        return;
    };
    uleb(out, zigzag(first));
    let mut prev = first;
    let mut d = [0i64; BLOCK];
    for block in rest.chunks(BLOCK) {
        let n = block.len();
        let mut min = i64::MAX;
        for (slot, &v) in d.iter_mut().zip(block) {
            *slot = v.wrapping_sub(prev);
            prev = v;
            min = min.min(*slot);
        }
        uleb(out, zigzag(min));
        let mut widths = [0u8; MINIBLOCKS];
        let mut packed = [[0u64; MINI]; MINIBLOCKS];
        let used = n.div_ceil(MINI);
        for m in 0..used {
            let mut or = 0u64;
            let end = (n - m * MINI).min(MINI);
            for (k, p) in packed[m].iter_mut().enumerate().take(end) {
                *p = d[m * MINI + k].wrapping_sub(min) as u64;
                or |= *p;
            }
            widths[m] = (64 - or.leading_zeros()) as u8;
        }
        out.extend_from_slice(&widths);
        for m in 0..used {
            pack(&packed[m], widths[m] as u32, out);
        }
    }
}

/// Bits needed for values up to `max`.
pub fn width(max: u64) -> u8 {
    (64 - max.leading_zeros()) as u8
}

/// The run-length/bit-packing hybrid of `vals` (each below `1 << w`), as runs only:
/// levels and dictionary indices of `calls` come in long runs.
pub fn runs(vals: impl Iterator<Item = u32>, w: u8, out: &mut Vec<u8>) {
    let bytes = (w as usize).div_ceil(8);
    let mut run: Option<(u32, u64)> = None;
    let mut put = |v: u32, n: u64, out: &mut Vec<u8>| {
        uleb(out, n << 1);
        out.extend_from_slice(&v.to_le_bytes()[..bytes]);
    };
    for v in vals {
        match &mut run {
            Some((r, n)) if *r == v => *n += 1,
            _ => {
                if let Some((r, n)) = run {
                    put(r, n, out);
                }
                run = Some((v, 1));
            }
        }
    }
    if let Some((r, n)) = run {
        put(r, n, out);
    }
}

/// Definition levels of a V1 page (1 present, 0 null): their length, then the runs.
pub fn levels(present: &[bool], out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    runs(present.iter().map(|&p| p as u32), 1, out);
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
    /// `zstd`: pages compressed (level 1) or not.
    pub fn new(zstd: bool) -> Chunk {
        Chunk {
            sink: TrackedWrite::new(Vec::new()),
            zstd,
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

    fn body(&self, z: &mut zstd::bulk::Compressor, body: &[u8]) -> Result<Bytes, String> {
        if self.zstd {
            z.compress(body).map(Bytes::from).map_err(|e| e.to_string())
        } else {
            Ok(Bytes::copy_from_slice(body))
        }
    }

    /// The dictionary page (before any data page): `entries` values, `PLAIN`.
    pub fn dict_page(
        &mut self,
        z: &mut zstd::bulk::Compressor,
        body: &[u8],
        entries: u32,
    ) -> Result<(), String> {
        let buf = self.body(z, body)?;
        let page = Page::DictionaryPage {
            buf,
            num_values: entries,
            encoding: Encoding::PLAIN,
            is_sorted: false,
        };
        let at = self.page(page, body.len())?;
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
        body: &[u8],
        rows: u32,
        encoding: Encoding,
    ) -> Result<(), String> {
        let buf = self.body(z, body)?;
        let page = Page::DataPage {
            buf,
            num_values: rows,
            encoding,
            def_level_encoding: Encoding::RLE,
            rep_level_encoding: Encoding::RLE,
            statistics: None,
        };
        let at = self.page(page, body.len())?;
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
            Compression::ZSTD(ZstdLevel::try_new(LEVEL).map_err(|e| e.to_string())?)
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
