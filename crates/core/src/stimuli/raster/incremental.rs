//! Resampling by difference from the last frame of the same family.

#[allow(unused_imports)]
use super::*;

pub(super) const ROW: usize = BIG * 3;
pub(super) const MID: usize = SMALL * 3;

/// Downsampling by difference: consecutive frames mostly share their pixels (a board whose lit cell
/// moves, a grid whose cells change colour, the same background), and every output byte depends only on
/// the 6×6 input pixels under its taps. So the last image, its horizontal pass (every row, every
/// column) and its output are kept; for a new image only the horizontal outputs whose taps cover a
/// changed pixel, and the final outputs whose taps cover a changed horizontal output, are computed
/// again. The result is the same function of the pixels as [`downsample`] (a test compares them).
pub(super) struct Incremental {
    pub(super) img: Image96,
    pub(super) mid: Box<[u8; BIG * MID]>,
    pub(super) out: [u8; TENSOR_LEN],
    /// `out` as tensor values, updated where `out` changes.
    pub(super) values: Box<[f32; TENSOR_LEN]>,
    /// Whether `mid` and `out` describe `img` (false until the first frame).
    pub(super) valid: bool,
}

impl Incremental {
    pub(super) fn new() -> Self {
        Incremental {
            img: Image96::new(crate::display::palette::BLACK),
            mid: Box::new([0; BIG * MID]),
            out: [0; TENSOR_LEN],
            values: Box::new([0.0; TENSOR_LEN]),
            valid: false,
        }
    }

    /// Make `self` the resampling of its plain background: its painted box cleared in the image, and
    /// the horizontal and final outputs that box reached set to the background colour (a uniform
    /// area resamples to exactly its colour).
    pub(super) fn clear_to_background(&mut self) {
        let (Some((x0, y0, x1, y1)), true) = (self.img.dirty, self.valid) else { return };
        let t = taps();
        let bg = self.img.bg;
        // (a painted box lies in the image, so some window meets it)
        let ((c0, c1), (r0, r1)) = (
            t.reached(x0, x1).expect("a painted box lies in the image"),
            t.reached(y0, y1).expect("a painted box lies in the image"),
        );
        self.img.reset(bg);
        let px = [bg.0, bg.1, bg.2];
        for y in y0 as usize..=y1 as usize {
            for c in self.mid[y * MID + c0 * 3..y * MID + (c1 + 1) * 3].chunks_exact_mut(3) {
                c.copy_from_slice(&px);
            }
        }
        let plane = SMALL * SMALL;
        for (k, v) in px.into_iter().enumerate() {
            for oy in r0..=r1 {
                let at = k * plane + oy * SMALL;
                self.out[at + c0..=at + c1].fill(v);
                self.values[at + c0..=at + c1].fill(unit(v));
            }
        }
    }

    /// Make `self` the resampling of `img`, and leave in `img` the previous image (whose painted box
    /// its next `reset` clears).
    pub(super) fn update(&mut self, img: &mut Image96) {
        let t = taps();
        // Frames that paint apart (SI's parts of a figure, CD's arrays) differ from each other over both
        // their boxes; from the plain background, over their own box only: start from there when the
        // two boxes together span much more than the new one (clearing the old box is a few fills).
        if let (Some(n), Some(o)) = (img.dirty, self.img.dirty)
            && img.bg == self.img.bg
        {
            let area = |(x0, y0, x1, y1): (i32, i32, i32, i32)| (x1 - x0 + 1) * (y1 - y0 + 1);
            let union = (n.0.min(o.0), n.1.min(o.1), n.2.max(o.2), n.3.max(o.3));
            if 2 * area(n) + area(o) < 2 * area(union) {
                self.clear_to_background();
            }
        }
        let full = !self.valid || img.bg != self.img.bg;
        // rows that may differ: everywhere after a change of background, else where either image painted
        let (mut y0, mut y1) = (0, BIG - 1);
        if !full {
            let painted = [img.dirty, self.img.dirty].into_iter().flatten();
            let Some((a, b)) = painted.map(|(_, a, _, b)| (a, b)).reduce(|p, q| (p.0.min(q.0), p.1.max(q.1))) else {
                // both plain background: nothing to resample again
                std::mem::swap(&mut self.img, img);
                return;
            };
            (y0, y1) = (a as usize, b as usize);
        }
        // (not valid while half updated: a panic caught above would otherwise leave stale state)
        self.valid = false;
        // horizontal: per row, the changed pixel range and the output columns it reaches
        let mut cols: [Option<(usize, usize)>; BIG] = [None; BIG];
        for y in y0..=y1 {
            let new: &[u8; ROW] = img.px[y * ROW..(y + 1) * ROW].try_into().expect("a row is ROW bytes");
            let (xa, xb) = if full {
                (0, BIG - 1)
            } else {
                let old: &[u8; ROW] = self.img.px[y * ROW..(y + 1) * ROW].try_into().expect("a row is ROW bytes");
                if old == new {
                    continue;
                }
                changed_pixels(old, new)
            };
            let (oa, ob) =
                t.reached(xa as i32, xb as i32).expect("a changed run lies in the image, so some window meets it");
            cols[y] = Some((oa, ob));
            let mid_row = y * MID;
            if y > 0 && img.px[(y - 1) * ROW..y * ROW] == new[..] {
                // equal to the row above, whose horizontal pass is already this image's
                self.mid.copy_within((y - 1) * MID + oa * 3..(y - 1) * MID + (ob + 1) * 3, mid_row + oa * 3);
            } else {
                horizontal(t, new, oa, ob, &mut self.mid[mid_row..mid_row + MID]);
            }
        }
        // vertical: output rows whose taps cover a changed row, over the columns that changed there
        let plane = SMALL * SMALL;
        for oy in 0..SMALL {
            let s = t.start[oy];
            let (k0, k1) = t.nonzero[oy];
            let reach = (s + k0..=s + k1).filter_map(|y| cols[y]);
            let Some((ca, cb)) = reach.reduce(|a, b| (a.0.min(b.0), a.1.max(b.1))) else { continue };
            let w = &t.w[oy];
            let (xa, xb) = (ca * 3, (cb + 1) * 3);
            let row = |y: usize| &self.mid[y * MID + xa..y * MID + xb];
            let mut acc = [0i32; MID];
            if (s + k0 + 1..=s + k1).all(|y| row(y) == row(s + k0)) {
                // one row under every weight: that row, exactly
                for (a, &v) in acc[xa..xb].iter_mut().zip(row(s + k0)) {
                    *a = (v as i32) << PRECISION;
                }
            } else {
                for k in k0..=k1 {
                    // (both factors fit 16 bits, which lets SSE2 multiply 16-bit lanes into 32-bit sums)
                    let wk = w[k] as i16 as i32;
                    for (a, &v) in acc[xa..xb].iter_mut().zip(row(s + k)) {
                        *a += wk * v as i16 as i32;
                    }
                }
            }
            for ox in ca..=cb {
                let o = oy * SMALL + ox;
                for c in 0..3 {
                    let v = to_u8(acc[ox * 3 + c]);
                    self.out[c * plane + o] = v;
                    self.values[c * plane + o] = unit(v);
                }
            }
        }
        self.valid = true;
        std::mem::swap(&mut self.img, img);
    }
}

