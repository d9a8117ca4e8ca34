//! Where SGF records come from: single files, folders (recursive, sorted), `.tar`,
//! `.tar.gz`/`.tgz` and `.tar.xz`/`.txz` archives read as a stream (never unpacked), and
//! `.sgfs` files (one game per line). The `sgf/` of a packed games folder, and any file in
//! it, is read from the folder's `sgf.tar.xz` (`util::pack`) by the path it had loose, and
//! that archive's records are named by those paths.
//!
//! [`for_each`] walks the inputs in a deterministic order and hands every raw record to a
//! callback; [`stream`] runs it on a reader thread behind a bounded channel, so
//! decompression overlaps with parsing on the other core.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use thiserror::Error;

/// The bytes of one record (or one file holding several) and where they came from.
#[derive(Debug, Clone)]
pub struct RawRecord {
    /// Position in the input order (0-based), for deterministic results.
    pub seq: u64,
    /// Game id: the file stem, with `#line` for `.sgfs` lines.
    pub id: String,
    /// A path, or `archive!member`, or `file.sgfs:line` (a packed games folder's game: its
    /// loose path, `RUN/sgf/NAME`).
    pub source: String,
    pub bytes: Vec<u8>,
}

/// An input that could not be read (the build goes on with the rest).
#[derive(Debug, Error)]
#[error("{source_name}: {reason}")]
pub struct SourceError {
    pub source_name: String,
    pub reason: String,
}

/// What kind of input a path is, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Sgf,
    Sgfs,
    Tar,
    TarGz,
    TarXz,
}

impl InputKind {
    /// Classifies a file name (case-insensitive); `None` for files that are not records.
    pub fn of(name: &str) -> Option<InputKind> {
        let n = name.to_ascii_lowercase();
        if n.ends_with(".sgf") {
            Some(InputKind::Sgf)
        } else if n.ends_with(".sgfs") {
            Some(InputKind::Sgfs)
        } else if n.ends_with(".tar") {
            Some(InputKind::Tar)
        } else if n.ends_with(".tar.gz") || n.ends_with(".tgz") {
            Some(InputKind::TarGz)
        } else if n.ends_with(".tar.xz") || n.ends_with(".txz") {
            Some(InputKind::TarXz)
        } else {
            None
        }
    }
}

/// The id of a record from its file name: the stem without `.sgf`.
pub fn id_from_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    if lower.ends_with(".sgf") {
        base[..base.len() - 4].to_string()
    } else {
        base.to_string()
    }
}

/// Largest single record accepted (bigger entries are skipped as errors, not loaded).
pub const MAX_RECORD_BYTES: u64 = 16 << 20;

struct Walker<'f> {
    seq: u64,
    /// Folders already walked, by device and inode: a symbolic link back up the tree (or a
    /// folder reached twice) is read once, so a link loop cannot make the walk endless.
    seen_dirs: std::collections::HashSet<(u64, u64)>,
    emit: &'f mut dyn FnMut(Result<RawRecord, SourceError>) -> ControlFlow<()>,
}

