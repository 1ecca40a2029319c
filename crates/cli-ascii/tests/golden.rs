//! The tutorial's bordered board and transcript, byte for byte.

use crate::util::{check_golden, stdout_of};

/// `analyze` with the final tutorial preset at depth 1 on one thread: the
/// board, the values and the node count are fixed; the time is masked.
fn analyze_board(board: &str) -> String {
    let out =
        stdout_of(&["analyze", "--preset", "tutorial", "--depth", "1", "--threads", "1", board]);
    let mut masked = String::new();
    for line in out.lines() {
        match line.rsplit_once(", ") {
            Some((head, time)) if line.starts_with("search: ") && time.ends_with(" ms") => {
                masked.push_str(head);
                masked.push_str(", <time> ms");
            }
            _ => masked.push_str(line),
        }
        masked.push('\n');
    }
    masked
}

#[test]
fn board_2x2() {
    check_golden("board_2x2.txt", &analyze_board("2 0/0 4"));
}

#[test]
fn board_3x3_widths_1_to_3() {
    check_golden("board_3x3.txt", &analyze_board("2 4 8/16 32 64/128 0 0"));
}

#[test]
fn board_4x4_five_digit_tiles() {
    check_golden(
        "board_4x4_big.txt",
        &analyze_board("16384 2 0 0/0 32768 4 0/1024 2048 4096 8192/0 0 0 2"),
    );
}

#[test]
fn board_5x5() {
    check_golden(
        "board_5x5.txt",
        &analyze_board("2 0 0 0 4/0 8 0 16 0/0 0 256 0 0/0 512 0 1024 0/2 0 0 0 2"),
    );
}

#[test]
fn board_game_over_has_no_values() {
    check_golden("board_game_over.txt", &analyze_board("2 4/4 2"));
}

/// The tutorial's random mover under its own loop: a whole (short) game on
/// 3x3, to `Final Score`.
#[test]
fn transcript_random_3x3_full_game() {
    let out = stdout_of(&[
        "watch",
        "--player",
        "random",
        "--tutorial-rules",
        "--transcript",
        "--size",
        "3",
        "--seed",
        "1",
    ]);
    check_golden("transcript_random_3x3_seed1.txt", &out);
}

/// The first turns of the tutorial's own game: its player (the final
/// `tutorial` preset) under its loop.
#[test]
fn transcript_tutorial_player() {
    let out = stdout_of(&[
        "watch",
        "--player",
        "expectimax",
        "--preset",
        "tutorial",
        "--tutorial-rules",
        "--transcript",
        "--seed",
        "1",
        "--max-moves",
        "4",
    ]);
    check_golden("transcript_tutorial_seed1_4moves.txt", &out);
}

/// The random mover on 4x4, three turns.
#[test]
fn transcript_random_4x4_three_turns() {
    let out = stdout_of(&[
        "--player",
        "random",
        "--tutorial-rules",
        "--transcript",
        "--seed",
        "1",
        "--max-moves",
        "3",
    ]);
    check_golden("transcript_random_4x4_seed1_3moves.txt", &out);
}
