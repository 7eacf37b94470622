//! VIR, Visual Item Recognition (reference §1.2 "VIR").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Step, TrialCtx};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VirParams {
    pub grid: u8,
    pub filled: u8,
    pub list_lengths: Vec<u8>,
    pub pattern_difference: u8,
    pub retentions: Vec<u8>,
}
impl Default for VirParams {
    fn default() -> Self {
        VirParams { grid: 6, filled: 18, list_lengths: vec![4, 6, 8, 10], pattern_difference: 4, retentions: vec![0, 2, 4, 5, 6] }
    }
}
pub fn grid(p: &VirParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &l in &p.list_lengths {
        for &r in &p.retentions {
            v.push(Conditions { list_length: Some(l), retention: Some(r), pattern_difference: Some(p.pattern_difference), ..Default::default() });
        }
    }
    v
}
pub fn generate(_p: &VirParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!()
}
