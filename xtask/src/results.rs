//! `cargo xtask results`: runs the standard benchmarks and seeded
//! tournaments and regenerates `docs/results.md` and its plot,
//! `docs/results.svg`, from scratch.
//!
//! Tournaments run through the release `cli-ascii` binary, which writes one
//! CSV line per game (the `records` crate's format, read back with the same
//! crate); everything after that (the statistics, the tables, the plot)
//! happens here. `cargo xtask results --committed` prints only what comes
//! from the committed records under `docs/data/`, without running anything.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use records::Record;
use std::time::{Duration, Instant};

use crate::bench::{self, BenchArgs, BenchRow};
use crate::machine::Machine;
use crate::plot::{self, Series};
use crate::summary::{self, REACH_TILES, median_decision_millis, reach_rates};
use crate::util::{Result, cargo, format_duration, project_root, run_checked, target_dir};

/// Scratch space for the per-game CSV files (ignored by git).
const SCRATCH_DIR: &str = "results-tmp";
const RESULTS_MD: &str = "docs/results.md";
const RESULTS_SVG: &str = "docs/results.svg";

/// One standard seeded tournament.
#[derive(Debug)]
struct Tournament {
    preset: &'static str,
    games: u32,
    quick_games: u32,
    seed_start: u64,
    /// Further `tournament` flags for this preset.
    extra_args: &'static [&'static str],
    /// What the table should say about these games (empty: full games).
    note: &'static str,
}

/// The published tournaments. Games are numbered from `seed_start`, so a run
/// is the same games every time.
///
/// A full game of the default preset lasts from several minutes to over an
/// hour (tens of thousands of moves), so here its games stop after a fixed
/// number of moves, to fit the whole task in about 15 minutes on 2 cores; its
/// full-game strength comes from the committed long-tournament records (see
/// [`LONG_RUNS_DIR`]). The tutorial preset plays under the tutorial's rules.
const TOURNAMENTS: &[Tournament] = &[
    Tournament {
        preset: "fast",
        games: 200,
        quick_games: 10,
        seed_start: 1,
        extra_args: &[],
        note: "",
    },
    Tournament {
        preset: "default",
        games: 6,
        quick_games: 1,
        seed_start: 1,
        extra_args: &["--max-moves", "1500"],
        note: "first 1,500 moves",
    },
    Tournament {
        preset: "max",
        games: 2,
        quick_games: 1,
        seed_start: 1,
        extra_args: &["--max-moves", "1000"],
        note: "first 1,000 moves",
    },
    Tournament {
        preset: "tutorial",
        games: 200,
        quick_games: 10,
        seed_start: 1,
        extra_args: &["--tutorial-rules"],
        note: "tutorial's rules",
    },
];

/// Committed per-game records of long tournaments (full games, run in the
/// background across sessions): `NAME.csv` in the usual format, and
/// `NAME.txt`, one paragraph on how they were produced (command, commit,
/// machine). `results` summarises them; it does not replay them.
const LONG_RUNS_DIR: &str = "docs/data";

/// The thread-scaling run: one preset, a few games, at 1 thread and at every
/// core, compared by moves per second.
const SCALING_PRESET: &str = "default";
const SCALING_GAMES: u32 = 2;
const SCALING_QUICK_GAMES: u32 = 1;
/// The scaling games stop here: the same seeds give the same games at every
/// thread count, so their times compare the same work.
const SCALING_MAX_MOVES: &str = "1500";

/// What `results` was asked to do.
#[derive(Debug, Default, Clone, PartialEq, Eq, clap::Args)]
pub(crate) struct ResultsArgs {
    /// A small run (a few games, criterion's --quick) for checking the
    /// pipeline; its figures are not to be quoted.
    #[arg(long)]
    pub(crate) quick: bool,
    /// Run nothing: print the table of the committed records in docs/data,
    /// the figures of docs/results.md that come from them.
    #[arg(long, conflicts_with = "quick")]
    pub(crate) committed: bool,
}

