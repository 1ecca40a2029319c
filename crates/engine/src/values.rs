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

    /// How much worse than the best direction each one is, as a share: 0
    /// for the best, else its gap to the best value over the best value's
    /// size, or over the gap between the best and the worst direction when
    /// that is larger (values either side of 0, or a best value of 0). The
    /// rule of a hint people read: a search's raw values are in its
    /// evaluator's units (millions, and below 0 on late boards), their
    /// differences are what tells the moves apart. `None` where the value
    /// is, and for a value that is not finite.
    ///
    /// ```
    /// use engine::Values;
    /// use game_core::Direction;
    ///
    /// let values = Values::from([Some(900.0), Some(1000.0), None, Some(250.0)]);
    /// let shortfall = values.shortfall();
    /// assert_eq!(shortfall.get(Direction::Down), Some(0.0)); // the best
    /// assert_eq!(shortfall.get(Direction::Up), Some(0.1));
    /// assert_eq!(shortfall.get(Direction::Right), Some(0.75));
    /// assert_eq!(shortfall.get(Direction::Left), None);
    /// ```
    pub fn shortfall(&self) -> Values {
        let finite =
            || Direction::ALL.into_iter().filter_map(|d| self.get(d)).filter(|v| v.is_finite());
        let best = finite().fold(f64::NEG_INFINITY, f64::max);
        let worst = finite().fold(f64::INFINITY, f64::min);
        let scale = best.abs().max(best - worst);
        let share = |v: Option<f64>| {
            let v = v.filter(|v| v.is_finite())?;
            Some(if scale > 0.0 { (best - v) / scale } else { 0.0 })
        };
        Values {
            up: share(self.up),
            down: share(self.down),
            left: share(self.left),
            right: share(self.right),
        }
    }

    /// The directions that have a value, the best first, then each one by
    /// how much worse (ties in [`Direction::ALL`]'s order): the order a
    /// hint lists them in.
    pub fn ranked(&self) -> Vec<Direction> {
        let mut dirs: Vec<Direction> =
            Direction::ALL.into_iter().filter(|&d| self.get(d).is_some()).collect();
        // A stable sort: equal values keep Direction::ALL's order.
        dirs.sort_by(|&a, &b| {
            let value = |d| self.get(d).filter(|v: &f64| !v.is_nan()).unwrap_or(f64::NEG_INFINITY);
            value(b).total_cmp(&value(a))
        });
        dirs
    }
}

impl From<[Option<f64>; 4]> for Values {
    /// Values in [`Direction::ALL`]'s order.
    fn from([up, down, left, right]: [Option<f64>; 4]) -> Values {
        Values { up, down, left, right }
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

    /// A hint's rating: the best 0, the others by their gap over the best
    /// value's size, or over the spread when values straddle 0: raw values
    /// are huge and negative on late boards, and say nothing to a player.
    #[test]
    fn shortfalls_rate_the_moves_against_the_best() {
        let of = |v: [Option<f64>; 4]| {
            let s = Values::from(v).shortfall();
            Direction::ALL.map(|d| s.get(d))
        };
        // Late boards: every value far below 0.
        let late = [Some(-471_190_208.0), Some(-480_000_000.0), None, Some(-942_380_416.0)];
        let s = of(late);
        assert_eq!((s[0], s[2], s[3]), (Some(0.0), None, Some(1.0)));
        assert!((s[1].unwrap() - 0.018_696).abs() < 1e-6, "{s:?}");
        // Values either side of 0 are rated over their spread.
        assert_eq!(of([Some(5.0), Some(-15.0), None, None]), [Some(0.0), Some(1.0), None, None]);
        assert_eq!(of([Some(0.0), Some(0.0), None, None]), [Some(0.0), Some(0.0), None, None]);
        assert_eq!(of([Some(f64::NAN), Some(2.0), None, None]), [None, Some(0.0), None, None]);
        assert_eq!(Values::default().shortfall(), Values::default());
        let ranked = Values::from(late).ranked();
        assert_eq!(ranked, [Direction::Up, Direction::Down, Direction::Right]);
        let tie = Values::from([Some(1.0), Some(2.0), Some(2.0), Some(f64::NAN)]).ranked();
        assert_eq!(tie, [Direction::Down, Direction::Left, Direction::Up, Direction::Right]);
    }

    #[test]
    fn shortfalls_read_the_same_on_either_side_of_zero() {
        let values = |up, down, left, right| Values { up, down, left, right };
        // The values of a search on a late board: all far below 0.
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
