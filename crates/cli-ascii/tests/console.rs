//! The example outputs in README.md and docs/cli.md are what the commands
//! print: every ```console block's `$ cargo run -q -p cli-ascii -- ARGS`
//! runs the built game with ARGS (`$ cargo run -q -p lab -- ARGS` the lab)
//! and its output is compared with the lines under it. The game's tests
//! run the game's examples and the lab's tests the lab's (this file is
//! shared: `crates/lab/tests/tests.rs` takes it by path). An example that
//! no longer matches what the program prints misleads every reader who
//! tries it.
//!
//! What the blocks may use, and what is not compared:
//! - `| head -N` after the arguments keeps the first N lines, as the shell would.
//! - A line `...` stands for any number of lines of output.
//! - Times vary from run to run, so they are masked on both sides: the
//!   `N.NNN ms` of a `search:` line, the `"micros":N` of a JSON answer, and
//!   the values of a tournament summary's `moves/s`, `time per move` and
//!   `wall time` lines (which also depend on the machine's cores).
//!   Node counts are compared: they vary with the thread count, so the
//!   documented `analyze` commands say `--threads 1`.
//! - A block whose output is not deterministic or which takes too long
//!   (a tournament's timings, a `--release` build) is preceded by the line
//!   `<!-- docs-test: skip (the reason) -->`, and this test checks that
//!   every other block that runs cli-ascii or the lab is compared.

use std::path::PathBuf;

use std::io::{BufRead, BufReader, Read};
use std::process::ExitStatus;

use crate::util::{program, run_with, spawn_piped_with};

/// The prefix of a command of the game this test runs.
const PROMPT: &str = "$ cargo run -q -p cli-ascii -- ";

/// The prefix of a command of the lab this test runs.
const LAB_PROMPT: &str = "$ cargo run -q -p lab -- ";

/// The marker that excludes the next block, followed by its reason.
const SKIP: &str = "<!-- docs-test: skip (";

/// One command of a console block and the output the docs show for it.
#[derive(Debug)]
struct Example {
    /// Where the command is, for messages: `README.md:30`.
    place: String,
    /// Whether the command is the lab's ([`LAB_PROMPT`]).
    lab: bool,
    command: String,
    output: Vec<String>,
}

pub(crate) fn read_doc(name: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(name)).unwrap_or_else(|e| panic!("cannot read {name}: {e}"))
}

/// The examples of the console blocks in `text`, and how many blocks were
/// skipped by the marker.
fn examples(name: &str, text: &str) -> (Vec<Example>, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut skipped = 0;
    let mut idx = 0;
    while idx < lines.len() {
        let fence = lines[idx];
        let indent = fence.len() - fence.trim_start().len();
        if fence.trim_start() != "```console" {
            idx += 1;
            continue;
        }
        // The block's lines, without the fence's indentation.
        let start = idx + 1;
        let end = (start..lines.len())
            .find(|&i| lines[i].trim_start().starts_with("```"))
            .unwrap_or_else(|| panic!("{name}:{}: the block does not end", idx + 1));
        let body: Vec<&str> =
            lines[start..end].iter().map(|l| l.get(indent..).unwrap_or("")).collect();
        let marked = lines[..idx]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim_start().starts_with(SKIP));
        idx = end + 1;
        let runs_cli = body.iter().any(|l| {
            l.starts_with("$ cargo run") && (l.contains("-p cli-ascii") || l.contains("-p lab"))
        });
        if marked {
            skipped += 1;
            continue;
        }
        // Other programs' blocks (the web server, Python) are not this
        // test's to run.
        if !runs_cli {
            continue;
        }
        for (offset, line) in body.iter().enumerate() {
            if !line.starts_with('$') {
                continue;
            }
            let (lab, command) = match (line.strip_prefix(LAB_PROMPT), line.strip_prefix(PROMPT)) {
                (Some(command), _) => (true, command),
                (None, Some(command)) => (false, command),
                (None, None) => panic!(
                    "{name}:{}: `{line}` is not `{PROMPT}...` or `{LAB_PROMPT}...`: write it so, \
                     or mark the block with `{SKIP}reason) -->`",
                    start + offset + 1
                ),
            };
            let mut output: Vec<String> = body[offset + 1..]
                .iter()
                .take_while(|l| !l.starts_with('$'))
                .map(|l| (*l).to_owned())
                .collect();
            // A blank line between two commands is layout, not output.
            while output.last().is_some_and(|l| l.is_empty()) {
                output.pop();
            }
            found.push(Example {
                place: format!("{name}:{}", start + offset + 1),
                lab,
                command: command.to_owned(),
                output,
            });
        }
    }
    (found, skipped)
}

/// The words of a command line, with single and double quotes as the shell
/// reads them (no escapes or variables: the docs do not use them).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(quote.is_none(), "an unclosed quote in `{command}`");
    out.extend(word);
    out
}

/// The labels of a tournament summary's lines whose values are times.
const TIMED_ROWS: [&str; 3] = ["moves/s ", "time per move ", "wall time "];

