//! The `.jtr` compact trace file: a versioned header, then self-delimiting blocks carrying the agent's messages (definitions, raw record chunks, finish) as they arrived.
//!
//! Layout (docs/JTR_FORMAT.md): `MAGIC`, the format version (u16 LE), then blocks of
//! `kind: u8, length: u32 LE, body`. The first block is the session header with the
//! clock map. A block is written whole or not at all from the reader's point of view:
//! a file cut short (SIGKILL, full disk) is read up to its last whole block, and
//! rendering it closes the document as the agent would have at that point.

mod body;
mod depth;
pub mod index;
mod select;
pub mod series;
mod window;
mod wire;

pub use select::{Opened, Selection, Tagged};
pub use window::{resumable, Cut, Wanted, Window};

use crate::clock::Converter;
use crate::defs::Msg;
use crate::header::Header;
use crate::render::{Output, Renderer, Stats};
use body::*;
use std::fmt;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// The first 8 bytes of every `.jtr` file (PNG-style: a high byte, a name, CR LF, ^Z, LF,
/// so a text-mode transfer or a wrong tool shows at once).
pub const MAGIC: [u8; 8] = *b"\x8aJTR\r\n\x1a\n";
/// The format version this code writes. Readers accept every version up to this one.
pub const VERSION: u16 = 3;
/// Bytes of a block's kind and length.
pub const BLOCK_HEAD: usize = 5;
/// Bytes before the first block.
const PREAMBLE: usize = MAGIC.len() + 2;
/// No block is larger (a chunk is at most 64 KiB; definitions of one class are far
/// below this): a larger length means a corrupt file, not an allocation to attempt.
const MAX_BLOCK: u32 = 1 << 28;

/// Why a `.jtr` file cannot be read.
#[derive(Debug)]
pub enum JtrError {
    Io(io::Error),
    /// Not a `.jtr` file at all.
    NotJtr,
    /// Written by a newer jtrace.
    Version(u16),
    /// A block that cannot be decoded: its offset and what was wrong.
    Corrupt {
        offset: u64,
        why: String,
    },
}

impl fmt::Display for JtrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JtrError::Io(e) => write!(f, "{e}"),
            JtrError::NotJtr => write!(f, "not a jtrace .jtr file (no JTR header)"),
            JtrError::Version(v) => write!(
                f,
                ".jtr format version {v} is newer than this jtrace reads (up to {VERSION}); \
                 use a newer jtrace"
            ),
            JtrError::Corrupt { offset, why } => {
                write!(f, "corrupt block at byte {offset}: {why}")
            }
        }
    }
}

impl std::error::Error for JtrError {}

impl From<io::Error> for JtrError {
    fn from(e: io::Error) -> Self {
        JtrError::Io(e)
    }
}

/// Writes a `.jtr` stream: what the agent's sink thread does with each message. At
/// the finish it appends the index of the record chunks (`index`).
pub struct JtrWriter<W: Write> {
    out: W,
    scratch: Vec<u8>,
    bytes: u64,
    /// The chunks written so far, for the index (None: no index, as in the spill file).
    index: Option<Vec<index::ChunkEntry>>,
    /// Each thread's stack depth through its chunks, for the index's resume points.
    depths: depth::Depths,
}

impl<W: Write> JtrWriter<W> {
    /// Writes the preamble and the header block.
    pub fn new(out: W, header: &Header, conv: &Converter) -> io::Result<Self> {
        let mut w = JtrWriter {
            out,
            scratch: Vec::with_capacity(4096),
            bytes: 0,
            index: Some(Vec::new()),
            depths: depth::Depths::default(),
        };
        w.out.write_all(&MAGIC)?;
        w.out.write_all(&VERSION.to_le_bytes())?;
        w.bytes = PREAMBLE as u64;
        encode_header(&mut w.scratch, header, conv);
        w.flush_scratch(BLOCK_HEADER)?;
        Ok(w)
    }

