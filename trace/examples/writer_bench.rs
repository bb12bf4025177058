//! Writer micro-benchmark: how many entry/exit records per second the writer turns into XML on one core.
//!
//! Feeds the real `trace::render::Renderer` exactly what the agent feeds it: one thread
//! definition, one class with 10 methods, then method entry/exit records (a depth-10
//! recursion, like the MooBench workload) in 64 KiB chunks. The chunks are built before
//! the clock starts, so only the writer is measured: record decoding, ticket/depth
//! bookkeeping, time conversion, XML formatting and the writes.
//!
//! Usage: `cargo run --release -p trace --example writer_bench -- [--sink null|file|both] [EVENTS] [FILE]`
//! (defaults: both sinks, 20000000 events, file `/tmp/jtrace-writer-bench.xml`, deleted
//! afterwards). Prints one `writer_bench` line per sink (`std::io::sink()`, then the file).
//! `--sink null` runs the renderer once, into `std::io::sink()` only: with callgrind,
//! `--toggle-collect='*render_all*'` then counts the renderer's instructions alone (the
//! chunks are built outside `render_all`), as `cargo xtask bench` does.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use trace::clock::Converter;
use trace::defs::{ClassDef, Def, MethodDef, Msg, ThreadDef};
use trace::record::{id_tick, TAG_ENTRY, TAG_EXIT};
use trace::render::{Header, Renderer};

/// The agent's chunk size (`jtrace::buffer::CHUNK`).
const CHUNK: usize = 64 * 1024;

fn real_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

const TID: u32 = 1;
const CID: u32 = 1;
const METHODS: u32 = 10;
/// Ticks between two records (about 10 ns at a few GHz; only the digits change).
const TICK_STEP: u64 = 30;

fn header() -> Header {
    Header {
        node_id: "node".into(),
        hostname: "localhost".into(),
        ipaddress: "127.0.0.1".into(),
        timezone_minutes_west: 0,
        boot_ns: real_ns(),
        process_id: "process".into(),
        pid: std::process::id(),
        process_name: "writer_bench".into(),
        command_line: "writer_bench".into(),
        process_start_ns: real_ns(),
        agent_id: "agent".into(),
        agent_parameters: String::new(),
        agent_version: "bench".into(),
        trace_id: "trace".into(),
        start_ns: real_ns(),
        options: Vec::new(),
        gc_thread_id: 0,
        exceptions: false,
        filters: Vec::new(),
        jvm: Vec::new(),
    }
}

fn defs(t: u64) -> Msg {
    let mut d = vec![
        Def::Thread(ThreadDef {
            obj: 0,
            tid: TID,
            t,
            name: "main".into(),
            group: "main".into(),
            parent: "system".into(),
            before_trace: false,
        }),
        Def::Class(ClassDef {
            cid: CID,
            tid: TID,
            t,
            name: "moobench.MonitoredClass".into(),
            source: "MonitoredClass.java".into(),
            superclass: "java.lang.Object".into(),
            interfaces: Vec::new(),
            loader: "app".into(),
            access: 0x0011,
            static_fields: 0,
            instance_fields: 0,
            num_methods: METHODS,
            instrumented: true,
            annotations: Vec::new(),
        }),
    ];
    for mid in 1..=METHODS {
        d.push(Def::Method(MethodDef {
            alloc_sites: Vec::new(),
            mid,
            cid: CID,
            name: format!("monitoredMethod{mid}"),
            signature: "(JI)J".into(),
            access: 0x0001,
            exceptions: Vec::new(),
            lines: Some((10, 15)),
            line_numbers: Vec::new(),
            unit_lines: Vec::new(),
        }));
    }
    Msg::Defs(d)
}

