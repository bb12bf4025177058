//! `jtrace attach/start/stop/status PID`: load the agent into a running JVM and control its traces through HotSpot's attach mechanism.
//!
//! Every command is one `load` request on the JVM's attach socket. The first loads
//! `libjtrace.so` with the agent options; later ones reach the loaded agent through
//! `Agent_OnAttach` again, with `jtrace-control=start|stop|status` in front of the
//! options. The agent writes its answer into a file this command made in the JVM's
//! `/tmp` (`jtrace-reply=`), and returns 0 (done), 1 (refused: nothing changed) or
//! -1 (error). See docs/CLI.md, "Controlling a running JVM".

mod hotspot;
#[allow(unsafe_code)] // geteuid/setegid/seteuid/kill through libc: SAFETY comments there
mod sys;

use clap::Args;
use hotspot::{Jvm, ReplyFile};
use std::path::PathBuf;

#[derive(Args)]
pub struct AttachArgs {
    /// Process id of the running JVM.
    pub pid: u32,
    /// Agent options, as after `-agentpath:libjtrace.so=` (e.g. out=/tmp/t-%p.xml,include=com.foo.*).
    /// Relative `out=` and `filters=` paths are made absolute here.
    #[arg(default_value = "")]
    pub options: String,
    /// The agent library (default: libjtrace.so next to this jtrace executable).
    #[arg(long, value_name = "PATH")]
    pub agent: Option<PathBuf>,
}

#[derive(Args)]
pub struct StartArgs {
    /// Process id of the JVM (the agent must be loaded: jtrace attach).
    pub pid: u32,
    /// Options of the new trace: out, include, exclude, filters, delay, duration.
    #[arg(default_value = "")]
    pub options: String,
}

#[derive(Args)]
pub struct DumpArgs {
    /// Process id of the JVM (the agent must be recording with ring=SIZE).
    pub pid: u32,
    /// Where the JVM writes the dump (.jtr, .xml, .xml.gz, .xml.zst; default: the
    /// agent's out= with %n the dump's number).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

#[derive(Args)]
pub struct PidArg {
    /// Process id of the JVM.
    pub pid: u32,
}

/// `jtrace attach PID [OPTIONS]`.
pub fn attach(a: &AttachArgs) -> Result<(), String> {
    let jvm = Jvm::find(a.pid)?;
    // Loaded already: the request must reach that library (it will say so).
    let lib = match jvm.loaded_agent() {
        Some(p) => p,
        None => {
            let p = match &a.agent {
                Some(p) => hotspot::absolute(p),
                None => hotspot::agent_next_to_exe().ok_or(
                    "cannot find libjtrace.so next to the jtrace executable; give --agent PATH",
                )?,
            };
            if !p.is_file() {
                return Err(format!("no agent library at {}", p.display()));
            }
            p.display().to_string()
        }
    };
    request(&jvm, &lib, "", &absolute_paths(&a.options))
}

/// `jtrace start PID [OPTIONS]`.
pub fn start(a: &StartArgs) -> Result<(), String> {
    control(a.pid, "start", &absolute_paths(&a.options))
}

/// `jtrace stop PID`.
pub fn stop(a: &PidArg) -> Result<(), String> {
    control(a.pid, "stop", "")
}

/// `jtrace dump PID [-o FILE]`: the agent writes its ring as a complete trace.
pub fn dump(a: &DumpArgs) -> Result<(), String> {
    let options = match &a.output {
        None => String::new(),
        Some(p) => {
            // The JVM runs elsewhere: it gets the path as the user meant it here.
            let p = std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let s = p.display().to_string();
            if s.contains(',') {
                return Err(format!(
                    "the dump's path {s} has a comma, which the agent's options cannot carry \
                     (valid: a path without commas)"
                ));
            }
            format!("out={s}")
        }
    };
    control(a.pid, "dump", &options)
}

/// `jtrace status PID`.
pub fn status(a: &PidArg) -> Result<(), String> {
    let jvm = Jvm::find(a.pid)?;
    match jvm.loaded_agent() {
        // Not loaded: said without attaching (nothing is sent to the JVM).
        None => {
            println!(
                "state: not loaded (the jtrace agent is not in JVM {})",
                a.pid
            );
            Ok(())
        }
        Some(lib) => request(&jvm, &lib, "jtrace-control=status", ""),
    }
}

fn control(pid: u32, verb: &str, options: &str) -> Result<(), String> {
    let jvm = Jvm::find(pid)?;
    let Some(lib) = jvm.loaded_agent() else {
        return Err(format!(
            "the jtrace agent is not loaded in JVM {pid}; load it with jtrace attach {pid} [OPTIONS]"
        ));
    };
    request(&jvm, &lib, &format!("jtrace-control={verb}"), options)
}

/// Sends one request and prints the agent's answer: on stdout when it was done, as
/// the error otherwise.
fn request(jvm: &Jvm, lib: &str, control: &str, options: &str) -> Result<(), String> {
    jvm.become_owner()?;
    let reply = ReplyFile::create(jvm);
    let mut items: Vec<String> = Vec::new();
    if !control.is_empty() {
        items.push(control.to_string());
    }
    if let Some(r) = &reply {
        items.push(format!("jtrace-reply={}", r.there));
    }
    if !options.is_empty() {
        items.push(options.to_string());
    }
    let (code, jvm_text) = jvm.load(lib, &items.join(","))?;
    let text = reply.as_ref().map(ReplyFile::read).unwrap_or_default();
    let text = text.trim_end();
    let text = if text.is_empty() {
        format!("(no reply from the agent; the JVM said: {jvm_text})")
    } else {
        text.to_string()
    };
    match code {
        0 => {
            println!("{text}");
            Ok(())
        }
        _ => Err(text.strip_prefix("jtrace: ").unwrap_or(&text).to_string()),
    }
}

/// `out=`, `jtr=` and `filters=` relative to where jtrace runs, not to the JVM's directory.
fn absolute_paths(options: &str) -> String {
    options
        .split(',')
        .map(|item| match item.split_once('=') {
            Some((k @ ("out" | "jtr" | "filters"), v)) if !v.is_empty() && !v.starts_with('/') => {
                format!(
                    "{k}={}",
                    hotspot::absolute(std::path::Path::new(v)).display()
                )
            }
            _ => item.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_become_absolute() {
        let cwd = std::env::current_dir().unwrap();
        let o = absolute_paths("out=t-%n.xml,include=a.*,filters=f.txt,out=/abs.xml");
        assert_eq!(
            o,
            format!(
                "out={}/t-%n.xml,include=a.*,filters={}/f.txt,out=/abs.xml",
                cwd.display(),
                cwd.display()
            )
        );
        assert_eq!(absolute_paths(""), "");
    }

    #[test]
    fn not_a_jvm_is_refused_before_anything_is_sent() {
        let e = Jvm::find(std::process::id()).err().unwrap();
        assert!(e.contains("not a HotSpot JVM"), "{e}");
        let e = Jvm::find(u32::MAX - 1).err().unwrap();
        assert!(e.contains("no process"), "{e}");
    }
}
