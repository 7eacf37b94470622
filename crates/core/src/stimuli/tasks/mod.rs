//! One module per WorM task. Each has `XParams` (reference defaults via `Default`), `grid(&XParams)` (the
//! condition cells) and `generate(&XParams, &mut TrialCtx) -> (Vec<Step>, Conditions)`. Rules follow
//! `shared/spec/reference-implementations.md` §1.2; where the reference code departs from the paper, the
//! paper is the default and the code's behaviour is a named option. `nback` holds N-back's blocks, the
//! one generator people and language models take them from.

pub mod cd;
pub mod cs;
pub mod lsr;
pub mod nback;
pub mod sc;
pub mod sfr;
pub mod si;
pub mod smu;
pub mod sts;
pub mod vir;
pub mod vsr;

use crate::display::{Area, Rgb, Shape, grid_cells, palette};
use crate::rng::Rng;
use crate::task::{Conditions, Response, Step, TaskId};

/// Where a person clicks to answer `step` of a trial of `id` with `conditions` (the trial's, as
/// generated): one area per class of a `Choice`, one per cell of a `MultiSelect`, in class order.
/// Binary steps are answered with keys or buttons, not in the picture: none. Each task declares its own
/// layout here, from the constants that draw it.
pub fn answer_areas(id: TaskId, conditions: &Conditions, step: &Step) -> Vec<Area> {
    match (&step.response, id) {
        (Response::MultiSelect { n, .. }, _) => {
            let g = (*n as f64).sqrt().round() as usize;
            (0..*n as usize).map(|i| sfr::cell_area(g, i)).collect()
        }
        (Response::Choice { .. }, TaskId::Smu) => {
            let s = conditions.set_size.unwrap_or(1) as usize;
            smu::marker_areas(s, step.serial_position.unwrap_or(1).saturating_sub(1) as usize)
        }
        (Response::Choice { n }, TaskId::Cs) => (0..*n as usize).map(cs::option_area).collect(),
        (Response::Choice { n }, TaskId::Lsr) => (0..*n as usize).map(|k| lsr::slot_area(*n as usize, k)).collect(),
        (Response::Choice { n }, _) => (0..*n as usize).map(vsr::slot_area).collect(),
        (Response::None | Response::Binary { .. }, _) => vec![],
    }
}

/// A square binary matrix pattern (VIR, VSR, VSRec, CS visual storage): `cells[i]` is filled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// Cells per side of the grid: the task's `grid` for VIR, VSR and VSRec (6 by default), 4 for CS visual storage.
    pub g: usize,
    /// Row-major fill flags, `g * g` of them: `cells[row * g + col]`.
    pub cells: Vec<bool>,
}

impl Pattern {
    /// `filled` distinct random cells of a `g × g` grid (`random.sample(range(g*g), filled)`).
    pub fn random(rng: &mut Rng, g: usize, filled: usize) -> Pattern {
        let mut cells = vec![false; g * g];
        for i in rng.sample(g * g, filled) {
            cells[i] = true;
        }
        Pattern { g, cells }
    }
    /// How many cells are filled (for a generated pattern, the `filled` it was drawn with).
    pub fn filled(&self) -> usize {
        self.cells.iter().filter(|&&c| c).count()
    }
    /// Number of cells in which two patterns differ.
    pub fn difference(&self, other: &Pattern) -> usize {
        self.cells.iter().zip(&other.cells).filter(|(a, b)| a != b).count()
    }
    /// A lure that differs in exactly `diff` cells with the same number filled: `diff/2` filled cells
    /// become empty and `diff/2` empty cells become filled.
    pub fn lure(&self, rng: &mut Rng, diff: usize) -> Pattern {
        let on: Vec<usize> = (0..self.cells.len()).filter(|&i| self.cells[i]).collect();
        let off: Vec<usize> = (0..self.cells.len()).filter(|&i| !self.cells[i]).collect();
        let k = diff / 2;
        let mut cells = self.cells.clone();
        for i in rng.sample_from(&on, k) {
            cells[i] = false;
        }
        for i in rng.sample_from(&off, k) {
            cells[i] = true;
        }
        Pattern { g: self.g, cells }
    }
    /// Draw as a grid of cells at `(x, y)`: filled cells in `color`, the others white, black outlines.
    pub fn draw(&self, out: &mut Vec<Shape>, x: f32, y: f32, cell: f32, radius: f32, color: Rgb) {
        grid_cells(out, x, y, self.g, cell, radius, Some(palette::BLACK), 1.0, |i| {
            Some(if self.cells[i] { color } else { palette::WHITE })
        });
    }
}

