//! Folded stacks (`a;b;c 123`) straight from a path tree, in memory bounded by the
//! tree: frames are merged by name into a tree of name ids, and the lines are written in
//! byte order (what a sorted map of whole strings would give) from one path buffer,
//! never a string per path.

pub use super::tree::ANSWER_BYTES;
use super::tree::{folded_name, PathTree, ROOT, THREAD};
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

/// What an answer made of folded stacks may take: the bytes of the folded lines
/// (`collapsed`), or of the flame graph's SVG drawn from them (`flame`), estimated per
/// frame drawn.
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    Lines(u64),
    Svg(u64),
}

/// Bytes of the SVG inferno writes for one frame besides its name, which it writes
/// twice (title and text): a `<g>` with a `<title>`, a `<rect>` with its position,
/// colour and width, and a `<text>`.
const SVG_FRAME: u64 = 330;

/// How light a subtree is folded into its caller ([`folded`]'s `min`): 0 when every
/// path fits `budget`, else the least power of two times `total >> 20` (`total`: the
/// weight of everything) under which the answer fits.
fn fit(n: &Names, weight: &[u64], budget: Budget) -> u64 {
    let total = weight[0];
    let mut min = 0;
    loop {
        if size(n, weight, min, budget) <= budget.bytes() || min > total {
            return min;
        }
        min = if min == 0 {
            (total >> 20).max(1)
        } else {
            min * 2
        };
    }
}

impl Budget {
    fn bytes(self) -> u64 {
        match self {
            Budget::Lines(b) | Budget::Svg(b) => b,
        }
    }
}

/// Per frame: the weight of its children lighter than `min`, drawn as its own.
fn folded_in(n: &Names, weight: &[u64], min: u64) -> Vec<u64> {
    let mut folded_in = vec![0u64; n.name.len()];
    for (&p, &w) in n.parent.iter().zip(weight).skip(1) {
        if p != NONE && p != 0 && w < min {
            folded_in[p as usize] += w;
        }
    }
    folded_in
}

/// The size of [`folded`]'s answer with `min`: one forward sweep (parents come before
/// their children), visiting what the writer visits.
fn size(n: &Names, weight: &[u64], min: u64, budget: Budget) -> u64 {
    let len = n.name.len();
    let name_len = |c: usize| n.names[n.name[c] as usize].len() as u64;
    let folded_in = folded_in(n, weight, min);
    // Per node: entered (its children visited), and its path's bytes.
    let mut entered = vec![false; len];
    entered[0] = true;
    let mut path = vec![0u64; len];
    let mut bytes = 0u64;
    for c in 1..len {
        let p = n.parent[c];
        if p == NONE || !entered[p as usize] {
            continue;
        }
        let light = weight[c] < min;
        if light && p != 0 {
            continue;
        }
        path[c] = if p == 0 { 0 } else { path[p as usize] + 1 } + name_len(c);
        entered[c] = !light;
        let v = if light {
            weight[c]
        } else {
            n.own[c] + folded_in[c]
        };
        bytes += match budget {
            Budget::Lines(_) if v > 0 => path[c] + 2 + itoa::Buffer::new().format(v).len() as u64,
            Budget::Lines(_) => 0,
            Budget::Svg(_) => SVG_FRAME + 2 * name_len(c),
        };
    }
    bytes
}

