//! The participant presenter: one trial shown frame by frame, as a pure state machine.
//!
//! The edge (the web page) builds a [`Presenter`] from a [`SessionTrial`], the measured refresh period
//! and the speed flag, then calls [`Presenter::on_frame`] from every `requestAnimationFrame` callback
//! with its timestamp, [`Presenter::on_input`] when the person clicks, taps or presses a key, and
//! [`Presenter::on_page_event`] on blur, focus, visibility, fullscreen and resize. Each returns the
//! [`Action`]s to carry out: paint a frame, show or change the response controls, the step changed, an
//! answer was taken, the trial is finished (record it) or stopped (restart it). Nothing here reads a
//! clock: every time is a timestamp the edge passes in, in ms.
//!
//! Rules (each has a test below):
//! - **Gap**: a blank of [`GAP_MS`] (N-back: the empty letter or grid) before the first step.
//! - **Frame lock**: a step's frame is painted inside a callback (its onset = that callback's timestamp)
//!   and held for `frames` refreshes: it ends at the first callback at least `frames − ½` refreshes after
//!   its onset (by time, not by counting callbacks, so a dropped callback cannot stretch a stimulus by
//!   whole frames). That callback paints the next frame and is the offset of this one.
//! - **Responses**: a step that takes a response stays until answered, or until its window runs out
//!   (CD: 2000 ms; then [`Answer::None`]). The answer is taken at the next callback. Response times are
//!   the input's time minus the probe's onset.
//! - **N-back**: the stimulus for 500 ms, then the empty frame until the 3000 ms window ends; a press at
//!   any time in the window counts (its time from the stimulus onset). No press = [`Answer::None`].
//! - **Serial recall** (VSR): consecutive choice steps that show the same frame are answered together:
//!   each click marks an item with its order number, clicking a marked item or Undo removes it, and Done
//!   commits once every position is chosen; answer k goes to step k, its time from the probe's onset.
//!   **Free recall** (SFR): clicks toggle cells; Done commits once `picks` cells are chosen. One-click
//!   choices (SMU cells, CS options) answer at once.
//! - **Typed answers** (PI-LLM): each update is a timed frame; the question step awaits one value per key
//!   ([`Awaiting::Typed`]); Done ([`Input::Typed`]) commits them all, one [`Answer::Text`] per key, each
//!   timed from the question's onset to Done. No key of the keyboard is an input there (the page's text
//!   fields take them).
//! - **Blur or hidden tab**: the trial stops ([`Action::Stopped`], never recorded) and restarts from its
//!   first frame; the page events go with the restarted trial.
//! - **Resize** (the stimulus's size changed): the trial stops and restarts, as after a blur; not while
//!   values are typed (no stimulus is shown then, and a phone's keyboard resizes the window).
//! - **Fast mode** (tests only): every timed frame lasts one refresh and N-back waits for an answer.

use serde::{Deserialize, Serialize};

use crate::display::{Area, Frame};
use crate::people::score::Answer;
use crate::people::session::{PageEvent, PageEventKind, SessionTrial, TrialResult, nback_frame};
use crate::people::timing::{FrameTiming, frames_for, hz, step_timing};
use crate::people::{StudyTask, timing};
use crate::task::{Response, Step, Target, TaskId};
use crate::tasks::{answer_areas, cs};

/// The blank before each trial's first step, in ms.
pub const GAP_MS: f64 = 500.0;

/// What the current step awaits from the person, with where to click (areas in display units 0–96).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Awaiting {
    /// Two alternatives: keys F and J, or two buttons; `labels[0]` is class 0.
    Binary {
        /// The two buttons' captions from the step's [`Response::Binary`] (F key: `labels[0]`, J: `labels[1]`).
        labels: [String; 2],
    },
    /// One of `areas`: one click answers (SMU cells, CS options).
    Choice {
        /// One clickable area per class, in class order (from [`answer_areas`]).
        areas: Vec<Area>,
    },
    /// `need` of `areas` in order (serial recall): `chosen` in the order clicked.
    Order {
        /// One clickable area per class (recall position), in class order.
        areas: Vec<Area>,
        /// Items to choose before Done commits: the number of consecutive steps answered together.
        need: u16,
        /// Indices into `areas` marked so far, in click order (item k answers the group's step k).
        chosen: Vec<u16>,
    },
    /// `need` of `areas` in any order (free recall): `chosen` in the order clicked.
    Cells {
        /// One clickable area per grid cell, in cell order.
        areas: Vec<Area>,
        /// Cells to choose before Done commits: the step's `picks`.
        need: u16,
        /// Indices into `areas` selected so far, in click order (committed as a set).
        chosen: Vec<u16>,
    },
    /// PI-LLM: one typed value per key, in this order; Done commits them ([`Input::Typed`]).
    Typed {
        /// The keys asked about (the fields' labels), in the order the values are given.
        keys: Vec<String>,
    },
    /// N-back: "match" (space or the button); a "no match" button too in fast mode.
    Match {
        /// "Match" has been pressed in this step's window (later presses are ignored).
        pressed: bool,
        /// Fast mode (tests only): a "no match" button is shown too and either press ends the step.
        fast: bool,
    },
}

