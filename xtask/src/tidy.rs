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

/// The top-level module a source file belongs to, given its path relative
/// to its module tree's root folder ([`module_trees`]): `sessions` for
/// `sessions.rs`, `endgame` for `endgame/file.rs`, `None` for the root
/// (`lib.rs`, `main.rs`).
fn top_module(relative: &Path) -> Option<String> {
    let mut parts = relative.iter().map(|p| p.to_string_lossy().into_owned());
    let first = parts.next()?;
    if parts.next().is_some() {
        return Some(first);
    }
    let name = first.strip_suffix(".rs")?;
    (!matches!(name, "lib" | "main")).then(|| name.to_owned())
}

/// The modules a crate root declares from files: `mod x;` (of any
/// visibility), comments and test items left out.
fn declared_modules(root: &str) -> Vec<String> {
    without_test_items(root)
        .split(';')
        .filter_map(|statement| {
            let words: Vec<&str> = statement.split_whitespace().collect();
            match words.as_slice() {
                [.., "mod", name] => Some((*name).to_owned()),
                _ => None,
            }
        })
        .collect()
}

/// A crate's module trees, from its `src/` files (paths relative to
/// `src/`): each binary under `src/bin/` (`bin/NAME.rs` or `bin/NAME/`) is
/// a tree of its own; where the crate has both a `lib.rs` and a `main.rs`,
/// the modules `main.rs` declares are the `main` tree and the rest the
/// `lib` tree (the binary names the library's modules as `package::x`, not
/// `crate::x`, so the two share no `crate::` paths); otherwise the crate is
/// one tree, named "". Each tree comes with its files, their paths made
/// relative to its root's folder (a `bin/NAME.rs` root becomes `main.rs`).
fn module_trees(files: &[(PathBuf, String)]) -> Vec<(String, Vec<(PathBuf, String)>)> {
    let root_text = |name: &str| files.iter().find(|(p, _)| p == Path::new(name)).map(|(_, t)| t);
    let main_modules = match (root_text("lib.rs"), root_text("main.rs")) {
        (Some(_), Some(main)) => Some(declared_modules(main)),
        _ => None,
    };
    let mut trees: Vec<(String, Vec<(PathBuf, String)>)> = Vec::new();
    for (path, text) in files {
        let (tree, relative) = if let Ok(in_bin) = path.strip_prefix("bin") {
            let mut parts = in_bin.iter();
            let first = parts.next().unwrap_or_default().to_string_lossy().into_owned();
            let rest: PathBuf = parts.collect();
            match first.strip_suffix(".rs") {
                Some(name) if rest.as_os_str().is_empty() => {
                    (format!("bin/{name}"), PathBuf::from("main.rs"))
                }
                _ => (format!("bin/{first}"), rest),
            }
        } else {
            let tree = match &main_modules {
                None => "",
                Some(declared) => {
                    let is_main = path == Path::new("main.rs")
                        || top_module(path).is_some_and(|m| declared.contains(&m));
                    if is_main { "main" } else { "lib" }
                }
            };
            (tree.to_owned(), path.clone())
        };
        let entry = match trees.iter_mut().find(|(t, _)| *t == tree) {
            Some(entry) => entry,
            None => {
                trees.push((tree, Vec::new()));
                trees.last_mut().expect("just pushed")
            }
        };
        entry.1.push((relative, text.clone()));
    }
    trees.sort_by(|a, b| a.0.cmp(&b.0));
    trees
}

/// `text` without its comment lines and without each item marked
/// `#[cfg(test)]`: a `mod tests { ... }` (to its matching brace, braces in
/// string and char literals left out of the count) or a single item up to
/// its `;`. What follows such an item is read on.
fn without_test_items(text: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut kept = String::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find(MARK) {
        kept.push_str(&rest[..at]);
        rest = &rest[at + MARK.len()..];
        rest = &rest[item_end(rest)..];
    }
    kept.push_str(rest);
    kept
}

/// Where the item at the start of `code` ends: after the brace that closes
/// its first top-level `{`, or after its `;` if one comes first (outside
/// brackets: `[u8; 4]` ends nothing).
fn item_end(code: &str) -> usize {
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // A string literal: on to its closing quote, or for a raw
                // string `r#"..."#` to the quote and as many hashes.
                let hashes = code[..i].bytes().rev().take_while(|b| *b == b'#').count();
                if i > hashes && bytes[i - hashes - 1] == b'r' {
                    let close = format!("\"{}", "#".repeat(hashes));
                    i = code[i + 1..].find(&close).map_or(bytes.len(), |at| i + at + hashes + 1);
                } else {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                }
            }
            b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
            b'\'' if bytes.get(i + 1) == Some(&b'\\') => {
                // An escaped char literal such as '\'' or '\u{7b}'.
                i += 2;
                while i + 1 < bytes.len() && bytes[i + 1] != b'\'' {
                    i += 1;
                }
                i += 1;
            }
            b'{' | b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    code.len()
}

