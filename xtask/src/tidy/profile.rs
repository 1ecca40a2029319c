//! The dev profile optimises the packages that hold the hot loops.

use std::fs;

use super::*;
use crate::util::project_root;

/// The workspace packages whose own code holds the hot loops: the rules,
/// the endgame tables' generator and look-ups, the search (compiled here
/// for both board types: `Solver::decide` routes every caller's board to
/// them), the trainer and py2048's batch loops over boards. The frontends
/// only call into them, so they compile unoptimised.
const HOT_PACKAGES: [&str; 5] =
    ["game-core", "endgame-tables", "solver-expectimax", "ntuple", "py2048"];

/// The hot packages ([`HOT_PACKAGES`]) that the dev profile leaves
/// unoptimised, as messages: without `opt-level = 3` a plain `cargo run`
/// plays many times slower than release.
fn unoptimised_in_dev(root_manifest: &str) -> Vec<String> {
    let root = toml_sections(root_manifest);
    HOT_PACKAGES
        .iter()
        .filter_map(|name| {
            let header = format!("profile.dev.package.{name}");
            (toml_value(&root, &header, "opt-level").as_deref() != Some("3")).then(|| {
                format!(
                    "{name} holds hot loops, but Cargo.toml has no `opt-level = 3` under \
                     [{header}], so the dev profile leaves it unoptimised"
                )
            })
        })
        .collect()
}

#[test]
fn dev_profile_optimises_the_hot_loops() {
    let root = project_root();
    let root_manifest = fs::read_to_string(root.join("Cargo.toml")).expect("the root Cargo.toml");
    let members = workspace_members(&root_manifest);
    // Each hot package is a member (a renamed crate would be checked by name
    // no longer).
    for name in HOT_PACKAGES {
        assert!(members.iter().any(|m| m.ends_with(name)), "{name} not among {members:?}");
    }
    let found = unoptimised_in_dev(&root_manifest);
    assert!(found.is_empty(), "{} problem(s):\n{}\n", found.len(), found.join("\n"));
}

#[test]
fn dev_profile_rule_catches_offenders() {
    let root_manifest = "\
[workspace]
members = [
    \"crates/game-core\", \"crates/solver-expectimax\",
    \"crates/ntuple\", \"crates/py2048\", \"tool\",
]

[profile.dev.package.game-core]
opt-level = 3
[profile.dev.package.endgame-tables]
opt-level = 3
[profile.dev.package.solver-expectimax]
# A comment.
opt-level = 3
[profile.dev.package.ntuple]
opt-level = 1
";
    assert_eq!(
        workspace_members(root_manifest),
        ["crates/game-core", "crates/solver-expectimax", "crates/ntuple", "crates/py2048", "tool"]
    );
    let found = unoptimised_in_dev(root_manifest);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].starts_with("ntuple holds") && found[0].contains("[profile.dev.package.ntuple]")
    );
    assert!(found[1].starts_with("py2048 holds"), "{found:#?}");
}
