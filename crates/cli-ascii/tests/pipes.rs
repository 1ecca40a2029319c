//! A reader that stops reading (`| head`) ends the program quietly.

use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;

use crate::util::program;

/// Spawns a long transcript, reads a few lines, closes the pipe: the
/// program must exit with 0 and say nothing.
#[test]
fn closed_stdout_is_success() {
    let mut child = program()
        .args(["watch", "--transcript", "--player", "random", "--size", "8", "--seed", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut reader = BufReader::new(stdout);
    let mut first = String::new();
    for _ in 0..5 {
        reader.read_line(&mut first).expect("a line");
    }
    assert!(first.starts_with("Setup\n=====\n"));
    drop(reader);
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "exit status {status}, stderr {stderr:?}");
    assert_eq!(stderr, "");
}

/// The same for `analyze` answering many boards.
#[test]
fn closed_stdout_during_analyze_is_success() {
    let mut child = program()
        .args(["analyze", "--depth", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        for _ in 0..20_000 {
            if stdin.write_all(b"2 0 0 2/0 4 0 0/0 0 0 0/0 0 0 2\n").is_err() {
                break;
            }
        }
    });
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert_eq!(line, "+--------+--------+--------+--------+\n");
    drop(reader);
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    assert!(status.success(), "exit status {status}, stderr {stderr:?}");
    assert_eq!(stderr, "");
}
