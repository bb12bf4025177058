//! Safe wrapper over the raw JVMTI and JNI tables: typed calls, errors naming the function, RAII for JVM-allocated memory.
//!
//! JNI handles (`jobject`, `jclass`, `jthread`, `jmethodID`) are opaque tokens the JVM
//! validates itself (and checks under -Xcheck:jni); this wrapper never dereferences
//! them, which is why passing them to the crate-private safe functions here is sound.
//! The environments themselves (`Jvmti`, `Jni`) are made only by `unsafe`
//! constructors (`Jvmti::from_vm`, `Jni::from_raw`) or from the process's JavaVM.

use crate::sys::jni::{jclass, jfieldID, jint, jmethodID, jobject, JNIEnv, JNINativeMethod};
use crate::sys::jvmti::{self as raw, jthread, jvmtiCapabilities, jvmtiEnv, jvmtiEventCallbacks};
use std::ffi::{c_char, c_void, CStr};
use std::fmt;
use std::marker::PhantomData;

/// A JVMTI call that failed: which function and the JVMTI error code.
#[derive(Debug, Clone, Copy)]
pub struct JvmtiError {
    pub func: &'static str,
    pub code: jint,
}

impl fmt::Display for JvmtiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JVMTI {} failed with error {}", self.func, self.code)
    }
}

pub type Result<T> = std::result::Result<T, JvmtiError>;

/// Calls one slot of the JVMTI function table and maps its error code.
macro_rules! call {
    ($self:ident, $func:ident $(, $arg:expr)*) => {{
        // SAFETY: `$self.0` is a live jvmtiEnv obtained from GetEnv; the slot is
        // present in every JVMTI version we accept (checked at load), and the
        // arguments match the generated prototype.
        let code = unsafe {
            let table = &**$self.0;
            match table.$func {
                Some(f) => f($self.0 $(, $arg)*),
                None => raw::JVMTI_ERROR_NOT_AVAILABLE,
            }
        };
        if code == raw::JVMTI_ERROR_NONE {
            Ok(())
        } else {
            Err(JvmtiError { func: stringify!($func), code })
        }
    }};
}

/// The agent's JVMTI environment. Copyable: a jvmtiEnv is valid from any thread.
#[derive(Clone, Copy)]
pub struct Jvmti(*mut jvmtiEnv);

// SAFETY: JVMTI environments may be used from any thread (JVMTI spec, "Environments").
unsafe impl Send for Jvmti {}
// SAFETY: as above; the table itself is immutable.
unsafe impl Sync for Jvmti {}

/// Memory the JVM allocated for us (strings, arrays); released with Deallocate on drop.
pub struct JvmBox<T> {
    env: Jvmti,
    ptr: *mut T,
    len: usize,
}

impl<T> JvmBox<T> {
    pub fn as_slice(&self) -> &[T] {
        if self.ptr.is_null() || self.len == 0 {
            return &[];
        }
        // SAFETY: the JVM returned `len` initialised elements at `ptr`, alive until Deallocate.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> Drop for JvmBox<T> {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            let env = self.env;
            let _ = call!(env, Deallocate, self.ptr as *mut u8);
        }
    }
}

/// Converts a JVM-allocated C string into an owned String and frees it.
fn take_string(env: Jvmti, p: *mut c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: JVMTI returns NUL-terminated modified-UTF-8 strings.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    let _ = call!(env, Deallocate, p as *mut u8);
    s
}

/// `jvmtiExtensionEventInfo` (not among the generated structs).
#[repr(C)]
struct ExtensionEventInfo {
    extension_event_index: jint,
    id: *mut c_char,
    short_description: *mut c_char,
    param_count: jint,
    params: *mut c_void,
}

/// `jvmtiMonitorUsage` (not among the generated structs).
#[repr(C)]
struct MonitorUsage {
    owner: jthread,
    entry_count: jint,
    waiter_count: jint,
    waiters: *mut jthread,
    notify_waiter_count: jint,
    notify_waiters: *mut jthread,
}

/// Information about a thread, copied out of the JVM.
pub struct ThreadInfo {
    pub name: String,
    pub group: String,
    pub parent_group: String,
}

impl Jvmti {
    /// Obtains a JVMTI environment from the JavaVM.
    ///
    /// # Safety
    /// `vm` must be the JavaVM pointer the JVM passed to Agent_OnLoad/OnAttach.
    pub unsafe fn from_vm(vm: *mut crate::sys::jni::JavaVM) -> Option<Jvmti> {
        let mut env: *mut c_void = std::ptr::null_mut();
        // SAFETY: per the caller's contract `vm` is live; GetEnv writes one pointer.
        let rc = unsafe { ((**vm).v1_2.GetEnv)(vm, &mut env, raw::JVMTI_VERSION_1_2) };
        if rc != 0 || env.is_null() {
            return None;
        }
        Some(Jvmti(env as *mut jvmtiEnv))
    }

    pub fn version(self) -> Result<jint> {
        let mut v = 0;
        call!(self, GetVersionNumber, &mut v)?;
        Ok(v)
    }

    /// A system property of the VM's own list (JVMTI GetSystemProperty: OnLoad and live
    /// phases); None when the VM has no such property.
    pub fn system_property(self, name: &CStr) -> Option<String> {
        let mut p: *mut c_char = std::ptr::null_mut();
        call!(self, GetSystemProperty, name.as_ptr(), &mut p).ok()?;
        Some(take_string(self, p))
    }

