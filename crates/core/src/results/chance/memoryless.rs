//! The memoryless baseline: the expected accuracy, on a task's scored items, of the best subject that
//! answers each probe from the frame it is shown alone, with no memory of the trial's earlier frames
//! (but knowing the task's rules). Accuracy above chance but not above this baseline needs no memory.
//!
//! For an item, that subject's best is `m = max_y P(answer y | the current frame)`; an item's baseline is
//! the expectation of `m` given what a [`TrialRow`] knows of the item (its task parameters, conditions,
//! target and serial position), so the baselines of a run's items add up to the expected number a
//! memoryless subject gets right, and their Poisson-binomial tail is the test
//! ([`super::TaskSignificance::p_above_memoryless`]). Where the frame shows the answer's shape only in
//! part, the baseline is that of the best rule found (a lower bound of the true best, marked "at least").
//!
//! | ids | baseline | why (the probe frame alone) |
//! |---|---|---|
//! | VSR, LSR | 1/L | all L items sit in L of the slots and the frame is the same at every probe; by exchangeability the answer is any occupied slot with equal odds |
//! | VSRec, VIR | 1/2 | the target and its lure are each the other's lure (same filled cells, `d` apart, as many neighbours), so the pair is symmetric in the side |
//! | SC | 1/2 | the probe is a blank gray frame; answers are balanced |
//! | SFR | L/100 (= chance) | the probe is a blank gray frame; the targets are uniform over the cells |
//! | STS | 3/4 | a marker on the diagonal (top-left or bottom-right) has the same answer under both rules (1); elsewhere the active rule is up/down or left/right with odds 1/2 (1/2); each half of the cells is drawn with odds 1/2 |
//! | SMU | `max_c P_k(c)` (≈ 0.18–0.24) | the frame shows the set size and the probed box, so how many moves `k` the box made; the marker's cell after `k` uniform legal moves from a uniform cell is most often the centre: 1/9, 32/135, 124/675, … for k = 0, 1, 2, … ([`smu_best`]) |
//! | CS spatial | 3/16 | the options are always the 8 directions; the path is one of 16, and each of → ← ↓ ↑ stands for 3 of them, each diagonal for 1 |
//! | CS visual | at least 0.998 | every lure is 6 cells from the target, lures rarely 6 from each other: the option 6 cells from all 7 others is the target (1/|such options|; [`CS_VISUAL`]) |
//! | CD-Color, CD-Gap | 1/2 | a change flips a fair coin of one bar and moves nothing, so the probe array is drawn as any memory array |
//! | CD-Orientation | 1 | a bar rotated about its centre has its ends on half units, where no memory array puts them (in the 96-pixel raster a 4-pixel-wide stroke of L pixels, not 3 wide and L + 1 long) |
//! | CD-Size | at least `(1 + d(S))/2` | a resized bar may fall outside its new length's range of start points or too near another bar for the placement rule; `d(S)` of changes show it ([`CD_SIZE_SEEN`], 0.10 at S = 1 to 0.70 at S = 12); with the reference's size quirk every change shows (16.5 and 10.5 units are no bar's length) |
//! | CD-Conjunction | at least `(1 + d)/2`, `d = (1 + d_size(S))/4` | a quarter of the changes are rotations, a quarter resizes |
//! | SI | at least 0.529 | a distractor re-walks its tail around the figure's points and so spreads wider: "different" when the figure spans the whole 5×5 lattice, else "same" ([`SI_SPAN_RULE`]) |
//!
//! The CD, CS-visual and SI entries are properties of the generators (the reference code's too), not of
//! the paper's design: they are where a network can score above chance without memory.

use crate::record::{Setting, TrialRow};
use crate::task::{Conditions, Feature, TaskId, TaskParams, TaskSpec};
use crate::tasks::cd::{CdCondition, CdParams};
use crate::tasks::cs::{CLASS_SPATIAL_RECALL, CLASS_VISUAL_RECALL};

/// CS with visual storage: the expected `1 / |options 6 cells from all 7 others|` of a recall probe
/// (the target is always one of them, and the rules give each the same odds), measured on 80,000 probes
/// of the test split (seed 17): 0.99792. Checked by `memoryless_cs_visual_target_is_the_centre_of_its_lures`.
pub const CS_VISUAL: f64 = 0.998;

/// SI: the accuracy of answering "different" when the probed figure spans the whole lattice (all 5 rows
/// and all 5 columns) and "same" otherwise, measured on 400,000 trials of the test split (seed 13):
/// 0.5291 (right on 59.8 % of "same" trials, 46 % of "different" ones). A lower bound of the best from
/// the probe alone. Checked by `memoryless_si_wide_figures_are_distractors`.
pub const SI_SPAN_RULE: f64 = 0.529;

