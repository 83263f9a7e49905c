//! A fixed-size set of entities (values, blocks, ...) as a bit vector: a
//! typed view of `fixedbitset::FixedBitSet`, the bit set petgraph uses, so
//! that members are the IR's typed indices rather than bare integers.

use crate::entity::EntityRef;
use fixedbitset::FixedBitSet;
use std::marker::PhantomData;

/// A fixed-size set of entities (values, blocks, ...) as a bit vector.
#[derive(PartialEq, Eq)]
pub struct BitSet<K> {
    bits: FixedBitSet,
    _key: PhantomData<K>,
}

impl<K> Clone for BitSet<K> {
    fn clone(&self) -> Self {
        BitSet { bits: self.bits.clone(), _key: PhantomData }
    }

    fn clone_from(&mut self, other: &Self) {
        self.bits.clone_from(&other.bits);
    }
}

impl<K: EntityRef> BitSet<K> {
    /// An empty set that can hold keys `0..len`.
    pub fn new(len: usize) -> Self {
        BitSet { bits: FixedBitSet::with_capacity(len), _key: PhantomData }
    }

    /// The capacity: keys `0..capacity()` can be members.
    pub fn capacity(&self) -> usize {
        self.bits.len()
    }

    /// Adds `k`; returns whether it was new. Keys beyond the capacity are
    /// ignored.
    pub fn insert(&mut self, k: K) -> bool {
        let i = k.index();
        i < self.bits.len() && !self.bits.put(i)
    }

    /// Removes `k`; returns whether it was a member.
    pub fn remove(&mut self, k: K) -> bool {
        let i = k.index();
        let was = self.bits.contains(i);
        if was {
            self.bits.set(i, false);
        }
        was
    }

    /// Whether `k` is a member.
    pub fn contains(&self, k: K) -> bool {
        self.bits.contains(k.index())
    }

    /// Adds every member of `other` (of the same capacity); returns whether
    /// `self` changed.
    pub fn union_with(&mut self, other: &Self) -> bool {
        let changed = !other.bits.is_subset(&self.bits);
        self.bits.union_with(&other.bits);
        changed
    }

    /// Removes every member of `other`.
    pub fn subtract(&mut self, other: &Self) {
        self.bits.difference_with(&other.bits);
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.bits.clear();
    }

    /// The number of members.
    pub fn count(&self) -> usize {
        self.bits.count_ones(..)
    }

    /// Whether there are no members.
    pub fn is_empty(&self) -> bool {
        self.bits.is_clear()
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.bits.ones().map(K::new)
    }
}

impl<K: EntityRef + std::fmt::Debug> std::fmt::Debug for BitSet<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::Value;

    #[test]
    fn bitset_operations() {
        let mut s: BitSet<Value> = BitSet::new(130);
        assert!(s.is_empty());
        assert!(s.insert(Value::new(0)));
        assert!(s.insert(Value::new(64)));
        assert!(s.insert(Value::new(129)));
        assert!(!s.insert(Value::new(129)));
        assert!(!s.insert(Value::new(130)));
        assert_eq!(s.count(), 3);
        assert!(s.contains(Value::new(64)));
        assert!(!s.contains(Value::new(1000)));
        assert!(s.remove(Value::new(64)));
        assert!(!s.remove(Value::new(64)));
        let mut o = BitSet::new(130);
        o.insert(Value::new(5));
        assert!(s.union_with(&o));
        assert!(!s.union_with(&o));
        assert_eq!(s.iter().map(|v| v.index()).collect::<Vec<_>>(), vec![0, 5, 129]);
        s.subtract(&o);
        assert_eq!(format!("{s:?}"), "{v0, v129}");
        s.clear();
        assert!(s.is_empty());
    }
}
