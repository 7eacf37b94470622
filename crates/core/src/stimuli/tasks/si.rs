//! SI, Spatial Integration (reference §1.2 "SI").
use serde::{Deserialize, Serialize};

use crate::display::{Frame, Shape, line, palette, rect};
use crate::rng::Rng;
use crate::task::{Conditions, Phase, Step, Target, TrialCtx, binary};

/// Parameters of SI (reference defaults via `Default`); the condition grid is one cell per part size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiParams {
    /// Lattice of (lattice+1)² points (reference `grid_size=4`: points 0..4).
    pub lattice: u8,
    /// Segments in the whole figure.
    pub segments: u8,
    /// Segments per partial drawing; the figure is shown in `segments / part` frames.
    pub part_sizes: Vec<u8>,
    /// The distractor keeps the first `segments + 1 - d` points and re-walks the rest.
    pub distractor_differences: Vec<u8>,
}

impl Default for SiParams {
    fn default() -> Self {
        SiParams {
            lattice: 4,
            segments: 12,
            part_sizes: vec![1, 2, 3, 4, 6, 12],
            distractor_differences: vec![1, 2, 3, 4],
        }
    }
}

/// The condition cells: one per part size, with `list_length` the number of partial drawings
/// (`segments / part_size`).
pub fn grid(p: &SiParams) -> Vec<Conditions> {
    p.part_sizes
        .iter()
        .map(|&k| Conditions { part_size: Some(k), list_length: Some(p.segments / k.max(1)), ..Default::default() })
        .collect()
}

/// A lattice point `(a, b)`: row `a`, column `b`, both in `0..=lattice`.
pub(crate) type Point = (i32, i32);

/// The 8 king moves.
const KING: [(i32, i32); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];
/// Attempted steps after which a walk gives up (the reference restarts the whole walk).
const MAX_ATTEMPTS: u32 = 50;

/// Extend `path` by `segments` king moves inside `0..=lattice`, never stepping on a point of `path` or
/// of `avoid`. Each attempt draws one of the 8 moves uniformly; an illegal move is rejected. Returns
/// false after `MAX_ATTEMPTS` attempts without completing.
fn walk(rng: &mut Rng, path: &mut Vec<Point>, segments: usize, lattice: i32, avoid: &[Point]) -> bool {
    let target = path.len() + segments;
    let mut attempts = 0;
    while path.len() < target {
        if attempts >= MAX_ATTEMPTS {
            return false;
        }
        attempts += 1;
        let (da, db) = *rng.choose(&KING);
        let Some(&last) = path.last() else { return false };
        let next = (last.0 + da, last.1 + db);
        let inside = (0..=lattice).contains(&next.0) && (0..=lattice).contains(&next.1);
        if inside && !path.contains(&next) && !avoid.contains(&next) {
            path.push(next);
        }
    }
    true
}

/// One try at the figure: a random walk of `segments` king moves from a uniform start; None if it got stuck.
fn try_figure(rng: &mut Rng, segments: usize, lattice: i32) -> Option<Vec<Point>> {
    let mut path = vec![(rng.randint(0, lattice), rng.randint(0, lattice))];
    walk(rng, &mut path, segments, lattice, &[]).then_some(path)
}

/// The figure: [`try_figure`] restarted until it completes.
pub(crate) fn figure(rng: &mut Rng, segments: usize, lattice: i32) -> Vec<Point> {
    loop {
        if let Some(path) = try_figure(rng, segments, lattice) {
            return path;
        }
    }
}

/// Whether trials of `p` can be drawn: a lattice of 1 to 12 (a probe cell of 5 px or more), every
/// distractor difference between 1 and the segments (0 would draw the figure itself as "different"), and
/// the figure and each distractor found by the random walks within a bounded number of restarts (a
/// figure longer than the lattice allows would make [`generate`] walk forever). Checked with a fixed
/// seed, so the answer is the same every time.
pub(crate) fn check(p: &SiParams) -> Result<(), String> {
    const RESTARTS: usize = 2000;
    if !(1..=12).contains(&p.lattice) {
        return Err(format!("the lattice must be 1 to 12 (a probe cell of {} px)", 66 / p.lattice.max(1) as i32));
    }
    if let Some(k) = p.part_sizes.iter().find(|&&k| k == 0 || k > p.segments) {
        return Err(format!("a part of {k} segments: each part size must be 1 to the {} segments", p.segments));
    }
    if let Some(d) = p.distractor_differences.iter().find(|&&d| d == 0 || d > p.segments) {
        return Err(format!("a distractor difference of {d} must be between 1 and the {} segments", p.segments));
    }
    let lattice = p.lattice as i32;
    let segments = p.segments.max(1) as usize;
    let mut rng = Rng::from_key([0x51; 32]);
    let find_figure = |rng: &mut Rng| (0..RESTARTS).find_map(|_| try_figure(rng, segments, lattice));
    let side = lattice + 1;
    if find_figure(&mut rng).is_none() {
        return Err(format!("a figure of {segments} segments does not fit a {side}×{side} lattice"));
    }
    for &d in &p.distractor_differences {
        let found = (0..RESTARTS)
            .any(|_| find_figure(&mut rng).is_some_and(|f| distractor(&mut rng, &f, d as usize, lattice).is_some()));
        if !found {
            return Err(format!("a distractor differing in {d} segments cannot be drawn on a {side}×{side} lattice"));
        }
    }
    Ok(())
}