impl Awaiting {
    /// A short name for the page's data attributes and the browser tests.
    pub fn kind(&self) -> &'static str {
        match self {
            Awaiting::Binary { .. } => "binary",
            Awaiting::Choice { .. } => "choice",
            Awaiting::Order { .. } => "order",
            Awaiting::Cells { .. } => "cells",
            Awaiting::Match { .. } => "match",
            Awaiting::Typed { .. } => "typed",
        }
    }

    /// The items chosen so far (empty for one-click and key answers).
    pub fn chosen(&self) -> &[u16] {
        match self {
            Awaiting::Order { chosen, .. } | Awaiting::Cells { chosen, .. } => chosen,
            _ => &[],
        }
    }

    /// Whether Done may commit the answer (every item chosen).
    pub fn complete(&self) -> bool {
        match self {
            Awaiting::Order { need, chosen, .. } | Awaiting::Cells { need, chosen, .. } => {
                chosen.len() == *need as usize
            }
            _ => false,
        }
    }

    /// The input a key stands for (`KeyboardEvent.key`, any case): F / J for the two alternatives, space
    /// for an N-back match, digits 1–9 for the first nine areas of a click-to-answer step, Enter for Done,
    /// Backspace for Undo. None while values are typed (the text fields take the keys).
    pub fn key_input(&self, key: &str) -> Option<Input> {
        let key = key.to_ascii_lowercase();
        let digit = || {
            let d = key.parse::<u16>().ok().filter(|d| (1..=9).contains(d))?;
            Some(Input::Pick(d - 1))
        };
        match (self, key.as_str()) {
            (Awaiting::Binary { .. }, "f") => Some(Input::Class(0)),
            (Awaiting::Binary { .. }, "j") => Some(Input::Class(1)),
            (Awaiting::Match { .. }, " ") => Some(Input::Class(1)),
            (Awaiting::Order { .. } | Awaiting::Cells { .. }, "enter") => Some(Input::Confirm),
            (Awaiting::Order { .. } | Awaiting::Cells { .. }, "backspace") => Some(Input::Undo),
            (Awaiting::Choice { areas } | Awaiting::Order { areas, .. }, _) if areas.len() <= 9 => digit(),
            _ => None,
        }
    }
}

/// What the person did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Input {
    /// A key or button for a class: 0 / 1 of a binary step; N-back 1 = "match", 0 = "no match".
    Class(u16),
    /// A click or tap on area `i`.
    Pick(u16),
    /// Remove the last chosen item.
    Undo,
    /// Done: commit the chosen items.
    Confirm,
    /// Done on typed values (PI-LLM): one per key of [`Awaiting::Typed`], in its order.
    Typed(Vec<String>),
}

/// What the edge does now.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Paint this frame (inside a frame callback its onset is that callback's timestamp).
    Paint(Frame),
    /// Show these response controls (`None`: none).
    Await(Option<Awaiting>),
    /// The trial moved to step `i`.
    Step(usize),
    /// An answer was taken (the controls are gone until the next step).
    Answered,
    /// The trial is over: record this result.
    Finished(TrialResult),
    /// The trial stopped (blur or hidden tab) and was not recorded: restart it, carrying these events.
    Stopped(Vec<PageEvent>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Blank frames left before the first step.
    Gap(u32),
    Showing,
    Over,
}

/// One trial being shown.
#[derive(Clone, Debug)]
pub struct Presenter {
    trial: SessionTrial,
    refresh_ms: f64,
    fast: bool,
    state: State,
    step: usize,
    /// Steps the current answer covers (a serial-recall group; else 1).
    group: usize,
    /// N-back: in the empty frame after the stimulus.
    after_stimulus: bool,
    onset: f64,
    probe_onset: f64,
    hold: Option<u32>,
    intended_ms: f64,
    timed: bool,
    responds: bool,
    ends_on_response: bool,
    nback_rest: Option<u32>,
    awaiting: Option<Awaiting>,
    /// Items chosen so far with the time of each click.
    picks: Vec<(u16, f64)>,
    answered: Option<Vec<(Answer, Option<f64>)>>,
    shown: Frame,
    answers: Vec<Answer>,
    rt_ms: Vec<Option<f64>>,
    frames: Vec<FrameTiming>,
    events: Vec<PageEvent>,
}

/// The empty frame of a task: gray, or N-back's empty letter / grid.
pub fn blank_for(task: StudyTask) -> Frame {
    match task {
        StudyTask::Nback(k) => nback_frame(k, "0"),
        StudyTask::Worm(_) | StudyTask::Pi => Frame::blank(),
    }
}

