//! Names: threads, classes and methods as their definitions arrive, by dense index.

use super::idmap::IdMap;

pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct ThreadInfo {
    pub id: u64,
    pub name: String,
    pub start: u64,
    pub end: Option<u64>,
    /// Selected by `--thread` (events of other threads are skipped).
    pub included: bool,
}

#[derive(Debug, Clone)]
pub struct MethodInfo {
    /// Dotted class name.
    pub class: String,
    pub name: String,
    /// JNI descriptor.
    pub signature: String,
    /// `Class.method`: flame graph and tree frames.
    pub short: String,
    /// `Class.method(signature)`: what identifies a method across traces.
    pub key: String,
    /// The class's index ([`NONE`] when the trace never defined it).
    pub class_ix: u32,
}

impl MethodInfo {
    pub fn new(class: &str, name: &str, signature: &str) -> MethodInfo {
        MethodInfo {
            class: class.to_string(),
            name: name.to_string(),
            signature: signature.to_string(),
            short: format!("{class}.{name}"),
            key: format!("{class}.{name}{signature}"),
            class_ix: NONE,
        }
    }
}

/// What a class's definition says beyond its name (for coverage).
#[derive(Debug, Clone, Default)]
pub struct ClassExtra {
    /// `sourceName` (the SourceFile attribute; "" if none).
    pub source: String,
    /// `methodNames` annotation: `name(sig)ret` per method in class-file order.
    pub method_names: String,
    /// `methodLineTables` annotation (Probekit encoding).
    pub line_tables: String,
}

pub struct Symbols {
    /// The trace's start (its first thread or `traceStart`, ns since the epoch): the
    /// origin of the relative times every output shows.
    pub start: u64,
    /// The selected time window in ns since the epoch (everything without one).
    pub window: (u64, u64),
    pub threads: Vec<ThreadInfo>,
    thread_ids: IdMap,
    pub classes: Vec<String>,
    class_ids: IdMap,
    pub methods: Vec<MethodInfo>,
    method_ids: IdMap,
    /// By class index (shorter than `classes` when the trace gave none).
    pub class_extra: Vec<ClassExtra>,
}

impl Default for Symbols {
    fn default() -> Symbols {
        Symbols {
            start: 0,
            window: (0, u64::MAX),
            threads: Vec::new(),
            thread_ids: IdMap::default(),
            classes: Vec::new(),
            class_ids: IdMap::default(),
            methods: Vec::new(),
            method_ids: IdMap::default(),
            class_extra: Vec::new(),
        }
    }
}

impl Symbols {
    pub fn thread(&self, id: u64) -> Option<u32> {
        self.thread_ids.get(id)
    }

    /// Defines (or redefines: the agent never reuses ids, but a hand-made trace might) a thread.
    pub fn add_thread(&mut self, info: ThreadInfo) -> u32 {
        let ix = self.threads.len() as u32;
        self.thread_ids.insert(info.id, ix);
        self.threads.push(info);
        ix
    }

    pub fn add_class(&mut self, id: u64, name: &str) {
        match self.class_ids.get(id) {
            Some(ix) => self.classes[ix as usize] = name.to_string(),
            None => {
                self.class_ids.insert(id, self.classes.len() as u32);
                self.classes.push(name.to_string());
            }
        }
    }

    /// Records `sourceName`, `methodNames` or `methodLineTables` of class `id`.
    pub fn add_class_annotation(&mut self, id: u64, name: &str, value: &str) {
        let Some(ix) = self.class(id) else { return };
        let ix = ix as usize;
        if self.class_extra.len() <= ix {
            self.class_extra.resize(ix + 1, ClassExtra::default());
        }
        let e = &mut self.class_extra[ix];
        match name {
            "sourceName" => e.source = value.to_string(),
            "methodNames" => e.method_names = value.to_string(),
            "methodLineTables" => e.line_tables = value.to_string(),
            _ => {}
        }
    }

    pub fn class(&self, id: u64) -> Option<u32> {
        self.class_ids.get(id)
    }

    pub fn class_name(&self, ix: u32) -> &str {
        self.classes.get(ix as usize).map_or("?", String::as_str)
    }

    pub fn add_method(&mut self, id: u64, class: u64, name: &str, signature: &str) {
        let class_ix = self.class(class).unwrap_or(NONE);
        let class = self
            .class(class)
            .map_or("?", |c| self.class_name(c))
            .to_string();
        let mut info = MethodInfo::new(&class, name, signature);
        info.class_ix = class_ix;
        match self.method_ids.get(id) {
            Some(ix) => self.methods[ix as usize] = info,
            None => {
                self.method_ids.insert(id, self.methods.len() as u32);
                self.methods.push(info);
            }
        }
    }

    /// The method's index; a method the trace never defined gets a placeholder name.
    pub fn method_or_placeholder(&mut self, id: u64) -> u32 {
        if let Some(ix) = self.method_ids.get(id) {
            return ix;
        }
        self.add_method(id, 0, &format!("method#{id}"), "");
        self.method_ids.get(id).unwrap_or(0)
    }

    pub fn method(&self, ix: u32) -> &MethodInfo {
        &self.methods[ix as usize]
    }

    /// The name an allocation's class is shown with: object arrays add `[]` (the trace
    /// names their element class), primitive arrays have their own class (`byte[]`).
    pub fn alloc_class(&self, class: u32, is_array: u8) -> String {
        let base = if class == NONE {
            "?"
        } else {
            self.class_name(class)
        };
        if is_array == 2 {
            format!("{base}[]")
        } else {
            base.to_string()
        }
    }
}
