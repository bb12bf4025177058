//! Per-thread record buffers: lock-free appends on the owning thread, hand-off of full chunks to the sink, and the stop protocol.
//!
//! Each Java thread owns a `ThreadBuf` (leaked on purpose: a late callback may still
//! touch it after VM death). Appending a record is: mark busy, check the stop flag,
//! copy the bytes into the current chunk, clear busy. No lock, no allocation, no
//! system call; a full chunk goes to the sink over a bounded channel (the only
//! place a producer can wait, which is what makes the default lossless).
//!
//! Stop protocol (`stop`) and steals (`steal_all`, at GC start and before another
//! stream first names an object allocated under observation): the other side sets
//! a flag (STOPPING, or the buffer's `steal`), then waits until the buffer is not
//! busy; from then on the owner cannot write (it sees the flag), so the chunk may be
//! taken. This Dekker-style hand-shake needs store-load ordering on both sides. On
//! Linux with membarrier(2) the cost is moved entirely to the rare side: the owner
//! sets `busy` with a plain store and a compiler fence, and the stopper/stealer
//! issues one expedited membarrier, a full barrier on every CPU running this process,
//! between setting its flag and reading `busy` (the "asymmetric fence" of liburcu
//! and Folly). Without membarrier both sides use sequentially consistent atomics
//! (an `xchg` per record on x86). Steals are what keeps each allocation ahead of the
//! free that the GC will report for it.
//!
//! In a process that already has threads (a live-phase load: `jtrace attach`, the
//! `-javaagent` jar) registering for membarrier waits out an RCU grace period (8 to
//! 22 ms here), and a process cannot exit while one of its threads waits in the
//! kernel: so it is done on a thread of its own, and only once the program has run
//! `REGISTER_AFTER` (a short program never needs it, and its exit never waits for
//! it), while recording starts with the symmetric protocol. The switch is made under SEIZING, which every stealer and
//! stopper holds while it works, and the owners' symmetric path also honours `steal`:
//! so a stealer that reads the symmetric mode finds every owner symmetric, and one
//! that reads the asymmetric mode is correct with owners of either kind (an `xchg`
//! is a full fence, as the owner side of the asymmetric fence needs).

use crate::jvmti::Jvmti;
use crate::sys::jvmti::jthread;
use crate::window::{self, Fate, Open};
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{compiler_fence, AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use trace::defs::{Def, Msg};
use trace::record::{
    MAX_RECORD, TAG_CATCH, TAG_ENTRY, TAG_EXIT, TAG_EXIT_EXC, TAG_INIT_DONE, TAG_LINE,
    TAG_THREAD_END,
};

/// Size of every chunk after a thread's first.
pub const CHUNK: usize = 64 * 1024;
/// A thread's first chunk is small, so thousands of quiet (or parked virtual)
/// threads cost little; a thread that fills it gets 8x larger ones up to CHUNK.
pub const FIRST_CHUNK: usize = 1024;
/// Chunks queued for the sink at most; producers wait beyond that.
pub const QUEUE: usize = 256;
/// Recycled chunks kept for reuse.
const POOL_MAX: usize = 64;

static STOPPING: AtomicBool = AtomicBool::new(false);
/// membarrier(2) is registered: owners may take `busy` without a locked instruction.
static ASYMMETRIC: AtomicBool = AtomicBool::new(false);
/// How long a live-phase load runs on the symmetric protocol before it registers.
const REGISTER_AFTER: Duration = Duration::from_millis(100);
/// One stopper/stealer at a time.
static SEIZING: Mutex<()> = Mutex::new(());
static THREADS: Mutex<Vec<&'static ThreadBuf>> = Mutex::new(Vec::new());
static POOL: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
/// Ended buffers still in THREADS.
static ENDED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static CURRENT: Cell<Option<&'static ThreadBuf>> = const { Cell::new(None) };
}

/// One thread's buffer.
pub struct ThreadBuf {
    pub tid: u32,
    busy: AtomicBool,
    /// A stealer wants the chunk: the owner must stay out until it is cleared.
    steal: AtomicBool,
    closed: AtomicBool,
    chunk: UnsafeCell<Vec<u8>>,
    /// The thread's open window (`window=`), under the same rules as `chunk`.
    window: UnsafeCell<Option<Open>>,
    /// Whether `window` holds one: written by the owner, read by its probes before
    /// they read the clock.
    in_window: AtomicBool,
}

