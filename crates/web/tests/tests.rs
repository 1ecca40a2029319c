//! The web crate's one integration test binary: every endpoint through the
//! router (`tower::ServiceExt::oneshot`, no socket), fixed seeds, and a
//! bounded local load test.

mod api;
mod autoplay;
mod load;
mod util;
