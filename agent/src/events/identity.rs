//! Class identity: which ids a class has, from its load hook to its unloading. A class is the JVM's class (its loader and name), never its name alone.
//!
//! The owner of a traced class's facts, from load to unload: its tables are touched only
//! at load, prepare, retransformation and unload, never on a call, and [`unload`] forgets
//! all of them at once:
//!
//! * **Pending**: a traced class between its load hook and its prepare event. The load
//!   hook has no class object yet, only the defining loader and the name, so the entry
//!   keeps a weak reference to the loader (none for the boot loader) and the prepare
//!   event, which has the class, takes the entry whose loader is the class's own
//!   (`IsSameObject`). Two loaders defining the same name, and a loader that loads a
//!   class without linking it while another links its own, therefore never swap ids.
//!   A class that is loaded and never linked leaves an entry; once its loader is
//!   collected the weak reference clears and the entry is purged (amortised, when the
//!   table has doubled since the last purge), so loader churn keeps memory flat.
//! * **Live**: a traced class that is prepared and not unloaded, keyed by its class
//!   id, which its mirror carries as a JVMTI tag. A retransformation or redefinition
//!   (jtrace's own attach, another agent, a debugger) finds the class's ids through the
//!   tag, so the class keeps its class and method ids and nothing is defined twice.
//!   Methods are matched by name and descriptor, not by position (a rewriter may
//!   reorder them). The entry also keeps the jmethodIDs mapped to the class's methods
//!   in the agent's method table (mode=jvmti, allocation sites), which [`unload`] hands
//!   back to be removed there. The entry goes when the class's mirror is freed (class
//!   unload).
//! * **Units**: the start pcs of each traced method's executable units (mode=jvmti,
//!   lines=on), by method id, for the single-step path ([`unit_at`]).

use crate::classfile::ClassInfo;
use crate::jvmti::Jni;
use crate::sys::jni::jobject;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

/// What the load hook learnt of a traced class, waiting for its prepare event.
pub struct Pending {
    /// Weak global reference to the defining loader; null for the boot loader.
    loader: usize,
    pub info: ClassInfo,
    pub cid: u32,
    /// Method id of the first method in class-file order (ids are consecutive).
    pub first_mid: u32,
    /// Whether the class was rewritten with probes (bci mode).
    pub instrumented: bool,
    /// Line tables and allocating-instruction pcs of the code the JVM will run, per
    /// method (allocation sites need them; after rewriting they differ from the
    /// original ones). Empty if unused.
    pub run_lines: Vec<Vec<(u16, u16)>>,
    pub run_alloc_sites: Vec<Vec<u32>>,
}

struct PendingTable {
    by_name: HashMap<String, Vec<Pending>>,
    len: usize,
    purge_at: usize,
}

const FIRST_PURGE: usize = 1024;

static PENDING: Mutex<Option<PendingTable>> = Mutex::new(None);

/// Whether `weak` (a pending entry's loader) names `loader` (a live reference; null
/// for the boot loader). A cleared weak reference names no loader, not the boot one.
fn same_loader(jni: Jni, weak: usize, loader: jobject) -> bool {
    match (weak == 0, loader.is_null()) {
        (true, true) => true,
        (false, false) => jni.same_object(weak as jobject, loader),
        _ => false,
    }
}

/// The ids already given to `name` in `loader` by a load hook whose class is not yet
/// prepared. A parallel-capable loader may run the hook twice for one class (two
/// threads racing to define it; the JVM keeps one definition): both attempts then
/// get the same ids, so whichever class the JVM keeps matches its definitions.
pub fn pending_ids(jni: Jni, name: &str, loader: jobject) -> Option<(u32, u32)> {
    let table = PENDING.lock().ok()?;
    let list = table.as_ref()?.by_name.get(name)?;
    list.iter()
        .find(|p| same_loader(jni, p.loader, loader))
        .map(|p| (p.cid, p.first_mid))
}