// SAFETY: `chunk` and `window` are only touched by the owning thread while `busy` is set, or by the
// stopper after STOPPING is set and `busy` was seen clear (see the module docs), or
// by `close_current` on the owning thread. These never overlap.
unsafe impl Sync for ThreadBuf {}

/// Chooses the cheap owner-side protocol if the kernel offers membarrier(2): at once
/// at `Agent_OnLoad` (one thread: the registration is free), on a thread of its own
/// in a live-phase load, and only once the program has run `REGISTER_AFTER` (see the
/// module docs).
pub fn init(live: bool) {
    if !live {
        register_asymmetric();
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("jtrace-membarrier".into())
        .spawn(|| {
            if crate::exiting::wait(REGISTER_AFTER) {
                return;
            }
            // Panic-safe: a panic here would only leave the symmetric protocol.
            let _ = std::panic::catch_unwind(register_asymmetric);
        });
    // Without the thread the symmetric protocol stays: correct, a little slower.
    drop(spawned);
}

fn register_asymmetric() {
    if crate::sys::os::membarrier_register() {
        let _one = SEIZING.lock();
        ASYMMETRIC.store(true, Ordering::SeqCst);
    }
}

/// Makes every owner's earlier `busy` store visible, or its later flag loads see
/// the flags set before this call.
fn heavy_barrier() {
    // Once registered the call cannot fail (membarrier(2)); if it ever did, a
    // scheduler tick later every CPU has passed a barrier anyway: wait one out.
    if ASYMMETRIC.load(Ordering::Relaxed) && !crate::sys::os::membarrier() {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Recording begins (again): producers may write. The previous `stop` took every
/// chunk it could; what an owner it could not wait for wrote afterwards (counted
/// lost there) is discarded first, so nothing of an earlier trace opens this one.
pub fn resume() {
    discard_leftovers();
    STOPPING.store(false, Ordering::SeqCst);
}

/// Empties every buffer and the VM stream while STOPPING is still set. Under
/// STOPPING an owner touches its chunk only inside a write begun before the stop,
/// so a buffer seen not busy here stays untouched until `resume` clears the flag.
/// An owner still inside such a write now (the stop waited for it already) keeps
/// its chunk: never the case in any run seen, and said here so it is not a secret.
fn discard_leftovers() {
    let _one = SEIZING.lock();
    let threads: Vec<&'static ThreadBuf> = THREADS.lock().map(|t| t.clone()).unwrap_or_default();
    for b in threads {
        if b.busy.load(Ordering::SeqCst) {
            continue;
        }
        // SAFETY: STOPPING has been set since the last stop (whose barrier made it
        // visible to every owner) and `busy` was seen clear, so the owner will not
        // touch the chunk before STOPPING is cleared after this function.
        let chunk = unsafe { &mut *b.chunk.get() };
        chunk.clear();
        // SAFETY: as for the chunk.
        unsafe { *b.window.get() = None };
        b.in_window.store(false, Ordering::Relaxed);
    }
    if let Ok(mut v) = VM_STREAM.lock() {
        v.clear();
    }
    window::reset_gate();
}

/// Loaded idle (`start=off`, `delay=`): nothing is recorded until `resume`.
pub fn set_idle() {
    STOPPING.store(true, Ordering::SeqCst);
}

/// Sends a message to the current trace's sink, waiting while its queue is full.
/// Records sent while no trace records go nowhere (the next trace re-defines what
/// it needs); records its sink refused count as the trace's lost bytes.
pub fn send(msg: Msg) {
    // The trace, not the slot's lock, is held while waiting for room: a start that
    // replaces it never waits behind a full queue.
    let Some(cur) = crate::state::current() else {
        return;
    };
    let lost = match &msg {
        Msg::Chunk { data, .. } => data.len() as u64,
        Msg::Chunks(v) => v.iter().map(|(_, d)| d.len() as u64).sum(),
        _ => 0,
    };
    if !cur.send(msg) {
        cur.add_lost(lost);
    }
}

/// Bytes the current trace could not deliver (0 while idle).
pub fn lost_bytes() -> u64 {
    crate::state::current().map_or(0, |c| c.lost_bytes())
}

pub fn is_stopping() -> bool {
    STOPPING.load(Ordering::Relaxed)
}

/// Gives a processed chunk back for reuse.
pub fn recycle(mut chunk: Vec<u8>) {
    if chunk.capacity() != CHUNK {
        return;
    }
    chunk.clear();
    if let Ok(mut p) = POOL.lock() {
        if p.len() < POOL_MAX {
            p.push(chunk);
        }
    }
}

fn fresh_chunk() -> Vec<u8> {
    if let Some(c) = POOL.lock().ok().and_then(|mut p| p.pop()) {
        return c;
    }
    Vec::with_capacity(CHUNK)
}

/// Creates and registers the buffer of a thread (not necessarily the current one).
pub fn register(tid: u32) -> &'static ThreadBuf {
    let buf: &'static ThreadBuf = Box::leak(Box::new(ThreadBuf {
        tid,
        busy: AtomicBool::new(false),
        steal: AtomicBool::new(false),
        closed: AtomicBool::new(false),
        chunk: UnsafeCell::new(Vec::new()),
        window: UnsafeCell::new(None),
        in_window: AtomicBool::new(false),
    }));
    if let Ok(mut t) = THREADS.lock() {
        t.push(buf);
    }
    buf
}

