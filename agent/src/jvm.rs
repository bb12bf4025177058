//! The traced JVM's own facts for the document header (`agentCreate`'s annotations): its vendor, name, version, home, main command and the options it was given, read once when the agent loads.

use crate::jvmti::Jvmti;
use std::ffi::CStr;

/// The system properties recorded, in this order, each when the VM's own property list
/// (JVMTI GetSystemProperty, which works in the OnLoad phase) has it. HotSpot's list
/// has the `java.vm.*` ones, `java.home`, `sun.java.command` (set by the launcher) and
/// `jdk.debug`; `java.runtime.version` and `java.version` are set later by Java code
/// and are kept only if a VM lists them itself.
const PROPERTIES: [&CStr; 11] = [
    c"java.vm.vendor",
    c"java.vm.name",
    c"java.vm.version",
    c"java.runtime.version",
    c"java.version",
    c"java.vm.specification.version",
    c"java.vm.info",
    c"java.home",
    c"jdk.debug",
    c"sun.java.command",
    c"sun.java.launcher",
];

/// The environment variables the JVM and its launcher take options from that do not
/// appear in the command line (`processCreate application_executable`).
const OPTION_VARIABLES: [&str; 2] = ["JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"];

/// The JVM's facts as (name, value), in a fixed order; absent or empty ones left out.
pub fn facts(jvmti: Jvmti) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in PROPERTIES {
        if let Some(v) = jvmti.system_property(p).filter(|v| !v.is_empty()) {
            out.push((p.to_string_lossy().into_owned(), v));
        }
    }
    for name in OPTION_VARIABLES {
        if let Some(v) = std::env::var_os(name).filter(|v| !v.is_empty()) {
            out.push((name.to_string(), v.to_string_lossy().into_owned()));
        }
    }
    out
}
