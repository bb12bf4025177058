//! Objects: objDef and objAlloc (ids, classes, array codes, allocation sites) and the allocation figures of the summary.

use crate::attrs::{get, Attrs};
use crate::model::State;
use crate::summary::AllocStats;
use crate::violation::Rule;

/// `objAlloc@isArray` codes of primitive arrays, and the name of their element class
/// (TPTP's importer files an array allocation under its element class plus `[]`).
pub(crate) const PRIMITIVE_ARRAYS: [(u64, &str); 8] = [
    (4, "boolean"),
    (5, "char"),
    (6, "float"),
    (7, "double"),
    (8, "byte"),
    (9, "short"),
    (10, "int"),
    (11, "long"),
];

/// Valid `objAlloc@isArray` codes: object, object array, boolean[] .. long[].
pub(crate) fn is_array_code_ok(code: u64) -> bool {
    matches!(code, 0 | 2 | 4..=11)
}

impl State {
    pub(crate) fn define_object(&mut self, line: u64, el: &str, id: u64, class: u64) {
        let id = i64::try_from(id).unwrap_or(i64::MAX);
        if self.objects.insert(id, class).is_some() {
            self.err(
                line,
                Rule::Ids,
                format!("<{el}> objId {id} redefined while live (no objFree since it was defined)"),
            );
        }
        self.thrown_objects.remove(&id);
    }

    pub(crate) fn obj_def(&mut self, line: u64, attrs: &Attrs) {
        let Some(id) = self.req_u64(line, "objDef", attrs, "objId") else {
            return;
        };
        let class = self
            .opt_u64(line, "objDef", attrs, "classIdRef")
            .unwrap_or(0);
        self.define_object(line, "objDef", id, class);
    }

    pub(crate) fn obj_alloc(&mut self, line: u64, attrs: &Attrs) {
        let el = "objAlloc";
        let id = self.req_u64(line, el, attrs, "objId");
        let class = self.opt_u64(line, el, attrs, "classIdRef").unwrap_or(0);
        let is_array = self.req_u64(line, el, attrs, "isArray").unwrap_or(0);
        let size = self.req_u64(line, el, attrs, "size").unwrap_or(0);
        let a_method = self.opt_u64(line, el, attrs, "aMethodIdRef").unwrap_or(0);
        let a_class = self.opt_u64(line, el, attrs, "aClassIdRef");
        let a_line = self.opt_u64(line, el, attrs, "aLineNr");
        if let Some(id) = id {
            self.define_object(line, el, id, class);
        }
        if !is_array_code_ok(is_array) {
            self.err(
                line,
                Rule::Alloc,
                format!("<objAlloc> isArray=\"{is_array}\" is not 0, 2 or 4..11"),
            );
        } else if let Some(&(_, want)) = PRIMITIVE_ARRAYS.iter().find(|(c, _)| *c == is_array) {
            // A primitive array names its own class (`byte[]`, ...): TPTP's importer
            // looks up classIdRef on every objAlloc.
            let named = self.classes.get(&class).map(|c| c.name.as_str());
            if named != Some(want) {
                let found = match named {
                    _ if class == 0 => "no classIdRef".to_string(),
                    Some(n) => format!("class {class} ({n})"),
                    None => format!("class {class}"),
                };
                self.err(
                    line,
                    Rule::Alloc,
                    format!("<objAlloc> of a primitive array (isArray=\"{is_array}\") names {found}, not a classDef of {want}"),
                );
            }
        } else if class == 0 {
            self.err(
                line,
                Rule::Alloc,
                format!("<objAlloc> isArray=\"{is_array}\" without a classIdRef (objects and object arrays name their (element) class)"),
            );
        }
        if size == 0 && get(attrs, "size").is_some() {
            self.err(
                line,
                Rule::Alloc,
                "<objAlloc> size=\"0\": every object has a header".to_string(),
            );
        }
        if a_method != 0 {
            let problem = self.methods.get(&a_method).and_then(|m| {
                if a_class.is_some_and(|c| c != m.class) {
                    return Some(format!(
                        "<objAlloc> aMethodIdRef=\"{a_method}\" ({}) belongs to class {}, not aClassIdRef=\"{}\"",
                        m.key,
                        m.class,
                        a_class.unwrap_or(0)
                    ));
                }
                match (a_line, m.line_range) {
                    (Some(n), Some((lo, hi))) if n != 0 && (n < lo || n > hi) => Some(format!(
                        "<objAlloc> aLineNr=\"{n}\" lies outside {} (lines {lo}..{hi})",
                        m.key
                    )),
                    _ => None,
                }
            });
            if let Some(msg) = problem {
                self.err(line, Rule::Alloc, msg);
            }
        }
        // Primitive arrays are summed under no class (EXPECT's `-`): the isArray code
        // already says which type they are.
        let key_class = if is_array >= 4 { 0 } else { class };
        let e: &mut AllocStats = self
            .alloc_by_class
            .entry((key_class, is_array as u32))
            .or_default();
        e.count += 1;
        e.bytes += size;
        if let Some(n) = a_line {
            if !e.lines.contains(&n) {
                e.lines.insert(n);
            }
        }
        self.summary.alloc_bytes += size;
    }

    /// Moves the allocation figures of class id `class` into the summary, under its name.
    pub(crate) fn flush_allocs(&mut self, class: Option<u64>) {
        let keys: Vec<(u64, u32)> = self
            .alloc_by_class
            .keys()
            .filter(|(c, _)| class.is_none_or(|x| x == *c))
            .copied()
            .collect();
        for k in keys {
            let stats = self.alloc_by_class.remove(&k).expect("key");
            let name = self
                .classes
                .get(&k.0)
                .map(|c| c.name.clone())
                .unwrap_or_default();
            let e = self.summary.allocs.entry((name, k.1)).or_default();
            e.count += stats.count;
            e.bytes += stats.bytes;
            e.lines.extend(stats.lines);
        }
    }
}
