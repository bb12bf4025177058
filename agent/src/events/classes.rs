//! Classes and methods: parse each traced class as it loads (ClassFileLoadHook), give it ids, optionally rewrite it, and send its definitions when it is prepared.
//!
//! Both modes take the same path, so they trace the same set of classes: only classes
//! whose bytes went through the load hook are traced (hidden classes, e.g. lambda
//! proxies, never do). The class file, not JVMTI, is the source of the definitions:
//! it has the Exceptions attribute, the line number table and the source file name.

use crate::classfile::{self, ClassInfo, ProbePlan};
use crate::clock;
use crate::events::identity::{self, Pending};
use crate::events::objects::{ClassTag, CLASS_TAG_BIT};
use crate::events::{threads, tracker};
use crate::ids;
use crate::jvmti::{Jni, Jvmti};
use crate::linetable;
use crate::log::log_once;
use crate::options::{AllocMode, Mode};
use crate::state::agent;
use crate::sys::jni::{jclass, jobject};
use crate::sys::jvmti as raw;
use std::collections::HashMap;
use std::sync::Mutex;
use trace::defs::{ClassDef, Def, MethodDef};

use crate::classfile::{internal_name, TRACKER};

/// Method ids of a class whose ids start at `first_mid`, in class-file order; None
/// for methods that are not traced.
fn fresh_method_ids(info: &ClassInfo, first_mid: u32) -> Vec<Option<u32>> {
    info.methods
        .iter()
        .enumerate()
        .map(|(i, m)| classfile::traceable(m).then_some(first_mid + i as u32))
        .collect()
}

/// The ids of the methods that get probes (bci) or are mapped (jvmti): those the
/// filters' method rules select, and in a class the filters leave out, only the
/// blocking methods `waits=on` probes.
fn select_methods(info: &ClassInfo, method_ids: &[Option<u32>], dotted: &str) -> Vec<Option<u32>> {
    let f = crate::state::filters();
    if !f.selects_methods(dotted) {
        return method_ids.to_vec();
    }
    method_ids
        .iter()
        .zip(&info.methods)
        .map(|(id, m)| id.filter(|_| f.is_method_traced(dotted, &m.name)))
        .collect()
}

/// Rewrites a parsed class with probes; None (logged, counted) if it cannot be.
/// Methods that method-level filter rules exclude get no probes.
fn rewrite(
    bytes: &[u8],
    info: &ClassInfo,
    method_ids: &[Option<u32>],
    dotted: &str,
) -> Option<Vec<u8>> {
    let selected = select_methods(info, method_ids, dotted);
    let method_ids = &selected[..];
    let windows: Vec<bool> = if crate::window::on() {
        method_ids
            .iter()
            .map(|m| m.is_some_and(crate::window::is_window))
            .collect()
    } else {
        Vec::new()
    };
    let plan = ProbePlan {
        windows: &windows,
        tracker: TRACKER,
        method_ids,
        lines: agent().options.lines,
        pad: !agent()
            .options
            .inline
            .unwrap_or(crate::buffer::is_stopping()),
    };
    let mut notes = Vec::new();
    match classfile::instrument_noting(bytes, &plan, &mut notes) {
        Ok(b) => {
            // Degraded per method: the rest of the class is traced as usual. Said on
            // stderr and in the trace (traceEnd's partlyInstrumentedMethod).
            for n in &notes {
                log_once(&format!("class {dotted}, method {n}"));
            }
            if !notes.is_empty() {
                crate::buffer::send_defs(
                    notes
                        .into_iter()
                        .map(|n| Def::PartlyTraced(dotted.to_string(), n))
                        .collect(),
                );
            }
            Some(b)
        }
        Err(e) => {
            agent().count_skipped();
            log_once(&format!(
                "cannot instrument class {dotted}: {e}; it runs untouched and untraced"
            ));
            crate::buffer::send_defs(vec![Def::Untraced(dotted.to_string(), e.to_string())]);
            None
        }
    }
}

