//! numpy's `.npz` files without numpy: a zip archive of `.npy` arrays, the container
//! `np.load` and `np.savez` read and write with no extra dependency (model exports:
//! `net/inference/export.rs`).
//!
//! Written: every member stored (zip method 0), one `.npy` of version 1.0 each, C order,
//! little-endian `float32` or `uint8`. Read: what numpy writes, stored (`np.savez`) or
//! deflated (`np.savez_compressed`), `.npy` versions 1 to 3, C or Fortran order, `float32`,
//! `float64` (narrowed to `float32`) and `uint8`, zip64 size fields on a member (numpy
//! writes members with `force_zip64`). Every member's CRC-32 is checked.

use std::io::Read;

/// Why bytes are not an `.npz` akushu can read.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NpzError(String);

fn bad<T>(message: impl Into<String>) -> Result<T, NpzError> {
    Err(NpzError(message.into()))
}

/// The values of an array, in row-major (C) order.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    F32(Vec<f32>),
    U8(Vec<u8>),
}

/// One array: its shape and its values (as many as the shape's product).
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub shape: Vec<usize>,
    pub values: Values,
}

impl Array {
    /// A `float32` array; `values.len()` must equal the product of `shape`.
    pub fn f32(shape: Vec<usize>, values: Vec<f32>) -> Array {
        assert_eq!(shape.iter().product::<usize>(), values.len());
        Array {
            shape,
            values: Values::F32(values),
        }
    }

    /// A one-dimensional `uint8` array of `bytes` (text, such as JSON, travels this way).
    pub fn bytes(bytes: Vec<u8>) -> Array {
        Array {
            shape: vec![bytes.len()],
            values: Values::U8(bytes),
        }
    }
}

const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// One `.npy` file: version 1.0, its header padded with spaces to a multiple of 64 bytes
/// (numpy's own alignment) and ended by a newline.
fn npy_bytes(a: &Array) -> Vec<u8> {
    let descr = match a.values {
        Values::F32(_) => "<f4",
        Values::U8(_) => "|u1",
    };
    // A 1-tuple needs its comma: `(81,)`.
    let dims: Vec<String> = a.shape.iter().map(|d| d.to_string()).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let unpadded = NPY_MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + a.shape.iter().product::<usize>() * 4);
    out.extend_from_slice(NPY_MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    match &a.values {
        Values::F32(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        Values::U8(v) => out.extend_from_slice(v),
    }
    out
}

/// The value of `key` in a `.npy` header (a Python dict literal), as its source text.
fn header_field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let at = header.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')? + 1
    } else if let Some(q) = rest.strip_prefix('\'') {
        q.find('\'')? + 2
    } else {
        rest.find([',', '}'])?
    };
    Some(rest[..end].trim())
}

/// Parses one `.npy` file (`name` for messages).
fn parse_npy(name: &str, bytes: &[u8]) -> Result<Array, NpzError> {
    if bytes.len() < 10 || !bytes.starts_with(NPY_MAGIC) {
        return bad(format!("{name}: not a .npy array (no \\x93NUMPY magic)"));
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize,
            12,
        ),
        v => return bad(format!("{name}: .npy format version {v} is not supported")),
    };
    let Some(header) = bytes.get(start..start + len) else {
        return bad(format!("{name}: the .npy header runs past the end"));
    };
    let header = String::from_utf8_lossy(header);
    let field = |key: &str| {
        header_field(&header, key)
            .ok_or_else(|| NpzError(format!("{name}: the .npy header has no `{key}`")))
    };
    let descr = field("descr")?.trim_matches('\'').to_string();
    let fortran = match field("fortran_order")? {
        "False" => false,
        "True" => true,
        other => return bad(format!("{name}: fortran_order `{other}`")),
    };
    let shape_text = field("shape")?;
    let mut shape = Vec::new();
    for d in shape_text
        .trim_matches(['(', ')'])
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        match d.parse::<usize>() {
            Ok(d) => shape.push(d),
            Err(_) => return bad(format!("{name}: shape `{shape_text}`")),
        }
    }
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| NpzError(format!("{name}: shape {shape:?} overflows")))?;
    let data = &bytes[start + len..];
    let width = match descr.as_str() {
        "<f4" => 4,
        "<f8" => 8,
        "|u1" | "<u1" => 1,
        _ => {
            return bad(format!(
                "{name}: dtype `{descr}` is not supported (float32, float64 or uint8, \
                 little-endian)"
            ));
        }
    };
    if count.checked_mul(width) != Some(data.len()) {
        return bad(format!(
            "{name}: {} data bytes for shape {shape:?} of `{descr}`",
            data.len()
        ));
    }
    let values = match width {
        4 => Values::F32(
            data.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        ),
        8 => Values::F32(
            data.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")) as f32)
                .collect(),
        ),
        _ => Values::U8(data.to_vec()),
    };
    let values = if fortran && shape.len() > 1 {
        match values {
            Values::F32(v) => Values::F32(c_order(&v, &shape)),
            Values::U8(v) => Values::U8(c_order(&v, &shape)),
        }
    } else {
        values
    };
    Ok(Array { shape, values })
}