/// CD: the share of size changes (`CD_SIZE_SEEN[S - 1]` for set size S) whose probe array no memory
/// array could be: a bar's start outside `[L/2 + 3, 93 − L]` for its new length L, or two bars' starts
/// nearer than `min(L) + 11` in both x and y (the placement rule, whichever bar came first). Measured on
/// 4,000 changes per set size (test split, seed 50). The S = 1 entry is, in closed form, half the
/// small→large changes that leave a start outside `[10, 78]`: `(1 − (69/78)²)/2 = 0.109`.
/// Checked by `memoryless_cd_changes_that_show_in_the_probe`.
pub const CD_SIZE_SEEN: [f64; 12] =
    [0.105, 0.146, 0.169, 0.196, 0.248, 0.288, 0.342, 0.398, 0.464, 0.528, 0.615, 0.704];

/// SMU: the probability of the likeliest cell (the centre, for k ≥ 1) of a marker that starts in a
/// uniform cell of the 3×3 and makes `k` moves, each uniform over the moves that stay inside.
pub fn smu_best(k: usize) -> f64 {
    let mut p = [1.0 / 9.0; 9];
    for _ in 0..k {
        let mut q = [0.0; 9];
        for (pos, &mass) in p.iter().enumerate() {
            let moves = crate::tasks::smu::legal_moves(pos);
            for &mv in &moves {
                q[crate::tasks::smu::apply(pos, mv)] += mass / moves.len() as f64;
            }
        }
        p = q;
    }
    p.into_iter().fold(0.0, f64::max)
}

/// SMU: how many of `updates` update frames move box `b` of `s` (update t moves box t mod s).
pub fn smu_moves(updates: usize, s: usize, b: usize) -> usize {
    (0..updates).filter(|t| t % s.max(1) == b).count()
}

/// CD: the share of changes of `feature` whose probe array shows the change by itself, at set size `s`.
fn cd_seen(p: &CdParams, feature: Feature, s: u8) -> f64 {
    match feature {
        Feature::Color | Feature::Gap => 0.0,
        Feature::Orientation => 1.0,
        Feature::Size if p.reference_size_quirk => 1.0,
        Feature::Size => CD_SIZE_SEEN[(s.clamp(1, 12) - 1) as usize],
    }
}

/// CD: the share of all changes (of the trial's features, equally likely) that show in the probe at set
/// size `s`.
fn cd_shown(p: &CdParams, s: u8) -> f64 {
    let features: &[Feature] = match p.condition {
        CdCondition::Color => &[Feature::Color],
        CdCondition::Orientation => &[Feature::Orientation],
        CdCondition::Size => &[Feature::Size],
        CdCondition::Gap => &[Feature::Gap],
        CdCondition::Conjunction => &[Feature::Color, Feature::Orientation, Feature::Size, Feature::Gap],
    };
    features.iter().map(|&f| cd_seen(p, f, s)).sum::<f64>() / features.len() as f64
}

/// CD: the memoryless best on an item with `conditions`. With `d` the share of all changes that show,
/// the best answer is "changed" when the probe shows one and "same" otherwise, right with odds
/// `P(same | none shows) = 1/(2 − d)`: so `1/(2 − d)` on a no-change trial and `d_f + (1 − d_f)/(2 − d)`
/// on a change of feature f; `(1 + d)/2` on average. A row without a set size counts as the largest (12).
fn cd_item(p: &CdParams, conditions: &Conditions) -> f64 {
    let s = conditions.set_size.unwrap_or(12);
    let d = cd_shown(p, s);
    let unseen = if d >= 1.0 { 1.0 } else { 1.0 / (2.0 - d) };
    match conditions.changed_feature {
        None => unseen,
        Some(f) => {
            let df = cd_seen(p, f, s);
            df + (1.0 - df) * unseen
        }
    }
}

/// The memoryless baseline of one scored item of a trial of `spec` with `conditions`, whose target is
/// `target` (as a row writes it) and which asks about `serial_position` (1-based) where known (see the
/// module table).
pub fn item_memoryless(spec: &TaskSpec, conditions: &Conditions, target: &str, serial_position: Option<u8>) -> f64 {
    let l = conditions.list_length.unwrap_or(1).max(1) as f64;
    match &spec.params {
        TaskParams::Vsr(_) | TaskParams::Lsr(_) => 1.0 / l,
        TaskParams::Sfr(p) => (l / (p.grid as f64).powi(2)).min(1.0),
        TaskParams::Sts(_) => {
            // A scored cue step (the reference's class 2) is known from its frame.
            if target == "2" { 1.0 } else { 0.75 }
        }
        TaskParams::Smu(p) => {
            let s = conditions.set_size.unwrap_or(1).max(1) as usize;
            let updates = p.updates as usize;
            match serial_position.map(|b| b as usize).filter(|b| (1..=s).contains(b)) {
                Some(b) => smu_best(smu_moves(updates, s, b - 1)),
                // Every box is probed once per trial: the mean over the boxes.
                None => (0..s).map(|b| smu_best(smu_moves(updates, s, b))).sum::<f64>() / s as f64,
            }
        }
        TaskParams::Cs(_) => match target.parse::<u16>() {
            Ok(c) if (CLASS_SPATIAL_RECALL..CLASS_VISUAL_RECALL).contains(&c) => 3.0 / 16.0,
            Ok(c) if (CLASS_VISUAL_RECALL..CLASS_VISUAL_RECALL + 8).contains(&c) => CS_VISUAL,
            // The colour and symmetry judgements, and "no response", are about the frame shown.
            _ => 1.0,
        },
        TaskParams::Cd(p) => cd_item(p, conditions),
        TaskParams::Si(_) => SI_SPAN_RULE,
        TaskParams::Vir(_) | TaskParams::VsRec(_) | TaskParams::Sc(_) => 0.5,
    }
}

