//! Every invalid input to the game: one `error:` line naming the problem, a
//! non-zero exit code, no panic. (The lab's are in the lab's tests, under
//! the same test names where a rule holds for both programs.)

use crate::util::error_of;

#[test]
fn unknown_preset() {
    error_of(
        &["--preset", "nope"],
        None,
        2,
        "unknown preset `nope` (expected tutorial, fast, heuristic, heuristic-max, ntuple, ntuple-deep, corner or corner-big)",
    );
    error_of(&["analyze", "--preset", "nope", "2 0/0 2"], None, 2, "unknown preset `nope`");
}

#[test]
fn learned_presets_need_their_network_and_a_4x4_board() {
    let err = error_of(
        &[
            "analyze",
            "--preset",
            "ntuple",
            "--weights",
            "/nonexistent/w.n2048",
            "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2",
        ],
        None,
        1,
        "cannot load the learned network",
    );
    assert!(err.contains("/nonexistent/w.n2048"), "{err}");
}

/// A board size or a probability out of range is a usage error like any
/// other (exit code 2), in the same words.
#[test]
fn size_out_of_range() {
    let err = error_of(&["--size", "9", "--transcript"], None, 2, "must be between 2 and 8");
    assert_eq!(
        err,
        "error: invalid value '9' for '--size <N>': must be between 2 and 8 (see --help)\n"
    );
    error_of(&["watch", "--size", "1", "--transcript"], None, 2, "must be between 2 and 8");
}

#[test]
fn four_probability_out_of_range() {
    let between = "expected a probability, between 0 and 1";
    let err = error_of(&["--four-probability", "2", "--transcript"], None, 2, between);
    assert_eq!(err.lines().count(), 1, "{err}");
    // A negative number is a value, not an unknown flag, so the range shows
    // (clap would otherwise call `-1` an unexpected argument).
    error_of(&["analyze", "--four-probability", "-1", "2 0/0 2"], None, 2, between);
    error_of(&["--four-probability", "-0.1", "--transcript"], None, 2, between);
}

#[test]
fn depth_out_of_range() {
    let err =
        error_of(&["--depth", "0"], None, 2, "'0' for '--depth <N>': must be between 1 and 12");
    assert_eq!(err.lines().count(), 1);
    error_of(&["watch", "--depth", "13"], None, 2, "must be between 1 and 12");
    error_of(&["analyze", "--depth", "0", "2 0/0 2"], None, 2, "must be between 1 and 12");
    error_of(&["--depth", "-1"], None, 2, "'-1' for '--depth <N>': must be between 1 and 12");
    // The help says it before the error does.
    let help = crate::util::stdout_of(&["watch", "--help"]);
    let depth = help.split("--depth <N>").nth(1).unwrap_or_default();
    assert!(depth.split("--").next().unwrap().contains("between 1 and 12"), "{help}");
}

/// Every range is written one way, `between A and B`, never as Rust's
/// `1..=12`.
#[test]
fn ranges_are_written_one_way() {
    for (args, range) in [
        (&["--depth-bonus", "13"][..], "between -12 and 12"),
        (&["analyze", "--threads", "300", "2 0/0 2"], "between 1 and 256"),
        (&["watch", "--delay-ms", "60001"], "between 0 and 60000"),
    ] {
        let err = error_of(args, None, 2, range);
        assert!(!err.contains("..="), "{err}");
    }
}

/// A negative number given to any number option is that option's invalid
/// value, not an "unexpected argument '-1'" (clap reads a leading `-` as a
/// flag unless told otherwise).
#[test]
fn negative_numbers_are_values_of_every_number_option() {
    for (args, option) in [
        (&["--size", "-1"][..], "'-1' for '--size <N>'"),
        (&["analyze", "--prob-cutoff", "-1", "2 0/0 2"], "'-1' for '--prob-cutoff <P>'"),
        (&["watch", "--max-moves", "-1"], "'-1' for '--max-moves <N>'"),
    ] {
        let err = error_of(args, None, 2, option);
        assert!(!err.contains("unexpected argument"), "{err}");
    }
}

/// Number options name their range in the option's terms, negative numbers
/// included, and have sensible bounds: a user who typed a bad number learns
/// which numbers the option takes, not the name of a Rust integer type.
#[test]
fn number_options_say_their_range() {
    let all_seeds = "must be between 0 and 18446744073709551615";
    let err = error_of(&["--seed", "-1"], None, 2, "invalid value '-1' for '--seed <SEED>': ");
    assert!(err.contains(all_seeds), "{err}");
    error_of(&["play", "--seed", "-1"], None, 2, all_seeds);
    error_of(
        &["--seed", "18446744073709551616"],
        None,
        2,
        "too large: at most 18446744073709551615",
    );
    error_of(&["--seed", "1.5"], None, 2, "expected a whole number, between 0 and");

    let err =
        error_of(&["--time-ms", "0"], None, 2, "'0' for '--time-ms <MS>': must be at least 1 ms");
    assert!(!err.contains("18446744073709551615"), "{err}");
    error_of(&["analyze", "--time-ms", "-5", "2 0/0 2"], None, 2, "must be at least 1 ms");

    let delay = "must be between 0 and 60000 ms";
    error_of(&["--delay-ms", "18446744073709551615"], None, 2, delay);
    error_of(&["watch", "--delay-ms", "60001"], None, 2, delay);
    error_of(&["watch", "--delay-ms", "-1"], None, 2, delay);

    error_of(
        &["--threads", "1024"],
        None,
        2,
        "'1024' for '--threads <N>': must be between 1 and 256",
    );
    error_of(&["analyze", "--threads", "0", "2 0/0 2"], None, 2, "must be between 1 and 256");
}

