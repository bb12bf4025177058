//! The tracker class the bytecode probes call: defined by the agent in the boot loader at VM init, its natives bound to our probe functions.
//!
//! Until the tracker exists no class is rewritten (a probe calling a missing class
//! would throw NoClassDefFoundError into the application). Traced classes that
//! loaded before are rewritten afterwards with RetransformClasses.

use crate::classfile;
use crate::classfile::{java_name, TRACKER};
use crate::jvmti::{GlobalRef, Jni, Jvmti};
use crate::log::log_once;
use crate::options::Options;
use crate::state::agent;
use crate::sys::jni::JNINativeMethod;
use crate::sys::jni::{jclass, jobject};
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// The tracker class (its `on` switch is set at each start and stop).
static TRACKER_CLASS: OnceLock<GlobalRef> = OnceLock::new();

/// Turns the probes' switch on or off (a volatile static field of the tracker that
/// every gated probe reads). Needs a thread attached to the JVM; before the tracker
/// exists there is nothing to switch (`install` sets it).
pub fn set_recording(on: bool) {
    let (Some(class), Some(jni)) = (TRACKER_CLASS.get(), crate::jvmti::jni_of_current()) else {
        return;
    };
    let name = std::ffi::CString::new(classfile::SWITCH_FIELD).expect("no NUL");
    if !jni.set_static_boolean(class.as_raw(), &name, on) {
        log_once("cannot switch the tracker's probes; they keep calling the agent");
    }
}

/// With `window=`: sets the tracker's `windows` field, which the probes of methods
/// other than window methods read (`window::set_gate`'s hook). Needs a thread attached
/// to the JVM (a probe's, or the one closing the trace).
fn set_windows_open(open: bool) {
    let (Some(class), Some(jni)) = (TRACKER_CLASS.get(), crate::jvmti::jni_of_current()) else {
        return;
    };
    let name = std::ffi::CString::new(classfile::WINDOWS_FIELD).expect("no NUL");
    if !jni.set_static_int(class.as_raw(), &name, i32::from(open)) {
        log_once("cannot switch the tracker's window gate; every probe keeps calling the agent");
    }
}

/// Loaders asked whether they see the tracker: (weak reference, answer).
static ASKED: std::sync::Mutex<Vec<(usize, bool)>> = std::sync::Mutex::new(Vec::new());

