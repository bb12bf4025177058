//! Calls merged by path: the call tree (`tree`), the folded stacks (`collapsed`,
//! `flame`) and allocation stacks (`flame --alloc`). Memory is one node per distinct
//! path, whatever the number of calls, and at most [`MAX_PATHS`] nodes in the trees of
//! a whole trace: past them, a new path's calls are merged into a `[more paths]` frame
//! under the deepest frame it shares with a path already known.

use crate::model::idmap::{FastMap, Recent};
use crate::model::{Alloc, Analysis, Call, Frame, Symbols};
use std::collections::BTreeMap;

/// Label of the root node.
pub const ROOT: u32 = u32::MAX;
/// Set on a label that names a thread (index in the low bits), not a method.
pub const THREAD: u32 = 1 << 31;
/// Set on a method label in a slow call's subtree: a nested slow call, shown on its own.
pub const SLOW: u32 = 1 << 30;
/// Label of the frame that stands for the paths a bounded tree did not make (no
/// method's: method labels are indexes far below it).
pub const MORE: u32 = SLOW - 1;
/// Nodes of a bounded tree (`tree`, `collapsed`, `flame`, `graph`): about 150 MB. A
/// deep recursive-descent parser gives millions of distinct paths (Checkstyle's trace:
/// 6.7 M); what lies past the bound is counted, exactly, in `[more paths]` frames.
pub const MAX_PATHS: usize = 2_000_000;
/// The size an answer made of paths keeps under by default, leaving out what weighs
/// least and saying so (issue 43: under 10 MB on any trace).
pub const ANSWER_BYTES: u64 = 10_000_000;
/// What a `[more paths]` frame is called.
pub const MORE_NAME: &str = "[more paths]";

#[derive(Debug, Clone)]
pub struct Node {
    pub label: u32,
    pub parent: u32,
    pub calls: u64,
    pub total: u64,
    pub self_ns: u64,
    /// The child last looked up (label, node): a loop calls the same callee again and
    /// again, and this spares the hash lookup.
    last: (u32, u32),
    /// Its children as a list (0: none; node 0 is no one's child): the first child, and
    /// each child's next sibling. Two numbers per node, no vector per parent (javac:
    /// 1.8 M nodes).
    first: u32,
    next: u32,
}

/// A tree of labels, one node per distinct path from the root.
#[derive(Debug, Clone)]
pub struct PathTree {
    pub nodes: Vec<Node>,
    index: FastMap<(u32, u32), u32>,
    /// Children recently looked up past the memo, by [`child_key`] (made once the tree
    /// is large): most lookups of a large tree hit it without touching the hash map
    /// (javac: 1.8 M paths).
    cache: Recent,
    /// Nodes past which a new path goes into a [`MORE`] frame (see [`PathTree::bounded`]).
    limit: usize,
}

/// Slots of `PathTree::cache` (a power of two), and the nodes a tree has before it
/// gets one (the small trees `slow` makes per call need none).
const CACHE: usize = 1 << 16;
const CACHE_FROM: usize = 1 << 12;

/// The key of the child of `parent` labelled `label` in [`PathTree::cache`].
#[inline(always)]
fn child_key(parent: u32, label: u32) -> u64 {
    ((label as u64) << 32) | parent as u64
}

/// One line of a rendered tree.
pub struct Row {
    pub depth: usize,
    pub node: u32,
}

impl PathTree {
    pub fn new(root: u32) -> PathTree {
        PathTree {
            nodes: vec![Node {
                label: root,
                parent: ROOT,
                calls: 0,
                total: 0,
                self_ns: 0,
                last: (0, 0),
                first: 0,
                next: 0,
            }],
            index: FastMap::default(),
            cache: Recent::default(),
            limit: usize::MAX,
        }
    }

