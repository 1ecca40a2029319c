//! Lines fitted to the terminal's width: what the game's screens and the
//! lab's progress lines share.

/// The terminal's columns and rows, 80x24 when it cannot say.
pub fn terminal_size() -> (usize, usize) {
    crossterm::terminal::size().map_or((80, 24), |(c, r)| (usize::from(c), usize::from(r)))
}

/// `line` cut to `cols` characters (for plain lines, without colours).
pub fn cut(line: &str, cols: usize) -> String {
    line.chars().take(cols).collect()
}
