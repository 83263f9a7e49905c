//! Typed indices and the arenas they index.

use std::marker::PhantomData;

/// An index type: a `u32` newtype that names one kind of entity.
pub trait EntityRef: Copy + Eq {
    /// The entity with index `i`.
    fn new(i: usize) -> Self;
    /// This entity's index.
    fn index(self) -> usize;
}

/// Declares an index type printed as `<prefix><n>`.
macro_rules! entity {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $crate::entity::EntityRef for $name {
            fn new(i: usize) -> Self {
                $name(u32::try_from(i).expect("fewer than 2^32 entities"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(self, f)
            }
        }
    };
}
pub(crate) use entity;

/// A vector indexed by an entity type; entities are never removed, so an
/// index stays valid for the life of the arena.
#[derive(Clone, PartialEq, Eq)]
pub struct Arena<K, V> {
    items: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> Default for Arena<K, V> {
    fn default() -> Self {
        Arena { items: Vec::new(), _key: PhantomData }
    }
}

impl<K: EntityRef, V> Arena<K, V> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// An arena holding `items`, the first with key 0.
    pub(crate) fn from_vec(items: Vec<V>) -> Self {
        Arena { items, _key: PhantomData }
    }

    /// The items, in key order.
    pub(crate) fn into_vec(self) -> Vec<V> {
        self.items
    }

    /// Adds `value`; returns its key.
    pub fn push(&mut self, value: V) -> K {
        let k = K::new(self.items.len());
        self.items.push(value);
        k
    }

    /// How many entities there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Every key, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator + use<K, V> {
        (0..self.items.len()).map(K::new)
    }

    /// Every (key, value), in order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// Every (key, value), in order, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        self.items.iter_mut().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// Whether `k` is a key of this arena.
    pub fn contains(&self, k: K) -> bool {
        k.index() < self.items.len()
    }

    /// The value of `k`, if `k` is a key of this arena.
    pub fn get(&self, k: K) -> Option<&V> {
        self.items.get(k.index())
    }
}

impl<K: EntityRef, V> std::ops::Index<K> for Arena<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.items[k.index()]
    }
}

impl<K: EntityRef, V> std::ops::IndexMut<K> for Arena<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.items[k.index()]
    }
}

impl<K: EntityRef + std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for Arena<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A map from the entities of an arena to values, stored densely: a
/// lookup is an index, not a hash. Meant for per-value and per-instruction
/// facts that most entities have; iteration is in key order.
#[derive(Clone)]
pub struct SecondaryMap<K, V> {
    items: Vec<Option<V>>,
    len: usize,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        SecondaryMap { items: Vec::new(), len: 0, _key: PhantomData }
    }
}

impl<K: EntityRef, V> SecondaryMap<K, V> {
    /// An empty map with room for keys below `n`.
    pub fn with_capacity(n: usize) -> Self {
        SecondaryMap { items: Vec::with_capacity(n), len: 0, _key: PhantomData }
    }

    /// The value of `k`, if it has one.
    pub fn get(&self, k: &K) -> Option<&V> {
        self.items.get(k.index()).and_then(Option::as_ref)
    }

    /// The value of `k` mutably, if it has one.
    pub fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        self.items.get_mut(k.index()).and_then(Option::as_mut)
    }

    /// Whether `k` has a value.
    pub fn contains_key(&self, k: &K) -> bool {
        self.get(k).is_some()
    }

    /// Sets the value of `k`; returns the one it replaces.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        let i = k.index();
        if i >= self.items.len() {
            self.items.resize_with(i + 1, || None);
        }
        let old = self.items[i].replace(v);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// The value of `k`, first set to `make()` if it has none.
    pub fn get_or_insert_with(&mut self, k: K, make: impl FnOnce() -> V) -> &mut V {
        let i = k.index();
        if i >= self.items.len() {
            self.items.resize_with(i + 1, || None);
        }
        let slot = &mut self.items[i];
        if slot.is_none() {
            self.len += 1;
        }
        slot.get_or_insert_with(make)
    }

    /// Takes the value of `k` out of the map.
    pub fn remove(&mut self, k: &K) -> Option<V> {
        let old = self.items.get_mut(k.index()).and_then(Option::take);
        if old.is_some() {
            self.len -= 1;
        }
        old
    }

    /// The value of `k`, first set to the default if it has none.
    pub fn get_or_default(&mut self, k: K) -> &mut V
    where
        V: Default,
    {
        self.get_or_insert_with(k, V::default)
    }

    /// Every value, mutably, in key order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.items.iter_mut().flatten()
    }

    /// How many keys have a value.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key has a value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every (key, value), in key order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.items.iter().enumerate().filter_map(|(i, v)| v.as_ref().map(|v| (K::new(i), v)))
    }

    /// Every key with a value, in order.
    pub fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.iter().map(|(k, _)| k)
    }
}

type IntoEntries<K, V> =
    std::iter::FilterMap<std::iter::Enumerate<std::vec::IntoIter<Option<V>>>, fn((usize, Option<V>)) -> Option<(K, V)>>;

/// Every (key, value), in key order.
impl<K: EntityRef, V> IntoIterator for SecondaryMap<K, V> {
    type Item = (K, V);
    type IntoIter = IntoEntries<K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter().enumerate().filter_map(|(i, v)| v.map(|v| (K::new(i), v)))
    }
}

impl<K: EntityRef, V> std::ops::Index<&K> for SecondaryMap<K, V> {
    type Output = V;
    /// Panics when `k` has no value, like a map's index.
    fn index(&self, k: &K) -> &V {
        self.get(k).expect("key without a value")
    }
}

impl<K: EntityRef + std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for SecondaryMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::Value;

    #[test]
    fn secondary_map_behaves_like_a_map_in_key_order() {
        let mut m: SecondaryMap<Value, &str> = SecondaryMap::default();
        assert!(m.is_empty());
        assert_eq!(m.insert(Value::new(5), "five"), None);
        assert_eq!(m.insert(Value::new(1), "one"), None);
        assert_eq!(m.insert(Value::new(5), "FIVE"), Some("five"));
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(&Value::new(3)), None);
        assert_eq!(m[&Value::new(5)], "FIVE");
        *m.get_or_insert_with(Value::new(9), || "nine") = "NINE";
        assert_eq!(m.keys().map(|k| k.index()).collect::<Vec<_>>(), [1, 5, 9]);
        assert_eq!(m.remove(&Value::new(1)), Some("one"));
        assert_eq!(m.remove(&Value::new(1)), None);
        assert_eq!(m.len(), 2);
        assert_eq!(m.into_iter().map(|(k, v)| (k.index(), v)).collect::<Vec<_>>(), [(5, "FIVE"), (9, "NINE")]);
    }
}
