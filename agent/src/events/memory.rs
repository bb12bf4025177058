//! Memory: allocations by traced code (SampledObjectAlloc), GC start/finish, object frees and class unloads (ObjectFree), and heap figures after each collection.
//!
//! Allocations: `alloc=exact` sets the heap sampling interval to 0, which makes the
//! JVM report every allocation it performs on the Java heap; `alloc=sampled:N` sets
//! it to N bytes. An allocation is recorded when the allocating frame (the top
//! frame) is a method of a traced class. What this sees and misses is documented in
//! docs/ARCHITECTURE.md ("Allocations").
//!
//! GC callbacks run with the world stopped and may not use JNI: they only append to
//! the VM stream. At GC start every thread's buffer is sent first, so each object's
//! objAlloc reaches the sink before the free the collection will report for it.

use crate::buffer;
use crate::clock;
use crate::events::objects::{self, ClassTag, CLASS_TAG_BIT};
use crate::events::{classes, threads};
use crate::jvmti::{Jni, Jvmti};
use crate::log::log_once;
use crate::state::agent;
use crate::sys::jni::{jclass, jobject};
use crate::sys::jvmti::jthread;
use std::sync::{Condvar, Mutex};
use std::time::Duration;
use trace::record::Rec;

/// SampledObjectAlloc: an object was allocated on `thread`.
pub fn on_alloc(
    jvmti: Jvmti,
    jni: Jni,
    thread: jthread,
    object: jobject,
    klass: jclass,
    size: i64,
) {
    let a = agent();
    let Some((method, loc)) = jvmti.top_frame(thread) else {
        return;
    };
    let mid = a.method_table().get(method as usize);
    if mid == 0 {
        return; // allocated by code that is not traced
    }
    let Some(b) = threads::of(jvmti, thread) else {
        return;
    };
    let Some(tag) = classes::class_tag(jvmti, jni, klass) else {
        return;
    };
    let obj = crate::ids::next_object();
    // Arrays name their element class (TPTP's model: isArray="2" with the element's
    // class, `int`, `byte`, ... for primitive arrays); objects their own class. TPTP's
    // importer looks up classIdRef on every objAlloc and invents a class when it is
    // missing, so each of these has its classDef (sent when its mirror was first
    // tagged).
    let cid = tag.named_cid();
    let rec = Rec::Alloc {
        obj,
        cid,
        is_array: tag.code,
        size: size.max(0) as u64,
        mid,
        loc: loc.max(0) as u32,
        t: clock::ticks(),
    };
    b.write(rec.encode().bytes());
    // Only now, with the objAlloc in this thread's buffer, does the object carry its
    // id: the tag says which thread's buffer holds the objAlloc until another stream
    // names the object (see `objects::publish`), so a steal that naming makes always
    // finds it. (Should tagging fail, the object gets another id, with an objDef,
    // when something names it.)
    let _ = jvmti.set_tag(object, objects::alloc_tag(obj, b.tid));
}

/// Makes sampling see every thread's next allocation: called once sampling is in
/// force (VM init, or right after attach), before any traced code allocates.
///
/// Why: HotSpot only posts SampledObjectAlloc from its allocation slow path. It arms
/// a thread-local allocation buffer (TLAB) for sampling by lowering the TLAB's end to
/// the next sample point, and it does that only after a sampled allocation, i.e. one
/// that refilled the TLAB or went outside it (JDK 17:
/// `MemAllocator::Allocation::notify_allocation_jvmti_sampler` and
/// `ThreadLocalAllocBuffer::set_sample_end` in `gc/shared/memAllocator.cpp`; JDK 25
/// sets the sampling point at the same place since JDK-8356372). A TLAB a thread took
/// before sampling was enabled is therefore not armed: every allocation in it takes
/// the fast path, unseen, until the TLAB is full. That is how JDK 17's main thread,
/// which fills its first TLAB during start-up, lost up to ~150 KB of allocations (0
/// of 1,000 small objects) under `alloc=exact`; threads started later begin with no
/// TLAB and were never affected. HotSpot's own heap-sampling tests hit the same and
/// retire the TLABs with a collection (JDK-8264411). So do we: every collector
/// retires all TLABs in its pause (Epsilon, which never collects, is the exception),
/// and each thread's next allocation refills its TLAB, is sampled, and arms it.
///
/// The cost is one collection: at VM init the heap holds only start-up objects, a
/// few milliseconds. At attach it is a full collection of a live heap, so it is done
/// there only for `alloc=exact`, where an unseen allocation would make the counts
/// wrong; under `alloc=sampled:N` a thread's first sample merely comes later.
pub fn arm_sampling(jvmti: Jvmti) {
    if let Err(e) = jvmti.force_garbage_collection() {
        log_once(&format!(
            "{e}; allocations in the thread-local buffers taken before tracing began may be missed"
        ));
    }
}

