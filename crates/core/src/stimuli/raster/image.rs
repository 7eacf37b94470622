//! The 96×96 image and its painting primitives: rows as patterns, spans of convex shapes, rings,
//! boxes, segments.

#[allow(unused_imports)]
use super::*;

/// A 96×96 RGB image, row-major, 3 bytes per pixel.
#[derive(Clone)]
pub struct Image96 {
    /// The pixels: `BIG * BIG * 3` bytes, row-major, RGB; pixel `(x, y)` starts at byte `(y * BIG + x) * 3`.
    pub px: Vec<u8>,
    pub(super) bg: Rgb,
    /// Bounding box (x0, y0, x1, y1, inclusive) of every pixel painted over the background, if any.
    pub(super) dirty: Option<(i32, i32, i32, i32)>,
    /// The last colours painted, each as a row's worth of bytes (a grid alternates its fills and
    /// outline), so a span is one copy; replaced in turn.
    pub(super) pens: [(Option<Rgb>, [u8; BIG * 3]); PENS],
    pub(super) next_pen: usize,
}

impl PartialEq for Image96 {
    fn eq(&self, o: &Self) -> bool {
        self.px == o.px && self.bg == o.bg && self.dirty == o.dirty
    }
}
impl Eq for Image96 {}

impl std::fmt::Debug for Image96 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Image96({} bytes)", self.px.len())
    }
}

impl Image96 {
    /// An image filled with the background colour `bg`, nothing painted yet.
    pub fn new(bg: Rgb) -> Self {
        let mut row = [0u8; BIG * 3];
        for c in row.chunks_exact_mut(3) {
            c.copy_from_slice(&[bg.0, bg.1, bg.2]);
        }
        let mut px = Vec::with_capacity(BIG * BIG * 3);
        for _ in 0..BIG {
            px.extend_from_slice(&row);
        }
        Image96 { px, bg, dirty: None, pens: [(None, [0; BIG * 3]); PENS], next_pen: 0 }
    }
    /// Clear to `bg` for the next frame, reusing the buffer: only the painted box is restored when the
    /// background stays the same.
    pub(super) fn reset(&mut self, bg: Rgb) {
        let pat = pattern(bg);
        let rows = match self.dirty {
            _ if bg != self.bg => Some((0, 0, BIG as i32 - 1, BIG as i32 - 1)),
            d => d,
        };
        if let Some((x0, y0, x1, y1)) = rows {
            for y in y0..=y1 {
                self.fill_row(y, x0, x1, &pat);
            }
        }
        self.bg = bg;
        self.dirty = None;
    }
    /// The pen (index into `pens`) holding colour `c`'s row pattern, made in the next slot if missing.
    #[inline]
    pub(super) fn pen(&mut self, c: Rgb) -> usize {
        if let Some(i) = self.pens.iter().position(|p| p.0 == Some(c)) {
            return i;
        }
        let i = self.next_pen;
        self.pens[i] = (Some(c), pattern(c));
        self.next_pen = (i + 1) % PENS;
        i
    }
    #[inline]
    pub(super) fn mark(&mut self, x0: i32, y0: i32, x1: i32, y1: i32) {
        self.dirty = Some(match self.dirty {
            None => (x0, y0, x1, y1),
            Some((a, b, c, d)) => (a.min(x0), b.min(y0), c.max(x1), d.max(y1)),
        });
    }
    /// The colour of pixel `(x, y)` (column, row; both below [`BIG`], else it panics or reads the wrong pixel).
    pub fn get(&self, x: usize, y: usize) -> Rgb {
        let i = (y * BIG + x) * 3;
        Rgb(self.px[i], self.px[i + 1], self.px[i + 2])
    }
    #[inline]
    pub(super) fn put(&mut self, x: i32, y: i32, c: Rgb) {
        if x < 0 || y < 0 || x >= BIG as i32 || y >= BIG as i32 {
            return;
        }
        self.mark(x, y, x, y);
        let i = (y as usize * BIG + x as usize) * 3;
        self.px[i] = c.0;
        self.px[i + 1] = c.1;
        self.px[i + 2] = c.2;
    }
    /// Paint every pixel whose centre `(x, y)` lies in the box and satisfies `inside`, testing every
    /// pixel (the reference behaviour the span renderer must equal; used for non-convex tests).
    pub(super) fn fill_where(&mut self, bbox: (f32, f32, f32, f32), c: Rgb, inside: impl Fn(f32, f32) -> bool) {
        let (xs, xe, ys, ye) = clip_box(bbox);
        for y in ys..=ye {
            for x in xs..=xe {
                if inside(x as f32, y as f32) {
                    self.put(x, y, c);
                }
            }
        }
    }
    /// Paint pixels `a..=b` of row `y` (already clipped) with `pat`, the colour repeated along a row: one
    /// `memcpy` instead of a 3-byte store per pixel. The caller marks the dirty box.
    #[inline]
    pub(super) fn fill_row(&mut self, y: i32, a: i32, b: i32, pat: &[u8; BIG * 3]) {
        let (at, n) = ((y as usize * BIG + a as usize) * 3, (b - a + 1) as usize * 3);
        fill_bytes(&mut self.px[at..at + n], pat);
    }
    /// Paint a convex region: on each row the pixels inside form one interval, found by scanning in from
    /// both ends of the box. Equal to testing every pixel, at the cost of a few tests per row.
    pub(super) fn fill_convex(&mut self, bbox: (f32, f32, f32, f32), c: Rgb, inside: impl Fn(f32, f32) -> bool) {
        if seam::exact() {
            return self.fill_where(bbox, c, inside);
        }
        let (xs, xe, ys, ye) = clip_box(bbox);
        let pat = self.pens[self.pen(c)].1;
        for y in ys..=ye {
            if let Some((a, b)) = row_span(y, xs, xe, &inside) {
                self.mark(a, y, b, y);
                self.fill_row(y, a, b, &pat);
            }
        }
    }
    /// Paint a sprite shifted by `(dx, dy)`, clipped to the image.
    pub(super) fn paint_sprite(&mut self, s: &Sprite, dx: i32, dy: i32) {
        let max = BIG as i32 - 1;
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for &(y, a0, b0, off) in &s.runs {
            let (y, a0, b0) = (y + dy, a0 + dx, b0 + dx);
            let (a, b) = (a0.max(0), b0.min(max));
            if !(0..=max).contains(&y) || a > b {
                continue;
            }
            let at = (y as usize * BIG + a as usize) * 3;
            let n = (b - a + 1) as usize * 3;
            copy_run(&mut self.px[at..at + n], &s.bytes[off + (a - a0) as usize * 3..][..n]);
            (x0, y0, x1, y1) = (x0.min(a), y0.min(y), x1.max(b), y1.max(y));
        }
        if x0 <= x1 {
            self.mark(x0, y0, x1, y1);
        }
    }
    /// Paint spans shifted by `(dx, dy)`, clipped to the image.
    pub(super) fn paint_spans(&mut self, spans: &[(i32, i32, i32)], dx: i32, dy: i32, c: Rgb) {
        let max = BIG as i32 - 1;
        let pen = self.pen(c);
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for &(y, a, b) in spans {
            let (y, a, b) = (y + dy, (a + dx).max(0), (b + dx).min(max));
            if (0..=max).contains(&y) && a <= b {
                let (at, n) = ((y as usize * BIG + a as usize) * 3, (b - a + 1) as usize * 3);
                fill_bytes(&mut self.px[at..at + n], &self.pens[pen].1);
                (x0, y0, x1, y1) = (x0.min(a), y0.min(y), x1.max(b), y1.max(y));
            }
        }
        if x0 <= x1 {
            self.mark(x0, y0, x1, y1);
        }
    }
}

