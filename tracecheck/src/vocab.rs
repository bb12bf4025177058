//! The TPTP trace vocabulary: every element and attribute of traceEvents.xsd (plus the monitor elements).
//!
//! Kept identical to `docs/trace.dtd` (a unit test compares the two), so `xmllint
//! --dtdvalid` and tracecheck accept exactly the same names.

/// Elements and the attributes each may carry, in XSD order.
pub const ELEMENTS: &[(&str, &[&str])] = &[
    ("annotation", &["name", "value"]),
    ("code", &["type", "value"]),
    ("tag", &["name", "value"]),
    ("methodBody", &["name"]),
    (
        "node",
        &["nodeId", "hostname", "ipaddress", "timezone", "time"],
    ),
    (
        "processCreate",
        &[
            "processId",
            "name",
            "pid",
            "nodeIdRef",
            "time",
            "application_executable",
        ],
    ),
    (
        "agentCreate",
        &[
            "agentId",
            "processIdRef",
            "agentName",
            "time",
            "agentParameters",
            "version",
        ],
    ),
    ("agentDestroy", &["agentIdRef", "time"]),
    (
        "traceStart",
        &[
            "traceId",
            "agentIdRef",
            "time",
            "collationValue",
            "precision",
            "language",
        ],
    ),
    ("traceEnd", &["traceIdRef", "time", "collationValue"]),
    ("processSuspend", &["time", "traceIdRef"]),
    ("processResume", &["time", "traceIdRef"]),
    ("option", &["key", "value", "traceIdRef"]),
    (
        "filter",
        &["pattern", "genericPattern", "mode", "traceIdRef"],
    ),
    (
        "threadStart",
        &[
            "transientThreadId",
            "threadId",
            "time",
            "groupName",
            "parentName",
            "transientObjIdRef",
            "objIdRef",
            "threadName",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "threadEnd",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "classDef",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "numInterfaces",
            "interfaceNames",
            "transientClassId",
            "classId",
            "sourceName",
            "classLoader",
            "superclass",
            "transientObjIdRef",
            "objIdRef",
            "name",
            "access",
            "numStaticFields",
            "numMethods",
            "numInstanceFields",
            "collationValue",
            "traceIdRef",
            "language",
        ],
    ),
    (
        "methodDef",
        &[
            "name",
            "signature",
            "visibility",
            "isNative",
            "isAbstract",
            "isStatic",
            "isSynchronized",
            "exceptions",
            "startLineNumber",
            "endLineNumber",
            "signatureNotation",
            "transientClassIdRef",
            "classIdRef",
            "methodId",
            "collationValue",
            "traceIdRef",
            "language",
        ],
    ),
    (
        "objAlloc",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "isArray",
            "transientObjId",
            "objId",
            "size",
            "transientClassIdRef",
            "classIdRef",
            "contextData",
            "collationValue",
            "traceIdRef",
            "aMethodIdRef",
            "aClassIdRef",
            "aLineNr",
        ],
    ),
    (
        "methodEntry",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "methodIdRef",
            "ticket",
            "transientObjIdRef",
            "objIdRef",
            "transientClassIdRef",
            "classIdRef",
            "threadCpuTime",
            "sequenceCounter",
            "stackDepth",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "methodExit",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "ticket",
            "threadCpuTime",
            "methodIdRef",
            "transientObjIdRef",
            "objIdRef",
            "transientClassIdRef",
            "classIdRef",
            "sequenceCounter",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "methodCall",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "methodIdRef",
            "ticket",
            "objIdRef",
            "transientObjIdRef",
            "classIdRef",
            "transientClassIdRef",
            "threadCpuTime",
            "sequenceCounter",
            "stackDepth",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "methodReturn",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "methodIdRef",
            "ticket",
            "objIdRef",
            "transientObjIdRef",
            "classIdRef",
            "transientClassIdRef",
            "threadCpuTime",
            "sequenceCounter",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "InvocationContext",
        &[
            "nodeIdRef",
            "processIdRef",
            "agentIdRef",
            "threadIdRef",
            "ticket",
            "sequenceCounter",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "objDef",
        &[
            "objId",
            "isArray",
            "size",
            "classIdRef",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "value",
        &[
            "name",
            "objIdRef",
            "serializationFormat",
            "type",
            "value",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "methodCount",
        &["count", "methodIdRef", "collationValue", "traceIdRef"],
    ),
    (
        "line",
        &[
            "transientThreadIdRef",
            "threadId",
            "time",
            "line_number",
            "file_name",
            "methodIdRef",
            "ticket",
            "threadCpuTime",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "gcStart",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "objFree",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "transientObjIdRef",
            "objIdRef",
            "sequenceCounter",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "classUnload",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "transientClassIdRef",
            "classIdRef",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "objMove",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "transientObjIdRef",
            "objIdRef",
            "newObjId",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "gcFinish",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "totalObjectSpace",
            "usedObjectSpace",
            "usedObjects",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "throw",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "objIdRef",
            "objHandle",
            "methodIdRef",
            "ticket",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "catch",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "objIdRef",
            "transientObjIdRef",
            "objHandle",
            "methodIdRef",
            "ticket",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "runtimeInitDone",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "collationValue",
            "traceIdRef",
        ],
    ),
    (
        "runtimeShutdown",
        &[
            "transientThreadIdRef",
            "threadIdRef",
            "time",
            "collationValue",
            "traceIdRef",
        ],
    ),
    ("monWait", &["threadIdRef", "time", "objIdRef", "timeout"]),
    (
        "monWaited",
        &["threadIdRef", "time", "objIdRef", "timeout", "isTimedOut"],
    ),
    (
        "monContendedEnter",
        &["threadIdRef", "time", "objIdRef", "threadOwner"],
    ),
    ("monContendedEntered", &["threadIdRef", "time", "objIdRef"]),
];

/// Elements that may only appear as children of other elements, never directly under `TRACE`.
pub const CHILD_ONLY: &[&str] = &["annotation", "InvocationContext"];

/// Elements whose children are `annotation*` (the XSD's `AnnotatedType`).
pub const ANNOTATED: &[&str] = &[
    "agentCreate",
    "agentDestroy",
    "traceStart",
    "traceEnd",
    "classDef",
    "methodDef",
];

/// The attributes `element` may carry, or `None` if `element` is not in the vocabulary.
pub fn attributes(element: &str) -> Option<&'static [&'static str]> {
    ELEMENTS
        .iter()
        .find(|(name, _)| *name == element)
        .map(|(_, attrs)| *attrs)
}

/// Whether `child` may appear directly inside `parent` (`None` = the document root).
pub fn child_allowed(parent: Option<&str>, child: &str) -> bool {
    match parent {
        None => child == "TRACE",
        Some("TRACE") => attributes(child).is_some() && !CHILD_ONLY.contains(&child),
        Some("annotation") => child == "value",
        Some("methodEntry") => child == "InvocationContext" || child == "value",
        Some("methodCall" | "methodReturn") => child == "value",
        Some("methodBody") => matches!(
            child,
            "methodCall" | "methodReturn" | "value" | "objDef" | "code"
        ),
        Some(p) if ANNOTATED.contains(&p) => child == "annotation",
        Some(_) => false,
    }
}

/// Whether `element` may contain character data.
pub fn text_allowed(element: &str) -> bool {
    element == "value"
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// Parses the `<!ELEMENT` / `<!ATTLIST` declarations of docs/trace.dtd (the small
    /// subset of DTD syntax that file uses).
    fn dtd_vocabulary() -> BTreeMap<String, BTreeSet<String>> {
        let dtd = include_str!("../../docs/trace.dtd");
        let body = &dtd[dtd.find("-->").expect("header comment") + 3..];
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for decl in body.split("<!").skip(1) {
            let decl = decl.trim().trim_end_matches('>');
            let mut words = decl.split_whitespace();
            match words.next() {
                Some("ELEMENT") => {
                    out.entry(words.next().unwrap().to_string()).or_default();
                }
                Some("ATTLIST") => {
                    let el = words.next().unwrap().to_string();
                    let rest: Vec<&str> = words.collect();
                    let attrs = out.entry(el).or_default();
                    for triple in rest.chunks(3) {
                        assert_eq!(triple[1], "CDATA", "{decl}");
                        attrs.insert(triple[0].to_string());
                    }
                }
                other => panic!("unexpected declaration {other:?}"),
            }
        }
        out
    }

    #[test]
    fn vocabulary_matches_docs_trace_dtd() {
        let mut dtd = dtd_vocabulary();
        assert!(dtd.remove("TRACE").unwrap().is_empty());
        let ours: BTreeMap<String, BTreeSet<String>> = ELEMENTS
            .iter()
            .map(|(e, a)| (e.to_string(), a.iter().map(|s| s.to_string()).collect()))
            .collect();
        assert_eq!(dtd, ours);
    }

    #[test]
    fn every_top_level_element_is_in_the_dtd_trace_model() {
        let dtd = include_str!("../../docs/trace.dtd");
        let start = dtd.find("<!ELEMENT TRACE").unwrap();
        let model = &dtd[start..start + dtd[start..].find('>').unwrap()];
        for (name, _) in ELEMENTS {
            let listed = model
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w == *name);
            assert_eq!(listed, !CHILD_ONLY.contains(name), "{name}");
        }
    }

    #[test]
    fn children() {
        assert!(child_allowed(None, "TRACE"));
        assert!(child_allowed(Some("TRACE"), "methodEntry"));
        assert!(!child_allowed(Some("TRACE"), "annotation"));
        assert!(child_allowed(Some("classDef"), "annotation"));
        assert!(child_allowed(Some("annotation"), "value"));
        assert!(!child_allowed(Some("threadStart"), "value"));
    }
}