impl Presenter {
    /// A presenter for `trial` at `refresh_ms` per frame; `events` are page events since the last
    /// trial (they are recorded with this one). Returns the actions to start with (paint the blank).
    pub fn new(trial: SessionTrial, refresh_ms: f64, fast: bool, events: Vec<PageEvent>) -> (Presenter, Vec<Action>) {
        let refresh_ms =
            if refresh_ms.is_finite() && refresh_ms > 0.0 { refresh_ms } else { timing::DEFAULT_REFRESH_MS };
        let gap = if fast { 1 } else { frames_for(GAP_MS, hz(refresh_ms)).max(1) };
        let blank = blank_for(trial.task);
        let p = Presenter {
            trial,
            refresh_ms,
            fast,
            state: State::Gap(gap),
            step: 0,
            group: 1,
            after_stimulus: false,
            onset: 0.0,
            probe_onset: 0.0,
            hold: None,
            intended_ms: 0.0,
            timed: false,
            responds: false,
            ends_on_response: false,
            nback_rest: None,
            awaiting: None,
            picks: vec![],
            answered: None,
            shown: blank.clone(),
            answers: vec![],
            rt_ms: vec![],
            frames: vec![],
            events,
        };
        (p, vec![Action::Paint(blank), Action::Await(None)])
    }

    /// The step on screen (0 during the gap).
    pub fn step(&self) -> usize {
        self.step
    }
    /// The response controls on screen now, with what has been chosen so far; `None` during the gap, timed
    /// frames and once an answer is taken (N-back keeps its "match" control for the whole window).
    pub fn awaiting(&self) -> Option<&Awaiting> {
        self.awaiting.as_ref()
    }
    /// Whether the edge should keep calling [`Presenter::on_frame`].
    pub fn running(&self) -> bool {
        self.state != State::Over
    }

    /// The correct answer of the awaited step as a person gives it (class, cells, or for a serial
    /// recall group the positions in order as a `Set`): test hooks only.
    pub fn expected(&self) -> Option<Answer> {
        if matches!(self.awaiting, None | Some(Awaiting::Typed { .. })) {
            return None;
        }
        let cls = |s: &Step| match s.target {
            Target::Class(t) if self.trial.task == StudyTask::Worm(TaskId::Cs) => Some(t - cs::class_offset(t)),
            Target::Class(t) => Some(t),
            _ => None,
        };
        let steps = &self.trial.steps[self.step..self.step + self.group];
        Some(match (&steps[0].target, self.group) {
            (Target::Set(v), _) => Answer::Set(v.clone()),
            (_, 1) => cls(&steps[0]).map(Answer::Class).unwrap_or(Answer::None),
            _ => Answer::Set(steps.iter().filter_map(cls).collect()),
        })
    }

    /// The correct values of an awaited typed answer (PI-LLM: each key's last value, in the fields'
    /// order): test hooks only.
    pub fn expected_values(&self) -> Option<Vec<String>> {
        let Some(Awaiting::Typed { keys }) = &self.awaiting else { return None };
        let last = self.trial.pi.as_ref()?.stream.last_values();
        Some(keys.iter().map(|k| last.get(k).cloned().unwrap_or_default()).collect())
    }

    /// A `requestAnimationFrame` callback at `ts` ms.
    pub fn on_frame(&mut self, ts: f64) -> Vec<Action> {
        match self.state {
            State::Over => return vec![],
            State::Gap(n) if n > 1 => {
                self.state = State::Gap(n - 1);
                return vec![];
            }
            State::Gap(_) => {
                self.state = State::Showing;
                return self.begin_step(ts);
            }
            State::Showing => {}
        }
        let mut out = vec![];
        if self.responds && self.ends_on_response && self.answered.is_some() {
            let given = self.answered.take().unwrap_or_default();
            self.push_answers(given);
        } else if let Some(h) = self.hold {
            if ts - self.onset < (h as f64 - 0.5) * self.refresh_ms {
                return vec![];
            }
            if self.timed {
                self.frames.push(FrameTiming {
                    step: self.step as u32,
                    intended_ms: self.intended_ms,
                    onset: self.onset,
                    offset: ts,
                });
            }
            if self.trial.nback.is_some() && !self.after_stimulus {
                self.after_stimulus = true;
                self.onset = ts;
                self.hold = if self.fast { None } else { self.nback_rest };
                self.intended_ms = self.hold.unwrap_or(0) as f64 * self.refresh_ms;
                self.timed = !self.fast;
                self.ends_on_response = self.fast;
                self.shown = blank_for(self.trial.task);
                return vec![Action::Paint(self.shown.clone())];
            }
            if self.responds {
                // The window ran out: what was given (N-back) or no answer.
                let given = self.answered.take().unwrap_or_else(|| vec![(Answer::None, None); self.group]);
                self.push_answers(given);
                if self.awaiting.take().is_some() {
                    out.push(Action::Await(None));
                }
            }
        } else {
            return vec![];
        }
        self.step += self.group;
        if self.step < self.trial.steps.len() {
            out.extend(self.begin_step(ts));
            return out;
        }
        self.state = State::Over;
        self.step = self.trial.steps.len() - 1;
        self.awaiting = None;
        let result = TrialResult {
            position: self.trial.position,
            answers: std::mem::take(&mut self.answers),
            rt_ms: std::mem::take(&mut self.rt_ms),
            frames: std::mem::take(&mut self.frames),
            events: std::mem::take(&mut self.events),
            view: None,
        };
        out.push(Action::Await(None));
        out.push(Action::Finished(result));
        out
    }

