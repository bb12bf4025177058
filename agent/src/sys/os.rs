//! Thin wrappers over the few libc and CPU facilities the agent uses (clocks, TSC, interfaces, time zone).

use std::ffi::{c_char, CStr};

pub use libc::{clockid_t, CLOCK_MONOTONIC, CLOCK_REALTIME};

/// Reads a clock in nanoseconds (vDSO: no system call for these clocks).
#[inline(always)]
pub fn clock_ns(clock: clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own; both clocks exist on Linux.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The CPU's time-stamp counter (CLOCK_MONOTONIC on other architectures).
#[inline(always)]
pub fn rdtsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no memory effects and exists on every x86_64 CPU.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        clock_ns(CLOCK_MONOTONIC)
    }
}

/// Seconds east of UTC of the local time zone now.
pub fn utc_offset_seconds() -> i64 {
    // SAFETY: time and localtime_r write only into values we own.
    unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&now, &mut tm).is_null() {
            return 0;
        }
        tm.tm_gmtoff
    }
}

/// Clock ticks per second (for /proc times).
pub fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf has no memory effects.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64
}

/// Copies a C string into a String (lossy); "" for null.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string valid for the call.
pub unsafe fn c_string(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: per the contract above.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

const MEMBARRIER_CMD_QUERY: libc::c_long = 0;
const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;

/// Registers the process for expedited private membarriers; false if the kernel
/// does not offer them.
pub fn membarrier_register() -> bool {
    // SAFETY: membarrier takes integer arguments only and touches no memory of ours.
    let supported = unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) };
    let needed = MEMBARRIER_CMD_PRIVATE_EXPEDITED | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;
    if supported < 0 || supported & needed != needed {
        return false;
    }
    // SAFETY: as above.
    unsafe {
        libc::syscall(
            libc::SYS_membarrier,
            MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
            0,
            0,
        ) == 0
    }
}

/// A full memory barrier on every CPU currently running a thread of this process
/// (after `membarrier_register` succeeded).
pub fn membarrier() -> bool {
    // SAFETY: as in `membarrier_register`.
    unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 }
}

/// Lowers the calling thread's scheduling priority by `by` nice levels (Linux nice
/// values are per thread). A thread cannot raise it again without privilege.
pub fn lower_thread_priority(by: i32) {
    // SAFETY: gettid and get/setpriority take integers only and touch no memory of ours.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        *libc::__errno_location() = 0;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        if *libc::__errno_location() == 0 {
            libc::setpriority(libc::PRIO_PROCESS, tid, (now + by).min(19));
        }
    }
}