/// A module's path from its tree's root, given its file's path relative to
/// the root's folder ([`module_trees`]): empty for the root (`lib.rs`,
/// `main.rs`), `[endgame]` for `endgame/mod.rs`, `[solver, searches]` for
/// `solver/searches.rs`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> =
        relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let name = last.strip_suffix(".rs").unwrap_or(&last);
    if !(name == "mod" || parts.is_empty() && matches!(name, "lib" | "main")) {
        parts.push(name.to_owned());
    }
    parts
}

/// A module's name in messages: `solver::searches`, or `crate` for the root.
fn module_name(path: &[String]) -> String {
    if path.is_empty() { "crate".to_owned() } else { path.join("::") }
}

/// The identifier at the start of `code` (empty if none).
fn ident_at(code: &str) -> &str {
    let end = code.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(code.len());
    &code[..end]
}

/// A path's segments, and the name a `use` binds it to when an `as` says.
type NamedPath = (Vec<String>, Option<String>);

/// The paths of the use tree (or plain path) at `code[at..]`, each with
/// the name an `as` binds it to, into `out`; where it ends. `a::{b, c::{self,
/// D as E}, f::*}` is `a::b`, `a::c::self`, `a::c::D` (as `E`) and
/// `a::f::*`.
fn use_tree(
    code: &str,
    mut at: usize,
    mut segments: Vec<String>,
    out: &mut Vec<NamedPath>,
) -> usize {
    let skip_space =
        |at: usize| code[at..].find(|c: char| !c.is_whitespace()).map_or(code.len(), |n| at + n);
    loop {
        at = skip_space(at);
        if code[at..].starts_with('{') {
            at += 1;
            loop {
                at = skip_space(at);
                match code[at..].chars().next() {
                    None => return at,
                    Some('}') => return at + 1,
                    Some(',') => at += 1,
                    Some(_) => {
                        let from = at;
                        at = use_tree(code, at, segments.clone(), out);
                        if at == from {
                            // Not a path (a stray token): step over it.
                            at += code[at..].chars().next().map_or(1, char::len_utf8);
                        }
                    }
                }
            }
        }
        if code[at..].starts_with('*') {
            segments.push("*".to_owned());
            out.push((segments, None));
            return at + 1;
        }
        let word = ident_at(&code[at..]);
        if word.is_empty() {
            if !segments.is_empty() {
                out.push((segments, None));
            }
            return at;
        }
        at += word.len();
        segments.push(word.to_owned());
        if code[at..].starts_with("::") {
            at += 2;
            continue;
        }
        let after = skip_space(at);
        if ident_at(&code[after..]) == "as" {
            let from = skip_space(after + 2);
            let alias = ident_at(&code[from..]);
            out.push((segments, Some(alias.to_owned())));
            return from + alias.len();
        }
        out.push((segments, None));
        return at;
    }
}

/// The paths `code` names: `use` trees (each with the name it binds) and
/// every path that starts at `crate::`, `super::` or `self::` (with none).
fn paths_in(code: &str) -> Vec<NamedPath> {
    let mut out = Vec::new();
    let starts_word =
        |at: usize| !code[..at].ends_with(|c: char| c.is_alphanumeric() || "_$:".contains(c));
    for (at, _) in code.match_indices("use") {
        if starts_word(at) && code[at + 3..].starts_with(char::is_whitespace) {
            use_tree(code, at + 3, Vec::new(), &mut out);
        }
    }
    for prefix in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(prefix) {
            if starts_word(at) {
                use_tree(code, at, Vec::new(), &mut out);
            }
        }
    }
    out
}

/// The modules of one module tree, at any depth, with what their code (its
/// `#[cfg(test)]` items and comments left out) names.
struct ModuleTree {
    /// Each module's path, and the paths its code names, each with the name
    /// a `use` binds it to.
    modules: Vec<(Vec<String>, Vec<NamedPath>)>,
}

impl ModuleTree {
    /// The tree of `files` (paths relative to the root's folder, as
    /// [`module_trees`] gives them). A file whose parent declares it only
    /// in a `#[cfg(test)]` item (`mod tests;`) is left out.
    fn new(files: &[(PathBuf, String)]) -> ModuleTree {
        let paths: Vec<Vec<String>> = files.iter().map(|(p, _)| module_path(p)).collect();
        let declares = |code: &str, name: &str| {
            code.split(';').any(|s| s.split_whitespace().rev().take(2).eq([name, "mod"]))
        };
        let mut modules = Vec::new();
        for (path, (_, text)) in paths.iter().zip(files) {
            if let Some((name, parent)) = path.split_last() {
                let parent_text = paths.iter().zip(files).find(|(p, _)| *p == parent);
                if let Some((_, (_, parent_text))) = parent_text {
                    let declared = declares(parent_text, name);
                    if declared && !declares(&without_test_items(parent_text), name) {
                        continue;
                    }
                }
            }
            modules.push((path.clone(), paths_in(&without_test_items(text))));
        }
        modules.sort();
        ModuleTree { modules }
    }

