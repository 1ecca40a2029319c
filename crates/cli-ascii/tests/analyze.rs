//! `analyze --json`: one object per board, in a fixed shape.

use crate::util::{run, stdout_of};

/// The object with its time masked.
fn mask_micros(line: &str) -> String {
    let (head, micros) = line.rsplit_once("\"micros\":").expect("a micros field");
    let digits = micros.find(|c: char| !c.is_ascii_digit()).expect("the object goes on");
    assert!(digits > 0, "{micros}");
    format!("{head}\"micros\":<n>{}", &micros[digits..])
}

#[test]
fn json_shape_with_the_tutorial_preset() {
    let out = stdout_of(&[
        "analyze",
        "--json",
        "--preset",
        "tutorial",
        "--depth",
        "1",
        "--threads",
        "1",
        "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2",
    ]);
    assert_eq!(out.lines().count(), 1);
    assert_eq!(
        mask_micros(out.trim_end()),
        "{\"board\":\"2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2\",\
         \"values\":{\"up\":180317,\"down\":178057,\"left\":197728,\"right\":197728},\
         \"shortfall\":{\"up\":0.08805530830231428,\"down\":0.09948515131898365,\"left\":0,\
         \"right\":0},\
         \"best\":\"left\",\"depth\":1,\"nodes\":4,\"micros\":<n>,\"endgame\":null}"
    );
}

#[test]
fn json_illegal_directions_are_null_and_game_over_has_no_best() {
    let input = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0\n2 4/4 2\n";
    let out = run(&["analyze", "--json", "--preset", "fast"], Some(input));
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0]
            .starts_with("{\"board\":\"2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0\",\"values\":{\"up\":null,")
    );
    assert!(lines[0].contains("\"left\":null,\"right\":"));
    assert!(lines[0].contains("\"best\":\"down\"") || lines[0].contains("\"best\":\"right\""));
    assert_eq!(
        lines[1],
        "{\"board\":\"2 4/4 2\",\"values\":{\"up\":null,\"down\":null,\"left\":null,\"right\":null},\
         \"shortfall\":{\"up\":null,\"down\":null,\"left\":null,\"right\":null},\
         \"best\":null,\"depth\":0,\"nodes\":0,\"micros\":0,\"endgame\":null}"
    );
}

#[test]
fn analyse_is_analyze_and_an_empty_board_is_no_lost_game() {
    let out = stdout_of(&["analyse", "--preset", "fast", "0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0"]);
    assert!(
        out.ends_with(
            "the board has no tiles, so no direction changes it (a game starts with two)\n"
        ),
        "{out}"
    );
    assert!(!out.contains("game is over"));
    let out = stdout_of(&["analyse", "--preset", "fast", "2 4/4 2"]);
    assert!(out.ends_with("no direction changes the board: the game is over\n"), "{out}");
}

#[test]
fn text_answer_marks_the_best_direction() {
    let out = stdout_of(&["analyze", "--preset", "fast", "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0"]);
    let best = out.lines().find(|l| l.starts_with("best: ")).expect("a best line");
    let dir = best.strip_prefix("best: ").unwrap();
    let marked = out.lines().find(|l| l.ends_with("<- best")).expect("a marked line");
    assert!(marked.starts_with(dir), "{marked} vs {best}");
    assert!(out.lines().any(|l| l.starts_with("search: depth ")));
    // Unquoted words are one board.
    let words = stdout_of(&[
        "analyze", "--preset", "fast", "2", "2", "0", "0/0", "0", "0", "0/0", "0", "0", "0/0", "0",
        "0", "0",
    ]);
    assert!(words.starts_with("+--------+"));
}

/// Text answers to several boards on stdin are separated by a blank line,
/// so that a reader (or a script) can tell where one answer ends.
#[test]
fn text_answers_on_stdin_are_separated() {
    let input = "2 0/0 2\n2 2/0 0\n";
    let out =
        run(&["analyze", "--preset", "tutorial", "--depth", "1", "--threads", "1"], Some(input));
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<&str> = stdout.split("\n\n").collect();
    assert_eq!(answers.len(), 2, "{stdout}");
    assert!(answers[0].starts_with("+--------+--------+\n") && answers[0].contains("search: "));
    assert!(answers[1].starts_with("+--------+--------+\n") && answers[1].ends_with(" ms\n"));
}

