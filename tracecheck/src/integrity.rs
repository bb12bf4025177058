//! Rules of issue 23, kept apart from the checker's element walk: one `classDef` per class per loader while it lives, array classes named as TPTP's importer can load them, and the close of a stopped trace (threads that end with frames still open).
//!
//! The checker calls these at a few points (each element, threadEnd with open frames,
//! classDef, classUnload, traceEnd) and turns what they return into violations.

use ahash::AHashMap as HashMap;

/// Loaders of which a JVM has exactly one instance: a class name defined twice by one
/// of them while the first is alive is one class defined twice. (Other loaders are
/// named by their class in `classDef@classLoader`, and two instances of one loader
/// class may each define a class of the same name.)
const SINGLE_LOADERS: [&str; 3] = [
    "bootstrap",
    "jdk.internal.loader.ClassLoaders$PlatformClassLoader",
    "jdk.internal.loader.ClassLoaders$AppClassLoader",
];

/// Elements a stopped trace writes after the threadEnds of its threads still running:
/// the last collection's gcFinish, the collector's threadEnd, then traceEnd.
const CLOSING: [&str; 3] = ["threadEnd", "gcFinish", "traceEnd"];

#[derive(Default)]
pub struct Integrity {
    /// (name, loader) of a live class of a single loader -> (classId, line of its classDef).
    live: HashMap<(String, String), (u64, u64)>,
    /// classId -> its key in `live`.
    keys: HashMap<u64, (String, String)>,
    /// threadEnds with open frames and no runtimeShutdown before them: (line, message).
    /// Accepted when nothing but the close follows (a stop: those calls were still
    /// running), violations otherwise.
    open_ends: Vec<(u64, String)>,
}

impl Integrity {
    /// A classDef: the violation message if the same class (name and single loader)
    /// is already defined and not unloaded.
    pub fn class_def(&mut self, id: u64, line: u64, name: &str, loader: &str) -> Option<String> {
        if let Some(key) = self.keys.remove(&id) {
            self.live.remove(&key);
        }
        if name.ends_with("[]") {
            // TPTP's importer makes a plain class of it, then fails to cast it to the
            // array class it looks up for an array allocation (element name + `[]`).
            return Some(format!(
                "classDef named {name}: array classes are named by their descriptor ([I, [Ljava.lang.String;), an allocation names the element class"
            ));
        }
        if !SINGLE_LOADERS.contains(&loader) {
            return None;
        }
        let key = (name.to_string(), loader.to_string());
        if let Some(&(first, first_line)) = self.live.get(&key) {
            return Some(format!(
                "class {name} of loader {loader} defined twice: classId {id} here, classId {first} at line {first_line}, neither unloaded"
            ));
        }
        self.live.insert(key.clone(), (id, line));
        self.keys.insert(id, key);
        None
    }

    /// A classUnload: the class may be defined again.
    pub fn class_unload(&mut self, id: u64) {
        if let Some(key) = self.keys.remove(&id) {
            self.live.remove(&key);
        }
    }

    /// A thread ended with open frames and no runtimeShutdown before it.
    pub fn open_at_end(&mut self, line: u64, message: String) {
        self.open_ends.push((line, message));
    }

    /// Every element, before it is checked: an element other than the close after a
    /// threadEnd with open frames makes that threadEnd a violation (returned).
    #[inline]
    pub fn element(&mut self, name: &str) -> Vec<(u64, String)> {
        if self.open_ends.is_empty() {
            // Nothing pending (every element but a stopped trace's close).
            return Vec::new();
        }
        if CLOSING.contains(&name) {
            if name == "traceEnd" {
                // A stopped trace: those frames were open at the stop.
                self.open_ends.clear();
            }
            return Vec::new();
        }
        std::mem::take(&mut self.open_ends)
    }

    /// The end of the document: what is still pending (no traceEnd came) is a violation.
    pub fn finish(&mut self) -> Vec<(u64, String)> {
        std::mem::take(&mut self.open_ends)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_class_def_per_single_loader() {
        let mut i = Integrity::default();
        assert!(i.class_def(1, 10, "A", "bootstrap").is_none());
        assert!(i.class_def(2, 11, "A", "bootstrap").is_some());
        i.class_unload(1);
        assert!(i.class_def(3, 12, "A", "bootstrap").is_none());
        // Two instances of one custom loader class may each define A.
        assert!(i.class_def(4, 13, "A", "my.Loader").is_none());
        assert!(i.class_def(5, 14, "A", "my.Loader").is_none());
        assert!(i.class_def(6, 15, "int[]", "bootstrap").is_some());
        assert!(i.class_def(7, 16, "[I", "bootstrap").is_none());
    }

    #[test]
    fn open_frames_accepted_only_at_the_close() {
        let mut i = Integrity::default();
        i.open_at_end(5, "open".into());
        assert!(i.element("threadEnd").is_empty());
        assert!(i.element("traceEnd").is_empty());
        assert!(i.finish().is_empty());
        i.open_at_end(7, "open".into());
        assert_eq!(i.element("methodEntry").len(), 1);
        i.open_at_end(8, "open".into());
        assert_eq!(i.finish().len(), 1);
    }
}
