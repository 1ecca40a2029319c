//! `analyze`: the solver's view of boards given as text.

use std::fmt::Write as _;
use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::Context;
use cli_common::setup;
use engine::Values;
use engine::{Decision, Solver};
use game_core::{AnyBoard, Direction, GameBoard, Rules, RulesBuilder};
use serde::Serialize;

use crate::cli::AnalyzeArgs;
use crate::render::{self, bordered};

pub(crate) fn run(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    // The rules' other settings are checked here once; each board brings its size.
    let rules = RulesBuilder { four_probability: args.four_probability, ..RulesBuilder::default() }
        .build()?;
    let mut solvers = Solvers { args, rules, built: Vec::new() };
    // The 4x4 solver (with its network and tables) is built before the
    // first board, so that bad settings fail at once.
    solvers.of(4)?;
    let mut out = BufWriter::new(io::stdout().lock());
    if !args.board.is_empty() {
        // The words are joined so that an unquoted board works too.
        let text = args.board.join(" ");
        let text = text.trim_start_matches('\u{feff}');
        let answer = analyze(&mut solvers, rules, text, args.json).context("the board argument")?;
        out.write_all(answer.as_bytes())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    if io::stdin().is_terminal() {
        writeln!(io::stderr().lock(), "reading boards from stdin, one a line (Ctrl-D ends)")?;
    }
    let mut failed = 0;
    let mut answered = false;
    let mut boards = 0;
    for (idx, line) in io::stdin().lock().lines().enumerate() {
        let line = line.context("cannot read stdin")?;
        // A byte-order mark (which some editors write first) is no tile.
        let text = line.trim().trim_start_matches('\u{feff}').trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        boards += 1;
        match analyze(&mut solvers, rules, text, args.json) {
            Ok(answer) => {
                // A blank line between text answers, so that each board's
                // lines stay together; JSON stays one object a line.
                if answered && !args.json {
                    out.write_all(b"\n")?;
                }
                out.write_all(answer.as_bytes())?;
                answered = true;
            }
            Err(err) => {
                // Report and go on with the next board, answering each in
                // turn; past the first few, a count (a stream of anything
                // but boards would bury the answers).
                out.flush()?;
                if failed < SHOWN_ERRORS {
                    writeln!(io::stderr().lock(), "error: line {}: {err:#}", idx + 1)?;
                }
                failed += 1;
            }
        }
        out.flush()?;
    }
    if failed > SHOWN_ERRORS {
        let more = failed - SHOWN_ERRORS;
        let lines = if more == 1 { "line" } else { "lines" };
        writeln!(io::stderr().lock(), "error: ... and {more} more bad {lines}")?;
    }
    if boards == 0 {
        anyhow::bail!(
            "no board on stdin: write one a line, e.g. `2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048`, or \
             give one as the argument"
        );
    }
    Ok(if failed > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The bad lines of stdin reported one by one; the rest are counted.
const SHOWN_ERRORS: usize = 20;

/// The solver of each board size met so far: without `--preset`, the
/// strongest player this machine has for that size
/// ([`engine::strongest_preset`]).
struct Solvers<'a> {
    args: &'a AnalyzeArgs,
    rules: Rules,
    built: Vec<(usize, Solver)>,
}

impl Solvers<'_> {
    fn of(&mut self, size: usize) -> anyhow::Result<&Solver> {
        if let Some(i) = self.built.iter().position(|(s, _)| *s == size) {
            return Ok(&self.built[i].1);
        }
        // Without --preset, the strongest player this machine has for the
        // size, said on a terminal (stdout stays the answers).
        let mut settings = self.args.settings.clone();
        if let Some(choice) = setup::choose_default_settings(&mut settings, size)
            && io::stderr().is_terminal()
        {
            writeln!(io::stderr().lock(), "player on {size}x{size} boards: {choice}")?;
        }
        let settings = &settings;
        let endgame =
            if size == 4 { setup::endgame_of(settings, size, &self.rules)? } else { None };
        let solver = settings
            .solver_spec(size)
            .with_endgame(endgame)
            .build(size)
            .map_err(|e| setup::spec_error(&e))?;
        self.built.push((size, solver));
        Ok(&self.built[self.built.len() - 1].1)
    }
}

/// Parses one board and answers it, as text or JSON.
fn analyze(
    solvers: &mut Solvers<'_>,
    rules: Rules,
    text: &str,
    json: bool,
) -> anyhow::Result<String> {
    let board: AnyBoard = text.parse()?;
    let solver = solvers.of(board.size())?;
    Ok(answer(solver, &board, &rules, json))
}

fn answer<B: GameBoard>(solver: &Solver, board: &B, rules: &Rules, json: bool) -> String {
    // The only search error is "no move", which is an answer here.
    let decision = solver.decide(board, rules).ok();
    if json { json_answer(board, decision.as_ref()) } else { text_answer(board, decision.as_ref()) }
}

fn text_answer<B: GameBoard>(board: &B, decision: Option<&Decision>) -> String {
    let mut out = bordered(board);
    let Some(d) = decision else {
        // A board with no tile has no move either, but no game ever ended
        // on it.
        out.push_str(if board.max_tile().is_none() {
            "the board has no tiles, so no direction changes it (a game starts with two)\n"
        } else {
            "no direction changes the board: the game is over\n"
        });
        return out;
    };
    // Beside each raw value, what a person reads: the odds where a table
    // decided, else how much worse than the best move it is.
    let values = Values::of(Some(d));
    let shortfall = values.shortfall();
    for dir in Direction::ALL {
        let value = d.value(dir).map_or_else(|| "illegal".to_owned(), render::value_text);
        let reading = match (d.endgame, values.get(dir), shortfall.get(dir)) {
            (_, None, _) => String::new(),
            _ if dir == d.direction => "<- best".to_owned(),
            (Some(_), Some(odds), _) => format!("{} odds", render::odds_text(odds)),
            (None, _, share) => render::shortfall_text(share.unwrap_or(f64::NAN)),
        };
        let line = format!("{:<6}{value:>16}  {reading}", dir.name());
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "best: {}", d.direction);
    let _ = match d.endgame {
        Some(formation) => writeln!(
            out,
            "endgame table: the {formation}; values are the odds of building its next tile \
             ({:.3} ms)",
            d.elapsed.as_secs_f64() * 1e3
        ),
        None => writeln!(
            out,
            "search: depth {}, {} nodes, {:.3} ms",
            d.depth,
            d.stats.nodes,
            d.elapsed.as_secs_f64() * 1e3
        ),
    };
    out
}

/// One board's answer in JSON: the board, each direction's value (null when
/// illegal) and how much worse than the best it is (a share, 0 for the
/// best), the best direction (null on a lost board), depth, nodes and
/// microseconds, and the endgame table that decided (null when the search
/// did; its values are then odds). The field names and their order are the
/// documented output.
#[derive(Debug, Serialize)]
struct JsonAnswer {
    board: String,
    values: Values,
    /// How much worse than the best each direction is, a share (0 for the
    /// best; `Values::shortfall`): added after `values`, which stay raw.
    shortfall: Values,
    best: Option<&'static str>,
    depth: u32,
    nodes: u64,
    micros: u128,
    endgame: Option<String>,
}

/// One JSON object on one line, with its newline.
fn json_answer<B: GameBoard>(board: &B, decision: Option<&Decision>) -> String {
    let answer = JsonAnswer {
        board: board.to_string(),
        values: Values::of(decision),
        shortfall: Values::of(decision).shortfall(),
        best: decision.map(|d| d.direction.name()),
        depth: decision.map_or(0, |d| d.depth),
        nodes: decision.map_or(0, |d| d.stats.nodes),
        micros: decision.map_or(0, |d| d.elapsed.as_micros()),
        endgame: decision.and_then(|d| d.endgame).map(|f| f.to_string()),
    };
    // A struct of numbers and strings always serialises.
    let mut line = serde_json::to_string(&answer).unwrap_or_default();
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use game_core::Board;

    use super::*;

    #[test]
    fn game_over_board() {
        let board: Board = "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2".parse().unwrap();
        let text = json_answer(&board, None);
        assert!(text.contains("\"best\":null"));
        assert!(text.contains("\"up\":null"));
    }
}
