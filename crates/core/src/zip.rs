//! A minimal zip writer (deflated entries, no encryption, no zip64): enough to hand a folder of text
//! files — a Psych-DS dataset — to a browser download. Pure: files in, bytes out. Timestamps are the
//! DOS epoch (1980-01-01), so the same files give the same bytes.

use crate::hash::crc32;

/// The zip archive of `(path, bytes)` entries (paths with `/`, relative; at most 65,535 entries and
/// 4 GiB in all).
pub fn write(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (path, data) in files {
        let crc = crc32(data);
        let packed = miniz_oxide::deflate::compress_to_vec(data, 6);
        let (method, body): (u16, &[u8]) = if packed.len() < data.len() { (8, &packed) } else { (0, data) };
        let offset = out.len() as u32;
        let name = path.as_bytes();
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
            h.extend_from_slice(&0u16.to_le_bytes()); // extra
            if central {
                h.extend_from_slice(&0u16.to_le_bytes()); // comment
                h.extend_from_slice(&0u16.to_le_bytes()); // disk
                h.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
                h.extend_from_slice(&0u32.to_le_bytes()); // external attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name);
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
            let body = &zip[off + 30 + u16_at(off + 26)..][..csize];
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
}
