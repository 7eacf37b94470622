//! CD, Change Detection in five feature conditions (reference §1.2 "CD").
use serde::{Deserialize, Serialize};

use crate::display::{Frame, Shape, line, palette};
use crate::rng::Rng;
use crate::task::{Conditions, Feature, Phase, Step, Target, TaskId, TrialCtx, binary};

/// Which feature may change: one of the four, or any of them (conjunction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CdCondition {
    /// Only a bar's colour may change (red ↔ green): task `CD-Color`.
    Color,
    /// Only a bar's orientation may change (horizontal ↔ vertical, about its centre): task `CD-Orientation`.
    Orientation,
    /// Only a bar's size may change (small ↔ large, about its centre): task `CD-Size`.
    Size,
    /// Only a bar's gap may change (continuous ↔ broken): task `CD-Gap`.
    Gap,
    /// Any one of the four features may change, drawn uniformly per change trial: task `CD-Conjunction`.
    Conjunction,
}

/// Parameters of the five CD tasks (reference defaults from [`CdParams::for_task`]); the condition grid is
/// retention × set size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CdParams {
    /// Which feature a change trial may alter; fixed by the task id.
    pub condition: CdCondition,
    /// Bars in the memory array, one condition per entry (reference 2, 4, 6, 8, 10, 12; each at most 12).
    pub set_sizes: Vec<u8>,
    /// Gray frames between the memory array and the probe, one condition per entry (reference 0, 6, 12, 18).
    pub retentions: Vec<u8>,
    /// Reference-code behaviour for size changes: small→large gives a 16.5 px bar and large→small a
    /// 10.5 px bar (`x1 ∓ 15/4`, `x1 ± 9/4`). The paper's intent, and the default, is 9 ↔ 15 px.
    #[serde(default)]
    pub reference_size_quirk: bool,
    /// WorM A3.4: the retention frames are random noise (every pixel's RGB uniform in 0–255, a backward
    /// mask) instead of gray. Off by default, as the main experiments.
    #[serde(default)]
    pub noise_mask: bool,
}
impl CdParams {
    /// The reference parameters of the CD task `id` (an id other than `CD-Color`, `CD-Orientation`, `CD-Size` or
    /// `CD-Gap` gives Conjunction).
    pub fn for_task(id: TaskId) -> Self {
        let condition = match id {
            TaskId::CdColor => CdCondition::Color,
            TaskId::CdOrientation => CdCondition::Orientation,
            TaskId::CdSize => CdCondition::Size,
            TaskId::CdGap => CdCondition::Gap,
            _ => CdCondition::Conjunction,
        };
        CdParams {
            condition,
            set_sizes: vec![2, 4, 6, 8, 10, 12],
            retentions: vec![0, 6, 12, 18],
            reference_size_quirk: false,
            noise_mask: false,
        }
    }
}
/// The condition cells: one per retention × set size (set sizes vary fastest).
pub fn grid(p: &CdParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &r in &p.retentions {
        for &s in &p.set_sizes {
            v.push(Conditions { set_size: Some(s), retention: Some(r), ..Default::default() });
        }
    }
    v
}
/// Length of a small bar in display units (9 px at 96 px).
pub const SMALL: f32 = 9.0;
/// Length of a large bar in display units (15 px at 96 px).
pub const LARGE: f32 = 15.0;

/// One bar of a memory or probe array, by its centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// Centre x in display units (0–96).
    pub cx: f32,
    /// Centre y in display units (0–96).
    pub cy: f32,
    /// Drawn length in display units: [`SMALL`] or [`LARGE`], or 16.5 / 10.5 after a size change with
    /// `reference_size_quirk`.
    pub len: f32,
    /// The size feature: large (else small).
    pub large: bool,
    /// The orientation feature: horizontal (else vertical).
    pub horizontal: bool,
    /// The colour feature: red (else green).
    pub red: bool,
    /// The gap feature: broken by a black segment over its middle (else continuous).
    pub gap: bool,
}

