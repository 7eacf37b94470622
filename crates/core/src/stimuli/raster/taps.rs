//! The bilinear filter's taps and the 96 → 32 downsampling, with `v / 255` in vector lanes.

#[allow(unused_imports)]
use super::*;

/// Fixed-point precision of the resampling weights (Pillow's 8-bit path also works in fixed point).
pub(super) const PRECISION: u32 = 14;

/// Weights of PIL's antialiasing bilinear resample from 96 to 32: for each output pixel, the first input
/// index and the triangle weights over a support of 3 input pixels either side, normalised and scaled to
/// integers that sum to exactly `1 << PRECISION`; and the tables [`Taps::reached`] reads.
pub(super) struct Taps {
    pub(super) start: [usize; SMALL],
    pub(super) w: [[i32; 6]; SMALL],
    /// First and last tap with a non-zero weight, per output pixel.
    pub(super) nonzero: [(usize, usize); SMALL],
    /// Per input pixel p: the first output whose window ends at or after p (`NONE`: none does).
    pub(super) first_ending: [u8; BIG],
    /// Per input pixel p: the last output whose window starts at or before p (`NONE`: none does).
    pub(super) last_starting: [u8; BIG],
}

pub(super) const NONE: u8 = u8::MAX;

impl Taps {
    /// The first and last output whose 6-pixel window meets pixels `lo..=hi` (every output between
    /// them does too): the outputs a change there can alter. None when no window meets them.
    ///
    /// Windows start and end in increasing order, so those meeting `lo..=hi` are the ones from the first
    /// that ends at or after `lo` to the last that starts at or before `hi`, two table reads.
    #[inline]
    pub(super) fn reached(&self, lo: i32, hi: i32) -> Option<(usize, usize)> {
        let first = if lo <= 0 { 0 } else { *self.first_ending.get(lo as usize).unwrap_or(&NONE) };
        let last = if hi < 0 { NONE } else { self.last_starting[(hi as usize).min(BIG - 1)] };
        (first != NONE && last != NONE && first <= last).then_some((first as usize, last as usize))
    }
}

pub(super) fn taps() -> &'static Taps {
    use std::sync::OnceLock;
    static T: OnceLock<Taps> = OnceLock::new();
    T.get_or_init(|| {
        let scale = (BIG / SMALL) as f64; // 3
        let support = scale; // triangle support 1 × scale
        let mut t = Taps {
            start: [0; SMALL],
            w: [[0; 6]; SMALL],
            nonzero: [(0, 0); SMALL],
            first_ending: [NONE; BIG],
            last_starting: [NONE; BIG],
        };
        for o in 0..SMALL {
            let centre = (o as f64 + 0.5) * scale;
            let lo = ((centre - support + 0.5).floor().max(0.0)) as usize;
            let hi = ((centre + support + 0.5).floor() as usize).min(BIG);
            let mut ws = [0.0f64; 6];
            let mut sum = 0.0;
            for (k, i) in (lo..hi).enumerate().take(6) {
                let x = (i as f64 - centre + 0.5) / scale;
                let v = (1.0 - x.abs()).max(0.0);
                ws[k] = v;
                sum += v;
            }
            let one = 1i32 << PRECISION;
            let mut wi = [0i32; 6];
            for k in 0..6 {
                wi[k] = (ws[k] / sum * one as f64).round() as i32;
            }
            debug_assert!(wi.iter().all(|&w| w >= 0));
            // put the rounding remainder on the largest tap so the weights sum to exactly one
            let rem = one - wi.iter().sum::<i32>();
            let kmax = (0..6).max_by_key(|&k| wi[k]).expect("six taps");
            wi[kmax] += rem;
            // Move the window left so it never reads past the image: the taps it gains have weight 0.
            let shift = (lo + 6).saturating_sub(BIG);
            let mut shifted = [0i32; 6];
            shifted[shift..].copy_from_slice(&wi[..6 - shift]);
            t.start[o] = lo - shift;
            t.w[o] = shifted;
            let first = (0..6).find(|&k| shifted[k] != 0).expect("a window has a tap of weight above 0");
            let last = (0..6).rev().find(|&k| shifted[k] != 0).expect("a window has a tap of weight above 0");
            t.nonzero[o] = (first, last);
        }
        assert!(t.start.windows(2).all(|w| w[0] <= w[1]), "windows in increasing order");
        for p in 0..BIG {
            t.first_ending[p] = (0..SMALL).find(|&o| t.start[o] + 5 >= p).map_or(NONE, |o| o as u8);
            t.last_starting[p] = (0..SMALL).rev().find(|&o| t.start[o] <= p).map_or(NONE, |o| o as u8);
        }
        t
    })
}

