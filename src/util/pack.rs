//! Packed game folders: a finished run's `sgf/` folder as one archive beside the files that
//! stay loose (`games.csv`, `summary.*`, the header), so a repository keeping thousands of
//! games tracks one file a run instead of one a game.
//!
//! The archive is `sgf.tar.xz` in the folder that held `sgf/`: a tar of every file of
//! `sgf/`, each named `sgf/NAME`, compressed with xz. Its bytes follow from the files alone:
//! members sorted by name, each a plain ustar file entry with mode 0644, uid and gid 0, no
//! owner names and mtime 0, no directory entries and no extended headers, compressed at xz
//! preset 6 on one thread with a CRC-64 check. Packing the same files always gives the same
//! archive, so a repacked folder is no change to git, and `tar xJf sgf.tar.xz` (or
//! [`unpack`]) gives back the very files, names and bytes.
//!
//! Readers take the paths a loose folder has (`RUN/sgf/game-00001.sgf`, `RUN/sgf`):
//! [`read_game_file`] and [`list_sgf_dir`] read them from the archive when the folder is
//! packed, so one reader serves both forms, and a record read from the archive is named by
//! its loose path ([`loose_name`]), so what is derived from a folder's games is the same
//! packed or not. Writers refuse a packed folder (see
//! [`refuse_packed`]): a run resumed into one would leave games half in the archive, half
//! loose.
//!
//! [`pack`] and [`unpack`] each finish what a killed run of themselves left: a folder found
//! with both `sgf/` and an archive holding the same files has its second copy removed; with
//! different files it is refused, nothing removed.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};

/// The folder of a games folder that holds its SGFs.
pub const SGF_DIR: &str = "sgf";
/// The archive that holds them once the folder is packed.
pub const ARCHIVE: &str = "sgf.tar.xz";
/// xz's default preset: the largest committed `sgf/` is under 1 MB, well inside its 8 MiB
/// dictionary, so a higher preset would only cost memory.
const XZ_PRESET: u32 = 6;
/// A ustar name holds 100 bytes; `sgf/` takes 4 of them. Longer names are refused rather
/// than split into the prefix field, which older readers mishandle.
const MAX_NAME: usize = 96;

/// The files of one archive: member name (`sgf/NAME`) to bytes.
pub type Members = BTreeMap<String, Vec<u8>>;

/// The archive of the games folder `folder`.
pub fn archive_path(folder: &Path) -> PathBuf {
    folder.join(ARCHIVE)
}

/// Whether `folder` holds its SGFs packed (an `sgf.tar.xz`).
pub fn is_packed(folder: &Path) -> bool {
    archive_path(folder).is_file()
}

/// The error for a writer asked to add games to the packed folder `folder`.
pub fn refuse_packed(folder: &Path) -> Result<()> {
    if is_packed(folder) {
        bail!(
            "{} holds its games packed in {}: unpack it first (`akushu runs unpack {}`), \
             then resume; pack it again when the run is done",
            folder.display(),
            archive_path(folder).display(),
            folder.display()
        );
    }
    Ok(())
}

/// Whether a reader of games finds `path`: it exists, or it is a packed games folder's
/// `sgf/` or one of its games ([`packed_location`]).
pub fn found(path: &Path) -> bool {
    path.exists() || packed_location(path).is_some()
}

