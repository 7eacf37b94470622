//! Timing for people: the human durations of Table A2 (WorM appendix A2.2) as data, their conversion
//! to whole display frames of the measured refresh rate, refresh-rate estimation from
//! `requestAnimationFrame` timestamps, and the |actual − intended| duration statistics.
//!
//! Table A2 (ms per model time step; `-` = indefinite / wait for the response, `*` = no such phase):
//!
//! | task | present | retention | probe | distractor | switch | update |
//! |---|---|---|---|---|---|---|
//! | SFR | 750 | * | - | * | * | * |
//! | CD | 100 | 150 | 2000 | * | * | * |
//! | VIR | 1000 | 1000 | - | * | * | * |
//! | VSR, VSRec | 1550 | * | - | * | * | * |
//! | CS | 500 | * | - | 1700 | * | * |
//! | SC | 1000 | * | - | * | * | * |
//! | SI | - | * | - | * | * | * |
//! | SMU | - | * | - | * | * | - |
//! | STS | * | * | 1500 | * | 203 | * |
//!
//! [`phase_ms`] returns exactly this table. [`step_timing`] turns a step into what the edge does, and
//! fills the gaps the table leaves (documented deviations): steps without a response in a `-` phase
//! (SI partial drawings, SMU memory array and updates) are shown for [`DEFAULT_UNTIMED_MS`]; CS blank
//! processing frames (generated as `Retention`, a `*` phase for CS) last as long as a distractor
//! (1700 ms) so every processing phase has the same length; a probe with a duration (CD 2000 ms, STS
//! 1500 ms, CS distractors 1700 ms) is a response window that a response ends early.
//!
//! PI-LLM for people (no table in the paper; [`super::pi`]): each update for
//! [`super::pi::UPDATE_MS`], a blank of [`super::pi::BLANK_MS`] after it, then the untimed typed answer.

use serde::{Deserialize, Serialize};

use super::{NbackKind, StudyTask};
use crate::task::{Phase, Response, Step, TaskId};

/// Refresh interval assumed when nothing was measured (60 Hz).
pub const DEFAULT_REFRESH_MS: f64 = 1000.0 / 60.0;
/// Duration of a step with no response in a `-` phase (SI present, SMU present/update).
pub const DEFAULT_UNTIMED_MS: f64 = 1000.0;
/// N-back for people: stimulus duration, then a blank response window; the whole trial lasts
/// `NBACK_STIMULUS_MS + NBACK_WINDOW_MS` whatever the response.
pub const NBACK_STIMULUS_MS: f64 = 500.0;
/// N-back for people: the blank response window after the stimulus (a press in either part counts).
pub const NBACK_WINDOW_MS: f64 = 2500.0;

/// Whole frames closest to `ms` at `refresh_hz` (at least 1).
pub fn frames_for(ms: f64, refresh_hz: f64) -> u32 {
    if !(ms.is_finite() && refresh_hz.is_finite()) || ms <= 0.0 || refresh_hz <= 0.0 {
        return 1;
    }
    ((ms * refresh_hz / 1000.0).round() as u32).max(1)
}

/// Table A2: the human duration of one step of `phase` in `task`; `None` = the table has `-` (wait for
/// the response / not standardised) or `*` (no such phase).
pub fn phase_ms(task: TaskId, phase: Phase) -> Option<f64> {
    use Phase::*;
    match (task, phase) {
        (TaskId::Sfr, Present) => Some(750.0),
        (t, Present) if t.is_cd() => Some(100.0),
        (t, Retention) if t.is_cd() => Some(150.0),
        (t, Probe) if t.is_cd() => Some(2000.0),
        (TaskId::Vir, Present) => Some(1000.0),
        (TaskId::Vir, Retention) => Some(1000.0),
        (TaskId::Vsr | TaskId::VsRec, Present) => Some(1550.0),
        // LSR (A3.1) has no human timing in Table A2: VSR's, whose protocol it follows.
        (TaskId::Lsr, Present) => Some(1550.0),
        (TaskId::Cs, Present) => Some(500.0),
        (TaskId::Cs, Distractor) => Some(1700.0),
        (TaskId::Sc, Present) => Some(1000.0),
        (TaskId::Sts, Probe) => Some(1500.0),
        (TaskId::Sts, Switch) => Some(203.0),
        _ => None,
    }
}