/// A distractor: the first `segments + 1 - dd` points of the figure, then `dd` new moves that avoid every
/// point of the figure and of itself. None if the re-walk fails.
pub(crate) fn distractor(rng: &mut Rng, fig: &[Point], dd: usize, lattice: i32) -> Option<Vec<Point>> {
    let keep = fig.len().saturating_sub(dd).max(1);
    let mut path = fig[..keep].to_vec();
    let n = fig.len() - keep;
    walk(rng, &mut path, n, lattice, fig).then_some(path)
}

/// Green width-3 lines for the segments `pts[i]–pts[i+1]`, point `(a, b)` at `(b*cell + pad, a*cell + pad)`.
fn draw_path(out: &mut Vec<Shape>, pts: &[Point], pad: f32, cell: f32) {
    for w in pts.windows(2) {
        let ((a0, b0), (a1, b1)) = (w[0], w[1]);
        out.push(line(
            b0 as f32 * cell + pad,
            a0 as f32 * cell + pad,
            b1 as f32 * cell + pad,
            a1 as f32 * cell + pad,
            palette::GREEN,
            3.0,
        ));
    }
}

/// Memory frames: padding 10, `cell = 76 // lattice`. Probe: padding 15, `cell = 66 // lattice`.
pub(crate) const MEM_PAD: i32 = 10;
pub(crate) const PROBE_PAD: i32 = 15;
pub(crate) fn cell_size(pad: i32, lattice: i32) -> i32 {
    (96 - 2 * pad) / lattice
}

