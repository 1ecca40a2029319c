//! Boards as text: the Java tutorial's bordered board, plain or coloured.

use std::fmt::Write as _;

use crossterm::style::{Color, Stylize};
use game_core::{GameBoard, Tile};

/// The width of a cell between its borders: the tutorial's 8, kept because
/// every tile fits it. A 6-digit tile (131072, the largest a 4x4 game can
/// reach) gets a space on each side; only 5x5 boards and larger can build
/// the 7- and 8-digit tiles (up to 2^25 = 33554432) that fill a cell, and
/// they still fit it.
const CELL_WIDTH: usize = 8;

/// A tile's number centred in a cell as the tutorial's `printBoard` does it:
/// a space appended, then one inserted in front, until 8 characters, so an
/// odd gap leaves the extra space on the right (`"   2    "`).
pub(crate) fn centred(value: u32) -> String {
    let mut text = value.to_string();
    while text.len() < CELL_WIDTH {
        text.push(' ');
        if text.len() < CELL_WIDTH {
            text.insert(0, ' ');
        }
    }
    text
}

/// The largest tile's value, as the status lines show it (0 on an empty
/// board, which no game has).
pub(crate) fn max_tile(board: &impl GameBoard) -> u32 {
    board.max_tile().map_or(0, Tile::value)
}

/// A count and its noun, singular for one: "1 move", "2 moves".
pub(crate) fn counted(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The text of a cell: blank when empty, the centred number otherwise.
fn cell_text(value: u32) -> String {
    if value == 0 { " ".repeat(CELL_WIDTH) } else { centred(value) }
}

/// The bordered board, one line per `\n`, without the score line.
pub(crate) fn bordered<B: GameBoard>(board: &B) -> String {
    let n = board.size();
    let border = format!("{}+", "+--------".repeat(n));
    let spacer = format!("{}|", "|        ".repeat(n));
    let mut out = String::new();
    for row in 0..n {
        out.push_str(&border);
        out.push('\n');
        out.push_str(&spacer);
        out.push('\n');
        for col in 0..n {
            out.push('|');
            out.push_str(&cell_text(board.value(row, col).unwrap_or(0)));
        }
        out.push_str("|\n");
        out.push_str(&spacer);
        out.push('\n');
    }
    out.push_str(&border);
    out.push('\n');
    out
}

/// The bordered board followed by `Score: N`, exactly as the tutorial
/// prints it.
pub(crate) fn bordered_with_score<B: GameBoard>(board: &B, score: u64) -> String {
    let mut out = bordered(board);
    let _ = writeln!(out, "Score: {score}");
    out
}

/// The background and foreground of a tile by its exponent, in the 256
/// colours every modern terminal has.
fn tile_colors(exponent: u8) -> (Color, Color) {
    const DARK: Color = Color::AnsiValue(235);
    const LIGHT: Color = Color::AnsiValue(231);
    let (bg, fg) = match exponent {
        1 => (254, DARK),
        2 => (230, DARK),
        3 => (215, DARK),
        4 => (209, LIGHT),
        5 => (203, LIGHT),
        6 => (196, LIGHT),
        7 => (229, DARK),
        8 => (228, DARK),
        9 => (227, DARK),
        10 => (221, DARK),
        11 => (214, DARK),
        12 => (141, LIGHT),
        13 => (99, LIGHT),
        14 => (63, LIGHT),
        15 => (27, LIGHT),
        16 => (21, LIGHT),
        17 => (19, LIGHT),
        _ => (17, LIGHT),
    };
    (Color::AnsiValue(bg), fg)
}

/// The bordered board as lines for a terminal, the tiles' insides coloured
/// when `color` is set.
#[cfg(test)]
pub(crate) fn board_lines<B: GameBoard>(board: &B, color: bool) -> Vec<String> {
    board_lines_marked(board, color, None)
}

/// A tile's number in brackets, centred as [`centred`] does (`"  [2]   "`):
/// the mark of a new tile without colours; the number alone when the
/// brackets would not fit (tiles of 7 digits or more).
fn bracketed(value: u32) -> String {
    let mut text = format!("[{value}]");
    if text.len() > CELL_WIDTH {
        return centred(value);
    }
    while text.len() < CELL_WIDTH {
        text.push(' ');
        if text.len() < CELL_WIDTH {
            text.insert(0, ' ');
        }
    }
    text
}

/// The bordered board as lines for a terminal, with the tile at `mark`
/// (row, column) singled out: the tile that just spawned, underlined in
/// colour, in brackets without.
pub(crate) fn board_lines_marked<B: GameBoard>(
    board: &B,
    color: bool,
    mark: Option<(usize, usize)>,
) -> Vec<String> {
    if !color {
        let mut lines: Vec<String> = bordered(board).lines().map(str::to_owned).collect();
        if let Some((row, col)) = mark
            && let Some(value) = board.value(row, col).filter(|&v| v != 0)
        {
            // The value line of `row`, and the cell's place in it.
            let line = &mut lines[4 * row + 2];
            let start = col * (CELL_WIDTH + 1) + 1;
            line.replace_range(start..start + CELL_WIDTH, &bracketed(value));
        }
        return lines;
    }
    let n = board.size();
    let border = format!("{}+", "+--------".repeat(n));
    let mut lines = Vec::with_capacity(4 * n + 1);
    for row in 0..n {
        lines.push(border.clone());
        let mut spacer = String::new();
        let mut values = String::new();
        for col in 0..n {
            spacer.push('|');
            values.push('|');
            let exponent = board.exponent(row, col).unwrap_or(0);
            let text = cell_text(board.value(row, col).unwrap_or(0));
            if exponent == 0 {
                spacer.push_str(&" ".repeat(CELL_WIDTH));
                values.push_str(&text);
            } else {
                let (bg, fg) = tile_colors(exponent);
                let _ = write!(spacer, "{}", " ".repeat(CELL_WIDTH).on(bg));
                if mark == Some((row, col)) {
                    let _ = write!(
                        values,
                        "{}",
                        bracketed(board.value(row, col).unwrap_or(0))
                            .with(fg)
                            .on(bg)
                            .bold()
                            .underlined()
                    );
                } else {
                    let _ = write!(values, "{}", text.with(fg).on(bg).bold());
                }
            }
        }
        spacer.push('|');
        values.push('|');
        lines.push(spacer.clone());
        lines.push(values);
        lines.push(spacer);
    }
    lines.push(border);
    lines
}

/// How much room a board takes: the tutorial's full board, a compact one
/// (6-character cells, no blank rows), or a bare one (no borders), for
/// terminals too small for the full one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BoardStyle {
    Full,
    Compact,
    Bare,
}

