//! Expectimax search for 2048 (filled in by the solver issues).
