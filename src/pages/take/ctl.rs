//! The participant controller: the session, the presenter of the trial on screen, and storage.
//!
//! Everything with a rule in it lives in the core (`people::Session`: plan, scoring, records;
//! `people::presenter::Presenter`: one trial frame by frame, with its natively tested frame lock,
//! response windows, N-back timing, recall marks and blur restarts). This module only feeds the
//! presenter `requestAnimationFrame` timestamps, inputs and page events, carries out its actions (paint,
//! show controls, record) and moves between the page's screens. The browser glue (clock, seed, canvas,
//! test hook) is in `browser`, sending the data in `post`, the page's signals and screens in `ui`.

use std::cell::RefCell;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wmlab_core::display::Frame;
use wmlab_core::people::presenter::{Action, Awaiting, Input, Presenter};
use wmlab_core::people::session::{PageEvent, PageEventKind};
use wmlab_core::people::study::{Outcome, StudyText};
use wmlab_core::people::survey::SurveyAt;
use wmlab_core::people::{Session, StudyTask, TrialResult, estimate_refresh};

use super::browser::{
    answer_js, canvas, display_facts, flags, fresh_seed, now, publish_hook, trial_view, values_js, window_css,
};
use super::ui::{Cur, Exit, Screen, Ui};
use crate::components::painter;
use crate::platform::outbox;
use crate::platform::web;

const CALIB_FRAMES: usize = 60;

pub struct Ctl {
    pub ui: Ui,
    pub key: String,
    pub session: Session,
    /// Test support: `localStorage.wmlab_fast = '1'` (one refresh per timed frame, N-back waits).
    pub fast: bool,
    /// Test support: `localStorage.wmlab_test = '1'` (the step and its answer on `window.__wmlab_test`).
    pub test: bool,
    pub refresh: f64,
    calib: Option<Vec<f64>>,
    presenter: Option<Presenter>,
    /// Page events since the last trial (recorded with the next one).
    events: Vec<PageEvent>,
    css_px: f64,
    /// The pointer types that touched the page during the trial on screen, in order of first use.
    pointers: Vec<String>,
    /// Pointer moves during the trial on screen.
    moves: u32,
    /// When the block's instructions were shown (`now()`), until its first trial starts.
    instructions_at: Option<f64>,
    /// Time on the instructions, for the block's first trial.
    instructions_ms: Option<f64>,
}

thread_local! {
    static CTL: RefCell<Option<Ctl>> = const { RefCell::new(None) };
    static RAF: RefCell<Option<Closure<dyn FnMut(f64)>>> = const { RefCell::new(None) };
}

/// Install the controller (one participant page at a time).
pub fn install(ui: Ui, key: String, session: Session) {
    let refresh = session.refresh_ms.unwrap_or(1000.0 / 60.0);
    let flags = flags();
    let ctl = Ctl {
        ui,
        key,
        session,
        fast: flags.fast,
        test: flags.hook,
        refresh,
        calib: None,
        presenter: None,
        events: vec![],
        css_px: 480.0,
        pointers: vec![],
        moves: 0,
        instructions_at: None,
        instructions_ms: None,
    };
    CTL.with(|c| *c.borrow_mut() = Some(ctl));
}

pub fn uninstall() {
    CTL.with(|c| {
        if let Ok(mut g) = c.try_borrow_mut() {
            *g = None;
        }
    });
}

/// Run `f` on the controller (nothing if none is installed or it is busy).
pub fn act<R>(f: impl FnOnce(&mut Ctl) -> R) -> Option<R> {
    CTL.with(|c| c.try_borrow_mut().ok().and_then(|mut g| g.as_mut().map(f)))
}

/// The person's input (a click, tap or key), timed now.
pub fn input(i: Input) {
    let t = now();
    act(|c| {
        if let Some(p) = c.presenter.as_mut() {
            let acts = p.on_input(i, t);
            c.apply(acts);
        }
    });
}

