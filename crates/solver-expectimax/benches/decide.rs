//! Decision time per preset over the committed positions in
//! `benches/positions.txt` (early, middle and late game), and 1 against 2
//! threads. Every iteration checks that each position gets its pinned move,
//! so a faster but different search cannot look good. The throughput unit is
//! the move application (every direction tried at a max node), the usual
//! measure of a 2048 search's speed.
//!
//! `UPDATE_EXPECT=1 cargo bench -p solver-expectimax -- --test` rewrites the
//! pinned moves from the current search (the tutorial's must still agree
//! with the Java transliteration, which `cargo test` checks).

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use game_core::{Board, Direction, Rules};
use solver_expectimax::{Preset, SearchConfig, Solver};

const POSITIONS: &str = include_str!("positions.txt");
const PRESETS: [Preset; 3] = [Preset::Tutorial, Preset::Fast, Preset::Heuristic];

struct Position {
    phase: String,
    board: Board,
    expected: Vec<Option<Direction>>,
}

fn positions() -> Vec<Position> {
    POSITIONS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let parts: Vec<&str> = line.split('|').map(str::trim).collect();
            let expected = parts[2].split_whitespace().map(|d| d.parse().ok()).collect();
            Position {
                phase: parts[0].to_owned(),
                board: parts[1].parse().expect("a valid board"),
                expected,
            }
        })
        .collect()
}

/// The settings a bench runs: the preset's, with at most a 64 MiB table so
/// that clearing it before each iteration is cheap.
fn config(preset: Preset, threads: usize) -> SearchConfig {
    let mut config = preset.config();
    config.threads = threads;
    config.table_bytes = config.table_bytes.min(64 << 20);
    config
}

fn rewrite_expectations(all: &[Position]) {
    let mut out: Vec<String> =
        POSITIONS.lines().take_while(|l| l.starts_with('#')).map(str::to_owned).collect();
    for p in all {
        let moves: Vec<String> = PRESETS
            .iter()
            .map(|&preset| {
                let solver = Solver::new(config(preset, 2)).expect("valid");
                solver.decide(&p.board, &Rules::default()).expect("a move").direction.to_string()
            })
            .collect();
        out.push(format!("{} | {} | {}", p.phase, p.board, moves.join(" ")));
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/positions.txt");
    std::fs::write(path, out.join("\n") + "\n").expect("write positions.txt");
}

fn decide(c: &mut Criterion) {
    let all = positions();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        rewrite_expectations(&all);
        return;
    }
    let rules = Rules::default();
    for (k, &preset) in PRESETS.iter().enumerate() {
        let mut group = c.benchmark_group(format!("decide/{preset}"));
        group.sample_size(10);
        for phase in ["early", "middle", "late"] {
            let set: Vec<&Position> = all.iter().filter(|p| p.phase == phase).collect();
            for threads in [1, 2] {
                // One untimed run gives the work done, for the throughput.
                let solver = Solver::new(config(preset, threads)).expect("valid");
                let moves: u64 = set
                    .iter()
                    .map(|p| solver.decide(&p.board, &rules).expect("a move").stats.moves)
                    .sum();
                group.throughput(Throughput::Elements(moves));
                let id = BenchmarkId::new(phase, format!("{threads}t"));
                // One solver, its table cleared (untimed) before each
                // iteration: every iteration searches cold, as a fresh solver
                // would, without timing the page faults of a new table. The
                // decisions run on the solver's threads, as a game's do
                // (`engine::play_game`), and are timed there: handing the set to the
                // pool and waking this thread again when it is done, which a
                // game does once, would otherwise be timed once per six
                // decisions. `handed-over` times them asked from this thread
                // instead, which costs two wake-ups per decision.
                let pool = solver.search_threads();
                let run = |set: &[&Position]| {
                    for p in set {
                        let d = solver.decide(black_box(&p.board), &rules).expect("a move");
                        assert_eq!(
                            Some(d.direction),
                            p.expected[k],
                            "{preset} on {}: pinned move changed",
                            p.board
                        );
                    }
                };
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| {
                        (0..iters)
                            .map(|_| {
                                solver.clear_table();
                                pool.run(|| {
                                    let start = Instant::now();
                                    run(&set);
                                    start.elapsed()
                                })
                            })
                            .sum::<Duration>()
                    });
                });
                if threads > 1 {
                    let id = BenchmarkId::new(phase, format!("{threads}t-handed-over"));
                    group.bench_function(id, |b| {
                        b.iter_batched(
                            || solver.clear_table(),
                            |()| run(&set),
                            BatchSize::PerIteration,
                        );
                    });
                }
            }
        }
        group.finish();
    }
}

/// The time budget: decisions with a budget must end within the budget plus
/// 5% (and half a millisecond for the clock's granularity and the final
/// bookkeeping). Checked here, not in a timed test, since shared machines are
/// noisy: the bench asserts it for 99% of the decisions it times and prints
/// the share within the limit and the worst case, since a thread the
/// operating system puts aside for a few milliseconds can overshoot any
/// budget.
fn budget(c: &mut Criterion) {
    let all = positions();
    let rules = Rules::default();
    let mut group = c.benchmark_group("budget");
    group.sample_size(10);
    for ms in [5u64, 20, 50] {
        let budget = Duration::from_millis(ms);
        let mut config = config(Preset::HeuristicMax, 2);
        config.time_budget = Some(budget);
        let solver = Solver::new(config).expect("valid");
        let limit = budget.mul_f64(1.05) + Duration::from_micros(500);
        let times = std::sync::Mutex::new(Vec::new());
        group.bench_function(BenchmarkId::new("max-preset", format!("{ms}ms")), |b| {
            // A cold table each time, or the repeated positions would be
            // answered from the table long before any deadline.
            b.iter_batched(
                || solver.clear_table(),
                |()| {
                    for p in all.iter().filter(|p| p.phase != "early") {
                        let d = solver.decide(black_box(&p.board), &rules).expect("a move");
                        times.lock().expect("not poisoned").push(d.elapsed);
                    }
                },
                BatchSize::PerIteration,
            );
        });
        let mut times = times.into_inner().expect("not poisoned");
        // A filter (`cargo bench -- decide/fast`) skips this bench: nothing
        // was timed, so there is nothing to check.
        if times.is_empty() {
            continue;
        }
        times.sort_unstable();
        let within = times.iter().filter(|&&t| t <= limit).count();
        let share = within as f64 / times.len() as f64;
        let worst = times.last().copied().unwrap_or_default();
        // The report goes beside criterion's own lines on stderr.
        let _ = writeln!(
            std::io::stderr(),
            "budget {ms} ms: {within} of {} decisions within {limit:?} ({:.2}%), worst {worst:?}",
            times.len(),
            share * 100.0
        );
        assert!(share >= 0.99, "only {:.2}% of decisions kept the {ms} ms budget", share * 100.0);
    }
    group.finish();
}

criterion_group!(benches, decide, budget);
criterion_main!(benches);
