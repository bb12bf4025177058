//! TPTP's spelling of JVM names: the agent records names as the JVM gives them (`java/lang/String`, `[I`, `<init>`); only the renderer turns them into TPTP's (`java.lang.String`, `int[]`, `-init-`).

use std::borrow::Cow;

/// A class's TPTP name from its JVM internal name (`java/lang/String` →
/// `java.lang.String`). Array classes keep their descriptor, dotted (`[I`,
/// `[Ljava.lang.String;`): TPTP's importer models an array as its element class plus
/// `[]` (an allocation's `classIdRef` names the element class) and fails on a
/// plain class named `String[]`, while a `[`-name stays a class of its own (the
/// component of a multi-dimensional array). Names already dotted pass through
/// unchanged, so `.jtr` files of every version render alike.
pub fn class_name(jvm: &str) -> Cow<'_, str> {
    if jvm.contains('/') {
        Cow::Owned(jvm.replace('/', "."))
    } else {
        Cow::Borrowed(jvm)
    }
}

/// A class name as Java spells it: array descriptors, internal or dotted
/// (`[I` → `int[]`, `[[Ljava/lang/Object;` → `java.lang.Object[][]`), other names
/// dotted. For people (reports, messages), not for the trace.
pub fn java_name(jvm: &str) -> Cow<'_, str> {
    if let Some(elem) = jvm.strip_prefix('[') {
        let dims = 1 + elem.chars().take_while(|&c| c == '[').count();
        let base = &jvm[dims..];
        let name = match base {
            "Z" => "boolean".into(),
            "C" => "char".into(),
            "F" => "float".into(),
            "D" => "double".into(),
            "B" => "byte".into(),
            "S" => "short".into(),
            "I" => "int".into(),
            "J" => "long".into(),
            b => b
                .strip_prefix('L')
                .and_then(|s| s.strip_suffix(';'))
                .unwrap_or(b)
                .replace('/', "."),
        };
        return Cow::Owned(name + &"[]".repeat(dims));
    }
    class_name(jvm)
}

/// The Java name of the class of an allocated (or defined) array, from its element
/// class's trace name and its `isArray` code: `int` with 10 → `int[]`,
/// `[Ljava.lang.String;` with 2 → `java.lang.String[][]`. Traces of earlier versions
/// named a primitive array's own class (`byte[]`), which is kept as it is.
pub fn array_name(element: &str, is_array: u8) -> String {
    if is_array >= 4 && element.ends_with("[]") {
        return element.to_string();
    }
    format!("{}[]", java_name(element))
}

/// TPTP names constructors and static initialisers `-init-` / `-clinit-`.
pub fn method_name(jvm: &str) -> &str {
    match jvm {
        "<init>" => "-init-",
        "<clinit>" => "-clinit-",
        n => n,
    }
}

/// A comma-separated list of class names, each in TPTP's spelling.
pub fn class_list(jvm: &[String]) -> String {
    jvm.iter()
        .map(|n| class_name(n))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tptp_spellings() {
        assert_eq!(class_name("java/lang/String"), "java.lang.String");
        assert_eq!(class_name("java.lang.String"), "java.lang.String");
        assert_eq!(class_name("[I"), "[I");
        assert_eq!(class_name("[[Ljava/lang/Object;"), "[[Ljava.lang.Object;");
        assert_eq!(class_name("int[]"), "int[]");
        assert_eq!(java_name("[I"), "int[]");
        assert_eq!(java_name("[[Ljava/lang/Object;"), "java.lang.Object[][]");
        assert_eq!(java_name("[Ljava.lang.String;"), "java.lang.String[]");
        assert_eq!(array_name("int", 10), "int[]");
        assert_eq!(array_name("byte[]", 8), "byte[]");
        assert_eq!(array_name("[LItem;", 2), "Item[][]");
        assert_eq!(array_name("Item", 2), "Item[]");
        assert_eq!(class_name("Outer$Inner"), "Outer$Inner");
        assert_eq!(method_name("<init>"), "-init-");
        assert_eq!(method_name("<clinit>"), "-clinit-");
        assert_eq!(method_name("run"), "run");
        assert_eq!(class_list(&["a/B".into(), "C".into()]), "a.B,C");
    }
}