    fn block_head(&mut self, kind: u8, len: usize) -> io::Result<()> {
        let mut head = [0u8; 5];
        head[0] = kind;
        head[1..].copy_from_slice(&(len as u32).to_le_bytes());
        self.out.write_all(&head)?;
        self.bytes += 5 + len as u64;
        Ok(())
    }

    fn flush_scratch(&mut self, kind: u8) -> io::Result<()> {
        let body = std::mem::take(&mut self.scratch);
        let r = self
            .block_head(kind, body.len())
            .and_then(|_| self.out.write_all(&body));
        self.scratch = body;
        self.scratch.clear();
        r
    }

    /// A chunk block; its records (counted for the index only: 0 without one).
    fn chunk(&mut self, tid: u32, data: &[u8]) -> io::Result<u64> {
        self.scratch.clear();
        encode_chunk_head(&mut self.scratch, tid);
        let (at, len) = (self.bytes, self.scratch.len() + data.len());
        self.block_head(BLOCK_CHUNK, len)?;
        self.out.write_all(&self.scratch)?;
        self.out.write_all(data)?;
        Ok(match self.index.as_mut() {
            Some(ix) => {
                let scan = crate::record::scan(data);
                let resume = self.depths.chunk(tid, data);
                ix.push(index::ChunkEntry::new(at, len as u32, tid, &scan, resume));
                scan.records
            }
            None => 0,
        })
    }

    /// Appends one message. Several chunks at once become one block each (a reader
    /// replays them in the same order, which renders the same document).
    pub fn write(&mut self, msg: &Msg) -> io::Result<()> {
        self.write_counted(msg).map(drop)
    }

    /// [`write`](Self::write), returning the records of the message's chunks (found
    /// by the walk the index makes, so that the agent's sink need not walk them again).
    pub fn write_counted(&mut self, msg: &Msg) -> io::Result<u64> {
        match msg {
            Msg::Defs(defs) => {
                if self.index.is_some() {
                    self.depths.note(msg);
                }
                self.scratch.clear();
                encode_defs(&mut self.scratch, defs);
                self.flush_scratch(BLOCK_DEFS).map(|_| 0)
            }
            Msg::Chunk { tid, data } => self.chunk(*tid, data),
            Msg::Chunks(chunks) => {
                let mut n = 0;
                for (tid, data) in chunks {
                    n += self.chunk(*tid, data)?;
                }
                Ok(n)
            }
            Msg::Mark(_) => Ok(0),
            Msg::Finish { .. } => {
                self.scratch.clear();
                encode_finish(&mut self.scratch, msg);
                self.flush_scratch(BLOCK_FINISH)?;
                // The index after the finish: a file cut before it is whole without it.
                if let Some(entries) = self.index.take() {
                    self.scratch.clear();
                    index::encode(&mut self.scratch, &entries, self.bytes);
                    self.flush_scratch(index::BLOCK_INDEX)?;
                }
                self.out.flush().map(|_| 0)
            }
        }
    }

