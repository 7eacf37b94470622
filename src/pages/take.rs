//! Take a study: the participant's flow from a study link (`#/take?<query>`).
//!
//! The core decides everything (`people::Session`: plan, stimuli, scoring, records; `people::timing`:
//! frames per step); this page paints frames on `requestAnimationFrame`, turns clicks, taps and keys
//! into `Answer`s, saves the session after every trial and sends records out.
//!
//! Presentation is frame-locked: a step's frame is painted inside a rAF callback (its onset = that
//! callback's timestamp) and held for `frames` refreshes (until the first callback at least
//! `frames − ½` measured refresh intervals later, so a dropped callback cannot stretch it); the
//! callback that paints the next frame is its offset. Timed frames are recorded as `FrameTiming { intended = frames × refresh, onset, offset }`.
//! Steps that take a response stay until answered (or until their window, e.g. CD 2000 ms, runs out);
//! response times are `performance.now()` at the input minus the probe's onset.
//!
//! A blur or hidden tab during a trial stops the trial, shows the pause screen and records the events;
//! the interrupted trial (never recorded) restarts from its first frame on "Continue".
//!
//! Test support (never on by default): `localStorage.wmlab_fast = '1'` shows every timed frame for one
//! refresh and lets N-back trials wait for an answer; `localStorage.wmlab_test = '1'` exposes the current
//! step and its correct answer on `window.__wmlab_test`.

use std::cell::RefCell;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wmlab_core::display::{Frame, Shape, palette};
use wmlab_core::people::session::{PageEvent, PageEventKind, SessionTrial};
use wmlab_core::people::timing::{hz, step_timing};
use wmlab_core::people::{
    Answer, FrameTiming, Position, Session, StudyConfig, StudyTask, TrialResult, estimate_refresh, text,
};
use wmlab_core::record::ResultRecord;
use wmlab_core::task::{Response, Target, TaskId};

use crate::app::AppState;
use crate::components::outbox::{self, Item};
use crate::components::painter;
use crate::components::plot::Charts;
use crate::components::responses::{Awaiting, below, overlay};
use crate::web;

const CALIB_FRAMES: usize = 60;
/// Blank gap before each trial.
const GAP_MS: f64 = 500.0;

#[derive(Clone, Debug, PartialEq)]
enum Screen {
    Loading,
    Error(String),
    Offer { done: usize, total: usize },
    Calibrating,
    Instructions,
    Trial,
    Feedback,
    Paused,
    Done,
}

impl Screen {
    fn name(&self, practice: bool) -> &'static str {
        match self {
            Screen::Loading => "loading",
            Screen::Error(_) => "error",
            Screen::Offer { .. } => "offer",
            Screen::Calibrating => "calibrating",
            Screen::Instructions => "instructions",
            Screen::Trial if practice => "practice",
            Screen::Trial => "trial",
            Screen::Feedback => "feedback",
            Screen::Paused => "paused",
            Screen::Done => "done",
        }
    }
}

/// What the page shows about the current position.
#[derive(Clone, Debug, Default, PartialEq)]
struct Cur {
    task: String,
    title: String,
    block: usize,
    blocks: usize,
    trial: usize,
    trials: usize,
    global: usize,
    step: usize,
    practice: bool,
    n_back: Option<u8>,
    first_of_task: bool,
    resumed: bool,
}

#[derive(Clone, Copy)]
struct Ui {
    screen: RwSignal<Screen>,
    cur: RwSignal<Cur>,
    awaiting: RwSignal<Option<Awaiting>>,
    sel: RwSignal<Vec<u16>>,
    feedback: RwSignal<(Vec<bool>, f64)>,
    pending: RwSignal<usize>,
    record: RwSignal<Option<ResultRecord>>,
    note: RwSignal<Option<String>>,
    px: RwSignal<f64>,
    timing: RwSignal<wmlab_core::people::TimingStats>,
}

/// One trial being shown.
struct Run {
    trial: SessionTrial,
    step: usize,
    /// N-back: 0 = stimulus, 1 = the blank window after it.
    sub: u8,
    gap: u32,
    onset: f64,
    probe_onset: f64,
    count: u32,
    hold: Option<u32>,
    intended: f64,
    timed: bool,
    responds: bool,
    ends_on_response: bool,
    nback_window: Option<u32>,
    answered: Option<(Answer, Option<f64>)>,
    answers: Vec<Answer>,
    rt: Vec<Option<f64>>,
    frames: Vec<FrameTiming>,
}

struct Ctl {
    ui: Ui,
    key: String,
    session: Session,
    fast: bool,
    test: bool,
    refresh: f64,
    calib: Option<Vec<f64>>,
    run: Option<Run>,
    events: Vec<PageEvent>,
    css_px: f64,
}

