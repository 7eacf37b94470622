//! STS, Spatial Task Switching (reference §1.2 "STS", variant "Cued").
use serde::{Deserialize, Serialize};

use crate::display::{Frame, Shape, line, palette, round_rect};
use crate::task::{Conditions, Phase, Response, Step, Target, TrialCtx, binary};

/// Parameters of STS, cued variant (reference defaults via `Default`: 20 frames, 20 % switch chance).
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

/// The condition grid: a single cell, as STS manipulates no factor (a trial records its `switches`).
pub fn grid(_p: &StsParams) -> Vec<Conditions> {
    vec![Conditions::default()]
}

/// The two discrimination tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Top (cells 0, 1) = 0 vs bottom (2, 3) = 1.
    UpDown,
    /// Left (cells 0, 2) = 0 vs right (1, 3) = 1.
    LeftRight,
}

impl Rule {
    fn other(self) -> Rule {
        match self {
            Rule::UpDown => Rule::LeftRight,
            Rule::LeftRight => Rule::UpDown,
        }
    }
    /// The answer (0/1) for a marker in `cell` (0 = TL, 1 = TR, 2 = BL, 3 = BR).
    pub(crate) fn answer(self, cell: usize) -> u16 {
        match self {
            Rule::UpDown => (cell / 2) as u16,
            Rule::LeftRight => (cell % 2) as u16,
        }
    }
    /// The two cells whose answer is `ans`.
    fn cells(self, ans: u16) -> [usize; 2] {
        match (self, ans) {
            (Rule::UpDown, 0) => [0, 1],
            (Rule::UpDown, _) => [2, 3],
            (Rule::LeftRight, 0) => [0, 2],
            (Rule::LeftRight, _) => [1, 3],
        }
    }
}

/// Class of the cue steps when they are scored (reference code).
pub const CLASS_CUE: u16 = 2;
/// The 2×2 grid: padding 20, `cell = 56 // 2 = 28`; marker inset 8, cue dashes 4 from the edge.
const PAD: f32 = 20.0;
const CELL: f32 = 28.0;
const MARKER_INSET: f32 = 8.0;

/// Top-left corner of grid cell `i`.
pub(crate) fn cell_origin(i: usize) -> (f32, f32) {
    (PAD + (i % 2) as f32 * CELL, PAD + (i / 2) as f32 * CELL)
}

fn board() -> Vec<Shape> {
    (0..4)
        .map(|i| {
            let (x, y) = cell_origin(i);
            round_rect(x, y, x + CELL, y + CELL, 2.0, Some(palette::WHITE), Some(palette::BLACK), 2.0)
        })
        .collect()
}

fn cue_frame(rule: Rule) -> Frame {
    let mut s = board();
    let (near0, near1, far0, far1) = (4.0, PAD - 4.0, 96.0 - PAD + 4.0, 96.0 - 4.0);
    match rule {
        Rule::UpDown => {
            s.push(line(48.0, near0, 48.0, near1, palette::BLACK, 3.0));
            s.push(line(48.0, far0, 48.0, far1, palette::BLACK, 3.0));
        }
        Rule::LeftRight => {
            s.push(line(near0, 48.0, near1, 48.0, palette::BLACK, 3.0));
            s.push(line(far0, 48.0, far1, 48.0, palette::BLACK, 3.0));
        }
    }
    Frame::gray(s)
}

fn task_frame(cell: usize) -> Frame {
    let mut s = board();
    let (x, y) = cell_origin(cell);
    s.push(round_rect(
        x + MARKER_INSET,
        y + MARKER_INSET,
        x + CELL - MARKER_INSET,
        y + CELL - MARKER_INSET,
        1.0,
        Some(palette::RED),
        None,
        1.0,
    ));
    Frame::gray(s)
}