/// Draw `count` distinct patterns (no two identical).
pub fn distinct_patterns(rng: &mut Rng, count: usize, g: usize, filled: usize) -> Vec<Pattern> {
    let mut out: Vec<Pattern> = Vec::with_capacity(count);
    while out.len() < count {
        let p = Pattern::random(rng, g, filled);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// `n` choose `k` as a float (no overflow; only compared with small counts).
fn choose(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Whether the pattern tasks (VIR, VSR, VSRec) can build trials from a `g`×`g` grid with `filled` cells,
/// lists of `lists` and lures differing in `diffs` cells: the grid fits the probes (2 to 7: two grids side
/// by side, or nine in the VSR layout, at their fixed cell sizes), a list has 1 pattern or more and there
/// are enough distinct patterns for the longest list and a lure, and each difference is even (a lure moves
/// `d/2` filled cells), at least 2 (else the lure is the studied pattern) and leaves enough lures
/// (C(F, d/2)·C(G²−F, d/2) of them). Otherwise drawing would loop forever or fail.
pub(crate) fn check_patterns(g: u8, filled: u8, lists: &[u8], diffs: &[u8]) -> Result<(), String> {
    if !(2..=7).contains(&g) {
        return Err("the grid must be 2 to 7 cells a side (the probes draw it at a fixed cell size)".into());
    }
    let n = g as usize * g as usize;
    let f = filled as usize;
    if f == 0 || f >= n {
        return Err(format!("the filled cells must be 1 to {} on a {g}×{g} grid", n - 1));
    }
    let longest = lists.iter().copied().max().unwrap_or(0) as usize;
    if lists.contains(&0) {
        return Err("a list holds 1 pattern or more".into());
    }
    if choose(n, f) < (longest + 1) as f64 {
        return Err(format!("a {g}×{g} grid with {f} filled cells has too few patterns for a list of {longest}"));
    }
    for &d in diffs {
        let k = d as usize / 2;
        if d < 2 || d % 2 == 1 || choose(f, k) * choose(n - f, k) < longest as f64 {
            return Err(format!(
                "a pattern difference of {d} must be even, at least 2 and at most {} (twice the filled or the empty \
                 cells, whichever is fewer)",
                2 * f.min(n - f)
            ));
        }
    }
    Ok(())
}

/// The two-alternative probe of VIR and VSRec: two 6×6 grids (cell 6, radius 1) at x = 4 and x = 52,
/// y = 28, with a black separator at x = 46 from y = 20 to 76.
pub fn side_by_side(left: &Pattern, right: &Pattern, color: Rgb) -> Vec<Shape> {
    let mut s = Vec::new();
    left.draw(&mut s, 4.0, 28.0, 6.0, 1.0, color);
    right.draw(&mut s, 52.0, 28.0, 6.0, 1.0, color);
    s.push(crate::display::line(46.0, 20.0, 46.0, 76.0, palette::BLACK, 1.0));
    s
}

#[cfg(test)]
pub(crate) mod testutil {
    use crate::rng::Split;
    use crate::task::{TaskId, TaskSpec, Trial};

    /// `n` trials of a task from the test split.
    pub fn trials(id: TaskId, n: u64) -> Vec<Trial> {
        let spec = TaskSpec::new(id);
        (0..n).map(|i| spec.trial(42, Split::Test, i)).collect()
    }
}