/// A buffer as an opaque pointer, for JVMTI thread-local storage.
fn to_raw(buf: &'static ThreadBuf) -> *const std::ffi::c_void {
    buf as *const ThreadBuf as *const std::ffi::c_void
}

/// Back from JVMTI thread-local storage.
///
/// # Safety
/// `p` must come from `to_raw` (ThreadBufs are leaked, so it stays valid).
unsafe fn from_raw(p: *const std::ffi::c_void) -> &'static ThreadBuf {
    // SAFETY: the caller passes a pointer made by `to_raw`, and ThreadBufs are
    // leaked, so they live forever.
    unsafe { &*(p as *const ThreadBuf) }
}

/// The buffer in `thread`'s JVMTI thread-local slot (None while it has none).
pub fn of_thread(
    jvmti: Jvmti,
    thread: jthread,
) -> crate::jvmti::Result<Option<&'static ThreadBuf>> {
    let p = jvmti.thread_local(thread)?;
    // SAFETY: the slot holds null or a pointer `set_of_thread` stored, made by
    // `to_raw` (`Jvmti::set_thread_local`'s contract).
    Ok((!p.is_null()).then(|| unsafe { from_raw(p) }))
}

/// Stores `buf` in `thread`'s JVMTI thread-local slot, for `of_thread`.
pub fn set_of_thread(
    jvmti: Jvmti,
    thread: jthread,
    buf: &'static ThreadBuf,
) -> crate::jvmti::Result<()> {
    // SAFETY: a pointer made by `to_raw`, as the slot's reader expects.
    unsafe { jvmti.set_thread_local(thread, to_raw(buf)) }
}

/// Makes an existing buffer the current thread's (registered elsewhere).
pub fn adopt(buf: &'static ThreadBuf) {
    CURRENT.with(|c| c.set(Some(buf)));
}

/// Sets (or clears) the current OS thread's buffer: virtual threads switch it.
pub fn set_current(buf: Option<&'static ThreadBuf>) {
    CURRENT.with(|c| c.set(buf));
}

/// The current thread's buffer, if it has one.
#[inline(always)]
pub fn current() -> Option<&'static ThreadBuf> {
    CURRENT.with(|c| c.get())
}

impl ThreadBuf {
    /// Sends the chunk (if not empty), leaving an unallocated one: a thread that
    /// stops here (ended, or flushed for ordering) keeps no memory.
    fn hand_off(&self, chunk: &mut Vec<u8>) {
        if chunk.is_empty() {
            return;
        }
        let data = std::mem::take(chunk);
        send(Msg::Chunk {
            tid: self.tid,
            data,
        });
    }

