//! Every invalid input: one `error:` line naming the problem, a non-zero
//! exit code, no panic.

use crate::util::error_of;

#[test]
fn unknown_preset() {
    error_of(
        &["--preset", "nope"],
        None,
        2,
        "unknown preset `nope` (expected tutorial, fast, default, max, ntuple or ntuple-deep)",
    );
    error_of(&["tournament", "--preset", "nope"], None, 2, "unknown preset `nope`");
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
    error_of(
        &["tournament", "--preset", "ntuple", "--size", "5"],
        None,
        1,
        "the ntuple presets play 4x4 boards only, not 5x5",
    );
}

#[test]
fn size_out_of_range() {
    let err = error_of(&["--size", "9", "--transcript"], None, 1, "board size 9 is not supported");
    assert_eq!(err, "error: board size 9 is not supported (expected 2 to 8)\n");
    let err = error_of(&["watch", "--size", "1", "--transcript"], None, 1, "board size 1");
    assert_eq!(err, "error: board size 1 is not supported (expected 2 to 8)\n");
    error_of(&["tournament", "--size", "9"], None, 1, "board size 9 is not supported");
}

#[test]
fn four_probability_out_of_range() {
    let err = error_of(&["--four-probability", "2", "--transcript"], None, 1, "probability");
    assert_eq!(err, "error: the probability of a 4 must be between 0 and 1, not 2\n");
    error_of(&["analyze", "--four-probability", "-1", "2 0/0 2"], None, 2, "-1");
}

#[test]
fn depth_out_of_range() {
    let err = error_of(&["--depth", "0"], None, 2, "'0' for '--depth <N>': 0 is not in 1..=12");
    assert_eq!(err.lines().count(), 1);
    error_of(&["watch", "--depth", "13"], None, 2, "13 is not in 1..=12");
    error_of(&["analyze", "--depth", "0", "2 0/0 2"], None, 2, "0 is not in 1..=12");
}

#[test]
fn bad_values_and_flags() {
    error_of(&["--threads", "0"], None, 2, "--threads");
    error_of(&["--player", "smart"], None, 2, "[possible values: expectimax, random]");
    error_of(&["--seed", "minus-one"], None, 2, "--seed");
    error_of(&["--bogus"], None, 2, "unexpected argument '--bogus'");
    error_of(&["tournament", "--games", "many"], None, 2, "--games");
}

#[test]
fn malformed_board_argument() {
    let err = error_of(&["analyze", "2 0 0/0 0 0/0 0 3"], None, 1, "the board argument: ");
    assert_eq!(
        err,
        "error: the board argument: row 3, cell 3: `3` is not a tile \
         (expected 0 or . for empty, or a power of two from 2 to 32768)\n"
    );
    error_of(&["analyze", "2 0/0 0 0"], None, 1, "row 2");
    error_of(&["analyze", "2"], None, 1, "found 1 row(s)");
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
            "error: line 3: row 1: found 3 cell(s), expected 2 (one per row, the board is square)",
            "error: line 5: row 2, cell 2: `x` is not a tile \
             (expected 0 or . for empty, or a power of two from 2 to 32768)",
        ]
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let boards: Vec<&str> =
        stdout.lines().map(|l| l.split('"').nth(3).expect("a board field")).collect();
    assert_eq!(boards, ["2 0/0 2", "2 2/0 0"]);
}
