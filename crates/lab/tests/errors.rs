//! Every invalid input to the lab: one `error:` line naming the problem, a
//! non-zero exit code, no panic. (The game's are in the game's tests, under
//! the same test names where a rule holds for both programs.)

use crate::util::{error_of, program, run_with};

#[test]
fn unknown_preset() {
    error_of(&["tournament", "--preset", "nope"], None, 2, "unknown preset `nope`");
}

#[test]
fn learned_presets_need_their_network_and_a_4x4_board() {
    error_of(
        &["tournament", "--preset", "ntuple", "--size", "5"],
        None,
        1,
        "the ntuple presets play 4x4 boards only, not 5x5",
    );
    error_of(
        &["tournament", "--preset", "corner", "--size", "5"],
        None,
        1,
        "the corner preset's tables play 4x4 boards only, not 5x5",
    );
}

/// A board size or a probability out of range is a usage error like any
/// other (exit code 2), in the same words.
#[test]
fn size_out_of_range() {
    error_of(&["tournament", "--size", "9"], None, 2, "must be between 2 and 8");
}

#[test]
fn four_probability_out_of_range() {
    let between = "expected a probability, between 0 and 1";
    error_of(&["tournament", "--four-probability", "1.5"], None, 2, between);
}

/// Every range is written one way, `between A and B`, never as Rust's
/// `1..=12`.
#[test]
fn ranges_are_written_one_way() {
    for (args, range) in [
        (&["tournament", "--parallel", "0"][..], "between 1 and 1024"),
        (&["compare", "--a", "", "--b", "", "--games", "0"], "at least 1"),
        (&["compare", "--a", "", "--b", "", "--parallel", "2000"], "between 1 and 1024"),
        (&["tune", "--rounds", "0"], "between 1 and 100"),
        (&["train", "--threads", "300"], "between 1 and 256"),
        (&["train", "--stages", "4"], "between 1 and 3"),
        (&["train", "--lambda", "2"], "between 0 and 1"),
        (&["agreement", "--reference-bonus", "13"], "between -12 and 12"),
    ] {
        let err = error_of(args, None, 2, range);
        assert!(!err.contains("..="), "{err}");
    }
}