    pub fn potential_capabilities(self) -> Result<jvmtiCapabilities> {
        let mut c = jvmtiCapabilities::default();
        call!(self, GetPotentialCapabilities, &mut c)?;
        Ok(c)
    }

    pub fn add_capabilities(self, caps: &jvmtiCapabilities) -> Result<()> {
        call!(self, AddCapabilities, caps)
    }

    pub fn set_event_callbacks(self, cb: &jvmtiEventCallbacks) -> Result<()> {
        let size = std::mem::size_of::<jvmtiEventCallbacks>() as jint;
        call!(self, SetEventCallbacks, cb, size)
    }

    pub fn set_event(self, enable: bool, event: jint) -> Result<()> {
        let mode = if enable {
            raw::JVMTI_ENABLE
        } else {
            raw::JVMTI_DISABLE
        };
        call!(
            self,
            SetEventNotificationMode,
            mode,
            event,
            std::ptr::null_mut::<c_void>() as jthread
        )
    }

    pub fn thread_info(self, thread: jthread) -> Result<ThreadInfo> {
        let mut info = raw::jvmtiThreadInfo {
            name: std::ptr::null_mut(),
            priority: 0,
            is_daemon: 0,
            thread_group: std::ptr::null_mut(),
            context_class_loader: std::ptr::null_mut(),
        };
        call!(self, GetThreadInfo, thread, &mut info)?;
        let name = take_string(self, info.name);
        let (group, parent_group) = self.group_names(info.thread_group);
        if let Some(jni) = jni_of_current() {
            jni.delete_local(info.thread_group);
            jni.delete_local(info.context_class_loader);
        }
        Ok(ThreadInfo {
            name,
            group,
            parent_group,
        })
    }

    /// Name of a thread group and of its parent ("" where there is none).
    fn group_names(self, group: jobject) -> (String, String) {
        if group.is_null() {
            return (String::new(), String::new());
        }
        let mut gi = raw::jvmtiThreadGroupInfo {
            parent: std::ptr::null_mut(),
            name: std::ptr::null_mut(),
            max_priority: 0,
            is_daemon: 0,
        };
        if call!(self, GetThreadGroupInfo, group, &mut gi).is_err() {
            return (String::new(), String::new());
        }
        let name = take_string(self, gi.name);
        let mut parent = String::new();
        if !gi.parent.is_null() {
            let mut pi = raw::jvmtiThreadGroupInfo {
                parent: std::ptr::null_mut(),
                name: std::ptr::null_mut(),
                max_priority: 0,
                is_daemon: 0,
            };
            if call!(self, GetThreadGroupInfo, gi.parent, &mut pi).is_ok() {
                parent = take_string(self, pi.name);
                if let Some(jni) = jni_of_current() {
                    jni.delete_local(pi.parent);
                }
            }
            if let Some(jni) = jni_of_current() {
                jni.delete_local(gi.parent);
            }
        }
        (name, parent)
    }

    /// Whether `thread` has ended (false while it lives, and when its state is unknown).
    pub fn thread_ended(self, thread: jthread) -> bool {
        let mut state: jint = 0;
        call!(self, GetThreadState, thread, &mut state).is_ok()
            && state & raw::JVMTI_THREAD_STATE_TERMINATED != 0
    }

    /// The current thread (a local reference).
    pub fn current_thread(self) -> Result<jthread> {
        let mut t = std::ptr::null_mut();
        call!(self, GetCurrentThread, &mut t)?;
        Ok(t)
    }

    pub fn all_threads(self) -> Result<JvmBox<jthread>> {
        let mut n = 0;
        let mut p = std::ptr::null_mut();
        call!(self, GetAllThreads, &mut n, &mut p)?;
        Ok(JvmBox {
            env: self,
            ptr: p,
            len: n.max(0) as usize,
        })
    }

    pub fn thread_local(self, thread: jthread) -> Result<*mut c_void> {
        let mut p = std::ptr::null_mut();
        call!(self, GetThreadLocalStorage, thread, &mut p)?;
        Ok(p)
    }

    /// Stores `value` in `thread`'s JVMTI thread-local slot.
    ///
    /// # Safety
    /// The slot's reader (`buffer::of_thread`) takes any non-null value for a
    /// `ThreadBuf`: `value` must be null or made by `buffer`'s `to_raw`.
    pub unsafe fn set_thread_local(self, thread: jthread, value: *const c_void) -> Result<()> {
        call!(self, SetThreadLocalStorage, thread, value)
    }

    /// JNI-style class signature, e.g. `Lcom/foo/Bar;`.
    pub fn class_signature(self, class: jclass) -> Result<String> {
        let mut sig = std::ptr::null_mut();
        let mut generic = std::ptr::null_mut();
        call!(self, GetClassSignature, class, &mut sig, &mut generic)?;
        let _ = take_string(self, generic);
        Ok(take_string(self, sig))
    }

    pub fn class_methods(self, class: jclass) -> Result<JvmBox<jmethodID>> {
        let mut n = 0;
        let mut p = std::ptr::null_mut();
        call!(self, GetClassMethods, class, &mut n, &mut p)?;
        Ok(JvmBox {
            env: self,
            ptr: p,
            len: n.max(0) as usize,
        })
    }

    /// Name and JNI signature of a method.
    pub fn method_name(self, method: jmethodID) -> Result<(String, String)> {
        let mut name = std::ptr::null_mut();
        let mut sig = std::ptr::null_mut();
        let mut generic = std::ptr::null_mut();
        call!(
            self,
            GetMethodName,
            method,
            &mut name,
            &mut sig,
            &mut generic
        )?;
        let _ = take_string(self, generic);
        Ok((take_string(self, name), take_string(self, sig)))
    }