/// A new pending class: ids (given now, or reused from `ids`), probes if the tracker
/// is ready, and the running code's tables if allocation sites need them.
fn prepare_pending(
    bytes: &[u8],
    info: ClassInfo,
    ids: Option<(u32, u32)>,
    dotted: &str,
) -> (Pending, Option<Vec<u8>>) {
    let a = agent();
    let (cid, first_mid) = ids.unwrap_or_else(|| {
        (
            ids::next_class(),
            ids::next_methods(info.methods.len() as u32),
        )
    });
    crate::window::mark_class(
        &a.options,
        dotted,
        first_mid,
        info.methods.iter().map(|m| m.name.as_str()),
    );
    let mut new_bytes = None;
    if a.options.mode == Mode::Bci && a.tracker_ready() {
        new_bytes = rewrite(bytes, &info, &fresh_method_ids(&info, first_mid), dotted);
    }
    let mut p = Pending::new(info, cid, first_mid);
    p.instrumented = new_bytes.is_some();
    if a.options.alloc != AllocMode::Off {
        let running = new_bytes.as_deref().unwrap_or(bytes);
        if let Ok(r) = classfile::parse_info(running) {
            (p.run_lines, p.run_alloc_sites) = r
                .methods
                .into_iter()
                .map(|m| (m.line_numbers, m.alloc_sites))
                .unzip();
        }
    }
    (p, new_bytes)
}

