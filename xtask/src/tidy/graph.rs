//! The crate graph keeps its shape: each library's dependencies, and every frontend behind engine.

use super::*;

/// Each workspace package's name and the packages it depends on, from
/// `cargo metadata`: normal dependencies only (not dev- or build-), target
/// specific ones (`[target.'cfg(unix)'.dependencies]`) included, each by
/// its package's name whatever the manifest renames it to (`se = { package
/// = "solver-expectimax" }`).
fn package_dependencies(metadata: &Metadata) -> Vec<(String, Vec<String>)> {
    metadata
        .packages
        .iter()
        .map(|package| {
            let mut deps: Vec<String> = package
                .dependencies
                .iter()
                .filter(|d| d.kind.is_none())
                .map(|d| d.name.clone())
                .collect();
            deps.sort();
            deps.dedup();
            (package.name.clone(), deps)
        })
        .collect()
}

/// The crate graph of docs/ARCHITECTURE.md, as data: each library's whole
/// list of allowed dependencies (the rules know no search or screen; the
/// endgame tables have the rules and rayon only, and know no search; the
/// solver has the rules, rayon and the tables; ntuple has the rules and
/// rayon, its file formats, and records for the learning curve's one row
/// type; engine stands between the libraries and the frontends, joins
/// the network to the search, maps the endgame tables' files (and asks
/// the system for the free disk space before building them), plays seeded
/// games on a rayon pool into records, and serialises what the frontends
/// send alike; the terminal programs' shared
/// library, cli-common, has engine, the rules and a command line's crates,
/// so that the game, which links it, links no search of its own).
pub(super) const LIBRARIES: [(&str, &[&str]); 7] = [
    ("game-core", &["rand_chacha"]),
    ("endgame-tables", &["game-core", "rayon"]),
    ("solver-expectimax", &["game-core", "rayon", "endgame-tables"]),
    ("ntuple", &["game-core", "zstd", "rayon", "dirs", "records"]),
    ("records", &["game-core", "serde", "serde_json"]),
    (
        "engine",
        &[
            "game-core",
            "solver-expectimax",
            "ntuple",
            "records",
            "rayon",
            "dirs",
            "serde",
            "memmap2",
            "rustix",
        ],
    ),
    ("cli-common", &["game-core", "engine", "anyhow", "clap", "crossterm"]),
];

/// The libraries past `engine` (the search, the endgame tables, the
/// network): every workspace package that is not a library of
/// [`LIBRARIES`], a frontend or a tool, new ones included, reaches them
/// through `engine` only, so that what it may name of them is what engine
/// re-exports (one door to keep stable), and the game binary links none
/// of them itself.
const ENGINE_ONLY: [&str; 3] = ["solver-expectimax", "endgame-tables", "ntuple"];

/// The packages outside [`LIBRARIES`] that may depend on [`ENGINE_ONLY`]
/// libraries themselves: the lab, which tunes the search and trains the
/// network (settings no preset has, the network's own file), and xtask,
/// the project's tools. Nothing else: a new frontend is behind engine
/// without being named here.
const PAST_ENGINE: [&str; 2] = ["lab", "xtask"];

/// Where the manifests (package name, dependency names) break the crate
/// graph, as messages. `packages` is every workspace package with its
/// normal dependencies ([`package_dependencies`]): a library of
/// [`LIBRARIES`] depends on what its list allows, nothing depends on a
/// package outside that list, and every package but those of
/// [`PAST_ENGINE`] reaches the [`ENGINE_ONLY`] libraries through `engine`,
/// directly or through other workspace packages.
fn graph_offences(packages: &[(String, Vec<String>)]) -> Vec<String> {
    let mut found = Vec::new();
    let is_package = |n: &str| packages.iter().any(|(p, _)| p == n);
    let is_library = |n: &str| LIBRARIES.iter().any(|(lib, _)| *lib == n);
    for (name, deps) in packages {
        let allowed = LIBRARIES.iter().find(|(lib, _)| lib == name).map(|(_, a)| *a);
        for dep in deps {
            let bad = match allowed {
                Some(allowed) => !allowed.contains(&dep.as_str()),
                // A frontend or a tool: anything outside, but of the
                // workspace only the libraries.
                None => is_package(dep) && !is_library(dep),
            };
            if bad {
                found
                    .push(format!("{name} depends on {dep}, which the crate graph does not allow"));
            }
        }
        // Engine is the door, and the libraries behind it may use each
        // other (as LIBRARIES allows).
        if name == "engine" || [&PAST_ENGINE[..], &ENGINE_ONLY].concat().contains(&name.as_str()) {
            continue;
        }
        for (lib, path) in past_engine(name, packages) {
            if path.len() == 2 {
                found.push(format!("{name} depends on {lib}, which it must reach through engine"));
            } else {
                found.push(format!(
                    "{name} reaches {lib} past engine, through {}",
                    path[1..path.len() - 1].join(" -> ")
                ));
            }
        }
    }
    found
}