thread_local! {
    static CTL: RefCell<Option<Ctl>> = const { RefCell::new(None) };
    static HOOK_SEQ: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    static RAF: RefCell<Option<Closure<dyn FnMut(f64)>>> = const { RefCell::new(None) };
}

fn with_ctl<R>(f: impl FnOnce(&mut Ctl) -> R) -> Option<R> {
    CTL.with(|c| c.try_borrow_mut().ok().and_then(|mut g| g.as_mut().map(f)))
}

fn now() -> f64 {
    web::window().performance().map(|p| p.now()).unwrap_or(0.0)
}

fn flag(name: &str) -> bool {
    outbox::get(name).as_deref() == Some("1")
}

fn request_frame() {
    RAF.with(|r| {
        let mut r = r.borrow_mut();
        if r.is_none() {
            *r = Some(Closure::new(on_frame));
        }
        if let Some(cb) = r.as_ref() {
            let _ = web::window().request_animation_frame(cb.as_ref().unchecked_ref());
        }
    });
}

fn on_frame(ts: f64) {
    let again = with_ctl(|c| c.tick(ts)).unwrap_or(false);
    if again {
        request_frame();
    }
}

/// The storage key of a study (+ participant): FNV-64 of the canonical query.
/// A random 64-bit seed for a session of an anonymous link (from the browser's crypto random source,
/// else Math.random).
fn fresh_seed() -> u64 {
    let mut b = [0u8; 8];
    let crypto = web::window().crypto().ok();
    if crypto.is_some_and(|c| c.get_random_values_with_u8_array(&mut b).is_ok()) {
        return u64::from_le_bytes(b);
    }
    ((js_sys::Math::random() * 4294967296.0) as u64) << 32 | (js_sys::Math::random() * 4294967296.0) as u64
}

pub fn session_key(cfg: &StudyConfig) -> String {
    let mut h = wmlab_core::hash::Fnv64::default();
    h.write(cfg.to_query().as_bytes());
    format!("{}{:016x}", outbox::SESSION_PREFIX, h.finish())
}

fn canvas() -> Option<web_sys::HtmlCanvasElement> {
    web::window().document()?.get_element_by_id("take-canvas")?.dyn_into().ok()
}

fn css_size() -> f64 {
    let w = web::window();
    let iw = w.inner_width().ok().and_then(|v| v.as_f64()).unwrap_or(800.0);
    let ih = w.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(800.0);
    (iw - 32.0).min(ih - 190.0).clamp(220.0, 680.0).floor()
}

/// What a person clicks for a step (positions in display units, from the task's layout).
fn awaiting_for(task: StudyTask, step: &wmlab_core::task::Step, fast: bool) -> Option<Awaiting> {
    if let StudyTask::Nback(_) = task {
        return Some(Awaiting::Match { pressed: false, fast });
    }
    let id = task.worm()?;
    let grid9 = || (0..9).map(|i| ((i % 3) as f32 * 32.0, (i / 3) as f32 * 32.0, 32.0, 32.0)).collect::<Vec<_>>();
    Some(match &step.response {
        Response::None => return None,
        Response::Binary { labels } => Awaiting::Binary { labels: labels.clone() },
        Response::MultiSelect { n, picks } => {
            let g = (*n as f64).sqrt().round() as u16;
            let cell = (90 / g.max(1)) as f32;
            Awaiting::Cells { grid: g, origin: 3.0, cell, picks: *picks }
        }
        Response::Choice { n } => {
            let boxes = match id {
                TaskId::Cs => (0..*n as usize)
                    .map(|s| {
                        let (row, col) = ((s / 3) as f32, (s % 3) as f32);
                        let dx = if s >= 6 { 19.0 } else { 3.0 };
                        (col * 32.0 + dx - 2.0, row * 32.0 + 1.0, 28.0, 28.0)
                    })
                    .collect(),
                TaskId::Smu => {
                    // The highlighted (red) box; its 3×3 marker cells 5 units apart.
                    let red = step.frame.shapes.iter().find_map(|s| match s {
                        &Shape::Rect { x0, y0, x1, y1, fill: Some(f), .. } if f == palette::RED && (x1 - x0) > 10.0 => {
                            Some(((x0 + x1) / 2.0, (y0 + y1) / 2.0))
                        }
                        _ => None,
                    });
                    match red {
                        Some((cx, cy)) => (0..9)
                            .map(|i| {
                                (
                                    cx + ((i % 3) as f32 - 1.0) * 5.0 - 2.5,
                                    cy + ((i / 3) as f32 - 1.0) * 5.0 - 2.5,
                                    5.0,
                                    5.0,
                                )
                            })
                            .collect(),
                        None => grid9(),
                    }
                }
                _ => grid9(),
            };
            Awaiting::Options { boxes }
        }
    })
}