/// What the edge does with one step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepTiming {
    /// How long the step's frame stays on screen; `None` = until the step ends. (N-back: 500 ms, then
    /// a blank frame until the window ends.)
    pub stimulus_ms: Option<f64>,
    /// The step's whole length; `None` = until the participant responds.
    pub window_ms: Option<f64>,
    /// Whether the step takes a response (the step's `Response` says which kind).
    pub responds: bool,
    /// Whether a response ends the step at once (otherwise it runs for `window_ms`).
    pub ends_on_response: bool,
}

impl StepTiming {
    fn show(ms: f64) -> Self {
        StepTiming { stimulus_ms: Some(ms), window_ms: Some(ms), responds: false, ends_on_response: false }
    }
    /// `stimulus_ms` in frames at `refresh_hz`.
    pub fn stimulus_frames(&self, refresh_hz: f64) -> Option<u32> {
        self.stimulus_ms.map(|ms| frames_for(ms, refresh_hz))
    }
    /// `window_ms` in frames at `refresh_hz`.
    pub fn window_frames(&self, refresh_hz: f64) -> Option<u32> {
        self.window_ms.map(|ms| frames_for(ms, refresh_hz))
    }
}

/// Whether a person answers this step (scored, with an input to give).
pub fn answerable(step: &Step) -> bool {
    step.scored && step.response != Response::None
}

/// The timing of one step of a trial of `task` (see the module notes for the filled gaps).
pub fn step_timing(task: StudyTask, step: &Step) -> StepTiming {
    let id = match task {
        StudyTask::Nback(_) => {
            return StepTiming {
                stimulus_ms: Some(NBACK_STIMULUS_MS),
                window_ms: Some(NBACK_STIMULUS_MS + NBACK_WINDOW_MS),
                responds: true,
                ends_on_response: false,
            };
        }
        StudyTask::Pi => {
            // PI-LLM: each update for UPDATE_MS, a blank of BLANK_MS after it, then the typed answer.
            return match step.phase {
                Phase::Present => StepTiming::show(super::pi::UPDATE_MS),
                Phase::Probe => {
                    StepTiming { stimulus_ms: None, window_ms: None, responds: true, ends_on_response: true }
                }
                _ => StepTiming::show(super::pi::BLANK_MS),
            };
        }
        StudyTask::Worm(id) => id,
    };
    let table = phase_ms(id, step.phase);
    if answerable(step) {
        return StepTiming { stimulus_ms: None, window_ms: table, responds: true, ends_on_response: true };
    }
    match (id, step.phase, table) {
        (_, _, Some(ms)) => StepTiming::show(ms),
        (TaskId::Cs, Phase::Retention, None) => StepTiming::show(1700.0),
        _ => StepTiming::show(DEFAULT_UNTIMED_MS),
    }
}

/// Used by callers that only know the N-back kind.
pub fn nback_timing(_kind: NbackKind) -> StepTiming {
    step_timing(StudyTask::Nback(_kind), &Step::show(crate::display::Frame::blank(), Phase::Probe))
}

fn median_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// The refresh interval in ms from successive rAF timestamps: the median inter-frame interval, refined
/// by the mean of the intervals within ±20 % of it (so dropped frames, tab stalls and duplicate stamps
/// do not move it). Fewer than two usable intervals → [`DEFAULT_REFRESH_MS`].
pub fn estimate_refresh(timestamps: &[f64]) -> f64 {
    let mut d: Vec<f64> = timestamps.windows(2).map(|w| w[1] - w[0]).filter(|x| x.is_finite() && *x > 0.5).collect();
    if d.len() < 2 {
        return DEFAULT_REFRESH_MS;
    }
    d.sort_by(f64::total_cmp);
    let med = median_sorted(&d);
    let near: Vec<f64> = d.iter().copied().filter(|x| (x - med).abs() <= 0.2 * med).collect();
    if near.is_empty() { med } else { near.iter().sum::<f64>() / near.len() as f64 }
}

