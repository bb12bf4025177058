//! Folded stacks (`a;b;c 123`) straight from a path tree, in memory bounded by the
//! tree: frames are merged by name into a tree of name ids, and the lines are written in
//! byte order (what a sorted map of whole strings would give) from one path buffer,
//! never a string per path.

use super::tree::{label_name, PathTree, ROOT, THREAD};
use crate::model::idmap::FastMap;
use crate::model::Symbols;
use std::collections::HashMap;
use std::io::Write;

/// The weight under which a flame graph folds a subtree into one frame: a large tree
/// (over 100,000 paths) keeps only what is at least 1/12,000 of the total (0.1 px of
/// inferno's 1200 px, the narrowest frame it draws); 0 otherwise.
pub fn flame_min(t: &PathTree) -> u64 {
    if t.nodes.len() <= 100_000 {
        return 0;
    }
    t.nodes.iter().map(|n| n.self_ns).sum::<u64>() / 12_000
}

/// A path tree merged by frame name.
struct Names {
    /// Frame names (`;` and spaces replaced), by id.
    names: Vec<String>,
    /// Per node: name id, own value, children.
    nodes: Vec<(u32, u64, Vec<u32>)>,
    index: FastMap<(u32, u32), u32>,
}

impl Names {
    fn child(&mut self, parent: u32, name: u32) -> u32 {
        if let Some(&n) = self.index.get(&(parent, name)) {
            return n;
        }
        let n = self.nodes.len() as u32;
        self.nodes.push((name, 0, Vec::new()));
        self.nodes[parent as usize].2.push(n);
        self.index.insert((parent, name), n);
        n
    }
}

/// The folded lines of `t` (self time per path, `threads`: the thread's name first),
/// exactly as sorting every path string would order and merge them. With `min` > 0,
/// a subtree lighter than `min` becomes one line, its top frame's, with its whole
/// weight (a flame graph cannot draw frames that narrow anyway; widths stay exact).
pub fn folded(
    s: &Symbols,
    t: &PathTree,
    threads: bool,
    min: u64,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut n = Names {
        names: Vec::new(),
        nodes: vec![(u32::MAX, 0, Vec::new())],
        index: FastMap::default(),
    };
    // Name ids by label, made once per label.
    let mut name_of: FastMap<u32, u32> = FastMap::default();
    let mut by_name: HashMap<String, u32> = HashMap::new();
    // Path-tree node -> name-tree node (thread nodes map to the root without `threads`).
    let mut map = vec![0u32; t.nodes.len()];
    for (i, node) in t.nodes.iter().enumerate() {
        if i == 0 || node.label == ROOT {
            continue;
        }
        let parent = map[node.parent as usize];
        if node.label & THREAD != 0 && !threads {
            map[i] = parent;
            continue;
        }
        let id = *name_of.entry(node.label).or_insert_with(|| {
            let name = label_name(s, node.label).replace([';', ' '], "_");
            let next = by_name.len() as u32;
            *by_name.entry(name.clone()).or_insert_with(|| {
                n.names.push(name);
                next
            })
        });
        let m = n.child(parent, id);
        map[i] = m;
        n.nodes[m as usize].1 += node.self_ns;
    }
    // Subtree weights (children come after their parents: one backward sweep).
    let mut weight: Vec<u64> = n.nodes.iter().map(|x| x.1).collect();
    for i in (1..n.nodes.len()).rev() {
        for &c in &n.nodes[i].2 {
            weight[i] += weight[c as usize];
        }
    }
    // Byte order of whole strings: a child's own line sorts by its name, its
    // subtree's lines by its name followed by `;`. Both keys of every name ranked once
    // (id * 2: the name, id * 2 + 1: the name and `;`), so siblings sort by a number.
    let mut keys: Vec<u32> = (0..n.names.len() as u32 * 2).collect();
    keys.sort_by(|&a, &b| {
        let key = |k: u32| {
            let semi: &[u8] = if k & 1 == 1 { b";" } else { b"" };
            n.names[(k / 2) as usize].as_bytes().iter().chain(semi)
        };
        key(a).cmp(key(b))
    });
    let mut rank = vec![0u32; keys.len()];
    for (r, &k) in keys.iter().enumerate() {
        rank[k as usize] = r as u32;
    }
    let mut path: Vec<u8> = Vec::new();
    // Work list: (node, path length before it, what to do).
    enum Step {
        /// Write the node's own line.
        Line(u32, u64),
        /// Enter the node: its children's lines and subtrees.
        Enter(u32),
        /// Leave: cut the path back.
        Leave(usize),
    }
    let mut todo = vec![Step::Enter(0)];
    // ` value\n` of a line.
    let mut value = String::new();
    let mut items: Vec<(u32, Step)> = Vec::new();
    while let Some(step) = todo.pop() {
        match step {
            Step::Line(c, v) => {
                if v > 0 {
                    // Straight to `out` (buffered by the caller): the path is copied
                    // once, whatever its length.
                    value.clear();
                    value.push(' ');
                    crate::render::fmt::push_u64(&mut value, v);
                    value.push('\n');
                    out.write_all(&path)?;
                    out.write_all(n.names[n.nodes[c as usize].0 as usize].as_bytes())?;
                    out.write_all(value.as_bytes())?;
                }
            }
            Step::Leave(len) => path.truncate(len),
            Step::Enter(p) => {
                let at = path.len();
                if p != 0 {
                    path.extend_from_slice(n.names[n.nodes[p as usize].0 as usize].as_bytes());
                    path.push(b';');
                }
                for &c in &n.nodes[p as usize].2 {
                    let name = n.nodes[c as usize].0;
                    let light = weight[c as usize] < min;
                    let own = if light {
                        weight[c as usize]
                    } else {
                        n.nodes[c as usize].1
                    };
                    items.push((rank[name as usize * 2], Step::Line(c, own)));
                    if !light && !n.nodes[c as usize].2.is_empty() {
                        items.push((rank[name as usize * 2 + 1], Step::Enter(c)));
                    }
                }
                items.sort_unstable_by_key(|x| x.0);
                todo.push(Step::Leave(at));
                todo.extend(items.drain(..).rev().map(|x| x.1));
            }
        }
    }
    Ok(())
}

