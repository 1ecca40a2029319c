//! Search settings and the named presets that build them.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::eval::Weights;

/// Which search runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Algorithm {
    /// The Java tutorial's expectimax, quirks included: chance nodes are the
    /// integer *sum* over spawns of `(int)(v * p)`, leaves are scored by the
    /// tutorial's five-term heuristic, all in 32-bit integers.
    Tutorial,
    /// Proper expectimax: chance nodes average with the spawn probabilities,
    /// unlikely branches are cut off, leaves are scored by the
    /// [`Weights`]-driven evaluator, results are kept in a bounded
    /// transposition table.
    Expectimax {
        /// The evaluator's weights.
        weights: Weights,
        /// A chance branch whose probability (product of the spawn
        /// probabilities on its path) falls below this is scored by the
        /// evaluator instead of being searched.
        prob_cutoff: f32,
    },
    /// Expectimax over a learned evaluator of afterstates (a value that
    /// counts the score still to come), given to [`Solver::with_evaluator`]:
    /// each max node adds the score its move gains to the value below it,
    /// as the network was trained. Chance nodes, cut-offs and the table are
    /// those of [`Algorithm::Expectimax`]. 4x4 boards only.
    ///
    /// [`Solver::with_evaluator`]: crate::Solver::with_evaluator
    Learned {
        /// As for [`Algorithm::Expectimax`].
        prob_cutoff: f32,
        /// The weight of the heuristic ([`Weights::STANDARD`], the strong
        /// presets' evaluator) added to each afterstate's learned value; 0
        /// searches with the network alone. The presets use
        /// [`LEARNED_HEURISTIC`].
        heuristic: f32,
    },
    /// Expectimax over the corner heuristic ([`crate::CornerEvaluator`]),
    /// which keeps the largest tiles in the top-left corner, falling along
    /// row 0 and down column 0: the formations of the corner tables
    /// ([`crate::endgame::corner_formations`]), which decide where they
    /// apply when the solver has them. Chance nodes, cut-offs and the table
    /// are those of [`Algorithm::Expectimax`]; a chance node whose board
    /// scores below twice the weight of the root's largest tile is not
    /// searched (see [`crate::CornerEvaluator`]'s `prune_below`).
    Corner {
        /// As for [`Algorithm::Expectimax`].
        prob_cutoff: f32,
    },
}

impl Algorithm {
    /// The probability below which a branch is scored by the evaluator
    /// instead of searched; `None` for the tutorial's search, which
    /// searches every spawn.
    pub fn prob_cutoff(&self) -> Option<f32> {
        match *self {
            Algorithm::Expectimax { prob_cutoff, .. }
            | Algorithm::Learned { prob_cutoff, .. }
            | Algorithm::Corner { prob_cutoff } => Some(prob_cutoff),
            Algorithm::Tutorial => None,
        }
    }

    /// [`Algorithm::prob_cutoff`], to change.
    pub fn prob_cutoff_mut(&mut self) -> Option<&mut f32> {
        match self {
            Algorithm::Expectimax { prob_cutoff, .. }
            | Algorithm::Learned { prob_cutoff, .. }
            | Algorithm::Corner { prob_cutoff } => Some(prob_cutoff),
            Algorithm::Tutorial => None,
        }
    }
}

/// The learned presets' weight of the heuristic in their evaluator: 0, the
/// network alone. The network values a board by the score still to come;
/// the heuristic, built to rank boards, runs about ten times larger. A
/// small weight of it broke the ties of earlier networks where they were
/// trained least, but the shipped network plays the late game itself and
/// plays worse with it (docs/experiments/2026-11-23-heuristic-added-to-the-network.md).
/// A caller still adds it with [`Algorithm::Learned`]'s `heuristic` (the
/// frontends' `--heuristic W`).
pub const LEARNED_HEURISTIC: f32 = 0.0;