    /// Bytes written so far (preamble included).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Appends `msg` as whole blocks (several chunks at once become one block each);
/// returns the number of blocks. The spool of the agent uses the file's own block
/// encoding for what it spills to disk.
pub fn encode_blocks(msg: &Msg, out: &mut Vec<u8>) -> usize {
    let mut w = JtrWriter {
        out,
        scratch: Vec::new(),
        bytes: 0,
        index: None,
        depths: depth::Depths::default(),
    };
    // Writing into a Vec cannot fail.
    let _ = w.write(msg);
    match msg {
        Msg::Chunks(c) => c.len(),
        Msg::Mark(_) => 0,
        _ => 1,
    }
}

/// Decodes one block written by `encode_blocks` (its kind and body).
pub fn decode_block(kind: u8, body: &[u8]) -> Result<Msg, String> {
    let mut c = wire::Cursor::new(body);
    match kind {
        BLOCK_DEFS => decode_defs(&mut c).map(Msg::Defs),
        BLOCK_CHUNK => decode_chunk(&mut c),
        BLOCK_FINISH => decode_finish(&mut c),
        k => Err(format!("unknown block kind {k}")),
    }
}

/// Reads a `.jtr` stream back as the messages the agent sent.
pub struct JtrReader<R: Read> {
    r: R,
    /// The session facts of the header block.
    pub header: Header,
    /// The clock map of the header block.
    pub conv: Converter,
    /// The file's format version.
    pub version: u16,
    offset: u64,
    body: Vec<u8>,
    /// The next block's header, read with the block before it (one read a block, not
    /// two: half the system calls of a pass over the file).
    ahead: Ahead,
    /// Why the stream ended before a finish block, once it has.
    cut_short: Option<String>,
}

/// What was read of the next block's header with the block before it.
#[derive(Clone, Copy)]
enum Ahead {
    /// Nothing: it is read when wanted.
    None,
    Head([u8; BLOCK_HEAD]),
    /// The stream ended inside it.
    Cut,
}

/// Reads exactly `buf.len()` bytes, or reports how many were there before the end.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl<R: Read> JtrReader<R> {
    /// Checks the preamble and reads the header block.
    pub fn open(mut r: R) -> Result<Self, JtrError> {
        let mut pre = [0u8; PREAMBLE];
        if read_full(&mut r, &mut pre)? < PREAMBLE || pre[..8] != MAGIC {
            return Err(JtrError::NotJtr);
        }
        let version = u16::from_le_bytes([pre[8], pre[9]]);
        if version == 0 || version > VERSION {
            return Err(JtrError::Version(version));
        }
        let mut me = JtrReader {
            r,
            header: Header::default(),
            conv: Converter::nanoseconds(0, 0),
            version,
            offset: PREAMBLE as u64,
            body: Vec::new(),
            ahead: Ahead::None,
            cut_short: None,
        };
        let at = me.offset;
        match me.block()? {
            Some(BLOCK_HEADER) => {}
            _ => {
                return Err(JtrError::Corrupt {
                    offset: at,
                    why: "the file does not start with a header block".into(),
                })
            }
        }
        let (h, conv) = decode_header(&mut wire::Cursor::new(&me.body))
            .map_err(|why| JtrError::Corrupt { offset: at, why })?;
        me.header = h;
        me.conv = conv;
        Ok(me)
    }

    /// A reader of a file already opened (`opened`), its bytes in `r` at the block
    /// after the header.
    fn resumed(r: R, opened: &Opened) -> Self {
        JtrReader {
            r,
            header: opened.header.clone(),
            conv: opened.conv,
            version: opened.version,
            offset: opened.body_at(),
            body: Vec::new(),
            ahead: Ahead::None,
            cut_short: None,
        }
    }

    /// Reads the next whole block into `body`; None at the end of the data (a partial
    /// block at the end is the end, noted in `cut_short`).
    fn block(&mut self) -> Result<Option<u8>, JtrError> {
        let head = match std::mem::replace(&mut self.ahead, Ahead::None) {
            Ahead::Head(h) => h,
            Ahead::Cut => return Ok(self.head_cut()),
            Ahead::None => {
                let mut head = [0u8; BLOCK_HEAD];
                let n = read_full(&mut self.r, &mut head)?;
                if n == 0 {
                    return Ok(None);
                }
                if n < head.len() {
                    return Ok(self.head_cut());
                }
                head
            }
        };
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
        if len > MAX_BLOCK {
            return Err(JtrError::Corrupt {
                offset: self.offset,
                why: format!("block length {len}"),
            });
        }
        let len = len as usize;
        let got = self.read_body(len + BLOCK_HEAD)?;
        if got < len {
            self.cut_short = Some(format!(
                "the block at byte {} cut short ({got} of {len} bytes)",
                self.offset
            ));
            return Ok(None);
        }
        self.ahead = match got - len {
            0 => Ahead::None,
            BLOCK_HEAD => {
                let mut h = [0u8; BLOCK_HEAD];
                h.copy_from_slice(&self.body[len..]);
                Ahead::Head(h)
            }
            _ => Ahead::Cut,
        };
        self.body.truncate(len);
        self.offset += (BLOCK_HEAD + len) as u64;
        Ok(Some(head[0]))
    }