/// Refresh rate in Hz from an interval in ms.
pub fn hz(refresh_ms: f64) -> f64 {
    1000.0 / refresh_ms
}

/// One presented stimulus frame: its intended duration and the rAF timestamps of its first frame
/// (onset) and of the frame that replaced it (offset), all in ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameTiming {
    /// Index of the step in its trial.
    #[serde(default)]
    pub step: u32,
    /// The duration asked for: the frame's whole refreshes × the refresh interval.
    pub intended_ms: f64,
    /// Timestamp of the frame callback that painted it.
    pub onset: f64,
    /// Timestamp of the frame callback that painted the next frame.
    pub offset: f64,
}

impl FrameTiming {
    /// How long the frame was on screen: offset − onset.
    pub fn actual_ms(&self) -> f64 {
        self.offset - self.onset
    }
    /// actual − intended (positive = shown too long).
    pub fn error_ms(&self) -> f64 {
        self.actual_ms() - self.intended_ms
    }
}

/// Distribution of |actual − intended| over frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimingStats {
    /// Frames counted (those with finite times).
    pub n: u32,
    /// Median |actual − intended|, in ms.
    pub median_abs_err_ms: f64,
    /// Nearest-rank 99th percentile.
    pub p99_abs_err_ms: f64,
    /// Share of frames with |error| ≤ one refresh interval.
    pub within_one_frame_fraction: f64,
    /// Largest |actual − intended|, in ms.
    pub max_abs_err_ms: f64,
    /// Sums of intended and actual durations.
    pub intended_total_ms: f64,
    /// Sum of the actual durations (offset − onset), in ms.
    pub actual_total_ms: f64,
}