/// The correct answer of a step as a person gives it (test hook only).
fn target_js(task: StudyTask, step: &wmlab_core::task::Step) -> JsValue {
    match &step.target {
        Target::Class(t) if task == StudyTask::Worm(TaskId::Cs) => {
            JsValue::from(t - wmlab_core::tasks::cs::class_offset(*t))
        }
        Target::Class(t) => JsValue::from(*t),
        Target::Set(v) => v.iter().map(|&x| JsValue::from(x)).collect::<js_sys::Array>().into(),
        Target::None => JsValue::NULL,
    }
}

fn blank_for(task: StudyTask) -> Frame {
    match task {
        StudyTask::Nback(k) => wmlab_core::people::session::nback_frame(k, "0"),
        _ => Frame::gray(vec![]),
    }
}

impl Ctl {
    fn paint(&self, f: &Frame) {
        if let Some(c) = canvas() {
            painter::paint(&c, f, self.css_px);
        }
    }

    fn save(&self) {
        if let Err(e) = outbox::set(&self.key, &self.session.to_json()) {
            self.ui.note.set(Some(format!("Your answers could not be saved in this browser: {e}.")));
        }
    }

    fn tick(&mut self, ts: f64) -> bool {
        if let Some(v) = self.calib.as_mut() {
            v.push(ts);
            if v.len() >= CALIB_FRAMES {
                let r = estimate_refresh(v);
                self.calib = None;
                self.refresh = r;
                self.session.set_refresh(r);
                self.save();
                self.show_block_start(true);
            }
            return self.calib.is_some();
        }
        let fast = self.fast;
        let refresh = self.refresh;
        let Some(run) = self.run.as_mut() else { return false };
        if run.gap > 0 {
            run.gap -= 1;
            if run.gap == 0 {
                self.begin_step(ts);
            }
            return true;
        }
        run.count += 1;
        let mut next = false;
        if run.responds && run.ends_on_response && run.answered.is_some() {
            let (a, rt) = run.answered.take().unwrap();
            run.answers.push(a);
            run.rt.push(rt);
            next = true;
        } else if let Some(h) = run.hold {
            // Frame-locked by time, not by callback count: a frame ends at the first callback at least
            // (h − ½) refreshes after its onset, so a dropped callback (a busy main thread) cannot
            // stretch a stimulus by whole frames.
            if ts - run.onset >= (h as f64 - 0.5) * refresh {
                if run.timed {
                    run.frames.push(FrameTiming {
                        step: run.step as u32,
                        intended_ms: run.intended,
                        onset: run.onset,
                        offset: ts,
                    });
                }
                if run.trial.nback.is_some() && run.sub == 0 {
                    run.sub = 1;
                    run.onset = ts;
                    run.count = 0;
                    run.hold = if fast { None } else { run.nback_window };
                    run.intended = run.hold.unwrap_or(0) as f64 * refresh;
                    run.timed = !fast;
                    run.ends_on_response = fast;
                    let f = blank_for(run.trial.task);
                    self.paint(&f);
                    return true;
                }
                if run.responds {
                    let (a, rt) = run.answered.take().unwrap_or((Answer::None, None));
                    run.answers.push(a);
                    run.rt.push(rt);
                }
                next = true;
            }
        }
        if !next {
            return true;
        }
        let run = self.run.as_mut().unwrap();
        run.step += 1;
        if run.step < run.trial.steps.len() {
            self.begin_step(ts);
            return true;
        }
        self.finish_trial();
        false
    }

    fn begin_step(&mut self, ts: f64) {
        let (fast, refresh, test) = (self.fast, self.refresh, self.test);
        let rate = hz(refresh);
        let run = self.run.as_mut().unwrap();
        let task = run.trial.task;
        let step = run.trial.steps[run.step].clone();
        let st = step_timing(task, &step);
        run.onset = ts;
        run.probe_onset = ts;
        run.count = 0;
        run.sub = 0;
        run.answered = None;
        let nback = run.trial.nback.is_some();
        let mut awaiting = None;
        if nback {
            let stim = if fast { 1 } else { st.stimulus_frames(rate).unwrap_or(1) };
            let whole = st.window_frames(rate).unwrap_or(stim + 1);
            run.hold = Some(stim);
            run.nback_window = Some(whole.saturating_sub(stim).max(1));
            run.intended = stim as f64 * refresh;
            run.timed = true;
            run.responds = true;
            run.ends_on_response = false;
            awaiting = awaiting_for(task, &step, fast);
        } else if st.responds {
            run.hold = if fast { None } else { st.window_frames(rate) };
            run.timed = false;
            run.responds = true;
            run.ends_on_response = true;
            awaiting = awaiting_for(task, &step, fast);
        } else {
            let n = if fast { 1 } else { st.stimulus_frames(rate).unwrap_or(1) };
            run.hold = Some(n);
            run.intended = n as f64 * refresh;
            run.timed = true;
            run.responds = false;
            run.ends_on_response = false;
        }
        let idx = run.step;
        let target = if test { Some(target_js(task, &step)) } else { None };
        self.paint(&step.frame);
        self.ui.sel.set(vec![]);
        let kind = awaiting.as_ref().map(|a| a.kind().to_string());
        self.ui.awaiting.set(awaiting);
        self.ui.cur.update(|c| c.step = idx);
        if let Some(t) = target {
            self.hook(Some(idx), kind.as_deref(), t);
        }
    }

