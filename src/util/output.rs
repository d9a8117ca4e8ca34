//! The one rule every command follows for its outputs (README "What each command may
//! overwrite"):
//!
//! - Nothing akushu did not write is deleted or replaced. A directory akushu writes carries a
//!   marker file, [`MARKER_FILE`], naming the output kind (`dataset`, `match`, ...); only an
//!   absent path, an empty directory or a directory marked with the same kind is replaced.
//!   A file output replaces an existing regular file only when it starts the way akushu
//!   writes that kind of file ([`FileKind::signature`]).
//! - `--force` is how a user says replacing is meant; it still never replaces a
//!   non-directory with a directory, or the reverse.
//! - An input is never an output: a path that is, contains or lies inside an input of the
//!   same command is refused, even with `--force`.
//! - A FIFO, character device or socket (`/dev/stdout`, a named pipe) is written to in place,
//!   as a stream; a symbolic link is never replaced by a file (with `--force`, its target is
//!   written instead).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The marker file inside every directory akushu writes: one line, `akushu <kind>`.
pub const MARKER_FILE: &str = ".akushu-output";

/// Why an output path was refused.
#[derive(Debug, Error)]
pub enum OutputError {
    #[error(
        "{path}: {why}; akushu replaces only what it wrote itself (choose another path, or add --force where the command has it and replacing is meant)"
    )]
    NotOurs { path: PathBuf, why: String },
    #[error("{path}: {why}")]
    Refused { path: PathBuf, why: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Whether `dir` is a directory with nothing in it (an absent path is not).
pub fn is_empty_dir(dir: &Path) -> io::Result<bool> {
    Ok(fs::read_dir(dir)?.next().is_none())
}

/// Whether `dir` holds nothing a run wrote but its scaffolding: no file below it except
/// the marker at its top, empty folders allowed. A run stopped by a full disk after marking
/// its folder leaves this, and a rerun must start it afresh rather than refuse it as a
/// folder of unknown games. Symbolic links count as content (they are not followed).
pub fn holds_only_scaffolding(dir: &Path) -> io::Result<bool> {
    walk_scaffolding(dir, true, &[], false)
}

/// Whether `dir` holds nothing but what a run writes before its first result: the marker
/// at its top, the files named in `top_files` there (a loop's `loop.toml`), and nested
/// outputs that got their marker and nothing else (a self-play folder whose engine was
/// refused). Such a folder records no work, so a rerun with another config starts it afresh
/// instead of refusing it as another run.
pub fn holds_only_a_start(dir: &Path, top_files: &[&str]) -> io::Result<bool> {
    walk_scaffolding(dir, true, top_files, true)
}

/// The walk of [`holds_only_scaffolding`] and [`holds_only_a_start`]: false at the first
/// file that is not allowed (`nested_markers`: markers below the top are allowed too).
fn walk_scaffolding(
    d: &Path,
    top: bool,
    top_files: &[&str],
    nested_markers: bool,
) -> io::Result<bool> {
    for e in fs::read_dir(d)? {
        let e = e?;
        let t = e.file_type()?;
        let name = e.file_name();
        if t.is_dir() {
            if !walk_scaffolding(&e.path(), false, top_files, nested_markers)? {
                return Ok(false);
            }
            continue;
        }
        let allowed = t.is_file()
            && ((name == MARKER_FILE && (top || nested_markers))
                || (top && top_files.iter().any(|f| name == *f)));
        if !allowed {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The kind named by `dir`'s marker file, if it has one.
pub fn dir_kind(dir: &Path) -> Option<String> {
    let text = fs::read_to_string(dir.join(MARKER_FILE)).ok()?;
    text.trim()
        .strip_prefix("akushu ")
        .map(|k| k.trim().to_string())
}

/// Writes the marker of `kind` into `dir` (which akushu has just created or owns). The
/// error names the marker file (a full disk is often first met here).
pub fn mark_dir(dir: &Path, kind: &str) -> io::Result<()> {
    let marker = dir.join(MARKER_FILE);
    super::fsio::write_atomic(&marker, format!("akushu {kind}\n").as_bytes())
}

/// `path` made absolute and resolved as far as it exists (an output often does not).
fn resolve(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    if let Ok(c) = fs::canonicalize(&abs) {
        return c;
    }
    // Resolve the deepest existing ancestor and append the rest.
    let mut rest = Vec::new();
    let mut cur = abs.as_path();
    while let Some(parent) = cur.parent() {
        rest.push(
            cur.file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_default(),
        );
        if let Ok(c) = fs::canonicalize(parent) {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        cur = parent;
    }
    abs
}

/// Refuses an output path that is, contains or lies inside one of `inputs`.
pub fn check_not_input(out: &Path, inputs: &[PathBuf]) -> Result<(), OutputError> {
    let o = resolve(out);
    for input in inputs {
        let i = resolve(input);
        if o == i || o.starts_with(&i) || i.starts_with(&o) {
            return Err(OutputError::Refused {
                path: out.to_path_buf(),
                why: format!(
                    "is or overlaps the input {}: an input is never written",
                    input.display()
                ),
            });
        }
    }
    Ok(())
}

/// Checks that a directory output of `kind` may be written at `out`: absent, an empty
/// directory, or one marked with `kind` (any directory with `force`), and no input.
pub fn check_dir_output(
    out: &Path,
    kind: &str,
    force: bool,
    inputs: &[PathBuf],
) -> Result<(), OutputError> {
    check_not_input(out, inputs)?;
    let meta = match fs::symlink_metadata(out) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        other => other.map_err(io_err(out))?,
    };
    if meta.file_type().is_symlink() {
        return Err(OutputError::Refused {
            path: out.to_path_buf(),
            why: "is a symbolic link: give the directory it points to".into(),
        });
    }
    if !meta.is_dir() {
        return Err(OutputError::Refused {
            path: out.to_path_buf(),
            why: "exists and is not a directory".into(),
        });
    }
    if force || is_empty_dir(out).map_err(io_err(out))? {
        return Ok(());
    }
    match dir_kind(out) {
        Some(k) if k == kind => Ok(()),
        Some(k) => Err(OutputError::NotOurs {
            path: out.to_path_buf(),
            why: format!("holds an akushu {k}, not a {kind}"),
        }),
        None => Err(OutputError::NotOurs {
            path: out.to_path_buf(),
            why: format!("exists, is not empty and has no {MARKER_FILE} marker"),
        }),
    }
}

/// A kind of single-file output and how akushu's own files of that kind begin.
#[derive(Debug, Clone, Copy)]
pub struct FileKind {
    pub name: &'static str,
    /// The first bytes of every file of this kind akushu writes (a CSV header, the PNG
    /// magic number, ...).
    pub signature: &'static [u8],
    /// A finer test for kinds whose signature other programs share (a PNG chart carries
    /// akushu's text chunk): a file must pass it too before akushu replaces it.
    pub mark: Option<fn(&Path) -> bool>,
}

/// How a file output reaches its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileTarget {
    /// Written to a temporary sibling and renamed over this path.
    Replace(PathBuf),
    /// Written in place as a stream (FIFO, character device, socket).
    Stream(PathBuf),
}

fn starts_with(path: &Path, signature: &[u8]) -> bool {
    use std::io::Read;
    let mut head = vec![0u8; signature.len()];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head == signature
}

/// Decides how a file output of `kind` may be written at `path` (see the module doc).
pub fn file_target(
    path: &Path,
    kind: FileKind,
    force: bool,
    inputs: &[PathBuf],
) -> Result<FileTarget, OutputError> {
    check_not_input(path, inputs)?;
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(FileTarget::Replace(path.to_path_buf()));
        }
        other => other.map_err(io_err(path))?,
    };
    let mut target = path.to_path_buf();
    let mut meta = meta;
    if meta.file_type().is_symlink() {
        match fs::metadata(path) {
            // A dangling link: creating its target would write somewhere unnamed.
            Err(_) => {
                return Err(OutputError::Refused {
                    path: path.to_path_buf(),
                    why: "is a symbolic link to nothing".into(),
                });
            }
            Ok(m) => meta = m,
        }
        if meta.is_file() {
            target = fs::canonicalize(path).map_err(io_err(path))?;
        }
        if meta.is_file() && !force {
            return Err(OutputError::NotOurs {
                path: path.to_path_buf(),
                why: format!("is a symbolic link to {}", target.display()),
            });
        }
    }
    if meta.is_dir() {
        return Err(OutputError::Refused {
            path: path.to_path_buf(),
            why: format!("is a directory, not a {} file", kind.name),
        });
    }
    if !meta.is_file() {
        // Opened through the path given: `/dev/stdout` resolves to a name like `pipe:[7]`.
        return Ok(FileTarget::Stream(path.to_path_buf()));
    }
    let ours =
        starts_with(&target, kind.signature) && kind.mark.is_none_or(|is_ours| is_ours(&target));
    if force || ours {
        Ok(FileTarget::Replace(target))
    } else {
        Err(OutputError::NotOurs {
            path: path.to_path_buf(),
            why: format!("exists and is not a {} file akushu wrote", kind.name),
        })
    }
}

/// Writes a file output of `kind` at `path` through `fill`, following [`file_target`]:
/// atomically for a regular file, in place for a stream.
pub fn write_file<F>(
    path: &Path,
    kind: FileKind,
    force: bool,
    inputs: &[PathBuf],
    fill: F,
) -> anyhow::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    match file_target(path, kind, force, inputs)? {
        FileTarget::Replace(target) => {
            super::fsio::write_atomic_with(&target, |w| fill(w)).map_err(anyhow::Error::from)
        }
        FileTarget::Stream(target) => {
            let f = fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| anyhow::anyhow!("opening {}: {e}", path.display()))?;
            let mut w = io::BufWriter::new(f);
            match fill(&mut w).and_then(|_| w.flush()) {
                // The reader of a pipe has gone (`| head`): nothing is lost that it wanted.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: FileKind = FileKind {
        name: "test CSV",
        signature: b"a,b\n",
        mark: None,
    };

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("akushu-output-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn files_replace_only_their_own_kind() {
        let d = scratch("files");
        let p = d.join("x.csv");
        let w = |force| write_file(&p, CSV, force, &[], |w| w.write_all(b"a,b\n1,2\n"));
        w(false).unwrap();
        w(false).unwrap();
        fs::write(&p, "precious").unwrap();
        assert!(w(false).unwrap_err().to_string().contains("--force"));
        assert_eq!(fs::read_to_string(&p).unwrap(), "precious");
        w(true).unwrap();
        // A symlink is never replaced by a file.
        let link = d.join("link.csv");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert!(write_file(&link, CSV, false, &[], |_| Ok(())).is_err());
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // Devices are streamed into, not replaced.
        assert_eq!(
            file_target(Path::new("/dev/null"), CSV, false, &[]).unwrap(),
            FileTarget::Stream(PathBuf::from("/dev/null"))
        );
        write_file(Path::new("/dev/null"), CSV, false, &[], |w| {
            w.write_all(b"x")
        })
        .unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().file_type().is_file());
        // An input is never an output.
        assert!(write_file(&p, CSV, true, std::slice::from_ref(&d), |_| Ok(())).is_err());
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn directories_need_the_marker_of_their_kind() {
        let d = scratch("dirs");
        let out = d.join("ds");
        check_dir_output(&out, "dataset", false, &[]).unwrap();
        fs::create_dir_all(&out).unwrap();
        check_dir_output(&out, "dataset", false, &[]).unwrap();
        fs::write(out.join("manifest.json"), "{}").unwrap();
        assert!(check_dir_output(&out, "dataset", false, &[]).is_err());
        check_dir_output(&out, "dataset", true, &[]).unwrap();
        mark_dir(&out, "dataset").unwrap();
        check_dir_output(&out, "dataset", false, &[]).unwrap();
        assert!(check_dir_output(&out, "match", false, &[]).is_err());
        assert!(check_dir_output(&out, "dataset", true, std::slice::from_ref(&out)).is_err());
        assert!(
            check_dir_output(
                &out.join("sub"),
                "dataset",
                true,
                std::slice::from_ref(&out)
            )
            .is_err()
        );
        fs::remove_dir_all(d).unwrap();
    }
}
