//! `cargo xtask bench`: runs the criterion benches of the engine and the
//! solver, then summarises the medians criterion wrote under
//! `target/criterion` as one Markdown table.
//!
//! With `--rounds N` it runs them N times, one round after another, and
//! gives each benchmark's median over the rounds with its range, and for
//! every benchmark measured on several thread counts (ids ending in `/1t`,
//! `/2t`, ...) the speed-up over one thread taken within each round. On a
//! shared virtual machine the same binary's time moves by tens of percent
//! from one minute to the next, so a ratio of two runs minutes apart says
//! little; a ratio of two runs seconds apart, repeated, says more.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Deserialize;

use crate::util::{Result, cargo, run_checked};

/// The crates whose benches make up the project's figures, in report order.
pub(crate) const BENCH_CRATES: &[&str] = &["game-core", "solver-expectimax"];

/// What `bench` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub(crate) struct BenchArgs {
    /// Pass criterion's --quick (criterion 0.8 stops sampling once the
    /// significance level is reached).
    #[arg(long)]
    pub(crate) quick: bool,
    /// Run the benches this many times and report medians over the rounds,
    /// their ranges and the thread speed-ups within each round.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) rounds: u32,
    /// Arguments for criterion itself, after `--` (e.g. a name filter).
    #[arg(last = true, value_name = "CRITERION_ARGS")]
    pub(crate) criterion_args: Vec<String>,
}

pub(crate) fn run(args: &BenchArgs) -> Result<()> {
    let mut rounds = Vec::new();
    for round in 1..=args.rounds {
        if args.rounds > 1 {
            println!("\n==> round {round} of {}", args.rounds);
        }
        let rows = run_benches(args)?;
        // Each round's own table as it ends, so that a failure in a later
        // round loses none of the earlier ones.
        if args.rounds > 1 && !rows.is_empty() {
            println!("\nround {round}:");
            print!("{}", markdown_table(&rows));
        }
        rounds.push(rows);
    }
    println!();
    match rounds.as_slice() {
        _ if rounds.iter().all(Vec::is_empty) => {
            println!("No criterion results were written by this run.");
        }
        [rows] => print!("{}", markdown_table(rows)),
        _ => {
            print!("{}", rounds_table(&rounds));
            let scaling = scaling_table(&rounds);
            if !scaling.is_empty() {
                println!();
                print!("{scaling}");
            }
        }
    }
    Ok(())
}

/// Runs every bench target of [`BENCH_CRATES`] and returns the results this
/// run wrote.
pub(crate) fn run_benches(args: &BenchArgs) -> Result<Vec<BenchRow>> {
    let metadata = cargo_metadata()?;
    let started = SystemTime::now();
    for &krate in BENCH_CRATES {
        let targets = metadata.bench_targets(krate);
        if targets.is_empty() {
            return Err(format!("{krate} has no bench target (cargo metadata)").into());
        }
        // Name each bench target: a bare `cargo bench -p` would also run the
        // library under libtest's harness, which rejects criterion's flags.
        let mut cmd = cargo();
        cmd.args(["bench", "-p", krate]);
        for target in &targets {
            cmd.args(["--bench", target]);
        }
        cmd.arg("--");
        if args.quick {
            cmd.arg("--quick");
        }
        cmd.args(&args.criterion_args);
        println!("\n==> {}", crate::util::render(&cmd));
        run_checked(&mut cmd)?;
    }
    let criterion_dir = match std::env::var_os("CRITERION_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => metadata.target_directory.join("criterion"),
    };
    collect(&criterion_dir, started)
}

/// What xtask reads of `cargo metadata --format-version 1`.
#[derive(Debug, Deserialize)]
struct Metadata {
    target_directory: PathBuf,
    packages: Vec<Package>,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    targets: Vec<Target>,
}

#[derive(Debug, Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
}

impl Metadata {
    /// The names of `package`'s bench targets.
    fn bench_targets(&self, package: &str) -> Vec<&str> {
        let Some(pkg) = self.packages.iter().find(|p| p.name == package) else {
            return Vec::new();
        };
        let benches = pkg.targets.iter().filter(|t| t.kind.iter().any(|k| k == "bench"));
        benches.map(|t| t.name.as_str()).collect()
    }
}

fn cargo_metadata() -> Result<Metadata> {
    let mut cmd = cargo();
    cmd.args(["metadata", "--no-deps", "--format-version", "1"]);
    let out = cmd.output().map_err(|err| format!("cannot run `cargo metadata`: {err}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`cargo metadata` failed ({}): {}", out.status, stderr.trim()).into());
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|err| format!("cannot read `cargo metadata`'s output: {err}").into())
}

