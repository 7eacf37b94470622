//! A minimal PNG encoder (8-bit RGB, no interlace, filter 0 per row, zlib through miniz_oxide): enough to
//! hand a frame to a vision model or a file without another image crate in the core. Pure: bytes in, bytes
//! out.

use crate::hash::crc32;

/// The PNG bytes of an RGB8 image, row-major, `width × height × 3` bytes.
pub fn encode_rgb(width: u32, height: u32, rgb: &[u8]) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    assert_eq!(rgb.len(), w * h * 3, "encode_rgb: {} bytes for {w}×{h}", rgb.len());
    let mut raw = Vec::with_capacity((w * 3 + 1) * h);
    for row in rgb.chunks_exact(w * 3) {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let mut out = Vec::with_capacity(64 + raw.len() / 4);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6));
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// Why [`decode_rgb`] could not read a PNG.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PngError {
    /// The bytes do not start with the 8-byte PNG signature.
    #[error("not a PNG (bad signature)")]
    Signature,
    /// A chunk's data or CRC would run past the end of the bytes.
    #[error("a PNG chunk runs past the end")]
    Truncated,
    /// A chunk's CRC does not match its type and data; holds the chunk's type (`IHDR`, `IDAT`, …).
    #[error("CRC mismatch in chunk {0}")]
    Crc(String),
    /// The `IHDR` chunk is not 13 bytes long; holds its length.
    #[error("a PNG header of {0} bytes (13 expected)")]
    Header(usize),
    /// The header declares something other than 8-bit RGB, standard compression and filtering, no interlace.
    #[error("only 8-bit RGB, non-interlaced PNGs are read")]
    Format,
    /// The `IDAT` data does not inflate as zlib; holds the inflater's error.
    #[error("bad image data: {0}")]
    Data(String),
    /// The inflated data is not one filter byte plus `width × 3` bytes for each of `height` rows.
    #[error("{len} bytes of pixels for {width}×{height}")]
    Size {
        /// Bytes of inflated data, filter bytes included.
        len: usize,
        /// The width in pixels the header gives.
        width: u32,
        /// The height in pixels the header gives.
        height: u32,
    },
    /// A row uses a PNG filter other than 0 (none), which this decoder does not undo.
    #[error("only unfiltered rows are read")]
    Filter,
}

crate::message_into_string!(PngError);

/// Width, height and RGB8 bytes of a PNG this module wrote (colour type 2, depth 8, filter 0 rows), for
/// tests and for checking what a request carried. Errors name what is wrong.
pub fn decode_rgb(png: &[u8]) -> Result<(u32, u32, Vec<u8>), PngError> {
    if png.len() < 8 || &png[..8] != b"\x89PNG\r\n\x1a\n" {
        return Err(PngError::Signature);
    }
    let word = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let (mut i, mut w, mut h, mut idat) = (8usize, 0u32, 0u32, Vec::new());
    while i + 12 <= png.len() {
        let len = word(&png[i..i + 4]) as usize;
        let kind = &png[i + 4..i + 8];
        let data = png.get(i + 8..i + 8 + len).ok_or(PngError::Truncated)?;
        let crc = word(png.get(i + 8 + len..i + 12 + len).ok_or(PngError::Truncated)?);
        if crc != crc32(&png[i + 4..i + 8 + len]) {
            return Err(PngError::Crc(String::from_utf8_lossy(kind).into_owned()));
        }
        match kind {
            b"IHDR" => {
                if data.len() != 13 {
                    return Err(PngError::Header(data.len()));
                }
                w = word(&data[0..4]);
                h = word(&data[4..8]);
                if data[8..13] != [8, 2, 0, 0, 0] {
                    return Err(PngError::Format);
                }
            }
            b"IDAT" => idat.extend_from_slice(data),
            b"IEND" => break,
            _ => {}
        }
        i += 12 + len;
    }
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&idat).map_err(|e| PngError::Data(format!("{e:?}")))?;
    let stride = w as usize * 3 + 1;
    if raw.len() != stride * h as usize {
        return Err(PngError::Size { len: raw.len(), width: w, height: h });
    }
    let mut rgb = Vec::with_capacity(w as usize * h as usize * 3);
    for row in raw.chunks_exact(stride) {
        if row[0] != 0 {
            return Err(PngError::Filter);
        }
        rgb.extend_from_slice(&row[1..]);
    }
    Ok((w, h, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_of_known_text() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }

    #[test]
    fn round_trip_and_compression() {
        let (w, h) = (96u32, 64u32);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| if (i / 3) % 97 < 40 { 214 } else { (i % 251) as u8 }).collect();
        let png = encode_rgb(w, h, &rgb);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(decode_rgb(&png).unwrap(), (w, h, rgb));
        let flat = encode_rgb(96, 96, &vec![214; 96 * 96 * 3]);
        assert!(flat.len() < 400, "a flat frame (27,744 bytes of pixels) compresses: {} bytes", flat.len());
        let mut bad = png.clone();
        bad[40] ^= 1;
        assert!(decode_rgb(&bad).is_err());
        assert_eq!(decode_rgb(b"GIF89a").unwrap_err(), PngError::Signature);
        // Cut short anywhere, a PNG is refused with a reason, never a panic.
        for n in 8..png.len() - 12 {
            assert!(decode_rgb(&png[..n]).is_err(), "{n} bytes");
        }
        // A header chunk too short for its fields (its CRC right): refused, not a panic.
        let mut short = png[..8].to_vec();
        short.extend(5u32.to_be_bytes());
        short.extend(b"IHDR\0\0\0\x01\0");
        short.extend(crc32(&short[12..21]).to_be_bytes());
        assert_eq!(decode_rgb(&short).unwrap_err(), PngError::Header(5));
    }
}
