//! `analyze`: the solver's view of boards given as text.

use std::fmt::Write as _;
use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::Context;
use game_core::{Board, Direction, GameBoard, Grid, Rules, RulesBuilder};
use solver_expectimax::{Decision, Solver};

use crate::cli::AnalyzeArgs;
use crate::render::{self, bordered};
use crate::setup;

pub(crate) fn run(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    // The rules' other settings are checked here once; each board brings its size.
    let rules = RulesBuilder { four_probability: args.four_probability, ..RulesBuilder::default() }
        .build()?;
    let config = setup::search_config(&args.settings);
    let solver = setup::solver(config, args.settings.weights.as_deref(), 4)?;
    let mut out = BufWriter::new(io::stdout().lock());
    if !args.board.is_empty() {
        // The words are joined so that an unquoted board works too.
        let text = args.board.join(" ");
        let answer = analyze(&solver, rules, &text, args.json).context("the board argument")?;
        out.write_all(answer.as_bytes())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    if io::stdin().is_terminal() {
        writeln!(io::stderr().lock(), "reading boards from stdin, one a line (Ctrl-D ends)")?;
    }
    let mut failed = false;
    let mut answered = false;
    for (idx, line) in io::stdin().lock().lines().enumerate() {
        let line = line.context("cannot read stdin")?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        match analyze(&solver, rules, text, args.json) {
            Ok(answer) => {
                // A blank line between text answers, so that each board's
                // lines stay together; JSON stays one object a line.
                // See: issue 18, item 9.
                if answered && !args.json {
                    out.write_all(b"\n")?;
                }
                out.write_all(answer.as_bytes())?;
                answered = true;
            }
            Err(err) => {
                // Report and go on with the next board, answering each in turn.
                out.flush()?;
                writeln!(io::stderr().lock(), "error: line {}: {err:#}", idx + 1)?;
                failed = true;
            }
        }
        out.flush()?;
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Parses one board and answers it, as text or JSON.
fn analyze(solver: &Solver, rules: Rules, text: &str, json: bool) -> anyhow::Result<String> {
    let grid: Grid = text.parse()?;
    let rules = RulesBuilder { size: grid.size(), ..rules.to_builder() }.build()?;
    if grid.size() == 4 {
        let board = Board::try_from(grid)?;
        Ok(answer(solver, &board, &rules, json))
    } else {
        Ok(answer(solver, &grid, &rules, json))
    }
}

fn answer<B: GameBoard>(solver: &Solver, board: &B, rules: &Rules, json: bool) -> String {
    // The only search error is "no move", which is an answer here.
    let decision = solver.decide(board, rules).ok();
    if json { json_answer(board, decision.as_ref()) } else { text_answer(board, decision.as_ref()) }
}

fn text_answer<B: GameBoard>(board: &B, decision: Option<&Decision>) -> String {
    let mut out = bordered(board);
    let Some(d) = decision else {
        out.push_str("no direction changes the board: the game is over\n");
        return out;
    };
    for dir in Direction::ALL {
        let value = d.value(dir).map_or_else(|| "illegal".to_owned(), render::value_text);
        let best = if dir == d.direction { "  <- best" } else { "" };
        let _ = writeln!(out, "{:<6}{value:>16}{best}", dir.name());
    }
    let _ = writeln!(out, "best: {}", d.direction);
    let _ = writeln!(
        out,
        "search: depth {}, {} nodes, {:.3} ms",
        d.depth,
        d.stats.nodes,
        d.elapsed.as_secs_f64() * 1e3
    );
    out
}

/// One JSON object on one line: the board, each direction's value (null
/// when illegal), the best direction, depth, nodes and microseconds.
fn json_answer<B: GameBoard>(board: &B, decision: Option<&Decision>) -> String {
    let mut out = format!("{{\"board\":{},\"values\":{{", json_string(&board.to_string()));
    for (i, dir) in Direction::ALL.into_iter().enumerate() {
        let value = decision.and_then(|d| d.value(dir));
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(out, "{sep}\"{}\":{}", dir.name(), json_number(value));
    }
    let best = decision.map_or_else(|| "null".to_owned(), |d| json_string(d.direction.name()));
    let (depth, nodes, micros) =
        decision.map_or((0, 0, 0), |d| (d.depth, d.stats.nodes, d.elapsed.as_micros()));
    let _ = writeln!(
        out,
        "}},\"best\":{best},\"depth\":{depth},\"nodes\":{nodes},\"micros\":{micros}}}"
    );
    out
}

/// A JSON string literal.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number, or null for none (and for NaN or infinity, which JSON
/// cannot hold).
fn json_number(value: Option<f64>) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v}"),
        _ => "null".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_literals() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(json_number(Some(1.5)), "1.5");
        assert_eq!(json_number(Some(1234.0)), "1234");
        assert_eq!(json_number(None), "null");
        assert_eq!(json_number(Some(f64::NAN)), "null");
    }

    #[test]
    fn game_over_board() {
        let board: Board = "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2".parse().unwrap();
        let text = json_answer(&board, None);
        assert!(text.contains("\"best\":null"));
        assert!(text.contains("\"up\":null"));
    }
}
