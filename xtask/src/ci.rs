//! `cargo xtask ci`: the checks CI runs, in order, stopping at the first
//! failure. `.ci/run` and the README's test command call this task, so the
//! list here is the one definition of "CI is green".

use std::time::{Duration, Instant};

use crate::util::{Result, cargo, format_duration, render};

/// One step: a cargo invocation and the environment it needs.
struct Step {
    name: &'static str,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
}

/// Cheap checks first, so a formatting slip fails in a second rather than
/// after the whole test suite.
const STEPS: &[Step] = &[
    Step { name: "format", args: &["fmt", "--all", "--check"], env: &[] },
    Step {
        name: "clippy",
        args: &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
        env: &[],
    },
    Step { name: "test", args: &["test", "--workspace"], env: &[] },
    Step {
        name: "doc",
        args: &["doc", "--workspace", "--no-deps"],
        env: &[("RUSTDOCFLAGS", "-D warnings")],
    },
];

pub(crate) fn run(args: &[String]) -> Result<()> {
    if let Some(arg) = args.first() {
        return Err(format!("`ci` takes no arguments, got `{arg}`").into());
    }
    let n_steps = STEPS.len();
    let total = Instant::now();
    let mut timings: Vec<(&str, Duration)> = Vec::new();
    for (step_idx, step) in STEPS.iter().enumerate() {
        let label = format!("[{}/{n_steps}] {}", step_idx + 1, step.name);
        let mut cmd = cargo();
        cmd.args(step.args).envs(step.env.iter().copied());
        let shown = render(&cmd);
        println!("\n==> {label}: {shown}");
        let start = Instant::now();
        let status = cmd.status().map_err(|err| format!("cannot start `{shown}`: {err}"))?;
        let took = start.elapsed();
        if !status.success() {
            println!("<== {label} FAILED after {}", format_duration(took));
            return Err(format!("ci stopped: step {label} failed: `{shown}` ({status})").into());
        }
        println!("<== {label} ok in {}", format_duration(took));
        timings.push((step.name, took));
    }
    println!("\nci: all {n_steps} steps passed in {}", format_duration(total.elapsed()));
    for (name, took) in timings {
        println!("  {name:<8} {}", format_duration(took));
    }
    Ok(())
}
