//! Class-file parsing and probe insertion (bytecode instrumentation).