/// Copy the start of a row pattern over `dst`.
#[inline]
pub(super) fn fill_bytes(dst: &mut [u8], pat: &[u8; BIG * 3]) {
    let n = dst.len();
    copy_run(dst, &pat[..n]);
}

/// Copy a run of pixels (`src` as long as `dst`).
#[inline]
pub(super) fn copy_run(dst: &mut [u8], src: &[u8]) {
    if dst.len() <= 24 {
        // short runs (outlines, thin lines): a byte loop beats a call to memcpy
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s;
        }
    } else {
        dst.copy_from_slice(src);
    }
}

/// A row's worth of one colour, for [`Image96::fill_row`]: 8 pixels (24 bytes, a whole number of
/// words) built once and copied 12 times.
#[inline]
pub(super) fn pattern(c: Rgb) -> [u8; BIG * 3] {
    let mut unit = [0u8; 24];
    for px in unit.chunks_exact_mut(3) {
        px.copy_from_slice(&[c.0, c.1, c.2]);
    }
    let mut p = [0u8; BIG * 3];
    for ch in p.chunks_exact_mut(24) {
        ch.copy_from_slice(&unit);
    }
    p
}

/// The pixel range of a box, clipped to the image.
pub(super) fn clip_box((x0, y0, x1, y1): (f32, f32, f32, f32)) -> (i32, i32, i32, i32) {
    (
        (x0.floor() as i32).max(0),
        (x1.ceil() as i32).min(BIG as i32 - 1),
        (y0.floor() as i32).max(0),
        (y1.ceil() as i32).min(BIG as i32 - 1),
    )
}

