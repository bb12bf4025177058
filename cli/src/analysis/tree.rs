//! Calls merged by path: the call tree (`tree`), the folded stacks (`collapsed`,
//! `flame`) and allocation stacks (`flame --alloc`). Memory is one node per distinct
//! path, whatever the number of calls.

use crate::model::idmap::{FastMap, Recent};
use crate::model::{Alloc, Analysis, Call, Frame, Symbols};
use std::collections::BTreeMap;

/// Label of the root node.
pub const ROOT: u32 = u32::MAX;
/// Set on a label that names a thread (index in the low bits), not a method.
pub const THREAD: u32 = 1 << 31;
/// Set on a method label in a slow call's subtree: a nested slow call, shown on its own.
pub const SLOW: u32 = 1 << 30;

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
        }
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
        // One probe of the map, found or made (a new path is most of the misses).
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
                .filter(|&k| {
                    let node = &self.nodes[k as usize];
                    (node.calls > 0 || node.label & THREAD != 0 && node.label != ROOT)
                        && self.subtotal(k) >= min_total
                })
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
        CallTree {
            tree: PathTree::new(ROOT),
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
        let Some(n) = self.stacks.get_mut(t as usize).and_then(Vec::pop) else {
            return;
        };
        self.tree.record(n, c);
    }

    fn alloc(&mut self, _s: &Symbols, t: u32, a: &Alloc, _stack: &[Frame]) {
        let n = self.top(t);
        let e = self.allocs.entry((n, a.class, a.is_array)).or_default();
        e.0 += 1;
        e.1 += a.size;
    }
}
