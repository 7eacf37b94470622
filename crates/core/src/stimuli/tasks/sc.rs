//! SC, Spatial Coordination (reference §1.2 "SC").
use serde::{Deserialize, Serialize};

use crate::display::{Frame, grid_cells, palette};
use crate::task::{Conditions, Phase, Step, Target, TrialCtx, binary};

/// Parameters of SC (reference defaults via `Default`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScParams {
    /// Cells per side of the square board (reference 10); the left half is columns `0..grid/2`.
    pub grid: u8,
    /// L, the cells shown one per frame, one condition per entry (reference 10–18 in steps of 2): L/2 on the
    /// left and their mirrors.
    pub list_lengths: Vec<u8>,
    /// Cells an asymmetric pattern moves off its mirror positions (offset/2 removed, offset/2 added), one condition
    /// per entry (reference 2, 4, 6, 8); each at most the shortest list length.
    pub symmetry_offsets: Vec<u8>,
}
impl Default for ScParams {
    fn default() -> Self {
        ScParams { grid: 10, list_lengths: vec![10, 12, 14, 16, 18], symmetry_offsets: vec![2, 4, 6, 8] }
    }
}
/// Whether trials can be drawn: SC draws L/2 cells on the left and mirrors them, and an asymmetric pattern
/// moves offset/2 of the mirrors, so every offset must fit every list length, and the left half holds
/// G²/2 cells.
pub(crate) fn check(p: &ScParams) -> Result<(), String> {
    let (g, least) = (p.grid as usize, p.list_lengths.iter().copied().min().unwrap_or(0) as usize);
    let most = p.list_lengths.iter().copied().max().unwrap_or(0) as usize;
    if p.symmetry_offsets.iter().any(|&o| o as usize / 2 > least / 2) || most / 2 > g * (g / 2) || g < 2 {
        return Err(format!(
            "every symmetry offset must be at most the shortest list length ({least}), and a list at most the \
             grid's cell count"
        ));
    }
    Ok(())
}

/// The condition cells: one per list length × symmetry offset (offsets vary fastest); the balanced bit makes
/// half of each cell's trials symmetric.
pub fn grid(p: &ScParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &l in &p.list_lengths {
        for &o in &p.symmetry_offsets {
            v.push(Conditions { list_length: Some(l), symmetry_offset: Some(o), ..Default::default() });
        }
    }
    v
}
/// Column mirror of a cell about the vertical axis (`idx + (G - 2*(idx % G)) - 1`).
pub fn mirror(g: usize, i: usize) -> usize {
    let (row, col) = (i / g, i % g);
    row * g + (g - 1 - col)
}

/// Whether a set of cells is mirror-symmetric about the vertical axis.
pub fn is_symmetric(g: usize, cells: &[usize]) -> bool {
    cells.iter().all(|&c| cells.contains(&mirror(g, c)))
}

/// The L cells of a trial, in presentation order, and whether they form a symmetric pattern.
///
/// The reference draws the left cells with replacement, so a duplicate can leave an "asymmetric" trial
/// symmetric after its mirrors are removed; here left cells are distinct, so the label always matches
/// the pattern (the paper's intent). An asymmetric pattern removes `offset/2` mirrors and adds `offset/2`
/// right-half cells that mirror no left cell.
pub fn cells(g: usize, l: usize, offset: usize, symmetric: bool, rng: &mut crate::rng::Rng) -> Vec<usize> {
    let half = g / 2;
    let left_half: Vec<usize> = (0..g * g).filter(|i| i % g < half).collect();
    let left = rng.sample_from(&left_half, l / 2);
    let mut mirrors: Vec<usize> = left.iter().map(|&c| mirror(g, c)).collect();
    if !symmetric {
        let k = offset / 2;
        for _ in 0..k {
            let j = rng.index(mirrors.len());
            mirrors.remove(j);
        }
        let free: Vec<usize> =
            (0..g * g).filter(|&i| i % g >= half && !left.iter().any(|&c| mirror(g, c) == i)).collect();
        mirrors.extend(rng.sample_from(&free, k));
    }
    let mut all = left;
    all.extend(mirrors);
    rng.shuffle(&mut all);
    all
}

/// A memory frame: the whole `g`×`g` board (padding 3, cell `90 / g`, radius 2, black outlines), white
/// except cell `highlight` in green.
pub fn board(g: usize, highlight: usize) -> Frame {
    let mut f = Frame::blank();
    let cell = (90 / g) as f32;
    grid_cells(&mut f.shapes, 3.0, 3.0, g, cell, 2.0, Some(palette::BLACK), 1.0, |i| {
        Some(if i == highlight { palette::GREEN } else { palette::WHITE })
    });
    f
}

/// One SC trial: the L cells shown one per board frame (Present), then a blank probe answered
/// symmetric/not (class 1 = symmetric). The conditions record offset 0 for symmetric trials.
pub fn generate(p: &ScParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let g = p.grid as usize;
    let l = ctx.cell.list_length.expect("SC cell has a list length") as usize;
    let offset = ctx.cell.symmetry_offset.unwrap_or(2) as usize;
    let symmetric = ctx.flip;
    let order = cells(g, l, offset, symmetric, ctx.rng);
    let mut steps: Vec<Step> = order.iter().map(|&c| Step::show(board(g, c), Phase::Present)).collect();
    steps.push(Step::ask(
        Frame::blank(),
        Phase::Probe,
        Target::Class(symmetric as u16),
        binary(["not symmetric", "symmetric"]),
    ));
    let conditions = Conditions { symmetry_offset: Some(if symmetric { 0 } else { offset as u8 }), ..ctx.cell.clone() };
    (steps, conditions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::Shape;
    use crate::task::TaskId;
    use crate::tasks::testutil::trials;

    #[test]
    fn label_is_true_exactly_when_the_integrated_pattern_is_symmetric() {
        let mut sym = 0;
        let all = trials(TaskId::Sc, 200);
        for t in &all {
            let l = t.conditions.list_length.unwrap() as usize;
            assert_eq!(t.len(), l + 1);
            let shown: Vec<usize> = t.steps[..l]
                .iter()
                .map(|s| {
                    let greens: Vec<usize> = s
                        .frame
                        .shapes
                        .iter()
                        .enumerate()
                        .filter(|(_, sh)| matches!(sh, Shape::RoundRect { fill: Some(c), .. } if *c == palette::GREEN))
                        .map(|(i, _)| i)
                        .collect();
                    assert_eq!(greens.len(), 1, "one highlighted cell per frame");
                    greens[0]
                })
                .collect();
            let mut u = shown.clone();
            u.sort_unstable();
            u.dedup();
            assert_eq!(u.len(), l, "cells are distinct");
            let symmetric = is_symmetric(10, &shown);
            assert_eq!(t.steps[l].target, Target::Class(symmetric as u16));
            assert_eq!(t.conditions.symmetry_offset == Some(0), symmetric);
            sym += symmetric as usize;
        }
        assert_eq!(sym * 2, all.len(), "labels balanced");
    }

    #[test]
    fn mirror_flips_columns() {
        assert_eq!(mirror(10, 0), 9);
        assert_eq!(mirror(10, 13), 16);
        assert_eq!(mirror(10, 99), 90);
    }
}
