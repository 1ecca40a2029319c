//! `tune` and `agreement`: the search options configure them, and what does
//! not apply is refused.

use crate::util::{error_of, stdout_of};

#[test]
fn agreement_compares_a_setting_with_its_preset() {
    // A cheap reference keeps this short: two positions.
    let out = stdout_of(&[
        "agreement",
        "--games",
        "1",
        "--every",
        "500",
        "--reference",
        "default",
        "--reference-bonus",
        "0",
        "--preset",
        "fast",
        "--depth-bonus",
        "-1",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with("positions: fast games 1..2, every 500th move from move 300"));
    assert!(lines[3].starts_with("| baseline: fast | "), "{out}");
    assert!(lines[3].contains(" | 1.00x | "), "{out}");
    assert!(lines[4].starts_with("| candidate: fast, --depth-bonus -1 | "), "{out}");
    assert!(lines[5].starts_with("reference: heuristic (depth bonus 0) ("), "{out}");
}

#[test]
fn options_that_do_not_apply_are_refused() {
    error_of(&["agreement", "--threads", "2"], None, 2, "--threads does not apply to agreement");
    error_of(
        &["tune", "--preset", "tutorial"],
        None,
        1,
        "--preset tutorial has no heuristic weights to tune",
    );
    error_of(&["tune", "--step", "1"], None, 2, "strictly between 0 and 1");
    error_of(
        &["tournament", "--preset", "fast", "--depth", "2", "--depth-bonus", "1"],
        None,
        2,
        "--depth-bonus does not apply with --depth",
    );
}
