//! PNG writing (RGB8).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Encode an RGB8 image to any writer.
pub fn encode<W: Write>(w: W, width: u32, height: u32, rgb: &[u8], fast: bool) -> Result<(), png::EncodingError> {
    let mut enc = png::Encoder::new(w, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    if fast {
        enc.set_compression(png::Compression::Fast);
    }
    let mut writer = enc.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()
}

/// Write an RGB8 image to a file.
pub fn write(path: &Path, width: u32, height: u32, rgb: &[u8], fast: bool) -> anyhow::Result<()> {
    let f = File::create(path).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    let mut w = BufWriter::new(f);
    encode(&mut w, width, height, rgb, fast).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    w.flush().map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}
