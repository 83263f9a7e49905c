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
