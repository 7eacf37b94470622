//! A minimal zip writer (no encryption, no zip64): enough to hand a folder of text files — a Psych-DS
//! dataset — to a browser download ([`write`](fn@write), deflated), or to write the archive PyTorch's `torch.save`
//! writes ([`write_aligned`], stored, each entry's data aligned as PyTorch aligns it). Pure: files in,
//! bytes out. Timestamps are the DOS epoch (1980-01-01), so the same files give the same bytes.

use crate::hash::crc32;

/// The zip archive of `(path, bytes)` entries (paths with `/`, relative; at most 65,535 entries and
/// 4 GiB in all).
pub fn write(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    archive(files, None)
}

/// The zip archive of `(path, bytes)` entries stored uncompressed, each entry's data starting at a
/// multiple of `align` bytes (padded through an extra field of the local header, id `FB`, as PyTorch's
/// archive writer does, so its reader can map the tensors in place).
pub fn write_aligned(files: &[(String, Vec<u8>)], align: usize) -> Vec<u8> {
    archive(files, Some(align.max(1)))
}

fn archive(files: &[(String, Vec<u8>)], align: Option<usize>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (path, data) in files {
        let crc = crc32(data);
        let packed = if align.is_none() { miniz_oxide::deflate::compress_to_vec(data, 6) } else { Vec::new() };
        let deflate = align.is_none() && packed.len() < data.len();
        let (method, body): (u16, &[u8]) = if deflate { (8, &packed) } else { (0, data) };
        let offset = out.len() as u32;
        let name = path.as_bytes();
        // The local header's padding: 4 bytes of extra-field header and `pad` filler bytes.
        let extra: Vec<u8> = match align {
            Some(a) => {
                let start = out.len() + 30 + name.len() + 4;
                let pad = (a - start % a) % a;
                let mut e = vec![b'F', b'B'];
                e.extend_from_slice(&(pad as u16).to_le_bytes());
                e.extend(std::iter::repeat_n(b'Z', pad));
                e
            }
            None => Vec::new(),
        };
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes()); // made by: 2.0
            }
            h.extend_from_slice(&20u16.to_le_bytes()); // needed: 2.0
            h.extend_from_slice(&0x0800u16.to_le_bytes()); // UTF-8 names
            h.extend_from_slice(&method.to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes()); // time
            h.extend_from_slice(&0x21u16.to_le_bytes()); // date: 1980-01-01
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(body.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            let extra_len = if central { 0 } else { extra.len() as u16 };
            h.extend_from_slice(&extra_len.to_le_bytes());
            if central {
                h.extend_from_slice(&0u16.to_le_bytes()); // comment
                h.extend_from_slice(&0u16.to_le_bytes()); // disk
                h.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
                h.extend_from_slice(&0u32.to_le_bytes()); // external attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name);
            if !central {
                h.extend_from_slice(&extra);
            }
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend_from_slice(body);
        central.extend(header(0x0201_4b50, true));
    }
    let start = out.len() as u32;
    let size = central.len() as u32;
    out.extend(central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // disk numbers
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read the archive back through its central directory (as unzip does) and inflate every entry.
    fn read(zip: &[u8]) -> Vec<(String, Vec<u8>)> {
        let u16_at = |i: usize| u16::from_le_bytes([zip[i], zip[i + 1]]) as usize;
        let u32_at = |i: usize| u32::from_le_bytes(zip[i..i + 4].try_into().unwrap()) as usize;
        let end = zip.len() - 22;
        assert_eq!(u32_at(end), 0x0605_4b50);
        let (n, mut c) = (u16_at(end + 10), u32_at(end + 16));
        let mut out = Vec::new();
        for _ in 0..n {
            assert_eq!(u32_at(c), 0x0201_4b50);
            let (method, crc, csize, size) = (u16_at(c + 10), u32_at(c + 16), u32_at(c + 20), u32_at(c + 24));
            let (nlen, off) = (u16_at(c + 28), u32_at(c + 42));
            let name = String::from_utf8(zip[c + 46..c + 46 + nlen].to_vec()).unwrap();
            assert_eq!(u32_at(off), 0x0403_4b50);
            let body = &zip[off + 30 + u16_at(off + 26) + u16_at(off + 28)..][..csize];
            let data = if method == 8 { miniz_oxide::inflate::decompress_to_vec(body).unwrap() } else { body.to_vec() };
            assert_eq!((data.len(), crc32(&data) as usize), (size, crc));
            out.push((name, data));
            c += 46 + nlen;
        }
        out
    }

    #[test]
    fn round_trip() {
        let files = vec![
            ("dataset_description.json".to_string(), b"{\"name\": \"x\"}".to_vec()),
            ("data/study-a_data.csv".to_string(), "a,b\n1,2\n".repeat(200).into_bytes()),
            ("data/empty.csv".to_string(), Vec::new()),
        ];
        let z = write(&files);
        assert_eq!(read(&z), files);
        assert_eq!(write(&files), z, "the same files, the same bytes");
        assert!(z.len() < 800, "deflated: {} bytes", z.len());
    }

    #[test]
    fn aligned_entries_are_stored_and_start_on_the_boundary() {
        let files = vec![
            ("a/data.pkl".to_string(), b"x".repeat(37)),
            ("a/data/0".to_string(), vec![1; 200]),
            ("a/data/1".to_string(), Vec::new()),
        ];
        let z = write_aligned(&files, 64);
        assert_eq!(read(&z), files);
        // Each local header: the data start (after name and extra field) is a multiple of 64.
        let mut off = 0;
        for (name, data) in &files {
            let u16_at = |i: usize| u16::from_le_bytes([z[i], z[i + 1]]) as usize;
            assert_eq!(u16_at(off + 8), 0, "{name}: stored");
            let start = off + 30 + u16_at(off + 26) + u16_at(off + 28);
            assert_eq!(start % 64, 0, "{name} starts at {start}");
            assert_eq!(&z[start..start + data.len()], &data[..]);
            off = start + data.len();
        }
    }
}
