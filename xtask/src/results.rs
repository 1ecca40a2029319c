//! `cargo xtask results`: `docs/results.md` and its plot, `docs/results.svg`.
//!
//! The page has two parts. The first is one section per shipped preset,
//! from the committed per-game records under `docs/data/` that measure it
//! as it ships ([`SHIPPED`]), pooled; `cargo xtask results --committed`
//! regenerates it (and the plot) without playing anything, and a test
//! keeps it equal to what the records give. The second is the full run's:
//! the machine, the speed of the presets whose games are too long to play
//! here, the thread scaling and the criterion benches, which only
//! `cargo xtask results` writes (it plays for many minutes; docs/results.md
//! says how long it took where it last ran). The full run
//! also replays the records of the presets whose full games fit in it
//! ([`RECORDED`]).
//!
//! Tournaments run through the release `lab` binary, which writes one
//! CSV line per game (the `records` crate's format, read back with the same
//! crate); everything after that (the statistics, the tables, the plot)
//! happens here. A run stopped after a number of moves is a speed
//! measurement: its scores and tiles are not a game's, so no table shows
//! them ([`SpeedRun`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use game_core::Tile;
use records::Record;
use records::summary::MILESTONES;

use crate::bench::{self, BenchArgs, BenchRow};
use crate::machine::Machine;
use crate::plot::{self, Series};
use crate::summary;
use crate::util::{Result, cargo, format_duration, project_root, run_checked, target_dir};

/// Scratch space for the per-game CSV files (ignored by git).
const SCRATCH_DIR: &str = "results-tmp";
const RESULTS_MD: &str = "docs/results.md";
const RESULTS_SVG: &str = "docs/results.svg";
/// The committed records: `NAME.csv` in the records format and `NAME.txt`,
/// how its games were played (command, commit, machine).
const RECORDS_DIR: &str = "docs/data";
/// The lab log, where every record is linked from the experiment it
/// belongs to.
#[cfg(test)]
const LOG_DIR: &str = "docs/experiments";
/// The README, whose results table is the summary's copy.
#[cfg(test)]
const README: &str = "README.md";

/// The line that opens the full run's part of `docs/results.md`; what
/// follows it is kept as it is by `--committed`.
const FULL_RUN_HEADING: &str = "## The full run";

/// A shipped preset and the committed records that measure it as it ships.
#[derive(Debug)]
struct Shipped {
    preset: &'static str,
    /// What the preset is, in a sentence.
    about: &'static str,
    /// What it needs beyond the checkout and the toolchain.
    needs: &'static str,
    /// The records (names under [`RECORDS_DIR`], without `.csv`), each a set
    /// of full games on seeds no earlier comparison had used, played by the
    /// preset as it ships today.
    records: &'static [&'static str],
    /// How the records' games were played, which their times depend on
    /// (decisions do not).
    played: &'static str,
    /// Why there are no records, for a preset without any.
    unmeasured: &'static str,
    /// The tiles whose reach the preset's section shows.
    tiles: &'static [Tile],
}

/// The tiles a strong preset's section shows.
const LATE_TILES: &[Tile] = match MILESTONES.first_chunk::<6>() {
    Some(tiles) => tiles,
    None => panic!("fewer than six milestones"),
};