/// A negative number given to any number option is that option's invalid
/// value, not an "unexpected argument '-1'" (clap reads a leading `-` as a
/// flag unless told otherwise), and a negative initial weight trains.
#[test]
fn negative_numbers_are_values_of_every_number_option() {
    for (args, option) in [
        (&["tournament", "--max-moves", "-1"][..], "'-1' for '--max-moves <N>'"),
        (&["tournament", "--parallel", "-1"], "'-1' for '--parallel <N>'"),
        (&["tune", "--games", "-1"], "'-1' for '--games <N>'"),
        (&["agreement", "--every", "-1"], "'-1' for '--every <N>'"),
        (&["train", "--threads", "-1"], "'-1' for '--threads <N>'"),
        (&["train", "--episodes", "-1"], "'-1' for '--episodes <N>'"),
        (&["train", "--checkpoint-minutes", "-1"], "'-1' for '--checkpoint-minutes <M>'"),
        (&["train", "--minutes", "-1"], "'-1' for '--minutes <M>'"),
    ] {
        let err = error_of(args, None, 2, option);
        assert!(!err.contains("unexpected argument"), "{err}");
    }
    // Minutes become a `Duration`, which panics on a negative, NaN or huge
    // number of seconds: each is refused before.
    for minutes in ["0", "-1", "nan", "inf", "1e300"] {
        error_of(
            &["train", "--checkpoint-minutes", minutes],
            None,
            2,
            "above 0 and at most 1000000",
        );
        error_of(&["train", "--minutes", minutes], None, 2, "above 0 and at most 1000000");
    }
    error_of(&["train", "--initial", "nan"], None, 2, "expected a finite number");
    error_of(&["train", "--lambda", "1.5"], None, 2, "--lambda");
    // A share with restarts that keep no pool would be silently ignored.
    let err = error_of(
        &["train", "--restarts", "middle", "--restart-share", "0.3"],
        None,
        2,
        "--restart-share applies to --restarts pools only, not to --restarts middle",
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    error_of(&["train", "--restarts", "off", "--restart-share", "0.3"], None, 2, "restarts off");
}

/// Number options name their range in the option's terms, negative numbers
/// included, and have sensible bounds: a user who typed a bad number learns
/// which numbers the option takes, not the name of a Rust integer type.
#[test]
fn number_options_say_their_range() {
    let all_seeds = "must be between 0 and 18446744073709551615";
    error_of(&["tournament", "--seed", "-1"], None, 2, all_seeds);
    error_of(&["train", "--seed", "-1"], None, 2, all_seeds);

    let err = error_of(&["tournament", "--games", "0"], None, 2, "'0' for '--games <N>': ");
    assert!(err.contains("must be at least 1"), "{err}");
    error_of(&["tournament", "--games", "-2"], None, 2, "must be at least 1");
    // Too many digits for any number of games is not "too few": the
    // message must not tell the user the opposite of the fix.
    let err = error_of(&["tournament", "--games", "99999999999999999999"], None, 2, "too large");
    assert!(!err.contains("at least"), "{err}");
}

#[test]
fn bad_values_and_flags() {
    error_of(&["tournament", "--games", "many"], None, 2, "--games");
}

/// An option of another command is named as such (clap's tip named
/// whatever option looked alike: `--games` got `--tables`), and a command
/// that needs a subcommand says which (clap printed the command's own
/// description as the error). A wrong tip sends the user the wrong way.
#[test]
fn an_option_of_another_command_and_a_missing_subcommand_are_named() {
    // The lab names its commands that take an option.
    let err = error_of(&["tune", "--csv=x.csv"], None, 2, "'--csv'");
    assert_eq!(err, "error: unexpected argument '--csv' found: tournament takes it, not tune\n");
    let out = run_with(program(), &["--games", "3"], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: unexpected argument '--games' found: tournament, compare, tune and agreement \
         take it, after its name (`lab tournament --games ...`)\n"
    );
    let err = error_of(&["tables"], None, 2, "needs a subcommand");
    assert_eq!(
        err,
        "error: `tables` needs a subcommand: build, distill and coverage (see `lab tables \
         --help`)\n"
    );
    let out = run_with(program(), &[], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: `lab` needs a subcommand: tournament, compare, tune, agreement, train, \
         export-weights and tables (see `lab --help`)\n"
    );
    // A slip of the pen still gets clap's tip.
    let err = error_of(&["tournament", "--gamez", "3"], None, 2, "'--gamez'");
    assert!(err.contains("(a similar argument exists: '--games')"), "{err}");
}

#[test]
fn a_misspelt_subcommand_gets_the_likely_one() {
    let out = run_with(program(), &["tournment"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.starts_with("error: unrecognized subcommand 'tournment'"), "{err}");
    assert!(err.contains("similar subcommands exist: 'tune', 'tournament')"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Options that the command would ignore are refused, not dropped in
/// silence: a user who gave one believes it took effect.
#[test]
fn options_that_do_not_apply_are_refused() {
    let random = "does not apply to --player random, which does not search";
    let args = ["tournament", "--player", "random", "--preset", "default", "--games", "1"];
    error_of(&args, None, 2, &format!("--preset {random}"));
}

/// An argument that is not UTF-8 (a file name, say) beside a usage error
/// still gets the one `error:` line and clap's exit code 2, not a panic.
#[cfg(unix)]
#[test]
fn a_usage_error_beside_an_argument_that_is_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::process::Stdio;
    let odd = OsStr::from_bytes(b"records-\xff.csv");
    let out = program()
        .args([OsStr::new("tournament"), OsStr::new("--csv"), odd, OsStr::new("--bogus")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: ") && !stderr.contains("panicked"), "{stderr}");
}
