//! The body of each `.jtr` block kind, its encoder and its decoder side by side: session header with the clock map, definitions, record chunk, finish.

use super::wire::{put_bool, put_ivar, put_str, put_uvar, Cursor, WireResult};
use crate::clock::Converter;
use crate::defs::{ClassDef, Def, MethodDef, Msg, ObjDef, TagDef, ThreadDef};
use crate::header::Header;

/// Block kinds (the byte before each block's length).
pub const BLOCK_HEADER: u8 = 1;
pub const BLOCK_DEFS: u8 = 2;
pub const BLOCK_CHUNK: u8 = 3;
pub const BLOCK_FINISH: u8 = 4;

fn put_pairs(out: &mut Vec<u8>, pairs: &[(String, String)]) {
    put_uvar(out, pairs.len() as u64);
    for (k, v) in pairs {
        put_str(out, k);
        put_str(out, v);
    }
}

fn get_pairs(c: &mut Cursor, what: &str) -> WireResult<Vec<(String, String)>> {
    let n = c.count(what)?;
    (0..n).map(|_| Ok((c.str(what)?, c.str(what)?))).collect()
}

fn put_strs(out: &mut Vec<u8>, v: &[String]) {
    put_uvar(out, v.len() as u64);
    for s in v {
        put_str(out, s);
    }
}

fn get_strs(c: &mut Cursor, what: &str) -> WireResult<Vec<String>> {
    let n = c.count(what)?;
    (0..n).map(|_| c.str(what)).collect()
}

fn put_u32s(out: &mut Vec<u8>, v: &[u32]) {
    put_uvar(out, v.len() as u64);
    for &x in v {
        put_uvar(out, x as u64);
    }
}

fn get_u32s(c: &mut Cursor, what: &str) -> WireResult<Vec<u32>> {
    let n = c.count(what)?;
    (0..n).map(|_| c.u32var(what)).collect()
}

pub fn encode_header(out: &mut Vec<u8>, h: &Header, conv: &Converter) {
    put_uvar(out, conv.base_ticks);
    put_uvar(out, conv.base_real_ns);
    put_uvar(out, conv.mult);
    for s in [&h.node_id, &h.hostname, &h.ipaddress] {
        put_str(out, s);
    }
    put_ivar(out, h.timezone_minutes_west);
    put_uvar(out, h.boot_ns);
    put_str(out, &h.process_id);
    put_uvar(out, h.pid as u64);
    for s in [
        &h.process_name,
        &h.command_line,
        &h.agent_id,
        &h.agent_parameters,
        &h.agent_version,
        &h.trace_id,
    ] {
        put_str(out, s);
    }
    put_uvar(out, h.process_start_ns);
    put_uvar(out, h.start_ns);
    put_pairs(out, &h.options);
    put_uvar(out, h.gc_thread_id as u64);
    put_bool(out, h.exceptions);
    put_uvar(out, h.filters.len() as u64);
    for (p, g, m) in &h.filters {
        put_str(out, p);
        put_str(out, g);
        put_str(out, m);
    }
    // Optional trailing field (version 3 files from before it end here; readers
    // ignore what follows the fields they know).
    put_pairs(out, &h.jvm);
}

pub fn decode_header(c: &mut Cursor) -> WireResult<(Header, Converter)> {
    let conv = Converter {
        base_ticks: c.uvar("clock base ticks")?,
        base_real_ns: c.uvar("clock base time")?,
        mult: c.uvar("clock rate")?,
    };
    let node_id = c.str("node id")?;
    let hostname = c.str("hostname")?;
    let ipaddress = c.str("ip address")?;
    let timezone_minutes_west = c.ivar("timezone")?;
    let boot_ns = c.uvar("boot time")?;
    let process_id = c.str("process id")?;
    let pid = c.u32var("pid")?;
    let process_name = c.str("process name")?;
    let command_line = c.str("command line")?;
    let agent_id = c.str("agent id")?;
    let agent_parameters = c.str("agent parameters")?;
    let agent_version = c.str("agent version")?;
    let trace_id = c.str("trace id")?;
    let process_start_ns = c.uvar("process start")?;
    let start_ns = c.uvar("trace start")?;
    let options = get_pairs(c, "options")?;
    let gc_thread_id = c.u32var("gc thread id")?;
    let exceptions = c.bool("exceptions flag")?;
    let n = c.count("filters")?;
    let filters = (0..n)
        .map(|_| Ok((c.str("filter")?, c.str("filter")?, c.str("filter")?)))
        .collect::<WireResult<_>>()?;
    let jvm = if c.is_empty() {
        Vec::new()
    } else {
        get_pairs(c, "jvm facts")?
    };
    let h = Header {
        node_id,
        hostname,
        ipaddress,
        timezone_minutes_west,
        boot_ns,
        process_id,
        pid,
        process_name,
        command_line,
        process_start_ns,
        agent_id,
        agent_parameters,
        agent_version,
        trace_id,
        start_ns,
        options,
        gc_thread_id,
        exceptions,
        filters,
        jvm,
    };
    Ok((h, conv))
}

