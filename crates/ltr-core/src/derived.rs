//! Values computed from a data set's contents alone, kept with the data set so that every fit
//! on it shares them: the tree learner's binned matrix is built once per training split, not
//! once per grid point or per tree algorithm.
//!
//! A value is found by its type and a key naming everything it depends on besides the data
//! (`"bins max_bins=255 min_data_in_bin=3"`). The cache never holds a lock while a value is
//! computed: a rayon worker waiting for a value another job on its own stack is computing
//! would deadlock. Two fits asking for the same missing value at once both compute it and the
//! first stored copy wins, which is harmless because a derived value depends on the data and
//! the key alone. Callers that want no duplicate work compute the value before entering
//! parallel code (the harness prepares each grid before fitting it).

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, PoisonError};

type Entry = ((TypeId, String), Arc<dyn Any + Send + Sync>);

/// The cache of one data set ([`crate::Dataset::derived`]). A clone of a data set starts with
/// an empty cache, so nothing computed for one value can leak into another.
#[derive(Default)]
pub struct Derived {
    entries: Mutex<Vec<Entry>>,
}

impl Derived {
    /// The value of type `T` stored under `key`, if any.
    pub fn get<T: Any + Send + Sync>(&self, key: &str) -> Option<Arc<T>> {
        find(&self.entries.lock().unwrap_or_else(PoisonError::into_inner), key)
    }

    /// The value of type `T` under `key`, computed by `make` and stored if it is not there yet.
    /// An error of `make` is returned and nothing is stored.
    pub fn get_or_try_insert<T, E>(&self, key: &str, make: impl FnOnce() -> Result<T, E>) -> Result<Arc<T>, E>
    where
        T: Any + Send + Sync,
    {
        if let Some(v) = self.get::<T>(key) {
            return Ok(v);
        }
        let made = Arc::new(make()?);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = find(&entries, key) {
            return Ok(v);
        }
        entries.push(((TypeId::of::<T>(), key.to_owned()), Arc::clone(&made) as Arc<dyn Any + Send + Sync>));
        Ok(made)
    }

    /// Number of stored values.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The value of type `T` under `key` among `entries`.
fn find<T: Any + Send + Sync>(entries: &[Entry], key: &str) -> Option<Arc<T>> {
    let id = TypeId::of::<T>();
    entries
        .iter()
        .find(|((t, k), _)| *t == id && k == key)
        .and_then(|(_, v)| Arc::clone(v).downcast::<T>().ok())
}

impl Clone for Derived {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// The cache is not part of a data set's value: two data sets are equal whatever their caches
/// hold.
impl PartialEq for Derived {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_list().entries(entries.iter().map(|((_, k), _)| k)).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_computed_once_per_type_and_key() {
        let d = Derived::default();
        let mut calls = 0;
        let mut make = |v: u32| {
            calls += 1;
            Ok::<_, ()>(v)
        };
        let a = d.get_or_try_insert("k", || make(1)).unwrap();
        let b = d.get_or_try_insert("k", || make(2)).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(*b, 1);
        // Another key, or another type under the same key, is another value.
        assert_eq!(*d.get_or_try_insert("j", || make(3)).unwrap(), 3);
        assert_eq!(*d.get_or_try_insert("k", || Ok::<_, ()>(7u64)).unwrap(), 7);
        assert_eq!(calls, 2);
        assert_eq!(d.len(), 3);
    }

    #[test]
    fn errors_store_nothing_and_clones_start_empty() {
        let d = Derived::default();
        assert_eq!(d.get_or_try_insert::<u32, _>("k", || Err("no")), Err("no"));
        assert!(d.is_empty());
        d.get_or_try_insert("k", || Ok::<_, ()>(1u8)).unwrap();
        assert!(d.clone().is_empty());
        assert_eq!(format!("{d:?}"), "[\"k\"]");
    }

    #[test]
    fn parallel_requests_agree() {
        let d = Derived::default();
        let got: Vec<Arc<u64>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8)
                .map(|_| s.spawn(|| d.get_or_try_insert("k", || Ok::<_, ()>(42u64)).unwrap()))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(got.iter().all(|v| Arc::ptr_eq(v, &got[0])));
        assert_eq!(d.len(), 1);
    }
}
