//! Host facts for the document header (the machine and the process): host, addresses, boot and start times, command line, UUIDs.

use crate::sys::os;

/// A random (version 4) UUID from the kernel's entropy pool.
pub fn uuid() -> String {
    let mut b = [0u8; 16];
    let ok = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut b))
        .is_ok();
    if !ok {
        // Fall back to time and pid: unique enough for one trace's ids.
        let t = crate::clock::real_ns().to_le_bytes();
        let p = std::process::id().to_le_bytes();
        b[..8].copy_from_slice(&t);
        b[8..12].copy_from_slice(&p);
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        h[0..4].concat(),
        h[4..6].concat(),
        h[6..8].concat(),
        h[8..10].concat(),
        h[10..16].concat()
    )
}

pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The machine's IPv4 addresses (non-loopback first), comma separated.
///
/// Read from the kernel's local routes in /proc/net/fib_trie rather than with
/// getifaddrs(3), which opens a netlink socket: the agent opens no socket at all
/// (checked by `cargo xtask test`, step hygiene).
pub fn ip_addresses() -> String {
    let text = std::fs::read_to_string("/proc/net/fib_trie").unwrap_or_default();
    let mut addrs: Vec<String> = local_addresses(&text)
        .iter()
        .map(|a| a.to_string())
        .collect();
    addrs.sort_by_key(|a| a.starts_with("127."));
    addrs.dedup();
    if addrs.is_empty() {
        "127.0.0.1".to_string()
    } else {
        addrs.join(",")
    }
}

/// The addresses of /proc/net/fib_trie's `/32 host LOCAL` leaves (the addresses
/// assigned to this host's interfaces), each once, in the order they appear.
fn local_addresses(fib_trie: &str) -> Vec<std::net::Ipv4Addr> {
    let mut out = Vec::new();
    let mut last = None;
    for line in fib_trie.lines() {
        let t = line.trim_start();
        if let Some(a) = t.strip_prefix("|-- ") {
            last = a.trim().parse::<std::net::Ipv4Addr>().ok();
        } else if t.starts_with("/32 host LOCAL") {
            if let Some(a) = last {
                if !out.contains(&a) {
                    out.push(a);
                }
            }
        }
    }
    out
}

/// Minutes west of GMT, as the TPTP `node@timezone` wants.
pub fn timezone_minutes_west() -> i64 {
    -(os::utc_offset_seconds() / 60)
}

/// Boot time in Unix nanoseconds (`btime` of /proc/stat).
pub fn boot_ns() -> u64 {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("btime "))
                .and_then(|v| v.trim().parse::<u64>().ok())
        })
        .map(|s| s * 1_000_000_000)
        .unwrap_or(0)
}

/// Process start in Unix nanoseconds (field 22 of /proc/self/stat, in clock ticks after boot).
pub fn process_start_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let ticks: u64 = after.split_whitespace().nth(19)?.parse().ok()?;
    let hz = os::clock_ticks_per_second();
    Some(boot_ns() + ticks * 1_000_000_000 / hz)
}

/// The command line, arguments joined by spaces.
pub fn command_line() -> String {
    std::fs::read("/proc/self/cmdline")
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|s| !s.is_empty())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// The executable's short name, e.g. `java`.
pub fn process_name() -> String {
    std::fs::read_to_string("/proc/self/comm")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "java".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fib_trie_local_addresses() {
        let text = "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 0.0.0.0\n        /0 universe UNICAST\n\
                    \x20    +-- 127.0.0.0/8 2 0 2\n           |-- 127.0.0.1\n              /32 host LOCAL\n\
                    \x20       |-- 127.255.255.255\n           /32 link BROADCAST\n\
                    \x20          |-- 192.0.2.0\n              /24 link UNICAST\n\
                    \x20          |-- 192.0.2.2\n              /32 host LOCAL\n\
                    Local:\n           |-- 192.0.2.2\n              /32 host LOCAL\n";
        let v: Vec<String> = local_addresses(text)
            .iter()
            .map(|a| a.to_string())
            .collect();
        assert_eq!(v, vec!["127.0.0.1", "192.0.2.2"]);
        assert!(local_addresses("").is_empty());
    }

    #[test]
    fn uuid_shape() {
        let u = uuid();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert_ne!(u, uuid());
    }

    #[test]
    fn process_facts() {
        assert!(boot_ns() > 0);
        let start = process_start_ns().unwrap();
        assert!(start >= boot_ns() && start <= crate::clock::real_ns());
        assert!(!command_line().is_empty());
    }
}
