//! Definitions of everything alive (threads, classes and their methods), kept so that each new trace can start with them: ids stay the same across traces, and a document defines every id it uses.
//!
//! Every thread and class definition is sent through here. The registry's lock is
//! held while a definition is filed and sent, and while a new trace installs its
//! sink and re-sends the registry (`restart`): so each definition reaches each
//! trace exactly once, either re-sent at its start or sent live afterwards.

use crate::buffer;
use crate::clock;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use trace::defs::{Def, Msg, ObjDef, ThreadDef};

#[derive(Default)]
struct Registry {
    /// Thread id → its threadStart (and the objDef of its Thread object).
    threads: BTreeMap<u32, Vec<Def>>,
    /// Class id → its classDef and methodDefs, in the order sent.
    classes: HashMap<u32, Vec<Def>>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn with<T>(f: impl FnOnce(&mut Registry) -> T) -> Option<T> {
    let mut g = REGISTRY.lock().ok()?;
    Some(f(g.get_or_insert_with(Registry::default)))
}

/// Files and sends a thread's definitions (no flush: a new thread has no records
/// yet): the objDef of its Thread object when this document needs one (`obj_def`),
/// then its threadStart. The objDef is filed either way, with its class, so that a
/// later trace defines the object as this one did.
pub fn send_thread(tid: u32, obj_def: Option<ObjDef>, send_obj: bool, thread: ThreadDef) {
    let filed: Vec<Def> = obj_def
        .map(Def::Object)
        .into_iter()
        .chain([Def::Thread(thread)])
        .collect();
    let defs = if send_obj {
        filed.clone()
    } else {
        filed[filed.len() - 1..].to_vec()
    };
    let Ok(mut g) = REGISTRY.lock() else {
        buffer::send(Msg::Defs(defs));
        return;
    };
    g.get_or_insert_with(Registry::default)
        .threads
        .insert(tid, filed);
    buffer::send(Msg::Defs(defs));
}

/// The thread ended: later traces do not define it.
pub fn thread_ended(tid: u32) {
    with(|r| r.threads.remove(&tid));
}

/// Files and sends definitions of class `cid` (its classDef and/or methodDefs),
/// after the current thread's earlier records.
pub fn send_class(cid: u32, defs: Vec<Def>) {
    let Ok(mut g) = REGISTRY.lock() else {
        buffer::send_defs(defs);
        return;
    };
    g.get_or_insert_with(Registry::default)
        .classes
        .entry(cid)
        .or_default()
        .extend(defs.iter().cloned());
    buffer::send_defs(defs);
}

/// The class was unloaded: later traces do not define it.
pub fn class_unloaded(cid: u32) {
    with(|r| r.classes.remove(&cid));
}

/// Starts a new trace's stream: `install` (which gives the buffers the new sink)
/// runs under the registry's lock, then every live thread and class is defined on
/// it, stamped now. Threads are marked as alive before the trace: their frames
/// entered earlier may return during it.
pub fn restart(install: impl FnOnce()) {
    let Ok(mut g) = REGISTRY.lock() else {
        install();
        return;
    };
    install();
    let r = g.get_or_insert_with(Registry::default);
    let t = clock::ticks();
    let mut defs = Vec::new();
    // Classes first: an objDef of a thread's object names its class.
    let mut cids: Vec<&u32> = r.classes.keys().collect();
    cids.sort_unstable();
    for cid in cids {
        for d in &r.classes[cid] {
            defs.push(match d {
                // The loading thread may be gone: the re-sent classDef names none.
                Def::Class(c) => {
                    let mut c = c.clone();
                    c.t = t;
                    c.tid = 0;
                    Def::Class(c)
                }
                other => other.clone(),
            });
        }
        if defs.len() >= 4096 {
            buffer::send(Msg::Defs(std::mem::take(&mut defs)));
        }
    }
    for list in r.threads.values() {
        for d in list {
            match d {
                Def::Thread(td) => {
                    // Its Thread object first (threadStart names it), whatever defined
                    // it (an objDef filed with its class, or an allocation).
                    if td.obj != 0 && !matches!(list[0], Def::Object(_)) {
                        defs.push(Def::Object(ObjDef {
                            obj: td.obj,
                            ..ObjDef::default()
                        }));
                    }
                    let mut td = td.clone();
                    td.t = t;
                    td.before_trace = true;
                    defs.push(Def::Thread(td));
                }
                other => defs.push(other.clone()),
            }
        }
    }
    if !defs.is_empty() {
        buffer::send(Msg::Defs(defs));
    }
}