    /// Marks the buffer busy (the owner is about to touch its chunk). Waits while a
    /// stealer holds it.
    #[inline(always)]
    fn acquire(&self) {
        if ASYMMETRIC.load(Ordering::Relaxed) {
            loop {
                self.busy.store(true, Ordering::Relaxed);
                // The stealer's membarrier supplies the hardware fence.
                compiler_fence(Ordering::SeqCst);
                if !self.steal.load(Ordering::Relaxed) {
                    return;
                }
                self.busy.store(false, Ordering::Release);
                while self.steal.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
            }
        } else {
            loop {
                while self.busy.swap(true, Ordering::SeqCst) {
                    std::hint::spin_loop();
                }
                // A stealer that read the asymmetric mode (switched on while this
                // owner was symmetric) takes the chunk by `steal`, not by `busy`.
                if !self.steal.load(Ordering::SeqCst) {
                    return;
                }
                self.busy.store(false, Ordering::Release);
                while self.steal.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
            }
        }
    }

    /// Appends one record. Returns false when tracing has stopped or the thread ended.
    #[inline(always)]
    pub fn write(&self, rec: &[u8]) -> bool {
        debug_assert!(rec.len() <= MAX_RECORD);
        self.acquire();
        if STOPPING.load(Ordering::Relaxed) || self.closed.load(Ordering::Relaxed) {
            self.busy.store(false, Ordering::Release);
            return false;
        }
        // SAFETY: we are the owner and `busy` is set (see `unsafe impl Sync`).
        let chunk = unsafe { &mut *self.chunk.get() };
        if window::on() {
            // SAFETY: as for the chunk.
            let slot = unsafe { &mut *self.window.get() };
            self.write_windowed(chunk, slot, rec);
            self.busy.store(false, Ordering::Release);
            return true;
        }
        if chunk.capacity() - chunk.len() < rec.len() {
            self.next_chunk(chunk);
        }
        chunk.extend_from_slice(rec);
        self.busy.store(false, Ordering::Release);
        true
    }

    /// Sends a full chunk and gives the thread the next: a full chunk means a busy
    /// thread, so the next one is larger (8x, up to CHUNK). A thread starting (or
    /// restarting after a flush) begins small.
    fn next_chunk(&self, chunk: &mut Vec<u8>) {
        let cap = chunk.capacity();
        self.hand_off(chunk);
        *chunk = if cap >= CHUNK / 8 {
            fresh_chunk()
        } else if cap == 0 {
            Vec::with_capacity(FIRST_CHUNK)
        } else {
            Vec::with_capacity(cap * 8)
        };
    }

    /// A record under `window=` (busy held): written only inside a window, held while
    /// the window's fate is open, the window decided at its end (see `window.rs`).
    #[inline(never)]
    fn write_windowed(&self, chunk: &mut Vec<u8>, slot: &mut Option<Open>, rec: &[u8]) {
        let tag = rec[0];
        let call = matches!(tag, TAG_ENTRY | TAG_EXIT | TAG_EXIT_EXC);
        let mid = if call { le_u32(&rec[1..5]) } else { 0 };
        let tick = match tag {
            TAG_ENTRY | TAG_EXIT => Some(le_u64(&rec[5..13])),
            TAG_EXIT_EXC => rec.get(13..21).map(le_u64),
            _ => None,
        };
        let bounds = call && window::is_window(mid);
        let w = match slot {
            Some(w) if w.test.is_some() => {
                // A test's window: only the frames entered inside it are its own.
                match tag {
                    TAG_ENTRY => w.depth += 1,
                    TAG_EXIT | TAG_EXIT_EXC if w.depth == 0 => return,
                    TAG_EXIT | TAG_EXIT_EXC => w.depth -= 1,
                    TAG_CATCH | TAG_LINE if w.depth == 0 => return,
                    _ => {}
                }
                w
            }
            Some(w) => {
                if bounds {
                    if tag == TAG_ENTRY {
                        w.depth += 1;
                    } else {
                        w.depth -= 1;
                    }
                }
                w
            }
            None if bounds && tag == TAG_ENTRY => {
                self.begin_window(chunk, slot, window::open(mid, tick.unwrap_or(0)))
            }
            // A thread's end and the VM's init are the thread's, not a call's.
            None if matches!(tag, TAG_THREAD_END | TAG_INIT_DONE) => {
                if chunk.capacity() - chunk.len() < rec.len() {
                    self.next_chunk(chunk);
                }
                chunk.extend_from_slice(rec);
                return;
            }
            None => return,
        };
        if tag == TAG_ENTRY {
            w.calls += 1;
        }
        if w.recording() {
            if chunk.capacity() - chunk.len() < rec.len() {
                if w.holding() {
                    let data = std::mem::replace(chunk, fresh_chunk());
                    if !data.is_empty() {
                        w.held_bytes += data.len();
                        w.held.push(data);
                    }
                } else {
                    self.next_chunk(chunk);
                }
            }
            chunk.extend_from_slice(rec);
            if w.holding() {
                if tick.is_some_and(|t| t >= w.over_at) {
                    w.fate = Fate::Kept(window::BY_OVER);
                    self.announce(w);
                } else if w.held_bytes + chunk.len() > w.max_bytes() {
                    w.fate = Fate::Dropped;
                    w.overflowed = true;
                    w.leave();
                    discard(chunk, w);
                }
            }
        }
        if w.depth == 0 && w.test.is_none() {
            let fate = w.decide(tag == TAG_EXIT_EXC, tick.unwrap_or(0));
            self.end_window(chunk, slot, fate, tick.unwrap_or(0), "");
        }
    }