/// The first and last pixel at which two different rows differ, comparing 8 bytes at a time.
pub(super) fn changed_pixels(a: &[u8; ROW], b: &[u8; ROW]) -> (usize, usize) {
    let word = |r: &[u8; ROW], i: usize| u64::from_le_bytes(r[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
    let diff = |i: usize| word(a, i) ^ word(b, i);
    let f = (0..ROW / 8).find(|&i| diff(i) != 0).expect("the rows differ");
    let l = (0..ROW / 8).rev().find(|&i| diff(i) != 0).expect("the rows differ");
    let first = f * 8 + diff(f).trailing_zeros() as usize / 8;
    let last = l * 8 + 7 - diff(l).leading_zeros() as usize / 8;
    (first / 3, last / 3)
}

/// Write a frame's key into `key` (the background, then each drawn shape's kind, coordinates as f32
/// bits and colours; text is left out because the rasterizer skips it) and return its hash; `starts`
/// gets where each drawn shape's words begin (its words end where the next one's begin).
pub(super) fn frame_key(frame: &Frame, key: &mut Vec<u32>, starts: &mut Vec<u32>) -> u64 {
    let rgb = |c: Rgb| 1 << 24 | (c.0 as u32) << 16 | (c.1 as u32) << 8 | c.2 as u32;
    let opt = |c: Option<Rgb>| c.map_or(0, rgb);
    key.clear();
    starts.clear();
    key.push(rgb(frame.background));
    for s in &frame.shapes {
        if !matches!(s, Shape::Text { .. }) {
            starts.push(key.len() as u32);
        }
        match *s {
            Shape::Rect { x0, y0, x1, y1, fill, outline, width } => {
                key.extend([1, x0.to_bits(), y0.to_bits(), x1.to_bits(), y1.to_bits(), opt(fill), opt(outline)]);
                key.push(width.to_bits());
            }
            Shape::RoundRect { x0, y0, x1, y1, radius, fill, outline, width } => {
                key.extend([2, x0.to_bits(), y0.to_bits(), x1.to_bits(), y1.to_bits(), radius.to_bits()]);
                key.extend([opt(fill), opt(outline), width.to_bits()]);
            }
            Shape::Line { x0, y0, x1, y1, color, width } => {
                key.extend([3, x0.to_bits(), y0.to_bits(), x1.to_bits(), y1.to_bits(), rgb(color), width.to_bits()]);
            }
            Shape::Arrow { x0, y0, x1, y1, color, width, tip } => {
                key.extend([4, x0.to_bits(), y0.to_bits(), x1.to_bits(), y1.to_bits(), rgb(color), width.to_bits()]);
                key.push(tip.to_bits());
            }
            Shape::Ellipse { x0, y0, x1, y1, fill, outline, width } => {
                key.extend([5, x0.to_bits(), y0.to_bits(), x1.to_bits(), y1.to_bits(), opt(fill), opt(outline)]);
                key.push(width.to_bits());
            }
            Shape::Text { .. } => {}
            Shape::Noise { seed } => key.extend([6, seed as u32, (seed >> 32) as u32]),
        }
    }
    fx(key)
}
