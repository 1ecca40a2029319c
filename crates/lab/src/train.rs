//! `train`: learn the n-tuple network by self-play, with a progress line,
//! checkpoints every few minutes and on Ctrl-C, and a learning curve.

use std::fs::OpenOptions;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use anyhow::Context;
use ntuple::{Network, Progress, Restarts, TrainConfig, Trainer};

use crate::cli::{ExportArgs, RestartKind, TrainArgs};
use crate::tournament::same_file;

/// glibc's tunable that makes `malloc` ask the kernel to back its large
/// blocks with transparent huge pages.
const HUGE_PAGES_TUNABLE: &str = "glibc.malloc.hugetlb=1";

/// The `GLIBC_TUNABLES` value that adds huge pages to `current`, or `None`
/// when `current` already says something about them (a user's
/// `glibc.malloc.hugetlb=0` turns them off and is kept).
fn with_huge_pages(current: Option<&str>) -> Option<String> {
    match current {
        Some(t) if t.contains("glibc.malloc.hugetlb") => None,
        Some(t) if !t.is_empty() => Some(format!("{t}:{HUGE_PAGES_TUNABLE}")),
        _ => Some(HUGE_PAGES_TUNABLE.to_owned()),
    }
}

/// Starts this very command again in place (the same process and PID, by
/// `exec`) with glibc asked for transparent huge pages, when the kernel
/// gives them only on request (`madvise`, Debian's default). The weights
/// and the TC state (768 MiB a stage) are read at random, so with 4 KiB
/// pages nearly every look-up also misses the TLB, and with huge pages
/// training runs markedly faster (docs/experiments/2026-11-23-training-speed.md).
/// Safe Rust cannot ask for them on an allocation
/// (`madvise` takes a raw pointer), and glibc reads its tunables only when
/// a process starts. Returns when it does not apply, or when the new start
/// fails: training then goes on with small pages.
#[cfg(target_os = "linux")]
fn restart_with_huge_pages() {
    use std::os::unix::process::CommandExt;
    let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
    if !thp.is_ok_and(|mode| mode.contains("[madvise]")) {
        return;
    }
    let current = std::env::var_os("GLIBC_TUNABLES");
    let current = match current.as_deref().map(|t| t.to_str()) {
        Some(None) => return, // not UTF-8: not ours to rewrite
        Some(Some(t)) => Some(t),
        None => None,
    };
    let Some(tunables) = with_huge_pages(current) else { return };
    let Ok(exe) = std::env::current_exe() else { return };
    let err = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("GLIBC_TUNABLES", tunables)
        .exec();
    let _ = writeln!(io::stderr(), "note: training with small pages ({err})");
}

#[cfg(not(target_os = "linux"))]
fn restart_with_huge_pages() {}