/// The load hook for one class: `loader` defines it (null: the boot loader);
/// `redefined` is the class when it is being retransformed or redefined, else null.
/// Returns new class bytes when the class was rewritten.
pub fn on_load(
    jvmti: Jvmti,
    jni: Jni,
    loader: jobject,
    redefined: jclass,
    name: &str,
    bytes: &[u8],
) -> Option<Vec<u8>> {
    let a = agent();
    // java.lang.Object loads before any hook can see it; refuse it explicitly all
    // the same: its constructor runs for every object the JVM creates.
    if name == TRACKER || name == "java/lang/Object" {
        return None;
    }
    let dotted = name.replace('/', ".");
    if !crate::state::filters().is_traced(&dotted) {
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
    if !redefined.is_null() {
        return on_redefine(jvmti, jni, redefined, name, bytes, info, &dotted);
    }
    // Probes name the tracker: a loader that cannot resolve it keeps its classes as
    // they are (not traced, not defined), rather than see them fail.
    if a.options.mode == Mode::Bci
        && a.tracker_ready()
        && !loader.is_null()
        && !jni.with_local_frame(8, || tracker::visible_from(jvmti, jni, loader))
    {
        return None;
    }
    if a.options.mode == Mode::Bci && !a.tracker_ready() {
        tracker::note_early(name);
    }
    let ids = identity::pending_ids(jni, name, loader);
    let fresh = ids.is_none();
    let (pending, new_bytes) = prepare_pending(bytes, info, ids, &dotted);
    if fresh {
        // Defined now, before the class exists: no thread can run a method of it
        // before its definitions are on the sink's FIFO. (At the prepare event it
        // would be too late: HotSpot marks the class linked before it posts the event,
        // so another thread may already initialise and run it; seen under include=*.)
        let loader_name = if loader.is_null() {
            loader_name_of(jvmti, jni, loader)
        } else {
            jni.with_local_frame(8, || loader_name_of(jvmti, jni, loader))
        };
        send_defs(&pending, hook_tid(jvmti), &loader_name, true);
        for cid in identity::add_pending(jni, name, loader, pending) {
            // Loaded, never linked, and gone with its loader: no mirror was ever
            // tagged to report it, so the purge does.
            class_unloaded(cid);
        }
    }
    new_bytes
}

/// The thread a load hook runs on, as a trace thread id (0 in the primordial phase,
/// which has no threads to name yet).
fn hook_tid(jvmti: Jvmti) -> u32 {
    if jvmti.phase() == raw::JVMTI_PHASE_PRIMORDIAL {
        return 0;
    }
    threads::current(jvmti, std::ptr::null_mut()).map_or(0, |b| b.tid)
}

/// The load hook of a class being retransformed or redefined (jtrace's own attach
/// and early classes, another agent, a debugger's hot swap). A class jtrace already
/// defined keeps its class and method ids and is defined nothing twice; a class it
/// never saw prepared (loaded before an attach, or in the primordial phase, which has
/// no prepare events) gets its identity now, and its definitions if it had none.
fn on_redefine(
    jvmti: Jvmti,
    jni: Jni,
    klass: jclass,
    name: &str,
    bytes: &[u8],
    info: ClassInfo,
    dotted: &str,
) -> Option<Vec<u8>> {
    let a = agent();
    let bci = a.options.mode == Mode::Bci && a.tracker_ready();
    let tag = jvmti
        .get_tag(klass)
        .ok()
        .filter(|t| t & CLASS_TAG_BIT != 0)
        .map(ClassTag::decode);
    if let Some(t) = tag {
        if let Some(method_ids) = identity::live_method_ids(t.cid, &info) {
            return if bci {
                rewrite(bytes, &info, &method_ids, dotted)
            } else {
                None
            };
        }
    }
    jni.with_local_frame(32, || {
        let loader = jvmti.class_loader(klass).unwrap_or(std::ptr::null_mut());
        let pending = identity::take_pending(jni, name, loader);
        // Defined at its load hook already (a primordial-phase class): identity only.
        let defined = pending.as_ref().map(|p| (p.cid, p.first_mid));
        // A class an event already named (untraced then, e.g. loaded before an
        // attach) keeps the class id of its classDef; its methods are defined now.
        let ids =
            defined.or_else(|| tag.map(|t| (t.cid, ids::next_methods(info.methods.len() as u32))));
        let (pending, new_bytes) = prepare_pending(bytes, info, ids, dotted);
        if defined.is_none() {
            let loader_name = loader_name_of(jvmti, jni, loader);
            send_defs(&pending, hook_tid(jvmti), &loader_name, tag.is_none());
        }
        bind(jvmti, jni, klass, &pending);
        new_bytes
    })
}

/// The prepare event: the class is linked, no method of it has run yet on this
/// thread. Binds the ids its load hook gave it to the class object.
pub fn on_prepare(jvmti: Jvmti, jni: Jni, klass: jclass) {
    let Ok(sig) = jvmti.class_signature(klass) else {
        return;
    };
    let Some(name) = sig.strip_prefix('L').and_then(|s| s.strip_suffix(';')) else {
        return;
    };
    // JNI calls only from here on (traced classes): a local frame keeps whatever
    // references JVMTI hands out from piling up in the caller's frame.
    jni.with_local_frame(32, || {
        let loader = jvmti.class_loader(klass).unwrap_or(std::ptr::null_mut());
        if let Some(pending) = identity::take_pending(jni, name, loader) {
            bind(jvmti, jni, klass, &pending);
        }
    })
}

/// Gives a traced class its identity for the rest of its life: the tag on its
/// mirror, its live ids, its jmethodIDs (jvmti mode, allocation sites) and, for a
/// rewritten class of a named module, read access to the tracker.
fn bind(jvmti: Jvmti, jni: Jni, klass: jclass, p: &Pending) {
    let a = agent();
    // Tagged so that its unloading is seen (ObjectFree of the mirror), so that
    // allocations name it without a lookup, and so that a retransformation finds it.
    let tag = ClassTag {
        cid: p.cid,
        code: 0,
        elem: 0,
    };
    let _ = jvmti.set_tag(klass, tag.encode());
    identity::add_live(p.cid, p.first_mid, &p.info);
    if a.options.mode == Mode::Jvmti || a.options.alloc != AllocMode::Off {
        map_methods(jvmti, klass, p);
    }
    if a.options.mode == Mode::Jvmti && a.options.lines {
        identity::set_units(p.first_mid, &p.info);
    }
    if p.instrumented {
        tracker::grant_access(jvmti, jni, klass);
    }
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
    // A class only `waits=on` selects: its blocking methods alone (their events, and
    // no allocation sites in the rest of a JDK class).
    let dotted = p.info.name.replace('/', ".");
    let waits_only = crate::state::filters().waits_only(&dotted).then(|| {
        let ids: Vec<Option<u32>> = (0..p.info.methods.len() as u32)
            .map(|i| Some(p.first_mid + i))
            .collect();
        select_methods(&p.info, &ids, &dotted)
    });
    let table = agent().method_table();
    let mut mapped = Vec::new();
    for &m in methods.as_slice() {
        let Ok((name, sig)) = jvmti.method_name(m) else {
            continue;
        };
        if let Some(&i) = index.get(&(name.as_str(), sig.as_str())) {
            let selected = waits_only.as_ref().is_none_or(|w| w[i].is_some());
            if selected && classfile::traceable(&p.info.methods[i]) {
                if table.insert(m as usize, p.first_mid + i as u32) {
                    mapped.push(m as usize);
                } else {
                    log_once("method table full: further methods are not traced");
                }
            }
        }
    }
    identity::set_jmethods(p.cid, mapped);
}

/// The class is unloaded: its ids, jmethodIDs and line units are forgotten (nothing
/// of it stays in the agent). Called from ObjectFree: no JNI.
pub fn forget(cid: u32) {
    crate::live::class_unloaded(cid);
    let unloaded = identity::unload(cid);
    if let (Some(u), Some(a)) = (unloaded, crate::state::try_agent()) {
        for m in u.jmethods {
            a.method_table().remove(m);
        }
    }
}

/// Reports a class unloaded (its classUnload is written in the current or next
/// collection's bracket).
pub fn class_unloaded(cid: u32) {
    crate::live::class_unloaded(cid);
    crate::buffer::vm_write(
        trace::record::Rec::ClassUnload {
            cid,
            t: crate::clock::ticks(),
        }
        .encode()
        .bytes(),
    );
}

/// Serialises the lazy definition of referenced classes.
static DEFINING: Mutex<()> = Mutex::new(());

/// The tag of a class mirror, defining the class (classDef) on first reference.
/// Traced classes are tagged when prepared; other classes (the JDK's, arrays) when
/// an element first needs their id.
pub fn class_tag(jvmti: Jvmti, jni: Jni, klass: jclass) -> Option<ClassTag> {
    if let Ok(t) = jvmti.get_tag(klass) {
        if t & CLASS_TAG_BIT != 0 {
            return Some(ClassTag::decode(t));
        }
    }
    let _g = DEFINING.lock().ok()?;
    jni.with_local_frame(16, || define_referenced(jvmti, jni, klass, 0))
}

fn define_referenced(jvmti: Jvmti, jni: Jni, klass: jclass, depth: u32) -> Option<ClassTag> {
    if let Ok(t) = jvmti.get_tag(klass) {
        if t & CLASS_TAG_BIT != 0 {
            return Some(ClassTag::decode(t));
        }
    }
    let sig = jvmti.class_signature(klass).ok()?;
    let (code, elem) = match sig.strip_prefix('[') {
        None => (0, 0),
        // An array names its element class (a primitive array the class `int`, ...),
        // defined first.
        Some(e) if depth < 255 => {
            let code = primitive_array_code(e).unwrap_or(2);
            let comp = jni.component_type(klass);
            if comp.is_null() {
                return None;
            }
            let t = define_referenced(jvmti, jni, comp, depth + 1);
            jni.delete_local(comp);
            (code, t?.cid)
        }
        Some(_) => return None,
    };
    if code == 0 {
        // A traced class whose load hook defined it, referenced before its prepare
        // event bound it (`new Marker[n]` runs before Marker is linked): it keeps the
        // ids of its classDef. Its mirror stays untagged until prepare binds it (a
        // class never linked is reported unloaded by the pending table's purge, and a
        // tag would report it a second time).
        if let Some(name) = sig.strip_prefix('L').and_then(|s| s.strip_suffix(';')) {
            let loader = jvmti.class_loader(klass).unwrap_or(std::ptr::null_mut());
            let ids = identity::pending_ids(jni, name, loader);
            if !loader.is_null() {
                jni.delete_local(loader);
            }
            if let Some((cid, _)) = ids {
                return Some(ClassTag {
                    cid,
                    code: 0,
                    elem: 0,
                });
            }
        }
    }
    let cid = ids::next_class();
    let tag = ClassTag { cid, code, elem };
    let sup = jni.superclass(klass);
    let superclass = if sup.is_null() {
        String::new()
    } else {
        let s = jvmti
            .class_signature(sup)
            .map(|s| internal_name(&s))
            .unwrap_or_default();
        jni.delete_local(sup);
        s
    };
    let interfaces = jvmti
        .interfaces(klass)
        .map(|i| {
            i.as_slice()
                .iter()
                .filter_map(|&c| jvmti.class_signature(c).ok().map(|s| internal_name(&s)))
                .collect()
        })
        .unwrap_or_default();
    let (static_fields, instance_fields) = jvmti.field_counts(klass).unwrap_or((0, 0));
    let num_methods = jvmti
        .class_methods(klass)
        .map_or(0, |m| m.as_slice().len() as u32);
    // The thread's id if it has one: registering it here could re-enter a thread's
    // registration (its Thread object's objDef names the Thread class).
    let tid = crate::buffer::current().map_or(0, |b| b.tid);
    crate::live::send_class(
        cid,
        vec![Def::Class(ClassDef {
            cid,
            tid,
            t: clock::ticks(),
            name: primitive_name(&sig).map_or_else(|| internal_name(&sig), str::to_string),
            source: String::new(),
            superclass,
            interfaces,
            loader: loader_name(jvmti, jni, klass),
            access: jvmti.class_modifiers(klass).unwrap_or(0) as u16,
            static_fields,
            instance_fields,
            num_methods,
            instrumented: false,
            annotations: Vec::new(),
        })],
    );
    // Tagged only once the classDef is on the sink's FIFO: other threads read the
    // tag without the DEFINING lock, and a record naming the class may reach the
    // sink (in a chunk that thread sends) before a definition sent later.
    jvmti.set_tag(klass, tag.encode()).ok()?;
    Some(tag)
}

/// The Java name of a primitive type's descriptor (the signature of `int.class` is
/// `I`): the element classes of primitive arrays are defined by these names.
fn primitive_name(sig: &str) -> Option<&'static str> {
    Some(match sig {
        "Z" => "boolean",
        "C" => "char",
        "F" => "float",
        "D" => "double",
        "B" => "byte",
        "S" => "short",
        "I" => "int",
        "J" => "long",
        "V" => "void",
        _ => return None,
    })
}

