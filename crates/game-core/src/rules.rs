//! The rule settings of a game, checked once when built. The board's size
//! is not among them: it is the board's own (the packed [`Board`] is 4x4 by
//! its type), so that a game of a board type always has a size that type
//! can hold.
//!
//! [`Board`]: crate::Board

use crate::error::RulesError;
use crate::limits::MIN_SIZE;

/// How a turn goes and when the game ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TurnRule {
    /// The real game's rule: a direction that changes nothing is refused and
    /// spawns nothing; the game ends when no direction changes the board.
    #[default]
    Standard,
    /// The Java tutorial's loop: every move is played even when it changes
    /// nothing, a tile spawns after it, and the game ends as soon as the
    /// board is full (even if a merge would still be possible).
    Tutorial,
}

/// Unchecked rule settings; [`RulesBuilder::build`] checks them into
/// [`Rules`].
///
/// ```
/// use game_core::{RulesBuilder, RulesError};
///
/// let rules = RulesBuilder { four_probability: 0.25, ..RulesBuilder::default() }.build()?;
/// assert_eq!(rules.four_probability(), 0.25);
///
/// let bad = RulesBuilder { four_probability: 2.0, ..RulesBuilder::default() }.build();
/// assert_eq!(bad, Err(RulesError::FourProbability(2.0)));
/// # Ok::<(), RulesError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RulesBuilder {
    /// The probability that a spawned tile is a 4 rather than a 2: 0 to 1.
    /// Default 0.1.
    pub four_probability: f64,
    /// Tiles spawned before the first move: 1 to 4, which fit the smallest
    /// board (2x2). Default 2.
    pub start_tiles: usize,
    /// The turn and game-over rule. Default [`TurnRule::Standard`].
    pub turn_rule: TurnRule,
}

impl Default for RulesBuilder {
    fn default() -> Self {
        RulesBuilder { four_probability: 0.1, start_tiles: 2, turn_rule: TurnRule::Standard }
    }
}

impl RulesBuilder {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`RulesError`] for a probability outside 0..=1 (or NaN), or a number
    /// of starting tiles outside 1..=4.
    pub fn build(self) -> Result<Rules, RulesError> {
        if !(0.0..=1.0).contains(&self.four_probability) {
            return Err(RulesError::FourProbability(self.four_probability));
        }
        // The rules fit every board size, so that no game of them can fail
        // to start: the smallest board's cells bound the starting tiles.
        let cells = MIN_SIZE * MIN_SIZE;
        if self.start_tiles == 0 || self.start_tiles > cells {
            return Err(RulesError::StartTiles { start_tiles: self.start_tiles, cells });
        }
        Ok(Rules { spec: self })
    }
}

/// Rule settings known to be playable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    // Invariant: checked by RulesBuilder::build.
    spec: RulesBuilder,
}

impl Default for Rules {
    /// The standard game: 10% fours, two starting tiles.
    fn default() -> Self {
        Rules { spec: RulesBuilder::default() }
    }
}

impl Rules {
    /// The Java tutorial's rules: 10% fours, two starting tiles,
    /// [`TurnRule::Tutorial`].
    pub fn tutorial() -> Rules {
        Rules { spec: RulesBuilder { turn_rule: TurnRule::Tutorial, ..RulesBuilder::default() } }
    }

    /// The probability that a spawned tile is a 4.
    pub fn four_probability(&self) -> f64 {
        self.spec.four_probability
    }

    /// Tiles spawned before the first move.
    pub fn start_tiles(&self) -> usize {
        self.spec.start_tiles
    }

    /// The turn and game-over rule.
    pub fn turn_rule(&self) -> TurnRule {
        self.spec.turn_rule
    }

    /// The settings, to change and build again.
    pub fn to_builder(&self) -> RulesBuilder {
        self.spec
    }
}