/// Column-major values of `shape` in row-major order (`np.save` writes a transposed view in
/// Fortran order rather than copying it).
fn c_order<T: Copy>(v: &[T], shape: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(v.len());
    let mut index = vec![0usize; shape.len()];
    for _ in 0..v.len() {
        // The column-major position of the row-major index `index`.
        let (mut at, mut stride) = (0, 1);
        for (i, &d) in index.iter().zip(shape) {
            at += i * stride;
            stride *= d;
        }
        out.push(v[at]);
        for k in (0..shape.len()).rev() {
            index[k] += 1;
            if index[k] < shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    out
}

/// Zip's date field for 1980-01-01 (the earliest it can say): the archive has no
/// meaningful time, and a fixed one keeps exports of the same model byte-identical.
const ZIP_DATE: u16 = (1 << 5) | 1;

/// An `.npz` archive of `arrays`, each stored as `NAME.npy` in the order given.
pub fn write_npz(arrays: &[(&str, &Array)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, array) in arrays {
        let file = format!("{name}.npy");
        let data = npy_bytes(array);
        let crc = crc32fast::hash(&data);
        let offset = out.len() as u32;
        // Local header: signature, version 2.0, no flags, stored, time, date, CRC, sizes,
        // name length, no extra field.
        let put = |v: &mut Vec<u8>, parts: &[&[u8]]| parts.iter().for_each(|p| v.extend(*p));
        let size = (data.len() as u32).to_le_bytes();
        let fixed: [&[u8]; 9] = [
            &20u16.to_le_bytes(),
            &0u16.to_le_bytes(),
            &0u16.to_le_bytes(),
            &0u16.to_le_bytes(),
            &ZIP_DATE.to_le_bytes(),
            &crc.to_le_bytes(),
            &size,
            &size,
            &(file.len() as u16).to_le_bytes(),
        ];
        put(&mut out, &[&0x0403_4b50u32.to_le_bytes()]);
        put(&mut out, &fixed);
        put(&mut out, &[&0u16.to_le_bytes(), file.as_bytes(), &data]);
        // Central directory entry: the same fields after "version made by", then no extra,
        // no comment, disk 0, no attributes, and where the local header is.
        put(
            &mut central,
            &[&0x0201_4b50u32.to_le_bytes(), &20u16.to_le_bytes()],
        );
        put(&mut central, &fixed);
        put(
            &mut central,
            &[&[0u8; 12], &offset.to_le_bytes(), file.as_bytes()],
        );
    }
    let (cd_offset, cd_size) = (out.len() as u32, central.len() as u32);
    out.extend(central);
    let n = (arrays.len() as u16).to_le_bytes();
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]);
    for part in [
        &n[..],
        &n,
        &cd_size.to_le_bytes(),
        &cd_offset.to_le_bytes(),
        &[0, 0],
    ] {
        out.extend(part);
    }
    out
}