/// TPTP isArray code of a primitive array's element descriptor.
fn primitive_array_code(elem: &str) -> Option<u8> {
    Some(match elem {
        "Z" => 4,
        "C" => 5,
        "F" => 6,
        "D" => 7,
        "B" => 8,
        "S" => 9,
        "I" => 10,
        "J" => 11,
        _ => return None,
    })
}

fn loader_name(jvmti: Jvmti, jni: Jni, klass: jclass) -> String {
    match jvmti.class_loader(klass) {
        Ok(l) => {
            let name = loader_name_of(jvmti, jni, l);
            jni.delete_local(l);
            name
        }
        Err(_) => loader_name_of(jvmti, jni, std::ptr::null_mut()),
    }
}

/// The class name of a loader object (`bootstrap` for null, the boot loader).
fn loader_name_of(jvmti: Jvmti, jni: Jni, loader: jobject) -> String {
    if loader.is_null() {
        return "bootstrap".to_string();
    }
    jvmti
        .object_class_signature(jni, loader)
        .map(|s| internal_name(&s))
        .unwrap_or_default()
}

/// The class's Probekit `methodNames` and `methodLineTables` strings: per method in
/// class-file order, the line of each executable unit (a method without code or line
/// information is one unit on line 0).
fn probekit_strings(info: &ClassInfo) -> Vec<(String, String)> {
    let names = linetable::method_names(
        info.methods
            .iter()
            .map(|m| (m.name.as_str(), m.descriptor.as_str())),
    );
    let tables: Vec<Vec<u32>> = info
        .methods
        .iter()
        .map(|m| m.units.iter().map(|&(_, l)| l as u32).collect())
        .collect();
    vec![
        ("methodNames".to_string(), names),
        ("methodLineTables".to_string(), linetable::encode(&tables)),
    ]
}