    /// A tree of at most about `limit` nodes: once it has them, a child not made yet is
    /// the parent's [`MORE`] frame instead (made past the limit, one per parent), and
    /// below a `MORE` frame every child is that frame. Its calls and own time are exact;
    /// its total counts the outermost of its nested frames (see
    /// [`PathTree::record_popped`]).
    pub fn bounded(root: u32, limit: usize) -> PathTree {
        PathTree {
            limit,
            ..PathTree::new(root)
        }
    }

    /// Whether some path went into a [`MORE`] frame.
    pub fn is_cut(&self) -> bool {
        self.nodes.len() > self.limit
    }

    /// The child of `parent` labelled `label`, created if new.
    #[inline]
    pub fn child(&mut self, parent: u32, label: u32) -> u32 {
        let p = &mut self.nodes[parent as usize];
        // Node 0 (the root) is no one's child: an empty memo.
        if p.last.1 != 0 && p.last.0 == label {
            return p.last.1;
        }
        self.child_looked_up(parent, label)
    }

    /// [`PathTree::child`] past the memo.
    #[inline(never)]
    fn child_looked_up(&mut self, parent: u32, label: u32) -> u32 {
        let key = child_key(parent, label);
        if let Some(n) = self.cache.get(key) {
            self.nodes[parent as usize].last = (label, n);
            return n;
        }
        if self.cache.is_empty() && self.nodes.len() >= CACHE_FROM {
            self.cache = Recent::with_slots(CACHE);
        }
        if self.nodes.len() >= self.limit {
            let n = match self.index.get(&(parent, label)) {
                Some(&n) => n,
                None if self.nodes[parent as usize].label == MORE => parent,
                None => self.make(parent, MORE),
            };
            self.nodes[parent as usize].last = (label, n);
            return n;
        }
        self.make(parent, label)
    }

    /// The child of `parent` labelled `label`, found or made (one probe of the map: a
    /// new path is most of the misses), memoised.
    fn make(&mut self, parent: u32, label: u32) -> u32 {
        let key = child_key(parent, label);
        let nodes = &mut self.nodes;
        let n = *self.index.entry((parent, label)).or_insert_with(|| {
            let n = nodes.len() as u32;
            let next = std::mem::replace(&mut nodes[parent as usize].first, n);
            nodes.push(Node {
                label,
                parent,
                calls: 0,
                total: 0,
                self_ns: 0,
                last: (0, 0),
                first: 0,
                next,
            });
            n
        });
        self.nodes[parent as usize].last = (label, n);
        self.cache.put(key, n);
        n
    }

    pub fn record(&mut self, n: u32, c: &Call) {
        if c.counted {
            let node = &mut self.nodes[n as usize];
            node.calls += 1;
            node.total += c.incl;
            node.self_ns += c.self_ns;
        }
    }

    /// [`PathTree::record`] of the call whose node is the top of `stack` (a thread's
    /// open frames), popped. A call made inside a frame of the same node (only a
    /// [`MORE`] frame holds its own callees) adds no total: its time is in the outer
    /// call's already.
    pub fn record_popped(&mut self, stack: &mut Vec<u32>, c: &Call) {
        let Some(n) = stack.pop() else { return };
        if stack.last() != Some(&n) {
            self.record(n, c);
        } else if c.counted {
            let node = &mut self.nodes[n as usize];
            node.calls += 1;
            node.self_ns += c.self_ns;
        }
    }

    /// Nodes in display order (depth first, children by total time, largest first),
    /// without nodes that have no calls, are under `min_total` or deeper than `max_depth`
    /// (the root is depth 0). Iterative: recursion in the trace must not recurse here.
    pub fn rows(&self, min_total: u64, max_depth: Option<usize>) -> Vec<Row> {
        let mut out = Vec::new();
        let mut todo = vec![(0u32, 0usize)];
        while let Some((n, depth)) = todo.pop() {
            out.push(Row { depth, node: n });
            if max_depth.is_some_and(|d| depth >= d) {
                continue;
            }
            let mut kids: Vec<u32> = self
                .children(n)
                .filter(|&k| self.is_row(k, min_total))
                .collect();
            // Ties by label (unique among siblings), not by creation order, so that a
            // pass split over workers (`--jobs`) prints the same tree.
            kids.sort_by_key(|&k| {
                (
                    std::cmp::Reverse(self.subtotal(k)),
                    self.nodes[k as usize].label,
                )
            });
            for k in kids.into_iter().rev() {
                todo.push((k, depth + 1));
            }
        }
        out
    }

