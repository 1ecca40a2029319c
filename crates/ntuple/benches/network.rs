//! The network's speed: one board's value (ns per board, over boards from
//! real games, so that the look-ups miss the caches as they do in play),
//! the greedy move, training moves per second on one and two threads (from
//! a fresh network, and from the shipped weights as a real run goes), and
//! loading the shipped file. The learned presets' decision time is the
//! engine's bench (`cargo bench -p engine`), where the network meets the
//! search.

use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use game_core::{Board, Game, Rules};
use ntuple::{Counters, Network, TrainConfig, Trainer};

/// Boards from greedy games of a network trained for a few hundred
/// episodes: the positions (and the spread of weights touched) of play.
fn positions(net: &Network, n: usize) -> Vec<Board> {
    let mut boards = Vec::with_capacity(n);
    let mut seed = 1;
    while boards.len() < n {
        let mut game = Game::new(Rules::default(), seed);
        seed += 1;
        while let Some(best) = net.best_move(*game.board()) {
            boards.push(best.after);
            game.play(best.direction).expect("legal");
        }
    }
    boards.truncate(n);
    boards
}

/// The values of `boards`, summed. A function of its own, never inlined,
/// so that an instruction count (`valgrind --tool=callgrind` on this bench
/// with `--profile-time`) gives the instructions per board: its inclusive
/// count over its calls times `boards.len()`.
#[inline(never)]
fn value_sum(net: &Network, boards: &[Board]) -> f32 {
    boards.iter().map(|&board| net.value(black_box(board))).sum()
}

/// A trainer of the standard settings on `threads` threads that plays
/// `episodes` episodes from `net`, whose training so far `counters` gives.
fn trainer(threads: usize, net: Network, counters: Counters, episodes: u64) -> Trainer {
    let mut config = TrainConfig::standard();
    config.threads = threads;
    config.episodes = Some(counters.episodes + episodes);
    Trainer::new(config, net, counters).expect("valid")
}

/// [`trainer`] from a fresh network.
fn fresh_trainer(threads: usize, episodes: u64) -> Trainer {
    trainer(threads, Network::filled(0.0), Counters::default(), episodes)
}

fn bench(c: &mut Criterion) {
    let warm = fresh_trainer(1, 500);
    warm.run(&AtomicBool::new(false));
    let net = warm.network();
    let boards = positions(net, 100_000);
    // A check that the bench measures something real: trained values are
    // positive on boards from play.
    assert!(boards.iter().take(100).all(|&b| net.value(b) > 0.0));

    let mut group = c.benchmark_group("network");
    group.throughput(Throughput::Elements(boards.len() as u64));
    group.bench_function("value", |b| b.iter(|| value_sum(net, &boards)));
    // The same network promoted to two stages: equal values, and the stage
    // test is the only extra work.
    let staged = Network::from_weights(net.weights())
        .and_then(|n| n.into_stages(2).ok())
        .expect("a network of one stage promotes to two");
    assert_eq!(value_sum(&staged, &boards[..1000]), value_sum(net, &boards[..1000]));
    group.bench_function("value-2-stages", |b| b.iter(|| value_sum(&staged, &boards)));
    drop(staged);
    group.bench_function("best_move", |b| {
        b.iter(|| boards.iter().filter_map(|&board| net.best_move(black_box(board))).count())
    });
    group.finish();

    // Training: time per move over the first 300 episodes of a fresh
    // network, whose short games touch few weights and mostly hit the
    // caches (`threads-N`), and over 40 episodes resumed from the shipped
    // weights, whose long games and 1.5 GiB of weights and TC state miss
    // them as a real run does (`shipped-threads-N`). `cli-ascii train`
    // asks glibc for huge pages; run the bench with
    // `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` to compare with it, since a
    // process cannot set that for itself once started.
    let mut group = c.benchmark_group("train");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    for threads in [1usize, 2] {
        group.bench_function(format!("threads-{threads}"), |b| {
            b.iter_custom(|iters| {
                (0..iters).map(|_| time_per_move(fresh_trainer(threads, 300))).sum()
            })
        });
    }
    let shipped = ntuple::load_weights(Path::new(ntuple::SHIPPED_WEIGHTS))
        .expect("the shipped weights (crates/ntuple/weights)");
    for threads in [1usize, 2] {
        group.bench_function(format!("shipped-threads-{threads}"), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        // A fresh copy each time (untimed), so every sample
                        // starts from the same network.
                        let net = Network::from_weights(shipped.network.weights())
                            .expect("the shipped shape");
                        let counters =
                            Counters { episodes: shipped.episodes, ..Counters::default() };
                        time_per_move(trainer(threads, net, counters, 40))
                    })
                    .sum()
            })
        });
    }
    group.finish();
}

/// Runs `t` to its episode limit and returns the time per move it played,
/// so that the bench's figure is ns per training move.
fn time_per_move(t: Trainer) -> Duration {
    let before = t.counters().moves;
    let start = Instant::now();
    t.run(&AtomicBool::new(false));
    start.elapsed().div_f64((t.counters().moves - before) as f64)
}

/// Loading the shipped weights file: read, decompress, check, decode.
fn load(c: &mut Criterion) {
    let path = std::path::Path::new(ntuple::SHIPPED_WEIGHTS);
    let mut group = c.benchmark_group("weights");
    group.sample_size(10);
    group.bench_function("load", |b| {
        b.iter(|| ntuple::load_weights(black_box(path)).expect("the shipped weights").episodes)
    });
    group.finish();
}

criterion_group!(benches, bench, load);
criterion_main!(benches);
