//! What the two programs of this package share: `cli-ascii`, the game
//! (watch, play, analyze), and `lab`, which measures, tunes and trains
//! (tournament, compare, tune, agreement, train, export-weights, tables).
//!
//! Both are glue over the libraries: the options they share ([`args`]), how
//! a game is set up from them ([`setup`]), the terminal's width ([`fit`])
//! and how a program ends ([`exit`]). The game's own modules are in
//! `src/main.rs`'s tree, the lab's in `src/bin/lab/`.

pub mod args;
pub mod exit;
pub mod fit;
pub mod setup;

/// The lab's commands, which `cli-ascii` ran before they moved to `lab`:
/// `cli-ascii tournament ...` still runs `lab tournament ...` for a
/// release, with a note (the lab's tests check that this is its list).
pub const LAB_COMMANDS: [&str; 7] =
    ["tournament", "compare", "tune", "agreement", "train", "export-weights", "tables"];