/// First and last pixel of row `y` within `xs..=xe` whose centre is inside a convex region.
#[inline]
pub(super) fn row_span(y: i32, xs: i32, xe: i32, inside: &impl Fn(f32, f32) -> bool) -> Option<(i32, i32)> {
    let yf = y as f32;
    let a = (xs..=xe).find(|&x| inside(x as f32, yf))?;
    let b = (a..=xe).rev().find(|&x| inside(x as f32, yf))?;
    Some((a, b))
}

/// Pixel centre `p` is inside the half-open span that a Pillow box `[a, b]` (both ends included) covers.
#[inline]
pub(super) fn in_span(p: f32, a: f32, b: f32) -> bool {
    p >= a - 0.5 && p < b + 0.5
}

pub(super) fn in_round_rect(x: f32, y: f32, b: (f32, f32, f32, f32), r: f32) -> bool {
    let (x0, y0, x1, y1) = (b.0 - 0.5, b.1 - 0.5, b.2 + 0.5, b.3 + 0.5);
    if !(x >= x0 && x < x1 && y >= y0 && y < y1) {
        return false;
    }
    if r <= 0.0 {
        return true;
    }
    // Pixel centres are tested against the rounded outline of the covered area.
    let r = r.min((x1 - x0) / 2.0).min((y1 - y0) / 2.0);
    // (max/min rather than clamp: at r = half the width the bounds may cross by one ulp)
    let cx = x.max(x0 + r).min(x1 - r);
    let cy = y.max(y0 + r).min(y1 - r);
    let (dx, dy) = (x - cx, y - cy);
    dx * dx + dy * dy <= r * r
}

pub(super) fn in_ellipse(x: f32, y: f32, b: (f32, f32, f32, f32)) -> bool {
    let (cx, cy) = ((b.0 + b.2) / 2.0, (b.1 + b.3) / 2.0);
    let (a, bb) = ((b.2 - b.0 + 1.0) / 2.0, (b.3 - b.1 + 1.0) / 2.0);
    if a <= 0.0 || bb <= 0.0 {
        return false;
    }
    let (dx, dy) = ((x - cx) / a, (y - cy) / bb);
    dx * dx + dy * dy <= 1.0
}

/// The box and pixel-centre test of a Pillow line of `width` (butt ends; a point when degenerate).
pub(super) fn segment_region(
    (x0, y0, x1, y1): (f32, f32, f32, f32),
    width: f32,
) -> ((f32, f32, f32, f32), impl Fn(f32, f32) -> bool) {
    let (dx, dy) = (x1 - x0, y1 - y0);
    let len = (dx * dx + dy * dy).sqrt();
    let half = (width / 2.0).max(0.5);
    let point = len < 1e-6;
    let (ux, uy) = if point { (0.0, 0.0) } else { (dx / len, dy / len) };
    let bbox = (x0.min(x1) - half, y0.min(y1) - half, x0.max(x1) + half, y0.max(y1) + half);
    let inside = move |x: f32, y: f32| {
        if point {
            return (x - x0).abs() <= half && (y - y0).abs() <= half;
        }
        let (px, py) = (x - x0, y - y0);
        let t = px * ux + py * uy;
        let d = (px * uy - py * ux).abs();
        t >= -1e-3 && t <= len + 1e-3 && d <= half
    };
    (bbox, inside)
}

pub(super) fn draw_segment(img: &mut Image96, seg: (f32, f32, f32, f32), c: Rgb, width: f32) {
    // (SI's lattice, CD's bars and the grids' lines lie on whole eighths: sprites)
    let (ox, oy) = (seg.0.min(seg.2).floor(), seg.1.min(seg.3).floor());
    let local = (seg.0 - ox, seg.1 - oy, seg.2 - ox, seg.3 - oy);
    let size = ((seg.0 - seg.2).abs() + width.abs(), (seg.1 - seg.3).abs() + width.abs());
    let numbers = [local.0, local.1, local.2, local.3, width, 0.0];
    let painted = paint_as_sprite(img, (SpriteKind::Segment, Some(c), None), numbers, (ox, oy), size, || {
        let (bbox, inside) = segment_region(local, width);
        Sprite::new(&[(&convex_spans(bbox, inside), Some(c))])
    });
    if !painted {
        let (bbox, inside) = segment_region(seg, width);
        img.fill_convex(bbox, c, inside);
    }
}

