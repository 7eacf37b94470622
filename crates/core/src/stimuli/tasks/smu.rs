//! SMU, Spatial Memory Updating (reference §1.2 "SMU").
use serde::{Deserialize, Serialize};

use crate::display::{Area, Frame, Shape, arrow, palette, rect};
use crate::task::{Conditions, Phase, Response, Step, Target, TrialCtx};

/// Parameters of SMU (reference defaults via `Default`); the condition grid is one cell per set size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SmuParams {
    /// S, the boxes (each with a marker to track), one condition per entry (reference 1–8; each at most 14).
    pub set_sizes: Vec<u8>,
    /// Update frames per trial (reference 8): update `t` moves the marker of box `t % S` one cell.
    pub updates: u8,
}

impl Default for SmuParams {
    fn default() -> Self {
        SmuParams { set_sizes: (1..=8).collect(), updates: 8 }
    }
}

/// The condition cells: one per set size.
pub fn grid(p: &SmuParams) -> Vec<Conditions> {
    p.set_sizes.iter().map(|&s| Conditions { set_size: Some(s), ..Default::default() }).collect()
}

/// Box size (±7.5 around the centre), marker half-size 1.5, marker spacing 5, circle radius 35.
const BOX_HALF: f32 = 7.5;
const MARKER_HALF: f32 = 1.5;
const MARKER_STEP: f32 = 5.0;
const RADIUS: f64 = 35.0;
/// Arrow half-length: 0.3 × the box size 15.
const ARROW_HALF: f32 = 4.5;

/// The 8 compass moves as (d_row, d_col).
pub(crate) const MOVES: [(i32, i32); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// The moves that keep a marker at cell `pos` (0–8, row-major) inside the 3×3.
pub(crate) fn legal_moves(pos: usize) -> Vec<(i32, i32)> {
    let (r, c) = ((pos / 3) as i32, (pos % 3) as i32);
    MOVES.iter().copied().filter(|&(dr, dc)| (0..3).contains(&(r + dr)) && (0..3).contains(&(c + dc))).collect()
}

/// Apply a move (callers pass a legal one).
pub(crate) fn apply(pos: usize, (dr, dc): (i32, i32)) -> usize {
    let (r, c) = ((pos / 3) as i32 + dr, (pos % 3) as i32 + dc);
    (r * 3 + c) as usize
}

/// Box centres: one box at (48, 48); otherwise box i at angle 2πi/S on a circle of radius 35 (i = 0 on
/// the right, clockwise on screen). Rounded to 1/256 unit so every platform's `cos`/`sin` agree.
pub(crate) fn centres(s: usize) -> Vec<(f32, f32)> {
    if s == 1 {
        return vec![(48.0, 48.0)];
    }
    let q = |v: f64| ((v * 256.0).round() / 256.0) as f32;
    (0..s)
        .map(|i| {
            let a = 2.0 * std::f64::consts::PI * i as f64 / s as f64;
            (q(48.0 + RADIUS * a.cos()), q(48.0 + RADIUS * a.sin()))
        })
        .collect()
}

fn boxes(centres: &[(f32, f32)], red: Option<usize>) -> Vec<Shape> {
    centres
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| {
            let fill = if red == Some(i) { palette::RED } else { palette::GREEN };
            rect(x - BOX_HALF, y - BOX_HALF, x + BOX_HALF, y + BOX_HALF, Some(fill), Some(palette::WHITE), 1.0)
        })
        .collect()
}

/// Centre of marker cell `pos` in a box centred at `(x, y)`.
pub(crate) fn marker_centre((x, y): (f32, f32), pos: usize) -> (f32, f32) {
    (x + ((pos % 3) as f32 - 1.0) * MARKER_STEP, y + ((pos / 3) as f32 - 1.0) * MARKER_STEP)
}

/// What a person clicks to answer a probe of box `b` (of `set_size` boxes): the box's 3×3 marker cells,
/// `MARKER_STEP` units apart and as wide, in cell order 0–8 (the probe's classes).
pub fn marker_areas(set_size: usize, b: usize) -> Vec<Area> {
    let c = centres(set_size.max(1));
    let centre = c[b.min(c.len() - 1)];
    (0..9)
        .map(|pos| {
            let (x, y) = marker_centre(centre, pos);
            Area::new(x - MARKER_STEP / 2.0, y - MARKER_STEP / 2.0, MARKER_STEP, MARKER_STEP)
        })
        .collect()
}

