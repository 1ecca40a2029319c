//! `cargo xtask phases`: where the games of records files were lost
//! ([`records::phases`]), a table per file; and `cargo xtask paired`: two
//! records files compared on the seeds both played
//! ([`records::paired`], the report `lab compare` prints).

use std::fs;
use std::path::{Path, PathBuf};

use game_core::Tile;
use records::Record;
use records::paired::{Comparison, pairs};
use records::phases::Phases;

use crate::util::Result;

/// The options of `cargo xtask phases`.
#[derive(Debug, clap::Args)]
pub(crate) struct PhasesArgs {
    /// Records files (CSV or JSON, as `lab tournament` writes them) of
    /// 4x4 games under the standard rules.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The tile a game is lost short of: a power of two from 128 to 131072.
    #[arg(long, default_value_t = Tile::of(32768), value_parser = parse_target)]
    target: Tile,
    /// One table of all the files' games together (their odds of a 4 must
    /// agree), after each file's.
    #[arg(long)]
    pool: bool,
}

fn parse_target(text: &str) -> Result<Tile, String> {
    match text.parse::<Tile>() {
        Ok(t) if (Tile::of(128)..=Tile::of(131_072)).contains(&t) => Ok(t),
        _ => Err(format!("`{text}` is not a power of two from 128 to 131072")),
    }
}

/// The options of `cargo xtask paired`.
#[derive(Debug, clap::Args)]
pub(crate) struct PairedArgs {
    /// Player A's records file (CSV or JSON).
    a: PathBuf,
    /// Player B's records file, on some of the same seeds.
    b: PathBuf,
    /// The tile whose reach the McNemar test judges.
    #[arg(long, default_value_t = Tile::of(32768), value_parser = parse_target)]
    tile: Tile,
}

/// Prints the paired report of two files' common seeds.
pub(crate) fn paired(args: &PairedArgs) -> Result<()> {
    let (a_text, a) = read_any(&args.a)?;
    let (b_text, b) = read_any(&args.b)?;
    let done = pairs(&a, &b);
    let Some(first) = done.first() else {
        return Err(format!(
            "{} and {} have no seed in common",
            args.a.display(),
            args.b.display()
        )
        .into());
    };
    let comparison = Comparison {
        a: records::made_by(&a_text).unwrap_or(""),
        b: records::made_by(&b_text).unwrap_or(""),
        first_seed: first.seed,
        tile: args.tile,
    };
    print!("{}", comparison.report(&done, None));
    Ok(())
}

/// Prints each file's phase table.
pub(crate) fn run(args: &PhasesArgs) -> Result<()> {
    let mut pooled: Vec<Record> = Vec::new();
    let mut odds = None;
    for path in &args.files {
        let (records, four_probability) = read(path)?;
        let phases = Phases::of(&records, args.target, four_probability);
        println!("## {}\n\n{phases}\n", path.display());
        if *odds.get_or_insert(four_probability) != four_probability && args.pool {
            return Err(format!(
                "{}: its odds of a 4 ({four_probability}) differ from the first file's: \
                 its games cannot be pooled with them",
                path.display()
            )
            .into());
        }
        pooled.extend(records);
    }
    if let (true, Some(four_probability)) = (args.pool, odds) {
        let phases = Phases::of(&pooled, args.target, four_probability);
        println!("## the {} files together\n\n{phases}", args.files.len());
    }
    Ok(())
}

/// A file's games and their odds of a 4, from its `# made by:` line
/// (0.1 when it has none, the standard game). Games of other sizes or of
/// the tutorial's rules are refused: their spawns do not give their tiles.
fn read(path: &Path) -> Result<(Vec<Record>, f64)> {
    let (text, records) = read_any(path)?;
    let settings = records::made_by(&text).unwrap_or_default();
    let words: Vec<&str> = settings.split_whitespace().collect();
    let value = |flag: &str| words.windows(2).find(|w| w[0] == flag).map(|w| w[1]);
    if words.contains(&"--max-moves") {
        return Err(
            format!("{}: games stopped at a move limit were not lost", path.display()).into()
        );
    }
    if words.contains(&"--tutorial-rules") {
        return Err(
            format!("{}: games of the tutorial's rules have no phases", path.display()).into()
        );
    }
    if let Some(size) = value("--size").filter(|&s| s != "4") {
        return Err(
            format!("{}: games of a {size}x{size} board have no phases", path.display()).into()
        );
    }
    let four_probability = match value("--four-probability") {
        None => 0.1,
        Some(p) => p.parse::<f64>().map_err(|_| {
            format!(
                "{}: the made-by line's --four-probability `{p}` is not a number",
                path.display()
            )
        })?,
    };
    Ok((records, four_probability))
}

/// A records file's text and games, CSV or JSON.
fn read_any(path: &Path) -> Result<(String, Vec<Record>)> {
    let text = fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))?;
    let records = if text.trim_start().starts_with('[') {
        records::read_json(&text)
    } else {
        records::read_csv(&text)
    }
    .map_err(|err| format!("{}: {err}", path.display()))?;
    Ok((text, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_powers_of_two_in_range() {
        assert_eq!(parse_target("32768"), Ok(Tile::of(32768)));
        assert!(parse_target("1000").is_err());
        assert!(parse_target("64").is_err());
        assert!(parse_target("262144").is_err());
    }

    /// A committed record reads, and files of other rules are refused.
    #[test]
    fn reads_the_odds_and_refuses_other_rules() {
        let dir = std::env::temp_dir().join(format!("xtask-phases-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let header = records::CSV_HEADER;
        let write = |name: &str, made_by: &str| {
            let path = dir.join(name);
            fs::write(&path, format!("# made by: {made_by}\n{header}\n3,1000,128,90,1.5,,\n"))
                .unwrap();
            path
        };
        let (games, p4) =
            read(&write("a.csv", "--preset fast --size 4 --four-probability 0.25")).unwrap();
        assert_eq!((games.len(), p4), (1, 0.25));
        let err = read(&write("b.csv", "--preset tutorial --tutorial-rules")).unwrap_err();
        assert!(err.to_string().contains("tutorial's rules"), "{err}");
        let err = read(&write("c.csv", "--preset fast --size 5")).unwrap_err();
        assert!(err.to_string().contains("5x5"), "{err}");
        let err = read(&write("d.csv", "--preset fast --max-moves 100")).unwrap_err();
        assert!(err.to_string().contains("move limit"), "{err}");
        // Two files with no seed in common cannot be paired.
        let other = dir.join("e.json");
        fs::write(&other, r#"[{"seed":4,"score":8,"max_tile":4,"moves":2,"millis":1.0}]"#).unwrap();
        let args = PairedArgs { a: dir.join("a.csv"), b: other, tile: Tile::of(32768) };
        let err = paired(&args).unwrap_err();
        assert!(err.to_string().contains("no seed in common"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