impl Bar {
    /// The features, for comparing arrays.
    pub fn features(&self) -> [bool; 4] {
        [self.red, self.horizontal, self.large, self.gap]
    }
    /// Append the bar's shapes: a width-3 line in its colour, plus a black width-3 line over the middle fifth
    /// (large) or third (small) when it has a gap.
    pub fn shapes(&self, out: &mut Vec<Shape>) {
        let color = if self.red { palette::RED } else { palette::GREEN };
        let h = self.len / 2.0;
        let (x0, y0, x1, y1) = if self.horizontal {
            (self.cx - h, self.cy, self.cx + h, self.cy)
        } else {
            (self.cx, self.cy - h, self.cx, self.cy + h)
        };
        out.push(line(x0, y0, x1, y1, color, 3.0));
        if self.gap {
            // the middle fifth of a large bar, the middle third of a small one (3 px either way)
            let (a, b) = if self.large { (2.0 / 5.0, 3.0 / 5.0) } else { (1.0 / 3.0, 2.0 / 3.0) };
            let (gx0, gy0) = (x0 + (x1 - x0) * a, y0 + (y1 - y0) * a);
            let (gx1, gy1) = (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b);
            out.push(line(gx0, gy0, gx1, gy1, palette::BLACK, 3.0));
        }
    }
}

/// Place `n` bars with random features, start points kept apart as in the reference (`|Δx1| < L+11 and
/// |Δy1| < L+11` rejects; 100 tries per bar, then the whole array restarts).
///
/// Large arrays rarely fit: an array of 12 takes tens of thousands of tries (about 87,000 draws on
/// average), so the loop is written for speed while drawing exactly the reference's stream. Nearness is
/// separable: bar `i` blocks a try when it is near in x *and* near in y, so for each new-bar length each
/// coordinate keeps a mask of the placed bars near it, and a try is two loads and an `and`.
pub fn memory_array(rng: &mut Rng, n: usize) -> Vec<Bar> {
    assert!(n <= 16, "CD arrays hold at most 16 bars (set sizes are checked to be at most 12)");
    let mut bars: Vec<Bar> = Vec::with_capacity(n);
    'restart: loop {
        // near[k][0][PAD + x] bit i: |x - x1 of bar i| < d for a new bar of length k (0 small, 1 large),
        // d = L + 11; near[k][1][PAD + y] the same in y. The rows are padded so that each bar marks a run of
        // fixed length 2d - 1 with no clamping (the padding is never read), which compiles to a few vector ors.
        let mut near = [[[0u16; ROW]; 2]; 2];
        bars.clear();
        for i in 0..n {
            let large = rng.coin();
            let red = rng.coin();
            let horizontal = rng.coin();
            let gap = rng.coin();
            let l = if large { LARGE as i32 } else { SMALL as i32 };
            let (lo, hi) = (l / 2 + 3, 96 - l - 3);
            let [nx, ny] = &near[large as usize];
            let placed = rng.randint_pairs_until(lo, hi, 100, |x, y| nx[PAD + x as usize] & ny[PAD + y as usize] == 0);
            let Some((x1, y1)) = placed else { continue 'restart };
            let bit = 1u16 << i;
            for (axis, c) in [x1 as usize, y1 as usize].into_iter().enumerate() {
                mark::<{ 2 * NEAR_SMALL - 1 }>(&mut near[0][axis], PAD + c + 1 - NEAR_SMALL, bit);
                mark::<{ 2 * NEAR_LARGE - 1 }>(&mut near[1][axis], PAD + c + 1 - NEAR_LARGE, bit);
            }
            let lf = l as f32;
            let (cx, cy) =
                if horizontal { (x1 as f32 + lf / 2.0, y1 as f32) } else { (x1 as f32, y1 as f32 + lf / 2.0) };
            bars.push(Bar { cx, cy, len: lf, large, horizontal, red, gap });
        }
        return bars;
    }
}

/// Nearness distances `L + 11` for the two bar lengths, and the padding that keeps every marked run inside a
/// row (start points lie in `7..=84`, so runs reach from `7 - 25` to `84 + 25`).
const NEAR_SMALL: usize = SMALL as usize + 11;
const NEAR_LARGE: usize = LARGE as usize + 11;
const PAD: usize = NEAR_LARGE - 1;
const ROW: usize = 96 + 2 * PAD;

/// Set `bit` in the `LEN` entries of `row` from `start`.
#[inline(always)]
fn mark<const LEN: usize>(row: &mut [u16; ROW], start: usize, bit: u16) {
    let run: &mut [u16; LEN] = (&mut row[start..start + LEN]).try_into().expect("run inside the row");
    for m in run {
        *m |= bit;
    }
}