/// How much work one iteration of a benchmark does: criterion's own
/// `Throughput`, in the form its serde derive writes (`{"Elements": 4096}`,
/// `{"ElementsAndBytes": {"elements": 1, "bytes": 8}}`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) enum Throughput {
    Bits(u64),
    Bytes(u64),
    BytesDecimal(u64),
    Elements(u64),
    ElementsAndBytes { elements: u64, bytes: u64 },
}

impl Throughput {
    /// The count per iteration and its unit; elements win when both are
    /// given.
    fn count_and_unit(self) -> (u64, &'static str) {
        match self {
            Throughput::Elements(n) | Throughput::ElementsAndBytes { elements: n, .. } => {
                (n, "elem")
            }
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => (n, "B"),
            Throughput::Bits(n) => (n, "bit"),
        }
    }
}

/// What xtask reads of criterion's `new/benchmark.json`.
#[derive(Debug, Deserialize)]
struct BenchmarkFile {
    full_id: String,
    throughput: Option<Throughput>,
}

/// What xtask reads of criterion's `new/estimates.json`.
#[derive(Debug, Deserialize)]
struct EstimatesFile {
    median: Estimate,
}

#[derive(Debug, Deserialize)]
struct Estimate {
    /// Nanoseconds per iteration.
    point_estimate: f64,
}

/// One benchmark's result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BenchRow {
    /// The full id, `group/function/value`.
    pub(crate) id: String,
    /// The median time of one iteration, in nanoseconds.
    pub(crate) median_ns: f64,
    pub(crate) throughput: Option<Throughput>,
}

impl BenchRow {
    /// Builds a row from the `benchmark.json` and `estimates.json` criterion
    /// writes in a benchmark's `new/` directory.
    pub(crate) fn from_files(benchmark: &str, estimates: &str) -> Result<BenchRow> {
        let benchmark: BenchmarkFile = serde_json::from_str(benchmark)
            .map_err(|err| format!("cannot read benchmark.json: {err}"))?;
        let estimates: EstimatesFile = serde_json::from_str(estimates)
            .map_err(|err| format!("cannot read estimates.json: {err}"))?;
        Ok(BenchRow {
            id: benchmark.full_id,
            median_ns: estimates.median.point_estimate,
            throughput: benchmark.throughput,
        })
    }
}

/// Reads every `new/{benchmark,estimates}.json` under `criterion_dir` written
/// at or after `since`, in the order they were written. Older results (from
/// earlier runs or other filters) are left out so the table shows this run.
pub(crate) fn collect(criterion_dir: &Path, since: SystemTime) -> Result<Vec<BenchRow>> {
    let mut new_dirs = Vec::new();
    find_new_dirs(criterion_dir, &mut new_dirs);
    let mut rows = Vec::new();
    for dir in new_dirs {
        let estimates_path = dir.join("estimates.json");
        let Ok(modified) = fs::metadata(&estimates_path).and_then(|m| m.modified()) else {
            continue;
        };
        if modified < since {
            continue;
        }
        let (Ok(benchmark), Ok(estimates)) =
            (fs::read_to_string(dir.join("benchmark.json")), fs::read_to_string(&estimates_path))
        else {
            continue;
        };
        let row = BenchRow::from_files(&benchmark, &estimates)
            .map_err(|err| format!("{}: {err}", dir.display()))?;
        rows.push((modified, row));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
    Ok(rows.into_iter().map(|(_, row)| row).collect())
}

/// Collects the directories named `new` that hold a `benchmark.json`;
/// criterion keeps the previous run in `base/` and its report in `report/`.
fn find_new_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut subdirs: Vec<PathBuf> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect();
    subdirs.sort();
    for sub in subdirs {
        if sub.file_name().is_some_and(|n| n == "new") {
            if sub.join("benchmark.json").is_file() {
                out.push(sub);
            }
        } else {
            find_new_dirs(&sub, out);
        }
    }
}

/// The table: benchmark, median, and time per unit and throughput when the
/// benchmark declares a throughput.
pub(crate) fn markdown_table(rows: &[BenchRow]) -> String {
    let mut out =
        String::from("| benchmark | median | per unit | throughput |\n|---|---:|---:|---:|\n");
    for row in rows {
        let (per_unit, throughput) = match row.throughput {
            Some(t) => {
                let (count, unit) = t.count_and_unit();
                let per_unit_ns = row.median_ns / count as f64;
                let per_second = count as f64 / (row.median_ns * 1e-9);
                (
                    format!("{}/{unit}", format_ns(per_unit_ns)),
                    format!("{} {unit}/s", format_si(per_second)),
                )
            }
            None => ("–".to_owned(), "–".to_owned()),
        };
        out.push_str(&format!(
            "| `{}` | {} | {per_unit} | {throughput} |\n",
            row.id,
            format_ns(row.median_ns)
        ));
    }
    out
}

