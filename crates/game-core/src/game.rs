//! A game: a board, its score, and a seeded source of spawns.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use crate::board::Board;
use crate::direction::Direction;
use crate::error::{PlayError, SizeError};
use crate::rules::{Rules, TurnRule};
use crate::traits::GameBoard;

/// A seeded random source whose output is the same on every platform and
/// every build: ChaCha8, whose stream rand_chacha keeps stable across
/// versions, seeded from a `u64` by our own expansion, and turned into ranges
/// and probabilities by our own arithmetic (not by rand's distributions, whose
/// algorithms may change between releases).
#[derive(Debug, Clone)]
pub struct GameRng {
    rng: ChaCha8Rng,
}

impl GameRng {
    /// The source for this seed.
    pub fn new(seed: u64) -> GameRng {
        // SplitMix64 spreads the 64-bit seed over the 32-byte key.
        let mut key = [0u8; 32];
        let mut state = seed;
        for chunk in key.chunks_exact_mut(8) {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
        }
        GameRng { rng: ChaCha8Rng::from_seed(key) }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A uniform number in `0..n` by a multiply-shift (0 when n is 0); the
    /// bias is below n / 2^64.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform double in [0, 1) from 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Where the source stands: its ChaCha8 key and its position in the
    /// stream (little-endian), from which [`GameRng::from_state`] goes on
    /// exactly as this source would. Any 48 bytes are a valid state.
    ///
    /// ```
    /// use game_core::GameRng;
    ///
    /// let mut rng = GameRng::new(7);
    /// rng.next_u64();
    /// let mut copy = GameRng::from_state(rng.state());
    /// assert_eq!(copy.next_u64(), rng.next_u64());
    /// ```
    pub fn state(&self) -> [u8; 48] {
        let mut state = [0u8; 48];
        state[..32].copy_from_slice(&self.rng.get_seed());
        state[32..].copy_from_slice(&self.rng.get_word_pos().to_le_bytes());
        state
    }

    /// The source at a [`GameRng::state`].
    pub fn from_state(state: [u8; 48]) -> GameRng {
        let (key, pos) = state.split_at(32);
        let mut rng = ChaCha8Rng::from_seed(key.try_into().expect("32 bytes"));
        rng.set_word_pos(u128::from_le_bytes(pos.try_into().expect("16 bytes")));
        GameRng { rng }
    }
}

/// The computer player: spawns a 2 or a 4 on a uniformly chosen empty cell,
/// from a [`GameRng`].
#[derive(Debug, Clone)]
pub struct Spawner {
    rng: GameRng,
    four_probability: f64,
}

impl Spawner {
    /// A spawner for this seed and probability of a 4.
    pub fn new(seed: u64, four_probability: f64) -> Spawner {
        Spawner { rng: GameRng::new(seed), four_probability }
    }

    /// Whether the next tile is a 4, as the tutorial's `nextDouble() >= 0.9`
    /// decides it (with 0.9 = 1 - probability).
    fn four(&mut self) -> bool {
        self.rng.unit() < self.four_probability
    }

    /// Spawns a 2 or a 4 on a uniformly chosen empty cell: the new board, the
    /// cell index and the exponent; `None` when the board is full.
    pub fn spawn<B: GameBoard>(&mut self, board: &B) -> Option<(B, usize, u8)> {
        let empty = board.count_empty();
        if empty == 0 {
            return None;
        }
        // The value first, then the cell: the tutorial's order.
        let exponent = if self.four() { 2 } else { 1 };
        let idx = board.empty_cells().nth(self.rng.below(empty))?;
        Some((board.with_exponent_unchecked(idx, exponent), idx, exponent))
    }
}

/// A game's whole state but its rules: what [`Game::save`] gives and
/// [`Game::restore`] takes to go on exactly where the game stood (the same
/// spawns after the same moves). A caller may change a field first, for
/// example the board, to set up a position mid-game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedGame<B: GameBoard = Board> {
    /// The board.
    pub board: B,
    /// The score so far.
    pub score: u64,
    /// The moves played so far.
    pub moves: u64,
    /// The seed the game started with.
    pub seed: u64,
    /// Where the spawns' random source stands ([`GameRng::state`]).
    pub spawns: [u8; 48],
}

/// What a played turn did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    /// The direction played.
    pub direction: Direction,
    /// The score the move gained.
    pub score_gained: u32,
    /// Whether the move changed the board (always true under
    /// [`TurnRule::Standard`]).
    pub moved: bool,
    /// The spawned tile's cell index and exponent, if one spawned.
    pub spawned: Option<(usize, u8)>,
}

/// A game in progress: the board, the score, the number of moves and the
/// seeded spawns. Replaying the same directions from the same seed and rules
/// gives the same game. Its size is its board's: the packed [`Board`]'s game
/// ([`Game::new`]) is 4x4 and cannot fail to start; a board type of many
/// sizes starts a game of the size asked for ([`Game::with_size`]).
///
/// ```
/// use game_core::{Game, GameBoard, Rules};
///
/// let mut game = Game::new(Rules::default(), 42);
/// // Play the first legal direction until nothing moves.
/// while let Some(dir) = game.board().legal_directions().iter().next() {
///     game.play(dir).expect("a legal direction is always playable");
/// }
/// assert!(game.is_over());
/// println!("score {} after {} moves", game.score(), game.moves());
/// ```
#[derive(Debug, Clone)]
pub struct Game<B: GameBoard = Board> {
    board: B,
    score: u64,
    moves: u64,
    rules: Rules,
    seed: u64,
    spawner: Spawner,
}

impl Game<Board> {
    /// A new 4x4 game on the packed board, with the starting tiles spawned
    /// from `seed`.
    pub fn new(rules: Rules, seed: u64) -> Game<Board> {
        Game::started(Board::EMPTY, rules, seed)
    }
}

