//! Reading split files: the checked open (header, CRC-32, the folder's manifest), whole
//! splits, the streaming [`SplitReader`] and the mmap'd [`MappedSplit`].

use super::*;

pub(super) fn open_checked(
    dir: &Path,
    split: Split,
) -> Result<(File, SplitHeader, PathBuf), DatasetError> {
    let path = split_path(dir, split);
    let mut file = File::open(&path).map_err(io_err(&path))?;
    let mut h = [0u8; HEADER_SIZE];
    file.read_exact(&mut h).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            DatasetError::BadMagic { path: path.clone() }
        } else {
            io_err(&path)(e)
        }
    })?;
    let header = SplitHeader::parse(&h, &path, split)?;
    let size = header.record_size() as u64;
    let len = file.metadata().map_err(io_err(&path))?.len();
    let found = len.saturating_sub(HEADER_SIZE as u64) / size;
    let expected_bytes = (HEADER_SIZE as u64).saturating_add(header.count.saturating_mul(size));
    if len > expected_bytes {
        // Longer than promised is not a truncation: say what is wrong.
        return Err(DatasetError::ExtraBytes {
            path,
            expected: header.count,
            expected_bytes,
            found_bytes: len,
        });
    }
    if found != header.count || !(len - HEADER_SIZE as u64).is_multiple_of(size) {
        return Err(DatasetError::Truncated {
            path,
            expected: header.count,
            found,
        });
    }
    check_against_manifest(dir, split, &header, &path)?;
    Ok((file, header, path))
}

/// Refuses a split file that is not the one its folder's `manifest.json` lists (its count
/// and CRC-32): another build's `train.akd` or `test.akd` copied in would otherwise be
/// trained on or evaluated under this dataset's fingerprint, and every overlap check made
/// with that fingerprint would be wrong. A folder without a manifest (a bare split) or a
/// manifest that does not list the split is not checked.
pub(super) fn check_against_manifest(
    dir: &Path,
    split: Split,
    header: &SplitHeader,
    path: &Path,
) -> Result<(), DatasetError> {
    let manifest = dir.join(MANIFEST_FILE);
    let text = match std::fs::read_to_string(&manifest) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(&manifest)(e)),
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| DatasetError::Manifest {
            path: manifest.clone(),
            reason: e.to_string(),
        })?;
    let Some(listed) = value.get("splits").and_then(|s| s.get(split.name())) else {
        return Ok(());
    };
    let positions = listed.get("positions").and_then(serde_json::Value::as_u64);
    let crc = listed.get("crc32").and_then(serde_json::Value::as_u64);
    if positions == Some(header.count) && crc == Some(u64::from(header.crc)) {
        return Ok(());
    }
    Err(DatasetError::Manifest {
        path: path.to_path_buf(),
        reason: format!(
            "{} lists {} positions with CRC-32 {} for the {} split; this file holds {} with \
             {:08x}: it is not this build's file (rebuild the dataset)",
            manifest.display(),
            positions.map_or("no".into(), |n| n.to_string()),
            crc.map_or("none".into(), |c| format!("{c:08x}")),
            split.name(),
            header.count,
            header.crc
        ),
    })
}

/// Reads every position of `split` from dataset directory `dir`, checking the header, the
/// size and the checksum. This is the entry point the networks use.
pub fn read_split(dir: &Path, split: Split) -> Result<Vec<Position>, DatasetError> {
    SplitReader::open(dir, split)?.collect()
}

/// Reads only the header of `split`'s file (counts without loading records).
pub fn read_header(dir: &Path, split: Split) -> Result<SplitHeader, DatasetError> {
    open_checked(dir, split).map(|(_, h, _)| h)
}

/// Streams the positions of one split in file order; the checksum is verified when the last
/// record has been read (an error is then the final item).
pub struct SplitReader {
    input: BufReader<File>,
    header: SplitHeader,
    path: PathBuf,
    next: u64,
    crc: crc32fast::Hasher,
    done: bool,
}

impl SplitReader {
    pub fn open(dir: &Path, split: Split) -> Result<SplitReader, DatasetError> {
        let (file, header, path) = open_checked(dir, split)?;
        Ok(SplitReader {
            input: BufReader::with_capacity(1 << 20, file),
            header,
            path,
            next: 0,
            crc: crc32fast::Hasher::new(),
            done: false,
        })
    }

    pub fn header(&self) -> SplitHeader {
        self.header
    }
}

impl Iterator for SplitReader {
    type Item = Result<Position, DatasetError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.next == self.header.count {
            self.done = true;
            let found = std::mem::take(&mut self.crc).finalize();
            return (found != self.header.crc).then(|| {
                Err(DatasetError::Checksum {
                    path: self.path.clone(),
                    expected: self.header.crc,
                    found,
                })
            });
        }
        let mut buf = [0u8; MAX_RECORD_SIZE];
        let r = &mut buf[..self.header.record_size()];
        if let Err(e) = self.input.read_exact(r) {
            self.done = true;
            return Some(Err(io_err(&self.path)(e)));
        }
        self.crc.update(r);
        let index = self.next;
        self.next += 1;
        Some(decode(r).map_err(|reason| {
            self.done = true;
            DatasetError::BadRecord {
                path: self.path.clone(),
                index,
                reason,
            }
        }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.header.count - self.next) as usize;
        (left, Some(left + 1))
    }
}

/// A memory-mapped split: random access to any record without loading the file.
pub struct MappedSplit {
    map: memmap2::Mmap,
    header: SplitHeader,
    path: PathBuf,
}

impl MappedSplit {
    /// Maps `split`'s file and verifies its checksum (one pass over the bytes).
    pub fn open(dir: &Path, split: Split) -> Result<MappedSplit, DatasetError> {
        let (file, header, path) = open_checked(dir, split)?;
        // Safety: dataset files are written once into a temporary directory and renamed into
        // place; nothing modifies them while they are mapped.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err(&path))?;
        let found = crc32fast::hash(&map[HEADER_SIZE..]);
        if found != header.crc {
            return Err(DatasetError::Checksum {
                path,
                expected: header.crc,
                found,
            });
        }
        Ok(MappedSplit { map, header, path })
    }

    pub fn header(&self) -> SplitHeader {
        self.header
    }

    pub fn len(&self) -> usize {
        self.header.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw bytes of record `i`.
    pub fn raw(&self, i: usize) -> &[u8] {
        let size = self.header.record_size();
        let start = HEADER_SIZE + i * size;
        &self.map[start..start + size]
    }

    /// Record `i`, decoded and range-checked.
    pub fn get(&self, i: usize) -> Result<Position, DatasetError> {
        if i >= self.len() {
            return Err(DatasetError::OutOfRange {
                path: self.path.clone(),
                index: i as u64,
                len: self.len() as u64,
            });
        }
        decode(self.raw(i)).map_err(|reason| DatasetError::BadRecord {
            path: self.path.clone(),
            index: i as u64,
            reason,
        })
    }

    /// Every record in file order.
    pub fn iter(&self) -> impl Iterator<Item = Result<Position, DatasetError>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}