/// Each benchmark's median over the rounds that measured it, with the
/// fastest and slowest round, in the order of the first round that has it.
pub(crate) fn rounds_table(rounds: &[Vec<BenchRow>]) -> String {
    let mut out = String::from(
        "| benchmark | rounds | median of the rounds | fastest | slowest |\n|---|---:|---:|---:|---:|\n",
    );
    for id in ids_in_order(rounds) {
        let times: Vec<f64> =
            rounds.iter().flatten().filter(|r| r.id == id).map(|r| r.median_ns).collect();
        let (fastest, slowest) = min_max(&times);
        out.push_str(&format!(
            "| `{id}` | {} | {} | {} | {} |\n",
            times.len(),
            format_ns(median(&times)),
            format_ns(fastest),
            format_ns(slowest)
        ));
    }
    out
}

/// For every benchmark id of the form `PREFIX/<n>t` with n > 1 whose
/// `PREFIX/1t` ran in the same round: the one-thread time divided by the
/// n-thread time, per round, as its median over the rounds and its range,
/// and each round's ratio in round order (`–` for a round without the
/// pair). Empty when no round has such a pair.
pub(crate) fn scaling_table(rounds: &[Vec<BenchRow>]) -> String {
    let mut lines = String::new();
    for id in ids_in_order(rounds) {
        let Some((prefix, threads)) = split_threads(&id) else { continue };
        if threads < 2 {
            continue;
        }
        let one = format!("{prefix}/1t");
        // Per round, in round order; `None` where a round lacks either.
        let per_round: Vec<Option<f64>> = rounds
            .iter()
            .map(|round| {
                let time = |id: &str| round.iter().find(|r| r.id == id).map(|r| r.median_ns);
                Some(time(&one)? / time(&id)?)
            })
            .collect();
        let ratios: Vec<f64> = per_round.iter().flatten().copied().collect();
        if ratios.is_empty() {
            continue;
        }
        let (low, high) = min_max(&ratios);
        let each: Vec<String> = per_round
            .iter()
            .map(|r| r.map_or_else(|| "–".to_owned(), |r| format!("{r:.2}")))
            .collect();
        lines.push_str(&format!(
            "| `{prefix}` | {threads} | {:.2} | {low:.2} to {high:.2} | {} |\n",
            median(&ratios),
            each.join(", ")
        ));
    }
    if lines.is_empty() {
        return lines;
    }
    format!(
        "| benchmark | threads | speed-up over 1 thread, median of the rounds | range | each round |\n\
         |---|---:|---:|---|---|\n{lines}"
    )
}

/// `("decide/default/early", 2)` from `decide/default/early/2t`.
fn split_threads(id: &str) -> Option<(&str, u32)> {
    let (prefix, last) = id.rsplit_once('/')?;
    let threads = last.strip_suffix('t')?.parse().ok()?;
    Some((prefix, threads))
}

/// Every id of the rounds once, in the order of first appearance.
fn ids_in_order(rounds: &[Vec<BenchRow>]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for row in rounds.iter().flatten() {
        if !ids.contains(&row.id) {
            ids.push(row.id.clone());
        }
    }
    ids
}

/// The median of a non-empty list (the mean of the middle two for an even
/// length).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) { (sorted[mid - 1] + sorted[mid]) / 2.0 } else { sorted[mid] }
}

fn min_max(values: &[f64]) -> (f64, f64) {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

/// A time in nanoseconds with a unit that keeps three or four significant
/// digits: `1.93 ns`, `12.4 µs`, `3.21 s`.
pub(crate) fn format_ns(ns: f64) -> String {
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", three_digits(value))
}

/// A rate with an SI prefix: `517 M`, `1.20 G`.
pub(crate) fn format_si(value: f64) -> String {
    const PREFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, prefix) in PREFIXES {
        if value >= scale {
            return format!("{}{prefix}", three_digits(value / scale));
        }
    }
    three_digits(value)
}

