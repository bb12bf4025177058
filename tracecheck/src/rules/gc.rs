//! Garbage collection: gcStart/gcFinish brackets and the events inside them (objFree, objMove, classUnload).

use crate::attrs::Attrs;
use crate::model::State;
use crate::violation::Rule;

impl State {
    /// gcStart/gcFinish: brackets do not nest, a gcFinish closes one, heap figures agree.
    pub(crate) fn gc_bracket(&mut self, line: u64, name: &str, attrs: &Attrs) {
        match name {
            "gcStart" => {
                if let Some(l) = self.gc_open {
                    self.err(
                        line,
                        Rule::Gc,
                        format!("<gcStart> while the gcStart at line {l} has no gcFinish"),
                    );
                }
                self.gc_open = Some(line);
            }
            "gcFinish" => {
                let started = self.gc_open.take();
                if started.is_none() {
                    self.err(line, Rule::Gc, "<gcFinish> without <gcStart>".to_string());
                }
                let total = self.opt_u64(line, name, attrs, "totalObjectSpace");
                let used = self.opt_u64(line, name, attrs, "usedObjectSpace");
                if let (Some(total), Some(used)) = (total, used) {
                    if used > total {
                        self.err(
                            line,
                            Rule::Gc,
                            format!("<gcFinish> usedObjectSpace=\"{used}\" exceeds totalObjectSpace=\"{total}\""),
                        );
                    }
                }
                self.opt_u64(line, name, attrs, "usedObjects");
            }
            _ => {}
        }
    }

    pub(crate) fn gc_event(&mut self, line: u64, name: &str, attrs: &Attrs, object: Option<i64>) {
        if self.gc_open.is_none() {
            self.err(
                line,
                Rule::Gc,
                format!("<{name}> outside a gcStart/gcFinish pair"),
            );
        }
        match name {
            "objFree" => {
                if let Some(id) = object {
                    self.objects.remove(&id);
                    self.thrown_objects.remove(&id);
                }
            }
            "objMove" => {
                let class = object.and_then(|id| {
                    self.thrown_objects.remove(&id);
                    self.objects.remove(&id)
                });
                if let Some(new) = self.req_u64(line, name, attrs, "newObjId") {
                    let new = i64::try_from(new).unwrap_or(i64::MAX);
                    if self.objects.insert(new, class.unwrap_or(0)).is_some() {
                        self.err(
                            line,
                            Rule::Ids,
                            format!("<objMove> newObjId=\"{new}\" is already a live object"),
                        );
                    }
                }
            }
            _ => {
                let Some(id) = self.opt_u64(line, name, attrs, "classIdRef") else {
                    return;
                };
                if let Some(c) = self.classes.get_mut(&id) {
                    if c.live {
                        self.summary.unloaded.push(c.name.clone());
                    }
                    c.live = false;
                    for m in c.methods.clone() {
                        if let Some(m) = self.methods.get_mut(&m) {
                            m.live = false;
                        }
                    }
                }
            }
        }
    }
}