/// A path tree merged by frame name: node 0 is the root, parents come before their
/// children.
struct Names {
    /// Frame names (`;` and spaces replaced), by id.
    names: Vec<String>,
    /// Per node: name id (`NONE` for the root and for path nodes that are no node of
    /// their own, see [`Names::of`]).
    name: Vec<u32>,
    /// Per node: own value.
    own: Vec<u64>,
    /// Per node: parent (`NONE` for the root and the same path nodes).
    parent: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Names {
    /// The tree of `t` merged by name. Thread nodes (without `threads`) and extra root
    /// labels are no frame: their subtrees hang from the root.
    ///
    /// Nearly always no two siblings share a name (frames name overloads with their
    /// parameters), and then this is `t` itself, node for node, made without a map;
    /// otherwise nodes are merged through a map of (parent, name).
    fn of(s: &Symbols, t: &PathTree, threads: bool) -> Names {
        let len = t.nodes.len();
        let mut names: Vec<String> = Vec::new();
        // Name ids by label, made once per label; labels that share their name with
        // another label are `shared`.
        let mut name_of: FastMap<u32, u32> = FastMap::default();
        let mut by_name: HashMap<String, u32> = HashMap::new();
        let mut shared: Vec<bool> = Vec::new();
        // Per path node: its name id, or NONE when it is no frame.
        let mut ids = vec![NONE; len];
        // Per path node: whether it hangs from the root (it, or the no-frame node above).
        let mut at_root = vec![false; len];
        at_root[0] = true;
        let mut same = true;
        for (i, node) in t.nodes.iter().enumerate().skip(1) {
            if node.label == ROOT {
                at_root[i] = true;
                continue;
            }
            let parent = node.parent as usize;
            if node.label & THREAD != 0 && !threads {
                // Its children join the root's (or, below a frame, that frame's).
                at_root[i] = true;
                same &= at_root[parent];
                continue;
            }
            ids[i] = *name_of.entry(node.label).or_insert_with(|| {
                let name = folded_name(s, node.label);
                let next = names.len() as u32;
                match by_name.entry(name) {
                    std::collections::hash_map::Entry::Occupied(e) => {
                        shared[*e.get() as usize] = true;
                        *e.get()
                    }
                    std::collections::hash_map::Entry::Vacant(e) => {
                        names.push(e.key().clone());
                        shared.push(false);
                        e.insert(next);
                        next
                    }
                }
            });
        }
        // Two siblings of one name: only shared names, and the root's children (from
        // several threads) can be.
        let mut seen: FastMap<(u32, u32), ()> = FastMap::default();
        for (i, node) in t.nodes.iter().enumerate().skip(1) {
            let id = ids[i];
            if !same || id == NONE {
                continue;
            }
            let parent = node.parent as usize;
            let key = if at_root[parent] {
                (NONE, id)
            } else if shared[id as usize] {
                (node.parent, id)
            } else {
                continue;
            };
            same &= seen.insert(key, ()).is_none();
        }
        drop(seen);
        if same {
            let parent = t
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| match ids[i] {
                    NONE => NONE,
                    _ if at_root[n.parent as usize] => 0,
                    _ => n.parent,
                })
                .collect();
            let own = t
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| if ids[i] == NONE { 0 } else { n.self_ns })
                .collect();
            return Names {
                names,
                name: ids,
                own,
                parent,
            };
        }
        let mut n = Names {
            names,
            name: vec![NONE],
            own: vec![0],
            parent: vec![NONE],
        };
        let mut index: FastMap<(u32, u32), u32> = FastMap::default();
        // Path-tree node -> name-tree node.
        let mut map = vec![0u32; len];
        for (i, node) in t.nodes.iter().enumerate().skip(1) {
            let parent = map[node.parent as usize];
            if ids[i] == NONE {
                // The root's label again maps to the root, a thread node to its parent.
                map[i] = if node.label == ROOT { 0 } else { parent };
                continue;
            }
            let m = *index.entry((parent, ids[i])).or_insert_with(|| {
                n.name.push(ids[i]);
                n.own.push(0);
                n.parent.push(parent);
                n.name.len() as u32 - 1
            });
            map[i] = m;
            n.own[m as usize] += node.self_ns;
        }
        n
    }
}

/// How [`folded`] chooses its `min`.
#[derive(Debug, Clone, Copy)]
pub enum Min {
    /// This weight.
    Fixed(u64),
    /// The least that keeps the answer within the budget ([`fit`]), at least the
    /// weight given.
    Fit(Budget, u64),
}

