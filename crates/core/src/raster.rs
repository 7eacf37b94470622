//! The network view of a display list: drawn aliased at 96×96 as Pillow draws the reference frames, then
//! downsampled to 32×32 with an antialiasing triangle (bilinear) filter whose support scales with the
//! reduction, as `PIL.Image.resize(BILINEAR)` does (torchvision `Resize` on PIL images). Output values are in
//! [0, 1] with no normalisation, like `ToTensor()`.

use crate::display::{Frame, Rgb, Shape};

pub const BIG: usize = 96;
pub const SMALL: usize = 32;
/// Floats in one 32×32×3 tensor.
pub const TENSOR_LEN: usize = 3 * SMALL * SMALL;

/// A 96×96 RGB image, row-major, 3 bytes per pixel.
#[derive(Clone, PartialEq, Eq)]
pub struct Image96 {
    pub px: Vec<u8>,
}

impl std::fmt::Debug for Image96 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Image96({} bytes)", self.px.len())
    }
}

impl Image96 {
    pub fn new(bg: Rgb) -> Self {
        let mut px = vec![0u8; BIG * BIG * 3];
        for c in px.chunks_exact_mut(3) {
            c[0] = bg.0;
            c[1] = bg.1;
            c[2] = bg.2;
        }
        Image96 { px }
    }
    pub fn get(&self, x: usize, y: usize) -> Rgb {
        let i = (y * BIG + x) * 3;
        Rgb(self.px[i], self.px[i + 1], self.px[i + 2])
    }
    #[inline]
    fn put(&mut self, x: i32, y: i32, c: Rgb) {
        if x < 0 || y < 0 || x >= BIG as i32 || y >= BIG as i32 {
            return;
        }
        let i = (y as usize * BIG + x as usize) * 3;
        self.px[i] = c.0;
        self.px[i + 1] = c.1;
        self.px[i + 2] = c.2;
    }
    /// Paint every pixel whose centre `(x, y)` lies in the box and satisfies `inside`.
    fn fill_where(&mut self, bbox: (f32, f32, f32, f32), c: Rgb, inside: impl Fn(f32, f32) -> bool) {
        let (x0, y0, x1, y1) = bbox;
        let xs = (x0.floor() as i32).max(0);
        let xe = (x1.ceil() as i32).min(BIG as i32 - 1);
        let ys = (y0.floor() as i32).max(0);
        let ye = (y1.ceil() as i32).min(BIG as i32 - 1);
        for y in ys..=ye {
            for x in xs..=xe {
                if inside(x as f32, y as f32) {
                    self.put(x, y, c);
                }
            }
        }
    }
}

/// Pixel centre `p` is inside the half-open span that a Pillow box `[a, b]` (both ends included) covers.
#[inline]
fn in_span(p: f32, a: f32, b: f32) -> bool {
    p >= a - 0.5 && p < b + 0.5
}

fn in_round_rect(x: f32, y: f32, b: (f32, f32, f32, f32), r: f32) -> bool {
    let (x0, y0, x1, y1) = (b.0 - 0.5, b.1 - 0.5, b.2 + 0.5, b.3 + 0.5);
    if !(x >= x0 && x < x1 && y >= y0 && y < y1) {
        return false;
    }
    if r <= 0.0 {
        return true;
    }
    // Pixel centres are tested against the rounded outline of the covered area.
    let r = r.min((x1 - x0) / 2.0).min((y1 - y0) / 2.0);
    let cx = x.clamp(x0 + r, x1 - r);
    let cy = y.clamp(y0 + r, y1 - r);
    let (dx, dy) = (x - cx, y - cy);
    dx * dx + dy * dy <= r * r
}

fn in_ellipse(x: f32, y: f32, b: (f32, f32, f32, f32)) -> bool {
    let (cx, cy) = ((b.0 + b.2) / 2.0, (b.1 + b.3) / 2.0);
    let (a, bb) = ((b.2 - b.0 + 1.0) / 2.0, (b.3 - b.1 + 1.0) / 2.0);
    if a <= 0.0 || bb <= 0.0 {
        return false;
    }
    let (dx, dy) = ((x - cx) / a, (y - cy) / bb);
    dx * dx + dy * dy <= 1.0
}

fn draw_segment(img: &mut Image96, (x0, y0, x1, y1): (f32, f32, f32, f32), c: Rgb, width: f32) {
    let (dx, dy) = (x1 - x0, y1 - y0);
    let len = (dx * dx + dy * dy).sqrt();
    let half = (width / 2.0).max(0.5);
    if len < 1e-6 {
        img.fill_where((x0 - half, y0 - half, x0 + half, y0 + half), c, |x, y| {
            (x - x0).abs() <= half && (y - y0).abs() <= half
        });
        return;
    }
    let (ux, uy) = (dx / len, dy / len);
    let bbox = (x0.min(x1) - half, y0.min(y1) - half, x0.max(x1) + half, y0.max(y1) + half);
    img.fill_where(bbox, c, |x, y| {
        let (px, py) = (x - x0, y - y0);
        let t = px * ux + py * uy;
        let d = (px * uy - py * ux).abs();
        t >= -1e-3 && t <= len + 1e-3 && d <= half
    });
}

