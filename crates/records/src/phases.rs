//! Where games die: each game that did not reach a target tile, placed in
//! the phase of play it was lost in, from its record alone.
//!
//! A record keeps the seed, the moves and the largest tile, not the final
//! board. But every spawn draws the same two numbers from the game's seeded
//! source whatever the board (the value, then the cell), so the values of
//! the first `moves + 2` spawns (the two starting tiles, then one a move)
//! are known from the seed, and their sum is the sum of the tiles on the
//! final board: moves merge tiles but never change their sum. With the
//! largest tile, that sum says how far the chain below it had been built.
//!
//! The phases, for a target `T` (32768 by default, half `H` = `T/2`):
//! - **before `T/4`**: the largest tile stayed below `T/4`;
//! - **`T/4` the largest**: `T/4` built, not `H`;
//! - **`H`, building `T/4`**: `H` built, the tiles beside it sum to less
//!   than `T/4`;
//! - **`H`, building `T/8` to `T/128`**: the tiles beside `H` sum to at
//!   least `T/4` but less than the chain `T/4 + ... + T/128`;
//! - **the final collapse**: the chain `H`, `T/4`, ..., `T/128` is built
//!   (for 32768: 16384 down to 256, 32512 in all) and the game still lost,
//!   the rest of the board full of small tiles;
//! - **reached `T`**.
//!
//! The sum is exact; the phase it gives is an estimate, since it counts
//! what the board holds, not its shape: a board that holds the chain's sum
//! in other tiles counts as built.
//!
//! Standard rules only: under the tutorial's rules a move that changes
//! nothing still spawns, so `moves + 2` spawns are no longer the tiles'.
//!
//! ```
//! use game_core::Tile;
//! use records::Record;
//! use records::phases::{Phase, Phases};
//!
//! let game = |seed, max_tile, moves| Record {
//!     seed, score: 0, max_tile: Tile::of(max_tile), moves, millis: 0.0,
//!     median_decision_micros: None, p99_decision_micros: None,
//! };
//! let games = [game(1, 32768, 17_000), game(2, 4096, 2_000)];
//! let phases = Phases::of(&games, Tile::of(32768), 0.1);
//! assert_eq!(phases.count(Phase::Reached), 1);
//! assert_eq!(phases.count(Phase::Early), 1);
//! ```

use std::fmt;

use game_core::{Board, Spawner, Tile, exponent_to_value};

use crate::Record;

/// The phase of play a game ended in, relative to a target tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Lost with the largest tile below a quarter of the target.
    Early,
    /// Lost with a quarter of the target the largest tile.
    Quarter,
    /// Lost with half the target built, building the quarter beside it.
    HalfBuildingQuarter,
    /// Lost with half and a quarter built, building the rest of the chain
    /// (an eighth of the target down to 1/128 of it).
    HalfBuildingChain,
    /// Lost in the final collapse: the chain from half the target down to
    /// 1/128 of it built.
    FinalCollapse,
    /// Reached the target.
    Reached,
}

impl Phase {
    /// Every phase, earliest first.
    pub const ALL: [Phase; 6] = [
        Phase::Early,
        Phase::Quarter,
        Phase::HalfBuildingQuarter,
        Phase::HalfBuildingChain,
        Phase::FinalCollapse,
        Phase::Reached,
    ];

    /// The phase of a game that ended with `max_tile` its largest tile and
    /// `tile_sum` the sum of its tiles, for the target tile `target` (a
    /// power of two of at least 128).
    pub fn of(max_tile: Tile, tile_sum: u64, target: Tile) -> Phase {
        let target = u64::from(target);
        let (max, half, quarter) = (u64::from(max_tile), target / 2, target / 4);
        if max >= target {
            Phase::Reached
        } else if max < quarter {
            Phase::Early
        } else if max < half {
            Phase::Quarter
        } else if tile_sum < half + quarter {
            Phase::HalfBuildingQuarter
        } else if tile_sum < target - target / 128 {
            Phase::HalfBuildingChain
        } else {
            Phase::FinalCollapse
        }
    }