    /// `window.__wmlab_test` (only with `localStorage.wmlab_test = '1'`).
    fn hook(&self, step: Option<usize>, awaiting: Option<&str>, target: JsValue) {
        if !self.test {
            return;
        }
        let o = js_sys::Object::new();
        let set = |k: &str, v: JsValue| {
            let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
        };
        let c = self.ui.cur.get_untracked();
        set("key", JsValue::from_str(&self.key));
        set("task", JsValue::from_str(&c.task));
        set("block", JsValue::from(c.block as u32));
        set("trial", JsValue::from(c.trial as u32));
        set("global", JsValue::from(c.global as u32));
        set("practice", JsValue::from(c.practice));
        set("step", step.map(|s| JsValue::from(s as u32)).unwrap_or(JsValue::NULL));
        set("awaiting", awaiting.map(JsValue::from_str).unwrap_or(JsValue::NULL));
        set("target", target);
        set(
            "seq",
            JsValue::from(HOOK_SEQ.with(|q| {
                q.set(q.get() + 1);
                q.get()
            })),
        );
        let _ = js_sys::Reflect::set(&web::window(), &JsValue::from_str("__wmlab_test"), &o);
    }

    fn set_cur(&mut self, resumed: bool) {
        let Some(pos) = self.session.current() else { return };
        let b = &self.session.blocks[pos.block];
        let first_of_task = pos.trial == 0 && (pos.block == 0 || self.session.blocks[pos.block - 1].task != b.task);
        let cur = Cur {
            task: b.task.as_str().to_string(),
            title: b.task.title().to_string(),
            block: pos.block,
            blocks: self.session.blocks.len(),
            trial: pos.trial,
            trials: b.units.len(),
            global: self.session.global_index(pos).unwrap_or(0),
            step: 0,
            practice: b.practice,
            n_back: b.n,
            first_of_task,
            resumed,
        };
        self.ui.cur.set(cur);
    }

    fn show_block_start(&mut self, resumed: bool) {
        if self.session.is_finished() {
            self.done();
            return;
        }
        self.set_cur(resumed && self.session.current().is_some_and(|p| p.trial > 0 || !self.session.done.is_empty()));
        self.hook(None, None, JsValue::NULL);
        self.ui.screen.set(Screen::Instructions);
    }

    fn start_trial(&mut self) {
        let Some(pos) = self.session.current() else {
            self.done();
            return;
        };
        let trial = match self.session.trial(pos) {
            Ok(t) => t,
            Err(e) => {
                self.ui.screen.set(Screen::Error(e.to_string()));
                return;
            }
        };
        self.set_cur(false);
        self.css_px = css_size();
        self.ui.px.set(self.css_px);
        let gap = if self.fast { 1 } else { wmlab_core::people::frames_for(GAP_MS, hz(self.refresh)) };
        let blank = blank_for(trial.task);
        self.run = Some(Run {
            trial,
            step: 0,
            sub: 0,
            gap,
            onset: 0.0,
            probe_onset: 0.0,
            count: 0,
            hold: None,
            intended: 0.0,
            timed: false,
            responds: false,
            ends_on_response: false,
            nback_window: None,
            answered: None,
            answers: vec![],
            rt: vec![],
            frames: vec![],
        });
        self.ui.awaiting.set(None);
        self.ui.screen.set(Screen::Trial);
        self.paint(&blank);
        self.hook(None, None, JsValue::NULL);
        request_frame();
    }

    fn finish_trial(&mut self) {
        let Some(run) = self.run.take() else { return };
        self.ui.awaiting.set(None);
        let pos = run.trial.position;
        let res = TrialResult {
            position: pos,
            answers: run.answers,
            rt_ms: run.rt,
            frames: run.frames,
            events: std::mem::take(&mut self.events),
        };
        match self.session.record(res) {
            Ok(out) => {
                self.save();
                if out.block_finished {
                    self.send(pos.block, false);
                }
                if out.practice {
                    self.ui.feedback.set((out.correct.clone(), out.score));
                    self.hook(None, None, JsValue::NULL);
                    self.ui.screen.set(Screen::Feedback);
                } else {
                    self.next();
                }
            }
            Err(e) => self.ui.screen.set(Screen::Error(format!("This trial could not be recorded: {e}."))),
        }
    }