/// Paint a shape from its cached sprite, made by `make` the first time: possible when the shape's
/// `numbers` relative to the integer origin `(ox, oy)` are whole eighths (then translating by whole
/// pixels is exact in f32, so every pixel test gives the same answer relative to the origin). Only
/// shapes near the image and under 256 pixels on a side get one (a sprite holds the whole shape, so a
/// huge one would cost its area in memory). False: the caller paints it some other way.
#[inline]
pub(super) fn paint_as_sprite(
    img: &mut Image96,
    (kind, fill, outline): (SpriteKind, Option<Rgb>, Option<Rgb>),
    numbers: [f32; 6],
    (ox, oy): (f32, f32),
    (w, h): (f32, f32),
    make: impl FnOnce() -> Sprite,
) -> bool {
    if seam::exact() {
        return false;
    }
    let near = (-128.0..224.0).contains(&ox) && (-128.0..224.0).contains(&oy) && w < 256.0 && h < 256.0;
    let exact = numbers.map(eighths);
    if !near || exact.iter().any(Option::is_none) {
        return false;
    }
    let key: SpriteKey = (kind, exact.map(Option::unwrap), fill, outline);
    SPRITES.with(|c| {
        let mut c = c.borrow_mut();
        img.paint_sprite(c.get(key, make), ox as i32, oy as i32)
    });
    true
}

/// Rows `(y, a, b)` of pixels to paint, in some frame of reference.
pub(super) type Spans = Vec<(i32, i32, i32)>;

/// Spans of a convex region inside `bbox` (not clipped to the image).
pub(super) fn convex_spans(bbox: (f32, f32, f32, f32), inside: impl Fn(f32, f32) -> bool) -> Spans {
    let (xs, ys, xe, ye) = (bbox.0.floor() as i32, bbox.1.floor() as i32, bbox.2.ceil() as i32, bbox.3.ceil() as i32);
    (ys..=ye).filter_map(|y| row_span(y, xs, xe, &inside).map(|(a, b)| (y, a, b))).collect()
}

/// Spans of the ring between two nested convex regions (not clipped).
pub(super) fn ring_spans(
    bbox: (f32, f32, f32, f32),
    outer: impl Fn(f32, f32) -> bool,
    inner: impl Fn(f32, f32) -> bool,
) -> Spans {
    let (xs, ys, xe, ye) = (bbox.0.floor() as i32, bbox.1.floor() as i32, bbox.2.ceil() as i32, bbox.3.ceil() as i32);
    let mut v = Vec::new();
    for y in ys..=ye {
        let Some((a, b)) = row_span(y, xs, xe, &outer) else { continue };
        match row_span(y, a, b, &inner) {
            None => v.push((y, a, b)),
            Some((ia, ib)) => {
                if ia > a {
                    v.push((y, a, ia - 1));
                }
                if ib < b {
                    v.push((y, ib + 1, b));
                }
            }
        }
    }
    v
}

/// Fill and outline spans of a box-shaped primitive, computed from its geometry alone.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum BoxKind {
    Rect,
    Round,
    Ellipse,
}

/// What a sprite was painted from: a box primitive, or a line's pixels.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum SpriteKind {
    Box(BoxKind),
    Segment,
}

pub(super) fn box_spans(
    kind: BoxKind,
    b: (f32, f32, f32, f32),
    radius: f32,
    width: f32,
    fill: bool,
    outline: bool,
) -> (Spans, Spans) {
    let (x0, y0, x1, y1) = b;
    let w = width.max(1.0);
    let inner = (x0 + w, y0 + w, x1 - w, y1 - w);
    let ir = (radius - w).max(0.0);
    let mut f = Vec::new();
    let mut o = Vec::new();
    match kind {
        BoxKind::Rect => {
            let out = |x, y| in_span(x, x0, x1) && in_span(y, y0, y1);
            if fill {
                f = convex_spans(b, out);
            }
            if outline {
                o = ring_spans(b, out, |x, y| in_span(x, inner.0, inner.2) && in_span(y, inner.1, inner.3));
            }
        }
        BoxKind::Round => {
            if fill {
                f = convex_spans(b, |x, y| in_round_rect(x, y, b, radius));
            }
            if outline {
                o = ring_spans(b, |x, y| in_round_rect(x, y, b, radius), |x, y| in_round_rect(x, y, inner, ir));
            }
        }
        BoxKind::Ellipse => {
            if fill {
                f = convex_spans(b, |x, y| in_ellipse(x, y, b));
            }
            if outline {
                o = ring_spans(b, |x, y| in_ellipse(x, y, b), |x, y| in_ellipse(x, y, inner));
            }
        }
    }
    (f, o)
}
