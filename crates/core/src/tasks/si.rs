//! SI, Spatial Integration (reference §1.2 "SI").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Step, TrialCtx};

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
        SiParams { lattice: 4, segments: 12, part_sizes: vec![1, 2, 3, 4, 6, 12], distractor_differences: vec![1, 2, 3, 4] }
    }
}

pub fn grid(p: &SiParams) -> Vec<Conditions> {
    p.part_sizes
        .iter()
        .map(|&k| Conditions { part_size: Some(k), list_length: Some(p.segments / k), ..Default::default() })
        .collect()
}

pub fn generate(_p: &SiParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!("SI generator")
}
