//! The spool between recording and XML rendering: messages the renderer has not reached yet wait in memory up to `MEMORY_BOUND`, then in a spill file beside `out` (compact `.jtr` blocks), so application threads never wait for XML formatting.
//!
//! One producer (the sink thread draining the channel) and one consumer (the render
//! thread). Order is kept: once a message is spilled, every later one is spilled too
//! until the renderer has read the spill file to its end; then the file is emptied and
//! memory is used again. If the spill file cannot be created or written (disk full),
//! the producer waits for room in memory instead: the application then waits for the
//! renderer, as it must when the disk is full, and nothing is lost.

use crate::buffer;
use std::collections::VecDeque;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use trace::defs::Msg;
use trace::jtr::{decode_block, encode_blocks, BLOCK_HEAD};

/// Record bytes held in memory before spilling: about 5 million method events.
pub const MEMORY_BOUND: usize = 64 << 20;
/// Environment variable that lowers the bound (tests: `0` spills all but one message,
/// which exercises the spill file on every run of the case).
const BOUND_ENV: &str = "JTRACE_SPOOL_BYTES";
/// What a definitions message is counted as (they are small and rare).
const DEF_BYTES: usize = 256;

#[derive(Default)]
struct State {
    mem: VecDeque<Msg>,
    mem_bytes: usize,
    /// Blocks in the spill file not read yet.
    spilled: u64,
    /// The producer is writing a block at `write_off` (outside the lock).
    in_flight: bool,
    write_off: u64,
    read_off: u64,
    file: Option<Arc<File>>,
    /// The spill file could not be used: stay in memory.
    no_spill: bool,
    /// The producer is done.
    closed: bool,
}

pub struct Spool {
    state: Mutex<State>,
    bound: usize,
    changed: Condvar,
    spill_path: PathBuf,
    /// Bytes of messages waiting (memory and spill file), for the wait at VM death.
    pending_bytes: AtomicU64,
    /// Messages rendered so far, also for the wait at VM death.
    pub taken: AtomicU64,
}

fn msg_bytes(m: &Msg) -> usize {
    match m {
        Msg::Chunk { data, .. } => data.len(),
        Msg::Chunks(c) => c.iter().map(|(_, d)| d.len()).sum(),
        Msg::Defs(d) => d.len() * DEF_BYTES,
        Msg::Finish { .. } | Msg::Mark(_) => 0,
    }
}

fn recycle(m: Msg) {
    match m {
        Msg::Chunk { data, .. } => buffer::recycle(data),
        Msg::Chunks(c) => c.into_iter().for_each(|(_, d)| buffer::recycle(d)),
        Msg::Defs(_) | Msg::Finish { .. } | Msg::Mark(_) => {}
    }
}

impl Spool {
    pub fn new(spill_path: PathBuf) -> Arc<Spool> {
        let bound = std::env::var(BOUND_ENV)
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(MEMORY_BOUND, |b: usize| b.min(MEMORY_BOUND));
        Spool::with_bound(spill_path, bound)
    }