/// More search threads than cores are allowed, with a warning: they only
/// slow the search, which is no reason to refuse them.
#[test]
fn threads_above_the_cores_warn() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores >= 256 {
        return;
    }
    let out = crate::util::run(&["analyze", "--threads", "256", "--depth", "1", "2 0/0 2"], None);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "warning: --threads 256 is more than this machine's {cores} core(s): \
             the extra threads only slow the search\n"
        )
    );
    assert!(String::from_utf8(out.stdout).unwrap().contains("best: "));
}

#[test]
fn bad_values_and_flags() {
    error_of(&["--threads", "0"], None, 2, "--threads");
    error_of(&["--player", "smart"], None, 2, "[possible values: expectimax, random]");
    error_of(&["--seed", "minus-one"], None, 2, "--seed");
    error_of(&["--bogus"], None, 2, "unexpected argument '--bogus'");
}

/// An option of another command is named as such (clap's tip named
/// whatever option looked alike: `--games` got `--tables`), and a command
/// that needs a subcommand says which (clap printed the command's own
/// description as the error). A wrong tip sends the user the wrong way.
#[test]
fn an_option_of_another_command_and_a_missing_subcommand_are_named() {
    // The game names the lab for what it does not know.
    let lab_note = "; tournaments, comparisons, tuning, training and the tables are the lab's, \
                    another program (see `lab --help`)\n";
    // An option of the lab's is named as the lab's, not as a look-alike
    // of the game's (`--tables`).
    let err = error_of(&["--games", "0"], None, 2, "unexpected argument '--games'");
    assert_eq!(
        err,
        "error: unexpected argument '--games' found: it is an option of the lab, another \
         program, whose tournament, compare, tune, agreement, tables coverage and tables \
         distill take it (see `lab tournament --help`)\n"
    );
    let err = error_of(&["play", "--csv", "x"], None, 2, "'--csv'");
    assert!(err.contains("the lab, another program, whose tournament takes it"), "{err}");
    let err = error_of(&["--gamez", "0"], None, 2, "unexpected argument '--gamez'");
    assert!(err.ends_with(lab_note), "{err}");
    let err = error_of(&["play", "--csvv=x.csv"], None, 2, "'--csvv'");
    assert_eq!(err, format!("error: unexpected argument '--csvv' found (see --help){lab_note}"));
}

