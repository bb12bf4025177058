//! tracecheck: semantic checks over a jtrace TPTP trace.
