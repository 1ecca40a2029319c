//! `lab tables build` cannot hurt the folder: a build killed midway leaves
//! no table taken for whole and is built again, and two programs building
//! the same tables do not both build them; a build says what it built.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::Child;

use engine::endgame::{Formation, TableStatus, table_status};
use engine::{Preset, formations_for};

use crate::util::{run, spawn_piped};

/// The largest corner step and block of at most this many states: a step
/// of 24 million and a block of 27.6 million states, which take seconds
/// to build, long enough to be caught midway.
const MAX_STATES: &str = "30000000";

/// A folder of the test's own, empty.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cli-tables-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The build's command line for `dir`.
fn build_args(dir: &Path) -> Vec<String> {
    let args = ["tables", "build", "--preset", "corner", "--tables-max-states", MAX_STATES];
    let mut args: Vec<String> = args.map(str::to_owned).to_vec();
    args.extend(["--tables".to_owned(), dir.display().to_string()]);
    args
}

/// The tables the build makes.
fn formations() -> Vec<Formation> {
    formations_for(Preset::Corner, Some(MAX_STATES.parse().unwrap()))
}

/// Reads `child`'s stderr until a line that starts with `start`: the
/// lines so far, that one included.
#[track_caller]
fn read_until(
    child: &mut Child,
    start: &str,
) -> (Vec<String>, BufReader<std::process::ChildStderr>) {
    let mut err = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        let n = err.read_line(&mut line).expect("stderr reads");
        assert!(n > 0, "the build ended before {start:?}: {lines:#?}");
        let line = line.trim_end().to_owned();
        let found = line.starts_with(start);
        lines.push(line);
        if found {
            return (lines, err);
        }
    }
}

/// The temporary files in `dir`.
fn parts(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".part"))
        .collect()
}

#[test]
fn a_killed_build_leaves_the_folder_usable_and_is_built_again() {
    let dir = scratch("killed");
    let mut child = spawn_piped(&build_args(&dir));
    // The build has taken the folder's lock, checked the disk and started.
    let (lines, _err) = read_until(&mut child, "building 2 endgame tables: ");
    child.kill().expect("killed");
    child.wait().expect("ended");
    // The kill came before the first table was whole: no table is there,
    // and none is taken for whole.
    assert!(!lines.iter().any(|l| l.starts_with("built the table")), "{lines:#?}");
    for f in formations() {
        let status = table_status(&dir, f);
        assert!(matches!(status, TableStatus::Missing), "{f}: {status:?}");
    }
    // The next build builds them all, and removes what the killed one left.
    let out = run(&build_args(&dir).iter().map(String::as_str).collect::<Vec<_>>(), None);
    let log = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{log}");
    assert_eq!(log.matches("built the table of the").count(), 2, "{log}");
    for f in formations() {
        assert!(matches!(table_status(&dir, f), TableStatus::Checked), "{f}");
    }
    assert_eq!(parts(&dir), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_build_of_the_same_tables_waits_for_the_first() {
    let dir = scratch("twice");
    let mut first = spawn_piped(&build_args(&dir));
    let (_, mut first_err) = read_until(&mut first, "building 2 endgame tables: ");
    // The first holds the lock while it builds: the second says who
    // builds, waits, and opens what the first built.
    let second = spawn_piped(&build_args(&dir)).wait_with_output().expect("the second ends");
    let log = String::from_utf8(second.stderr).unwrap();
    assert!(second.status.success(), "{log}");
    let waiting = format!("waiting for lab (process {}), which is building", first.id());
    assert!(log.starts_with(&waiting), "{log}");
    assert!(!log.contains("built the table"), "{log}");
    let mut rest = String::new();
    first_err.read_to_string(&mut rest).unwrap();
    assert!(first.wait().expect("the first ends").success(), "{rest}");
    assert_eq!(rest.matches("built the table of the").count(), 2, "{rest}");
    for f in formations() {
        assert!(matches!(table_status(&dir, f), TableStatus::Checked), "{f}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A build says what it builds, table by table, and what it built (the
/// game's tests play by these tables).
#[test]
fn a_small_build_says_what_it_built() {
    let dir = std::env::temp_dir().join(format!("cli-tables-small-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_arg = dir.to_str().unwrap();
    let small = ["--tables", dir_arg, "--tables-max-states", "1000000"];
    let out = run(&[&["tables", "build"][..], &small].concat(), None);
    assert!(out.status.success());
    let log = String::from_utf8(out.stderr).unwrap();
    assert_eq!(log.lines().count(), 28, "{log}");
    assert!(log.starts_with("building 27 endgame tables: "), "{log}");
    assert!(
        log.lines()
            .nth(1)
            .unwrap()
            .starts_with("built the table of the chain of 5 ending in 4 (177147 states) into "),
        "{log}"
    );
    let built = String::from_utf8(out.stdout).unwrap();
    assert!(built.starts_with("27 endgame tables, 0.00 GB, in "), "{built}");
    std::fs::remove_dir_all(&dir).unwrap();
}
