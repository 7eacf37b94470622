//! CS, Complex Span (reference §1.2 "CS").
use serde::{Deserialize, Serialize};

use crate::task::{Conditions, Domain, Step, TrialCtx};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CsParams {
    /// Items stored per trial (reference `num_storage_options=[2]`).
    pub storage_items: u8,
    /// Distractors per 5-frame processing phase.
    pub distractor_counts: Vec<u8>,
    /// (storage, distractor) domain pairs.
    pub variations: Vec<(Domain, Domain)>,
    /// Reference-code behaviour: score every step, with class 20 = "no response" on memory frames, blanks
    /// and padding. The paper scores only the distractor and recall steps (default false).
    pub score_no_response_steps: bool,
}

impl Default for CsParams {
    fn default() -> Self {
        CsParams {
            storage_items: 2,
            distractor_counts: vec![0, 1, 3, 5],
            variations: vec![
                (Domain::Spatial, Domain::Spatial),
                (Domain::Spatial, Domain::Visual),
                (Domain::Visual, Domain::Spatial),
                (Domain::Visual, Domain::Visual),
            ],
            score_no_response_steps: false,
        }
    }
}

pub fn grid(p: &CsParams) -> Vec<Conditions> {
    let mut v = Vec::new();
    for &(storage, distractor) in &p.variations {
        for &n in &p.distractor_counts {
            v.push(Conditions {
                storage: Some(storage),
                distractor: Some(distractor),
                distractor_count: Some(n),
                ..Default::default()
            });
        }
    }
    v
}

pub fn generate(_p: &CsParams, _ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    unimplemented!("CS generator")
}