/// Generation counter of finished collections, for the heap-figures thread.
static GC_DONE: Mutex<u64> = Mutex::new(0);
static GC_DONE_CV: Condvar = Condvar::new();

/// GarbageCollectionStart (world stopped, no JNI).
pub fn on_gc_start() {
    buffer::steal_all();
    buffer::vm_write(Rec::GcStart { t: clock::ticks() }.encode().bytes());
    buffer::vm_flush();
}

/// GarbageCollectionFinish (world stopped, no JNI).
pub fn on_gc_finish() {
    buffer::vm_write(Rec::GcFinish { t: clock::ticks() }.encode().bytes());
    if let Ok(mut g) = GC_DONE.lock() {
        *g += 1;
        GC_DONE_CV.notify_all();
    }
}

/// ObjectFree: a tagged object (or class mirror) was collected. No JNI here.
pub fn on_object_free(tag: i64) {
    let t = clock::ticks();
    if tag & CLASS_TAG_BIT != 0 {
        // A class (array classes included: each has its classDef) is unloaded.
        let c = ClassTag::decode(tag);
        if c.cid != 0 {
            classes::forget(c.cid);
            classes::class_unloaded(c.cid);
        }
    } else {
        let obj = objects::object_id(tag);
        if obj != 0 {
            buffer::vm_write(Rec::ObjFree { obj, t }.encode().bytes());
        }
    }
}

/// Starts the thread that reads the heap figures after each collection (JNI is not
/// allowed in GC callbacks) and sends the VM stream to the sink. It ends, detached
/// from the JVM, at VM death ([`wake_heap_thread`]).
pub fn start_heap_thread() {
    let started = threads::spawn_attached(c"jtrace-heap", |jni| {
        let mut seen = 0;
        loop {
            let Ok(g) = GC_DONE.lock() else { return };
            let (g, _) = GC_DONE_CV
                .wait_timeout_while(g, Duration::from_millis(200), |g| {
                    *g == seen && !crate::state::vm_dead()
                })
                .unwrap_or_else(|e| e.into_inner());
            let now = *g;
            drop(g);
            // Between traces the thread waits for the next one; it ends with the VM.
            if crate::state::vm_dead() {
                return;
            }
            if buffer::is_stopping() {
                seen = now;
                continue;
            }
            if now != seen {
                seen = now;
                if let Some((total, used)) = heap_figures(jni) {
                    buffer::vm_write(Rec::Heap { total, used }.encode().bytes());
                }
            }
            buffer::vm_flush();
        }
    });
    if !started {
        log_once("cannot start the heap thread; gcFinish has no heap figures");
    }
}

/// Wakes the heap thread at VM death, so that it detaches from the JVM and ends.
pub fn wake_heap_thread() {
    // Taking the lock orders the wake-up after the thread's last look at vm_dead().
    drop(GC_DONE.lock());
    GC_DONE_CV.notify_all();
}

/// (total, used) bytes of the Java heap, from `Runtime`.
fn heap_figures(jni: Jni) -> Option<(u64, u64)> {
    jni.with_local_frame(8, || {
        let rt = jni.runtime();
        if rt.is_null() {
            return None;
        }
        let total = jni.call_long(rt, c"java/lang/Runtime", c"totalMemory")?;
        let free = jni.call_long(rt, c"java/lang/Runtime", c"freeMemory")?;
        Some((total as u64, (total - free).max(0) as u64))
    })
}
