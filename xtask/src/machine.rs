//! A description of the machine and toolchain a result was measured on:
//! numbers without it cannot be compared or reproduced.

use crate::util::output_of;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Machine {
    pub(crate) cpu: String,
    /// Logical CPUs available to us, as `nproc` says.
    pub(crate) cores: String,
    pub(crate) memory: String,
    pub(crate) os: String,
    pub(crate) rustc: String,
    /// UTC, as `date -u` prints it.
    pub(crate) date: String,
    /// The short commit hash, marked when the tree has uncommitted changes.
    pub(crate) commit: String,
}

const UNKNOWN: &str = "unknown";

impl Machine {
    /// Looks everything up; a fact that cannot be found reads `unknown`
    /// rather than failing the run.
    pub(crate) fn detect() -> Machine {
        let read = |path| std::fs::read_to_string(path).unwrap_or_default();
        let cpu = cpu_model(&read("/proc/cpuinfo")).unwrap_or_else(|| UNKNOWN.to_owned());
        let cores = output_of("nproc", &[])
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.to_string()))
            .unwrap_or_else(|| UNKNOWN.to_owned());
        let memory = total_memory(&read("/proc/meminfo")).unwrap_or_else(|| UNKNOWN.to_owned());
        let os = output_of("uname", &["-srm"]).unwrap_or_else(|| std::env::consts::OS.to_owned());
        let rustc = output_of("rustc", &["-V"]).unwrap_or_else(|| UNKNOWN.to_owned());
        let date = output_of("date", &["-u"]).unwrap_or_else(|| UNKNOWN.to_owned());
        let commit = match output_of("git", &["rev-parse", "--short", "HEAD"]) {
            Some(hash) => {
                match output_of("git", &["status", "--porcelain", "--untracked-files=no"]) {
                    Some(changes) if !changes.is_empty() => {
                        format!("{hash} (with uncommitted changes)")
                    }
                    _ => hash,
                }
            }
            None => UNKNOWN.to_owned(),
        };
        Machine { cpu, cores, memory, os, rustc, date, commit }
    }

    /// The description as a Markdown list.
    pub(crate) fn markdown(&self) -> String {
        format!(
            "- CPU: {} ({} logical CPUs)\n- Memory: {}\n- OS: {}\n- Toolchain: {}\n- Date: {}\n- Commit: {}\n",
            self.cpu, self.cores, self.memory, self.os, self.rustc, self.date, self.commit
        )
    }
}

/// The CPU model from `/proc/cpuinfo`: `model name` on x86, `Model` or
/// `Hardware` on some ARM boards, `cpu model` on others.
pub(crate) fn cpu_model(cpuinfo: &str) -> Option<String> {
    for key in ["model name", "Model", "Hardware", "cpu model", "uarch"] {
        let found = cpuinfo.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            (name.trim() == key && !value.trim().is_empty()).then(|| value.trim().to_owned())
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// `MemTotal` from `/proc/meminfo`, in GiB.
pub(crate) fn total_memory(meminfo: &str) -> Option<String> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kib: f64 =
        line.trim_start_matches("MemTotal:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(format!("{:.1} GiB", kib / (1024.0 * 1024.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_cpu_model() {
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";
        assert_eq!(cpu_model(x86).as_deref(), Some("Intel(R) Xeon(R) CPU @ 2.20GHz"));
        let arm = "processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(cpu_model(arm).as_deref(), Some("Raspberry Pi 4 Model B Rev 1.4"));
        assert_eq!(cpu_model("processor : 0\n"), None);
    }

    #[test]
    fn reads_total_memory_in_gib() {
        let meminfo = "MemTotal:        8024372 kB\nMemFree:          123456 kB\n";
        assert_eq!(total_memory(meminfo).as_deref(), Some("7.7 GiB"));
        assert_eq!(total_memory("MemFree: 1 kB\n"), None);
    }

    #[test]
    fn markdown_lists_every_fact() {
        let machine = Machine {
            cpu: "Test CPU".to_owned(),
            cores: "2".to_owned(),
            memory: "7.7 GiB".to_owned(),
            os: "Linux 6.1 x86_64".to_owned(),
            rustc: "rustc 1.95.0".to_owned(),
            date: "Sat Nov 21 22:07:33 UTC 2026".to_owned(),
            commit: "c1efdd0".to_owned(),
        };
        let md = machine.markdown();
        assert!(md.starts_with("- CPU: Test CPU (2 logical CPUs)\n"), "{md}");
        assert!(md.contains("- Commit: c1efdd0\n"), "{md}");
    }
}