    /// The thread's window `w` opens (it had none): what came before (a thread's init
    /// record) is sent first, not the window's; a window kept at once is announced.
    fn begin_window<'s>(
        &self,
        chunk: &mut Vec<u8>,
        slot: &'s mut Option<Open>,
        w: Open,
    ) -> &'s mut Open {
        self.hand_off(chunk);
        self.in_window.store(true, Ordering::Relaxed);
        let w = slot.insert(w);
        w.enter();
        if matches!(w.fate, Fate::Kept(_)) {
            self.announce(w);
        }
        w
    }

    /// The thread's window ends with `fate` at tick `t` (`outcome` as for `settle`;
    /// "open": the trace or the thread closed inside it): settled, counted, gone.
    fn end_window(
        &self,
        chunk: &mut Vec<u8>,
        slot: &mut Option<Open>,
        fate: Fate,
        t: u64,
        outcome: &str,
    ) {
        let Some(mut w) = slot.take() else { return };
        self.in_window.store(false, Ordering::Relaxed);
        self.settle(chunk, &mut w, fate, t, outcome);
        window::count(fate, w.overflowed, outcome == "open");
        w.leave();
    }

    /// A test mark on this (the current) thread with `keep=failed`: its start opens the
    /// test's window (unless one is open), its end decides it (`failed`: the test
    /// failed) and closes it.
    pub fn test_mark(&self, start: bool, id: &str, failed: bool) {
        self.acquire();
        if !STOPPING.load(Ordering::Relaxed) && !self.closed.load(Ordering::Relaxed) {
            // SAFETY: we are the owner and `busy` is set (see `unsafe impl Sync`).
            let (chunk, slot) = unsafe { (&mut *self.chunk.get(), &mut *self.window.get()) };
            let now = crate::clock::ticks();
            if start {
                if slot.is_none() {
                    self.begin_window(chunk, slot, window::open_test(id, now));
                }
            } else if let Some(w) = slot.as_mut().filter(|w| w.test.as_deref() == Some(id)) {
                let fate = w.decide_test(failed, now);
                self.end_window(chunk, slot, fate, now, "");
            }
        }
        self.busy.store(false, Ordering::Release);
    }

    /// Whether a probe of method `mid` may record now: always without `window=`; with
    /// it, inside a window or at a window method (read before the clock, so a call
    /// outside windows costs no tick).
    #[inline(always)]
    pub fn may_record(&self, mid: u32) -> bool {
        !window::on() || self.in_window.load(Ordering::Relaxed) || window::is_window(mid)
    }

    /// A window's fate became Kept: its opening tag and the records held so far go to
    /// the sink, in this thread's order.
    fn announce(&self, w: &mut Open) {
        w.announced = true;
        send(Msg::Defs(vec![Def::Tag(w.start_tag(self.tid))]));
        for data in w.held.drain(..) {
            send(Msg::Chunk {
                tid: self.tid,
                data,
            });
        }
        w.held_bytes = 0;
    }

    /// A window ends (at its exit at tick `t`, or open at a close: `outcome` "open";
    /// "" derives it from the fate's reasons): kept, its records and its closing tag
    /// are sent; dropped, they are discarded.
    fn settle(&self, chunk: &mut Vec<u8>, w: &mut Open, fate: Fate, t: u64, outcome: &str) {
        match fate {
            Fate::Kept(_) => {
                if !w.announced {
                    self.announce(w);
                }
                self.hand_off(chunk);
                let outcome = match outcome {
                    "" if w.threw => "threw",
                    "" => "returned",
                    o => o,
                };
                send(Msg::Defs(vec![Def::Tag(w.end_tag(self.tid, t, outcome))]));
            }
            _ => discard(chunk, w),
        }
    }

    /// Ends an open window at a close (of the trace, or of its thread) at tick `now`.
    fn close_window(&self, chunk: &mut Vec<u8>, slot: &mut Option<Open>, now: u64) {
        if let Some(fate) = slot.as_mut().map(|w| w.decide_open(now)) {
            self.end_window(chunk, slot, fate, now, "open");
        }
    }

    /// Whether its records are held back (an open window whose fate is open).
    fn holding(&self) -> bool {
        // SAFETY: called by the owner with `busy` set, or by a stealer that has seen
        // `busy` clear with its flag set (as for the chunk).
        unsafe { &*self.window.get() }
            .as_ref()
            .is_some_and(Open::holding)
    }

    /// Sends what is buffered now (used before another thread continues this one's stream).
    pub fn flush(&self) {
        self.acquire();
        if !STOPPING.load(Ordering::SeqCst) && !self.holding() {
            // SAFETY: owner, busy set.
            let chunk = unsafe { &mut *self.chunk.get() };
            self.hand_off(chunk);
        }
        self.busy.store(false, Ordering::Release);
    }
}

