//! The display list: what one frame shows, as shapes in a 96×96 space.
//!
//! Coordinates follow Pillow, because the WorM reference frames were drawn with it: a point `(x, y)` is
//! the **centre** of pixel `(x, y)` of the 96×96 image, and a rectangle `[x0, y0, x1, y1]` covers the pixels
//! `x0..=x1`, `y0..=y1` (both ends included). A renderer at another size `s` maps a point `p` to
//! `(p + 0.5) * s / 96` and a rectangle to `[x0 * s/96, (x1 + 1) * s/96)`.
//!
//! Two renderers draw the same list: [`crate::raster`] (96×96 aliased, downsampled to the 32×32×3 tensor
//! the networks see) and the app's canvas painter (crisp, any size, for people).

use serde::{Deserialize, Serialize};

/// Side of the drawing space in units (= pixels of the reference frames).
pub const SPACE: f32 = 96.0;

/// An RGB colour, one byte per channel (red, green, blue); serialised as `[r, g, b]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// The colour as CSS writes it, `#rrggbb` in lowercase hex (the app's canvas painter uses it).
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// The WorM palette (`self.color_map` in every reference generator).
pub mod palette {
    use super::Rgb;
    /// `#ee1d23`: CD's red bars, VIR's and CS's pattern cells and ball, SFR's current cell, SMU's markers and
    /// probed box, STS's marker, SI's probe border.
    pub const RED: Rgb = Rgb(0xee, 0x1d, 0x23);
    /// `#015fae`: in the reference palette; no WorM task draws it (people's N-back grids light their cell in it).
    pub const BLUE: Rgb = Rgb(0x01, 0x5f, 0xae);
    /// `#bc1b8d`: in the reference palette, unused by the tasks (named in the language models' text-grid legend).
    pub const VIOLET: Rgb = Rgb(0xbc, 0x1b, 0x8d);
    /// `#3ab54a`: CD's green bars, SFR's visible cells, the filled cells of VSR/VSRec patterns, SC's shown cell,
    /// SMU's boxes, SI's lines, CS's ball-frame border.
    pub const GREEN: Rgb = Rgb(0x3a, 0xb5, 0x4a);
    /// Pure yellow: in the reference palette, unused by the tasks (named in the language models' text-grid legend).
    pub const YELLOW: Rgb = Rgb(255, 255, 0);
    /// Outlines, separator lines, CD's gaps, text; also the padding frames' background.
    pub const BLACK: Rgb = Rgb(0, 0, 0);
    /// Empty cells of matrix patterns and SC's boards, SMU's box outlines, STS's grid cells.
    pub const WHITE: Rgb = Rgb(255, 255, 255);
    /// `#b78565`: in the reference palette, unused by the tasks (named in the language models' text-grid legend).
    pub const BROWN: Rgb = Rgb(0xb7, 0x85, 0x65);
    /// The background of every frame inside a trial (`blank.png`).
    pub const GRAY: Rgb = Rgb(0xd6, 0xd6, 0xd6);
    /// cv2 arrows in SMU and CS.
    pub const ARROW: Rgb = Rgb(30, 30, 30);
    /// The 7 reds and 7 blues of CS's colour-discrimination distractor.
    pub const CS_REDS: [Rgb; 7] = [
        Rgb(0x88, 0x08, 0x08),
        Rgb(0xEE, 0x4B, 0x2B),
        Rgb(0xC4, 0x1E, 0x3A),
        Rgb(0xD2, 0x04, 0x2D),
        Rgb(0xDC, 0x14, 0x3C),
        Rgb(0x8B, 0x00, 0x00),
        Rgb(0x80, 0x00, 0x00),
    ];
    /// The 7 blues of that distractor: a blue panel is answer class 1, a red one ([`CS_REDS`]) class 0.
    pub const CS_BLUES: [Rgb; 7] = [
        Rgb(0x00, 0x00, 0xFF),
        Rgb(0x00, 0x96, 0xFF),
        Rgb(0x00, 0x47, 0xAB),
        Rgb(0x1C, 0x05, 0xB3),
        Rgb(0x00, 0x00, 0x8B),
        Rgb(0x3F, 0x00, 0xFF),
        Rgb(0x04, 0x37, 0xF2),
    ];
}

