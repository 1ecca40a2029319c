//! The best score of `play`, kept between runs in the user's data
//! directory (`$XDG_DATA_HOME/cli-ascii-2048/best-scores` on Linux, the
//! platform's own place elsewhere, as the `dirs` crate knows it).
//!
//! The file is text, a line per board size: `4x4 12345`. A missing or
//! unreadable file means no best score yet; a failure to write it is
//! reported after the game, never in its way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file, if the platform has a data directory.
pub(crate) fn default_path() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join("cli-ascii-2048").join("best-scores"))
}

/// The best scores by board size in the file's text; lines that do not
/// read are skipped, so a damaged file costs a record, not the game.
fn parse(text: &str) -> BTreeMap<usize, u64> {
    text.lines()
        .filter_map(|line| {
            let (size, score) = line.trim().split_once(' ')?;
            let (rows, cols) = size.split_once('x')?;
            let n: usize = rows.parse().ok()?;
            (cols.parse::<usize>().ok()? == n).then_some(())?;
            Some((n, score.trim().parse().ok()?))
        })
        .collect()
}

fn render(scores: &BTreeMap<usize, u64>) -> String {
    scores.iter().map(|(n, score)| format!("{n}x{n} {score}\n")).collect()
}

/// The best score on `size` x `size` boards in the file at `path`, 0 if none.
pub(crate) fn load(path: &Path, size: usize) -> u64 {
    std::fs::read_to_string(path).map_or(0, |text| parse(&text).get(&size).copied().unwrap_or(0))
}

/// Records `score` on `size` x `size` boards if it beats the file's; keeps
/// the other sizes' lines.
pub(crate) fn save(path: &Path, size: usize, score: u64) -> std::io::Result<()> {
    let mut scores = std::fs::read_to_string(path).map(|t| parse(&t)).unwrap_or_default();
    let best = scores.entry(size).or_insert(0);
    if score <= *best {
        return Ok(());
    }
    *best = score;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // Written whole then renamed, so that a crash leaves the old file.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, render(&scores))?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_kept_per_size_and_only_raised() {
        let dir = std::env::temp_dir().join(format!("cli-ascii-best-{}", std::process::id()));
        let path = dir.join("sub").join("best-scores");
        assert_eq!(load(&path, 4), 0, "no file yet");
        save(&path, 4, 1200).unwrap();
        save(&path, 5, 300).unwrap();
        save(&path, 4, 800).unwrap();
        assert_eq!(load(&path, 4), 1200);
        assert_eq!(load(&path, 5), 300);
        save(&path, 4, 1500).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "4x4 1500\n5x5 300\n");
        std::fs::write(&path, "junk\n4x4 99\n3x4 7\n").unwrap();
        assert_eq!(load(&path, 4), 99, "bad lines are skipped");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
