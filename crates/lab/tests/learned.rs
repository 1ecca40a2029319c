//! The learned presets with the shipped network: a short tournament works
//! from a clone with no extra step (the game's tests analyze with it).

use crate::util::stdout_of;

#[test]
fn a_learned_tournament_plays_whole_games() {
    let summary = stdout_of(&["tournament", "--preset", "ntuple", "--depth", "1", "--games", "2"]);
    assert!(summary.contains("expectimax, preset ntuple"), "{summary}");
    // Seeds 1 and 2 of the shipped network at two plies end at 4096 and
    // 16384: both pass 2048, which an untrained network (always the first
    // legal move) never does.
    assert!(summary.contains("reached 2048    100.0% (2)"), "{summary}");
}

/// An installed program finds the shipped weights at run time, not by the
/// build machine's path: the file $N2048_WEIGHTS names comes first, and
/// one that is missing says every place it looked.
#[test]
fn the_weights_are_found_where_the_environment_says() {
    let dir = std::env::temp_dir().join(format!("cli-weights-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("copy.n2048");
    std::fs::copy(ntuple::SHIPPED_WEIGHTS, &copy).unwrap();
    let run = |weights: &std::path::Path| {
        crate::util::program()
            .env("N2048_WEIGHTS", weights)
            .args(["tournament", "--preset", "ntuple", "--depth", "1", "--games", "1"])
            .args(["--max-moves", "20", "--csv"])
            .arg(dir.join("games.csv"))
            .output()
            .unwrap()
    };
    let found = run(&copy);
    assert!(found.status.success(), "{}", String::from_utf8_lossy(&found.stderr));
    let games = std::fs::read_to_string(dir.join("games.csv")).unwrap();
    let canonical = std::fs::canonicalize(&copy).unwrap();
    assert!(games.contains(&format!("--weights {}", canonical.display())), "{games}");
    let missing = dir.join("none.n2048");
    // A new records file: one that holds games is refused before the
    // network is looked for.
    std::fs::remove_file(dir.join("games.csv")).unwrap();
    let out = run(&missing);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "the shipped weights file 4x6.n2048 is in none of: {}",
            missing.display()
        )) && err.contains("N2048_WEIGHTS"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A records file names its network by path and the weights' checksum, so
/// another network written to the same path is not resumed as the first.
#[test]
fn a_resume_with_another_network_at_the_same_path_is_refused() {
    let dir = std::env::temp_dir().join(format!("cli-weights-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (weights, games) = (dir.join("net.n2048"), dir.join("games.csv"));
    std::fs::copy(ntuple::SHIPPED_WEIGHTS, &weights).unwrap();
    let run = |n: &str| {
        crate::util::program()
            .args(["tournament", "--preset", "ntuple", "--depth", "1", "--max-moves", "10"])
            .args(["--games", n, "--resume", "--weights"])
            .arg(&weights)
            .arg("--csv")
            .arg(&games)
            .output()
            .unwrap()
    };
    assert!(run("1").status.success());
    ntuple::save_weights(&ntuple::Network::filled(0.0), 0, &weights).unwrap();
    let out = run("2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("its games were played with") && err.contains("checksum"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
