//! `cargo xtask ci`: the checks CI runs, in order, stopping at the first
//! failure. `.ci/run` and the README's test command call this task, so the
//! list here is the one definition of "CI is green". `--quick` and
//! `--no-rl` are a developer's shorter runs; CI refuses them.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{Result, cargo, format_duration, project_root, render, target_dir};

/// `cargo xtask ci`'s options: shortcuts for a developer's machine, refused
/// where `CI=true`, so that CI always runs every step.
#[derive(Debug, clap::Args)]
pub(crate) struct CiArgs {
    /// The quick check: fmt, clippy and the Rust tests only (no docs, no
    /// Python package and its virtual environment, no browser test).
    #[arg(long, conflicts_with = "no_rl")]
    pub(crate) quick: bool,
    /// Every step, but the Python package's without its RL extras
    /// (stable-baselines3, sb3-contrib and torch, about 4 GB): their tests
    /// are skipped with a notice.
    #[arg(long)]
    pub(crate) no_rl: bool,
}

/// The steps `--quick` runs: the cargo steps but the docs.
const QUICK: &[&str] = &["format", "clippy", "test"];

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

/// An error when a developer's shortcut is asked for in CI (`ci` is
/// whether `CI=true`).
fn check_shortcuts(args: &CiArgs, ci: bool) -> Result<()> {
    if ci && (args.quick || args.no_rl) {
        let flag = if args.quick { "--quick" } else { "--no-rl" };
        return Err(format!(
            "{flag} is for a developer's machine: with CI=true, `cargo xtask ci` runs every step"
        )
        .into());
    }
    Ok(())
}

pub(crate) fn run(args: &CiArgs) -> Result<()> {
    check_shortcuts(args, env::var("CI").is_ok_and(|v| v == "true"))?;
    let steps: Vec<&Step> =
        STEPS.iter().filter(|step| !args.quick || QUICK.contains(&step.name)).collect();
    if args.quick {
        return run_quick(&steps);
    }
    // The cargo steps, then the Python package, then the browser test.
    let n_steps = steps.len() + 2;
    let total = Instant::now();
    // The Python dependencies (torch among them: minutes of download) are
    // fetched while the Rust steps compile; the python step waits for them.
    let mut deps = PythonDeps::start(args.no_rl)?;
    let mut timings: Vec<(&str, Duration)> = Vec::new();
    for (step_idx, step) in steps.iter().enumerate() {
        let label = format!("[{}/{n_steps}] {}", step_idx + 1, step.name);
        timings.push((step.name, cargo_step(step, &label)?));
    }
    let label = format!("[{}/{n_steps}] python", steps.len() + 1);
    let start = Instant::now();
    deps.wait(&label)?;
    python_test(&label, args.no_rl)?;
    let took = start.elapsed();
    println!("<== {label} ok in {}", format_duration(took));
    timings.push(("python", took));
    let label = format!("[{n_steps}/{n_steps}] browser");
    let start = Instant::now();
    let ran = browser_test(&label)?;
    let took = start.elapsed();
    println!("<== {label} {} in {}", if ran { "ok" } else { "skipped" }, format_duration(took));
    timings.push(("browser", took));
    let rl = if args.no_rl { " (the Python step without its RL extras)" } else { "" };
    println!("\nci: all {n_steps} steps passed{rl} in {}", format_duration(total.elapsed()));
    for (name, took) in timings {
        println!("  {name:<8} {}", format_duration(took));
    }
    Ok(())
}

/// `cargo xtask ci --quick`: the cargo steps of [`QUICK`], nothing else.
fn run_quick(steps: &[&Step]) -> Result<()> {
    let total = Instant::now();
    let n_steps = steps.len();
    for (step_idx, step) in steps.iter().enumerate() {
        cargo_step(step, &format!("[{}/{n_steps}] {}", step_idx + 1, step.name))?;
    }
    println!(
        "\nci --quick: all {n_steps} steps passed in {}; not run: the docs, the Python package \
         and the browser test (`cargo xtask ci` runs every step)",
        format_duration(total.elapsed())
    );
    Ok(())
}

/// Runs one cargo step; how long it took, or an error if it failed.
fn cargo_step(step: &Step, label: &str) -> Result<Duration> {
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
    Ok(took)
}

/// `crates/py2048/ci.sh deps` running in the background, its output in a
/// log file; killed (with its pip) if CI stops before the python step.
struct PythonDeps {
    child: Option<std::process::Child>,
    log: PathBuf,
}

impl PythonDeps {
    fn start(no_rl: bool) -> Result<PythonDeps> {
        let log = target_dir().join("py2048-deps.log");
        std::fs::create_dir_all(target_dir())
            .map_err(|err| format!("cannot create {}: {err}", target_dir().display()))?;
        let out = std::fs::File::create(&log)
            .map_err(|err| format!("cannot write {}: {err}", log.display()))?;
        let err =
            out.try_clone().map_err(|err| format!("cannot write {}: {err}", log.display()))?;
        let mut cmd = Command::new("bash");
        cmd.arg(project_root().join("crates/py2048/ci.sh")).arg("deps").stdout(out).stderr(err);
        if no_rl {
            cmd.env("PY2048_RL", "0");
        }
        // Its own process group, so that stopping it stops pip too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let shown = render(&cmd);
        println!("==> python dependencies, in the background: {shown} > {}", log.display());
        let child = cmd.spawn().map_err(|err| format!("cannot start `{shown}`: {err}"))?;
        Ok(PythonDeps { child: Some(child), log })
    }

