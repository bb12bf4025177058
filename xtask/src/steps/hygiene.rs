//! Step `hygiene` of `cargo xtask test`: the trace honours the umask, the agent opens no socket, and it creates or writes no file but `out`.
//!
//! How, without strace:
//! * **Imports.** `libjtrace.so` may not import any socket, name-service or
//!   interface-listing function from libc (`nm -D --undefined-only`).
//! * **Sockets at run time.** The JVM runs under a seccomp filter (installed between
//!   fork and exec) that kills the process on `socket`/`socketpair` of any family but
//!   `AF_UNIX` (x86_64). `AF_UNIX` stays allowed because the JVM itself opens such
//!   sockets: glibc asks nscd when the JVM looks up the user (`getpwuid`); the import
//!   check covers the agent there. A run of `Hygiene socket` without the agent must be
//!   killed (SIGSYS): the trap works.
//! * **Files.** The JVM runs in private, empty directories (working directory, `HOME`,
//!   `TMPDIR`, `java.io.tmpdir`, `-XX:-UsePerfData`). While it runs, its
//!   `/proc/PID/fd` and `fdinfo` are polled for regular files open for writing. Run
//!   with the agent, the files seen must be those of a run without it plus `out`
//!   (which must be seen: the poller works), and afterwards the private directories
//!   hold `out` and nothing else.
//! * **Umask.** Run under umask 027, `out` must have mode 0640.

use crate::java::{self, Jdk};
use crate::proc::Proc;
use crate::util;
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// libc functions the agent must not import: sockets, name service, interface lists.
const FORBIDDEN_IMPORTS: &[&str] = &[
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendto",
    "sendmsg",
    "recvfrom",
    "recvmsg",
    "getifaddrs",
    "getaddrinfo",
    "gethostbyname",
    "gethostbyname_r",
    "getpwuid",
    "getpwuid_r",
    "getpwnam",
    "getpwnam_r",
];

const UMASK: u32 = 0o027;
const SIGSYS: i32 = 31;

/// The symbols `lib` imports (`nm -D --undefined-only`), without version suffixes.
fn imports(lib: &Path) -> Result<BTreeSet<String>, String> {
    let out = Command::new("nm")
        .args(["-D", "--undefined-only"])
        .arg(lib)
        .output()
        .map_err(|e| format!("cannot run nm (apt-get install binutils): {e}"))?;
    if !out.status.success() {
        return Err(format!("nm {} failed", lib.display()));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(|s| s.split('@').next().unwrap_or(s).to_string())
        .collect())
}

/// The agent library imports nothing that opens a socket or asks the name service.
pub fn check_imports(agent: &Path) -> Result<(), String> {
    let found: Vec<String> = imports(agent)?
        .into_iter()
        .filter(|s| FORBIDDEN_IMPORTS.contains(&s.as_str()))
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("{} imports {found:?}", agent.display()))
    }
}

/// The seccomp program: kill the process on socket/socketpair of a family other than
/// AF_UNIX; allow everything else.
fn socket_trap() -> [libc::sock_filter; 10] {
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_KILL_PROCESS: u32 = 0x8000_0000;
    let f = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    [
        f(LD_W_ABS, 0, 0, 4),                        // 0: seccomp_data.arch
        f(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),           // 1: x86_64? -> 3
        f(RET_K, 0, 0, RET_ALLOW),                   // 2: other ABIs: not checked
        f(LD_W_ABS, 0, 0, 0),                        // 3: seccomp_data.nr
        f(JEQ_K, 1, 0, libc::SYS_socket as u32),     // 4: socket -> 6
        f(JEQ_K, 0, 3, libc::SYS_socketpair as u32), // 5: socketpair -> 6, else -> 9
        f(LD_W_ABS, 0, 0, 16),                       // 6: args[0] (domain), low word
        f(JEQ_K, 1, 0, libc::AF_UNIX as u32),        // 7: AF_UNIX -> 9
        f(RET_K, 0, 0, RET_KILL_PROCESS),            // 8
        f(RET_K, 0, 0, RET_ALLOW),                   // 9
    ]
}

struct Outcome {
    status: std::process::ExitStatus,
    /// Regular files the JVM held open for writing, seen while polling.
    written: BTreeSet<String>,
    stderr: String,
}

/// Private directories of one run.
struct Dirs {
    root: PathBuf,
    cwd: PathBuf,
    home: PathBuf,
    tmp: PathBuf,
    out: PathBuf,
}

impl Dirs {
    fn new(root: PathBuf) -> Result<Dirs, String> {
        let _ = std::fs::remove_dir_all(&root);
        let d = Dirs {
            cwd: root.join("cwd"),
            home: root.join("home"),
            tmp: root.join("tmp"),
            out: root.join("out"),
            root,
        };
        for p in [&d.cwd, &d.home, &d.tmp, &d.out] {
            std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(d)
    }

    /// Every file under the private directories, relative to the run's root.
    fn files(&self) -> Vec<String> {
        fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, root, out);
                } else {
                    out.push(p.strip_prefix(root).unwrap_or(&p).display().to_string());
                }
            }
        }
        let mut v = Vec::new();
        walk(&self.root, &self.root, &mut v);
        v.sort();
        v
    }
}