/// [`folded`] into a string (what a flame graph is drawn from).
pub fn folded_text(s: &Symbols, t: &PathTree, threads: bool, min: u64) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = folded(s, t, threads, min, &mut out);
    // Names are strings already: valid UTF-8, kept without a copy.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The order and merging of whole path strings, with names that are prefixes of
    /// each other, `$` (sorts before `;`), and two methods of one name.
    #[test]
    fn same_as_sorting_whole_strings() {
        let mut s = Symbols::default();
        s.add_class(1, "A");
        for (id, name) in [(1, "a"), (2, "a$b"), (3, "ab"), (4, "a"), (5, "a b")] {
            s.add_method(id, 1, name, &format!("(){id}"));
        }
        let ix: Vec<u32> = (1..=5).map(|id| s.method_or_placeholder(id)).collect();
        let m = |id: u64| ix[id as usize - 1];
        let mut t = PathTree::new(ROOT);
        let th = t.child(0, THREAD);
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        let mut add = |t: &mut PathTree, path: &[u64], v: u64| {
            let mut n = th;
            for &id in path {
                n = t.child(n, m(id));
            }
            t.nodes[n as usize].self_ns += v;
            let key: Vec<String> = path
                .iter()
                .map(|&id| label_name(&s, m(id)).replace([';', ' '], "_"))
                .collect();
            *want.entry(key.join(";")).or_default() += v;
        };
        add(&mut t, &[1], 5);
        add(&mut t, &[1, 3], 7);
        add(&mut t, &[2], 11);
        add(&mut t, &[2, 1, 1], 13);
        add(&mut t, &[3], 17);
        add(&mut t, &[4, 3], 19);
        add(&mut t, &[5, 2], 23);
        add(&mut t, &[1, 2, 4], 29);
        let mut expected = String::new();
        for (k, v) in &want {
            expected.push_str(&format!("{k} {v}\n"));
        }
        assert_eq!(folded_text(&s, &t, false, 0), expected);
    }
}
