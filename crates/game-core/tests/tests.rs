//! The one integration test binary of game-core: the engine checked against a
//! slow reference, by exhaustion, by properties, by perft counts, and on its
//! error paths.

mod common;
mod determinism;
mod errors;
mod exhaustive;
mod perft;
mod props;
mod reference;
