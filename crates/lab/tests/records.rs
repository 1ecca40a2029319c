//! The records files of `tournament` and `compare` lose nothing: a file
//! that holds games is not written over unless asked, a last line cut short
//! does not block a resume, the same network elsewhere resumes, and a
//! summary counts the seeds asked for. Records of long tournaments cost
//! hours of games each, and a slip of the command line must not lose them.

use std::path::PathBuf;

use crate::util::{error_of, run, stdout_of};

/// A scratch folder removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("cli-ascii-records-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().expect("a UTF-8 path").to_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn seeds(path: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut seeds: Vec<u64> = records::read_csv(&text).unwrap().iter().map(|r| r.seed).collect();
    seeds.sort_unstable();
    seeds
}

fn tournament<'a>(csv: &'a str, games: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["tournament", "--player", "random", "--games", games, "--csv", csv];
    args.extend(more);
    args
}

/// Re-running a finished (or stopped) tournament's command without
/// --resume wrote a new file over its games: 30 games became 1.
#[test]
fn a_file_that_holds_games_is_not_written_over_without_resume_or_force() {
    let dir = Scratch::new("refuse");
    let (csv, json) = (dir.path("games.csv"), dir.path("games.json"));
    stdout_of(&tournament(&csv, "3", &["--json", &json]));
    let (csv_text, json_text) =
        (std::fs::read_to_string(&csv).unwrap(), std::fs::read_to_string(&json).unwrap());
    let err = error_of(&tournament(&csv, "1", &[]), None, 1, "already exists");
    assert_eq!(
        err,
        format!(
            "error: {csv} already exists and holds 3 games: --resume keeps its games and plays \
             only the seeds it lacks, --force writes over it\n"
        )
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), csv_text, "untouched");
    // The JSON file too, and before any game.
    let other = dir.path("other.csv");
    let err = error_of(&tournament(&other, "1", &["--json", &json]), None, 1, "already exists");
    assert!(err.contains(&format!("{json} already exists and holds 3 games: --force")), "{err}");
    assert_eq!(std::fs::read_to_string(&json).unwrap(), json_text, "untouched");
    // --force writes over both; --resume keeps the CSV's games and writes
    // the JSON again.
    stdout_of(&tournament(&csv, "1", &["--json", &json, "--force"]));
    assert_eq!(seeds(&csv), [1]);
    stdout_of(&tournament(&csv, "2", &["--json", &json, "--resume"]));
    assert_eq!(seeds(&csv), [1, 2]);
    let in_json = records::read_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(in_json.iter().map(|r| r.seed).collect::<Vec<_>>(), [1, 2]);
    // A file that holds no game (a run stopped before its first one) is
    // no loss: the same command runs again.
    let header_only: String =
        std::fs::read_to_string(&csv).unwrap().lines().take(2).collect::<Vec<_>>().join("\n");
    std::fs::write(&csv, header_only + "\n").unwrap();
    stdout_of(&tournament(&csv, "1", &[]));
    assert_eq!(seeds(&csv), [1]);
    // Nor are a comparison's files written over.
    let (a, b) = (dir.path("a.csv"), dir.path("b.csv"));
    let args = [
        "compare",
        "--a",
        "--player random",
        "--b",
        "--player random",
        "--games",
        "2",
        "--tile",
        "64",
        "--csv-a",
        &a,
        "--csv-b",
        &b,
    ];
    stdout_of(&args);
    let b_text = std::fs::read_to_string(&b).unwrap();
    error_of(&args, None, 1, &format!("{a} already exists and holds 2 games: --resume"));
    assert_eq!(std::fs::read_to_string(&b).unwrap(), b_text, "untouched");
    let forced = [&args[..], &["--force"]].concat();
    stdout_of(&forced);
    // --force with --resume, or with no file to write, makes no sense.
    let both = [&forced[..], &["--resume"]].concat();
    error_of(&both, None, 2, "'--force' cannot be used with '--resume'");
    error_of(&["tournament", "--games", "1", "--force"], None, 2, "--csv");
}

