//! CD, Change Detection in five feature conditions (reference §1.2 "CD").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Feature, Step, TaskId, TrialCtx};

/// Which feature may change: one of the four, or any of them (conjunction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CdCondition {
    Color,
    Orientation,
    Size,
    Gap,
    Conjunction,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CdParams {
    pub condition: CdCondition,
    pub set_sizes: Vec<u8>,
    pub retentions: Vec<u8>,
}
impl CdParams {
    pub fn for_task(id: TaskId) -> Self {
        let condition = match id {
            TaskId::CdColor => CdCondition::Color,
            TaskId::CdOrientation => CdCondition::Orientation,
            TaskId::CdSize => CdCondition::Size,
            TaskId::CdGap => CdCondition::Gap,
            _ => CdCondition::Conjunction,
        };
        CdParams { condition, set_sizes: vec![2, 4, 6, 8, 10, 12], retentions: vec![0, 6, 12, 18] }
    }
}
pub fn grid(p: &CdParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &r in &p.retentions {
        for &s in &p.set_sizes {
            v.push(Conditions { set_size: Some(s), retention: Some(r), ..Default::default() });
        }
    }
    v
}
pub fn generate(_p: &CdParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let _ = Feature::Color;
    unimplemented!()
}