/// One drawing primitive. Widths are in units; `outline` is drawn inside the shape's bounds, as Pillow does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// Pillow `rectangle([x0, y0, x1, y1])`, both ends included.
    Rect {
        /// Left edge: the first column of pixels covered.
        x0: f32,
        /// Top edge: the first row of pixels covered.
        y0: f32,
        /// Right edge: the last column covered (included).
        x1: f32,
        /// Bottom edge: the last row covered (included).
        y1: f32,
        /// Interior colour; `None` leaves the inside unpainted.
        fill: Option<Rgb>,
        /// Border colour, drawn inside the bounds; `None` draws no border.
        outline: Option<Rgb>,
        /// Border thickness in units (Pillow's `width`; under 1 draws as 1); unused without `outline`.
        width: f32,
    },
    /// Pillow `rounded_rectangle` with corner radius `radius`.
    RoundRect {
        /// Left edge: the first column of pixels covered.
        x0: f32,
        /// Top edge: the first row of pixels covered.
        y0: f32,
        /// Right edge: the last column covered (included).
        x1: f32,
        /// Bottom edge: the last row covered (included).
        y1: f32,
        /// Corner radius in units; the outline's inner edge is rounded with `radius - width` (at least 0).
        radius: f32,
        /// Interior colour; `None` leaves the inside unpainted.
        fill: Option<Rgb>,
        /// Border colour, drawn inside the bounds; `None` draws no border.
        outline: Option<Rgb>,
        /// Border thickness in units (Pillow's `width`; under 1 draws as 1); unused without `outline`.
        width: f32,
    },
    /// Pillow `line` (butt ends) of the given width.
    Line {
        /// Start point x: a pixel centre, as Pillow takes points.
        x0: f32,
        /// Start point y.
        y0: f32,
        /// End point x.
        x1: f32,
        /// End point y.
        y1: f32,
        /// Colour of the whole line, painted opaque.
        color: Rgb,
        /// Thickness in units, across the line (under 1 draws as 1); the ends are not extended.
        width: f32,
    },
    /// cv2 `arrowedLine`: the shaft plus two barbs at the tip, each `tip` × the shaft's length, at ±45°.
    Arrow {
        /// Tail x: a pixel centre, as cv2 takes points.
        x0: f32,
        /// Tail y.
        y0: f32,
        /// Tip x, where the barbs meet.
        x1: f32,
        /// Tip y.
        y1: f32,
        /// Colour of the shaft and the barbs (the tasks use [`palette::ARROW`]).
        color: Rgb,
        /// Thickness in units of the shaft and the barbs (under 1 draws as 1).
        width: f32,
        /// Barb length as a fraction of the shaft's length (cv2 `tipLength`; the tasks use 0.4).
        tip: f32,
    },
    /// Pillow `ellipse` inside the box `[x0, y0, x1, y1]`.
    Ellipse {
        /// Left edge of the bounding box: its first column of pixels.
        x0: f32,
        /// Top edge of the bounding box: its first row of pixels.
        y0: f32,
        /// Right edge of the bounding box: its last column (included).
        x1: f32,
        /// Bottom edge of the bounding box: its last row (included).
        y1: f32,
        /// Interior colour; `None` leaves the inside unpainted.
        fill: Option<Rgb>,
        /// Border colour, drawn inside the bounds; `None` draws no border.
        outline: Option<Rgb>,
        /// Border thickness in units (Pillow's `width`; under 1 draws as 1); unused without `outline`.
        width: f32,
    },
    /// Text for people (labels, key hints), centred at `(x, y)`, `size` units tall. Network frames never
    /// carry text; the rasterizer skips it.
    Text {
        /// Centre x of the text.
        x: f32,
        /// Centre y of the text.
        y: f32,
        /// Font size in units: on a canvas `s` px wide the font is `size * s / 96` px.
        size: f32,
        /// What is written: an LSR word, an N-back letter, a label.
        text: String,
        /// Colour of the glyphs.
        color: Rgb,
    },
    /// The whole 96×96 frame as noise: every pixel's R, G and B drawn independently and uniformly from
    /// 0–255 (WorM A3.4's backward mask), the bytes of [`noise_bytes`] of `seed`, so a trial's noise is
    /// the same wherever it is drawn.
    Noise {
        /// Seed of the pixel stream ([`noise_bytes`]); CD draws one per noise frame from the trial's RNG.
        seed: u64,
    },
}

/// The 96×96×3 bytes (row-major, RGB) of [`Shape::Noise`] with `seed`.
pub fn noise_bytes(seed: u64) -> Vec<u8> {
    let mut out = vec![0; 96 * 96 * 3];
    fill_noise(seed, &mut out);
    out
}

/// Write [`noise_bytes`] of `seed` into `out` (96×96×3 bytes): the rasterizer paints a noise frame in
/// place, without a copy per frame.
pub fn fill_noise(seed: u64, out: &mut [u8]) {
    let mut rng = crate::rng::Rng::from_u64(seed);
    for px in out.chunks_exact_mut(3) {
        px.copy_from_slice(&rng.next_u32().to_le_bytes()[..3]);
    }
}

/// One frame: a background and shapes painted in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The colour under the shapes: [`palette::GRAY`] inside a trial, [`palette::BLACK`] for padding.
    pub background: Rgb,
    /// Drawn in order, each over the ones before it.
    pub shapes: Vec<Shape>,
}

