//! CS, Complex Span (reference §1.2 "CS").
use serde::{Deserialize, Serialize};

use crate::display::{Area, Frame, Rgb, arrow, ellipse, grid_cells, palette, rect};
use crate::rng::Rng;
use crate::task::{Conditions, Domain, Phase, Response, Step, Target, TrialCtx, binary};
use crate::tasks::Pattern;

/// Parameters of CS (reference defaults via `Default`); the condition grid is variation × distractor count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CsParams {
    /// Items stored per trial (reference `num_storage_options=[2]`).
    pub storage_items: u8,
    /// Distractors per 5-frame processing phase.
    pub distractor_counts: Vec<u8>,
    /// (storage, distractor) domain pairs.
    pub variations: Vec<(Domain, Domain)>,
    /// Reference-code behaviour: score every step, with class 20 = "no response" on memory frames, blanks
    /// and padding. The paper scores only the distractor and recall steps (default false).
    pub score_no_response_steps: bool,
}

impl Default for CsParams {
    fn default() -> Self {
        CsParams {
            storage_items: 2,
            distractor_counts: vec![0, 1, 3, 5],
            variations: vec![
                (Domain::Spatial, Domain::Spatial),
                (Domain::Spatial, Domain::Visual),
                (Domain::Visual, Domain::Spatial),
                (Domain::Visual, Domain::Visual),
            ],
            score_no_response_steps: false,
        }
    }
}

/// The condition cells: one per (storage, distractor) variation × distractors per phase (counts vary fastest).
pub fn grid(p: &CsParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &(storage, distractor) in &p.variations {
        for &n in &p.distractor_counts {
            v.push(Conditions {
                storage: Some(storage),
                distractor: Some(distractor),
                distractor_count: Some(n),
                ..Default::default()
            });
        }
    }
    v
}

// ---------------------------------------------------------------------------------------------------
// Geometry (96-unit space, Pillow inclusive coordinates; reference `complex_span.py`).

/// Cells of the 4×4 visual storage pattern and how many are red.
const VISUAL_G: usize = 4;
const VISUAL_FILLED: usize = 8;
/// Spatial storage frames: padding 9, `cell = 78 // 3 = 26`, ball inset 6, green border (6,6)–(90,90).
const MEM_PAD: f32 = 9.0;
const BALL_CELL: f32 = 26.0;
const BALL_INSET: f32 = 6.0;
const BORDER: f32 = 6.0;
/// Visual storage frames: padding 9, `cell = 78 // 4 = 19`, radius 3.
const VIS_CELL: f32 = 19.0;
/// Spatial distractor (symmetry) grid: G = 10, set size 20, offset 4, padding 3, cell 9, radius 2.
const SYM_G: usize = 10;
const SYM_SET: usize = 20;
const SYM_OFFSET: usize = 4;
const SYM_PAD: f32 = 3.0;
const SYM_CELL: f32 = 9.0;
/// Recall probes: 8 options in a 3-3-2 layout of 32-unit big cells.
const BIG_CELL: f32 = 32.0;
const PROBE_Y_PAD: f32 = 3.0;
/// Mini-grid cells: 3×3 of 8 units (spatial), 4×4 of 6 units (visual).
const ARROW_CELL: f32 = 8.0;
const OPTION_CELL: f32 = 6.0;
/// Number of recall options.
pub const OPTIONS: usize = 8;

/// Class numbering of the reference (21 classes).
pub const CLASS_COLOR: u16 = 0; // red 0, blue 1
/// First spatial-distractor class: the symmetry judgement is 2 (asymmetric) or 3 (symmetric).
pub const CLASS_SYMMETRY: u16 = 2; // asymmetric 2, symmetric 3
/// First spatial-recall class: a ball-path recall probe is `4 + slot` (4–11).
pub const CLASS_SPATIAL_RECALL: u16 = 4; // 4 + slot
/// First visual-recall class: a pattern recall probe is `12 + slot` (12–19).
pub const CLASS_VISUAL_RECALL: u16 = 12; // 12 + slot
/// The reference's "no response" class for memory frames, blanks and padding, scored only with
/// `score_no_response_steps`.
pub const CLASS_NO_RESPONSE: u16 = 20;