impl BoardStyle {
    /// From the largest to the smallest.
    pub(crate) const ALL: [BoardStyle; 3] =
        [BoardStyle::Full, BoardStyle::Compact, BoardStyle::Bare];

    /// Columns and rows of an `n` x `n` board in this style.
    pub(crate) fn extent(self, n: usize) -> (usize, usize) {
        match self {
            BoardStyle::Full => (9 * n + 1, 4 * n + 1),
            BoardStyle::Compact => (7 * n + 1, 2 * n + 1),
            BoardStyle::Bare => (6 * n, n),
        }
    }
}

/// `text` centred in `width` columns, the odd space on the right.
fn centred_in(text: &str, width: usize) -> String {
    let len = text.chars().count();
    let left = width.saturating_sub(len) / 2;
    let right = width.saturating_sub(len + left);
    format!("{}{text}{}", " ".repeat(left), " ".repeat(right))
}

/// The board in `style` as lines for a terminal (see [`board_lines_marked`]
/// for the colours and the mark).
pub(crate) fn styled_board_lines<B: GameBoard>(
    board: &B,
    color: bool,
    mark: Option<(usize, usize)>,
    style: BoardStyle,
) -> Vec<String> {
    if style == BoardStyle::Full {
        return board_lines_marked(board, color, mark);
    }
    const CELL: usize = 6;
    let n = board.size();
    let borders = style == BoardStyle::Compact;
    let border = format!("{}+", "+------".repeat(n));
    let mut lines = Vec::new();
    for row in 0..n {
        if borders {
            lines.push(border.clone());
        }
        let mut line = String::new();
        for col in 0..n {
            if borders {
                line.push('|');
            }
            let value = board.value(row, col).unwrap_or(0);
            let marked = mark == Some((row, col)) && value != 0;
            let text = match value {
                0 if borders => " ".repeat(CELL),
                0 => centred_in(".", CELL),
                // Brackets when they fit: a 5-digit tile fills the cell.
                v if marked && !color && v < 10_000 => centred_in(&format!("[{v}]"), CELL),
                // A 6-digit tile (up to 131072 on 4x4) fills the cell; the
                // 7- and 8-digit tiles of larger boards are shortened
                // (`1.05M`) so that the columns stay aligned.
                v if v >= 1_000_000 => centred_in(&short_count(f64::from(v)), CELL),
                v => centred_in(&v.to_string(), CELL),
            };
            let exponent = board.exponent(row, col).unwrap_or(0);
            if color && exponent > 0 {
                let (bg, fg) = tile_colors(exponent);
                let styled = text.with(fg).on(bg).bold();
                let _ = write!(line, "{}", if marked { styled.underlined() } else { styled });
            } else {
                line.push_str(&text);
            }
        }
        if borders {
            line.push('|');
        }
        lines.push(line);
    }
    if borders {
        lines.push(border);
    }
    lines
}

