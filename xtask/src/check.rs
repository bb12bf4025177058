//! `cargo xtask check FILE`: validate one trace with xmllint (docs/trace.dtd) and tracecheck.

use crate::util;
use std::path::Path;

pub fn run(file: &str) -> bool {
    let path = Path::new(file);
    let mut ok = true;
    match util::xmllint(path) {
        Ok(()) => println!("xmllint: {file} is valid against docs/trace.dtd"),
        Err(e) => {
            println!("xmllint: {e}");
            ok = false;
        }
    }
    match tracecheck::check(path) {
        Ok(s) => {
            let entries: u64 = s.methods.values().map(|m| m.entries).sum();
            println!(
                "tracecheck: valid ({} threads, {} methods, {entries} method entries)",
                s.threads.len(),
                s.methods.len()
            );
        }
        Err(violations) => {
            for v in &violations {
                println!("tracecheck: {file}:{v}");
            }
            ok = false;
        }
    }
    ok
}