/// Files a traced class under its name and loader until its prepare event. Purges the
/// entries of collected loaders whenever the table has doubled, and returns the class
/// ids of those (loaded, never linked, now unloaded with their loader).
pub fn add_pending(jni: Jni, name: &str, loader: jobject, mut p: Pending) -> Vec<u32> {
    p.loader = jni.new_weak(loader) as usize;
    let mut purged = Vec::new();
    let Ok(mut table) = PENDING.lock() else {
        return purged;
    };
    let table = table.get_or_insert_with(|| PendingTable {
        by_name: HashMap::new(),
        len: 0,
        purge_at: FIRST_PURGE,
    });
    table.by_name.entry(name.to_string()).or_default().push(p);
    table.len += 1;
    if table.len >= table.purge_at {
        table.by_name.retain(|_, list| {
            list.retain(|p| {
                let dead =
                    p.loader != 0 && jni.same_object(p.loader as jobject, std::ptr::null_mut());
                if dead {
                    jni.delete_weak(p.loader as jobject);
                    purged.push(p.cid);
                }
                !dead
            });
            !list.is_empty()
        });
        table.len = table.by_name.values().map(Vec::len).sum();
        table.purge_at = (2 * table.len).max(FIRST_PURGE);
    }
    purged
}

/// Takes the pending entry of `name` defined by `loader` (null: the boot loader).
pub fn take_pending(jni: Jni, name: &str, loader: jobject) -> Option<Pending> {
    let mut table = PENDING.lock().ok()?;
    let table = table.as_mut()?;
    let list = table.by_name.get_mut(name)?;
    let i = list
        .iter()
        .position(|p| same_loader(jni, p.loader, loader))?;
    let p = list.remove(i);
    if list.is_empty() {
        table.by_name.remove(name);
    }
    table.len -= 1;
    jni.delete_weak(p.loader as jobject);
    Some(p)
}

impl Pending {
    pub fn new(info: ClassInfo, cid: u32, first_mid: u32) -> Pending {
        Pending {
            loader: 0,
            info,
            cid,
            first_mid,
            instrumented: false,
            run_lines: Vec::new(),
            run_alloc_sites: Vec::new(),
        }
    }
}

/// A prepared, not yet unloaded traced class.
struct Live {
    first_mid: u32,
    /// `method_key` of each method, in the class-file order its ids were given in.
    methods: Box<[u64]>,
    /// The jmethodIDs of its methods in the agent's method table.
    jmethods: Vec<usize>,
}

static LIVE: Mutex<Option<HashMap<u32, Live>>> = Mutex::new(None);

/// A method's identity within its class: its name and descriptor.
pub fn method_key(name: &str, descriptor: &str) -> u64 {
    let mut h = DefaultHasher::new();
    (name, descriptor).hash(&mut h);
    h.finish()
}

/// Remembers a traced class's method ids for the rest of its life.
pub fn add_live(cid: u32, first_mid: u32, info: &ClassInfo) {
    let methods = info
        .methods
        .iter()
        .map(|m| method_key(&m.name, &m.descriptor))
        .collect();
    if let Ok(mut live) = LIVE.lock() {
        live.get_or_insert_with(HashMap::new).insert(
            cid,
            Live {
                first_mid,
                methods,
                jmethods: Vec::new(),
            },
        );
    }
}

/// The jmethodIDs of the live class `cid`'s methods that were put in the agent's method
/// table (taken out of it when the class unloads).
pub fn set_jmethods(cid: u32, jmethods: Vec<usize>) {
    if let Some(l) = LIVE
        .lock()
        .ok()
        .as_mut()
        .and_then(|l| l.as_mut()?.get_mut(&cid))
    {
        l.jmethods = jmethods;
    }
}

/// Start pcs of each traced method's executable units (mode=jvmti, lines=on).
static UNITS: std::sync::RwLock<Option<HashMap<u32, Box<[u32]>>>> = std::sync::RwLock::new(None);