/// How deep the search goes, counted in chance layers: "depth 3" is
/// max, chance, max, chance, max, chance, max, then the evaluator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Always this depth.
    Fixed(u32),
    /// `distinct_tiles - 2 + bonus`, clamped to `min..=max`: deeper when
    /// more distinct tiles are on the board (which is when play is hardest).
    Adaptive {
        /// The shallowest depth.
        min: u32,
        /// The deepest depth.
        max: u32,
        /// Added to `distinct_tiles - 2` before clamping.
        bonus: i32,
    },
    /// `shallow + bonus`, or `deep + bonus` on a board with at most
    /// `crowded` empty cells (each clamped to `1..=MAX_DEPTH`): deeper
    /// where games are lost, and where so few spawns keep the deeper tree
    /// small.
    Crowded {
        /// The depth on a board with room.
        shallow: u32,
        /// The depth on a crowded board.
        deep: u32,
        /// The most empty cells a crowded board has.
        crowded: u32,
        /// Added to both depths.
        bonus: i32,
    },
    /// `min` always; with a time budget, then one layer deeper at a time up
    /// to `max` while the budget lasts. Unlike the other depths under a
    /// budget, which deepen from 1 and may stop short of their own depth,
    /// a budget here only adds: a slow position is still searched `min`
    /// deep. The deeper layers go where they are cheap, on boards with few
    /// empty cells, which is where games are lost.
    AtLeast {
        /// The depth always searched.
        min: u32,
        /// The deepest depth a budget reaches.
        max: u32,
    },
}

impl Depth {
    /// The depths this setting searches, shallowest and deepest.
    pub fn range(self) -> (u32, u32) {
        match self {
            Depth::Fixed(d) => (d, d),
            Depth::Adaptive { min, max, .. } | Depth::AtLeast { min, max } => (min, max),
            Depth::Crowded { shallow, deep, bonus, .. } => {
                let shift = |d: u32| {
                    let shifted = (i64::from(d) + i64::from(bonus)).clamp(1, i64::from(MAX_DEPTH));
                    u32::try_from(shifted).unwrap_or(MAX_DEPTH)
                };
                (shift(shallow), shift(deep))
            }
        }
    }
}

/// Everything a search needs. There is no `Default`: start from a
/// [`Preset`] and change what you need.
///
/// ```
/// use solver_expectimax::{Depth, Preset};
///
/// let mut config = Preset::Heuristic.config();
/// config.depth = Depth::Fixed(2);
/// config.threads = 1;
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchConfig {
    /// The search and its evaluator.
    pub algorithm: Algorithm,
    /// The depth (or, with a time budget, the deepest depth tried; see
    /// [`Depth::AtLeast`]).
    pub depth: Depth,
    /// With a budget, the search deepens one layer at a time from depth 1
    /// (from [`Depth::AtLeast`]'s `min`) and keeps the deepest depth finished
    /// before the deadline; it stops mid-layer at the deadline.
    pub time_budget: Option<Duration>,
    /// Worker threads: 1 searches on the calling thread; more uses a rayon
    /// pool of that size. The decision at a fixed depth is the same for any
    /// count.
    pub threads: usize,
    /// The transposition tables' size bound in bytes (0 = no table); from
    /// 2 MiB on, 1 MiB of it is a table of its own for the nodes just above
    /// the leaves. Only the packed 4x4 board uses a table.
    pub table_bytes: usize,
}

/// A settings error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigError {
    /// `threads` is 0.
    NoThreads,
    /// `threads` is above [`MAX_THREADS`].
    TooManyThreads(usize),
    /// A fixed depth of 0, an adaptive range with `min` 0 or `min > max`,
    /// or a crowded depth with `shallow` 0 or `shallow > deep`.
    BadDepth,
    /// A depth above [`MAX_DEPTH`].
    TooDeep(u32),
    /// The thread pool could not be started.
    ThreadPool,
    /// [`Algorithm::Learned`] needs its evaluator: build the solver with
    /// [`crate::Solver::with_evaluator`].
    NoEvaluator,
    /// The heuristic's weight of [`Algorithm::Learned`] is negative or not
    /// finite.
    BadHeuristic,
    /// An evaluator was given to a search that does not use one.
    UnusedEvaluator,
    /// A weight of [`Algorithm::Expectimax`]'s [`Weights`] is not finite,
    /// or one of its two powers is negative (an empty cell's 0 would then
    /// weigh infinitely).
    BadWeights,
}

/// The deepest depth a search accepts.
pub const MAX_DEPTH: u32 = 12;