    fn is_module(&self, path: &[String]) -> bool {
        self.modules.iter().any(|(p, _)| p == path)
    }

    /// The path that a `use` in module `at` binds to `name`, if any.
    fn bound(&self, at: &[String], name: &str) -> Option<&[String]> {
        let (_, named) = self.modules.iter().find(|(p, _)| p == at)?;
        named.iter().find_map(|(path, alias)| {
            let bound_name = match (alias, path.as_slice()) {
                (Some(alias), _) => alias.as_str(),
                (None, [.., last, this]) if this == "self" => last.as_str(),
                (None, [.., last]) => last.as_str(),
                (None, []) => return None,
            };
            (bound_name == name && bound_name != "*").then_some(path.as_slice())
        })
    }

    /// The module where `path`, named in module `at`, leads: the deepest
    /// module it walks through, where a name a module binds with `use` (a
    /// re-export, such as the crate root's `pub use solver::X`) leads on to
    /// where it came from. `None` for a path outside the crate.
    fn resolve(&self, at: &[String], path: &[String], depth: usize) -> Option<Vec<String>> {
        let first = path.first()?;
        if depth > 8 {
            return None;
        }
        let (mut here, mut rest) = match first.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "super" | "self" => (at.to_vec(), path),
            _ if self.is_module(&[at, &path[..1]].concat()) => (at.to_vec(), path),
            _ => {
                // A name this module binds with `use`, such as `root` after
                // `use super::root::{self, Run}`.
                let bound = self.bound(at, first)?;
                return self.resolve(at, &[bound, &path[1..]].concat(), depth + 1);
            }
        };
        while let Some((word, after)) = rest.split_first() {
            match word.as_str() {
                "super" => {
                    here.pop();
                }
                "self" | "*" => {}
                _ => {
                    let child = [here.as_slice(), std::slice::from_ref(word)].concat();
                    if self.is_module(&child) {
                        here = child;
                    } else {
                        let via = self.bound(&here, word).map(|b| [b, after].concat());
                        let onward = via.and_then(|p| self.resolve(&here, &p, depth + 1));
                        return Some(onward.unwrap_or(here));
                    }
                }
            }
            rest = after;
        }
        Some(here)
    }

    /// Each module ([`module_name`]) and the other modules its code
    /// names, by where each path leads ([`ModuleTree::resolve`]).
    fn graph(&self) -> Vec<(String, Vec<String>)> {
        self.modules
            .iter()
            .map(|(module, named)| {
                let mut to: Vec<String> = named
                    .iter()
                    .filter_map(|(path, _)| self.resolve(module, path, 0))
                    .filter(|target| target != module)
                    .map(|target| module_name(&target))
                    .collect();
                to.sort();
                to.dedup();
                (module_name(module), to)
            })
            .collect()
    }
}

/// The circles of imports in a module tree's graph ([`ModuleTree::graph`]),
/// as messages: among the children of each module (the root's included),
/// each child standing for itself and the modules inside it, each set of
/// children that reach one another, named once. A module naming its own
/// parent's items is no circle: a parent and the children it declares are
/// one unit to the rest of the tree.
fn import_cycles(krate: &str, graph: &[(String, Vec<String>)]) -> Vec<String> {
    let parts = |name: &str| -> Vec<String> {
        name.split("::").filter(|p| !p.is_empty() && *p != "crate").map(str::to_owned).collect()
    };
    let mut parents: Vec<Vec<String>> = vec![Vec::new()];
    for (module, _) in graph {
        let path = parts(module);
        parents.extend((1..path.len()).map(|n| path[..n].to_vec()));
    }
    parents.sort();
    parents.dedup();
    let mut found = Vec::new();
    for parent in &parents {
        // The child of `parent` that `name` is or lies inside.
        let child = |name: &str| -> Option<String> {
            let path = parts(name);
            (path.len() > parent.len() && path.starts_with(parent))
                .then(|| path[..=parent.len()].join("::"))
        };
        let mut imports: Vec<(String, Vec<String>)> = Vec::new();
        for (from, to) in graph {
            let Some(from) = child(from) else {
                continue;
            };
            let to: Vec<String> = to.iter().filter_map(|t| child(t)).collect();
            let entry = match imports.iter_mut().find(|(m, _)| *m == from) {
                Some(entry) => entry,
                None => {
                    imports.push((from.clone(), Vec::new()));
                    imports.last_mut().expect("just pushed")
                }
            };
            for to in to {
                if to != from && !entry.1.contains(&to) {
                    entry.1.push(to);
                }
            }
        }
        imports.sort();
        found.extend(sibling_cycles(krate, &imports));
    }
    found
}

