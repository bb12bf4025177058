//! The control protocol: what `jtrace attach/start/stop/status` and `jtrace.Trace` send through `Agent_OnAttach` (or the tracker's `control` native), parsed; pure.
//!
//! A request is an agent option string that may begin with `jtrace-control=VERB`
//! (`start`, `stop`, `status`) and may carry `jtrace-reply=PATH`, a file the client
//! created for the answer (the attach protocol itself only carries a return code).
//! Without a verb the request is a plain load (`jtrace attach`, `jcmd
//! JVMTI.agent_load`). The remaining items are agent options.

/// What the client asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// Load the agent and trace (or idle, with `start=off`/`delay=`).
    Load,
    Start,
    Stop,
    Status,
    /// Write the ring to a file (`options`: empty, or `out=PATH`); recording goes on.
    Dump,
    /// Write a tag into the current trace (`jtrace.Trace.tag`): `options` holds its name
    /// and key/value pairs, one per line.
    Tag,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub verb: Verb,
    pub reply: Option<String>,
    /// The agent options, with the control items removed.
    pub options: String,
}

/// Splits the control items off an option string.
pub fn parse(s: &str) -> Result<Request, String> {
    if let Some(lines) = s.strip_prefix("jtrace-control=tag\n") {
        return Ok(Request {
            verb: Verb::Tag,
            reply: None,
            options: lines.to_string(),
        });
    }
    let mut verb = Verb::Load;
    let mut reply = None;
    let mut rest = Vec::new();
    for item in s.split(',') {
        if let Some(v) = item.strip_prefix("jtrace-control=") {
            verb = match v {
                "start" => Verb::Start,
                "stop" => Verb::Stop,
                "status" => Verb::Status,
                "dump" => Verb::Dump,
                _ => {
                    return Err(format!(
                        "unknown control request \"{v}\" (valid: start, stop, status, dump, tag)"
                    ))
                }
            };
        } else if let Some(p) = item.strip_prefix("jtrace-reply=") {
            reply = Some(p.to_string());
        } else {
            rest.push(item);
        }
    }
    if matches!(verb, Verb::Stop | Verb::Status) && rest.iter().any(|i| !i.is_empty()) {
        return Err(format!(
            "{} takes no options, got \"{}\"",
            if verb == Verb::Stop { "stop" } else { "status" },
            rest.join(",")
        ));
    }
    if verb == Verb::Dump {
        let bad: Vec<&str> = rest
            .iter()
            .copied()
            .filter(|i| !i.is_empty() && !i.starts_with("out="))
            .collect();
        if !bad.is_empty() || rest.iter().filter(|i| i.starts_with("out=")).count() > 1 {
            return Err(format!(
                "dump takes at most one out=PATH (a path without commas), got \"{}\"",
                rest.join(",")
            ));
        }
    }
    Ok(Request {
        verb,
        reply,
        options: rest.join(","),
    })
}

/// The file a dump request names (`out=PATH`), if any.
pub fn dump_path(options: &str) -> Option<&str> {
    options
        .split(',')
        .find_map(|i| i.strip_prefix("out="))
        .filter(|p| !p.is_empty())
}

/// How a request ended, as the client sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done.
    Ok,
    /// Not possible in the current state (stop with no trace, start while tracing,
    /// load when already loaded); nothing changed.
    Refused,
    /// Bad request (options, file); nothing changed.
    Error,
}

impl Outcome {
    /// The digit that starts the reply text handed to `jtrace.Trace`.
    pub fn digit(self) -> char {
        match self {
            Outcome::Ok => '0',
            Outcome::Refused => '1',
            Outcome::Error => '2',
        }
    }
}

/// A reply: outcome and the text for the user (one or more lines, no trailing newline).
pub type Reply = (Outcome, String);

/// Writes the reply into the file the client created for it (never creates one: the
/// agent creates no file but its traces). False if that is not possible.
pub fn write_reply(path: &str, text: &str) -> bool {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .and_then(|mut f| f.write_all(format!("{text}\n").as_bytes()))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_load() {
        let r = parse("out=x.xml,include=a.*").unwrap();
        assert_eq!(r.verb, Verb::Load);
        assert_eq!(r.options, "out=x.xml,include=a.*");
        assert_eq!(r.reply, None);
    }

    #[test]
    fn control_items_are_removed() {
        let r = parse("jtrace-control=start,jtrace-reply=/tmp/r,out=y.xml").unwrap();
        assert_eq!(r.verb, Verb::Start);
        assert_eq!(r.reply.as_deref(), Some("/tmp/r"));
        assert_eq!(r.options, "out=y.xml");
        assert_eq!(parse("jtrace-control=stop").unwrap().verb, Verb::Stop);
    }

    #[test]
    fn a_tag_keeps_its_lines_and_commas() {
        let r = parse("jtrace-control=tag\ntest\nname\na, b").unwrap();
        assert_eq!(r.verb, Verb::Tag);
        assert_eq!(r.options, "test\nname\na, b");
    }

    #[test]
    fn a_dump_names_at_most_one_file() {
        let r = parse("jtrace-control=dump,jtrace-reply=/tmp/r,out=/tmp/d.jtr").unwrap();
        assert_eq!(r.verb, Verb::Dump);
        assert_eq!(dump_path(&r.options), Some("/tmp/d.jtr"));
        assert_eq!(
            dump_path(&parse("jtrace-control=dump").unwrap().options),
            None
        );
        assert!(parse("jtrace-control=dump,out=a,out=b").is_err());
        assert!(parse("jtrace-control=dump,out=a,b").is_err());
    }

    #[test]
    fn bad_requests() {
        assert!(parse("jtrace-control=pause")
            .unwrap_err()
            .contains("valid: start"));
        assert!(parse("jtrace-control=stop,out=x")
            .unwrap_err()
            .contains("no options"));
    }
}
