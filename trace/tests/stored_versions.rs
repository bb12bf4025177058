//! Every `.jtr` format version ever written stays readable: stored files of each version, recorded by the agent, render to the XML the agent wrote in the same run.
//!
//! The one change a rendering makes on purpose: elements the old agent wrote without a
//! thread (a thread's own classDef, a runtimeShutdown on an undefined thread) now name
//! the virtual machine's thread, defined just before the first of them (issue 43: TPTP's
//! importer invented a thread for them); `trace::render::without_vm_thread` takes it
//! out again.
//!
//! When the format changes, bump `jtr::VERSION`, keep these files and add new ones
//! (`vN-*.jtr` with the agent's `vN-*.xml`, from `cargo xtask test`'s scratch
//! directories: every Java case writes both).

use std::path::Path;

fn check(name: &str, version: u16) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let jtr = std::fs::read(dir.join(format!("{name}.jtr"))).unwrap();
    let want = std::fs::read_to_string(dir.join(format!("{name}.xml"))).unwrap();
    let r = trace::jtr::JtrReader::open(&jtr[..]).unwrap();
    assert_eq!(r.version, version, "{name}");
    let mut xml = Vec::new();
    let done = trace::jtr::to_xml(&jtr[..], &mut xml).unwrap();
    assert!(done.cut_short.is_none(), "{name}: {:?}", done.cut_short);
    let got = trace::render::without_vm_thread(&String::from_utf8(xml).unwrap());
    assert!(
        got == want,
        "{name}: rendering differs from the agent's XML"
    );
}

/// Every element the rendering files under a thread names one it defined: the old
/// agent's thread-less classDefs and runtimeShutdown name the virtual machine's thread.
#[test]
fn a_rendering_of_an_old_trace_names_a_thread_on_every_class() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let jtr = std::fs::read(dir.join("v3-monitors.jtr")).unwrap();
    let mut xml = Vec::new();
    trace::jtr::to_xml(&jtr[..], &mut xml).unwrap();
    let xml = String::from_utf8(xml).unwrap();
    let id = trace::render::VM_THREAD_ID;
    let classes: Vec<&str> = xml
        .lines()
        .filter(|l| l.starts_with("<classDef ") || l.starts_with("<runtimeShutdown "))
        .collect();
    assert!(!classes.is_empty());
    assert!(
        classes.iter().all(|l| l.contains(" threadIdRef=\"")),
        "{classes:?}"
    );
    let vm = classes
        .iter()
        .filter(|l| l.contains(&format!(" threadIdRef=\"{id}\"")))
        .count();
    assert!(vm > 0);
    let start = xml
        .find(&format!("<threadStart threadId=\"{id}\""))
        .unwrap();
    assert!(start < xml.find(&format!(" threadIdRef=\"{id}\"")).unwrap());
    assert_eq!(
        xml.matches(&format!("<threadEnd threadIdRef=\"{id}\""))
            .count(),
        1
    );
}

#[test]
fn version_1_exceptions() {
    check("v1-exceptions", 1);
}

#[test]
fn version_1_monitors() {
    check("v1-monitors", 1);
}

/// Version 2: a trace started by the in-application switch after threads were running
/// (definition kind 6) and ended by `Trace.stop()` (the finish's shutdown flag and
/// count base).
#[test]
fn version_2_switch() {
    check("v2-switch", 2);
}

/// Version 3: objects named with their class (definition kind 7: objDef with
/// classIdRef and isArray), array classes by their descriptor.
#[test]
fn version_3_monitors() {
    check("v3-monitors", 3);
}

/// Version 3: tags (definition kind 8), written by `jtrace.Trace.tag` as the JUnit
/// listener does, with quotes, a comma and markup in a value.
#[test]
fn version_3_tags() {
    check("v3-tags", 3);
}

/// Version 3 with the JVM's facts (the header's optional `jvm` field, rendered as
/// `agentCreate`'s annotations), one with markup in its value (`JAVA_TOOL_OPTIONS`);
/// stored without its index block, like the others (cli's threads_test adds one).
#[test]
fn version_3_jvm() {
    check("v3-jvm", 3);
}

/// Version 3 with line records (`lines=on`), test marks, exceptions (one object thrown
/// again, once out of traced code) and two threads; stored without its index, like the
/// others (cli's window tests write it again with one, with its end states).
#[test]
fn version_3_lines() {
    check("v3-lines", 3);
}