/// Steps: `segments / part_size` memory frames (Present; the figure cut into consecutive parts, shown in
/// random order) and one probe (red border, the whole figure or a distractor, smaller). The probe's answer
/// is 1 = same figure, 0 = different; `ctx.flip` picks which, so answers are balanced. The distractor
/// difference `dd` is drawn uniformly from `distractor_differences` on every trial and recorded as
/// `pattern_difference` (it only changes the stimulus on "different" trials).
pub fn generate(p: &SiParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let lattice = p.lattice.max(1) as i32;
    let segments = p.segments.max(1) as usize;
    let part = (ctx.cell.part_size.unwrap_or(p.part_sizes[0]).max(1) as usize).min(segments);
    let same = ctx.flip;
    let rng = &mut *ctx.rng;
    let dd = *rng.choose(&p.distractor_differences) as usize;

    let (fig, probe) = loop {
        let fig = figure(rng, segments, lattice);
        if same {
            let probe = fig.clone();
            break (fig, probe);
        }
        if let Some(d) = distractor(rng, &fig, dd, lattice) {
            break (fig, d);
        }
    };

    let mem_cell = cell_size(MEM_PAD, lattice) as f32;
    let frames = segments.div_ceil(part);
    let mut steps = Vec::with_capacity(frames + 1);
    for k in rng.permutation(frames) {
        let end = ((k + 1) * part).min(segments);
        let mut s = Vec::new();
        draw_path(&mut s, &fig[k * part..=end], MEM_PAD as f32, mem_cell);
        steps.push(Step::show(Frame::gray(s), Phase::Present));
    }
    let mut s = vec![rect(5.0, 5.0, 91.0, 91.0, None, Some(palette::RED), 3.0)];
    draw_path(&mut s, &probe, PROBE_PAD as f32, cell_size(PROBE_PAD, lattice) as f32);
    steps.push(Step::ask(Frame::gray(s), Phase::Probe, Target::Class(same as u16), binary(["different", "same"])));

    let mut cond = ctx.cell.clone();
    cond.pattern_difference = Some(dd as u8);
    (steps, cond)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::{TENSOR_LEN, tensor32};
    use crate::task::{TaskId, Trial};
    use crate::tasks::testutil::trials;
    use std::collections::BTreeSet;

    type Seg = (Point, Point);

    fn seg(a: Point, b: Point) -> Seg {
        if a <= b { (a, b) } else { (b, a) }
    }

    /// The segments drawn in a frame, in lattice points, for a drawing at `pad` with cells of `cell`.
    fn segments(f: &Frame, pad: i32, cell: i32) -> Vec<Seg> {
        let pt = |x: f32, y: f32| {
            let (b, a) = ((x as i32 - pad), (y as i32 - pad));
            assert_eq!((a % cell, b % cell), (0, 0), "off-lattice point");
            (a / cell, b / cell)
        };
        f.shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Line { x0, y0, x1, y1, color, .. } => {
                    assert_eq!(*color, palette::GREEN);
                    Some(seg(pt(*x0, *y0), pt(*x1, *y1)))
                }
                _ => None,
            })
            .collect()
    }

    fn figure_of(t: &Trial) -> Vec<Seg> {
        let n = t.len() - 1;
        t.steps[..n].iter().flat_map(|s| segments(&s.frame, MEM_PAD, cell_size(MEM_PAD, 4))).collect()
    }

    fn is_king_walk(segs: &[Seg]) -> bool {
        let pts: BTreeSet<Point> = segs.iter().flat_map(|&(a, b)| [a, b]).collect();
        let uniq: BTreeSet<Seg> = segs.iter().copied().collect();
        uniq.len() == segs.len()
            && pts.len() == segs.len() + 1
            && pts.iter().all(|p| (0..=4).contains(&p.0) && (0..=4).contains(&p.1))
            && segs.iter().all(|(a, b)| a != b && (a.0 - b.0).abs() <= 1 && (a.1 - b.1).abs() <= 1)
            // A simple path: two end points of degree 1, the rest of degree 2.
            && {
                let deg = |p: &Point| segs.iter().filter(|(a, b)| a == p || b == p).count();
                pts.iter().filter(|p| deg(p) == 1).count() == 2 && pts.iter().all(|p| (1..=2).contains(&deg(p)))
            }
    }

    #[test]
    fn si_walk_is_12_king_moves_without_revisits() {
        let mut rng = Rng::from_u64(5);
        for _ in 0..500 {
            let f = figure(&mut rng, 12, 4);
            assert_eq!(f.len(), 13);
            let segs: Vec<Seg> = f.windows(2).map(|w| seg(w[0], w[1])).collect();
            assert!(is_king_walk(&segs), "{f:?}");
            for dd in 1..=4 {
                if let Some(d) = distractor(&mut rng, &f, dd, 4) {
                    assert_eq!(d.len(), 13);
                    assert_eq!(d[..13 - dd], f[..13 - dd]);
                    assert!(d[13 - dd..].iter().all(|p| !f.contains(p)));
                    let segs: Vec<Seg> = d.windows(2).map(|w| seg(w[0], w[1])).collect();
                    assert!(is_king_walk(&segs), "{d:?}");
                }
            }
        }
    }

    #[test]
    fn si_memory_frames_make_the_figure_and_the_probe_matches_iff_target_is_1() {
        for t in trials(TaskId::Si, 240) {
            let part = t.conditions.part_size.unwrap() as usize;
            assert_eq!(t.len(), 12 / part + 1);
            assert_eq!(t.conditions.list_length, Some((12 / part) as u8));
            assert!((1..=4).contains(&t.conditions.pattern_difference.unwrap()));
            for s in &t.steps[..t.len() - 1] {
                assert!(!s.scored && s.phase == Phase::Present);
                assert_eq!(segments(&s.frame, MEM_PAD, cell_size(MEM_PAD, 4)).len(), part);
            }
            let fig = figure_of(&t);
            assert_eq!(fig.len(), 12);
            assert!(is_king_walk(&fig));
            let probe = t.steps.last().unwrap();
            assert!(probe.scored && probe.phase == Phase::Probe);
            assert_eq!(probe.frame.shapes[0], rect(5.0, 5.0, 91.0, 91.0, None, Some(palette::RED), 3.0));
            let shown = segments(&probe.frame, PROBE_PAD, cell_size(PROBE_PAD, 4));
            assert!(is_king_walk(&shown));
            let same = shown.iter().collect::<BTreeSet<_>>() == fig.iter().collect::<BTreeSet<_>>();
            assert_eq!(probe.target, Target::Class(same as u16));
            for s in &t.steps {
                assert_eq!(tensor32(&s.frame).len(), TENSOR_LEN);
            }
        }
    }

    #[test]
    fn si_labels_are_balanced() {
        let ones =
            trials(TaskId::Si, 200).iter().filter(|t| t.steps.last().unwrap().target == Target::Class(1)).count();
        assert!((90..=110).contains(&ones), "{ones}");
    }

    #[test]
    fn si_memory_frames_are_shown_in_random_order() {
        // With 12 one-segment parts, the frames are almost never in walk order.
        let in_order = trials(TaskId::Si, 60)
            .iter()
            .filter(|t| t.conditions.part_size == Some(1))
            .filter(|t| {
                let f = figure_of(t);
                f.windows(2).all(|w| w[0].0 == w[1].0 || w[0].0 == w[1].1 || w[0].1 == w[1].0 || w[0].1 == w[1].1)
            })
            .count();
        assert!(in_order <= 1);
    }
}