/// The memoryless baseline at a point of the comparison axes of task `id` (the curves of
/// `crate::people::reference::subject_curves`: `label` names the curve, `x` is its x value), for a run
/// with the reference parameters: the mean over that point's items, a change and no change equally
/// likely on CD. None where the baseline equals chance by the module table (SFR, VIR, VSRec, SC) or the
/// label does not say what it needs.
pub fn point_memoryless(id: TaskId, label: &str, x: f64) -> Option<f64> {
    let spec = TaskSpec::new(id);
    let value = |key: &str| label.strip_prefix(key)?.strip_prefix('=')?.parse::<u8>().ok().filter(|&v| v >= 1);
    let x = (x.is_finite() && (1.0..=255.0).contains(&x.round())).then(|| x.round() as u8);
    let c = |list_length: Option<u8>, set_size: Option<u8>| Conditions { list_length, set_size, ..Default::default() };
    match &spec.params {
        TaskParams::Vsr(_) | TaskParams::Lsr(_) => {
            Some(item_memoryless(&spec, &c(Some(value("list_length")?), None), "0", None))
        }
        // A change and no change equally often: (1/(2 − d) + d + (1 − d)/(2 − d))/2 = (1 + d)/2.
        TaskParams::Cd(p) => Some((1.0 + cd_shown(p, x?)) / 2.0),
        TaskParams::Smu(_) => Some(item_memoryless(&spec, &c(None, Some(x?)), "4", None)),
        TaskParams::Cs(_) => {
            let class = match label.split('-').next()? {
                "Spatial" => CLASS_SPATIAL_RECALL,
                "Visual" => CLASS_VISUAL_RECALL,
                _ => return None,
            };
            Some(item_memoryless(&spec, &Conditions::default(), &class.to_string(), None))
        }
        TaskParams::Sts(_) => Some(item_memoryless(&spec, &Conditions::default(), "0", None)),
        TaskParams::Si(_) => Some(SI_SPAN_RULE),
        TaskParams::Sfr(_) | TaskParams::Vir(_) | TaskParams::VsRec(_) | TaskParams::Sc(_) => None,
    }
}

/// The serial position of each entry of a row's `correct` (the `serial_positions` extra that people's
/// and networks' rows carry; `-` or absent: unknown).
fn row_positions(row: &TrialRow) -> Vec<Option<u8>> {
    match row.extra.get("serial_positions") {
        Some(Setting::Text(t)) => t.split(' ').map(|p| p.parse().ok()).collect(),
        _ => Vec::new(),
    }
}