fn u16_at(b: &[u8], at: usize) -> Result<u16, NpzError> {
    match b.get(at..at + 2) {
        Some(s) => Ok(u16::from_le_bytes([s[0], s[1]])),
        None => bad("the zip archive is cut short"),
    }
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, NpzError> {
    match b.get(at..at + 4) {
        Some(s) => Ok(u32::from_le_bytes(s.try_into().expect("4 bytes"))),
        None => bad("the zip archive is cut short"),
    }
}

fn u64_at(b: &[u8], at: usize) -> Result<u64, NpzError> {
    match b.get(at..at + 8) {
        Some(s) => Ok(u64::from_le_bytes(s.try_into().expect("8 bytes"))),
        None => bad("the zip archive is cut short"),
    }
}

/// The sizes and offset of a central directory entry, with the zip64 extra field's values
/// where the 32-bit fields say `0xFFFFFFFF` (they appear in the field in this order).
fn zip64_fields(extra: &[u8], mut fields: [u64; 3]) -> Result<[u64; 3], NpzError> {
    let mut at = 0;
    while at + 4 <= extra.len() {
        let (id, len) = (u16_at(extra, at)?, u16_at(extra, at + 2)? as usize);
        if id == 1 {
            let mut k = at + 4;
            for f in fields.iter_mut().filter(|f| **f == u64::from(u32::MAX)) {
                *f = u64_at(extra, k)?;
                k += 8;
            }
            return Ok(fields);
        }
        at += 4 + len;
    }
    Ok(fields)
}

/// One member of an `.npz` archive, as its central directory describes it: enough to
/// refuse it (by name, declared size, duplicate) before a byte of it is inflated.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The array's name: the member's file name without `.npy`.
    pub name: String,
    /// The member's file name in the archive.
    pub file: String,
    /// Its size once inflated, as declared (zip64 included).
    pub size: u64,
    method: u16,
    crc: u32,
    /// Where its stored or deflated bytes lie in the archive.
    data: std::ops::Range<usize>,
}

/// The members of an `.npz` archive, in the archive's order. A name that appears twice is
/// refused: which copy a reader keeps would be arbitrary.
pub fn members(bytes: &[u8]) -> Result<Vec<Member>, NpzError> {
    // The end-of-central-directory record: the last `PK\5\6` within its 22 bytes plus a
    // comment of at most 65,535.
    let floor = bytes.len().saturating_sub(22 + 65_535);
    let Some(end) = (floor..bytes.len().saturating_sub(21))
        .rev()
        .find(|&i| bytes[i..i + 4] == 0x0605_4b50u32.to_le_bytes())
    else {
        return bad("not a zip archive (.npz): no end-of-central-directory record");
    };
    let entries = u16_at(bytes, end + 10)? as usize;
    let mut at = u32_at(bytes, end + 16)? as usize;
    if entries == 0xFFFF || at == u32::MAX as usize {
        return bad("zip64 archives (over 65,535 members or 4 GiB) are not supported");
    }
    let mut out: Vec<Member> = Vec::with_capacity(entries);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..entries {
        if u32_at(bytes, at)? != 0x0201_4b50 {
            return bad("the zip central directory is damaged");
        }
        let method = u16_at(bytes, at + 10)?;
        let crc = u32_at(bytes, at + 16)?;
        let sizes = [
            u64::from(u32_at(bytes, at + 24)?),
            u64::from(u32_at(bytes, at + 20)?),
            u64::from(u32_at(bytes, at + 42)?),
        ];
        let (name_len, extra_len, comment_len) = (
            u16_at(bytes, at + 28)? as usize,
            u16_at(bytes, at + 30)? as usize,
            u16_at(bytes, at + 32)? as usize,
        );
        let name_at = at + 46;
        let file = bytes
            .get(name_at..name_at + name_len)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .ok_or_else(|| NpzError("the zip central directory is cut short".into()))?;
        let extra = bytes
            .get(name_at + name_len..name_at + name_len + extra_len)
            .unwrap_or_default();
        let [size, packed, local] = zip64_fields(extra, sizes)?;
        at = name_at + name_len + extra_len + comment_len;
        // The data follows the local header, whose own name and extra lengths count.
        let local = usize::try_from(local).unwrap_or(usize::MAX);
        if u32_at(bytes, local)? != 0x0403_4b50 {
            return bad(format!("{file}: the zip local header is damaged"));
        }
        let local_names = u16_at(bytes, local + 26)? as usize + u16_at(bytes, local + 28)? as usize;
        let data_at = local + 30 + local_names;
        let data_end = usize::try_from(packed)
            .ok()
            .and_then(|p| data_at.checked_add(p))
            .filter(|&e| e <= bytes.len());
        let Some(data_end) = data_end else {
            return bad(format!(
                "{file}: the member runs past the end of the archive"
            ));
        };
        if method == 0 && packed != size {
            return bad(format!(
                "{file}: a stored member of {packed} bytes that declares {size}"
            ));
        }
        if !seen.insert(file.clone()) {
            return bad(format!(
                "{file}: the archive holds two members of this name (which one is meant?)"
            ));
        }
        out.push(Member {
            name: file.strip_suffix(".npy").unwrap_or(&file).to_string(),
            file,
            size,
            method,
            crc,
            data: data_at..data_end,
        });
    }
    Ok(out)
}

