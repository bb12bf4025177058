//! A client of HotSpot's attach mechanism on Linux (what `jcmd` and jattach do): find the JVM's socket, start its attach listener if needed, send one `load` command and read the answer.
//!
//! Protocol (HotSpot `attachListener_linux.cpp`): the JVM listens on the UNIX socket
//! `/tmp/.java_pid<pid>` once its attach listener runs. To start it, a client creates
//! `.attach_pid<pid>` in the JVM's working directory (or `/tmp`) and sends SIGQUIT.
//! A request is `1\0<command>\0<arg1>\0<arg2>\0<arg3>\0`; the answer is a status line
//! (`0` = the command ran) followed by its output, which for `load` ends with
//! `return code: N` (what `Agent_OnAttach` returned).
//!
//! What is taken care of: the JVM's `/tmp` is reached through `/proc/<pid>/root/tmp`
//! (its mount namespace may differ), its pid inside its pid namespace (`NStgid`)
//! names the files, and as root the client takes the JVM's user and group (HotSpot
//! accepts only a client of its own effective uid and gid, or root, and ignores an
//! `.attach_pid` file it does not own).

use super::sys;
use std::io::{Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A running JVM that can be attached to.
pub struct Jvm {
    pub pid: u32,
    /// Its pid in its own pid namespace (names its socket and attach file).
    ns_pid: u32,
    uid: u32,
    gid: u32,
    /// Its `/tmp`, seen from here.
    pub tmp: PathBuf,
    /// Its memory map (which libraries it has loaded).
    maps: String,
}

/// How long the JVM may take to start its attach listener after SIGQUIT.
const LISTENER_WAIT: Duration = Duration::from_secs(10);
/// How long a command may take (a stop waits for the trace to be written).
const ANSWER_WAIT: Duration = Duration::from_secs(300);

impl Jvm {
    /// Checks that `pid` is a HotSpot JVM this user may attach to; nothing is sent yet.
    pub fn find(pid: u32) -> Result<Jvm, String> {
        let proc = PathBuf::from(format!("/proc/{pid}"));
        let status = std::fs::read_to_string(proc.join("status"))
            .map_err(|_| format!("no process with pid {pid}"))?;
        let maps = std::fs::read_to_string(proc.join("maps")).map_err(|e| {
            format!("cannot inspect process {pid} ({e}); attach as the JVM's user or as root")
        })?;
        if !maps.contains("/libjvm.so") {
            return Err(format!(
                "process {pid} is not a HotSpot JVM (no libjvm.so in /proc/{pid}/maps); nothing was sent to it"
            ));
        }
        let field = |name: &str| -> Vec<u32> {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| {
                    v.split_whitespace()
                        .filter_map(|x| x.parse().ok())
                        .collect()
                })
                .unwrap_or_default()
        };
        // Effective ids: the second column of Uid:/Gid:.
        let uid = field("Uid:").get(1).copied().unwrap_or(0);
        let gid = field("Gid:").get(1).copied().unwrap_or(0);
        let ns_pid = field("NStgid:").last().copied().unwrap_or(pid);
        // A JVM that ignores SIGQUIT's attach meaning would print a thread dump on its
        // stdout (DisableAttachMechanism) or die of the signal (-Xrs): never send it.
        let cmdline = std::fs::read(proc.join("cmdline")).unwrap_or_default();
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if args.iter().any(|a| a == "-XX:+DisableAttachMechanism") {
            return Err(format!(
                "JVM {pid} runs with -XX:+DisableAttachMechanism: it cannot be attached to"
            ));
        }
        if args.iter().any(|a| a == "-Xrs") {
            return Err(format!(
                "JVM {pid} runs with -Xrs (SIGQUIT would end it): it cannot be attached to; \
                 start it with -agentpath instead"
            ));
        }
        let (euid, _) = sys::effective_ids();
        if euid != 0 && euid != uid {
            return Err(format!(
                "JVM {pid} runs as uid {uid}, this command as uid {euid}: run jtrace as that \
                 user or as root"
            ));
        }
        let root_tmp = proc.join("root/tmp");
        let tmp = if root_tmp.is_dir() {
            root_tmp
        } else {
            PathBuf::from("/tmp")
        };
        Ok(Jvm {
            pid,
            ns_pid,
            uid,
            gid,
            tmp,
            maps,
        })
    }

    /// The path of a `libjtrace.so` the JVM has loaded, if any (a control request must
    /// reach that very library, not another copy).
    pub fn loaded_agent(&self) -> Option<String> {
        self.maps
            .lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .find(|p| p.ends_with("/libjtrace.so"))
            .map(str::to_string)
    }

    /// Takes the JVM's user and group if this process is root and they differ: files
    /// made from here on are the JVM's, and its socket accepts us.
    pub fn become_owner(&self) -> Result<(), String> {
        let (euid, egid) = sys::effective_ids();
        if euid == 0 && (self.uid != 0 || self.gid != egid) {
            sys::become_user(self.uid, self.gid)?;
        }
        Ok(())
    }

    fn socket_path(&self) -> PathBuf {
        self.tmp.join(format!(".java_pid{}", self.ns_pid))
    }

    fn socket_ready(&self) -> bool {
        std::fs::metadata(self.socket_path()).is_ok_and(|m| m.file_type().is_socket())
    }

    /// Starts the JVM's attach listener unless it runs already.
    fn start_listener(&self) -> Result<(), String> {
        if self.socket_ready() {
            return Ok(());
        }
        let name = format!(".attach_pid{}", self.ns_pid);
        let cwd = PathBuf::from(format!("/proc/{}/cwd", self.pid)).join(&name);
        let trigger = [cwd, self.tmp.join(&name)]
            .into_iter()
            .find(|p| std::fs::File::create(p).is_ok())
            .ok_or_else(|| {
                format!(
                    "cannot create {name} in the working directory or /tmp of JVM {}",
                    self.pid
                )
            })?;
        let result = sys::sigquit(self.pid).and_then(|()| {
            let deadline = Instant::now() + LISTENER_WAIT;
            let mut pause = Duration::from_millis(10);
            while !self.socket_ready() {
                if Instant::now() > deadline {
                    return Err(format!(
                        "JVM {} did not start its attach listener within {} s",
                        self.pid,
                        LISTENER_WAIT.as_secs()
                    ));
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            Ok(())
        });
        let _ = std::fs::remove_file(&trigger);
        result
    }

    /// Sends `load <library> true <options>`; returns what `Agent_OnAttach` returned
    /// and the JVM's text.
    pub fn load(&self, library: &str, options: &str) -> Result<(i32, String), String> {
        self.start_listener()?;
        let mut s = UnixStream::connect(self.socket_path())
            .map_err(|e| format!("cannot connect to JVM {}: {e}", self.pid))?;
        s.set_read_timeout(Some(ANSWER_WAIT)).ok();
        let mut req = Vec::new();
        for part in ["1", "load", library, "true", options] {
            if part.contains('\0') {
                return Err("an argument contains a NUL byte".to_string());
            }
            req.extend_from_slice(part.as_bytes());
            req.push(0);
        }
        s.write_all(&req)
            .map_err(|e| format!("cannot send to JVM {}: {e}", self.pid))?;
        let mut answer = String::new();
        s.read_to_string(&mut answer)
            .map_err(|e| format!("no answer from JVM {}: {e}", self.pid))?;
        let (status, rest) = answer.split_once('\n').unwrap_or((answer.as_str(), ""));
        if status.trim() != "0" {
            return Err(format!(
                "JVM {} refused the load command ({}): {}",
                self.pid,
                status.trim(),
                rest.trim()
            ));
        }
        let code = rest
            .lines()
            .find_map(|l| l.trim().strip_prefix("return code: "))
            .and_then(|c| c.trim().parse::<i32>().ok());
        match code {
            Some(c) => Ok((c, rest.trim().to_string())),
            None => Err(format!(
                "JVM {} could not load {library}: {}",
                self.pid,
                rest.trim()
            )),
        }
    }
}

/// A file in the JVM's /tmp for the agent's reply: made here (so the agent creates
/// none), owned by the JVM's user, removed when dropped.
pub struct ReplyFile {
    /// Where we read it.
    here: PathBuf,
    /// Where the JVM opens it.
    pub there: String,
}

impl ReplyFile {
    pub fn create(jvm: &Jvm) -> Option<ReplyFile> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(".jtrace-reply-{}-{nanos}", std::process::id());
        let here = jvm.tmp.join(&name);
        std::fs::File::create(&here).ok()?;
        Some(ReplyFile {
            here,
            there: format!("/tmp/{name}"),
        })
    }

    pub fn read(&self) -> String {
        std::fs::read_to_string(&self.here).unwrap_or_default()
    }
}

impl Drop for ReplyFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.here);
    }
}

/// `libjtrace.so` next to this executable (both in target/release).
pub fn agent_next_to_exe() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let lib = exe.parent()?.join("libjtrace.so");
    lib.is_file().then_some(lib)
}

/// An absolute path, from the current directory (the JVM's may differ).
pub fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