/// Every shipped preset, in the order of the summary table. To add or
/// replace a row: change the entry (and its records), run `cargo xtask
/// results --committed`, and copy the summary table it prints into the
/// README, whose copy a test checks.
const SHIPPED: &[Shipped] = &[
    Shipped {
        preset: "ntuple-deep",
        about: "the learned network ([ntuple.md](ntuple.md)) searched three plies deep, four \
                where the board has at most 3 empty cells",
        needs: "nothing (the network ships in the repository)",
        records: &[
            "ntuple-deep-264483-seeds-7261-7460",
            "ntuple-deep-264483-seeds-7461-7660",
            "ntuple-deep-264483-seeds-7861-8060",
        ],
        played: "one search thread per game (`--threads 1`; the preset uses every core), one or \
                 two games at once",
        unmeasured: "",
        tiles: LATE_TILES,
    },
    Shipped {
        preset: "ntuple",
        about: "the learned network searched three plies deep",
        needs: "nothing (the network ships in the repository)",
        records: &[
            "stage2mid264k-step16-alone-seeds-7061-7260",
            "ntuple-264483-seeds-7261-7460",
            "ntuple-264483-seeds-7461-7660",
            "ntuple-264483-seeds-7661-7860",
        ],
        played: "one search thread per game (the preset's), two games at once",
        unmeasured: "",
        tiles: LATE_TILES,
    },
    Shipped {
        preset: "corner",
        about: "the corner heuristic five chance layers deep, and the corner tables where they \
                apply ([endgame.md](endgame.md))",
        needs: "the corner tables: 6.7 GB on disk, built once on first use (5.5 minutes on 2 busy \
                cores) or by `lab tables build --preset corner`, then mapped, not read into \
                memory",
        records: &[
            "corner-seeds-5441-5640",
            "corner-seeds-5641-5840",
            "corner-seeds-8061-8260",
            "corner-seeds-8261-8500",
            "corner-seeds-8611-9010",
        ],
        played: "one search thread per game (the preset's), one or two games at once",
        unmeasured: "",
        tiles: LATE_TILES,
    },
    Shipped {
        preset: "corner-big",
        about: "the corner preset's search and block, with macroxue/2048-ai's big step table \
                (building 512) read from odds above 0.1 ([endgame.md](endgame.md))",
        needs: "the corner block and the big step table: 26.0 GB on disk, built once by `lab \
                tables build --preset corner-big` (about 15 minutes on 2 cores), then mapped",
        records: &[
            "corner-big-seeds-8611-9010",
            "corner-big-seeds-9011-9329",
            "corner-big-seeds-9330-9729",
        ],
        played: "one search thread per game (the preset's), one game at a time beside other runs",
        unmeasured: "",
        tiles: LATE_TILES,
    },
    Shipped {
        preset: "heuristic",
        about: "the heuristic ([solver.md](solver.md)) searched `distinct tiles - 2` chance layers deep",
        needs: "nothing",
        records: &["default-long", "default-long-2t"],
        played: "26 games on two search threads, one game at a time; 4 on one thread, two at once",
        unmeasured: "",
        tiles: LATE_TILES,
    },
    Shipped {
        preset: "heuristic-max",
        about: "the heuristic a layer deeper, at a finer cut-off and with a 1 GiB table",
        needs: "nothing",
        records: &[],
        played: "",
        unmeasured: "a full game takes hours on 2 cores; the full run measures the speed of its \
                     first moves",
        tiles: LATE_TILES,
    },
    Shipped {
        preset: "fast",
        about: "the heuristic at most three chance layers deep, on one thread",
        needs: "nothing",
        records: &["fast-seeds-1-200"],
        played: "one search thread per game, two games at once, on a machine loaded by other work \
                 (load average about 10 on 2 cores; its `.txt` says so): the times are inflated",
        unmeasured: "",
        tiles: LATE_TILES,
    },
    Shipped {
        preset: "tutorial",
        about: "the Java tutorial's player, under the tutorial's rules (`--tutorial-rules`)",
        needs: "nothing",
        records: &["tutorial-seeds-1-200"],
        played: "one search thread per game, two games at once, on a machine loaded by other work \
                 (load average about 11 on 2 cores; its `.txt` says so): the times are inflated",
        unmeasured: "",
        tiles: &[Tile::of(128), Tile::of(256), Tile::of(512), Tile::of(1024), Tile::WIN],
    },
];

/// A tournament of full games that the full run plays into a committed
/// record (in a quick run, into scratch space).
#[derive(Debug)]
struct Recorded {
    preset: &'static str,
    games: u32,
    quick_games: u32,
    seed_start: u64,
    /// Further `tournament` flags.
    extra_args: &'static [&'static str],
    /// The record's name under [`RECORDS_DIR`].
    record: &'static str,
}

const RECORDED: &[Recorded] = &[
    Recorded {
        preset: "fast",
        games: 200,
        quick_games: 10,
        seed_start: 1,
        extra_args: &[],
        record: "fast-seeds-1-200",
    },
    Recorded {
        preset: "tutorial",
        games: 200,
        quick_games: 10,
        seed_start: 1,
        extra_args: &["--tutorial-rules"],
        record: "tutorial-seeds-1-200",
    },
];

/// Games stopped after a number of moves: the speed of a preset whose full
/// games take too long to play here (several minutes to hours each).
#[derive(Debug)]
struct SpeedRun {
    preset: &'static str,
    games: u32,
    quick_games: u32,
    max_moves: u32,
}

const SPEED_RUNS: &[SpeedRun] = &[
    SpeedRun { preset: "heuristic", games: 6, quick_games: 1, max_moves: 1500 },
    SpeedRun { preset: "heuristic-max", games: 2, quick_games: 1, max_moves: 1000 },
];

/// The thread-scaling run: one preset, a few games, at 1 thread and at every
/// core, compared by moves per second.
const SCALING_PRESET: &str = "heuristic";
const SCALING_GAMES: u32 = 2;
const SCALING_QUICK_GAMES: u32 = 1;
/// The scaling games stop here: the same seeds give the same games at every
/// thread count, so their times compare the same work.
const SCALING_MAX_MOVES: u32 = 1500;