/// How a UI maps a person's answer to a CS class: the answer index `i` of a step's `Response`
/// (0/1 for the binary distractor judgements, the slot 0–7 for the `Choice { n: 8 }` recall options) is
/// class `class_offset(target) + i`, where the offset is taken from the step's target class: 0 for the
/// colour judgement (red 0, blue 1), 2 for the symmetry judgement (asymmetric 2, symmetric 3), 4 for
/// spatial recall (4 + slot), 12 for visual recall (12 + slot). Class 20 (no response) has offset 20.
pub fn class_offset(target: u16) -> u16 {
    match target {
        0..=1 => CLASS_COLOR,
        2..=3 => CLASS_SYMMETRY,
        4..=11 => CLASS_SPATIAL_RECALL,
        12..=19 => CLASS_VISUAL_RECALL,
        _ => CLASS_NO_RESPONSE,
    }
}

/// The 16 three-cell straight paths of the 3×3 ball grid (`memory_gt` options).
pub(crate) const PATHS: [[usize; 3]; 16] = [
    [0, 1, 2],
    [2, 1, 0],
    [3, 4, 5],
    [5, 4, 3],
    [6, 7, 8],
    [8, 7, 6],
    [0, 3, 6],
    [6, 3, 0],
    [1, 4, 7],
    [7, 4, 1],
    [2, 5, 8],
    [8, 5, 2],
    [0, 4, 8],
    [8, 4, 0],
    [2, 4, 6],
    [6, 4, 2],
];

/// The 8 canonical directions offered at recall: → ← ↓ ↑ ↘ ↖ ↙ ↗.
pub(crate) const DIRECTIONS: [[usize; 3]; 8] =
    [[3, 4, 5], [5, 4, 3], [1, 4, 7], [7, 4, 1], [0, 4, 8], [8, 4, 0], [2, 4, 6], [6, 4, 2]];

/// Parallel paths collapse onto the path through the centre (`012, 678 → 345` …); diagonals stay.
pub(crate) fn canonical(path: [usize; 3]) -> [usize; 3] {
    match path {
        [0, 1, 2] | [6, 7, 8] => [3, 4, 5],
        [2, 1, 0] | [8, 7, 6] => [5, 4, 3],
        [0, 3, 6] | [2, 5, 8] => [1, 4, 7],
        [6, 3, 0] | [8, 5, 2] => [7, 4, 1],
        p => p,
    }
}

/// What one storage phase holds.
#[derive(Clone, Debug, PartialEq)]
enum Item {
    /// The ball's three cells.
    Spatial([usize; 3]),
    Visual(Pattern),
}

/// One processing-phase distractor, with its class.
#[derive(Clone, Debug, PartialEq)]
enum Distractor {
    /// A filled panel; class 0 (red family) or 1 (blue family).
    Color { blue: bool, color: Rgb },
    /// The cells of a 10×10 symmetry pattern (may repeat, as in the reference); class 2 or 3.
    Symmetry { cells: Vec<usize>, symmetric: bool },
}

impl Distractor {
    fn class(&self) -> u16 {
        match self {
            Distractor::Color { blue, .. } => CLASS_COLOR + *blue as u16,
            Distractor::Symmetry { symmetric, .. } => CLASS_SYMMETRY + *symmetric as u16,
        }
    }
    fn response(&self) -> Response {
        match self {
            Distractor::Color { .. } => binary(["red", "blue"]),
            Distractor::Symmetry { .. } => binary(["not symmetric", "symmetric"]),
        }
    }
    fn frame(&self) -> Frame {
        let mut s = Vec::new();
        match self {
            Distractor::Color { color, .. } => {
                s.push(rect(BORDER, BORDER, 96.0 - BORDER, 96.0 - BORDER, Some(*color), Some(palette::BLACK), 2.0));
            }
            Distractor::Symmetry { cells, .. } => {
                grid_cells(&mut s, SYM_PAD, SYM_PAD, SYM_G, SYM_CELL, 2.0, Some(palette::BLACK), 1.0, |i| {
                    Some(if cells.contains(&i) { palette::RED } else { palette::WHITE })
                });
            }
        }
        Frame::gray(s)
    }
}