    fn push_answers(&mut self, given: Vec<(Answer, Option<f64>)>) {
        for (a, rt) in given {
            self.answers.push(a);
            self.rt_ms.push(rt);
        }
    }

    /// Steps from `self.step` answered together: a run of choice steps showing the same frame.
    fn group_len(&self) -> usize {
        let steps = &self.trial.steps[self.step..];
        let first = &steps[0];
        if self.trial.nback.is_some()
            || !matches!(first.response, Response::Choice { .. })
            || !timing::answerable(first)
        {
            return 1;
        }
        steps
            .iter()
            .take_while(|s| s.response == first.response && s.frame == first.frame && timing::answerable(s))
            .count()
    }

    fn begin_step(&mut self, ts: f64) -> Vec<Action> {
        let rate = hz(self.refresh_ms);
        let task = self.trial.task;
        let step = &self.trial.steps[self.step];
        let st = step_timing(task, step);
        self.onset = ts;
        self.probe_onset = ts;
        self.after_stimulus = false;
        self.answered = None;
        self.picks.clear();
        self.group = 1;
        self.awaiting = None;
        if self.trial.nback.is_some() {
            let stim = if self.fast { 1 } else { st.stimulus_frames(rate).unwrap_or(1) };
            let whole = st.window_frames(rate).unwrap_or(stim + 1);
            self.hold = Some(stim);
            self.nback_rest = Some(whole.saturating_sub(stim).max(1));
            self.intended_ms = stim as f64 * self.refresh_ms;
            self.timed = true;
            self.responds = true;
            self.ends_on_response = false;
            self.awaiting = Some(Awaiting::Match { pressed: false, fast: self.fast });
        } else if st.responds {
            self.hold = if self.fast { None } else { st.window_frames(rate) };
            self.timed = false;
            self.responds = true;
            self.ends_on_response = true;
            self.group = self.group_len();
            self.awaiting = self.awaiting_for(step);
        } else {
            let n = if self.fast { 1 } else { st.stimulus_frames(rate).unwrap_or(1) };
            self.hold = Some(n);
            self.intended_ms = n as f64 * self.refresh_ms;
            self.timed = true;
            self.responds = false;
            self.ends_on_response = false;
        }
        self.shown = step.frame.clone();
        vec![Action::Paint(self.shown.clone()), Action::Await(self.awaiting.clone()), Action::Step(self.step)]
    }

    fn awaiting_for(&self, step: &Step) -> Option<Awaiting> {
        if let Some(pi) = &self.trial.pi {
            return Some(Awaiting::Typed { keys: pi.keys() });
        }
        let id = self.trial.task.worm()?;
        let areas = || answer_areas(id, &self.trial.conditions, step);
        Some(match &step.response {
            Response::None => return None,
            Response::Binary { labels } => Awaiting::Binary { labels: labels.clone() },
            Response::MultiSelect { picks, .. } => Awaiting::Cells { areas: areas(), need: *picks, chosen: vec![] },
            Response::Choice { .. } if self.group > 1 => {
                Awaiting::Order { areas: areas(), need: self.group as u16, chosen: vec![] }
            }
            Response::Choice { .. } => Awaiting::Choice { areas: areas() },
        })
    }