fn send_defs(p: &Pending, tid: u32, loader: &str, class_def: bool) {
    let info = &p.info;
    let lines_on = agent().options.lines;
    let t = clock::ticks();
    let mut defs = Vec::with_capacity(info.methods.len() + 1);
    if class_def {
        defs.push(Def::Class(ClassDef {
            cid: p.cid,
            tid,
            t,
            name: info.name.clone(),
            source: info.source_file.clone().unwrap_or_default(),
            superclass: info.super_name.clone().unwrap_or_default(),
            interfaces: info.interfaces.clone(),
            loader: loader.to_string(),
            access: info.access,
            static_fields: info.static_fields,
            instance_fields: info.instance_fields,
            num_methods: info.methods.len() as u32,
            instrumented: p.instrumented,
            annotations: probekit_strings(info),
        }));
    }
    for (i, m) in info.methods.iter().enumerate() {
        let lines = m.line_numbers.iter().map(|&(_, l)| l as u32);
        let lines = lines.clone().min().zip(lines.max());
        defs.push(Def::Method(MethodDef {
            mid: p.first_mid + i as u32,
            cid: p.cid,
            name: m.name.clone(),
            signature: m.descriptor.clone(),
            access: m.access,
            exceptions: m.exceptions.clone(),
            lines,
            line_numbers: p
                .run_lines
                .get(i)
                .map(|t| t.iter().map(|&(pc, l)| (pc as u32, l as u32)).collect())
                .unwrap_or_default(),
            alloc_sites: p.run_alloc_sites.get(i).cloned().unwrap_or_default(),
            unit_lines: if lines_on {
                m.units.iter().map(|&(_, l)| l as u32).collect()
            } else {
                Vec::new()
            },
        }));
    }
    crate::live::send_class(p.cid, defs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_names() {
        use crate::classfile::java_name;
        assert_eq!(java_name("Ljava/lang/String;"), "java.lang.String");
        assert_eq!(java_name("[I"), "int[]");
        assert_eq!(java_name("[[Ljava/lang/Object;"), "java.lang.Object[][]");
        assert_eq!(internal_name("Ljava/lang/String;"), "java/lang/String");
        assert_eq!(internal_name("[I"), "[I");
        assert_eq!(primitive_array_code("J"), Some(11));
        assert_eq!(primitive_array_code("Ljava/lang/String;"), None);
        assert_eq!(primitive_name("I"), Some("int"));
        assert_eq!(primitive_name("LI;"), None);
    }
}