/// Where the absent `path` is kept when its games folder is packed: `RUN/sgf/NAME` is the
/// member `sgf/NAME` of `RUN/sgf.tar.xz`, and `RUN/sgf` the whole archive (member `None`).
/// `None` when `path` exists or is no such path of a packed folder.
pub fn packed_location(path: &Path) -> Option<(PathBuf, Option<String>)> {
    if path.exists() {
        return None;
    }
    let in_run = |dir: &Path| -> Option<PathBuf> {
        let run = dir.parent()?;
        let archive = if run.as_os_str().is_empty() {
            PathBuf::from(ARCHIVE)
        } else {
            archive_path(run)
        };
        archive.is_file().then_some(archive)
    };
    if path.file_name()? == SGF_DIR
        && let Some(archive) = in_run(path)
    {
        return Some((archive, None));
    }
    let dir = path.parent()?;
    if dir.file_name()? != SGF_DIR {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    Some((in_run(dir)?, Some(format!("{SGF_DIR}/{name}"))))
}

/// The name a record read from member `member` of the archive named `archive` goes by: the
/// path it has loose (`RUN/sgf/NAME`) when the archive is a packed games folder's
/// (`RUN/sgf.tar.xz`, member `sgf/NAME`), so what names its records (a dataset's `source`
/// column, an opening suite's comments) reads the same whether the folder is packed or not;
/// `None` for any other archive.
pub fn loose_name(archive: &str, member: &str) -> Option<String> {
    let run = match archive.strip_suffix(ARCHIVE)? {
        "" => "",
        run => run.strip_suffix('/')?,
    };
    let name = member.strip_prefix(&format!("{SGF_DIR}/"))?;
    if !valid_name(name) {
        return None;
    }
    Some(if run.is_empty() {
        member.to_string()
    } else {
        format!("{run}/{member}")
    })
}

/// The bytes of `path`, read from its folder's archive when the folder is packed (see
/// [`packed_location`]). An error names the file, or the archive and the member.
pub fn read_game_file(path: &Path) -> io::Result<Vec<u8>> {
    match fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match packed_location(path) {
            Some((archive, Some(member))) => {
                let members = cached_members(&archive)?;
                members.get(&member).cloned().ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::NotFound,
                        format!(
                            "reading {}: not in {} (no member {member})",
                            path.display(),
                            archive.display()
                        ),
                    )
                })
            }
            _ => Err(io::Error::new(
                e.kind(),
                format!("reading {}: {e}", path.display()),
            )),
        },
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!("reading {}: {e}", path.display()),
        )),
    }
}

/// The files of the absent folder `dir` (`RUN/sgf`) of a packed games folder, as the paths
/// they have loose (`RUN/sgf/NAME`), sorted; `None` when `dir` is no such folder.
pub fn list_sgf_dir(dir: &Path) -> io::Result<Option<Vec<PathBuf>>> {
    match packed_location(dir) {
        Some((archive, None)) => {
            let members = cached_members(&archive)?;
            Ok(Some(
                members
                    .keys()
                    .map(|m| dir.join(&m[SGF_DIR.len() + 1..]))
                    .collect(),
            ))
        }
        _ => Ok(None),
    }
}

/// The archive read last, kept while its file is unchanged: readers go through one folder's
/// games at a time, so one entry saves reading the archive once a game, and memory stays
/// bounded by the largest folder.
struct Cached {
    archive: PathBuf,
    stamp: (u64, Option<std::time::SystemTime>),
    members: Arc<Members>,
}

static LAST: Mutex<Option<Cached>> = Mutex::new(None);

fn stamp(path: &Path) -> io::Result<(u64, Option<std::time::SystemTime>)> {
    let meta = fs::metadata(path)?;
    Ok((meta.len(), meta.modified().ok()))
}

/// The members of `archive`, from the one-entry cache when it is the archive read last.
fn cached_members(archive: &Path) -> io::Result<Arc<Members>> {
    let stamp = stamp(archive).map_err(|e| named(archive, e))?;
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = last.as_ref()
        && c.archive == archive
        && c.stamp == stamp
    {
        return Ok(c.members.clone());
    }
    let members = Arc::new(read_archive(archive)?);
    *last = Some(Cached {
        archive: archive.to_path_buf(),
        stamp,
        members: members.clone(),
    });
    Ok(members)
}

fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("reading {}: {e}", path.display()))
}

fn invalid(path: &Path, why: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {why}", path.display()),
    )
}

/// Whether `name` is one a packed member may have: a plain file name, short enough for a
/// ustar header, with no separator and no `.`/`..`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
}

/// Every member of `archive`, checked to be what [`pack`] writes: regular files named
/// `sgf/NAME`, each once. Anything else is refused naming the archive and the member, so
/// an archive from elsewhere cannot unpack outside `sgf/`.
pub fn read_archive(archive: &Path) -> io::Result<Members> {
    let file = fs::File::open(archive).map_err(|e| named(archive, e))?;
    let mut tar = tar::Archive::new(liblzma::read::XzDecoder::new(io::BufReader::new(file)));
    let mut members = Members::new();
    for entry in tar.entries().map_err(|e| named(archive, e))? {
        let mut entry = entry.map_err(|e| named(archive, e))?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        if !entry.header().entry_type().is_file() {
            return Err(invalid(
                archive,
                format!("member {raw} is not a regular file: not a packed games folder"),
            ));
        }
        let name = raw.strip_prefix(&format!("{SGF_DIR}/")).unwrap_or("");
        if !valid_name(name) {
            return Err(invalid(
                archive,
                format!("member {raw} is not a file of {SGF_DIR}/: not a packed games folder"),
            ));
        }
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| invalid(archive, format!("member {raw}: {e}")))?;
        if members.insert(raw.clone(), bytes).is_some() {
            return Err(invalid(archive, format!("member {raw} is there twice")));
        }
    }
    Ok(members)
}

