//! The lab's commands moved from `cli-ascii` to `lab`, a program of its
//! own package: an old command line (`cli-ascii tournament ...`) still runs
//! the `lab` beside the game for a release, with a note on stderr, and
//! without one there says how to build it. The lab is not built with the
//! game's tests, so a stand-in takes its place: the game's part is to run
//! it with the same arguments and to end as it ends.

use std::path::PathBuf;
use std::process::Command;

/// A folder of the test's own holding a copy of the game, removed when the
/// test ends.
struct Beside(PathBuf);

impl Beside {
    fn new(name: &str) -> Beside {
        let dir = std::env::temp_dir().join(format!("cli-ascii-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(crate::PROGRAM, dir.join(Self::named("cli-ascii"))).unwrap();
        Beside(dir)
    }

    fn named(program: &str) -> String {
        format!("{program}{}", std::env::consts::EXE_SUFFIX)
    }

    /// The copy of the game.
    fn game(&self) -> Command {
        Command::new(self.0.join(Self::named("cli-ascii")))
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The old command line runs the lab beside the game with its arguments,
/// after a note, and ends with the lab's exit code and output; a help
/// asked the old way is the lab's.
#[cfg(unix)]
#[test]
fn the_old_command_line_runs_the_lab() {
    use std::os::unix::fs::PermissionsExt;
    let beside = Beside::new("forward");
    // The stand-in prints its arguments one a line, a line on stderr, and
    // ends with a code of its own.
    let lab = beside.0.join("lab");
    let script = "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\necho 'the lab' >&2\nexit 3\n";
    std::fs::write(&lab, script).unwrap();
    std::fs::set_permissions(&lab, std::fs::Permissions::from_mode(0o755)).unwrap();
    let args = ["tournament", "--preset", "fast", "--games", "3", "--csv", "a b.csv"];
    let out = beside.game().args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{}\n", args.join("\n")));
    assert_eq!(
        stderr,
        "note: `tournament` moved to the lab program: `lab tournament ...` (`cargo run -p lab \
         -- tournament ...`); this old form runs it for one more release\nthe lab\n"
    );
    let help = beside.game().args(["help", "tournament"]).output().unwrap();
    assert_eq!(help.status.code(), Some(3));
    assert_eq!(String::from_utf8_lossy(&help.stdout), "help\ntournament\n");
}

/// Without `lab` beside it, the old command line says how to build it.
#[test]
fn the_old_command_line_without_the_lab_says_how_to_build_it() {
    let beside = Beside::new("no-lab");
    let out = beside.game().args(["tournament", "--games", "1"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: `tournament` moved to the lab program"), "{stderr}");
    assert!(stderr.contains("cargo build -p lab"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(out.stdout.is_empty());
}