/// What `results` was asked to do.
#[derive(Debug, Default, Clone, PartialEq, Eq, clap::Args)]
pub(crate) struct ResultsArgs {
    /// A small run (a few games, criterion's --quick) for checking the
    /// pipeline; it writes no records, and its figures are not to be quoted.
    #[arg(long)]
    pub(crate) quick: bool,
    /// Play nothing: regenerate the shipped presets' sections of
    /// docs/results.md and docs/results.svg from the committed records in
    /// docs/data (the full run's part is kept), and print the summary
    /// table that the README shows.
    #[arg(long, conflicts_with = "quick")]
    pub(crate) committed: bool,
}

pub(crate) fn run(args: &ResultsArgs) -> Result<()> {
    if args.committed {
        let presets = shipped_records()?;
        let path = project_root().join(RESULTS_MD);
        let published = fs::read_to_string(&path).unwrap_or_default();
        let full_run = full_run_part(&published).unwrap_or(NO_FULL_RUN);
        fs::write(&path, format!("{}{full_run}", committed_markdown(&presets)))?;
        fs::write(project_root().join(RESULTS_SVG), plot_svg(&presets))?;
        print!("{}", summary_table(&presets));
        println!("\nwrote the shipped presets' sections of {RESULTS_MD}, and {RESULTS_SVG}");
        return Ok(());
    }
    let started = Instant::now();
    let machine = Machine::detect();
    let mut commands =
        vec![format!("cargo xtask results{}", if args.quick { " --quick" } else { "" })];

    let binary = build_lab()?;
    commands.push("cargo build --release -p lab".to_owned());

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
    for recorded in RECORDED {
        let (games, dir) = if args.quick {
            (recorded.quick_games, SCRATCH_DIR)
        } else {
            (recorded.games, RECORDS_DIR)
        };
        let csv = format!("{dir}/{}.csv", recorded.record);
        let mut tournament_args =
            tournament_args(recorded.preset, games, recorded.seed_start, &csv);
        tournament_args.extend(recorded.extra_args.iter().map(|s| s.to_string()));
        let outcome = run_tournament(&binary, &tournament_args, &csv)?;
        if !args.quick {
            let txt = project_root().join(RECORDS_DIR).join(format!("{}.txt", recorded.record));
            fs::write(txt, provenance(recorded, &outcome.command, &machine))?;
        }
        commands.push(outcome.command);
    }

    let mut speed = Vec::new();
    for run in SPEED_RUNS {
        let games = if args.quick { run.quick_games } else { run.games };
        let csv = format!("{SCRATCH_DIR}/{}.csv", run.preset);
        let mut speed_args = tournament_args(run.preset, games, 1, &csv);
        speed_args.extend(["--max-moves".to_owned(), run.max_moves.to_string()]);
        let outcome = run_tournament(&binary, &speed_args, &csv)?;
        commands.push(outcome.command.clone());
        speed.push(SpeedOutcome::of(run.preset, run.max_moves, &outcome));
    }

    let games = if args.quick { SCALING_QUICK_GAMES } else { SCALING_GAMES };
    let mut scaling = Vec::new();
    for threads in thread_counts(&machine.cores) {
        let csv = format!("{SCRATCH_DIR}/scaling-{threads}.csv");
        let mut scaling_args = tournament_args(SCALING_PRESET, games, 1, &csv);
        scaling_args.extend(["--threads".to_owned(), threads.to_string()]);
        scaling_args.extend(["--max-moves".to_owned(), SCALING_MAX_MOVES.to_string()]);
        // One game at a time: the threads under test are the search's.
        scaling_args.extend(["--parallel".to_owned(), "1".to_owned()]);
        let outcome = run_tournament(&binary, &scaling_args, &csv)?;
        commands.push(outcome.command.clone());
        scaling.push((threads, SpeedOutcome::of(SCALING_PRESET, SCALING_MAX_MOVES, &outcome)));
    }

    let presets = shipped_records()?;
    fs::write(project_root().join(RESULTS_SVG), plot_svg(&presets))?;
    let full_run = FullRun { quick: args.quick, machine, bench_rows, speed, scaling, commands };
    let md = format!("{}{}", committed_markdown(&presets), full_run_markdown(&full_run));
    fs::write(project_root().join(RESULTS_MD), md)?;
    println!("\nwrote {RESULTS_MD} and {RESULTS_SVG} in {}", format_duration(started.elapsed()));
    Ok(())
}