    /// Whether [`PathTree::rows`] shows node `k` under a shown parent: a call's node or
    /// a thread's, of at least `min_total` in all.
    fn is_row(&self, k: u32, min_total: u64) -> bool {
        let node = &self.nodes[k as usize];
        (node.calls > 0 || node.label & THREAD != 0 && node.label != ROOT)
            && self.subtotal(k) >= min_total
    }

    /// `each(depth, node)` for every row of [`PathTree::rows`]`(min_total, max_depth)`,
    /// the root first, in node order: one forward sweep (parents come before their
    /// children).
    fn each_row(&self, min_total: u64, max_depth: Option<usize>, mut each: impl FnMut(usize, u32)) {
        let len = self.nodes.len();
        let mut depth = vec![0usize; len];
        let mut shown = vec![false; len];
        shown[0] = true;
        each(0, 0);
        for i in 1..len {
            let p = self.nodes[i].parent as usize;
            if !shown[p]
                || max_depth.is_some_and(|d| depth[p] >= d)
                || !self.is_row(i as u32, min_total)
            {
                continue;
            }
            shown[i] = true;
            depth[i] = depth[p] + 1;
            each(depth[i], i as u32);
        }
    }

    /// About the bytes of [`PathTree::rows`]`(min_total, max_depth)` written at
    /// `per_row(depth, node)` each.
    pub fn rows_bytes(
        &self,
        min_total: u64,
        max_depth: Option<usize>,
        per_row: &impl Fn(usize, u32) -> u64,
    ) -> u64 {
        let mut bytes = 0;
        self.each_row(min_total, max_depth, |d, n| bytes += per_row(d, n));
        bytes
    }

    /// About the bytes of [`PathTree::rows`]`(0, None)` by depth (index: the row's
    /// depth), each row `per_row(depth, node)`.
    pub fn bytes_by_depth(&self, per_row: &impl Fn(usize, u32) -> u64) -> Vec<u64> {
        let mut bytes = Vec::new();
        self.each_row(0, None, |d, n| {
            if bytes.len() <= d {
                bytes.resize(d + 1, 0);
            }
            bytes[d] += per_row(d, n);
        });
        bytes
    }

    /// The least `min_total` (0, or a power of two times the tree's total over 2^20)
    /// under which [`PathTree::rows`] fits `budget` bytes (see
    /// [`PathTree::rows_bytes`]).
    pub fn fit_rows(
        &self,
        budget: u64,
        max_depth: Option<usize>,
        per_row: &impl Fn(usize, u32) -> u64,
    ) -> u64 {
        let total: u64 = self.children(0).map(|k| self.subtotal(k)).sum();
        let mut min = 0;
        while min <= total && self.rows_bytes(min, max_depth, per_row) > budget {
            min = if min == 0 {
                (total >> 20).max(1)
            } else {
                min * 2
            };
        }
        min
    }

    /// A node's total time; for a thread node, its children's.
    pub fn subtotal(&self, n: u32) -> u64 {
        let node = &self.nodes[n as usize];
        if node.label != ROOT && node.label & THREAD != 0 {
            self.children(n).map(|k| self.nodes[k as usize].total).sum()
        } else {
            node.total
        }
    }

    /// The children of `n`, the newest first.
    pub fn children(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let first = self.nodes[n as usize].first;
        std::iter::successors((first != 0).then_some(first), |&k| {
            let next = self.nodes[k as usize].next;
            (next != 0).then_some(next)
        })
    }