/// Whether classes `loader` defines can resolve the tracker, which their probes name.
/// Every loader should (the tracker is a `java.*` class, which loaders must delegate),
/// but one that delegates only some names (say `java.lang.*`) cannot: its classes are
/// then left untouched, and one stderr line names the loader. Asked once per loader
/// (`loader.loadClass("java.jtrace.Tracker")`, the request its first probe would
/// make), the answer kept by a weak reference.
pub fn visible_from(jvmti: Jvmti, jni: Jni, loader: jobject) -> bool {
    thread_local! {
        /// Asking now: a class the loader loads meanwhile is left alone.
        static ASKING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    let Some(tracker) = TRACKER_CLASS.get() else {
        return false;
    };
    if ASKING.with(|a| a.replace(true)) {
        return false;
    }
    let seen = ask(jvmti, jni, loader, tracker);
    ASKING.with(|a| a.set(false));
    seen
}

fn ask(jvmti: Jvmti, jni: Jni, loader: jobject, tracker: &GlobalRef) -> bool {
    if let Ok(asked) = ASKED.lock() {
        if let Some(&(_, seen)) = asked
            .iter()
            .find(|&&(w, _)| jni.same_object(w as jobject, loader))
        {
            return seen;
        }
    }
    let found = jni.loader_load_class(loader, &TRACKER.replace('/', "."));
    let seen = !found.is_null() && jni.same_object(found, tracker.as_raw());
    if !found.is_null() {
        jni.delete_local(found);
    }
    if !seen {
        let name = jvmti
            .object_class_signature(jni, loader)
            .map_or_else(|| "?".to_string(), |s| java_name(&s));
        log_once(&format!(
            "class loader {name} cannot see {}: the classes it defines run untouched and untraced",
            TRACKER.replace('/', ".")
        ));
    }
    if let Ok(mut asked) = ASKED.lock() {
        // Answers of collected loaders go when the list has doubled.
        if asked.len() >= 64 && asked.len().is_power_of_two() {
            asked.retain(|&(w, _)| {
                let gone = jni.same_object(w as jobject, std::ptr::null_mut());
                if gone {
                    jni.delete_weak(w as jobject);
                }
                !gone
            });
        }
        asked.push((jni.new_weak(loader) as usize, seen));
    }
    seen
}

/// The tracker's module (the boot loader's unnamed module).
static TRACKER_MODULE: OnceLock<GlobalRef> = OnceLock::new();

/// Defines the tracker, binds its natives and sets its switch to `tracing` (the
/// classes that loaded before it existed are the caller's: `retransform_early` at VM
/// init, `retransform_loaded` at attach, each one VM operation). Returns false (and says why, once) if any step fails: the run
/// then continues untraced rather than risk the application.
pub fn install(jni: Jni, tracing: bool) -> bool {
    let count_idle = agent().options.counts_all;
    let slots = count_idle.then(crate::counts::idle::slots);
    let windowed = !agent().options.windows.is_empty();
    let bytes = classfile::gated_tracker_class(TRACKER, slots, windowed);
    let name = std::ffi::CString::new(TRACKER).expect("no NUL in the tracker's name");
    let Some(class) = jni.define_class(&name, &bytes) else {
        log_once("cannot define the tracker class; methods are not traced (mode=bci)");
        return false;
    };
    // In GATED_NATIVES order.
    let functions = (agent().entries.tracker_natives)();
    let names: Vec<(std::ffi::CString, std::ffi::CString)> = classfile::GATED_NATIVES
        .iter()
        .map(|(n, d)| {
            (
                std::ffi::CString::new(*n).expect("no NUL"),
                std::ffi::CString::new(*d).expect("no NUL"),
            )
        })
        .collect();
    let methods: Vec<JNINativeMethod> = names
        .iter()
        .zip(functions)
        .map(|((n, s), f)| JNINativeMethod {
            name: n.as_ptr() as *mut _,
            signature: s.as_ptr() as *mut _,
            fnPtr: f,
        })
        .collect();
    if !jni.register_natives(class, &methods) {
        log_once("cannot bind the tracker's natives; methods are not traced (mode=bci)");
        return false;
    }
    if let Some(g) = jni.new_global(class) {
        let _ = TRACKER_CLASS.set(g);
    }
    if windowed {
        crate::window::set_gate(set_windows_open);
    }
    if count_idle && !crate::counts::idle::install(jni, class) {
        // Its initialiser failed (or its tables cannot be found): a probe calling it
        // would throw into the application.
        log_once("cannot initialise the tracker's count tables; methods are not traced (mode=bci)");
        return false;
    }
    set_recording(tracing);
    let module = jni.module_of(class);
    if !module.is_null() {
        warm_module_reads(jni, module);
        if let Some(g) = jni.new_global(module) {
            let _ = TRACKER_MODULE.set(g);
        }
        jni.delete_local(module);
    }
    jni.delete_local(class);
    agent().set_tracker_ready();
    true
}

/// Classes of java.base that HotSpot's read-edge code runs through, loaded (and left
/// untouched: the tracker is not ready yet) before any class is rewritten.
///
/// Why: the first time a class of a named module is transformed by an agent, HotSpot
/// gives that module read edges to the unnamed modules (`JvmtiExport::
/// add_default_read_edges` → `jdk.internal.module.Modules.transformedByAgent` →
/// `Module.implAddReads` → `Module.canRead` → `Module$ReflectionData`,
/// `WeakPairMap$Pair...`); `AddModuleReads` (see `grant_access`) takes the same path.
/// If the class being loaded is one of those, it is needed while it is still being
/// loaded: a `ClassCircularityError`, which the JVM caches in `java.lang.Module`'s
/// constant pool, so module reflection (proxies, method handles) stays broken for the
/// rest of the process (seen on JDK 17 and 25 under `include=*`). With these classes
/// loaded first, the path needs no class load and the circle cannot close; they are
/// rewritten afterwards by retransformation like every early class.
fn warm_module_reads(jni: Jni, tracker_module: crate::sys::jni::jobject) {
    // `java.base.canRead(unnamed)` walks the lookup side (ReflectionData, WeakPairMap,
    // Pair, Pair$Lookup) with no side effect; the insertion side's classes are loaded
    // by name.
    let object = jni.object_class(tracker_module);
    let base = if object.is_null() {
        std::ptr::null_mut()
    } else {
        jni.module_of(object)
    };
    if !base.is_null() {
        let _ = jni.module_can_read(base, tracker_module);
        jni.delete_local(base);
    }
    jni.delete_local(object);
    for name in [
        c"java/lang/Module$ReflectionData",
        c"java/lang/WeakPairMap",
        c"java/lang/WeakPairMap$Pair",
        c"java/lang/WeakPairMap$Pair$Lookup",
        c"java/lang/WeakPairMap$Pair$Weak",
        c"java/lang/WeakPairMap$WeakRefPeer",
        c"java/lang/WeakPairMap$Pair$Weak$1",
    ] {
        let _ = jni.load_class(name);
    }
}

/// Lets a class in a named module call the tracker (named modules read only what
/// they declare; the tracker lives in the boot loader's unnamed module).
pub fn grant_access(jvmti: Jvmti, jni: Jni, klass: crate::sys::jni::jclass) {
    let Some(to) = TRACKER_MODULE.get() else {
        return;
    };
    if let Some(m) = jni.named_module(klass) {
        if let Err(e) = jvmti.add_module_reads(m, to.as_raw()) {
            // Seen for java.base classes prepared during shutdown (the JVM's upcall
            // fails then); java.base reads the boot loader's unnamed module anyway.
            // Said once, naming the first class.
            static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
            if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
                let name = jvmti
                    .class_signature(klass)
                    .map(|s| java_name(&s))
                    .unwrap_or_default();
                log_once(&format!(
                    "cannot let the module of {name} (and maybe others) read the tracker: {e}"
                ));
            }
        }
        jni.delete_local(m);
    }
}