    /// Reads up to `want` bytes into `body` (resized to what came); how many came. A
    /// length up to `EAGER` is read into a buffer of that size at once (one read a
    /// chunk); a larger one grows as its bytes arrive, so a damaged length field costs
    /// what the file holds, not what it claims.
    fn read_body(&mut self, want: usize) -> io::Result<usize> {
        const EAGER: usize = 1 << 20;
        let mut have = 0;
        let mut step = want.min(EAGER);
        loop {
            self.body.resize(have + step, 0);
            let got = read_full(&mut self.r, &mut self.body[have..])?;
            have += got;
            if got < step || have == want {
                self.body.truncate(have);
                return Ok(have);
            }
            step = (want - have).min(have);
        }
    }

    /// The stream ends inside a block's header: the end, noted.
    fn head_cut(&mut self) -> Option<u8> {
        self.cut_short = Some(format!("a block header cut short at byte {}", self.offset));
        None
    }

    /// The next message; None once the stream ends (after a finish block, or where
    /// the file was cut short: see `cut_short`).
    pub fn next_msg(&mut self) -> Result<Option<Msg>, JtrError> {
        let at = self.offset;
        let Some(kind) = self.block()? else {
            if self.cut_short.is_none() {
                self.cut_short = Some(format!("no finish block (the file ends at byte {at})"));
            }
            return Ok(None);
        };
        let msg =
            decode_block(kind, &self.body).map_err(|why| JtrError::Corrupt { offset: at, why })?;
        Ok(Some(msg))
    }

    /// The next block: a record chunk as its thread and the records in place (no copy:
    /// replays go through nearly all of a file's bytes this way), anything else as its
    /// message; None once the stream ends, as [`next_msg`](Self::next_msg).
    fn next_block(&mut self) -> Result<Option<Block<'_>>, JtrError> {
        let at = self.offset;
        let Some(kind) = self.block()? else {
            if self.cut_short.is_none() {
                self.cut_short = Some(format!("no finish block (the file ends at byte {at})"));
            }
            return Ok(None);
        };
        let corrupt = |why| JtrError::Corrupt { offset: at, why };
        if kind == BLOCK_CHUNK {
            let mut c = wire::Cursor::new(&self.body);
            let tid = c.u32var("chunk thread").map_err(corrupt)?;
            return Ok(Some(Block::Chunk(tid, c.rest())));
        }
        let msg = decode_block(kind, &self.body).map_err(corrupt)?;
        Ok(Some(Block::Msg(msg)))
    }

    /// Why the stream ended without a finish block (None if it had one or is not
    /// read to its end yet).
    pub fn cut_short(&self) -> Option<&str> {
        self.cut_short.as_deref()
    }
}

impl<R: Read + Seek> JtrReader<R> {
    /// The file's index of record chunks (None: the file has none, as one cut short or
    /// written before the index existed, or a damaged one); the reading position is
    /// kept.
    pub fn index(&mut self) -> Option<Vec<index::ChunkEntry>> {
        let here = self.r.stream_position().ok()?;
        let found = self.read_index();
        self.r.seek(SeekFrom::Start(here)).ok()?;
        found
    }

    fn read_index(&mut self) -> Option<Vec<index::ChunkEntry>> {
        let end = self.r.seek(SeekFrom::End(0)).ok()?;
        self.r.seek(SeekFrom::End(-(index::TRAILER as i64))).ok()?;
        let mut t = [0u8; index::TRAILER];
        if read_full(&mut self.r, &mut t).ok()? < t.len() || t[8..] != index::INDEX_MAGIC {
            return None;
        }
        let at = u64::from_le_bytes(t[..8].try_into().ok()?);
        self.r.seek(SeekFrom::Start(at)).ok()?;
        let mut head = [0u8; BLOCK_HEAD];
        read_full(&mut self.r, &mut head).ok()?;
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as u64;
        if head[0] != index::BLOCK_INDEX
            || at + BLOCK_HEAD as u64 + len != end
            || len > MAX_BLOCK as u64
        {
            return None;
        }
        let mut body = vec![0u8; len as usize];
        if read_full(&mut self.r, &mut body).ok()? < body.len() {
            return None;
        }
        index::decode(&body).ok()
    }

