//! A servlet container: Debian's embedded Tomcat 10 deploying a small web application from
//! its directory (servlet and filter classes load through Tomcat's `WebappClassLoader`),
//! listening on 127.0.0.1 only. The harness is the client: a bounded loop of plain HTTP/1.1
//! requests whose responses (status, headers but `Date`, `ETag` and `Last-Modified`, which
//! carry the clock and file times, and body) must be the same with and without the agent;
//! they are written to `responses.txt` in the run directory, so the file comparison covers
//! them. Once with the agent from the start, once attached with `jcmd JVMTI.agent_load`
//! halfway through the requests.

use super::exec::{self, Captured};
use super::{Case, Ctx, Runner, Traced};
use crate::java;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const CLASSPATH: &[&str] = &[
    "/usr/share/java/tomcat10-embed-core.jar",
    "/usr/share/java/tomcat10-embed-el.jar",
    "/usr/share/java/tomcat10-annotations-api.jar",
];

/// Requests per run, and the one after which the agent is attached.
const REQUESTS: usize = 300;
const ATTACH_AFTER: usize = 150;

pub fn cases() -> Vec<Case> {
    let case = |name, program, run| Case {
        name,
        program,
        packages: &["libtomcat10-embed-java", "libtomcat10-java"],
        subset: false,
        options: "",
        ignore: &[],
        mask: port_mask,
        prepare,
        run: Runner::Server(run),
    };
    vec![
        case(
            "tomcat",
            "Tomcat 10 embedded: 300 requests on loopback",
            serve_traced,
        ),
        case(
            "tomcat-attach",
            "Tomcat 10 embedded: agent attached after 150 of 300 requests",
            serve_attached,
        ),
    ]
}

/// The server prints its ephemeral port.
fn port_mask(line: &str) -> String {
    match line.strip_prefix("PORT ") {
        Some(_) => "PORT (masked)".to_string(),
        None => line.to_string(),
    }
}

fn classpath() -> String {
    CLASSPATH.join(":")
}

/// Compiles the launcher and the web application's classes (untraced).
fn prepare(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    let src = ctx.fixtures.join("tomcat");
    exec::copy_tree(&src.join("webapp"), &dir.join("webapp"))?;
    let mut c = Command::new(ctx.tool("javac"));
    c.args(["-d", "webapp/WEB-INF/classes", "-cp", &classpath()])
        .args(exec::java_files(&src.join("servlet"))?)
        .current_dir(dir);
    exec::prepare(&mut c, "javac servlet")?;
    let mut c = Command::new(ctx.tool("javac"));
    c.args(["-d", "launcher", "-cp", &classpath()])
        .arg(src.join("launcher/TomcatMain.java"))
        .current_dir(dir);
    exec::prepare(&mut c, "javac TomcatMain")
}

fn serve_traced(ctx: &Ctx, dir: &Path, traced: Option<&Traced>) -> Result<Captured, String> {
    serve(ctx, dir, traced, false)
}

fn serve_attached(ctx: &Ctx, dir: &Path, traced: Option<&Traced>) -> Result<Captured, String> {
    serve(ctx, dir, traced, true)
}

/// The path of request `i`: mostly the servlet, some static pages, some bad input (400).
fn request_path(i: usize) -> String {
    if i % 10 == 9 {
        "/app/index.html".to_string()
    } else if i % 25 == 24 {
        format!("/app/fib?n=bad{i}")
    } else {
        format!("/app/fib?n={i}")
    }
}

/// One request on a fresh connection; the response without its time-dependent headers.
fn request(addr: SocketAddr, path: &str) -> Result<String, String> {
    let timeout = Duration::from_secs(30);
    let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    s.set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).map_err(|e| e.to_string())?;
    let _ = s.shutdown(Shutdown::Both);
    let text = String::from_utf8_lossy(&buf);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut out = String::new();
    for line in head.split("\r\n") {
        let name = line.split(':').next().unwrap_or("").to_ascii_lowercase();
        if !matches!(name.as_str(), "date" | "etag" | "last-modified") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('\n');
    out.push_str(body);
    Ok(out)
}

