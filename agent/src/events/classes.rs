//! Classes and methods: parse each traced class as it loads (ClassFileLoadHook), give it ids, optionally rewrite it, and send its definitions when it is prepared.
//!
//! Both modes take the same path, so they trace the same set of classes: only classes
//! whose bytes went through the load hook are traced (hidden classes, e.g. lambda
//! proxies, never do). The class file, not JVMTI, is the source of the definitions:
//! it has the Exceptions attribute, the line number table and the source file name.

use crate::classfile::{self, ClassInfo, ProbePlan};
use crate::clock;
use crate::defs::{ClassDef, Def, MethodDef, Msg};
use crate::events::{threads, tracker};
use crate::ids;
use crate::jvmti::{Jni, Jvmti};
use crate::lifecycle::{agent, log_once};
use crate::options::Mode;
use crate::sys::jni::jclass;
use crate::sys::jvmti::jthread;
use std::collections::HashMap;
use std::sync::Mutex;

/// Internal name of the tracker class the probes call.
pub const TRACKER: &str = "jtrace/Tracker";

/// A traced class between its load hook and its prepare event.
pub struct Pending {
    info: ClassInfo,
    cid: u32,
    /// Method id per method in class-file order (ids are consecutive from here).
    first_mid: u32,
    /// Whether the class was rewritten with probes (bci mode).
    pub instrumented: bool,
}

static PENDING: Mutex<Option<HashMap<String, Vec<Pending>>>> = Mutex::new(None);

/// Whether a method runs bytecode we can observe (not abstract, not native).
fn traceable(m: &classfile::MethodInfo) -> bool {
    m.has_code && m.access & 0x0500 == 0
}

/// Traced classes seen before the tracker existed (bci mode): their ids, so that
/// the retransformation after VM init rewrites them under the same ids.
static EARLY: Mutex<Option<HashMap<String, (u32, u32)>>> = Mutex::new(None);

