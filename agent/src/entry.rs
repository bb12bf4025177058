//! Every function the JVM calls: Agent_OnLoad/OnAttach/OnUnload and the JVMTI event callbacks, each behind a panic guard.
//!
//! A Rust panic unwinding into the JVM is undefined behaviour, so every entry point
//! runs its body under `guard`, which swallows (and reports once) any panic.

use crate::events::{classes, exceptions, memory, methods, monitors, vthreads};
use crate::jvmti::{Jni, Jvmti};
use crate::lifecycle;
use crate::log::log_once;
use crate::state::{self, Entries};
use crate::sys::jni::{
    jclass, jint, jlong, jmethodID, jobject, jvalue, JNIEnv, JavaVM, JNI_ERR, JNI_OK,
};
use crate::sys::jvmti::{jboolean, jlocation, jthread, jvmtiEnv, jvmtiEventCallbacks};
use crate::sys::os::c_string;
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use trace::record::{TAG_ENTRY, TAG_EXIT};

/// The tables the JVM calls through, filled here next to the functions they name:
/// `lifecycle` installs the callbacks, `events::tracker` binds the natives.
static ENTRIES: Entries = Entries {
    callbacks: event_callbacks,
    mount_events,
    tracker_natives,
};

/// The JVMTI event callbacks (which of them are enabled is `lifecycle`'s choice).
fn event_callbacks() -> jvmtiEventCallbacks {
    jvmtiEventCallbacks {
        VMInit: Some(vm_init),
        VMDeath: Some(vm_death),
        ThreadStart: Some(thread_start),
        ThreadEnd: Some(thread_end),
        ClassFileLoadHook: Some(class_file_load_hook),
        ClassPrepare: Some(class_prepare),
        MethodEntry: Some(method_entry),
        MethodExit: Some(method_exit),
        Exception: Some(exception),
        ExceptionCatch: Some(exception_catch),
        GarbageCollectionStart: Some(garbage_collection_start),
        GarbageCollectionFinish: Some(garbage_collection_finish),
        ObjectFree: Some(object_free),
        SampledObjectAlloc: Some(sampled_object_alloc),
        MonitorContendedEnter: Some(monitor_contended_enter),
        MonitorContendedEntered: Some(monitor_contended_entered),
        MonitorWait: Some(monitor_wait),
        MonitorWaited: Some(monitor_waited),
        SingleStep: Some(single_step),
        VirtualThreadStart: Some(virtual_thread_start),
        VirtualThreadEnd: Some(virtual_thread_end),
        ..Default::default()
    }
}

/// HotSpot's `VirtualThreadMount` and `VirtualThreadUnmount` extension events.
fn mount_events() -> [*const c_void; 2] {
    [
        virtual_thread_mount as *const c_void,
        virtual_thread_unmount as *const c_void,
    ]
}

/// The tracker's natives, in `classfile::GATED_NATIVES` order.
fn tracker_natives() -> [*mut c_void; 7] {
    [
        tracker_enter as *mut c_void,
        tracker_exit as *mut c_void,
        tracker_unwind as *mut c_void,
        tracker_caught as *mut c_void,
        tracker_line as *mut c_void,
        tracker_count as *mut c_void,
        tracker_control as *mut c_void,
    ]
}

/// Runs `f`, turning a panic into a one-time message and `fallback`.
#[inline(always)]
fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => {
            log_once("internal error in a callback (ignored; the application continues)");
            fallback
        }
    }
}

/// The agent's environment (the JVM hands each callback the same one we created).
fn env(_e: *mut jvmtiEnv) -> Jvmti {
    state::agent().jvmti
}

