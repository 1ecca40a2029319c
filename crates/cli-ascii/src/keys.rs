//! The keys of `play` and `watch`, written once: `--help`, the screens'
//! footers and docs/cli.md quote these lists (tests/docs.rs checks the docs
//! and the help).

/// `play`'s keys, short enough for the footer of an 80-column screen.
pub(crate) const PLAY_KEYS: &str = "arrows/wasd move · h hint · u undo · n new · ? help · q quit";

/// What the short list leaves out, for `--help` and the help screen.
pub(crate) const PLAY_KEYS_MORE: &str = "k, j and l move up, down and right too \
     (h is the hint, so left has no vi key); h again shows the search's raw values; \
     Esc quits too (q and Esc ask first during a game), Ctrl-C at once";

/// `watch`'s keys.
pub(crate) const WATCH_KEYS: &str = "q quit · n next game · space pause · + faster · - slower";