/// Change one feature of one bar.
pub fn change(p: &CdParams, bar: &mut Bar, feature: Feature) {
    match feature {
        Feature::Color => bar.red = !bar.red,
        Feature::Orientation => bar.horizontal = !bar.horizontal,
        Feature::Gap => bar.gap = !bar.gap,
        Feature::Size => {
            bar.large = !bar.large;
            bar.len = match (bar.large, p.reference_size_quirk) {
                (true, false) => LARGE,
                (false, false) => SMALL,
                (true, true) => SMALL + 2.0 * LARGE / 4.0,
                (false, true) => LARGE - 2.0 * SMALL / 4.0,
            };
        }
    }
}

/// A gray frame showing `bars` (the memory or the probe array).
pub fn array_frame(bars: &[Bar]) -> Frame {
    let mut f = Frame::blank();
    for b in bars {
        b.shapes(&mut f.shapes);
    }
    f
}

/// The memory array, the probe array and the changed feature (None on no-change trials).
pub fn arrays(p: &CdParams, ctx: &mut TrialCtx) -> (Vec<Bar>, Vec<Bar>, Option<Feature>) {
    let n = ctx.cell.set_size.expect("CD cell has a set size") as usize;
    let memory = memory_array(ctx.rng, n);
    let mut probe = memory.clone();
    let feature = if ctx.flip {
        let f = match p.condition {
            CdCondition::Color => Feature::Color,
            CdCondition::Orientation => Feature::Orientation,
            CdCondition::Size => Feature::Size,
            CdCondition::Gap => Feature::Gap,
            CdCondition::Conjunction => {
                *ctx.rng.choose(&[Feature::Color, Feature::Orientation, Feature::Size, Feature::Gap])
            }
        };
        let i = ctx.rng.index(n);
        change(p, &mut probe[i], f);
        Some(f)
    } else {
        None
    };
    (memory, probe, feature)
}