/// The most threads a search accepts. Far more threads than cores only add
/// overhead, which grows with the count until a small search takes seconds
/// (docs/experiments/2026-11-26-a-bound-on-search-threads.md), so more is
/// refused, not slowed down.
pub const MAX_THREADS: usize = 256;

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NoThreads => f.write_str("the search needs at least one thread"),
            ConfigError::TooManyThreads(n) => write!(
                f,
                "{n} threads are too many for a search (at most {MAX_THREADS}; more threads \
                 than cores only slow it down)"
            ),
            ConfigError::BadDepth => f.write_str(
                "the depth must be at least 1 (and the shallowest no deeper than the deepest)",
            ),
            ConfigError::TooDeep(d) => write!(f, "depth {d} is too deep (at most {MAX_DEPTH})"),
            ConfigError::ThreadPool => f.write_str("the search's thread pool could not start"),
            ConfigError::NoEvaluator => {
                f.write_str("a learned search needs its network (Solver::with_evaluator)")
            }
            ConfigError::UnusedEvaluator => f.write_str("only a learned search takes an evaluator"),
            ConfigError::BadHeuristic => {
                f.write_str("the heuristic's weight must be a finite number, 0 or more")
            }
            ConfigError::BadWeights => {
                f.write_str("the evaluator's weights must be finite, and its powers 0 or more")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

impl SearchConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`ConfigError`] for threads outside 1..=[`MAX_THREADS`], a depth
    /// outside 1..=[`MAX_DEPTH`] or bad evaluator settings.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.threads == 0 {
            return Err(ConfigError::NoThreads);
        }
        if self.threads > MAX_THREADS {
            return Err(ConfigError::TooManyThreads(self.threads));
        }
        // A crowded depth is checked before its bonus (which `range`
        // clamps, as an adaptive depth's is).
        let (min, max) = match self.depth {
            Depth::Crowded { shallow, deep, .. } => (shallow, deep),
            depth => depth.range(),
        };
        if min == 0 || min > max {
            return Err(ConfigError::BadDepth);
        }
        if max > MAX_DEPTH {
            return Err(ConfigError::TooDeep(max));
        }
        if let Algorithm::Learned { heuristic, .. } = self.algorithm
            && !(heuristic.is_finite() && heuristic >= 0.0)
        {
            return Err(ConfigError::BadHeuristic);
        }
        if let Algorithm::Expectimax { weights: w, .. } = self.algorithm {
            let finite = [
                w.base,
                w.empty,
                w.merges,
                w.monotonicity,
                w.monotonicity_power,
                w.sum,
                w.sum_power,
            ]
            .iter()
            .all(|x| x.is_finite());
            if !finite || w.monotonicity_power < 0.0 || w.sum_power < 0.0 {
                return Err(ConfigError::BadWeights);
            }
        }
        Ok(())
    }
}

