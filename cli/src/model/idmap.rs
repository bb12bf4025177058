//! Trace ids (decimal, counting up from 1) to dense indexes: a vector for the ids the
//! agent hands out, a hash map for anything sparser, so a hostile id costs no memory.

use std::collections::HashMap;

/// Ids below this are looked up in a vector (4 bytes per id up to the largest seen).
const DENSE: u64 = 1 << 24;
const NONE: u32 = u32::MAX;

#[derive(Default)]
pub struct IdMap {
    dense: Vec<u32>,
    sparse: HashMap<u64, u32>,
}

impl IdMap {
    #[inline]
    pub fn get(&self, id: u64) -> Option<u32> {
        if id < DENSE {
            match self.dense.get(id as usize) {
                Some(&ix) if ix != NONE => Some(ix),
                _ => None,
            }
        } else {
            self.sparse.get(&id).copied()
        }
    }

    pub fn insert(&mut self, id: u64, ix: u32) {
        if id < DENSE {
            let i = id as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, NONE);
            }
            self.dense[i] = ix;
        } else {
            self.sparse.insert(id, ix);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse() {
        let mut m = IdMap::default();
        m.insert(3, 7);
        m.insert(u64::MAX, 9);
        assert_eq!(m.get(3), Some(7));
        assert_eq!(m.get(2), None);
        assert_eq!(m.get(1000), None);
        assert_eq!(m.get(u64::MAX), Some(9));
    }
}

/// A hash map with a multiplicative hasher for small integer keys (the per-event maps;
/// SipHash would cost more than the rest of an event's work).
pub type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        // A product's high bits mix every bit of the key, its low bits only the key's
        // low bits; the table indexes by the low bits, so bring the high ones down
        // (keys that differ only above bit 32 would otherwise share a chain).
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
}

/// Recently found `u64` keys and their values in a direct-mapped table, kept in front of
/// a larger map: one multiplication, one load and one comparison find a key that came
/// lately (a method calls a few others in turn, again and again), where a map of millions
/// of entries mostly costs a cache miss. A slot holds the last key that fell in it; key
/// `u64::MAX` marks an empty slot and is never looked up. Until made with slots, every
/// lookup misses.
#[derive(Debug, Clone)]
pub struct Recent {
    slots: Vec<(u64, u32)>,
    /// 64 minus log2 of the slots: a key's slot is the top bits of its hash.
    shift: u32,
}

impl Default for Recent {
    /// No slots.
    fn default() -> Recent {
        Recent {
            slots: Vec::new(),
            shift: 63,
        }
    }
}

impl Recent {
    /// A table of `n` slots (a power of two).
    pub fn with_slots(n: usize) -> Recent {
        debug_assert!(n.is_power_of_two());
        Recent {
            slots: vec![(u64::MAX, NONE); n],
            shift: (64 - n.trailing_zeros()).min(63),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline(always)]
    pub fn get(&self, key: u64) -> Option<u32> {
        match self.slots.get(self.slot(key)) {
            Some(&(k, v)) if k == key => Some(v),
            _ => None,
        }
    }

    /// Keeps `key`'s value in its slot (none: the table has no slots).
    #[inline(always)]
    pub fn put(&mut self, key: u64, v: u32) {
        let i = self.slot(key);
        if let Some(s) = self.slots.get_mut(i) {
            *s = (key, v);
        }
    }
}
