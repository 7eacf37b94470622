//! The participant's screens between trials: instructions, practice feedback, pause, welcome back and
//! the end (downloads, results, the completion redirect).

use leptos::prelude::*;
use wmlab_core::people::device::Devices;
use wmlab_core::people::{StudyConfig, StudyTask, text};
use wmlab_core::record::ResultRecord;
use wmlab_core::task::TaskId;

use super::browser::now;
use super::ctl::act;
use super::ui::{Exit, Screen, Ui};
use crate::app::AppState;
use crate::platform::outbox;
use crate::platform::web;

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

/// The line above the stimulus: task, part, round.
pub fn progress(ui: Ui) -> String {
    ui.cur.with(|c| {
        let unit = if c.n_back.is_some() {
            "block"
        } else if c.practice {
            "practice round"
        } else {
            "round"
        };
        if c.level.is_some() {
            // A staircase block has no fixed length: it ends when the difficulty has settled.
            return format!("{} · part {} of {} · {unit} {}", c.title, c.block + 1, c.blocks, c.trial + 1);
        }
        format!("{} · part {} of {} · {unit} {} of {}", c.title, c.block + 1, c.blocks, c.trial + 1, c.trials)
    })
}

pub fn instructions(ui: Ui, fs_wanted: bool) -> impl IntoView {
    let c = ui.cur.get();
    let task = StudyTask::parse(&c.task);
    let body = task.map(text::instructions).unwrap_or_default();
    let note = match (c.practice, c.n_back) {
        (true, Some(_)) => format!("{} This practice block has 12 letters or squares.", text::practice_note(1)),
        (true, None) => text::practice_note(c.trials),
        (false, n) => text::main_note(n),
    };
    let nb = c.n_back.map(|n| {
        let back = if n == 1 { "just".to_string() } else { format!("{n} steps") };
        format!("N = {n}: press “match” when the item is the same as the one {back} before.")
    });
    let keys_note = match task {
        Some(StudyTask::Nback(_)) => "Press the space bar or the “match” button.",
        Some(StudyTask::Pi) => {
            "Just watch the words. At the end, type each category's last word in its box: Enter goes to the next \
             box, and “Done” (or Enter in the last box) finishes."
        }
        Some(StudyTask::Worm(TaskId::Sfr)) => {
            "Click or tap the squares (again to undo), then “Done” or Enter. Backspace undoes the last one."
        }
        Some(StudyTask::Worm(TaskId::Vsr)) => {
            "Click or tap the places in order (or keys 1–9); each shows its number. Click one again or \
             press Backspace to undo, then “Done” or Enter."
        }
        Some(StudyTask::Worm(TaskId::Lsr)) => {
            "Click or tap the words in order (or keys 1–9 for the places); each shows its number. Click one \
             again or press Backspace to undo, then “Done” or Enter."
        }
        Some(StudyTask::Worm(TaskId::Smu | TaskId::Cs)) => {
            "Click or tap your answer in the picture, or press its number 1–9 (CS questions: keys F and J \
             or the buttons)."
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
            <p class="small" id="keys-note">{keys_note}</p>
            <div class="actions">
                <button id="start" class="primary" on:click=move |_| { act(|c| c.start_trial()); }>
                    {if c.resumed { "Continue" } else { "Start" }}
                </button>
                {fs_wanted.then(|| view! { <button id="fullscreen" on:click=move |_| fullscreen()>"Full screen"</button> })}
            </div>
        </div>
    }
}

/// Paragraphs of a plain text (blank lines between them); never HTML.
fn paragraphs(text: &str) -> impl IntoView + use<> {
    text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).map(|p| view! { <p>{p.to_string()}</p> }).collect_view()
}

/// Before the first trial: the study's extra instructions and its consent text, which must be agreed
/// to (a box to tick, then “I agree”) before anything starts; “I do not agree” ends the study.
pub fn welcome(info: Option<String>, consent: Option<String>, begin: fn()) -> impl IntoView {
    let ticked = RwSignal::new(false);
    let needs = consent.is_some();
    let agreed = consent.clone();
    view! {
        <div class="panel welcome">
            <h2>"Before you start"</h2>
            {info.map(|t| view! { <div id="study-info" class="study-text">{paragraphs(&t)}</div> })}
            {consent.map(|t| view! {
                <h3>"Consent"</h3>
                <div id="consent-text" class="study-text consent-text">{paragraphs(&t)}</div>
                <label class="check consent-check">
                    <input type="checkbox" id="consent-check" on:change=move |ev| ticked.set(event_target_checked(&ev))/>
                    " I have read this and agree to take part."
                </label>
            })}
            <div class="actions">
                <button id="agree" class="primary" disabled=move || needs && !ticked.get()
                    on:click=move |_| {
                        act(|c| c.agree(agreed.as_deref()));
                        begin();
                    }>
                    {if needs { "I agree — start" } else { "Continue" }}
                </button>
                {needs.then(|| view! { <button id="decline" on:click=move |_| { act(|c| c.decline()); }>"I do not agree"</button> })}
            </div>
        </div>
    }
}