/// Names of the classes to retransform once the tracker is ready.
pub fn take_early() -> std::collections::HashSet<String> {
    EARLY
        .lock()
        .map(|m| {
            m.as_ref()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

fn early_ids(name: &str) -> Option<(u32, u32)> {
    EARLY.lock().ok()?.as_ref()?.get(name).copied()
}

/// Rewrites a parsed class with probes; None (logged, counted) if it cannot be.
fn rewrite(bytes: &[u8], info: &ClassInfo, first_mid: u32, dotted: &str) -> Option<Vec<u8>> {
    let method_ids: Vec<Option<u32>> = info
        .methods
        .iter()
        .enumerate()
        .map(|(i, m)| traceable(m).then_some(first_mid + i as u32))
        .collect();
    let plan = ProbePlan {
        tracker: TRACKER,
        method_ids: &method_ids,
        lines: agent().options.lines,
    };
    match classfile::instrument(bytes, &plan) {
        Ok(b) => Some(b),
        Err(e) => {
            agent().count_skipped();
            log_once(&format!(
                "cannot instrument class {dotted}: {e}; it runs untouched and untraced"
            ));
            crate::buffer::send(Msg::Defs(vec![Def::Untraced(
                dotted.to_string(),
                e.to_string(),
            )]));
            None
        }
    }
}

/// The load hook for one class. Returns new class bytes when the class was rewritten.
pub fn on_load(name: &str, bytes: &[u8], redefining: bool) -> Option<Vec<u8>> {
    let a = agent();
    let dotted = name.replace('/', ".");
    if name == TRACKER || !a.options.is_traced(&dotted) {
        return None;
    }
    let info = match classfile::parse_info(bytes) {
        Ok(i) => i,
        Err(e) => {
            log_once(&format!(
                "cannot parse class {dotted}: {e}; it is not traced"
            ));
            return None;
        }
    };
    let bci = a.options.mode == Mode::Bci;
    if redefining {
        if let Some((_, first_mid)) = early_ids(name) {
            // Seen (and defined) before the tracker existed: rewrite under the same ids.
            return if bci {
                rewrite(bytes, &info, first_mid, &dotted)
            } else {
                None
            };
        }
    }
    let cid = ids::next_class();
    let first_mid = ids::next_methods(info.methods.len() as u32);
    let mut new_bytes = None;
    if bci {
        if a.tracker_ready() {
            new_bytes = rewrite(bytes, &info, first_mid, &dotted);
        } else if let Ok(mut early) = EARLY.lock() {
            early
                .get_or_insert_with(HashMap::new)
                .insert(name.to_string(), (cid, first_mid));
        }
    }
    let pending = Pending {
        info,
        cid,
        first_mid,
        instrumented: new_bytes.is_some(),
    };
    if redefining {
        // A retransformed class is already prepared: no prepare event will follow.
        send_defs(&pending, 0, "");
    } else if let Ok(mut map) = PENDING.lock() {
        map.get_or_insert_with(HashMap::new)
            .entry(name.to_string())
            .or_default()
            .push(pending);
    }
    new_bytes
}

/// The prepare event: the class is linked, no method of it has run yet. Sends its
/// definitions (and, in jvmti mode, maps its jmethodIDs).
pub fn on_prepare(jvmti: Jvmti, jni: Jni, thread: jthread, klass: jclass) {
    let Ok(sig) = jvmti.class_signature(klass) else {
        return;
    };
    let Some(name) = sig.strip_prefix('L').and_then(|s| s.strip_suffix(';')) else {
        return;
    };
    let pending = {
        let Ok(mut map) = PENDING.lock() else { return };
        let Some(list) = map.as_mut().and_then(|m| m.get_mut(name)) else {
            return;
        };
        let p = list.remove(0);
        if list.is_empty() {
            map.as_mut().map(|m| m.remove(name));
        }
        p
    };
    // JNI calls only from here on (traced classes): a local frame keeps whatever
    // references JVMTI hands out from piling up in the caller's frame.
    jni.with_local_frame(32, || {
        let a = agent();
        if a.options.mode == Mode::Jvmti {
            map_methods(jvmti, klass, &pending);
        } else if pending.instrumented {
            tracker::grant_access(jvmti, jni, klass);
        }
        let loader = loader_name(jvmti, jni, klass);
        let tid = threads::current(jvmti, thread).map_or(0, |b| b.tid);
        send_defs(&pending, tid, &loader);
    })
}

/// Records which jmethodIDs belong to traced methods (JVMTI method events name methods by jmethodID).
fn map_methods(jvmti: Jvmti, klass: jclass, p: &Pending) {
    let Ok(methods) = jvmti.class_methods(klass) else {
        return;
    };
    let index: HashMap<(&str, &str), usize> = p
        .info
        .methods
        .iter()
        .enumerate()
        .map(|(i, m)| ((m.name.as_str(), m.descriptor.as_str()), i))
        .collect();
    let table = agent().method_table();
    for &m in methods.as_slice() {
        let Ok((name, sig)) = jvmti.method_name(m) else {
            continue;
        };
        if let Some(&i) = index.get(&(name.as_str(), sig.as_str())) {
            if traceable(&p.info.methods[i]) && !table.insert(m as usize, p.first_mid + i as u32) {
                log_once("method table full: further methods are not traced");
            }
        }
    }
}

fn loader_name(jvmti: Jvmti, jni: Jni, klass: jclass) -> String {
    match jvmti.class_loader(klass) {
        Ok(l) if !l.is_null() => {
            let name = jvmti
                .object_class_signature(jni, l)
                .map(|s| dotted_from_signature(&s))
                .unwrap_or_default();
            jni.delete_local(l);
            name
        }
        _ => "bootstrap".to_string(),
    }
}

fn dotted_from_signature(sig: &str) -> String {
    sig.strip_prefix('L')
        .and_then(|s| s.strip_suffix(';'))
        .unwrap_or(sig)
        .replace('/', ".")
}

/// TPTP names constructors and static initialisers `-init-` / `-clinit-`.
fn tptp_method_name(name: &str) -> String {
    match name {
        "<init>" => "-init-".to_string(),
        "<clinit>" => "-clinit-".to_string(),
        n => n.to_string(),
    }
}

fn send_defs(p: &Pending, tid: u32, loader: &str) {
    let info = &p.info;
    let t = clock::ticks();
    let mut defs = Vec::with_capacity(info.methods.len() + 1);
    defs.push(Def::Class(ClassDef {
        cid: p.cid,
        tid,
        t,
        name: info.name.replace('/', "."),
        source: info.source_file.clone().unwrap_or_default(),
        superclass: info
            .super_name
            .as_deref()
            .map(|s| s.replace('/', "."))
            .unwrap_or_default(),
        interfaces: info
            .interfaces
            .iter()
            .map(|s| s.replace('/', "."))
            .collect(),
        loader: loader.to_string(),
        access: info.access,
        static_fields: info.static_fields,
        instance_fields: info.instance_fields,
        num_methods: info.methods.len() as u32,
        instrumented: p.instrumented,
    }));
    for (i, m) in info.methods.iter().enumerate() {
        let lines = m.line_table.iter().map(|&(_, l)| l as u32);
        let lines = lines.clone().min().zip(lines.max());
        defs.push(Def::Method(MethodDef {
            mid: p.first_mid + i as u32,
            cid: p.cid,
            name: tptp_method_name(&m.name),
            signature: m.descriptor.clone(),
            access: m.access,
            exceptions: m.exceptions.iter().map(|s| s.replace('/', ".")).collect(),
            lines,
        }));
    }
    crate::buffer::send(Msg::Defs(defs));
}