    /// Moves past the block at the reading position, whose body is `len` bytes long,
    /// without reading it.
    fn skip_block(&mut self, len: u32) -> Result<(), JtrError> {
        // Its header may have been read with the block before.
        let head = match std::mem::replace(&mut self.ahead, Ahead::None) {
            Ahead::None => BLOCK_HEAD as u64,
            Ahead::Head(_) | Ahead::Cut => 0,
        };
        self.r.seek(SeekFrom::Current((head + len as u64) as i64))?;
        self.offset += BLOCK_HEAD as u64 + len as u64;
        Ok(())
    }
}

/// A block as a replay takes it.
enum Block<'a> {
    Chunk(u32, &'a [u8]),
    Msg(Msg),
}

/// What rendering a `.jtr` gave.
#[derive(Debug, Default)]
pub struct Rendered {
    pub stats: Stats,
    /// Set when the file ended without its finish block: where and how.
    pub cut_short: Option<String>,
    /// Record chunks replayed whole, and those of threads not wanted
    /// ([`Selection::threads`]): skipped, or replayed for their allocations alone.
    pub chunks_replayed: u64,
    pub chunks_skipped: u64,
    /// Of those skipped, the chunks the index let the reader seek past unread.
    pub chunks_unread: u64,
    /// Threads of a window read ([`Selection::window`]) whose stack, rebuilt at their
    /// resume point, did not have the depth the index gives (should be 0).
    pub resumed_wrong: u64,
}

/// Renders a `.jtr` stream as the TPTP XML document the agent would have written for
/// the same run. A stream cut short is rendered up to its last whole block and then
/// closed (open frames ended, counts written, a `recordingCutShort` annotation).
pub fn to_xml<R: Read, W: Write>(jtr: R, xml: W) -> Result<Rendered, JtrError> {
    let r = JtrReader::open(jtr)?;
    let out = Renderer::new(xml, &r.header, r.conv);
    replay_into(r, out, &mut Threads::All, &mut |_, _| Ok(false)).map(|(rendered, _)| rendered)
}

/// Replays a `.jtr` stream into any [`Output`]: the elements of the document [`to_xml`]
/// writes, in its order, each received as typed attributes (`jtrace check` feeds
/// tracecheck's rules so, with no XML in between). The output comes back with what the
/// replay gave.
pub fn replay_to<R: Read, O: Output>(jtr: R, out: O) -> Result<(Rendered, O), JtrError> {
    let r = JtrReader::open(jtr)?;
    let out = Renderer::with_output(out, &r.header, r.conv);
    replay_into(r, out, &mut Threads::All, &mut |_, _| Ok(false))
        .map(|(rendered, renderer)| (rendered, renderer.into_output()))
}

/// A replay of some threads (see [`Selection::threads`]), from an opened reader and
/// the file's index (empty: none).
fn replay_selected<R: Read + Seek, O: Output>(
    r: JtrReader<R>,
    index: &[index::ChunkEntry],
    out: Renderer<O>,
    mut sel: Threads,
) -> Result<Rendered, JtrError> {
    // With the file's index, the chunks of threads not wanted that hold no allocation
    // are not even read.
    let mut index = index.iter().peekable();
    let mut unread = 0;
    let skip = &mut |r: &mut JtrReader<R>, sel: &Threads| {
        while index.next_if(|e| e.offset < r.offset).is_some() {}
        match index.peek() {
            Some(e) if e.offset == r.offset && !e.allocs && !sel.keeps(e.tid) => {
                r.skip_block(e.len)?;
                unread += 1;
                Ok(true)
            }
            _ => Ok(false),
        }
    };
    let (mut done, out) = replay_into(r, out, &mut sel, skip)?;
    drop(out);
    done.chunks_skipped += unread;
    done.chunks_unread = unread;
    Ok(done)
}