/// Two 32768 tiles merge: left and right are legal (they were refused when
/// 32768 was the cap), and 65536 and 131072 parse, print and are searched:
/// long games reach them.
#[test]
fn tiles_past_32768_merge_print_and_are_searched() {
    let merge = stdout_of(&[
        "analyze",
        "--json",
        "--preset",
        "fast",
        "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0",
    ]);
    assert!(merge.contains("\"up\":null"), "{merge}");
    assert!(!merge.contains("\"left\":null") && !merge.contains("\"right\":null"), "{merge}");
    let big = "131072 65536 0 0/0 0 0 0/0 0 0 0/0 0 0 2";
    let text = stdout_of(&["analyze", "--preset", "fast", big]);
    assert!(text.contains("| 131072 | 65536  |"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("best: ")), "{text}");
    let json = stdout_of(&["analyze", "--json", "--preset", "fast", big]);
    assert!(json.starts_with(&format!("{{\"board\":\"{big}\"")), "{json}");
}

#[test]
fn an_endgame_table_decides_a_chain_and_says_so() {
    let dir = std::env::temp_dir().join(format!("cli-analyze-endgame-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_arg = dir.to_str().unwrap();
    let small = ["--tables", dir_arg, "--tables-max-states", "1000000"];
    // The tables as `lab tables build` builds them, with the same function
    // (the lab's tests check what it prints).
    cli_common::setup::build_tables(Some(&dir), Some(1_000_000), engine::Preset::Heuristic)
        .expect("the small tables build");
    // A chain of 9 from 16384 down to 64; seven free cells.
    let board = "16384 8192 4096 2048/128 256 512 1024/64 0 2 0/0 0 0 4";
    let out = stdout_of(&[&["analyze", "--endgame"][..], &small, &["--json", board]].concat());
    assert!(out.contains("\"depth\":0,\"nodes\":0,"), "{out}");
    assert!(out.ends_with(",\"endgame\":\"chain of 9 ending in 64\"}\n"), "{out}");
    let text = stdout_of(&[&["analyze", "--endgame"][..], &small, &[board]].concat());
    assert!(
        text.contains("endgame table: the chain of 9 ending in 64; values are the odds"),
        "{text}"
    );
    // Beside each value, the odds as a percentage, which a player reads
    // more easily than a bare fraction.
    let odds = text.lines().filter(|l| l.ends_with("% odds") || l.ends_with("<- best")).count();
    assert!(odds >= 2, "{text}");
    // Without a chain the search decides.
    let out = stdout_of(
        &[&["analyze", "--endgame"][..], &small, &["--json", "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2"]]
            .concat(),
    );
    assert!(out.ends_with(",\"endgame\":null}\n"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A late board's raw values are huge and below 0; beside them, how much
/// worse than the best each direction is, which says something to a
/// player where the raw values do not.
#[test]
fn text_rates_each_direction_beside_its_raw_value() {
    let board = "2 4 8 16/4 8 16 32/8 16 32 64/0 2 4 128";
    let text = stdout_of(&["analyze", "--preset", "fast", "--depth", "1", board]);
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with(['u', 'd', 'l', 'r'])).collect();
    assert_eq!(rows.len(), 4, "{text}");
    for row in rows {
        let rating = ["<- best", "% worse", "as good"];
        assert!(row.ends_with("illegal") || rating.iter().any(|r| row.ends_with(r)), "{row}");
    }
}

/// The learned presets with the shipped network work from a clone with no
/// extra step.
#[test]
fn analyze_with_the_shipped_network() {
    let out = stdout_of(&[
        "analyze",
        "--json",
        "--preset",
        "ntuple",
        "1024 512 64 8/256 128 32 4/16 8 2 0/2 0 0 0",
    ]);
    // Up and left change nothing on this board; the network picks one of the
    // other two, at the preset's depth.
    assert!(out.contains("\"up\":null") && out.contains("\"left\":null"), "{out}");
    assert!(out.contains("\"best\":\"down\"") || out.contains("\"best\":\"right\""), "{out}");
    assert!(out.contains("\"depth\":2"), "{out}");
}

#[test]
fn the_search_options_reach_the_search() {
    // A shallower fast search (bonus -2 is the preset's) looks at fewer nodes.
    let nodes = |extra: &[&str]| -> u64 {
        let mut args = vec!["analyze", "--preset", "fast", "--json"];
        args.extend_from_slice(extra);
        args.push("2 4 8 16/0 2 4 8/0 0 2 4/0 0 0 2");
        let out = stdout_of(&args);
        let (_, rest) = out.split_once("\"nodes\":").unwrap();
        rest.split(',').next().unwrap().parse().unwrap()
    };
    assert!(nodes(&["--depth-bonus", "0"]) > nodes(&[]));
    // A high cut-off scores deep spawns instead of searching them.
    let deeper = nodes(&["--depth-bonus", "1"]);
    assert!(nodes(&["--depth-bonus", "1", "--prob-cutoff", "0.05"]) < deeper);
}
