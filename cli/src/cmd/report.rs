//! `jtrace report`: the one-screen answer (text, `--json` or `--html`).

use crate::cmd::common::Input;

use super::common::{emit, json, Form, Select};
use crate::analysis::folded;
use crate::analysis::report::Report;
use crate::analysis::tree::CallTree;
use crate::render;
use crate::split;

/// Rows per table in the text report unless --top says otherwise.
const TEXT_TOP: usize = 20;
/// Rows per table in the HTML report unless --top says otherwise.
const HTML_TOP: usize = 200;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub select: Select,
    /// Rows per table (text: 20, HTML: 200, JSON: all)
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// One JSON object (schema in docs/CLI.md)
    #[arg(long, conflicts_with = "html")]
    pub json: bool,
    /// A self-contained HTML page: sortable tables, flame graph, slowest calls
    #[arg(long)]
    pub html: bool,
    #[command(flatten)]
    pub out: super::common::Out,
}

pub fn run(mut a: Args) -> Result<(), String> {
    let form = super::common::form(
        a.out.output.as_deref(),
        Form::Text,
        &[(Form::Json, a.json), (Form::Html, a.html)],
    )?;
    (a.json, a.html) = (form == Form::Json, form == Form::Html);
    let filter = a.select.filter()?;
    // The path tree only for the page's flame graph.
    let mut both = (
        Report::slowest_of(filter.method.clone()),
        a.html.then(CallTree::default),
    );
    let s = split::run(&a.input.open()?, filter.clone(), &mut both)?;
    let (report, tree) = both;
    let ok = |m: &str| filter.method_ok(m);
    let out = if a.json {
        json(&report.doc(&s, &ok, a.top))?
    } else if a.html {
        let doc = report.doc(&s, &ok, Some(a.top.unwrap_or(HTML_TOP)));
        let mut svg = Vec::new();
        let title = format!("{} (self time, ns)", s.file);
        let tree = tree.as_ref().map(|t| &t.tree).ok_or("no call tree")?;
        super::common::say_cut(&s.file, tree);
        let (folded, min, total) =
            folded::folded_text(&s.model.syms, tree, false, folded::for_flame(tree));
        super::common::say_min("report --html's flame graph", min, total, "");
        render::flame::svg(&folded, &title, "ns", &mut svg)?;
        render::html::page(&doc, &svg).into_bytes()
    } else {
        // The totals over every method, beside the top rows.
        let all = report.doc(&s, &ok, None);
        let doc = report.doc(&s, &ok, Some(a.top.unwrap_or(TEXT_TOP)));
        render::text::report(&doc, &all).into_bytes()
    };
    emit(a.out.output.as_deref(), &out)
}
