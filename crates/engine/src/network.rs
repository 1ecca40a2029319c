//! The learned network, found and loaded once per process.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use game_core::Board;
use ntuple::{FileError, Network};
use solver_expectimax::Evaluator;

/// The networks loaded so far in this process, by path. Kept for the
/// process's life: a frontend builds a solver per game (a tournament, a Ray
/// worker, a Python `Solver` per call), and a network dropped between games
/// would be read again, a second each time, for the next.
static LOADED: Mutex<Vec<(PathBuf, Arc<Network>)>> = Mutex::new(Vec::new());

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
/// wherever [`ntuple::find_shipped_weights`] finds it), loaded once per
/// process and shared: every solver, game and session uses the same copy,
/// since a network is hundreds of megabytes.
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
    // A panic while loading leaves the list as it was: still usable.
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, net)) = loaded.iter().find(|(p, _)| *p == path) {
        return Ok(Arc::clone(net));
    }
    let net = Arc::new(ntuple::load_weights(&path)?.network);
    loaded.push((path, Arc::clone(&net)));
    Ok(net)
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