/// The files of the loose folder `sgf` (a games folder's `sgf/`), by member name. Anything
/// but a regular file with a name a member may have is refused naming it: a subfolder or a
/// link would not come back as it was, and a `NAME.tmp-PID` is a killed writer's litter.
pub fn read_loose(sgf: &Path) -> Result<Members> {
    let mut members = Members::new();
    for entry in fs::read_dir(sgf).with_context(|| format!("reading {}", sgf.display()))? {
        let entry = entry.with_context(|| format!("reading {}", sgf.display()))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .with_context(|| format!("reading {}", path.display()))?;
        let name = entry.file_name();
        let Some(name) = name.to_str().filter(|n| valid_name(n)) else {
            bail!(
                "{}: a name a packed member cannot have (at most {MAX_NAME} bytes of UTF-8): \
                 not packed",
                path.display()
            );
        };
        if !kind.is_file() {
            bail!(
                "{} is not a regular file: only files are packed",
                path.display()
            );
        }
        if name.contains(".tmp-") {
            bail!(
                "{} is a half-written file a killed run left: resume the run or remove it, \
                 then pack",
                path.display()
            );
        }
        let bytes = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        members.insert(format!("{SGF_DIR}/{name}"), bytes);
    }
    Ok(members)
}

/// Writes `members` as the deterministic archive the module's doc describes.
pub fn write_archive<W: Write>(out: W, members: &Members) -> io::Result<W> {
    let xz = liblzma::write::XzEncoder::new(out, XZ_PRESET);
    let mut tar = tar::Builder::new(xz);
    // BTreeMap order: members sorted by name, whatever order the folder listed them in.
    for (name, bytes) in members {
        let mut header = tar::Header::new_ustar();
        header.set_path(name)?;
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        tar.append(&header, bytes.as_slice())?;
    }
    tar.into_inner()?.finish()
}

/// What [`pack`] or [`unpack`] did to one games folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Done: this many files moved into or out of the archive, which has this many bytes.
    Done { files: usize, archive_bytes: u64 },
    /// Already in the form asked for; nothing changed.
    Already,
}

/// Packs the games folder `folder`: its `sgf/` becomes `sgf.tar.xz`, written atomically and
/// read back against the files before they are removed. Holds the folder's lock, so a run
/// writing there refuses to start (and a running one makes the pack refuse).
pub fn pack(folder: &Path) -> Result<Outcome> {
    let _lock = crate::util::commit::OutputLock::acquire(folder)?;
    let sgf = folder.join(SGF_DIR);
    let archive = archive_path(folder);
    let loose = fs::symlink_metadata(&sgf).ok();
    match &loose {
        None if archive.is_file() => return Ok(Outcome::Already),
        None => bail!(
            "{} has neither {SGF_DIR}/ nor {ARCHIVE}: not a games folder",
            folder.display()
        ),
        Some(m) if !m.is_dir() => bail!("{} is not a folder: not packed", sgf.display()),
        Some(_) => {}
    }
    let members = read_loose(&sgf)?;
    if members.is_empty() {
        bail!("{} is empty: nothing to pack", sgf.display());
    }
    if archive.exists() {
        // A pack killed between writing the archive and removing the files: finish it when
        // the archive holds these very files.
        let packed = read_archive(&archive)?;
        if packed != members {
            bail!(
                "{} and {} both exist and differ: unpack into a fresh copy and compare \
                 before removing either",
                sgf.display(),
                archive.display()
            );
        }
    } else {
        crate::util::fsio::write_atomic_with(&archive, |w| write_archive(w, &members).map(|_| ()))?;
        if read_archive(&archive)? != members {
            let _ = fs::remove_file(&archive);
            bail!(
                "{}: read back, it does not hold the files of {}; removed, the files kept",
                archive.display(),
                sgf.display()
            );
        }
    }
    for name in members.keys() {
        let path = folder.join(name);
        fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
    }
    // Fails, keeping the folder, when a file appeared since it was read.
    fs::remove_dir(&sgf).with_context(|| format!("removing {}", sgf.display()))?;
    let archive_bytes = fs::metadata(&archive)
        .with_context(|| format!("reading {}", archive.display()))?
        .len();
    Ok(Outcome::Done {
        files: members.len(),
        archive_bytes,
    })
}