    /// The person's input at `t_ms` (the same clock as the frame timestamps).
    pub fn on_input(&mut self, input: Input, t_ms: f64) -> Vec<Action> {
        if self.state != State::Showing || !self.responds || self.answered.is_some() {
            return vec![];
        }
        let Some(aw) = self.awaiting.as_mut() else { return vec![] };
        let rt = |t: f64| Some((t - self.probe_onset).max(0.0));
        let areas = match aw {
            Awaiting::Choice { areas } | Awaiting::Order { areas, .. } | Awaiting::Cells { areas, .. } => areas.len(),
            _ => 0,
        };
        let complete = aw.complete();
        let given = match (&mut *aw, input) {
            (Awaiting::Match { pressed, .. }, Input::Class(1)) => {
                *pressed = true;
                let shown = aw.clone();
                self.answered = Some(vec![(Answer::Class(1), rt(t_ms))]);
                return vec![Action::Await(Some(shown)), Action::Answered];
            }
            (Awaiting::Match { fast: true, .. }, Input::Class(0)) => vec![(Answer::None, rt(t_ms))],
            (Awaiting::Binary { .. }, Input::Class(c)) if c < 2 => vec![(Answer::Class(c), rt(t_ms))],
            (Awaiting::Choice { .. }, Input::Pick(i)) if (i as usize) < areas => vec![(Answer::Class(i), rt(t_ms))],
            (Awaiting::Order { chosen, need, .. } | Awaiting::Cells { chosen, need, .. }, Input::Pick(i))
                if (i as usize) < areas =>
            {
                if let Some(k) = self.picks.iter().position(|&(x, _)| x == i) {
                    self.picks.remove(k);
                } else if self.picks.len() < *need as usize {
                    self.picks.push((i, t_ms));
                } else {
                    return vec![];
                }
                *chosen = self.picks.iter().map(|&(x, _)| x).collect();
                return vec![Action::Await(Some(aw.clone()))];
            }
            (Awaiting::Order { chosen, .. } | Awaiting::Cells { chosen, .. }, Input::Undo) => {
                if self.picks.pop().is_none() {
                    return vec![];
                }
                *chosen = self.picks.iter().map(|&(x, _)| x).collect();
                return vec![Action::Await(Some(aw.clone()))];
            }
            (Awaiting::Order { .. }, Input::Confirm) if complete => {
                self.picks.iter().map(|&(x, t)| (Answer::Class(x), rt(t))).collect()
            }
            (Awaiting::Cells { chosen, .. }, Input::Confirm) if !chosen.is_empty() && complete => {
                vec![(Answer::Set(chosen.clone()), rt(t_ms))]
            }
            (Awaiting::Typed { keys }, Input::Typed(values)) if values.len() == keys.len() => {
                values.into_iter().map(|v| (Answer::Text(v.trim().to_string()), rt(t_ms))).collect()
            }
            _ => return vec![],
        };
        self.answered = Some(given);
        self.awaiting = None;
        vec![Action::Await(None), Action::Answered]
    }