    pub fn class_loader(self, class: jclass) -> Result<jobject> {
        let mut l = std::ptr::null_mut();
        call!(self, GetClassLoader, class, &mut l)?;
        Ok(l)
    }

    pub fn object_class_signature(self, jni: Jni, obj: jobject) -> Option<String> {
        if obj.is_null() {
            return None;
        }
        let cls = jni.object_class(obj);
        let s = self.class_signature(cls).ok();
        jni.delete_local(cls);
        s
    }

    pub fn loaded_classes(self) -> Result<JvmBox<jclass>> {
        let mut n = 0;
        let mut p = std::ptr::null_mut();
        call!(self, GetLoadedClasses, &mut n, &mut p)?;
        // One local reference per class: the frame's declared capacity raised first,
        // so that -Xcheck:jni stays quiet (JDK 17 warns past the declared capacity).
        if let Some(jni) = jni_of_current() {
            jni.ensure_local_capacity(n.max(0).saturating_add(16));
        }
        Ok(JvmBox {
            env: self,
            ptr: p,
            len: n.max(0) as usize,
        })
    }

    pub fn retransform(self, classes: &[jclass]) -> Result<()> {
        call!(
            self,
            RetransformClasses,
            classes.len() as jint,
            classes.as_ptr()
        )
    }

    /// Whether the class is in the error state (its linking failed): it can never run,
    /// and RetransformClasses refuses it (JVMTI_ERROR_INVALID_CLASS).
    pub fn is_erroneous(self, class: jclass) -> bool {
        let mut status: jint = 0;
        call!(self, GetClassStatus, class, &mut status).is_ok()
            && status & raw::JVMTI_CLASS_STATUS_ERROR != 0
    }

    pub fn is_modifiable(self, class: jclass) -> bool {
        let mut b = 0u8;
        call!(self, IsModifiableClass, class, &mut b).is_ok() && b != 0
    }

    pub fn add_module_reads(self, module: jobject, to: jobject) -> Result<()> {
        call!(self, AddModuleReads, module, to)
    }

    pub fn class_modifiers(self, class: jclass) -> Result<jint> {
        let mut m = 0;
        call!(self, GetClassModifiers, class, &mut m)?;
        Ok(m)
    }

    /// (static, instance) field counts of a class.
    pub fn field_counts(self, class: jclass) -> Result<(u32, u32)> {
        let mut n = 0;
        let mut p: *mut jni_sys::jfieldID = std::ptr::null_mut();
        call!(self, GetClassFields, class, &mut n, &mut p)?;
        let fields = JvmBox {
            env: self,
            ptr: p,
            len: n.max(0) as usize,
        };
        let (mut st, mut inst) = (0, 0);
        for &f in fields.as_slice() {
            let mut m = 0;
            if call!(self, GetFieldModifiers, class, f, &mut m).is_ok() && m & 0x0008 != 0 {
                st += 1;
            } else {
                inst += 1;
            }
        }
        Ok((st, inst))
    }

    pub fn interfaces(self, class: jclass) -> Result<JvmBox<jclass>> {
        let mut n = 0;
        let mut p = std::ptr::null_mut();
        call!(self, GetImplementedInterfaces, class, &mut n, &mut p)?;
        Ok(JvmBox {
            env: self,
            ptr: p,
            len: n.max(0) as usize,
        })
    }

    /// The thread owning `obj`'s monitor (a local reference), if any.
    pub fn monitor_owner(self, obj: jobject) -> Result<jthread> {
        let mut u = MonitorUsage {
            owner: std::ptr::null_mut(),
            entry_count: 0,
            waiter_count: 0,
            waiters: std::ptr::null_mut(),
            notify_waiter_count: 0,
            notify_waiters: std::ptr::null_mut(),
        };
        call!(
            self,
            GetObjectMonitorUsage,
            obj,
            &mut u as *mut MonitorUsage as *mut c_void
        )?;
        // The waiter arrays hold one local reference per waiting thread: free them
        // (raising the frame's declared capacity first, so -Xcheck:jni stays quiet
        // however many threads wait), then the arrays.
        let jni = jni_of_current();
        if let Some(jni) = jni {
            let n = u.waiter_count.max(0) + u.notify_waiter_count.max(0);
            jni.ensure_local_capacity(n + 16);
        }
        for (p, n) in [
            (u.waiters, u.waiter_count),
            (u.notify_waiters, u.notify_waiter_count),
        ] {
            if p.is_null() {
                continue;
            }
            if let Some(jni) = jni {
                // SAFETY: the JVM returned `n` thread references at `p`.
                let refs = unsafe { std::slice::from_raw_parts(p, n.max(0) as usize) };
                for &r in refs {
                    jni.delete_local(r);
                }
            }
            let _ = call!(self, Deallocate, p as *mut u8);
        }
        Ok(u.owner)
    }

    /// Method and bytecode index of the top frame of `thread`.
    pub fn top_frame(self, thread: jthread) -> Option<(jmethodID, i64)> {
        let mut f = [raw::jvmtiFrameInfo {
            method: std::ptr::null_mut(),
            location: 0,
        }];
        let mut n = 0;
        call!(self, GetStackTrace, thread, 0, 1, f.as_mut_ptr(), &mut n).ok()?;
        (n == 1).then_some((f[0].method, f[0].location))
    }