/// Round a fixed-point sum to a byte. Weights are non-negative and sum to exactly `1 << PRECISION`, so a
/// sum of bytes is within `0..=255 << PRECISION` and the result always fits (no clamp needed).
#[inline]
pub(super) fn to_u8(acc: i32) -> u8 {
    debug_assert!((0..=255 << PRECISION).contains(&acc));
    ((acc + (1 << (PRECISION - 1))) >> PRECISION) as u8
}

/// Downsample a 96×96 image to the 32×32×3 tensor, channel-major (`[3][32][32]`), values in [0, 1].
/// Like Pillow, the horizontal pass is rounded to 8 bits before the vertical one; both work in fixed point.
pub fn downsample(img: &Image96, out: &mut [f32]) {
    assert_eq!(out.len(), TENSOR_LEN);
    let mut bytes = [0u8; TENSOR_LEN];
    downsample_bytes(img, &mut bytes);
    expand(&bytes, out);
}

/// `v / 255` for every byte, evaluated at compile time: what [`expand`] must give.
#[cfg(test)]
pub(super) const UNIT: [f32; 256] = {
    let mut t = [0.0; 256];
    let mut v = 0;
    while v < 256 {
        t[v] = v as f32 / 255.0;
        v += 1;
    }
    t
};

/// The tensor's values from its bytes: `v / 255` (as `ToTensor` does), in vector lanes.
#[inline]
pub(super) fn expand(bytes: &[u8; TENSOR_LEN], out: &mut [f32]) {
    expand_run(bytes, out);
}

/// [`unit`] of each byte of a run, into the values beside it.
#[inline]
pub(super) fn expand_run(bytes: &[u8], out: &mut [f32]) {
    for (o, &v) in out.iter_mut().zip(bytes) {
        *o = unit(v);
    }
}

/// [`expand`], given the bytes of the frame before and its values: a row of bytes (one channel's row of
/// 32) equal to that frame's has its values copied, not computed again. A trial's consecutive frames
/// share many rows (a grid with one cell changed, a probe over the memory array's background): in the
/// joint benchmark the expansion's instructions per trial fell from 57k to 34k (cachegrind).
#[inline]
pub(super) fn expand_after(
    bytes: &[u8; TENSOR_LEN],
    out: &mut [f32],
    before: Option<(&[u8; TENSOR_LEN], &[f32; TENSOR_LEN])>,
) {
    let Some((old, values)) = before else { return expand(bytes, out) };
    let rows = out.chunks_exact_mut(SMALL).zip(bytes.chunks_exact(SMALL));
    for ((o, b), (ob, ov)) in rows.zip(old.chunks_exact(SMALL).zip(values.chunks_exact(SMALL))) {
        if b == ob {
            seam::count(seam::Counter::RowsCopied);
            o.copy_from_slice(ov);
        } else {
            expand_run(b, o);
        }
    }
}

/// `v / 255` correctly rounded (what the division gives, [`UNIT`]'s table; a test checks every byte),
/// without dividing: a product by the reciprocal is off by one ulp for half the bytes, and one
/// correction step with the product's remainder makes it exact (a vector division per 4 values
/// against four cheap operations; the expansion was about 15 % of the joint benchmark in a profile).
#[inline(always)]
pub(super) fn unit(v: u8) -> f32 {
    const R: f32 = 1.0 / 255.0;
    let v = v as f32;
    let x = v * R;
    x + (v - x * 255.0) * R
}

