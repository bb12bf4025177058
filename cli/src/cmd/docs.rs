//! `jtrace completions SHELL` and `jtrace man DIR`: shell completion scripts and man
//! pages made from the command line's own definitions (clap_complete, clap_mangen), so
//! they never disagree with what the parser accepts.

use super::common::emit;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(after_help = "Example: jtrace completions bash > /etc/bash_completion.d/jtrace")]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(clap::Args, Debug)]
#[command(after_help = "Example: jtrace man /usr/local/share/man/man1")]
pub struct ManArgs {
    /// The directory to write jtrace.1 and jtrace-SUBCOMMAND.1 into (it must exist)
    pub dir: PathBuf,
}

/// The completion script for `a.shell` on stdout; `cmd` is the parser's definition.
pub fn completions(mut cmd: clap::Command, a: CompletionsArgs) -> Result<(), String> {
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "jtrace", &mut out);
    emit(None, &out)
}

/// One man page for the command and one per subcommand (`jtrace-report.1`, ...).
pub fn man(cmd: clap::Command, a: ManArgs) -> Result<(), String> {
    if !a.dir.is_dir() {
        return Err(format!("{}: not a directory", a.dir.display()));
    }
    let cmd = cmd.name("jtrace");
    let mut pages = vec![("jtrace".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands() {
        let name = format!("jtrace-{}", sub.get_name());
        pages.push((name.clone(), sub.clone().name(name)));
    }
    // Every page's header names the version (one line: `-V`'s, not `--version`'s).
    let pages = pages
        .into_iter()
        .map(|(name, page)| (name, page.version(trace::VERSION)));
    for (name, page) in pages {
        let mut roff = Vec::new();
        clap_mangen::Man::new(page)
            .render(&mut roff)
            .map_err(|e| format!("{name}.1: {e}"))?;
        let path = a.dir.join(format!("{name}.1"));
        std::fs::write(&path, roff)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    eprintln!(
        "jtrace: wrote {} man pages to {}",
        cmd.get_subcommands().count() + 1,
        a.dir.display()
    );
    Ok(())
}