impl<B: GameBoard> Game<B> {
    /// A new game on an empty `size` x `size` board, with the starting tiles
    /// spawned from `seed`: the game a board type of many sizes
    /// ([`Grid`](crate::Grid), [`AnyBoard`](crate::AnyBoard)) starts.
    ///
    /// # Errors
    /// [`SizeError`] when the board type cannot have that size (outside 2
    /// to 8; the packed [`Board`] is 4x4 only, and [`Game::new`] starts its
    /// games).
    ///
    /// ```
    /// use game_core::{AnyBoard, Game, GameBoard, Rules};
    ///
    /// let game = Game::<AnyBoard>::with_size(5, Rules::default(), 1)?;
    /// assert_eq!(game.board().size(), 5);
    /// assert!(Game::<AnyBoard>::with_size(9, Rules::default(), 1).is_err());
    /// # Ok::<(), game_core::SizeError>(())
    /// ```
    pub fn with_size(size: usize, rules: Rules, seed: u64) -> Result<Game<B>, SizeError> {
        Ok(Game::started(B::empty(size)?, rules, seed))
    }

    /// A new game of this game's size and rules, from `seed`.
    ///
    /// ```
    /// use game_core::{Game, Rules};
    ///
    /// let game = Game::new(Rules::default(), 1);
    /// let next = game.renewed(2);
    /// assert_eq!(next.board(), Game::new(Rules::default(), 2).board());
    /// ```
    pub fn renewed(&self, seed: u64) -> Game<B> {
        Game::started(self.board.cleared(), self.rules, seed)
    }

    /// The game on `empty`, an empty board, with its starting tiles spawned
    /// from `seed`.
    fn started(empty: B, rules: Rules, seed: u64) -> Game<B> {
        let mut game = Game::from_board(empty, rules, seed);
        for _ in 0..rules.start_tiles() {
            game.spawn();
        }
        game
    }

    /// A game that goes on from `board` (score 0, no moves yet), spawning
    /// from `seed`.
    pub fn from_board(board: B, rules: Rules, seed: u64) -> Game<B> {
        let spawner = Spawner::new(seed, rules.four_probability());
        Game { board, score: 0, moves: 0, rules, seed, spawner }
    }

    /// The game's state, to [`Game::restore`] it later.
    pub fn save(&self) -> SavedGame<B> {
        SavedGame {
            board: self.board,
            score: self.score,
            moves: self.moves,
            seed: self.seed,
            spawns: self.spawner.rng.state(),
        }
    }

    /// The game `saved` holds, under `rules`.
    ///
    /// ```
    /// use game_core::{Direction, Game, Rules};
    ///
    /// let mut game = Game::new(Rules::default(), 1);
    /// let mut copy = Game::restore(game.save(), Rules::default());
    /// for dir in [Direction::Left, Direction::Up, Direction::Right] {
    ///     assert_eq!(game.play(dir).ok(), copy.play(dir).ok());
    /// }
    /// assert_eq!(game.board(), copy.board());
    /// ```
    pub fn restore(saved: SavedGame<B>, rules: Rules) -> Game<B> {
        let mut game = Game::from_board(saved.board, rules, saved.seed);
        game.score = saved.score;
        game.moves = saved.moves;
        game.spawner.rng = GameRng::from_state(saved.spawns);
        game
    }

    /// The board.
    pub fn board(&self) -> &B {
        &self.board
    }

    /// The score: the sum of the tiles created by merges.
    pub fn score(&self) -> u64 {
        self.score
    }

    /// Moves played.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The seed the game was started with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether the game is over: no direction changes the board under
    /// [`TurnRule::Standard`], the board is full under [`TurnRule::Tutorial`].
    #[inline(always)]
    pub fn is_over(&self) -> bool {
        match self.rules.turn_rule() {
            TurnRule::Standard => self.board.is_game_over(),
            TurnRule::Tutorial => self.board.count_empty() == 0,
        }
    }

    /// Spawns one tile (the computer's move); `None` when the board is full.
    pub fn spawn(&mut self) -> Option<(usize, u8)> {
        let (board, idx, exponent) = self.spawner.spawn(&self.board)?;
        self.board = board;
        Some((idx, exponent))
    }

    /// Plays a turn: the move, then a spawn.
    ///
    /// # Errors
    /// [`PlayError::GameOver`] once the game is over;
    /// [`PlayError::NothingMoves`] under [`TurnRule::Standard`] when `dir`
    /// changes nothing (nothing spawns then, as in the real game).
    // Always inlined: since the board is two words the compiler had stopped
    // inlining `play`, which cost the game bench 7% more instructions
    // (callgrind, when `play` still tested for game over first).
    //
    // Under the standard rule the move comes first: a move that changes the
    // board proves the game is not over, so only a move that changes
    // nothing asks whether any other would (a batch of games that plays
    // each board once saves a look at all four directions per turn).
    #[inline(always)]
    pub fn play(&mut self, dir: Direction) -> Result<Turn, PlayError> {
        let standard = self.rules.turn_rule() == TurnRule::Standard;
        if !standard && self.is_over() {
            return Err(PlayError::GameOver);
        }
        let slid = self.board.slide(dir);
        if slid.is_none() && standard {
            return Err(if self.is_over() {
                PlayError::GameOver
            } else {
                PlayError::NothingMoves(dir)
            });
        }
        let (board, score_gained) = slid.unwrap_or((self.board, 0));
        self.board = board;
        self.score += u64::from(score_gained);
        self.moves += 1;
        let spawned = self.spawn();
        Ok(Turn { direction: dir, score_gained, moved: slid.is_some(), spawned })
    }
}
