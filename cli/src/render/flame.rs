//! Folded stacks (`a;b;c 123`) and inferno's flame graph SVG over them.
//!
//! inferno is CDDL-1.0 licensed (it ports Brendan Gregg's FlameGraph); its notice ships
//! with jtrace in `LICENSES/inferno-CDDL-1.0.txt` and is named by `jtrace --version`.

use std::collections::BTreeMap;
use std::io::Write;

/// Folded lines, one per stack, as flamegraph.pl and speedscope read them.
pub fn folded(stacks: &BTreeMap<String, u64>, out: &mut impl Write) -> std::io::Result<()> {
    for (stack, v) in stacks {
        if *v > 0 && !stack.is_empty() {
            writeln!(out, "{stack} {v}")?;
        }
    }
    Ok(())
}

/// The flame graph SVG of folded stacks. `count_name` is the unit of the values.
pub fn svg(
    stacks: &BTreeMap<String, u64>,
    title: &str,
    count_name: &str,
    out: &mut impl Write,
) -> Result<(), String> {
    // One copy of the folded text, borrowed line by line (not a string per line).
    let mut text = Vec::new();
    folded(stacks, &mut text).map_err(|e| e.to_string())?;
    if text.is_empty() {
        // A trace with no calls (or none in the window) still gives a valid, empty graph.
        text.extend_from_slice(b"(no calls) 1\n");
    }
    let text = String::from_utf8(text).map_err(|e| format!("flame graph: {e}"))?;
    let mut opt = inferno::flamegraph::Options::default();
    opt.title = title.to_string();
    opt.count_name = count_name.to_string();
    opt.colors =
        inferno::flamegraph::color::Palette::Multi(inferno::flamegraph::color::MultiPalette::Java);
    inferno::flamegraph::from_lines(&mut opt, text.lines(), out)
        .map_err(|e| format!("flame graph: {e}"))
}