/// [`downsample`] as bytes (`[3][32][32]`, 0–255): the tensor before the division by 255.
pub(super) fn downsample_bytes(img: &Image96, out: &mut [u8; TENSOR_LEN]) {
    let t = taps();
    let plane = SMALL * SMALL;
    out[..plane].fill(img.bg.0);
    out[plane..2 * plane].fill(img.bg.1);
    out[2 * plane..].fill(img.bg.2);
    // A uniform area resamples to exactly its own colour (the weights sum to one), so only output
    // pixels whose taps reach a painted pixel need computing.
    let Some((dx0, dy0, dx1, dy1)) = img.dirty else { return };
    let (Some((c0, c1)), Some((r0, r1))) = (t.reached(dx0, dx1), t.reached(dy0, dy1)) else { return };
    let y_lo = t.start[r0];
    let y_hi = t.start[r1] + 5;
    // horizontal: the rows the vertical pass reads × the reached columns, rounded to 8 bits. A row equal
    // to the one above it (inside a shape, and the background between shapes) resamples to the same bytes,
    // so it is copied; `same[y]` remembers that for the vertical pass.
    let mut mid = [0u8; BIG * SMALL * 3];
    let mut same = [false; BIG];
    for y in y_lo..=y_hi {
        let row: &[u8; ROW] = img.px[y * ROW..(y + 1) * ROW].try_into().expect("a row is ROW bytes");
        if y > y_lo && img.px[(y - 1) * ROW..y * ROW] == row[..] {
            mid.copy_within((y - 1) * MID..y * MID, y * MID);
            same[y] = true;
            continue;
        }
        horizontal(t, row, c0, c1, &mut mid[y * MID..(y + 1) * MID]);
    }
    // vertical: whole rows of 32×3 accumulated at once (vectorises), reached rows only. When every row
    // with a non-zero weight is the same, the weights (summing to one) give that row back exactly.
    for oy in r0..=r1 {
        let s = t.start[oy];
        let w = &t.w[oy];
        let (k0, k1) = t.nonzero[oy];
        let res: [u8; MID] = if (s + k0 + 1..=s + k1).all(|y| same[y]) {
            mid[(s + k0) * MID..(s + k0 + 1) * MID].try_into().expect("a row is MID values")
        } else {
            let mut acc = [0i32; MID];
            for k in k0..=k1 {
                let src = &mid[(s + k) * MID..(s + k + 1) * MID];
                for (a, &v) in acc.iter_mut().zip(src) {
                    *a += w[k] * v as i32;
                }
            }
            acc.map(to_u8)
        };
        for ox in c0..=c1 {
            let o = oy * SMALL + ox;
            out[o] = res[ox * 3];
            out[plane + o] = res[ox * 3 + 1];
            out[2 * plane + o] = res[ox * 3 + 2];
        }
    }
}

/// The horizontal pass over one row for outputs `c0..=c1`. Rows are mostly runs of one colour (inside
/// a shape, the background between shapes), and an output whose weighted taps all hold the same pixel is
/// that pixel exactly (the weights sum to one), so only outputs that straddle an edge are computed.
#[inline]
pub(super) fn horizontal(t: &Taps, row: &[u8; BIG * 3], c0: usize, c1: usize, out_row: &mut [u8]) {
    for o in c0..=c1 {
        let s = t.start[o];
        let (k0, k1) = t.nonzero[o];
        // the taps' bytes equal themselves shifted by one pixel exactly when every tap is one colour
        let (a, n) = (3 * (s + k0), 3 * (k1 - k0));
        let uniform = if n == 12 {
            <[u8; 12]>::try_from(&row[a..a + 12]).expect("12 bytes")
                == <[u8; 12]>::try_from(&row[a + 3..a + 15]).expect("12 bytes")
        } else {
            row[a..a + n] == row[a + 3..a + 3 + n]
        };
        if uniform {
            out_row[o * 3..o * 3 + 3].copy_from_slice(&row[a..a + 3]);
            continue;
        }
        let w = &t.w[o];
        let (mut r, mut g, mut b) = (0i32, 0i32, 0i32);
        for k in k0..=k1 {
            let i = 3 * (s + k);
            r += w[k] * row[i] as i32;
            g += w[k] * row[i + 1] as i32;
            b += w[k] * row[i + 2] as i32;
        }
        out_row[o * 3] = to_u8(r);
        out_row[o * 3 + 1] = to_u8(g);
        out_row[o * 3 + 2] = to_u8(b);
    }
}

/// Downsample every output pixel (no dirty-region shortcut): the definition the fast path must equal.
#[cfg(test)]
pub(super) fn downsample_full(img: &Image96, out: &mut [f32]) {
    let mut full = img.clone();
    full.dirty = Some((0, 0, BIG as i32 - 1, BIG as i32 - 1));
    downsample(&full, out);
}
