//! Take a study: the participant's flow from a study link (`#/take?<query>`).
//!
//! The core decides everything: `people::Session` (plan, stimuli, scoring, records, resume),
//! `people::timing` (frames per step) and `people::presenter` (one trial frame by frame: frame lock,
//! response windows, N-back timing, recall marks and undo, blur restarts; natively tested). This page
//! parses the link, restores or starts the session, and draws: [`ctl`] drives the presenter from
//! `requestAnimationFrame` and sends records out, [`screens`] are the views between trials, and
//! `components::responses` the controls over and below the stimulus.
//!
//! A blur or hidden tab during a trial stops it, shows the pause screen and records the events; the
//! interrupted trial (never recorded) restarts from its first frame on "Continue".
//!
//! Test support (never on by default): `localStorage.wmlab_fast = '1'` shows every timed frame for one
//! refresh and lets N-back trials wait for an answer; `localStorage.wmlab_test = '1'` exposes the current
//! step and its correct answer on `window.__wmlab_test`.

mod browser;
mod chinrest;
mod ctl;
mod post;
mod screens;
mod survey;
mod ui;

use leptos::prelude::*;
use wmlab_core::people::presenter::Awaiting;
use wmlab_core::people::session::PageEventKind;
use wmlab_core::people::study::{DATAPIPE_URL, Outcome, StudyText, datapipe_condition_url, parse_datapipe_condition};
use wmlab_core::people::{Session, StudyConfig};

use crate::components::responses::{below, overlay};
use crate::platform::outbox;
use crate::platform::web;
use browser::{fresh_seed, session_key};
use ctl::{act, input};
use ui::{Screen, Ui};

/// How the end screen draws a participant's results (`results=1`): the whole app provides its charts
/// (`app::App`); the participant's page alone (`take.html`) has none, so that its download stays light,
/// and links to the whole app's Results page with the record in the link instead.
#[derive(Clone, Copy)]
pub struct ResultsView(pub fn(wmlab_core::record::ResultRecord) -> AnyView);

/// Who may take the study is checked first (device, window: `devices=`, `min_window=`), before any
/// consent or storage; one who may not is told why in plain words and offered the `screened=` URL.
/// Then this tab claims the study and opens its session.
fn admit(cfg: StudyConfig, ui: Ui) {
    if let Some(why) = cfg.eligibility().check(&browser::display_facts()) {
        let session = format!("{:016x}", fresh_seed());
        let url = cfg.outcome_url(Outcome::ScreenedOut, &session);
        ui.screen.set(Screen::ScreenedOut { why: why.to_string(), fixable: why.fixable(), url });
        ADMIT.with(|a| *a.borrow_mut() = Some(cfg));
        return;
    }
    crate::platform::tabs::claim(&session_key(&cfg), move |mine| {
        if mine {
            start(cfg, ui);
        } else {
            ui.screen.set(Screen::Elsewhere);
        }
    });
}

thread_local! {
    /// A study whose participant was screened out for a window too small: "Try again" checks anew.
    static ADMIT: std::cell::RefCell<Option<StudyConfig>> = const { std::cell::RefCell::new(None) };
}

/// "Try again" after making the window larger.
fn readmit(ui: Ui) {
    if let Some(cfg) = ADMIT.with(|a| a.borrow_mut().take()) {
        admit(cfg, ui);
    }
}

/// Restore or start the link's session; returns the first screen and whether the session is new.
fn open(cfg: StudyConfig, ui: Ui) -> (Screen, bool) {
    let key = session_key(&cfg);
    let saved = outbox::get(&key).map(|t| Session::from_json(&t));
    let fresh = !matches!(saved, Some(Ok(ref s)) if s.config == cfg);
    let (mut session, screen) = match saved {
        Some(Ok(s)) if s.config == cfg => {
            let (done, total) = s.progress();
            let screen = if s.is_finished() {
                Screen::Done
            } else if done > 0 {
                Screen::Offer { done, total }
            } else {
                Screen::Loading
            };
            (s, screen)
        }
        Some(Err(e)) => {
            ui.note.set(Some(format!("A saved session for this link could not be resumed ({e}); starting afresh.")));
            (Session::for_link(cfg.clone(), fresh_seed()), Screen::Loading)
        }
        _ => (Session::for_link(cfg.clone(), fresh_seed()), Screen::Loading),
    };
    session.set_display(browser::display_facts());
    if outbox::get(&format!("{key}.nonce")).is_none() {
        let r = || (js_sys::Math::random() * 4294967296.0) as u32;
        let _ = outbox::set(&format!("{key}.nonce"), &format!("{:08x}{:08x}", r(), r()));
    }
    ctl::install(ui, key, session);
    (screen, fresh)
}

