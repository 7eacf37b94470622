//! STS, Spatial Task Switching (reference §1.2 "STS", variant "Cued").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Step, TrialCtx};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StsParams {
    /// Frames per trial.
    pub length: u8,
    /// Chance, in percent, that a switch cue is inserted before a task frame.
    pub switch_percent: u8,
    /// Reference-code behaviour: cue steps are scored as class 2. The paper scores only task frames
    /// (default false).
    pub score_cue_steps: bool,
}

impl Default for StsParams {
    fn default() -> Self {
        StsParams { length: 20, switch_percent: 20, score_cue_steps: false }
    }
}

pub fn grid(_p: &StsParams) -> Vec<Conditions> {
    vec![Conditions::default()]
}

pub fn generate(_p: &StsParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!("STS generator")
}
