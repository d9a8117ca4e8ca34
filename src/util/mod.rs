//! Small shared helpers: the fast seeded RNG, atomic file writes, packed game folders, the
//! Wilson interval, process CPU time, child programs spoken to by lines ([`child`]) and TOML
//! tables read by two types ([`section`]). The lowest layer: it uses no other module of the crate.

pub mod checksum;
pub mod child;
pub mod commit;
pub mod elo;
pub mod fsio;
pub mod lines;
pub mod npz;
pub mod num;
pub mod output;
pub mod pack;
pub mod progress;
pub mod rng;
pub mod section;
pub mod stats;
pub mod stdout;
pub mod text;

/// CPU seconds (user + system, all threads) this process has used, or `None` where the
/// platform does not say. CPU seconds over wall seconds tells how many cores a job kept busy.
pub fn cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        // SAFETY: getrusage only writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
            return None;
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(secs(usage.ru_utime) + secs(usage.ru_stime))
    }
    #[cfg(not(unix))]
    None
}

/// This machine in one line, for records whose figures depend on it: the CPU's model name
/// (Linux's `/proc/cpuinfo`, else the architecture), its logical CPUs, the SIMD extensions
/// akushu's kernels can use, and every `AKUSHU_NO_*` switch set in the environment (they
/// turn kernels off): `AMD EPYC 9B14, 2 logical CPUs, simd avx2 fma avx512f avx512vnni`.
pub fn machine_description() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| {
                l.strip_prefix("model name")?
                    .split_once(':')
                    .map(|(_, v)| v.trim().to_string())
            })
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut simd: Vec<&str> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        let found = [
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("fma", std::arch::is_x86_feature_detected!("fma")),
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
            (
                "avx512vnni",
                std::arch::is_x86_feature_detected!("avx512vnni"),
            ),
            ("avxvnni", std::arch::is_x86_feature_detected!("avxvnni")),
        ];
        simd.extend(found.iter().filter(|(_, on)| *on).map(|(name, _)| *name));
    }
    #[cfg(target_arch = "aarch64")]
    simd.push("neon");
    let simd = if simd.is_empty() {
        "none".to_string()
    } else {
        simd.join(" ")
    };
    let mut switches: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k.starts_with("AKUSHU_NO_"))
        .collect();
    switches.sort();
    let mut line = format!("{model}, {cpus} logical CPUs, simd {simd}");
    if !switches.is_empty() {
        line += &format!(", set: {}", switches.join(" "));
    }
    line
}

/// On-CPU time of the calling thread in seconds, from `/proc/thread-self/schedstat` (Linux);
/// `None` where that file does not exist. A one-thread engine searches on its caller's
/// thread, so this is its cost alone even while other games run beside it.
pub fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// CPU seconds (user + system) the process `pid` and its waited-for children have used,
/// from `/proc/PID/stat` (Linux); `None` where that file cannot be read.
pub fn process_cpu_seconds(pid: u32) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: fields are counted after its `)`.
    let rest = text.get(text.rfind(')')? + 1..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14-17 of the whole line (utime, stime, cutime, cstime) are 11-14 after `)`.
    let ticks: u64 = (11..15)
        .map(|i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum::<Option<u64>>()?;
    #[cfg(unix)]
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    #[cfg(not(unix))]
    let per_second = 100;
    (per_second > 0).then(|| ticks as f64 / per_second as f64)
}

/// Tells glibc's allocator to keep freed memory instead of returning it to the kernel at
/// once. Training allocates and frees tens of megabytes of activations every step; with the
/// default thresholds each of those is a fresh `mmap` whose pages fault in again (measured:
/// about 10% of a 6x64 CNN's training time). No effect on other platforms.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tuning parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TOP_PAD, 256 << 20);
    }
}

/// Ends this process soon after the process that started it exits: an engine started by a
/// GUI through a shell (`sh -c "akushu ..."`, as KaTrain's custom engine command does) is
/// the shell's child, so the GUI killing its shell would otherwise leave the engine running
/// with nobody to answer. A thread watches the parent's pid (twice a second) rather than
/// Linux's `PR_SET_PDEATHSIG`, which fires when the *thread* that started us exits: a client
/// that starts the engine from a worker thread would lose it. Exits at once when the parent
/// is already gone.
pub fn exit_with_parent() {
    #[cfg(unix)]
    {
        // SAFETY: getppid has no preconditions and touches no memory.
        let parent = unsafe { libc::getppid() };
        if parent == 1 {
            // Started by init, or the parent is already gone: nobody to wait for.
            std::process::exit(0);
        }
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(std::time::Duration::from_millis(500));
                // SAFETY: as above.
                if unsafe { libc::getppid() } != parent {
                    std::process::exit(0);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn process_cpu_is_read_from_proc_and_grows() {
        let Some(before) = super::process_cpu_seconds(std::process::id()) else {
            return; // no /proc here
        };
        // Spin for 0.3 s of this thread's CPU, not of the wall clock: on a busy machine the
        // wall clock runs on while the thread waits for a core.
        let mut x = 0u64;
        let thread = || super::thread_cpu_seconds().expect("a thread clock beside /proc");
        let start = thread();
        while thread() - start < 0.3 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let after = super::process_cpu_seconds(std::process::id()).unwrap();
        assert!(after >= before + 0.1, "{before} -> {after}");
        assert!(super::process_cpu_seconds(u32::MAX).is_none());
    }
}
