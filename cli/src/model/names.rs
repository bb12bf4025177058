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
    /// The method's own class in full whatever the style (see [`Names::qualified`]).
    qualify: bool,
}

/// The simple name a class goes by in the short style (`a.b.Outer$Inner` → `Outer$Inner`).
pub fn simple(dotted: &str) -> &str {
    dotted.rsplit('.').next().unwrap_or(dotted)
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
    pub fn new(style: Style, inner: Inner) -> Names {
        Names {
            style,
            inner,
            qualify: false,
        }
    }

    /// A class name (dotted, as the trace writes it) in this style.
    pub fn class(&self, dotted: &str) -> String {
        let mut out = String::with_capacity(dotted.len());
        self.class_into(dotted, &mut out);
        out
    }

    /// [`Names::class`], appended to `out` (a method's name is made in one string:
    /// include=* traces define tens of thousands of methods).
    fn class_into(&self, dotted: &str, out: &mut String) {
        let base = match self.style {
            Style::Short => simple(dotted),
            Style::Full | Style::Jvm => dotted,
        };
        if self.style == Style::Jvm || self.inner == Inner::Dollar {
            out.push_str(base);
            return;
        }
        // `$` followed by a digit is an anonymous or local class: kept as it is. (`$`
        // is ASCII: no byte of another character is taken for it.)
        let b = base.as_bytes();
        let mut from = 0;
        for (i, &c) in b.iter().enumerate() {
            if c == b'$' && i > 0 && b.get(i + 1).is_some_and(|n| !n.is_ascii_digit()) {
                out.push_str(&base[from..i]);
                out.push('.');
                from = i + 1;
            }
        }
        out.push_str(&base[from..]);
    }

    /// These names with the method's class written in full (`a.Block.run(int)`), for a
    /// class whose simple name another class of the trace shares; its parameters keep
    /// this style.
    pub fn qualified(&self) -> Names {
        Names {
            qualify: true,
            ..*self
        }
    }

    /// `Class.method` without its parameters (`Demo.Worker.<init>`; `a/b/C.<init>` in
    /// the JVM's form): a frame of a tree or flame graph.
    pub fn frame(&self, class: &str, name: &str) -> String {
        let name = jvm_method_name(name);
        let mut out = String::with_capacity(class.len() + 1 + name.len());
        self.owner_into(class, &mut out);
        out.push('.');
        out.push_str(name);
        out
    }

    /// The method's class in this style (in full where [`Names::qualified`]),
    /// `/`-separated in the JVM's form.
    fn owner_into(&self, class: &str, out: &mut String) {
        if self.style == Style::Jvm {
            out.extend(class.chars().map(|c| if c == '.' { '/' } else { c }));
        } else if self.qualify && self.style == Style::Short {
            Names {
                style: Style::Full,
                ..*self
            }
            .class_into(class, out);
        } else {
            self.class_into(class, out);
        }
    }

    /// A method named for people: `Demo.parse(String)` (`Demo.parse(Ljava/lang/String;)I`
    /// in the JVM's form).
    pub fn method(&self, class: &str, name: &str, descriptor: &str) -> String {
        let name = jvm_method_name(name);
        let mut out = String::with_capacity(class.len() + name.len() + descriptor.len() + 2);
        self.owner_into(class, &mut out);
        out.push('.');
        out.push_str(name);
        if self.style == Style::Jvm {
            out.push_str(descriptor);
            return out;
        }
        out.push('(');
        let mut dotted = String::new();
        for (i, (p, dims)) in Params(descriptor_params(descriptor)).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match p {
                Param::Primitive(name) => out.push_str(name),
                Param::Class(slashed) => {
                    dotted.clear();
                    dotted.extend(slashed.chars().map(|c| if c == '/' { '.' } else { c }));
                    self.class_into(&dotted, &mut out);
                }
            }
            for _ in 0..dims {
                out.push_str("[]");
            }
        }
        out.push(')');
        out
    }
}

/// A parameter's type in a descriptor, without its array dimensions.
enum Param<'a> {
    Primitive(&'static str),
    /// A class, as the descriptor writes it (`java/lang/String`).
    Class(&'a str),
}

/// What is between a descriptor's parentheses (nothing if they are missing).
fn descriptor_params(descriptor: &str) -> &str {
    descriptor
        .strip_prefix('(')
        .and_then(|d| d.split(')').next())
        .unwrap_or("")
}

/// The parameter types of a descriptor's parameter list, each with its array
/// dimensions (`I[Ljava/lang/String;` → `int`, `java/lang/String` and 1). A list that
/// does not parse gives what parsed up to there.
struct Params<'a>(&'a str);

impl<'a> Iterator for Params<'a> {
    type Item = (Param<'a>, usize);

    fn next(&mut self) -> Option<(Param<'a>, usize)> {
        let rest = self.0;
        let dims = rest.bytes().take_while(|&c| c == b'[').count();
        let rest = &rest[dims..];
        let (p, used) = match rest.as_bytes().first()? {
            b'Z' => (Param::Primitive("boolean"), 1),
            b'C' => (Param::Primitive("char"), 1),
            b'F' => (Param::Primitive("float"), 1),
            b'D' => (Param::Primitive("double"), 1),
            b'B' => (Param::Primitive("byte"), 1),
            b'S' => (Param::Primitive("short"), 1),
            b'I' => (Param::Primitive("int"), 1),
            b'J' => (Param::Primitive("long"), 1),
            b'V' => (Param::Primitive("void"), 1),
            b'L' => {
                let end = rest.find(';')?;
                (Param::Class(&rest[1..end]), end + 1)
            }
            _ => return None,
        };
        self.0 = &rest[used..];
        Some((p, dims))
    }
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
        let full = Names::new(Style::Full, Inner::Dollar);
        assert_eq!(
            full.method("a.b.C$D", "-clinit-", "(Ljava/lang/String;)V"),
            "a.b.C$D.<clinit>(java.lang.String)"
        );
        let jvm = Names::new(Style::Jvm, Inner::Dot);
        assert_eq!(
            jvm.method("a.b.C$D", "-init-", "(I)V"),
            "a/b/C$D.<init>(I)V"
        );
        assert_eq!(jvm.frame("a.b.C$D", "-init-"), "a/b/C$D.<init>");
    }

    #[test]
    fn odd_names() {
        let n = Names::default();
        assert_eq!(n.class("a.b.Outer$Inner$1"), "Outer.Inner$1");
        assert_eq!(n.class("$Lead$"), "$Lead$");
        assert_eq!(n.class("p.\u{dc}n\u{ef}$\u{c7}a"), "\u{dc}n\u{ef}.\u{c7}a");
        assert_eq!(n.frame("p.Outer$In", "-clinit-"), "Outer.In.<clinit>");
        assert_eq!(n.method("C", "m", "([Lp/Outer$In;)V"), "C.m(Outer.In[])");
        // A Scala object's class ends in `$`, an array of it too (`None.[]` until the
        // brackets were put after the name).
        assert_eq!(n.method("C", "m", "([Lscala/None$;)V"), "C.m(None$[])");
        // What parses of a broken descriptor, and nothing of a missing one.
        assert_eq!(n.method("C", "m", "(IQ)V"), "C.m(int)");
        assert_eq!(n.method("C", "m", "(Lp/X"), "C.m()");
        assert_eq!(n.method("C", "m", ""), "C.m()");
    }
}