fn three_digits(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The two files as criterion 0.8 writes them (trimmed confidence
    // intervals), for a group with an element throughput.
    const BENCHMARK_JSON: &str = r#"{"group_id":"moves","function_id":"left","value_str":null,"throughput":{"Elements":4096},"full_id":"moves/left","directory_name":"moves/left","title":"moves/left"}"#;
    const ESTIMATES_JSON: &str = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":8000.0,"upper_bound":8400.0},"point_estimate":8200.0,"standard_error":10.0},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":8100.0,"upper_bound":8300.0},"point_estimate":8192.0,"standard_error":12.0},"median_abs_dev":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.5,"standard_error":0.1},"slope":null,"std_dev":{"confidence_interval":{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0},"point_estimate":1.5,"standard_error":0.1}}"#;

    #[test]
    fn reads_criterion_files_and_prints_a_table() {
        let row = BenchRow::from_files(BENCHMARK_JSON, ESTIMATES_JSON).unwrap();
        assert_eq!(
            row,
            BenchRow {
                id: "moves/left".to_owned(),
                median_ns: 8192.0,
                throughput: Some(Throughput::Elements(4096))
            }
        );
        let plain = BenchRow { id: "empty count".to_owned(), median_ns: 0.731, throughput: None };
        assert_eq!(
            markdown_table(&[row, plain]),
            "| benchmark | median | per unit | throughput |\n\
             |---|---:|---:|---:|\n\
             | `moves/left` | 8.19 µs | 2.00 ns/elem | 500M elem/s |\n\
             | `empty count` | 0.73 ns | – | – |\n"
        );
    }

    #[test]
    fn reads_every_throughput_and_refuses_incomplete_files() {
        let with = |throughput: &str| {
            let benchmark = format!(
                r#"{{"group_id":"search","full_id":"search/d","throughput":{throughput}}}"#
            );
            BenchRow::from_files(&benchmark, ESTIMATES_JSON).unwrap().throughput
        };
        let both = with(r#"{"ElementsAndBytes":{"elements":7,"bytes":56}}"#).unwrap();
        assert_eq!(both.count_and_unit(), (7, "elem"));
        assert_eq!(with(r#"{"BytesDecimal":10}"#).unwrap().count_and_unit(), (10, "B"));
        assert_eq!(with("null"), None);
        let err = BenchRow::from_files(BENCHMARK_JSON, "{}").unwrap_err().to_string();
        assert!(err.contains("estimates.json") && err.contains("median"), "{err}");
    }

    #[test]
    fn collects_only_fresh_new_directories() {
        let dir = std::env::temp_dir().join(format!("xtask-bench-test-{}", std::process::id()));
        let new_dir = dir.join("moves").join("left").join("new");
        let base_dir = dir.join("moves").join("left").join("base");
        fs::create_dir_all(&new_dir).unwrap();
        fs::create_dir_all(&base_dir).unwrap();
        for d in [&new_dir, &base_dir] {
            fs::write(d.join("benchmark.json"), BENCHMARK_JSON).unwrap();
            fs::write(d.join("estimates.json"), ESTIMATES_JSON).unwrap();
        }
        let past = SystemTime::UNIX_EPOCH;
        let rows = collect(&dir, past).unwrap();
        let future = SystemTime::now() + std::time::Duration::from_secs(3600);
        let stale = collect(&dir, future).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(rows.len(), 1, "only `new/`, not `base/`");
        assert_eq!(rows[0].id, "moves/left");
        assert!(stale.is_empty());
    }

    #[test]
    fn summarises_rounds_and_thread_speed_ups_within_each_round() {
        let row = |id: &str, ms: f64| BenchRow {
            id: id.to_owned(),
            median_ns: ms * 1e6,
            throughput: None,
        };
        let rounds = vec![
            vec![row("d/early/1t", 4.0), row("d/early/2t", 2.0), row("moves/left", 1.0)],
            vec![row("d/early/1t", 6.0), row("d/early/2t", 4.0), row("moves/left", 3.0)],
            // A round where 2t ran without 1t gives no ratio.
            vec![row("d/early/2t", 1.0), row("moves/left", 2.0)],
        ];
        assert_eq!(
            rounds_table(&rounds),
            "| benchmark | rounds | median of the rounds | fastest | slowest |\n\
             |---|---:|---:|---:|---:|\n\
             | `d/early/1t` | 2 | 5.00 ms | 4.00 ms | 6.00 ms |\n\
             | `d/early/2t` | 3 | 2.00 ms | 1.00 ms | 4.00 ms |\n\
             | `moves/left` | 3 | 2.00 ms | 1.00 ms | 3.00 ms |\n"
        );
        assert_eq!(
            scaling_table(&rounds),
            "| benchmark | threads | speed-up over 1 thread, median of the rounds | range | each round |\n\
             |---|---:|---:|---|---|\n\
             | `d/early` | 2 | 1.75 | 1.50 to 2.00 | 2.00, 1.50, – |\n"
        );
        assert_eq!(scaling_table(&rounds[2..]), "", "no pair, no table");
        assert_eq!(split_threads("decide/fast/late/12t"), Some(("decide/fast/late", 12)));
        assert_eq!(split_threads("decide/fast/late/2t-handed-over"), None);
        assert_eq!(split_threads("moves/left"), None);
    }

    #[test]
    fn formats_times_and_rates() {
        assert_eq!(format_ns(1.934), "1.93 ns");
        assert_eq!(format_ns(12_345.0), "12.3 µs");
        assert_eq!(format_ns(456_000_000.0), "456 ms");
        assert_eq!(format_ns(3.2e9), "3.20 s");
        assert_eq!(format_si(517e6), "517M");
        assert_eq!(format_si(1.2e9), "1.20G");
        assert_eq!(format_si(12.0), "12.0");
    }
}