/// Cued variant. The first frame is a cue for a random task and a task frame always follows it; before
/// each later task frame, with probability `switch_percent`% and if at least 2 frames remain, a cue for
/// the other task is inserted. Task frames (Probe) are answered under the most recent cue: 0 = top/left,
/// 1 = bottom/right, each drawn with a coin, the marker's cell uniform within that half. Cue frames
/// (Switch) are not scored unless `score_cue_steps`, then their class is 2 (`Response::None`: people
/// do not answer them). The response labels name both rules so they do not reveal the active one.
/// `switches` = cues after the first.
pub fn generate(p: &StsParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let length = (p.length.max(2) as usize).min(crate::task::MAX_STEPS);
    let rng = &mut *ctx.rng;
    let mut rule = if rng.coin() { Rule::LeftRight } else { Rule::UpDown };
    let cue = |r: Rule| -> Step {
        if p.score_cue_steps {
            Step::ask(cue_frame(r), Phase::Switch, Target::Class(CLASS_CUE), Response::None)
        } else {
            Step::show(cue_frame(r), Phase::Switch)
        }
    };
    let mut steps = vec![cue(rule)];
    let mut switches = 0u8;
    let mut first = true;
    while steps.len() < length {
        if !first && steps.len() < length - 1 && rng.chance(p.switch_percent as u32, 100) {
            rule = rule.other();
            steps.push(cue(rule));
            switches += 1;
        }
        first = false;
        let ans = rng.coin() as u16;
        let cell = *rng.choose(&rule.cells(ans));
        debug_assert_eq!(rule.answer(cell), ans);
        steps.push(Step::ask(
            task_frame(cell),
            Phase::Probe,
            Target::Class(ans),
            binary(["top / left", "bottom / right"]),
        ));
    }
    let mut cond = ctx.cell.clone();
    cond.switches = Some(switches);
    (steps, cond)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::{TENSOR_LEN, tensor32};
    use crate::rng::Split;
    use crate::task::{TaskId, TaskParams, TaskSpec, Trial};
    use crate::tasks::testutil::trials;

    /// A cue frame's rule, or None for a task frame.
    fn cue_of(f: &Frame) -> Option<Rule> {
        f.shapes.iter().find_map(|s| match s {
            Shape::Line { x0, x1, .. } => Some(if x0 == x1 { Rule::UpDown } else { Rule::LeftRight }),
            _ => None,
        })
    }

    /// The cell holding the red marker.
    fn marker_cell(f: &Frame) -> usize {
        let m: Vec<usize> = f
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::RoundRect { x0, y0, fill: Some(palette::RED), .. } => {
                    (0..4).find(|&i| cell_origin(i) == (x0 - MARKER_INSET, y0 - MARKER_INSET))
                }
                _ => None,
            })
            .collect();
        assert_eq!(m.len(), 1);
        m[0]
    }

    fn check(t: &Trial, scored_cues: bool) {
        assert_eq!(t.len(), 20);
        let mut active = cue_of(&t.steps[0].frame).expect("first frame is a cue");
        let mut cues = 0;
        for (i, s) in t.steps.iter().enumerate() {
            match cue_of(&s.frame) {
                Some(r) => {
                    cues += 1;
                    if i > 0 {
                        assert_ne!(r, active, "a cue switches task");
                    }
                    active = r;
                    assert_eq!(s.phase, Phase::Switch);
                    assert!(i + 1 < t.len() && cue_of(&t.steps[i + 1].frame).is_none(), "a task frame follows a cue");
                    if scored_cues {
                        assert!(s.scored);
                        assert_eq!(s.target, Target::Class(CLASS_CUE));
                    } else {
                        assert!(!s.scored);
                        assert_eq!(s.target, Target::None);
                    }
                }
                None => {
                    let cell = marker_cell(&s.frame);
                    assert!(s.scored && s.phase == Phase::Probe);
                    // The marker lies in the answered half under the most recent cue.
                    assert_eq!(s.target, Target::Class(active.answer(cell)));
                }
            }
            assert_eq!(tensor32(&s.frame).len(), TENSOR_LEN);
        }
        assert_eq!(t.conditions.switches, Some(cues - 1));
    }

    #[test]
    fn sts_answers_follow_the_active_cue_and_cues_are_unscored() {
        let ts = trials(TaskId::Sts, 200);
        let mut switches = 0u32;
        let mut answers = [0u32; 2];
        for t in &ts {
            check(t, false);
            switches += t.conditions.switches.unwrap() as u32;
            for s in t.scored_steps().map(|(_, s)| s) {
                if let Target::Class(c) = s.target {
                    answers[c as usize] += 1;
                }
            }
        }
        // About 0.2 switches per task frame after the first.
        let per_trial = switches as f64 / ts.len() as f64;
        assert!((1.5..4.5).contains(&per_trial), "{per_trial}");
        assert!(answers[0].abs_diff(answers[1]) < (answers[0] + answers[1]) / 10, "{answers:?}");
    }

    #[test]
    fn sts_reference_mode_scores_cues_as_class_2() {
        let spec = TaskSpec {
            id: TaskId::Sts,
            params: TaskParams::Sts(StsParams { score_cue_steps: true, ..Default::default() }),
        };
        for i in 0..100 {
            let t = spec.trial(42, Split::Test, i);
            check(&t, true);
            assert!(t.steps.iter().all(|s| s.scored));
        }
    }
}