impl Walker<'_> {
    fn record(&mut self, id: String, source: String, bytes: Vec<u8>) -> ControlFlow<()> {
        let seq = self.seq;
        self.seq += 1;
        (self.emit)(Ok(RawRecord {
            seq,
            id,
            source,
            bytes,
        }))
    }

    fn error(&mut self, source: &str, reason: impl ToString) -> ControlFlow<()> {
        (self.emit)(Err(SourceError {
            source_name: source.to_string(),
            reason: reason.to_string(),
        }))
    }

    fn path(&mut self, path: &Path, explicit: bool) -> ControlFlow<()> {
        let name = crate::util::fsio::path_text(path);
        if path.is_dir() {
            return self.dir(path);
        }
        // Inside folders only regular files are read: opening a FIFO or a device found
        // there would wait (or read) forever. A path named on the command line is read
        // whatever it is (`--sgf /dev/stdin`).
        if !explicit && !path.is_file() {
            if InputKind::of(&name).is_some() {
                return self.error(&name, "not a regular file (skipped)");
            }
            return ControlFlow::Continue(());
        }
        let kind = InputKind::of(&name);
        let Some(kind) = kind else {
            if explicit {
                // Named on the command line: read it as SGF whatever its extension.
                return self.file(path, InputKind::Sgf);
            }
            return ControlFlow::Continue(());
        };
        self.file(path, kind)
    }

    fn dir(&mut self, dir: &Path) -> ControlFlow<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            match std::fs::metadata(dir) {
                Ok(m) if !self.seen_dirs.insert((m.dev(), m.ino())) => {
                    return self.error(
                        &crate::util::fsio::path_text(dir),
                        "folder already read (a symbolic link loop or a second path to it)",
                    );
                }
                Ok(_) => {}
                Err(e) => return self.error(&crate::util::fsio::path_text(dir), e),
            }
        }
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => return self.error(&crate::util::fsio::path_text(dir), e),
        };
        entries.sort();
        for p in entries {
            self.path(&p, false)?;
        }
        ControlFlow::Continue(())
    }

    fn file(&mut self, path: &Path, kind: InputKind) -> ControlFlow<()> {
        let name = crate::util::fsio::path_text(path);
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) => return self.error(&name, e),
        };
        match kind {
            InputKind::Sgf => {
                let mut bytes = Vec::new();
                match file.take(MAX_RECORD_BYTES + 1).read_to_end(&mut bytes) {
                    Ok(_) if bytes.len() as u64 > MAX_RECORD_BYTES => {
                        self.error(&name, "file larger than 16 MiB")
                    }
                    Ok(_) => self.record(id_from_name(&name), name, bytes),
                    Err(e) => self.error(&name, e),
                }
            }
            InputKind::Sgfs => self.sgfs(BufReader::new(file), &name),
            InputKind::Tar => self.tar(file, &name),
            InputKind::TarGz => self.tar(flate2::read::MultiGzDecoder::new(file), &name),
            InputKind::TarXz => self.tar(liblzma::read::XzDecoder::new(file), &name),
        }
    }

    fn sgfs<R: BufRead>(&mut self, mut input: R, name: &str) -> ControlFlow<()> {
        let stem = id_from_name(name.trim_end_matches(".sgfs"));
        let mut line = Vec::new();
        let mut number = 0usize;
        loop {
            line.clear();
            // A line is read up to the record size limit: a file without newlines must not
            // be loaded whole.
            match (&mut input)
                .take(MAX_RECORD_BYTES + 1)
                .read_until(b'\n', &mut line)
            {
                Ok(0) => return ControlFlow::Continue(()),
                Ok(_) => {}
                Err(e) => return self.error(&format!("{name}:{}", number + 1), e),
            }
            number += 1;
            if line.len() as u64 > MAX_RECORD_BYTES && line.last() != Some(&b'\n') {
                self.error(&format!("{name}:{number}"), "line longer than 16 MiB")?;
                // Skip the rest of the long line.
                loop {
                    line.clear();
                    match (&mut input).take(1 << 20).read_until(b'\n', &mut line) {
                        Ok(0) | Err(_) => return ControlFlow::Continue(()),
                        Ok(_) if line.last() == Some(&b'\n') => break,
                        Ok(_) => {}
                    }
                }
                continue;
            }
            let trimmed = line.trim_ascii();
            if trimmed.is_empty() {
                continue;
            }
            self.record(
                format!("{stem}#{number}"),
                format!("{name}:{number}"),
                trimmed.to_vec(),
            )?;
        }
    }

    /// The absent `path` of a packed games folder (`util::pack`): its folder `RUN/sgf` is
    /// the whole archive, a file `RUN/sgf/NAME` its one member, read as SGF as a named file
    /// is, and named by that path as it would be loose.
    fn packed(&mut self, path: &Path, archive: &Path, member: Option<String>) -> ControlFlow<()> {
        let Some(member) = member else {
            return self.file(archive, InputKind::TarXz);
        };
        let source = crate::util::fsio::path_text(path);
        match crate::util::pack::read_game_file(path) {
            Ok(bytes) if bytes.len() as u64 > MAX_RECORD_BYTES => {
                self.error(&source, "member larger than 16 MiB")
            }
            Ok(bytes) => self.record(id_from_name(&member), source, bytes),
            Err(e) => self.error(&crate::util::fsio::path_text(path), e),
        }
    }

    fn tar<R: Read>(&mut self, input: R, name: &str) -> ControlFlow<()> {
        let mut archive = tar::Archive::new(input);
        let entries = match archive.entries() {
            Ok(e) => e,
            Err(e) => return self.error(name, e),
        };
        for entry in entries {
            let mut entry = match entry {
                Ok(e) => e,
                // A corrupt archive cannot be resynchronised: report and stop this input.
                Err(e) => return self.error(name, format!("archive error: {e}")),
            };
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let member = match entry.path() {
                Ok(p) => crate::util::fsio::path_text(&p),
                Err(e) => {
                    self.error(name, format!("bad member name: {e}"))?;
                    continue;
                }
            };
            let Some(kind) = InputKind::of(&member) else {
                continue;
            };
            // A packed games folder's game goes by its loose path (`util::pack::loose_name`):
            // a suite or dataset made from the folder names its games the same either way.
            let source = crate::util::pack::loose_name(name, &member)
                .unwrap_or_else(|| format!("{name}!{member}"));
            if entry.size() > MAX_RECORD_BYTES {
                self.error(&source, "member larger than 16 MiB")?;
                continue;
            }
            match kind {
                InputKind::Sgf => {
                    let mut bytes = Vec::with_capacity(entry.size() as usize);
                    match entry.read_to_end(&mut bytes) {
                        Ok(_) => self.record(id_from_name(&member), source, bytes)?,
                        Err(e) => return self.error(&source, format!("archive error: {e}")),
                    }
                }
                InputKind::Sgfs => self.sgfs(BufReader::new(&mut entry), &source)?,
                // Archives inside archives are not opened.
                _ => self.error(&source, "nested archive not read")?,
            }
        }
        ControlFlow::Continue(())
    }
}

