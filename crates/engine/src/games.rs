//! Seeded games played to their end, as the records files keep them: one
//! game, or a tournament of many, a few at a time.

use game_core::{AnyBoard, Game, GameBoard, SizeError};
use records::Record;
use solver_expectimax::{GameRecord, Player, TournamentSpec};

/// Plays `game` to its end (or `max_moves`); its record names it by the
/// seed it started from.
pub fn play_game<B: GameBoard, P: Player<B>>(
    player: &mut P,
    game: Game<B>,
    max_moves: Option<u64>,
) -> Record {
    record_of(&solver_expectimax::play_game(player, game, max_moves))
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
    let games =
        solver_expectimax::run_tournament::<AnyBoard, P, E>(spec, done, make_player, |game| {
            on_record(&record_of(game))
        })?;
    Ok(games.iter().map(record_of).collect())
}

/// A finished game as the records files keep it: its time to the
/// microsecond, the times per decision in whole microseconds.
fn record_of(game: &GameRecord) -> Record {
    Record {
        seed: game.seed,
        score: game.score,
        max_tile: game.max_tile,
        moves: game.moves,
        millis: game.duration.as_micros() as f64 / 1e3,
        median_decision_micros: Some(game.decision_median.as_micros() as u64),
        p99_decision_micros: Some(game.decision_p99.as_micros() as u64),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use game_core::Rules;
    use solver_expectimax::RandomPlayer;

    use super::*;

    #[test]
    fn records_keep_the_time_to_the_microsecond() {
        let game = GameRecord {
            seed: 3,
            score: 1000,
            max_tile: 128,
            moves: 90,
            duration: Duration::from_nanos(1_500_700),
            decision_median: Duration::from_nanos(12_900),
            decision_p99: Duration::from_micros(40),
        };
        let record = record_of(&game);
        assert_eq!((record.millis, record.median_decision_micros), (1.5, Some(12)));
        let mut line = Vec::new();
        record.write_csv_line(&mut line).unwrap();
        assert_eq!(String::from_utf8(line).unwrap(), "3,1000,128,90,1.500,12,40\n");
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
}