/// The cell mirrored about the vertical axis (column c becomes g − 1 − c).
fn mirror(idx: usize, g: usize) -> usize {
    (idx / g) * g + (g - 1 - idx % g)
}

fn draw_distractor(rng: &mut Rng, domain: Domain) -> Distractor {
    match domain {
        Domain::Visual => {
            let blue = rng.coin();
            let color = if blue { *rng.choose(&palette::CS_BLUES) } else { *rng.choose(&palette::CS_REDS) };
            Distractor::Color { blue, color }
        }
        Domain::Spatial => {
            let symmetric = rng.coin();
            let g = SYM_G;
            // Distinct left-half cells. (The reference draws them with replacement, so dropping one of
            // two identical mirrors could leave an "asymmetric" pattern symmetric; the paper's label
            // must match the pattern.)
            let left_half: Vec<usize> = (0..g * g).filter(|i| i % g < g / 2).collect();
            let left: Vec<usize> = rng.sample_from(&left_half, SYM_SET / 2);
            let right: Vec<usize> = left.iter().map(|&i| mirror(i, g)).collect();
            let mut cells = left.clone();
            if symmetric {
                cells.extend(right);
            } else {
                // Drop offset/2 mirrored cells and add offset/2 right-half cells that are not mirrors.
                let inactive: Vec<usize> = (0..g * g).filter(|i| !right.contains(i) && i % g >= g / 2).collect();
                let keep = rng.sample_from(&right, right.len() - SYM_OFFSET / 2);
                cells.extend(keep);
                cells.extend(rng.sample_from(&inactive, SYM_OFFSET / 2));
            }
            rng.shuffle(&mut cells);
            Distractor::Symmetry { cells, symmetric }
        }
    }
}

/// The memory frames of one item (3 frames).
fn memory_frames(item: &Item) -> Vec<Frame> {
    match item {
        Item::Spatial(path) => path
            .iter()
            .map(|&c| {
                let (x, y) = (MEM_PAD + (c % 3) as f32 * BALL_CELL, MEM_PAD + (c / 3) as f32 * BALL_CELL);
                Frame::gray(vec![
                    rect(BORDER, BORDER, 96.0 - BORDER, 96.0 - BORDER, None, Some(palette::GREEN), 2.0),
                    ellipse(
                        x + BALL_INSET,
                        y + BALL_INSET,
                        x + BALL_CELL - BALL_INSET,
                        y + BALL_CELL - BALL_INSET,
                        Some(palette::RED),
                        None,
                        1.0,
                    ),
                ])
            })
            .collect(),
        Item::Visual(p) => {
            let mut s = Vec::new();
            p.draw(&mut s, MEM_PAD, MEM_PAD, VIS_CELL, 3.0, palette::RED);
            vec![Frame::gray(s); 3]
        }
    }
}

/// Top-left corner of recall option `slot` (3-3-2 layout; the last row is shifted right by 16 to centre
/// it: reference x padding 2 + 1, or 2 + 17 for slots 6 and 7).
pub(crate) fn slot_origin(slot: usize) -> (f32, f32) {
    let (row, col) = ((slot / 3) as f32, (slot % 3) as f32);
    let dx = if slot >= 6 { 19.0 } else { 3.0 };
    (col * BIG_CELL + dx, row * BIG_CELL + PROBE_Y_PAD)
}

