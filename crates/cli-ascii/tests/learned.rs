//! The learned presets with the shipped network: analyze, a short
//! tournament and watch work from a clone with no extra step.

use crate::util::stdout_of;

#[test]
fn analyze_with_the_shipped_network() {
    let out = stdout_of(&[
        "analyze",
        "--json",
        "--preset",
        "ntuple",
        "1024 512 64 8/256 128 32 4/16 8 2 0/2 0 0 0",
    ]);
    // Up and left change nothing on this board; the network picks one of the
    // other two, at the preset's depth.
    assert!(out.contains("\"up\":null") && out.contains("\"left\":null"), "{out}");
    assert!(out.contains("\"best\":\"down\"") || out.contains("\"best\":\"right\""), "{out}");
    assert!(out.contains("\"depth\":2"), "{out}");
}

#[test]
fn a_learned_tournament_plays_whole_games() {
    let summary = stdout_of(&["tournament", "--preset", "ntuple", "--depth", "1", "--games", "2"]);
    assert!(summary.contains("expectimax, preset ntuple"), "{summary}");
    // Seeds 1 and 2 of the shipped network at two plies reach 16384, with
    // the heuristic added or without it (docs/data/ntuple-2ply.csv and
    // ntuple-2ply-network-only.csv): both pass 2048, which an untrained
    // network (always the first legal move) never does.
    assert!(summary.contains("reached 2048    100.0% (2)"), "{summary}");
}
