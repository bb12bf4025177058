//! A table keyed by the agent's ids (threads, classes, methods: dense counters from 1): a vector indexed by id while ids come densely and stay within a fixed budget, a map for the others, so a corrupt id in a definition never allocates in proportion to its value.

use std::collections::HashMap;

/// The most bytes the vector part may take. Ids whose slot would lie past it (a corrupt
/// file, or more threads than a JVM normally has alive in one trace) live in the map:
/// correct, just a hash lookup slower.
const DENSE_BYTES: usize = 64 << 20;

/// The vector grows to an id at most this far past twice its length: the agent's ids
/// are counters, so they come densely; an id far ahead of those seen (a number read from
/// a damaged file) goes to the map instead of growing the vector to it.
const DENSE_AHEAD: usize = 4096;

pub struct IdTable<T> {
    dense: Vec<Option<T>>,
    far: HashMap<u32, T>,
    /// No id in `far` is below this (`u32::MAX`: none known).
    far_min: u32,
}

impl<T> Default for IdTable<T> {
    fn default() -> Self {
        IdTable {
            dense: Vec::new(),
            far: HashMap::new(),
            far_min: u32::MAX,
        }
    }
}

impl<T> IdTable<T> {
    /// Ids below this index the vector.
    const DENSE_IDS: usize = DENSE_BYTES / std::mem::size_of::<Option<T>>();

    #[inline]
    pub fn get(&self, id: u32) -> Option<&T> {
        match self.dense.get(id as usize) {
            Some(slot) => slot.as_ref(),
            None if self.far.is_empty() => None,
            None => self.far.get(&id),
        }
    }

    #[inline]
    pub fn get_mut(&mut self, id: u32) -> Option<&mut T> {
        match self.dense.get_mut(id as usize) {
            Some(slot) => slot.as_mut(),
            None if self.far.is_empty() => None,
            None => self.far.get_mut(&id),
        }
    }

    pub fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }

    /// Sets `id`'s entry, returning the one it replaces.
    pub fn insert(&mut self, id: u32, value: T) -> Option<T> {
        let i = id as usize;
        let len = self.dense.len();
        if i >= len && i < Self::DENSE_IDS && i <= len.saturating_mul(2) + DENSE_AHEAD {
            self.dense.resize_with(i + 1, || None);
            // Ids kept in the map that the vector now covers move into it.
            if self.far_min as usize <= i {
                let covered: Vec<u32> = self
                    .far
                    .keys()
                    .copied()
                    .filter(|&k| (k as usize) <= i)
                    .collect();
                for k in covered {
                    self.dense[k as usize] = self.far.remove(&k);
                }
                self.far_min = self.far.keys().copied().min().unwrap_or(u32::MAX);
            }
        }
        match self.dense.get_mut(i) {
            Some(slot) => slot.replace(value),
            None => {
                self.far_min = self.far_min.min(id);
                self.far.insert(id, value)
            }
        }
    }

    pub fn remove(&mut self, id: u32) -> Option<T> {
        match self.dense.get_mut(id as usize) {
            Some(slot) => slot.take(),
            None => self.far.remove(&id),
        }
    }

    /// The entries in the order of their ids.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        let mut far: Vec<(u32, &T)> = self.far.iter().map(|(&id, v)| (id, v)).collect();
        far.sort_unstable_by_key(|&(id, _)| id);
        self.dense
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i as u32, s)))
            .chain(far)
    }

    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.iter().map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::IdTable;

    #[test]
    fn dense_and_far_ids_read_back_in_id_order() {
        let mut t: IdTable<u64> = IdTable::default();
        assert_eq!(t.insert(u32::MAX - 1, 1), None);
        assert_eq!(t.insert(3, 2), None);
        assert_eq!(t.insert(40_000_000, 3), None);
        assert_eq!(t.insert(3, 4), Some(2));
        assert_eq!(t.get(u32::MAX - 1), Some(&1));
        assert_eq!(t.get(2), None);
        assert!(t.contains(40_000_000));
        let all: Vec<(u32, u64)> = t.iter().map(|(i, &v)| (i, v)).collect();
        assert_eq!(all, [(3, 4), (40_000_000, 3), (u32::MAX - 1, 1)]);
        // The vector never grew past its budget for the far ids.
        assert!(t.dense.len() <= IdTable::<u64>::DENSE_IDS);
        assert_eq!(t.dense.len(), 4);
        assert_eq!(t.remove(u32::MAX - 1), Some(1));
        assert_eq!(t.get(u32::MAX - 1), None);
    }

    /// An id far ahead of those seen does not grow the vector to it (a damaged file's
    /// number costs a map entry, not megabytes); ids that then come densely up to it
    /// take it into the vector, and every entry reads back.
    #[test]
    fn a_far_id_grows_nothing_until_ids_reach_it() {
        let mut t: IdTable<u32> = IdTable::default();
        t.insert(1_000_000, 7);
        assert!(t.dense.len() < 10_000, "{}", t.dense.len());
        for id in (1..=1_000_001).filter(|&id| id != 1_000_000) {
            t.insert(id, id);
        }
        assert_eq!(t.dense.len(), 1_000_002);
        assert!(t.far.is_empty());
        assert_eq!(t.get(1_000_000), Some(&7));
        assert_eq!(t.get(999_999), Some(&999_999));
        assert_eq!(t.iter().count(), 1_000_001);
    }
}