/// Unpacks the games folder `folder`: `sgf.tar.xz` becomes `sgf/` again (written into a
/// temporary folder, synced and renamed into place), then the archive is removed.
pub fn unpack(folder: &Path) -> Result<Outcome> {
    let _lock = crate::util::commit::OutputLock::acquire(folder)?;
    let sgf = folder.join(SGF_DIR);
    let archive = archive_path(folder);
    if !archive.is_file() {
        if sgf.is_dir() {
            return Ok(Outcome::Already);
        }
        bail!(
            "{} has neither {SGF_DIR}/ nor {ARCHIVE}: not a games folder",
            folder.display()
        );
    }
    let members = read_archive(&archive)?;
    let archive_bytes = fs::metadata(&archive)
        .with_context(|| format!("reading {}", archive.display()))?
        .len();
    if fs::symlink_metadata(&sgf).is_ok() {
        // An unpack killed between the rename and removing the archive (or a pack killed
        // before removing the files): finish it when both hold the same files.
        if read_loose(&sgf)? != members {
            bail!(
                "{} and {} both exist and differ: compare them before removing either",
                sgf.display(),
                archive.display()
            );
        }
    } else {
        let tmp = crate::util::commit::temp_dir_for(&sgf);
        if tmp.exists() {
            fs::remove_dir_all(&tmp).with_context(|| format!("removing {}", tmp.display()))?;
        }
        fs::create_dir(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        for (name, bytes) in &members {
            let path = tmp.join(&name[SGF_DIR.len() + 1..]);
            let mut f =
                fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
            f.write_all(bytes)
                .and_then(|_| f.sync_all())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        fs::rename(&tmp, &sgf)
            .with_context(|| format!("renaming {} to {}", tmp.display(), sgf.display()))?;
    }
    fs::remove_file(&archive).with_context(|| format!("removing {}", archive.display()))?;
    Ok(Outcome::Done {
        files: members.len(),
        archive_bytes,
    })
}

/// The games folders under `root` (itself or any folder below it holding `sgf/` or
/// `sgf.tar.xz`), sorted. Links are not followed, and no `sgf/` is searched into.
pub fn games_folders(root: &Path) -> Result<Vec<PathBuf>> {
    let meta = fs::metadata(root).with_context(|| format!("reading {}", root.display()))?;
    if !meta.is_dir() {
        bail!("{} is not a folder", root.display());
    }
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut holds = archive_path(&dir).is_file();
        for entry in fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
            let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
            if !entry.file_type()?.is_dir() {
                continue;
            }
            if entry.file_name() == SGF_DIR {
                holds = true;
            } else {
                stack.push(entry.path());
            }
        }
        if holds {
            found.push(dir);
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("akushu-pack-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(d.join(SGF_DIR)).unwrap();
        d
    }

    #[test]
    fn the_same_files_make_the_same_archive_bytes() {
        let mut a = Members::new();
        a.insert("sgf/game-00002.sgf".into(), b"(;B[aa])".to_vec());
        a.insert("sgf/game-00001.sgf".into(), b"(;B[bb])\n".to_vec());
        let one = write_archive(Vec::new(), &a).unwrap();
        let two = write_archive(Vec::new(), &a.clone()).unwrap();
        assert_eq!(one, two);
        // The xz magic, then a tar whose first member is the first name in order.
        assert_eq!(&one[..6], b"\xfd7zXZ\0");
    }

    #[test]
    fn a_packed_folder_reads_by_its_loose_paths() {
        let d = temp("read");
        fs::write(d.join("sgf/game-00001.sgf"), "(;SZ[9];B[ee])").unwrap();
        fs::write(d.join("games.csv"), "game\n1\n").unwrap();
        assert_eq!(
            pack(&d).unwrap(),
            Outcome::Done {
                files: 1,
                archive_bytes: fs::metadata(archive_path(&d)).unwrap().len()
            }
        );
        assert!(!d.join(SGF_DIR).exists() && d.join("games.csv").is_file());
        let path = d.join("sgf/game-00001.sgf");
        assert_eq!(read_game_file(&path).unwrap(), b"(;SZ[9];B[ee])");
        assert_eq!(list_sgf_dir(&d.join(SGF_DIR)).unwrap(), Some(vec![path]));
        let e = read_game_file(&d.join("sgf/game-00002.sgf"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("sgf.tar.xz") && e.contains("game-00002.sgf"),
            "{e}"
        );
        assert_eq!(pack(&d).unwrap(), Outcome::Already);
        assert!(
            refuse_packed(&d)
                .unwrap_err()
                .to_string()
                .contains("runs unpack")
        );
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_archive_member_of_a_packed_folder_goes_by_its_loose_path() {
        assert_eq!(
            loose_name("a/b/sgf.tar.xz", "sgf/game-00001.sgf").as_deref(),
            Some("a/b/sgf/game-00001.sgf")
        );
        assert_eq!(
            loose_name("sgf.tar.xz", "sgf/g.sgf").as_deref(),
            Some("sgf/g.sgf")
        );
        assert_eq!(loose_name("a/bsgf.tar.xz", "sgf/g.sgf"), None);
        assert_eq!(loose_name("a/games.tar.xz", "sgf/g.sgf"), None);
        assert_eq!(loose_name("a/sgf.tar.xz", "other/g.sgf"), None);
    }

    #[test]
    fn litter_and_subfolders_are_refused_naming_them() {
        let d = temp("litter");
        fs::write(d.join("sgf/game-00001.sgf.tmp-99"), "x").unwrap();
        let e = pack(&d).unwrap_err().to_string();
        assert!(e.contains("game-00001.sgf.tmp-99"), "{e}");
        fs::remove_file(d.join("sgf/game-00001.sgf.tmp-99")).unwrap();
        fs::create_dir(d.join("sgf/nested")).unwrap();
        let e = pack(&d).unwrap_err().to_string();
        assert!(
            e.contains("nested") && e.contains("not a regular file"),
            "{e}"
        );
        assert!(!archive_path(&d).exists());
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_archive_from_elsewhere_cannot_unpack_outside_the_folder() {
        let d = temp("outside");
        // The tar crate refuses to write such a name: the header's name field is set by hand.
        let mut header = tar::Header::new_ustar();
        header.as_old_mut().name[..11].copy_from_slice(b"../evil.sgf");
        header.set_size(1);
        header.set_mode(0o644);
        header.set_cksum();
        let mut tar = tar::Builder::new(liblzma::write::XzEncoder::new(Vec::new(), XZ_PRESET));
        tar.append(&header, &b"x"[..]).unwrap();
        let bytes = tar.into_inner().unwrap().finish().unwrap();
        fs::remove_dir(d.join(SGF_DIR)).unwrap();
        fs::write(archive_path(&d), bytes).unwrap();
        let e = unpack(&d).unwrap_err().to_string();
        assert!(
            e.contains("../evil.sgf") && e.contains("not a file of sgf/"),
            "{e}"
        );
        assert!(!d.join("../evil.sgf").exists() && !d.join(SGF_DIR).exists());
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_killed_pack_is_finished_and_a_differing_copy_refused() {
        let d = temp("killed");
        fs::write(d.join("sgf/a.sgf"), "(;B[aa])").unwrap();
        let members = read_loose(&d.join(SGF_DIR)).unwrap();
        fs::write(
            archive_path(&d),
            write_archive(Vec::new(), &members).unwrap(),
        )
        .unwrap();
        assert!(matches!(pack(&d).unwrap(), Outcome::Done { files: 1, .. }));
        assert!(!d.join(SGF_DIR).exists());
        unpack(&d).unwrap();
        fs::write(
            archive_path(&d),
            write_archive(Vec::new(), &Members::new()).unwrap(),
        )
        .unwrap();
        let e = unpack(&d).unwrap_err().to_string();
        assert!(e.contains("differ"), "{e}");
        assert!(d.join("sgf/a.sgf").is_file() && archive_path(&d).is_file());
        fs::remove_dir_all(d).unwrap();
    }
}
