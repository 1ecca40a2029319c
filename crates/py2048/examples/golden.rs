//! Writes the golden transitions that the Python tests compare the package
//! with: seeded games played by game-core itself, with the actions (some of
//! them illegal), boards, afterstates and rewards of every step.
//!
//! ```text
//! cargo run -p py2048 --example golden > crates/py2048/tests/data/golden.json
//! ```
//!
//! The episode seed follows `Env2048`'s contract: `reset(seed=s)` plays the
//! game-core game seeded with the first number of `GameRng::new(s)`.

use std::io::{self, Write};

use game_core::{AnyBoard, Direction, Game, GameBoard, GameRng, PlayError, Rules, RulesBuilder};
use serde::Serialize;

/// gymnasium-2048's actions: 0 up, 1 right, 2 down, 3 left.
const GYM_DIRECTIONS: [Direction; 4] =
    [Direction::Up, Direction::Right, Direction::Down, Direction::Left];

/// The games: (env seed, board size, probability of a 4).
const CASES: [(u64, usize, f64); 5] =
    [(1, 4, 0.1), (2, 4, 0.1), (3, 4, 0.5), (4, 3, 0.1), (5, 5, 0.0)];

/// At most this many steps per game.
const MAX_STEPS: usize = 400;

/// The file: the games, in the order of `CASES`.
#[derive(Serialize)]
struct Golden {
    games: Vec<GoldenGame>,
}

/// One game: its settings, its first board and every step.
#[derive(Serialize)]
struct GoldenGame {
    seed: u64,
    size: usize,
    four_probability: f64,
    start: String,
    steps: Vec<Step>,
}

/// One action and what it did; boards in the engine's notation.
#[derive(Serialize)]
struct Step {
    action: usize,
    legal: bool,
    reward: u32,
    afterstate: String,
    board: String,
    score: u64,
    terminated: bool,
}

/// Plays one game with actions drawn from their own stream.
fn play(seed: u64, size: usize, rules: Rules) -> GoldenGame {
    let game_seed = GameRng::new(seed).next_u64();
    let mut game = Game::<AnyBoard>::with_size(size, rules, game_seed).expect("a size from 2 to 8");
    let mut chooser = GameRng::new(seed ^ 0xA5A5);
    let mut steps = Vec::new();
    let start = game.board().to_string();
    for _ in 0..MAX_STEPS {
        if game.is_over() {
            break;
        }
        let action = chooser.below(4);
        let before = *game.board();
        let (reward, legal) = match game.play(GYM_DIRECTIONS[action]) {
            Ok(turn) => (turn.score_gained, true),
            Err(PlayError::NothingMoves(_)) => (0, false),
            Err(err) => panic!("the game was not over: {err}"),
        };
        let after = before.slide(GYM_DIRECTIONS[action]).map_or(before, |(b, _)| b);
        steps.push(Step {
            action,
            legal,
            reward,
            afterstate: after.to_string(),
            board: game.board().to_string(),
            score: game.score(),
            terminated: game.board().is_game_over(),
        });
    }
    GoldenGame { seed, size, four_probability: rules.four_probability(), start, steps }
}

fn main() -> io::Result<()> {
    let mut games = Vec::new();
    for (seed, size, four_probability) in CASES {
        let rules = RulesBuilder { four_probability, ..RulesBuilder::default() }
            .build()
            .expect("valid rules");
        games.push(play(seed, size, rules));
    }
    // One line per file: it is generated, and read back by json.load.
    let mut out = io::stdout().lock();
    serde_json::to_writer(&mut out, &Golden { games })?;
    writeln!(out)
}
