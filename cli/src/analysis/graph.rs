//! One method's callers and callees (`jtrace graph`), merged by path with exact counts:
//! the callers tree is rooted at the method and grows toward `main` (each node counts
//! the method's calls made through that chain of callers); the callees tree is the
//! method's subtree, merged over its outermost calls (a recursive call is a node of it,
//! not a new root). Memory: one node per distinct path.

use super::tree::{PathTree, MAX_PATHS, ROOT};
use crate::model::{Analysis, Call, Frame, Symbols};

/// Which methods the graph is about: `Class.method` exactly, a readable name
/// (`Class.method(int)`, any style) exactly or up to its `(`, or a `*`/`?` pattern of
/// either.
pub struct Target {
    pub pattern: String,
    /// Per method index: matched or not (filled as methods appear).
    cache: Vec<Option<bool>>,
}

impl Target {
    pub fn new(pattern: &str) -> Target {
        Target {
            pattern: pattern.to_string(),
            cache: Vec::new(),
        }
    }

    pub fn matches(&mut self, s: &Symbols, m: u32) -> bool {
        let i = m as usize;
        if self.cache.len() <= i {
            self.cache.resize(i + 1, None);
        }
        if let Some(b) = self.cache[i] {
            return b;
        }
        let info = s.method(m);
        let readable = &info.readable;
        let p = self.pattern.as_str();
        let b = if p.contains(['*', '?']) {
            let pat = crate::model::filter::Pattern::new(p);
            pat.matches(&info.short) || pat.matches(readable) || pat.matches(&info.key)
        } else {
            info.short == p
                || info.key == p
                || readable.as_str() == p
                || readable.split('(').next() == Some(p)
        };
        self.cache[i] = Some(b);
        b
    }
}

pub struct Graph {
    pub target: Target,
    pub callers: PathTree,
    pub callees: PathTree,
    /// Per thread: the callees-tree nodes of the open frames inside an outermost call.
    inside: Vec<Vec<u32>>,
    /// Calls of the matched methods (every call, recursive ones included).
    pub calls: u64,
    /// The matched methods, in the order they were first called.
    pub matched: Vec<u32>,
}

impl Graph {
    pub fn new(target: Target) -> Graph {
        Graph {
            target,
            callers: PathTree::bounded(ROOT, MAX_PATHS),
            callees: PathTree::bounded(ROOT, MAX_PATHS),
            inside: Vec::new(),
            calls: 0,
            matched: Vec::new(),
        }
    }
}

impl Analysis for Graph {
    fn enter(&mut self, s: &Symbols, t: u32, stack: &[Frame]) {
        let Some(f) = stack.last() else { return };
        let i = t as usize;
        if self.inside.len() <= i {
            self.inside.resize(i + 1, Vec::new());
        }
        let nodes = &mut self.inside[i];
        if let Some(&top) = nodes.last() {
            let n = self.callees.child(top, f.method);
            self.inside[i].push(n);
        } else if self.target.matches(s, f.method) {
            if !self.matched.contains(&f.method) {
                self.matched.push(f.method);
            }
            let n = self.callees.child(0, f.method);
            self.inside[i].push(n);
        }
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, parents: &[Frame]) {
        if let Some(inside) = self.inside.get_mut(t as usize) {
            self.callees.record_popped(inside, c);
        }
        if !self.target.matches(s, c.method) {
            return;
        }
        self.calls += 1;
        let mut n = self.callers.child(0, c.method);
        self.callers.record(n, c);
        for f in parents.iter().rev() {
            let caller = self.callers.child(n, f.method);
            if caller == n {
                // Past the bound, every caller further out is one `[more paths]` frame.
                break;
            }
            n = caller;
            self.callers.record(n, c);
        }
    }
}
