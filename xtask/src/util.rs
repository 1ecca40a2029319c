//! Helpers shared by the tasks: the error type, the project root, and running
//! commands with a readable echo.

use std::env;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Any failure of a task. The message is printed as `error: ...` by `main`,
/// so a plain string is all a task needs to say what went wrong.
pub(crate) type Error = Box<dyn std::error::Error>;
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

/// The workspace root: xtask always lives one level below it, so this holds
/// whatever the current directory is.
pub(crate) fn project_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().expect("xtask/ has a parent directory").to_path_buf()
}

/// The target directory cargo builds into: `CARGO_TARGET_DIR` if set,
/// otherwise `target/` under the root.
pub(crate) fn target_dir() -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => project_root().join(dir),
        None => project_root().join("target"),
    }
}

/// A `cargo` command run from the workspace root. Uses the `cargo` that
/// started us (`CARGO`, set by `cargo run`) so the pinned toolchain is kept.
pub(crate) fn cargo() -> Command {
    let program = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(program);
    cmd.current_dir(project_root());
    cmd
}

/// The command as a user would type it: environment overrides first, then
/// the program's file name (not the toolchain's full path), then the
/// arguments.
pub(crate) fn render(cmd: &Command) -> String {
    let mut words = Vec::new();
    for (key, value) in cmd.get_envs() {
        if let Some(value) = value {
            words.push(format!("{}={}", key.to_string_lossy(), quote(value)));
        }
    }
    let program = Path::new(cmd.get_program());
    let name = program.file_name().unwrap_or(program.as_os_str());
    words.push(name.to_string_lossy().into_owned());
    words.extend(cmd.get_args().map(quote));
    words.join(" ")
}

/// Quotes a word for the echo when the shell would split it.
fn quote(word: &OsStr) -> String {
    let word = word.to_string_lossy();
    if !word.is_empty() && !word.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
        return word.into_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Runs a command with inherited stdio and fails unless it exits with 0.
pub(crate) fn run_checked(cmd: &mut Command) -> Result<()> {
    let shown = render(cmd);
    let status = cmd.status().map_err(|err| format!("cannot start `{shown}`: {err}"))?;
    if !status.success() {
        return Err(format!("`{shown}` failed ({status})").into());
    }
    Ok(())
}

/// Runs a command and returns its trimmed standard output, or `None` if it
/// cannot start or fails: for optional facts such as the CPU model.
pub(crate) fn output_of(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).current_dir(project_root()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// A duration for humans, e.g. `12.3s` or `4m05s`.
pub(crate) fn format_duration(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs < 60.0 {
        return format!("{secs:.1}s");
    }
    let whole = duration.as_secs();
    format!("{}m{:02}s", whole / 60, whole % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_shows_env_program_name_and_quoted_args() {
        let mut cmd = Command::new("/opt/toolchain/bin/cargo");
        cmd.args(["doc", "--no-deps", "a b"]).env("RUSTDOCFLAGS", "-D warnings");
        assert_eq!(render(&cmd), "RUSTDOCFLAGS='-D warnings' cargo doc --no-deps 'a b'");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_millis(12_340)), "12.3s");
        assert_eq!(format_duration(Duration::from_secs(245)), "4m05s");
    }
}