#[test]
fn a_misspelt_subcommand_gets_the_likely_one() {
    // The game has no such command, and says where the lab's are.
    let err = error_of(&["tournment"], None, 2, "unrecognized subcommand 'tournment'");
    assert!(err.contains("(see `lab --help`)"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn malformed_board_argument() {
    let err = error_of(&["analyze", "2 0 0/0 0 0/0 0 3"], None, 1, "the board argument: ");
    assert_eq!(
        err,
        "error: the board argument: row 3, cell 3: `3` is not a tile \
         (expected 0 or . for empty, or a power of two from 2 to 33554432)\n"
    );
    error_of(&["analyze", "2 0/0 0 0"], None, 1, "row 2");
    // The usual slips, in the writer's terms, so that the message says how
    // to fix the board.
    error_of(&["analyze", "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2/"], None, 1, "row 5: the row is empty");
    error_of(&["analyze", "hello"], None, 1, "`hello` is not a board");
    let sixteen = "2 2 0 0 0 4 0 0 0 0 0 0 0 0 0 2";
    error_of(&["analyze", sixteen], None, 1, "16 numbers but no `/`: write the 4 rows");
    error_of(&["analyze", "2"], None, 1, "one row of 1 cell and no `/`");
    // An example of the size the numbers make.
    error_of(&["analyze", "4 4 4 4"], None, 1, "write the 2 rows separated by `/`, e.g. `2 0/0 4`");
}

/// On stdin, each good line is answered and each bad one reported by its
/// line number; the exit code says something failed.
#[test]
fn malformed_board_on_stdin_names_the_line() {
    let input = "2 0/0 2\n\n2 0 0/0 0\n# a comment\n4 0/0 x\n2 2/0 0\n";
    let out = crate::util::run(&["analyze", "--json", "--depth", "1"], Some(input));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "error: line 3: row 1: 3 cells but the board has 2 rows \
             (a board is square: as many cells in each row as there are rows)",
            "error: line 5: row 2, cell 2: `x` is not a tile \
             (expected 0 or . for empty, or a power of two from 2 to 33554432)",
        ]
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let boards: Vec<&str> =
        stdout.lines().map(|l| l.split('"').nth(3).expect("a board field")).collect();
    assert_eq!(boards, ["2 0/0 2", "2 2/0 0"]);
}

/// Nothing to analyse is an error, not a silent success; a flood of bad
/// lines is reported by its first twenty and a count; a byte-order mark is
/// no tile.
#[test]
fn stdin_without_boards_or_full_of_errors() {
    let analyze = ["analyze", "--preset", "fast", "--depth", "1"];
    for input in ["", "\n \n\n", "# a comment only\n"] {
        let err = error_of(&analyze, Some(input), 1, "no board on stdin");
        assert_eq!(err.lines().count(), 1, "{input:?}: {err}");
    }
    let numbers: String = (1..=5000).map(|n| format!("{n}\n")).collect();
    let out = crate::util::run(&analyze, Some(&numbers));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 21, "{stderr}");
    assert!(lines[0].starts_with("error: line 1: ") && lines[19].starts_with("error: line 20: "));
    assert_eq!(lines[20], "error: ... and 4980 more bad lines");
    // A byte-order mark before the first board, on stdin or in the argument.
    let out = crate::util::run(&[&analyze[..], &["--json"]].concat(), Some("\u{feff}2 0/0 2\n"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("{\"board\":\"2 0/0 2\""));
    let out = crate::util::stdout_of(&[&analyze[..], &["--json", "\u{feff}2 0/0 2"]].concat());
    assert!(out.starts_with("{\"board\":\"2 0/0 2\""), "{out}");
}

/// Options that the command would ignore are refused, not dropped in
/// silence: a user who gave one believes it took effect.
#[test]
fn options_that_do_not_apply_are_refused() {
    let random = "does not apply to --player random, which does not search";
    error_of(
        &["watch", "--player", "random", "--depth", "3"],
        None,
        2,
        &format!("--depth {random}"),
    );
    error_of(&["--player", "random", "--time-ms", "5"], None, 2, &format!("--time-ms {random}"));
    error_of(
        &["play", "--player", "random", "--threads", "1"],
        None,
        2,
        &format!("--threads {random}"),
    );
    let err = error_of(
        &["analyze", "--preset", "default", "--weights", "my.n2048", "2 0/0 2"],
        None,
        2,
        "--weights",
    );
    assert_eq!(
        err,
        "error: --weights applies to the learned presets only, not to --preset heuristic, which \
         uses no network: choose --preset ntuple or --preset ntuple-deep (see --help)\n"
    );
    let err = error_of(
        &["analyze", "--preset", "default", "--heuristic", "0.5", "2 0/0 2"],
        None,
        2,
        "--heuristic",
    );
    assert_eq!(
        err,
        "error: --heuristic applies to the learned presets only, not to --preset heuristic, which \
         uses no network: choose --preset ntuple or --preset ntuple-deep (see --help)\n"
    );
    error_of(
        &["watch", "--preset", "tutorial", "--prob-cutoff", "0.1"],
        None,
        2,
        "--prob-cutoff does not apply to --preset tutorial",
    );
    for bad in ["-1", "inf", "NaN", "x"] {
        let args = ["analyze", "--preset", "ntuple", "--heuristic", bad, "2 0/0 2"];
        error_of(&args, None, 2, "expected a weight, a number of 0 or more");
    }
    // The random player with the default preset, not written, still plays.
    let args = ["watch", "--player", "random", "--transcript", "--max-moves", "1", "--seed", "1"];
    let out = crate::util::stdout_of(&args);
    assert!(out.lines().last().is_some_and(|l| l.starts_with("Final Score: ")), "{out}");
}

/// A missing weights file is one line that names the file and says why
/// once (the I/O error's text was printed twice, as the message's end and
/// again as its source).
#[test]
fn a_missing_network_says_why_once() {
    let err = error_of(
        &["analyze", "--preset", "ntuple", "--weights", "/no/such/file.n2048", "2 0/0 2"],
        None,
        1,
        "cannot load the learned network: /no/such/file.n2048: ",
    );
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

/// `play` keeps best scores on disk: its help says where.
#[test]
fn play_help_names_the_best_scores_file() {
    let out = crate::util::stdout_of(&["play", "--help"]);
    let data = std::env::temp_dir().join("cli-ascii-help-data");
    // The help is wrapped to the terminal: its words, whatever the breaks.
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    let (_, line) = flat.split_once("best score").expect("a line on best scores");
    assert!(line.contains("cli-ascii-2048") && line.contains("best-scores"), "{line}");
    // The path follows the user's data directory.
    let out = crate::util::program()
        .args(["play", "--help"])
        .env("XDG_DATA_HOME", &data)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let want = data.join("cli-ascii-2048").join("best-scores");
    assert!(text.contains(&want.display().to_string()), "{text}");
}
