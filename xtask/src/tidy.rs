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

// Ignored until every crate has landed: helpers are still writing crates
// in this checkout, and their work in progress must not turn CI red.
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