/// `-agentpath:libjtrace.so=OPTIONS` at JVM start.
///
/// # Safety
/// Called by the JVM with a valid JavaVM and a NUL-terminated option string (or null).
#[no_mangle]
pub unsafe extern "system" fn Agent_OnLoad(
    vm: *mut JavaVM,
    options: *mut c_char,
    _reserved: *mut c_void,
) -> jint {
    guard(JNI_ERR, || {
        // SAFETY: the JVM passes a NUL-terminated option string or null.
        let opts = unsafe { c_string(options) };
        // SAFETY: `vm` is the JavaVM the JVM passed to us.
        let Some(jvmti) = (unsafe { Jvmti::from_vm(vm) }) else {
            eprintln!("jtrace: this JVM offers no JVMTI 1.2 environment; not tracing");
            return JNI_ERR;
        };
        // SAFETY: `vm` is the JavaVM the JVM passed to us; it outlives the agent.
        unsafe { crate::jvmti::set_vm(vm) };
        match lifecycle::load(jvmti, &opts, &ENTRIES) {
            Ok(()) => JNI_OK,
            Err(e) => {
                eprint!("{}", e.0);
                JNI_ERR
            }
        }
    })
}

/// `jcmd PID JVMTI.agent_load libjtrace.so OPTIONS` on a running JVM.
///
/// # Safety
/// Called by the JVM with a valid JavaVM and a NUL-terminated option string (or null).
#[no_mangle]
pub unsafe extern "system" fn Agent_OnAttach(
    vm: *mut JavaVM,
    options: *mut c_char,
    _reserved: *mut c_void,
) -> jint {
    guard(JNI_ERR, || {
        // SAFETY: the JVM passes a NUL-terminated option string or null.
        let opts = unsafe { c_string(options) };
        // SAFETY: `vm` is the JavaVM the JVM passed to us.
        unsafe { attach_vm(vm, &opts) }
    })
}

/// `jtrace.agent.Loader.load(String)`: the `-javaagent:jtrace-agent.jar` way in. The jar's
/// premain (or agentmain) has `System.load`ed this library and hands over its options;
/// from here on it is an attach in the live phase, as `jtrace attach` makes.
///
/// # Safety
/// Called by the JVM as a JNI native with this thread's JNIEnv.
#[no_mangle]
pub unsafe extern "system" fn Java_jtrace_agent_Loader_load(
    env: *mut JNIEnv,
    _cls: jclass,
    options: jobject,
) -> jint {
    guard(JNI_ERR, || {
        // The native's body: the handle cannot outlive it.
        let callback = ();
        // SAFETY: the JVM passes this thread's JNIEnv, used only inside the native.
        let Some(jni) = (unsafe { Jni::from_raw(env, &callback) }) else {
            return JNI_ERR;
        };
        let Some(vm) = jni.java_vm() else {
            return JNI_ERR;
        };
        let opts = if options.is_null() {
            String::new()
        } else {
            jni.string_utf(options).unwrap_or_default()
        };
        // SAFETY: `vm` is the JavaVM this thread runs in, valid for the process.
        unsafe { attach_vm(vm, &opts) }
    })
}

/// The agent loaded into a running JVM with `opts` (or a control request to the loaded
/// one): `Agent_OnAttach`'s and the jar loader's body.
///
/// # Safety
/// `vm` must be the JavaVM of the process, and the current thread attached to it.
unsafe fn attach_vm(vm: *mut JavaVM, opts: &str) -> jint {
    // A control request reaches the loaded agent: it keeps using its own
    // environment (a new one would have none of its capabilities).
    let existing = state::try_agent().map(|a| a.jvmti);
    // SAFETY: the caller passes the process's JavaVM.
    let Some(jvmti) = existing.or_else(|| unsafe { Jvmti::from_vm(vm) }) else {
        eprintln!("jtrace: this JVM offers no JVMTI environment; not tracing");
        return JNI_ERR;
    };
    // SAFETY: `vm` is the JavaVM the JVM passed to us; it outlives the agent.
    unsafe { crate::jvmti::set_vm(vm) };
    let Some(jni) = crate::jvmti::jni_of_current() else {
        eprintln!("jtrace: attach: no JNI environment on the attaching thread; not tracing");
        return JNI_ERR;
    };
    let (outcome, text) =
        jni.with_local_frame(64, || lifecycle::attach(jvmti, jni, opts, &ENTRIES));
    // The attach protocol carries only the return code: the text goes to the
    // file the client named (it created it); a failure is said on the JVM's
    // stderr when there is no such file (jcmd, the jar), a success stays silent.
    let reply_path = crate::control::parse(opts).ok().and_then(|r| r.reply);
    let delivered = reply_path.is_some_and(|p| crate::control::write_reply(&p, &text));
    if !delivered && outcome != crate::control::Outcome::Ok {
        eprintln!("{text}");
    }
    match outcome {
        crate::control::Outcome::Ok => JNI_OK,
        // Distinct codes: the client tells "refused" from "failed" without the text.
        crate::control::Outcome::Refused => 1,
        crate::control::Outcome::Error => JNI_ERR,
    }
}

