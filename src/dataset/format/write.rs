//! [`SplitWriter`]: a split file written record by record, its header last.

use super::*;

/// Writes one split file: a placeholder header, the records, then the real header. Its
/// errors name the file (a full disk must say where it was met).
pub struct SplitWriter {
    out: BufWriter<File>,
    path: PathBuf,
    split: Split,
    version: u32,
    count: u64,
    crc: crc32fast::Hasher,
}

impl SplitWriter {
    /// Creates `split`'s file of version-1 records in `dir` (normally the builder's
    /// temporary directory).
    pub fn create(dir: &Path, split: Split) -> io::Result<SplitWriter> {
        SplitWriter::create_version(dir, split, VERSION)
    }

    /// Creates `split`'s file for records of format `version` (1, 2 or 3).
    pub fn create_version(dir: &Path, split: Split, version: u32) -> io::Result<SplitWriter> {
        let path = split_path(dir, split);
        let named = |e| crate::util::fsio::naming(&path, e);
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).map_err(named)?);
        out.write_all(&[0u8; HEADER_SIZE]).map_err(named)?;
        Ok(SplitWriter {
            out,
            path,
            split,
            version,
            count: 0,
            crc: crc32fast::Hasher::new(),
        })
    }

    /// Appends one position; it must be of the writer's version ([`version_of`]: a
    /// teacher's label exactly in version 3, search data alone exactly in version 2).
    pub fn push(&mut self, p: &Position) -> io::Result<()> {
        let found = version_of(p);
        if found != self.version {
            let what = match found {
                VERSION_TEACHER => "with a teacher's label",
                VERSION_SEARCH => "with search data",
                _ => "without search data or a label",
            };
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a position {what} in a version-{} split", self.version),
            ));
        }
        self.push_encoded(&encode_any(p))
    }

    /// Appends records already encoded with [`encode`] or [`encode_any`] (whole records of
    /// the writer's version).
    pub fn push_encoded(&mut self, bytes: &[u8]) -> io::Result<()> {
        let size = record_size(self.version);
        debug_assert_eq!(bytes.len() % size, 0);
        self.crc.update(bytes);
        self.count += (bytes.len() / size) as u64;
        self.out
            .write_all(bytes)
            .map_err(|e| crate::util::fsio::naming(&self.path, e))
    }

    /// Records written so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Writes the final header, flushes and syncs; returns the header.
    pub fn finish(self, games: u32) -> io::Result<SplitHeader> {
        let header = SplitHeader {
            version: self.version,
            count: self.count,
            games,
            crc: self.crc.finalize(),
            split: self.split,
        };
        let (mut out, path) = (self.out, self.path);
        let written = (|| {
            out.seek(SeekFrom::Start(0))?;
            out.write_all(&header.to_bytes())?;
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()
        })();
        written.map_err(|e| crate::util::fsio::naming(&path, e))?;
        Ok(header)
    }
}
