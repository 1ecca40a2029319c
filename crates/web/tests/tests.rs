//! The web crate's one integration test binary: every endpoint through the
//! router (`tower::ServiceExt::oneshot`, no socket), fixed seeds, a
//! bounded local load test, and the binary's own start-up errors.

mod api;
mod autoplay;
mod binary;
mod connections;
mod docs;
mod guard;
mod load;
mod tables;
mod util;
