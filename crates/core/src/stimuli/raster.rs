//! The network view of a display list: drawn aliased at 96×96 as Pillow draws the reference frames, then
//! downsampled to 32×32 with an antialiasing triangle (bilinear) filter whose support scales with the
//! reduction, as `PIL.Image.resize(BILINEAR)` does (torchvision `Resize` on PIL images). Output values are in
//! [0, 1] with no normalisation, like `ToTensor()`.

use crate::display::{Frame, Rgb, Shape};

/// Side in pixels of the aliased drawing, equal to the display list's 96-unit space (one unit = one pixel).
pub const BIG: usize = 96;
/// Side in pixels of the downsampled network input (the 32×32 tensor).
pub const SMALL: usize = 32;
/// Floats in one 32×32×3 tensor.
pub const TENSOR_LEN: usize = 3 * SMALL * SMALL;

/// Colours an image keeps as row patterns.
const PENS: usize = 6;

/// A 96×96 RGB image, row-major, 3 bytes per pixel.
#[derive(Clone)]
pub struct Image96 {
    /// The pixels: `BIG * BIG * 3` bytes, row-major, RGB; pixel `(x, y)` starts at byte `(y * BIG + x) * 3`.
    pub px: Vec<u8>,
    bg: Rgb,
    /// Bounding box (x0, y0, x1, y1, inclusive) of every pixel painted over the background, if any.
    dirty: Option<(i32, i32, i32, i32)>,
    /// The last colours painted, each as a row's worth of bytes (a grid alternates its fills and
    /// outline), so a span is one copy; replaced in turn.
    pens: [(Option<Rgb>, [u8; BIG * 3]); PENS],
    next_pen: usize,
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
    fn reset(&mut self, bg: Rgb) {
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
    fn pen(&mut self, c: Rgb) -> usize {
        if let Some(i) = self.pens.iter().position(|p| p.0 == Some(c)) {
            return i;
        }
        let i = self.next_pen;
        self.pens[i] = (Some(c), pattern(c));
        self.next_pen = (i + 1) % PENS;
        i
    }
    #[inline]
    fn mark(&mut self, x0: i32, y0: i32, x1: i32, y1: i32) {
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
    #[cfg(test)]
    #[inline]
    fn put(&mut self, x: i32, y: i32, c: Rgb) {
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
    #[cfg(test)]
    fn fill_where(&mut self, bbox: (f32, f32, f32, f32), c: Rgb, inside: impl Fn(f32, f32) -> bool) {
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
    fn fill_row(&mut self, y: i32, a: i32, b: i32, pat: &[u8; BIG * 3]) {
        let (at, n) = ((y as usize * BIG + a as usize) * 3, (b - a + 1) as usize * 3);
        fill_bytes(&mut self.px[at..at + n], pat);
    }
    /// Paint a convex region: on each row the pixels inside form one interval, found by scanning in from
    /// both ends of the box. Equal to testing every pixel, at the cost of a few tests per row.
    fn fill_convex(&mut self, bbox: (f32, f32, f32, f32), c: Rgb, inside: impl Fn(f32, f32) -> bool) {
        #[cfg(test)]
        if tests::EXACT.with(|e| e.get()) {
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
    fn paint_sprite(&mut self, s: &Sprite, dx: i32, dy: i32) {
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
    fn paint_spans(&mut self, spans: &[(i32, i32, i32)], dx: i32, dy: i32, c: Rgb) {
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
fn fill_bytes(dst: &mut [u8], pat: &[u8; BIG * 3]) {
    let n = dst.len();
    copy_run(dst, &pat[..n]);
}

/// Copy a run of pixels (`src` as long as `dst`).
#[inline]
fn copy_run(dst: &mut [u8], src: &[u8]) {
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
fn pattern(c: Rgb) -> [u8; BIG * 3] {
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
fn clip_box((x0, y0, x1, y1): (f32, f32, f32, f32)) -> (i32, i32, i32, i32) {
    (
        (x0.floor() as i32).max(0),
        (x1.ceil() as i32).min(BIG as i32 - 1),
        (y0.floor() as i32).max(0),
        (y1.ceil() as i32).min(BIG as i32 - 1),
    )
}

/// First and last pixel of row `y` within `xs..=xe` whose centre is inside a convex region.
#[inline]
fn row_span(y: i32, xs: i32, xe: i32, inside: &impl Fn(f32, f32) -> bool) -> Option<(i32, i32)> {
    let yf = y as f32;
    let a = (xs..=xe).find(|&x| inside(x as f32, yf))?;
    let b = (a..=xe).rev().find(|&x| inside(x as f32, yf))?;
    Some((a, b))
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
    // (max/min rather than clamp: at r = half the width the bounds may cross by one ulp)
    let cx = x.max(x0 + r).min(x1 - r);
    let cy = y.max(y0 + r).min(y1 - r);
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

/// The box and pixel-centre test of a Pillow line of `width` (butt ends; a point when degenerate).
fn segment_region(
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

fn draw_segment(img: &mut Image96, seg: (f32, f32, f32, f32), c: Rgb, width: f32) {
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
fn paint_as_sprite(
    img: &mut Image96,
    (kind, fill, outline): (SpriteKind, Option<Rgb>, Option<Rgb>),
    numbers: [f32; 6],
    (ox, oy): (f32, f32),
    (w, h): (f32, f32),
    make: impl FnOnce() -> Sprite,
) -> bool {
    #[cfg(test)]
    if tests::EXACT.with(|e| e.get()) {
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
type Spans = Vec<(i32, i32, i32)>;

/// Spans of a convex region inside `bbox` (not clipped to the image).
fn convex_spans(bbox: (f32, f32, f32, f32), inside: impl Fn(f32, f32) -> bool) -> Spans {
    let (xs, ys, xe, ye) = (bbox.0.floor() as i32, bbox.1.floor() as i32, bbox.2.ceil() as i32, bbox.3.ceil() as i32);
    (ys..=ye).filter_map(|y| row_span(y, xs, xe, &inside).map(|(a, b)| (y, a, b))).collect()
}

/// Spans of the ring between two nested convex regions (not clipped).
fn ring_spans(bbox: (f32, f32, f32, f32), outer: impl Fn(f32, f32) -> bool, inner: impl Fn(f32, f32) -> bool) -> Spans {
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
enum BoxKind {
    Rect,
    Round,
    Ellipse,
}

/// What a sprite was painted from: a box primitive, or a line's pixels.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum SpriteKind {
    Box(BoxKind),
    Segment,
}

fn box_spans(
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

/// A fast hasher for the sprite cache's small keys (SipHash, the default, was a tenth of drawing a grid).
#[derive(Default)]
struct FxHasher(u64);
impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("chunks of 8 bytes")));
        }
        for &b in chunks.remainder() {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_i32(&mut self, v: i32) {
        self.write_u64(v as u32 as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = fx_mix(self.0, v);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
type FxBuild = std::hash::BuildHasherDefault<FxHasher>;

/// One step of FxHash (rustc's hasher): fold a word into the state.
#[inline]
fn fx_mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95)
}

/// A value as an exact multiple of 1/8, if it is one (then translating by integers is exact in f32, so
/// every pixel test gives the same answer relative to the origin and spans can be reused).
fn eighths(v: f32) -> Option<i32> {
    let e = v * 8.0;
    // (a round trip through i32 instead of `fract`, which is a libm call here; NaN fails the range test)
    (e.abs() < 524_288.0 && (e as i32) as f32 == e).then_some(e as i32)
}

#[allow(clippy::too_many_arguments)]
fn draw_box(
    img: &mut Image96,
    kind: BoxKind,
    b: (f32, f32, f32, f32),
    radius: f32,
    width: f32,
    fill: Option<Rgb>,
    outline: Option<Rgb>,
) {
    #[cfg(test)]
    if tests::EXACT.with(|e| e.get()) {
        let (f, o) = box_spans(kind, b, radius, width, fill.is_some(), outline.is_some());
        return exact_paint(img, kind, b, radius, width, fill, outline, f, o);
    }
    let (ox, oy) = (b.0.floor(), b.1.floor());
    let local = (b.0 - ox, b.1 - oy, b.2 - ox, b.3 - oy);
    let numbers = [local.0, local.1, local.2, local.3, radius, width];
    let size = (b.2 - b.0, b.3 - b.1);
    if paint_as_sprite(img, (SpriteKind::Box(kind), fill, outline), numbers, (ox, oy), size, || {
        let (f, o) = box_spans(kind, local, radius, width, fill.is_some(), outline.is_some());
        Sprite::new(&[(&f, fill), (&o, outline)])
    }) {
        return;
    }
    let (f, o) = box_spans(kind, b, radius, width, fill.is_some(), outline.is_some());
    if let Some(c) = fill {
        img.paint_spans(&f, 0, 0, c);
    }
    if let Some(c) = outline {
        img.paint_spans(&o, 0, 0, c);
    }
}

/// A box primitive painted once, relative to an integer origin: per row, runs of painted pixels
/// (fill and outline together, as they end up) and their bytes, so painting it is one copy per run.
struct Sprite {
    /// `(y, a, b, offset)`: pixels `a..=b` of row `y` take `bytes[offset..]`.
    runs: Vec<(i32, i32, i32, usize)>,
    bytes: Vec<u8>,
}

impl Sprite {
    /// Paint `layers` (spans and colour, in order) onto an empty canvas and keep the painted runs.
    fn new(layers: &[(&Spans, Option<Rgb>)]) -> Self {
        let mut sprite = Sprite { runs: Vec::new(), bytes: Vec::new() };
        let painted = || layers.iter().filter(|l| l.1.is_some()).flat_map(|l| l.0.iter());
        let Some(x0) = painted().map(|s| s.1).min() else { return sprite };
        let x1 = painted().map(|s| s.2).max().expect("a painted span (x0 exists)");
        let y0 = painted().map(|s| s.0).min().expect("a painted span (x0 exists)");
        let y1 = painted().map(|s| s.0).max().expect("a painted span (x0 exists)");
        let w = (x1 - x0 + 1) as usize;
        let mut canvas: Vec<Option<Rgb>> = vec![None; w * (y1 - y0 + 1) as usize];
        for &(spans, c) in layers {
            let Some(c) = c else { continue };
            for &(y, a, b) in spans.iter() {
                let row = (y - y0) as usize * w;
                canvas[row + (a - x0) as usize..=row + (b - x0) as usize].fill(Some(c));
            }
        }
        for (r, row) in canvas.chunks_exact(w).enumerate() {
            let mut x = 0;
            while x < w {
                if row[x].is_none() {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < w && row[x].is_some() {
                    let c = row[x].expect("checked by the loop");
                    sprite.bytes.extend([c.0, c.1, c.2]);
                    x += 1;
                }
                let off = sprite.bytes.len() - (x - start) * 3;
                sprite.runs.push((y0 + r as i32, x0 + start as i32, x0 + x as i32 - 1, off));
            }
        }
        sprite
    }
}

type SpriteKey = (SpriteKind, [i32; 6], Option<Rgb>, Option<Rgb>);

/// Sprites of boxes and lines by their geometry relative to an integer origin and their colours: the
/// grids of VIR, VSR, SC, SFR and CS repeat one cell shape in a few colours dozens of times a frame, SI
/// draws from 72 lattice segments.
#[derive(Default)]
struct Sprites {
    all: std::collections::HashMap<SpriteKey, std::rc::Rc<Sprite>, FxBuild>,
    /// The last few used, looked through before hashing (a grid alternates two or three cell sprites).
    recent: Vec<(SpriteKey, std::rc::Rc<Sprite>)>,
    next: usize,
}

impl Sprites {
    const RECENT: usize = 4;
    /// The sprite of `key`, made by `make` if new.
    fn get(&mut self, key: SpriteKey, make: impl FnOnce() -> Sprite) -> &Sprite {
        if let Some(i) = self.recent.iter().position(|r| r.0 == key) {
            return &self.recent[i].1;
        }
        let sprite = match self.all.get(&key) {
            Some(s) => s.clone(),
            None => {
                if self.all.len() > 4096 {
                    self.all.clear();
                }
                let s = std::rc::Rc::new(make());
                self.all.insert(key, s.clone());
                s
            }
        };
        let i = if self.recent.len() < Self::RECENT {
            self.recent.push((key, sprite));
            self.recent.len() - 1
        } else {
            let i = self.next;
            self.recent[i] = (key, sprite);
            self.next = (i + 1) % Self::RECENT;
            i
        };
        &self.recent[i].1
    }
}

thread_local! {
    static SPRITES: std::cell::RefCell<Sprites> = std::cell::RefCell::new(Sprites::default());
}

/// Test-only: paint a box by testing every pixel, and check the spans cover exactly those pixels.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
fn exact_paint(
    img: &mut Image96,
    kind: BoxKind,
    b: (f32, f32, f32, f32),
    radius: f32,
    width: f32,
    fill: Option<Rgb>,
    outline: Option<Rgb>,
    _f: Spans,
    _o: Spans,
) {
    let (x0, y0, x1, y1) = b;
    let w = width.max(1.0);
    let inner = (x0 + w, y0 + w, x1 - w, y1 - w);
    let ir = (radius - w).max(0.0);
    let outer_of = |x: f32, y: f32| match kind {
        BoxKind::Rect => in_span(x, x0, x1) && in_span(y, y0, y1),
        BoxKind::Round => in_round_rect(x, y, b, radius),
        BoxKind::Ellipse => in_ellipse(x, y, b),
    };
    let inner_of = |x: f32, y: f32| match kind {
        BoxKind::Rect => in_span(x, inner.0, inner.2) && in_span(y, inner.1, inner.3),
        BoxKind::Round => in_round_rect(x, y, inner, ir),
        BoxKind::Ellipse => in_ellipse(x, y, inner),
    };
    if let Some(c) = fill {
        img.fill_where(b, c, outer_of);
    }
    if let Some(c) = outline {
        img.fill_where(b, c, |x, y| outer_of(x, y) && !inner_of(x, y));
    }
}

fn draw_shape(img: &mut Image96, s: &Shape) {
    match *s {
        Shape::Rect { x0, y0, x1, y1, fill, outline, width } => {
            draw_box(img, BoxKind::Rect, (x0, y0, x1, y1), 0.0, width, fill, outline)
        }
        Shape::RoundRect { x0, y0, x1, y1, radius, fill, outline, width } => {
            draw_box(img, BoxKind::Round, (x0, y0, x1, y1), radius, width, fill, outline)
        }
        Shape::Ellipse { x0, y0, x1, y1, fill, outline, width } => {
            draw_box(img, BoxKind::Ellipse, (x0, y0, x1, y1), 0.0, width, fill, outline)
        }
        Shape::Line { x0, y0, x1, y1, color, width } => draw_segment(img, (x0, y0, x1, y1), color, width),
        Shape::Arrow { x0, y0, x1, y1, color, width, tip } => {
            draw_segment(img, (x0, y0, x1, y1), color, width);
            for (bx, by) in crate::raster::arrow_barbs(x0, y0, x1, y1, tip) {
                draw_segment(img, (x1, y1, bx, by), color, width);
            }
        }
        Shape::Text { .. } => {}
        Shape::Noise { seed } => {
            crate::display::fill_noise(seed, &mut img.px);
            img.mark(0, 0, BIG as i32 - 1, BIG as i32 - 1);
        }
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

/// [`draw96`] into an image that held an earlier frame (no allocation; only its painted box is cleared).
fn draw_into(img: &mut Image96, frame: &Frame) {
    img.reset(frame.background);
    for s in &frame.shapes {
        draw_shape(img, s);
    }
}

/// Fixed-point precision of the resampling weights (Pillow's 8-bit path also works in fixed point).
const PRECISION: u32 = 14;

/// Weights of PIL's antialiasing bilinear resample from 96 to 32: for each output pixel, the first input
/// index and the triangle weights over a support of 3 input pixels either side, normalised and scaled to
/// integers that sum to exactly `1 << PRECISION`; and the tables [`Taps::reached`] reads.
struct Taps {
    start: [usize; SMALL],
    w: [[i32; 6]; SMALL],
    /// First and last tap with a non-zero weight, per output pixel.
    nonzero: [(usize, usize); SMALL],
    /// Per input pixel p: the first output whose window ends at or after p (`NONE`: none does).
    first_ending: [u8; BIG],
    /// Per input pixel p: the last output whose window starts at or before p (`NONE`: none does).
    last_starting: [u8; BIG],
}

const NONE: u8 = u8::MAX;

impl Taps {
    /// The first and last output whose 6-pixel window meets pixels `lo..=hi` (every output between
    /// them does too): the outputs a change there can alter. None when no window meets them.
    ///
    /// Windows start and end in increasing order, so those meeting `lo..=hi` are the ones from the first
    /// that ends at or after `lo` to the last that starts at or before `hi`, two table reads.
    #[inline]
    fn reached(&self, lo: i32, hi: i32) -> Option<(usize, usize)> {
        let first = if lo <= 0 { 0 } else { *self.first_ending.get(lo as usize).unwrap_or(&NONE) };
        let last = if hi < 0 { NONE } else { self.last_starting[(hi as usize).min(BIG - 1)] };
        (first != NONE && last != NONE && first <= last).then_some((first as usize, last as usize))
    }
}

fn taps() -> &'static Taps {
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
fn to_u8(acc: i32) -> u8 {
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
const UNIT: [f32; 256] = {
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
fn expand(bytes: &[u8; TENSOR_LEN], out: &mut [f32]) {
    expand_run(bytes, out);
}

/// [`unit`] of each byte of a run, into the values beside it.
#[inline]
fn expand_run(bytes: &[u8], out: &mut [f32]) {
    for (o, &v) in out.iter_mut().zip(bytes) {
        *o = unit(v);
    }
}

/// [`expand`], given the bytes of the frame before and its values: a row of bytes (one channel's row of
/// 32) equal to that frame's has its values copied, not computed again. A trial's consecutive frames
/// share many rows (a grid with one cell changed, a probe over the memory array's background): in the
/// joint benchmark the expansion's instructions per trial fell from 57k to 34k (cachegrind).
#[inline]
fn expand_after(bytes: &[u8; TENSOR_LEN], out: &mut [f32], before: Option<(&[u8; TENSOR_LEN], &[f32; TENSOR_LEN])>) {
    let Some((old, values)) = before else { return expand(bytes, out) };
    let rows = out.chunks_exact_mut(SMALL).zip(bytes.chunks_exact(SMALL));
    for ((o, b), (ob, ov)) in rows.zip(old.chunks_exact(SMALL).zip(values.chunks_exact(SMALL))) {
        if b == ob {
            #[cfg(test)]
            tests::ROWS_COPIED.with(|c| c.set(c.get() + 1));
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
fn unit(v: u8) -> f32 {
    const R: f32 = 1.0 / 255.0;
    let v = v as f32;
    let x = v * R;
    x + (v - x * 255.0) * R
}

/// [`downsample`] as bytes (`[3][32][32]`, 0–255): the tensor before the division by 255.
fn downsample_bytes(img: &Image96, out: &mut [u8; TENSOR_LEN]) {
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
fn horizontal(t: &Taps, row: &[u8; BIG * 3], c0: usize, c1: usize, out_row: &mut [u8]) {
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
fn downsample_full(img: &Image96, out: &mut [f32]) {
    let mut full = img.clone();
    full.dirty = Some((0, 0, BIG as i32 - 1, BIG as i32 - 1));
    downsample(&full, out);
}

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
                #[cfg(test)]
                tests::RECENT.with(|c| c.set(c.get() + 1));
                expand_here(&r.bytes, out);
                admit(ways, h, key, &r.bytes, stamp);
                break 'written &r.bytes;
            }
            // a frame of known shapes whose every tile was met before (the pattern tasks' grids, SI's
            // lattice segments) is composed from its tiles, without drawing
            let composed = tiles.compose(frame, key, starts);
            let bytes = if composed == Compose::Done {
                #[cfg(test)]
                tests::COMPOSED.with(|c| c.set(c.get() + 1));
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

/// Keep a frame in its memo set: it takes an empty way, else the way least met lately (the oldest among
/// equals), so a frame met a few times leaves before one met again and again (SMU's and SC's boards),
/// whatever mix of tasks runs. The others age by one, so a set's frames can change when the tasks do.
fn admit(ways: &mut [Option<MemoSlot>], h: u64, key: &[u32], bytes: &[u8; TENSOR_LEN], stamp: &mut u64) {
    let victim = ways
        .iter()
        .enumerate()
        .min_by_key(|(_, s)| s.as_ref().map_or((0, 0), |s| (s.hits as u64 + 1, s.made)))
        .map(|(w, _)| w)
        .expect("a set has ways");
    for s in ways.iter_mut().flatten() {
        s.hits = s.hits.saturating_sub(1);
    }
    *stamp += 1;
    keep(&mut ways[victim], h, key, bytes, *stamp);
}

/// A memo entry: a frame's key and its hash, its tensor bytes, when it was filled (a stamp, so a hot
/// copy of an earlier occupant of the slot is not taken for it) and how often it was met lately.
struct MemoSlot {
    hash: u64,
    key: Vec<u32>,
    bytes: Box<[u8; TENSOR_LEN]>,
    made: u64,
    hits: u8,
}

/// Put a frame's key, bytes and stamp into a memo slot, or into the place of the frame kept aside (reusing
/// the allocations already there).
fn keep(slot: &mut Option<MemoSlot>, hash: u64, key: &[u32], bytes: &[u8; TENSOR_LEN], made: u64) {
    match slot {
        Some(s) => {
            s.key.clear();
            s.key.extend_from_slice(key);
            *s.bytes = *bytes;
            (s.hash, s.made, s.hits) = (hash, made, 0);
        }
        None => *slot = Some(MemoSlot { hash, key: key.to_vec(), bytes: Box::new(*bytes), made, hits: 0 }),
    }
}

/// Frame families kept for resampling by difference.
const LASTS: usize = 2;

/// A frame's family: its background and its first drawn shape's kind and line colour (a box's outline,
/// a line's colour; fills vary with the pattern a grid shows). A frame is resampled by difference from
/// the last one drawn of its family; any choice gives the same bytes.
type Family = (Rgb, Option<std::mem::Discriminant<Shape>>, Option<Rgb>);

fn family(frame: &Frame) -> Family {
    let Some(first) = frame.shapes.iter().find(|s| !matches!(s, Shape::Text { .. })) else {
        return (frame.background, None, None);
    };
    let colour = match *first {
        Shape::Rect { outline, .. } | Shape::RoundRect { outline, .. } | Shape::Ellipse { outline, .. } => outline,
        Shape::Line { color, .. } | Shape::Arrow { color, .. } => Some(color),
        Shape::Text { .. } | Shape::Noise { .. } => None,
    };
    (frame.background, Some(std::mem::discriminant(first)), colour)
}

/// Slots of the frame memo: 2,048 × 3 KB of bytes plus keys, in sets of `MEMO_WAYS` by key hash.
const MEMO_SLOTS: usize = 2048;
const MEMO_WAYS: usize = 4;
const MEMO_SETS: usize = MEMO_SLOTS / MEMO_WAYS;
/// The memo set of a frame by its key's hash.
fn memo_set(hash: u64) -> usize {
    (hash >> 40) as usize % MEMO_SETS
}
/// Entries of the table of frames met once (by key hash): 8,192 × 8 bytes.
const FRAME_GHOSTS: usize = 1 << 13;
/// The most a slot's count of recent hits grows (each new frame in its set takes one off).
const MEMO_HITS: u8 = 3;

/// Memo slots whose tensor values are also kept (direct-mapped by key hash; an entry names its slot
/// and stamp): 64 × 12 KB. Most frames are memo hits (64 % of the joint benchmark's, nearly all of
/// STS's and SC's), and turning bytes into values for each was the largest single cost after drawing;
/// a hit on a hot slot is a copy of its values (and of its bytes, as the frame before the next one).
const HOT: usize = 64;

struct Memo {
    slots: Vec<Option<MemoSlot>>,
    /// Values of often hit slots: (slot, the slot's stamp when expanded, hits less misses, values).
    hot: Vec<(usize, u64, u32, Box<[f32; TENSOR_LEN]>)>,
    /// Slots filled so far.
    stamp: u64,
    /// The key being built (kept to reuse its allocation), and where each shape's words begin in it.
    key: Vec<u32>,
    starts: Vec<u32>,
    /// Output tiles by the shapes that paint under them, for frames drawn from known shapes.
    tiles: Tiles,
    /// The image frames are drawn into.
    scratch: Image96,
    /// The last frames drawn of `LASTS` families (by [`family`]) and their resampling, which the next
    /// frame of the family updates: SI's probe (a red border) follows a probe, not the memory frame
    /// before it, and the next memory frame follows the last memory frame, not the probe.
    lasts: [Incremental; LASTS],
    tags: [Option<Family>; LASTS],
    /// The slot a new family takes.
    next: usize,
    /// Hashes of frames met once (direct-mapped): a frame enters the memo when met again.
    ghosts: Vec<u64>,
    /// The last frame left out of the memo (its `made` and `hits` unused).
    recent: Option<MemoSlot>,
    /// Calls of [`render`] so far, and the bytes of the frame the last one rendered.
    serial: u64,
    shown: Box<[u8; TENSOR_LEN]>,
}

thread_local! {
    static MEMO: std::cell::RefCell<Memo> =
        std::cell::RefCell::new(Memo {
            slots: (0..MEMO_SLOTS).map(|_| None).collect(),
            key: Vec::new(),
            starts: Vec::new(),
            tiles: Tiles::new(),
            scratch: Image96::new(crate::display::palette::BLACK),
            lasts: std::array::from_fn(|_| Incremental::new()),
            tags: [None; LASTS],
            next: 0,
            hot: (0..HOT).map(|_| (usize::MAX, 0, 0, Box::new([0.0; TENSOR_LEN]))).collect(),
            stamp: 0,
            ghosts: vec![0; FRAME_GHOSTS],
            recent: None,
            serial: 0,
            shown: Box::new([0; TENSOR_LEN]),
        });
}

/// Start fetching the cache line holding `x` into the caches: a hint, with no effect on any result. The
/// tables of tiles and shapes (5.7 MB) live in the L3 when the tasks are mixed, and a lookup waited for its
/// line before the next one began; fetched ahead, the lines of a frame's lookups arrive together (a
/// no-op off x86-64, where the lookups wait as before).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(x);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Side of an output tile, in output pixels.
const TILE: usize = 2;
/// Tiles per side of the output.
const TILES: usize = SMALL / TILE;
/// Most shapes a tile's key holds; a tile under more is not kept.
const TILE_SHAPES: usize = 12;
/// Most shapes a tile of the small-entry table has (98 % of the tiles composed in the joint benchmark).
const FEW: usize = 4;
/// Sets of the tile tables (a set is one 64-byte cache line): tiles under at most `FEW` shapes in 2-way
/// sets of 32-byte entries (65,536 × 64 bytes), the others in direct-mapped 64-byte entries (8,192 × 64
/// bytes). A tile's set is the hash of its background and shape list plus its index, so the tiles of one
/// list in a row of tiles lie in consecutive lines, which the hardware prefetches (with the index in the
/// hash the same lookups ran 1–5 % slower on the joint mix in three paired runs, with the same simulated
/// misses).
const TILE_SETS: usize = 1 << 16;
const BIG_TILE_SETS: usize = 1 << 13;
/// Most backgrounds the tile tables tell apart (by their index in `Tiles::bgs`).
const TILE_BGS: usize = 255;
const _: () = assert!(
    std::mem::size_of::<TileSet<FEW, 2>>() == 64 && std::mem::size_of::<TileSet<TILE_SHAPES, 1>>() == 64,
    "a tile set is one cache line"
);
/// Most words a shape's key has (a rounded rectangle's).
const SHAPE_WORDS: usize = 9;
/// Sets and ways of the shape table: 16,384 entries of 72 bytes (with 8,192 the joint mix still pushed
/// out shapes of composed frames: VSR's frames were drawn for a shape not in the table 6 times in 100,
/// 0.1 times in 100 with 16,384).
const SHAPE_SETS: usize = 4096;
const SHAPE_WAYS: usize = 4;
/// The shape-table set of a shape by its key words' hash.
fn shape_set(hash: u64) -> usize {
    (hash >> 40) as usize % SHAPE_SETS
}
/// The set of tile `t` under the shape list of hash `hash`, in a table of `sets` sets: the list's tiles
/// along a row of tiles in consecutive lines (see [`TILE_SETS`]).
fn tile_set(hash: u64, t: usize, sets: usize) -> usize {
    ((hash >> 40) as usize + t) % sets
}
/// Most unknown tiles a frame may have and still be composed (the rest drawn and resampled alone).
const PARTIAL: usize = 48;
/// Frames a shape must have been met in before the first for its tiles to be kept.
const MATURE: u8 = 2;
/// Entries of the table that counts the sightings of shapes not yet in the shape table (direct-mapped
/// by hash): 16,384 × 8 bytes.
const GHOSTS: usize = 1 << 14;

/// A shape met: its key words, the id given to them, its painted box (None: nothing in the image).
#[derive(Clone, Copy)]
struct ShapeEntry {
    len: u8,
    words: [u32; SHAPE_WORDS],
    id: u32,
    bounds: Option<(i32, i32, i32, i32)>,
    used: u64,
    /// Frames it was met in after the first (saturating).
    seen: u8,
    /// Met in a frame whose shapes were all in the table (composed from tiles, or drawn when too many of
    /// its tiles were unknown): a new shape takes the place of one never so met first ([`Tiles::intern`]).
    composed: bool,
}

impl ShapeEntry {
    const EMPTY: ShapeEntry =
        ShapeEntry { len: 0, words: [0; SHAPE_WORDS], id: 0, bounds: None, used: 0, seen: 0, composed: false };
}

/// The output bytes of one tile of `img`, computed directly: the horizontal pass ([`horizontal`], which
/// copies the outputs whose taps hold one colour) over the rows under the tile's taps, once per row
/// (the two output rows' windows share half their rows), then the vertical pass: the same function of
/// the pixels as [`downsample`].
fn resample_tile(img: &Image96, tx: usize, ty: usize, out: &mut [u8; TENSOR_LEN]) {
    let t = taps();
    let plane = SMALL * SMALL;
    let (c0, c1) = (tx * TILE, tx * TILE + TILE - 1);
    let (r0, r1) = (ty * TILE, ty * TILE + TILE - 1);
    let y_lo = t.start[r0] + t.nonzero[r0].0;
    let y_hi = t.start[r1] + t.nonzero[r1].1;
    // the horizontal outputs of the rows y_lo..=y_hi (at most 3 × (TILE - 1) + 6 of them)
    let mut mid = [[0u8; MID]; 3 * (TILE - 1) + 6];
    assert!(y_hi - y_lo < mid.len(), "a tile's taps span at most {} rows", mid.len());
    for (y, m) in (y_lo..=y_hi).zip(mid.iter_mut()) {
        let row: &[u8; ROW] = img.px[y * ROW..(y + 1) * ROW].try_into().expect("a row is ROW bytes");
        horizontal(t, row, c0, c1, m);
    }
    for oy in r0..=r1 {
        let (s, (k0, k1), w) = (t.start[oy], t.nonzero[oy], &t.w[oy]);
        for ox in c0..=c1 {
            let mut acc = [0i32; 3];
            for k in k0..=k1 {
                let m = &mid[s + k - y_lo][ox * 3..ox * 3 + 3];
                for c in 0..3 {
                    acc[c] += w[k] * m[c] as i32;
                }
            }
            for c in 0..3 {
                out[c * plane + oy * SMALL + ox] = to_u8(acc[c]);
            }
        }
    }
}

/// What [`Tiles::compose`] made of a frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Compose {
    /// Every tile was known: `Tiles::bytes` holds the frame's tensor bytes.
    Done,
    /// Some tiles were not known: draw the frame, then [`Tiles::store`] them.
    Missed,
    /// A shape never seen before, or one that cannot be bounded: draw the frame, keep nothing.
    Skipped,
}

/// One kept tile: which shapes (ids, in painting order, then zeros; ids start at 1), over which
/// background (by index), gave which bytes; `len` 0 is an empty entry.
#[derive(Clone, Copy)]
#[repr(C)]
struct TileEntry<const K: usize> {
    ids: [u32; K],
    px: [u8; 3 * TILE * TILE],
    tile: u8,
    len: u8,
    bg: u8,
}

/// The first `K` ids of a tile's list (its ids, then the zeros it was cleared to): a table entry's key.
/// The list is cleared when its first id is written, so a key is read, not built; building it (zeros,
/// then a copy of the `n` ids) was two library calls per tile, 2 % of the joint benchmark's instructions.
#[inline]
fn padded<const K: usize>(ids: &[u32; TILE_SHAPES]) -> &[u32; K] {
    const { assert!(K <= TILE_SHAPES) };
    ids[..K].try_into().expect("K <= TILE_SHAPES")
}

/// `W` tile entries in one cache line, the most recently stored first.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct TileSet<const K: usize, const W: usize>([TileEntry<K>; W]);

impl<const K: usize, const W: usize> TileSet<K, W> {
    const EMPTY: Self = TileSet([TileEntry { ids: [0; K], px: [0; 3 * TILE * TILE], tile: 0, len: 0, bg: 0 }; W]);

    /// The bytes kept for this key, if any.
    #[inline]
    fn find(&self, ids: &[u32; K], tile: u8, len: u8, bg: u8) -> Option<&[u8; 3 * TILE * TILE]> {
        self.0.iter().find(|e| e.len == len && e.tile == tile && e.bg == bg && e.ids == *ids).map(|e| &e.px)
    }

    /// Keep a tile's bytes as the set's first entry (the others move down one, the last leaves).
    fn put(&mut self, ids: &[u32; K], tile: u8, len: u8, bg: u8) -> &mut [u8; 3 * TILE * TILE] {
        self.0.copy_within(0..W - 1, 1);
        self.0[0] = TileEntry { ids: *ids, px: [0; 3 * TILE * TILE], tile, len, bg };
        &mut self.0[0].px
    }
}

/// Output tiles by the shapes that paint under them. Every output byte depends only on the input
/// pixels under its 6×6 taps, and painting only overwrites pixels, so the pixels under a tile's taps
/// are the background and, in order, the shapes whose painted box meets them: a tile whose background
/// and shapes (each known exactly, by an id given to its exact key) were met before has the bytes it
/// had then. Grids of cells repeat a few shapes at fixed places (VIR, VSR, VSRec, CS), SI's figures
/// take segments from one lattice: their new frames are mostly old tiles. Ids are never reused
/// (everything is cleared before they would wrap), so a stale entry can only fail to match.
struct Tiles {
    /// Shapes met in `MATURE` frames before, in sets of `SHAPE_WAYS` by the hash of their words.
    shapes: Vec<ShapeEntry>,
    /// Shapes met fewer times: per entry, a hash of the words (its low byte cleared) and the frames it
    /// was met in after the first. A shape enters `shapes` only on reaching `MATURE`, so the shapes met
    /// once or twice (every trial's own) cannot push the ones met again and again out of it (CD's bars,
    /// which recur, do enter: see [`Tiles::intern`] for the way they take).
    /// A hash met by two shapes only makes one of them enter early or late: ids and tiles stay exact.
    ghosts: Vec<u64>,
    next_id: u32,
    /// Shape lookups so far (when each entry was last used), and its value when the frame being composed
    /// began (an entry used since is one of that frame's shapes).
    clock: u64,
    frame_clock: u64,
    /// The drawn shapes of the frame being composed that paint here: (index among the drawn shapes,
    /// first and last tile column, first and last tile row).
    placed: Vec<(usize, [u8; 4])>,
    /// Where the shapes of the frame being composed are in `shapes` (marked `composed` if it is).
    entries: Vec<usize>,
    /// The hashes of the words of the frame being composed's shapes, computed first to fetch their sets
    /// ahead ([`prefetch`]).
    hashes: Vec<u64>,
    /// Where the shapes under unknown tiles are drawn.
    img: Image96,
    /// Kept tiles under at most `FEW` shapes, and under more.
    few: Vec<TileSet<FEW, 2>>,
    many: Vec<TileSet<TILE_SHAPES, 1>>,
    /// The backgrounds met, whose indices the tile entries hold.
    bgs: Vec<Rgb>,
    /// Per tile: the ids of the shapes under it, in painting order, then zeros (more than `TILE_SHAPES`:
    /// the first `TILE_SHAPES`, and the tile is not kept). Valid for the tiles the last `compose` reached
    /// (`lens[t] > 0`); the others hold an older frame's list.
    lists: Vec<[u32; TILE_SHAPES]>,
    lens: [u8; TILES * TILES],
    /// The tiles not found by the last `compose` and their sets (in `few`, or `many` when the tile is under
    /// more than `FEW` shapes; usize::MAX: not kept).
    missed: Vec<(usize, usize)>,
    /// The index in `bgs` of the last composed frame's background.
    bg: u8,
    /// The composed tensor bytes.
    bytes: [u8; TENSOR_LEN],
    /// Per input pixel (either axis): the first and last tile whose taps reach it.
    reach: [(u8, u8); BIG],
}

impl Tiles {
    fn new() -> Self {
        let t = taps();
        let mut reach = [(u8::MAX, 0u8); BIG];
        for tile in 0..TILES {
            // the whole 6-pixel windows of the tile's outputs (a superset of the weighted taps)
            let (lo, hi) = (t.start[tile * TILE], t.start[tile * TILE + TILE - 1] + 5);
            for r in &mut reach[lo..=hi] {
                r.0 = r.0.min(tile as u8);
                r.1 = r.1.max(tile as u8);
            }
        }
        debug_assert!(reach.iter().all(|r| r.0 <= r.1), "every pixel is under some tile's taps");
        Tiles {
            shapes: Vec::new(),
            ghosts: Vec::new(),
            next_id: 0,
            clock: 0,
            frame_clock: 0,
            placed: Vec::new(),
            entries: Vec::new(),
            hashes: Vec::new(),
            img: Image96::new(crate::display::palette::BLACK),
            few: Vec::new(),
            many: Vec::new(),
            bgs: Vec::new(),
            lists: vec![[0; TILE_SHAPES]; TILES * TILES],
            lens: [0; TILES * TILES],
            missed: Vec::new(),
            bg: 0,
            bytes: [0; TENSOR_LEN],
            reach,
        }
    }

    /// The id, painted box and frames met in after the first of a shape by its key words. A shape met in
    /// fewer than `MATURE` frames before is only counted (its id is 0, and unused: its frame is drawn,
    /// unless the shape paints nothing here); on reaching `MATURE` it gets a new id in the table (4-way
    /// sets). The way it takes is, of those not used by the frame being composed, the least recently
    /// used whose shape was never met in a frame of shapes all in the table, else the least recently
    /// used: CD's bars recur enough to enter the table but never compose (a new bar comes with them), and
    /// with plain LRU they pushed the other tasks' shapes out in the joint mix (SI's frames drawn 17 times
    /// in 100 against 1 alone). Also returns the entry's index in `shapes` (None: not in it), which names
    /// this shape until the next shape enters its set. None when it cannot be bounded.
    #[allow(clippy::type_complexity)]
    fn intern(
        &mut self,
        words: &[u32],
        shape: &Shape,
        h: u64,
    ) -> Option<(u32, Option<(i32, i32, i32, i32)>, u8, Option<usize>)> {
        self.clock += 1;
        let set = shape_set(h) * SHAPE_WAYS;
        let ways = &mut self.shapes[set..set + SHAPE_WAYS];
        if let Some(w) = ways.iter().position(|e| e.len as usize == words.len() && e.words[..words.len()] == *words) {
            let e = &mut ways[w];
            e.used = self.clock;
            e.seen = e.seen.saturating_add(1);
            return Some((e.id, e.bounds, e.seen, Some(set + w)));
        }
        let bounds = paint_bounds(shape)?;
        let ghost = &mut self.ghosts[(h >> 16) as usize % GHOSTS];
        let seen = if *ghost & !0xFF == h & !0xFF { (*ghost & 0xFF) as u8 + 1 } else { 0 };
        if seen < MATURE {
            *ghost = h & !0xFF | seen as u64;
            return Some((0, bounds, seen, None));
        }
        *ghost = 0;
        let frame = self.frame_clock;
        let w = (0..SHAPE_WAYS)
            .min_by_key(|&w| (ways[w].used > frame, ways[w].composed, ways[w].used))
            .expect("SHAPE_WAYS is above 0");
        let e = &mut ways[w];
        // (ids never wrap: out of ids the frame is drawn, and the next one clears the tables)
        self.next_id = self.next_id.checked_add(1)?;
        e.len = words.len() as u8;
        e.words[..words.len()].copy_from_slice(words);
        (e.id, e.bounds, e.used, e.seen, e.composed) = (self.next_id, bounds, self.clock, seen, false);
        Some((e.id, bounds, seen, Some(set + w)))
    }

    /// Compose `frame` (its key words and shape starts from [`frame_key`]) from known tiles; when only
    /// a few are unknown, draw just the shapes under those and resample just those tiles.
    fn compose(&mut self, frame: &Frame, key: &[u32], starts: &[u32]) -> Compose {
        if self.few.is_empty() {
            self.shapes = vec![ShapeEntry::EMPTY; SHAPE_SETS * SHAPE_WAYS];
            self.ghosts = vec![0; GHOSTS];
            self.few = vec![TileSet::EMPTY; TILE_SETS];
            self.many = vec![TileSet::EMPTY; BIG_TILE_SETS];
        }
        if self.next_id >= u32::MAX - 1024 {
            // (never reached in practice: four billion shapes; reusing ids could match stale entries)
            self.shapes.fill(ShapeEntry::EMPTY);
            self.few.fill(TileSet::EMPTY);
            self.many.fill(TileSet::EMPTY);
            self.next_id = 0;
        }
        let bg = frame.background;
        self.bg = match self.bgs.iter().position(|&b| b == bg) {
            Some(i) => i as u8,
            None if self.bgs.len() < TILE_BGS => {
                self.bgs.push(bg);
                (self.bgs.len() - 1) as u8
            }
            None => return Compose::Skipped,
        };
        self.lens = [0; TILES * TILES];
        self.missed.clear();
        self.placed.clear();
        self.entries.clear();
        self.frame_clock = self.clock;
        let mut young = false;
        let drawn = frame.shapes.iter().filter(|s| !matches!(s, Shape::Text { .. }));
        // (shape i's words: from its start to the next one's, the last to the key's end)
        let words = |i: usize| &key[starts[i] as usize..starts.get(i + 1).map_or(key.len(), |&e| e as usize)];
        // Every shape's set is fetched before the first is looked up (a set spans five lines: each entry's
        // start and its length, which the lookup reads first).
        self.hashes.clear();
        for i in 0..starts.len() {
            let h = fx(words(i));
            self.hashes.push(h);
            let set = shape_set(h) * SHAPE_WAYS;
            for e in &self.shapes[set..set + SHAPE_WAYS] {
                prefetch(e);
                prefetch(&e.len);
            }
        }
        for (i, shape) in drawn.enumerate() {
            let words = words(i);
            if words.len() > SHAPE_WORDS {
                return Compose::Skipped;
            }
            let Some((id, bounds, seen, entry)) = self.intern(words, shape, self.hashes[i]) else {
                return Compose::Skipped;
            };
            // (a shape not yet in the table has no entry: a shape that paints nothing here does not make
            // its frame young, so such a frame is still composed)
            self.entries.extend(entry);
            let Some((x0, y0, x1, y1)) = bounds else { continue };
            // A shape met in fewer than `MATURE` frames before (CD's bars, placed anew each trial) makes
            // the frame's tiles unlikely to be known: it is drawn and resampled by difference, and only
            // its shapes are learnt.
            young |= seen < MATURE;
            if young {
                continue;
            }
            let (tx0, tx1) = (self.reach[x0 as usize].0, self.reach[x1 as usize].1);
            let (ty0, ty1) = (self.reach[y0 as usize].0, self.reach[y1 as usize].1);
            self.placed.push((i, [tx0, tx1, ty0, ty1]));
            for ty in ty0 as usize..=ty1 as usize {
                for tx in tx0 as usize..=tx1 as usize {
                    let t = ty * TILES + tx;
                    let n = self.lens[t] as usize;
                    if n == 0 {
                        self.lists[t] = [0; TILE_SHAPES]; // (a list's zeros end its key: see `padded`)
                    }
                    if n < TILE_SHAPES {
                        self.lists[t][n] = id;
                    }
                    self.lens[t] = (n + 1).min(TILE_SHAPES + 1) as u8;
                }
            }
        }
        if young {
            return Compose::Skipped;
        }
        for &e in &self.entries {
            self.shapes[e].composed = true;
        }
        let plane = SMALL * SMALL;
        self.bytes[..plane].fill(bg.0);
        self.bytes[plane..2 * plane].fill(bg.1);
        self.bytes[2 * plane..].fill(bg.2);
        // Every kept tile's set first, fetched ahead ([`prefetch`]), then the lookups.
        let mut sets = [0u32; TILES * TILES];
        for t in 0..TILES * TILES {
            let n = self.lens[t] as usize;
            if n == 0 || n > TILE_SHAPES {
                continue;
            }
            let mut h = fx_mix(self.bg as u64, n as u64);
            for &id in &self.lists[t][..n] {
                h = fx_mix(h, id as u64);
            }
            sets[t] = if n <= FEW {
                let at = tile_set(h, t, TILE_SETS);
                prefetch(&self.few[at]);
                at
            } else {
                let at = tile_set(h, t, BIG_TILE_SETS);
                prefetch(&self.many[at]);
                at
            } as u32;
        }
        for t in 0..TILES * TILES {
            let n = self.lens[t] as usize;
            if n == 0 {
                continue; // only background under its taps: the background exactly
            }
            if n > TILE_SHAPES {
                self.missed.push((t, usize::MAX));
                continue;
            }
            let ids = &self.lists[t];
            let (tile, len, at) = (t as u8, n as u8, sets[t] as usize);
            let found = if n <= FEW {
                self.few[at].find(padded(ids), tile, len, self.bg)
            } else {
                self.many[at].find(padded(ids), tile, len, self.bg)
            };
            match found {
                Some(px) => {
                    let (ty, tx) = (t / TILES, t % TILES);
                    for c in 0..3 {
                        for r in 0..TILE {
                            let o = c * plane + (ty * TILE + r) * SMALL + tx * TILE;
                            self.bytes[o..o + TILE].copy_from_slice(&px[(c * TILE + r) * TILE..][..TILE]);
                        }
                    }
                }
                None => self.missed.push((t, at)),
            }
        }
        if self.missed.is_empty() {
            return Compose::Done;
        }
        if self.missed.len() > PARTIAL {
            return Compose::Missed;
        }
        // Few tiles unknown: the shapes that reach them, in order, paint every pixel under their taps.
        let mut wanted = [false; TILES * TILES];
        for &(t, _) in &self.missed {
            wanted[t] = true;
        }
        self.img.reset(bg);
        let mut k = 0;
        for (i, shape) in frame.shapes.iter().filter(|s| !matches!(s, Shape::Text { .. })).enumerate() {
            if k == self.placed.len() || self.placed[k].0 != i {
                continue;
            }
            let [tx0, tx1, ty0, ty1] = self.placed[k].1;
            k += 1;
            let reaches =
                (ty0 as usize..=ty1 as usize).any(|ty| (tx0 as usize..=tx1 as usize).any(|tx| wanted[ty * TILES + tx]));
            if reaches {
                draw_shape(&mut self.img, shape);
            }
        }
        for m in 0..self.missed.len() {
            let t = self.missed[m].0;
            resample_tile(&self.img, t % TILES, t / TILES, &mut self.bytes);
        }
        let bytes = self.bytes;
        self.store(&bytes);
        Compose::Done
    }

    /// Keep the tiles the last `compose` missed, from the frame's drawn tensor bytes.
    fn store(&mut self, out: &[u8; TENSOR_LEN]) {
        let plane = SMALL * SMALL;
        for &(t, at) in &self.missed {
            if at == usize::MAX {
                continue;
            }
            let n = self.lens[t] as usize;
            let (ids, tile, len) = (&self.lists[t], t as u8, n as u8);
            let px = if n <= FEW {
                self.few[at].put(padded(ids), tile, len, self.bg)
            } else {
                self.many[at].put(padded(ids), tile, len, self.bg)
            };
            let (ty, tx) = (t / TILES, t % TILES);
            for c in 0..3 {
                for r in 0..TILE {
                    let o = c * plane + (ty * TILE + r) * SMALL + tx * TILE;
                    px[(c * TILE + r) * TILE..][..TILE].copy_from_slice(&out[o..o + TILE]);
                }
            }
        }
    }
}

/// A box holding every pixel a shape can paint, clipped to the image (None inside: it paints nothing
/// here), or None when its numbers are not finite: the box its painting scans, by construction (a box
/// primitive tests the pixels from the floor of its first corner to the ceiling of its last, a line
/// those of its box grown by half its width; an arrow is its shaft and two barbs). The sprite path
/// paints the same pixels (it translates by whole pixels numbers that are exact in f32).
fn paint_bounds(s: &Shape) -> Option<Option<(i32, i32, i32, i32)>> {
    let scan = |b: (f32, f32, f32, f32)| {
        if ![b.0, b.1, b.2, b.3].iter().all(|v| v.is_finite()) {
            return None;
        }
        let (xs, xe, ys, ye) = clip_box(b);
        Some((xs <= xe && ys <= ye).then_some((xs, ys, xe, ye)))
    };
    let segment = |(x0, y0, x1, y1): (f32, f32, f32, f32), width: f32| {
        let half = (width / 2.0).max(0.5);
        (x0.min(x1) - half, y0.min(y1) - half, x0.max(x1) + half, y0.max(y1) + half)
    };
    let join = |a: Option<(i32, i32, i32, i32)>, b: Option<(i32, i32, i32, i32)>| match (a, b) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3))),
        (a, b) => a.or(b),
    };
    match *s {
        Shape::Rect { x0, y0, x1, y1, width, .. }
        | Shape::RoundRect { x0, y0, x1, y1, width, .. }
        | Shape::Ellipse { x0, y0, x1, y1, width, .. } => {
            // (a box drawn backwards scans nothing; its ordered box bounds it all the same)
            [x0, y0, x1, y1, width].iter().all(|v| v.is_finite()).then_some(())?;
            scan((x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)))
        }
        Shape::Line { x0, y0, x1, y1, width, .. } => {
            [x0, y0, x1, y1, width].iter().all(|v| v.is_finite()).then_some(())?;
            scan(segment((x0, y0, x1, y1), width))
        }
        Shape::Arrow { x0, y0, x1, y1, width, tip, .. } => {
            [x0, y0, x1, y1, width, tip].iter().all(|v| v.is_finite()).then_some(())?;
            let mut all = scan(segment((x0, y0, x1, y1), width))?;
            for (bx, by) in arrow_barbs(x0, y0, x1, y1, tip) {
                all = join(all, scan(segment((x1, y1, bx, by), width))?);
            }
            Some(all)
        }
        Shape::Text { .. } => Some(None),
        Shape::Noise { .. } => Some(Some((0, 0, BIG as i32 - 1, BIG as i32 - 1))),
    }
}

const ROW: usize = BIG * 3;
const MID: usize = SMALL * 3;

/// Downsampling by difference: consecutive frames mostly share their pixels (a board whose lit cell
/// moves, a grid whose cells change colour, the same background), and every output byte depends only on
/// the 6×6 input pixels under its taps. So the last image, its horizontal pass (every row, every
/// column) and its output are kept; for a new image only the horizontal outputs whose taps cover a
/// changed pixel, and the final outputs whose taps cover a changed horizontal output, are computed
/// again. The result is the same function of the pixels as [`downsample`] (a test compares them).
struct Incremental {
    img: Image96,
    mid: Box<[u8; BIG * MID]>,
    out: [u8; TENSOR_LEN],
    /// `out` as tensor values, updated where `out` changes.
    values: Box<[f32; TENSOR_LEN]>,
    /// Whether `mid` and `out` describe `img` (false until the first frame).
    valid: bool,
}

impl Incremental {
    fn new() -> Self {
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
    fn clear_to_background(&mut self) {
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
    fn update(&mut self, img: &mut Image96) {
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
fn changed_pixels(a: &[u8; ROW], b: &[u8; ROW]) -> (usize, usize) {
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
fn frame_key(frame: &Frame, key: &mut Vec<u32>, starts: &mut Vec<u32>) -> u64 {
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

/// FxHash-style hashing of words (as rustc's hasher), four lanes at a time so the multiplies overlap.
/// Only for lookups whose hits are confirmed by comparing keys.
fn fx(words: &[u32]) -> u64 {
    let mut h = [0u64, 1, 2, 3];
    let mut chunks = words.chunks_exact(4);
    for c in &mut chunks {
        for i in 0..4 {
            h[i] = fx_mix(h[i], c[i] as u64);
        }
    }
    let mut t = fx_mix(0, h[0] ^ h[1].rotate_left(16) ^ h[2].rotate_left(32) ^ h[3].rotate_left(48));
    for &w in chunks.remainder() {
        t = fx_mix(t, w as u64);
    }
    fx_mix(t, words.len() as u64)
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::display::{self, Frame, palette};

    thread_local! {
        /// When set, every fill tests every pixel (the definition the span renderer must equal).
        pub(crate) static EXACT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        /// Frames composed from kept tiles so far (the tile path is taken, not only correct).
        pub(crate) static COMPOSED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        /// Frames copied from the last frame left out of the memo so far.
        pub(crate) static RECENT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        /// Rows of values copied from the frame before, not expanded, so far.
        pub(crate) static ROWS_COPIED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// The tensor of every step of `frames`, through the memo (tiles included), against drawing each
    /// frame afresh; returns how many were composed from tiles.
    fn check_against_drawing<'a>(frames: impl IntoIterator<Item = &'a Frame>, what: &str) -> u64 {
        let before = COMPOSED.with(|c| c.get());
        let mut out = vec![f32::NAN; TENSOR_LEN];
        for (k, f) in frames.into_iter().enumerate() {
            tensor_into(f, &mut out);
            let mut drawn = vec![f32::NAN; TENSOR_LEN];
            downsample(&draw96(f), &mut drawn);
            assert_eq!(out, drawn, "{what}: frame {k}");
        }
        COMPOSED.with(|c| c.get()) - before
    }

    /// `reached` equals the scan over the 32 windows for every span, empty and reversed ones and the
    /// extremes of `i32` included.
    #[test]
    fn reached_is_every_window_meeting_the_span() {
        let t = taps();
        let ends = (-8..BIG as i32 + 8).chain([i32::MIN, i32::MIN + 1, -1000, 1000, i32::MAX - 1, i32::MAX]);
        for lo in ends.clone() {
            for hi in ends.clone() {
                let meets = |o: &usize| t.start[*o] as i32 <= hi && t.start[*o] as i64 + 5 >= lo as i64;
                let plain = (0..SMALL).find(meets).zip((0..SMALL).rev().find(meets));
                assert_eq!(t.reached(lo, hi), plain, "{lo}..={hi}");
            }
        }
    }

    /// Frames composed from kept tiles equal drawn frames: the pattern tasks and SI over enough trials
    /// that most of their frames are composed, and every other id.
    #[test]
    fn composed_tiles_equal_drawing_for_every_task() {
        for id in crate::TaskId::EVERY {
            let many = matches!(
                id,
                crate::TaskId::Vir | crate::TaskId::Vsr | crate::TaskId::VsRec | crate::TaskId::Cs | crate::TaskId::Si
            );
            let spec = crate::TaskSpec::new(id);
            let trials: Vec<_> =
                (0..if many { 150 } else { 20 }).map(|i| spec.trial(5, crate::Split::Train, i)).collect();
            let frames = trials.iter().flat_map(|t| t.steps.iter().map(|s| &s.frame));
            let composed = check_against_drawing(frames, id.as_str());
            if many {
                assert!(composed > 100, "{id}: {composed} frames composed from tiles");
            }
        }
    }

    /// Random frames from a small set of shapes (every kind, at the image's edges too, overlapping, in
    /// any order, over two backgrounds): tiles are met again under other neighbours and in another
    /// painting order, and the composed tensors still equal drawing.
    #[test]
    fn composed_tiles_equal_drawing_for_random_overlaps() {
        let mut rng = crate::rng::Rng::from_u64(7);
        let colours = [palette::RED, palette::GREEN, palette::BLACK, palette::WHITE];
        let mut vocabulary = Vec::new();
        for i in 0..24 {
            let (x, y) = ((i % 6) as f32 * 17.0 - 4.0, (i / 6) as f32 * 23.0 + 0.5 * (i % 2) as f32);
            let c = colours[i % 4];
            vocabulary.push(match i % 6 {
                0 => display::rect(x, y, x + 20.0, y + 12.0, Some(c), Some(palette::BLACK), 2.0),
                1 => display::round_rect(x, y, x + 13.0, y + 13.0, 3.0, Some(c), Some(palette::BLACK), 1.0),
                2 => display::line(x, y, x + 30.0, y + 9.0, c, 3.0),
                3 => display::arrow(x + 20.0, y + 20.0, x, y, c, 2.0, 0.3),
                4 => display::ellipse(x, y, x + 25.0, y + 15.0, None, Some(c), 2.0),
                _ => display::line(x + 0.3, y, x + 0.3, y + 40.0, c, 1.0),
            });
        }
        let mut frames = Vec::new();
        for k in 0..1500 {
            let mut f =
                if k % 5 == 0 { Frame { background: palette::BLACK, shapes: vec![] } } else { Frame::gray(vec![]) };
            for _ in 0..1 + rng.index(4) {
                f.push(vocabulary[rng.index(vocabulary.len())].clone());
            }
            frames.push(f);
        }
        let composed = check_against_drawing(&frames, "random overlaps");
        assert!(composed > 200, "{composed} frames composed from tiles");
    }

    /// A shape's key words (a one-shape frame's key without its background word).
    fn shape_words(s: &Shape) -> Vec<u32> {
        let mut key = Vec::new();
        frame_key(&Frame::gray(vec![s.clone()]), &mut key, &mut Vec::new());
        key[1..].to_vec()
    }

    /// A shape's entry in the shape table, if it has one.
    fn shape_entry<'a>(tiles: &'a Tiles, s: &Shape) -> Option<&'a ShapeEntry> {
        let w = shape_words(s);
        tiles.shapes.iter().find(|e| e.len > 0 && e.words[..e.len as usize] == *w)
    }

    /// The first `n` of `candidates` whose shape-table set is `s`'s (as [`Tiles::intern`] places them).
    fn shapes_in_set_of(s: &Shape, candidates: impl Iterator<Item = Shape>, n: usize) -> Vec<Shape> {
        let set = shape_set(fx(&shape_words(s)));
        let found: Vec<Shape> = candidates.filter(|c| shape_set(fx(&shape_words(c))) == set).take(n).collect();
        assert_eq!(found.len(), n, "{n} shapes in one set");
        found
    }

    /// [`Tiles::compose`] of a frame, with its key made here.
    fn compose_alone(tiles: &mut Tiles, f: &Frame) -> Compose {
        let (mut key, mut starts) = (Vec::new(), Vec::new());
        frame_key(f, &mut key, &mut starts);
        tiles.compose(f, &key, &starts)
    }

    /// A shape met in frames that were composed from tiles stays in the shape table while shapes that
    /// only ever come with a young one (CD's bars: they recur, but their arrays never compose) enter its
    /// set and leave again: in the joint benchmark such bars took 13 of every 100 frames' worth of new
    /// entries, pushing out the shapes of SI's, SFR's and SMU's frames, which were drawn again.
    #[test]
    fn shapes_of_composed_frames_outlast_shapes_that_never_compose() {
        let line = |x: f32| display::line(x, 10.0, x + 20.0, 40.0, palette::GREEN, 3.0);
        let one = |s: Shape| Frame::gray(vec![s]);
        let mut tiles = Tiles::new();
        let kept = line(5.0);
        let id_of = |tiles: &Tiles, s: &Shape| shape_entry(tiles, s).map(|e| e.id);
        for _ in 0..=MATURE {
            compose_alone(&mut tiles, &one(kept.clone()));
        }
        let id = id_of(&tiles, &kept).expect("a shape met in MATURE frames before is in the table");
        assert!(shape_entry(&tiles, &kept).is_some_and(|e| e.composed), "its frame was composed");
        // twice as many shapes as the set has ways, each met with a new shape every time (never composed)
        let same_set = shapes_in_set_of(&kept, (1..400_000).map(|i| line(5.0 + i as f32 / 256.0)), 2 * SHAPE_WAYS);
        let mut fresh = 0.0;
        for s in &same_set {
            for _ in 0..=MATURE {
                fresh += 1.0;
                let f = Frame::gray(vec![
                    s.clone(),
                    display::line(50.0, 50.0 + fresh / 256.0, 60.0, 70.0, palette::RED, 1.0),
                ]);
                assert_eq!(compose_alone(&mut tiles, &f), Compose::Skipped, "a frame with a new shape is drawn");
            }
            assert!(id_of(&tiles, s).is_some(), "a shape met in MATURE frames before was not kept");
            assert_eq!(id_of(&tiles, &kept), Some(id), "the composed frame's shape was pushed out");
        }
        // when every way holds a composed frame's shape, the least recently used leaves as before
        for s in &same_set[..SHAPE_WAYS] {
            for _ in 0..=MATURE {
                compose_alone(&mut tiles, &one(s.clone()));
            }
        }
        assert_eq!(id_of(&tiles, &kept), None, "the least recently used composed shape stayed");
    }

    /// Two shapes of one frame entering the same set both stay: the second does not take the place of the
    /// first (not yet marked as met in a composed frame) while ways used by no shape of the frame are left.
    #[test]
    fn shapes_entering_one_set_in_one_frame_both_stay() {
        let line = |x: f32| display::line(x, 10.0, x + 20.0, 40.0, palette::GREEN, 3.0);
        let same_set =
            shapes_in_set_of(&line(5.0), (1..400_000).map(|i| line(5.0 + i as f32 / 4096.0)), SHAPE_WAYS + 1);
        let mut tiles = Tiles::new();
        let in_table = |tiles: &Tiles, s: &Shape| shape_entry(tiles, s).is_some();
        // three ways hold composed frames' shapes; the fourth is empty
        let (kept, rest) = (&same_set[..SHAPE_WAYS - 1], &same_set[SHAPE_WAYS - 1..]);
        for s in kept {
            for _ in 0..=MATURE {
                compose_alone(&mut tiles, &Frame::gray(vec![s.clone()]));
            }
        }
        let (x, y) = (&rest[0], &rest[1]);
        let mut fresh = 0.0;
        let mut with_new = |tiles: &mut Tiles, shapes: &[&Shape]| {
            fresh += 1.0;
            let mut f = Frame::gray(shapes.iter().map(|&s| s.clone()).collect());
            f.push(display::line(50.0, 50.0 + fresh / 256.0, 60.0, 70.0, palette::RED, 1.0));
            compose_alone(tiles, &f);
        };
        // x and y together, each time with a new shape: both enter the table in the same frame, x first
        // into the empty way, and y must not take x's place (never met in a composed frame, but this one's)
        for _ in 0..=MATURE {
            with_new(&mut tiles, &[x, y]);
        }
        assert!(in_table(&tiles, x) && in_table(&tiles, y), "a shape entering the set took the place of the other");
    }

    /// A shape that paints nothing in the image, met for the first time in a frame of shapes all known,
    /// neither stops the frame being composed nor is marked as met in a composed frame (it has no entry).
    #[test]
    fn a_new_shape_outside_the_image_joins_a_composed_frame() {
        let inside = display::rect(10.0, 10.0, 40.0, 30.0, Some(palette::RED), Some(palette::BLACK), 2.0);
        // met in MATURE frames before (over other backgrounds, so that none is a memo hit)
        for background in [palette::BLACK, palette::WHITE, palette::GREEN] {
            check_against_drawing([&Frame { background, shapes: vec![inside.clone()] }], "a shape met again");
        }
        let before = COMPOSED.with(|c| c.get());
        for k in 0..3 {
            let outside = display::line(-60.0 - k as f32, 5.0, -30.0, 20.0, palette::GREEN, 3.0);
            let f = Frame::gray(vec![inside.clone(), outside]);
            check_against_drawing([&f], "a known shape and a new one outside the image");
        }
        assert_eq!(COMPOSED.with(|c| c.get()), before + 3, "frames with a new shape outside the image were drawn");
        let composed = |s: &Shape| MEMO.with(|m| shape_entry(&m.borrow().tiles, s).map(|e| e.composed));
        assert_eq!(composed(&inside), Some(true), "the known shape is marked as met in a composed frame");
        let outside = display::line(-60.0, 5.0, -30.0, 20.0, palette::GREEN, 3.0);
        assert_eq!(composed(&outside), None, "a shape met once entered the table");
    }

    #[test]
    fn expand_divides_exactly_as_the_table() {
        for v in 0..=255u8 {
            let mut out = vec![f32::NAN; TENSOR_LEN];
            expand(&[v; TENSOR_LEN], &mut out);
            assert!(out.iter().all(|x| x.to_bits() == UNIT[v as usize].to_bits()), "{v}");
        }
    }

    /// Drawing a trial's frames through the memo (three times: the second pass keeps what the first met,
    /// the third is all hits) gives what drawing and downsampling each frame gives, for every task id;
    /// rows shared with the frame before are copied from it (and a frame rendered alone in between does
    /// not count as the frame before).
    #[test]
    fn memo_tensors_equal_drawn_tensors() {
        let copied = ROWS_COPIED.with(|c| c.get());
        let mut repeated = 0;
        for id in crate::TaskId::EVERY {
            let spec = crate::TaskSpec::new(id);
            for i in 0..24 {
                let t = spec.trial(3, crate::Split::Train, i);
                for _ in 0..3 {
                    let mut out = vec![f32::NAN; t.len() * TENSOR_LEN];
                    tensors_into(
                        t.steps.iter().enumerate().map(|(k, s)| {
                            if k % 3 == 2 {
                                // another frame rendered alone, between two of the trial's
                                tensor_into(&t.steps[0].frame, &mut vec![0.0; TENSOR_LEN]);
                            }
                            &s.frame
                        }),
                        &mut out,
                    );
                    for (k, s) in t.steps.iter().enumerate() {
                        let mut drawn = vec![f32::NAN; TENSOR_LEN];
                        downsample(&draw96(&s.frame), &mut drawn);
                        assert_eq!(out[k * TENSOR_LEN..(k + 1) * TENSOR_LEN], drawn[..], "{id} step {k}");
                    }
                }
                repeated += t.steps.windows(2).filter(|w| w[0].frame == w[1].frame).count();
            }
        }
        assert!(repeated > 10, "repeated frames were met ({repeated})");
        let copied = ROWS_COPIED.with(|c| c.get()) - copied;
        assert!(copied > 10_000, "rows copied from the frame before ({copied})");
    }

    /// Frames that paint apart are resampled from the plain background (the old box cleared first),
    /// frames that overlap by difference from the last one: both give the drawn tensor, in any order,
    /// including a change of background between them.
    #[test]
    fn resampling_from_the_background_equals_drawing() {
        let bar = |x: f32, y: f32, c: Rgb| display::line(x, y, x + 9.0, y + 4.0, c, 3.0);
        let mut frames = Vec::new();
        for i in 0..40 {
            let (a, b) = ((i * 37 % 80) as f32, (i * 53 % 80) as f32);
            // one small shape far from the last one's, then several spread out, then a near one
            frames.push(Frame::gray(vec![bar(a, b, palette::GREEN)]));
            frames.push(Frame::gray(vec![bar(80.0 - a, 80.0 - b, palette::GREEN), bar(a, 3.0, palette::RED)]));
            frames.push(Frame::gray(vec![bar(a + 1.0, b, palette::GREEN)]));
            if i % 7 == 0 {
                frames.push(Frame::blank());
                frames.push(Frame { background: palette::BLACK, shapes: vec![bar(b, a, palette::WHITE)] });
            }
        }
        check_against_drawing(&frames, "apart and overlapping frames");
    }

    /// A frame met once is not kept (most frames are), one met twice is, whether in a row or apart; and a
    /// frame met again and again between frames met twice keeps its memo place: each new frame that lands
    /// in its set takes a way met less (a direct-mapped memo would lose it to the first one). All exact.
    #[test]
    fn memo_keeps_frames_met_again_and_the_most_met_longest() {
        let frame = |x: f32| {
            let mut f = Frame::blank();
            f.push(display::line(x, 10.0, 30.0, 40.0, palette::GREEN, 3.0));
            f
        };
        let set_of = |f: &Frame| memo_set(frame_key(f, &mut Vec::new(), &mut Vec::new()));
        let kept = |f: &Frame| {
            let mut key = Vec::new();
            frame_key(f, &mut key, &mut Vec::new());
            MEMO.with(|m| m.borrow().slots.iter().flatten().any(|s| s.key == key))
        };
        let (a, b, c) = (frame(-1.0), frame(-2.0), frame(-3.0));
        check_against_drawing([&a], "a frame met once");
        assert!(!kept(&a), "a frame met once was kept");
        let copied = RECENT.with(|c| c.get());
        check_against_drawing([&a], "a frame met twice in a row");
        assert!(kept(&a), "a frame met twice in a row was not kept");
        assert_eq!(RECENT.with(|c| c.get()), copied + 1, "a frame met twice in a row was drawn again, not copied");
        check_against_drawing([&b, &c, &b], "frames met twice apart");
        assert!(kept(&b) && !kept(&c), "a frame met twice apart was not kept, or one met once was");
        let again = frame(1.0);
        // frames that fall in the same set
        let twice: Vec<Frame> =
            (2..200_000).map(|i| frame(i as f32 / 64.0)).filter(|f| set_of(f) == set_of(&again)).take(60).collect();
        assert_eq!(twice.len(), 60);
        for _ in 0..4 {
            tensor32(&again);
        }
        for f in &twice {
            check_against_drawing([f, f], "a frame met twice");
            assert!(kept(f), "a frame met twice was not kept");
            assert!(kept(&again), "the frame met again and again was pushed out by a frame met twice");
            check_against_drawing([&again], "the frame met again");
        }
    }

    /// The memo's key tells apart frames that draw differently, down to a coordinate's sign of zero and
    /// one colour byte, and ignores text (which the rasterizer skips).
    #[test]
    fn memo_key_is_exact() {
        let base = |x: f32, c: Rgb| {
            let mut f = Frame::blank();
            f.push(display::arrow(x, 10.0, 30.0, 10.0, c, 2.0, 0.3));
            f
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        frame_key(&base(0.0, palette::RED), &mut a, &mut Vec::new());
        frame_key(&base(-0.0, palette::RED), &mut b, &mut Vec::new());
        assert_ne!(a, b);
        frame_key(&base(0.0, Rgb(0xee, 0x1d, 0x24)), &mut b, &mut Vec::new());
        assert_ne!(a, b);
        let mut t = base(0.0, palette::RED);
        t.push(display::text(5.0, 5.0, 8.0, "hello", palette::BLACK));
        frame_key(&t, &mut b, &mut Vec::new());
        assert_eq!(a, b);
        // a frame whose slot another frame took (each is met twice, so each is kept) is drawn again,
        // correctly, and a hot copy of a slot's earlier frame is not taken for the frame in it now
        let frames: Vec<Frame> = (0..(2 * MEMO_SLOTS)).map(|x| base(x as f32 / 64.0, palette::RED)).collect();
        for round in 0..2 {
            for f in &frames {
                check_against_drawing(
                    [f, f],
                    if round == 0 { "a frame kept" } else { "a frame pushed out, met again" },
                );
            }
        }
    }

    fn draw_exact(f: &Frame) -> Image96 {
        EXACT.with(|e| e.set(true));
        let img = draw96(f);
        EXACT.with(|e| e.set(false));
        img
    }

    #[test]
    fn span_renderer_equals_per_pixel_definition() {
        let mut rng = crate::rng::Rng::from_u64(77);
        // tenths (mostly not multiples of 1/8: the span path) and eighths (the sprite path)
        let coord = |r: &mut crate::rng::Rng, eighths: bool| {
            if eighths { r.randint(-160, 920) as f32 / 8.0 } else { r.randint(-200, 1150) as f32 / 10.0 }
        };
        for i in 0..800 {
            let mut f = Frame::blank();
            let e = i % 2 == 1;
            for _ in 0..6 {
                let (a, b, c, d) = (coord(&mut rng, e), coord(&mut rng, e), coord(&mut rng, e), coord(&mut rng, e));
                let (x0, x1, y0, y1) = (a.min(c), a.max(c), b.min(d), b.max(d));
                let w = rng.randint(1, 4) as f32;
                let fill = if rng.coin() { Some(palette::RED) } else { None };
                let outline = if rng.coin() { Some(palette::BLACK) } else { None };
                f.push(match rng.below(5) {
                    0 => display::rect(x0, y0, x1, y1, fill, outline, w),
                    1 => display::round_rect(x0, y0, x1, y1, rng.randint(0, 6) as f32, fill, outline, w),
                    2 => display::ellipse(x0, y0, x1, y1, fill, outline, w),
                    3 => display::line(a, b, c, d, palette::GREEN, w),
                    _ => display::arrow(a, b, c, d, palette::ARROW, w, 0.4),
                });
            }
            let img = draw96(&f);
            assert_eq!(img.px, draw_exact(&f).px, "{f:?}");
            let (mut a, mut b) = (vec![0.0; TENSOR_LEN], vec![0.0; TENSOR_LEN]);
            downsample(&img, &mut a);
            downsample_full(&img, &mut b);
            assert_eq!(a, b, "dirty-region downsample differs");
        }
    }

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
