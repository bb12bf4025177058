//! Monitors: contended enter/entered and wait/waited, with the monitor object's id and the owner's thread id.

use crate::clock;
use crate::events::{objects, threads};
use crate::jvmti::Jvmti;
use crate::sys::jni::jobject;
use crate::sys::jvmti::jthread;
use trace::record::Rec;

/// The agent's id of a thread, 0 if it has none. (Through the Thread object's tag:
/// JVMTI thread-local storage of another thread is not readable while it runs.)
fn thread_id(jvmti: Jvmti, thread: jthread) -> u32 {
    if thread.is_null() {
        return 0;
    }
    threads::id_of_thread_object(jvmti, thread)
}

pub fn contended_enter(jvmti: Jvmti, thread: jthread, object: jobject) {
    let t = clock::ticks();
    let Some(b) = threads::of(jvmti, thread) else {
        return;
    };
    let obj = objects::id_of(jvmti, object, b.tid);
    // Sent at once, before the (slow) owner lookup: from the moment the sink has
    // it, it holds back every threadEnd until the owner is known, so the owner's id
    // is still live when monContendedEnter names it.
    b.write(Rec::MonEnter { obj, t }.encode().bytes());
    b.flush();
    let owner = jvmti
        .monitor_owner(object)
        .map(|o| {
            let id = thread_id(jvmti, o);
            if let Some(jni) = crate::jvmti::jni_of_current() {
                jni.delete_local(o);
            }
            id
        })
        .unwrap_or(0);
    b.write(Rec::MonOwner { owner }.encode().bytes());
    b.flush();
}

pub fn contended_entered(jvmti: Jvmti, thread: jthread, object: jobject) {
    if let Some(b) = threads::of(jvmti, thread) {
        let obj = objects::id_of(jvmti, object, b.tid);
        let t = clock::ticks();
        b.write(Rec::MonEntered { obj, t }.encode().bytes());
    }
}

pub fn wait(jvmti: Jvmti, thread: jthread, object: jobject, timeout_ms: i64) {
    if let Some(b) = threads::of(jvmti, thread) {
        let obj = objects::id_of(jvmti, object, b.tid);
        let (timeout, t) = (timeout_ms.max(0) as u64, clock::ticks());
        b.write(Rec::MonWait { obj, timeout, t }.encode().bytes());
    }
}

pub fn waited(jvmti: Jvmti, thread: jthread, object: jobject, timed_out: bool) {
    if let Some(b) = threads::of(jvmti, thread) {
        let obj = objects::id_of(jvmti, object, b.tid);
        let t = clock::ticks();
        b.write(Rec::MonWaited { obj, timed_out, t }.encode().bytes());
    }
}
