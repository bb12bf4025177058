//! Trace ids (thread, class, method) to what the checker knows of them: a vector for the small ids agents hand out, counting up from 1, and a hash map for any other, so that a hostile id costs no memory.

/// Ids below this are held in the vector (an empty slot is 8 to 16 bytes).
const DENSE: u64 = 1 << 20;

/// A map keyed by a trace id, looked up several times per call: an index into a
/// vector (agents count ids up from 1) instead of a hash and a probe.
pub(crate) struct IdMap<V> {
    dense: Vec<Option<V>>,
    sparse: rustc_hash::FxHashMap<u64, V>,
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap {
            dense: Vec::new(),
            sparse: rustc_hash::FxHashMap::default(),
        }
    }
}

impl<V> IdMap<V> {
    #[inline]
    pub(crate) fn get(&self, id: &u64) -> Option<&V> {
        if *id < DENSE {
            self.dense.get(*id as usize).and_then(Option::as_ref)
        } else {
            self.sparse.get(id)
        }
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: &u64) -> Option<&mut V> {
        if *id < DENSE {
            self.dense.get_mut(*id as usize).and_then(Option::as_mut)
        } else {
            self.sparse.get_mut(id)
        }
    }

    pub(crate) fn contains_key(&self, id: &u64) -> bool {
        self.get(id).is_some()
    }

    /// Sets `id`'s value; the one it replaces, if any.
    pub(crate) fn insert(&mut self, id: u64, v: V) -> Option<V> {
        if id < DENSE {
            let i = id as usize;
            if self.dense.len() <= i {
                self.dense.resize_with(i + 1, || None);
            }
            self.dense[i].replace(v)
        } else {
            self.sparse.insert(id, v)
        }
    }

    pub(crate) fn remove(&mut self, id: &u64) -> Option<V> {
        if *id < DENSE {
            self.dense.get_mut(*id as usize).and_then(Option::take)
        } else {
            self.sparse.remove(id)
        }
    }

    /// Every id and its value.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, &V)> + '_ {
        let dense = self
            .dense
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_ref().map(|v| (i as u64, v)));
        dense.chain(self.sparse.iter().map(|(&id, v)| (id, v)))
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// Every id and its value, leaving the map empty.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (u64, V)> + '_ {
        let dense = self
            .dense
            .drain(..)
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i as u64, v)));
        dense.chain(self.sparse.drain())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_ids() {
        let mut m: IdMap<&str> = IdMap::default();
        assert_eq!(m.insert(3, "a"), None);
        assert_eq!(m.insert(u64::MAX, "b"), None);
        assert_eq!(m.insert(3, "c"), Some("a"));
        assert_eq!(
            (m.get(&3), m.get(&2), m.get(&1000)),
            (Some(&"c"), None, None)
        );
        assert!(m.contains_key(&u64::MAX) && !m.contains_key(&DENSE));
        if let Some(v) = m.get_mut(&u64::MAX) {
            *v = "d";
        }
        assert_eq!(m.remove(&3), Some("c"));
        assert_eq!(m.remove(&3), None);
        m.insert(DENSE - 1, "e");
        let mut seen: Vec<(u64, &str)> = m.iter().map(|(id, v)| (id, *v)).collect();
        seen.sort_unstable();
        assert_eq!(seen, [(DENSE - 1, "e"), (u64::MAX, "d")]);
        assert_eq!(m.values().count(), 2);
        let mut all: Vec<(u64, &str)> = m.drain().collect();
        all.sort_unstable();
        assert_eq!(all, [(DENSE - 1, "e"), (u64::MAX, "d")]);
        assert!(m.get(&(DENSE - 1)).is_none());
    }
}
