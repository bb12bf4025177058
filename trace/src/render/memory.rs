//! Renderer side of the memory families: objAlloc/objDef, GC brackets with heap figures, objFree and classUnload.
//!
//! Frees and unloads reach the renderer after their collection finished (the VM posts
//! ObjectFree from its service thread), so a collection's bracket stays open, with its
//! gcFinish held back, until the next gcStart or the end of the trace. Every objFree
//! and classUnload is therefore written between a gcStart and its gcFinish.

use super::{Output, Renderer, NO_UNIT};
use crate::defs::ObjDef;

/// `threadName` of the collector's thread (no Java thread has this name by accident:
/// HotSpot's own GC threads are "VM Thread", "GC Thread#0", "G1 Conc#0", ...).
pub const GC_THREAD_NAME: &str = "jtrace: garbage collector";

/// `threadName` of the thread that stands for the virtual machine where a class is
/// defined before its loading thread can be named.
pub const VM_THREAD_NAME: &str = "jtrace: virtual machine";

/// Its `threadId`: the largest the format's int32 carries, which the agent's thread
/// counter never reaches, so that it is the same in every trace, a `.jtr` of an earlier
/// agent rendered again included.
pub const VM_THREAD_ID: u32 = i32::MAX as u32;

/// `xml`, a rendered document, without the virtual machine's thread: its threadStart and
/// threadEnd, and each `threadIdRef` naming it. What an earlier agent wrote in the same
/// run as a `.jtr` is today's rendering of that `.jtr` without it (those agents wrote the
/// elements that now name it without a thread); the tests that hold the two equal use it.
pub fn without_vm_thread(xml: &str) -> String {
    let named = format!(" threadIdRef=\"{VM_THREAD_ID}\"");
    let start = format!("<threadStart threadId=\"{VM_THREAD_ID}\"");
    let end = format!("<threadEnd{named}");
    xml.split_inclusive('\n')
        .filter(|l| !l.starts_with(&start) && !l.starts_with(&end))
        .map(|l| l.replacen(&named, "", 1))
        .collect()
}

impl<O: Output> Renderer<O> {
    /// An objDef, with the object's class when the agent knew it (as `objAlloc` names
    /// it: an array's element class, with its `isArray` code).
    pub(super) fn obj_def(&mut self, o: ObjDef) {
        if o.obj == 0 || !self.live_objects.insert(o.obj) {
            return;
        }
        self.out.open("objDef");
        self.out.num("objId", o.obj);
        if o.cid != 0 {
            self.out.num("isArray", o.is_array as u64);
            self.out.num("classIdRef", o.cid as u64);
        }
        self.out.close();
    }