/// The circles among sibling modules, as messages: each set of modules
/// that reach one another through imports, named once.
fn sibling_cycles(krate: &str, imports: &[(String, Vec<String>)]) -> Vec<String> {
    let reaches = |from: &str| -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        let mut stack = vec![from.to_owned()];
        while let Some(m) = stack.pop() {
            for next in imports.iter().filter(|(n, _)| *n == m).flat_map(|(_, i)| i) {
                if !seen.contains(next) {
                    seen.push(next.clone());
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: Vec<(String, Vec<String>)> =
        imports.iter().map(|(m, _)| (m.clone(), reaches(m))).collect();
    let mut found = Vec::new();
    let mut placed: Vec<String> = Vec::new();
    for (module, reached) in &reach {
        if placed.contains(module) || !reached.contains(module) {
            continue;
        }
        // The modules this one reaches that reach it back: its circle.
        let mut circle: Vec<String> = reach
            .iter()
            .filter(|(other, back)| reached.contains(other) && back.contains(module))
            .map(|(other, _)| other.clone())
            .collect();
        circle.sort();
        placed.extend(circle.iter().cloned());
        found.push(format!("{krate}: the modules {} import each other", circle.join(", ")));
    }
    found
}

#[test]
fn no_two_modules_import_each_other() {
    let root = project_root();
    let mut found = Vec::new();
    let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("the crates folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    crates.push(root.join("xtask"));
    crates.sort();
    let mut modules = 0;
    let mut trees = Vec::new();
    for krate in crates {
        let src = krate.join("src");
        let files: Vec<(PathBuf, String)> = rust_files(&src)
            .into_iter()
            .map(|p| {
                let text = fs::read_to_string(&p).unwrap_or_default();
                (p.strip_prefix(&src).unwrap_or(&p).to_path_buf(), text)
            })
            .collect();
        let name = krate.file_name().unwrap_or_default().to_string_lossy().into_owned();
        for (tree, files) in module_trees(&files) {
            let graph = ModuleTree::new(&files).graph();
            modules += graph.len();
            let label = if tree.is_empty() { name.clone() } else { format!("{name} ({tree})") };
            trees.push(label.clone());
            found.extend(import_cycles(&label, &graph));
        }
    }
    // Guards against a scan that finds no modules and so checks nothing.
    assert!(modules > 50, "only {modules} modules found");
    for tree in ["cli-ascii", "cli-common", "lab", "web (lib)", "web (main)"] {
        assert!(trees.iter().any(|t| t == tree), "no tree {tree} among {trees:?}");
    }
    assert!(found.is_empty(), "{} problem(s):\n{}\n", found.len(), found.join("\n"));
}

#[test]
fn module_trees_split_binaries_from_the_library() {
    let file = |path: &str, text: &str| (PathBuf::from(path), text.to_owned());
    let files = [
        file("lib.rs", "//! Lib.\npub mod args;\npub mod setup;\n"),
        file("main.rs", "//! Game.\nmod cli;\npub(crate) mod play;\n#[cfg(test)]\nmod tests;\n"),
        file("args.rs", "use crate::setup::Spec;\n"),
        file("setup.rs", "use crate::args::Args;\n"),
        // The binary's `cli` and the library's `setup` share no `crate::`.
        file("cli.rs", "use cli_ascii::setup;\nuse crate::play::Play;\n"),
        file("play.rs", "use crate::setup::X;\n"),
        file("bin/lab/main.rs", "//! Lab.\nmod cli;\nmod tune;\n"),
        file("bin/lab/cli.rs", "use crate::tune::Tune;\n"),
        file("bin/lab/tune/mod.rs", "use crate::cli::Args;\n"),
        file("bin/one.rs", "//! A one-file binary.\n"),
    ];
    let trees = module_trees(&files);
    let names: Vec<&str> = trees.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(names, ["bin/lab", "bin/one", "lib", "main"]);
    let cycles: Vec<String> =
        trees.iter().flat_map(|(t, f)| import_cycles(t, &ModuleTree::new(f).graph())).collect();
    assert_eq!(
        cycles,
        [
            "bin/lab: the modules cli, tune import each other",
            "lib: the modules args, setup import each other"
        ]
    );
    let (_, one) = &trees[1];
    assert_eq!(one[0].0, PathBuf::from("main.rs"));
    // A crate with one root is one tree, named "".
    let single = module_trees(&[file("lib.rs", "mod a;\n"), file("a.rs", "")]);
    assert_eq!(single.iter().map(|(t, f)| (t.as_str(), f.len())).collect::<Vec<_>>(), [("", 2)]);
}

#[test]
fn the_module_cycle_rule_catches_offenders() {
    let file = |path: &str, text: &str| (PathBuf::from(path), text.to_owned());
    let files = [
        file("lib.rs", "//! Root.\nmod a;\nuse crate::a::A;\n"),
        file("cli.rs", "use crate::keys::KEYS;\nfn f() { crate::setup::spec(); }\n"),
        file("setup.rs", "use crate::{cli::{Args, Options}, render};\nuse crate::Limits;\n"),
        file("keys.rs", "//! Keys, no imports (crate::setup in a comment).\n// crate::cli\n"),
        file("render.rs", "use super::keys;\n#[cfg(test)]\nmod tests { use crate::cli; }\n"),
        file("solver/mod.rs", "use crate::search::Search;\n"),
        file("solver/root.rs", "use super::search;\n"),
        file("search.rs", "use $crate::x; use other_crate::solver; use crate::solver::Root;\n"),
    ];
    let imports = ModuleTree::new(&files).graph();
    let of = |m: &str| imports.iter().find(|(n, _)| n == m).map(|(_, i)| i.join(" "));
    assert_eq!(of("cli").as_deref(), Some("keys setup"));
    assert_eq!(of("setup").as_deref(), Some("cli crate render"), "the root's items are its own");
    assert_eq!(of("keys").as_deref(), Some(""));
    assert_eq!(of("render").as_deref(), Some("keys"), "tests and super:: of the root");
    assert_eq!(of("solver").as_deref(), Some("search"));
    assert_eq!(of("solver::root").as_deref(), Some("solver"), "super:: of a nested file");
    assert_eq!(of("search").as_deref(), Some("solver"), "other crates and macros' $crate");
    assert_eq!(of("crate").as_deref(), Some(""), "the root names an undeclared module");
    assert_eq!(
        import_cycles("x", &imports),
        [
            "x: the modules cli, setup import each other",
            "x: the modules search, solver import each other"
        ]
    );
    // A test-only item mid-file is skipped, and the rest read on: a `use`,
    // and a `mod tests` whose braces (some in literals) are matched.
    let mid = file(
        "watch.rs",
        "#[cfg(test)]\nuse crate::keys;\nuse crate::cli::X;\n#[cfg(test)]\n#[allow(unused)]\n\
         mod tests {\n    use crate::setup;\n    fn f() { let s = \"}\"; let c = '{'; }\n    \
         const R: &str = r#\"}\"#;\n    const A: [u8; 2] = [0; 2];\n}\n\
         fn f() { crate::render::draw(); }\n",
    );
    let imports = ModuleTree::new(&[
        mid,
        file("keys.rs", ""),
        file("cli.rs", ""),
        file("render.rs", ""),
        file("setup.rs", ""),
    ])
    .graph();
    let of = |m: &str| imports.iter().find(|(n, _)| n == m).map(|(_, i)| i.join(" "));
    assert_eq!(of("watch").as_deref(), Some("cli render"));
    // A longer circle is one finding too.
    let three = [
        ("a".to_owned(), vec!["b".to_owned()]),
        ("b".to_owned(), vec!["c".to_owned()]),
        ("c".to_owned(), vec!["a".to_owned()]),
        ("d".to_owned(), vec!["a".to_owned()]),
    ];
    assert_eq!(import_cycles("y", &three), ["y: the modules a, b, c import each other"]);
}

/// Nested modules are read at every depth: two children of `solver` that
/// import each other, and a module that reaches a sibling's item through
/// the crate root's re-export (`crate::STEP_MIN_ODDS`, the root's `pub use
/// solver::STEP_MIN_ODDS`), are circles; a child naming its parent's items
/// is not, nor is a test-only module file.
#[test]
fn the_module_cycle_rule_reads_nested_modules() {
    let file = |path: &str, text: &str| (PathBuf::from(path), text.to_owned());
    let tree = |endgame: &str, solver: &str, searches: &str, learned: &str, root: &str| {
        let files = [
            file("lib.rs", &format!("//! Root.\npub mod endgame;\nmod solver;\n{root}")),
            file("endgame/mod.rs", &format!("mod build;\n#[cfg(test)]\nmod tests;\n{endgame}")),
            file("endgame/build.rs", "use super::{Geometry, ONE};\n"),
            file("endgame/tests.rs", "use crate::solver::Solver;\n"),
            file("solver.rs", &format!("mod learned;\nmod searches;\nmod searching;\n{solver}")),
            file("solver/searches.rs", searches),
            file("solver/learned.rs", learned),
            file("solver/searching.rs", "use super::{Decision, SearchError};\n"),
        ];
        let graph = ModuleTree::new(&files).graph();
        (import_cycles("x", &graph), graph)
    };
    let (cycles, graph) = tree(
        "fn f(a: Advice) -> bool { a.odds >= crate::STEP_MIN_ODDS }\n",
        "use crate::endgame::{self, Endgame};\nuse searches::Search;\npub const STEP_MIN_ODDS: \
         f64 = 0.9;\n",
        "use super::learned::Learned;\nuse super::{Decision, SearchError};\npub trait Search {}\n",
        "use super::searches::Search;\nimpl Search for Learned {}\n",
        "pub use solver::{Solver, STEP_MIN_ODDS};\n",
    );
    let of = |m: &str| graph.iter().find(|(n, _)| n == m).map(|(_, i)| i.join(" "));
    assert_eq!(of("endgame").as_deref(), Some("solver"), "through the root's re-export");
    assert_eq!(of("endgame::build").as_deref(), Some("endgame"));
    assert_eq!(of("endgame::tests"), None, "a test-only module file is not read");
    assert_eq!(of("solver::searches").as_deref(), Some("solver solver::learned"));
    assert_eq!(
        cycles,
        [
            "x: the modules endgame, solver import each other",
            "x: the modules solver::learned, solver::searches import each other"
        ]
    );
    // The two fixed: the constant at home in `endgame` and re-exported, the
    // trait below both searches. Aliases (`{self}`, `as`) resolve too.
    let (cycles, graph) = tree(
        "pub const STEP_MIN_ODDS: f64 = 0.9;\nfn f(a: Advice) -> bool { a.odds >= STEP_MIN_ODDS }\n",
        "use crate::endgame::{self, Endgame};\nuse searching::Search;\n\
         fn f() -> f64 { endgame::STEP_MIN_ODDS }\n",
        "use super::learned::Learned;\nuse super::searching::Search as S;\n",
        "use super::searching::{self, Search};\nfn f() { searching::chains(); }\n",
        "pub use endgame::STEP_MIN_ODDS;\npub use solver::Solver;\n",
    );
    assert_eq!(cycles, Vec::<String>::new());
    let of = |m: &str| graph.iter().find(|(n, _)| n == m).map(|(_, i)| i.join(" "));
    assert_eq!(of("solver::learned").as_deref(), Some("solver::searching"));
    assert_eq!(of("solver::searches").as_deref(), Some("solver::learned solver::searching"));
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
const LIBRARIES: [(&str, &[&str]); 7] = [
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

/// The architecture document, whose code map and subcommand lists the tests
/// below hold to the code.
const ARCHITECTURE_MD: &str = "docs/ARCHITECTURE.md";

/// A workspace binary as the architecture document must describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Binary {
    name: String,
    /// Its package's folder, relative to the root: the code map heading it
    /// belongs under.
    dir: String,
    /// Its subcommands as `--help` lists them, a nested one as `parent
    /// child` in place of its parent; `help` left out.
    subcommands: Vec<String>,
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

/// Every binary target of the workspace and its package's folder, as
/// cargo sees them (so a new binary or crate is found without this file
/// naming it).
fn binary_targets(root: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for package in cargo_metadata().packages {
        let dir = package.manifest_path.parent().expect("a manifest has a folder");
        let dir = dir.strip_prefix(root).unwrap_or(dir).to_string_lossy().replace('\\', "/");
        for target in package.targets.into_iter().filter(|t| t.kind.iter().any(|k| k == "bin")) {
            found.push((target.name, dir.clone()));
        }
    }
    found.sort();
    found
}

/// The subcommands a clap `--help` lists, under any heading (`Commands:`,
/// or groups of one's own) before `Options:`: each a line of two spaces,
/// the name, and at least two spaces or nothing more.
fn help_subcommands(help: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut listing = false;
    for line in help.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            // A heading opens a list unless it is the usage or the options.
            listing = line.ends_with(':')
                && !["Usage:", "Options:", "Arguments:"].iter().any(|h| line.starts_with(h));
            continue;
        }
        let Some(rest) = line.strip_prefix("  ").filter(|r| !r.starts_with(' ')) else {
            continue;
        };
        let name = rest.split("  ").next().unwrap_or(rest).trim();
        let is_name = name.starts_with(|c: char| c.is_ascii_lowercase())
            && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if listing && is_name && name != "help" {
            found.push(name.to_owned());
        }
    }
    found
}

/// What `program ARGS --help` prints.
fn help_of(program: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new(program)
        .args(args)
        .arg("--help")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    assert!(out.status.success(), "{} {args:?} --help failed", program.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every workspace binary, built, with the subcommands its `--help` lists
/// (and theirs, one level down).
fn workspace_binaries(root: &Path) -> Vec<Binary> {
    let status = crate::util::cargo()
        .args(["build", "--quiet", "--workspace", "--bins"])
        .status()
        .expect("cargo build runs");
    assert!(status.success(), "cargo build --workspace --bins failed");
    binary_targets(root)
        .into_iter()
        .map(|(name, dir)| {
            let program = crate::util::target_dir()
                .join("debug")
                .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
            let mut subcommands = Vec::new();
            for sub in help_subcommands(&help_of(&program, &[])) {
                let nested = help_subcommands(&help_of(&program, &[&sub]));
                if nested.is_empty() {
                    subcommands.push(sub);
                } else {
                    subcommands.extend(nested.iter().map(|n| format!("{sub} {n}")));
                }
            }
            Binary { name, dir, subcommands }
        })
        .collect()
}

/// The code map's crate headings: `` ### `crates/x` `` under `## Code Map`.
fn code_map_headings(doc: &str) -> Vec<String> {
    let Some(start) = doc.find("\n## Code Map\n") else { return Vec::new() };
    let map = &doc[start + 1..];
    let map = &map[..map[3..].find("\n## ").map_or(map.len(), |end| end + 3)];
    map.lines()
        .filter_map(|l| l.strip_prefix("### `").and_then(|l| l.strip_suffix('`')))
        .map(str::to_owned)
        .collect()
}

/// The text of the code map section of `dir`, up to the next heading.
fn code_map_section<'a>(doc: &'a str, dir: &str) -> Option<&'a str> {
    let heading = format!("\n### `{dir}`\n");
    let start = doc.find(&heading)? + heading.len();
    let rest = &doc[start..];
    Some(&rest[..rest.find("\n#").map_or(rest.len(), |end| end + 1)])
}

/// The prefix of the paragraph that lists a binary's subcommands.
fn subcommands_prefix(binary: &str) -> String {
    format!("Subcommands of `{binary}`:")
}

/// The subcommands a paragraph `Subcommands of `BIN`: `a`, `b` ...` lists
/// in `text` (the backquoted words after the colon, to the blank line).
fn listed_subcommands(text: &str, binary: &str) -> Option<Vec<String>> {
    let prefix = subcommands_prefix(binary);
    let start = text.find(&prefix)? + prefix.len();
    let rest = &text[start..];
    let paragraph = &rest[..rest.find("\n\n").unwrap_or(rest.len())];
    Some(paragraph.split('`').skip(1).step_by(2).map(|w| w.trim().to_owned()).collect())
}

/// Where docs/ARCHITECTURE.md and the code disagree, as messages: a member
/// without a code map heading or a heading without a member, a binary whose
/// subcommands its package's section does not list exactly, a list for a
/// binary that is not there.
fn architecture_offences(doc: &str, members: &[String], binaries: &[Binary]) -> Vec<String> {
    let mut found = Vec::new();
    let headings = code_map_headings(doc);
    for member in members.iter().filter(|m| !headings.contains(m)) {
        found.push(format!(
            "`{member}` is a workspace member with no `### `{member}`` in the code map"
        ));
    }
    for heading in headings.iter().filter(|h| !members.contains(h)) {
        found.push(format!("the code map has `### `{heading}`` for no workspace member"));
    }
    for binary in binaries {
        let name = &binary.name;
        let section = code_map_section(doc, &binary.dir).unwrap_or("");
        let Some(listed) = listed_subcommands(section, name) else {
            if !binary.subcommands.is_empty() {
                found.push(format!(
                    "{name}'s subcommands ({}) are not listed under `### `{}``: write \
                     `{} `{}``",
                    binary.subcommands.join(", "),
                    binary.dir,
                    subcommands_prefix(name),
                    binary.subcommands.join("`, `"),
                ));
            }
            continue;
        };
        for sub in binary.subcommands.iter().filter(|s| !listed.contains(s)) {
            found.push(format!("`{name} {sub}` is a subcommand the code map does not list"));
        }
        for sub in listed.iter().filter(|s| !binary.subcommands.contains(s)) {
            found.push(format!("the code map lists `{name} {sub}`, which is no subcommand"));
        }
    }
    // A list for a binary that has gone (or moved to another crate).
    for line in doc.lines() {
        let Some(rest) = line.strip_prefix("Subcommands of `") else { continue };
        let name = rest.split('`').next().unwrap_or(rest);
        if !binaries.iter().any(|b| b.name == name) {
            found.push(format!("the code map lists subcommands of `{name}`, which is no binary"));
        }
    }
    found
}

/// The architecture document's crates are the workspace's members, and
/// each workspace binary's subcommands are those its package's section
/// lists: found from cargo and the binaries' own `--help`, so a crate, a
/// binary or a subcommand added, moved or removed fails here until the
/// document says so.
#[test]
fn architecture_md_names_every_crate_and_subcommand() {
    let root = project_root();
    let doc = fs::read_to_string(root.join(ARCHITECTURE_MD)).expect("docs/ARCHITECTURE.md");
    let root_manifest = fs::read_to_string(root.join("Cargo.toml")).expect("the root Cargo.toml");
    let members = workspace_members(&root_manifest);
    let binaries = workspace_binaries(&root);
    // Guards against a help parser that finds nothing and so checks nothing:
    // the parsed tasks of this very program are those clap defines.
    let xtask = binaries.iter().find(|b| b.name == "xtask").expect("the xtask binary");
    let defined: Vec<String> = <crate::Cli as clap::CommandFactory>::command()
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    assert_eq!(xtask.subcommands, defined);
    assert!(binaries.iter().any(|b| b.dir == "crates/cli-ascii" && b.subcommands.len() >= 3));
    let found = architecture_offences(&doc, &members, &binaries);
    assert!(
        found.is_empty(),
        "{ARCHITECTURE_MD}: {} problem(s):\n{}\n",
        found.len(),
        found.join("\n")
    );
}

/// The crate graph drawn under `## Bird's Eye View`: its first ```text
/// block.
fn birds_eye_drawing(doc: &str) -> Option<&str> {
    let view = &doc[doc.find("\n## Bird's Eye View\n")?..];
    let start = view.find("```text\n")? + "```text\n".len();
    let drawing = &view[start..];
    Some(&drawing[..drawing.find("```")?])
}

/// The packages that the Bird's Eye View's drawing does not name (as a
/// whole word: `engine` is not in `engines`), as messages.
fn undrawn_packages(doc: &str, packages: &[String]) -> Vec<String> {
    let Some(drawing) = birds_eye_drawing(doc) else {
        return vec!["no crate graph drawn under `## Bird's Eye View`".to_owned()];
    };
    let in_name = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let drawn = |name: &str| {
        drawing.match_indices(name).any(|(at, _)| {
            !drawing[..at].ends_with(in_name) && !drawing[at + name.len()..].starts_with(in_name)
        })
    };
    packages
        .iter()
        .filter(|p| !drawn(p))
        .map(|p| format!("`{p}` is a workspace package the crate graph does not draw"))
        .collect()
}

/// The drawing of the crate graph names every workspace package, as cargo
/// finds them: a crate added or renamed fails here until it is drawn.
#[test]
fn architecture_md_draws_every_package() {
    let doc = fs::read_to_string(project_root().join(ARCHITECTURE_MD)).expect("the document");
    let packages: Vec<String> = cargo_metadata().packages.into_iter().map(|p| p.name).collect();
    assert!(packages.len() > LIBRARIES.len(), "{packages:?}");
    let found = undrawn_packages(&doc, &packages);
    assert!(found.is_empty(), "{ARCHITECTURE_MD}: {}\n", found.join("\n"));
}

#[test]
fn the_drawing_rule_catches_offenders() {
    let doc = "# A\n\n## Bird's Eye View\n\n```text\n  cli-ascii ──► engines\n  lab\n```\n\n\
               engine\n";
    let names = ["cli-ascii", "engine", "lab", "cli"].map(str::to_owned);
    assert_eq!(
        undrawn_packages(doc, &names),
        [
            "`engine` is a workspace package the crate graph does not draw",
            "`cli` is a workspace package the crate graph does not draw",
        ]
    );
    assert_eq!(undrawn_packages("# A\n", &names).len(), 1);
}

#[test]
fn the_architecture_rule_catches_offenders() {
    let help = "\
Watch and play.

Usage: game [OPTIONS]
       game <COMMAND>

Play:
  watch     The AI plays
  play      You play

Lab (measure):
  tables    The tables
  help      Print this message

Options:
  -h, --help  Print help
      --seed <N>
          Possible values:
          - random:  a word
";
    assert_eq!(help_subcommands(help), ["watch", "play", "tables"]);
    let no_commands = "Usage: web [OPTIONS]\n\nOptions:\n  -h, --help  Print help\n";
    assert!(help_subcommands(no_commands).is_empty());
    let doc = "\
# Architecture

## Code Map

### `crates/game`

Subcommands of `game`: `watch` (the default), `tables build`,
`train`.

### `crates/gone`

Subcommands of `lab`: `tune`.

## Cross-Cutting Concerns
";
    let binary = |name: &str, dir: &str, subs: &[&str]| Binary {
        name: name.to_owned(),
        dir: dir.to_owned(),
        subcommands: subs.iter().map(|s| (*s).to_owned()).collect(),
    };
    let members = ["crates/game".to_owned(), "crates/new".to_owned()];
    let found = architecture_offences(
        doc,
        &members,
        &[
            binary("game", "crates/game", &["watch", "play", "tables build"]),
            binary("web", "crates/new", &["serve"]),
        ],
    );
    assert_eq!(
        found,
        [
            "`crates/new` is a workspace member with no `### `crates/new`` in the code map",
            "the code map has `### `crates/gone`` for no workspace member",
            "`game play` is a subcommand the code map does not list",
            "the code map lists `game train`, which is no subcommand",
            "web's subcommands (serve) are not listed under `### `crates/new``: write \
             `Subcommands of `web`: `serve``",
            "the code map lists subcommands of `lab`, which is no binary",
        ]
    );
    // The document as it stands passes the same rule with its own crates.
    let fine = architecture_offences(
        doc,
        &["crates/game".to_owned(), "crates/gone".to_owned()],
        &[binary("game", "crates/game", &["watch", "tables build", "train"])],
    );
    assert_eq!(fine, ["the code map lists subcommands of `lab`, which is no binary"]);
}