/// Statistics of |actual − intended| (non-finite records are skipped). Empty input → all zeros.
pub fn timing_stats(frames: &[FrameTiming], refresh_ms: f64) -> TimingStats {
    let ok: Vec<&FrameTiming> = frames.iter().filter(|f| f.error_ms().is_finite()).collect();
    if ok.is_empty() {
        return TimingStats::default();
    }
    let mut e: Vec<f64> = ok.iter().map(|f| f.error_ms().abs()).collect();
    e.sort_by(f64::total_cmp);
    let n = e.len();
    let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n);
    let tol = refresh_ms + 1e-6;
    TimingStats {
        n: n as u32,
        median_abs_err_ms: median_sorted(&e),
        p99_abs_err_ms: e[rank - 1],
        within_one_frame_fraction: e.iter().filter(|&&x| x <= tol).count() as f64 / n as f64,
        max_abs_err_ms: e[n - 1],
        intended_total_ms: ok.iter().map(|f| f.intended_ms).sum(),
        actual_total_ms: ok.iter().map(|f| f.actual_ms()).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Split;
    use crate::task::TaskSpec;

    #[test]
    fn frames_round_to_nearest_and_at_least_one() {
        assert_eq!(frames_for(100.0, 60.0), 6);
        assert_eq!(frames_for(150.0, 60.0), 9);
        assert_eq!(frames_for(203.0, 60.0), 12); // 12.18
        assert_eq!(frames_for(750.0, 144.0), 108);
        assert_eq!(frames_for(100.0, 144.0), 14); // 14.4
        assert_eq!(frames_for(1550.0, 120.0), 186);
        assert_eq!(frames_for(5.0, 60.0), 1);
        assert_eq!(frames_for(0.0, 60.0), 1);
        assert_eq!(frames_for(100.0, f64::NAN), 1);
    }

    #[test]
    fn table_a2_as_data() {
        assert_eq!(phase_ms(TaskId::Sfr, Phase::Present), Some(750.0));
        assert_eq!(phase_ms(TaskId::Sfr, Phase::Probe), None);
        for cd in [TaskId::CdColor, TaskId::CdConjunction] {
            assert_eq!(phase_ms(cd, Phase::Present), Some(100.0));
            assert_eq!(phase_ms(cd, Phase::Retention), Some(150.0));
            assert_eq!(phase_ms(cd, Phase::Probe), Some(2000.0));
        }
        assert_eq!(phase_ms(TaskId::Vir, Phase::Retention), Some(1000.0));
        assert_eq!(phase_ms(TaskId::VsRec, Phase::Present), Some(1550.0));
        assert_eq!(phase_ms(TaskId::Cs, Phase::Distractor), Some(1700.0));
        assert_eq!(phase_ms(TaskId::Sts, Phase::Switch), Some(203.0));
        assert_eq!(phase_ms(TaskId::Sts, Phase::Probe), Some(1500.0));
        assert_eq!(phase_ms(TaskId::Smu, Phase::Update), None);
        assert_eq!(phase_ms(TaskId::Si, Phase::Present), None);
    }

    #[test]
    fn step_timing_covers_every_step_of_every_task() {
        for id in TaskId::ALL {
            let spec = TaskSpec::new(id);
            for i in 0..spec.grid().len() as u64 {
                let t = spec.trial(1, Split::Human, i);
                for s in &t.steps {
                    let st = step_timing(StudyTask::Worm(id), s);
                    assert_eq!(st.responds, answerable(s));
                    if !st.responds {
                        assert!(st.window_ms.unwrap() > 0.0, "{id} {:?}", s.phase);
                    } else {
                        assert!(st.ends_on_response);
                    }
                }
            }
        }
        let cd = TaskSpec::new(TaskId::CdColor).trial(1, Split::Human, 30);
        let probe = cd.steps.last().unwrap();
        assert_eq!(step_timing(StudyTask::Worm(TaskId::CdColor), probe).window_ms, Some(2000.0));
        let nb = nback_timing(NbackKind::Verbal);
        assert_eq!((nb.stimulus_ms, nb.window_ms, nb.ends_on_response), (Some(500.0), Some(3000.0), false));
        assert_eq!(nb.stimulus_frames(60.0), Some(30));
    }

    #[test]
    fn refresh_estimate_is_robust_to_dropped_frames_and_jitter() {
        // 144 Hz with jitter, 5 dropped frames (double intervals), one 300 ms stall, a duplicate stamp.
        let p = 1000.0 / 144.0;
        let mut ts = vec![1000.0];
        for i in 0..200 {
            let jitter = ((i * 37 % 11) as f64 - 5.0) * 0.02;
            let step = if i % 40 == 7 {
                2.0 * p
            } else if i == 100 {
                300.0
            } else {
                p
            };
            let last = *ts.last().unwrap();
            ts.push(last + step + jitter);
        }
        let last = *ts.last().unwrap();
        ts.push(last);
        let est = estimate_refresh(&ts);
        assert!((est - p).abs() < 0.02, "{est} vs {p}");
        assert!((hz(est) - 144.0).abs() < 0.5);
        assert_eq!(estimate_refresh(&[1.0]), DEFAULT_REFRESH_MS);
        let sixty: Vec<f64> = (0..61).map(|i| i as f64 * 1000.0 / 60.0).collect();
        assert!((estimate_refresh(&sixty) - 16.6667).abs() < 1e-3);
    }

    #[test]
    fn stats_of_synthetic_frames() {
        let r = 1000.0 / 60.0;
        // 100 frames: 97 exact-ish (+0.1 ms), 2 one frame long, 1 two frames short.
        let mut f = Vec::new();
        for i in 0..100 {
            let onset = i as f64 * 1000.0;
            let err = match i {
                10 | 20 => r,
                30 => -2.0 * r,
                _ => 0.1,
            };
            f.push(FrameTiming { step: 0, intended_ms: 100.0, onset, offset: onset + 100.0 + err });
        }
        let s = timing_stats(&f, r);
        assert_eq!(s.n, 100);
        assert!((s.median_abs_err_ms - 0.1).abs() < 1e-9);
        assert!((s.p99_abs_err_ms - r).abs() < 1e-9);
        assert!((s.max_abs_err_ms - 2.0 * r).abs() < 1e-9);
        assert!((s.within_one_frame_fraction - 0.99).abs() < 1e-12);
        assert!((s.intended_total_ms - 10_000.0).abs() < 1e-6);
        assert_eq!(timing_stats(&[], r), TimingStats::default());
    }
}
