//! Slow calls with their whole subtree, in two passes over the trace: the first finds
//! the calls over the threshold (a call's length is known only at its exit, after its
//! subtree streamed by), the second merges each one's subtree by path as it streams.
//! Memory: the slow calls found, and one path tree per slow call. A slow call inside
//! another is a marked leaf of the outer one's subtree (its own subtree is shown once,
//! under its own entry), so nothing is printed twice.

use super::tree::{PathTree, SLOW};
use crate::model::idmap::FastMap;
use crate::model::{Analysis, Call, Frame, Symbols};

/// Pass 1: which calls (thread, ticket) took at least `over`.
pub struct Finder<'f> {
    pub over: u64,
    pub method_ok: &'f (dyn Fn(&str) -> bool + Sync),
    pub found: FastMap<(u32, u64), ()>,
}

impl crate::model::merge::Split for Finder<'_> {
    fn fresh(&self) -> Self {
        Finder {
            over: self.over,
            method_ok: self.method_ok,
            found: FastMap::default(),
        }
    }
    fn merge(&mut self, other: Self) {
        self.found.extend(other.found);
    }
}

/// Workers' slow calls after one another: each thread's in the order one pass finds
/// them (a worker has all of a thread's), for the stable sort of [`Collector::sorted`].
impl crate::model::merge::Split for Collector {
    fn fresh(&self) -> Self {
        Collector::new(self.wanted.clone())
    }
    fn merge(&mut self, other: Self) {
        self.done.extend(other.done);
    }
}

impl Analysis for Finder<'_> {
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        if c.counted && c.incl >= self.over && s.method(c.method).named(self.method_ok) {
            self.found.insert((t, c.ticket), ());
        }
    }
}

/// One slow call and its subtree (labels are method indexes; the root is the call).
pub struct SlowCall {
    pub thread: u32,
    pub start: u64,
    pub duration: u64,
    pub open: bool,
    pub tree: PathTree,
}

struct Active {
    call: SlowCall,
    stack: Vec<u32>,
}

/// A frame inside a nested slow call: not part of the outer call's tree.
const SKIP: u32 = u32::MAX;

/// Pass 2: the subtrees of the calls pass 1 found.
pub struct Collector {
    pub wanted: FastMap<(u32, u64), ()>,
    active: FastMap<u32, Vec<Active>>,
    pub done: Vec<SlowCall>,
}

impl Collector {
    pub fn new(wanted: FastMap<(u32, u64), ()>) -> Collector {
        Collector {
            wanted,
            active: FastMap::default(),
            done: Vec::new(),
        }
    }
}

impl Collector {
    /// The slow calls, longest first; ties by start, then thread (then as found: the
    /// same order whether one pass or several workers found them).
    pub fn sorted(mut self) -> Vec<SlowCall> {
        self.done
            .sort_by_key(|c| (std::cmp::Reverse(c.duration), c.start, c.thread));
        self.done
    }
}

impl Analysis for Collector {
    fn enter(&mut self, _s: &Symbols, t: u32, stack: &[Frame]) {
        let Some(f) = stack.last() else { return };
        let wanted = self.wanted.contains_key(&(t, f.ticket));
        let list = self.active.entry(t).or_default();
        for a in list.iter_mut() {
            let parent = *a.stack.last().unwrap_or(&0);
            // Inside a nested slow call: its frames are its own subtree's.
            let n = if parent == SKIP || a.call.tree.nodes[parent as usize].label & SLOW != 0 {
                SKIP
            } else if wanted {
                a.call.tree.child(parent, f.method | SLOW)
            } else {
                a.call.tree.child(parent, f.method)
            };
            a.stack.push(n);
        }
        if wanted {
            list.push(Active {
                call: SlowCall {
                    thread: t,
                    start: f.start,
                    duration: 0,
                    open: false,
                    tree: PathTree::new(f.method),
                },
                stack: vec![0],
            });
        }
    }

    fn exit(&mut self, _s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let Some(list) = self.active.get_mut(&t) else {
            return;
        };
        let mut i = 0;
        while i < list.len() {
            let a = &mut list[i];
            if let Some(n) = a.stack.pop().filter(|&n| n != SKIP) {
                a.call.tree.record(n, c);
            }
            if a.stack.is_empty() {
                let mut a = list.remove(i);
                a.call.duration = c.incl;
                a.call.open = c.open;
                self.done.push(a.call);
            } else {
                i += 1;
            }
        }
    }
}