pub fn declined(url: Option<String>) -> impl IntoView {
    view! {
        <div class="panel declined">
            <h2>"You chose not to take part"</h2>
            <p id="declined-text">{if url.is_some() {
                "Nothing was recorded. Please use the button below to tell the study's platform."
            } else {
                "Nothing was recorded. You can close this tab."
            }}</p>
            {url.map(|u| view! { <p><a id="declined-return" class="button primary" href=u>"Return to the study's platform"</a></p> })}
        </div>
    }
}

/// An MTurk HIT in preview: what the study asks; nothing is stored until the worker accepts the HIT.
pub fn preview(cfg: Option<StudyConfig>) -> impl IntoView {
    let tasks = cfg
        .as_ref()
        .map(|c| c.tasks.iter().map(|t| t.title().to_string()).collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let device = cfg.as_ref().map(|c| match c.devices {
        Devices::Desktop => "on a computer with a mouse or trackpad",
        Devices::Touch => "on a phone or tablet",
        Devices::Any => "on a computer, tablet or phone",
    });
    let consent = cfg.as_ref().is_some_and(|c| c.consent.is_some());
    view! {
        <div class="panel preview">
            <h2>"Preview: a memory study"</h2>
            <p id="preview-text">"You will see short displays of shapes, places or letters and answer what you remember.                 The study has these parts: "{tasks}"."</p>
            {device.map(|d| view! { <p>{format!("It is taken {d}, in this window; please keep the window in front while you take it.")}</p> })}
            {consent.then(|| view! { <p>"Before it starts you will be asked for your consent."</p> })}
            <p><strong>"Accept the HIT to begin."</strong>" Nothing is recorded in this preview."</p>
        </div>
    }
}

/// Not for this device or window: why, a "Try again" when a larger window would do, and the study's
/// `screened=` URL.
pub fn screened_out(why: String, fixable: bool, url: Option<String>, again: impl Fn() + 'static) -> impl IntoView {
    view! {
        <div class="panel screened-out">
            <h2>"This study cannot be taken here"</h2>
            <p id="screened-text" role="alert">{why}</p>
            <div class="actions">
                {fixable.then(|| view! { <button id="screened-again" class="primary" on:click=move |_| again()>"Try again"</button> })}
                {url.map(|u| view! { <a id="screened-return" class="button" href=u>"Return to the study's platform"</a> })}
            </div>
            <p class="small">"Nothing was recorded."</p>
        </div>
    }
}

pub fn elsewhere() -> impl IntoView {
    view! {
        <div class="panel elsewhere">
            <h2>"This study is already open in another tab"</h2>
            <p id="elsewhere-text">"Please go on in the other tab (or close it and reload this one). Nothing was changed here, so your answers so far are safe."</p>
        </div>
    }
}

pub fn feedback(ui: Ui) -> impl IntoView {
    let (correct, score) = ui.feedback.get();
    // PI-LLM: which value was the last one of each key (marked where the answer was wrong).
    let detail = ui.feedback_detail.get();
    let values = (!detail.is_empty()).then(|| {
        let items = detail
            .into_iter()
            .enumerate()
            .map(|(i, (k, v))| {
                let ok = correct.get(i).copied().unwrap_or(false);
                view! { <li class=if ok { "good" } else { "bad" }><strong>{k}</strong>": "{v}{(!ok).then_some(" ✗")}</li> }
            })
            .collect_view();
        view! { <p>"The last values were:"</p><ul id="feedback-values" class="feedback-values">{items}</ul> }
    });
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
            {values}
            <button id="continue" class="primary" on:click=move |_| { act(|c| c.next()); }>"Continue"</button>
        </div>
    }
}

pub fn paused(resized: bool) -> impl IntoView {
    let why = if resized {
        "The window changed size, so this round was stopped (what you saw was drawn at another size). It starts \
         again from its beginning; please keep the window as it is now."
    } else {
        "The window lost focus, so this round was stopped. It starts again from its beginning."
    };
    view! {
        <div class="panel paused" data-resized=resized.to_string()>
            <h2>"Paused"</h2>
            <p id="paused-text">{why}</p>
            <button id="continue" class="primary" on:click=move |_| { act(|c| c.start_trial()); }>"Continue"</button>
        </div>
    }
}

/// The stimulus cannot be drawn at the study's visual angle in this window.
pub fn no_fit(why: String) -> impl IntoView {
    view! {
        <div class="panel no-fit">
            <h2>"The window is too small for the pictures"</h2>
            <p id="no-fit-text" role="alert">{why}</p>
            <div class="actions">
                <button id="no-fit-again" class="primary" on:click=move |_| { act(|c| c.start_trial()); }>"Try again"</button>
                <button id="no-fit-measure" on:click=move |_| { act(|c| c.measure_again()); }>"Measure again"</button>
            </div>
        </div>
    }
}

pub fn offer(done: usize, total: usize) -> impl IntoView {
    view! {
        <div class="panel offer">
            <h2>"Welcome back"</h2>
            <p>{format!("You have already done {done} of {total} rounds of this study in this browser.")}</p>
            <div class="actions">
                <button id="resume" class="primary" on:click=move |_| { act(|c| c.calibrate()); }>"Resume where you left off"</button>
                <button id="restart" on:click=move |_| { act(|c| c.restart()); }>"Start over"</button>
            </div>
        </div>
    }
}

