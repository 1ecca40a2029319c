//! The four directions a player can push the tiles.

use std::fmt;
use std::str::FromStr;

/// A direction the tiles are pushed in.
///
/// `Up` moves tiles toward row 0 (the top row as printed), `Left` toward
/// column 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Toward row 0.
    Up,
    /// Toward the last row.
    Down,
    /// Toward column 0.
    Left,
    /// Toward the last column.
    Right,
}

impl Direction {
    /// Every direction, in the order the Java tutorial's `Move` enum lists
    /// them (which is also its tie-break order).
    pub const ALL: [Direction; 4] =
        [Direction::Up, Direction::Down, Direction::Left, Direction::Right];
    /// The number of directions.
    pub const NUM: usize = 4;

    /// The position of this direction in [`Direction::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lower-case name, as used in the text forms.
    pub const fn name(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// The error for a string that names no direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDirectionError(String);

impl fmt::Display for ParseDirectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a direction (expected up, down, left or right)", self.0)
    }
}

impl std::error::Error for ParseDirectionError {}

impl FromStr for Direction {
    type Err = ParseDirectionError;

    /// Accepts the names (any case) and their first letters.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "up" | "u" => Ok(Direction::Up),
            "down" | "d" => Ok(Direction::Down),
            "left" | "l" => Ok(Direction::Left),
            "right" | "r" => Ok(Direction::Right),
            _ => Err(ParseDirectionError(s.to_owned())),
        }
    }
}

/// A set of directions, such as the legal moves of a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DirectionSet(u8);

impl DirectionSet {
    /// The empty set.
    pub const EMPTY: DirectionSet = DirectionSet(0);

    /// The set from two "changes" masks as the move tables keep them (bit 0:
    /// toward cell 0, bit 1: toward the far end), one for the columns and one
    /// for the rows.
    pub(crate) const fn from_toward_start_end(columns: u8, rows: u8) -> DirectionSet {
        // Up, Down, Left, Right are bits 0 to 3 (Direction::index).
        DirectionSet((columns & 3) | (rows & 3) << 2)
    }

    /// Adds a direction.
    pub fn insert(&mut self, dir: Direction) {
        self.0 |= 1 << dir.index();
    }

    /// Whether the set holds `dir`.
    pub const fn contains(self, dir: Direction) -> bool {
        self.0 & (1 << dir.index()) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of directions in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The directions in the set, in [`Direction::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Direction> {
        Direction::ALL.into_iter().filter(move |&d| self.contains(d))
    }
}

impl FromIterator<Direction> for DirectionSet {
    fn from_iter<I: IntoIterator<Item = Direction>>(iter: I) -> Self {
        let mut set = DirectionSet::EMPTY;
        for dir in iter {
            set.insert(dir);
        }
        set
    }
}
