//! The lab's console examples in README.md and docs/cli.md (`$ cargo run
//! -q -p lab -- ARGS`) print what they show, the game's tests run the
//! game's; the help's examples run from a clone.

use crate::console::check_doc;
use crate::util::stdout_of;

#[test]
fn readme_examples_are_real_output() {
    check_doc("README.md", true, 2);
}

#[test]
fn cli_doc_examples_are_real_output() {
    check_doc("docs/cli.md", true, 1);
}

/// The examples run as written from a clone, where `lab` is not on the
/// PATH: a user who copies one must get a running program, not `command
/// not found`.
#[test]
fn help_has_examples() {
    let runs_from_a_clone = |help: &str, what: &str| {
        // The usage lines above say `lab`, as clap writes them.
        let (_, examples) = help.split_once("\nExample").expect("examples after the options");
        assert!(examples.contains("\n  cargo run "), "{what}: {examples}");
        for line in examples.lines().map(str::trim_start) {
            for program in ["lab ", "cli-ascii "] {
                assert!(!line.starts_with(program), "{what}: an example not on the PATH: {line}");
            }
        }
    };
    let out = crate::util::program().arg("--help").output().expect("the lab runs");
    let help = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(out.status.success() && help.contains("Examples"), "{help}");
    runs_from_a_clone(&help, "lab --help");
    for sub in ["tournament", "compare", "train", "export-weights"] {
        assert!(help.contains(sub), "{sub}");
        let sub_help = stdout_of(&[sub, "--help"]);
        assert!(sub_help.contains("Usage: lab"), "{sub}");
        runs_from_a_clone(&sub_help, sub);
    }
}
