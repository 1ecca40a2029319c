//! The game's docs: the console examples of README.md and docs/cli.md that
//! run `cli-ascii` print what they show (the lab's tests run the lab's),
//! the key lists they quote, and help that fits the terminal.

use crate::console::{check_doc, read_doc};

#[test]
fn readme_examples_are_real_output() {
    check_doc("README.md", false, 3);
}

#[test]
fn cli_doc_examples_are_real_output() {
    check_doc("docs/cli.md", false, 3);
}

/// The key lists are written once, in src/keys.rs; `--help` and
/// docs/cli.md quote them, so that neither lists a key the program does
/// not have.
#[test]
fn help_and_docs_quote_the_key_lists() {
    let cli_doc = read_doc("docs/cli.md");
    let watch = crate::util::stdout_of(&["watch", "--help"]);
    let play = crate::util::stdout_of(&["play", "--help"]);
    for (keys, help) in [
        (crate::keys::PLAY_KEYS, &play),
        (crate::keys::PLAY_KEYS_MORE, &play),
        (crate::keys::WATCH_KEYS, &watch),
    ] {
        assert!(cli_doc.contains(&format!("`{keys}`")), "docs/cli.md does not quote `{keys}`");
        // The help is wrapped: the words, whatever the line breaks.
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(keys), "--help does not say `{keys}`: {help}");
    }
    assert!(!play.contains("hjkl"), "h is the hint, not left");
}

/// `-h` is a short summary and every help is wrapped to the terminal's
/// width (the long explanations are `--help`'s).
#[test]
fn help_fits_the_terminal() {
    for args in
        [&["-h"][..], &["--help"], &["watch", "--help"], &["play", "-h"], &["analyze", "--help"]]
    {
        for cols in [80, 100] {
            let out = crate::util::program()
                .args(args)
                .env("COLUMNS", cols.to_string())
                .output()
                .unwrap();
            assert!(out.status.success(), "{args:?}");
            let help = String::from_utf8(out.stdout).unwrap();
            let widest = help.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            assert!(widest <= cols, "{args:?} at {cols} columns: a line of {widest}:\n{help}");
            if args == ["-h"] {
                assert!(help.lines().count() <= 60, "{help}");
            }
        }
    }
}

/// `play` keeps the best score in the user's data folder, and the README
/// says where (its help does too: errors.rs).
#[test]
fn the_readme_names_the_best_scores_file() {
    let readme = read_doc("README.md");
    assert!(readme.contains("cli-ascii-2048/best-scores"), "the README does not name the file");
}
