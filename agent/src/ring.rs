//! The ring (`ring=SIZE`): the sink keeps the newest records in memory instead of writing them, every definition whole, and a dump writes what it holds as a complete trace while recording goes on.
//!
//! Records arrive per thread in order, so evicting the oldest chunk of the whole
//! process leaves each thread a suffix of its own stream: a thread's first kept
//! records may return from frames whose entries were cut. A dump defines every
//! thread as running before its trace (`ThreadDef::before_trace`), so the renderer
//! leaves those exits out and counts them (`exitsOfEarlierFrames`), as for a trace
//! started while the JVM runs. Definitions are never evicted (they are written
//! first in every dump, so every id is defined before use); tags are kept in order
//! with the chunks, and a dump holds whole windows only: a window whose opening tag
//! was cut, or which has not closed yet, is left out of it.
//!
//! The sink thread is the only writer (`push`); a dump asks it for a mark
//! (`Msg::Mark`) after taking every thread's buffered records, waits until the sink
//! has seen it, and copies out what the ring holds (`snapshot`: shared chunks, no
//! copy of records), then writes the file outside the lock.

use crate::buffer;
use crate::clock::{self, Converter};
use std::collections::{HashMap, HashSet, VecDeque};
use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;
use trace::compress::{Compressed, Format};
use trace::defs::{Def, Msg, TagDef};
use trace::header::Header;
use trace::jtr::JtrWriter;
use trace::record;
use trace::render::{Renderer, Stats};

/// A chunk kept smaller than this share of its capacity is copied to its own size.
const SHRINK_BELOW: usize = 2;

/// What the ring keeps in order: a thread's records, or a tag between them.
#[derive(Clone)]
enum Item {
    Chunk(u32, Arc<Vec<u8>>),
    Tag(TagDef),
}

#[derive(Default)]
struct Held {
    /// Every definition, in arrival order (tags are items).
    defs: Vec<Def>,
    items: VecDeque<Item>,
    /// Bytes of memory the items' records take (their chunks' capacity).
    bytes: usize,
    /// Records and bytes evicted so far.
    cut_records: u64,
    cut_bytes: u64,
    /// Threads whose window's opening tag was evicted while its end is still kept.
    cut_windows: HashSet<u32>,
    /// The last mark the sink has seen.
    marked: u64,
    /// Records received.
    records: u64,
}

/// The ring of one trace, shared by its sink thread and whoever dumps it.
pub struct Ring {
    bound: usize,
    header: Header,
    /// `out=` and `jtr=`, whose `%n` is the dump's number.
    out: String,
    jtr: Option<String>,
    held: Mutex<Held>,
    seen: Condvar,
    next_mark: AtomicU64,
    /// Dumps written so far.
    dumps: AtomicU64,
}

/// What a dump wrote.
#[derive(Debug, Default)]
pub struct Written {
    /// The renderer's figures (`.jtr`: its bytes and events).
    pub stats: Stats,
    pub cut_records: u64,
}

/// How a dump's document ends (as the trace's `Msg::Finish`).
pub struct Ending {
    pub t: u64,
    pub tid: Option<u32>,
    pub dropped_bytes: u64,
    pub shutdown: bool,
    pub notes: Vec<(String, u64)>,
}

/// What the ring holds at one moment: shared chunks, nothing copied.
pub struct Snapshot {
    defs: Vec<Def>,
    items: Vec<Item>,
    cut_windows: HashSet<u32>,
    cut_records: u64,
    cut_bytes: u64,
}