    /// Waits for the install and shows its log; an error if it failed.
    fn wait(&mut self, label: &str) -> Result<()> {
        let Some(mut child) = self.child.take() else { return Ok(()) };
        println!("\n==> {label}: waiting for the python dependencies ({})", self.log.display());
        let status = child.wait().map_err(|err| format!("python dependencies: {err}"))?;
        print!("{}", std::fs::read_to_string(&self.log).unwrap_or_default());
        if !status.success() {
            println!("<== {label} FAILED: installing the python dependencies ({status})");
            return Err(format!(
                "ci stopped: step {label} failed: the python dependencies did not install \
                 ({status}; log {})",
                self.log.display()
            )
            .into());
        }
        Ok(())
    }
}

impl Drop for PythonDeps {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            #[cfg(unix)]
            let _ = Command::new("kill").arg("--").arg(format!("-{}", child.id())).status();
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The Python package (crates/py2048/ci.sh): a venv under the target
/// directory, the wheel built by maturin and installed, pytest against the
/// installed package; fails when pytest fails or collects no test. With
/// `no_rl`, without the RL extras (`PY2048_RL=0`).
fn python_test(label: &str, no_rl: bool) -> Result<()> {
    let mut cmd = Command::new("bash");
    cmd.arg(project_root().join("crates/py2048/ci.sh"));
    if no_rl {
        cmd.env("PY2048_RL", "0");
    }
    let shown = render(&cmd);
    println!("\n==> {label}: {shown}");
    let status = cmd.status().map_err(|err| format!("cannot start `{shown}`: {err}"))?;
    if !status.success() {
        println!("<== {label} FAILED");
        return Err(format!("ci stopped: step {label} failed: `{shown}` ({status})").into());
    }
    Ok(())
}

/// The web frontend's end-to-end test (`crates/web/e2e/test.mjs`) in headless
/// Chromium. It needs Debian's `chromium`, Node.js and the e2e folder's
/// `npm ci`, which `.ci/run` installs in CI. In CI (`CI=true`) a missing one
/// fails the run; on a developer's machine the step is skipped with a notice.
/// Returns whether the test ran.
fn browser_test(label: &str) -> Result<bool> {
    let e2e = project_root().join("crates/web/e2e");
    let chromium =
        env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let missing = browser_test_missing(&e2e, &chromium);
    if !missing.is_empty() {
        let what = missing.join("; ");
        if env::var("CI").is_ok_and(|v| v == "true") {
            println!("<== {label} FAILED: {what}");
            return Err(format!(
                "ci stopped: the browser test cannot run in CI: {what} (.ci/run installs them)"
            )
            .into());
        }
        println!(
            "\n==> {label}: SKIPPED, {what}.\n    To run it: apt-get install chromium; \
             (cd crates/web/e2e && npm ci); cargo xtask ci"
        );
        return Ok(false);
    }
    // The server binary, target/debug/web: the test step's own build, so
    // this is a no-op after it. (`cargo build -p web` would resolve features
    // for web alone and rebuild the engine crates, a minute or more.)
    let mut build = cargo();
    build.args(["test", "--workspace", "--no-run", "-q"]);
    let shown = render(&build);
    println!("\n==> {label}: {shown}");
    let status = build.status().map_err(|err| format!("cannot start `{shown}`: {err}"))?;
    if !status.success() {
        return Err(format!("ci stopped: step {label} failed: `{shown}` ({status})").into());
    }
    let mut node = Command::new("node");
    node.arg("test.mjs")
        .current_dir(&e2e)
        .env("WEB_BIN", target_dir().join("debug").join("web"))
        .env("CHROMIUM", &chromium);
    let shown = format!("(cd crates/web/e2e && {})", render(&node));
    println!("==> {label}: {shown}");
    let status = node.status().map_err(|err| format!("cannot start `{shown}`: {err}"))?;
    if !status.success() {
        println!("<== {label} FAILED");
        return Err(format!("ci stopped: step {label} failed: `{shown}` ({status})").into());
    }
    Ok(true)
}

/// What the browser test lacks here, in words; empty when it can run.
fn browser_test_missing(e2e: &Path, chromium: &Path) -> Vec<String> {
    let mut missing = Vec::new();
    if !chromium.is_file() {
        missing.push(format!("no browser at {} (apt-get install chromium)", chromium.display()));
    }
    let node_runs =
        Command::new("node").arg("--version").output().is_ok_and(|out| out.status.success());
    if !node_runs {
        missing.push("no `node` on PATH".to_owned());
    }
    if !e2e.join("node_modules/playwright-core/package.json").is_file() {
        missing.push("no playwright-core in crates/web/e2e/node_modules (npm ci there)".to_owned());
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_names_the_cargo_steps_it_runs() {
        let names: Vec<&str> = STEPS.iter().map(|step| step.name).collect();
        for name in QUICK {
            assert!(names.contains(name), "{name} is no step of {names:?}");
        }
        assert!(!QUICK.contains(&"doc"), "the quick check leaves the docs out");
    }

    #[test]
    fn ci_refuses_the_shortcuts() {
        let full = CiArgs { quick: false, no_rl: false };
        let quick = CiArgs { quick: true, no_rl: false };
        let no_rl = CiArgs { quick: false, no_rl: true };
        assert!(check_shortcuts(&full, true).is_ok());
        for args in [&quick, &no_rl] {
            assert!(check_shortcuts(args, false).is_ok());
            let err = check_shortcuts(args, true).unwrap_err().to_string();
            assert!(err.contains("CI=true") && err.contains("every step"), "{err}");
        }
    }
}
