//! Builds one endgame table and says how long it took: the generator's
//! measure (profile it with `valgrind --tool=callgrind` on a small corner
//! table) and a check that a change to it keeps every odds value (write the
//! table with `--out` before and after, and compare the files).
//!
//! `cargo run --release -p endgame-tables --example endgame_build -- block 7 [--out FILE]`
//!
//! The formation is `step GOAL`, `block ANCHOR` or `chain LENGTH ANCHOR`
//! (exponents: `block 7` is the corner block anchored at 128).

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use endgame_tables::{Formation, Table};

type Error = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // If stderr is gone there is nowhere left to report to.
            let _ = writeln!(std::io::stderr(), "error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> Result<u8, Error> {
        let text = args.get(i).ok_or("missing a number: see the example's docs")?;
        Ok(text.parse()?)
    };
    let (formation, rest) = match args.first().map(String::as_str) {
        Some("step") => (Formation::step(number(1)?)?, 2),
        Some("block") => (Formation::block(number(1)?)?, 2),
        Some("chain") => (Formation::new(usize::from(number(1)?), number(2)?)?, 3),
        _ => {
            return Err(
                "usage: endgame_build step|block GOAL | chain LENGTH ANCHOR [--out FILE]".into()
            );
        }
    };
    let out = match &args[rest..] {
        [] => None,
        [flag, path] if flag == "--out" => Some(path.clone()),
        _ => return Err("after the formation, only --out FILE".into()),
    };
    let start = Instant::now();
    let table = Table::build(formation, &|_| {});
    let took = start.elapsed();
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{formation}: {} states in {:.2} s", formation.states(), took.as_secs_f64())?;
    if let Some(path) = out {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path)?);
        table.write_to(&mut w)?;
        w.flush()?;
    }
    Ok(())
}