/// The executable unit starting at bytecode index `pc` of method `mid`, if any.
pub fn unit_at(mid: u32, pc: u32) -> Option<u32> {
    let map = UNITS.read().ok()?;
    let pcs = map.as_ref()?.get(&mid)?;
    pcs.binary_search(&pc).ok().map(|u| u as u32)
}

/// Remembers the units of each traceable method of a class whose first method id is
/// `first_mid`.
pub fn set_units(first_mid: u32, info: &ClassInfo) {
    if let Ok(mut map) = UNITS.write() {
        let map = map.get_or_insert_with(HashMap::new);
        for (i, m) in info.methods.iter().enumerate() {
            if crate::classfile::traceable(m) {
                let pcs: Box<[u32]> = m.units.iter().map(|&(pc, _)| pc).collect();
                map.insert(first_mid + i as u32, pcs);
            }
        }
    }
}

/// The method id of each method of `info` (new bytes of the live class `cid`), matched
/// by name and descriptor; None if `cid` is not a live traced class.
pub fn live_method_ids(cid: u32, info: &ClassInfo) -> Option<Vec<Option<u32>>> {
    let live = LIVE.lock().ok()?;
    let l = live.as_ref()?.get(&cid)?;
    Some(
        info.methods
            .iter()
            .map(|m| {
                let k = method_key(&m.name, &m.descriptor);
                l.methods
                    .iter()
                    .position(|&x| x == k)
                    .map(|j| l.first_mid + j as u32)
            })
            .collect(),
    )
}

/// What an unloaded class leaves for others to forget.
#[derive(Debug, PartialEq, Eq)]
pub struct Unloaded {
    /// Its method ids.
    pub mids: std::ops::Range<u32>,
    /// Its jmethodIDs in the agent's method table.
    pub jmethods: Vec<usize>,
}

/// The class `cid` is unloaded: every fact of it kept here is forgotten (its entry and
/// its methods' units); None if it was not a live traced class.
pub fn unload(cid: u32) -> Option<Unloaded> {
    let l = LIVE.lock().ok()?.as_mut()?.remove(&cid)?;
    let mids = l.first_mid..l.first_mid + l.methods.len() as u32;
    if let Ok(mut units) = UNITS.write() {
        if let Some(units) = units.as_mut() {
            for m in mids.clone() {
                units.remove(&m);
            }
        }
    }
    Some(Unloaded {
        mids,
        jmethods: l.jmethods,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classfile::{parse_info, tracker_class};

    #[test]
    fn redefinition_keeps_ids_by_name_and_descriptor() {
        let info = parse_info(&tracker_class("p/Live", 52)).unwrap();
        let n = info.methods.len() as u32;
        add_live(7_000_001, 500, &info);
        let same = live_method_ids(7_000_001, &info).unwrap();
        assert_eq!(same, (500..500 + n).map(Some).collect::<Vec<_>>());
        // A rewriter that reorders methods: each keeps its own id.
        let mut reordered = info.clone();
        reordered.methods.reverse();
        let ids = live_method_ids(7_000_001, &reordered).unwrap();
        assert_eq!(ids, (500..500 + n).rev().map(Some).collect::<Vec<_>>());
        // A method the class never had is not traced under someone else's id.
        reordered.methods[0].name = "added".to_string();
        assert_eq!(live_method_ids(7_000_001, &reordered).unwrap()[0], None);
        // Unloaded: forgotten, with its id range and its jmethodIDs, units and all.
        set_jmethods(7_000_001, vec![11, 12]);
        set_units(500, &info);
        let unloaded = unload(7_000_001).unwrap();
        assert_eq!(unloaded.mids, 500..500 + n);
        assert_eq!(unloaded.jmethods, [11, 12]);
        assert!(live_method_ids(7_000_001, &info).is_none());
        let units = UNITS.read().unwrap();
        assert!((500..500 + n).all(|m| !units.as_ref().unwrap().contains_key(&m)));
        drop(units);
        assert_eq!(unload(7_000_001), None);
    }
}