/// `events` records, properly nested (enter 1..=10, exit 10..=1, repeat), in chunks
/// of at most 64 KiB, with increasing ticks starting at `t0`.
fn chunks(events: u64, t0: u64) -> Vec<Vec<u8>> {
    let rec_len = id_tick(TAG_ENTRY, 0, 0).len();
    let per_chunk = CHUNK / rec_len;
    let mut out = Vec::with_capacity((events as usize).div_ceil(per_chunk));
    let mut cur = Vec::with_capacity(CHUNK);
    let cycle = 2 * METHODS as u64;
    for i in 0..events {
        let pos = (i % cycle) as u32;
        let rec = if pos < METHODS {
            id_tick(TAG_ENTRY, pos + 1, t0 + i * TICK_STEP)
        } else {
            id_tick(TAG_EXIT, 2 * METHODS - pos, t0 + i * TICK_STEP)
        };
        if cur.len() + rec_len > CHUNK {
            out.push(std::mem::replace(&mut cur, Vec::with_capacity(CHUNK)));
        }
        cur.extend_from_slice(&rec);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Runs the writer over the chunks into `sink`; returns (seconds, bytes written, events).
fn run<W: Write>(sink: W, events: u64) -> (f64, u64, u64) {
    // Ticks are nanoseconds here; the agent's TSC map costs the same multiply.
    let conv = Converter {
        base_ticks: 0,
        base_real_ns: real_ns(),
        mult: 3 << 30,
    };
    let t0 = 1_000;
    let data = chunks(events, t0);
    let end = t0 + events * TICK_STEP + 1;
    let start = Instant::now();
    let stats = render_all(sink, conv, t0, end, data);
    let secs = start.elapsed().as_secs_f64();
    if let Some(e) = stats.io_error {
        eprintln!("writer_bench: I/O error: {e}");
    }
    let orphans = stats.unknown_thread_records + stats.undefined_method_records;
    if stats.mismatched_exits != 0 || orphans != 0 {
        eprintln!(
            "writer_bench: unexpected mismatched_exits={} orphan records={}",
            stats.mismatched_exits, orphans
        );
    }
    (secs, stats.bytes, stats.events)
}

/// The measured part: the renderer from its creation to the flushed end of the document.
/// Never inlined, so that callgrind can count it alone (`--toggle-collect=*render_all*`).
#[inline(never)]
fn render_all<W: Write>(
    sink: W,
    conv: Converter,
    t0: u64,
    end: u64,
    data: Vec<Vec<u8>>,
) -> trace::render::Stats {
    let mut w = Renderer::new(sink, &header(), conv);
    w.handle(defs(t0), drop);
    for data in data {
        w.handle(Msg::Chunk { tid: TID, data }, drop);
    }
    w.handle(
        Msg::Finish {
            t: end,
            tid: None,
            dropped_bytes: 0,
            shutdown: true,
            count_base: Vec::new(),
            notes: Vec::new(),
        },
        drop,
    );
    let _ = w.sink_mut().flush();
    w.stats()
}

fn report(sink: &str, (secs, bytes, events): (f64, u64, u64)) {
    println!(
        "writer_bench sink={sink} events={events} secs={secs:.3} events_per_s={:.0} mb_per_s={:.1} bytes_per_event={:.1}",
        events as f64 / secs,
        bytes as f64 / 1e6 / secs,
        bytes as f64 / events.max(1) as f64,
    );
}

const USAGE: &str = "usage: writer_bench [--sink null|file|both] [EVENTS] [FILE]";

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let (mut null, mut file) = (true, true);
    if let Some(at) = args.iter().position(|a| a == "--sink") {
        match args.get(at + 1).map(String::as_str) {
            Some("null") => file = false,
            Some("file") => null = false,
            Some("both") => {}
            _ => {
                eprintln!("{USAGE}");
                std::process::exit(2);
            }
        }
        args.drain(at..at + 2);
    }
    let mut args = args.into_iter();
    let events: u64 = match args.next().map(|a| a.replace('_', "").parse()) {
        None => 20_000_000,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("{USAGE}: bad EVENTS: {e}");
            std::process::exit(2);
        }
    };
    let path = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("jtrace-writer-bench.xml"));

    if null {
        report("null", run(std::io::sink(), events));
    }
    if !file {
        return;
    }

    let file = match std::fs::File::create(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("writer_bench: cannot create {}: {e}", path.display());
            std::process::exit(1);
        }
    };
    // The agent's writer thread writes through the same 1 MiB BufWriter.
    let r = run(std::io::BufWriter::with_capacity(1 << 20, file), events);
    let _ = std::fs::remove_file(&path);
    report("file", r);
}