/// A count in short form: `950`, `12.3k`, `4.56M`, `7.89G`.
pub(crate) fn short_count(n: f64) -> String {
    let (value, unit) = match n.abs() {
        a if a >= 1e9 => (n / 1e9, "G"),
        a if a >= 1e6 => (n / 1e6, "M"),
        a if a >= 1e3 => (n / 1e3, "k"),
        _ => return format!("{n:.0}"),
    };
    let digits = if value.abs() >= 100.0 {
        0
    } else if value.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$}{unit}")
}

/// A search value for people: whole numbers as such, others to 2 decimals.
/// A value that rounds to 0 is "0", never "-0.00": a learned search values
/// a losing move a hair below 0.
pub(crate) fn value_text(value: f64) -> String {
    let value = if (value * 100.0).round() == 0.0 { 0.0 } else { value };
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value:.2}")
    }
}

/// A search value on a screen: rounded, with thousands separators
/// (`1,594,152`), so that its width does not jump with the decimals.
pub(crate) fn eval_text(value: f64) -> String {
    if !value.is_finite() {
        return "-".to_owned();
    }
    let digits = format!("{:.0}", value.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if value.round() < 0.0 {
        out.push('-');
    }
    for (idx, c) in digits.chars().enumerate() {
        if idx > 0 && (digits.len() - idx) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How much worse than the best move a move is, for people: `12% worse`,
/// `0.4% worse`, `<0.1% worse`, and `as good` for a tie (see
/// [`engine::Values::shortfall`]).
pub(crate) fn shortfall_text(share: f64) -> String {
    let pct = share * 100.0;
    match pct {
        p if p.is_nan() => "-".to_owned(),
        p if p <= 0.0 => "as good".to_owned(),
        p if p < 0.1 => "<0.1% worse".to_owned(),
        p if p < 10.0 => format!("{p:.1}% worse"),
        p => format!("{p:.0}% worse"),
    }
}

/// Odds (0 to 1) as a percentage: `87.3%`, `100%`, `0%`, with `<0.1%` and
/// `>99.9%` for odds that would round to a certainty they are not.
pub(crate) fn odds_text(odds: f64) -> String {
    let pct = odds * 100.0;
    match pct {
        p if p.is_nan() => "-".to_owned(),
        p if p >= 100.0 => "100%".to_owned(),
        p if p <= 0.0 => "0%".to_owned(),
        p if p > 99.9 => ">99.9%".to_owned(),
        p if p < 0.1 => "<0.1%".to_owned(),
        p => format!("{p:.1}%"),
    }
}

/// Milliseconds on a screen: one decimal below 10 ms, none above.
pub(crate) fn millis_text(ms: f64) -> String {
    if ms < 10.0 { format!("{ms:.1} ms") } else { format!("{ms:.0} ms") }
}

#[cfg(test)]
mod tests {
    use game_core::{Board, Grid};

    use super::*;

    #[test]
    fn centring_matches_the_tutorial() {
        assert_eq!(centred(2), "   2    ");
        assert_eq!(centred(16), "   16   ");
        assert_eq!(centred(128), "  128   ");
        assert_eq!(centred(2048), "  2048  ");
        assert_eq!(centred(16384), " 16384  ");
        assert_eq!(centred(32768), " 32768  ");
        assert_eq!(centred(65536), " 65536  ");
        assert_eq!(centred(131072), " 131072 ");
        assert_eq!(centred(33_554_432), "33554432");
        assert_eq!(bracketed(131072), "[131072]");
        assert_eq!(bracketed(1_048_576), "1048576 ");
    }

    /// Tiles past 32768 keep every style's columns aligned.
    #[test]
    fn big_tiles_fit_every_style() {
        let board: Board = "131072 65536 32768 2/0 0 0 0/0 0 0 0/0 0 0 0".parse().unwrap();
        let grid: Grid =
            "33554432 1048576 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 2".parse().unwrap();
        let lines = board_lines_marked(&board, false, Some((0, 0)));
        assert_eq!(lines[2], "|[131072]| 65536  | 32768  |   2    |");
        let lines = board_lines(&grid, false);
        assert_eq!(lines[2], "|33554432|1048576 |        |        |        |");
        for style in BoardStyle::ALL {
            for lines in [
                styled_board_lines(&board, false, Some((0, 1)), style),
                styled_board_lines(&grid, false, None, style),
            ] {
                let width = lines[0].chars().count();
                assert!(lines.iter().all(|l| l.chars().count() == width), "{style:?}: {lines:?}");
            }
        }
    }

    #[test]
    fn short_counts() {
        assert_eq!(short_count(950.0), "950");
        assert_eq!(short_count(12_345.0), "12.3k");
        assert_eq!(short_count(4_560_000.0), "4.56M");
        assert_eq!(short_count(789_000_000_000.0), "789G");
        assert_eq!(value_text(1234.0), "1234");
        assert_eq!(value_text(0.126), "0.13");
        assert_eq!(value_text(-1e-20), "0");
        assert_eq!(value_text(-0.004), "0");
        assert_eq!(value_text(-0.006), "-0.01");
    }

    #[test]
    fn evals_are_whole_with_separators() {
        assert_eq!(eval_text(1_594_152.25), "1,594,152");
        assert_eq!(eval_text(1_583_318.62), "1,583,319");
        assert_eq!(eval_text(999.5), "1,000");
        assert_eq!(eval_text(12.0), "12");
        assert_eq!(eval_text(-1234.4), "-1,234");
        assert_eq!(eval_text(-0.2), "0");
        assert_eq!(eval_text(f64::NAN), "-");
        assert_eq!(millis_text(3.25), "3.2 ms");
        assert_eq!(shortfall_text(0.0), "as good");
        assert_eq!(shortfall_text(0.0004), "<0.1% worse");
        assert_eq!(shortfall_text(0.0234), "2.3% worse");
        assert_eq!(shortfall_text(0.456), "46% worse");
        assert_eq!(odds_text(0.8734), "87.3%");
        assert_eq!(odds_text(1.0), "100%");
        assert_eq!(odds_text(0.99995), ">99.9%");
        assert_eq!(odds_text(0.0), "0%");
        assert_eq!(millis_text(110.24), "110 ms");
    }

    #[test]
    fn plain_lines_are_the_bordered_board() {
        let board: Board = "2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048".parse().unwrap();
        assert_eq!(board_lines(&board, false).join("\n") + "\n", bordered(&board));
        let grid: Grid = "2 0/0 4".parse().unwrap();
        assert_eq!(
            bordered(&grid),
            "+--------+--------+\n|        |        |\n|   2    |        |\n|        |        |\n\
             +--------+--------+\n|        |        |\n|        |   4    |\n|        |        |\n\
             +--------+--------+\n"
        );
    }

    #[test]
    fn a_marked_tile_is_bracketed() {
        let grid: Grid = "2 0/0 16".parse().unwrap();
        let lines = board_lines_marked(&grid, false, Some((1, 1)));
        assert_eq!(lines[6], "|        |  [16]  |");
        assert_eq!(lines[2], "|   2    |        |");
        assert_eq!(bracketed(2), "  [2]   ");
        assert_eq!(bracketed(16384), "[16384] ");
        // An empty cell has nothing to mark.
        assert_eq!(board_lines_marked(&grid, false, Some((0, 1))), board_lines(&grid, false));
    }

    #[test]
    fn small_styles_fit_their_extent() {
        let board: Board = "2 0 0 4/0 0 0 0/0 16384 0 0/0 0 0 2048".parse().unwrap();
        for style in BoardStyle::ALL {
            let (cols, rows) = style.extent(4);
            let lines = styled_board_lines(&board, false, Some((0, 3)), style);
            assert_eq!(lines.len(), rows, "{style:?}");
            assert!(lines.iter().all(|l| l.chars().count() == cols), "{style:?}: {lines:?}");
        }
        let compact = styled_board_lines(&board, false, Some((0, 3)), BoardStyle::Compact);
        assert_eq!(compact[1], "|  2   |      |      | [4]  |");
        assert_eq!(compact[5], "|      |16384 |      |      |");
        let bare = styled_board_lines(&board, false, None, BoardStyle::Bare);
        assert_eq!(bare[0], "  2     .     .     4   ");
    }

    #[test]
    fn coloured_lines_keep_the_layout() {
        let board: Board = "2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048".parse().unwrap();
        let lines = board_lines(&board, true);
        assert_eq!(lines.len(), 17);
        assert!(lines[2].contains("2048") || lines[14].contains("2048"));
        assert!(lines[2].contains('\u{1b}'));
    }
}
