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
        &["watch", "--preset", "tutorial", "--prob-cutoff", "0.1"],
        None,
        2,
        "--prob-cutoff does not apply to --preset tutorial",
    );
    error_of(
        &["tournament", "--preset", "fast", "--depth", "2", "--depth-bonus", "1"],
        None,
        2,
        "--depth-bonus does not apply with --depth",
    );
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
