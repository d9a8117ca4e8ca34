//! One commit protocol for multi-file outputs (datasets, training checkpoints), and one lock
//! per output.
//!
//! - **Commit**: a new version is written whole into a temporary sibling directory
//!   (`OUT.tmp-PID`), its files and the directory are synced, and it replaces `OUT` by one
//!   atomic exchange (`renameat2(RENAME_EXCHANGE)` on Linux) after which the old version,
//!   now at the temporary name, is removed. At every instant `OUT` is the whole old or the
//!   whole new version. Where the exchange is not supported, the old version is renamed
//!   aside first and put back if the second rename fails; a crash in that window leaves it
//!   at `OUT.old-PID`, which the next run restores ([`recover_leftovers`]).
//! - **Lock**: a writer holds `OUT.lock` (created exclusively, holding its pid) for as long
//!   as it writes; a second writer is refused with the holder's pid, as git refuses a second
//!   `index.lock`. A lock whose process is gone is stale and taken over.
//! - **Failpoints**: `AKUSHU_FAILPOINT=NAME:N` kills the process (as `kill -9` would) at the
//!   `N`-th time it reaches the point `NAME`, so tests can crash a run at every step of a
//!   commit and check that the old or the new version is whole.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, bail};

/// `OUT` with `.TAG-PID` appended to its name.
fn tagged(out: &Path, tag: &str, pid: u32) -> PathBuf {
    let mut name = out
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".{tag}-{pid}"));
    out.with_file_name(name)
}

/// The temporary directory a new version of `out` is written into by this process.
pub fn temp_dir_for(out: &Path) -> PathBuf {
    tagged(out, "tmp", std::process::id())
}

/// Whether process `pid` is alive on this machine.
pub(crate) fn alive(pid: u32) -> bool {
    pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
}

/// Counts of each failpoint reached so far.
static FAILPOINT_HITS: AtomicU64 = AtomicU64::new(0);

/// Kills the process when `AKUSHU_FAILPOINT` names this point and this is the hit it names
/// (see the module doc). Does nothing otherwise.
pub fn failpoint(name: &str) {
    let Ok(spec) = std::env::var("AKUSHU_FAILPOINT") else {
        return;
    };
    let Some((point, n)) = spec.split_once(':') else {
        return;
    };
    if point != name {
        return;
    }
    let hit = FAILPOINT_HITS.fetch_add(1, Ordering::SeqCst) + 1;
    if n.parse::<u64>().is_ok_and(|n| n == hit) {
        let _ = writeln!(io::stderr(), "failpoint {name}:{hit}: killed");
        // SIGKILL, as a crash or `kill -9` would: no destructor, no flush.
        #[cfg(unix)]
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
        std::process::abort();
    }
}

/// Syncs every file directly in `dir`, then `dir` itself.
fn sync_dir(dir: &Path) -> io::Result<()> {
    for e in fs::read_dir(dir)? {
        let e = e?;
        if e.file_type()?.is_file() {
            fs::File::open(e.path())?.sync_all()?;
        }
    }
    fs::File::open(dir)?.sync_all()
}

/// Syncs the folder holding `path` (makes a rename in it durable).
fn sync_parent(path: &Path) {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Ok(f) = fs::File::open(parent) {
        let _ = f.sync_all();
    }
}

/// Exchanges two paths atomically; `Ok(false)` where the system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: two valid NUL-terminated paths; the call reads them only.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::ENOTSUP) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<bool> {
    Ok(false)
}

/// Makes the finished directory `tmp` the new `out` (see the module doc); `out` may be
/// absent. `point` names the failpoints of this commit (`POINT-synced`, `POINT-swapped`).
pub fn replace_dir(tmp: &Path, out: &Path, point: &str) -> Result<()> {
    sync_dir(tmp).with_context(|| format!("syncing {}", tmp.display()))?;
    failpoint(&format!("{point}-synced"));
    if !out.exists() {
        fs::rename(tmp, out).with_context(|| format!("renaming into {}", out.display()))?;
        sync_parent(out);
        return Ok(());
    }
    if exchange(tmp, out).with_context(|| format!("replacing {}", out.display()))? {
        sync_parent(out);
        failpoint(&format!("{point}-swapped"));
        // `tmp` now holds the old version.
        fs::remove_dir_all(tmp).with_context(|| format!("removing {}", tmp.display()))?;
        return Ok(());
    }
    let old = tagged(out, "old", std::process::id());
    fs::rename(out, &old).with_context(|| format!("moving {} aside", out.display()))?;
    failpoint(&format!("{point}-aside"));
    if let Err(e) = fs::rename(tmp, out) {
        // Put the old version back: a failed commit never loses one.
        let _ = fs::rename(&old, out);
        return Err(e).with_context(|| format!("renaming into {}", out.display()));
    }
    sync_parent(out);
    fs::remove_dir_all(&old).with_context(|| format!("removing {}", old.display()))?;
    Ok(())
}