    /// Source line of bytecode index `loc` in method `mid` (0 if unknown).
    fn line_at(&self, mid: u32, loc: u32) -> u64 {
        let Some(m) = self.methods.get(mid) else {
            return 0;
        };
        m.line_numbers
            .iter()
            .take_while(|&&(pc, _)| pc <= loc)
            .last()
            .map_or(0, |&(_, l)| l as u64)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn alloc(
        &mut self,
        tid: u32,
        obj: u64,
        cid: u32,
        is_array: u8,
        size: u64,
        site: (u32, u32),
        t: u64,
    ) {
        let (mid, loc) = site;
        // Only objects the method's own allocating bytecodes created are its.
        let own = matches!(self.methods.get(mid), Some(m)
            if m.alloc_sites.binary_search(&loc).is_ok());
        if !own {
            return;
        }
        let ns = self.stamp(tid, t);
        self.live_objects.insert(obj);
        let site_cid = if mid != 0 { self.cid_of(mid) } else { None };
        let line = site_cid.map(|_| self.line_at(mid, loc));
        let o = &mut self.out;
        o.open("objAlloc");
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.num("objId", obj);
        if cid != 0 {
            o.num("classIdRef", cid as u64);
        }
        o.num("isArray", is_array as u64);
        o.num("size", size);
        if let (Some(site_cid), Some(line)) = (site_cid, line) {
            o.num("aMethodIdRef", mid as u64);
            o.num("aClassIdRef", site_cid as u64);
            o.num("aLineNr", line);
        }
        o.close();
    }

    pub(super) fn gc_start(&mut self, t: u64) {
        self.gc_close();
        let ns = self.gc_time(self.conv.to_unix_ns(t));
        if self.gc.tid == 0 {
            self.gc_thread_start(ns);
        }
        self.gc.open = true;
        self.on_thread("gcStart", self.gc.tid, ns);
    }

    /// The collector's thread, defined just before the first gcStart. Collections run
    /// on VM threads that have no `java.lang.Thread`, and TPTP's importer looks up
    /// `threadIdRef` on every gcStart/gcFinish/objFree (inventing a thread `unknown0`
    /// when it is absent), so the GC elements, frees and unloads name this one thread
    /// instead. It takes its id from the same counter as Java threads (never reused; the
    /// agent reserves it at the start, `Header::gc_thread_id`) and ends at the close of
    /// the trace, after the last gcFinish.
    fn gc_thread_start(&mut self, ns: u64) {
        self.gc.tid = self.gc_thread_id;
        self.own_thread_start(self.gc.tid, GC_THREAD_NAME, ns);
    }

    /// The threadStart of a thread the format defines (no `java.lang.Thread`, no group).
    fn own_thread_start(&mut self, tid: u32, name: &str, ns: u64) {
        let o = &mut self.out;
        o.open("threadStart");
        o.num("threadId", tid as u64);
        o.time("time", ns);
        o.str("threadName", name);
        o.str("groupName", "");
        o.str("parentName", "");
        o.num("objIdRef", 0);
        o.close();
    }

    /// The thread (and the time, not before its last element) of a classDef whose
    /// loading thread the trace cannot name, or of a runtimeShutdown on a thread it
    /// never defined: the VM's thread, defined just before the first such element.
    ///
    /// A thread's own class is named by the thread's objDef, which its threadStart
    /// needs first; a trace started in a running JVM defines the classes loaded before
    /// it again, by threads that may be gone. TPTP's importer files a classDef under
    /// its `threadIdRef` and invents a thread (`unknown0`) when it is absent. A thread
    /// of its own keeps its times in order apart from the collector's, whose gcFinish
    /// is held back.
    pub(super) fn vm_thread(&mut self, ns: u64) -> (u32, u64) {
        self.vm.last_ns = self.vm.last_ns.max(ns);
        let ns = self.vm.last_ns;
        if !self.vm.defined {
            self.vm.defined = true;
            self.own_thread_start(VM_THREAD_ID, VM_THREAD_NAME, ns);
        }
        (VM_THREAD_ID, ns)
    }

    /// The VM thread's threadEnd, at the close of the trace (if it was defined).
    pub(super) fn vm_thread_end(&mut self, t: u64) {
        if !self.vm.defined {
            return;
        }
        let (tid, ns) = self.vm_thread(self.conv.to_unix_ns(t).max(self.max_time()));
        self.on_thread("threadEnd", tid, ns);
    }

    /// The collector thread's threadEnd, at the close of the trace (if it was defined).
    pub(super) fn gc_thread_end(&mut self, t: u64) {
        if self.gc.tid == 0 {
            return;
        }
        let ns = self.gc_time(self.conv.to_unix_ns(t).max(self.max_time()));
        self.on_thread("threadEnd", self.gc.tid, ns);
    }

    /// `ns`, not before the collector thread's last element: its times never go back.
    fn gc_time(&mut self, ns: u64) -> u64 {
        self.gc.last_ns = self.gc.last_ns.max(ns);
        self.gc.last_ns
    }

    pub(super) fn gc_finish(&mut self, t: u64) {
        if self.gc.open {
            self.gc.finish = Some(self.conv.to_unix_ns(t));
        }
    }

    /// Writes the held-back gcFinish of the open collection, if any.
    pub(super) fn gc_close(&mut self) {
        if !self.gc.open {
            return;
        }
        let ns = self.gc.finish.take().unwrap_or_else(|| self.max_time());
        let ns = self.gc_time(ns);
        let heap = self.gc.heap.take();
        self.gc.open = false;
        let o = &mut self.out;
        o.open("gcFinish");
        o.num("threadIdRef", self.gc.tid as u64);
        o.time("time", ns);
        if let Some((total, used)) = heap {
            o.num("totalObjectSpace", total);
            o.num("usedObjectSpace", used);
        }
        o.close();
    }

    pub(super) fn obj_free(&mut self, obj: u64, t: u64) {
        if !self.gc.open || !self.live_objects.remove(&obj) {
            return;
        }
        let ns = self.in_bracket(t);
        let o = &mut self.out;
        o.open("objFree");
        o.num("threadIdRef", self.gc.tid as u64);
        o.num("objIdRef", obj);
        o.time("time", ns);
        o.close();
    }

    /// A class (and with it its methods) is gone. Its methods' counts are written
    /// first: after classUnload nothing may name them.
    pub(super) fn class_unload(&mut self, cid: u32, t: u64) {
        let Some(class) = self.classes.remove(&cid) else {
            return;
        };
        // Its methods' state goes with it, bracket or not (their counts are written
        // now instead of at the end).
        for mid in class.methods {
            if self.methods.remove(mid).is_some() {
                let own = self.counts.remove(mid).unwrap_or(0);
                let count = self.total_count(mid, own);
                self.out.open("methodCount");
                self.out.num("methodIdRef", mid as u64);
                self.out.num("count", count);
                self.out.close();
            }
        }
        if !self.gc.open {
            return;
        }
        let ns = self.in_bracket(t);
        let o = &mut self.out;
        o.open("classUnload");
        o.num("threadIdRef", self.gc.tid as u64);
        o.num("classIdRef", cid as u64);
        o.time("time", ns);
        o.close();
    }

    /// The time of a free or unload the VM reported at `t`, after its collection, on
    /// the collector's thread: written inside the open bracket, it is dated no later
    /// than the bracket's gcFinish (the object was gone by then) and not before the
    /// thread's last element.
    fn in_bracket(&mut self, t: u64) -> u64 {
        let ns = self.conv.to_unix_ns(t);
        self.gc_time(self.gc.finish.map_or(ns, |f| ns.min(f)))
    }

    /// A `line` element when execution reaches a new line of the innermost frame:
    /// a unit on another line than the frame's last one, or any unit reached by
    /// going back (a loop runs its line again). Written from pre-formatted pieces
    /// like methodEntry: with lines=on it is the most frequent element.
    pub(super) fn line(&mut self, tid: u32, mid: u32, unit: u32, t: u64) {
        let Some(m) = self.methods.get(mid) else {
            return;
        };
        let Some(&line) = m.unit_lines.get(unit as usize) else {
            return;
        };
        let Some(ts) = self.threads.get_mut(tid) else {
            return;
        };
        let Some(top) = ts.stack.last_mut() else {
            return;
        };
        if top.mid != mid {
            return;
        }
        let last = top.unit;
        top.unit = unit;
        let ticket = top.ticket;
        if last != NO_UNIT && unit > last && m.unit_lines.get(last as usize) == Some(&line) {
            return;
        }
        let ns = ts.clamp(self.conv.to_unix_ns(t));
        self.out
            .line(tid, mid, line, ticket, ns, &ts.line_prefix, &m.line_tail);
    }
}