fn draw_shape(img: &mut Image96, s: &Shape) {
    match *s {
        Shape::Rect { x0, y0, x1, y1, fill, outline, width } => {
            let b = (x0, y0, x1, y1);
            if let Some(f) = fill {
                img.fill_where(b, f, |x, y| in_span(x, x0, x1) && in_span(y, y0, y1));
            }
            if let Some(o) = outline {
                let w = width.max(1.0);
                img.fill_where(b, o, |x, y| {
                    in_span(x, x0, x1)
                        && in_span(y, y0, y1)
                        && !(in_span(x, x0 + w, x1 - w) && in_span(y, y0 + w, y1 - w))
                });
            }
        }
        Shape::RoundRect { x0, y0, x1, y1, radius, fill, outline, width } => {
            let b = (x0, y0, x1, y1);
            if let Some(f) = fill {
                img.fill_where(b, f, |x, y| in_round_rect(x, y, b, radius));
            }
            if let Some(o) = outline {
                let w = width.max(1.0);
                let inner = (x0 + w, y0 + w, x1 - w, y1 - w);
                let ir = (radius - w).max(0.0);
                img.fill_where(b, o, |x, y| in_round_rect(x, y, b, radius) && !in_round_rect(x, y, inner, ir));
            }
        }
        Shape::Ellipse { x0, y0, x1, y1, fill, outline, width } => {
            let b = (x0, y0, x1, y1);
            if let Some(f) = fill {
                img.fill_where(b, f, |x, y| in_ellipse(x, y, b));
            }
            if let Some(o) = outline {
                let w = width.max(1.0);
                let inner = (x0 + w, y0 + w, x1 - w, y1 - w);
                img.fill_where(b, o, |x, y| in_ellipse(x, y, b) && !in_ellipse(x, y, inner));
            }
        }
        Shape::Line { x0, y0, x1, y1, color, width } => draw_segment(img, (x0, y0, x1, y1), color, width),
        Shape::Arrow { x0, y0, x1, y1, color, width, tip } => {
            draw_segment(img, (x0, y0, x1, y1), color, width);
            for (bx, by) in crate::raster::arrow_barbs(x0, y0, x1, y1, tip) {
                draw_segment(img, (x1, y1, bx, by), color, width);
            }
        }
        Shape::Text { .. } => {}
    }
}

/// The two barb end points of a cv2 `arrowedLine` from `(x0, y0)` to `(x1, y1)`.
pub fn arrow_barbs(x0: f32, y0: f32, x1: f32, y1: f32, tip: f32) -> [(f32, f32); 2] {
    let (dx, dy) = (x0 - x1, y0 - y1);
    let len = tip * (dx * dx + dy * dy).sqrt();
    let angle = dy.atan2(dx);
    let q = std::f32::consts::FRAC_PI_4;
    [
        (x1 + len * (angle + q).cos(), y1 + len * (angle + q).sin()),
        (x1 + len * (angle - q).cos(), y1 + len * (angle - q).sin()),
    ]
}

/// Draw a frame at 96×96, aliased (as Pillow draws it).
pub fn draw96(frame: &Frame) -> Image96 {
    let mut img = Image96::new(frame.background);
    for s in &frame.shapes {
        draw_shape(&mut img, s);
    }
    img
}

/// Weights of PIL's antialiasing bilinear resample from 96 to 32: for each output pixel, the first input
/// index and the normalised triangle weights over a support of 3 input pixels either side.
struct Taps {
    start: [usize; SMALL],
    w: [[f32; 6]; SMALL],
}

fn taps() -> &'static Taps {
    use std::sync::OnceLock;
    static T: OnceLock<Taps> = OnceLock::new();
    T.get_or_init(|| {
        let scale = (BIG / SMALL) as f32; // 3
        let support = scale; // triangle support 1 × scale
        let mut t = Taps { start: [0; SMALL], w: [[0.0; 6]; SMALL] };
        for o in 0..SMALL {
            let centre = (o as f32 + 0.5) * scale;
            let lo = ((centre - support + 0.5).floor().max(0.0)) as usize;
            let hi = ((centre + support + 0.5).floor() as usize).min(BIG);
            let mut ws = [0.0f32; 6];
            let mut sum = 0.0;
            for (k, i) in (lo..hi).enumerate().take(6) {
                let x = (i as f32 - centre + 0.5) / scale;
                let v = (1.0 - x.abs()).max(0.0);
                ws[k] = v;
                sum += v;
            }
            for v in &mut ws {
                *v /= sum;
            }
            t.start[o] = lo;
            t.w[o] = ws;
        }
        t
    })
}