/// The folded lines of `t` (self time per path, `threads`: the thread's name first),
/// exactly as sorting every path string would order and merge them; returns the `min`
/// it used (see [`Min`]) and the weight of everything. With `min` > 0,
/// a subtree lighter than `min` is not a line of its own: its whole weight is its
/// parent frame's own (a top frame's subtree becomes one line, its own). A flame graph
/// cannot draw frames that narrow anyway (inferno leaves out frames under 0.1 px, and
/// `min` is that); widths stay exact, and inferno merges one line for each frame
/// drawn instead of one for each light child (on javac, 68,000 lines of a hundred
/// frames and more, 23,000 instructions each, were a fifth of `report --html`).
pub fn folded(
    s: &Symbols,
    t: &PathTree,
    threads: bool,
    min: Min,
    out: &mut dyn Write,
) -> std::io::Result<(u64, u64)> {
    let n = Names::of(s, t, threads);
    let len = n.name.len();
    // Subtree weights (children come after their parents: one backward sweep).
    let mut weight = n.own.clone();
    for i in (1..len).rev() {
        let p = n.parent[i];
        if p != NONE {
            weight[p as usize] += weight[i];
        }
    }
    let min = match min {
        Min::Fixed(m) => m,
        Min::Fit(budget, least) => fit(&n, &weight, budget).max(least),
    };
    let folded_in = folded_in(&n, &weight, min);
    // Children of each node, together: `kids[first[p]..first[p + 1]]`.
    let mut first = vec![0u32; len + 1];
    for &p in &n.parent {
        if p != NONE {
            first[p as usize + 1] += 1;
        }
    }
    for i in 0..len {
        first[i + 1] += first[i];
    }
    let mut kids = vec![0u32; first[len] as usize];
    let mut next = first.clone();
    for (i, &p) in n.parent.iter().enumerate() {
        if p != NONE {
            kids[next[p as usize] as usize] = i as u32;
            next[p as usize] += 1;
        }
    }
    drop(next);
    let children = |p: u32| &kids[first[p as usize] as usize..first[p as usize + 1] as usize];
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
    let name = |c: u32| n.names[n.name[c as usize] as usize].as_bytes();
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
                    value.push_str(itoa::Buffer::new().format(v));
                    value.push('\n');
                    out.write_all(&path)?;
                    out.write_all(name(c))?;
                    out.write_all(value.as_bytes())?;
                }
            }
            Step::Leave(len) => path.truncate(len),
            Step::Enter(p) => {
                let at = path.len();
                if p != 0 {
                    path.extend_from_slice(name(p));
                    path.push(b';');
                }
                for &c in children(p) {
                    let id = n.name[c as usize];
                    let light = weight[c as usize] < min;
                    if light && p != 0 {
                        continue;
                    }
                    let own = if light {
                        weight[c as usize]
                    } else {
                        n.own[c as usize] + folded_in[c as usize]
                    };
                    items.push((rank[id as usize * 2], Step::Line(c, own)));
                    if !light && !children(c).is_empty() {
                        items.push((rank[id as usize * 2 + 1], Step::Enter(c)));
                    }
                }
                items.sort_unstable_by_key(|x| x.0);
                todo.push(Step::Leave(at));
                todo.extend(items.drain(..).rev().map(|x| x.1));
            }
        }
    }
    Ok((min, weight[0]))
}

/// How a flame graph of `t` chooses its `min`: within [`ANSWER_BYTES`] of SVG, and no
/// narrower than inferno draws ([`flame_min`]).
pub fn for_flame(t: &PathTree) -> Min {
    Min::Fit(Budget::Svg(ANSWER_BYTES), flame_min(t))
}

