//! `lab tournament`: the summary and the per-game records (the game's
//! tests check that the old `cli-ascii tournament` runs the lab).

use std::time::Duration;

use crate::util::{error_of, run, run_within, spawn_piped, stdout_of};

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
    // The settings that played the games come first (a resume checks them).
    assert_eq!(lines.remove(0), "# made by: --player random --size 3 --four-probability 0.1");
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

    // The same seeds give the same games (the times aside); --force writes
    // over the files of the first run.
    stdout_of(&[&args[..], &["--force"]].concat());
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
    let seeds: Vec<&str> = after.lines().skip(2).map(|l| l.split(',').next().unwrap()).collect();
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

/// A records file names the settings that played its games, and a resume
/// with other settings (player, preset, size, rules) is refused with the
/// file untouched, so that one file never mixes games of different players
/// or rules into one summary.
#[test]
fn resume_refuses_a_file_of_other_settings() {
    let dir = std::env::temp_dir().join(format!("cli-ascii-resume-other-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("games.csv");
    let path = csv.to_str().unwrap();
    let base = ["tournament", "--games", "2", "--csv", path, "--max-moves", "30"];
    stdout_of(&[&base[..], &["--preset", "fast"]].concat());
    let written = std::fs::read_to_string(&csv).unwrap();
    assert!(
        written.starts_with(
            "# made by: --preset fast --size 4 --four-probability 0.1 --max-moves 30\nseed,"
        ),
        "{written}"
    );
    // The same settings resume; the depth, the player, the size, the rules
    // or the move limit changed do not.
    stdout_of(&[&base[..], &["--preset", "fast", "--resume"]].concat());
    let others: [&[&str]; 5] = [
        &["--preset", "fast", "--depth", "1"],
        &["--player", "random"],
        &["--preset", "fast", "--size", "3"],
        &["--preset", "fast", "--tutorial-rules"],
        &["--preset", "tutorial"],
    ];
    for other in others {
        let args = [&base[..], other, &["--resume"]].concat();
        let err = error_of(&args, None, 1, "cannot resume");
        assert!(err.contains("--preset fast --size 4") && err.contains("another file"), "{err}");
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), written, "untouched");
    }
    // A file that does not name its settings is refused too.
    let bare: String = written.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&csv, &bare).unwrap();
    let err = error_of(
        &[&base[..], &["--preset", "fast", "--resume"]].concat(),
        None,
        1,
        "cannot resume",
    );
    assert!(err.contains("does not say which settings"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C (SIGINT) or SIGTERM: the summary of the games that finished, the
/// records file with every one of them, how to go on, exit code 130: hours
/// of games must not be lost to one key press.
#[test]
fn an_interrupted_tournament_summarises_what_finished() {
    let dir = std::env::temp_dir().join(format!("cli-ascii-interrupt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("games.csv");
    let json = dir.join("games.json");
    let args = [
        "tournament",
        "--preset",
        "fast",
        "--games",
        "1000",
        "--parallel",
        "1",
        "--csv",
        csv.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    for signal in ["-INT", "-TERM"] {
        let child = spawn_piped(&args);
        // Wait for two finished games.
        let started = std::time::Instant::now();
        while records::read_csv(&std::fs::read_to_string(&csv).unwrap_or_default())
            .map_or(0, |r| r.len())
            < 2
        {
            assert!(started.elapsed().as_secs() < 120, "no game finished");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let id = child.id().to_string();
        assert!(std::process::Command::new("kill").args([signal, &id]).status().unwrap().success());
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) =
            (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(130), "{signal}: {stderr}");
        let kept = records::read_csv(&std::fs::read_to_string(&csv).unwrap()).unwrap();
        assert!(kept.len() >= 2);
        // The seeds that finished, one game at a time: 1 to N.
        let n = kept.len();
        assert!(
            stdout.contains(&format!("games           {n} of 1000 (seeds 1 to {n})\n")),
            "{stdout}"
        );
        assert!(stdout.contains("score median"), "{stdout}");
        assert!(
            stderr.contains(&format!("interrupted: {} of 1000 games finished", kept.len()))
                && stderr.contains("--resume plays the rest"),
            "{stderr}"
        );
        let in_json = records::read_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(in_json, kept, "the JSON holds the same games");
        std::fs::remove_file(&csv).unwrap();
        std::fs::remove_file(&json).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--parallel` above the games says how many really ran at once; the
/// median of an even count is the mean of the middle two. A summary that
/// claims more parallelism than ran, or a median off by half a pair,
/// misleads whoever compares runs.
#[test]
fn the_summary_counts_what_ran_and_a_true_median() {
    let out = stdout_of(&[
        "tournament",
        "--player",
        "random",
        "--games",
        "2",
        "--parallel",
        "8",
        "--csv",
        "/dev/null",
    ]);
    assert!(out.contains("(2 game(s) at once)"), "{out}");
    let scores: Vec<u64> = out
        .lines()
        .filter(|l| l.starts_with("score min") || l.starts_with("score max"))
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    let median = out.lines().find(|l| l.starts_with("score median")).unwrap();
    let median: f64 = median.rsplit(' ').next().unwrap().parse().unwrap();
    assert_eq!(median, (scores[0] + scores[1]) as f64 / 2.0, "{out}");
}

/// A scratch folder removed when the test ends.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("cli-ascii-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A quick tournament of the random player on 3x3 boards.
fn quick<'a>(games: &'a str, seed_start: &'a str, files: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["tournament", "--player", "random", "--size", "3", "--games", games];
    args.extend(["--seed-start", seed_start]);
    args.extend(files);
    args
}

/// `--resume` keeps the --csv file's games and writes the --json file again
/// with them: a --json file that holds anything else (another run's games,
/// no records at all, seeds beyond --games) is refused and left as it was,
/// and no --csv file is made.
#[test]
fn resume_never_writes_over_games_of_the_json_file() {
    let dir = Scratch::new("resume-json");
    let (csv, json) = (dir.path("r.csv"), dir.path("other.json"));
    stdout_of(&quick("3", "10", &["--json", &json]));
    let theirs = std::fs::read_to_string(&json).unwrap();
    let resume = |games| quick(games, "1", &["--csv", &csv, "--json", &json, "--resume"]);
    let err = error_of(&resume("4"), None, 1, "holds games that the --csv file lacks");
    assert!(err.contains("seeds 10 to 12") && err.contains("another --json file"), "{err}");
    assert_eq!(std::fs::read_to_string(&json).unwrap(), theirs, "untouched");
    assert!(!std::path::Path::new(&csv).exists(), "no --csv file made");
    // No records file at all.
    std::fs::write(&json, "{\"config\": 1}").unwrap();
    error_of(&resume("4"), None, 1, "other.json already exists (and is not a records file)");
    assert_eq!(std::fs::read_to_string(&json).unwrap(), "{\"config\": 1}");
    assert!(!std::path::Path::new(&csv).exists(), "no --csv file made");
    // The files of one run, seeds 1 to 3: resumed with fewer games, the
    // JSON would lose seed 3; with more, it gets them all.
    std::fs::remove_file(&json).unwrap();
    stdout_of(&quick("3", "1", &["--csv", &csv, "--json", &json]));
    let (csv_before, json_before) =
        (std::fs::read_to_string(&csv).unwrap(), std::fs::read_to_string(&json).unwrap());
    error_of(&resume("2"), None, 1, "seeds beyond the ones asked for (3)");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), csv_before);
    assert_eq!(std::fs::read_to_string(&json).unwrap(), json_before);
    stdout_of(&resume("4"));
    let games = records::read_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(games.iter().map(|r| r.seed).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(games[..3], records::read_json(&json_before).unwrap()[..]);
}

/// One file for --csv and --json is refused before anything is written,
/// with or without --resume; a refused --json file leaves no --csv file
/// behind.
#[test]
fn every_output_is_checked_before_any_is_made() {
    let dir = Scratch::new("one-file");
    let file = dir.path("games.out");
    // The same file, written two ways.
    let again = dir.0.join(".").join("games.out");
    let again = again.to_str().unwrap();
    for resume in [&[][..], &["--resume"]] {
        let args = [&quick("2", "1", &["--csv", &file, "--json", again])[..], resume].concat();
        error_of(&args, None, 1, "--csv and --json name the same file");
        assert!(!std::path::Path::new(&file).exists(), "nothing made");
    }
    let (csv, json) = (dir.path("new.csv"), dir.path("games.json"));
    stdout_of(&quick("1", "1", &["--json", &json]));
    let err =
        error_of(&quick("2", "1", &["--csv", &csv, "--json", &json]), None, 1, "holds 1 game");
    assert!(err.contains("games.json") && err.contains("--force"), "{err}");
    assert!(!std::path::Path::new(&csv).exists(), "no --csv file made");
}

/// A file that is no records file at all is not offered --resume, which
/// cannot read it.
#[test]
fn a_text_file_is_not_called_a_records_file() {
    let dir = Scratch::new("text-file");
    let notes = dir.path("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    for option in ["--csv", "--json"] {
        let err = error_of(&quick("1", "1", &[option, &notes]), None, 1, "not a records file");
        assert!(!err.contains("--resume"), "{option}: {err}");
        assert!(err.contains("--force"), "{option}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
}

/// `--resume --endgame` with a file of other settings is refused before a
/// table is built (the tables take minutes and half a gigabyte): the
/// tables' folder stays empty.
#[test]
fn resume_checks_the_file_before_building_tables() {
    let dir = Scratch::new("resume-endgame");
    let (csv, tables) = (dir.path("fast.csv"), dir.path("tables"));
    let base = ["tournament", "--preset", "fast", "--games", "1", "--max-moves", "20"];
    stdout_of(&[&base[..], &["--csv", &csv]].concat());
    let endgame = ["--endgame", "--tables", &tables, "--csv", &csv, "--resume"];
    let out = run_within(&[&base[..], &endgame[..]].concat(), Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: cannot resume") && stderr.contains("--endgame"), "{stderr}");
    let built = std::fs::read_dir(&tables).map_or(0, Iterator::count);
    assert_eq!(built, 0, "no table built: {stderr}");
}

/// Seeds past the last one are refused, not wrapped to 0 (the games of
/// seeds 0 and 1 are other games).
#[test]
fn seeds_do_not_wrap() {
    let last = u64::MAX.to_string();
    error_of(&quick("2", &last, &[]), None, 2, "--seed-start");
    let out = stdout_of(&quick("1", &last, &[]));
    assert!(out.contains(&format!("1 (seeds {last} to {last})")), "{out}");
}