pub(crate) fn run(args: &TrainArgs) -> anyhow::Result<()> {
    let checkpoint = args.out.join("checkpoint.bin");
    let curve_path = args.out.join("curve.csv");
    if !args.force {
        check_out(&checkpoint, &curve_path, args.resume.as_deref())?;
    }
    restart_with_huge_pages();
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let config = TrainConfig {
        seed: args.seed,
        threads: usize::try_from(args.threads).unwrap_or(1),
        alpha: args.alpha,
        coherence: !args.no_tc,
        episodes: args.episodes,
        four_probability: 0.1,
        curve_every: args.curve_every,
        lambda: args.lambda,
        restarts: match args.restarts {
            RestartKind::Middle => Restarts::Middle,
            RestartKind::Pools => Restarts::Pools { share: args.restart_share },
            RestartKind::Off => Restarts::Off,
        },
    };
    let stages = args.stages.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let trainer = match &args.resume {
        Some(path) => {
            let cp = ntuple::load_resumable(path)?;
            let had = cp.network.stages();
            let cp = match stages {
                Some(n) => cp.into_stages(n).with_context(|| {
                    format!("cannot train {} with --stages {n}", path.display())
                })?,
                None => cp,
            };
            if cp.network.stages() > had {
                writeln!(
                    io::stderr(),
                    "promoted the network from {had} to {} stages: each new stage starts as \
                     a copy of stage {}",
                    cp.network.stages(),
                    had - 1
                )?;
            }
            cp.into_trainer(config)?
        }
        None => {
            let net = Network::filled_stages(stages.unwrap_or(1), args.initial)?;
            Trainer::new(config, net, Default::default())?
        }
    };
    // Open the curve before the first episode: a bad path fails now, not
    // after hours of training.
    let fresh = !curve_path.exists() || args.resume.is_none();
    let mut curve = OpenOptions::new()
        .create(true)
        .write(true)
        .append(!fresh)
        .truncate(fresh)
        .open(&curve_path)
        .with_context(|| format!("cannot open {}", curve_path.display()))?;
    if fresh {
        writeln!(curve, "{}", records::curve::HEADER)?;
    }

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .context("cannot install the handler of Ctrl-C and SIGTERM")?;
    }
    let deadline = args.minutes.map(|m| Instant::now() + Duration::from_secs_f64(m * 60.0));
    let every = Duration::from_secs_f64(args.checkpoint_minutes * 60.0);
    let tty = io::stderr().is_terminal();
    let mut err = io::stderr().lock();
    writeln!(
        err,
        "training into {} ({} stage{}; checkpoint every {} min; Ctrl-C or SIGTERM stops after \
         a checkpoint)",
        args.out.display(),
        trainer.network().stages(),
        if trainer.network().stages() == 1 { "" } else { "s" },
        args.checkpoint_minutes
    )?;
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let worker_stop = Arc::clone(&stop);
        let trainer = &trainer;
        scope.spawn(move || {
            trainer.run(&worker_stop);
            let _ = done_tx.send(());
        });
        let mut last_checkpoint = Instant::now();
        let mut last_line = Instant::now();
        let (mut last_moves, mut last_time) = (trainer.counters().moves, Instant::now());
        let (run_moves, run_start) = (last_moves, last_time);
        // The scope joins the worker before it returns, so an error here
        // must stop the worker first, or the program would hang; and an
        // error other than the last checkpoint's (a curve or log line that
        // cannot be written) still tries to keep the training done.
        let mut saving = false;
        let result = (|| -> anyhow::Result<()> {
            loop {
                // A worker that panicked drops its sender: finished too, so
                // that the scope's join passes the panic on.
                let finished = !matches!(
                    done_rx.recv_timeout(Duration::from_millis(500)),
                    Err(RecvTimeoutError::Timeout)
                );
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    stop.store(true, Ordering::SeqCst);
                }
                for row in trainer.take_curve_rows() {
                    writeln!(curve, "{}", records::curve::line(&row))?;
                    curve.flush()?;
                }
                let interval =
                    if tty { Duration::from_millis(500) } else { Duration::from_secs(30) };
                if last_line.elapsed() >= interval || finished {
                    let p = trainer.progress();
                    // The last line gives the whole run's rate: its last
                    // interval has threads idle while others end their episode.
                    let rate = if finished {
                        (p.row.moves - run_moves) as f64 / run_start.elapsed().as_secs_f64()
                    } else {
                        (p.row.moves - last_moves) as f64 / last_time.elapsed().as_secs_f64()
                    };
                    (last_moves, last_time) = (p.row.moves, Instant::now());
                    // A terminal's line is redrawn in place, so it must not wrap;
                    // a log file takes the whole line.
                    let cols = if tty {
                        cli_common::fit::terminal_size().0.saturating_sub(1)
                    } else {
                        usize::MAX
                    };
                    let line = progress_line(&p, rate, cols);
                    if tty && !finished {
                        write!(err, "\r\x1b[2K{line}")?;
                    } else if tty {
                        // The whole run's line stays: the last checkpoint's
                        // note, which clears the line it starts on, goes below.
                        writeln!(err, "\r\x1b[2K{line}")?;
                    } else {
                        writeln!(err, "{line}")?;
                    }
                    last_line = Instant::now();
                }
                if finished {
                    saving = true;
                    return save(trainer, &checkpoint, &mut err, tty).with_context(|| {
                        let before = if checkpoint.is_file() {
                            " (the one written before it is whole)"
                        } else {
                            ""
                        };
                        format!("the last checkpoint could not be written{before}")
                    });
                }
                if last_checkpoint.elapsed() >= every {
                    // A full disk must not end hours of training: the file
                    // written before stays whole (files are replaced only once
                    // complete), and the next interval tries again.
                    if let Err(e) = save(trainer, &checkpoint, &mut err, tty) {
                        let note = format!(
                            "checkpoint failed, training goes on and tries again in {} min: {e:#}",
                            args.checkpoint_minutes
                        );
                        note_line(&mut err, tty, &note)?;
                    }
                    last_checkpoint = Instant::now();
                }
            }
        })();
        if result.is_err() {
            stop.store(true, Ordering::SeqCst);
            if !saving {
                let _ = save(trainer, &checkpoint, &mut err, tty);
            }
        }
        result
    })?;
    writeln!(
        err,
        "done: {} episodes; checkpoint {}",
        trainer.counters().episodes,
        checkpoint.display()
    )?;
    Ok(())
}

