//! The solver's integration tests: one binary, one module per concern.

mod java;
mod properties;
mod support;
