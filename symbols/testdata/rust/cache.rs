//! A fixture for Rust symbol extraction.

use std::collections::HashMap;
use std::fmt;

/// Default number of entries.
pub const DEFAULT_CAPACITY: usize = 128;
static HITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A bounded cache.
///
/// Evicts the oldest entry when full.
#[derive(Debug, Clone)]
#[allow(dead_code)]
pub struct Cache<K, V> {
    map: HashMap<K, V>,
    capacity: usize,
}

impl<K: std::hash::Hash + Eq, V> Cache<K, V> {
    /// Creates an empty cache.
    pub fn new(capacity: usize) -> Self {
        Cache { map: HashMap::new(), capacity }
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    fn evict(&mut self) {}

    pub const LIMIT: usize = 1 << 16;
}

impl<K, V> fmt::Display for Cache<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cache({})", self.capacity)
    }
}

/// Things that can be cached.
pub trait Cacheable {
    /// The key type.
    type Key;

    fn key(&self) -> Self::Key;

    fn weight(&self) -> usize {
        1
    }
}

/// Outcome of a lookup.
pub enum Lookup<V> {
    Hit(V),
    Miss,
}

pub type Shared<V> = std::sync::Arc<Cache<String, V>>;

union Bits {
    i: u32,
    f: f32,
}

/// Builds a key.
#[macro_export]
macro_rules! key {
    ($($part:expr),*) => { vec![$($part.to_string()),*].join(":") };
}

pub mod stats {
    /// Hit ratio.
    pub fn ratio(hits: u64, total: u64) -> f64 {
        fn guard(t: u64) -> u64 { t.max(1) }
        hits as f64 / guard(total) as f64
    }

    fn private_helper() {}
}

pub fn lookup<'a, K, V>(cache: &'a Cache<K, V>, key: &K) -> Option<&'a V>
where
    K: std::hash::Hash + Eq,
{
    const LOCAL: u8 = 0;
    cache.map.get(key)
}

extern "C" {
    fn abort_cache();
}