/// A new session of a link with `conditions=` and `datapipe=` takes the condition DataPipe's API
/// assigns (balanced across the study); if DataPipe does not answer, the one the participant id or
/// seed gives, and the record says why.
async fn assign_condition(cfg: &StudyConfig) {
    let (Some(exp), true) = (&cfg.datapipe, cfg.condition_count() > 0) else { return };
    let data = cfg.datapipe_url.clone().unwrap_or_else(|| DATAPIPE_URL.to_string());
    let body = serde_json::json!({ "experimentID": exp }).to_string();
    let got = web::post_json_text(&datapipe_condition_url(&data), &body)
        .await
        .and_then(|t| parse_datapipe_condition(&t).map_err(String::from));
    act(|c| match got {
        Ok(k) => c.session = c.session.clone().in_condition(k, "datapipe"),
        Err(e) => {
            if let Some(cond) = c.session.condition.as_mut() {
                cond.source = format!("{} (DataPipe's condition API: {e})", cond.source);
            }
        }
    });
}

/// A study text as shown: given in the link, or loaded from the study's site.
async fn load(t: Option<StudyText>) -> Result<Option<String>, String> {
    match t {
        None => Ok(None),
        Some(StudyText::Text(s)) => Ok(Some(s)),
        Some(StudyText::Path(p)) => web::fetch_bytes(&p)
            .await
            .and_then(|b| StudyText::checked_file_text(&p, &b).map_err(String::from))
            .map(Some)
            .map_err(|e| format!("{e} The study's text could not be shown, so the study cannot start.")),
    }
}

/// Measure the refresh rate, then the first instructions (after JATOS is ready, inside JATOS).
fn begin() {
    outbox::jatos_on_load(|| {
        act(|c| c.calibrate());
    });
}

/// Open the link's session (this tab holds the study) and show its first screen.
fn start(cfg: StudyConfig, ui: Ui) {
    let (screen, fresh) = open(cfg.clone(), ui);
    match screen {
        Screen::Done => {
            act(|c| c.done());
        }
        Screen::Offer { .. } => {
            act(|c| c.set_cur(true));
            ui.screen.set(screen);
        }
        _ => wasm_bindgen_futures::spawn_local(async move {
            if fresh {
                assign_condition(&cfg).await;
            }
            act(|c| c.save());
            match act(|c| c.welcome_texts()).flatten() {
                Some((info, consent)) => {
                    ui.screen.set(match (load(info).await, load(consent).await) {
                        (Ok(info), Ok(consent)) => Screen::Welcome { info, consent },
                        (Err(e), _) | (_, Err(e)) => Screen::Error(e),
                    });
                }
                None => begin(),
            }
        }),
    }
    // Anything still queued from before (a reload) goes out now.
    if !outbox::load_outbox().is_empty() {
        outbox::flush(move |n| {
            let _ = ui.pending.try_set(n);
        });
    }
}