/// Named settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    /// The Java tutorial's player, decision for decision (depth 3).
    Tutorial,
    /// Quick games for tournaments after every evaluator change.
    Fast,
    /// The hand-made heuristic evaluator, searched deeper where more
    /// distinct tiles stand (the preset called `default` until the learned
    /// and corner players became stronger; that name still reads it).
    Heuristic,
    /// The strongest play of the heuristic, at a higher time per move (once
    /// called `max`, which still reads it).
    HeuristicMax,
    /// The learned n-tuple network (alone: [`LEARNED_HEURISTIC`] is 0)
    /// under a shallow search (three moves and the two spawns between
    /// them): quick.
    Ntuple,
    /// The learned network as [`Preset::Ntuple`] searches it, a layer
    /// deeper on a crowded board (at most 3 empty cells: four moves and the
    /// three spawns between them), where games are lost; every core.
    NtupleDeep,
    /// The corner heuristic ([`Algorithm::Corner`]) five chance layers
    /// deep, branches below 1/512 cut (macroxue/2048-ai's depth 5), playing
    /// by the corner tables wherever they apply (the frontends open them
    /// for it; that program's design).
    Corner,
    /// The corner search of [`Preset::Corner`] playing by the big step
    /// table (building 512: 21.8 GB on disk, built once; macroxue/2048-ai's
    /// big build), whose move it plays from odds above
    /// [`crate::endgame::STEP_MIN_ODDS_LAYERED`] with that program's relaxed
    /// goal. Stronger than [`Preset::Corner`] (docs/endgame.md), at four
    /// times the disk.
    CornerBig,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 8] = [
        Preset::Tutorial,
        Preset::Fast,
        Preset::Heuristic,
        Preset::HeuristicMax,
        Preset::Ntuple,
        Preset::NtupleDeep,
        Preset::Corner,
        Preset::CornerBig,
    ];

    /// The old names that still read a preset: the heuristic presets were
    /// `default` and `max` until 2026-11-27.
    pub const ALIASES: [(&'static str, Preset); 2] =
        [("default", Preset::Heuristic), ("max", Preset::HeuristicMax)];

    /// The preset's name.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Tutorial => "tutorial",
            Preset::Fast => "fast",
            Preset::Heuristic => "heuristic",
            Preset::HeuristicMax => "heuristic-max",
            Preset::Ntuple => "ntuple",
            Preset::NtupleDeep => "ntuple-deep",
            Preset::Corner => "corner",
            Preset::CornerBig => "corner-big",
        }
    }

    /// The settings of this preset, using every core available.
    pub fn config(self) -> SearchConfig {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let expectimax = Algorithm::Expectimax { weights: Weights::STANDARD, prob_cutoff: 1e-4 };
        match self {
            // One thread: at depth 3 the tree is small and memoised subtrees
            // are shared within a thread's run of tasks only, so a second
            // thread repeats work and measured slower
            // (docs/experiments/2026-11-21-tutorial-preset-against-java.md).
            Preset::Tutorial => SearchConfig {
                algorithm: Algorithm::Tutorial,
                depth: Depth::Fixed(3),
                time_budget: None,
                threads: 1,
                table_bytes: 0,
            },
            Preset::Fast => SearchConfig {
                algorithm: Algorithm::Expectimax { weights: Weights::STANDARD, prob_cutoff: 1e-3 },
                depth: Depth::Adaptive { min: 1, max: 3, bonus: -2 },
                time_budget: None,
                threads: 1,
                table_bytes: 16 << 20,
            },
            Preset::Heuristic => SearchConfig {
                algorithm: expectimax,
                depth: Depth::Adaptive { min: 3, max: 12, bonus: 0 },
                time_budget: None,
                threads,
                table_bytes: 256 << 20,
            },
            Preset::HeuristicMax => SearchConfig {
                algorithm: Algorithm::Expectimax { weights: Weights::STANDARD, prob_cutoff: 2e-5 },
                depth: Depth::Adaptive { min: 3, max: 12, bonus: 1 },
                time_budget: None,
                threads,
                table_bytes: 1 << 30,
            },
            Preset::Ntuple => SearchConfig {
                algorithm: Algorithm::Learned { prob_cutoff: 1e-3, heuristic: LEARNED_HEURISTIC },
                depth: Depth::Fixed(2),
                time_budget: None,
                threads: 1,
                table_bytes: 16 << 20,
            },
            Preset::NtupleDeep => SearchConfig {
                algorithm: Algorithm::Learned { prob_cutoff: 1e-3, heuristic: LEARNED_HEURISTIC },
                depth: Depth::Crowded { shallow: 2, deep: 3, crowded: 3, bonus: 0 },
                time_budget: None,
                threads,
                table_bytes: 64 << 20,
            },
            // One thread: the tables decide about half the moves, and the
            // search of the others is small (docs/endgame.md); a
            // tournament plays a game per core instead. The table is the
            // size of the public program's (4 Mi entries).
            // Five layers always; a time budget (`--time-ms`) adds layers.
            Preset::Corner | Preset::CornerBig => SearchConfig {
                algorithm: Algorithm::Corner { prob_cutoff: 1.0 / 512.0 },
                depth: Depth::AtLeast { min: 5, max: MAX_DEPTH },
                time_budget: None,
                threads: 1,
                table_bytes: 64 << 20,
            },
        }
    }

    /// Whether the preset plays by the corner tables.
    pub const fn uses_corner_tables(self) -> bool {
        matches!(self, Preset::Corner | Preset::CornerBig)
    }

    /// Whether the preset searches with the learned network.
    pub const fn is_learned(self) -> bool {
        matches!(self, Preset::Ntuple | Preset::NtupleDeep)
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// A name that is not a preset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPreset(pub String);

impl fmt::Display for UnknownPreset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
        let (last, rest) = names.split_last().expect("presets");
        write!(f, "unknown preset `{}` (expected {} or {last})", self.0, rest.join(", "))
    }
}

impl std::error::Error for UnknownPreset {}

impl FromStr for Preset {
    type Err = UnknownPreset;

    /// A preset's name, or one of the old names kept so that earlier
    /// command lines and records still read: `default` for
    /// [`Preset::Heuristic`], `max` for [`Preset::HeuristicMax`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let alias = Preset::ALIASES.iter().find(|(old, _)| old.eq_ignore_ascii_case(s));
        if let Some(&(_, preset)) = alias {
            return Ok(preset);
        }
        Preset::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownPreset(s.to_owned()))
    }
}
