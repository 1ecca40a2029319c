//! Tidy checks over the whole source tree, run as a test (as rust-analyzer's
//! `xtask/src/tidy.rs` does): cheap rules that keep the code base uniform.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::project_root;

/// Every `.rs` file under `dir`, sorted, skipping build output.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The rules a file breaks, as messages.
fn offences(path: &Path, text: &str, in_crates: bool) -> Vec<String> {
    let mut found = Vec::new();
    let first_line = text.lines().next().unwrap_or("");
    if !first_line.starts_with("//!") {
        found.push(format!("{}: does not start with a `//!` doc line", path.display()));
    }
    if in_crates {
        // Built from parts so that this file does not match its own check.
        for banned in [concat!("dbg", "!("), concat!("todo", "!(")] {
            for (line_idx, line) in text.lines().enumerate() {
                if line.contains(banned) {
                    found.push(format!("{}:{}: contains `{banned}`", path.display(), line_idx + 1));
                }
            }
        }
    }
    found
}

#[test]
fn tidy() {
    let root = project_root();
    let mut found = Vec::new();
    for (dir, in_crates) in [("crates", true), ("xtask", false)] {
        for path in rust_files(&root.join(dir)) {
            let text = fs::read_to_string(&path).unwrap_or_default();
            let shown = path.strip_prefix(&root).unwrap_or(&path);
            found.extend(offences(shown, &text, in_crates));
        }
    }
    assert!(found.is_empty(), "tidy found {} problem(s):\n{}\n", found.len(), found.join("\n"));
}

#[test]
fn tidy_rules_catch_offenders() {
    let path = Path::new("crates/x/src/lib.rs");
    assert!(offences(path, "//! Fine.\nfn f() {}\n", true).is_empty());
    let bad = format!("fn f() {{\n    {}x);\n}}\n", concat!("dbg", "!("));
    assert_eq!(
        offences(path, &bad, true),
        [
            "crates/x/src/lib.rs: does not start with a `//!` doc line".to_owned(),
            format!("crates/x/src/lib.rs:2: contains `{}`", concat!("dbg", "!(")),
        ]
    );
    assert!(offences(path, &format!("//! Doc.\n{}", concat!("todo", "!()")), false).is_empty());
}

/// The lines of each `[section]` of a TOML file, by header, without comments
/// or blank lines. Enough for Cargo manifests, which is all we read.
fn toml_sections(text: &str) -> Vec<(String, Vec<&str>)> {
    let mut sections = vec![(String::new(), Vec::new())];
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            sections.push((header.trim().replace('"', ""), Vec::new()));
        } else if let Some((_, lines)) = sections.last_mut() {
            lines.push(line);
        }
    }
    sections
}

/// The value of `key` in the section `header`, without quotes.
fn toml_value(sections: &[(String, Vec<&str>)], header: &str, key: &str) -> Option<String> {
    let (_, lines) = sections.iter().find(|(h, _)| h == header)?;
    lines.iter().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
    })
}

