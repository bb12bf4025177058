//! javac fully traced (`include=com.sun.tools.*`): the JDK's own compiler on generated sources, without the agent, to `.jtr` and to `.xml`; the table and issue 10's javac targets.

use super::jvm::{self, Sample, Tracer};
use super::{fmt_opt, Env};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const CELLS: [Tracer; 3] = [Tracer::None, Tracer::Jtr, Tracer::Xml];
/// `.jtr` wall ÷ plain wall.
const TARGET_JTR_WALL: f64 = 2.0;
/// XML bytes ÷ `.jtr` bytes, at least.
const TARGET_SIZE_RATIO: f64 = 8.0;

pub struct Cell {
    pub tracer: Tracer,
    pub result: Result<Sample, String>,
}

/// Compiles `files` generated sources with `--jdk`'s javac under each tracer.
pub fn run(env: &Env) -> Vec<Cell> {
    let src = env.work.join("gen-src");
    let argfile = match generate_sources(&src, env.cfg.files) {
        Ok(a) => a,
        Err(e) => {
            return CELLS
                .iter()
                .map(|&tracer| Cell {
                    tracer,
                    result: Err(e.clone()),
                })
                .collect();
        }
    };
    let out = env.work.join("javac-out");
    CELLS
        .iter()
        .map(|&tracer| {
            let spec = jvm::Spec {
                jdk: &env.cfg.jdk,
                tracer,
                include: Some("com.sun.tools.*"),
                program: vec![
                    "-m".into(),
                    "jdk.compiler/com.sun.tools.javac.Main".into(),
                    "-proc:none".into(),
                    "-d".into(),
                    out.clone().into(),
                    format!("@{}", argfile.display()).into(),
                ],
            };
            let result = jvm::best(env, "javac", &spec, env.cfg.runs);
            let _ = std::fs::remove_dir_all(&out);
            Cell { tracer, result }
        })
        .collect()
}

fn cell(cells: &[Cell], t: Tracer) -> Option<&Sample> {
    cells.iter().find(|c| c.tracer == t)?.result.as_ref().ok()
}

/// The `.xml` trace's size (the disk is also measured at this size).
pub fn xml_bytes(cells: &[Cell]) -> u64 {
    cell(cells, Tracer::Xml).map_or(0, |s| s.trace_bytes)
}

pub fn table(cells: &[Cell]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<13} {:>8} {:>8} {:>8} {:>11} {:>8} {:>10} {:>7}  note",
        "tracer", "wall s", "x plain", "CPU s", "events", "B/event", "trace MB", "RSS MB"
    );
    let base = cell(cells, Tracer::None);
    for c in cells {
        let s = match &c.result {
            Ok(s) => s,
            Err(e) => {
                let first = e.lines().next().unwrap_or("");
                let _ = writeln!(
                    t,
                    "{:<13} FAILED: {}",
                    c.tracer.label(),
                    crate::util::clip(first, 120)
                );
                continue;
            }
        };
        let traced = c.tracer != Tracer::None;
        let _ = writeln!(
            t,
            "{:<13} {:>8.3} {:>8} {:>8} {:>11} {:>8} {:>10} {:>7}  {}",
            c.tracer.label(),
            s.wall,
            fmt_opt(base, |b| format!("{:.2}x", s.wall / b.wall)),
            fmt_opt(s.cpu_s, |c| format!("{c:.2}")),
            fmt_opt(s.events, |e| e.to_string()),
            fmt_opt(s.bytes_per_event(), |b| format!("{b:.1}")),
            if traced {
                format!("{:.1}", s.trace_bytes as f64 / 1e6)
            } else {
                "-".into()
            },
            fmt_opt(s.rss_kb, |k| format!("{:.0}", k as f64 / 1024.0)),
            s.notes.join("; ")
        );
    }
    t
}

