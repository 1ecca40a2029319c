//! Running the programs and comparing with golden files: the helpers of
//! the game's tests and of the lab's (`crates/lab/tests/tests.rs` takes
//! this file by path), each running its own package's program, whose path
//! its `tests.rs` names as `PROGRAM`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The program under test (`cli-ascii` in the game's tests, `lab` in the
/// lab's), with a clean environment for colours.
pub(crate) fn program() -> Command {
    let mut cmd = Command::new(crate::PROGRAM);
    cmd.env_remove("NO_COLOR").stdin(Stdio::null());
    // The game's default player follows the tables in the cache folder: a
    // folder of no tables keeps the tests' player the same on every
    // machine (a test of tables names its own folder with --tables).
    cmd.env("XDG_CACHE_HOME", no_cache());
    cmd
}

/// A cache folder that holds no tables (nothing builds into it: every
/// test that builds tables names its own folder).
pub(crate) fn no_cache() -> PathBuf {
    std::env::temp_dir().join(format!("cli-ascii-tests-no-cache-{}", std::process::id()))
}

/// Runs the program under test ([`program`]) with `args` and, if given,
/// `stdin`.
pub(crate) fn run(args: &[&str], stdin: Option<&str>) -> Output {
    run_with(program(), args, stdin)
}

/// Runs `cmd` with `args` and, if given, `stdin`.
pub(crate) fn run_with(mut cmd: Command, args: &[&str], stdin: Option<&str>) -> Output {
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd.spawn().expect("the binary starts");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        pipe.write_all(text.as_bytes()).expect("stdin takes the input");
    }
    child.wait_with_output().expect("the binary ends")
}

/// Starts the program under test ([`program`]) with `args`, its stdout and
/// stderr piped to the test.
#[track_caller]
pub(crate) fn spawn_piped<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Child {
    spawn_piped_with(program(), args)
}

/// Starts `cmd` with `args`, its stdout and stderr piped to the test.
#[track_caller]
pub(crate) fn spawn_piped_with<S: AsRef<std::ffi::OsStr>>(
    mut cmd: Command,
    args: &[S],
) -> std::process::Child {
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary starts")
}

/// Runs the binary with `args` like [`run`], but kills it and fails the test
/// if it has not ended within `limit`: for work that must be skipped, not
/// merely done.
#[track_caller]
pub(crate) fn run_within(args: &[&str], limit: Duration) -> Output {
    let mut child = spawn_piped(args);
    let started = Instant::now();
    while child.try_wait().expect("the binary can be waited for").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{}` still ran after {limit:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("the binary ends")
}

/// Runs the binary, expecting success and an empty stderr; returns stdout.
#[track_caller]
pub(crate) fn stdout_of(args: &[&str]) -> String {
    let out = run(args, None);
    assert!(
        out.status.success(),
        "`{}` failed ({}): {}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "stderr of `{}`", args.join(" "));
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// Runs the binary, expecting failure with `code` and exactly one stderr
/// line that starts with `error: ` and contains `message`; returns stderr.
#[track_caller]
pub(crate) fn error_of(args: &[&str], stdin: Option<&str>, code: i32, message: &str) -> String {
    let out = run(args, stdin);
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    assert_eq!(out.status.code(), Some(code), "exit code of `{}`: {stderr}", args.join(" "));
    assert!(stderr.starts_with("error: "), "stderr of `{}`: {stderr:?}", args.join(" "));
    assert!(stderr.contains(message), "stderr of `{}`: {stderr:?}", args.join(" "));
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// Compares `actual` with `tests/golden/<name>`, or rewrites the file when
/// `UPDATE_GOLDEN` is set.
#[track_caller]
pub(crate) fn check_golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("the golden file is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("cannot read {} ({e}); run with UPDATE_GOLDEN=1 to create it", path.display())
    });
    if expected == actual {
        return;
    }
    // The first differing line, which is easier to read than two long texts.
    let (line, (want, got)) = expected
        .lines()
        .chain(std::iter::repeat("<end>"))
        .zip(actual.lines().chain(std::iter::repeat("<end>")))
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .unwrap_or((0, ("<same lines>", "<different line endings>")));
    panic!(
        "{} differs at line {}:\n  expected: {want:?}\n  actual:   {got:?}\n\
         (UPDATE_GOLDEN=1 rewrites it; check the diff by eye)",
        path.display(),
        line + 1
    );
}
