//! SFR, Spatial Free Recall (reference §1.2 "SFR").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Step, TrialCtx};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SfrParams {
    pub grid: u8,
    pub visible: u8,
    pub list_lengths: Vec<u8>,
}
impl Default for SfrParams {
    fn default() -> Self {
        SfrParams { grid: 10, visible: 30, list_lengths: vec![1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 18] }
    }
}
pub fn grid(p: &SfrParams) -> Vec<Conditions> {
    p.list_lengths.iter().map(|&l| Conditions { list_length: Some(l), ..Default::default() }).collect()
}
pub fn generate(_p: &SfrParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!()
}
