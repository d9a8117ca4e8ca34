//! Small shared helpers: the fast seeded RNG, atomic file writes, the Wilson interval and
//! process CPU time. The lowest layer: it uses no other module of the crate.

pub mod fsio;
pub mod num;
pub mod output;
pub mod rng;
pub mod stats;
pub mod stdout;

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

/// On-CPU time of the calling thread in seconds, from `/proc/thread-self/schedstat` (Linux);
/// `None` where that file does not exist. A one-thread engine searches on its caller's
/// thread, so this is its cost alone even while other games run beside it.
pub fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
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
