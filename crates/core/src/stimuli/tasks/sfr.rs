//! SFR, Spatial Free Recall (reference §1.2 "SFR").
use serde::{Deserialize, Serialize};

use crate::display::{Area, Frame, palette, rect};
use crate::task::{Conditions, Phase, Response, Step, Target, TrialCtx};

/// Parameters of SFR (reference defaults via `Default`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SfrParams {
    /// Cells per side of the board (reference 10; 2 to 30), drawn with padding 3 and cell `90 / grid`.
    pub grid: u8,
    /// Cells drawn on every memory frame of a trial (reference 30), chosen at random per trial.
    pub visible: u8,
    /// L, the visible cells highlighted red one per frame and recalled as a set, one condition per entry
    /// (reference 1–8, 10, 12, 15, 18); each at most `visible`.
    pub list_lengths: Vec<u8>,
}
impl Default for SfrParams {
    fn default() -> Self {
        SfrParams { grid: 10, visible: 30, list_lengths: vec![1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 18] }
    }
}
/// Whether trials can be drawn: a board of 2 to 30 cells a side (3 px a cell or more), `visible` cells on
/// it, and every list 1 to `visible` long (the recalled cells are among the visible ones).
pub(crate) fn check(p: &SfrParams) -> Result<(), String> {
    if !(2..=30).contains(&p.grid) {
        return Err("the board must be 2 to 30 cells a side".into());
    }
    let n = p.grid as usize * p.grid as usize;
    if p.visible == 0 || p.visible as usize > n {
        return Err(format!("visible must be 1 to {n} (the cells of a {0}×{0} board)", p.grid));
    }
    if let Some(l) = p.list_lengths.iter().find(|&&l| l == 0 || l > p.visible) {
        return Err(format!("a list of {l}: every list length must be 1 to the {} visible cells", p.visible));
    }
    Ok(())
}

/// The condition cells: one per list length.
pub fn grid(p: &SfrParams) -> Vec<Conditions> {
    p.list_lengths.iter().map(|&l| Conditions { list_length: Some(l), ..Default::default() }).collect()
}
/// Top-left corner of cell `i` on the board (padding 3, cell 9 at the default 10×10).
pub fn cell_origin(p: &SfrParams, i: usize) -> (f32, f32) {
    let a = cell_area(p.grid as usize, i);
    (a.x, a.y)
}

/// Cell `i` of a `g × g` board: what a person clicks to recall it (the probe's `MultiSelect { n: g² }`).
pub fn cell_area(g: usize, i: usize) -> Area {
    let g = g.max(1);
    let cell = (90 / g) as f32;
    Area::new(3.0 + cell * (i % g) as f32, 3.0 + cell * (i / g) as f32, cell, cell)
}

/// The board with the visible cells green and `highlight` red (gray outlines of width 2).
pub fn board(p: &SfrParams, visible: &[usize], highlight: Option<usize>) -> Frame {
    let cell = (90 / p.grid as usize) as f32;
    let mut f = Frame::blank();
    for &i in visible {
        let (x, y) = cell_origin(p, i);
        let fill = if Some(i) == highlight { palette::RED } else { palette::GREEN };
        f.push(rect(x, y, x + cell, y + cell, Some(fill), Some(palette::GRAY), 2.0));
    }
    f
}

/// One SFR trial: L boards each with a different recalled cell red (Present), then a blank probe answered
/// by picking L of the `grid²` cells; the target is the set of recalled cells, in any order.
pub fn generate(p: &SfrParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let l = ctx.cell.list_length.expect("SFR cell has a list length") as usize;
    let n = p.grid as usize * p.grid as usize;
    let visible = ctx.rng.sample(n, p.visible as usize);
    let recall = ctx.rng.sample_from(&visible, l);
    let mut steps: Vec<Step> =
        recall.iter().map(|&c| Step::show(board(p, &visible, Some(c)), Phase::Present)).collect();
    let mut set: Vec<u16> = recall.iter().map(|&c| c as u16).collect();
    set.sort_unstable();
    steps.push(Step::ask(
        Frame::blank(),
        Phase::Probe,
        Target::Set(set),
        Response::MultiSelect { n: n as u16, picks: l as u16 },
    ));
    (steps, ctx.cell.clone())
}

#[cfg(test)]
mod tests {
    use crate::display::{Shape, palette};
    use crate::task::{Target, TaskId};
    use crate::tasks::testutil::trials;

    fn red_cells(f: &crate::display::Frame) -> Vec<(u32, u32)> {
        f.shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Rect { x0, y0, fill: Some(c), .. } if *c == palette::RED => Some((*x0 as u32, *y0 as u32)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn multi_hot_has_exactly_l_ones_matching_the_red_cells() {
        for t in trials(TaskId::Sfr, 120) {
            let l = t.conditions.list_length.unwrap() as usize;
            assert_eq!(t.len(), l + 1);
            let Target::Set(set) = &t.steps[l].target else { panic!("SFR probe needs a set") };
            assert_eq!(set.len(), l, "multi-hot must have exactly L ones");
            let mut shown: Vec<u16> = Vec::new();
            for s in &t.steps[..l] {
                assert!(!s.scored);
                assert_eq!(s.frame.shapes.len(), 30, "30 visible cells");
                let red = red_cells(&s.frame);
                assert_eq!(red.len(), 1, "exactly one red cell per memory frame");
                let (x, y) = red[0];
                shown.push((((y - 3) / 9) * 10 + (x - 3) / 9) as u16);
            }
            shown.sort_unstable();
            assert_eq!(&shown, set);
            assert!(t.steps[l].scored && t.steps[l].frame.shapes.is_empty());
        }
    }
}
