//! `watch`: the transcript's shape and its reproducibility.

use crate::util::{run, stdout_of};

const FAST_GAME: &[&str] =
    &["watch", "--transcript", "--preset", "fast", "--seed", "7", "--max-moves", "40"];

#[test]
fn a_seeded_game_is_reproducible_byte_for_byte() {
    let first = stdout_of(FAST_GAME);
    let second = stdout_of(FAST_GAME);
    assert_eq!(first, second);
    assert_eq!(first.matches("Human move\n").count(), 40);
    let mut other_seed = FAST_GAME.to_vec();
    other_seed[5] = "8";
    assert_ne!(stdout_of(&other_seed), first, "another seed gives another game");
}

#[test]
fn the_thread_count_does_not_change_the_game() {
    let mut one = FAST_GAME.to_vec();
    one.extend(["--depth", "2", "--threads", "1"]);
    let mut two = FAST_GAME.to_vec();
    two.extend(["--depth", "2", "--threads", "2"]);
    // Not `stdout_of`: on a one-core machine --threads 2 warns on stderr.
    let two = run(&two, None);
    assert!(two.status.success(), "{}", String::from_utf8_lossy(&two.stderr));
    assert_eq!(stdout_of(&one).as_bytes(), two.stdout);
}

/// The transcript's whole grammar: Setup, then Human/Computer pairs, then
/// the final score; no blank lines.
#[test]
fn transcript_structure() {
    let out = stdout_of(&["watch", "--transcript", "--player", "random", "--seed", "3"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(&lines[..2], ["Setup", "====="]);
    assert!(!lines.contains(&""), "no blank lines");
    let last = lines.last().unwrap();
    assert!(last.starts_with("Final Score: "), "{last}");
    // Setup + N turns of two boards, each board 17 lines + score.
    let board_lines = 4 * 4 + 1 + 1;
    let turns = (lines.len() - 2 - board_lines - 1) / (2 * (board_lines + 2));
    assert_eq!(lines.len(), 2 + board_lines + turns * 2 * (board_lines + 2) + 1);
    // Under the standard rules the random player only plays legal moves,
    // so the game ends with no legal move: the final score is the last
    // board's.
    let score_line = lines[lines.len() - 2];
    assert_eq!(score_line.strip_prefix("Score: "), last.strip_prefix("Final Score: "));
}

/// Without a terminal, the default command prints the transcript of the
/// default (strong) player.
#[test]
fn default_command_prints_a_transcript_when_piped() {
    let out = run(&["--seed", "1", "--max-moves", "2"], None);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("Setup\n=====\n+--------+"), "{stdout}");
    assert_eq!(stdout.matches("Computer move\n=============\n").count(), 2);
    assert!(stdout.ends_with('\n') && stdout.lines().last().unwrap().starts_with("Final Score: "));
    assert!(out.stderr.is_empty(), "a given seed is not repeated on stderr");
}

/// A seed from the clock is printed (on stderr, so stdout stays the
/// tutorial's transcript) so the game can be replayed.
#[test]
fn a_clock_seed_is_shown_and_replays_the_game() {
    let out = run(&["--player", "random", "--transcript", "--max-moves", "5"], None);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let seed = stderr
        .strip_prefix("seed ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no seed in {stderr:?}"));
    let replay =
        stdout_of(&["--player", "random", "--transcript", "--max-moves", "5", "--seed", seed]);
    assert_eq!(replay.as_bytes(), out.stdout);
}

/// The examples run as written from a clone, where `cli-ascii` is not on
/// the PATH: a user who copies one must get a running program, not
/// `command not found`.
#[test]
fn help_has_examples() {
    let runs_from_a_clone = |help: &str, what: &str| {
        // The usage lines above say `cli-ascii`, as clap writes them.
        let (_, examples) = help.split_once("\nExample").expect("examples after the options");
        assert!(examples.contains("\n  cargo run "), "{what}: {examples}");
        for line in examples.lines().map(str::trim_start) {
            assert!(!line.starts_with("cli-ascii "), "{what}: an example not on the PATH: {line}");
        }
    };
    let help = stdout_of(&["--help"]);
    assert!(help.contains("Examples"));
    runs_from_a_clone(&help, "--help");
    for sub in ["watch", "play", "analyze"] {
        assert!(help.contains(sub), "{sub}");
        let sub_help = stdout_of(&[sub, "--help"]);
        assert!(sub_help.contains("Usage: cli-ascii"), "{sub}");
        runs_from_a_clone(&sub_help, sub);
    }
}

#[test]
fn play_needs_a_terminal() {
    crate::util::error_of(&["play", "--seed", "1"], None, 1, "play needs a terminal");
}
