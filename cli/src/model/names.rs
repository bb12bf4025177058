//! Method names as a Java developer writes them: `Demo.parse(String)`,
//! `Demo.Worker.<init>(int)`, from the trace's class name, method name and JVM
//! descriptor, in one of three styles (`--names short|full|jvm`).

/// How a method is named.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// Simple class names: `Demo.Worker.<init>(int)`, `Demo.parse(String)`
    #[default]
    Short,
    /// Qualified class names: `com.acme.Demo.parse(java.lang.String)`
    Full,
    /// The JVM's own: `com.acme.Demo.parse(Ljava/lang/String;)I`
    Jvm,
}

/// How nested classes are written.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Inner {
    /// `Outer.Inner`, as in Java source
    #[default]
    Dot,
    /// `Outer$Inner`, as the JVM names the class
    Dollar,
}

/// A naming choice: style and nested-class spelling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Names {
    pub style: Style,
    pub inner: Inner,
}

/// TPTP spells `<init>`/`<clinit>` as `-init-`/`-clinit-`; javap and the JVM use the former.
pub fn jvm_method_name(name: &str) -> &str {
    match name {
        "-init-" => "<init>",
        "-clinit-" => "<clinit>",
        n => n,
    }
}

/// `Class.method(descriptor)` with the JVM's method name (`<init>`): the name JSON
/// keeps beside the readable one.
pub fn jvm(class: &str, name: &str, descriptor: &str) -> String {
    format!("{class}.{}{descriptor}", jvm_method_name(name))
}

impl Names {
    /// A class name (dotted, as the trace writes it) in this style.
    pub fn class(&self, dotted: &str) -> String {
        let base = match self.style {
            Style::Short => dotted.rsplit('.').next().unwrap_or(dotted),
            Style::Full | Style::Jvm => dotted,
        };
        match (self.style, self.inner) {
            (Style::Jvm, _) | (_, Inner::Dollar) => base.to_string(),
            // `$` followed by a digit is an anonymous or local class: keep it as is.
            (_, Inner::Dot) => {
                let mut out = String::with_capacity(base.len());
                let b: Vec<char> = base.chars().collect();
                for (i, &c) in b.iter().enumerate() {
                    let next_alpha = b.get(i + 1).is_some_and(|n| !n.is_ascii_digit());
                    let inner = c == '$' && i > 0 && next_alpha;
                    out.push(if inner { '.' } else { c });
                }
                out
            }
        }
    }

    /// `Class.method` without its parameters (`Demo.Worker.<init>`; `a/b/C.<init>` in
    /// the JVM's form): a frame of a tree or flame graph.
    pub fn frame(&self, class: &str, name: &str) -> String {
        let name = jvm_method_name(name);
        if self.style == Style::Jvm {
            return format!("{}.{name}", class.replace('.', "/"));
        }
        format!("{}.{name}", self.class(class))
    }

    /// `Class.method(Param, ...)` (or the JVM form with its descriptor).
    pub fn method(&self, class: &str, name: &str, descriptor: &str) -> String {
        let name = jvm_method_name(name);
        if self.style == Style::Jvm {
            return format!("{}.{name}{descriptor}", class.replace('.', "/"));
        }
        let params = params(descriptor)
            .into_iter()
            .map(|p| self.class(&p))
            .collect::<Vec<_>>()
            .join(", ");
        format!("{}.{name}({params})", self.class(class))
    }
}

/// The parameter types of a method descriptor as Java writes them, dotted and
/// qualified (`(I[Ljava/lang/String;)V` → `int`, `java.lang.String[]`). A descriptor
/// that does not parse gives what parsed up to there.
pub fn params(descriptor: &str) -> Vec<String> {
    let Some(inner) = descriptor
        .strip_prefix('(')
        .and_then(|d| d.split(')').next())
    else {
        return Vec::new();
    };
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let mut dims = 0;
        while i < b.len() && b[i] == b'[' {
            dims += 1;
            i += 1;
        }
        let Some(&c) = b.get(i) else { break };
        let base = match c {
            b'Z' => "boolean".to_string(),
            b'C' => "char".to_string(),
            b'F' => "float".to_string(),
            b'D' => "double".to_string(),
            b'B' => "byte".to_string(),
            b'S' => "short".to_string(),
            b'I' => "int".to_string(),
            b'J' => "long".to_string(),
            b'V' => "void".to_string(),
            b'L' => {
                let Some(end) = inner[i..].find(';') else {
                    break;
                };
                let s = inner[i + 1..i + end].replace('/', ".");
                i += end;
                s
            }
            _ => break,
        };
        i += 1;
        out.push(base + &"[]".repeat(dims));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles() {
        let n = Names::default();
        assert_eq!(
            n.method("Demo", "parse", "(Ljava/lang/String;)I"),
            "Demo.parse(String)"
        );
        assert_eq!(
            n.method("Demo$Worker", "-init-", "(I)V"),
            "Demo.Worker.<init>(int)"
        );
        assert_eq!(
            n.method("a.b.C", "m", "([[JLjava/util/List;Z)V"),
            "C.m(long[][], List, boolean)"
        );
        assert_eq!(n.method("C$1", "run", "()V"), "C$1.run()");
        let full = Names {
            style: Style::Full,
            inner: Inner::Dollar,
        };
        assert_eq!(
            full.method("a.b.C$D", "-clinit-", "(Ljava/lang/String;)V"),
            "a.b.C$D.<clinit>(java.lang.String)"
        );
        let jvm = Names {
            style: Style::Jvm,
            inner: Inner::Dot,
        };
        assert_eq!(
            jvm.method("a.b.C$D", "-init-", "(I)V"),
            "a/b/C$D.<init>(I)V"
        );
    }
}
