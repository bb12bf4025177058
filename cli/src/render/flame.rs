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
pub fn svg(text: &str, title: &str, count_name: &str, out: &mut impl Write) -> Result<(), String> {
    // A trace with no calls (or none in the window) still gives a valid, empty graph.
    let text = if text.is_empty() {
        "(no calls) 1\n"
    } else {
        text
    };
    let mut opt = inferno::flamegraph::Options::default();
    opt.title = title.to_string();
    opt.count_name = count_name.to_string();
    opt.colors =
        inferno::flamegraph::color::Palette::Multi(inferno::flamegraph::color::MultiPalette::Java);
    inferno::flamegraph::from_lines(&mut opt, text.lines(), out)
        .map_err(|e| format!("flame graph: {e}"))
}
