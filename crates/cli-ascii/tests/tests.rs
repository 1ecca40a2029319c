//! The one integration test binary: everything here drives the real
//! `cli-ascii` executable, the game, through `std::process::Command` (the
//! lab's tests, in `crates/lab`, share `util.rs` and `console.rs`).
//!
//! Golden outputs live in `tests/golden/`; run with `UPDATE_GOLDEN=1` to
//! rewrite them, then read the diff before committing.

/// The program these tests run ([`util::program`]).
const PROGRAM: &str = env!("CARGO_BIN_EXE_cli-ascii");

// Each package's tests use their own part of the shared helpers.
#[allow(dead_code)]
mod util;

// The key lists, from the binary's own source: the docs must quote them.
#[path = "../src/keys.rs"]
mod keys;

mod analyze;
mod console;
mod docs;
mod errors;
mod forward;
mod golden;
mod pipes;
mod screens;
mod watch;