impl Ring {
    pub fn new(bound: u64, header: Header, out: &str, jtr: Option<&str>) -> Arc<Ring> {
        Arc::new(Ring {
            bound: usize::try_from(bound).unwrap_or(usize::MAX),
            header,
            out: out.to_string(),
            jtr: jtr.map(str::to_string),
            held: Mutex::new(Held::default()),
            seen: Condvar::new(),
            next_mark: AtomicU64::new(0),
            dumps: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The sink's message: kept (the oldest records evicted past the bound), or a
    /// mark noted. Returns the records it carried.
    pub fn push(&self, msg: Msg) -> u64 {
        let mut h = self.lock();
        let mut records = 0;
        match msg {
            Msg::Defs(defs) => {
                for d in defs {
                    match d {
                        Def::Tag(t) => h.items.push_back(Item::Tag(t)),
                        d => h.defs.push(d),
                    }
                }
            }
            Msg::Chunk { tid, data } => records += keep(&mut h, tid, data),
            Msg::Chunks(chunks) => {
                for (tid, data) in chunks {
                    records += keep(&mut h, tid, data);
                }
            }
            Msg::Mark(n) => {
                h.marked = h.marked.max(n);
                self.seen.notify_all();
            }
            Msg::Finish { .. } => {}
        }
        h.records += records;
        while h.bytes > self.bound {
            if !evict(&mut h) {
                break;
            }
        }
        records
    }

    /// Every record sent before now is in the ring: each thread's buffered records
    /// are taken and a mark the sink must see is sent behind them. False if the sink
    /// did not see it in time.
    pub fn settle(&self) -> bool {
        buffer::steal_all();
        buffer::vm_flush();
        let n = self.next_mark.fetch_add(1, Ordering::Relaxed) + 1;
        buffer::send(Msg::Mark(n));
        let h = self.lock();
        let (h, _) = self
            .seen
            .wait_timeout_while(h, Duration::from_secs(10), |h| h.marked < n)
            .unwrap_or_else(|e| e.into_inner());
        h.marked >= n
    }

    /// What the ring holds now.
    pub fn snapshot(&self) -> Snapshot {
        let h = self.lock();
        Snapshot {
            defs: h.defs.clone(),
            items: h.items.iter().cloned().collect(),
            cut_windows: h.cut_windows.clone(),
            cut_records: h.cut_records,
            cut_bytes: h.cut_bytes,
        }
    }

    /// Records received and bytes held, for `jtrace status`.
    pub fn figures(&self) -> (u64, usize) {
        let h = self.lock();
        (h.records, h.bytes)
    }

    /// The bound (`ring=`).
    pub fn bound(&self) -> usize {
        self.bound
    }

    /// Where the next dump goes by default: `out=` (and `jtr=` beside it) with `%n`
    /// its number (1, 2, ...).
    pub fn next_paths(&self) -> (String, Option<String>) {
        let n = self.dumps.fetch_add(1, Ordering::Relaxed) + 1;
        let now = clock::real_ns() / 1_000_000_000;
        let expand = |t: &str| crate::options::expand_out(t, std::process::id(), now, n as u32);
        (expand(&self.out), self.jtr.as_deref().map(expand))
    }

    /// Writes `snap` to `path` as a complete trace, `.jtr` or XML by its name, and
    /// to `beside` (`jtr=`) as `.jtr` too.
    pub fn write(
        &self,
        snap: &Snapshot,
        path: &str,
        beside: Option<&str>,
        end: Ending,
    ) -> Result<Written, String> {
        // The rate measured now: every record of the dump was made before it.
        let conv = clock::calibrate();
        let mut notes = end.notes;
        notes.push(("ringBytes".to_string(), self.bound as u64));
        notes.push(("ringCutRecords".to_string(), snap.cut_records));
        notes.push(("ringCutBytes".to_string(), snap.cut_bytes));
        let finish = || Msg::Finish {
            t: end.t,
            tid: end.tid,
            dropped_bytes: end.dropped_bytes,
            shutdown: end.shutdown,
            count_base: Vec::new(),
            notes: notes.clone(),
        };
        if let Some(b) = beside {
            self.write_jtr(snap, b, &conv, finish())?;
        }
        let mut written = if Format::from_path(path) == Format::Jtr {
            self.write_jtr(snap, path, &conv, finish())?
        } else {
            self.write_xml(snap, path, conv, finish())?
        };
        written.cut_records = snap.cut_records;
        Ok(written)
    }

    fn write_jtr(
        &self,
        snap: &Snapshot,
        path: &str,
        conv: &Converter,
        finish: Msg,
    ) -> Result<Written, String> {
        let err = |e: std::io::Error| format!("{path}: {e}");
        let mut w = JtrWriter::new(create(path)?, &self.header, conv).map_err(err)?;
        let mut written = Written::default();
        for m in snap.messages() {
            written.stats.events += w.write_counted(&m).map_err(err)?;
        }
        w.write(&finish).map_err(err)?;
        written.stats.bytes = w.bytes();
        w.into_inner()
            .into_inner()
            .map_err(|e| err(e.into_error()))?;
        Ok(written)
    }

    fn write_xml(
        &self,
        snap: &Snapshot,
        path: &str,
        conv: Converter,
        finish: Msg,
    ) -> Result<Written, String> {
        let err = |e: std::io::Error| format!("{path}: {e}");
        let out =
            Compressed::with_workers(create(path)?, Format::from_path(path), 1).map_err(err)?;
        let mut r = Renderer::new(out, &self.header, conv);
        for m in snap.messages() {
            r.handle(m, drop);
        }
        r.handle(finish, drop);
        let stats = r.stats();
        if let Some(e) = &stats.io_error {
            return Err(format!("{path}: {e}"));
        }
        r.into_sink().finish().map_err(err)?;
        Ok(Written {
            stats,
            cut_records: 0,
        })
    }
}

fn create(path: &str) -> Result<BufWriter<File>, String> {
    let file = File::create(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(BufWriter::with_capacity(1 << 20, file))
}

impl Snapshot {
    /// Records evicted before it.
    pub fn cut(&self) -> u64 {
        self.cut_records
    }

    /// The dump's messages: every definition (threads as running before the trace),
    /// then the kept items of whole windows only.
    fn messages(&self) -> impl Iterator<Item = Msg> + '_ {
        let mut defs = self.defs.clone();
        for d in &mut defs {
            if let Def::Thread(t) = d {
                t.before_trace = true;
            }
        }
        // A window still open at the snapshot is left out from its opening tag on.
        let mut open: HashMap<u32, usize> = HashMap::new();
        for (i, item) in self.items.iter().enumerate() {
            if let Item::Tag(t) = item {
                match window_event(t) {
                    Some(true) => {
                        open.insert(t.tid, i);
                    }
                    Some(false) => {
                        open.remove(&t.tid);
                    }
                    None => {}
                }
            }
        }
        let mut skipping = self.cut_windows.clone();
        let items = self.items.iter().enumerate().filter_map(move |(i, item)| {
            let tid = match &item {
                Item::Chunk(tid, _) => *tid,
                Item::Tag(t) => t.tid,
            };
            if open.get(&tid).is_some_and(|&from| i >= from) {
                return None;
            }
            if skipping.contains(&tid) {
                if let Item::Tag(t) = &item {
                    if window_event(t) == Some(false) {
                        skipping.remove(&tid);
                    }
                }
                return None;
            }
            Some(match item {
                Item::Chunk(tid, data) => Msg::Chunk {
                    tid: *tid,
                    data: data.as_ref().clone(),
                },
                Item::Tag(t) => Msg::Defs(vec![Def::Tag(t.clone())]),
            })
        });
        std::iter::once(Msg::Defs(defs)).chain(items)
    }
}

/// Whether tag `t` opens (true) or closes (false) a window; `None`: another tag.
fn window_event(t: &TagDef) -> Option<bool> {
    if t.name != crate::window::TAG {
        return None;
    }
    match t.fields.iter().find(|(k, _)| k == "event")?.1.as_str() {
        "start" => Some(true),
        "end" => Some(false),
        _ => None,
    }
}

/// Keeps a chunk, at its own size if it is mostly empty. Returns its records.
fn keep(h: &mut Held, tid: u32, data: Vec<u8>) -> u64 {
    if data.is_empty() {
        buffer::recycle(data);
        return 0;
    }
    let records = record::count(&data);
    let data = if data.len() * SHRINK_BELOW < data.capacity() {
        let own = data.to_vec();
        buffer::recycle(data);
        own
    } else {
        data
    };
    h.bytes += data.capacity();
    h.items.push_back(Item::Chunk(tid, Arc::new(data)));
    records
}

/// Evicts the oldest item; false if there is none.
fn evict(h: &mut Held) -> bool {
    let Some(item) = h.items.pop_front() else {
        return false;
    };
    match item {
        Item::Chunk(_, data) => {
            h.bytes -= data.capacity();
            h.cut_bytes += data.len() as u64;
            h.cut_records += record::count(&data);
            // A dump still writing shares it; otherwise its memory is reused.
            if let Ok(v) = Arc::try_unwrap(data) {
                buffer::recycle(v);
            }
        }
        Item::Tag(t) => match window_event(&t) {
            Some(true) => {
                h.cut_windows.insert(t.tid);
            }
            Some(false) => {
                h.cut_windows.remove(&t.tid);
            }
            None => {}
        },
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use trace::defs::ThreadDef;

    fn entry(mid: u32, t: u64) -> Vec<u8> {
        let mut r = vec![record::TAG_ENTRY];
        r.extend_from_slice(&mid.to_le_bytes());
        r.extend_from_slice(&t.to_le_bytes());
        r
    }

    fn tag(tid: u32, event: &str) -> Def {
        Def::Tag(TagDef {
            tid,
            t: 0,
            name: crate::window::TAG.to_string(),
            fields: vec![("event".into(), event.into())],
        })
    }

    fn ring(bound: u64) -> Arc<Ring> {
        Ring::new(bound, Header::default(), "unused.jtr", None)
    }

    fn chunk(tid: u32, n: u32) -> Msg {
        let mut data = Vec::with_capacity(1000);
        for i in 0..n {
            data.extend(entry(i, i as u64));
        }
        Msg::Chunk { tid, data }
    }

    fn chunk_tids(s: Snapshot) -> Vec<u32> {
        s.messages()
            .filter_map(|m| match m {
                Msg::Chunk { tid, .. } => Some(tid),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_oldest_records_go_first_and_definitions_stay() {
        let r = ring(3200);
        r.push(Msg::Defs(vec![Def::Thread(ThreadDef {
            tid: 1,
            ..ThreadDef::default()
        })]));
        for tid in [1, 2, 3] {
            // 1000 bytes of capacity each, 910 of them used (kept as it is).
            r.push(chunk(tid, 70));
        }
        let s = r.snapshot();
        assert_eq!((s.cut_records, s.cut_bytes), (0, 0));
        let mut big = Vec::with_capacity(1500);
        big.extend(std::iter::repeat_n(entry(9, 9), 100).flatten());
        r.push(Msg::Chunk { tid: 4, data: big });
        let s = r.snapshot();
        assert_eq!(s.cut_records, 140, "the first two chunks went");
        let defs = match s.messages().next() {
            Some(Msg::Defs(d)) => d,
            _ => panic!("definitions come first"),
        };
        assert!(matches!(&defs[..], [Def::Thread(t)] if t.before_trace));
        assert_eq!(chunk_tids(r.snapshot()), vec![3, 4]);
        // A mostly empty chunk is kept at its own size.
        let mut small = Vec::with_capacity(1000);
        small.extend(entry(1, 1));
        r.push(Msg::Chunk {
            tid: 5,
            data: small,
        });
        assert_eq!(r.figures().1, 1000 + 1500 + 13);
    }

    #[test]
    fn a_dump_holds_whole_windows_only() {
        let r = ring(100_000);
        r.push(Msg::Defs(vec![tag(1, "start")]));
        r.push(chunk(1, 2));
        r.push(Msg::Defs(vec![tag(1, "end")]));
        r.push(Msg::Defs(vec![tag(2, "start")]));
        r.push(chunk(2, 2));
        // Thread 2's window is still open: left out.
        assert_eq!(chunk_tids(r.snapshot()), vec![1]);
        r.push(Msg::Defs(vec![tag(2, "end")]));
        assert_eq!(chunk_tids(r.snapshot()), vec![1, 2]);
        // Thread 1's opening tag evicted: its window's rest is left out too.
        {
            let mut h = r.lock();
            assert!(evict(&mut h));
        }
        assert_eq!(chunk_tids(r.snapshot()), vec![2]);
    }

    #[test]
    fn marks_are_noted() {
        let r = ring(1 << 20);
        r.push(Msg::Mark(3));
        assert_eq!(r.lock().marked, 3);
    }
}