fn save(trainer: &Trainer, path: &Path, err: &mut impl Write, tty: bool) -> anyhow::Result<()> {
    let start = Instant::now();
    ntuple::save_checkpoint(trainer, path)?;
    let note = format!(
        "checkpoint: {} episodes written to {} in {:.1} s",
        trainer.counters().episodes,
        path.display(),
        start.elapsed().as_secs_f64()
    );
    note_line(err, tty, &note)?;
    Ok(())
}

/// A line of its own: on a terminal it first clears the progress line
/// redrawn in place.
fn note_line(err: &mut impl Write, tty: bool, note: &str) -> io::Result<()> {
    if tty { writeln!(err, "\r\x1b[2K{note}") } else { writeln!(err, "{note}") }
}

/// The progress line, in at most `cols` characters: the full line when it
/// fits, else shorter forms that keep what matters most (the episodes, the
/// late tiles' rates and the time), cut as a last resort.
fn progress_line(p: &Progress, moves_per_second: f64, cols: usize) -> String {
    let secs = p.row.seconds as u64;
    let time = format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    let reach = |from: usize| -> String {
        let rates = records::curve::TILES.iter().zip(&p.row.reach).skip(from);
        let rates: Vec<String> =
            rates.map(|(tile, r)| format!("{tile} {:.1}%", 100.0 * r)).collect();
        rates.join(" ")
    };
    let restarted =
        if p.restarts == 0 { String::new() } else { format!(" ({} restarted)", p.restarts) };
    let rate = moves_per_second / 1e6;
    let forms = [
        format!(
            "{} episodes{restarted} · {rate:.2} M moves/s · mean score {:.0} · {} · {time}",
            p.row.episodes,
            p.row.mean_score,
            reach(0)
        ),
        format!(
            "{} episodes · {rate:.2} M moves/s · mean {:.0} · {} · {time}",
            p.row.episodes,
            p.row.mean_score,
            reach(2)
        ),
        // The rate and the mean score stay in 80 columns: the last line,
        // which stays on the screen, gives the whole run's.
        format!(
            "{} ep · {rate:.2} M moves/s · mean {:.0} · {} · {time}",
            p.row.episodes,
            p.row.mean_score,
            reach(3)
        ),
        format!("{} ep · mean {:.0} · {} · {time}", p.row.episodes, p.row.mean_score, reach(3)),
        format!("{} ep · 16384 {:.1}% · {time}", p.row.episodes, 100.0 * p.row.reach[3]),
    ];
    let fits = forms.iter().find(|f| f.chars().count() <= cols);
    fits.cloned().unwrap_or_else(|| cli_common::fit::cut(&forms[forms.len() - 1], cols))
}

/// Refuses an --out folder that holds another run's training: a new run
/// would write over its checkpoint (and start its curve afresh). Resuming
/// that very checkpoint goes on with it, and is allowed.
fn check_out(checkpoint: &Path, curve: &Path, resume: Option<&Path>) -> anyhow::Result<()> {
    let there = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    // A resumed run appends to the curve; a new one starts it afresh.
    let held = if there(checkpoint) && !resume.is_some_and(|r| same_file(r, checkpoint)) {
        checkpoint
    } else if there(curve) && resume.is_none() {
        curve
    } else {
        return Ok(());
    };
    anyhow::bail!(
        "{} already exists: a new run would write over it; `--resume {}` goes on from its \
         checkpoint, --force starts afresh and writes over it, or give another --out",
        held.display(),
        checkpoint.display()
    )
}