    pub fn set_heap_sampling_interval(self, bytes: i32) -> Result<()> {
        call!(self, SetHeapSamplingInterval, bytes)
    }

    pub fn force_garbage_collection(self) -> Result<()> {
        call!(self, ForceGarbageCollection)
    }

    /// (index, id) of every extension event the JVM offers.
    pub fn extension_events(self) -> Result<Vec<(jint, String)>> {
        let mut n = 0;
        let mut p: *mut c_void = std::ptr::null_mut();
        call!(self, GetExtensionEvents, &mut n, &mut p)?;
        let infos = JvmBox {
            env: self,
            ptr: p as *mut ExtensionEventInfo,
            len: n.max(0) as usize,
        };
        let mut out = Vec::new();
        for info in infos.as_slice() {
            // SAFETY: `id` is a NUL-terminated string owned by the JVM.
            let id = unsafe { crate::sys::os::c_string(info.id) };
            out.push((info.extension_event_index, id));
            let _ = call!(self, Deallocate, info.id as *mut u8);
            let _ = call!(self, Deallocate, info.short_description as *mut u8);
            let _ = call!(self, Deallocate, info.params as *mut u8);
        }
        Ok(out)
    }

    /// Sets an extension event's callback and enables it for every thread.
    pub fn set_extension_event(self, index: jint, callback: *const c_void) -> Result<()> {
        call!(self, SetExtensionEventCallback, index, callback)?;
        self.set_event(true, index)
    }

    pub fn get_tag(self, obj: jobject) -> Result<i64> {
        let mut t = 0i64;
        call!(self, GetTag, obj, &mut t)?;
        Ok(t)
    }

    pub fn set_tag(self, obj: jobject, tag: i64) -> Result<()> {
        call!(self, SetTag, obj, tag)
    }

    pub fn phase(self) -> jint {
        let mut p = 0;
        let _ = call!(self, GetPhase, &mut p);
        p
    }

    pub fn allocate(self, size: usize) -> Result<*mut u8> {
        let mut p = std::ptr::null_mut();
        call!(self, Allocate, size as i64, &mut p)?;
        Ok(p)
    }
}

static VM: std::sync::atomic::AtomicPtr<crate::sys::jni::JavaVM> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// Remembers the JavaVM so that any attached thread can find its JNIEnv.
///
/// # Safety
/// `vm` is the JavaVM the JVM passed to `Agent_OnLoad`/`Agent_OnAttach`: it stays valid
/// for the life of the process, and [`jni_of_current`] calls through it later.
pub unsafe fn set_vm(vm: *mut crate::sys::jni::JavaVM) {
    VM.store(vm, std::sync::atomic::Ordering::Release);
}

/// The current thread's JNIEnv, if it is attached to the JVM. Valid for as long as
/// the thread stays attached: a Java thread's whole life (the handle cannot leave it:
/// not `Send`); an agent thread's until it detaches, after its body returns
/// (`threads::spawn_attached`).
pub fn jni_of_current() -> Option<Jni<'static>> {
    let vm = VM.load(std::sync::atomic::Ordering::Acquire);
    if vm.is_null() {
        return None;
    }
    let mut env: *mut c_void = std::ptr::null_mut();
    // SAFETY: `vm` is the JavaVM given to Agent_OnLoad, valid for the process; GetEnv
    // writes one pointer and fails cleanly on unattached threads.
    let rc = unsafe { ((**vm).v1_2.GetEnv)(vm, &mut env, crate::sys::jni::JNI_VERSION_1_6) };
    (rc == 0 && !env.is_null()).then_some(Jni(env as *mut JNIEnv, PhantomData))
}

/// Attaches the current (agent-created) thread to the JVM as a daemon.
pub fn attach_current_as_daemon(name: &CStr) -> Option<Jni<'static>> {
    let vm = VM.load(std::sync::atomic::Ordering::Acquire);
    if vm.is_null() {
        return None;
    }
    let mut args = crate::sys::jni::JavaVMAttachArgs {
        version: crate::sys::jni::JNI_VERSION_1_6,
        name: name.as_ptr() as *mut c_char,
        group: std::ptr::null_mut(),
    };
    let mut env: *mut c_void = std::ptr::null_mut();
    // SAFETY: `vm` is the process's JavaVM; the args outlive the call.
    let rc = unsafe {
        ((**vm).v1_4.AttachCurrentThreadAsDaemon)(vm, &mut env, &mut args as *mut _ as *mut c_void)
    };
    (rc == 0 && !env.is_null()).then_some(Jni(env as *mut JNIEnv, PhantomData))
}

/// Detaches the current thread from the JVM (it was attached with
/// [`attach_current_as_daemon`]). An agent thread detaches before it ends, and at
/// VM death at the latest: HotSpot's exit waits up to 300 ms for every attached
/// thread that sits in native code (`VM_Exit::wait_for_threads_in_native_to_block`),
/// and a thread waiting on a Rust lock is in native to the JVM.
pub fn detach_current() {
    let vm = VM.load(std::sync::atomic::Ordering::Acquire);
    if vm.is_null() {
        return;
    }
    // SAFETY: `vm` is the process's JavaVM; the calling thread holds no JNI local
    // references it will use again and has no Java frames (it was attached from native).
    unsafe {
        ((**vm).v1_1.DetachCurrentThread)(vm);
    }
}