    /// Labels from the root's child down to `n`.
    pub fn path(&self, mut n: u32) -> Vec<u32> {
        let mut p = Vec::new();
        while n != 0 && (n as usize) < self.nodes.len() {
            p.push(self.nodes[n as usize].label);
            n = self.nodes[n as usize].parent;
        }
        p.reverse();
        p
    }
}

/// The name a label stands for.
pub fn label_name(s: &Symbols, label: u32) -> &str {
    if label == ROOT {
        "all"
    } else if label == MORE {
        MORE_NAME
    } else if label & THREAD != 0 {
        s.threads
            .get((label & !THREAD) as usize)
            .map_or("?", |t| t.name.as_str())
    } else {
        &s.method(label & !SLOW).frame
    }
}

/// `label`'s name as a folded stack's frame: `;` separates frames and the last space
/// the value, so neither is in it. A parameter list's `, ` becomes `,` (not `,_`);
/// other spaces (threads' names) and `;` become `_`.
pub fn folded_name(s: &Symbols, label: u32) -> String {
    label_name(s, label)
        .replace(", ", ",")
        .replace([';', ' '], "_")
}

/// A method label of a nested slow call (`slow` shows its subtree apart).
pub fn is_marked(label: u32) -> bool {
    label != ROOT && label & THREAD == 0 && label & SLOW != 0
}

/// What follows a nested slow call's name.
pub const SLOW_MARK: &str = " [slow: shown apart]";

/// The call tree of every selected thread (one subtree per thread under the root), plus
/// the bytes allocated under each path.
pub struct CallTree {
    pub tree: PathTree,
    /// Per thread: the node of each open frame.
    stacks: Vec<Vec<u32>>,
    /// (node, class, isArray) -> (count, bytes).
    allocs: FastMap<(u32, u32, u8), (u64, u64)>,
}

impl Default for CallTree {
    fn default() -> CallTree {
        CallTree::bounded(MAX_PATHS)
    }
}

impl CallTree {
    /// A call tree of at most about `limit` paths (see [`PathTree::bounded`]).
    pub fn bounded(limit: usize) -> CallTree {
        CallTree {
            tree: PathTree::bounded(ROOT, limit),
            stacks: Vec::new(),
            allocs: FastMap::default(),
        }
    }
}

impl CallTree {
    fn top(&mut self, t: u32) -> u32 {
        let i = t as usize;
        if self.stacks.len() <= i {
            self.stacks.resize(i + 1, Vec::new());
        }
        match self.stacks[i].last() {
            Some(&n) => n,
            None => self.tree.child(0, THREAD | t),
        }
    }

    /// Folded allocation stacks: the allocating path, then the allocated class; values
    /// are bytes (or counts when `counts`).
    pub fn folded_allocs(&self, s: &Symbols, threads: bool, counts: bool) -> BTreeMap<String, u64> {
        let mut out: BTreeMap<String, u64> = BTreeMap::new();
        for (&(n, class, is_array), &(count, bytes)) in &self.allocs {
            let mut key = self.stack_name(s, n, threads);
            if !key.is_empty() {
                key.push(';');
            }
            key.push_str(&s.alloc_class(class, is_array));
            *out.entry(key).or_default() += if counts { count } else { bytes };
        }
        out
    }

    fn stack_name(&self, s: &Symbols, n: u32, threads: bool) -> String {
        let names: Vec<String> = self
            .tree
            .path(n)
            .into_iter()
            .filter(|&l| threads || l & THREAD == 0)
            .map(|l| folded_name(s, l))
            .collect();
        names.join(";")
    }
}

impl PathTree {
    /// Adds the paths and figures of `other` (a tree of the same labels); returns,
    /// per node of `other`, its node here.
    pub fn merge(&mut self, other: &PathTree) -> Vec<u32> {
        let mut map = vec![0u32; other.nodes.len()];
        for (i, node) in other.nodes.iter().enumerate() {
            // Parents come before their children.
            let n = if i == 0 {
                0
            } else {
                self.child(map[node.parent as usize], node.label)
            };
            map[i] = n;
            let mine = &mut self.nodes[n as usize];
            mine.calls += node.calls;
            mine.total += node.total;
            mine.self_ns += node.self_ns;
        }
        map
    }
}