    /// How the phase reads in a table, for the target tile `target`.
    pub fn label(self, target: Tile) -> String {
        let target = target.value();
        let (half, quarter) = (target / 2, target / 4);
        match self {
            Phase::Early => format!("lost before {quarter}"),
            Phase::Quarter => format!("lost with {quarter} the largest"),
            Phase::HalfBuildingQuarter => format!("lost with {half}, building {quarter}"),
            Phase::HalfBuildingChain => {
                format!("lost with {half}, building {} to {}", target / 8, target / 128)
            }
            Phase::FinalCollapse => {
                format!("lost in the final collapse ({half} to {} built)", target / 128)
            }
            Phase::Reached => format!("reached {target}"),
        }
    }
}

/// The sum of the tiles on the board of a game of `seed` that ended after
/// `moves` moves under the standard rules with `four_probability`: the
/// values of its first `moves + 2` spawns.
pub fn tile_sum(seed: u64, moves: u64, four_probability: f64) -> u64 {
    let mut spawner = Spawner::new(seed, four_probability);
    // Each spawn draws its value, then its cell, whatever the board: an
    // empty board stands in for the game's.
    (0..moves + 2)
        .map(|_| {
            spawner
                .spawn(&Board::EMPTY)
                .map_or(0, |(_, _, exponent)| u64::from(exponent_to_value(exponent)))
        })
        .sum()
}

/// How many games ended in each phase, for one target tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phases {
    target: Tile,
    counts: [usize; Phase::ALL.len()],
}

impl Phases {
    /// The phases of `records`, games of the standard rules with
    /// `four_probability`, for the target tile `target` (a power of two of
    /// at least 128).
    ///
    /// # Panics
    /// If `target` is below 128.
    pub fn of(records: &[Record], target: Tile, four_probability: f64) -> Phases {
        assert!(target >= Tile::of(128), "a target tile of at least 128");
        let mut counts = [0; Phase::ALL.len()];
        for r in records {
            // A game that reached the target needs no replay of its spawns.
            let sum = if r.max_tile >= target {
                u64::MAX
            } else {
                tile_sum(r.seed, r.moves, four_probability)
            };
            counts[Phase::of(r.max_tile, sum, target) as usize] += 1;
        }
        Phases { target, counts }
    }

    /// The target tile.
    pub fn target(&self) -> Tile {
        self.target
    }

    /// The games that ended in `phase`.
    pub fn count(&self, phase: Phase) -> usize {
        self.counts[phase as usize]
    }

    /// All the games.
    pub fn games(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The games that did not reach the target.
    pub fn losses(&self) -> usize {
        self.games() - self.count(Phase::Reached)
    }

    /// The games that reached the final collapse: those lost in it and
    /// those that went through it to the target.
    pub fn collapse_reached(&self) -> usize {
        self.count(Phase::FinalCollapse) + self.count(Phase::Reached)
    }

    /// The share of the games that reached the final collapse that went on
    /// to the target; `None` when none reached it.
    pub fn collapse_survival(&self) -> Option<f64> {
        let reached = self.collapse_reached();
        (reached > 0).then(|| self.count(Phase::Reached) as f64 / reached as f64)
    }
}

/// A Markdown table: each phase with its games, its share of the losses and
/// of all games; then the final collapse reached and survived.
impl fmt::Display for Phases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let share = |n: usize, of: usize| match of {
            0 => "–".to_owned(),
            _ => format!("{:.1}%", 100.0 * n as f64 / of as f64),
        };
        writeln!(f, "| phase | games | of the losses | of all games |")?;
        writeln!(f, "| --- | ---: | ---: | ---: |")?;
        for phase in Phase::ALL {
            let n = self.count(phase);
            let of_losses = match phase {
                Phase::Reached => String::new(),
                _ => share(n, self.losses()),
            };
            let label = phase.label(self.target);
            writeln!(f, "| {label} | {n} | {of_losses} | {} |", share(n, self.games()))?;
        }
        let reached = self.collapse_reached();
        write!(
            f,
            "\nThe final collapse reached in {} of {} games ({}), survived in {} of them ({}).",
            reached,
            self.games(),
            share(reached, self.games()),
            self.count(Phase::Reached),
            share(self.count(Phase::Reached), reached),
        )
    }
}

#[cfg(test)]
mod tests {
    use game_core::{Direction, Game, GameBoard, RulesBuilder};

