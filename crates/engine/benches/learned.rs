//! The learned presets' decision time by game phase, on one and two
//! threads, with the shipped weights: the network and the search as the
//! frontends join them (`SolverSpec::build`), each table cleared
//! (untimed) before an iteration as the solver's own bench does.

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use engine::{Overrides, Setting, SolverSpec};
use game_core::{Board, Rules};
use solver_expectimax::Preset;

/// The solver's committed bench positions (early, middle and late game).
const POSITIONS: &str = include_str!("../../solver-expectimax/benches/positions.txt");

fn decide(c: &mut Criterion) {
    let rules = Rules::default();
    let positions: Vec<(String, Board)> = POSITIONS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let parts: Vec<&str> = l.split('|').map(str::trim).collect();
            (parts[0].to_owned(), parts[1].parse().expect("a valid board"))
        })
        .collect();
    for preset in [Preset::Ntuple, Preset::NtupleDeep] {
        let spec = SolverSpec::new(preset);
        let mut group = c.benchmark_group(format!("decide/{preset}"));
        group.sample_size(10);
        for phase in ["early", "middle", "late"] {
            let set: Vec<Board> =
                positions.iter().filter(|(p, _)| p == phase).map(|(_, b)| *b).collect();
            for threads in [1, 2] {
                let solver = spec
                    .clone()
                    .with_overrides(Overrides::default().with(Setting::Threads, threads))
                    .with_table_cap(64 << 20)
                    .build(4)
                    .expect("the shipped weights");
                let moves: u64 =
                    set.iter().map(|b| solver.decide(b, &rules).expect("a move").stats.moves).sum();
                group.throughput(Throughput::Elements(moves));
                group.bench_function(BenchmarkId::new(phase, format!("{threads}t")), |b| {
                    b.iter_batched(
                        || solver.clear_table(),
                        |()| {
                            for board in &set {
                                let d = solver.decide(black_box(board), &rules).expect("a move");
                                assert!(board.legal_directions().contains(d.direction));
                            }
                        },
                        BatchSize::PerIteration,
                    );
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, decide);
criterion_main!(benches);