    fn next(&mut self) {
        match self.session.current() {
            None => self.done(),
            Some(p) if p.trial == 0 => self.show_block_start(false),
            Some(_) => self.start_trial(),
        }
    }

    fn record(&self) -> ResultRecord {
        let mut r = self.session.to_record(None);
        r.created = Some(web::now_iso());
        r
    }

    /// Send the record after block `block` (or at the end): JATOS if present, else the endpoint.
    fn send(&self, block: usize, last: bool) {
        let record = self.record();
        let Ok(json) = record.to_json() else { return };
        if outbox::jatos().is_some() {
            if !last {
                outbox::jatos_append(&(json + "\n"));
            }
            return;
        }
        let Some(endpoint) = self.session.config.endpoint.clone() else { return };
        let nonce = outbox::get(&format!("{}.nonce", self.key)).unwrap_or_else(|| self.key.clone());
        let id = if last { format!("{nonce}-final") } else { format!("{nonce}-b{block}") };
        let body = serde_json::json!({
            "idempotency_id": id,
            "block": if last { serde_json::Value::Null } else { serde_json::Value::from(block) },
            "final": last,
            "participant": self.session.config.participant,
            "record": serde_json::from_str::<serde_json::Value>(&json).unwrap_or(serde_json::Value::Null),
        });
        let pending = self.ui.pending;
        outbox::enqueue(Item { id, endpoint, body: body.to_string(), attempts: 0 }, move |n| {
            let _ = pending.try_set(n);
        });
    }

    fn done(&mut self) {
        self.run = None;
        let r = self.record();
        // Into this browser's results history (the same result again is not added twice).
        crate::components::history::add_later(r.clone());
        let first = self.ui.record.get_untracked().is_none();
        self.ui.timing.set(self.session.timing());
        self.ui.record.set(Some(r));
        self.hook(None, None, JsValue::NULL);
        self.ui.screen.set(Screen::Done);
        let finished_key = format!("{}.sent", self.key);
        if first && outbox::get(&finished_key).is_none() {
            let _ = outbox::set(&finished_key, "1");
            self.send(usize::MAX, true);
            if outbox::jatos().is_some() {
                if let Ok(json) = self.record().to_json() {
                    outbox::jatos_append(&(json + "\n"));
                }
                outbox::jatos_end();
            }
        }
    }

    fn calibrate(&mut self) {
        self.calib = Some(Vec::with_capacity(CALIB_FRAMES));
        self.ui.screen.set(Screen::Calibrating);
        request_frame();
    }

    fn event(&mut self, kind: PageEventKind) {
        self.events.push(PageEvent { kind, t_ms: now() });
        if matches!(kind, PageEventKind::Blur | PageEventKind::Hidden) && self.run.is_some() {
            // Stop the trial; it restarts from its first frame (it was not recorded).
            self.run = None;
            self.ui.awaiting.set(None);
            self.hook(None, None, JsValue::NULL);
            self.ui.screen.set(Screen::Paused);
        }
    }
}

// Input: free functions (the controls take plain fn pointers).

fn give(a: Answer) {
    let t = now();
    with_ctl(|c| {
        let Some(run) = c.run.as_mut() else { return };
        if run.gap > 0 || !run.responds || run.answered.is_some() {
            return;
        }
        let rt = (t - run.probe_onset).max(0.0);
        let is_match = matches!(a, Answer::Class(1));
        run.answered = Some((a, Some(rt)));
        if run.ends_on_response {
            c.ui.awaiting.set(None);
            c.hook(Some(run_step(c)), None, JsValue::NULL);
        } else if run.trial.nback.is_some() {
            c.ui.awaiting.update(|w| {
                if let Some(Awaiting::Match { pressed, .. }) = w {
                    *pressed = is_match;
                }
            });
        }
    });
}

fn run_step(c: &Ctl) -> usize {
    c.run.as_ref().map(|r| r.step).unwrap_or(0)
}

fn on_index(i: u16) {
    let cells = with_ctl(|c| matches!(c.ui.awaiting.get_untracked(), Some(Awaiting::Cells { .. }))).unwrap_or(false);
    if cells {
        with_ctl(|c| {
            let picks = match c.ui.awaiting.get_untracked() {
                Some(Awaiting::Cells { picks, .. }) => picks as usize,
                _ => 0,
            };
            c.ui.sel.update(|s| {
                if let Some(p) = s.iter().position(|&x| x == i) {
                    s.remove(p);
                } else if s.len() < picks {
                    s.push(i);
                }
            });
        });
        return;
    }
    let nback_no = with_ctl(|c| c.run.as_ref().is_some_and(|r| r.trial.nback.is_some()) && i == 0).unwrap_or(false);
    give(if nback_no { Answer::None } else { Answer::Class(i) });
}