impl super::merge::Split for CallTree {
    fn fresh(&self) -> Self {
        CallTree::default()
    }

    fn merge(&mut self, other: Self) {
        let map = self.tree.merge(&other.tree);
        for ((n, class, is_array), (count, bytes)) in other.allocs {
            let e = self
                .allocs
                .entry((map[n as usize], class, is_array))
                .or_default();
            e.0 += count;
            e.1 += bytes;
        }
    }
}

impl Analysis for CallTree {
    fn enter(&mut self, _s: &Symbols, t: u32, stack: &[Frame]) {
        let parent = self.top(t);
        let Some(f) = stack.last() else { return };
        let n = self.tree.child(parent, f.method);
        self.stacks[t as usize].push(n);
    }

    fn exit(&mut self, _s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        if let Some(stack) = self.stacks.get_mut(t as usize) {
            self.tree.record_popped(stack, c);
        }
    }

    fn alloc(&mut self, _s: &Symbols, t: u32, a: &Alloc, _stack: &[Frame]) {
        let n = self.top(t);
        let e = self.allocs.entry((n, a.class, a.is_array)).or_default();
        e.0 += 1;
        e.1 += a.size;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::filter::Filter;
    use crate::model::tests::{defs, entry, exit};
    use crate::model::Model;

    /// f and g calling each other `depth` levels deep, each level 10 ns of its own
    /// before its callee and 10 after (one call of f at the top).
    fn recursion(depth: u64) -> Vec<crate::read::Event<'static>> {
        let mut evs = defs();
        for level in 0..depth {
            evs.push(entry(1 + level % 2, level + 1, level * 10));
        }
        for level in (0..depth).rev() {
            evs.push(exit(1 + level % 2, level + 1, 20 * depth - level * 10));
        }
        evs
    }

    pub(crate) fn tree_of(depth: u64, limit: usize) -> (PathTree, Symbols) {
        let mut t = CallTree::bounded(limit);
        let mut m = Model::new(Filter::default());
        for e in &recursion(depth) {
            m.event(e, &mut t);
        }
        m.finish(&mut t);
        (t.tree, m.syms)
    }

    /// Past the bound, a deep recursion's frames are one `[more paths]` frame: every
    /// call and every nanosecond of own time is in the tree, and its total counts the
    /// outermost merged call once.
    #[test]
    fn paths_past_the_bound_are_one_exact_more_frame() {
        let (whole, _) = tree_of(40, usize::MAX);
        let (cut, _) = tree_of(40, 8);
        assert!(!whole.is_cut());
        assert!(cut.is_cut());
        let sum = |t: &PathTree, f: fn(&Node) -> u64| t.nodes.iter().map(f).sum::<u64>();
        assert_eq!(sum(&whole, |n| n.calls), 40);
        assert_eq!(sum(&cut, |n| n.calls), 40);
        assert_eq!(sum(&cut, |n| n.self_ns), sum(&whole, |n| n.self_ns));
        assert_eq!(sum(&whole, |n| n.self_ns), 800);
        let more: Vec<&Node> = cut.nodes.iter().filter(|n| n.label == MORE).collect();
        assert_eq!(more.len(), 1);
        // Node 1 is the thread; the bound keeps 8 nodes: 6 frames, the 7th level on is
        // merged, and its total is that of the outermost merged call.
        let more = more[0];
        assert_eq!(more.calls, 40 - 6);
        assert_eq!(more.total, 20 * 40 - 2 * 6 * 10);
        assert_eq!(more.self_ns, (40 - 6) * 20);
        // The frames above it are unchanged.
        for (a, b) in whole.nodes.iter().zip(&cut.nodes).take(8) {
            assert_eq!(
                (a.label, a.calls, a.total, a.self_ns),
                (b.label, b.calls, b.total, b.self_ns)
            );
        }
    }
}