/// Regular files `pid` has open for writing now (paths).
fn writable_files(pid: u32, into: &mut BTreeSet<String>) {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return;
    };
    for e in fds.flatten() {
        let Ok(target) = std::fs::read_link(e.path()) else {
            continue;
        };
        let target = target.display().to_string();
        if !target.starts_with('/') || target.starts_with("/dev/") {
            continue; // pipes, sockets, anonymous inodes, terminals
        }
        if target.starts_with("/proc/") || target.starts_with("/sys/") {
            // Kernel settings, not files: HotSpot itself writes
            // /proc/self/coredump_filter at start-up, briefly enough that polling
            // catches it in one run and not the other.
            continue;
        }
        let info = std::fs::read_to_string(format!(
            "/proc/{pid}/fdinfo/{}",
            e.file_name().to_string_lossy()
        ))
        .unwrap_or_default();
        let flags = info
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .unwrap_or(0);
        if flags & libc::O_ACCMODE as u32 != libc::O_RDONLY as u32 {
            into.insert(target);
        }
    }
}

fn run_jvm(
    jdk: &Jdk,
    classes: &Path,
    dirs: &Dirs,
    agent: Option<&str>,
    arg: &str,
) -> Result<Outcome, String> {
    let mut cmd = java::Run::new(jdk)
        .arg("-XX:-UsePerfData")
        .arg(format!("-Djava.io.tmpdir={}", dirs.tmp.display()))
        .args(agent)
        .class_path(classes)
        .main("Hygiene")
        .args((!arg.is_empty()).then_some(arg))
        .env("HOME", &dirs.home)
        .env("TMPDIR", &dirs.tmp)
        .command();
    let filter = socket_trap();
    // SAFETY: the closure runs in the child between fork and exec and makes only
    // async-signal-safe system calls (umask, prctl) on memory prepared before the fork
    // (`filter`, `prog`), which the fork copied.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(UMASK);
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &prog as *const libc::sock_fprog,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let cwd = dirs.cwd.clone();
    let child = Proc::spawn(cmd, &cwd).map_err(|e| format!("{e} (under the socket trap)"))?;
    let mut written = BTreeSet::new();
    let finished =
        child.finish_watching(Duration::from_secs(120), Duration::from_millis(1), |pid| {
            writable_files(pid, &mut written)
        });
    if finished.timed_out {
        return Err("timeout: killed after 120 s".to_string());
    }
    Ok(Outcome {
        status: finished.status,
        written,
        stderr: finished.stderr,
    })
}

/// The hygiene checks on one JDK in one agent mode.
pub fn run(jdk: &Jdk, mode: &str, classes: &Path, agent: &Path, work: &Path) -> Result<(), String> {
    if std::env::consts::ARCH != "x86_64" {
        return Err("the socket trap is written for x86_64 only".to_string());
    }
    let work = work.join(mode);
    // The trap works: a socket of the JVM's own kills it.
    let probe = Dirs::new(work.join("probe"))?;
    let o = run_jvm(jdk, classes, &probe, None, "socket")?;
    if o.status.signal() != Some(SIGSYS) {
        return Err(format!(
            "the socket trap did not fire: `Hygiene socket` ended with {}",
            o.status
        ));
    }
    // Without the agent: what the JVM itself writes.
    let base_dirs = Dirs::new(work.join("base"))?;
    let base = run_jvm(jdk, classes, &base_dirs, None, "")?;
    if !base.status.success() {
        return Err(format!(
            "without the agent, under the socket trap: {}; stderr: {}",
            base.status,
            util::clip(&base.stderr.replace('\n', " | "), 300)
        ));
    }
    let base_files = base_dirs.files();
    if !base_files.is_empty() {
        return Err(format!(
            "without the agent the JVM wrote {base_files:?}: the check cannot isolate the agent"
        ));
    }
    // With the agent, every family on.
    let dirs = Dirs::new(work.join("agent"))?;
    let trace = dirs.out.join("trace.xml");
    let opt = java::agent_arg(
        agent,
        &format!("out={},mode={mode},alloc=exact,lines=on", trace.display()),
    );
    let o = run_jvm(jdk, classes, &dirs, Some(&opt), "")?;
    if !o.status.success() {
        let why = if o.status.signal() == Some(SIGSYS) {
            "killed by the socket trap: something opened a socket".to_string()
        } else {
            o.status.to_string()
        };
        return Err(format!(
            "with the agent: {why}; stderr: {}",
            util::clip(&o.stderr.replace('\n', " | "), 300)
        ));
    }
    let trace_path = trace.display().to_string();
    if !o.written.contains(&trace_path) {
        return Err(format!(
            "the fd poller never saw {trace_path} open for writing (saw {:?}): it cannot vouch for the rest",
            o.written
        ));
    }
    let extra: Vec<&String> = o
        .written
        .iter()
        .filter(|p| **p != trace_path && !base.written.contains(*p))
        .collect();
    if !extra.is_empty() {
        return Err(format!("with the agent the JVM also wrote {extra:?}"));
    }
    let files = dirs.files();
    if files != ["out/trace.xml"] {
        return Err(format!(
            "the private directories hold {files:?}, wanted only out/trace.xml"
        ));
    }
    let mode_bits = std::fs::metadata(&trace)
        .map_err(|e| e.to_string())?
        .permissions()
        .mode()
        & 0o777;
    if mode_bits != 0o666 & !UMASK {
        return Err(format!(
            "under umask {UMASK:03o} the trace has mode {mode_bits:03o}, wanted {:03o}",
            0o666 & !UMASK
        ));
    }
    util::xmllint(&trace).map_err(|e| format!("xmllint: {}", util::clip(&e, 300)))?;
    tracecheck::check(&trace).map_err(|v| format!("tracecheck: {}", util::first_three(&v, 300)))?;
    Ok(())
}