/// After attach: rewrites every loaded class the filters select (each gets its
/// definitions then, from its load hook), those whose load hook ran before the tracker
/// was ready among them, in one VM operation per batch. Returns how many were rewritten.
pub fn retransform_loaded(jvmti: Jvmti, jni: Jni) -> usize {
    let early: HashSet<String> = take_early()
        .into_iter()
        .map(|n| n.replace('/', "."))
        .collect();
    let f = crate::state::filters();
    retransform_where(jvmti, jni, |name| f.is_traced(name) || early.contains(name))
}

/// A trace starts with other filters: rewrites every loaded class that either the
/// old or the new filters select (probes added, removed or changed per method).
pub fn retransform_changed(jvmti: Jvmti, jni: Jni, old: &Options, new: &Options) -> usize {
    retransform_where(jvmti, jni, |name| {
        old.is_traced(name) || new.is_traced(name)
    })
}

/// mode=jvmti, VM init: the classes of the JDK's blocking methods that loaded before
/// the load hook could see them go through it now (retransformed with their bytes
/// unchanged), so that they are defined and their blocking methods mapped, as in
/// mode=bci (`retransform_early`).
pub fn define_early_waits(jvmti: Jvmti, jni: Jni) -> usize {
    let f = crate::state::filters();
    retransform_where(jvmti, jni, |name| f.waits_only(name))
}