/// What a person clicks to choose recall option `slot`: the option's 24-unit item with a 2-unit margin.
pub fn option_area(slot: usize) -> Area {
    let (x, y) = slot_origin(slot);
    let side = 3.0 * ARROW_CELL;
    debug_assert_eq!(side, VISUAL_G as f32 * OPTION_CELL, "spatial and visual options are equally wide");
    Area::new(x - 2.0, y - 2.0, side + 4.0, side + 4.0)
}

/// The recall probe: `options[slot]` drawn at each slot.
fn probe_frame(options: &[Item]) -> Frame {
    let mut s = Vec::new();
    let mut arrows = Vec::new();
    for (slot, item) in options.iter().enumerate() {
        let (x, y) = slot_origin(slot);
        match item {
            Item::Spatial(dir) => {
                grid_cells(&mut s, x, y, 3, ARROW_CELL, 0.0, Some(palette::RED), 1.0, |_| Some(palette::RED));
                let centre = |c: usize| {
                    (
                        x + (c % 3) as f32 * ARROW_CELL + ARROW_CELL / 2.0,
                        y + (c / 3) as f32 * ARROW_CELL + ARROW_CELL / 2.0,
                    )
                };
                let (a, b) = (centre(dir[0]), centre(dir[2]));
                arrows.push(arrow(a.0, a.1, b.0, b.1, palette::ARROW, 2.0, 0.4));
            }
            Item::Visual(p) => p.draw(&mut s, x, y, OPTION_CELL, 0.0, palette::RED),
        }
    }
    s.extend(arrows);
    Frame::gray(s)
}

/// The 8 options of a recall probe with the studied item at `slot`.
fn recall_options(rng: &mut Rng, item: &Item, slot: usize) -> Vec<Item> {
    match item {
        Item::Spatial(path) => {
            let target = canonical(*path);
            let mut others: Vec<[usize; 3]> = DIRECTIONS.iter().copied().filter(|d| *d != target).collect();
            rng.shuffle(&mut others);
            others.insert(slot, target);
            others.into_iter().map(Item::Spatial).collect()
        }
        Item::Visual(p) => {
            // 7 lures, each moving 3 red cells; all distinct from the target and from each other.
            let mut lures: Vec<Pattern> = Vec::with_capacity(OPTIONS - 1);
            while lures.len() < OPTIONS - 1 {
                let l = p.lure(rng, 6);
                if l != *p && !lures.contains(&l) {
                    lures.push(l);
                }
            }
            lures.insert(slot, p.clone());
            lures.into_iter().map(Item::Visual).collect()
        }
    }
}

/// Which of the 5 processing frames hold a distractor, by distractor count (B = blank, D = distractor):
/// 0 `BBBBB`, 1 `BBDBB`, 3 `DBDBD`, 5 `DDDDD`. Other counts spread the distractors evenly.
pub(crate) fn layout(count: u8) -> [bool; 5] {
    match count {
        0 => [false; 5],
        1 => [false, false, true, false, false],
        3 => [true, false, true, false, true],
        5 => [true; 5],
        2 => [true, false, false, false, true],
        _ => [true, true, false, true, true],
    }
}