/// The times of a line masked: `, 12.345 ms` at the end of a `search:`
/// line, a JSON `"micros":123`, and the value of a timed summary row.
fn mask(line: &str) -> String {
    if let Some(label) = TIMED_ROWS.iter().find(|l| line.starts_with(*l)) {
        return format!("{}<time>", label.trim_end());
    }
    if line.starts_with("search: ")
        && let Some((head, time)) = line.rsplit_once(", ")
        && time.strip_suffix(" ms").is_some_and(|t| t.parse::<f64>().is_ok())
    {
        return format!("{head}, <time> ms");
    }
    if let Some((head, tail)) = line.split_once("\"micros\":") {
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        return format!("{head}\"micros\":<n>{}", &tail[digits..]);
    }
    line.to_owned()
}

/// The first `n` lines of stdout, as `| head -n` takes them: the pipe is
/// closed after them, so the program must end quietly and at once (a whole
/// transcript would take a second).
fn first_lines(
    program: std::process::Command,
    args: &[String],
    n: usize,
) -> (ExitStatus, String, Vec<u8>) {
    let mut child = spawn_piped_with(program, args);
    let mut reader = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut text = String::new();
    for _ in 0..n {
        if reader.read_line(&mut text).expect("stdout is UTF-8") == 0 {
            break;
        }
    }
    drop(reader);
    let mut stderr = Vec::new();
    child.stderr.take().expect("stderr is piped").read_to_end(&mut stderr).expect("stderr reads");
    (child.wait().expect("the binary ends"), text, stderr)
}

/// Whether `actual` matches `expected`, where a `...` line in `expected`
/// stands for any number of lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            actual.first().is_some_and(|a| a == first) && matches(rest, &actual[1..])
        }
    }
}

#[track_caller]
fn check(example: &Example) {
    let (args, head) = match example.command.split_once(" | ") {
        None => (example.command.as_str(), None),
        Some((args, pipe)) => {
            let n = pipe
                .strip_prefix("head -")
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("{}: only `| head -N` is understood", example.place));
            (args, Some(n))
        }
    };
    let words = words(args);
    let program = program();
    let (status, stdout, stderr) = match head {
        None => {
            let args: Vec<&str> = words.iter().map(String::as_str).collect();
            let out = run_with(program, &args, None);
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            (out.status, stdout, out.stderr)
        }
        Some(n) => first_lines(program, &words, n),
    };
    assert!(
        status.success(),
        "{}: `{args}` failed ({status}): {}",
        example.place,
        String::from_utf8_lossy(&stderr)
    );
    let actual: Vec<String> = stdout.lines().map(mask).collect();
    let expected: Vec<String> = example.output.iter().map(|l| mask(l)).collect();
    assert!(
        matches(&expected, &actual),
        "{}: the documented output of `{}` is not what it prints.\n\
         documented:\n{}\nprinted:\n{}",
        example.place,
        example.command,
        expected.join("\n"),
        actual.join("\n")
    );
}

/// Runs the examples of `name` that run the lab (`lab`) or else the game,
/// with the program under test, which must be that one.
pub(crate) fn check_doc(name: &str, lab: bool, at_least: usize) {
    let (examples, _skipped) = examples(name, &read_doc(name));
    let examples: Vec<&Example> = examples.iter().filter(|e| e.lab == lab).collect();
    // So that a change to the blocks' form cannot make this test check nothing.
    assert!(examples.len() >= at_least, "{name}: only {} examples found", examples.len());
    for example in examples {
        check(example);
    }
}

#[test]
fn the_parser_reads_blocks_markers_and_wildcards() {
    let text = "x\n  ```console\n  $ cargo run -q -p cli-ascii -- a 'b c'\n  one\n  ...\n\n  \
                $ cargo run -q -p lab -- d | head -2\n  two\n  ```\n\
                <!-- docs-test: skip (slow) -->\n```console\n$ cargo run --release x\n```\n";
    let (found, skipped) = examples("t.md", text);
    assert_eq!(skipped, 1);
    assert_eq!(found.len(), 2);
    assert_eq!(words(&found[0].command), ["a", "b c"]);
    assert_eq!(found[0].output, ["one", "..."]);
    assert_eq!(found[1].command, "d | head -2");
    assert!(!found[0].lab && found[1].lab);
    let lines = |s: &[&str]| s.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>();
    assert!(matches(&lines(&["one", "..."]), &lines(&["one", "x", "y"])));
    assert!(matches(&lines(&["...", "y"]), &lines(&["one", "x", "y"])));
    assert!(!matches(&lines(&["one"]), &lines(&["one", "x"])));
    assert_eq!(mask("search: depth 3, 10 nodes, 1.234 ms"), "search: depth 3, 10 nodes, <time> ms");
    assert_eq!(mask("{\"nodes\":4,\"micros\":107}"), "{\"nodes\":4,\"micros\":<n>}");
    assert_eq!(mask("wall time       2.6 s (2 game(s) at once)"), "wall time<time>");
    assert_eq!(mask("moves/s         4505.1 (per game)"), "moves/s<time>");
    assert_eq!(mask("score median    64700"), "score median    64700");
}
