//! Throughput of the packed board over thousands of realistic boards (taken
//! from seeded random games), not one board in a loop: a move per direction,
//! all four moves, the empty count, a spawn, a whole random game.
//!
//! Each bench checks its result against a checksum computed once beforehand
//! by the general [`Grid`] (a different code path), so a fast path that is
//! wrong cannot look good.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use game_core::{Board, Direction, Game, GameBoard, GameRng, Grid, Rules, Spawner};

const N_BOARDS: usize = 4096;

/// Plays a random game from `seed`, picking uniformly among the legal
/// directions; calls `visit` on every board reached.
fn random_game(seed: u64, mut visit: impl FnMut(Board)) -> Game<Board> {
    let mut game = Game::new(Rules::default(), seed);
    let mut rng = GameRng::new(seed ^ 0x5EED);
    visit(*game.board());
    loop {
        let legal = game.board().legal_directions();
        if legal.is_empty() {
            return game;
        }
        let dir = legal.iter().nth(rng.below(legal.len())).expect("in range");
        game.play(dir).expect("a legal direction");
        visit(*game.board());
    }
}

/// `N_BOARDS` boards from seeded random games: early, middle and late boards
/// alike, in game order (which does not help the branch predictor, since the
/// benches' work does not branch on the board).
fn realistic_boards() -> Vec<Board> {
    let mut boards = Vec::with_capacity(N_BOARDS);
    let mut seed = 0;
    while boards.len() < N_BOARDS {
        random_game(seed, |b| boards.push(b));
        seed += 1;
    }
    boards.truncate(N_BOARDS);
    boards
}

/// The checksum a bench must reproduce, from the general grid.
fn grid_checksum(boards: &[Board], f: impl Fn(Grid) -> u64) -> u64 {
    boards.iter().fold(0u64, |acc, &b| acc.wrapping_add(f(Grid::from(b))))
}

/// The grid's cells as [`Board::raw`] packs them, cell (row, col) at bits
/// `4 * (4 * row + col)`, worked out from the grid alone.
fn packed(grid: Grid) -> u64 {
    (0..16).fold(0, |raw, i| {
        raw | u64::from(grid.exponent(i / 4, i % 4).unwrap_or(0).min(15)) << (4 * i)
    })
}

fn moves(c: &mut Criterion) {
    let boards = realistic_boards();
    let mut group = c.benchmark_group("moves");
    group.throughput(Throughput::Elements(N_BOARDS as u64));

    for dir in Direction::ALL {
        let want = grid_checksum(&boards, |g| packed(g.slide_unscored(dir)));
        group.bench_function(dir.name(), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for &board in black_box(&boards[..]) {
                    acc = acc.wrapping_add(board.slide_unscored(dir).raw());
                }
                assert_eq!(acc, want);
                acc
            })
        });
    }

    // All four moves of each board, with their scores and legality, as a
    // search expands a node: throughput counts boards (four moves each).
    let want = grid_checksum(&boards, |g| {
        Direction::ALL.iter().fold(0u64, |acc, &d| match g.slide(d) {
            Some((after, score)) => acc.wrapping_add(packed(after) ^ u64::from(score)),
            None => acc.wrapping_add(1),
        })
    });
    group.bench_function("all_four", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &board in black_box(&boards[..]) {
                for dir in Direction::ALL {
                    acc = acc.wrapping_add(match board.slide(dir) {
                        Some((after, score)) => after.raw() ^ u64::from(score),
                        None => 1,
                    });
                }
            }
            assert_eq!(acc, want);
            acc
        })
    });

    let want = grid_checksum(&boards, |g| g.count_empty() as u64);
    group.bench_function("count_empty", |b| {
        b.iter(|| {
            let mut acc = 0usize;
            for &board in black_box(&boards[..]) {
                acc += board.count_empty();
            }
            assert_eq!(acc as u64, want);
            acc
        })
    });

    let want = grid_checksum(&boards, |g| u64::from(g.legal_directions().len() as u8));
    group.bench_function("legal_directions", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &board in black_box(&boards[..]) {
                acc += GameBoard::legal_directions(&board).len() as u64;
            }
            assert_eq!(acc, want);
            acc
        })
    });

    // A spawn on every board that has room, from one seeded spawner (fresh
    // for each pass so that every pass spawns the same tiles).
    let spawn_sum = |boards: &[Board], spawn: &mut dyn FnMut(&Board) -> Option<u64>| {
        boards.iter().fold(0u64, |acc, b| acc.wrapping_add(spawn(b).unwrap_or(7)))
    };
    let mut spawner = Spawner::new(9, 0.1);
    let want = spawn_sum(&boards, &mut |b| {
        spawner
            .spawn(&Grid::from(*b))
            .map(|(g, idx, e)| packed(g) ^ (idx as u64) << 4 ^ u64::from(e))
    });
    group.bench_function("spawn", |b| {
        b.iter(|| {
            let mut spawner = Spawner::new(9, 0.1);
            let acc = spawn_sum(black_box(&boards[..]), &mut |b| {
                spawner.spawn(b).map(|(b, idx, e)| b.raw() ^ (idx as u64) << 4 ^ u64::from(e))
            });
            assert_eq!(acc, want);
            acc
        })
    });
    group.finish();

    // A whole game with random legal directions, seeded: throughput counts
    // its moves (each a legality check, a move, a spawn).
    let mut group = c.benchmark_group("game");
    let reference = random_game(1, |_| {});
    let (moves, score) = (reference.moves(), reference.score());
    group.throughput(Throughput::Elements(moves));
    group.bench_function("random_game", |b| {
        b.iter(|| {
            let game = random_game(black_box(1), |_| {});
            assert_eq!((game.moves(), game.score()), (moves, score));
            game.score()
        })
    });
    group.finish();
}

criterion_group!(benches, moves);
criterion_main!(benches);
