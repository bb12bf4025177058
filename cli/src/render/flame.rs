//! Folded stacks (`a;b;c 123`) and inferno's flame graph SVG over them.
//!
//! inferno is CDDL-1.0 licensed (it ports Brendan Gregg's FlameGraph); its notice ships
//! with jtrace in `LICENSES/inferno-CDDL-1.0.txt` and is named by `jtrace --version`.

use std::collections::BTreeMap;
use std::io::Write;

/// Folded lines, one per stack, as flamegraph.pl and speedscope read them.
pub fn folded(stacks: &BTreeMap<String, u64>, out: &mut dyn Write) -> std::io::Result<()> {
    for (stack, v) in stacks {
        if *v > 0 && !stack.is_empty() {
            writeln!(out, "{stack} {v}")?;
        }
    }
    Ok(())
}

/// The flame graph SVG of folded lines. `count_name` is the unit of the values.
/// jtrace's folded lines come sorted by stack (`analysis::folded` makes them in that
/// order, [`folded`] from a sorted map): inferno is told so and does not sort them
/// again (a fifth of its time on javac). Should they not be, inferno says so before
/// it draws anything, and they are sorted after all.
pub fn svg(text: &str, title: &str, count_name: &str, out: &mut Vec<u8>) -> Result<(), String> {
    // A trace with no calls (or none in the window) still gives a valid, empty graph.
    let text = if text.is_empty() {
        "(no calls) 1\n"
    } else {
        text
    };
    let options = |no_sort: bool| {
        let mut opt = inferno::flamegraph::Options::default();
        opt.title = title.to_string();
        opt.count_name = count_name.to_string();
        opt.colors = inferno::flamegraph::color::Palette::Multi(
            inferno::flamegraph::color::MultiPalette::Java,
        );
        // A frame's colour from its name (flamegraph.pl's --hash): the same method has
        // the same colour in every graph, every run (not inferno's random pick).
        opt.hash = true;
        opt.no_sort = no_sort;
        opt
    };
    let start = out.len();
    if inferno::flamegraph::from_lines(&mut options(true), text.lines(), &mut *out).is_err() {
        out.truncate(start);
        inferno::flamegraph::from_lines(&mut options(false), text.lines(), &mut *out)
            .map_err(|e| format!("flame graph: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Lines out of order are drawn as inferno draws them sorted, colours and all.
    #[test]
    fn unsorted_lines_are_sorted_after_all() {
        let sorted = "a 1\na;b 2\na;c 3\nd 4\n";
        let unsorted = "d 4\na;c 3\na 1\na;b 2\n";
        let (mut x, mut y) = (Vec::new(), Vec::new());
        super::svg(sorted, "t", "ns", &mut x).unwrap();
        super::svg(unsorted, "t", "ns", &mut y).unwrap();
        let (x, y) = (String::from_utf8_lossy(&x), String::from_utf8_lossy(&y));
        assert!(x.contains("<svg"));
        assert!(x == y, "sorted:\n{x}\nunsorted:\n{y}");
    }

    /// A frame's colour is its name's: the same in a graph drawn later, and in another
    /// graph where it is one frame among others.
    #[test]
    fn a_frame_has_its_names_colour_in_every_graph() {
        let fill = |svg: &[u8], name: &str| -> String {
            let svg = String::from_utf8_lossy(svg);
            let at = svg.find(&format!("<title>{name} (")).expect("frame drawn");
            let rest = &svg[at..];
            let f = rest.find("fill=\"").expect("frame filled") + 6;
            rest[f..].split('"').next().unwrap_or_default().to_string()
        };
        let mut graphs = Vec::new();
        for text in ["p.A.run 5\np.A.run;p.B.go 3\n", "q.C.x 9\nq.C.x;p.B.go 1\n"] {
            let mut out = Vec::new();
            super::svg(text, "t", "ns", &mut out).unwrap();
            graphs.push(out);
        }
        let mut again = Vec::new();
        super::svg("p.A.run 5\np.A.run;p.B.go 3\n", "t", "ns", &mut again).unwrap();
        assert_eq!(graphs[0], again);
        assert_eq!(fill(&graphs[0], "p.B.go"), fill(&graphs[1], "p.B.go"));
    }
}