/// Ends the current thread's stream: its last record is already written; send the
/// rest and detach the buffer so nothing more is recorded for it.
pub fn close_current() {
    let Some(b) = current() else { return };
    if window::on() {
        b.acquire();
        if !STOPPING.load(Ordering::SeqCst) {
            // SAFETY: owner, busy set.
            let (chunk, slot) = unsafe { (&mut *b.chunk.get(), &mut *b.window.get()) };
            b.close_window(chunk, slot, crate::clock::ticks());
        }
        b.busy.store(false, Ordering::Release);
    }
    b.flush();
    b.closed.store(true, Ordering::SeqCst);
    CURRENT.with(|c| c.set(None));
    // Ended buffers leave the registry in batches: removing each one at once would
    // cost O(threads) per thread end (quadratic with many short virtual threads).
    let ended = ENDED.fetch_add(1, Ordering::Relaxed) + 1;
    if let Ok(mut t) = THREADS.lock() {
        if ended as usize * 2 > t.len() {
            t.retain(|x| !x.closed.load(Ordering::Relaxed));
            ENDED.store(0, Ordering::Relaxed);
        }
    }
}

/// Sends every thread's buffered records to the sink now (at GC start, so that
/// every allocation reaches the sink before the GC can report its object freed;
/// before another stream first names an object allocated under observation).
/// Owners keep running: each buffer is taken under its busy flag. Every owner stays
/// out until the stolen chunks are on the sink's queue: an owner let go earlier
/// could hand off its next chunk (full, flushed, or at thread end) ahead of the
/// stolen one, and its stream would reach the sink out of order.
pub fn steal_all() {
    let _one = SEIZING.lock();
    let threads: Vec<&'static ThreadBuf> = THREADS.lock().map(|t| t.clone()).unwrap_or_default();
    // All stolen chunks go in one message: one wake-up of the sink per steal.
    let mut batch = Vec::new();
    if ASYMMETRIC.load(Ordering::Relaxed) {
        for b in &threads {
            b.steal.store(true, Ordering::SeqCst);
        }
        heavy_barrier();
        for b in &threads {
            while b.busy.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            take(b, &mut batch);
        }
        send_batch(batch);
        for b in &threads {
            b.steal.store(false, Ordering::Release);
        }
    } else {
        for b in &threads {
            while b.busy.swap(true, Ordering::SeqCst) {
                std::hint::spin_loop();
            }
            take(b, &mut batch);
        }
        send_batch(batch);
        for b in &threads {
            b.busy.store(false, Ordering::Release);
        }
    }
}