/// [`folded`] into a string (what a flame graph is drawn from), and the `min` it used
/// and the weight of everything.
pub fn folded_text(s: &Symbols, t: &PathTree, threads: bool, min: Min) -> (String, u64, u64) {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let (min, total) = folded(s, t, threads, min, &mut out).unwrap_or((0, 0));
    // Names are strings already: valid UTF-8, kept without a copy.
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (text, min, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// An overload's parameters read `(String,int)` in a folded frame (not
    /// `(String,_int)`); a thread's name keeps no space, a name no `;`.
    #[test]
    fn folded_names_keep_separators_out() {
        let mut s = Symbols::default();
        s.add_class(1, "q.Query");
        s.add_method(1, 1, "query", "(Ljava/lang/String;I)V");
        s.add_method(2, 1, "query", "()V");
        s.add_method(3, 1, "odd;name", "()V");
        let (two, odd) = (s.method_or_placeholder(1), s.method_or_placeholder(3));
        let th = s.add_thread(crate::model::ThreadInfo {
            id: 7,
            name: "Reference Handler".into(),
            start: 0,
            end: None,
            included: true,
            group: None,
        });
        assert_eq!(folded_name(&s, two), "Query.query(String,int)");
        assert_eq!(folded_name(&s, odd), "Query.odd_name");
        assert_eq!(folded_name(&s, THREAD | th), "Reference_Handler");
    }

    /// Under `min`, a light frame's weight is its parent's own; a light top frame is one
    /// line with its subtree's weight; nothing is lost.
    #[test]
    fn light_subtrees_are_their_parents_own() {
        let mut s = Symbols::default();
        s.add_class(1, "A");
        for (id, name) in [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e"), (6, "f")] {
            s.add_method(id, 1, name, "()V");
        }
        let ix: Vec<u32> = (1..=6).map(|id| s.method_or_placeholder(id)).collect();
        let mut t = PathTree::new(ROOT);
        let th = t.child(0, THREAD);
        let mut add = |path: &[usize], v: u64| {
            let mut n = th;
            for &i in path {
                n = t.child(n, ix[i - 1]);
            }
            t.nodes[n as usize].self_ns += v;
        };
        add(&[1], 100);
        add(&[1, 2], 1);
        add(&[1, 3], 50);
        add(&[1, 3, 4], 2);
        add(&[5], 3);
        add(&[5, 6], 4);
        let name = |i: usize| folded_name(&s, ix[i - 1]);
        let (a, c, e) = (name(1), name(3), name(5));
        assert_eq!(
            folded_text(&s, &t, false, Min::Fixed(10)).0,
            format!("{a} 101\n{a};{c} 52\n{e} 7\n")
        );
        // Without `min`, every path.
        assert_eq!(
            folded_text(&s, &t, false, Min::Fixed(0)).0.lines().count(),
            6
        );
    }

    /// Fitted to a budget, the folded lines stay under it and lose no weight: what is
    /// left out is in its caller's own line.
    #[test]
    fn fitted_lines_stay_under_the_budget_and_keep_every_nanosecond() {
        let mut s = Symbols::default();
        s.add_class(1, "A");
        let ix: Vec<u32> = (1..=40)
            .map(|id| {
                s.add_method(id, 1, &format!("m{id}"), "()V");
                s.method_or_placeholder(id)
            })
            .collect();
        let mut t = PathTree::new(ROOT);
        let th = t.child(0, THREAD);
        // A binary tree of calls 12 levels deep: 8,191 paths.
        let mut todo = vec![(th, 0usize, 1u64)];
        while let Some((n, depth, v)) = todo.pop() {
            t.nodes[n as usize].self_ns += v;
            if depth < 12 {
                for k in 0..2 {
                    let c = t.child(n, ix[depth * 2 + k]);
                    todo.push((c, depth + 1, v + k as u64));
                }
            }
        }
        let weight: u64 = t.nodes.iter().map(|n| n.self_ns).sum();
        let sum = |text: &str| -> u64 {
            text.lines()
                .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
                .sum()
        };
        let (all, min, total) = folded_text(&s, &t, false, Min::Fixed(0));
        assert_eq!((min, total), (0, weight - 1));
        for budget in [all.len() as u64, 20_000, 2_000] {
            let (fit, min, total) = folded_text(&s, &t, false, Min::Fit(Budget::Lines(budget), 0));
            assert!(fit.len() as u64 <= budget, "{} > {budget}", fit.len());
            assert_eq!(sum(&fit), total);
            assert_eq!(min == 0, budget == all.len() as u64);
        }
    }

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
            let key: Vec<String> = path.iter().map(|&id| folded_name(&s, m(id))).collect();
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
        assert_eq!(folded_text(&s, &t, false, Min::Fixed(0)).0, expected);
    }
}
