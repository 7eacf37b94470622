//! VIR, Visual Item Recognition (reference §1.2 "VIR").
use serde::{Deserialize, Serialize};

use crate::display::{Frame, palette};
use crate::task::{Conditions, Phase, Step, Target, TrialCtx, binary};
use crate::tasks::{Pattern, distinct_patterns, side_by_side};

/// Parameters of VIR (reference defaults via `Default`); the condition grid is list length × retention.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VirParams {
    /// Cells per side of each pattern (reference 6; 2 to 7).
    pub grid: u8,
    /// Red cells of each pattern (reference 18, half of the 6×6 grid).
    pub filled: u8,
    /// L, the patterns studied one per frame, one condition per entry (reference 4, 6, 8, 10).
    pub list_lengths: Vec<u8>,
    /// Cells in which the probe's lure differs from the studied pattern (reference 4: two red cells moved);
    /// even, at least 2.
    pub pattern_difference: u8,
    /// Gray frames between the last pattern and the probe, one condition per entry (reference 0, 2, 4, 5, 6).
    pub retentions: Vec<u8>,
}
impl Default for VirParams {
    fn default() -> Self {
        VirParams {
            grid: 6,
            filled: 18,
            list_lengths: vec![4, 6, 8, 10],
            pattern_difference: 4,
            retentions: vec![0, 2, 4, 5, 6],
        }
    }
}
/// The condition cells: one per list length × retention (retentions vary fastest), each carrying the
/// pattern difference.
pub fn grid(p: &VirParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &l in &p.list_lengths {
        for &r in &p.retentions {
            v.push(Conditions {
                list_length: Some(l),
                retention: Some(r),
                pattern_difference: Some(p.pattern_difference),
                ..Default::default()
            });
        }
    }
    v
}
/// A memory frame: one 6×6 pattern, padding 9, cell 13, rounded corners of radius 3.
pub fn item_frame(item: &Pattern, color: crate::display::Rgb) -> Frame {
    let mut f = Frame::blank();
    let cell = (78 / item.g) as f32;
    item.draw(&mut f.shapes, 9.0, 9.0, cell, 3.0, color);
    f
}

/// A lure of `target` that differs in exactly `diff` cells and is none of `studied` (the paper's rule;
/// the reference code does not check the latter).
pub fn lure_not_studied(rng: &mut crate::rng::Rng, target: &Pattern, diff: usize, studied: &[Pattern]) -> Pattern {
    loop {
        let l = target.lure(rng, diff);
        if !studied.contains(&l) {
            return l;
        }
    }
}

/// One VIR trial: L distinct patterns (Present), `retention` gray frames, then a probe with one studied
/// pattern (position uniform) beside its lure, answered with the studied one's side (0 = left, 1 = right).
pub fn generate(p: &VirParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let l = ctx.cell.list_length.expect("VIR cell has a list length") as usize;
    let ri = ctx.cell.retention.unwrap_or(0) as usize;
    let dd = ctx.cell.pattern_difference.unwrap_or(p.pattern_difference) as usize;
    let items = distinct_patterns(ctx.rng, l, p.grid as usize, p.filled as usize);
    let probed = ctx.rng.index(l);
    let lure = lure_not_studied(ctx.rng, &items[probed], dd, &items);
    // the studied item's side is the answer: 0 = left, 1 = right (balanced within each condition cell)
    let side = ctx.flip as u16;
    let (left, right) = if side == 1 { (&lure, &items[probed]) } else { (&items[probed], &lure) };
    let mut steps: Vec<Step> =
        items.iter().map(|it| Step::show(item_frame(it, palette::RED), Phase::Present)).collect();
    steps.extend((0..ri).map(|_| Step::show(Frame::blank(), Phase::Retention)));
    steps.push(
        Step::ask(
            Frame::gray(side_by_side(left, right, palette::RED)),
            Phase::Probe,
            Target::Class(side),
            binary(["left", "right"]),
        )
        .at_position(probed + 1),
    );
    let conditions = Conditions { probed_position: Some(probed as u8 + 1), ..ctx.cell.clone() };
    (steps, conditions)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::display::Shape;
    use crate::task::TaskId;
    use crate::tasks::testutil::trials;

    /// Read the patterns back out of a frame's cells: groups of `g*g` consecutive cell shapes.
    pub(crate) fn patterns_in(f: &Frame, g: usize, color: crate::display::Rgb) -> Vec<Pattern> {
        let cells: Vec<bool> = f
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::RoundRect { fill: Some(c), .. } | Shape::Rect { fill: Some(c), .. } => Some(*c == color),
                _ => None,
            })
            .collect();
        cells.chunks(g * g).map(|c| Pattern { g, cells: c.to_vec() }).collect()
    }

    #[test]
    fn probe_holds_a_studied_item_and_a_lure_differing_by_dd() {
        let (mut right, mut total) = (0, 0);
        for t in trials(TaskId::Vir, 200) {
            let l = t.conditions.list_length.unwrap() as usize;
            let ri = t.conditions.retention.unwrap() as usize;
            assert_eq!(t.len(), l + ri + 1);
            let studied: Vec<Pattern> =
                t.steps[..l].iter().map(|s| patterns_in(&s.frame, 6, palette::RED).remove(0)).collect();
            for (i, a) in studied.iter().enumerate() {
                assert_eq!(a.filled(), 18);
                assert!(studied[i + 1..].iter().all(|b| b != a), "items are distinct");
            }
            let probe = t.steps.last().unwrap();
            let pair = patterns_in(&probe.frame, 6, palette::RED);
            assert_eq!(pair.len(), 2);
            let Target::Class(side) = probe.target else { panic!() };
            let (target, lure) = (&pair[side as usize], &pair[1 - side as usize]);
            let pos = t.conditions.probed_position.unwrap() as usize;
            assert_eq!(probe.serial_position, Some(pos as u8));
            assert_eq!(target, &studied[pos - 1], "the answer side shows the probed item");
            assert_eq!(target.difference(lure), 4, "lure differs by exactly the stated cells");
            assert_eq!(lure.filled(), 18);
            assert!(!studied.contains(lure), "lure is not a studied item");
            right += side as usize;
            total += 1;
        }
        assert_eq!(right * 2, total, "sides balanced");
    }
}