pub(crate) fn run(args: &ResultsArgs) -> Result<()> {
    if args.committed {
        print!("{}", long_runs_markdown(&long_runs()?));
        return Ok(());
    }
    let started = Instant::now();
    let machine = Machine::detect();
    let mut commands =
        vec![format!("cargo xtask results{}", if args.quick { " --quick" } else { "" })];

    let binary = build_cli()?;
    commands.push("cargo build --release -p cli-ascii".to_owned());

    let bench_rows = bench::run_benches(&BenchArgs {
        quick: args.quick,
        rounds: 1,
        criterion_args: Vec::new(),
    })?;
    for krate in bench::BENCH_CRATES {
        commands
            .push(format!("cargo bench -p {krate}{}", if args.quick { " -- --quick" } else { "" }));
    }

    fs::create_dir_all(project_root().join(SCRATCH_DIR))?;
    let mut runs = Vec::new();
    for tournament in TOURNAMENTS {
        let games = if args.quick { tournament.quick_games } else { tournament.games };
        let csv = format!("{SCRATCH_DIR}/{}.csv", tournament.preset);
        let mut tournament_args =
            tournament_args(tournament.preset, games, tournament.seed_start, &csv);
        tournament_args.extend(tournament.extra_args.iter().map(|s| s.to_string()));
        let outcome = run_tournament(&binary, &tournament_args, &csv)?;
        commands.push(outcome.command.clone());
        runs.push(TournamentRun {
            preset: tournament.preset,
            seed_start: tournament.seed_start,
            note: tournament.note,
            capped: tournament.extra_args.contains(&"--max-moves"),
            outcome,
        });
    }

    let games = if args.quick { SCALING_QUICK_GAMES } else { SCALING_GAMES };
    let mut scaling = Vec::new();
    for threads in thread_counts(&machine.cores) {
        let csv = format!("{SCRATCH_DIR}/scaling-{threads}.csv");
        let mut scaling_args = tournament_args(SCALING_PRESET, games, 1, &csv);
        scaling_args.extend(["--threads".to_owned(), threads.to_string()]);
        scaling_args.extend(["--max-moves".to_owned(), SCALING_MAX_MOVES.to_owned()]);
        // One game at a time: the threads under test are the search's.
        scaling_args.extend(["--parallel".to_owned(), "1".to_owned()]);
        let outcome = run_tournament(&binary, &scaling_args, &csv)?;
        commands.push(outcome.command.clone());
        scaling.push((threads, outcome));
    }

    // The plot shows final scores only: games stopped after a number of
    // moves are left out, the committed full games of long runs go in.
    let long = long_runs()?;
    let mut series: Vec<Series> = runs
        .iter()
        .filter(|run| !run.capped)
        .map(|run| Series {
            name: run.preset.to_owned(),
            scores: run.outcome.records.iter().map(|r| r.score).collect(),
        })
        .collect();
    series.extend(long.iter().map(LongRun::series));
    let svg = plot::score_distribution_svg(PLOT_TITLE, &series);
    fs::write(project_root().join(RESULTS_SVG), svg)?;

    let report = Report { quick: args.quick, machine, bench_rows, runs, long, scaling, commands };
    fs::write(project_root().join(RESULTS_MD), render_markdown(&report))?;
    println!("\nwrote {RESULTS_MD} and {RESULTS_SVG} in {}", format_duration(started.elapsed()));
    Ok(())
}

/// Builds the release CLI and returns the binary's path.
fn build_cli() -> Result<PathBuf> {
    let mut cmd = cargo();
    cmd.args(["build", "--release", "-p", "cli-ascii"]);
    println!("==> {}", crate::util::render(&cmd));
    run_checked(&mut cmd)?;
    Ok(target_dir().join("release").join(format!("cli-ascii{}", std::env::consts::EXE_SUFFIX)))
}