fn send_batch(batch: Vec<(u32, Vec<u8>)>) {
    if !batch.is_empty() {
        send(Msg::Chunks(batch));
    }
}

/// Sends a buffer's records; the caller has made sure its owner stays out.
fn take(b: &ThreadBuf, into: &mut Vec<(u32, Vec<u8>)>) {
    // A window whose fate is open keeps its records (nothing stolen names them: no
    // allocations are recorded under `window=`).
    if !STOPPING.load(Ordering::SeqCst) && !b.holding() {
        // SAFETY: the owner is not touching the chunk (see the callers).
        let chunk = unsafe { &mut *b.chunk.get() };
        if !chunk.is_empty() {
            into.push((b.tid, std::mem::take(chunk)));
        }
    }
}

/// A dropped window's records: its chunk emptied (kept for reuse), its held chunks
/// recycled.
fn discard(chunk: &mut Vec<u8>, w: &mut Open) {
    chunk.clear();
    for c in w.held.drain(..) {
        recycle(c);
    }
    w.held_bytes = 0;
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b.try_into().unwrap_or_default())
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap_or_default())
}

/// Records of the VM itself (GC, object frees, class unloads): no Java thread.
static VM_STREAM: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Sends definitions made on the current thread, after that thread's earlier records:
/// its buffer is flushed first, so that in the document a definition stamped with
/// this thread's id and time never precedes the thread's earlier events.
pub fn send_defs(defs: Vec<trace::defs::Def>) {
    if let Some(b) = current() {
        b.flush();
    }
    send(Msg::Defs(defs));
}

/// Appends a record to the VM stream (any thread, including GC callbacks: no JNI).
pub fn vm_write(rec: &[u8]) {
    if STOPPING.load(Ordering::Relaxed) {
        return;
    }
    if let Ok(mut v) = VM_STREAM.lock() {
        v.extend_from_slice(rec);
        if v.len() >= CHUNK {
            let data = std::mem::take(&mut *v);
            drop(v);
            send(Msg::Chunk { tid: 0, data });
        }
    }
}

/// Sends the VM stream's records to the sink.
pub fn vm_flush() {
    let data = match VM_STREAM.lock() {
        Ok(mut v) if !v.is_empty() => std::mem::take(&mut *v),
        _ => return,
    };
    send(Msg::Chunk { tid: 0, data });
}

/// Stops all recording and sends every thread's remaining records to the sink.
/// Waits at most `patience` for threads caught in the middle of a write.
pub fn stop(patience: Duration) {
    let _one = SEIZING.lock();
    STOPPING.store(true, Ordering::SeqCst);
    heavy_barrier();
    let threads: Vec<&'static ThreadBuf> = THREADS.lock().map(|t| t.clone()).unwrap_or_default();
    let deadline = Instant::now() + patience;
    for b in threads {
        while b.busy.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::yield_now();
        }
        if b.busy.load(Ordering::SeqCst) {
            // The owner is blocked inside a write (it cannot be waiting on us): its
            // chunk is not ours to read. Counted as lost and reported.
            if let Some(cur) = crate::state::current() {
                cur.add_lost(1);
            }
            continue;
        }
        // SAFETY: STOPPING is set and `busy` was seen clear afterwards, so the owner
        // will never touch the chunk (or its window) again.
        let (chunk, slot) = unsafe { (&mut *b.chunk.get(), &mut *b.window.get()) };
        b.close_window(chunk, slot, crate::clock::ticks());
        if !chunk.is_empty() {
            let data = std::mem::take(chunk);
            send(Msg::Chunk { tid: b.tid, data });
        }
    }
    // Last: what the VM reported (frees) refers to what the threads recorded.
    vm_flush();
}

#[cfg(test)]
#[path = "buffer_tests.rs"]
mod tests;