/// The workspace members' folders, from the root manifest's `members`.
fn workspace_members(root_manifest: &str) -> Vec<String> {
    // The list may span lines: take the text from `members` to its `]`.
    let Some(start) = root_manifest.find("\nmembers") else {
        return Vec::new();
    };
    let list = &root_manifest[start..];
    let list = &list[..list.find(']').unwrap_or(list.len())];
    list.split('"').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The names of a manifest's `[dependencies]` (not dev- or build-).
fn dependency_names(sections: &[(String, Vec<&str>)]) -> Vec<String> {
    let mut names = Vec::new();
    for (header, lines) in sections {
        if let Some(name) = header.strip_prefix("dependencies.") {
            names.push(name.to_owned());
        } else if header == "dependencies" {
            // `name = ...`, `name.workspace = true` or `"name" = ...`.
            let keys = lines.iter().filter_map(|l| l.split_once('=')).map(|(k, _)| k);
            names.extend(keys.map(|k| k.split('.').next().unwrap_or(k).trim().replace('"', "")));
        }
    }
    names
}

/// The crate graph of docs/ARCHITECTURE.md, as data: each library's whole
/// list of allowed dependencies (the rules know no search or screen; the
/// solver has the rules and rayon only; so has ntuple, with its file
/// formats; engine stands between the libraries and the frontends, joins
/// the network to the search and serialises what the frontends send alike).
const LIBRARIES: [(&str, &[&str]); 5] = [
    ("game-core", &["rand_chacha"]),
    ("solver-expectimax", &["game-core", "rayon"]),
    ("ntuple", &["game-core", "zstd", "rayon", "dirs"]),
    ("records", &["serde", "serde_json"]),
    ("engine", &["game-core", "solver-expectimax", "ntuple", "dirs", "serde"]),
];

/// The frontends and tools: anything outside, but of the workspace only
/// the libraries; nothing depends on them.
const FRONTENDS: [&str; 4] = ["cli-ascii", "web", "py2048", "xtask"];

/// Where the manifests (package name, dependency names) break the crate
/// graph, as messages.
fn graph_offences(packages: &[(String, Vec<String>)]) -> Vec<String> {
    let mut found = Vec::new();
    for (name, deps) in packages {
        let allowed = LIBRARIES.iter().find(|(lib, _)| lib == name).map(|(_, a)| *a);
        for dep in deps {
            let bad = match allowed {
                Some(allowed) => !allowed.contains(&dep.as_str()),
                None if FRONTENDS.contains(&name.as_str()) => FRONTENDS.contains(&dep.as_str()),
                None => {
                    found.push(format!("{name}: a crate the graph does not place"));
                    break;
                }
            };
            if bad {
                found
                    .push(format!("{name} depends on {dep}, which the crate graph does not allow"));
            }
        }
    }
    found
}

#[test]
fn the_crate_graph_keeps_its_shape() {
    let root = project_root();
    let root_manifest = fs::read_to_string(root.join("Cargo.toml")).expect("the root Cargo.toml");
    let packages: Vec<(String, Vec<String>)> = workspace_members(&root_manifest)
        .iter()
        .map(|dir| {
            let text = fs::read_to_string(root.join(dir).join("Cargo.toml"))
                .unwrap_or_else(|e| panic!("{dir}/Cargo.toml: {e}"));
            let sections = toml_sections(&text);
            let name = toml_value(&sections, "package", "name").expect("a package name");
            (name, dependency_names(&sections))
        })
        .collect();
    // Guards against a parser that finds nothing and so checks nothing.
    let solver = packages.iter().find(|(n, _)| n == "solver-expectimax").expect("the solver");
    assert_eq!(solver.1, ["game-core", "rayon"]);
    assert_eq!(packages.len(), LIBRARIES.len() + FRONTENDS.len(), "{packages:?}");
    let found = graph_offences(&packages);
    assert!(found.is_empty(), "{} problem(s):\n{}\n", found.len(), found.join("\n"));
}

#[test]
fn the_crate_graph_rule_catches_offenders() {
    let pkg = |name: &str, deps: &[&str]| {
        (name.to_owned(), deps.iter().map(|d| (*d).to_owned()).collect::<Vec<_>>())
    };
    let found = graph_offences(&[
        pkg("game-core", &["rand_chacha", "rayon"]),
        pkg("solver-expectimax", &["game-core", "rayon"]),
        pkg("ntuple", &["game-core", "solver-expectimax", "zstd"]),
        pkg("web", &["engine", "axum", "cli-ascii"]),
        pkg("newcomer", &["game-core"]),
    ]);
    assert_eq!(
        found,
        [
            "game-core depends on rayon, which the crate graph does not allow",
            "ntuple depends on solver-expectimax, which the crate graph does not allow",
            "web depends on cli-ascii, which the crate graph does not allow",
            "newcomer: a crate the graph does not place",
        ]
    );
}

/// The workspace packages whose own code holds the hot loops: the rules,
/// the search (compiled here for both board types: `Solver::decide` routes
/// every caller's board to them), the trainer and py2048's batch loops over
/// boards. The frontends only call into them, so they compile unoptimised.
const HOT_PACKAGES: [&str; 4] = ["game-core", "solver-expectimax", "ntuple", "py2048"];

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
