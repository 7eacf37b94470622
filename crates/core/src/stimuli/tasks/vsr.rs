//! VSR, Visual Serial Recall, and VSRec, Visual Serial Recognition (reference §1.2 "VSR", "VSRec").
use serde::{Deserialize, Serialize};

use crate::display::{Area, Frame, line, palette};
use crate::task::{Conditions, Phase, Response, Step, Target, TrialCtx, binary};
use crate::tasks::vir::{item_frame, lure_not_studied};
use crate::tasks::{Pattern, distinct_patterns, side_by_side};

/// Parameters of VSR (reference defaults via `Default`); the condition grid is one cell per list length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VsrParams {
    /// Cells per side of each pattern (reference 6; 2 to 7).
    pub grid: u8,
    /// Green cells of each pattern (reference 18, half of the 6×6 grid).
    pub filled: u8,
    /// L, the patterns studied one per frame, one condition per entry (reference 2–9; at most 9, the probe's
    /// slots).
    pub list_lengths: Vec<u8>,
}
impl Default for VsrParams {
    fn default() -> Self {
        VsrParams { grid: 6, filled: 18, list_lengths: (2..=9).collect() }
    }
}
/// Parameters of VSRec (reference defaults via `Default`); the condition grid is list length × pattern
/// difference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VsRecParams {
    /// Cells per side of each pattern (reference 6; 2 to 7).
    pub grid: u8,
    /// Green cells of each pattern (reference 18, half of the 6×6 grid).
    pub filled: u8,
    /// L, the patterns studied one per frame and then probed in order, one condition per entry (reference 2–9).
    pub list_lengths: Vec<u8>,
    /// Cells in which each probe's lure differs from its studied pattern, one condition per entry (reference
    /// 2, 4, 6, 8, 10); each even, at least 2.
    pub pattern_differences: Vec<u8>,
}
impl Default for VsRecParams {
    fn default() -> Self {
        VsRecParams { grid: 6, filled: 18, list_lengths: (2..=9).collect(), pattern_differences: vec![2, 4, 6, 8, 10] }
    }
}
/// The VSR condition cells: one per list length.
pub fn grid_vsr(p: &VsrParams) -> Vec<Conditions> {
    p.list_lengths.iter().map(|&l| Conditions { list_length: Some(l), ..Default::default() }).collect()
}
/// The VSRec condition cells: one per list length × pattern difference (differences vary fastest).
pub fn grid_vsrec(p: &VsRecParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &l in &p.list_lengths {
        for &d in &p.pattern_differences {
            v.push(Conditions { list_length: Some(l), pattern_difference: Some(d), ..Default::default() });
        }
    }
    v
}
/// The VSR probe: a 3×3 layout (black lines at 32 and 64), item `i` drawn in slot `slots[i]` with cell 4
/// at `(col*32 + 2, row*32 + 2)`; empty slots stay blank.
pub fn probe_frame(items: &[Pattern], slots: &[usize]) -> Frame {
    let mut f = Frame::blank();
    for k in [32.0, 64.0] {
        f.push(line(k, 0.0, k, 95.0, palette::BLACK, 1.0));
        f.push(line(0.0, k, 95.0, k, palette::BLACK, 1.0));
    }
    for (item, &slot) in items.iter().zip(slots) {
        let (col, row) = ((slot % 3) as f32, (slot / 3) as f32);
        item.draw(&mut f.shapes, col * 32.0 + 2.0, row * 32.0 + 2.0, 4.0, 0.0, palette::GREEN);
    }
    f
}

/// Slot `slot` of the 3×3 probe layout: what a person clicks to place an item there.
pub fn slot_area(slot: usize) -> Area {
    Area::new((slot % 3) as f32 * 32.0, (slot / 3) as f32 * 32.0, 32.0, 32.0)
}

/// One VSR trial: L distinct patterns (Present), then the same 3×3 probe of all of them in random slots L
/// times; probe `i` (Probe, serial position `i`) is answered with the slot (0–8) of the `i`-th pattern.
pub fn generate_vsr(p: &VsrParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let l = ctx.cell.list_length.expect("VSR cell has a list length") as usize;
    let items = distinct_patterns(ctx.rng, l, p.grid as usize, p.filled as usize);
    let slots = ctx.rng.sample(9, l);
    let mut steps: Vec<Step> =
        items.iter().map(|it| Step::show(item_frame(it, palette::GREEN), Phase::Present)).collect();
    let probe = probe_frame(&items, &slots);
    for (i, &slot) in slots.iter().enumerate() {
        steps.push(
            Step::ask(probe.clone(), Phase::Probe, Target::Class(slot as u16), Response::Choice { n: 9 })
                .at_position(i + 1),
        );
    }
    (steps, ctx.cell.clone())
}

