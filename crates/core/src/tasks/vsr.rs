//! VSR, Visual Serial Recall, and VSRec, Visual Serial Recognition (reference §1.2 "VSR", "VSRec").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Step, TrialCtx};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VsrParams {
    pub grid: u8,
    pub filled: u8,
    pub list_lengths: Vec<u8>,
}
impl Default for VsrParams {
    fn default() -> Self {
        VsrParams { grid: 6, filled: 18, list_lengths: (2..=9).collect() }
    }
}
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VsRecParams {
    pub grid: u8,
    pub filled: u8,
    pub list_lengths: Vec<u8>,
    pub pattern_differences: Vec<u8>,
}
impl Default for VsRecParams {
    fn default() -> Self {
        VsRecParams { grid: 6, filled: 18, list_lengths: (2..=9).collect(), pattern_differences: vec![2, 4, 6, 8, 10] }
    }
}
pub fn grid_vsr(p: &VsrParams) -> Vec<Conditions> {
    p.list_lengths.iter().map(|&l| Conditions { list_length: Some(l), ..Default::default() }).collect()
}
pub fn grid_vsrec(p: &VsRecParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &l in &p.list_lengths {
        for &d in &p.pattern_differences {
            v.push(Conditions { list_length: Some(l), pattern_difference: Some(d), ..Default::default() });
        }
    }
    v
}
pub fn generate_vsr(_p: &VsrParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!()
}
pub fn generate_vsrec(_p: &VsRecParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!()
}
