//! The few system calls the attach client needs that std does not offer: its effective ids, switching them to the JVM's user, and sending SIGQUIT.

/// (effective uid, effective gid) of this process.
pub fn effective_ids() -> (u32, u32) {
    // SAFETY: geteuid/getegid take no arguments and cannot fail.
    unsafe { (libc::geteuid(), libc::getegid()) }
}

/// Becomes user `uid`, group `gid` for file creation and the socket's peer
/// credentials (HotSpot accepts a client of its own effective uid and gid, or root).
/// The group first: once the uid is not root, the gid can no longer change.
pub fn become_user(uid: u32, gid: u32) -> Result<(), String> {
    // SAFETY: plain system calls on integers; failure is reported through the result.
    let (g, u) = unsafe { (libc::setegid(gid), libc::seteuid(uid)) };
    if g != 0 || u != 0 {
        return Err(format!(
            "cannot switch to uid {uid} / gid {gid}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Sends SIGQUIT to `pid` (HotSpot's signal to start its attach listener).
pub fn sigquit(pid: u32) -> Result<(), String> {
    // SAFETY: kill(2) with a positive pid and a valid signal number.
    if unsafe { libc::kill(pid as libc::pid_t, libc::SIGQUIT) } != 0 {
        return Err(format!(
            "cannot signal process {pid}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}
