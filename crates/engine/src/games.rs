//! Seeded games played to their end, as the records files keep them: one
//! game, or a tournament of many, a few at a time. The loop lives here,
//! once, and makes the records' own [`Record`]: the solver knows how to
//! choose a move, the records crate how a game is kept.

use std::time::{Duration, Instant};

use game_core::{AnyBoard, Game, GameBoard, Rules, SizeError};
use rayon::prelude::*;
use records::Record;
use solver_expectimax::Player;

/// Plays `game` to its end (or `max_moves`); its record names it by the
/// seed it started from.
///
/// # Panics
/// If `game`'s board is empty, which no game started by [`Game::new`] or
/// [`Game::with_size`] has (only [`Game::from_board`] of an empty board):
/// a record names the game's largest tile.
pub fn play_game<B: GameBoard, P: Player<B>>(
    player: &mut P,
    mut game: Game<B>,
    max_moves: Option<u64>,
) -> Record {
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
    let mut record = Record {
        seed,
        score: game.score(),
        max_tile: game.board().max_tile().expect("a started game has a tile"),
        moves: game.moves(),
        millis: 0.0,
        median_decision_micros: None,
        p99_decision_micros: None,
    };
    set_times(&mut record, start.elapsed(), &mut decisions);
    record
}

/// Writes a game's times into its record: the game's to the microsecond,
/// the median and the 99th percentile (nearest rank) of `decisions` in
/// whole microseconds (zero for a game with no moves).
fn set_times(record: &mut Record, duration: Duration, decisions: &mut [Duration]) {
    decisions.sort_unstable();
    let rank = |q: f64| {
        let n = decisions.len();
        if n == 0 {
            Duration::ZERO
        } else {
            decisions[((q * n as f64).ceil() as usize).clamp(1, n) - 1]
        }
    };
    record.millis = duration.as_micros() as f64 / 1e3;
    record.median_decision_micros = Some(rank(0.5).as_micros() as u64);
    record.p99_decision_micros = Some(rank(0.99).as_micros() as u64);
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
/// run's), on [`AnyBoard`]s of its size, `make_player(seed)` giving each
/// game its player; `on_record` is called as each game ends (in any
/// order, from the game's thread), and the records come back in seed
/// order. The same seeds give the same games, however many play at once.
///
/// # Errors
/// The first error of `make_player`, or the spec's size when no board has
/// it.
pub fn run_tournament<P, E>(
    spec: &TournamentSpec,
    done: impl Fn(u64) -> bool,
    make_player: impl Fn(u64) -> Result<P, E> + Sync,
    on_record: impl Fn(&Record) + Sync,
) -> Result<Vec<Record>, E>
where
    P: Player<AnyBoard>,
    E: From<SizeError> + Send,
{
    let seeds: Vec<u64> = (0..spec.games)
        .map(|i| spec.first_seed.wrapping_add(i))
        .filter(|&seed| !done(seed))
        .collect();
    let play = |&seed: &u64| -> Result<Record, E> {
        let game = Game::<AnyBoard>::with_size(spec.size, spec.rules, seed)?;
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

#[cfg(test)]
mod tests {
    use game_core::Board;
    use solver_expectimax::{Depth, ExpectimaxPlayer, Preset, RandomPlayer};

    use super::*;

    #[test]
    fn records_keep_the_time_to_the_microsecond() {
        let mut record = Record {
            seed: 3,
            score: 1000,
            max_tile: game_core::Tile::of(128),
            moves: 90,
            millis: 0.0,
            median_decision_micros: None,
            p99_decision_micros: None,
        };
        // Nearest rank: the median of four is the second, the 99th
        // percentile the fourth.
        let mut decisions = [40_000, 12_900, 3_000, 20_000].map(Duration::from_nanos);
        set_times(&mut record, Duration::from_nanos(1_500_700), &mut decisions);
        assert_eq!((record.millis, record.median_decision_micros), (1.5, Some(12)));
        let mut line = Vec::new();
        record.write_csv_line(&mut line).unwrap();
        assert_eq!(String::from_utf8(line).unwrap(), "3,1000,128,90,1.500,12,40\n");
        set_times(&mut record, Duration::ZERO, &mut []);
        assert_eq!((record.median_decision_micros, record.p99_decision_micros), (Some(0), Some(0)));
    }

    /// A tournament's games are the games its seeds start, one by one or
    /// several at once, on any size; a size no board has is an error.
    #[test]
    fn a_tournament_plays_the_games_of_its_seeds() {
        let spec = |size, parallel_games| TournamentSpec {
            games: 6,
            first_seed: 40,
            size,
            rules: Rules::default(),
            max_moves: Some(60),
            parallel_games,
        };
        let player = |seed: u64| Ok::<_, SizeError>(RandomPlayer::new(!seed));
        let key = |r: &Record| (r.seed, r.score, r.max_tile, r.moves);
        for size in [3, 4, 5] {
            let alone: Vec<_> = run_tournament(&spec(size, 1), |_| false, player, |_| {})
                .unwrap()
                .iter()
                .map(key)
                .collect();
            let together: Vec<_> = run_tournament(&spec(size, 3), |_| false, player, |_| {})
                .unwrap()
                .iter()
                .map(key)
                .collect();
            assert_eq!(alone, together, "{size}x{size}");
            let one = play_game(
                &mut RandomPlayer::new(!41),
                Game::<AnyBoard>::with_size(size, Rules::default(), 41).unwrap(),
                Some(60),
            );
            assert_eq!(alone[1], key(&one));
        }
        let resumed = run_tournament(&spec(4, 1), |seed| seed % 2 == 0, player, |_| {}).unwrap();
        assert_eq!(resumed.iter().map(|r| r.seed).collect::<Vec<_>>(), [41, 43, 45]);
        let err = run_tournament(&spec(9, 1), |_| false, player, |_| {}).unwrap_err();
        assert_eq!(err, SizeError::OutOfRange { size: 9 });
    }

    /// A game played on the solver's own threads (`play_game` runs its
    /// loop through `Player::search_threads`) is the game played on one
    /// thread: the same moves, score and tile.
    #[test]
    fn games_on_the_search_threads_are_the_games_of_one_thread() {
        let rules = Rules::default();
        let record = |threads: usize| {
            let mut config = Preset::Fast.config();
            config.depth = Depth::Fixed(2);
            config.threads = threads;
            config.table_bytes = config.table_bytes.min(1 << 20);
            let mut player = ExpectimaxPlayer::new(config).expect("valid");
            play_game(&mut player, Game::<Board>::new(rules, 11), Some(150))
        };
        let (one, two) = (record(1), record(2));
        assert_eq!(
            (one.moves, one.score, one.max_tile),
            (two.moves, two.score, two.max_tile),
            "1 thread against 2"
        );
        assert_eq!(one.moves, 150);
        // A random player has no threads of its own: its game runs here.
        let mut random = RandomPlayer::new(3);
        assert_eq!(play_game(&mut random, Game::<Board>::new(rules, 5), Some(20)).moves, 20);
    }
}
