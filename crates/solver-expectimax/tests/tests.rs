//! The solver's integration tests: one binary, one module per concern.

mod endgame;
mod java;
mod learned;
mod properties;
mod support;
