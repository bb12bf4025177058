//! `jtrace tree`: the call tree merged by path, per thread.

use crate::cmd::common::Input;

use super::common::{duration, Select, Stream};
use crate::analysis::tree::{CallTree, ANSWER_BYTES};
use crate::render;
use crate::split;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub select: Select,
    /// Hide frames whose total time is under TIME (e.g. 1ms; 0ns shows every frame).
    /// Without it, the least that keeps the answer under 10 MB, said on stderr
    #[arg(long, value_name = "TIME", value_parser = duration)]
    pub min_time: Option<u64>,
    /// Show at most N levels of frames below each thread
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    #[command(flatten)]
    pub out: super::common::Out,
}

pub fn run(a: Args) -> Result<(), String> {
    super::common::form(a.out.output.as_deref(), super::common::Form::Text, &[])?;
    let mut t = CallTree::default();
    let s = split::run(
        &a.input.open()?,
        a.select.every_method("tree shows every method")?,
        &mut t,
    )?;
    super::common::say_cut(&s.file, &t.tree);
    // Depth 1 is the thread; frames start below it.
    let depth = a.depth.map(|d| d + 1);
    let min = super::common::min_or_fit(
        "tree",
        a.min_time,
        &s.model.syms,
        &t.tree,
        ANSWER_BYTES,
        depth,
    );
    let mut out = Stream::open(a.out.output.as_deref())?;
    let r = render::text::tree_to(&mut out, &s.model.syms, &t.tree, min, depth, true);
    out.finish(r)
}
