//! A game's seed when the user gives none.

use std::time::{SystemTime, UNIX_EPOCH};

/// A seed from the clock and the process id, below 10^9: short enough to
/// read off a screen and type again to replay the game.
pub fn clock_seed() -> u64 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (nanos as u64 ^ u64::from(std::process::id())) % 1_000_000_000
}

#[cfg(test)]
mod tests {
    #[test]
    fn clock_seeds_are_short() {
        assert!((0..100).map(|_| super::clock_seed()).all(|s| s < 1_000_000_000));
    }
}