impl Frame {
    /// The gray frame shown for retention, blanks and SFR/SC probes.
    pub fn blank() -> Self {
        Frame { background: palette::GRAY, shapes: Vec::new() }
    }
    /// The black frame that pads a trial to 20 steps (`torch.zeros_like`).
    pub fn padding() -> Self {
        Frame { background: palette::BLACK, shapes: Vec::new() }
    }
    /// A frame on the trial background ([`palette::GRAY`]) showing `shapes`.
    pub fn gray(shapes: Vec<Shape>) -> Self {
        Frame { background: palette::GRAY, shapes }
    }
    /// Add `s` on top of the shapes already there.
    pub fn push(&mut self, s: Shape) {
        self.shapes.push(s);
    }
}

/// An axis-aligned area in display units (0–96): where a person clicks to give an answer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Area {
    /// Left edge in units.
    pub x: f32,
    /// Top edge in units.
    pub y: f32,
    /// Width in units.
    pub w: f32,
    /// Height in units.
    pub h: f32,
}

impl Area {
    /// The area with top-left corner `(x, y)`, width `w` and height `h`, all in units.
    pub fn new(x: f32, y: f32, w: f32, h: f32) -> Self {
        Area { x, y, w, h }
    }
    /// Whether the point lies inside (edges included).
    pub fn contains(&self, px: f32, py: f32) -> bool {
        px >= self.x && px <= self.x + self.w && py >= self.y && py <= self.y + self.h
    }
}

/// Constructors that read like the Pillow calls they stand for.
pub fn rect(x0: f32, y0: f32, x1: f32, y1: f32, fill: Option<Rgb>, outline: Option<Rgb>, width: f32) -> Shape {
    Shape::Rect { x0, y0, x1, y1, fill, outline, width }
}
/// [`Shape::RoundRect`]: Pillow `rounded_rectangle([x0, y0, x1, y1], radius, fill, outline, width)`.
#[allow(clippy::too_many_arguments)]
pub fn round_rect(
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
    radius: f32,
    fill: Option<Rgb>,
    outline: Option<Rgb>,
    width: f32,
) -> Shape {
    Shape::RoundRect { x0, y0, x1, y1, radius, fill, outline, width }
}
/// [`Shape::Line`]: Pillow `line((x0, y0, x1, y1), fill=color, width=width)`.
pub fn line(x0: f32, y0: f32, x1: f32, y1: f32, color: Rgb, width: f32) -> Shape {
    Shape::Line { x0, y0, x1, y1, color, width }
}
/// [`Shape::Arrow`]: cv2 `arrowedLine` from `(x0, y0)` to the tip `(x1, y1)`, barbs `tip` × the length.
pub fn arrow(x0: f32, y0: f32, x1: f32, y1: f32, color: Rgb, width: f32, tip: f32) -> Shape {
    Shape::Arrow { x0, y0, x1, y1, color, width, tip }
}
/// [`Shape::Ellipse`]: Pillow `ellipse([x0, y0, x1, y1], fill, outline, width)`.
pub fn ellipse(x0: f32, y0: f32, x1: f32, y1: f32, fill: Option<Rgb>, outline: Option<Rgb>, width: f32) -> Shape {
    Shape::Ellipse { x0, y0, x1, y1, fill, outline, width }
}
/// [`Shape::Text`]: `text` centred at `(x, y)` in a font of `size` units (for people only).
pub fn text(x: f32, y: f32, size: f32, text: impl Into<String>, color: Rgb) -> Shape {
    Shape::Text { x, y, size, text: text.into(), color }
}

/// A `g × g` grid of cells (the matrix patterns of VIR, VSR, VSRec, CS and the SC/SFR boards): cell
/// `(col, row)` spans `[x + col*cell, y + row*cell, x + (col+1)*cell, y + (row+1)*cell]`, so neighbours
/// share a border line, as in the reference. `fill_of(i)` gives the fill of cell `i = row*g + col`
/// (None = not drawn).
#[allow(clippy::too_many_arguments)]
pub fn grid_cells(
    out: &mut Vec<Shape>,
    x: f32,
    y: f32,
    g: usize,
    cell: f32,
    radius: f32,
    outline: Option<Rgb>,
    width: f32,
    mut fill_of: impl FnMut(usize) -> Option<Rgb>,
) {
    out.reserve(g * g); // (one allocation, not one per doubling: 1 % of the joint benchmark's instructions)
    for i in 0..g * g {
        let Some(fill) = fill_of(i) else { continue };
        let (c, r) = ((i % g) as f32, (i / g) as f32);
        let (x0, y0) = (x + c * cell, y + r * cell);
        let s = if radius > 0.0 {
            round_rect(x0, y0, x0 + cell, y0 + cell, radius, Some(fill), outline, width)
        } else {
            rect(x0, y0, x0 + cell, y0 + cell, Some(fill), outline, width)
        };
        out.push(s);
    }
}
