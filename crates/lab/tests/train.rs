//! The trainer from the command line: a short run, and a run stopped by a
//! signal, each leaving a checkpoint that resumes.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::util::{error_of, run, spawn_piped};

/// A scratch directory removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("cli-ascii-train-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }

    fn arg(&self) -> &str {
        self.0.to_str().expect("the temporary path is UTF-8")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_short_run_writes_a_checkpoint_that_resumes() {
    let out = Scratch::new("short");
    let first = run(&["train", "--out", out.arg(), "--threads", "1", "--episodes", "5"], None);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert!(stderr.contains("done: 5 episodes"), "{stderr}");
    let checkpoint = out.0.join("checkpoint.bin");
    let resume = checkpoint.to_str().expect("UTF-8");
    let second = run(
        &["train", "--out", out.arg(), "--threads", "1", "--episodes", "8", "--resume", resume],
        None,
    );
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "{stderr}");
    assert!(stderr.contains("done: 8 episodes"), "{stderr}");

    // The checkpoint exports as a weights file, at another step than the
    // shipped one if asked; a step no build reads is a usage error.
    let weights = out.0.join("w.n2048");
    let weights = weights.to_str().expect("UTF-8");
    let export = run(&["export-weights", resume, weights, "--step", "16"], None);
    let stderr = String::from_utf8_lossy(&export.stderr);
    assert!(export.status.success(), "{stderr}");
    assert!(stderr.contains("8 episodes") && stderr.contains("multiples of 16 points"), "{stderr}");
    let bad = run(&["export-weights", resume, weights, "--step", "3"], None);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("power of two"), "{stderr}");

    // Nothing written over without a word: a new run in the same folder
    // (README's command run twice), the weights over the checkpoint, or
    // over a file already there.
    let stamp = |p: &str| {
        let meta = std::fs::metadata(p).expect("the file is there");
        (meta.len(), meta.modified().expect("a modification time"))
    };
    let (kept, kept_weights) = (stamp(resume), stamp(weights));
    let again = ["train", "--out", out.arg(), "--threads", "1", "--episodes", "5"];
    let err = error_of(&again, None, 1, "checkpoint.bin already exists");
    assert!(err.contains("--resume") && err.contains("--force"), "{err}");
    error_of(&["export-weights", resume, resume], None, 1, "is the checkpoint itself");
    error_of(&["export-weights", resume, weights], None, 1, "already exists: --force");
    assert_eq!((stamp(resume), stamp(weights)), (kept, kept_weights));
    let forced = run(&["export-weights", resume, weights, "--force"], None);
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
}

/// `kill PID` (SIGTERM) of a background run stops it the way Ctrl-C does:
/// after a checkpoint, with success. Before, SIGTERM killed the process and
/// lost everything since the last periodic checkpoint.
#[test]
fn sigterm_stops_training_after_a_checkpoint() {
    let out = Scratch::new("sigterm");
    let mut child = spawn_piped(&["train", "--out", out.arg(), "--threads", "1"]);
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut first = String::new();
    stderr.read_line(&mut first).expect("the trainer writes its first line");
    assert!(first.starts_with("training into"), "{first}");
    let killed =
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(killed.success());
    let status = child.wait().expect("the trainer ends");
    let mut rest = String::new();
    for line in stderr.lines() {
        rest.push_str(&line.expect("stderr is UTF-8"));
        rest.push('\n');
    }
    assert!(status.success(), "{status}: {rest}");
    assert!(rest.contains("checkpoint:") && rest.contains("done:"), "{rest}");
    assert!(out.0.join("checkpoint.bin").is_file(), "{rest}");
}

/// A checkpoint that cannot be written (here a folder holds its temporary
/// file's name, as a full disk would fail it a step later) does not end
/// training: the trainer says so and tries again at the next interval. The
/// last one, at SIGTERM, is an error and a non-zero exit, not a hang (a
/// watchdog kills the trainer after a minute, which fails the test).
#[test]
fn a_failed_checkpoint_is_reported_and_training_goes_on() {
    let out = Scratch::new("blocked");
    std::fs::create_dir_all(out.0.join("checkpoint.bin.tmp")).expect("a scratch folder");
    let mut child = spawn_piped(&[
        "train",
        "--out",
        out.arg(),
        "--threads",
        "1",
        "--no-tc",
        "--checkpoint-minutes",
        "0.001",
    ]);
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (done, pid) = (Arc::clone(&done), child.id().to_string());
        std::thread::spawn(move || {
            let start = Instant::now();
            while !done.load(Ordering::SeqCst) {
                if start.elapsed() > Duration::from_secs(60) {
                    let _ = Command::new("kill").args(["-KILL", &pid]).status();
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut lines = stderr.lines().map(|line| line.expect("stderr is UTF-8"));
    let mut seen = String::new();
    let failures = lines
        .by_ref()
        .inspect(|line| {
            seen.push_str(line);
            seen.push('\n');
        })
        .filter(|line| line.starts_with("checkpoint failed, training goes on"))
        .take(2)
        .count();
    let killed =
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(killed.success());
    let rest: Vec<String> = lines.collect();
    let status = child.wait().expect("the trainer ends");
    done.store(true, Ordering::SeqCst);
    watchdog.join().expect("the watchdog ends");
    assert_eq!(failures, 2, "{seen}");
    assert!(!status.success(), "{seen}{rest:?}");
    let last = rest.last().map_or("", String::as_str);
    assert!(last.starts_with("error: the last checkpoint could not be written"), "{rest:?}");
    assert!(!out.0.join("checkpoint.bin").exists());
}

/// `--stages 2` promotes a resumed 1-stage checkpoint (and says so), and a
/// 2-stage network cannot go back to 1 (a clear error, not a silent loss of
/// its stage-1 weights); `--stages 3` promotes it again, and there is no
/// fourth. Without TC state to keep the checkpoints small.
#[test]
fn stages_promote_a_resumed_network_and_never_go_back() {
    let out = Scratch::new("stages");
    let checkpoint = out.0.join("checkpoint.bin");
    let resume = checkpoint.to_str().expect("UTF-8");
    let base = ["train", "--out", out.arg(), "--threads", "1", "--no-tc", "--episodes"];
    // Trains to `episodes` in all with `extra` options: success and stderr.
    let train = |episodes: &str, extra: &[&str]| {
        let output = run(&[&base[..], &[episodes], extra].concat(), None);
        (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let (ok, stderr) = train("2", &[]);
    assert!(ok && stderr.contains("(1 stage;"), "{stderr}");
    let (ok, stderr) = train("3", &["--resume", resume, "--stages", "2"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("promoted the network from 1 to 2 stages"), "{stderr}");
    assert!(stderr.contains("(2 stages;") && stderr.contains("done: 3 episodes"), "{stderr}");
    let (ok, stderr) = train("4", &["--resume", resume, "--stages", "1"]);
    assert!(!ok);
    assert!(stderr.contains("has 2 stages and cannot go back to 1"), "{stderr}");
    // Without --stages the network keeps its own two.
    let (ok, stderr) = train("4", &["--resume", resume]);
    assert!(ok && stderr.contains("(2 stages;"), "{stderr}");
    // A third stage, and no fourth.
    let (ok, stderr) = train("5", &["--resume", resume, "--stages", "3"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("promoted the network from 2 to 3 stages"), "{stderr}");
    assert!(stderr.contains("(3 stages;") && stderr.contains("done: 5 episodes"), "{stderr}");
    let (ok, stderr) = train("6", &["--resume", resume, "--stages", "4"]);
    assert!(!ok && stderr.contains("--stages"), "{stderr}");
}