    fn with_bound(spill_path: PathBuf, bound: usize) -> Arc<Spool> {
        Arc::new(Spool {
            state: Mutex::new(State::default()),
            bound,
            changed: Condvar::new(),
            spill_path,
            pending_bytes: AtomicU64::new(0),
            taken: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the queue half-updated (every
        // update is one push/pop plus counters), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes of records not rendered yet.
    pub fn pending_bytes(&self) -> u64 {
        self.pending_bytes.load(Ordering::Relaxed)
    }

    /// The spill file, created on first need; None if it cannot be.
    fn spill_file(&self, st: &mut State) -> Option<Arc<File>> {
        if st.no_spill {
            return None;
        }
        if st.file.is_none() {
            let f = File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&self.spill_path);
            match f {
                Ok(f) => st.file = Some(Arc::new(f)),
                Err(e) => {
                    crate::log::log_once(&format!(
                        "cannot spill records to {} ({e}); the application waits for the \
                         XML renderer instead",
                        self.spill_path.display()
                    ));
                    st.no_spill = true;
                }
            }
        }
        st.file.clone()
    }

    /// Queues a message (the producer side).
    pub fn push(&self, msg: Msg) {
        let size = msg_bytes(&msg);
        self.pending_bytes.fetch_add(size as u64, Ordering::Relaxed);
        let mut st = self.lock();
        loop {
            let spilling = st.spilled > 0 || st.in_flight;
            if !spilling && (st.mem_bytes + size <= self.bound || st.mem.is_empty()) {
                st.mem_bytes += size;
                st.mem.push_back(msg);
                self.changed.notify_all();
                return;
            }
            if let Some(file) = self.spill_file(&mut st) {
                st.in_flight = true;
                let off = st.write_off;
                drop(st);
                let mut bytes = Vec::with_capacity(size + 64);
                let blocks = encode_blocks(&msg, &mut bytes);
                let written = file.write_all_at(&bytes, off);
                st = self.lock();
                st.in_flight = false;
                match written {
                    Ok(()) => {
                        st.write_off += bytes.len() as u64;
                        st.spilled += blocks as u64;
                        self.changed.notify_all();
                        drop(st);
                        recycle(msg);
                        return;
                    }
                    Err(e) => {
                        crate::log::log_once(&format!(
                            "spilling records to {} failed ({e}); the application waits \
                             for the XML renderer instead",
                            self.spill_path.display()
                        ));
                        st.no_spill = true;
                    }
                }
            }
            // No spill file: wait until the renderer has read what was spilled and
            // made room in memory.
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// No more messages will come.
    pub fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    /// The next message in order (the consumer side); None once closed and empty.
    pub fn pop(&self) -> Option<Msg> {
        let mut st = self.lock();
        loop {
            if let Some(m) = st.mem.pop_front() {
                let size = msg_bytes(&m);
                st.mem_bytes -= size;
                self.pending_bytes.fetch_sub(size as u64, Ordering::Relaxed);
                self.taken.fetch_add(1, Ordering::Relaxed);
                self.changed.notify_all();
                return Some(m);
            }
            if st.spilled > 0 {
                let (file, off) = (st.file.clone()?, st.read_off);
                drop(st);
                let read = read_block(&file, off);
                st = self.lock();
                let (msg, len) = match read {
                    Ok(r) => r,
                    Err(e) => {
                        // Our own file, written by us: only an I/O error gets here.
                        crate::log::log_once(&format!(
                            "reading spilled records back from {} failed: {e}; the trace \
                             lacks them (traceEnd counts them as dropped)",
                            self.spill_path.display()
                        ));
                        st.spilled = 0;
                        st.read_off = st.write_off;
                        continue;
                    }
                };
                st.read_off += len;
                st.spilled -= 1;
                if st.spilled == 0 && !st.in_flight {
                    // Caught up: reuse the file from its start.
                    st.read_off = 0;
                    st.write_off = 0;
                    if let Some(f) = &st.file {
                        let _ = f.set_len(0);
                    }
                }
                self.pending_bytes
                    .fetch_sub(msg_bytes(&msg) as u64, Ordering::Relaxed);
                self.taken.fetch_add(1, Ordering::Relaxed);
                self.changed.notify_all();
                return Some(msg);
            }
            if st.closed {
                return None;
            }
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Removes the spill file (at the end of the trace).
    pub fn remove_spill(&self) {
        let mut st = self.lock();
        if st.file.take().is_some() {
            let _ = std::fs::remove_file(&self.spill_path);
        }
    }
}

/// One block at `off`: the message and the block's length.
fn read_block(file: &File, off: u64) -> Result<(Msg, u64), String> {
    let mut head = [0u8; BLOCK_HEAD];
    file.read_exact_at(&mut head, off)
        .map_err(|e| e.to_string())?;
    let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
    let mut body = vec![0u8; len];
    file.read_exact_at(&mut body, off + BLOCK_HEAD as u64)
        .map_err(|e| e.to_string())?;
    let msg = decode_block(head[0], &body)?;
    Ok((msg, (BLOCK_HEAD + len) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use trace::record::{id_tick, TAG_ENTRY};

    /// A chunk of `n` entry records of thread `tid`, method ids counting from `first`.
    fn chunk(tid: u32, first: u32, n: u32) -> Msg {
        let mut data = Vec::new();
        for i in 0..n {
            data.extend_from_slice(&id_tick(TAG_ENTRY, first + i, u64::from(first + i)));
        }
        Msg::Chunk { tid, data }
    }

    fn first_id(m: &Msg) -> u32 {
        match m {
            Msg::Chunk { data, .. } => u32::from_le_bytes([data[1], data[2], data[3], data[4]]),
            other => panic!("not a chunk: {other:?}"),
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("jtrace-spool-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn under_the_bound_nothing_is_spilled() {
        let d = dir("memory");
        let path = d.join("t.xml.spill");
        let sp = Spool::with_bound(path.clone(), 10 * 13 * 4);
        for k in 0..4 {
            sp.push(chunk(1, k * 10, 10));
        }
        assert_eq!(sp.pending_bytes(), 4 * 10 * 13);
        assert!(!path.exists(), "spilled while under the memory bound");
        sp.close();
        let got: Vec<u32> = std::iter::from_fn(|| sp.pop())
            .map(|m| first_id(&m))
            .collect();
        assert_eq!(got, [0, 10, 20, 30]);
        assert_eq!(sp.pending_bytes(), 0);
        assert_eq!(sp.taken.load(Ordering::Relaxed), 4);
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn over_the_bound_spills_and_keeps_the_order() {
        let d = dir("spill");
        let path = d.join("t.xml.spill");
        // Room for two chunks in memory: the rest goes to the file, and once one
        // message is spilled every later one is too, until the reader catches up.
        let sp = Spool::with_bound(path.clone(), 2 * 13 * 10);
        for k in 0..6 {
            sp.push(chunk(1, k * 10, 10));
        }
        assert!(path.exists(), "nothing spilled over the bound");
        assert!(std::fs::metadata(&path).unwrap().len() > 0);
        assert_eq!(sp.pending_bytes(), 6 * 10 * 13);
        let mut got = Vec::new();
        for _ in 0..6 {
            got.push(first_id(&sp.pop().unwrap()));
        }
        assert_eq!(got, [0, 10, 20, 30, 40, 50]);
        // Caught up: the file is emptied for reuse, and memory is used again.
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        sp.push(chunk(1, 60, 10));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        sp.close();
        assert_eq!(first_id(&sp.pop().unwrap()), 60);
        assert!(sp.pop().is_none());
        sp.remove_spill();
        assert!(!path.exists(), "the spill file outlived its trace");
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn a_single_message_over_the_bound_stays_in_memory_when_memory_is_empty() {
        let d = dir("big");
        let path = d.join("t.xml.spill");
        let sp = Spool::with_bound(path.clone(), 13);
        sp.push(chunk(1, 0, 100));
        assert!(!path.exists());
        sp.push(chunk(1, 100, 1));
        assert!(path.exists(), "the second message should spill");
        sp.close();
        let got: Vec<u32> = std::iter::from_fn(|| sp.pop())
            .map(|m| first_id(&m))
            .collect();
        assert_eq!(got, [0, 100]);
        sp.remove_spill();
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn without_a_spill_file_the_producer_waits_for_the_reader() {
        // The spill path's directory does not exist: the file cannot be made, so a
        // push over the bound waits until the reader has made room; nothing is lost.
        let d = dir("nospill");
        let path = d.join("missing/t.xml.spill");
        let sp = Spool::with_bound(path.clone(), 13 * 10);
        sp.push(chunk(1, 0, 10));
        let producer = {
            let sp = Arc::clone(&sp);
            std::thread::spawn(move || {
                for k in 1..5 {
                    sp.push(chunk(1, k * 10, 10));
                }
                sp.close();
            })
        };
        let got: Vec<u32> = std::iter::from_fn(|| sp.pop())
            .map(|m| first_id(&m))
            .collect();
        producer.join().unwrap();
        assert_eq!(got, [0, 10, 20, 30, 40]);
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(d);
    }
}