/// One VSRec trial: L distinct patterns (Present), then one probe per pattern in study order: the pattern
/// beside its own lure on a random side, answered with the studied one's side (0 = left, 1 = right).
pub fn generate_vsrec(p: &VsRecParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let l = ctx.cell.list_length.expect("VSRec cell has a list length") as usize;
    let dd = ctx.cell.pattern_difference.expect("VSRec cell has a pattern difference") as usize;
    let items = distinct_patterns(ctx.rng, l, p.grid as usize, p.filled as usize);
    let mut steps: Vec<Step> =
        items.iter().map(|it| Step::show(item_frame(it, palette::GREEN), Phase::Present)).collect();
    for (i, item) in items.iter().enumerate() {
        let lure = lure_not_studied(ctx.rng, item, dd, &items);
        let side = ctx.rng.coin() as u16;
        let (left, right) = if side == 1 { (&lure, item) } else { (item, &lure) };
        steps.push(
            Step::ask(
                Frame::gray(side_by_side(left, right, palette::GREEN)),
                Phase::Probe,
                Target::Class(side),
                binary(["left", "right"]),
            )
            .at_position(i + 1),
        );
    }
    (steps, ctx.cell.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::TaskId;
    use crate::tasks::testutil::trials;
    use crate::tasks::vir::tests::patterns_in;

    #[test]
    fn vsr_probe_holds_all_items_at_distinct_slots_and_targets_follow_order() {
        for t in trials(TaskId::Vsr, 80) {
            let l = t.conditions.list_length.unwrap() as usize;
            assert_eq!(t.len(), 2 * l);
            let studied: Vec<Pattern> =
                t.steps[..l].iter().map(|s| patterns_in(&s.frame, 6, palette::GREEN).remove(0)).collect();
            let probe = &t.steps[l].frame;
            assert!(t.steps[l..].iter().all(|s| &s.frame == probe), "the probe repeats L times");
            let shown = patterns_in(probe, 6, palette::GREEN);
            assert_eq!(shown.len(), l, "the probe holds all L patterns");
            let mut slots = Vec::new();
            for (i, s) in t.steps[l..].iter().enumerate() {
                let Target::Class(slot) = s.target else { panic!() };
                assert!(slot < 9);
                slots.push(slot);
                assert_eq!(s.serial_position, Some(i as u8 + 1));
                // pattern drawn i-th (items are drawn in study order) sits in the target slot
                assert_eq!(shown[i], studied[i]);
            }
            let mut u = slots.clone();
            u.sort_unstable();
            u.dedup();
            assert_eq!(u.len(), l, "distinct positions of the 9");
            // the i-th drawn mini-grid's first cell is at the slot's origin
            let firsts: Vec<(f32, f32)> = probe
                .shapes
                .iter()
                .filter_map(|s| match s {
                    crate::display::Shape::Rect { x0, y0, .. } => Some((*x0, *y0)),
                    _ => None,
                })
                .step_by(36)
                .collect();
            for (i, &slot) in slots.iter().enumerate() {
                let slot = slot as f32;
                assert_eq!(firsts[i], ((slot % 3.0).floor() * 32.0 + 2.0, (slot / 3.0).floor() * 32.0 + 2.0));
            }
        }
    }

    #[test]
    fn vsrec_lures_differ_by_dd_and_are_not_studied() {
        let mut sides = [0usize; 2];
        for t in trials(TaskId::VsRec, 120) {
            let l = t.conditions.list_length.unwrap() as usize;
            let dd = t.conditions.pattern_difference.unwrap() as usize;
            assert_eq!(t.len(), 2 * l);
            let studied: Vec<Pattern> =
                t.steps[..l].iter().map(|s| patterns_in(&s.frame, 6, palette::GREEN).remove(0)).collect();
            for (i, s) in t.steps[l..].iter().enumerate() {
                let pair = patterns_in(&s.frame, 6, palette::GREEN);
                let Target::Class(side) = s.target else { panic!() };
                sides[side as usize] += 1;
                assert_eq!(pair[side as usize], studied[i], "probe i tests item i");
                let lure = &pair[1 - side as usize];
                assert_eq!(lure.difference(&studied[i]), dd);
                assert!(!studied.contains(lure));
            }
        }
        assert!(sides[0] > 200 && sides[1] > 200, "{sides:?}");
    }
}