/// `export-weights`: a checkpoint's network as a compact weights file, read
/// back and compared before it is reported written.
pub(crate) fn export(args: &ExportArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    if same_file(&args.checkpoint, &args.out) {
        anyhow::bail!(
            "{} is the checkpoint itself: writing the weights over it would lose what \
             --resume needs; give another OUT",
            args.out.display()
        );
    }
    if !args.force && std::fs::symlink_metadata(&args.out).is_ok() {
        anyhow::bail!("{} already exists: --force writes over it", args.out.display());
    }
    let cp = ntuple::load_checkpoint(&args.checkpoint)?;
    ntuple::save_weights_at(&cp.network, cp.counters.episodes, args.step, &args.out)?;
    let back = ntuple::load_weights(&args.out)?;
    // Half a quantisation step, plus the rounding of `w * scale` in f32.
    let off = |a: f32, b: f32| (a - b).abs() - a.abs() * f32::EPSILON;
    let worst = cp.network.weights().zip(back.network.weights()).map(|(a, b)| off(a, b));
    let worst = worst.fold(0f32, f32::max);
    anyhow::ensure!(
        worst <= 0.5 * back.step.in_points(),
        "the written file reads back {worst} away from the checkpoint"
    );
    let size = std::fs::metadata(&args.out)?.len();
    let mut err = io::stderr().lock();
    writeln!(
        err,
        "wrote {} ({:.1} MB, {} episodes) in {:.1} s; read back, every weight is within {:.2} \
         points of the checkpoint's (the file keeps multiples of {} points)",
        args.out.display(),
        size as f64 / 1e6,
        back.episodes,
        start.elapsed().as_secs_f64(),
        worst.max(0.0),
        back.step
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_fits_the_terminal() {
        let p = Progress {
            row: records::curve::CurveRow {
                episodes: 1_234_567,
                moves: 0,
                seconds: 3725.0,
                mean_score: 174_505.4,
                reach: [0.999, 0.98, 0.8, 0.412, 0.031],
            },
            restarts: 12_345,
        };
        let full = progress_line(&p, 1.49e6, usize::MAX);
        assert_eq!(
            full,
            "1234567 episodes (12345 restarted) · 1.49 M moves/s · mean score 174505 · 2048 \
             99.9% 4096 98.0% 8192 80.0% 16384 41.2% 32768 3.1% · 1:02:05"
        );
        for cols in [120, 100, 80, 60, 40, 30, 20, 5] {
            let line = progress_line(&p, 1.49e6, cols);
            assert!(line.chars().count() <= cols, "{cols}: {line}");
            if cols >= 40 {
                assert!(line.contains("16384 41.2%") && line.ends_with("1:02:05"), "{line}");
            }
        }
        assert!(progress_line(&p, 1.49e6, 100).contains("M moves/s"));
        // An 80-column terminal keeps the rate and the mean score, the
        // figures a user watches a training run for.
        assert_eq!(
            progress_line(&p, 1.49e6, 79),
            "1234567 ep · 1.49 M moves/s · mean 174505 · 16384 41.2% 32768 3.1% · 1:02:05"
        );
    }

    #[test]
    fn huge_pages_join_the_tunables_a_user_set_unless_they_say_otherwise() {
        assert_eq!(with_huge_pages(None).as_deref(), Some("glibc.malloc.hugetlb=1"));
        assert_eq!(with_huge_pages(Some("")).as_deref(), Some("glibc.malloc.hugetlb=1"));
        assert_eq!(
            with_huge_pages(Some("glibc.malloc.arena_max=2")).as_deref(),
            Some("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")
        );
        assert_eq!(with_huge_pages(Some("glibc.malloc.hugetlb=0")), None);
        assert_eq!(with_huge_pages(Some("glibc.malloc.hugetlb=1")), None);
    }
}
