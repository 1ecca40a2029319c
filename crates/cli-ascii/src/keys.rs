//! The keys of `play` and `watch`, written once: `--help`, the screens'
//! footers and docs/cli.md quote these lists (tests/docs.rs checks the docs
//! and the help). See: issue 18, item 5.

/// `play`'s keys. There is no vi key for left: `h` is the hint.
pub(crate) const PLAY_KEYS: &str =
    "arrows/wasd move (k j l: up down right) · h hint · u undo · n new · q quit";

/// `watch`'s keys.
pub(crate) const WATCH_KEYS: &str = "q quit · space pause · +/- pace";