/// The [`ENGINE_ONLY`] libraries that `name` reaches by a chain of
/// workspace dependencies that does not pass through `engine` (nor through
/// another of them), each with the first such chain, `name` to the
/// library.
fn past_engine(name: &str, packages: &[(String, Vec<String>)]) -> Vec<(String, Vec<String>)> {
    let deps_of = |n: &str| packages.iter().find(|(p, _)| p == n).map(|(_, d)| d.as_slice());
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut seen = vec![name.to_owned()];
    let mut paths = vec![vec![name.to_owned()]];
    while let Some(path) = paths.pop() {
        let last = path.last().expect("a path starts with its package");
        for dep in deps_of(last).unwrap_or_default() {
            let mut longer = path.clone();
            longer.push(dep.clone());
            if ENGINE_ONLY.contains(&dep.as_str()) {
                if !found.iter().any(|(lib, _)| lib == dep) {
                    found.push((dep.clone(), longer));
                }
            } else if dep != "engine" && deps_of(dep).is_some() && !seen.contains(dep) {
                seen.push(dep.clone());
                paths.push(longer);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_crate_graph_keeps_its_shape() {
    let packages = package_dependencies(&cargo_metadata());
    // Guards against a parser that finds nothing and so checks nothing.
    let solver = packages.iter().find(|(n, _)| n == "solver-expectimax").expect("the solver");
    assert_eq!(solver.1, ["endgame-tables", "game-core", "rayon"]);
    let names: Vec<&str> = packages.iter().map(|(n, _)| n.as_str()).collect();
    for name in LIBRARIES.map(|(lib, _)| lib).iter().chain(&PAST_ENGINE) {
        assert!(names.contains(name), "{name} is no workspace package: {names:?}");
    }
    for frontend in ["cli-ascii", "web", "py2048"] {
        assert!(names.contains(&frontend), "no {frontend} among {names:?}");
    }
    // The lab is the door's one use: were it to stop, the exception goes.
    let lab = packages.iter().find(|(n, _)| n == "lab").expect("the lab");
    assert!(lab.1.iter().any(|d| ENGINE_ONLY.contains(&d.as_str())), "{lab:?}");
    let found = graph_offences(&packages);
    assert!(found.is_empty(), "{} problem(s):\n{}\n", found.len(), found.join("\n"));
}

#[test]
fn the_crate_graph_rule_catches_offenders() {
    // A renamed dependency and a target-specific one, as cargo metadata
    // reports them (by package name, with `rename` and `target` beside).
    let metadata: Metadata = serde_json::from_str(
        r#"{"packages": [{"name": "web", "manifest_path": "/w/crates/web/Cargo.toml",
            "targets": [], "dependencies": [
            {"name": "engine", "rename": null, "kind": null, "target": null},
            {"name": "solver-expectimax", "rename": "se", "kind": null, "target": null},
            {"name": "ntuple", "rename": null, "kind": null, "target": "cfg(unix)"},
            {"name": "cli-ascii", "rename": null, "kind": "dev", "target": null}]}]}"#,
    )
    .expect("metadata JSON");
    let packages = package_dependencies(&metadata);
    assert_eq!(
        graph_offences(&packages),
        [
            "web depends on ntuple, which it must reach through engine",
            "web depends on solver-expectimax, which it must reach through engine",
        ]
    );
    let pkg = |name: &str, deps: &[&str]| {
        (name.to_owned(), deps.iter().map(|d| (*d).to_owned()).collect::<Vec<_>>())
    };
    let found = graph_offences(&[
        pkg("game-core", &["rand_chacha", "rayon"]),
        pkg("endgame-tables", &["game-core", "rayon", "ntuple"]),
        pkg("solver-expectimax", &["game-core", "rayon", "endgame-tables"]),
        pkg("ntuple", &["game-core", "solver-expectimax", "zstd"]),
        pkg("engine", &["game-core", "solver-expectimax", "ntuple"]),
        pkg("web", &["engine", "axum", "cli-ascii", "solver-expectimax", "endgame-tables"]),
        pkg("py2048", &["engine", "ntuple", "records"]),
        pkg("cli-ascii", &["engine", "solver-expectimax", "ntuple"]),
        pkg("cli-common", &["engine", "solver-expectimax"]),
        pkg("lab", &["engine", "cli-common", "solver-expectimax", "ntuple"]),
        pkg("xtask", &["records", "ntuple"]),
        // A frontend no list names is behind engine all the same, through
        // any chain of workspace packages.
        pkg("newcomer", &["game-core", "ntuple"]),
        pkg("tui", &["engine", "cli-common", "clap"]),
    ]);
    assert_eq!(
        found,
        [
            "game-core depends on rayon, which the crate graph does not allow",
            "endgame-tables depends on ntuple, which the crate graph does not allow",
            "ntuple depends on solver-expectimax, which the crate graph does not allow",
            "web depends on cli-ascii, which the crate graph does not allow",
            "web depends on endgame-tables, which it must reach through engine",
            "web reaches ntuple past engine, through cli-ascii",
            "web depends on solver-expectimax, which it must reach through engine",
            "py2048 depends on ntuple, which it must reach through engine",
            "cli-ascii depends on ntuple, which it must reach through engine",
            "cli-ascii depends on solver-expectimax, which it must reach through engine",
            "cli-common depends on solver-expectimax, which the crate graph does not allow",
            "cli-common depends on solver-expectimax, which it must reach through engine",
            "newcomer depends on ntuple, which it must reach through engine",
            "tui reaches solver-expectimax past engine, through cli-common",
        ]
    );
}