/// A JNI global reference: valid on every thread until deleted (we never delete
/// ours: they live as long as the agent).
pub struct GlobalRef(jobject);

impl GlobalRef {
    /// Wraps a global reference (None for null).
    ///
    /// # Safety
    /// `obj` must be a JNI global reference (from `NewGlobalRef`) that is never
    /// deleted while the `GlobalRef` exists.
    pub unsafe fn from_raw(obj: jobject) -> Option<GlobalRef> {
        (!obj.is_null()).then_some(GlobalRef(obj))
    }

    /// The reference, for JNI and JVMTI calls.
    pub fn as_raw(&self) -> jobject {
        self.0
    }
}

// SAFETY: a JNI global reference may be used from any thread (JNI spec, "Global
// and Local References").
unsafe impl Send for GlobalRef {}
// SAFETY: as above; the handle itself is never mutated.
unsafe impl Sync for GlobalRef {}

/// A JNI environment for the current thread only, for the callback it was handed to
/// (`'a`, jni-rs' `JNIEnv<'local>`): neither `Send` nor `Sync` (it holds a raw
/// pointer), so it cannot leave the thread, and a function given a `Jni<'a>` cannot
/// keep it past `'a` (in a static, a `'static` closure or a value that outlives the
/// call).
#[derive(Clone, Copy)]
pub struct Jni<'a>(*mut JNIEnv, PhantomData<&'a ()>);