/// The library is being unloaded: make sure the document is closed.
///
/// # Safety
/// Called by the JVM.
#[no_mangle]
pub unsafe extern "system" fn Agent_OnUnload(_vm: *mut JavaVM) {
    guard((), || {
        if let Some(a) = state::try_agent() {
            lifecycle::vm_death(a.jvmti, std::ptr::null_mut());
        }
    })
}

pub(crate) unsafe extern "system" fn vm_init(e: *mut jvmtiEnv, jni: *mut JNIEnv, thread: jthread) {
    guard((), || {
        // The callback's body: the handle cannot outlive it.
        let callback = ();
        // SAFETY: the JVM passes this thread's JNIEnv, used only inside the callback.
        let Some(jni) = (unsafe { Jni::from_raw(jni, &callback) }) else {
            return;
        };
        jni.with_local_frame(64, || lifecycle::vm_init(env(e), jni, thread))
    })
}

pub(crate) unsafe extern "system" fn vm_death(e: *mut jvmtiEnv, _jni: *mut JNIEnv) {
    guard((), || {
        let jvmti = env(e);
        let t = jvmti.current_thread().unwrap_or(std::ptr::null_mut());
        lifecycle::vm_death(jvmti, t)
    })
}

pub(crate) unsafe extern "system" fn thread_start(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
) {
    guard((), || {
        crate::events::threads::current(env(e), thread);
    })
}