const DEF_OBJECT: u8 = 1;
const DEF_UNTRACED: u8 = 2;
const DEF_THREAD: u8 = 3;
const DEF_CLASS: u8 = 4;
const DEF_METHOD: u8 = 5;
const DEF_THREAD_BEFORE_TRACE: u8 = 6;
/// An object with its class (version 3); an object of unknown class keeps kind 1.
const DEF_OBJECT_OF_CLASS: u8 = 7;
/// A tag the application wrote (version 3).
const DEF_TAG: u8 = 8;
/// A method traced with less than asked (`Def::PartlyTraced`).
const DEF_PARTLY_TRACED: u8 = 9;

pub fn encode_defs(out: &mut Vec<u8>, defs: &[Def]) {
    for d in defs {
        match d {
            Def::Object(o) if o.cid == 0 => {
                out.push(DEF_OBJECT);
                put_uvar(out, o.obj);
            }
            Def::Object(o) => {
                out.push(DEF_OBJECT_OF_CLASS);
                put_uvar(out, o.obj);
                put_uvar(out, o.cid as u64);
                put_uvar(out, o.is_array as u64);
            }
            Def::Untraced(name, why) => {
                out.push(DEF_UNTRACED);
                put_str(out, name);
                put_str(out, why);
            }
            Def::PartlyTraced(name, what) => {
                out.push(DEF_PARTLY_TRACED);
                put_str(out, name);
                put_str(out, what);
            }
            Def::Thread(t) => {
                // A thread alive before its trace started has its own kind, so that
                // files without such threads read as before.
                out.push(if t.before_trace {
                    DEF_THREAD_BEFORE_TRACE
                } else {
                    DEF_THREAD
                });
                put_uvar(out, t.tid as u64);
                put_uvar(out, t.obj);
                put_uvar(out, t.t);
                put_str(out, &t.name);
                put_str(out, &t.group);
                put_str(out, &t.parent);
            }
            Def::Class(k) => {
                out.push(DEF_CLASS);
                put_uvar(out, k.cid as u64);
                put_uvar(out, k.tid as u64);
                put_uvar(out, k.t);
                for s in [&k.name, &k.source, &k.superclass] {
                    put_str(out, s);
                }
                put_strs(out, &k.interfaces);
                put_str(out, &k.loader);
                put_uvar(out, k.access as u64);
                put_uvar(out, k.static_fields as u64);
                put_uvar(out, k.instance_fields as u64);
                put_uvar(out, k.num_methods as u64);
                put_bool(out, k.instrumented);
                put_pairs(out, &k.annotations);
            }
            Def::Method(m) => {
                out.push(DEF_METHOD);
                put_uvar(out, m.mid as u64);
                put_uvar(out, m.cid as u64);
                put_str(out, &m.name);
                put_str(out, &m.signature);
                put_uvar(out, m.access as u64);
                put_strs(out, &m.exceptions);
                match m.lines {
                    Some((s, e)) => {
                        put_bool(out, true);
                        put_uvar(out, s as u64);
                        put_uvar(out, e as u64);
                    }
                    None => put_bool(out, false),
                }
                put_uvar(out, m.line_numbers.len() as u64);
                for &(bci, line) in &m.line_numbers {
                    put_uvar(out, bci as u64);
                    put_uvar(out, line as u64);
                }
                put_u32s(out, &m.unit_lines);
                put_u32s(out, &m.alloc_sites);
            }
            Def::Tag(t) => {
                out.push(DEF_TAG);
                put_uvar(out, t.tid as u64);
                put_uvar(out, t.t);
                put_str(out, &t.name);
                put_uvar(out, t.fields.len() as u64);
                for (k, v) in &t.fields {
                    put_str(out, k);
                    put_str(out, v);
                }
            }
        }
    }
}

