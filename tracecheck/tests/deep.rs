//! stackDepth beyond the xsd:short range: entries deeper than 32767 say 32767, every entry carries it.

use tracecheck::{check_reader, Rule};

/// A trace whose one thread nests `depth` entries of one method; `attr(d)` gives the
/// stackDepth attribute text of the entry at depth d; traceEnd declares what was clamped.
fn nested(depth: u64, attr: impl Fn(u64) -> String) -> String {
    let clamped = depth.saturating_sub(32_767);
    let declared = if clamped > 0 {
        format!(
            "<annotation name=\"clampedStackDepths\" value=\"{clamped}\"/>\n<annotation name=\"deepestStackDepth\" value=\"{depth}\"/>\n"
        )
    } else {
        String::new()
    };
    nested_declaring(depth, attr, &declared)
}

/// [`nested`] with `declared` as traceEnd's children.
fn nested_declaring(depth: u64, attr: impl Fn(u64) -> String, declared: &str) -> String {
    let mut s = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<TRACE>
<node nodeId="n-1" hostname="h" ipaddress="127.0.0.1" timezone="0" time="1716200000.000000000"/>
<processCreate processId="p-1" name="java" pid="7" nodeIdRef="n-1" time="1716203600.000000000"/>
<agentCreate agentId="a-1" processIdRef="p-1" agentName="jtrace" time="1716203600.000000001"/>
<traceStart traceId="t-1" agentIdRef="a-1" time="1716203600.000000002"/>
<threadStart threadId="1" time="1716203600.000000003" threadName="main" groupName="main" parentName="system" objIdRef="0"/>
<classDef name="D" sourceName="D.java" classId="1" threadIdRef="1" time="1716203600.000000003" numInterfaces="0" interfaceNames="" superclass="java.lang.Object" classLoader="app" access="public" numStaticFields="0" numMethods="1" numInstanceFields="0" objIdRef="0"/>
<methodDef name="rec" signature="()V" methodId="1" classIdRef="1"/>
"#,
    );
    for d in 1..=depth {
        s.push_str(&format!(
            "<methodEntry threadIdRef=\"1\" time=\"1716203600.000000004\" methodIdRef=\"1\" classIdRef=\"1\" ticket=\"{d}\"{}/>\n",
            attr(d)
        ));
    }
    for d in (1..=depth).rev() {
        s.push_str(&format!(
            "<methodExit threadIdRef=\"1\" methodIdRef=\"1\" classIdRef=\"1\" ticket=\"{d}\" time=\"1716203600.000000005\"/>\n"
        ));
    }
    s.push_str(&format!(
        r#"<threadEnd threadIdRef="1" time="1716203600.000000006"/>
<traceEnd traceIdRef="t-1" time="1716203600.000000008">{declared}</traceEnd>
<methodCount methodIdRef="1" count="{depth}"/>
<agentDestroy agentIdRef="a-1" time="1716203600.000000009"/>
</TRACE>
"#
    ));
    s
}

const DEEP: u64 = 32_770;

fn exact(d: u64) -> String {
    format!(" stackDepth=\"{d}\"")
}

#[test]
fn deep_frames_clamp_stack_depth() {
    let doc = nested(DEEP, |d| exact(d.min(32_767)));
    let s = check_reader(doc.as_bytes()).unwrap_or_else(|v| panic!("{v:#?}"));
    // The depth comes from the nesting, not from the attribute.
    assert_eq!(s.max_depth, DEEP);
    assert_eq!(s.max_depth_of("D.rec"), DEEP);
}

/// A clamped depth is accepted only where traceEnd says how many and how deep.
#[test]
fn clamped_depths_must_be_declared() {
    let clamp = |d: u64| exact(d.min(32_767));
    for declared in [
        String::new(),
        "<annotation name=\"clampedStackDepths\" value=\"2\"/>\n<annotation name=\"deepestStackDepth\" value=\"32770\"/>\n".to_string(),
        "<annotation name=\"clampedStackDepths\" value=\"3\"/>\n".to_string(),
    ] {
        let doc = nested_declaring(DEEP, clamp, &declared);
        let v = check_reader(doc.as_bytes()).unwrap_err();
        assert!(
            v.iter().any(|v| v.rule == Rule::Nesting
                && v.message.contains("3 methodEntry element(s) are deeper than 32767")),
            "{declared}: {v:#?}"
        );
    }
    // And a shallow trace may not declare any.
    let doc = nested_declaring(
        3,
        exact,
        "<annotation name=\"clampedStackDepths\" value=\"1\"/>\n<annotation name=\"deepestStackDepth\" value=\"40000\"/>\n",
    );
    assert!(check_reader(doc.as_bytes()).is_err());
}

#[test]
fn stack_depth_out_of_range_is_rejected() {
    let doc = nested(DEEP, exact);
    let v = check_reader(doc.as_bytes()).unwrap_err();
    // Line of the entry at depth 32768: 10 lines before the first entry.
    assert!(
        v.iter()
            .any(|v| v.rule == Rule::Attribute && v.line == 9 + 32_768),
        "{v:#?}"
    );
}

#[test]
fn deep_frames_need_stack_depth() {
    let doc = nested(DEEP, |d| if d <= 32_767 { exact(d) } else { String::new() });
    let v = check_reader(doc.as_bytes()).unwrap_err();
    assert!(
        v.iter()
            .any(|v| v.rule == Rule::Attribute && v.line == 9 + 32_768),
        "{v:#?}"
    );
}

#[test]
fn shallow_frames_need_stack_depth() {
    let doc = nested(3, |d| if d == 2 { String::new() } else { exact(d) });
    let v = check_reader(doc.as_bytes()).unwrap_err();
    assert!(
        v.iter().any(|v| v.rule == Rule::Attribute && v.line == 11),
        "{v:#?}"
    );
}