pub(crate) unsafe extern "system" fn thread_end(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
) {
    guard((), || crate::events::threads::end(env(e), thread))
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "system" fn class_file_load_hook(
    e: *mut jvmtiEnv,
    jni: *mut JNIEnv,
    class_being_redefined: jclass,
    loader: jobject,
    name: *const c_char,
    _protection_domain: jobject,
    class_data_len: jint,
    class_data: *const u8,
    new_class_data_len: *mut jint,
    new_class_data: *mut *mut u8,
) {
    guard((), || {
        if name.is_null() || class_data.is_null() || class_data_len <= 0 {
            return;
        }
        // The callback's body: the handle cannot outlive it.
        let callback = ();
        // SAFETY: the JVM passes this thread's JNIEnv, used only inside the callback.
        // (It is null only in the primordial phase, whose hooks need
        // can_generate_early_class_hook_events, which the agent does not ask for.)
        let Some(jni) = (unsafe { Jni::from_raw(jni, &callback) }) else {
            return;
        };
        // SAFETY: the JVM passes a NUL-terminated class name (checked non-null above).
        let name = unsafe { c_string(name) };
        // SAFETY: the JVM passes `class_data_len` readable bytes at `class_data`.
        let bytes = unsafe { std::slice::from_raw_parts(class_data, class_data_len as usize) };
        let Some(new_bytes) =
            classes::on_load(env(e), jni, loader, class_being_redefined, &name, bytes)
        else {
            return;
        };
        let jvmti = env(e);
        let Ok(p) = jvmti.allocate(new_bytes.len()) else {
            return;
        };
        // SAFETY: `p` was just allocated by JVMTI with room for `new_bytes`; the JVM
        // takes ownership of it through the out-parameters.
        unsafe {
            std::ptr::copy_nonoverlapping(new_bytes.as_ptr(), p, new_bytes.len());
            *new_class_data_len = new_bytes.len() as jint;
            *new_class_data = p;
        }
    })
}

pub(crate) unsafe extern "system" fn class_prepare(
    e: *mut jvmtiEnv,
    jni: *mut JNIEnv,
    _thread: jthread,
    klass: jclass,
) {
    guard((), || {
        // The callback's body: the handle cannot outlive it.
        let callback = ();
        // SAFETY: the JVM passes this thread's JNIEnv, used only inside the callback.
        if let Some(jni) = unsafe { Jni::from_raw(jni, &callback) } {
            classes::on_prepare(env(e), jni, klass)
        }
    })
}

pub(crate) unsafe extern "system" fn method_entry(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    method: jmethodID,
) {
    guard((), || methods::jvmti_entry(env(e), thread, method))
}

pub(crate) unsafe extern "system" fn method_exit(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    method: jmethodID,
    was_popped_by_exception: jboolean,
    _return_value: jvalue,
) {
    guard((), || {
        methods::jvmti_exit(env(e), thread, method, was_popped_by_exception != 0)
    })
}

// Natives of the tracker class (bci mode). Hot path: a thread-local lookup and a
// 13-byte copy; registration happens once per thread on the slow path.

pub(crate) unsafe extern "system" fn tracker_enter(_env: *mut JNIEnv, _cls: jclass, mid: jint) {
    guard((), || methods::probe(TAG_ENTRY, mid))
}

pub(crate) unsafe extern "system" fn tracker_exit(_env: *mut JNIEnv, _cls: jclass, mid: jint) {
    guard((), || methods::probe(TAG_EXIT, mid))
}

pub(crate) unsafe extern "system" fn tracker_unwind(
    _env: *mut JNIEnv,
    _cls: jclass,
    exc: jobject,
    mid: jint,
) {
    guard((), || {
        let a = state::agent();
        exceptions::unwound(a.jvmti, std::ptr::null_mut(), exc, mid as u32)
    })
}

pub(crate) unsafe extern "system" fn tracker_caught(
    _env: *mut JNIEnv,
    _cls: jclass,
    exc: jobject,
    mid: jint,
) {
    guard((), || {
        let a = state::agent();
        exceptions::caught(a.jvmti, std::ptr::null_mut(), exc, mid as u32)
    })
}

/// `count0(id, thread, slot)`: an entry between traces (`counts=all`) that the
/// tracker's per-thread counts could not take: counted here, and the thread given
/// what it lacked (`counts::idle`).
pub(crate) unsafe extern "system" fn tracker_count(
    env: *mut JNIEnv,
    _cls: jclass,
    mid: jint,
    thread: jobject,
    slot: jint,
) {
    guard((), || {
        crate::counts::untraced_entry(mid as u32);
        // The callback's body: the handle cannot outlive it.
        let callback = ();
        // SAFETY: the JVM passes this thread's JNIEnv, used only inside the native.
        if let Some(jni) = unsafe { Jni::from_raw(env, &callback) } {
            crate::counts::idle::claim(jni, state::agent().jvmti, mid as u32, thread, slot);
        }
    })
}

/// `java.jtrace.Tracker.control(String)`: the in-application switch (`jtrace.Trace`).
/// Returns the outcome digit, a newline and the reply text.
pub(crate) unsafe extern "system" fn tracker_control(
    env: *mut JNIEnv,
    _cls: jclass,
    request: jobject,
) -> jobject {
    guard(std::ptr::null_mut(), || {
        // The callback's body: the handle cannot outlive it.
        let callback = ();
        // SAFETY: the JVM passes this thread's JNIEnv, used only inside the native.
        let Some(jni) = (unsafe { Jni::from_raw(env, &callback) }) else {
            return std::ptr::null_mut();
        };
        let Some(req) = jni.string_utf(request) else {
            return std::ptr::null_mut();
        };
        let (outcome, text) = match crate::control::parse(&req) {
            Ok(r) => jni.with_local_frame(64, || {
                lifecycle::control(state::agent().jvmti, jni, r.verb, &r.options)
            }),
            Err(e) => (crate::control::Outcome::Error, format!("jtrace: {e}")),
        };
        jni.new_string(&format!("{}\n{text}", outcome.digit()))
    })
}

pub(crate) unsafe extern "system" fn tracker_line(
    _env: *mut JNIEnv,
    _cls: jclass,
    mid: jint,
    unit: jint,
) {
    guard((), || methods::line(mid as u32, unit as u32))
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "system" fn exception(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    _method: jmethodID,
    _location: jlocation,
    exception: jobject,
    _catch_method: jmethodID,
    _catch_location: jlocation,
) {
    guard((), || exceptions::jvmti_thrown(env(e), thread, exception))
}

pub(crate) unsafe extern "system" fn exception_catch(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    method: jmethodID,
    _location: jlocation,
    exception: jobject,
) {
    guard((), || {
        exceptions::jvmti_caught(env(e), thread, method, exception)
    })
}

pub(crate) unsafe extern "system" fn garbage_collection_start(_e: *mut jvmtiEnv) {
    guard((), memory::on_gc_start)
}

pub(crate) unsafe extern "system" fn garbage_collection_finish(_e: *mut jvmtiEnv) {
    guard((), memory::on_gc_finish)
}

pub(crate) unsafe extern "system" fn object_free(_e: *mut jvmtiEnv, tag: jlong) {
    guard((), || memory::on_object_free(tag))
}

pub(crate) unsafe extern "system" fn sampled_object_alloc(
    e: *mut jvmtiEnv,
    jni: *mut JNIEnv,
    thread: jthread,
    object: jobject,
    klass: jclass,
    size: jlong,
) {
    guard((), || {
        // The callback's body: the handle cannot outlive it.
        let callback = ();
        // SAFETY: the JVM passes this thread's JNIEnv, used only inside the callback.
        if let Some(jni) = unsafe { Jni::from_raw(jni, &callback) } {
            memory::on_alloc(env(e), jni, thread, object, klass, size)
        }
    })
}

pub(crate) unsafe extern "system" fn monitor_contended_enter(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    object: jobject,
) {
    guard((), || monitors::contended_enter(env(e), thread, object))
}

pub(crate) unsafe extern "system" fn monitor_contended_entered(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    object: jobject,
) {
    guard((), || monitors::contended_entered(env(e), thread, object))
}

pub(crate) unsafe extern "system" fn monitor_wait(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    object: jobject,
    timeout: jlong,
) {
    guard((), || monitors::wait(env(e), thread, object, timeout))
}

pub(crate) unsafe extern "system" fn monitor_waited(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    object: jobject,
    timed_out: jboolean,
) {
    guard((), || {
        monitors::waited(env(e), thread, object, timed_out != 0)
    })
}

pub(crate) unsafe extern "system" fn single_step(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    thread: jthread,
    method: jmethodID,
    location: jlocation,
) {
    guard((), || methods::jvmti_step(env(e), thread, method, location))
}

pub(crate) unsafe extern "system" fn virtual_thread_start(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    vthread: jthread,
) {
    guard((), || vthreads::started(env(e), vthread))
}

pub(crate) unsafe extern "system" fn virtual_thread_end(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    vthread: jthread,
) {
    guard((), || vthreads::ended(env(e), vthread))
}

/// HotSpot extension event `VirtualThreadMount` (jvmtiEnv*, JNIEnv*, jthread).
pub(crate) unsafe extern "C" fn virtual_thread_mount(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    vthread: jthread,
) {
    guard((), || vthreads::mounted(env(e), vthread))
}

/// HotSpot extension event `VirtualThreadUnmount` (jvmtiEnv*, JNIEnv*, jthread).
pub(crate) unsafe extern "C" fn virtual_thread_unmount(
    e: *mut jvmtiEnv,
    _jni: *mut JNIEnv,
    vthread: jthread,
) {
    guard((), || vthreads::unmounted(env(e), vthread))
}