/// Which threads' records a replay renders.
enum Threads<'a> {
    All,
    /// By thread id: wanted or not (threads without a definition are kept).
    Some {
        wanted: Wanted<'a>,
        keep: crate::idtable::IdTable<bool>,
    },
}

impl<'a> Threads<'a> {
    /// The threads `wanted` accepts.
    fn some(wanted: Wanted<'a>) -> Self {
        Threads::Some {
            wanted,
            keep: Default::default(),
        }
    }

    /// Whether thread `tid`'s records are rendered.
    fn keeps(&self, tid: u32) -> bool {
        match self {
            Threads::All => true,
            Threads::Some { keep, .. } => tid == 0 || keep.get(tid).copied().unwrap_or(true),
        }
    }

    /// Notes the threads a message defines.
    fn note(&mut self, msg: &Msg) {
        let (Threads::Some { wanted, keep }, Msg::Defs(defs)) = (self, msg) else {
            return;
        };
        for d in defs {
            if let crate::defs::Def::Thread(t) = d {
                keep.insert(t.tid, wanted(t.tid, &t.name));
            }
        }
    }
}

/// Moves a reader past its next block unread when an answer does not need it (true
/// when it did).
type Skip<'a, R> = dyn FnMut(&mut JtrReader<R>, &Threads) -> Result<bool, JtrError> + 'a;

/// `skip` may move `r` past the next block unread.
fn replay_into<R: Read, O: Output>(
    mut r: JtrReader<R>,
    mut out: Renderer<O>,
    sel: &mut Threads,
    skip: &mut Skip<R>,
) -> Result<(Rendered, Renderer<O>), JtrError> {
    let (mut replayed, mut skipped) = (0, 0);
    loop {
        if skip(&mut r, sel)? {
            continue;
        }
        match r.next_block()? {
            Some(Block::Chunk(tid, data)) if sel.keeps(tid) => {
                replayed += 1;
                out.handle_chunk(tid, data);
            }
            Some(Block::Chunk(tid, data)) => {
                // A thread not wanted: its allocations alone (see `Selection::threads`).
                skipped += 1;
                allocs_only(&mut out, tid, data);
            }
            Some(Block::Msg(msg)) => {
                if !message(&mut out, sel, Some(msg)) {
                    break;
                }
            }
            None => {
                message(&mut out, sel, None);
                break;
            }
        }
    }
    let done = Rendered {
        chunks_replayed: replayed,
        chunks_skipped: skipped,
        ..rendered(&r, &out)?
    };
    Ok((done, out))
}

/// Replays the allocation records of thread `tid`'s chunk `data` alone.
fn allocs_only<O: Output>(out: &mut Renderer<O>, tid: u32, data: &[u8]) {
    let allocs = crate::record::only(data, crate::record::TAG_ALLOC);
    if !allocs.is_empty() {
        out.handle_chunk(tid, &allocs);
    }
}

/// Replays a block that is not a record chunk, or the end of the stream (None: the
/// file is cut short there); false once the document is closed.
fn message<O: Output>(out: &mut Renderer<O>, sel: &mut Threads, msg: Option<Msg>) -> bool {
    match msg {
        Some(msg) => {
            sel.note(&msg);
            out.handle(msg, drop)
        }
        None => {
            out.annotate("recordingCutShort", 1);
            out.finish(0, None, 0);
            false
        }
    }
}

/// What a replay gave (no chunks counted), or its output's write error.
fn rendered<R: Read, O: Output>(r: &JtrReader<R>, out: &Renderer<O>) -> Result<Rendered, JtrError> {
    let stats = out.stats();
    if let Some(e) = &stats.io_error {
        return Err(JtrError::Io(io::Error::other(e.clone())));
    }
    Ok(Rendered {
        stats,
        cut_short: r.cut_short().map(str::to_string),
        ..Rendered::default()
    })
}

#[cfg(test)]
mod tests;
