//! The one integration test binary: everything here drives the real `lab`
//! executable through `std::process::Command`. The helpers and the docs'
//! example runner are the game's tests', shared by path.

/// The program these tests run ([`util::program`]).
const PROGRAM: &str = env!("CARGO_BIN_EXE_lab");

// Each package's tests use their own part of the shared helpers.
#[allow(dead_code)]
#[path = "../../cli-ascii/tests/util.rs"]
mod util;

#[path = "../../cli-ascii/tests/console.rs"]
mod console;

mod compare;
mod docs;
mod errors;
mod experiments;
mod learned;
mod records;
mod tables;
mod tournament;
mod train;
