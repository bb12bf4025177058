//! Renderer side of the monitor family: contended enter/entered, wait/waited (with the time actually waited).

use super::{Output, Renderer};

impl<O: Output> Renderer<O> {
    /// A contended enter whose owner is not known yet: held until its MonOwner.
    pub(super) fn mon_enter(&mut self, tid: u32, obj: u64, t: u64) {
        let ns = self.stamp(tid, t);
        self.pending_enters.push((tid, obj, ns));
    }

    /// The owner of `tid`'s held-back contended enter: write it, then any thread
    /// ends that waited for it.
    pub(super) fn mon_owner(&mut self, tid: u32, owner: u32) {
        let Some(i) = self.pending_enters.iter().position(|p| p.0 == tid) else {
            return;
        };
        let (_, obj, ns) = self.pending_enters.remove(i);
        self.write_mon_enter(tid, obj, owner, ns);
        if self.pending_enters.is_empty() {
            self.release_thread_ends();
        }
    }

    pub(super) fn write_mon_enter(&mut self, tid: u32, obj: u64, owner: u32, ns: u64) {
        let owner = self.known_owner(owner);
        self.write_mon_enter_of(tid, obj, owner, ns);
    }

    /// `owner`, or 0 (unknown) rather than an id that is no longer defined.
    pub(super) fn known_owner(&self, owner: u32) -> u32 {
        if self.threads.get(owner).is_some_and(|s| !s.ended) {
            owner
        } else {
            0
        }
    }

    /// A monContendedEnter naming `owner` as it is (see [`Self::known_owner`]).
    pub(super) fn write_mon_enter_of(&mut self, tid: u32, obj: u64, owner: u32, ns: u64) {
        let o = &mut self.out;
        o.open("monContendedEnter");
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.num("objIdRef", obj);
        o.num("threadOwner", owner as u64);
        o.close();
    }

    pub(super) fn mon_simple(&mut self, tid: u32, name: &str, obj: u64, t: u64) {
        let ns = self.stamp(tid, t);
        let o = &mut self.out;
        o.open(name);
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.num("objIdRef", obj);
        o.close();
    }

    pub(super) fn mon_wait(&mut self, tid: u32, obj: u64, timeout_ms: u64, t: u64) {
        let ns = self.stamp(tid, t);
        if let Some(ts) = self.threads.get_mut(tid) {
            ts.wait_ns = Some(ns);
        }
        self.write_mon_wait(tid, obj, timeout_ms, ns);
    }

    pub(super) fn write_mon_wait(&mut self, tid: u32, obj: u64, timeout_ms: u64, ns: u64) {
        let o = &mut self.out;
        o.open("monWait");
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.num("objIdRef", obj);
        o.num("timeout", timeout_ms);
        o.close();
    }

    pub(super) fn mon_waited(&mut self, tid: u32, obj: u64, timed_out: bool, t: u64) {
        let ns = self.stamp(tid, t);
        let began = self.threads.get_mut(tid).and_then(|s| s.wait_ns.take());
        // A wait that began before the thread could be identified (HotSpot may post
        // MonitorWait for a thread not yet started as far as JVMTI is concerned) has
        // no monWait; its end is not written alone.
        let Some(began) = began else {
            return;
        };
        let waited_ms = ns.saturating_sub(began) / 1_000_000;
        let o = &mut self.out;
        o.open("monWaited");
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.num("objIdRef", obj);
        o.num("timeout", waited_ms);
        o.boolean("isTimedOut", timed_out);
        o.close();
    }
}
