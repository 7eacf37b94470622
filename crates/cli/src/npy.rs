//! The NumPy `.npy` format, version 1.0, written by hand (no dependency): magic, version, a little-endian
//! u16 header length, then a Python dict literal padded with spaces and a newline so the data starts on a
//! 64-byte boundary.

/// The complete header for a C-order little-endian float32 array of `shape`.
pub fn header_f32(shape: &[usize]) -> Vec<u8> {
    let dims = match shape {
        [one] => format!("({one},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {dims}, }}");
    // magic (6) + version (2) + header length (2) + dict + '\n' must be a multiple of 64.
    let unpadded = 10 + dict.len() + 1;
    let pad = (64 - unpadded % 64) % 64;
    dict.extend(std::iter::repeat_n(' ', pad));
    dict.push('\n');
    assert!(dict.len() <= u16::MAX as usize, "npy header too long");
    let mut out = Vec::with_capacity(10 + dict.len());
    out.extend_from_slice(b"\x93NUMPY");
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_aligned_and_readable() {
        let h = header_f32(&[7, 20, 3, 32, 32]);
        assert_eq!(h.len() % 64, 0);
        assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
        let n = u16::from_le_bytes([h[8], h[9]]) as usize;
        assert_eq!(10 + n, h.len());
        let dict = std::str::from_utf8(&h[10..]).unwrap();
        assert!(dict.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (7, 20, 3, 32, 32), }"));
        assert!(dict.ends_with('\n'));
        assert!(header_f32(&[5]).windows(4).any(|w| w == b"(5,)"));
    }
}