impl Member {
    /// The member's array, read from `bytes` (the archive [`members`] listed it from),
    /// refused unread when it declares more than `max_bytes` once inflated: a size field of
    /// 2^62 or a small deflated stream of gigabytes of zeros must not reach the allocator.
    /// `what` says, for the message, what bounds it.
    pub fn read(&self, bytes: &[u8], max_bytes: u64, what: &str) -> Result<Array, NpzError> {
        let name = &self.file;
        if self.size > max_bytes {
            return bad(format!(
                "{name}: declares {} bytes once inflated, more than the {max_bytes} {what}",
                self.size
            ));
        }
        let raw = &bytes[self.data.clone()];
        let data = match self.method {
            0 => raw.to_vec(),
            8 => {
                // Bounded twice: the capacity by the checked size (and by deflate's largest
                // ratio, 1032:1), the inflation by `take` (a stream longer than declared is
                // cut and fails the checks below).
                let mut d = Vec::with_capacity(self.size.min(raw.len() as u64 * 1032) as usize);
                flate2::read::DeflateDecoder::new(raw)
                    .take(self.size)
                    .read_to_end(&mut d)
                    .map_err(|e| NpzError(format!("{name}: {e}")))?;
                d
            }
            m => return bad(format!("{name}: zip method {m} (only stored and deflate)")),
        };
        if data.len() as u64 != self.size || crc32fast::hash(&data) != self.crc {
            return bad(format!("{name}: checksum mismatch: the archive is corrupt"));
        }
        parse_npy(name, &data)
    }
}

/// Every array of an `.npz` archive, in the archive's order, named without `.npy`; a member
/// that declares more than `max_member` bytes once inflated is refused unread.
pub fn read_npz(bytes: &[u8], max_member: u64) -> Result<Vec<(String, Array)>, NpzError> {
    members(bytes)?
        .into_iter()
        .map(|m| {
            let a = m.read(bytes, max_member, "bytes an array may take here")?;
            Ok((m.name, a))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_round_trip_and_a_flipped_byte_is_caught() {
        let a = Array::f32(
            vec![2, 3],
            vec![1.0, -2.5, 3.0, f32::MIN_POSITIVE, 0.0, 7.0],
        );
        let b = Array::f32(vec![4], vec![0.5; 4]);
        let c = Array::bytes(b"{\"x\": 1}".to_vec());
        let bytes = write_npz(&[("a.weight", &a), ("b", &b), ("meta", &c)]);
        let back = read_npz(&bytes, u64::MAX).unwrap();
        let names: Vec<&str> = back.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a.weight", "b", "meta"]);
        assert_eq!((&back[0].1, &back[1].1, &back[2].1), (&a, &b, &c));
        // Same arrays, same bytes.
        assert_eq!(
            write_npz(&[("a.weight", &a), ("b", &b), ("meta", &c)]),
            bytes
        );
        let mut broken = bytes.clone();
        broken[100] ^= 1;
        assert!(
            read_npz(&broken, u64::MAX)
                .unwrap_err()
                .to_string()
                .contains("checksum")
        );
        assert!(read_npz(b"not a zip", u64::MAX).is_err());
    }

    #[test]
    fn npy_headers_are_aligned_and_fortran_order_is_read() {
        let a = Array::f32(vec![81], vec![0.0; 81]);
        let npy = npy_bytes(&a);
        let header_end = 10 + u16::from_le_bytes([npy[8], npy[9]]) as usize;
        assert_eq!(header_end % 64, 0);
        assert!(String::from_utf8_lossy(&npy[..header_end]).contains("'shape': (81,)"));
        // [[1, 2, 3], [4, 5, 6]] stored column-major: 1 4 2 5 3 6.
        assert_eq!(
            c_order(&[1, 4, 2, 5, 3, 6], &[2, 3]),
            vec![1, 2, 3, 4, 5, 6]
        );
        assert_eq!(
            header_field(
                "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                "shape"
            ),
            Some("(2, 3)")
        );
    }
}
