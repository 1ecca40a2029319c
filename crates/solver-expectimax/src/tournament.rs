//! Seeded tournaments: many games, the same games for the same seeds.

use std::time::{Duration, Instant};

use game_core::{Game, GameBoard, Rules, SizeError};
use rayon::prelude::*;

use crate::player::Player;

/// One finished game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's seed: replaying it gives the same game.
    pub seed: u64,
    /// The final score.
    pub score: u64,
    /// The largest tile reached.
    pub max_tile: u32,
    /// Moves played.
    pub moves: u64,
    /// Wall-clock time of the game.
    pub duration: Duration,
    /// The median time the player took to choose a move (zero for a game
    /// with no moves).
    pub decision_median: Duration,
    /// The 99th percentile (nearest rank) of the time per move.
    pub decision_p99: Duration,
}

/// Plays `game` to its end (or `max_moves`); the record names it by the
/// seed it started from.
pub fn play_game<B: GameBoard, P: Player<B>>(
    player: &mut P,
    mut game: Game<B>,
    max_moves: Option<u64>,
) -> GameRecord {
    let start = Instant::now();
    let seed = game.seed();
    let mut decisions = Vec::new();
    // On the player's own search threads, each decision starts at once
    // (see `SearchThreads`).
    player.search_threads().run(|| {
        while !game.is_over() && max_moves.is_none_or(|m| game.moves() < m) {
            let asked = Instant::now();
            let Some(choice) = player.choose(&game) else { break };
            decisions.push(asked.elapsed());
            if game.play(choice.direction).is_err() {
                break;
            }
        }
    });
    decisions.sort_unstable();
    let rank = |q: f64| {
        let n = decisions.len();
        if n == 0 {
            Duration::ZERO
        } else {
            decisions[((q * n as f64).ceil() as usize).clamp(1, n) - 1]
        }
    };
    GameRecord {
        seed,
        score: game.score(),
        max_tile: game.board().max_tile(),
        moves: game.moves(),
        duration: start.elapsed(),
        decision_median: rank(0.5),
        decision_p99: rank(0.99),
    }
}

/// Which games a tournament plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TournamentSpec {
    /// The number of games.
    pub games: u64,
    /// Game `i` is played from seed `first_seed + i`.
    pub first_seed: u64,
    /// The board's rows (and columns).
    pub size: usize,
    /// The rules of every game.
    pub rules: Rules,
    /// Stop each game after this many moves.
    pub max_moves: Option<u64>,
    /// Games played at once (each on its own thread).
    pub parallel_games: usize,
}

/// Plays the games of `spec` but those whose seed `done` holds (a resumed
/// run's; `|_| false` plays them all), `make_player(seed)` giving each game
/// its player, calling `on_record` as each game ends (in any order); returns
/// the records in seed order.
///
/// # Errors
/// The first error of `make_player`, or a size the board type cannot have.
pub fn run_tournament<B, P, E>(
    spec: &TournamentSpec,
    done: impl Fn(u64) -> bool,
    make_player: impl Fn(u64) -> Result<P, E> + Sync,
    on_record: impl Fn(&GameRecord) + Sync,
) -> Result<Vec<GameRecord>, E>
where
    B: GameBoard,
    P: Player<B>,
    E: From<SizeError> + Send,
{
    let seeds: Vec<u64> = (0..spec.games)
        .map(|i| spec.first_seed.wrapping_add(i))
        .filter(|&seed| !done(seed))
        .collect();
    let play = |&seed: &u64| -> Result<GameRecord, E> {
        let game = Game::<B>::with_size(spec.size, spec.rules, seed)?;
        let mut player = make_player(seed)?;
        let record = play_game(&mut player, game, spec.max_moves);
        on_record(&record);
        Ok(record)
    };
    if spec.parallel_games <= 1 {
        return seeds.iter().map(play).collect();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(spec.parallel_games).build() {
        Ok(pool) => pool.install(|| seeds.par_iter().map(play).collect()),
        // Without a pool the games still play, one after another.
        Err(_) => seeds.iter().map(play).collect(),
    }
}