/// Steps: for each stored item, its 3 memory frames (Present) and a 5-frame processing phase
/// (Distractor frames; blanks are Retention); then one recall probe per item, in order (Probe). With the
/// reference's 2 items that is `3 + 5 + 3 + 5 + 2 = 18` steps.
///
/// Scoring (paper): only the distractor judgements and the recall probes. With
/// `score_no_response_steps` (reference code) every step is scored and the others get class 20.
/// Recall probes are `Response::Choice { n: 8 }` over the slots; their target class is `4 + slot`
/// (spatial) or `12 + slot` (visual): a UI maps the chosen slot to a class with [`class_offset`].
pub fn generate(p: &CsParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let storage = ctx.cell.storage.unwrap_or(Domain::Spatial);
    let distractor = ctx.cell.distractor.unwrap_or(Domain::Visual);
    let count = ctx.cell.distractor_count.unwrap_or(0);
    let n_items = p.storage_items.max(1) as usize;
    let rng = &mut *ctx.rng;

    let items: Vec<Item> = (0..n_items)
        .map(|_| match storage {
            Domain::Spatial => Item::Spatial(*rng.choose(&PATHS)),
            Domain::Visual => Item::Visual(Pattern::random(rng, VISUAL_G, VISUAL_FILLED)),
        })
        .collect();
    let slots: Vec<usize> = (0..n_items).map(|_| rng.index(OPTIONS)).collect();

    let quiet = |frame: Frame, phase: Phase| {
        if p.score_no_response_steps {
            Step::ask(frame, phase, Target::Class(CLASS_NO_RESPONSE), Response::None)
        } else {
            Step::show(frame, phase)
        }
    };

    let mut steps = Vec::new();
    for item in &items {
        for f in memory_frames(item) {
            steps.push(quiet(f, Phase::Present));
        }
        for d in layout(count) {
            if d {
                let dis = draw_distractor(rng, distractor);
                steps.push(Step::ask(dis.frame(), Phase::Distractor, Target::Class(dis.class()), dis.response()));
            } else {
                steps.push(quiet(Frame::blank(), Phase::Retention));
            }
        }
    }
    for (k, (item, &slot)) in items.iter().zip(&slots).enumerate() {
        let options = recall_options(rng, item, slot);
        let base = match item {
            Item::Spatial(_) => CLASS_SPATIAL_RECALL,
            Item::Visual(_) => CLASS_VISUAL_RECALL,
        };
        steps.push(
            Step::ask(
                probe_frame(&options),
                Phase::Probe,
                Target::Class(base + slot as u16),
                Response::Choice { n: OPTIONS as u16 },
            )
            .at_position(k + 1),
        );
    }
    (steps, ctx.cell.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::Shape;
    use crate::raster::{TENSOR_LEN, tensor32};
    use crate::rng::Split;
    use crate::task::{MAX_STEPS, TaskId, TaskParams, TaskSpec, Trial};
    use crate::tasks::testutil::trials;

    /// The filled cells of a `g × g` grid drawn at `(x, y)` with cells of `cell` units: `Some(red?)` per
    /// cell found in the frame.
    fn read_grid(f: &Frame, x: f32, y: f32, cell: f32, g: usize) -> Vec<Option<bool>> {
        let mut out = vec![None; g * g];
        for s in &f.shapes {
            let (x0, y0, x1, fill) = match s {
                Shape::Rect { x0, y0, x1, fill: Some(fill), .. } => (*x0, *y0, *x1, *fill),
                Shape::RoundRect { x0, y0, x1, fill: Some(fill), .. } => (*x0, *y0, *x1, *fill),
                _ => continue,
            };
            if x1 - x0 != cell {
                continue;
            }
            let (c, r) = ((x0 - x) / cell, (y0 - y) / cell);
            if c.fract() != 0.0 || r.fract() != 0.0 || c < 0.0 || r < 0.0 || c >= g as f32 || r >= g as f32 {
                continue;
            }
            out[r as usize * g + c as usize] = Some(fill == palette::RED);
        }
        out
    }

    fn pattern(cells: Vec<Option<bool>>, g: usize) -> Pattern {
        assert!(cells.iter().all(|c| c.is_some()), "incomplete grid");
        Pattern { g, cells: cells.into_iter().map(|c| c.unwrap()).collect() }
    }

    fn class(s: &Step) -> u16 {
        match s.target {
            Target::Class(c) => c,
            ref t => panic!("not a class: {t:?}"),
        }
    }

    /// The ball's cells, read from the three spatial memory frames.
    fn ball_path(t: &Trial, first: usize) -> [usize; 3] {
        let mut p = [0; 3];
        for (k, slot) in p.iter_mut().enumerate() {
            let e = t.steps[first + k]
                .frame
                .shapes
                .iter()
                .find_map(|s| match s {
                    Shape::Ellipse { x0, y0, .. } => Some((*x0, *y0)),
                    _ => None,
                })
                .expect("ball");
            let (c, r) = ((e.0 - MEM_PAD - BALL_INSET) / BALL_CELL, (e.1 - MEM_PAD - BALL_INSET) / BALL_CELL);
            assert_eq!((c.fract(), r.fract()), (0.0, 0.0));
            *slot = r as usize * 3 + c as usize;
        }
        p
    }

    /// Arrow directions per slot, read from a spatial recall probe.
    fn arrows(f: &Frame) -> Vec<[usize; 2]> {
        let mut out = vec![[9, 9]; OPTIONS];
        for s in &f.shapes {
            if let Shape::Arrow { x0, y0, x1, y1, .. } = s {
                let slot = (0..OPTIONS)
                    .find(|&k| {
                        let (x, y) = slot_origin(k);
                        *x0 > x && *x0 < x + 24.0 && *y0 > y && *y0 < y + 24.0
                    })
                    .expect("arrow in a slot");
                let (x, y) = slot_origin(slot);
                let cell = |px: f32, py: f32| {
                    let (c, r) = (((px - x - 4.0) / 8.0), ((py - y - 4.0) / 8.0));
                    assert_eq!((c.fract(), r.fract()), (0.0, 0.0));
                    r as usize * 3 + c as usize
                };
                out[slot] = [cell(*x0, *y0), cell(*x1, *y1)];
            }
        }
        out
    }

    #[test]
    fn cs_has_18_steps_and_the_distractor_layout_of_its_count() {
        for t in trials(TaskId::Cs, 160) {
            assert_eq!(t.len(), 18);
            let c = &t.conditions;
            let (count, dom, storage) = (c.distractor_count.unwrap(), c.distractor.unwrap(), c.storage.unwrap());
            let lay = layout(count);
            assert_eq!(lay.iter().filter(|&&d| d).count(), count as usize);
            for phase in 0..2 {
                for k in 0..3 {
                    let s = &t.steps[phase * 8 + k];
                    assert!(!s.scored && s.phase == Phase::Present && s.target == Target::None);
                }
                for (i, &d) in lay.iter().enumerate() {
                    let s = &t.steps[phase * 8 + 3 + i];
                    if d {
                        assert!(s.scored && s.phase == Phase::Distractor);
                        let range = if dom == Domain::Visual { 0..=1 } else { 2..=3 };
                        assert!(range.contains(&class(s)));
                    } else {
                        assert!(!s.scored && s.frame == Frame::blank());
                    }
                }
            }
            for k in 0..2 {
                let s = &t.steps[16 + k];
                assert!(s.scored && s.phase == Phase::Probe);
                assert_eq!(s.serial_position, Some(k as u8 + 1));
                assert_eq!(s.response, Response::Choice { n: 8 });
                let range = if storage == Domain::Spatial { 4..=11 } else { 12..=19 };
                assert!(range.contains(&class(s)));
                assert_eq!(class_offset(class(s)) + (class(s) - class_offset(class(s))), class(s));
            }
            assert_eq!(t.scored_steps().count(), 2 * count as usize + 2);
            assert!(t.mask(MAX_STEPS)[18..].iter().all(|&m| !m));
            assert_eq!(t.frame_at(19), Frame::padding());
            for s in &t.steps {
                assert_eq!(tensor32(&s.frame).len(), TENSOR_LEN);
            }
        }
    }

    #[test]
    fn cs_distractor_labels_match_what_is_drawn() {
        let mut seen = [0u32; 4];
        for t in trials(TaskId::Cs, 320) {
            for s in t.steps.iter().filter(|s| s.phase == Phase::Distractor) {
                let k = class(s);
                seen[k as usize] += 1;
                if k < 2 {
                    let fill = match &s.frame.shapes[0] {
                        Shape::Rect { fill: Some(f), .. } => *f,
                        other => panic!("{other:?}"),
                    };
                    assert_eq!(palette::CS_REDS.contains(&fill), k == 0);
                    assert_eq!(palette::CS_BLUES.contains(&fill), k == 1);
                } else {
                    let cells = read_grid(&s.frame, SYM_PAD, SYM_PAD, SYM_CELL, SYM_G);
                    let red: Vec<usize> = (0..100).filter(|&i| cells[i] == Some(true)).collect();
                    assert!(cells.iter().all(|c| c.is_some()));
                    let symmetric = red.iter().all(|&i| red.contains(&mirror(i, SYM_G)));
                    assert_eq!(symmetric, k == 3, "{red:?}");
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
    }

    #[test]
    fn cs_recall_option_at_the_target_slot_is_the_studied_item() {
        let mut slots = [0u32; OPTIONS];
        for t in trials(TaskId::Cs, 320) {
            for k in 0..2 {
                let probe = &t.steps[16 + k];
                let slot = (class(probe) - class_offset(class(probe))) as usize;
                slots[slot] += 1;
                match t.conditions.storage.unwrap() {
                    Domain::Visual => {
                        let studied = pattern(read_grid(&t.steps[8 * k].frame, MEM_PAD, MEM_PAD, VIS_CELL, 4), 4);
                        assert_eq!(studied.filled(), 8);
                        // The three memory frames are identical.
                        assert_eq!(t.steps[8 * k].frame, t.steps[8 * k + 2].frame);
                        let opts: Vec<Pattern> = (0..OPTIONS)
                            .map(|i| {
                                let (x, y) = slot_origin(i);
                                pattern(read_grid(&probe.frame, x, y, OPTION_CELL, 4), 4)
                            })
                            .collect();
                        assert_eq!(opts[slot], studied);
                        for (i, o) in opts.iter().enumerate() {
                            if i != slot {
                                assert_eq!(o.difference(&studied), 6);
                                assert_eq!(o.filled(), 8);
                            }
                            for o2 in &opts[..i] {
                                assert_ne!(o, o2);
                            }
                        }
                    }
                    Domain::Spatial => {
                        let path = ball_path(&t, 8 * k);
                        assert!(PATHS.contains(&path));
                        let dirs = arrows(&probe.frame);
                        let want = canonical(path);
                        assert_eq!(dirs[slot], [want[0], want[2]]);
                        let mut all: Vec<[usize; 2]> = DIRECTIONS.iter().map(|d| [d[0], d[2]]).collect();
                        let mut got = dirs.clone();
                        all.sort();
                        got.sort();
                        assert_eq!(all, got);
                    }
                }
            }
        }
        assert!(slots.iter().all(|&n| n > 40), "{slots:?}");
    }

    #[test]
    fn cs_reference_mode_scores_all_18_steps_with_class_20_elsewhere() {
        let paper = TaskSpec::new(TaskId::Cs);
        let code = TaskSpec {
            id: TaskId::Cs,
            params: TaskParams::Cs(CsParams { score_no_response_steps: true, ..Default::default() }),
        };
        for i in 0..64 {
            let (a, b) = (paper.trial(42, Split::Test, i), code.trial(42, Split::Test, i));
            assert_eq!(b.len(), 18);
            assert!(b.steps.iter().all(|s| s.scored));
            for (sa, sb) in a.steps.iter().zip(&b.steps) {
                assert_eq!(sa.frame, sb.frame);
                if sa.scored {
                    assert_eq!(sa.target, sb.target);
                } else {
                    assert_eq!(sb.target, Target::Class(CLASS_NO_RESPONSE));
                }
            }
        }
    }

    #[test]
    fn canonical_directions_cover_every_path() {
        for p in PATHS {
            let c = canonical(p);
            assert!(DIRECTIONS.contains(&c));
            // Same direction of travel.
            let d = |q: [usize; 3]| ((q[2] % 3) as i32 - (q[0] % 3) as i32, (q[2] / 3) as i32 - (q[0] / 3) as i32);
            assert_eq!(d(p), d(c));
        }
    }
}
