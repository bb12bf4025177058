//! The writer's side of seeking by time: each thread's call depth and ticket count through its chunks, by the renderer's stack rules on method ids alone, so that the index can say where a reader resumes (see [`super::index::Resume`]).
//!
//! The rules are the renderer's (`crate::render`): an entry of a defined method on a
//! defined thread opens a frame and takes a ticket; an exit or an exit by exception
//! closes the innermost frame of its method and every frame above it; a catch closes
//! the frames above the catching one; a record naming no open frame changes nothing;
//! a class unloaded (a `ClassUnload` record, in the VM's stream) takes its methods with
//! it, so that later entries of them open nothing.

use super::index::{End, Resume, PENDING};
use crate::defs::{Def, Msg};
use crate::idtable::IdTable;
use crate::record::{self, Reader, Rec};

/// "No line reported yet in this frame."
const NO_UNIT: u32 = u32::MAX;

/// One thread's walk.
#[derive(Default)]
struct Walk {
    /// Method ids of the open frames, innermost last, and each one's last unit.
    stack: Vec<(u32, u32)>,
    /// The exception thrown and not caught since, and the method it left last.
    exception: Option<(u64, u32)>,
    /// Tickets given so far.
    tickets: u64,
    /// A monitor wait or contended enter not ended yet.
    pending: bool,
}

/// Every thread's stack of method ids, fed every message the writer writes.
#[derive(Default)]
pub struct Depths {
    threads: IdTable<Walk>,
    /// Indexed by method id: defined (and not unloaded), and its executable units.
    methods: IdTable<u32>,
    /// Each class defined and not unloaded, with its methods defined since.
    classes: std::collections::HashMap<u32, Vec<u32>>,
}

impl Depths {
    /// Notes the threads and methods a message defines.
    pub fn note(&mut self, msg: &Msg) {
        let Msg::Defs(defs) = msg else { return };
        for d in defs {
            match d {
                Def::Thread(t) => {
                    self.threads.insert(t.tid, Walk::default());
                }
                Def::Class(c) => {
                    self.classes.insert(c.cid, Vec::new());
                }
                Def::Method(m) => {
                    self.methods.insert(m.mid, m.unit_lines.len() as u32);
                    if let Some(c) = self.classes.get_mut(&m.cid) {
                        c.push(m.mid);
                    }
                }
                _ => {}
            }
        }
    }

    /// Walks thread `tid`'s chunk `data`: where a reader resumes in it.
    pub fn chunk(&mut self, tid: u32, data: &[u8]) -> Resume {
        let Some(w) = self.threads.get_mut(tid) else {
            // The VM's stream, or a thread the renderer ignores: no frames.
            if tid == 0 {
                for rec in Reader::new(data) {
                    if let Rec::ClassUnload { cid, .. } = rec {
                        unload(&mut self.classes, &mut self.methods, cid);
                    }
                }
            }
            return Resume {
                end_state: Some(End::default()),
                ..Resume::default()
            };
        };
        let depth = w.stack.len() as u32;
        let mut r = Resume {
            depth,
            min: depth,
            end: depth,
            at: 0,
            tickets: w.tickets,
            at_tickets: w.tickets,
            flags: 0,
            end_state: None,
        };
        let mut pos = 0;
        while pos < data.len() {
            // Entries and returns, nearly every record: a tight run.
            while let Some(rec) = data.get(pos..pos + record::ENTRY_OR_EXIT_LEN) {
                let tag = rec[0];
                if tag != record::TAG_ENTRY && tag != record::TAG_EXIT {
                    break;
                }
                let mid = u32::from_le_bytes([rec[1], rec[2], rec[3], rec[4]]);
                pos += record::ENTRY_OR_EXIT_LEN;
                if tag == record::TAG_ENTRY {
                    if self.methods.contains(mid) {
                        w.stack.push((mid, NO_UNIT));
                        w.tickets += 1;
                    }
                    continue;
                }
                if w.stack.last().is_some_and(|f| f.0 == mid) {
                    w.stack.pop();
                } else if !close(&mut w.stack, mid, 0) {
                    continue;
                }
                if w.stack.len() as u32 <= r.min {
                    (r.min, r.at, r.at_tickets) = (w.stack.len() as u32, pos as u32, w.tickets);
                }
            }
            let mut rd = Reader::new(data.get(pos..).unwrap_or_default());
            let Some(rec) = rd.next() else { break };
            pos += rd.position();
            let before = w.stack.len();
            match rec {
                Rec::ExitExc { mid, obj, .. } if close(&mut w.stack, mid, 0) => {
                    w.exception = Some((obj, mid));
                }
                Rec::Catch { mid, .. } if close(&mut w.stack, mid, 1) => w.exception = None,
                Rec::MonWait { .. } | Rec::MonEnter { .. } => w.pending = true,
                Rec::MonWaited { .. } | Rec::MonEntered { .. } => w.pending = false,
                Rec::ClassUnload { cid, .. } => unload(&mut self.classes, &mut self.methods, cid),
                Rec::Line { mid, unit, .. } => {
                    r.flags |= super::index::LINES;
                    let units = self.methods.get(mid).copied();
                    if let Some(top) = w.stack.last_mut() {
                        if top.0 == mid && units.is_some_and(|n| unit < n) {
                            top.1 = unit;
                        }
                    }
                }
                _ => {}
            }
            let now = w.stack.len() as u32;
            if (now as usize) < before && now <= r.min {
                (r.min, r.at, r.at_tickets) = (now, pos as u32, w.tickets);
            }
        }
        r.end = w.stack.len() as u32;
        let unit = match r.min {
            0 => None,
            m => w.stack.get(m as usize - 1).map(|f| f.1),
        };
        r.end_state = Some(End {
            unit: unit.filter(|&u| u != NO_UNIT),
            exception: w.exception,
        });
        if w.pending {
            r.flags |= PENDING;
        }
        r
    }
}

/// Class `cid` is unloaded: its methods are no longer defined (as the renderer forgets
/// them).
fn unload(
    classes: &mut std::collections::HashMap<u32, Vec<u32>>,
    methods: &mut IdTable<u32>,
    cid: u32,
) {
    for mid in classes.remove(&cid).unwrap_or_default() {
        methods.remove(mid);
    }
}

/// Closes the innermost frame of `mid` and those above it, keeping `keep` of them (1:
/// the catching frame stays open); false if no frame is of `mid`.
fn close(stack: &mut Vec<(u32, u32)>, mid: u32, keep: usize) -> bool {
    match stack.iter().rposition(|f| f.0 == mid) {
        Some(i) => {
            stack.truncate(i + keep);
            true
        }
        None => false,
    }
}
