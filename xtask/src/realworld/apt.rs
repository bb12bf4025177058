//! Debian packages the corpus needs: which are installed, their versions, and installing
//! the missing ones with apt-get (only those; a package Debian lacks is reported, not faked).

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

/// The installed version of `pkg`, if dpkg says it is installed.
pub fn version(pkg: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Status}\t${Version}", pkg])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (status, version) = text.split_once('\t')?;
    status
        .ends_with("install ok installed")
        .then(|| version.trim().to_string())
}

/// Whether apt knows an installable candidate for `pkg`.
fn has_candidate(pkg: &str) -> bool {
    let Ok(out) = Command::new("apt-cache").args(["policy", pkg]).output() else {
        return false;
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Candidate:"))
        .any(|c| c.trim() != "(none)")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Makes sure `pkgs` are installed, installing the missing ones if `install`; returns, for
/// each package that is still missing, why.
pub fn ensure(pkgs: &[&str], install: bool) -> BTreeMap<String, String> {
    let missing: Vec<&str> = pkgs
        .iter()
        .copied()
        .filter(|p| version(p).is_none())
        .collect();
    let mut why = BTreeMap::new();
    if missing.is_empty() {
        return why;
    }
    if !install {
        for p in missing {
            why.insert(
                p.to_string(),
                "not installed (.ci/run installs it)".to_string(),
            );
        }
        return why;
    }
    if !is_root() {
        for p in missing {
            why.insert(
                p.to_string(),
                "not installed, and apt-get needs root".to_string(),
            );
        }
        return why;
    }
    println!(
        "realworld: installing Debian packages: {}",
        missing.join(" ")
    );
    let _ = Command::new("apt-get")
        .args(["update", "-qq"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdout(Stdio::null())
        .status();
    let (known, unknown): (Vec<&str>, Vec<&str>) =
        missing.iter().copied().partition(|p| has_candidate(p));
    for p in unknown {
        why.insert(
            p.to_string(),
            "no such package in Debian's archive".to_string(),
        );
    }
    if !known.is_empty() {
        let out = Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(&known)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output();
        let complaint = match &out {
            Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
            Err(e) => e.to_string(),
        };
        for p in known {
            if version(p).is_none() {
                why.insert(
                    p.to_string(),
                    format!(
                        "apt-get install failed: {}",
                        crate::util::clip(&complaint, 200)
                    ),
                );
            }
        }
    }
    why
}
