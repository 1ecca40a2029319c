//! The one integration test binary: everything here drives the real
//! executables, the game `cli-ascii` and the lab `lab`, through
//! `std::process::Command`.
//!
//! Golden outputs live in `tests/golden/`; run with `UPDATE_GOLDEN=1` to
//! rewrite them, then read the diff before committing.

mod util;

// The key lists, from the binary's own source: the docs must quote them.
#[path = "../src/keys.rs"]
mod keys;

mod analyze;
mod compare;
mod docs;
mod errors;
mod experiments;
mod golden;
mod learned;
mod pipes;
mod records;
mod screens;
mod tables;
mod tournament;
mod train;
mod watch;