/// Walks `inputs` in order (folders sorted by name) and calls `emit` for every raw record
/// or unreadable input; `emit` may stop the walk early with `ControlFlow::Break`.
pub fn for_each<F>(inputs: &[PathBuf], mut emit: F)
where
    F: FnMut(Result<RawRecord, SourceError>) -> ControlFlow<()>,
{
    let mut w = Walker {
        seq: 0,
        seen_dirs: Default::default(),
        emit: &mut emit,
    };
    for p in inputs {
        if let Some((archive, member)) = crate::util::pack::packed_location(p) {
            if w.packed(p, &archive, member).is_break() {
                return;
            }
            continue;
        }
        if !p.exists() {
            if w.error(&crate::util::fsio::path_text(p), "no such file or folder")
                .is_break()
            {
                return;
            }
            continue;
        }
        if w.path(p, true).is_break() {
            return;
        }
    }
}

/// Every record of `inputs`, in order (for tests and small inputs).
pub fn read_all(inputs: &[PathBuf]) -> Vec<Result<RawRecord, SourceError>> {
    let mut out = Vec::new();
    for_each(inputs, |r| {
        out.push(r);
        ControlFlow::Continue(())
    });
    out
}

/// Runs [`for_each`] on a reader thread; records arrive through a bounded channel. Dropping
/// the receiver stops the reader.
pub fn stream(inputs: Vec<PathBuf>) -> mpsc::Receiver<Result<RawRecord, SourceError>> {
    let (tx, rx) = mpsc::sync_channel(4096);
    std::thread::Builder::new()
        .name("sgf-reader".into())
        .spawn(move || {
            for_each(&inputs, |r| {
                if tx.send(r).is_ok() {
                    ControlFlow::Continue(())
                } else {
                    ControlFlow::Break(())
                }
            })
        })
        .expect("spawning the reader thread");
    rx
}

