//! Fitting a screen to the terminal: the largest board style that leaves
//! room for the lines around it, lines cut rather than wrapped, status
//! fields dropped from the end rather than cut mid-number, and a clear
//! message only when nothing fits.

use cli_common::fit::cut;
use game_core::GameBoard;

use crate::render::{self, BoardStyle};

/// `fields` joined by `sep`, as many from the start as fit in `cols` (the
/// first one cut if even it does not fit).
pub(crate) fn fit_fields(fields: &[String], sep: &str, cols: usize) -> String {
    let mut out = String::new();
    for field in fields {
        let extra = if out.is_empty() { 0 } else { sep.chars().count() };
        if out.chars().count() + extra + field.chars().count() > cols {
            if out.is_empty() {
                // A lone message (e.g. "game over: ...") is cut, not lost.
                return cut(field, cols);
            }
            break;
        }
        if !out.is_empty() {
            out.push_str(sep);
        }
        out.push_str(field);
    }
    out
}

/// `fields` joined by `sep` in their order, as many as fit in `cols`,
/// taken in the order of `priority` (indices into `fields`): a narrow
/// terminal drops the least needed, wherever they are.
pub(crate) fn fit_by_priority(
    fields: &[String],
    priority: &[usize],
    sep: &str,
    cols: usize,
) -> String {
    let width = |kept: &[bool]| {
        let shown = fields.iter().zip(kept).filter(|(_, k)| **k);
        let (n, chars) = shown.fold((0usize, 0), |(n, c), (f, _)| (n + 1, c + f.chars().count()));
        chars + sep.chars().count() * n.saturating_sub(1)
    };
    let mut kept = vec![false; fields.len()];
    for &idx in priority.iter().filter(|&&i| i < fields.len()) {
        kept[idx] = true;
        if width(&kept) > cols {
            kept[idx] = false;
        }
    }
    let shown: Vec<&str> =
        fields.iter().zip(&kept).filter(|(_, k)| **k).map(|(f, _)| f.as_str()).collect();
    cut(&shown.join(sep), cols)
}

/// The screen: `head` above the board, `tail` below, in `cols` x `rows`.
/// Blank lines separate the parts when there is room; empty tail lines go
/// first when there is not.
pub(crate) fn screen<B: GameBoard>(
    board: &B,
    color: bool,
    mark: Option<(usize, usize)>,
    head: &[String],
    tail: &[String],
    (cols, rows): (usize, usize),
) -> Vec<String> {
    let n = board.size();
    let cut_all = |lines: &[String]| lines.iter().map(|l| cut(l, cols)).collect::<Vec<_>>();
    let dense_tail: Vec<String> = tail.iter().filter(|l| !l.is_empty()).cloned().collect();
    for style in BoardStyle::ALL {
        let (width, height) = style.extent(n);
        if width > cols {
            continue;
        }
        let board_lines = render::styled_board_lines(board, color, mark, style);
        if head.len() + height + tail.len() + 2 <= rows {
            let mut lines = cut_all(head);
            lines.push(String::new());
            lines.extend(board_lines);
            lines.push(String::new());
            lines.extend(cut_all(tail));
            return lines;
        }
        if head.len() + height + dense_tail.len() <= rows {
            let mut lines = cut_all(head);
            lines.extend(board_lines);
            lines.extend(cut_all(&dense_tail));
            return lines;
        }
    }
    let (width, height) = BoardStyle::Bare.extent(n);
    let needed = (width, head.len() + height + dense_tail.len());
    [
        "terminal too small".to_owned(),
        format!("{cols}x{rows}; needs {}x{}", needed.0, needed.1),
        "q quits".to_owned(),
    ]
    .iter()
    .map(|l| cut(l, cols))
    .collect()
}

#[cfg(test)]
mod tests {
    use game_core::Board;

    use super::*;

    fn lines(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| (*t).to_owned()).collect()
    }

    #[test]
    fn fields_are_dropped_not_cut() {
        let fields = lines(&["score 1234", "moves 56", "max tile 128"]);
        assert_eq!(fit_fields(&fields, "   ", 80), "score 1234   moves 56   max tile 128");
        assert_eq!(fit_fields(&fields, "   ", 25), "score 1234   moves 56");
        assert_eq!(fit_fields(&lines(&["game over: press a key"]), " · ", 9), "game over");
    }

    #[test]
    fn fields_kept_by_priority_keep_their_order() {
        let keys = lines(&["arrows move", "h hint", "u undo", "q quit"]);
        let priority = [3, 0, 1, 2];
        assert_eq!(fit_by_priority(&keys, &priority, " · ", 80), keys.join(" · "));
        assert_eq!(fit_by_priority(&keys, &priority, " · ", 30), "arrows move · h hint · q quit");
        assert_eq!(fit_by_priority(&keys, &priority, " · ", 20), "arrows move · q quit");
        assert_eq!(fit_by_priority(&keys, &priority, " · ", 10), "q quit");
        assert_eq!(fit_by_priority(&keys, &priority, " · ", 4), "");
    }

    #[test]
    fn the_board_shrinks_to_fit_and_nothing_is_wider_than_the_terminal() {
        let board: Board = "2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048".parse().unwrap();
        let head = lines(&["2048 · a long title that does not fit in thirty columns"]);
        let tail = lines(&["score 4", "", "message", "keys"]);
        let full = screen(&board, false, None, &head, &tail, (80, 24));
        assert_eq!(full.len(), 1 + 1 + 17 + 1 + 4);
        let compact = screen(&board, false, None, &head, &tail, (40, 20));
        assert!(compact.contains(&"|  2   |      |      |  4   |".to_owned()), "{compact:?}");
        let small = screen(&board, false, None, &head, &tail, (30, 10));
        assert!(small.len() <= 10, "{small:?}");
        assert!(small.iter().all(|l| l.chars().count() <= 30), "{small:?}");
        assert!(small.contains(&"  2     .     .     4   ".to_owned()), "{small:?}");
        let tiny = screen(&board, false, None, &head, &tail, (20, 5));
        assert_eq!(tiny[0], "terminal too small");
        assert_eq!(tiny[1], "20x5; needs 24x8");
    }
}