    use super::*;

    /// The sum of a finished game's tiles is the sum of its spawns' values,
    /// which the seed and the move count give: checked on whole games of a
    /// player that takes the first legal direction, under two odds of a 4.
    #[test]
    fn the_spawns_give_the_tiles_of_the_final_board() {
        for (seed, p4) in [(1, 0.1), (2, 0.1), (77, 0.1), (5, 0.5), (9, 0.0)] {
            let rules = RulesBuilder { four_probability: p4, ..RulesBuilder::default() }
                .build()
                .expect("valid rules");
            let mut game = Game::new(rules, seed);
            while !game.is_over() {
                let dir = Direction::ALL
                    .into_iter()
                    .find(|&d| game.board().slide(d).is_some())
                    .expect("a legal move while the game is not over");
                game.play(dir).expect("a legal move");
            }
            let on_board = game.board().tile_sum();
            assert!(game.moves() > 20, "seed {seed}: a game of some length");
            assert_eq!(tile_sum(seed, game.moves(), p4), on_board, "seed {seed}, p4 {p4}");
        }
    }

    /// Each phase's bounds, for 32768: the chain 16384..256 is 32512.
    #[test]
    fn phases_follow_the_largest_tile_and_the_sum() {
        let t = 32768;
        assert_eq!(Phase::of(Tile::of(4096), 9000, Tile::of(t)), Phase::Early);
        assert_eq!(Phase::of(Tile::of(8192), 15000, Tile::of(t)), Phase::Quarter);
        assert_eq!(Phase::of(Tile::of(16384), 24575, Tile::of(t)), Phase::HalfBuildingQuarter);
        assert_eq!(Phase::of(Tile::of(16384), 24576, Tile::of(t)), Phase::HalfBuildingChain);
        assert_eq!(Phase::of(Tile::of(16384), 32511, Tile::of(t)), Phase::HalfBuildingChain);
        assert_eq!(Phase::of(Tile::of(16384), 32512, Tile::of(t)), Phase::FinalCollapse);
        assert_eq!(Phase::of(Tile::of(32768), 40000, Tile::of(t)), Phase::Reached);
        assert_eq!(Phase::of(Tile::of(65536), 70000, Tile::of(t)), Phase::Reached);
        assert_eq!(Phase::of(Tile::of(32768), 40000, Tile::of(65536)), Phase::HalfBuildingQuarter);
        assert_eq!(
            Phase::FinalCollapse.label(Tile::of(t)),
            "lost in the final collapse (16384 to 256 built)"
        );
    }

    /// The counts, the survival of the collapse and the table's lines.
    #[test]
    fn the_table_counts_each_phase() {
        let game = |seed, max_tile, moves| Record {
            seed,
            score: 0,
            max_tile,
            moves,
            millis: 0.0,
            median_decision_micros: None,
            p99_decision_micros: None,
        };
        // Moves chosen so that the spawns' sum lands in a phase: about
        // 2.2 per move.
        let games = [
            game(1, Tile::of(32768), 0),
            game(2, Tile::of(32768), 0),
            game(3, Tile::of(16384), 14_900),
            game(4, Tile::of(2048), 900),
        ];
        let phases = Phases::of(&games, Tile::of(32768), 0.1);
        assert_eq!(phases.games(), 4);
        assert_eq!(phases.losses(), 2);
        assert_eq!(phases.count(Phase::FinalCollapse), 1, "{phases}");
        assert_eq!(phases.count(Phase::Early), 1);
        assert_eq!(phases.collapse_reached(), 3);
        assert_eq!(phases.collapse_survival(), Some(2.0 / 3.0));
        let text = phases.to_string();
        assert!(
            text.contains(
                "| lost in the final collapse (16384 to 256 built) | 1 | 50.0% | 25.0% |"
            ),
            "{text}"
        );
        assert!(text.contains("| reached 32768 | 2 |  | 50.0% |"), "{text}");
        assert!(text.ends_with(
            "The final collapse reached in 3 of 4 games (75.0%), survived in 2 of them (66.7%)."
        ));
        assert_eq!(Phases::of(&[], Tile::of(32768), 0.1).collapse_survival(), None);
    }
}