#[component]
pub fn Take(query: String) -> impl IntoView {
    let ui = Ui::new();
    let mut opts: (bool, bool) = (false, false);

    // Never half-start on a bad link; one tab per study: a second tab of the same link (its session
    // key) waits for nothing and writes nothing (`platform::tabs`).
    // The study's parameters: the link's after `#/take?`, and those a platform put before the `#`.
    let mut preview = None;
    match StudyConfig::from_location(&web::search(), &query) {
        Err(e) => ui.screen.set(Screen::Error(e.to_string())),
        // An MTurk worker looking at the HIT before accepting it: what the study is, nothing more.
        Ok(cfg) if cfg.mturk_preview() => {
            preview = Some(cfg);
            ui.screen.set(Screen::Preview);
        }
        Ok(cfg) => {
            opts = (cfg.fullscreen, cfg.show_results);
            admit(cfg, ui);
        }
    }

    let keys = window_event_listener(leptos::ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.repeat() || ui.screen.get_untracked() != Screen::Trial {
            return;
        }
        let key = ev.key();
        if let Some(i) = ui.awaiting.with_untracked(|w| w.as_ref().and_then(|w| w.key_input(&key))) {
            ev.prevent_default();
            input(i);
        }
    });
    let page_event = |kind| {
        act(|c| c.event(kind));
    };
    let blur = window_event_listener(leptos::ev::blur, move |_| page_event(PageEventKind::Blur));
    let focus = window_event_listener(leptos::ev::focus, move |_| page_event(PageEventKind::Focus));
    let resize = window_event_listener(leptos::ev::resize, move |_| page_event(PageEventKind::Resize));
    let vis = window_event_listener_untyped("visibilitychange", move |_| {
        let hidden = web::window().document().map(|d| d.hidden()).unwrap_or(false);
        page_event(if hidden { PageEventKind::Hidden } else { PageEventKind::Visible });
    });
    let pointer = window_event_listener(leptos::ev::pointerdown, move |ev: web_sys::PointerEvent| {
        let kind = ev.pointer_type();
        act(|c| c.pointer(&kind));
    });
    let moved = window_event_listener(leptos::ev::pointermove, move |_| {
        act(|c| c.pointer_moved());
    });
    let paste = window_event_listener_untyped("paste", move |_| {
        act(|c| c.pasted());
    });
    let fs = window_event_listener_untyped("fullscreenchange", move |_| {
        let on = web::window().document().and_then(|d| d.fullscreen_element()).is_some();
        page_event(if on { PageEventKind::FullscreenEnter } else { PageEventKind::FullscreenExit });
    });
    on_cleanup(move || {
        for h in [keys, blur, focus, resize, vis, fs, pointer, moved, paste] {
            h.remove();
        }
        ctl::uninstall();
    });

    let practice = move || ui.cur.with(|c| c.practice);
    let state = move || ui.screen.with(|s| s.name(practice()));
    let on_canvas = move || matches!(ui.screen.get(), Screen::Trial);
    // PI-LLM's typed answer takes the stimulus's place (the form is below it; on a phone the keyboard
    // leaves little room).
    let typing = move || ui.awaiting.with(|a| matches!(a, Some(Awaiting::Typed { .. })));
    let (fs_wanted, show) = opts;
    let size_style = move || {
        let px = ui.px.get();
        format!("width:{px}px;height:{px}px")
    };
    let shows_progress = move || {
        matches!(ui.screen.get(), Screen::Trial | Screen::Instructions | Screen::Feedback | Screen::Paused { .. })
    };

    view! {
        <section id="take" class="take"
            data-state=state
            data-task=move || ui.cur.with(|c| c.task.clone())
            data-block=move || ui.cur.with(|c| c.block.to_string())
            data-trial=move || ui.cur.with(|c| c.trial.to_string())
            data-global=move || ui.cur.with(|c| c.global.to_string())
            data-step=move || ui.cur.with(|c| c.step.to_string())
            data-awaiting=move || ui.awaiting.with(|a| a.as_ref().map(Awaiting::kind).unwrap_or("none"))
            data-pending=move || ui.pending.get().to_string()>
            <p class="progress" id="take-progress" class:hidden=move || !shows_progress()>{move || screens::progress(ui)}</p>
            {move || ui.note.get().map(|n| view! { <p class="error" role="alert" id="take-note">{n}</p> })}
            {move || match ui.screen.get() {
                Screen::Loading => view! { <p class="small">"Loading…"</p> }.into_any(),
                Screen::Error(e) => screens::error(e).into_any(),
                Screen::Offer { done, total } => screens::offer(done, total).into_any(),
                Screen::Welcome { info, consent } => screens::welcome(info, consent, begin).into_any(),
                Screen::Declined(url) => screens::declined(url).into_any(),
                Screen::Preview => screens::preview(preview.clone()).into_any(),
                Screen::ScreenedOut { why, fixable, url } => screens::screened_out(why, fixable, url, move || readmit(ui)).into_any(),
                Screen::Elsewhere => screens::elsewhere().into_any(),
                Screen::Calibrating => view! { <p class="small" id="calibrating">"Getting ready…"</p> }.into_any(),
                Screen::Chinrest => chinrest::chinrest().into_any(),
                Screen::Survey(q) => survey::form(q).into_any(),
                Screen::NoFit(why) => screens::no_fit(why).into_any(),
                Screen::Instructions => screens::instructions(ui, fs_wanted).into_any(),
                Screen::Feedback => screens::feedback(ui).into_any(),
                Screen::Paused { resized } => screens::paused(resized).into_any(),
                Screen::Done => screens::done(ui, show, ui.exit.get_untracked()).into_any(),
                Screen::Trial => ().into_any(),
            }}
            <div class="stage-wrap" class:hidden=move || !on_canvas() || typing() style=size_style>
                <canvas id="take-canvas" class="take-canvas" role="img" aria-label="the task"></canvas>
                <div class="overlay">{move || ui.awaiting.get().map(|a| overlay(&a, input))}</div>
            </div>
            <div class="below" class:hidden=move || !on_canvas()>
                {move || ui.awaiting.get().map(|a| below(&a, input))}
            </div>
        </section>
    }
}