/// Reads a whole file, transparently decompressing `.xz` and `.gz` (for index files).
pub fn read_maybe_compressed(path: &Path) -> io::Result<Vec<u8>> {
    /// Largest index accepted once decompressed (the OGS index is about 20 MB).
    const MAX_INDEX_BYTES: u64 = 1 << 30;
    /// An index's header line fits in this much: a stream without a line break in it is no
    /// CSV, and is refused before more of it is decompressed (a compression bomb).
    const HEADER_BYTES: u64 = 64 * 1024;
    let file = File::open(path)?.take(MAX_INDEX_BYTES + 1);
    let name = path.to_string_lossy().to_ascii_lowercase();
    let mut reader: Box<dyn Read> = if name.ends_with(".xz") {
        Box::new(liblzma::read::XzDecoder::new(file).take(MAX_INDEX_BYTES + 1))
    } else if name.ends_with(".gz") {
        Box::new(flate2::read::MultiGzDecoder::new(file).take(MAX_INDEX_BYTES + 1))
    } else {
        Box::new(BufReader::new(file))
    };
    let mut out = Vec::new();
    (&mut reader).take(HEADER_BYTES).read_to_end(&mut out)?;
    let header_ends = out.contains(&b'\n') || (out.len() as u64) < HEADER_BYTES;
    if !header_ends || out.contains(&0) {
        // The caller names the file.
        return Err(io::Error::other(format!(
            "its first {} bytes hold no CSV header line: not an index",
            out.len()
        )));
    }
    reader.read_to_end(&mut out)?;
    if out.len() as u64 > MAX_INDEX_BYTES {
        return Err(io::Error::other(format!(
            "larger than {MAX_INDEX_BYTES} bytes: not an index"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlink_loops_end() {
        let d = std::env::temp_dir().join(format!("akushu-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("L/sub")).unwrap();
        std::fs::write(d.join("L/sub/a.sgf"), "(;SZ[9];B[ee])").unwrap();
        std::os::unix::fs::symlink("..", d.join("L/sub/up")).unwrap();
        let all = read_all(&[d.join("L")]);
        let records = all.iter().filter(|r| r.is_ok()).count();
        assert_eq!(records, 1, "{all:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn sgfs_lines_past_the_size_limit_are_skipped() {
        let d = std::env::temp_dir().join(format!("akushu-longline-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("x.sgfs");
        let mut bytes = b"(;SZ[9];B[ee])\n".to_vec();
        bytes.extend(std::iter::repeat_n(b';', MAX_RECORD_BYTES as usize + 10));
        bytes.extend_from_slice(b"\n(;SZ[9];B[cc])\n");
        std::fs::write(&path, &bytes).unwrap();
        let all = read_all(std::slice::from_ref(&path));
        let ok: Vec<_> = all.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(
            ok.len(),
            2,
            "{:?}",
            ok.iter().map(|r| &r.id).collect::<Vec<_>>()
        );
        assert_eq!(all.iter().filter(|r| r.is_err()).count(), 1);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn kinds_and_ids() {
        assert_eq!(InputKind::of("a/B.SGF"), Some(InputKind::Sgf));
        assert_eq!(InputKind::of("x.tar.xz"), Some(InputKind::TarXz));
        assert_eq!(InputKind::of("x.tgz"), Some(InputKind::TarGz));
        assert_eq!(InputKind::of("x.txt"), None);
        assert_eq!(id_from_name("ogs9x9/ogs_123.sgf"), "ogs_123");
    }
}
