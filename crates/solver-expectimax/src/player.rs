//! Players: who chooses the direction each turn.

use game_core::{Direction, Game, GameBoard, GameRng, TurnRule};

use crate::config::{ConfigError, SearchConfig};
use crate::solver::{Decision, SearchThreads, Solver};

/// What a player chose: the direction, and the search behind it.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The direction to play.
    pub direction: Direction,
    /// The search's decision (each direction's value, depth, statistics),
    /// when there was a search.
    pub decision: Option<Decision>,
}

/// Chooses a direction each turn.
pub trait Player<B: GameBoard>: Send {
    /// The direction to play in `game`, with the search's decision when
    /// there was a search; `None` when the player has no move.
    fn choose(&mut self, game: &Game<B>) -> Option<Choice>;

    /// The threads this player searches on, where a loop of
    /// [`Player::choose`] calls runs fastest (`engine::play_game` runs its
    /// game there). The default, for players that do not search, runs it
    /// here.
    fn search_threads(&self) -> SearchThreads {
        SearchThreads::default()
    }
}

/// The Java tutorial's random "human": under [`TurnRule::Tutorial`] any of
/// the four directions, even one that changes nothing; under the standard
/// rules a uniformly chosen legal direction.
#[derive(Debug, Clone)]
pub struct RandomPlayer {
    rng: GameRng,
}

impl RandomPlayer {
    /// A random player drawing from `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: GameRng::new(seed) }
    }
}

impl<B: GameBoard> Player<B> for RandomPlayer {
    fn choose(&mut self, game: &Game<B>) -> Option<Choice> {
        let choices: Vec<Direction> = match game.rules().turn_rule() {
            TurnRule::Tutorial => Direction::ALL.to_vec(),
            TurnRule::Standard => game.board().legal_directions().iter().collect(),
        };
        if choices.is_empty() {
            return None;
        }
        Some(Choice { direction: choices[self.rng.below(choices.len())], decision: None })
    }
}

/// The expectimax player: a [`Solver`] asked every turn.
#[derive(Debug)]
pub struct ExpectimaxPlayer {
    solver: Solver,
}

impl ExpectimaxPlayer {
    /// A player searching with `config`.
    ///
    /// # Errors
    /// [`ConfigError`] for invalid settings.
    pub fn new(config: SearchConfig) -> Result<ExpectimaxPlayer, ConfigError> {
        Ok(ExpectimaxPlayer { solver: Solver::new(config)? })
    }

    /// A player asking `solver` (one built with
    /// [`Solver::with_evaluator`], say).
    pub fn with_solver(solver: Solver) -> ExpectimaxPlayer {
        ExpectimaxPlayer { solver }
    }

    /// The solver.
    pub fn solver(&self) -> &Solver {
        &self.solver
    }
}

impl<B: GameBoard> Player<B> for ExpectimaxPlayer {
    fn choose(&mut self, game: &Game<B>) -> Option<Choice> {
        let decision = self.solver.decide(game.board(), game.rules()).ok()?;
        Some(Choice { direction: decision.direction, decision: Some(decision) })
    }

    fn search_threads(&self) -> SearchThreads {
        self.solver.search_threads()
    }
}
