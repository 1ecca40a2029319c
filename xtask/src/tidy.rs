//! Tidy checks over the whole source tree, run as a test (as rust-analyzer's
//! `xtask/src/tidy.rs` does): cheap rules that keep the code base uniform.

use std::collections::BTreeSet;
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

/// The packages that compile the engine's generic code (game-core and
/// everything that depends on it, directly or not) but that the dev profile
/// leaves unoptimised, as messages. `manifests` holds each member's folder
/// and `Cargo.toml` text.
///
/// The search is generic over the board and the evaluator, so its hot loops
/// are instantiated in the crate that picks the types (cli-ascii, not
/// solver-expectimax): an `opt-level = 3` on the libraries alone left
/// `cargo run -p cli-ascii` 13 to 20 times slower than release.
fn unoptimised_in_dev(root_manifest: &str, manifests: &[(String, String)]) -> Vec<String> {
    let root = toml_sections(root_manifest);
    let packages: Vec<(&str, String, Vec<String>)> = manifests
        .iter()
        .filter_map(|(dir, text)| {
            let sections = toml_sections(text);
            let name = toml_value(&sections, "package", "name")?;
            Some((dir.as_str(), name, dependency_names(&sections)))
        })
        .collect();
    // Grow the set until no package depends on one in it.
    let mut hot: BTreeSet<&str> = BTreeSet::from(["game-core"]);
    loop {
        let before = hot.len();
        for (_, name, deps) in &packages {
            if deps.iter().any(|d| hot.contains(d.as_str())) {
                hot.insert(name);
            }
        }
        if hot.len() == before {
            break;
        }
    }
    let mut found = Vec::new();
    for (dir, name, _) in packages.iter().filter(|(_, name, _)| hot.contains(name.as_str())) {
        let header = format!("profile.dev.package.{name}");
        if toml_value(&root, &header, "opt-level").as_deref() != Some("3") {
            found.push(format!(
                "{dir}: compiles the engine's generic code, but Cargo.toml has no \
                 `opt-level = 3` under [{header}], so the dev profile leaves it unoptimised"
            ));
        }
    }
    found
}

#[test]
fn dev_profile_optimises_the_engine_wherever_it_is_compiled() {
    let root = project_root();
    let root_manifest = fs::read_to_string(root.join("Cargo.toml")).expect("the root Cargo.toml");
    let members = workspace_members(&root_manifest);
    let manifests: Vec<(String, String)> = members
        .iter()
        .map(|dir| {
            let text = fs::read_to_string(root.join(dir).join("Cargo.toml"))
                .unwrap_or_else(|e| panic!("{dir}/Cargo.toml: {e}"));
            (dir.clone(), text)
        })
        .collect();
    // Guards against a parser that finds nothing and so checks nothing.
    for dir in ["crates/game-core", "crates/solver-expectimax", "crates/cli-ascii", "xtask"] {
        assert!(members.iter().any(|m| m == dir), "{dir} not among the members {members:?}");
    }
    let found = unoptimised_in_dev(&root_manifest, &manifests);
    assert!(found.is_empty(), "{} problem(s):\n{}\n", found.len(), found.join("\n"));
}

#[test]
fn dev_profile_rule_catches_offenders() {
    let root_manifest = "\
[workspace]
members = [
    \"crates/core\", \"crates/search\",
    \"crates/app\", \"tool\",
]

[profile.dev.package.game-core]
opt-level = 3
[profile.dev.package.search]
# A comment.
opt-level = 3
[profile.dev.package.app]
opt-level = 1
";
    assert_eq!(
        workspace_members(root_manifest),
        ["crates/core", "crates/search", "crates/app", "tool"]
    );
    let manifest = |name: &str, deps: &str| format!("[package]\nname = \"{name}\"\n\n{deps}");
    let manifests = [
        ("crates/core".to_owned(), manifest("game-core", "[dependencies]\nrand = \"1\"\n")),
        (
            "crates/search".to_owned(),
            manifest("search", "[dependencies]\ngame-core.workspace = true\n"),
        ),
        // Only through the search, and with the wrong level.
        ("crates/app".to_owned(), manifest("app", "[dependencies.search]\npath = \"../s\"\n")),
        ("crates/web".to_owned(), manifest("web", "[dependencies]\n\"app\" = { path = \"a\" }\n")),
        // A dev-dependency is not compiled into the program.
        ("tool".to_owned(), manifest("tool", "[dev-dependencies]\ngame-core = \"1\"\n")),
    ];
    let found = unoptimised_in_dev(root_manifest, &manifests);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with("crates/app: ") && found[0].contains("[profile.dev.package.app]"));
    assert!(found[1].starts_with("crates/web: "), "{found:#?}");
}
