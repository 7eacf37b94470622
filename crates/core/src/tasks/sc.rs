//! SC, Spatial Coordination (reference §1.2 "SC").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Step, TrialCtx};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScParams {
    pub grid: u8,
    pub list_lengths: Vec<u8>,
    pub symmetry_offsets: Vec<u8>,
}
impl Default for ScParams {
    fn default() -> Self {
        ScParams { grid: 10, list_lengths: vec![10, 12, 14, 16, 18], symmetry_offsets: vec![2, 4, 6, 8] }
    }
}
/// Cells: list length × offset; the balanced bit makes half of each cell's trials symmetric.
pub fn grid(p: &ScParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &l in &p.list_lengths {
        for &o in &p.symmetry_offsets {
            v.push(Conditions { list_length: Some(l), symmetry_offset: Some(o), ..Default::default() });
        }
    }
    v
}
pub fn generate(_p: &ScParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!()
}
