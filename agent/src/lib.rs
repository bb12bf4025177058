//! jtrace agent: a JVMTI agent that writes an exact TPTP trace.

pub mod classfile;
pub mod linetable;
pub mod options;