/// One CD trial: the memory array, `retention` gray (or noise) frames, then the probe array, answered
/// same/changed (class 1 = changed). The conditions add the changed feature.
pub fn generate(p: &CdParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let ri = ctx.cell.retention.unwrap_or(0) as usize;
    let (memory, probe, feature) = arrays(p, ctx);
    let mut steps = vec![Step::show(array_frame(&memory), Phase::Present)];
    for _ in 0..ri {
        // Noise seeds are drawn after the arrays, so switching the mask on leaves the arrays as they were.
        let frame =
            if p.noise_mask { Frame::gray(vec![Shape::Noise { seed: ctx.rng.next_u64() }]) } else { Frame::blank() };
        steps.push(Step::show(frame, Phase::Retention));
    }
    steps.push(Step::ask(
        array_frame(&probe),
        Phase::Probe,
        Target::Class(feature.is_some() as u16),
        binary(["same", "changed"]),
    ));
    let conditions = Conditions { changed_feature: feature, ..ctx.cell.clone() };
    (steps, conditions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Split, trial_seed};
    use crate::task::{TaskId, TaskParams, TaskSpec};

    #[test]
    fn change_trials_change_exactly_one_feature_of_one_bar() {
        for id in [TaskId::CdColor, TaskId::CdOrientation, TaskId::CdSize, TaskId::CdGap, TaskId::CdConjunction] {
            let spec = TaskSpec::new(id);
            let TaskParams::Cd(p) = &spec.params else { unreachable!() };
            let grid = spec.grid();
            let (mut changes, mut same) = (0, 0);
            for i in 0..96u64 {
                let mut rng = Rng::from_key(trial_seed(5, id.ordinal(), Split::Test, i));
                let cell = &grid[i as usize % grid.len()];
                let mut ctx = TrialCtx { rng: &mut rng, cell, flip: crate::task::balanced_flip(i, grid.len() as u64) };
                let (m, pr, f) = arrays(p, &mut ctx);
                assert_eq!(m.len(), cell.set_size.unwrap() as usize);
                let diffs: Vec<usize> = (0..m.len()).filter(|&k| m[k] != pr[k]).collect();
                match f {
                    None => {
                        same += 1;
                        assert!(diffs.is_empty(), "no-change trial changed a bar");
                    }
                    Some(feat) => {
                        changes += 1;
                        assert_eq!(diffs.len(), 1, "exactly one bar changes");
                        let k = diffs[0];
                        let fd: Vec<usize> = (0..4).filter(|&j| m[k].features()[j] != pr[k].features()[j]).collect();
                        assert_eq!(fd.len(), 1, "exactly one feature changes");
                        let expect = match feat {
                            Feature::Color => 0,
                            Feature::Orientation => 1,
                            Feature::Size => 2,
                            Feature::Gap => 3,
                        };
                        assert_eq!(fd[0], expect);
                        if p.condition != CdCondition::Conjunction {
                            assert_eq!(format!("{:?}", p.condition).to_lowercase(), format!("{feat:?}").to_lowercase());
                        }
                        assert_eq!((m[k].cx, m[k].cy), (pr[k].cx, pr[k].cy), "centre kept");
                    }
                }
            }
            assert_eq!(changes, 48, "{id}: change trials balanced");
            assert_eq!(same, 48);
        }
    }

    #[test]
    fn trial_shape_and_label_follow_the_change() {
        for id in [TaskId::CdColor, TaskId::CdConjunction] {
            for t in crate::tasks::testutil::trials(id, 48) {
                let ri = t.conditions.retention.unwrap() as usize;
                assert_eq!(t.len(), ri + 2);
                assert!(t.steps[1..=ri].iter().all(|s| s.frame == Frame::blank() && !s.scored));
                let probe = t.steps.last().unwrap();
                assert!(probe.scored);
                let changed = probe.frame != t.steps[0].frame;
                assert_eq!(probe.target, Target::Class(changed as u16));
                assert_eq!(t.conditions.changed_feature.is_some(), changed);
            }
        }
    }

    /// The reference's placement written plainly: every try checks every placed start.
    fn memory_array_plain(rng: &mut Rng, n: usize) -> Vec<Bar> {
        'restart: loop {
            let mut starts: Vec<(i32, i32)> = Vec::new();
            let mut bars = Vec::new();
            for _ in 0..n {
                let (large, red, horizontal, gap) = (rng.coin(), rng.coin(), rng.coin(), rng.coin());
                let l = if large { LARGE as i32 } else { SMALL as i32 };
                let (lo, hi, d) = (l / 2 + 3, 96 - l - 3, l + 11);
                let placed = (0..100).find_map(|_| {
                    let (x1, y1) = (rng.randint(lo, hi), rng.randint(lo, hi));
                    starts.iter().all(|&(x, y)| (x1 - x).abs() >= d || (y1 - y).abs() >= d).then_some((x1, y1))
                });
                let Some((x1, y1)) = placed else { continue 'restart };
                starts.push((x1, y1));
                let lf = l as f32;
                let (cx, cy) =
                    if horizontal { (x1 as f32 + lf / 2.0, y1 as f32) } else { (x1 as f32, y1 as f32 + lf / 2.0) };
                bars.push(Bar { cx, cy, len: lf, large, horizontal, red, gap });
            }
            return bars;
        }
    }

    #[test]
    fn memory_array_equals_the_plain_rule_and_draws_the_same_stream() {
        for n in [1, 2, 4, 6, 8, 10, 12] {
            for seed in 0..40 {
                let (mut a, mut b) = (Rng::from_u64(seed), Rng::from_u64(seed));
                assert_eq!(memory_array(&mut a, n), memory_array_plain(&mut b, n), "n {n} seed {seed}");
                assert_eq!(a.next_u64(), b.next_u64(), "the same number of draws");
            }
        }
    }

    #[test]
    fn start_points_respect_the_reference_spacing() {
        let mut rng = Rng::from_u64(9);
        for _ in 0..50 {
            let bars = memory_array(&mut rng, 12);
            for b in &bars {
                let (x0, y0, x1, y1) = if b.horizontal {
                    (b.cx - b.len / 2.0, b.cy, b.cx + b.len / 2.0, b.cy)
                } else {
                    (b.cx, b.cy - b.len / 2.0, b.cx, b.cy + b.len / 2.0)
                };
                assert!(x0 >= 0.0 && y0 >= 0.0 && x1 <= 95.0 && y1 <= 95.0, "bar inside the frame");
            }
        }
    }
}