fn on_confirm() {
    let sel = with_ctl(|c| c.ui.sel.get_untracked()).unwrap_or_default();
    give(Answer::Set(sel));
}

fn act(f: impl FnOnce(&mut Ctl)) {
    with_ctl(f);
}

fn fullscreen() {
    if let Some(el) = web::window().document().and_then(|d| d.document_element()) {
        let _ = el.request_fullscreen();
    }
}

fn download(r: &ResultRecord, csv: bool, note: RwSignal<Option<String>>) {
    let who: String =
        r.subject.label().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    let res = if csv {
        r.to_csv()
            .map_err(|e| e.to_string())
            .and_then(|t| web::download(&format!("wmlab-people-{who}.csv"), "text/csv", &t))
    } else {
        r.to_json()
            .map_err(|e| e.to_string())
            .and_then(|t| web::download(&format!("wmlab-people-{who}.json"), "application/json", &t))
    };
    if let Err(e) = res {
        note.set(Some(format!("The download failed: {e}.")));
    }
}

#[component]
pub fn Take(query: String) -> impl IntoView {
    let ui = Ui {
        screen: RwSignal::new(Screen::Loading),
        cur: RwSignal::new(Cur::default()),
        awaiting: RwSignal::new(None),
        sel: RwSignal::new(vec![]),
        feedback: RwSignal::new((vec![], 0.0)),
        pending: RwSignal::new(0),
        record: RwSignal::new(None),
        note: RwSignal::new(None),
        px: RwSignal::new(480.0),
        timing: RwSignal::new(Default::default()),
    };
    let mut opts: (bool, bool, Option<String>) = (false, false, None);
    let app = use_context::<AppState>();

    // Parse the link; never half-start on a bad one.
    match StudyConfig::from_query(&query) {
        Err(e) => ui.screen.set(Screen::Error(e.to_string())),
        Ok(cfg) => {
            let key = session_key(&cfg);
            let saved = outbox::get(&key).map(|t| Session::from_json(&t));
            let (session, screen) = match saved {
                Some(Ok(s)) if s.config == cfg => {
                    let (done, total) = s.progress();
                    if s.is_finished() {
                        (s, Screen::Done)
                    } else if done > 0 {
                        (s, Screen::Offer { done, total })
                    } else {
                        (s, Screen::Loading)
                    }
                }
                Some(Err(e)) => {
                    ui.note.set(Some(format!(
                        "A saved session for this link could not be resumed ({e}); starting afresh."
                    )));
                    (Session::for_link(cfg.clone(), fresh_seed()), Screen::Loading)
                }
                _ => (Session::for_link(cfg.clone(), fresh_seed()), Screen::Loading),
            };
            if outbox::get(&format!("{key}.nonce")).is_none() {
                let nonce = format!(
                    "{:08x}{:08x}",
                    (js_sys::Math::random() * 4294967296.0) as u32,
                    (js_sys::Math::random() * 4294967296.0) as u32
                );
                let _ = outbox::set(&format!("{key}.nonce"), &nonce);
            }
            opts = (cfg.fullscreen, cfg.show_results, cfg.completion_url.clone());
            let fast = flag("wmlab_fast");
            let test = flag("wmlab_test");
            let refresh = session.refresh_ms.unwrap_or(1000.0 / 60.0);
            CTL.with(|c| {
                *c.borrow_mut() = Some(Ctl {
                    ui,
                    key,
                    session,
                    fast,
                    test,
                    refresh,
                    calib: None,
                    run: None,
                    events: vec![],
                    css_px: 480.0,
                })
            });
            match screen {
                Screen::Done => act(|c| c.done()),
                Screen::Offer { .. } => {
                    act(|c| c.set_cur(true));
                    ui.screen.set(screen);
                }
                _ => {
                    act(|c| c.save());
                    outbox::jatos_on_load(|| act(|c| c.calibrate()));
                }
            }
            // Anything still queued from before (a reload) goes out now.
            if !outbox::load_outbox().is_empty() {
                outbox::flush(move |n| {
                    let _ = ui.pending.try_set(n);
                });
            }
        }
    }

    let keys = window_event_listener(leptos::ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.repeat() || ui.screen.get_untracked() != Screen::Trial {
            return;
        }
        let k = ev.key().to_ascii_lowercase();
        match (ui.awaiting.get_untracked(), k.as_str()) {
            (Some(Awaiting::Binary { .. }), "f") => give(Answer::Class(0)),
            (Some(Awaiting::Binary { .. }), "j") => give(Answer::Class(1)),
            (Some(Awaiting::Match { .. }), " ") => {
                ev.prevent_default();
                give(Answer::Class(1));
            }
            (Some(Awaiting::Cells { .. }), "enter") => on_confirm(),
            _ => {}
        }
    });
    let blur = window_event_listener(leptos::ev::blur, move |_| act(|c| c.event(PageEventKind::Blur)));
    let focus = window_event_listener(leptos::ev::focus, move |_| act(|c| c.event(PageEventKind::Focus)));
    let vis = window_event_listener_untyped("visibilitychange", move |_| {
        let hidden = web::window().document().map(|d| d.hidden()).unwrap_or(false);
        act(|c| c.event(if hidden { PageEventKind::Hidden } else { PageEventKind::Visible }));
    });
    on_cleanup(move || {
        keys.remove();
        blur.remove();
        focus.remove();
        vis.remove();
        CTL.with(|c| {
            if let Ok(mut g) = c.try_borrow_mut() {
                *g = None;
            }
        });
    });

    let practice = move || ui.cur.with(|c| c.practice);
    let state = move || ui.screen.with(|s| s.name(practice()));
    let on_canvas = move || matches!(ui.screen.get(), Screen::Trial);
    let (fs_wanted, show, completion) = opts;

    let progress = move || {
        ui.cur.with(|c| {
            format!(
                "{} · part {} of {} · {} {} of {}",
                c.title,
                c.block + 1,
                c.blocks,
                if c.n_back.is_some() {
                    "block"
                } else if c.practice {
                    "practice round"
                } else {
                    "round"
                },
                c.trial + 1,
                c.trials
            )
        })
    };

    let instructions = move || {
        let c = ui.cur.get();
        let task = StudyTask::parse(&c.task);
        let body = task.map(text::instructions).unwrap_or_default();
        let note = if c.practice {
            let n = c.trials;
            if c.n_back.is_some() {
                format!("{} This practice block has 12 letters or squares.", text::practice_note(1))
            } else {
                text::practice_note(n)
            }
        } else {
            text::main_note(c.n_back)
        };
        let nb = c.n_back.map(|n| {
            format!(
                "N = {n}: press “match” when the item is the same as the one {} before.",
                if n == 1 { "just".to_string() } else { format!("{n} steps") }
            )
        });
        let keys_note = match task {
            Some(StudyTask::Nback(_)) => "Press the space bar or the “match” button.",
            Some(StudyTask::Worm(TaskId::Sfr)) => "Click or tap the squares, then “Done”.",
            Some(StudyTask::Worm(TaskId::Vsr | TaskId::Smu | TaskId::Cs)) => {
                "Click or tap your answer in the picture (CS questions: keys F and J or the buttons)."
            }
            _ => "Answer with the keys F and J, or click or tap the buttons.",
        };
        view! {
            <div class="panel instructions">
                <h2 id="take-title">{c.title.clone()}</h2>
                {c.resumed.then(|| view! { <p class="resumed" id="resumed-note">"Welcome back: you continue where you left off."</p> })}
                <p>{body}</p>
                {nb.map(|t| view! { <p class="nback-level"><strong>{t}</strong></p> })}
                <p>{note}</p>
                <p class="small">{keys_note}</p>
                <div class="actions">
                    <button id="start" class="primary" on:click=move |_| act(|c| c.start_trial())>
                        {if c.resumed { "Continue" } else { "Start" }}
                    </button>
                    {fs_wanted.then(|| view! { <button id="fullscreen" on:click=move |_| fullscreen()>"Full screen"</button> })}
                </div>
            </div>
        }
    };

    let feedback = move || {
        let (correct, score) = ui.feedback.get();
        let all = !correct.is_empty() && correct.iter().all(|&c| c);
        let msg = if all {
            "Correct!".to_string()
        } else if correct.len() > 1 {
            format!("{} of {} right ({:.0} %).", correct.iter().filter(|&&c| c).count(), correct.len(), score * 100.0)
        } else {
            "Not quite — that was not the right answer.".to_string()
        };
        view! {
            <div class="panel feedback" data-correct=all.to_string()>
                <p id="feedback-text" class=if all { "good" } else { "bad" }>{msg}</p>
                <button id="continue" class="primary" on:click=move |_| act(|c| c.next())>"Continue"</button>
            </div>
        }
    };

    let done = move || {
        let r = ui.record.get();
        let completion = completion.clone();
        let timing = ui.timing.get_untracked();
        let (r1, r2, r3) = (r.clone(), r.clone(), r.clone());
        if let Some(url) = completion.clone() {
            // Redirect once nothing is left to send (or after 20 s at most).
            let start = now();
            wasm_bindgen_futures::spawn_local(async move {
                loop {
                    outbox::sleep(1500.0).await;
                    let waiting = ui.pending.try_get_untracked().unwrap_or(0);
                    if waiting == 0 || now() - start > 20_000.0 {
                        break;
                    }
                }
                if ui.screen.try_get_untracked() == Some(Screen::Done) {
                    let _ = web::window().location().set_href(&url);
                }
            });
        }
        view! {
            <div class="panel done">
                <h2>"Thank you!"</h2>
                <p>"You have finished. Your answers are saved."</p>
                {completion.map(|u| view! { <p>"You will be taken back in a moment, or "<a id="completion-link" href=u>"continue here"</a>"."</p> })}
                <p class="small" id="post-status">{move || match ui.pending.get() {
                    0 => String::new(),
                    n => format!("Sending your results… ({n} waiting; keep this tab open)"),
                }}</p>
                <div class="actions">
                    <button id="download-csv" on:click=move |_| if let Some(r) = &r1 { download(r, true, ui.note) }>"Download CSV"</button>
                    <button id="download-json" on:click=move |_| if let Some(r) = &r2 { download(r, false, ui.note) }>"Download JSON"</button>
                    {app.map(|app| view! {
                        <button id="open-results" on:click=move |_| { app.result.set(r3.clone()); app.error.set(None); web::set_hash("#/results"); }>"Open in Results"</button>
                    })}
                </div>
                <p class="small" id="timing-summary">{format!(
                    "Frame timing: {} timed frames, median |error| {:.2} ms, {:.1} % within one refresh.",
                    timing.n, timing.median_abs_err_ms, timing.within_one_frame_fraction * 100.0)}</p>
                {(show && r.is_some()).then(|| view! { <h3>"Your results"</h3> <Charts record=r.clone().unwrap()/> })}
            </div>
        }
    };

    let size_style = move || {
        let px = ui.px.get();
        format!("width:{px}px;height:{px}px")
    };

    view! {
        <section id="take" class="take"
            data-state=state
            data-task=move || ui.cur.with(|c| c.task.clone())
            data-block=move || ui.cur.with(|c| c.block.to_string())
            data-trial=move || ui.cur.with(|c| c.trial.to_string())
            data-global=move || ui.cur.with(|c| c.global.to_string())
            data-step=move || ui.cur.with(|c| c.step.to_string())
            data-awaiting=move || ui.awaiting.with(|a| a.as_ref().map(|a| a.kind()).unwrap_or("none"))
            data-pending=move || ui.pending.get().to_string()>
            <p class="progress" id="take-progress" class:hidden=move || !matches!(ui.screen.get(), Screen::Trial | Screen::Instructions | Screen::Feedback | Screen::Paused)>
                {progress}
            </p>
            {move || ui.note.get().map(|n| view! { <p class="error" role="alert" id="take-note">{n}</p> })}
            {move || match ui.screen.get() {
                Screen::Loading => view! { <p class="small">"Loading…"</p> }.into_any(),
                Screen::Error(e) => view! {
                    <div class="panel">
                        <h2>"This study link does not work"</h2>
                        <p class="error" id="study-error" role="alert">{e}</p>
                        <p class="small">"Please tell the researcher who sent you the link. Nothing has started."</p>
                    </div>
                }.into_any(),
                Screen::Offer { done, total } => view! {
                    <div class="panel offer">
                        <h2>"Welcome back"</h2>
                        <p>{format!("You have already done {done} of {total} rounds of this study in this browser.")}</p>
                        <div class="actions">
                            <button id="resume" class="primary" on:click=move |_| act(|c| c.calibrate())>"Resume where you left off"</button>
                            <button id="restart" on:click=move |_| act(|c| {
                                c.session = Session::for_link(c.session.config.clone(), fresh_seed());
                                outbox::remove(&format!("{}.sent", c.key));
                                c.save();
                                c.calibrate();
                            })>"Start over"</button>
                        </div>
                    </div>
                }.into_any(),
                Screen::Calibrating => view! { <p class="small" id="calibrating">"Getting ready…"</p> }.into_any(),
                Screen::Instructions => instructions().into_any(),
                Screen::Feedback => feedback().into_any(),
                Screen::Paused => view! {
                    <div class="panel paused">
                        <h2>"Paused"</h2>
                        <p>"The window lost focus, so this round was stopped. It starts again from its beginning."</p>
                        <button id="continue" class="primary" on:click=move |_| act(|c| c.start_trial())>"Continue"</button>
                    </div>
                }.into_any(),
                Screen::Done => done().into_any(),
                Screen::Trial => ().into_any(),
            }}
            <div class="stage-wrap" class:hidden=move || !on_canvas() style=size_style>
                <canvas id="take-canvas" class="take-canvas" role="img" aria-label="the task"></canvas>
                <div class="overlay">
                    {move || ui.awaiting.get().map(|a| overlay(&a, ui.sel, on_index))}
                </div>
            </div>
            <div class="below" class:hidden=move || !on_canvas()>
                {move || ui.awaiting.get().map(|a| below(&a, ui.sel, on_index, on_confirm))}
            </div>
        </section>
    }
}

#[allow(dead_code)]
fn _position_is_copy(p: Position) -> Position {
    p
}
