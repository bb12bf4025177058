//! Id allocation (threads, classes, methods, objects count up from 1, never reused) and the lock-free jmethodID → method id table used by JVMTI-mode callbacks.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

static NEXT_THREAD: AtomicU32 = AtomicU32::new(1);
static NEXT_CLASS: AtomicU32 = AtomicU32::new(1);
static NEXT_METHOD: AtomicU32 = AtomicU32::new(1);
static NEXT_OBJECT: AtomicU64 = AtomicU64::new(1);

pub fn next_thread() -> u32 {
    NEXT_THREAD.fetch_add(1, Ordering::Relaxed)
}

pub fn next_class() -> u32 {
    NEXT_CLASS.fetch_add(1, Ordering::Relaxed)
}

/// Reserves `n` consecutive method ids and returns the first.
pub fn next_methods(n: u32) -> u32 {
    NEXT_METHOD.fetch_add(n, Ordering::Relaxed)
}

/// A new object id (the tag `events::objects` gives an object it names).
pub fn next_object() -> u64 {
    NEXT_OBJECT.fetch_add(1, Ordering::Relaxed)
}

/// The object id the next `next_object` will give: a trace beginning now defines
/// objects with smaller ids again when it first names them.
pub fn objects_so_far() -> u64 {
    NEXT_OBJECT.load(Ordering::SeqCst)
}

/// Insert-only open-addressing map from a non-zero pointer-sized key to a u32 value.
///
/// Reads are wait-free (two atomic loads per probe); inserts are lock-free (CAS on the
/// key). A value of 0 means "not traced", so removal is a store of 0. When the table
/// is half full further inserts fail and the caller reports the methods as untraced.
pub struct IdTable {
    keys: Box<[AtomicUsize]>,
    values: Box<[AtomicU32]>,
    mask: usize,
    len: AtomicUsize,
}

impl IdTable {
    pub fn with_capacity_pow2(bits: u32) -> Self {
        let n = 1usize << bits;
        IdTable {
            keys: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            values: (0..n).map(|_| AtomicU32::new(0)).collect(),
            mask: n - 1,
            len: AtomicUsize::new(0),
        }
    }

    #[inline]
    fn slot(&self, key: usize) -> usize {
        // Fibonacci hashing: jmethodIDs are aligned pointers, so mix the high bits in.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16) & self.mask
    }

    /// The value for `key`, or 0.
    #[inline]
    pub fn get(&self, key: usize) -> u32 {
        if key == 0 {
            return 0;
        }
        let mut i = self.slot(key);
        loop {
            let k = self.keys[i].load(Ordering::Acquire);
            if k == key {
                return self.values[i].load(Ordering::Acquire);
            }
            if k == 0 {
                return 0;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Sets the value for `key`; false if the table is full.
    pub fn insert(&self, key: usize, value: u32) -> bool {
        if key == 0 {
            return false;
        }
        let mut i = self.slot(key);
        loop {
            match self.keys[i].compare_exchange(0, key, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    if self.len.fetch_add(1, Ordering::Relaxed) > self.mask / 2 {
                        // Keep the key (removing it would break probe chains) but
                        // leave it untraced.
                        return false;
                    }
                    self.values[i].store(value, Ordering::Release);
                    return true;
                }
                Err(k) if k == key => {
                    self.values[i].store(value, Ordering::Release);
                    return true;
                }
                Err(_) => i = (i + 1) & self.mask,
            }
        }
    }

    /// Marks `key` as no longer traced.
    pub fn remove(&self, key: usize) {
        self.insert(key, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_remove() {
        let t = IdTable::with_capacity_pow2(4);
        assert!(t.insert(0x1000, 7));
        assert!(t.insert(0x2000, 8));
        assert_eq!(t.get(0x1000), 7);
        assert_eq!(t.get(0x2000), 8);
        assert_eq!(t.get(0x3000), 0);
        t.remove(0x1000);
        assert_eq!(t.get(0x1000), 0);
        assert_eq!(t.get(0x2000), 8);
    }

    #[test]
    fn fills_up_without_looping_forever() {
        let t = IdTable::with_capacity_pow2(3);
        let ok = (1..=8usize).filter(|k| t.insert(k * 8, *k as u32)).count();
        assert!((4..8).contains(&ok));
        for k in 1..=8usize {
            let v = t.get(k * 8);
            assert!(v == 0 || v == k as u32);
        }
    }
}
