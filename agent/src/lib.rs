//! jtrace agent: a JVMTI agent that writes an exact TPTP trace.