/// Builds the release lab, which plays the tournaments, and returns its
/// path.
fn build_lab() -> Result<PathBuf> {
    let mut cmd = cargo();
    cmd.args(["build", "--release", "-p", "lab"]);
    println!("==> {}", crate::util::render(&cmd));
    run_checked(&mut cmd)?;
    Ok(target_dir().join("release").join(format!("lab{}", std::env::consts::EXE_SUFFIX)))
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

/// What the `.txt` beside a record the full run wrote says.
fn provenance(recorded: &Recorded, command: &str, machine: &Machine) -> String {
    format!(
        "Full games of the `{}` preset, seeds {} to {}, played by `cargo xtask results` at commit \
         {}: `{command}` (the tournament's default parallelism: as many games at once as cores), \
         on a {} ({} logical CPUs, {}, {}), {}. Decisions do not depend on time or thread \
         count; the times do, and the machine may have been shared.\n",
        recorded.preset,
        recorded.seed_start,
        recorded.seed_start + u64::from(recorded.games) - 1,
        machine.commit,
        machine.cpu,
        machine.cores,
        machine.memory,
        machine.rustc,
        machine.date,
    )
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

/// A run stopped after a number of moves, as far as it can be told: the
/// moves played and their time. It keeps no scores or tiles, which are not
/// a game's, so nothing can report them.
#[derive(Debug, Clone, PartialEq)]
struct SpeedOutcome {
    preset: &'static str,
    max_moves: u32,
    games: usize,
    moves: u64,
    millis: f64,
    wall: Duration,
}

impl SpeedOutcome {
    fn of(preset: &'static str, max_moves: u32, outcome: &Outcome) -> SpeedOutcome {
        SpeedOutcome {
            preset,
            max_moves,
            games: outcome.records.len(),
            moves: outcome.records.iter().map(|r| r.moves).sum(),
            millis: outcome.records.iter().map(|r| r.millis).sum(),
            wall: outcome.wall,
        }
    }

    fn millis_per_move(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.millis / self.moves as f64)
    }

    fn moves_per_second(&self) -> Option<f64> {
        (self.millis > 0.0).then(|| self.moves as f64 * 1000.0 / self.millis)
    }
}

/// A shipped preset with its records read.
#[derive(Debug)]
struct PresetRecords {
    shipped: &'static Shipped,
    /// Each record's name and games.
    runs: Vec<(String, Vec<Record>)>,
}

impl PresetRecords {
    fn pooled(&self) -> Vec<Record> {
        self.runs.iter().flat_map(|(_, records)| records.iter().cloned()).collect()
    }
}

/// Reads the records of every shipped preset.
fn shipped_records() -> Result<Vec<PresetRecords>> {
    SHIPPED
        .iter()
        .map(|shipped| {
            let runs = shipped
                .records
                .iter()
                .map(|&name| Ok((name.to_owned(), read_record(name)?)))
                .collect::<Result<Vec<_>>>()?;
            Ok(PresetRecords { shipped, runs })
        })
        .collect()
}

/// The games of the committed record `name`.
fn read_record(name: &str) -> Result<Vec<Record>> {
    let path = project_root().join(RECORDS_DIR).join(format!("{name}.csv"));
    let text = fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
    Ok(records::read_csv(&text).map_err(|err| format!("{}: {err}", path.display()))?)
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

const PLOT_TITLE: &str = "Score distribution per shipped preset (committed records, pooled)";

/// The plot of every shipped preset's pooled scores.
fn plot_svg(presets: &[PresetRecords]) -> String {
    let series: Vec<Series> = presets
        .iter()
        .filter(|p| !p.runs.is_empty())
        .map(|p| Series {
            name: p.shipped.preset.to_owned(),
            scores: p.pooled().iter().map(|r| r.score).collect(),
        })
        .collect();
    plot::score_distribution_svg(PLOT_TITLE, &series)
}

/// The first part of `docs/results.md`: the summary and one section per
/// shipped preset, all from the committed records.
fn committed_markdown(presets: &[PresetRecords]) -> String {
    let mut md = String::from(
        "# Results\n\n\
         <!-- Generated by `cargo xtask results` (the shipped presets' sections by `cargo xtask \
         results --committed`): edit xtask/src/results.rs, not this file. -->\n\n\
         How strong and how fast each shipped preset is, from the committed per-game records \
         under [`data/`](data/): full games (4x4, standard rules unless said) on seeds that no \
         earlier comparison had used, pooled. Each record's `.txt` says how its games were \
         played: the command, the commit, the machine (a 2-vCPU AMD EPYC, 23.5 GiB, rustc \
         1.95.0, unless it says otherwise) and what else ran on it. Decisions do not depend on \
         time or thread count, so the same build plays the same games anywhere; the times \
         depend on the machine and its load. *Time per move* is the mean: all games' time over \
         all their moves. How every record came about, and the records of settings not \
         shipped: [the lab log](experiments/README.md).\n\n## Summary\n\n",
    );
    md.push_str(&summary_table(presets));
    for preset in presets {
        md.push_str(&preset_section(preset));
    }
    md.push_str(
        "\n## Score distribution\n\n![Score distribution per shipped preset: histograms on a \
         log scale and box plots (whiskers at the extremes, box from the 25th to the 75th \
         percentile, bar at the median)](results.svg)\n\n",
    );
    md
}

/// The summary table, a row per shipped preset with records (a row of
/// dashes would read as a result), then a line naming the shipped presets
/// left out and why: the README shows both too.
fn summary_table(presets: &[PresetRecords]) -> String {
    let mut md = String::from(
        "| preset | games | median score | 16384 | 32768 | 65536 | time per move | needs |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
    );
    let mut unmeasured = Vec::new();
    for preset in presets {
        let name = preset.shipped.preset;
        let needs = preset.shipped.needs;
        match summary::of(&preset.pooled()) {
            Some(s) => md.push_str(&format!(
                "| `{name}` | {} | {} | {} | {} | {} | {} | {needs} |\n",
                s.games,
                group_thousands(s.median_score),
                percent(s.reach_rate(Tile::of(16384))),
                percent(s.reach_rate(Tile::of(32768))),
                percent(s.reach_rate(Tile::of(65536))),
                s.millis_per_move().map_or("–".to_owned(), format_millis),
            )),
            None => unmeasured.push(match preset.shipped.unmeasured {
                "" => format!("`{name}`"),
                why => format!("`{name}` ({why})"),
            }),
        }
    }
    if !unmeasured.is_empty() {
        let them = if unmeasured.len() == 1 { "it" } else { "them" };
        md.push_str(&format!(
            "\nAlso shipped, not in the table as no full games of {them} are recorded: {}.\n",
            unmeasured.join(", ")
        ));
    }
    md
}

/// One shipped preset's section: a row per record, then the pooled row.
fn preset_section(preset: &PresetRecords) -> String {
    let shipped = preset.shipped;
    let mut md = format!(
        "\n## `{}`\n\n{}. Needs: {}.\n\n",
        shipped.preset,
        capitalised(shipped.about),
        shipped.needs
    );
    if preset.runs.is_empty() {
        md.push_str(&format!("No full games recorded: {}.\n", shipped.unmeasured));
        return md;
    }
    md.push_str("| record | games | seeds | median score |");
    for tile in shipped.tiles {
        md.push_str(&format!(" {tile} |"));
    }
    md.push_str(" time per move |\n| --- | ---: | --- | ---: |");
    md.push_str(&" ---: |".repeat(shipped.tiles.len()));
    md.push_str(" ---: |\n");
    let row = |label: String, records: &[Record]| -> String {
        let Some(s) = summary::of(records) else { return String::new() };
        let mut line = format!(
            "| {label} | {} | {} | {} |",
            s.games,
            seed_span(records),
            group_thousands(s.median_score)
        );
        for &tile in shipped.tiles {
            line.push_str(&format!(" {} |", percent(s.reach_rate(tile))));
        }
        line.push_str(&format!(
            " {} |\n",
            s.millis_per_move().map_or("–".to_owned(), format_millis)
        ));
        line
    };
    for (name, records) in &preset.runs {
        md.push_str(&row(format!("[`{name}`](data/{name}.csv)"), records));
    }
    if preset.runs.len() > 1 {
        md.push_str(&row("**all**".to_owned(), &preset.pooled()));
    }
    md.push_str(&format!("\nPlayed with {}.\n", shipped.played));
    md
}

/// The seeds a record's games were played from, as runs: `7261-7460`, or
/// `3-15, 18-30`; a count when they are scattered over many runs.
fn seed_span(records: &[Record]) -> String {
    let mut seeds: Vec<u64> = records.iter().map(|r| r.seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for seed in seeds.iter().copied() {
        match runs.last_mut() {
            Some((_, hi)) if *hi + 1 == seed => *hi = seed,
            _ => runs.push((seed, seed)),
        }
    }
    if runs.len() > 4 {
        return format!("{} seeds", seeds.len());
    }
    let run = |&(lo, hi): &(u64, u64)| if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") };
    runs.iter().map(run).collect::<Vec<_>>().join(", ")
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

fn percent(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

/// A score with its thousands grouped: `387,128`.
fn group_thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (idx, c) in digits.chars().enumerate() {
        if idx > 0 && (digits.len() - idx).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The full run's part when there has been none since the page took this
/// form.
const NO_FULL_RUN: &str = "## The full run\n\n\
    `cargo xtask results` (about 15 minutes on 2 cores) adds here the machine, the speed of the \
    first moves of the presets whose full games are too long to play (`heuristic`, \
    `heuristic-max`), the thread scaling and the criterion benches. It has not run since this \
    page took its form; the last run, of 2026-11-22, is in the lab log: \
    [2026-11-22-results-run.md](experiments/2026-11-22-results-run.md).\n";

/// The full run's part of a published page: from its heading to the end.
fn full_run_part(published: &str) -> Option<&str> {
    published.find(&format!("\n{FULL_RUN_HEADING}\n")).map(|at| &published[at + 1..])
}

/// Everything the full run adds.
#[derive(Debug)]
struct FullRun {
    quick: bool,
    machine: Machine,
    bench_rows: Vec<BenchRow>,
    speed: Vec<SpeedOutcome>,
    scaling: Vec<(usize, SpeedOutcome)>,
    commands: Vec<String>,
}

fn full_run_markdown(run: &FullRun) -> String {
    let mut md = format!("{FULL_RUN_HEADING}\n\n");
    if run.quick {
        md.push_str(
            "> **Quick run** (`cargo xtask results --quick`): too few games to quote, and no \
             records written. Run `cargo xtask results` for the published figures.\n\n",
        );
    }
    md.push_str(
        "Written by `cargo xtask results` on the machine below, which also replayed the \
         `fast` and `tutorial` records above.\n\n### Machine\n\n",
    );
    md.push_str(&run.machine.markdown());
    md.push_str(&speed_markdown(&run.speed));
    md.push_str(&scaling_markdown(&run.scaling));
    md.push_str(
        "\n### Benchmarks\n\nCriterion medians from `cargo bench` of game-core and \
         solver-expectimax (also printed by `cargo xtask bench`). Where a benchmark \
         declares a throughput, the last columns give the time per element and the \
         rate (for the search benchmarks an element is a move application: every \
         direction tried at a max node, the usual measure of a 2048 search's speed).\n\n",
    );
    if run.bench_rows.is_empty() {
        md.push_str("No benchmark results were produced.\n");
    } else {
        md.push_str(&bench::markdown_table(&run.bench_rows));
    }
    md.push_str(
        "\n### Commands\n\nRun from the workspace root; `cargo xtask results` runs all of them.\n\n```sh\n",
    );
    for command in &run.commands {
        md.push_str(command);
        md.push('\n');
    }
    md.push_str("```\n");
    md
}

/// The speed of games stopped after a number of moves: how many moves and
/// how fast, never a score or a tile (the games did not end).
fn speed_markdown(runs: &[SpeedOutcome]) -> String {
    let mut md = String::from(
        "\n### Speed of the first moves\n\nPresets whose full games take too long to play here, \
         stopped after a fixed number of moves (seeds from 1, as many games at once as cores): \
         their time per move, not their strength, which only full games measure.\n\n\
         | preset | games | stopped after | moves | time per move | wall time |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for run in runs {
        md.push_str(&format!(
            "| `{}` | {} | {} moves | {} | {} | {} |\n",
            run.preset,
            run.games,
            run.max_moves,
            run.moves,
            run.millis_per_move().map_or("–".to_owned(), format_millis),
            format_duration(run.wall),
        ));
    }
    md
}

fn scaling_markdown(scaling: &[(usize, SpeedOutcome)]) -> String {
    let mut md = format!(
        "\n### Thread scaling\n\nThe `{SCALING_PRESET}` preset on the same seeds at each thread \
         count, one game at a time, the first {SCALING_MAX_MOVES} moves; the speed-up is in moves \
         per second of game time.\n\n\
         | threads | games | moves per second | speed-up |\n|---:|---:|---:|---:|\n"
    );
    let base = scaling.first().and_then(|(_, o)| o.moves_per_second());
    for (threads, outcome) in scaling {
        let rate = outcome.moves_per_second();
        let speed_up = match (rate, base) {
            (Some(rate), Some(base)) if base > 0.0 => format!("{:.2}x", rate / base),
            _ => "–".to_owned(),
        };
        md.push_str(&format!(
            "| {threads} | {} | {} | {speed_up} |\n",
            outcome.games,
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

    fn game(seed: u64, score: u64, max_tile: u32) -> Record {
        Record {
            seed,
            score,
            max_tile: Tile::of(max_tile),
            moves: 1000,
            millis: 2000.0,
            median_decision_micros: Some(1500 + seed * 100),
            p99_decision_micros: None,
        }
    }

    fn machine() -> Machine {
        Machine {
            cpu: "Test CPU".to_owned(),
            cores: "2".to_owned(),
            memory: "1.0 GiB".to_owned(),
            os: "Linux".to_owned(),
            rustc: "rustc 1.95.0".to_owned(),
            date: "today".to_owned(),
            commit: "abc1234".to_owned(),
        }
    }

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
    fn renders_a_section_per_preset_and_the_summary() {
        static WITH: Shipped = Shipped {
            preset: "fast",
            about: "a test preset",
            needs: "nothing",
            records: &[],
            played: "one thread",
            unmeasured: "",
            tiles: LATE_TILES,
        };
        static WITHOUT: Shipped = Shipped {
            preset: "heuristic-max",
            about: "too slow",
            needs: "nothing",
            records: &[],
            played: "",
            unmeasured: "a game takes hours",
            tiles: LATE_TILES,
        };
        let presets = [
            PresetRecords {
                shipped: &WITH,
                runs: vec![
                    ("a".to_owned(), vec![game(5, 20_000, 2048), game(6, 40_000, 4096)]),
                    ("b".to_owned(), vec![game(7, 600_000, 32768)]),
                ],
            },
            PresetRecords { shipped: &WITHOUT, runs: vec![] },
        ];
        let md = committed_markdown(&presets);
        assert!(
            md.contains("| `fast` | 3 | 40,000 | 33.3% | 33.3% | 0.0% | 2.00 ms | nothing |"),
            "{md}"
        );
        // A preset without records has no row of dashes, and is named below.
        assert!(!md.contains("| `heuristic-max` |"), "{md}");
        assert!(
            md.contains("Also shipped, not in the table as no full games of it are recorded: `heuristic-max` (a game takes hours).\n"),
            "{md}"
        );
        assert!(md.contains("## `fast`\n\nA test preset. Needs: nothing.\n"), "{md}");
        assert!(
            md.contains(
                "| [`a`](data/a.csv) | 2 | 5-6 | 30,000 | 100.0% | 50.0% | 0.0% | 0.0% | 0.0% | 0.0% | 2.00 ms |"
            ),
            "{md}"
        );
        assert!(md.contains("| **all** | 3 | 5-7 | 40,000 |"), "{md}");
        assert!(md.contains("Played with one thread.\n"), "{md}");
        assert!(md.contains("No full games recorded: a game takes hours.\n"), "{md}");
        assert!(md.contains("](results.svg)"));
        // The header, its rule and the one preset with records.
        assert_eq!(summary_table(&presets).lines().filter(|l| l.starts_with('|')).count(), 3);
    }

    #[test]
    fn renders_the_full_run() {
        let outcome = |records: Vec<Record>| Outcome {
            command: "target/release/lab tournament --preset heuristic".to_owned(),
            wall: Duration::from_secs(3),
            records,
        };
        let run = FullRun {
            quick: true,
            machine: machine(),
            bench_rows: vec![BenchRow {
                id: "moves/left".to_owned(),
                median_ns: 2.0,
                throughput: None,
            }],
            speed: vec![SpeedOutcome::of("heuristic", 1500, &outcome(vec![game(1, 30_000, 2048)]))],
            scaling: vec![
                (1, SpeedOutcome::of("heuristic", 1500, &outcome(vec![game(1, 1, 2)]))),
                (2, SpeedOutcome::of("heuristic", 1500, &outcome(vec![game(1, 1, 2)]))),
            ],
            commands: vec!["cargo xtask results --quick".to_owned()],
        };
        let md = full_run_markdown(&run);
        assert!(md.starts_with(&format!("{FULL_RUN_HEADING}\n")));
        assert!(md.contains("> **Quick run**"));
        assert!(md.contains("- CPU: Test CPU (2 logical CPUs)"));
        assert!(md.contains("| `heuristic` | 1 | 1500 moves | 1000 | 2.00 ms | 3.0s |"), "{md}");
        assert!(md.contains("| 2 | 1 | 500.0 | 1.00x |"), "{md}");
        assert!(md.contains("| `moves/left` | 2.00 ns | – | – |"));
        assert!(md.ends_with("```sh\ncargo xtask results --quick\n```\n"));
        // The page's two parts meet at the heading, and --committed finds it.
        let page = format!("# Results\n\nsome sections\n{md}");
        assert_eq!(full_run_part(&page), Some(md.as_str()));
        assert_eq!(full_run_part("# Results\n"), None);
    }

    /// A run stopped after a number of moves is not a game: its tiles and
    /// scores must never be shown as if it were (the page once gave the
    /// heuristic's 1,500-move runs "4096 in 0%"). Its outcome keeps no
    /// tiles or scores, and its table reports moves and times only.
    #[test]
    fn a_truncated_run_shows_no_reach_rates_or_scores() {
        let stopped = Outcome {
            command: String::new(),
            wall: Duration::from_secs(1),
            records: vec![game(1, 30_260, 2048), game(2, 30_840, 2048)],
        };
        let md = speed_markdown(&[SpeedOutcome::of("heuristic", 1500, &stopped)]);
        let row = md.lines().find(|l| l.starts_with("| `heuristic`")).expect("a row");
        assert!(!row.contains('%'), "a reach rate in `{row}`");
        assert!(!row.contains("2048") && !row.contains("30260") && !row.contains("30,"), "{row}");
        assert!(!md.contains("score") && !md.contains("reached"), "{md}");
        assert!(row.contains("1500 moves"), "{row}");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(387_128.0), "387,128");
        assert_eq!(group_thousands(1_103_956.0), "1,103,956");
        assert_eq!(group_thousands(4_496.0), "4,496");
        assert_eq!(group_thousands(512.0), "512");
        assert_eq!(group_thousands(387_186.5), "387,186");
    }

    #[test]
    fn seed_spans_read_as_ranges() {
        assert_eq!(seed_span(&[game(3, 1, 2), game(1, 1, 2), game(2, 1, 2)]), "1-3");
        assert_eq!(seed_span(&[game(1, 1, 2), game(2, 1, 2), game(16, 1, 2)]), "1-2, 16");
        let scattered: Vec<Record> = (0..5).map(|k| game(k * 10, 1, 2)).collect();
        assert_eq!(seed_span(&scattered), "5 seeds");
    }

    /// `docs/results.md`'s shipped-preset sections are exactly what the
    /// committed records give today: a record cannot be added to a preset,
    /// or change, without the page, and the format and the statistics
    /// cannot drift from the published figures.
    #[test]
    fn results_md_agrees_with_the_committed_records() {
        let published = fs::read_to_string(project_root().join(RESULTS_MD)).unwrap();
        let presets = shipped_records().unwrap();
        let expected = committed_markdown(&presets);
        let full_run = full_run_part(&published)
            .unwrap_or_else(|| panic!("{RESULTS_MD} has no `{FULL_RUN_HEADING}` part"));
        let committed = &published[..published.len() - full_run.len()];
        assert!(
            committed == expected,
            "{RESULTS_MD} is not what the committed records give: run `cargo xtask results \
             --committed`"
        );
        assert!(!presets.iter().all(|p| p.runs.is_empty()), "no committed records");
        // Every shipped preset has its section, and only shipped presets do.
        assert_eq!(
            SHIPPED.iter().map(|s| s.preset).collect::<Vec<_>>(),
            [
                "ntuple-deep",
                "ntuple",
                "corner",
                "corner-big",
                "heuristic",
                "heuristic-max",
                "fast",
                "tutorial"
            ]
        );
    }

    /// The README's results table is the summary of `docs/results.md`, row
    /// for row, so the two cannot tell different figures.
    #[test]
    fn the_readme_shows_the_summary_table() {
        let readme = fs::read_to_string(project_root().join(README)).unwrap();
        let table = summary_table(&shipped_records().unwrap());
        assert!(
            readme.contains(&table),
            "README.md does not show the summary table as `cargo xtask results --committed` \
             prints it:\n{table}"
        );
    }

    /// Every committed record can be found: it measures a shipped preset
    /// here or is linked from the lab log entry it belongs to, and has the
    /// `.txt` that says how it was played. A shipped preset's records exist.
    #[test]
    fn every_record_is_findable_in_the_log() {
        let root = project_root();
        let log: String = fs::read_dir(root.join(LOG_DIR))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .map(|p| fs::read_to_string(p).unwrap())
            .collect();
        let mut unlinked = Vec::new();
        for entry in fs::read_dir(root.join(RECORDS_DIR)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "csv") {
                continue;
            }
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(path.with_extension("txt").exists(), "{name}.csv has no {name}.txt");
            let shipped = SHIPPED.iter().any(|s| s.records.contains(&name.as_str()));
            if !shipped && !log.contains(&format!("{name}.csv")) {
                unlinked.push(name);
            }
        }
        assert!(unlinked.is_empty(), "records linked from no entry of {LOG_DIR}: {unlinked:?}");
        for name in SHIPPED.iter().flat_map(|s| s.records) {
            assert!(root.join(RECORDS_DIR).join(format!("{name}.csv")).exists(), "{name}");
        }
    }

    #[test]
    fn a_recorded_run_says_how_it_was_played() {
        let text = provenance(&RECORDED[0], "target/release/lab tournament", &machine());
        assert!(text.starts_with("Full games of the `fast` preset, seeds 1 to 200"), "{text}");
        assert!(text.contains("at commit abc1234: `target/release/lab tournament`"), "{text}");
        assert!(
            text.contains("Test CPU (2 logical CPUs, 1.0 GiB, rustc 1.95.0), today."),
            "{text}"
        );
        for recorded in RECORDED {
            assert!(
                SHIPPED.iter().any(|s| s.records.contains(&recorded.record)),
                "{} is not a shipped preset's record",
                recorded.record
            );
        }
    }
}
