//! Shared test helpers: seeded positions from real games.

use game_core::{Board, Game, GameBoard, GameRng, Rules};

/// Boards met in seeded games of a random player, keeping those whose empty
/// count is in `empties`: realistic positions of every phase.
pub(crate) fn sample_boards(
    n: usize,
    empties: std::ops::RangeInclusive<usize>,
    seed: u64,
) -> Vec<Board> {
    let mut out = Vec::new();
    let mut rng = GameRng::new(seed);
    let mut game_seed = seed;
    while out.len() < n {
        let mut game = Game::new(Rules::default(), game_seed);
        game_seed += 1;
        while !game.is_over() && out.len() < n {
            let legal: Vec<_> = game.board().legal_directions().iter().collect();
            // Favour a corner strategy a little so boards grow big tiles.
            let dir = if rng.below(4) > 0 { legal[0] } else { legal[rng.below(legal.len())] };
            game.play(dir).expect("legal");
            if empties.contains(&game.board().count_empty()) && rng.below(3) == 0 {
                out.push(*game.board());
            }
        }
    }
    out
}
