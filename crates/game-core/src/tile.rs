//! A tile: one type for "the 2048 tile" wherever a tile is named (a game's
//! largest tile, a milestone, a target), so that a tile's value and its
//! exponent cannot be mixed up.

use std::fmt;
use std::str::FromStr;

use crate::limits::{MAX_EXPONENT, MAX_TILE};

/// A tile: a power of two from 2 to [`MAX_TILE`], kept as its exponent.
/// It orders as its value does, and reads and writes as its value
/// (`"2048"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tile(u8);

impl Tile {
    /// The tile that wins the game.
    pub const WIN: Tile = Tile::of(2048);

    /// The tile of `value`.
    ///
    /// # Panics
    /// Unless `value` is a power of two from 2 to [`MAX_TILE`] (at compile
    /// time in a constant); [`Tile::from_value`] says so instead.
    pub const fn of(value: u32) -> Tile {
        assert!(is_tile(value), "not a tile: expected a power of two from 2 to MAX_TILE");
        Tile(value.trailing_zeros() as u8)
    }

    /// The tile of `value`.
    ///
    /// # Errors
    /// [`NotATile`] unless `value` is a power of two from 2 to [`MAX_TILE`].
    pub const fn from_value(value: u32) -> Result<Tile, NotATile> {
        if is_tile(value) {
            Ok(Tile(value.trailing_zeros() as u8))
        } else {
            Err(NotATile(Given::Value(value)))
        }
    }

    /// The tile of `exponent` (11 for 2048), if it is one: 1 to
    /// [`MAX_EXPONENT`].
    pub const fn from_exponent(exponent: u8) -> Option<Tile> {
        if exponent >= 1 && exponent <= MAX_EXPONENT { Some(Tile(exponent)) } else { None }
    }

    /// Its value (2048).
    pub const fn value(self) -> u32 {
        1 << self.0
    }

    /// Its exponent (11 for 2048).
    pub const fn exponent(self) -> u8 {
        self.0
    }
}

/// Whether `value` is a power of two from 2 to [`MAX_TILE`]: the one
/// statement of what a tile's value is (a cell's value, a `Tile`).
pub(crate) const fn is_tile(value: u32) -> bool {
    value >= 2 && value.is_power_of_two() && value <= MAX_TILE
}

impl fmt::Display for Tile {
    /// Its value, padded and aligned as the formatter asks (`{:>8}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value(), f)
    }
}

impl From<Tile> for u32 {
    fn from(tile: Tile) -> u32 {
        tile.value()
    }
}

impl From<Tile> for u64 {
    fn from(tile: Tile) -> u64 {
        u64::from(tile.value())
    }
}

impl FromStr for Tile {
    type Err = NotATile;

    /// A tile's value in decimal (`"2048"`).
    fn from_str(text: &str) -> Result<Tile, NotATile> {
        let not = || NotATile(Given::Text(text.to_owned()));
        text.parse::<u32>().map_err(|_| not()).and_then(|v| Tile::from_value(v).map_err(|_| not()))
    }
}

/// A value or a text that is not a tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotATile(Given);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Given {
    Value(u32),
    Text(String),
}

impl fmt::Display for NotATile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Given::Value(v) => write!(f, "{v}")?,
            Given::Text(t) => write!(f, "`{t}`")?,
        }
        write!(f, " is not a tile (expected a power of two from 2 to {MAX_TILE})")
    }
}

impl std::error::Error for NotATile {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the obvious reference: every u32 around each power of two,
    /// and every exponent.
    #[test]
    fn a_tile_is_a_power_of_two_from_two_to_the_largest() {
        for e in 0..32u32 {
            for value in [(1u32 << e).wrapping_sub(1), 1 << e, (1u32 << e) + 1] {
                let tile = value >= 2 && value.count_ones() == 1 && value <= MAX_TILE;
                assert_eq!(Tile::from_value(value).is_ok(), tile, "{value}");
                if let Ok(t) = Tile::from_value(value) {
                    assert_eq!((t.value(), u32::from(t.exponent())), (value, value.ilog2()));
                    assert_eq!(t.to_string().parse::<Tile>(), Ok(t));
                }
            }
        }
        for e in 0..=u8::MAX {
            let tile = Tile::from_exponent(e);
            assert_eq!(tile.is_some(), (1..=MAX_EXPONENT).contains(&e), "{e}");
            assert_eq!(tile.map(Tile::exponent), tile.is_some().then_some(e));
        }
        assert_eq!(Tile::WIN.value(), 2048);
        assert_eq!(format!("{:>6}|{:<5}|", Tile::WIN, Tile::of(4)), "  2048|4    |");
        assert!(Tile::of(4096) > Tile::WIN && Tile::of(2) < Tile::of(4));
    }

    #[test]
    fn what_is_not_a_tile_says_so() {
        assert_eq!(
            Tile::from_value(3).unwrap_err().to_string(),
            "3 is not a tile (expected a power of two from 2 to 33554432)"
        );
        assert_eq!(
            "2k".parse::<Tile>().unwrap_err().to_string(),
            "`2k` is not a tile (expected a power of two from 2 to 33554432)"
        );
        for text in ["", "1", "0", "-2", "2048.0", " 2048", "67108864"] {
            assert!(text.parse::<Tile>().is_err(), "{text:?}");
        }
    }

    #[test]
    #[should_panic(expected = "not a tile")]
    fn of_panics_on_what_is_not_a_tile() {
        let _ = Tile::of(6);
    }
}