fn request_frame() {
    RAF.with(|r| {
        let mut r = r.borrow_mut();
        if r.is_none() {
            *r = Some(Closure::new(|ts: f64| {
                if act(|c| c.tick(ts)).unwrap_or(false) {
                    request_frame();
                }
            }));
        }
        if let Some(cb) = r.as_ref() {
            let _ = web::window().request_animation_frame(cb.as_ref().unchecked_ref());
        }
    });
}

impl Ctl {
    /// `window.__wmlab_test` (only with `localStorage.wmlab_test = '1'`).
    fn hook(&self, step: Option<usize>, awaiting: Option<&str>, target: JsValue) {
        if self.test {
            publish_hook(&self.key, &self.ui.cur.get_untracked(), step, awaiting, target);
        }
    }

    fn paint(&self, f: &Frame) {
        if let Some(c) = canvas() {
            painter::paint(&c, f, self.css_px);
        }
    }

    pub fn save(&self) {
        if outbox::set(&self.key, &self.session.to_json()).is_err() {
            // The session goes on in memory and the data still go to the researcher; what was saved
            // before stays as it was.
            self.ui.note.set(Some(
                "This browser would not save your answers (its storage is full, or blocked as in a private window). \
                 You can go on: your answers are kept in this tab and still sent to the researcher, \
                 but please do not close or reload this tab before the end."
                    .into(),
            ));
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
        let Some(p) = self.presenter.as_mut() else { return false };
        let acts = p.on_frame(ts);
        self.apply(acts);
        self.presenter.as_ref().is_some_and(Presenter::running)
    }

    /// Carry out the presenter's actions.
    fn apply(&mut self, acts: Vec<Action>) {
        for a in acts {
            match a {
                Action::Paint(f) => self.paint(&f),
                Action::Await(w) => self.ui.awaiting.set(w),
                Action::Step(i) => {
                    self.ui.cur.update(|c| c.step = i);
                    let target = self.presenter.as_ref().and_then(|p| match p.expected_values() {
                        Some(v) => Some(values_js(&v)),
                        None => p.expected().as_ref().map(answer_js),
                    });
                    let kind = self.ui.awaiting.with_untracked(|w| w.as_ref().map(Awaiting::kind));
                    self.hook(Some(i), kind, target.unwrap_or(JsValue::NULL));
                }
                Action::Answered => {
                    let step = self.presenter.as_ref().map(Presenter::step);
                    self.hook(step, None, JsValue::NULL);
                }
                Action::Finished(result) => {
                    self.presenter = None;
                    self.finish_trial(result);
                }
                Action::Stopped(events) => {
                    // The trial restarts from its first frame (it was not recorded).
                    self.presenter = None;
                    self.events = events;
                    self.hook(None, None, JsValue::NULL);
                    let resized = self.events.last().is_some_and(|e| e.kind == PageEventKind::Resize);
                    self.ui.screen.set(Screen::Paused { resized });
                }
            }
        }
    }

    pub fn set_cur(&mut self, resumed: bool) {
        let Some(pos) = self.session.current() else { return };
        let b = &self.session.blocks[pos.block];
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
            level: self.session.adaptive_level(pos),
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
        self.instructions_at = Some(now());
        self.hook(None, None, JsValue::NULL);
        self.ui.screen.set(Screen::Instructions);
    }

    pub fn start_trial(&mut self) {
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
        self.pointers.clear();
        self.moves = 0;
        if let Some(t) = self.instructions_at.take() {
            self.instructions_ms = Some(now() - t);
        }
        self.css_px = match self.session.stimulus_side(window_css()) {
            Ok(px) => px,
            Err(e) => {
                // The study's visual angle does not fit this window: say so; "Try again" comes back here.
                self.ui.screen.set(Screen::NoFit(e.to_string()));
                return;
            }
        };
        self.ui.px.set(self.css_px);
        let (p, acts) = Presenter::new(trial, self.refresh, self.fast, std::mem::take(&mut self.events));
        self.presenter = Some(p);
        self.ui.screen.set(Screen::Trial);
        self.apply(acts);
        self.hook(None, None, JsValue::NULL);
        request_frame();
    }

    fn finish_trial(&mut self, mut res: TrialResult) {
        let pos = res.position;
        let mut view = trial_view(self.css_px, std::mem::take(&mut self.pointers));
        view.pointer_moves = self.moves;
        view.instructions_ms = self.instructions_ms.take();
        res.view = Some(view);
        match self.session.record(res) {
            Ok(out) => {
                self.save();
                if out.block_finished {
                    self.send(pos.block, false);
                }
                if out.practice {
                    // PI-LLM: the right values, key by key, beside what was typed.
                    let detail = self.session.done.last().filter(|d| d.task == StudyTask::Pi).map(|d| {
                        let keys = match d.row.extra.get("pi_keys") {
                            Some(wmlab_core::record::Setting::Text(k)) => k.split(',').map(str::to_string).collect(),
                            _ => Vec::new(),
                        };
                        keys.into_iter().zip(d.row.targets.iter().cloned()).collect::<Vec<(String, String)>>()
                    });
                    self.ui.feedback_detail.set(detail.unwrap_or_default());
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

    pub fn next(&mut self) {
        match self.session.current() {
            None => self.done(),
            Some(p) if p.trial == 0 => self.show_block_start(false),
            Some(_) => self.start_trial(),
        }
    }

    pub fn done(&mut self) {
        self.presenter = None;
        if self.session.needs_survey(SurveyAt::End) {
            self.show_survey();
            return;
        }
        let r = self.record();
        // Into this browser's results history (the same result again is not added twice).
        crate::platform::history::add_later(r.clone());
        let first = self.ui.record.get_untracked().is_none();
        self.ui.timing.set(self.session.timing());
        self.ui.record.set(Some(r));
        self.ui.exit.set(self.exit());
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

    /// Before the first trial: the chinrest where the study asks for it and it is not done yet, then
    /// the refresh rate.
    pub fn calibrate(&mut self) {
        if self.session.needs_calibration() {
            self.ui.screen.set(Screen::Chinrest);
            return;
        }
        if self.session.needs_survey(SurveyAt::Start) {
            self.show_survey();
            return;
        }
        self.measure_refresh();
    }

    /// The study's questionnaire (loaded first where it is a file of the study's).
    fn show_survey(&mut self) {
        self.ui.screen.set(Screen::Loading);
        let (cfg, screen) = (self.session.config.clone(), self.ui.screen);
        wasm_bindgen_futures::spawn_local(async move {
            let _ = screen.try_set(match super::survey::load(&cfg).await {
                Ok(q) => Screen::Survey(q),
                Err(e) => Screen::Error(e),
            });
        });
    }

    /// The questionnaire's checked answers: kept (saved), then on: to the tasks, or to the end.
    pub fn surveyed(&mut self, answers: std::collections::BTreeMap<String, String>) {
        self.session.set_survey(answers);
        self.save();
        if self.session.is_finished() {
            self.done();
        } else {
            self.calibrate();
        }
    }

    /// The chinrest's result: kept in the session (saved), then on to the refresh rate.
    pub fn calibrated(&mut self, cal: wmlab_core::people::chinrest::Calibration) {
        self.session.set_calibration(cal);
        self.save();
        self.calibrate();
    }

    /// The participant moved (or changed screens): the chinrest again; later trials use the new result.
    pub fn measure_again(&mut self) {
        self.session.calibration = None;
        self.ui.screen.set(Screen::Chinrest);
    }

    fn measure_refresh(&mut self) {
        self.calib = Some(Vec::with_capacity(CALIB_FRAMES));
        self.ui.screen.set(Screen::Calibrating);
        request_frame();
    }

    /// The texts to show before the first trial (extra instructions; consent while not agreed to).
    pub fn welcome_texts(&self) -> Option<(Option<StudyText>, Option<StudyText>)> {
        let info = self.session.config.info.clone().filter(|_| self.session.done.is_empty());
        let consent = self.session.config.consent.clone().filter(|_| self.session.needs_consent());
        (info.is_some() || consent.is_some()).then_some((info, consent))
    }

    /// The participant agreed to `consent` (the text as shown) or read the instructions.
    pub fn agree(&mut self, consent: Option<&str>) {
        if let Some(text) = consent {
            self.session.agree(web::now_iso(), text);
        }
        self.save();
    }

    /// The participant did not agree: forget the (empty) session; nothing is sent. The study's
    /// `declined=` URL, filled, is offered.
    pub fn decline(&mut self) {
        let url = self.session.config.outcome_url(Outcome::Declined, &self.session_id());
        outbox::remove(&self.key);
        outbox::remove(&format!("{}.nonce", self.key));
        self.ui.screen.set(Screen::Declined(url));
    }

    /// The session's own id (`{session}` in outcome URLs, DataPipe's file name): a random nonce kept
    /// beside the session.
    pub fn session_id(&self) -> String {
        outbox::get(&format!("{}.nonce", self.key)).unwrap_or_else(|| self.key.clone())
    }

    /// Where the participant goes once their data are acknowledged: MTurk's submit (a form POST of the
    /// assignment) for an MTurk HIT, else the study's completion URL with its placeholders filled.
    pub fn exit(&self) -> Option<Exit> {
        let cfg = &self.session.config;
        if let Some(action) = cfg.mturk_submit_url() {
            let assignment = cfg.external_ids.get("assignmentId").cloned().unwrap_or_default();
            return Some(Exit::Mturk { action, assignment, session: self.session_id() });
        }
        cfg.outcome_url(Outcome::Completed, &self.session_id()).map(Exit::Go)
    }

    /// Keep what the browser says of the display now (each time the session is opened or resumed).
    pub fn note_display(&mut self) {
        self.session.set_display(display_facts());
    }

    /// Text was pasted into the page (a questionnaire's field): counted for the session.
    pub fn pasted(&mut self) {
        self.session.note_paste();
        self.save();
    }

    /// The pointer moved over the page: counted for the trial on screen.
    pub fn pointer_moved(&mut self) {
        if self.presenter.is_some() {
            self.moves = self.moves.saturating_add(1);
        }
    }

    /// A pointer (mouse, touch, pen) pressed on the page: kept for the trial on screen.
    pub fn pointer(&mut self, kind: &str) {
        let Some(k) = wmlab_core::people::device::pointer_kind(kind) else { return };
        if self.presenter.is_some() && !self.pointers.iter().any(|p| p == k) {
            self.pointers.push(k.to_string());
        }
    }

    /// Start the study afresh (a new seed for anonymous links).
    pub fn restart(&mut self) {
        self.session = Session::for_link(self.session.config.clone(), fresh_seed());
        self.note_display();
        outbox::remove(&format!("{}.sent", self.key));
        self.save();
        self.calibrate();
    }

    /// A page event: to the trial on screen (blur stops it), else kept for the next trial.
    pub fn event(&mut self, kind: PageEventKind) {
        let ev = PageEvent { kind, t_ms: now() };
        if kind == PageEventKind::Resize {
            // A stimulus at a visual angle keeps its size unless the window can no longer hold it
            // (then the trial stops, and "Continue" says why).
            let px = self.session.stimulus_side(window_css()).unwrap_or(f64::NAN);
            if self.presenter.is_none() || px == self.css_px {
                return;
            }
            if px.is_finite() {
                self.css_px = px;
                self.ui.px.set(px);
            }
        }
        match self.presenter.as_mut() {
            Some(p) => {
                let acts = p.on_page_event(ev);
                self.apply(acts);
            }
            None => self.events.push(ev),
        }
    }
}
