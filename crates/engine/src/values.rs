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
