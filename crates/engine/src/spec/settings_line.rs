//! The settings line a records file opens with: what decides its games,
//! and whether two lines name the same games.

use game_core::{Rules, TurnRule};
use solver_expectimax::Preset;

use super::SolverSpec;

impl SolverSpec {
    /// The settings that decide this spec's games, as `cli-ascii`'s
    /// options give them (`--preset ntuple --depth 2 --weights PATH
    /// (checksum ...)`): a records file names them in its first line, and
    /// a resumed run must give the same. `tables` is the count of endgame
    /// tables it plays by, if any: the tables are a pure function of their
    /// formations, so their count names them.
    ///
    /// The thread count is named only with a time budget (without one,
    /// decisions do not depend on it), and a network by its file's path and
    /// the checksum its header keeps of its weights: a network retrained
    /// into the same file is another network.
    pub fn settings_line(&self, tables: Option<usize>) -> String {
        let o = &self.overrides;
        let mut line = format!("--preset {}", self.preset);
        for (setting, value) in o.given().filter(|(s, _)| s.decides_games(o)) {
            line.push_str(&format!(" {} {value}", setting.option()));
        }
        if self.is_learned() {
            let path = self.weights_path();
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            // 0 for a file that is not a weights file: the run itself
            // then fails to load it, with the reason.
            let sum = ntuple::weights_checksum(&path).unwrap_or(0);
            line.push_str(&format!(" --weights {} (checksum {sum:016x})", path.display()));
        }
        if let Some(n) = tables {
            line.push_str(&format!(" --endgame ({n} tables)"));
        }
        line
    }
}

/// The games' part of a records file's settings line (after
/// [`SolverSpec::settings_line`] or a random player's `--player random`):
/// the board's `size` and the rules, ` --size 4 --four-probability 0.1`,
/// then `--tutorial-rules` and `--max-moves N` where they apply.
pub fn rules_line(size: usize, rules: &Rules, max_moves: Option<u64>) -> String {
    let mut line = format!(" --size {size} --four-probability {}", rules.four_probability());
    if rules.turn_rule() == TurnRule::Tutorial {
        line.push_str(" --tutorial-rules");
    }
    if let Some(max) = max_moves {
        line.push_str(&format!(" --max-moves {max}"));
    }
    line
}

/// Whether two settings lines ([`SolverSpec::settings_line`] and
/// [`rules_line`], as a records file keeps them) name the same games: the
/// same words, but for a preset's old name (`default` is `heuristic`, as
/// [`Preset::ALIASES`] reads it) and a network's path. The network is the
/// one its checksum names wherever it lies (another virtual environment,
/// another machine): the path only says where the run found it.
///
/// ```
/// let ours = "--preset heuristic --size 4 --four-probability 0.1";
/// assert!(engine::same_settings("--preset default --size 4 --four-probability 0.1", ours));
/// let here = "--preset ntuple --weights /a/4x6.n2048 (checksum 00000000000000ff) --size 4";
/// let there = "--preset ntuple --weights /b c/4x6.n2048 (checksum 00000000000000ff) --size 4";
/// assert!(engine::same_settings(here, there));
/// assert!(!engine::same_settings(here, &there.replace("ff)", "fe)")));
/// ```
pub fn same_settings(a: &str, b: &str) -> bool {
    settings_words(a) == settings_words(b)
}

