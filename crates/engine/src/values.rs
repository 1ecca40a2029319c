//! A decision's value for each direction, as the frontends show and send it.

use game_core::Direction;
use serde::{Serialize, Serializer};
use solver_expectimax::Decision;

/// Each direction's value, `None` for a direction that changes nothing (or
/// for every direction when there is no decision). Serialises as a JSON
/// object `{"up": …, "down": …, "left": …, "right": …}` in
/// [`Direction::ALL`]'s order, each value the shortest number that reads
/// back the same: a whole one without a fraction (`180317`, not
/// `180317.0`: the tutorial's values are integers), `null` for none, NaN or
/// infinity, which JSON cannot hold.
///
/// ```
/// use engine::Values;
///
/// let json = serde_json::to_string(&Values::default()).unwrap();
/// assert_eq!(json, r#"{"up":null,"down":null,"left":null,"right":null}"#);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Values {
    #[serde(serialize_with = "number")]
    up: Option<f64>,
    #[serde(serialize_with = "number")]
    down: Option<f64>,
    #[serde(serialize_with = "number")]
    left: Option<f64>,
    #[serde(serialize_with = "number")]
    right: Option<f64>,
}

impl Values {
    /// The values of `decision`, or none without one (a lost board).
    pub fn of(decision: Option<&Decision>) -> Values {
        let value = |dir| decision.and_then(|d| d.value(dir));
        Values {
            up: value(Direction::Up),
            down: value(Direction::Down),
            left: value(Direction::Left),
            right: value(Direction::Right),
        }
    }

    /// The value of `direction`.
    pub fn get(&self, direction: Direction) -> Option<f64> {
        match direction {
            Direction::Up => self.up,
            Direction::Down => self.down,
            Direction::Left => self.left,
            Direction::Right => self.right,
        }
    }

    /// How much worse each direction is than the best one, as a share of
    /// the best value's size: 0 for the best (and any tied with it), 0.05
    /// for a direction worth 5% less, at most 1; `None` where the value is
    /// `None` (or not finite).
    ///
    /// Raw values do not read well: a search's values run to millions and
    /// fall below 0 on crowded boards, where the evaluator's penalties
    /// outweigh the rest. Measured from the best's size, a shortfall is
    /// positive whatever the sign (from -100 to -150 is 50% worse, as from
    /// 100 to 50). Capped at 1: a direction worth less than nothing (below
    /// 0 under a positive best) is as bad as a rating can say, its raw value
    /// says how much worse. A best of exactly 0 makes every other direction
    /// 1.
    ///
    /// ```
    /// use engine::Values;
    /// use game_core::Direction;
    /// use solver_expectimax::Decision;
    ///
    /// let decision = Decision {
    ///     direction: Direction::Up,
    ///     values: [Some(-200.0), Some(-300.0), None, Some(-210.0)],
    ///     depth: 1,
    ///     stats: Default::default(),
    ///     elapsed: Default::default(),
    ///     endgame: None,
    /// };
    /// let shortfall = Values::of(Some(&decision)).shortfall();
    /// assert_eq!(shortfall.get(Direction::Up), Some(0.0));
    /// assert_eq!(shortfall.get(Direction::Down), Some(0.5));
    /// assert_eq!(shortfall.get(Direction::Left), None);
    /// assert_eq!(shortfall.get(Direction::Right), Some(0.05));
    /// ```
    pub fn shortfall(&self) -> Values {
        let finite = |v: Option<f64>| v.filter(|v| v.is_finite());
        let best = Direction::ALL.iter().filter_map(|&d| finite(self.get(d))).reduce(f64::max);
        let of = |v: Option<f64>| {
            let (v, best) = (finite(v)?, best?);
            Some(if v >= best {
                0.0
            } else if best == 0.0 {
                1.0
            } else {
                ((best - v) / best.abs()).min(1.0)
            })
        };
        Values { up: of(self.up), down: of(self.down), left: of(self.left), right: of(self.right) }
    }
}

fn number<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match *value {
        // Exact: a whole f64 below 2^53 is an i64 without rounding.
        Some(v) if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 => {
            serializer.serialize_i64(v as i64)
        }
        Some(v) if v.is_finite() => serializer.serialize_f64(v),
        _ => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers() {
        let values = |v| Values { up: Some(1.5), down: Some(1234.0), left: None, right: v };
        let json = |v| serde_json::to_string(&values(v)).unwrap();
        assert_eq!(json(Some(-2.0)), r#"{"up":1.5,"down":1234,"left":null,"right":-2}"#);
        assert!(json(Some(f64::NAN)).ends_with(r#""right":null}"#));
        assert!(json(Some(f64::INFINITY)).ends_with(r#""right":null}"#));
        assert!(json(Some(1e300)).ends_with(r#""right":1e+300}"#));
        assert!(json(Some(9_007_199_254_740_993.0)).ends_with(r#""right":9007199254740992.0}"#));
    }

    #[test]
    fn shortfalls_read_the_same_on_either_side_of_zero() {
        let values = |up, down, left, right| Values { up, down, left, right };
        // The values of a search on a late board (issue 55): all below 0.
        let late = values(Some(-471_190_208.0), Some(-480_614_012.0), None, Some(-942_380_416.0));
        let s = late.shortfall();
        assert_eq!(s.get(Direction::Up), Some(0.0));
        assert!((s.get(Direction::Down).unwrap() - 0.02).abs() < 1e-9, "{s:?}");
        assert_eq!(s.get(Direction::Left), None);
        assert_eq!(s.get(Direction::Right), Some(1.0));
        // Mirrored above 0: the same shortfalls.
        let mirrored = values(Some(471_190_208.0), Some(461_766_404.0), None, Some(0.0));
        let m = mirrored.shortfall();
        assert_eq!(m.get(Direction::Up), Some(0.0));
        assert!((m.get(Direction::Down).unwrap() - 0.02).abs() < 1e-9, "{m:?}");
        assert_eq!(m.get(Direction::Right), Some(1.0));
        // Below 0 under a positive best: capped at 1.
        let crossing = values(Some(1_000.0), Some(-1_500_000.0), Some(1_000.0), None);
        let c = crossing.shortfall();
        assert_eq!((c.get(Direction::Up), c.get(Direction::Left)), (Some(0.0), Some(0.0)));
        assert_eq!(c.get(Direction::Down), Some(1.0));
        // A best of 0 (a lost position's learned values), NaN, and none.
        let zero = values(Some(0.0), Some(-0.0), Some(-1e-6), Some(f64::NAN)).shortfall();
        assert_eq!(zero.get(Direction::Down), Some(0.0));
        assert_eq!(zero.get(Direction::Left), Some(1.0));
        assert_eq!(zero.get(Direction::Right), None);
        assert_eq!(Values::default().shortfall(), Values::default());
    }

    #[test]
    fn values_follow_the_decision() {
        use game_core::{Board, Rules};
        use solver_expectimax::{Preset, Solver};

        let board: Board = "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 4".parse().unwrap();
        let mut config = Preset::Fast.config();
        config.threads = 1;
        let decision = Solver::new(config).unwrap().decide(&board, &Rules::default()).unwrap();
        let values = Values::of(Some(&decision));
        for dir in Direction::ALL {
            assert_eq!(values.get(dir), decision.value(dir), "{dir}");
        }
        assert_eq!(Values::of(None), Values::default());
    }
}
