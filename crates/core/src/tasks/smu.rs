//! SMU, Spatial Memory Updating (reference §1.2 "SMU").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Step, TrialCtx};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SmuParams {
    pub set_sizes: Vec<u8>,
    pub updates: u8,
}

impl Default for SmuParams {
    fn default() -> Self {
        SmuParams { set_sizes: (1..=8).collect(), updates: 8 }
    }
}

pub fn grid(p: &SmuParams) -> Vec<Conditions> {
    p.set_sizes.iter().map(|&s| Conditions { set_size: Some(s), ..Default::default() }).collect()
}

pub fn generate(_p: &SmuParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!("SMU generator")
}
