//! One module per WorM task. Each has `XParams` (reference defaults via `Default`), `grid(&XParams)` (the
//! condition cells) and `generate(&XParams, &mut TrialCtx) -> (Vec<Step>, Conditions)`. Rules follow
//! `shared/spec/reference-implementations.md` §1.2; where the reference code departs from the paper, the
//! paper is the default and the code's behaviour is a named option.

pub mod cd;
pub mod cs;
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
        (Response::Choice { n }, _) => (0..*n as usize).map(vsr::slot_area).collect(),
        (Response::None | Response::Binary { .. }, _) => vec![],
    }
}

/// A square binary matrix pattern (VIR, VSR, VSRec, CS visual storage): `cells[i]` is filled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    pub g: usize,
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