/// A settings line's words, the network's path left out and a preset by
/// its name.
fn settings_words(line: &str) -> Vec<String> {
    const WEIGHTS: &str = "--weights ";
    const CHECKSUM: &str = " (checksum ";
    let mut line = line.to_owned();
    // The path may hold spaces: all from the option to its checksum goes.
    if let Some(at) = line.find(WEIGHTS)
        && let Some(end) = line[at..].find(CHECKSUM)
    {
        line.replace_range(at + WEIGHTS.len()..at + end + 1, "");
    }
    let mut words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
    for i in 1..words.len() {
        if words[i - 1] == "--preset"
            && let Ok(preset) = words[i].parse::<Preset>()
        {
            words[i] = preset.name().to_owned();
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use game_core::RulesBuilder;

    use super::*;
    use crate::{Overrides, Setting};

    fn spec(preset: Preset, overrides: Overrides) -> SolverSpec {
        SolverSpec::new(preset).with_overrides(overrides)
    }

    #[test]
    fn the_settings_line_names_what_decides_the_games() {
        let o = Overrides::default()
            .with(Setting::Depth, 2)
            .with(Setting::Threads, 2)
            .with(Setting::ProbCutoff, 2e-5f32);
        // Without a time budget, threads do not decide moves: not named.
        assert_eq!(
            spec(Preset::Heuristic, o).settings_line(None),
            "--preset heuristic --depth 2 --prob-cutoff 0.00002"
        );
        let timed = Overrides::default().with(Setting::TimeMs, 50).with(Setting::Threads, 2);
        assert_eq!(
            spec(Preset::HeuristicMax, timed).settings_line(Some(7)),
            "--preset heuristic-max --time-ms 50 --threads 2 --endgame (7 tables)"
        );
        let rules = RulesBuilder { four_probability: 0.25, ..RulesBuilder::default() }
            .build()
            .expect("valid rules");
        assert_eq!(
            rules_line(3, &rules, Some(9)),
            " --size 3 --four-probability 0.25 --max-moves 9"
        );
        assert_eq!(
            rules_line(4, &Rules::tutorial(), None),
            " --size 4 --four-probability 0.1 --tutorial-rules"
        );
    }

    #[test]
    fn the_settings_line_names_a_network_by_path_and_checksum() {
        let shipped = crate::weights_path(None);
        let line = SolverSpec::new(Preset::Ntuple).settings_line(None);
        let sum = ntuple::weights_checksum(&shipped).expect("the shipped weights");
        assert_ne!(sum, 0);
        let real = std::fs::canonicalize(&shipped).expect("the shipped weights");
        assert_eq!(
            line,
            format!("--preset ntuple --weights {} (checksum {sum:016x})", real.display())
        );
        // A file that is no network is named with checksum 0; loading it
        // is what fails, with the reason.
        let junk = std::env::temp_dir().join(format!("engine-junk-{}.n2048", std::process::id()));
        std::fs::write(&junk, b"not a network").expect("written");
        let line = SolverSpec::new(Preset::NtupleDeep)
            .with_weights(Some(junk.clone()))
            .settings_line(None);
        assert!(line.ends_with(" (checksum 0000000000000000)"), "{line}");
        std::fs::remove_file(&junk).expect("removed");
    }

    /// The same network at another path, or a preset by its old name, is
    /// the same settings; another checksum, option or rule is not. So a
    /// records file resumes after the weights moved or a preset was
    /// renamed, and never mixes games played under other settings.
    #[test]
    fn settings_are_the_same_up_to_the_networks_path_and_a_presets_old_name() {
        let shipped = crate::weights_path(None);
        let copy = std::env::temp_dir().join(format!("engine copy {}.n2048", std::process::id()));
        std::fs::copy(&shipped, &copy).expect("copied");
        let line = |path: &std::path::Path| {
            SolverSpec::new(Preset::Ntuple).with_weights(Some(path.to_owned())).settings_line(None)
                + &rules_line(4, &Rules::default(), None)
        };
        let (here, there) = (line(&shipped), line(&copy));
        assert_ne!(here, there);
        assert!(same_settings(&here, &there), "{here}\n{there}");
        std::fs::write(&copy, b"not a network").expect("written");
        assert!(!same_settings(&here, &line(&copy)), "another network");
        std::fs::remove_file(&copy).expect("removed");
        let old = "--preset default --depth 2 --size 4 --four-probability 0.1";
        for new in ["--preset heuristic --depth 2", "--preset HEURISTIC --depth 2"] {
            assert!(same_settings(old, &format!("{new} --size 4 --four-probability 0.1")));
        }
        assert!(same_settings("--preset max --size 4", "--preset heuristic-max --size 4"));
        let unlike = [
            "--preset heuristic --depth 3 --size 4 --four-probability 0.1",
            "--preset heuristic --depth 2 --size 5 --four-probability 0.1",
            "--preset fast --depth 2 --size 4 --four-probability 0.1",
            "--preset heuristic --depth 2 --size 4 --four-probability 0.1 --max-moves 9",
        ];
        for other in unlike {
            assert!(!same_settings(old, other), "{other}");
        }
    }
}
