//! `compare`: paired games equal to `tournament`'s, an SPRT that stops, a
//! resume that plays only the missing seeds, and refused options.

use crate::util::{run, stdout_of};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cli-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Seed, score, tile and moves of each game of a records file.
fn games(path: &std::path::Path) -> Vec<(u64, u64, u32, u64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<_> = records::read_csv(&text)
        .unwrap()
        .into_iter()
        .map(|r| (r.seed, r.score, r.max_tile.value(), r.moves))
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn an_sprt_stops_early_and_the_games_are_the_tournaments() {
    let (a, b, t) = (temp("sprt-a.csv"), temp("sprt-b.csv"), temp("sprt-t.csv"));
    let out = stdout_of(&[
        "compare",
        "--a",
        "--player random",
        "--b",
        "--preset tutorial",
        "--tutorial-rules",
        "--games",
        "60",
        "--tile",
        "256",
        "--sprt",
        "0,0.3",
        "--parallel",
        "1",
        "--csv-a",
        a.to_str().unwrap(),
        "--csv-b",
        b.to_str().unwrap(),
    ]);
    assert!(
        out.starts_with("A: --player random\nB: --preset tutorial\nseeds 1 to 7: 7 paired games\n"),
        "{out}"
    );
    assert!(out.contains("256: B - A = +100.0 points"), "{out}");
    assert!(
        out.ends_with("H1 accepted after 7 seeds (LLR 3.57, bounds -2.94 and 2.94)\n"),
        "{out}"
    );
    // One game at a time: the run stopped at the seed that decided.
    assert_eq!(games(&b).len(), 7);
    stdout_of(&[
        "tournament",
        "--preset",
        "tutorial",
        "--tutorial-rules",
        "--games",
        "7",
        "--csv",
        t.to_str().unwrap(),
    ]);
    assert_eq!(games(&b), games(&t));
}

#[test]
fn a_resumed_comparison_plays_only_the_missing_seeds() {
    let (a, b) = (temp("resume-a.csv"), temp("resume-b.csv"));
    let args = |n: &str| {
        vec![
            "compare".to_owned(),
            "--a".into(),
            "--preset tutorial".into(),
            "--b".into(),
            "--preset tutorial --depth 1".into(),
            "--tutorial-rules".into(),
            "--tile".into(),
            "512".into(),
            "--games".into(),
            n.into(),
            "--csv-a".into(),
            a.to_str().unwrap().into(),
            "--csv-b".into(),
            b.to_str().unwrap().into(),
            "--resume".into(),
        ]
    };
    let first: Vec<String> = args("4");
    let first = stdout_of(&first.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(first.contains("seeds 1 to 4: 4 paired games"), "{first}");
    let before = std::fs::read_to_string(&a).unwrap();
    let second: Vec<String> = args("6");
    let second = stdout_of(&second.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(second.contains("seeds 1 to 6: 6 paired games"), "{second}");
    let after = std::fs::read_to_string(&a).unwrap();
    // The first four lines of games are kept as they were; two more follow.
    assert!(after.starts_with(&before));
    assert_eq!(games(&a).len(), 6);
    // Other options than the file's: refused.
    let mut other = args("6");
    other[4] = "--preset fast".into();
    let out = run(&other.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot resume"));
}

#[test]
fn bad_players_and_tests_are_refused() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["compare", "--a", "--endgame", "--b", "", "--tutorial-rules"],
            "the endgame tables assume the standard rules, not --tutorial-rules",
        ),
        (
            &["compare", "--a", "", "--b", "", "--csv-a", "x.csv", "--csv-b", "x.csv"],
            "name the same file",
        ),
        (
            &["compare", "--a", "--preset nope", "--b", ""],
            "error: --a '--preset nope': invalid value 'nope'",
        ),
        (
            &["compare", "--a", "", "--b", "", "--sprt", "0.1,0"],
            "error: --sprt: the SPRT needs -1 <= delta0 < delta1 <= 1",
        ),
        (
            &["compare", "--a", "", "--b", "", "--tile", "100"],
            "a tile is a power of two from 4 to 131072, not 100",
        ),
        (&["compare", "--a", "", "--b", "", "--resume"], "--csv-a"),
    ];
    for (argv, want) in cases {
        let out = run(argv, None);
        assert!(!out.status.success(), "{argv:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{argv:?}: {err}");
    }
}

/// Both records files are checked before either is made: a refused
/// --csv-b leaves no --csv-a behind.
#[test]
fn a_refused_file_leaves_no_other_file_made() {
    let (a, b) = (temp("refused-a.csv"), temp("refused-b.csv"));
    let _ = std::fs::remove_file(&a);
    std::fs::write(&b, "my notes\n").unwrap();
    let args = ["compare", "--a", "--player random", "--b", "--player random", "--games", "2"];
    let files = ["--csv-a", a.to_str().unwrap(), "--csv-b", b.to_str().unwrap()];
    crate::util::error_of(&[&args[..], &files[..]].concat(), None, 1, "not a records file");
    assert!(!a.exists(), "no --csv-a file made");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "my notes\n");
    std::fs::remove_file(&b).unwrap();
}
