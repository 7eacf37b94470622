//! The network view of a display list: drawn aliased at 96×96 as Pillow draws the reference frames, then
//! downsampled to 32×32 with an antialiasing triangle (bilinear) filter whose support scales with the
//! reduction, as `PIL.Image.resize(BILINEAR)` does (torchvision `Resize` on PIL images). Output values are in
//! [0, 1] with no normalisation, like `ToTensor()`.

use crate::display::{Frame, Rgb, Shape};

mod hash;
mod image;
mod incremental;
mod memo;
mod seam;
mod sprites;
mod taps;
#[cfg(test)]
pub(crate) mod tests;
mod tiles;

#[allow(unused_imports)]
use hash::*;
pub use image::Image96;
#[allow(unused_imports)]
use image::*;
#[allow(unused_imports)]
use incremental::*;
#[allow(unused_imports)]
use memo::*;
#[allow(unused_imports)]
use sprites::*;
pub use sprites::{arrow_barbs, draw96};
pub use taps::downsample;
#[allow(unused_imports)]
use taps::*;
#[allow(unused_imports)]
use tiles::*;

/// Side in pixels of the aliased drawing, equal to the display list's 96-unit space (one unit = one pixel).
pub const BIG: usize = 96;
/// Side in pixels of the downsampled network input (the 32×32 tensor).
pub const SMALL: usize = 32;
/// Floats in one 32×32×3 tensor.
pub const TENSOR_LEN: usize = 3 * SMALL * SMALL;

/// Colours an image keeps as row patterns.
const PENS: usize = 6;

/// The 32×32×3 tensor (channel-major, [0, 1]) of a frame: what the networks see.
pub fn tensor32(frame: &Frame) -> Vec<f32> {
    let mut out = vec![0.0; TENSOR_LEN];
    tensor_into(frame, &mut out);
    out
}

/// [`tensor32`] of a frame, written into `out` (`TENSOR_LEN` values). Frames recur across trials (SC's
/// and SFR's boards differ only in the cell lit, SMU's grid in the dot and arrow, every task's blank
/// and padding frames), so the bytes of recently drawn frames met more than once are kept by their
/// exact contents: a frame met again is copied, not drawn. The key is every number the rasterizer
/// reads, bit for bit, so a hit is the same tensor drawing would give (a native test compares them for
/// every task id). A new frame made of shapes met before is composed from 2×2-pixel output tiles kept
/// by the exact shapes under them (`Tiles`), drawing and resampling only the tiles not met before;
/// one with a shape met in fewer frames is drawn and resampled by difference from the last frame of its
/// family.
pub fn tensor_into(frame: &Frame, out: &mut [f32]) {
    render(frame, out, None);
}

