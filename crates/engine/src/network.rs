//! The learned network, found, loaded and shared within a process.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use game_core::Board;
use ntuple::{FileError, Network};
use solver_expectimax::Evaluator;

/// The networks loaded in this process (see [`Cache`]).
static LOADED: Mutex<Cache<Network>> = Mutex::new(Cache::new());

/// How many of the networks used last the cache holds when nothing else
/// does: a frontend builds a solver per game (a tournament, a Ray worker)
/// and `compare` builds its two players' by turns, and a network dropped
/// between games would be read again, a second each time.
const HELD: usize = 2;

/// Loaded values by path: the [`HELD`] used last are held here, any other
/// only while something else holds it (a solver), so that a process that
/// loads file after file (a Python loop over checkpoints, each hundreds of
/// megabytes) keeps at most [`HELD`] of them besides those it still uses.
struct Cache<T> {
    /// Every value handed out and perhaps still alive, by path.
    seen: Vec<(PathBuf, Weak<T>)>,
    /// The values used last, the most recent last.
    held: Vec<Arc<T>>,
}

impl<T> Cache<T> {
    const fn new() -> Cache<T> {
        Cache { seen: Vec::new(), held: Vec::new() }
    }

    /// The value for `path`: the one still alive, else `load`'s.
    fn get<E>(&mut self, path: &Path, load: impl FnOnce() -> Result<T, E>) -> Result<Arc<T>, E> {
        self.seen.retain(|(_, v)| v.strong_count() > 0);
        let found = self.seen.iter().find(|(p, _)| p == path).and_then(|(_, v)| v.upgrade());
        let value = match found {
            Some(value) => value,
            None => {
                let value = Arc::new(load()?);
                self.seen.push((path.to_owned(), Arc::downgrade(&value)));
                value
            }
        };
        self.held.retain(|v| !Arc::ptr_eq(v, &value));
        self.held.push(Arc::clone(&value));
        if self.held.len() > HELD {
            self.held.remove(0);
        }
        Ok(value)
    }
}

/// The weights file a learned search loads: `given`, else the shipped one
/// where [`ntuple::find_shipped_weights`] finds it, else where the checkout
/// keeps it (so that a message can name it).
pub fn weights_path(given: Option<&Path>) -> PathBuf {
    given.map_or_else(
        || ntuple::find_shipped_weights().unwrap_or_else(|_| ntuple::SHIPPED_WEIGHTS.into()),
        Path::to_path_buf,
    )
}

/// The network in the weights file at `path` (default: the shipped file,
/// wherever [`ntuple::find_shipped_weights`] finds it), shared: every
/// solver, game and session uses the same copy while any holds it, since a
/// network is hundreds of megabytes, and the two used last stay loaded.
///
/// # Errors
/// As [`ntuple::load_weights`]; without `path`, also when no shipped file
/// is found.
pub fn network(path: Option<&Path>) -> Result<Arc<Network>, FileError> {
    let path = match path {
        Some(p) => p.to_owned(),
        None => ntuple::find_shipped_weights()?,
    };
    // One key per file, however it was named (the shipped file found here
    // and the same file given by its path are one network, not two).
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    // A panic while loading leaves the cache as it was: still usable.
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    loaded.get(&path, || ntuple::load_weights(&path).map(|w| w.network))
}

/// A network as the search's evaluator of afterstates. The two meet here,
/// in the front door, so that each stands on the rules alone: ntuple knows
/// no search, and the solver takes any evaluator.
pub(crate) struct NetworkEvaluator(pub(crate) Arc<Network>);

impl Evaluator<Board> for NetworkEvaluator {
    #[inline]
    fn evaluate(&self, board: &Board) -> f32 {
        self.0.value(*board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache of numbers, counting the loads.
    fn load(loads: &mut u32, value: u32) -> Result<u32, ()> {
        *loads += 1;
        Ok(value)
    }

    #[test]
    fn the_cache_holds_the_values_used_last_and_shares_the_living() {
        let mut cache = Cache::new();
        let mut loads = 0;
        let (a, b, c) = (Path::new("a"), Path::new("b"), Path::new("c"));
        let first_a = Arc::downgrade(&cache.get(a, || load(&mut loads, 1)).unwrap());
        let first_b = Arc::downgrade(&cache.get(b, || load(&mut loads, 2)).unwrap());
        // Held, though nobody else holds them: no second load.
        assert_eq!(*cache.get(a, || load(&mut loads, 0)).unwrap(), 1);
        assert_eq!(loads, 2);
        // A third file pushes out the one used longest ago (b) ...
        let c1 = cache.get(c, || load(&mut loads, 3)).unwrap();
        assert!(first_b.upgrade().is_none(), "b is freed");
        assert!(first_a.upgrade().is_some(), "a was used after b");
        // ... and a value still in use is shared, held or not.
        cache.get(a, || load(&mut loads, 0)).unwrap();
        cache.get(b, || load(&mut loads, 2)).unwrap();
        assert!(Arc::ptr_eq(&c1, &cache.get(c, || load(&mut loads, 0)).unwrap()));
        assert_eq!(loads, 4);
        assert_eq!(cache.held.len(), HELD);
        // A failed load adds nothing; a was pushed out with nothing else
        // holding it, so it is gone too.
        let held: Vec<u32> = cache.held.iter().map(|v| **v).collect();
        assert!(cache.get(Path::new("d"), || Err::<u32, ()>(())).is_err());
        assert_eq!(cache.held.iter().map(|v| **v).collect::<Vec<_>>(), held);
        let paths: Vec<&Path> = cache.seen.iter().map(|(p, _)| p.as_path()).collect();
        assert_eq!(paths, [c, b]);
    }

    #[test]
    fn a_network_is_loaded_once_per_path() {
        let shipped = Path::new(ntuple::SHIPPED_WEIGHTS);
        let first = network(Some(shipped)).unwrap();
        let again = network(Some(shipped)).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(weights_path(Some(shipped)), shipped);
        let missing = network(Some(Path::new("/nonexistent/w.n2048")));
        assert!(missing.is_err());
    }
}
