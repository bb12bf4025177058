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