impl<'a> Jni<'a> {
    /// Wraps the JNIEnv the JVM passed to a callback (None for null); `'a` is the
    /// callback's body (`entry.rs` passes a local of the callback's closure).
    ///
    /// # Safety
    /// `env` must be null or the current thread's live JNIEnv, and `'a` must not
    /// outlast the callback (or the thread's attachment) it came with.
    pub unsafe fn from_raw(env: *mut JNIEnv, _callback: &'a ()) -> Option<Jni<'a>> {
        (!env.is_null()).then_some(Jni(env, PhantomData))
    }

    pub fn object_class(self, obj: jobject) -> jclass {
        // SAFETY: `self.0` is the current thread's JNIEnv and `obj` a live reference.
        unsafe { ((**self.0).v1_1.GetObjectClass)(self.0, obj) }
    }

    pub fn delete_local(self, obj: jobject) {
        if !obj.is_null() {
            // SAFETY: deleting a local reference owned by this frame.
            unsafe { ((**self.0).v1_1.DeleteLocalRef)(self.0, obj) }
        }
    }

    /// Runs `f` inside a fresh local reference frame, so that however many local
    /// references JVMTI hands out inside, none outlive it.
    pub fn with_local_frame<T>(self, capacity: i32, f: impl FnOnce() -> T) -> T {
        // SAFETY: Push/PopLocalFrame on the current thread's env, balanced below.
        let pushed = unsafe { ((**self.0).v1_2.PushLocalFrame)(self.0, capacity) } == 0;
        let r = f();
        if pushed {
            // SAFETY: pops the frame pushed above; we keep no reference from it.
            unsafe { ((**self.0).v1_2.PopLocalFrame)(self.0, std::ptr::null_mut()) };
        } else {
            self.clear_exception();
        }
        r
    }

    /// Declares that this frame will hold `n` more local references.
    pub fn ensure_local_capacity(self, n: i32) {
        // SAFETY: plain JNI call on the current thread's env.
        if unsafe { ((**self.0).v1_2.EnsureLocalCapacity)(self.0, n) } != 0 {
            self.clear_exception();
        }
    }

    /// Clears a pending Java exception; returns whether there was one.
    pub fn clear_exception(self) -> bool {
        // SAFETY: plain JNI calls on the current thread's env.
        unsafe {
            if ((**self.0).v1_2.ExceptionCheck)(self.0) {
                ((**self.0).v1_1.ExceptionClear)(self.0);
                return true;
            }
        }
        false
    }

    /// The JavaVM this thread runs in.
    pub fn java_vm(self) -> Option<*mut crate::sys::jni::JavaVM> {
        let mut vm: *mut crate::sys::jni::JavaVM = std::ptr::null_mut();
        // SAFETY: plain JNI call on the current thread's env; it writes one pointer.
        let rc = unsafe { ((**self.0).v1_1.GetJavaVM)(self.0, &mut vm) };
        (rc == 0 && !vm.is_null()).then_some(vm)
    }

    /// A Java string's contents (modified UTF-8 read as UTF-8, lossily); None for null.
    pub fn string_utf(self, s: jobject) -> Option<String> {
        if s.is_null() {
            return None;
        }
        // SAFETY: `s` is a live local reference to a java.lang.String (the tracker's
        // `control(String)` signature guarantees it); the chars are released below.
        unsafe {
            let p = ((**self.0).v1_1.GetStringUTFChars)(self.0, s, std::ptr::null_mut());
            if p.is_null() {
                self.clear_exception();
                return None;
            }
            let text = from_modified_utf8(CStr::from_ptr(p).to_bytes());
            ((**self.0).v1_1.ReleaseStringUTFChars)(self.0, s, p);
            Some(text)
        }
    }

    /// A new Java string (a local reference; null if out of memory).
    pub fn new_string(self, text: &str) -> jobject {
        let Ok(c) = std::ffi::CString::new(text.replace('\0', " ")) else {
            return std::ptr::null_mut();
        };
        // SAFETY: `c` is NUL-terminated and outlives the call.
        let s = unsafe { ((**self.0).v1_1.NewStringUTF)(self.0, c.as_ptr()) };
        if self.clear_exception() {
            return std::ptr::null_mut();
        }
        s
    }

    /// Defines a class in the bootstrap loader (null loader).
    pub fn define_class(self, name: &CStr, bytes: &[u8]) -> Option<jclass> {
        // SAFETY: `bytes` outlives the call; a null loader means the boot loader.
        let c = unsafe {
            ((**self.0).v1_1.DefineClass)(
                self.0,
                name.as_ptr(),
                std::ptr::null_mut(),
                bytes.as_ptr() as *const i8,
                bytes.len() as i32,
            )
        };
        if self.clear_exception() || c.is_null() {
            None
        } else {
            Some(c)
        }
    }

    /// Sets a static boolean field of `class` (false if the field is not found).
    /// The static field `name` of type `sig` of `class` (None, its exception cleared,
    /// if there is none).
    fn static_field(self, class: jclass, name: &CStr, sig: &CStr) -> Option<jfieldID> {
        // SAFETY: `class` is a live reference and both strings are NUL-terminated.
        let f = unsafe {
            ((**self.0).v1_1.GetStaticFieldID)(self.0, class, name.as_ptr(), sig.as_ptr())
        };
        if f.is_null() {
            self.clear_exception();
            return None;
        }
        Some(f)
    }

    pub fn set_static_boolean(self, class: jclass, name: &CStr, value: bool) -> bool {
        let Some(f) = self.static_field(class, name, c"Z") else {
            return false;
        };
        // SAFETY: `f` is a field of type "Z" of `class`, so the setter matches its type.
        unsafe { ((**self.0).v1_1.SetStaticBooleanField)(self.0, class, f, value) };
        !self.clear_exception()
    }

    pub fn set_static_int(self, class: jclass, name: &CStr, value: i32) -> bool {
        let Some(f) = self.static_field(class, name, c"I") else {
            return false;
        };
        // SAFETY: `f` is a field of type "I" of `class`, so the setter matches its type.
        unsafe { ((**self.0).v1_1.SetStaticIntField)(self.0, class, f, value) };
        !self.clear_exception()
    }

    pub fn register_natives(self, class: jclass, methods: &[JNINativeMethod]) -> bool {
        // SAFETY: `methods` holds valid C strings and function pointers with the declared signatures.
        let rc = unsafe {
            ((**self.0).v1_1.RegisterNatives)(self.0, class, methods.as_ptr(), methods.len() as i32)
        };
        !self.clear_exception() && rc == 0
    }

    /// Calls a no-argument instance method returning an object (null on failure).
    fn call_object(self, obj: jobject, class_name: &CStr, name: &CStr, sig: &CStr) -> jobject {
        // SAFETY: plain JNI lookups and a call with no arguments on the current thread.
        unsafe {
            let cls = ((**self.0).v1_1.FindClass)(self.0, class_name.as_ptr());
            if cls.is_null() {
                self.clear_exception();
                return std::ptr::null_mut();
            }
            let mid = ((**self.0).v1_1.GetMethodID)(self.0, cls, name.as_ptr(), sig.as_ptr());
            self.delete_local(cls);
            if mid.is_null() {
                self.clear_exception();
                return std::ptr::null_mut();
            }
            let r = ((**self.0).v1_1.CallObjectMethodA)(self.0, obj, mid, std::ptr::null());
            if self.clear_exception() {
                return std::ptr::null_mut();
            }
            r
        }
    }

    /// `klass.getModule()` if that module is named, else None (unnamed modules read everything).
    pub fn named_module(self, klass: jclass) -> Option<jobject> {
        let m = self.call_object(
            klass,
            c"java/lang/Class",
            c"getModule",
            c"()Ljava/lang/Module;",
        );
        if m.is_null() {
            return None;
        }
        let name = self.call_object(m, c"java/lang/Module", c"getName", c"()Ljava/lang/String;");
        if name.is_null() {
            self.delete_local(m);
            return None;
        }
        self.delete_local(name);
        Some(m)
    }

    /// `klass.getModule()` (a local reference; null on failure).
    pub fn module_of(self, klass: jclass) -> jobject {
        self.call_object(
            klass,
            c"java/lang/Class",
            c"getModule",
            c"()Ljava/lang/Module;",
        )
    }

    /// A global reference to `obj`, kept for the life of the agent (None if the JVM
    /// is out of memory or `obj` is null).
    pub fn new_global(self, obj: jobject) -> Option<GlobalRef> {
        // SAFETY: creating a global reference from a live local one.
        let g = unsafe { ((**self.0).v1_1.NewGlobalRef)(self.0, obj) };
        // SAFETY: `g` is a global reference just made, never deleted.
        unsafe { GlobalRef::from_raw(g) }
    }

    /// A weak global reference to `obj` (null for null): names an object without
    /// keeping it alive.
    pub fn new_weak(self, obj: jobject) -> jobject {
        if obj.is_null() {
            return obj;
        }
        // SAFETY: creating a weak global reference from a live reference.
        unsafe { ((**self.0).v1_2.NewWeakGlobalRef)(self.0, obj) }
    }

    pub fn delete_weak(self, obj: jobject) {
        if !obj.is_null() {
            // SAFETY: `obj` is a weak global reference made by `new_weak`, deleted once.
            unsafe { ((**self.0).v1_2.DeleteWeakGlobalRef)(self.0, obj) }
        }
    }

    /// Whether two references name the same object (a cleared weak reference is the
    /// same as null).
    pub fn same_object(self, a: jobject, b: jobject) -> bool {
        // SAFETY: plain JNI comparison of two references (either may be null).
        unsafe { ((**self.0).v1_1.IsSameObject)(self.0, a, b) }
    }

    /// Loads, links and initialises a class through the boot loader (by JNI's rules
    /// for a thread with no Java frames); false, with the exception cleared, if absent.
    pub fn load_class(self, name: &CStr) -> bool {
        // SAFETY: plain JNI lookup on the current thread's env.
        let c = unsafe { ((**self.0).v1_1.FindClass)(self.0, name.as_ptr()) };
        let ok = !self.clear_exception() && !c.is_null();
        self.delete_local(c);
        ok
    }

    /// `from.canRead(to)` for two `java.lang.Module`s (None if the call failed).
    pub fn module_can_read(self, from: jobject, to: jobject) -> Option<bool> {
        // SAFETY: plain JNI lookups and a call of a public boolean method with one
        // object argument.
        unsafe {
            let cls = ((**self.0).v1_1.FindClass)(self.0, c"java/lang/Module".as_ptr());
            if cls.is_null() {
                self.clear_exception();
                return None;
            }
            let mid = ((**self.0).v1_1.GetMethodID)(
                self.0,
                cls,
                c"canRead".as_ptr(),
                c"(Ljava/lang/Module;)Z".as_ptr(),
            );
            self.delete_local(cls);
            if mid.is_null() {
                self.clear_exception();
                return None;
            }
            let arg = crate::sys::jni::jvalue { l: to };
            let v = ((**self.0).v1_1.CallBooleanMethodA)(self.0, from, mid, &arg);
            (!self.clear_exception()).then_some(v)
        }
    }

    /// `loader.loadClass(name)` (dotted name): the class, or null with the exception
    /// cleared when the loader cannot find it.
    pub fn loader_load_class(self, loader: jobject, name: &str) -> jclass {
        let jname = self.new_string(name);
        if jname.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: plain JNI lookups and a call of a public method with one object
        // argument on the current thread's env.
        let r = unsafe {
            let cls = ((**self.0).v1_1.FindClass)(self.0, c"java/lang/ClassLoader".as_ptr());
            if cls.is_null() {
                self.clear_exception();
                self.delete_local(jname);
                return std::ptr::null_mut();
            }
            let mid = ((**self.0).v1_1.GetMethodID)(
                self.0,
                cls,
                c"loadClass".as_ptr(),
                c"(Ljava/lang/String;)Ljava/lang/Class;".as_ptr(),
            );
            self.delete_local(cls);
            if mid.is_null() {
                self.clear_exception();
                self.delete_local(jname);
                return std::ptr::null_mut();
            }
            let arg = crate::sys::jni::jvalue { l: jname };
            let r = ((**self.0).v1_1.CallObjectMethodA)(self.0, loader, mid, &arg);
            if self.clear_exception() {
                std::ptr::null_mut()
            } else {
                r
            }
        };
        self.delete_local(jname);
        r
    }

    /// The superclass of a class (a local reference; null for Object/interfaces).
    pub fn superclass(self, class: jclass) -> jclass {
        // SAFETY: plain JNI call on the current thread's env.
        unsafe { ((**self.0).v1_1.GetSuperclass)(self.0, class) }
    }

    /// Calls a static no-argument `long` method, e.g. `Runtime`'s memory figures.
    pub fn call_long(self, obj: jobject, class_name: &CStr, name: &CStr) -> Option<i64> {
        // SAFETY: plain JNI lookups and a call with no arguments on the current thread.
        unsafe {
            let cls = ((**self.0).v1_1.FindClass)(self.0, class_name.as_ptr());
            if cls.is_null() {
                self.clear_exception();
                return None;
            }
            let mid = ((**self.0).v1_1.GetMethodID)(self.0, cls, name.as_ptr(), c"()J".as_ptr());
            self.delete_local(cls);
            if mid.is_null() {
                self.clear_exception();
                return None;
            }
            let v = ((**self.0).v1_1.CallLongMethodA)(self.0, obj, mid, std::ptr::null());
            (!self.clear_exception()).then_some(v)
        }
    }

    /// `Runtime.getRuntime()` (a local reference, null on failure).
    pub fn runtime(self) -> jobject {
        // SAFETY: plain JNI lookups and a static call with no arguments.
        unsafe {
            let cls = ((**self.0).v1_1.FindClass)(self.0, c"java/lang/Runtime".as_ptr());
            if cls.is_null() {
                self.clear_exception();
                return std::ptr::null_mut();
            }
            let mid = ((**self.0).v1_1.GetStaticMethodID)(
                self.0,
                cls,
                c"getRuntime".as_ptr(),
                c"()Ljava/lang/Runtime;".as_ptr(),
            );
            let r = if mid.is_null() {
                std::ptr::null_mut()
            } else {
                ((**self.0).v1_1.CallStaticObjectMethodA)(self.0, cls, mid, std::ptr::null())
            };
            self.clear_exception();
            self.delete_local(cls);
            r
        }
    }

    /// A static field's object value (a local reference; null if absent or null).
    pub fn static_object(self, class: jclass, name: &CStr, sig: &CStr) -> jobject {
        // SAFETY: `class` is a live reference; the field is looked up with its
        // descriptor, so the getter matches its type.
        unsafe {
            let f = ((**self.0).v1_1.GetStaticFieldID)(self.0, class, name.as_ptr(), sig.as_ptr());
            if f.is_null() {
                self.clear_exception();
                return std::ptr::null_mut();
            }
            ((**self.0).v1_1.GetStaticObjectField)(self.0, class, f)
        }
    }

    /// The length of a Java array (0 for null).
    pub fn array_length(self, array: jobject) -> usize {
        if array.is_null() {
            return 0;
        }
        // SAFETY: `array` is a live reference to an array.
        let n = unsafe { ((**self.0).v1_1.GetArrayLength)(self.0, array) };
        n.max(0) as usize
    }

    /// Element `i` of an object array (a local reference; null if null or out of range).
    pub fn element(self, array: jobject, i: usize) -> jobject {
        // SAFETY: `array` is a live reference to an object array; a bad index raises
        // an exception, which is cleared.
        let e = unsafe { ((**self.0).v1_1.GetObjectArrayElement)(self.0, array, i as i32) };
        if self.clear_exception() {
            return std::ptr::null_mut();
        }
        e
    }

    /// Stores `value` at index `i` of an object array; false if the JVM refused.
    pub fn set_element(self, array: jobject, i: usize, value: jobject) -> bool {
        // SAFETY: `array` is a live reference to an object array and `value` a live
        // reference (or null); a bad index or type raises an exception, cleared here.
        unsafe { ((**self.0).v1_1.SetObjectArrayElement)(self.0, array, i as i32, value) };
        !self.clear_exception()
    }

    /// A new `long[n]` (a local reference; null if out of memory).
    pub fn new_long_array(self, n: usize) -> jobject {
        // SAFETY: plain allocation on the current thread's env.
        let a = unsafe { ((**self.0).v1_1.NewLongArray)(self.0, n as i32) };
        if self.clear_exception() {
            return std::ptr::null_mut();
        }
        a
    }

    /// A new array of `n` nulls whose elements are `class` (a local reference; null if
    /// out of memory).
    pub fn new_object_array(self, n: usize, class: jclass) -> jobject {
        // SAFETY: `class` is a live reference to a class; null initial elements.
        let a = unsafe {
            ((**self.0).v1_1.NewObjectArray)(self.0, n as i32, class, std::ptr::null_mut())
        };
        if self.clear_exception() {
            return std::ptr::null_mut();
        }
        a
    }

    /// Copies the start of a `long[]` into `out` (false if it is shorter).
    pub fn long_region(self, array: jobject, out: &mut [i64]) -> bool {
        // SAFETY: `array` is a live reference to a long[]; `out` has room for the
        // `out.len()` elements copied; a short array raises an exception, cleared here.
        unsafe {
            ((**self.0).v1_1.GetLongArrayRegion)(
                self.0,
                array,
                0,
                out.len() as i32,
                out.as_mut_ptr(),
            )
        };
        !self.clear_exception()
    }

    /// Whether `obj` is an instance of `class` (false for null).
    pub fn is_instance_of(self, obj: jobject, class: jclass) -> bool {
        if obj.is_null() || class.is_null() {
            return false;
        }
        // SAFETY: both are live references.
        unsafe { ((**self.0).v1_1.IsInstanceOf)(self.0, obj, class) }
    }

    /// A class by its internal name (a local reference; null if not found).
    pub fn find_class(self, name: &CStr) -> jclass {
        // SAFETY: `name` is NUL-terminated.
        let c = unsafe { ((**self.0).v1_1.FindClass)(self.0, name.as_ptr()) };
        if self.clear_exception() {
            return std::ptr::null_mut();
        }
        c
    }

    /// The component class of an array class (a local reference; null if none).
    pub fn component_type(self, class: jclass) -> jclass {
        self.call_object(
            class,
            c"java/lang/Class",
            c"getComponentType",
            c"()Ljava/lang/Class;",
        )
    }
}

/// JNI's "modified UTF-8" as a Rust string: characters outside the BMP arrive as two
/// 3-byte surrogates (CESU-8), NUL as `C0 80`; anything else malformed becomes U+FFFD.
pub fn from_modified_utf8(b: &[u8]) -> String {
    if let Ok(s) = std::str::from_utf8(b) {
        return s.to_string();
    }
    // Decode to UTF-16 units, then let the standard decoder pair the surrogates.
    let mut units: Vec<u16> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let (unit, len) = if c < 0x80 {
            (c as u16, 1)
        } else if c & 0xE0 == 0xC0 && i + 1 < b.len() {
            ((((c & 0x1F) as u16) << 6) | (b[i + 1] & 0x3F) as u16, 2)
        } else if c & 0xF0 == 0xE0 && i + 2 < b.len() {
            (
                (((c & 0x0F) as u16) << 12)
                    | (((b[i + 1] & 0x3F) as u16) << 6)
                    | (b[i + 2] & 0x3F) as u16,
                3,
            )
        } else {
            (0xFFFD, 1)
        };
        units.push(unit);
        i += len;
    }
    String::from_utf16_lossy(&units)
}

#[cfg(test)]
mod modified_utf8_tests {
    use super::from_modified_utf8;

    #[test]
    fn surrogate_pairs_and_nul() {
        // U+1F600 as CESU-8 (ED A0 BD ED B8 80), NUL as C0 80, then plain UTF-8.
        let b = [
            0x61, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, 0xC0, 0x80, 0xC3, 0xA9,
        ];
        assert_eq!(from_modified_utf8(&b), "a\u{1F600}\u{0}é");
        assert_eq!(from_modified_utf8(b"plain"), "plain");
    }
}
