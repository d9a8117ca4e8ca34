//! Atomic output: every result file is written to a temporary sibling and renamed into place,
//! so an interrupted run never leaves a half-written file behind.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The temporary path used while `path` is being written.
fn temp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(name)
}

/// The shared game archives the README names, which a plain clone does not have.
const SHARED_ARCHIVES: [&str; 3] = ["ogs9x9.tar.xz", "ogs9x9_index.csv.xz", "engine9x9.tar.xz"];

/// How to get a missing input the project's commands name, for the error that reports it:
/// the shared game archives are built from public repositories, datasets by `dataset build`.
/// Empty when there is nothing to say beyond the path.
pub fn missing_input_hint(path: &Path) -> &'static str {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if SHARED_ARCHIVES.contains(&name) {
        " (a shared game archive: build it from the public repositories' checkouts with \
         `sh scripts/build-shared-data.sh`; README.md, Getting the game records)"
    } else if path.starts_with("data") && path.extension().is_none() {
        " (a dataset folder: build it with `akushu dataset build`; README.md, Datasets)"
    } else {
        ""
    }
}

/// The error for an input that does not exist: its path and how to get it.
pub fn missing_input(what: &str, path: &Path) -> String {
    format!(
        "{what} {}: no such file or folder{}",
        path.display(),
        missing_input_hint(path)
    )
}

/// A path as text that keeps every byte: valid UTF-8 as it is, any other byte as `%NN` (as in
/// a URL; not a backslash, which archive names use as a separator), where `Path::display`
/// would put U+FFFD and two names could read the same. Records name their source files this
/// way in `games.csv` and in error messages.
pub fn path_text(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::new();
        for chunk in path.as_os_str().as_bytes().utf8_chunks() {
            out.push_str(chunk.valid());
            for b in chunk.invalid() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }
    #[cfg(not(unix))]
    {
        path.display().to_string()
    }
}

/// Removes the temporary files ([`write_atomic`]'s `NAME.tmp-PID`) that killed runs left in
/// `dir`, one level deep: those whose process is gone. A live writer's files are kept.
/// Returns how many were removed.
pub fn remove_stale_temps(dir: &Path) -> io::Result<usize> {
    let mut removed = 0;
    let mut dirs = vec![dir.to_path_buf()];
    if let Ok(entries) = fs::read_dir(dir) {
        dirs.extend(
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path()),
        );
    }
    for d in dirs {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.rsplit_once(".tmp-"))
                .and_then(|(_, pid)| pid.parse::<u32>().ok())
            else {
                continue;
            };
            if e.file_type().is_ok_and(|t| t.is_file()) && !super::commit::alive(pid) {
                fs::remove_file(e.path())?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// What kind of file `t` is, in words, for a refusal.
fn kind_of(t: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "character device";
        }
        if t.is_block_device() {
            return "block device";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    if t.is_dir() { "folder" } else { "special file" }
}

/// The bytes of the regular file `path`, refused unread when it is anything else (a FIFO
/// would block the read until a writer comes, a device such as `/dev/zero` never ends) or
/// holds more than `max` bytes (`what` says what bounds it, for the message). The file is
/// opened without blocking, so a FIFO is refused rather than waited on.
pub fn read_regular_file(path: &Path, max: u64, what: &str) -> io::Result<Vec<u8>> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("reading {}: {e}", path.display()));
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(named)?;
    let meta = file.metadata().map_err(named)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is a {}, not a regular file: refused unread",
                path.display(),
                kind_of(meta.file_type())
            ),
        ));
    }
    let too_long = |len: u64| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} holds {len} bytes, more than the {max} {what}: refused unread",
                path.display()
            ),
        )
    };
    if meta.len() > max {
        return Err(too_long(meta.len()));
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    // One byte past the bound tells a file that grew while read.
    io::Read::read_to_end(&mut io::Read::take(file, max + 1), &mut out).map_err(named)?;
    if out.len() as u64 > max {
        return Err(too_long(out.len() as u64));
    }
    Ok(out)
}

/// `e` with the path it was met on in its message (its kind kept): a full disk must say
/// where it was met.
pub fn naming(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("writing {}: {e}", path.display()))
}

/// Writes `bytes` to `path` atomically (temporary file, fsync, rename). An error names
/// `path`, so callers need not.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes `path` atomically through a buffered writer handed to `fill`. An error names
/// `path` (its kind kept), so callers need not.
pub fn write_atomic_with<F>(path: &Path, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut io::BufWriter<fs::File>) -> io::Result<()>,
{
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|e| naming(path, e))?;
    }
    let tmp = temp_path(path);
    let result = (|| {
        let mut w = io::BufWriter::new(fs::File::create(&tmp)?);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(|e| naming(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces() {
        let dir = std::env::temp_dir().join(format!("akushu-fsio-{}", std::process::id()));
        let path = dir.join("a.txt");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let failed = write_atomic_with(&path, |_| Err(io::Error::other("boom")));
        assert!(failed.is_err());
        assert_eq!(
            fs::read(&path).unwrap(),
            b"two",
            "a failed write keeps the old file"
        );
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left behind"
        );
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn errors_name_the_path() {
        let dir = std::env::temp_dir().join(format!("akushu-fsio-name-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("plain");
        fs::write(&file, b"x").unwrap();
        // A folder cannot be made under a plain file, nor a file written over a folder.
        for path in [file.join("below.txt"), dir.clone()] {
            let e = write_atomic(&path, b"one").unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("writing {}: ", path.display())),
                "{e}"
            );
        }
        fs::remove_dir_all(dir).unwrap();
    }
}
