//! The agent's one voice: a line on stderr per distinct message (the application keeps its stdout).

use std::collections::HashSet;
use std::sync::Mutex;

static LOGGED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// One line on stderr per distinct message: the application keeps its stdout.
pub fn log_once(msg: &str) {
    if let Ok(mut seen) = LOGGED.lock() {
        if seen
            .get_or_insert_with(HashSet::new)
            .insert(msg.to_string())
        {
            eprintln!("jtrace: {msg}");
        }
    }
}