/// The participant's results at the end: the whole app's charts where it provides them, else a link
/// that opens them in the whole app (the record travels in the link, as a share link).
fn results(r: ResultRecord) -> impl IntoView {
    let body = match use_context::<super::ResultsView>() {
        Some(super::ResultsView(charts)) => charts(r),
        None => match wmlab_core::share::fragment(&r) {
            Ok(f) => view! {
                <p><a id="open-results-app" class="button" href=format!("index.html{f}") target="_blank">
                    "See your results beside the published ones"</a></p>
            }
            .into_any(),
            Err(_) => view! { <p class="small">"Download your results above to look at them."</p> }.into_any(),
        },
    };
    view! { <h3>"Your results"</h3> {body} }
}

pub fn error(e: String) -> impl IntoView {
    view! {
        <div class="panel">
            <h2>"This study link does not work"</h2>
            <p class="error" id="study-error" role="alert">{e}</p>
            <p class="small">"Please tell the researcher who sent you the link. Nothing has started."</p>
        </div>
    }
}

/// The end: thanks, sending status, downloads, the person's results, and the redirect to the
/// completion URL once nothing is left to send (with the results shown: a "Continue" button instead,
/// enabled once nothing is left to send, so that the participant can read them). The redirect waits for the data to be acknowledged; if
/// they are still waiting after a while (offline, a server down), the participant is told and may
/// download them and continue instead.
pub fn done(ui: Ui, show: bool, completion: Option<Exit>) -> impl IntoView {
    let app = use_context::<AppState>();
    let r = ui.record.get();
    let (r1, r2, r3, r4) = (r.clone(), r.clone(), r.clone(), r.clone());
    let stuck = RwSignal::new(false);
    // Test runs (wmlab_fast) say so after 2 s instead of 20 s.
    let patience = if super::browser::flags().fast { 2_000.0 } else { 20_000.0 };
    // With their results on screen, participants go on when they have read them ("Continue"), not on
    // a timer.
    let shows_results = show && r.is_some();
    let sending = move || ui.pending.get() > 0;
    if let Some(url) = completion.clone() {
        let start = now();
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                outbox::sleep(500.0).await;
                let waiting = ui.pending.try_get_untracked().unwrap_or(0);
                if waiting == 0 {
                    break;
                }
                if now() - start > patience {
                    let _ = stuck.try_set(true);
                }
            }
            if !shows_results && ui.screen.try_get_untracked() == Some(Screen::Done) {
                url.go();
            }
        });
    }
    let continue_url = completion.clone();
    let has_completion = completion.is_some();
    let download_continue = move |_| {
        if let Some(r) = &r4 {
            download(r, false, ui.note);
        }
        if let Some(u) = &continue_url {
            u.go();
        }
    };
    view! {
        <div class="panel done">
            <h2>"Thank you!"</h2>
            <p>"You have finished. Your answers are saved."</p>
            {completion.clone().filter(|_| shows_results).map(|u| view! {
                <p class="actions">
                    <button id="continue-platform" class="primary" disabled=sending on:click=move |_| u.go()>"Continue"</button>
                    <span class="small">{move || if ui.pending.get() > 0 { "Once your results are sent, continue to finish the study." } else { "Continue to finish the study." }}</span>
                </p>
            })}
            {completion.filter(|_| !shows_results).map(|u| match u {
                Exit::Go(href) => view! { <p>"You will be taken back in a moment, or "<a id="completion-link" href=href>"continue here"</a>"."</p> }.into_any(),
                mturk => view! { <p>"Your HIT will be submitted to MTurk in a moment, or "
                    <button id="completion-link" class="linklike" on:click=move |_| mturk.go()>"submit it now"</button>"."</p> }.into_any(),
            })}
            <p class="small" id="post-status">{move || match ui.pending.get() {
                0 => String::new(),
                n => format!("Sending your results… ({n} waiting; keep this tab open)"),
            }}</p>
            {move || (stuck.get() && ui.pending.get() > 0 && has_completion).then(|| view! {
                <div class="notice" id="post-stuck" role="status">
                    <p>"Your results have not reached the researcher yet (this computer may be offline). Keep this tab open and they will be sent when the connection is back; you will then be taken back automatically. Or download them, send the file to the researcher, and continue:"</p>
                    <button id="download-continue" on:click=download_continue.clone()>"Download my results and continue"</button>
                </div>
            })}
            <div class="actions">
                <button id="download-csv" on:click=move |_| if let Some(r) = &r1 { download(r, true, ui.note) }>"Download CSV"</button>
                <button id="download-json" on:click=move |_| if let Some(r) = &r2 { download(r, false, ui.note) }>"Download JSON"</button>
                {app.map(|app| view! {
                    <button id="open-results" on:click=move |_| { app.result.set(r3.clone()); app.error.set(None); web::set_hash("#/results"); }>"Open in Results"</button>
                })}
            </div>
            {(show && r.is_some()).then(|| results(r.clone().unwrap()))}
        </div>
    }
}
