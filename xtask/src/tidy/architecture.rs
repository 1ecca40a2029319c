//! docs/ARCHITECTURE.md holds to the code: its code map, its subcommands and its drawing.

use std::fs;
use std::path::Path;

use super::graph::LIBRARIES;
use super::*;
use crate::util::project_root;

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