/// [`tensor_into`], given the values written by the call before as `(values, the serial that call
/// returned)`: the frame's bytes are expanded against that frame's ([`expand_after`]). Values from any
/// other call are not used (the serial tells). Returns this call's serial.
fn render(frame: &Frame, out: &mut [f32], before: Option<(&[f32; TENSOR_LEN], u64)>) -> u64 {
    assert_eq!(out.len(), TENSOR_LEN);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let Memo { slots, key, starts, tiles, scratch, lasts, tags, next, hot, stamp, ghosts, recent, serial, shown } =
            &mut *m;
        let before = before.filter(|&(_, s)| s == *serial).map(|(values, _)| (&**shown, values));
        *serial += 1;
        let this = *serial;
        let expand_here = |bytes: &[u8; TENSOR_LEN], out: &mut [f32]| expand_after(bytes, out, before);
        // every way below ends with the bytes whose values it wrote: the frame before for the next call
        let bytes: &[u8; TENSOR_LEN] = 'written: {
            let h = frame_key(frame, key, starts);
            let set = memo_set(h) * MEMO_WAYS;
            let ways = &mut slots[set..set + MEMO_WAYS];
            if let Some(w) = ways.iter().position(|s| s.as_ref().is_some_and(|s| s.hash == h && s.key == *key)) {
                let at = set + w;
                let s = ways[w].as_mut().expect("a way just found");
                s.hits = (s.hits + 1).min(MEMO_HITS);
                // The values of a frame met again are kept (a copy, not an expansion, the next time) when
                // its hot place holds a frame met less often (STS's and SC's few frames stay; SMU's many
                // would only push each other out).
                let (hot_at, hot_made, hot_hits, values) = &mut hot[(h >> 8) as usize % HOT];
                if (*hot_at, *hot_made) == (at, s.made) {
                    *hot_hits = hot_hits.saturating_add(1);
                    out.copy_from_slice(&values[..]);
                    break 'written &s.bytes;
                }
                expand_here(&s.bytes, out);
                *hot_hits = hot_hits.saturating_sub(1);
                if *hot_hits == 0 {
                    values.copy_from_slice(out);
                    (*hot_at, *hot_made, *hot_hits) = (at, s.made, 1);
                }
                break 'written &s.bytes;
            }
            // A frame met for the second time in a row (VSR's probe, CD's fixation) is the one last left out.
            if let Some(r) = recent.as_ref().filter(|r| r.hash == h && r.key == *key) {
                seam::count(seam::Counter::Recent);
                expand_here(&r.bytes, out);
                admit(ways, h, key, &r.bytes, stamp);
                break 'written &r.bytes;
            }
            // a frame of known shapes whose every tile was met before (the pattern tasks' grids, SI's
            // lattice segments) is composed from its tiles, without drawing
            let composed = tiles.compose(frame, key, starts);
            let bytes = if composed == Compose::Done {
                seam::count(seam::Counter::Composed);
                expand_here(&tiles.bytes, out);
                &tiles.bytes
            } else {
                draw_into(scratch, frame);
                // resample by difference from the last frame of the same family, else replace the older one
                let tag = family(frame);
                let i = tags.iter().position(|&t| t == Some(tag)).unwrap_or_else(|| {
                    let i = *next;
                    *next = (i + 1) % LASTS;
                    i
                });
                tags[i] = Some(tag);
                let last = &mut lasts[i];
                last.update(scratch);
                out.copy_from_slice(&last.values[..]);
                if composed == Compose::Missed {
                    tiles.store(&last.out);
                }
                &last.out
            };
            // Kept from its second sight: most frames are met once (CD's arrays, the grids' new patterns), and
            // writing each into the memo pushed the tile and shape tables out of the caches for nothing.
            let ghost = &mut ghosts[(h >> 16) as usize % FRAME_GHOSTS];
            if *ghost == h {
                admit(ways, h, key, bytes, stamp);
            } else {
                *ghost = h;
                keep(recent, h, key, bytes, 0);
            }
            bytes
        };
        **shown = *bytes;
        this
    })
}

/// The tensors of consecutive frames (a trial's steps), written one after another into `out`
/// (`TENSOR_LEN` values per frame), each as [`tensor_into`] gives it (a frame repeated from the step
/// before, such as VSR's probe shown L times, is a memo hit), and each expanded against the one before
/// it (`expand_after`).
pub fn tensors_into<'a>(frames: impl IntoIterator<Item = &'a Frame>, out: &mut [f32]) {
    let mut serial = None;
    for (i, f) in frames.into_iter().take(out.len() / TENSOR_LEN).enumerate() {
        let (done, rest) = out.split_at_mut(i * TENSOR_LEN);
        let before = serial.map(|s| (done[(i - 1) * TENSOR_LEN..].try_into().expect("one frame's values"), s));
        serial = Some(render(f, &mut rest[..TENSOR_LEN], before));
    }
}

/// The 32×32 RGB bytes (row-major, 3 per pixel) of a tensor, for previews and PNG export.
pub fn tensor_to_rgb8(t: &[f32]) -> Vec<u8> {
    let n = SMALL * SMALL;
    let mut v = vec![0u8; n * 3];
    for i in 0..n {
        for c in 0..3 {
            v[i * 3 + c] = (t[c * n + i] * 255.0).round().clamp(0.0, 255.0) as u8;
        }
    }
    v
}