/// Downsample a 96×96 image to the 32×32×3 tensor, channel-major (`[3][32][32]`), values in [0, 1].
/// Like Pillow, the horizontal pass is rounded to 8 bits before the vertical one.
pub fn downsample(img: &Image96, out: &mut [f32]) {
    assert_eq!(out.len(), TENSOR_LEN);
    let t = taps();
    // horizontal: 96 rows × 32 columns × 3, rounded to u8 as Pillow's 8-bit pipeline does
    let mut mid = [0u8; BIG * SMALL * 3];
    for y in 0..BIG {
        let row = &img.px[y * BIG * 3..(y + 1) * BIG * 3];
        for o in 0..SMALL {
            let s = t.start[o];
            let mut acc = [0.0f32; 3];
            for (k, &w) in t.w[o].iter().enumerate() {
                if w == 0.0 {
                    continue;
                }
                let p = &row[(s + k) * 3..(s + k) * 3 + 3];
                acc[0] += w * p[0] as f32;
                acc[1] += w * p[1] as f32;
                acc[2] += w * p[2] as f32;
            }
            let m = &mut mid[(y * SMALL + o) * 3..(y * SMALL + o) * 3 + 3];
            for c in 0..3 {
                m[c] = acc[c].round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    // vertical: 32 × 32 × 3
    for oy in 0..SMALL {
        let s = t.start[oy];
        for ox in 0..SMALL {
            let mut acc = [0.0f32; 3];
            for (k, &w) in t.w[oy].iter().enumerate() {
                if w == 0.0 {
                    continue;
                }
                let p = &mid[((s + k) * SMALL + ox) * 3..((s + k) * SMALL + ox) * 3 + 3];
                acc[0] += w * p[0] as f32;
                acc[1] += w * p[1] as f32;
                acc[2] += w * p[2] as f32;
            }
            for c in 0..3 {
                out[c * SMALL * SMALL + oy * SMALL + ox] = acc[c].round().clamp(0.0, 255.0) / 255.0;
            }
        }
    }
}

/// The 32×32×3 tensor (channel-major, [0, 1]) of a frame: what the networks see.
pub fn tensor32(frame: &Frame) -> Vec<f32> {
    let mut out = vec![0.0; TENSOR_LEN];
    downsample(&draw96(frame), &mut out);
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::{self, palette, Frame};

    #[test]
    fn pillow_rectangles_include_both_ends() {
        let mut f = Frame::blank();
        f.push(display::rect(10.0, 20.0, 19.0, 29.0, Some(palette::RED), None, 1.0));
        let img = draw96(&f);
        let reds = (0..BIG * BIG).filter(|i| img.get(i % BIG, i / BIG) == palette::RED).count();
        assert_eq!(reds, 100);
        assert_eq!(img.get(10, 20), palette::RED);
        assert_eq!(img.get(19, 29), palette::RED);
        assert_eq!(img.get(20, 29), palette::GRAY);
    }

    #[test]
    fn outline_is_inside_the_box() {
        let mut f = Frame::blank();
        f.push(display::rect(10.0, 10.0, 19.0, 19.0, Some(palette::WHITE), Some(palette::BLACK), 2.0));
        let img = draw96(&f);
        assert_eq!(img.get(10, 15), palette::BLACK);
        assert_eq!(img.get(11, 15), palette::BLACK);
        assert_eq!(img.get(12, 15), palette::WHITE);
        assert_eq!(img.get(9, 15), palette::GRAY);
    }

    #[test]
    fn width3_horizontal_line_covers_three_rows() {
        let mut f = Frame::blank();
        f.push(display::line(10.0, 50.0, 20.0, 50.0, palette::BLACK, 3.0));
        let img = draw96(&f);
        for y in 49..=51 {
            for x in 10..=20 {
                assert_eq!(img.get(x, y), palette::BLACK, "({x},{y})");
            }
        }
        assert_eq!(img.get(15, 48), palette::GRAY);
        assert_eq!(img.get(21, 50), palette::GRAY);
    }

    #[test]
    fn uniform_frame_downsamples_to_its_colour() {
        let t = tensor32(&Frame::blank());
        assert!(t.iter().all(|&v| (v - 214.0 / 255.0).abs() < 1e-6));
        let t = tensor32(&Frame::padding());
        assert!(t.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn downsample_weights_sum_to_one_and_average_blocks() {
        // a white 3x3 block aligned to output pixel (5,5) on black spreads symmetrically
        let mut f = Frame::padding();
        f.push(display::rect(15.0, 15.0, 17.0, 17.0, Some(palette::WHITE), None, 1.0));
        let t = tensor32(&f);
        let at = |x: usize, y: usize| t[y * SMALL + x];
        assert!(at(5, 5) > 0.4);
        assert!((at(4, 5) - at(6, 5)).abs() < 1e-6);
        assert!((at(5, 4) - at(5, 6)).abs() < 1e-6);
        assert_eq!(at(8, 8), 0.0);
    }
}