/// Cleans what crashed commits of `out` left: a temporary `OUT.tmp-PID` of a process that is
/// gone (or of this pid, reused) is removed, and an `OUT.old-PID` is put back when `OUT` is
/// missing (a crash between the two renames of the fallback commit), else removed. Call it
/// holding `out`'s lock. Returns what it did, one line each.
pub fn recover_leftovers(out: &Path) -> Result<Vec<String>> {
    let Some(name) = out.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Ok(Vec::new());
    };
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(entries) = fs::read_dir(parent) else {
        return Ok(Vec::new());
    };
    let mut done = Vec::new();
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&format!("{name}.")) else {
            continue;
        };
        let Some((tag, pid)) = rest.split_once('-') else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        let path = e.path();
        match tag {
            "tmp" if pid == std::process::id() || !alive(pid) => {
                fs::remove_dir_all(&path)
                    .or_else(|_| fs::remove_file(&path))
                    .with_context(|| format!("removing the leftover {}", path.display()))?;
                done.push(format!(
                    "removed {} (left by a crashed run)",
                    path.display()
                ));
            }
            "old" if !alive(pid) || pid == std::process::id() => {
                if out.exists() {
                    fs::remove_dir_all(&path)
                        .with_context(|| format!("removing the leftover {}", path.display()))?;
                    done.push(format!("removed {} (a replaced version)", path.display()));
                } else {
                    fs::rename(&path, out)
                        .with_context(|| format!("restoring {}", out.display()))?;
                    done.push(format!(
                        "restored {} from {} (a crashed commit)",
                        out.display(),
                        path.display()
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(done)
}

/// A held output lock; released when dropped.
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
}

impl OutputLock {
    /// Takes `OUT.lock` for `out`, or fails naming the process that holds it. A lock left by
    /// a process that is gone is taken over.
    ///
    /// The lock sits beside what the folder is, not beside its spelling: two writers that
    /// name one folder through a symbolic link or another path take the same lock.
    pub fn acquire(out: &Path) -> Result<OutputLock> {
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        let real = resolved_output(out);
        let mut name = real
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push(".lock");
        let path = real.with_file_name(name);
        for _ in 0..2 {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    writeln!(f, "{}", std::process::id())
                        .with_context(|| format!("writing {}", path.display()))?;
                    return Ok(OutputLock { path });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let holder = fs::read_to_string(&path).unwrap_or_default();
                    match holder.trim().parse::<u32>() {
                        Ok(pid) if alive(pid) => bail!(
                            "{} is being written by another akushu (pid {pid}, {}): wait for it \
                             to finish, or delete the lock if no such process writes there",
                            out.display(),
                            path.display()
                        ),
                        // Stale (its process is gone) or unreadable mid-write: a process that
                        // crashed between creating and filling it. Take it over.
                        _ => {
                            let _ = fs::remove_file(&path);
                        }
                    }
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("creating {}", path.display()));
                }
            }
        }
        bail!(
            "{}: could not take the lock {}",
            out.display(),
            path.display()
        )
    }
}

/// What the output path `out` is: itself resolved through every link when it exists, else
/// its resolved parent with its name (a folder about to be created); as given when neither
/// resolves.
fn resolved_output(out: &Path) -> PathBuf {
    if let Ok(real) = fs::canonicalize(out) {
        return real;
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (fs::canonicalize(parent), out.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => out.to_path_buf(),
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("akushu-commit-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_commit_replaces_the_whole_directory() {
        let d = scratch("replace");
        let out = d.join("out");
        for version in ["one", "two"] {
            let tmp = temp_dir_for(&out);
            fs::create_dir_all(&tmp).unwrap();
            fs::write(tmp.join("a"), version).unwrap();
            fs::write(tmp.join(format!("only-{version}")), "x").unwrap();
            replace_dir(&tmp, &out, "test").unwrap();
            assert!(!tmp.exists());
        }
        assert_eq!(fs::read_to_string(out.join("a")).unwrap(), "two");
        assert!(!out.join("only-one").exists() && out.join("only-two").exists());
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_second_writer_is_refused_and_a_stale_lock_taken_over() {
        let d = scratch("lock");
        let out = d.join("out");
        let held = OutputLock::acquire(&out).unwrap();
        let e = OutputLock::acquire(&out).unwrap_err().to_string();
        assert!(e.contains("being written") && e.contains("pid"), "{e}");
        drop(held);
        // A lock of a process that is gone (pid beyond the kernel's maximum).
        fs::write(d.join("out.lock"), "4194304999\n").unwrap();
        let again = OutputLock::acquire(&out).unwrap();
        drop(again);
        assert!(!d.join("out.lock").exists());
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn leftovers_of_crashed_commits_are_cleaned_or_restored() {
        let d = scratch("leftovers");
        let out = d.join("out");
        // A temporary of a dead process, and a replaced version whose commit crashed with
        // `out` missing: the first goes, the second comes back.
        fs::create_dir_all(d.join("out.tmp-4194304999")).unwrap();
        fs::create_dir_all(d.join("out.old-4194304998")).unwrap();
        fs::write(d.join("out.old-4194304998/a"), "old").unwrap();
        let done = recover_leftovers(&out).unwrap();
        assert_eq!(done.len(), 2, "{done:?}");
        assert_eq!(fs::read_to_string(out.join("a")).unwrap(), "old");
        assert!(!d.join("out.tmp-4194304999").exists());
        // Another output's leftovers are not touched.
        fs::create_dir_all(d.join("outer.tmp-4194304999")).unwrap();
        assert!(recover_leftovers(&out).unwrap().is_empty());
        fs::remove_dir_all(d).unwrap();
    }
}
