//! TPTP's spelling of JVM names: the agent records names as the JVM gives them (`java/lang/String`, `[I`, `<init>`); only the renderer turns them into TPTP's (`java.lang.String`, `int[]`, `-init-`).

use std::borrow::Cow;

/// A class's TPTP name from its JVM internal name (`java/lang/String` →
/// `java.lang.String`) or, for arrays, its descriptor (`[I` → `int[]`,
/// `[[Ljava/lang/Object;` → `java.lang.Object[][]`). Names already dotted pass
/// through unchanged, so `.jtr` files of every version render alike.
pub fn class_name(jvm: &str) -> Cow<'_, str> {
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
    if jvm.contains('/') {
        Cow::Owned(jvm.replace('/', "."))
    } else {
        Cow::Borrowed(jvm)
    }
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
        assert_eq!(class_name("[I"), "int[]");
        assert_eq!(class_name("[[Ljava/lang/Object;"), "java.lang.Object[][]");
        assert_eq!(class_name("int[]"), "int[]");
        assert_eq!(class_name("Outer$Inner"), "Outer$Inner");
        assert_eq!(method_name("<init>"), "-init-");
        assert_eq!(method_name("<clinit>"), "-clinit-");
        assert_eq!(method_name("run"), "run");
        assert_eq!(class_list(&["a/B".into(), "C".into()]), "a.B,C");
    }
}