pub fn decode_defs(c: &mut Cursor) -> WireResult<Vec<Def>> {
    let mut defs = Vec::new();
    while !c.is_empty() {
        let d = match c.u8("definition kind")? {
            DEF_OBJECT => Def::Object(ObjDef {
                obj: c.uvar("object id")?,
                ..ObjDef::default()
            }),
            DEF_OBJECT_OF_CLASS => Def::Object(ObjDef {
                obj: c.uvar("object id")?,
                cid: c.u32var("object class")?,
                is_array: c.u32var("object isArray")?.min(u8::MAX as u32) as u8,
            }),
            DEF_UNTRACED => Def::Untraced(c.str("class name")?, c.str("reason")?),
            DEF_PARTLY_TRACED => {
                Def::PartlyTraced(c.str("class name")?, c.str("method and reason")?)
            }
            kind @ (DEF_THREAD | DEF_THREAD_BEFORE_TRACE) => Def::Thread(ThreadDef {
                before_trace: kind == DEF_THREAD_BEFORE_TRACE,
                tid: c.u32var("thread id")?,
                obj: c.uvar("thread object")?,
                t: c.uvar("thread time")?,
                name: c.str("thread name")?,
                group: c.str("thread group")?,
                parent: c.str("thread parent")?,
            }),
            DEF_CLASS => Def::Class(ClassDef {
                cid: c.u32var("class id")?,
                tid: c.u32var("class thread")?,
                t: c.uvar("class time")?,
                name: c.str("class name")?,
                source: c.str("source name")?,
                superclass: c.str("superclass")?,
                interfaces: get_strs(c, "interfaces")?,
                loader: c.str("class loader")?,
                access: c.u16var("class access")?,
                static_fields: c.u32var("static fields")?,
                instance_fields: c.u32var("instance fields")?,
                num_methods: c.u32var("method count")?,
                instrumented: c.bool("instrumented flag")?,
                annotations: get_pairs(c, "annotations")?,
            }),
            DEF_METHOD => {
                let mid = c.u32var("method id")?;
                let cid = c.u32var("method class")?;
                let name = c.str("method name")?;
                let signature = c.str("signature")?;
                let access = c.u16var("method access")?;
                let exceptions = get_strs(c, "exceptions")?;
                let lines = if c.bool("line range flag")? {
                    Some((c.u32var("start line")?, c.u32var("end line")?))
                } else {
                    None
                };
                let n = c.count("line table")?;
                let line_numbers = (0..n)
                    .map(|_| Ok((c.u32var("line table")?, c.u32var("line table")?)))
                    .collect::<WireResult<_>>()?;
                Def::Method(MethodDef {
                    mid,
                    cid,
                    name,
                    signature,
                    access,
                    exceptions,
                    lines,
                    line_numbers,
                    unit_lines: get_u32s(c, "unit lines")?,
                    alloc_sites: get_u32s(c, "allocation sites")?,
                })
            }
            DEF_TAG => Def::Tag(TagDef {
                tid: c.u32var("tag thread")?,
                t: c.uvar("tag tick")?,
                name: c.str("tag name")?,
                fields: get_pairs(c, "tag fields")?,
            }),
            k => return Err(format!("unknown definition kind {k}")),
        };
        defs.push(d);
    }
    Ok(defs)
}

/// A chunk body: the thread id, then the thread's records exactly as the agent wrote
/// them (see `record`): 13 bytes per method entry or exit.
pub fn encode_chunk_head(out: &mut Vec<u8>, tid: u32) {
    put_uvar(out, tid as u64);
}

pub fn decode_chunk(c: &mut Cursor) -> WireResult<Msg> {
    let tid = c.u32var("chunk thread")?;
    Ok(Msg::Chunk {
        tid,
        data: c.rest().to_vec(),
    })
}

/// Finish: time, thread, dropped bytes; then (since `jtrace stop`) whether the VM shut
/// down and the count base, which a finish of a file written before is without
/// (decoded as a shutdown with no base).
pub fn encode_finish(out: &mut Vec<u8>, msg: &Msg) {
    let Msg::Finish {
        t,
        tid,
        dropped_bytes,
        shutdown,
        count_base,
        notes,
    } = msg
    else {
        return;
    };
    put_uvar(out, *t);
    put_uvar(out, tid.unwrap_or(0) as u64);
    put_uvar(out, *dropped_bytes);
    if *shutdown && count_base.is_empty() && notes.is_empty() {
        return;
    }
    put_bool(out, *shutdown);
    put_uvar(out, count_base.len() as u64);
    for &(mid, n) in count_base {
        put_uvar(out, mid as u64);
        put_uvar(out, n);
    }
    if notes.is_empty() {
        return;
    }
    put_uvar(out, notes.len() as u64);
    for (name, n) in notes {
        put_str(out, name);
        put_uvar(out, *n);
    }
}

pub fn decode_finish(c: &mut Cursor) -> WireResult<Msg> {
    let t = c.uvar("finish time")?;
    let tid = c.u32var("finish thread")?;
    let dropped_bytes = c.uvar("dropped bytes")?;
    let (shutdown, count_base) = if c.is_empty() {
        (true, Vec::new())
    } else {
        let shutdown = c.bool("shutdown flag")?;
        let n = c.count("count base")?;
        let base = (0..n)
            .map(|_| Ok((c.u32var("count base")?, c.uvar("count base")?)))
            .collect::<WireResult<_>>()?;
        (shutdown, base)
    };
    // Since windows: the agent's own traceEnd annotations.
    let notes = if c.is_empty() {
        Vec::new()
    } else {
        let n = c.count("finish notes")?;
        (0..n)
            .map(|_| Ok((c.str("finish note")?, c.uvar("finish note")?)))
            .collect::<WireResult<_>>()?
    };
    Ok(Msg::Finish {
        t,
        tid: (tid != 0).then_some(tid),
        dropped_bytes,
        shutdown,
        count_base,
        notes,
    })
}
