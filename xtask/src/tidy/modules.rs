//! No two modules of a crate import each other: the module trees, their imports and the cycles.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::util::project_root;

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