pub fn targets(cells: &[Cell]) -> String {
    let mut t = String::new();
    let met = |ok: bool| if ok { "met" } else { "MISSED" };
    let _ = writeln!(t, "javac targets:");
    let (base, jtr, xml) = (
        cell(cells, Tracer::None),
        cell(cells, Tracer::Jtr),
        cell(cells, Tracer::Xml),
    );
    match (base, jtr) {
        (Some(b), Some(j)) => {
            let r = j.wall / b.wall;
            let _ = writeln!(
                t,
                "  .jtr wall {:.3} s / plain wall {:.3} s = {r:.2}x (target <= {TARGET_JTR_WALL}x): {}",
                j.wall,
                b.wall,
                met(r <= TARGET_JTR_WALL)
            );
        }
        _ => {
            let _ = writeln!(t, "  .jtr vs plain: no figure (a cell failed)");
        }
    }
    match (jtr, xml) {
        (Some(j), Some(x)) if j.trace_bytes > 0 => {
            let r = x.trace_bytes as f64 / j.trace_bytes as f64;
            let _ = writeln!(
                t,
                "  .jtr {:.1} MB is 1/{r:.1} of the .xml's {:.1} MB (target <= 1/{TARGET_SIZE_RATIO}): {}",
                j.trace_bytes as f64 / 1e6,
                x.trace_bytes as f64 / 1e6,
                met(r >= TARGET_SIZE_RATIO)
            );
        }
        _ => {
            let _ = writeln!(t, "  .jtr vs .xml size: no figure (a cell failed)");
        }
    }
    t
}

/// Writes `n` small interdependent classes (fields, loops, generics, lambdas, an enum,
/// a nested interface, a call into the previous class) and an `@argfile` naming them.
fn generate_sources(dir: &Path, n: usize) -> Result<PathBuf, String> {
    let mut list = String::new();
    for i in 0..n {
        let pkg = format!("gen.p{}", i % 10);
        let pdir = dir.join(pkg.replace('.', "/"));
        std::fs::create_dir_all(&pdir).map_err(|e| format!("{}: {e}", pdir.display()))?;
        let prev = if i == 0 {
            String::from("return m0(3);")
        } else {
            format!(
                "return new gen.p{}.C{}(counter).m0(3) + m0(2);",
                (i - 1) % 10,
                i - 1
            )
        };
        let src = format!(
            r#"package {pkg};

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public class C{i} {{
    public enum Kind {{ A, B, C }}

    public interface Shape {{ double area(); }}

    private final List<String> names = new ArrayList<>();
    private int counter;

    public C{i}(int seed) {{
        counter = seed;
        names.add("c{i}-" + seed);
    }}

    public int m0(int x) {{
        int s = 0;
        for (int k = 0; k < x; k++) {{
            s += k * {i} + counter;
        }}
        return s;
    }}

    public String m1(String a) {{
        return a + ":" + counter + "/" + names.size();
    }}

    public Map<String, Integer> m2(List<String> in) {{
        Map<String, Integer> m = new HashMap<>();
        for (String s : in) {{
            m.merge(s, 1, Integer::sum);
        }}
        return m;
    }}

    public Optional<String> m3() {{
        return names.stream().filter(s -> s.length() > 3).map(String::toUpperCase).findFirst();
    }}

    public long m4() {{
        {prev}
    }}

    public int m5(Kind k) {{
        switch (k) {{
            case A: return 1;
            case B: return counter;
            default: return m0(counter & 7);
        }}
    }}

    public Shape m6(double r) {{
        return () -> Math.PI * r * r + {i};
    }}

    @Override
    public String toString() {{
        return "C{i}[" + counter + ", " + names + "]";
    }}
}}
"#
        );
        let file = pdir.join(format!("C{i}.java"));
        std::fs::write(&file, src).map_err(|e| format!("{}: {e}", file.display()))?;
        let _ = writeln!(list, "{}", file.display());
    }
    let argfile = dir.join("sources.txt");
    std::fs::write(&argfile, list).map_err(|e| format!("{}: {e}", argfile.display()))?;
    Ok(argfile)
}
