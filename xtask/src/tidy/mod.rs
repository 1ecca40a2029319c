//! Tidy checks over the whole source tree, run as a test (as rust-analyzer's
//! `xtask/src/tidy.rs` does): cheap rules that keep the code base uniform.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::project_root;

mod architecture;
mod graph;
mod modules;
mod profile;

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

/// `cargo metadata`'s answer, as far as the crate graph and the binaries go.
#[derive(Debug, serde::Deserialize)]
struct Metadata {
    packages: Vec<MetadataPackage>,
}

#[derive(Debug, serde::Deserialize)]
struct MetadataPackage {
    name: String,
    manifest_path: PathBuf,
    targets: Vec<MetadataTarget>,
    dependencies: Vec<MetadataDependency>,
}

/// A dependency of a package: `name` is the package's, even where the
/// manifest renames it; `kind` is `None` for a normal one, else `dev` or
/// `build`.
#[derive(Debug, serde::Deserialize)]
struct MetadataDependency {
    name: String,
    kind: Option<String>,
}

/// `cargo metadata` of the workspace's own packages.
fn cargo_metadata() -> Metadata {
    let out = crate::util::cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON")
}

#[derive(Debug, serde::Deserialize)]
struct MetadataTarget {
    name: String,
    kind: Vec<String>,
}