/// The `tournament` arguments for one seeded run of the expectimax player.
fn tournament_args(preset: &str, games: u32, seed_start: u64, csv: &str) -> Vec<String> {
    [
        "tournament",
        "--player",
        "expectimax",
        "--preset",
        preset,
        "--games",
        &games.to_string(),
        "--seed-start",
        &seed_start.to_string(),
        "--csv",
        csv,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// One, two, ... up to every core, doubling, and every core itself: e.g.
/// `[1, 2]` on two cores, `[1, 2, 4, 6]` on six.
fn thread_counts(cores: &str) -> Vec<usize> {
    let cores = cores.trim().parse::<usize>().unwrap_or(1).max(1);
    let mut counts: Vec<usize> =
        std::iter::successors(Some(1), |n| Some(n * 2)).take_while(|&n| n < cores).collect();
    counts.push(cores);
    counts
}

/// What one tournament run gave.
#[derive(Debug)]
struct Outcome {
    /// The command line, runnable from the workspace root.
    command: String,
    wall: Duration,
    records: Vec<Record>,
}

#[derive(Debug)]
struct TournamentRun {
    preset: &'static str,
    seed_start: u64,
    note: &'static str,
    /// Whether the games stopped after a number of moves (their scores are
    /// not final, so they stay out of the plot).
    capped: bool,
    outcome: Outcome,
}

/// A committed long tournament: its name, provenance and records.
#[derive(Debug)]
struct LongRun {
    name: String,
    provenance: String,
    records: Vec<Record>,
}

impl LongRun {
    fn series(&self) -> Series {
        Series { name: self.name.clone(), scores: self.records.iter().map(|r| r.score).collect() }
    }
}

const PLOT_TITLE: &str = "Score distribution per preset";

/// Reads every `NAME.csv` (with its `NAME.txt`) under [`LONG_RUNS_DIR`].
fn long_runs() -> Result<Vec<LongRun>> {
    let dir = project_root().join(LONG_RUNS_DIR);
    let Ok(entries) = fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    paths.sort();
    let mut runs = Vec::new();
    for path in paths {
        let text = fs::read_to_string(&path)?;
        let records =
            records::read_csv(&text).map_err(|err| format!("{}: {err}", path.display()))?;
        let provenance = fs::read_to_string(path.with_extension("txt")).unwrap_or_default();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        runs.push(LongRun { name, provenance: provenance.trim().to_owned(), records });
    }
    Ok(runs)
}

fn run_tournament(binary: &Path, args: &[String], csv: &str) -> Result<Outcome> {
    let root = project_root();
    let shown_binary = binary.strip_prefix(&root).unwrap_or(binary);
    let command = format!("{} {}", shown_binary.display(), args.join(" "));
    println!("\n==> {command}");
    let csv_path = root.join(csv);
    // A stale file from an earlier run must not pass for this run's output.
    let _ = fs::remove_file(&csv_path);
    let start = Instant::now();
    let status = Command::new(binary)
        .args(args)
        .current_dir(&root)
        .stdin(Stdio::null())
        .status()
        .map_err(|err| format!("cannot start `{command}`: {err}"))?;
    let wall = start.elapsed();
    if !status.success() {
        return Err(format!("`{command}` failed ({status})").into());
    }
    let text = fs::read_to_string(&csv_path)
        .map_err(|err| format!("`{command}` wrote no {}: {err}", csv_path.display()))?;
    let records =
        records::read_csv(&text).map_err(|err| format!("{}: {err}", csv_path.display()))?;
    println!("<== {} games in {}", records.len(), format_duration(wall));
    Ok(Outcome { command, wall, records })
}

/// Everything `docs/results.md` is made of.
#[derive(Debug)]
struct Report {
    pub(crate) quick: bool,
    machine: Machine,
    bench_rows: Vec<BenchRow>,
    runs: Vec<TournamentRun>,
    long: Vec<LongRun>,
    scaling: Vec<(usize, Outcome)>,
    commands: Vec<String>,
}

fn render_markdown(report: &Report) -> String {
    let mut md = String::from(
        "# Results\n\n\
         <!-- Generated by `cargo xtask results`: edit xtask/src/results.rs, not this file. -->\n\n",
    );
    if report.quick {
        md.push_str(
            "> **Quick run** (`cargo xtask results --quick`): too few games to quote. \
             Run `cargo xtask results` for the published figures.\n\n",
        );
    }
    md.push_str(
        "Every figure below comes from one command, `cargo xtask results`, on the machine \
         described here. The tournaments are seeded, so the same build plays the same games \
         on any machine; only the timings change.\n\n## Machine\n\n",
    );
    md.push_str(&report.machine.markdown());

    md.push_str("\n## Tournaments\n\nThe expectimax player, one row per preset; scores are percentiles over the games.\n\n");
    md.push_str("| preset | games | seeds | mean score | 10% | median | 90% | best | time per move | wall time |\n");
    md.push_str("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for run in &report.runs {
        let records = &run.outcome.records;
        let seeds = match records.len() {
            0 => "–".to_owned(),
            n => format!("{}..={}", run.seed_start, run.seed_start + n as u64 - 1),
        };
        let preset = match run.note {
            "" => run.preset.to_owned(),
            note => format!("{} ({note})", run.preset),
        };
        match summary::of(records) {
            Some(s) => md.push_str(&format!(
                "| {} | {} | {seeds} | {:.0} | {} | {:.0} | {} | {} | {} | {} |\n",
                preset,
                s.games,
                s.mean_score,
                s.percentiles.p10,
                s.median_score,
                s.percentiles.p90,
                s.percentiles.max,
                s.millis_per_move().map_or("–".to_owned(), format_millis),
                format_duration(run.outcome.wall),
            )),
            None => md.push_str(&format!("| {preset} | 0 | – | – | – | – | – | – | – | – |\n")),
        }
    }

    md.push_str("\n### Reach rates\n\nThe share of games whose largest tile reached at least each tile.\n\n| preset |");
    for tile in REACH_TILES {
        md.push_str(&format!(" {tile} |"));
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|".repeat(REACH_TILES.len()));
    md.push('\n');
    for run in &report.runs {
        md.push_str(&format!("| {} |", run.preset));
        match summary::of(&run.outcome.records) {
            Some(s) => {
                reach_rates(&s).for_each(|rate| md.push_str(&format!(" {:.1}% |", rate * 100.0)))
            }
            None => md.push_str(&" – |".repeat(REACH_TILES.len())),
        }
        md.push('\n');
    }

    md.push_str(&long_runs_markdown(&report.long));
    md.push_str(
        "\n### Score distribution\n\n![Score distribution per preset: histograms on a log \
         scale and box plots (whiskers at the extremes, box from the 25th to the 75th \
         percentile, bar at the median)](results.svg)\n",
    );

    md.push_str(&scaling_markdown(&report.scaling));
    md.push_str(
        "\n## Benchmarks\n\nCriterion medians from `cargo bench` of game-core and \
         solver-expectimax (also printed by `cargo xtask bench`). Where a benchmark \
         declares a throughput, the last columns give the time per element and the \
         rate (for the search benchmarks an element is a move application: every \
         direction tried at a max node, the usual measure of a 2048 search's speed).\n\n",
    );
    if report.bench_rows.is_empty() {
        md.push_str("No benchmark results were produced.\n");
    } else {
        md.push_str(&bench::markdown_table(&report.bench_rows));
    }

    md.push_str("\n## Commands\n\nRun from the workspace root; `cargo xtask results` runs all of them.\n\n```sh\n");
    for command in &report.commands {
        md.push_str(command);
        md.push('\n');
    }
    md.push_str("```\n");
    md
}

/// The committed long tournaments: a table of their figures, then each
/// run's provenance; empty without any. `--committed` prints this alone:
/// the figures of `docs/results.md` that come from the committed records,
/// which a change to the pipeline can be checked against without playing.
fn long_runs_markdown(runs: &[LongRun]) -> String {
    let mut md = String::new();
    if runs.is_empty() {
        return md;
    }
    md.push_str(
        "\n### Long tournaments (committed records)\n\nFull games too long for this task, \
         played in the background and kept game by game under `docs/data/`; \
         summarised here, not replayed. *Mean per move* is the games' total time \
         over their moves; the deepest late searches take several times the median, \
         so it is well above the typical move. *Per-game medians* is the range of \
         each game's median time per decision, where the records have one.\n\n\
         | run | games | median score | best | mean per move | per-game medians |",
    );
    for tile in REACH_TILES {
        md.push_str(&format!(" {tile} |"));
    }
    md.push_str("\n|---|---:|---:|---:|---:|---:|");
    md.push_str(&"---:|".repeat(REACH_TILES.len()));
    md.push('\n');
    for run in runs {
        let Some(s) = summary::of(&run.records) else { continue };
        let medians = median_decision_millis(&s).map_or("–".to_owned(), |(low, high)| {
            format!("{} to {}", format_millis(low), format_millis(high))
        });
        md.push_str(&format!(
            "| {} | {} | {:.0} | {} | {} | {medians} |",
            run.name,
            s.games,
            s.median_score,
            s.percentiles.max,
            s.millis_per_move().map_or("–".to_owned(), format_millis),
        ));
        reach_rates(&s).for_each(|rate| md.push_str(&format!(" {:.1}% |", rate * 100.0)));
        md.push('\n');
    }
    md.push('\n');
    for run in runs {
        md.push_str(&format!("- `{}`: {}\n", run.name, run.provenance));
    }
    md
}

fn scaling_markdown(scaling: &[(usize, Outcome)]) -> String {
    let mut md = format!(
        "\n## Thread scaling\n\nThe `{SCALING_PRESET}` preset on the same seeds at each thread \
         count; the speed-up is in moves per second of game time.\n\n\
         | threads | games | moves per second | speed-up |\n|---:|---:|---:|---:|\n"
    );
    let base = scaling.first().and_then(|(_, o)| summary::of(&o.records)?.moves_per_second());
    for (threads, outcome) in scaling {
        let rate = summary::of(&outcome.records).and_then(|s| s.moves_per_second());
        let speed_up = match (rate, base) {
            (Some(rate), Some(base)) if base > 0.0 => format!("{:.2}x", rate / base),
            _ => "–".to_owned(),
        };
        md.push_str(&format!(
            "| {threads} | {} | {} | {speed_up} |\n",
            outcome.records.len(),
            rate.map_or("–".to_owned(), |r| format!("{r:.1}"))
        ));
    }
    md
}

fn format_millis(millis: f64) -> String {
    bench::format_ns(millis * 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tournament_command_line() {
        assert_eq!(
            tournament_args("fast", 200, 1, "results-tmp/fast.csv").join(" "),
            "tournament --player expectimax --preset fast --games 200 --seed-start 1 --csv results-tmp/fast.csv"
        );
    }

    #[test]
    fn thread_counts_double_up_to_every_core() {
        assert_eq!(thread_counts("1"), [1]);
        assert_eq!(thread_counts("2\n"), [1, 2]);
        assert_eq!(thread_counts("6"), [1, 2, 4, 6]);
        assert_eq!(thread_counts("8"), [1, 2, 4, 8]);
        assert_eq!(thread_counts("unknown"), [1]);
    }

    #[test]
    fn renders_every_section() {
        let game = |seed, score, max_tile| Record {
            seed,
            score,
            max_tile,
            moves: 1000,
            millis: 2000.0,
            median_decision_micros: Some(1500 + seed * 100),
            p99_decision_micros: None,
        };
        let outcome = |records: Vec<Record>| Outcome {
            command: "target/release/cli-ascii tournament --preset fast".to_owned(),
            wall: Duration::from_secs(3),
            records,
        };
        let report = Report {
            quick: true,
            machine: Machine {
                cpu: "Test CPU".to_owned(),
                cores: "2".to_owned(),
                memory: "1.0 GiB".to_owned(),
                os: "Linux".to_owned(),
                rustc: "rustc 1.95.0".to_owned(),
                date: "today".to_owned(),
                commit: "abc1234".to_owned(),
            },
            bench_rows: vec![BenchRow {
                id: "moves/left".to_owned(),
                median_ns: 2.0,
                throughput: None,
            }],
            runs: vec![
                TournamentRun {
                    preset: "fast",
                    seed_start: 5,
                    note: "",
                    capped: false,
                    outcome: outcome(vec![game(5, 20_000, 2048), game(6, 40_000, 4096)]),
                },
                TournamentRun {
                    preset: "default",
                    seed_start: 1,
                    note: "first 1,500 moves",
                    capped: true,
                    outcome: outcome(vec![]),
                },
            ],
            long: vec![LongRun {
                name: "default-long".to_owned(),
                provenance: "by hand".to_owned(),
                records: vec![game(1, 300_000, 16384), game(2, 600_000, 32768)],
            }],
            scaling: vec![(1, outcome(vec![game(1, 1, 2)])), (2, outcome(vec![game(1, 1, 2)]))],
            commands: vec!["cargo xtask results --quick".to_owned()],
        };
        let md = render_markdown(&report);
        assert!(md.contains("> **Quick run**"));
        assert!(md.contains("- CPU: Test CPU (2 logical CPUs)"));
        assert!(
            md.contains(
                "| fast | 2 | 5..=6 | 30000 | 20000 | 30000 | 40000 | 40000 | 2.00 ms | 3.0s |"
            ),
            "{md}"
        );
        assert!(md.contains("| default (first 1,500 moves) | 0 | – |"), "{md}");
        assert!(
            md.contains("| default-long | 2 | 450000 | 600000 | 2.00 ms | 1.60 ms to 1.70 ms |"),
            "{md}"
        );
        assert!(md.contains("- `default-long`: by hand"), "{md}");
        assert!(
            md.contains(
                "| fast | 100.0% | 100.0% | 100.0% | 100.0% | 50.0% | 0.0% | 0.0% | 0.0% |"
            ),
            "{md}"
        );
        assert!(md.contains("](results.svg)"));
        assert!(md.contains("| 2 | 1 | 500.0 | 1.00x |"), "{md}");
        assert!(md.contains("| `moves/left` | 2.00 ns | – | – |"));
        assert!(md.ends_with("```sh\ncargo xtask results --quick\n```\n"));
    }

    /// `docs/results.md` publishes a row for every record committed under
    /// `docs/data/`, and each row is what the record gives today: a record
    /// cannot be added without its row (two were, unnoticed, while this
    /// test checked only the rows published), and the format and the
    /// statistics cannot drift from the published figures.
    #[test]
    fn results_md_agrees_with_the_committed_records() {
        let published = fs::read_to_string(project_root().join(RESULTS_MD)).unwrap();
        let runs = long_runs().unwrap();
        let rendered = long_runs_markdown(&runs);
        let row_of = |md: &str, name: &str| {
            md.lines().find(|l| l.starts_with(&format!("| {name} |"))).map(str::to_owned)
        };
        assert!(!runs.is_empty(), "no committed records under docs/data");
        for run in &runs {
            let row = row_of(&published, &run.name).unwrap_or_else(|| {
                panic!(
                    "{RESULTS_MD} has no row for {}: run `cargo xtask results --committed`",
                    run.name
                )
            });
            assert_eq!(Some(row), row_of(&rendered, &run.name), "{}", run.name);
        }
    }
}
