//! `tournament`: the summary and the per-game records.

use std::time::Duration;

use crate::util::{run, run_within, stdout_of};

#[test]
fn csv_and_json_records() {
    let dir = std::env::temp_dir().join(format!("cli-ascii-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("games.csv");
    let json = dir.join("games.json");
    let args = [
        "tournament",
        "--player",
        "random",
        "--size",
        "3",
        "--games",
        "3",
        "--seed-start",
        "5",
        "--parallel",
        "2",
        "--csv",
        csv.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    let summary = stdout_of(&args);
    assert!(summary.contains("games"), "{summary}");
    assert!(summary.contains("3 (seeds 5 to 7)"), "{summary}");
    assert!(summary.contains("reached 2048"), "{summary}");
    assert!(summary.contains("score median"), "{summary}");
    assert!(summary.contains("moves/s"), "{summary}");

    let csv_text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<&str> = csv_text.lines().collect();
    // `cargo xtask results` reads these columns by name.
    assert_eq!(
        lines[0],
        "seed,score,max_tile,moves,millis,median_decision_micros,p99_decision_micros"
    );
    assert_eq!(lines.len(), 4);
    // Lines are appended as games end, which with two at once is in any order.
    lines[1..].sort_by_key(|l| l.split(',').next().unwrap().parse::<u64>().unwrap());
    for (line, seed) in lines[1..].iter().zip(5..) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!(fields[0], seed.to_string());
        assert!(fields[4].parse::<f64>().is_ok(), "{line}");
        assert!(fields[5].parse::<u64>().is_ok() && fields[6].parse::<u64>().is_ok(), "{line}");
    }
    // The JSON holds the same records as the CSV, in seed order.
    let json_text = std::fs::read_to_string(&json).unwrap();
    let from_json = records::read_json(&json_text).unwrap();
    let mut from_csv = records::read_csv(&csv_text).unwrap();
    from_csv.sort_by_key(|r| r.seed);
    assert_eq!(from_json, from_csv);
    assert!(json_text.starts_with("[\n  {\n    \"seed\": 5,\n    \"score\": "), "{json_text}");

    // The same seeds give the same games (the times aside).
    stdout_of(&args);
    let again = std::fs::read_to_string(&csv).unwrap();
    // The first four fields, in seed order: the times differ run to run.
    let strip = |text: &str| -> Vec<String> {
        let mut v: Vec<String> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').take(4).collect::<Vec<_>>().join(","))
            .collect();
        v.sort();
        v
    };
    assert_eq!(strip(&again), strip(&csv_text));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn expectimax_tournament_with_a_move_limit() {
    let out = stdout_of(&["tournament", "--preset", "fast", "--games", "2", "--max-moves", "30"]);
    assert!(out.contains("expectimax, preset fast"), "{out}");
    assert!(out.contains("moves           60"), "{out}");
}

/// A bad output path is reported before the first game, not after every
/// game has been played and its results lost. A thousand games of the
/// default preset take hours: ending within a minute means none was played.
/// See: issue 18, item 3.
#[test]
fn a_bad_output_path_fails_before_the_games() {
    for option in ["--csv", "--json"] {
        let path = "/nonexistent-dir/games.out";
        let out =
            run_within(&["tournament", "--games", "1000", option, path], Duration::from_secs(60));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{option}: {stderr}");
        assert!(stderr.starts_with(&format!("error: cannot write {path}: ")), "{option}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{option}: no summary of no games");
    }
}

/// A records file that cannot take its header (a full disk) is reported
/// before the first game, with no summary of games never played; the
/// header is written when the file is opened for exactly this reason.
/// See: issue 18, item 3.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_reported_before_the_games() {
    let args = [
        "tournament",
        "--player",
        "random",
        "--games",
        "3",
        // Opening /dev/full succeeds; every write to it fails with ENOSPC.
        "--csv",
        "/dev/full",
    ];
    let out = run(&args, None);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: cannot write /dev/full: "), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn resume_plays_only_the_missing_seeds_and_keeps_the_file() {
    let dir = std::env::temp_dir().join(format!("cli-ascii-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("games.csv");
    let path = csv.to_str().unwrap();
    let args = |games: &str, resume: bool| {
        let mut a = vec!["tournament", "--player", "random", "--games", games, "--csv", path];
        if resume {
            a.push("--resume");
        }
        a.into_iter().map(str::to_owned).collect::<Vec<String>>()
    };
    let as_str = |v: &[String]| v.iter().map(String::as_str).collect::<Vec<&str>>().join(" ");
    let first = args("2", false);
    stdout_of(&first.iter().map(String::as_str).collect::<Vec<_>>());
    let before = std::fs::read_to_string(&csv).unwrap();
    let more = args("4", true);
    let summary = stdout_of(&more.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(summary.contains("4 (seeds 1 to 4)"), "{}: {summary}", as_str(&more));
    let after = std::fs::read_to_string(&csv).unwrap();
    assert!(after.starts_with(&before), "the earlier games are kept as they were");
    let seeds: Vec<&str> = after.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    let mut sorted = seeds.clone();
    sorted.sort();
    assert_eq!(sorted, ["1", "2", "3", "4"], "each seed once: {after}");
    // An empty file is resumed as a new one, header first.
    std::fs::write(&csv, "").unwrap();
    stdout_of(&args("1", true).iter().map(String::as_str).collect::<Vec<_>>());
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(records::read_csv(&text).unwrap().len(), 1, "{text}");
    // A file of another format is refused, not appended to.
    std::fs::write(&csv, "seed,score\n1,2\n").unwrap();
    let out = run(&more.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot resume"));
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "seed,score\n1,2\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
