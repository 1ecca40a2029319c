//! The terminal screens of `play`, `watch` and `train`, driven in tmux at
//! 80x24 and 40x12 as a person would: keys sent, the screen read back.
//! Unit tests check the lines a screen is made of; only a real terminal
//! shows what a person sees (what fits, what the keys really do).

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A tmux server of this test's own, running the program in one pane of
/// `cols` x `rows`, with its data folder (the best scores) in a scratch
/// folder. A shell stays in the pane after the program ends, so that what
/// it left on the screen can be read (tmux 3.3 loses the lines written
/// after leaving the alternate screen from a dead pane). Killed when
/// dropped.
struct Tmux {
    /// The scratch folder, which holds the server's socket too.
    dir: PathBuf,
}

impl Tmux {
    #[track_caller]
    fn start(name: &str, (cols, rows): (u16, u16), args: &[&str]) -> Tmux {
        let dir = std::env::temp_dir().join(format!("cli-ascii-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("tmux.conf");
        std::fs::write(&config, "set -g status off\n").unwrap();
        let tmux = Tmux { dir };
        let (cols, rows) = (cols.to_string(), rows.to_string());
        let bin = env!("CARGO_BIN_EXE_cli-ascii");
        let data = format!("XDG_DATA_HOME={}", tmux.dir.display());
        // No tables in the cache folder: the default player is the same on
        // every machine.
        let cache = format!("XDG_CACHE_HOME={}", tmux.dir.join("cache").display());
        let dir = tmux.dir.to_str().unwrap();
        let mut start = vec!["-f", config.to_str().unwrap(), "new-session", "-d"];
        start.extend(["-x", &cols, "-y", &rows, "-c", dir, "--", "env", "-u", "NO_COLOR", &data]);
        start.push(&cache);
        start.extend(["sh", "-c", "\"$0\" \"$@\"; echo \"[exit $?]\"; exec sleep 600", bin]);
        start.extend(args);
        let out = tmux.run(&start);
        assert!(out.status.success(), "tmux: {}", String::from_utf8_lossy(&out.stderr));
        tmux
    }

    /// Runs tmux on this test's server.
    #[track_caller]
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(self.dir.join("socket"))
            .args(args)
            .output()
            .expect("these tests drive the program in tmux: install tmux to run them")
    }

    /// Sends keys, as tmux names them (`q`, `Left`, `Escape`, `?`).
    #[track_caller]
    fn keys(&self, keys: &[&str]) {
        for key in keys {
            assert!(self.run(&["send-keys", key]).status.success(), "{key}");
            // One key a frame, as a person types.
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    /// The screen, each line without its trailing spaces; a line the
    /// terminal wrapped is one line here.
    fn screen(&self) -> Vec<String> {
        let out = self.run(&["capture-pane", "-p", "-J"]);
        String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim_end().to_owned()).collect()
    }

    /// The screen once some line contains `text` (within a minute).
    #[track_caller]
    fn wait_for(&self, text: &str) -> Vec<String> {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.iter().any(|l| l.contains(text)) {
                return screen;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "no {text:?} in {screen:#?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Whether the program has ended.
    fn ended(&self) -> bool {
        self.screen().iter().any(|l| l.starts_with("[exit "))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[track_caller]
fn assert_fits(screen: &[String], cols: usize) {
    for line in screen {
        assert!(line.chars().count() <= cols, "wider than {cols}: {line:?} in {screen:#?}");
    }
}

/// At 40x12 the key line keeps `? help` and `q quit` and the help screen
/// holds every key; q and Esc on the help screen go back to the game, as
/// it says any key does; q during a game asks first; undo keeps the best.
#[test]
fn play_at_40x12() {
    let tmux = Tmux::start("play", (40, 12), &["play", "--seed", "3", "--preset", "fast"]);
    let screen = tmux.wait_for("you play");
    assert_fits(&screen, 40);
    assert!(screen.iter().any(|l| l.ends_with("? help · q quit")), "{screen:#?}");
    for leave in ["q", "Escape"] {
        tmux.keys(&["?"]);
        let help = tmux.wait_for("Any key returns to the game.");
        assert_fits(&help, 40);
        for key in ["arrows/wasd move", "h hint", "u undo", "n new", "? help", "q quit"] {
            assert!(help.iter().any(|l| l.contains(key)), "{key}: {help:#?}");
        }
        tmux.keys(&[leave]);
        tmux.wait_for("you play");
        assert!(!tmux.ended(), "{leave} on the help screen quit the game");
    }
    // Seed 3 opens with two 2s in a row: left merges them.
    tmux.keys(&["Left"]);
    tmux.wait_for("best 4");
    tmux.keys(&["u"]);
    let screen = tmux.wait_for("score 0");
    assert!(screen.iter().any(|l| l.contains("best 4")), "best went down: {screen:#?}");
    // A hint rates the moves; h again shows the search's raw values.
    tmux.keys(&["h"]);
    let screen = tmux.wait_for("hint: ");
    let hint = screen.iter().find(|l| l.starts_with("hint: ")).unwrap();
    assert!(hint.ends_with(" worse") || hint.ends_with(" as good"), "{hint}");
    tmux.keys(&["h"]);
    let screen = tmux.wait_for(" · values");
    assert!(!screen.iter().any(|l| l.contains("thinking")), "no search: {screen:#?}");
    tmux.keys(&["Left", "q"]);
    tmux.wait_for("q again quits");
    assert!(!tmux.ended(), "one q quit a game under way");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("seed 3: score 4");
    assert!(tmux.ended(), "{screen:#?}");
}

/// The status lines tell the game's pace from the search's speed, and the
/// summary left on the screen fits 80 columns.
#[test]
fn watch_labels_its_speeds_and_fits_its_summary() {
    // Wide enough for the search's speed beside the game's pace.
    let args = ["watch", "--preset", "fast", "--seed", "5", "--max-moves", "30", "--delay-ms", "0"];
    let tmux = Tmux::start("watch-wide", (120, 30), &args);
    let screen = tmux.wait_for("move limit reached");
    let fields: Vec<&str> = screen.iter().flat_map(|l| l.split("   ")).collect();
    let speeds: Vec<&&str> = fields.iter().filter(|field| field.ends_with("/s")).collect();
    assert_eq!(speeds.len(), 2, "{screen:#?}");
    // "moves/s" says one thing on the screen: the game's pace.
    assert!(speeds[0].starts_with("played ") && speeds[0].ends_with(" moves/s"), "{speeds:?}");
    assert!(speeds[1].starts_with("searched ") && speeds[1].ends_with(" boards/s"), "{speeds:?}");
    drop(tmux);
    // The pace is a delay, and + (faster) shortens it.
    let args = ["watch", "--preset", "fast", "--seed", "5", "--delay-ms", "40"];
    let tmux = Tmux::start("watch-pace", (80, 24), &args);
    tmux.wait_for("q quit · n next game · space pause · + faster · - slower · delay 40 ms");
    tmux.keys(&["+"]);
    tmux.wait_for("· delay 20 ms");
    drop(tmux);
    // A nine-digit seed and the default player's name.
    let args = ["watch", "--seed", "987654321", "--max-moves", "30", "--delay-ms", "0"];
    let tmux = Tmux::start("watch", (80, 24), &args);
    let screen = tmux.wait_for("move limit reached");
    assert_fits(&screen, 80);
    tmux.keys(&["x"]);
    let screen = tmux.wait_for("[exit 0]");
    assert_fits(&screen, 80);
    assert!(screen.iter().any(|l| l.starts_with("seed 987654321: score ")), "{screen:#?}");
    assert!(screen.iter().any(|l| l.contains("expectimax, preset ntuple-deep")), "{screen:#?}");
}

/// The whole run's line (its rate and mean score) stays on the screen
/// when the last checkpoint is written.
#[test]
fn train_keeps_its_last_line() {
    let tmux = Tmux::start("train", (80, 24), &["train", "--threads", "1", "--episodes", "20"]);
    let screen = tmux.wait_for("done: 20 episodes");
    let last = screen.iter().position(|l| l.starts_with("checkpoint: 20 episodes")).unwrap();
    let run = &screen[last - 1];
    assert!(run.starts_with("20 ep") && run.contains(" M moves/s · mean "), "{screen:#?}");
    assert!(run.chars().count() <= 80, "{run}");
}

/// A new user's way to the strongest player: `watch` offers the corner
/// tables in one line, `t` builds them while the game goes on (with a
/// progress line), and the next game (`n`) plays the corner player; a
/// later run plays it from the start and says why. Real tables, the
/// smallest corner set, in a folder of the test's own.
#[test]
fn one_key_builds_the_corner_tables_and_the_next_game_plays_corner() {
    let tables = std::env::temp_dir().join(format!("cli-ascii-tables-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tables);
    let small = ["--tables", tables.to_str().unwrap(), "--tables-max-states", "2000000"];
    let args = [&["watch", "--seed", "5", "--delay-ms", "20"][..], &small].concat();
    let tmux = Tmux::start("one-key", (120, 30), &args);
    let screen = tmux.wait_for("t: build the corner tables for the strongest player (");
    assert!(screen.iter().any(|l| l.contains("preset ntuple-deep")), "{screen:#?}");
    assert!(screen.iter().any(|l| l.ends_with(" · ntuple-deep plays until then")), "{screen:#?}");
    tmux.keys(&["t"]);
    tmux.wait_for("the corner tables are built: n plays the next game with corner");
    tmux.keys(&["n"]);
    let screen = tmux.wait_for("preset corner");
    assert!(screen.iter().any(|l| l == "corner: its tables are built"), "{screen:#?}");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("[exit 0]");
    let first = screen.iter().position(|l| l.starts_with("seed 5: score ")).expect("game 1");
    assert!(screen[first].ends_with("(expectimax, preset ntuple-deep)"), "{screen:#?}");
    assert!(screen[first + 1].starts_with("seed 6: score "), "{screen:#?}");
    assert!(screen[first + 1].ends_with("(expectimax, preset corner)"), "{screen:#?}");
    drop(tmux);
    // The tables there, the default player is the corner player at once.
    let args =
        [&["watch", "--seed", "9", "--max-moves", "20", "--delay-ms", "0"][..], &small].concat();
    let tmux = Tmux::start("corner-default", (120, 30), &args);
    let screen = tmux.wait_for("move limit reached");
    assert!(screen.iter().any(|l| l.contains("preset corner")), "{screen:#?}");
    assert!(screen.iter().any(|l| l == "corner: its tables are built"), "{screen:#?}");
    drop(tmux);
    std::fs::remove_dir_all(&tables).unwrap();
}