/// Starts the server (with the agent from the start unless `attach`), sends the requests
/// (attaching the agent halfway if `attach`), closes the server's stdin so that it stops,
/// and waits for it; on every path the server's process group is killed at the end.
fn serve(ctx: &Ctx, dir: &Path, traced: Option<&Traced>, attach: bool) -> Result<Captured, String> {
    let mut cmd = java::Run::new(ctx.jdk)
        .args(traced.filter(|_| !attach).map(|t| t.arg("tomcat")))
        .args([
            "-cp",
            &format!("launcher:{}", classpath()),
            "TomcatMain",
            "webapp",
        ])
        .dir(dir)
        .command();
    let started = Instant::now();
    let mut child = exec::spawn(&mut cmd, Stdio::piped())?;
    let stdin = child.stdin.take();
    // Lines of stdout as they come (the port), and all of it at the end.
    let (tx, rx) = mpsc::channel::<String>();
    let stdout = child.stdout.take().expect("piped");
    let reader = thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line.clone());
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let mut problem = None;
    let mut responses = String::new();
    let deadline = started + super::TIMEOUT;
    let port = loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(l) => {
                if let Some(p) = l.strip_prefix("PORT ").and_then(|p| p.parse::<u16>().ok()) {
                    break Some(p);
                }
            }
            Err(_) => break None,
        }
    };
    match port {
        None => problem = Some("the server never printed its port".to_string()),
        Some(port) => {
            let addr = SocketAddr::from(([127, 0, 0, 1], port));
            for i in 0..REQUESTS {
                if Instant::now() > deadline {
                    problem = Some(format!("timeout after {i} requests"));
                    break;
                }
                if attach && i == ATTACH_AFTER {
                    if let Some(t) = traced {
                        if let Err(e) = jcmd_attach(ctx, child.id(), t) {
                            problem = Some(e);
                            break;
                        }
                    }
                }
                let path = request_path(i);
                match request(addr, &path) {
                    Ok(r) => {
                        responses.push_str(&format!("=== GET {path}\n{r}\n"));
                    }
                    Err(e) => {
                        problem = Some(format!("request {i} ({path}) failed: {e}"));
                        break;
                    }
                }
            }
        }
    }
    drop(stdin);
    // Tomcat stops within seconds of its stdin closing; two minutes is plenty.
    let mut captured = exec::finish(child, Instant::now() + Duration::from_secs(120), started);
    captured.stdout = reader.join().unwrap_or_default();
    if problem.is_some() {
        captured.problem = problem;
    }
    std::fs::write(dir.join("responses.txt"), responses).map_err(|e| e.to_string())?;
    Ok(captured)
}

/// Loads the agent into the running server the way a user would (the inner quotes keep jcmd
/// from splitting the options itself).
fn jcmd_attach(ctx: &Ctx, pid: u32, t: &Traced) -> Result<(), String> {
    let mut c = Command::new(ctx.tool("jcmd"));
    c.arg(pid.to_string())
        .arg("JVMTI.agent_load")
        .arg(t.agent)
        .arg(format!("\"{}\"", t.options_for("tomcat-attached")));
    let began = Instant::now();
    let out = exec::run(&mut c, Duration::from_secs(60));
    // The figure issue 12 is about: how long the running server waits for the agent.
    println!(
        "    tomcat-attach: agent loaded in {:.2} s",
        began.elapsed().as_secs_f64()
    );
    if out.stdout.contains("return code: 0") {
        Ok(())
    } else {
        Err(format!(
            "jcmd JVMTI.agent_load failed: {}",
            crate::util::clip(&out.stdout.trim().replace('\n', " | "), 200)
        ))
    }
}