/// Steps: 1 memory frame (boxes with their markers, Present), `updates` update frames (markerless boxes
/// plus an arrow on box `t % S`, Update), then S probes in random order (the probed box red, Probe).
/// Each probe's target is the final cell 0–8 of that box's marker (`Response::Choice { n: 9 }`), and its
/// `serial_position` is the probed box's index + 1 (box 0 is the rightmost, then clockwise), so analyses
/// can group by box as well as by probe order (the step order).
pub fn generate(p: &SmuParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let s = ctx.cell.set_size.unwrap_or(p.set_sizes[0]).max(1) as usize;
    let rng = &mut *ctx.rng;
    let c = centres(s);
    let mut pos: Vec<usize> = (0..s).map(|_| rng.index(9)).collect();

    let mut steps = Vec::with_capacity(1 + p.updates as usize + s);
    let mut mem = boxes(&c, None);
    for (b, &m) in pos.iter().enumerate() {
        let (mx, my) = marker_centre(c[b], m);
        mem.push(rect(
            mx - MARKER_HALF,
            my - MARKER_HALF,
            mx + MARKER_HALF,
            my + MARKER_HALF,
            Some(palette::RED),
            None,
            1.0,
        ));
    }
    steps.push(Step::show(Frame::gray(mem), Phase::Present));

    for t in 0..p.updates as usize {
        let b = t % s;
        let mv = *rng.choose(&legal_moves(pos[b]));
        pos[b] = apply(pos[b], mv);
        let (x, y) = c[b];
        let (dx, dy) = (mv.1 as f32, mv.0 as f32);
        // cv2 takes integer points: the reference truncates centre ∓ 4.5 along the direction.
        let (x0, y0) = ((x - ARROW_HALF * dx).trunc(), (y - ARROW_HALF * dy).trunc());
        let (x1, y1) = ((x + ARROW_HALF * dx).trunc(), (y + ARROW_HALF * dy).trunc());
        let mut sh = boxes(&c, None);
        sh.push(arrow(x0, y0, x1, y1, palette::ARROW, 1.0, 0.4));
        steps.push(Step::show(Frame::gray(sh), Phase::Update));
    }

    for b in rng.permutation(s) {
        steps.push(
            Step::ask(
                Frame::gray(boxes(&c, Some(b))),
                Phase::Probe,
                Target::Class(pos[b] as u16),
                Response::Choice { n: 9 },
            )
            .at_position(b + 1),
        );
    }
    (steps, ctx.cell.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::{TENSOR_LEN, tensor32};
    use crate::task::{TaskId, Trial};
    use crate::tasks::testutil::trials;

    /// Box centres and which box is red, read from a frame.
    fn read_boxes(f: &Frame) -> (Vec<(f32, f32)>, Option<usize>) {
        let mut c = Vec::new();
        let mut red = None;
        for s in &f.shapes {
            if let Shape::Rect { x0, y0, x1, fill: Some(fill), .. } = s
                && x1 - x0 == 2.0 * BOX_HALF
            {
                if *fill == palette::RED {
                    red = Some(c.len());
                }
                c.push((x0 + BOX_HALF, y0 + BOX_HALF));
            }
        }
        (c, red)
    }

    fn nearest(c: &[(f32, f32)], (x, y): (f32, f32)) -> usize {
        let d = |i: usize| (c[i].0 - x).powi(2) + (c[i].1 - y).powi(2);
        (0..c.len()).min_by(|&a, &b| d(a).total_cmp(&d(b))).unwrap()
    }

    /// Replays a trial from its frames only: initial markers, then each arrow. Checks every marker stays in
    /// the 3×3 and returns the final positions.
    fn replay(t: &Trial, s: usize) -> Vec<usize> {
        let (c, red) = read_boxes(&t.steps[0].frame);
        assert_eq!((c.len(), red), (s, None));
        let mut pos = vec![usize::MAX; s];
        for sh in &t.steps[0].frame.shapes {
            if let Shape::Rect { x0, y0, x1, fill: Some(palette::RED), .. } = sh {
                assert_eq!(x1 - x0, 2.0 * MARKER_HALF);
                let m = (x0 + MARKER_HALF, y0 + MARKER_HALF);
                let b = nearest(&c, m);
                let (dc, dr) = ((m.0 - c[b].0) / MARKER_STEP, (m.1 - c[b].1) / MARKER_STEP);
                assert!([-1.0, 0.0, 1.0].contains(&dc) && [-1.0, 0.0, 1.0].contains(&dr));
                assert_eq!(pos[b], usize::MAX, "two markers in box {b}");
                pos[b] = ((dr + 1.0) * 3.0 + dc + 1.0) as usize;
            }
        }
        assert!(pos.iter().all(|&p| p < 9));
        for u in 0..8 {
            let f = &t.steps[1 + u].frame;
            assert_eq!(read_boxes(f).0, c);
            let arrows: Vec<_> = f
                .shapes
                .iter()
                .filter_map(|s| match s {
                    Shape::Arrow { x0, y0, x1, y1, color, width, tip } => {
                        assert_eq!((*color, *width, *tip), (palette::ARROW, 1.0, 0.4));
                        Some((*x0, *y0, *x1, *y1))
                    }
                    Shape::Rect { fill: Some(palette::RED), .. } => panic!("marker on an update frame"),
                    _ => None,
                })
                .collect();
            assert_eq!(arrows.len(), 1);
            let (x0, y0, x1, y1) = arrows[0];
            let b = nearest(&c, ((x0 + x1) / 2.0, (y0 + y1) / 2.0));
            assert_eq!(b, u % s, "updates go round the boxes in order");
            let (dc, dr) = (
                (x1 - x0).signum() as i32 * ((x1 - x0).abs() > 1.0) as i32,
                (y1 - y0).signum() as i32 * ((y1 - y0).abs() > 1.0) as i32,
            );
            assert!((dc, dr) != (0, 0));
            let (r, col) = ((pos[b] / 3) as i32 + dr, (pos[b] % 3) as i32 + dc);
            assert!((0..3).contains(&r) && (0..3).contains(&col), "marker left the box");
            pos[b] = (r * 3 + col) as usize;
        }
        pos
    }

    #[test]
    fn smu_markers_stay_inside_and_targets_are_the_replayed_final_cells() {
        for t in trials(TaskId::Smu, 160) {
            let s = t.conditions.set_size.unwrap() as usize;
            assert_eq!(t.len(), 9 + s);
            assert!(t.len() <= 20);
            let fin = replay(&t, s);
            let mut probed = vec![false; s];
            for step in &t.steps[9..] {
                assert!(step.scored && step.phase == Phase::Probe);
                assert_eq!(step.response, Response::Choice { n: 9 });
                let (_, red) = read_boxes(&step.frame);
                let b = red.expect("probed box is red");
                assert!(!probed[b], "box probed twice");
                probed[b] = true;
                assert_eq!(step.serial_position, Some(b as u8 + 1));
                assert_eq!(step.target, Target::Class(fin[b] as u16));
            }
            assert!(probed.iter().all(|&p| p));
            assert!(t.steps[..9].iter().all(|s| !s.scored));
            for s in &t.steps {
                assert_eq!(tensor32(&s.frame).len(), TENSOR_LEN);
            }
        }
    }

    #[test]
    fn smu_legal_moves_keep_the_marker_inside() {
        for pos in 0..9 {
            let m = legal_moves(pos);
            let expect = match pos {
                4 => 8,
                0 | 2 | 6 | 8 => 3,
                _ => 5,
            };
            assert_eq!(m.len(), expect);
            for mv in m {
                assert!(apply(pos, mv) < 9);
            }
        }
    }

    #[test]
    fn smu_boxes_lie_on_the_circle_clockwise_from_the_right() {
        assert_eq!(centres(1), vec![(48.0, 48.0)]);
        let c = centres(4);
        assert_eq!(c, vec![(83.0, 48.0), (48.0, 83.0), (13.0, 48.0), (48.0, 13.0)]);
    }
}
