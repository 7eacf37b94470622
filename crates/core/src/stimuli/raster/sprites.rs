//! Shapes drawn once as sprites and stamped (boxes and lines on whole eighths of a pixel), and a
//! display list drawn at 96×96.

#[allow(unused_imports)]
use super::*;

/// A value as an exact multiple of 1/8, if it is one (then translating by integers is exact in f32, so
/// every pixel test gives the same answer relative to the origin and spans can be reused).
pub(super) fn eighths(v: f32) -> Option<i32> {
    let e = v * 8.0;
    // (a round trip through i32 instead of `fract`, which is a libm call here; NaN fails the range test)
    (e.abs() < 524_288.0 && (e as i32) as f32 == e).then_some(e as i32)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn draw_box(
    img: &mut Image96,
    kind: BoxKind,
    b: (f32, f32, f32, f32),
    radius: f32,
    width: f32,
    fill: Option<Rgb>,
    outline: Option<Rgb>,
) {
    if seam::exact() {
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
pub(super) struct Sprite {
    /// `(y, a, b, offset)`: pixels `a..=b` of row `y` take `bytes[offset..]`.
    pub(super) runs: Vec<(i32, i32, i32, usize)>,
    pub(super) bytes: Vec<u8>,
}

impl Sprite {
    /// Paint `layers` (spans and colour, in order) onto an empty canvas and keep the painted runs.
    pub(super) fn new(layers: &[(&Spans, Option<Rgb>)]) -> Self {
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

pub(super) type SpriteKey = (SpriteKind, [i32; 6], Option<Rgb>, Option<Rgb>);

/// Sprites of boxes and lines by their geometry relative to an integer origin and their colours: the
/// grids of VIR, VSR, SC, SFR and CS repeat one cell shape in a few colours dozens of times a frame, SI
/// draws from 72 lattice segments.
#[derive(Default)]
pub(super) struct Sprites {
    pub(super) all: std::collections::HashMap<SpriteKey, std::rc::Rc<Sprite>, FxBuild>,
    /// The last few used, looked through before hashing (a grid alternates two or three cell sprites).
    pub(super) recent: Vec<(SpriteKey, std::rc::Rc<Sprite>)>,
    pub(super) next: usize,
}

impl Sprites {
    const RECENT: usize = 4;
    /// The sprite of `key`, made by `make` if new.
    pub(super) fn get(&mut self, key: SpriteKey, make: impl FnOnce() -> Sprite) -> &Sprite {
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
    pub(super) static SPRITES: std::cell::RefCell<Sprites> = std::cell::RefCell::new(Sprites::default());
}

/// The exact drawing (through [`seam::exact`], in tests): paint a box by testing every pixel, which the
/// spans must cover exactly.
#[allow(clippy::too_many_arguments)]
pub(super) fn exact_paint(
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

pub(super) fn draw_shape(img: &mut Image96, s: &Shape) {
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
pub(super) fn draw_into(img: &mut Image96, frame: &Frame) {
    img.reset(frame.background);
    for s in &frame.shapes {
        draw_shape(img, s);
    }
}
