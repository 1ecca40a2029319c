//! `tournament`: the summary and the per-game records.

use crate::util::stdout_of;

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
    let lines: Vec<&str> = csv_text.lines().collect();
    // `cargo xtask results` reads this header.
    assert_eq!(lines[0], "seed,score,max_tile,moves,millis");
    assert_eq!(lines.len(), 4);
    for (line, seed) in lines[1..].iter().zip(5..) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 5, "{line}");
        assert_eq!(fields[0], seed.to_string());
        assert!(fields[4].parse::<f64>().is_ok(), "{line}");
    }
    let json_text = std::fs::read_to_string(&json).unwrap();
    assert!(json_text.starts_with("[\n  {\"seed\":5,\"score\":"), "{json_text}");
    assert!(json_text.ends_with("}\n]\n"), "{json_text}");
    assert_eq!(json_text.matches("\"max_tile\":").count(), 3);

    // The same seeds give the same games (the times aside).
    stdout_of(&args);
    let again = std::fs::read_to_string(&csv).unwrap();
    let strip = |text: &str| -> Vec<String> {
        text.lines().map(|l| l.rsplit_once(',').unwrap().0.to_owned()).collect()
    };
    assert_eq!(strip(&again), strip(&csv_text));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn expectimax_tournament_with_a_move_limit() {
    let out = stdout_of(&["tournament", "--preset", "fast", "--games", "2", "--max-moves", "30"]);
    assert!(out.contains("expectimax, preset fast"), "{out}");
    assert!(out.contains("moves          60"), "{out}");
}