    /// A page event (recorded with the trial). Blur or a hidden tab stops the trial.
    pub fn on_page_event(&mut self, ev: PageEvent) -> Vec<Action> {
        self.events.push(ev);
        if self.state == State::Over {
            return vec![];
        }
        match ev.kind {
            // While values are typed no stimulus is on screen; a phone's keyboard opening resizes the
            // window: recorded, nothing stops.
            PageEventKind::Resize if matches!(self.awaiting, Some(Awaiting::Typed { .. })) => vec![],
            // A resize changed the stimulus's size (the edge sends only those): what was seen so far was
            // seen at another size, so the trial starts again, as after a blur.
            PageEventKind::Blur | PageEventKind::Hidden | PageEventKind::Resize => {
                self.state = State::Over;
                self.awaiting = None;
                vec![Action::Await(None), Action::Stopped(std::mem::take(&mut self.events))]
            }
            _ => vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::people::session::Session;
    use crate::people::{NbackKind, StudyConfig};

    const R: f64 = 1000.0 / 60.0;

    fn trial_of(tasks: &str, pick: impl Fn(&SessionTrial) -> bool) -> SessionTrial {
        let cfg = StudyConfig::from_query(&format!("tasks={tasks}&tpc=24&practice=0&seed=4")).unwrap();
        let s = Session::for_link(cfg, 4);
        let mut pos = s.current();
        while let Some(p) = pos {
            let t = s.trial(p).unwrap();
            if pick(&t) {
                return t;
            }
            pos = next_pos(&s, p);
        }
        panic!("no trial of {tasks} matched");
    }

    fn next_pos(s: &Session, p: crate::people::Position) -> Option<crate::people::Position> {
        let b = &s.blocks[p.block];
        if p.trial + 1 < b.units.len() {
            Some(crate::people::Position { block: p.block, trial: p.trial + 1 })
        } else if p.block + 1 < s.blocks.len() {
            Some(crate::people::Position { block: p.block + 1, trial: 0 })
        } else {
            None
        }
    }

    /// Callbacks every `R` ms from `t`, answering with `answer(presenter, ts)` whenever something is
    /// awaited and nothing was given yet; returns the result and the timestamps of the paints.
    fn run(
        p: &mut Presenter,
        mut t: f64,
        mut answer: impl FnMut(&mut Presenter, f64) -> Vec<Action>,
    ) -> (TrialResult, Vec<f64>) {
        let mut paints = vec![];
        for _ in 0..100_000 {
            t += R;
            for a in p.on_frame(t) {
                match a {
                    Action::Paint(_) => paints.push(t),
                    Action::Finished(r) => return (r, paints),
                    _ => {}
                }
            }
            if p.awaiting.is_some() && p.answered.is_none() {
                answer(p, t + 3.0);
            }
        }
        panic!("the trial never finished");
    }

    fn no_answer(_: &mut Presenter, _: f64) -> Vec<Action> {
        vec![]
    }

    #[test]
    fn timed_frames_are_held_for_their_frames_and_a_dropped_callback_does_not_stretch_them() {
        // SFR: 750 ms memory frames = 45 refreshes at 60 Hz, then the probe (answered at once).
        let trial = trial_of("SFR", |t| t.steps.len() >= 3);
        let (mut p, first) = Presenter::new(trial.clone(), R, false, vec![]);
        assert!(matches!(first[0], Action::Paint(_)));
        let (res, _) = run(&mut p, 0.0, |p, t| {
            let need = match p.awaiting() {
                Some(Awaiting::Cells { need, .. }) => *need,
                _ => return vec![],
            };
            for i in 0..need {
                p.on_input(Input::Pick(i), t);
            }
            p.on_input(Input::Confirm, t)
        });
        let shows = trial.steps.iter().filter(|s| !timing::answerable(s)).count();
        assert_eq!(res.frames.len(), shows);
        for f in &res.frames {
            assert_eq!(f.intended_ms, 45.0 * R);
            assert!((f.actual_ms() - 45.0 * R).abs() < 1e-6, "{f:?}");
        }
        assert_eq!(res.answers.len(), 1);

        // A callback dropped in the middle (a busy main thread): the frame ends at the first callback
        // at least 44.5 refreshes after its onset, not one refresh late per dropped callback.
        let (mut p, _) = Presenter::new(trial, R, false, vec![]);
        let mut t = 0.0;
        let mut onset = None;
        loop {
            t += R;
            if onset.is_some_and(|o: f64| (t - o) > 10.0 * R && (t - o) < 12.0 * R) {
                t += 3.0 * R; // three callbacks missing
            }
            let acts = p.on_frame(t);
            if acts.iter().any(|a| matches!(a, Action::Paint(_))) {
                if let Some(o) = onset {
                    assert!((t - o - 45.0 * R).abs() < 0.5 * R, "held {} refreshes", (t - o) / R);
                    break;
                }
                onset = Some(t);
            }
        }
    }

    #[test]
    fn a_response_window_that_runs_out_gives_no_answer_and_an_answer_ends_the_step_at_the_next_frame() {
        let trial = trial_of("CD-Color", |_| true);
        let probe = trial.steps.iter().position(timing::answerable).unwrap();
        // No answer: the 2000 ms window (120 refreshes) ends the probe with no answer and no time.
        let (mut p, _) = Presenter::new(trial.clone(), R, false, vec![]);
        let (res, paints) = run(&mut p, 0.0, no_answer);
        assert_eq!(res.answers, vec![Answer::None]);
        assert_eq!(res.rt_ms, vec![None]);
        assert_eq!(paints.len(), trial.steps.len(), "each step painted once");
        // Answered 250 ms after the probe's onset: the time is from the onset, the step ends at once.
        let (mut p, _) = Presenter::new(trial.clone(), R, false, vec![]);
        let mut probe_at = None;
        let (res, _) = run(&mut p, 0.0, |p, t| {
            let on = *probe_at.get_or_insert(t - 3.0);
            if t - on < 250.0 {
                return vec![];
            }
            let acts = p.on_input(Input::Class(1), on + 250.0);
            assert_eq!(acts, vec![Action::Await(None), Action::Answered]);
            // A second answer is ignored.
            assert!(p.on_input(Input::Class(0), on + 260.0).is_empty());
            acts
        });
        assert_eq!(res.answers, vec![Answer::Class(1)]);
        assert_eq!(res.rt_ms, vec![Some(250.0)]);
        assert_eq!(probe, trial.steps.len() - 1, "CD asks at its last step");
    }

    #[test]
    fn nback_shows_500_ms_then_the_empty_frame_and_takes_a_press_anywhere_in_the_window() {
        let trial = trial_of("nback-verbal", |_| true);
        let n = trial.steps.len();
        let (mut p, first) = Presenter::new(trial, R, false, vec![]);
        assert_eq!(first[0], Action::Paint(blank_for(StudyTask::Nback(NbackKind::Verbal))));
        let mut k = 0;
        // Press on every even stimulus: during the stimulus for k % 4 == 0, in the blank after it else.
        let (res, paints) = run(&mut p, 0.0, |p, t| {
            let since = t - p.probe_onset;
            let step = p.step();
            if step % 2 == 1 || (step % 4 == 0 && since > 200.0) || (step % 4 == 2 && since < 1000.0) {
                return vec![];
            }
            k += 1;
            let acts = p.on_input(Input::Class(1), t);
            assert_eq!(acts[0], Action::Await(Some(Awaiting::Match { pressed: true, fast: false })));
            acts
        });
        assert!(k > 0);
        assert_eq!(res.answers.len(), n);
        assert_eq!(paints.len(), 2 * n, "stimulus and empty frame per step");
        for (i, (a, rt)) in res.answers.iter().zip(&res.rt_ms).enumerate() {
            if i % 2 == 1 {
                assert_eq!((a, rt), (&Answer::None, &None));
            } else {
                assert_eq!(a, &Answer::Class(1));
                let rt = rt.unwrap();
                assert!(if i % 4 == 0 { rt < 250.0 } else { (1000.0..1100.0).contains(&rt) }, "step {i}: {rt}");
            }
        }
        // Every stimulus is 30 refreshes (500 ms), every empty frame the rest of the 3000 ms window.
        assert_eq!(res.frames.len(), 2 * n);
        for f in res.frames.chunks(2) {
            assert!((f[0].actual_ms() - 500.0).abs() < 1e-6);
            assert!((f[1].actual_ms() - 2500.0).abs() < 1e-6);
        }
    }

    #[test]
    fn serial_recall_marks_in_order_undoes_and_commits_only_when_complete() {
        let trial = trial_of("VSR", |t| t.cell.list_length == Some(3));
        let (mut p, _) = Presenter::new(trial.clone(), R, false, vec![]);
        let mut t = 0.0;
        while !matches!(p.awaiting(), Some(Awaiting::Order { .. })) {
            t += R;
            p.on_frame(t);
        }
        let Some(Answer::Set(want)) = p.expected() else { panic!("{:?}", p.expected()) };
        assert_eq!(want.len(), 3);
        let onset = t;
        let wrong = (0..9).find(|x| !want.contains(x)).unwrap();
        // A wrong first click, undone by clicking it again; another wrong one undone by Undo.
        p.on_input(Input::Pick(wrong), t + 100.0);
        let acts = p.on_input(Input::Pick(wrong), t + 150.0);
        assert_eq!(p.awaiting().unwrap().chosen(), &[] as &[u16], "{acts:?}");
        p.on_input(Input::Pick(want[0]), t + 200.0);
        p.on_input(Input::Pick(wrong), t + 250.0);
        assert_eq!(p.awaiting().unwrap().chosen(), &[want[0], wrong]);
        assert!(p.on_input(Input::Confirm, t + 260.0).is_empty(), "incomplete: Done does nothing");
        p.on_input(Input::Undo, t + 300.0);
        p.on_input(Input::Pick(want[1]), t + 400.0);
        p.on_input(Input::Pick(want[2]), t + 500.0);
        assert!(p.on_input(Input::Pick(wrong), t + 550.0).is_empty(), "no fourth item");
        assert!(p.awaiting().unwrap().complete());
        assert_eq!(p.on_input(Input::Confirm, t + 600.0), vec![Action::Await(None), Action::Answered]);
        let (res, _) = run(&mut p, t, no_answer);
        let probes = trial.steps.iter().filter(|s| timing::answerable(s)).count();
        assert_eq!(probes, 3);
        assert_eq!(res.answers, want.iter().map(|&x| Answer::Class(x)).collect::<Vec<_>>());
        assert_eq!(res.rt_ms, vec![Some(200.0), Some(400.0), Some(500.0)]);
        assert_eq!(onset, p.probe_onset);
    }

    #[test]
    fn free_recall_toggles_cells_and_commits_the_set() {
        let trial = trial_of("SFR", |t| t.cell.list_length == Some(2));
        let (mut p, _) = Presenter::new(trial, R, true, vec![]);
        let mut t = 0.0;
        while !matches!(p.awaiting(), Some(Awaiting::Cells { .. })) {
            t += R;
            p.on_frame(t);
        }
        let Some(Answer::Set(want)) = p.expected() else { panic!() };
        let other = (0..100).find(|x| !want.contains(x)).unwrap();
        p.on_input(Input::Pick(other), t);
        assert!(p.on_input(Input::Confirm, t).is_empty(), "one of two chosen");
        p.on_input(Input::Pick(want[1]), t);
        p.on_input(Input::Pick(other), t);
        p.on_input(Input::Pick(want[0]), t);
        assert_eq!(p.awaiting().unwrap().chosen(), &[want[1], want[0]]);
        assert!(p.on_input(Input::Pick(200), t).is_empty(), "outside the board");
        p.on_input(Input::Confirm, t + 10.0);
        let (res, _) = run(&mut p, t, no_answer);
        assert_eq!(res.answers, vec![Answer::Set(vec![want[1], want[0]])]);
    }

    #[test]
    fn blur_stops_the_trial_and_hands_its_events_on() {
        let trial = trial_of("VIR", |_| true);
        let before = PageEvent { kind: PageEventKind::Focus, t_ms: 1.0 };
        let (mut p, _) = Presenter::new(trial.clone(), R, false, vec![before]);
        for i in 1..50 {
            p.on_frame(i as f64 * R);
        }
        assert!(p.on_page_event(PageEvent { kind: PageEventKind::FullscreenEnter, t_ms: 2.0 }).is_empty());
        let blur = PageEvent { kind: PageEventKind::Blur, t_ms: 900.0 };
        let acts = p.on_page_event(blur);
        let Some(Action::Stopped(events)) = acts.last() else { panic!("{acts:?}") };
        assert_eq!(events.len(), 3);
        assert_eq!(events[2], blur);
        assert!(!p.running());
        assert!(p.on_frame(10_000.0).is_empty(), "nothing more after a stop");
        // Restarted from its first frame with the events: they are recorded with the finished trial.
        let (mut p, _) = Presenter::new(trial, R, true, events.clone());
        let (res, _) = run(&mut p, 0.0, |p, t| p.on_input(Input::Class(0), t));
        assert_eq!(res.events, *events);
    }

    #[test]
    fn a_resize_mid_trial_stops_it_like_a_blur() {
        let trial = trial_of("VIR", |_| true);
        let (mut p, _) = Presenter::new(trial.clone(), R, false, vec![]);
        for i in 1..20 {
            p.on_frame(i as f64 * R);
        }
        let resize = PageEvent { kind: PageEventKind::Resize, t_ms: 400.0 };
        let acts = p.on_page_event(resize);
        let Some(Action::Stopped(events)) = acts.last() else { panic!("{acts:?}") };
        assert_eq!(events, &vec![resize]);
        assert!(!p.running());
        let (mut p, _) = Presenter::new(trial, R, true, events.clone());
        let (res, _) = run(&mut p, 0.0, |p, t| p.on_input(Input::Class(0), t));
        assert_eq!(res.events, vec![resize], "recorded with the trial that was finished");
    }

    #[test]
    fn every_response_step_of_every_task_has_its_areas_and_the_target_is_one_of_them() {
        for id in TaskId::ALL {
            let trial = trial_of(id.as_str(), |_| true);
            let (mut p, _) = Presenter::new(trial, R, true, vec![]);
            let mut t = 0.0;
            let mut seen = 0;
            while p.running() {
                t += R;
                p.on_frame(t);
                let (Some(aw), Some(want)) = (p.awaiting().cloned(), p.expected()) else { continue };
                if p.answered.is_some() {
                    continue;
                }
                seen += 1;
                let (areas, picks) = match (&aw, &want) {
                    (Awaiting::Choice { areas }, Answer::Class(c)) => (areas.clone(), vec![*c]),
                    (Awaiting::Order { areas, .. } | Awaiting::Cells { areas, .. }, Answer::Set(v)) => {
                        (areas.clone(), v.clone())
                    }
                    (Awaiting::Binary { .. }, Answer::Class(c)) => {
                        p.on_input(Input::Class(*c), t);
                        continue;
                    }
                    other => panic!("{id:?}: {other:?}"),
                };
                for a in &areas {
                    assert!(a.x >= 0.0 && a.y >= 0.0 && a.x + a.w <= 96.0 && a.y + a.h <= 96.0, "{id:?} {a:?}");
                }
                for c in &picks {
                    assert!((*c as usize) < areas.len(), "{id:?}: target {c} of {}", areas.len());
                    p.on_input(Input::Pick(*c), t);
                }
                p.on_input(Input::Confirm, t);
            }
            assert!(seen > 0, "{id:?} asked nothing");
        }
    }

    #[test]
    fn smu_areas_are_the_marker_cells_of_the_probed_box() {
        let trial = trial_of("SMU", |t| t.cell.set_size == Some(4));
        for step in trial.steps.iter().filter(|s| timing::answerable(s)) {
            let areas = answer_areas(TaskId::Smu, &trial.conditions, step);
            assert_eq!(areas.len(), 9);
            // The red (probed) box of the frame holds every area.
            let red = step
                .frame
                .shapes
                .iter()
                .find_map(|s| match *s {
                    crate::display::Shape::Rect { x0, y0, x1, y1, fill: Some(f), .. }
                        if f == crate::display::palette::RED =>
                    {
                        Some((x0, y0, x1, y1))
                    }
                    _ => None,
                })
                .unwrap();
            for a in &areas {
                assert!(a.x >= red.0 && a.y >= red.1 && a.x + a.w <= red.2 + 0.01 && a.y + a.h <= red.3 + 0.01);
            }
            assert!(areas[4].contains((red.0 + red.2) / 2.0, (red.1 + red.3) / 2.0), "cell 4 is the centre");
        }
    }

    #[test]
    fn keys_map_to_inputs() {
        let b = Awaiting::Binary { labels: ["a".into(), "b".into()] };
        assert_eq!(b.key_input("F"), Some(Input::Class(0)));
        assert_eq!(b.key_input("j"), Some(Input::Class(1)));
        assert_eq!(b.key_input(" "), None);
        assert_eq!(Awaiting::Match { pressed: false, fast: false }.key_input(" "), Some(Input::Class(1)));
        let o = Awaiting::Order { areas: vec![Area::new(0.0, 0.0, 1.0, 1.0); 9], need: 3, chosen: vec![] };
        assert_eq!(o.key_input("3"), Some(Input::Pick(2)));
        assert_eq!(o.key_input("0"), None);
        assert_eq!(o.key_input("Enter"), Some(Input::Confirm));
        assert_eq!(o.key_input("Backspace"), Some(Input::Undo));
        let c = Awaiting::Cells { areas: vec![Area::new(0.0, 0.0, 1.0, 1.0); 100], need: 3, chosen: vec![] };
        assert_eq!(c.key_input("3"), None, "100 cells: no digit keys");
    }
}