/// A run killed while it wrote a line left it cut short, and every resume
/// stopped at it ("line 7: 6 fields, but the header has 7").
#[test]
fn a_last_line_cut_short_is_dropped_and_its_game_played_again() {
    let dir = Scratch::new("torn");
    let csv = dir.path("games.csv");
    stdout_of(&tournament(&csv, "3", &["--parallel", "1"]));
    let text = std::fs::read_to_string(&csv).unwrap();
    let cut = &text[..text.len() - 9];
    let torn_line = cut.lines().last().unwrap().to_owned();
    std::fs::write(&csv, cut).unwrap();
    let out = run(&tournament(&csv, "4", &["--resume"]), None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "warning: {csv}: line 5 (`{torn_line}`) was cut short (a run stopped while writing \
             it): dropped, and its game is played again\n"
        )
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("4 (seeds 1 to 4)"));
    assert_eq!(seeds(&csv), [1, 2, 3, 4], "seed 3 played again, once");
    // The whole lines are kept as they were, the cut one is gone.
    let after = std::fs::read_to_string(&csv).unwrap();
    assert!(after.starts_with(&text[..text.len() - text.lines().last().unwrap().len() - 1]));
    assert_eq!(after.lines().count(), 6, "{after}");
    // A bad line that is not the last is no cut-short write: refused.
    let lines: Vec<&str> = after.lines().collect();
    let bad = format!("{}\n{}\n3,x\n{}\n", lines[0], lines[1], lines[2..].join("\n"));
    std::fs::write(&csv, &bad).unwrap();
    error_of(&tournament(&csv, "4", &["--resume"]), None, 1, "line 3: 2 fields, but the header");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), bad, "untouched");
}

/// A records file named the network by its path too, so the same network
/// in another place (another checkout, another machine, py2048's wheel)
/// could not resume it.
#[test]
fn the_same_network_elsewhere_resumes() {
    let dir = Scratch::new("network");
    let csv = dir.path("games.csv");
    let (here, there) = (dir.path("here.n2048"), dir.path("there.n2048"));
    for copy in [&here, &there] {
        std::fs::copy(ntuple::SHIPPED_WEIGHTS, copy).unwrap();
    }
    let learned = |weights: &str, games: &str| -> Vec<String> {
        let args = ["tournament", "--preset", "ntuple", "--depth", "1", "--max-moves", "20"];
        let more = ["--weights", weights, "--games", games, "--csv", &csv];
        args.iter().chain(&more).map(|a| (*a).to_owned()).collect()
    };
    stdout_of(&strs(&learned(&here, "1")));
    let mut elsewhere = learned(&there, "2");
    elsewhere.push("--resume".to_owned());
    stdout_of(&strs(&elsewhere));
    assert_eq!(seeds(&csv), [1, 2]);
    let made_by = records::made_by(&std::fs::read_to_string(&csv).unwrap()).unwrap().to_owned();
    assert!(made_by.contains("here.n2048"), "the file keeps the path it was made with: {made_by}");
}

/// A file made when the heuristic preset was called `default` did not
/// resume once it was renamed `heuristic`.
#[test]
fn a_file_of_a_presets_old_name_resumes_by_either_name() {
    let dir = Scratch::new("alias");
    let old = dir.path("old.csv");
    let base = ["tournament", "--depth", "1", "--max-moves", "20", "--csv", &old];
    stdout_of(&[&base[..], &["--preset", "heuristic", "--games", "1"]].concat());
    let text = std::fs::read_to_string(&old).unwrap();
    assert!(text.starts_with("# made by: --preset heuristic --depth 1"), "{text}");
    std::fs::write(&old, text.replacen("--preset heuristic", "--preset default", 1)).unwrap();
    for (name, games) in [("heuristic", "2"), ("default", "3")] {
        stdout_of(&[&base[..], &["--preset", name, "--games", games, "--resume"]].concat());
    }
    assert_eq!(seeds(&old), [1, 2, 3]);
}

/// A resume with another seed range counted every game of the file; a run
/// stopped by Ctrl-C named the seeds asked for, not those played.
#[test]
fn a_summary_counts_the_seeds_asked_for() {
    let dir = Scratch::new("range");
    let csv = dir.path("games.csv");
    stdout_of(&tournament(&csv, "5", &[]));
    let out = stdout_of(&tournament(&csv, "2", &["--seed-start", "4", "--resume"]));
    assert!(
        out.contains("games           2 (seeds 4 to 5); 3 more games of other seeds in "),
        "{out}"
    );
    assert!(out.contains(&format!("in {csv} are not counted\n")), "{out}");
    let games_of = |seeds: std::ops::RangeInclusive<u64>| {
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut games: Vec<_> = records::read_csv(&text).unwrap();
        games.retain(|r| seeds.contains(&r.seed));
        games
    };
    let score_max = games_of(4..=5).iter().map(|r| r.score).max().unwrap();
    assert!(out.contains(&format!("score max       {score_max}\n")), "{out}");
    // Seeds 6 and 7 are played; 1 to 3 are left out.
    let out = stdout_of(&tournament(&csv, "4", &["--seed-start", "4", "--resume"]));
    assert!(out.contains("games           4 (seeds 4 to 7); 3 more games"), "{out}");
    assert_eq!(seeds(&csv), [1, 2, 3, 4, 5, 6, 7]);
}
