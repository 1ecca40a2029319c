//! What the two terminal programs share: `cli-ascii`, the game (watch,
//! play, analyze), and `lab`, which measures, tunes and trains (tournament,
//! compare, tune, agreement, train, export-weights, tables), each a package
//! of its own.
//!
//! Both are glue over the libraries: the options they share ([`args`]), how
//! a game is set up from them ([`setup`]), the terminal's width ([`fit`])
//! and how a program ends ([`exit`]). This crate depends on engine and
//! game-core only, so that the game, which links it, links no search or
//! network of its own: what the lab alone needs stays in `crates/lab`.

pub mod args;
pub mod exit;
pub mod fit;
pub mod setup;

/// The lab's commands, which `cli-ascii` ran before they moved to `lab`:
/// `cli-ascii tournament ...` still runs `lab tournament ...` for a
/// release, with a note (the lab's tests check that this is its list).
pub const LAB_COMMANDS: [&str; 7] =
    ["tournament", "compare", "tune", "agreement", "train", "export-weights", "tables"];

/// The lab's options (long names) and the lab commands that take them, in
/// [`LAB_COMMANDS`]' order: the game names them when given one of them
/// (`cli-ascii --games 3`), instead of a look-alike option of its own (the
/// lab's tests check that this is its list). The search settings' options
/// (`--depth`, ...) are not listed: the game's own commands take them.
pub const LAB_OPTIONS: &[(&str, &[&str])] = &[
    ("a", &["compare"]),
    ("alpha", &["compare", "train"]),
    ("b", &["compare"]),
    ("baseline", &["agreement"]),
    ("beta", &["compare"]),
    ("checkpoint-minutes", &["train"]),
    ("compact", &["tables coverage"]),
    ("csv", &["tournament"]),
    ("csv-a", &["compare"]),
    ("csv-b", &["compare"]),
    ("curve-every", &["train"]),
    ("endgame", &["tournament", "tune", "agreement"]),
    ("episodes", &["train"]),
    ("every", &["agreement"]),
    ("force", &["tournament", "compare", "train", "export-weights"]),
    ("four-probability", &["tournament", "compare"]),
    ("from-reads", &["tables distill"]),
    ("games", &["tournament", "compare", "tune", "agreement", "tables coverage", "tables distill"]),
    ("initial", &["train"]),
    ("json", &["tournament"]),
    ("lambda", &["train"]),
    ("max-moves", &["tournament"]),
    ("min-reads", &["tables distill"]),
    ("minutes", &["train"]),
    ("misses", &["tables coverage"]),
    ("no-tc", &["train"]),
    ("out", &["train", "tables distill"]),
    ("parallel", &["tournament", "compare", "tune", "tables coverage", "tables distill"]),
    ("play-compact", &["tables coverage", "tables distill"]),
    ("player", &["tournament"]),
    ("preset", &["tournament", "tune", "agreement", "tables build"]),
    ("reads", &["tables distill"]),
    ("reference", &["agreement"]),
    ("reference-bonus", &["agreement"]),
    ("restart-share", &["train"]),
    ("restarts", &["train"]),
    ("resume", &["tournament", "compare", "train"]),
    ("rounds", &["tune"]),
    ("seed", &["train"]),
    (
        "seed-start",
        &["tournament", "compare", "tune", "agreement", "tables coverage", "tables distill"],
    ),
    ("size", &["tournament", "compare"]),
    ("sprt", &["compare"]),
    ("stages", &["train"]),
    ("step", &["tune", "export-weights"]),
    (
        "tables",
        &["tournament", "tune", "agreement", "tables build", "tables coverage", "tables distill"],
    ),
    ("tables-max-states", &["tournament", "tune", "agreement", "tables build"]),
    ("tile", &["compare"]),
    ("tutorial-rules", &["tournament", "compare"]),
    ("weights", &["tournament", "tune", "agreement"]),
];