/// The memoryless baselines of a row's items that count in its task's accuracy, in the order of
/// [`super::accuracy_items`] (the same length). `spec`: the task's parameters as the run used them (a
/// record's `config.tasks`); the reference parameters of the row's task when None. None for a row whose
/// task is not a WorM task id, or one that does not match `spec`.
pub fn memoryless_items(row: &TrialRow, spec: Option<&TaskSpec>) -> Vec<f64> {
    let Some(task) = TaskId::parse(&row.task) else { return Vec::new() };
    let own;
    let spec = match spec {
        Some(s) if s.id == task => s,
        Some(_) => return Vec::new(),
        None => {
            own = TaskSpec::new(task);
            &own
        }
    };
    let positions = row_positions(row);
    row.targets
        .iter()
        .zip(&row.correct)
        .enumerate()
        .filter(|(_, (t, _))| super::counts_in_accuracy(task, t))
        .map(|(i, (t, _))| item_memoryless(spec, &row.conditions, t, positions.get(i).copied().flatten()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::{Frame, Shape, palette};
    use crate::rng::Split;
    use crate::task::{Domain, Phase, Target, Trial, balanced_flip};
    use crate::tasks::Pattern;
    use crate::tasks::vir::tests::patterns_in;

    fn trials(spec: &TaskSpec, seed: u64, n: u64) -> impl Iterator<Item = Trial> + '_ {
        (0..n).map(move |i| spec.trial(seed, Split::Test, i))
    }

    fn class(t: &Target) -> u16 {
        match t {
            Target::Class(c) => *c,
            _ => panic!("a class target"),
        }
    }

    fn near(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn memoryless_vsr_and_lsr_are_one_over_the_occupied_slots() {
        // A subject without memory answers every probe of a trial alike (the frame is the same): any
        // occupied slot is right at exactly one of the L probes.
        for id in [TaskId::Vsr, TaskId::Lsr] {
            let spec = TaskSpec::new(id);
            for t in trials(&spec, 5, 160) {
                let l = t.conditions.list_length.unwrap() as usize;
                let probes: Vec<_> = t.scored_steps().map(|(_, s)| s).collect();
                assert_eq!(probes.len(), l);
                let occupied: Vec<u16> = match id {
                    TaskId::Vsr => {
                        // The first cell of each mini-grid sits at its slot's corner (+2, +2).
                        let mut v: Vec<u16> = probes[0]
                            .frame
                            .shapes
                            .iter()
                            .filter_map(|s| match s {
                                Shape::Rect { x0, y0, .. } if (x0 - 2.0) % 32.0 == 0.0 && (y0 - 2.0) % 32.0 == 0.0 => {
                                    Some(((y0 - 2.0) / 32.0 * 3.0 + (x0 - 2.0) / 32.0) as u16)
                                }
                                _ => None,
                            })
                            .collect();
                        v.sort_unstable();
                        v.dedup();
                        v
                    }
                    _ => (0..probes[0].words.len() as u16)
                        .filter(|&k| probes[0].words[k as usize] != crate::tasks::lsr::NO_WORD)
                        .collect(),
                };
                assert_eq!(occupied.len(), l, "{id}: the probe shows the whole list");
                assert!(probes.iter().all(|p| p.frame == probes[0].frame && p.words == probes[0].words));
                for &guess in &occupied {
                    assert_eq!(probes.iter().filter(|p| class(&p.target) == guess).count(), 1);
                }
                let m = item_memoryless(&spec, &t.conditions, "0", Some(1));
                assert!(near(m, 1.0 / l as f64, 1e-12));
            }
        }
    }

    #[test]
    fn memory_blanked_trials_keep_the_probes_and_blank_the_rest() {
        for id in TaskId::ALL {
            let spec = TaskSpec::new(id);
            let t = spec.trial(3, Split::Test, 0);
            let b = t.memory_blanked();
            assert_eq!(b.len(), t.len());
            assert_eq!(b.conditions, t.conditions);
            let mut blanked = 0;
            for (s, o) in b.steps.iter().zip(&t.steps) {
                assert_eq!((&s.target, s.scored, &s.response), (&o.target, o.scored, &o.response));
                if o.scored {
                    assert_eq!((&s.frame, &s.words), (&o.frame, &o.words), "{id:?}: a probe as it was");
                } else {
                    assert_eq!(s.frame, Frame::blank(), "{id:?}");
                    assert!(s.words.iter().all(|&w| w == crate::tasks::lsr::NO_WORD));
                    blanked += (o.frame != Frame::blank() || !o.words.is_empty()) as usize;
                }
            }
            assert!(blanked > 0, "{id:?}: some memory frame was blanked");
        }
    }

    #[test]
    fn point_memoryless_is_the_mean_of_the_items_at_that_point() {
        assert_eq!(point_memoryless(TaskId::Vsr, "list_length=4", 2.0), Some(0.25));
        assert_eq!(point_memoryless(TaskId::Lsr, "list_length=8", 1.0), Some(0.125));
        assert_eq!(point_memoryless(TaskId::Vsr, "all", 2.0), None, "the list length is in the label");
        assert_eq!(point_memoryless(TaskId::Sts, "all", 3.0), Some(0.75));
        assert_eq!(point_memoryless(TaskId::Cs, "Spatial-Visual", 3.0), Some(3.0 / 16.0));
        assert_eq!(point_memoryless(TaskId::Cs, "Visual-Spatial", 1.0), Some(CS_VISUAL));
        assert_eq!(point_memoryless(TaskId::Si, "all", 4.0), Some(SI_SPAN_RULE));
        for id in [TaskId::Sfr, TaskId::Vir, TaskId::VsRec, TaskId::Sc] {
            assert_eq!(point_memoryless(id, "all", 3.0), None, "{id:?} equals chance");
        }
        // CD: the mean of a no-change item and a change of each of the condition's features.
        for id in [TaskId::CdColor, TaskId::CdOrientation, TaskId::CdSize, TaskId::CdGap, TaskId::CdConjunction] {
            let spec = TaskSpec::new(id);
            let TaskParams::Cd(p) = &spec.params else { unreachable!() };
            let features: Vec<Feature> = match p.condition {
                CdCondition::Conjunction => vec![Feature::Color, Feature::Orientation, Feature::Size, Feature::Gap],
                CdCondition::Color => vec![Feature::Color],
                CdCondition::Orientation => vec![Feature::Orientation],
                CdCondition::Size => vec![Feature::Size],
                CdCondition::Gap => vec![Feature::Gap],
            };
            for s in [1u8, 4, 6, 12] {
                let at = |f: Option<Feature>| {
                    item_memoryless(
                        &spec,
                        &Conditions { set_size: Some(s), changed_feature: f, ..Default::default() },
                        "0",
                        None,
                    )
                };
                let change = features.iter().map(|&f| at(Some(f))).sum::<f64>() / features.len() as f64;
                let want = (at(None) + change) / 2.0;
                let got = point_memoryless(id, "feature=x", s as f64).unwrap();
                assert!(near(got, want, 1e-12), "{id:?} s={s}: {got} vs {want}");
            }
        }
        assert_eq!(point_memoryless(TaskId::CdColor, "feature=Color", 4.0), Some(0.5));
        assert_eq!(point_memoryless(TaskId::CdOrientation, "feature=Orientation", 4.0), Some(1.0));
        assert_eq!(point_memoryless(TaskId::CdSize, "feature=Size", 0.0), None);
        let smu = point_memoryless(TaskId::Smu, "all", 1.0).unwrap();
        assert!(smu > 1.0 / 9.0 + 0.05, "{smu}");
    }

    #[test]
    fn memoryless_sts_is_three_quarters() {
        let spec = TaskSpec::new(TaskId::Sts);
        // The marker's cell, from the red square's corner (cells at 20 | 48, inset 8).
        let cell = |f: &Frame| {
            f.shapes.iter().find_map(|s| match s {
                Shape::RoundRect { x0, y0, fill: Some(palette::RED), .. } => {
                    Some(((y0 - 28.0) / 28.0 * 2.0 + (x0 - 28.0) / 28.0) as usize)
                }
                _ => None,
            })
        };
        let (mut n, mut best, mut off_diag, mut off_diag_zero) = (0u32, 0.0f64, 0u32, 0u32);
        for t in trials(&spec, 5, 600) {
            for (_, s) in t.scored_steps() {
                let c = cell(&s.frame).expect("a task frame has a marker");
                let y = class(&s.target);
                n += 1;
                match c {
                    // Both rules agree on the diagonal: top-left is top and left (0), bottom-right 1.
                    0 | 3 => {
                        assert_eq!(y, (c == 3) as u16);
                        best += 1.0;
                    }
                    _ => {
                        off_diag += 1;
                        off_diag_zero += (y == 0) as u32;
                        best += 0.5;
                    }
                }
            }
        }
        let (n, off) = (n as f64, off_diag as f64);
        // Each half of the cells comes up half the time, and off it the rule is a coin.
        assert!(near(off / n, 0.5, 0.02), "{}", off / n);
        assert!(near(off_diag_zero as f64 / off, 0.5, 0.03));
        assert!(near(best / n, 0.75, 0.01), "{}", best / n);
        assert_eq!(item_memoryless(&spec, &Conditions::default(), "1", None), 0.75);
        assert_eq!(item_memoryless(&spec, &Conditions::default(), "2", None), 1.0);
    }

    #[test]
    fn memoryless_smu_is_the_centre_after_the_boxs_moves() {
        // Hand values: no move leaves the start uniform; one move from a uniform cell reaches the centre
        // from every other cell, 4 corners with 1/3 and 4 edges with 1/5: (4/3 + 4/5)/9 = 32/135.
        assert!(near(smu_best(0), 1.0 / 9.0, 1e-15));
        assert!(near(smu_best(1), 32.0 / 135.0, 1e-15));
        assert!(near(smu_best(2), 124.0 / 675.0, 1e-15));
        // Long walks approach the stationary share of the centre, its degree over all degrees: 8/40.
        assert!(near(smu_best(40), 0.2, 1e-9));
        // Eight updates over S boxes: box b moves ⌈(8 − b)/S⌉ times.
        assert_eq!((0..3).map(|b| smu_moves(8, 3, b)).collect::<Vec<_>>(), vec![3, 3, 2]);
        assert_eq!((0..6).map(|b| smu_moves(8, 6, b)).collect::<Vec<_>>(), vec![2, 2, 1, 1, 1, 1]);
        // Empirically: always answering the centre, per set size and probed box.
        let spec = TaskSpec::new(TaskId::Smu);
        let mut hits = std::collections::BTreeMap::<(u8, u8), (u32, u32)>::new();
        for t in trials(&spec, 5, 8000) {
            let s = t.conditions.set_size.unwrap();
            for (_, st) in t.scored_steps() {
                let e = hits.entry((s, st.serial_position.unwrap())).or_default();
                e.0 += 1;
                e.1 += (class(&st.target) == 4) as u32;
            }
        }
        let (mut seen, mut want, mut n) = (0.0, 0.0, 0.0);
        for (&(s, b), &(k, c)) in &hits {
            let m = item_memoryless(&spec, &Conditions { set_size: Some(s), ..Default::default() }, "4", Some(b));
            let sd = (m * (1.0 - m) / k as f64).sqrt();
            assert!(near(c as f64 / k as f64, m, 4.5 * sd), "S {s} box {b}: {c}/{k} against {m}");
            seen += c as f64;
            want += m * k as f64;
            n += k as f64;
        }
        assert!(near(seen / n, want / n, 0.01), "{} {}", seen / n, want / n);
        // Over the reference grid (S = 1–8, equal trials) the centre is the answer about 21 % of the time.
        assert!((0.2..0.22).contains(&(want / n)), "{}", want / n);
        // Without positions, a row's items take the mean over its boxes.
        let c6 = Conditions { set_size: Some(6), ..Default::default() };
        let mean = item_memoryless(&spec, &c6, "4", None);
        assert!(near(mean, (2.0 * smu_best(2) + 4.0 * smu_best(1)) / 6.0, 1e-15));
    }

    #[test]
    fn memoryless_cs_spatial_favours_the_four_straight_directions() {
        let spec = TaskSpec::new(TaskId::Cs);
        let (mut n, mut right) = (0u32, 0u32);
        for t in trials(&spec, 5, 1600).filter(|t| t.conditions.storage == Some(Domain::Spatial)) {
            for s in t.steps.iter().filter(|s| s.phase == Phase::Probe) {
                // Choose the option whose arrow points right (arrows are drawn in slot order).
                let arrows: Vec<(f32, f32)> = s
                    .frame
                    .shapes
                    .iter()
                    .filter_map(|s| match s {
                        Shape::Arrow { x0, y0, x1, y1, .. } => Some((x1 - x0, y1 - y0)),
                        _ => None,
                    })
                    .collect();
                assert_eq!(arrows.len(), 8);
                let slot = arrows.iter().position(|&(dx, dy)| dx > 0.0 && dy == 0.0).unwrap() as u16;
                n += 1;
                right += (class(&s.target) == CLASS_SPATIAL_RECALL + slot) as u32;
            }
        }
        let rate = right as f64 / n as f64;
        assert!(near(rate, 3.0 / 16.0, 4.0 * (3.0 / 16.0 * 13.0 / 16.0 / n as f64).sqrt()), "{rate} of {n}");
        assert_eq!(item_memoryless(&spec, &Conditions::default(), "7", Some(1)), 3.0 / 16.0);
        // The distractor judgements are about the frame shown (they do not count in CS's accuracy).
        assert_eq!(item_memoryless(&spec, &Conditions::default(), "3", None), 1.0);
    }

    #[test]
    fn memoryless_cs_visual_target_is_the_centre_of_its_lures() {
        let spec = TaskSpec::new(TaskId::Cs);
        let (mut n, mut sum) = (0u32, 0.0);
        for t in trials(&spec, 5, 1600).filter(|t| t.conditions.storage == Some(Domain::Visual)) {
            for s in t.steps.iter().filter(|s| s.phase == Phase::Probe) {
                let cells: Vec<bool> = s
                    .frame
                    .shapes
                    .iter()
                    .filter_map(|s| match s {
                        Shape::Rect { fill: Some(c), .. } => Some(*c == palette::RED),
                        _ => None,
                    })
                    .collect();
                let options: Vec<Pattern> = cells.chunks(16).map(|c| Pattern { g: 4, cells: c.to_vec() }).collect();
                assert_eq!(options.len(), 8);
                let centres: Vec<u16> = (0..8)
                    .filter(|&j| (0..8).all(|k| k == j || options[j].difference(&options[k]) == 6))
                    .map(|j| j as u16)
                    .collect();
                assert!(centres.contains(&(class(&s.target) - CLASS_VISUAL_RECALL)), "the target is a centre");
                n += 1;
                sum += 1.0 / centres.len() as f64;
            }
        }
        assert!(n > 1000 && near(sum / n as f64, CS_VISUAL, 0.006), "{} of {n}", sum / n as f64);
        assert_eq!(item_memoryless(&spec, &Conditions::default(), "15", Some(2)), CS_VISUAL);
    }

    /// Whether a CD probe array could not have been drawn as a memory array (see [`CD_SIZE_SEEN`]); reads
    /// the bars (the red and green lines) from the frame.
    fn cd_impossible(f: &Frame) -> bool {
        let mut starts = Vec::new();
        for s in &f.shapes {
            let Shape::Line { x0, y0, x1, y1, color, .. } = *s else { continue };
            if color == palette::BLACK {
                continue; // a gap
            }
            let l = (x1 - x0).abs() + (y1 - y0).abs();
            if !(l == 9.0 || l == 15.0) || x0.fract() != 0.0 || y0.fract() != 0.0 {
                return true;
            }
            let (lo, hi) = ((l as i32 / 2 + 3) as f32, (96 - l as i32 - 3) as f32);
            if !(lo..=hi).contains(&x0) || !(lo..=hi).contains(&y0) {
                return true;
            }
            starts.push((x0, y0, l));
        }
        starts.iter().enumerate().any(|(i, a)| {
            starts[i + 1..].iter().any(|b| {
                let d = a.2.min(b.2) + 11.0;
                (a.0 - b.0).abs() < d && (a.1 - b.1).abs() < d
            })
        })
    }

    /// (no-change probes seen as impossible, changes seen, changes) over the first `n` trials of `spec`.
    fn cd_seen_rates(spec: &TaskSpec, n: u64) -> (u32, u32, u32) {
        let k = spec.grid().len() as u64;
        let (mut false_alarms, mut seen, mut changes) = (0, 0, 0);
        for i in 0..n {
            let t = spec.trial(5, Split::Test, i);
            let probe = &t.steps.last().unwrap().frame;
            if balanced_flip(i, k) {
                changes += 1;
                seen += cd_impossible(probe) as u32;
            } else {
                false_alarms += cd_impossible(probe) as u32;
            }
        }
        (false_alarms, seen, changes)
    }

    #[test]
    fn memoryless_cd_changes_that_show_in_the_probe() {
        // Memory arrays always pass; colour and gap changes never show; every rotation does.
        for (id, n, want) in [(TaskId::CdColor, 96, 0.0), (TaskId::CdGap, 96, 0.0), (TaskId::CdOrientation, 192, 1.0)] {
            let (fa, seen, changes) = cd_seen_rates(&TaskSpec::new(id), n);
            assert_eq!(fa, 0, "{id}");
            assert_eq!(seen as f64, want * changes as f64, "{id}");
        }
        // Size: about the table's share, pooled over the grid's set sizes (2–12, equal numbers).
        let spec = TaskSpec::new(TaskId::CdSize);
        let (fa, seen, changes) = cd_seen_rates(&spec, 1200);
        assert_eq!(fa, 0);
        let want = [2, 4, 6, 8, 10, 12].iter().map(|&s| CD_SIZE_SEEN[s - 1]).sum::<f64>() / 6.0;
        let rate = seen as f64 / changes as f64;
        assert!(near(rate, want, 4.0 * (want * (1.0 - want) / changes as f64).sqrt()), "{rate} against {want}");
        // The reference's size quirk: every resized bar has a length no memory array has.
        let quirk = crate::task::Quirks { cd_size: true, ..Default::default() }.apply(TaskSpec::new(TaskId::CdSize));
        let (fa, seen, changes) = cd_seen_rates(&quirk, 96);
        assert_eq!((fa, seen), (0, changes));
        // S = 1 in closed form: half the changes are small→large, which leave the start range with odds
        // 1 − (69/78)².
        assert!(near(CD_SIZE_SEEN[0], (1.0 - (69.0f64 / 78.0).powi(2)) / 2.0, 0.01));
    }

    #[test]
    fn memoryless_cd_rotation_shows_in_the_raster() {
        // A vertical bar drawn from whole units (a memory array's) and one rotated from a horizontal bar
        // about its centre (half units): different strokes at 96 pixels, so different tensors.
        let bar = |x: f32, y: f32| Frame::gray(vec![crate::display::line(x, y, x, y + 9.0, palette::RED, 3.0)]);
        let stroke = |f: &Frame| {
            let img = crate::raster::draw96(f);
            let red = |x: usize, y: usize| img.px[(y * 96 + x) * 3..][..3] == [238, 29, 35];
            let cols = (0..96).filter(|&x| (0..96).any(|y| red(x, y))).count();
            let rows = (0..96).filter(|&y| (0..96).any(|x| red(x, y))).count();
            (cols, rows)
        };
        let native = stroke(&bar(40.0, 30.0));
        let rotated = stroke(&bar(40.5, 30.5));
        assert_ne!(native, rotated, "{native:?} {rotated:?}");
        assert_ne!(crate::raster::tensor32(&bar(40.0, 30.0)), crate::raster::tensor32(&bar(40.5, 30.5)));
    }

    #[test]
    fn memoryless_cd_items_average_to_half_plus_half_the_changes_seen() {
        let spec = TaskSpec::new(TaskId::CdSize);
        for s in [2u8, 12] {
            let d = CD_SIZE_SEEN[s as usize - 1];
            let same = Conditions { set_size: Some(s), ..Default::default() };
            let changed = Conditions { changed_feature: Some(Feature::Size), ..same.clone() };
            let m = (item_memoryless(&spec, &same, "0", None) + item_memoryless(&spec, &changed, "1", None)) / 2.0;
            assert!(near(m, (1.0 + d) / 2.0, 1e-12));
        }
        // Orientation: every item; colour: a coin.
        let same = Conditions { set_size: Some(4), ..Default::default() };
        assert_eq!(item_memoryless(&TaskSpec::new(TaskId::CdOrientation), &same, "0", None), 1.0);
        assert_eq!(item_memoryless(&TaskSpec::new(TaskId::CdColor), &same, "0", None), 0.5);
        // Conjunction: a quarter rotations, a quarter resizes.
        let conj = TaskSpec::new(TaskId::CdConjunction);
        let d = (1.0 + CD_SIZE_SEEN[3]) / 4.0;
        let items: Vec<f64> =
            [None, Some(Feature::Color), Some(Feature::Orientation), Some(Feature::Size), Some(Feature::Gap)]
                .into_iter()
                .map(|f| item_memoryless(&conj, &Conditions { changed_feature: f, ..same.clone() }, "0", None))
                .collect();
        let mean = (items[0] + items[1..].iter().sum::<f64>() / 4.0) / 2.0;
        assert!(near(mean, (1.0 + d) / 2.0, 1e-12));
        assert_eq!(items[2], 1.0);
    }

    #[test]
    fn memoryless_si_wide_figures_are_distractors() {
        let spec = TaskSpec::new(TaskId::Si);
        let n = 20_000;
        let mut right = 0u32;
        for t in trials(&spec, 5, n) {
            let probe = t.steps.last().unwrap();
            // The figure's points, from its lines (probe padding 15, cell 16).
            let mut rows = std::collections::BTreeSet::new();
            let mut cols = std::collections::BTreeSet::new();
            for s in &probe.frame.shapes {
                if let Shape::Line { x0, y0, x1, y1, color: palette::GREEN, .. } = *s {
                    for (x, y) in [(x0, y0), (x1, y1)] {
                        cols.insert(((x - 15.0) / 16.0) as i32);
                        rows.insert(((y - 15.0) / 16.0) as i32);
                    }
                }
            }
            let wide = rows.len() == 5 && cols.len() == 5;
            right += (wide == (class(&probe.target) == 0)) as u32;
        }
        let rate = right as f64 / n as f64;
        assert!(near(rate, SI_SPAN_RULE, 4.0 * (0.25 / n as f64).sqrt()), "{rate}");
    }

    #[test]
    fn memoryless_equals_chance_where_the_probe_is_blank_or_symmetric() {
        // SC and SFR probe with a blank gray frame: nothing to go on. SC's answers are balanced; SFR's
        // target cells are uniform, so any L cells hold L/100 of them.
        for id in [TaskId::Sc, TaskId::Sfr] {
            let spec = TaskSpec::new(id);
            let mut answers = [0u32; 2];
            for t in trials(&spec, 5, 120) {
                let probe = t.steps.last().unwrap();
                assert_eq!(probe.frame, Frame::blank(), "{id}");
                if let Target::Class(c) = probe.target {
                    answers[c as usize] += 1;
                }
                let m = item_memoryless(&spec, &t.conditions, "0", None);
                assert_eq!(m, super::super::item_chance(id, &t.conditions), "{id}");
            }
            if id == TaskId::Sc {
                assert_eq!(answers, [60, 60]);
            }
        }
        // VIR and VSRec: the lure has the target's filled cells and lies d cells from it, and every pattern
        // with F of G² cells filled has C(F, d/2)·C(G² − F, d/2) such lures, so the probe's two patterns are
        // each other's lures with the same odds: the frame is symmetric in the answer.
        for id in [TaskId::Vir, TaskId::VsRec] {
            let spec = TaskSpec::new(id);
            let mut sides = [0u32; 2];
            for t in trials(&spec, 5, 120) {
                let d = t.conditions.pattern_difference.unwrap() as usize;
                let colour = if id == TaskId::Vir { palette::RED } else { palette::GREEN };
                for (_, s) in t.scored_steps() {
                    let pair = patterns_in(&s.frame, 6, colour);
                    assert_eq!(pair.len(), 2);
                    assert_eq!(pair[0].filled(), pair[1].filled());
                    assert_eq!(pair[0].difference(&pair[1]), d);
                    sides[class(&s.target) as usize] += 1;
                }
                assert_eq!(item_memoryless(&spec, &t.conditions, "0", None), 0.5);
            }
            let n = (sides[0] + sides[1]) as f64;
            assert!(near(sides[0] as f64 / n, 0.5, 0.06), "{id} {sides:?}");
        }
    }

    #[test]
    fn memoryless_items_of_rows() {
        let row = |task: &str, conditions: Conditions, targets: &[&str], positions: Option<&str>| {
            let mut r = TrialRow {
                task: task.into(),
                conditions,
                targets: targets.iter().map(|s| s.to_string()).collect(),
                responses: targets.iter().map(|s| s.to_string()).collect(),
                correct: vec![true; targets.len()],
                ..Default::default()
            };
            if let Some(p) = positions {
                r.extra.insert("serial_positions".into(), Setting::Text(p.into()));
            }
            r
        };
        let l3 = Conditions { list_length: Some(3), ..Default::default() };
        assert_eq!(memoryless_items(&row("VSR", l3.clone(), &["1", "4", "7"], None), None), vec![1.0 / 3.0; 3]);
        // SMU: box 1 of 3 moves 3 times, box 3 twice.
        let s3 = Conditions { set_size: Some(3), ..Default::default() };
        let m = memoryless_items(&row("SMU", s3.clone(), &["4", "0"], Some("1 3")), None);
        assert_eq!(m, vec![smu_best(3), smu_best(2)]);
        // CS: only the recall probes, in order; spatial then visual.
        let m = memoryless_items(&row("CS", Conditions::default(), &["0", "5", "13"], Some("- 1 2")), None);
        assert_eq!(m, vec![3.0 / 16.0, CS_VISUAL]);
        // The run's parameters: with 2 updates, box 1 of 3 moves once and box 3 not at all.
        let mut spec = TaskSpec::new(TaskId::Smu);
        spec.set("updates", "2").unwrap();
        let m = memoryless_items(&row("SMU", s3, &["4", "4"], Some("1 3")), Some(&spec));
        assert_eq!(m, vec![smu_best(1), 1.0 / 9.0]);
        // A spec of another task, or a row of no WorM task: none.
        assert!(memoryless_items(&row("VSR", l3.clone(), &["1"], None), Some(&spec)).is_empty());
        assert!(memoryless_items(&row("nback", l3, &["m"], None), None).is_empty());
    }
}