/// Retransforms the loaded, modifiable classes whose dotted name `select` accepts.
fn retransform_where(jvmti: Jvmti, jni: Jni, select: impl Fn(&str) -> bool) -> usize {
    let Ok(loaded) = jvmti.loaded_classes() else {
        return 0;
    };
    let todo: Vec<jclass> = loaded
        .as_slice()
        .iter()
        .copied()
        .filter(|&k| {
            let chosen = jvmti.class_signature(k).is_ok_and(|sig| {
                sig.strip_prefix('L')
                    .and_then(|s| s.strip_suffix(';'))
                    .is_some_and(|name| {
                        name != TRACKER
                            && select(&name.replace('/', "."))
                            && jvmti.is_modifiable(k)
                            && !jvmti.is_erroneous(k)
                    })
            });
            // One local reference per loaded class: the others go at once, so that
            // the hooks the retransformation runs on this thread start from few.
            if !chosen {
                jni.delete_local(k);
            }
            chosen
        })
        .collect();
    for &k in &todo {
        grant_access(jvmti, jni, k);
    }
    retransform_batched(jvmti, &todo, "cannot retransform a loaded class")
}

/// Classes per RetransformClasses call. Each call is one VM operation (a safepoint,
/// and deoptimisation of what depends on the classes), so one call per class made
/// attaching to a server with 1,300 loaded classes take 10-25 s.
const BATCH: usize = 512;

/// Retransforms `classes` in batches; a batch the JVM refuses is split in halves until
/// the classes it cannot take stand alone, so that one such class does not cost the
/// others their probes, nor the JVM one operation per class (one per class took 4 s of
/// a 4.6 s attach to Jetty, whose `Slf4jLog` failed to link without slf4j).
fn retransform_batched(jvmti: Jvmti, classes: &[jclass], what: &str) -> usize {
    classes
        .chunks(BATCH)
        .map(|batch| retransform_halving(jvmti, batch, what))
        .sum()
}

fn retransform_halving(jvmti: Jvmti, classes: &[jclass], what: &str) -> usize {
    match jvmti.retransform(classes) {
        Ok(()) => classes.len(),
        Err(e) if classes.len() == 1 => {
            agent().count_skipped();
            log_once(&format!("{what}: {e}"));
            0
        }
        Err(_) => {
            let (a, b) = classes.split_at(classes.len() / 2);
            retransform_halving(jvmti, a, what) + retransform_halving(jvmti, b, what)
        }
    }
}

/// Names of traced classes whose load hook ran before the tracker existed (bci mode):
/// they are retransformed once it is ready, under the ids they already have.
static EARLY: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Names of the classes to retransform once the tracker is ready.
fn take_early() -> HashSet<String> {
    EARLY
        .lock()
        .ok()
        .and_then(|mut m| m.take())
        .unwrap_or_default()
}

/// A traced class loaded before the tracker was ready: rewritten once it is.
pub fn note_early(name: &str) {
    if let Ok(mut early) = EARLY.lock() {
        early
            .get_or_insert_with(HashSet::new)
            .insert(name.to_string());
    }
}

/// Rewrites the traced classes whose load hook ran before the tracker was ready, and
/// the classes of the JDK's blocking methods that `waits=on` probes (and the filters
/// leave out) that loaded before the load hook could see them (in the primordial
/// phase: `Thread`, `LockSupport`): these get their identity and
/// definitions now, as at attach, and probes on those methods alone.
pub fn retransform_early(jvmti: Jvmti, jni: Jni) {
    let early: HashSet<String> = take_early()
        .into_iter()
        .map(|n| n.replace('/', "."))
        .collect();
    let f = crate::state::filters();
    if early.is_empty() && !f.waits {
        return;
    }
    retransform_where(jvmti, jni, |name| {
        early.contains(name) || f.waits_only(name)
    });
}
