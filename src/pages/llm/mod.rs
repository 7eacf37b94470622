//! Language models: run the N-back, Little Retrieval Test and Minerva suites from the browser against
//! the user's own provider (OpenAI-compatible, Anthropic, Gemini), with the `wmlab-llm` runner
//! (concurrency, retries, pause / cancel, a response cache), a log saved as it arrives (a reload offers
//! to resume: no sample lost, none sent twice), a per-sample log viewer, exports, a share link and
//! charts beside the papers' numbers.
//!
//! The page is a folder: `form` (fields → one `RunSpec` per model), `fields` (the provider and suites
//! boxes), `samples` (a spec's samples and result record), `results` (charts, exports, share link),
//! `models` (several models' lines and their results side by side); this file holds the runs' state
//! (a `Lane` per model, all on the same samples, run at once) and their controls. The page turns form input into core values (`NbackConfig`, `LrtConfig`, snapshot files, a
//! `MinervaConfig`, `ProviderConfig`, `RunOptions`) and runner values into pixels. The API key is a
//! `Secret` given to the runner only; it is in memory unless "remember on this device" is ticked.

use leptos::prelude::*;
use wmlab_core::llm::Sample;
use wmlab_core::llm::vision::Render;
use wmlab_llm::web::WebClock;
use wmlab_llm::{Control, LogEntry, Outcome, Progress, RunLog, Runner, Secret};

use crate::components::format::fmt_ms;
use crate::components::llm_log::LlmLog;
use crate::platform::llm_store::{self as store, LogWriter, RunSpec, StorageCache};

mod fields;
mod form;
mod local;
mod models;
mod results;
mod samples;

use fields::{ProviderBox, SuitesBox};
use form::Form;
use models::{Lanes, SideBySide};
use results::RunResults;
use samples::{build_samples, record_of};

/// Where a run stands (`data-run` on the page: `idle`, `loading`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunState {
    Idle,
    /// Building the samples (fetching Minerva data).
    Loading,
    Running,
    Paused,
    Cancelled,
    Failed,
    Done,
}

impl RunState {
    fn as_str(self) -> &'static str {
        match self {
            RunState::Idle => "idle",
            RunState::Loading => "loading",
            RunState::Running => "running",
            RunState::Paused => "paused",
            RunState::Cancelled => "cancelled",
            RunState::Failed => "failed",
            RunState::Done => "done",
        }
    }
    /// Under way (Start disabled, Cancel enabled).
    fn active(self) -> bool {
        matches!(self, RunState::Loading | RunState::Running | RunState::Paused)
    }
    /// Over with something to show (charts, exports).
    fn finished(self) -> bool {
        matches!(self, RunState::Done | RunState::Cancelled)
    }
}

/// One model's run within a start: its spec and what it has done so far.
#[derive(Clone, Copy)]
struct Lane {
    spec: StoredValue<RunSpec>,
    state: RwSignal<RunState>,
    progress: RwSignal<Option<Progress>>,
    outcomes: RwSignal<Vec<Outcome>>,
    /// Why this model's run failed or stopped early, in words.
    error: RwSignal<Option<String>>,
}

impl Lane {
    fn new(spec: RunSpec) -> Lane {
        Lane {
            spec: StoredValue::new(spec),
            state: RwSignal::new(RunState::Loading),
            progress: RwSignal::new(None),
            outcomes: RwSignal::new(Vec::new()),
            error: RwSignal::new(None),
        }
    }
    fn model(&self) -> String {
        self.spec.with_value(|s| s.provider.model.clone())
    }
}

/// Puts a lane's message on the page: as it is for one model, after the model's name for several.
fn say(to: RwSignal<Option<String>>, several: bool, model: &str, text: String) {
    if !several {
        let _ = to.try_set(Some(text));
        return;
    }
    let line = format!("{model}: {text}");
    let _ = to.try_update(|v| {
        *v = Some(match v.take() {
            Some(old) => format!("{old} {line}"),
            None => line,
        })
    });
}

/// What the page's messages and controls need while a lane runs.
#[derive(Clone, Copy)]
struct Page {
    error: RwSignal<Option<String>>,
    notice: RwSignal<Option<String>>,
    several: bool,
}

/// One model's run: its runner over the shared samples, its log saved as it goes; ends in the lane's
/// state (done, cancelled — also at the spending limit — or failed).
/// `prior` is the saved log's text (kept on, with the new entries) and `log` the same parsed.
async fn run_lane(
    lane: Lane,
    (prior, log): (String, RunLog),
    list: std::rc::Rc<Vec<Sample>>,
    c: Control,
    secret: Secret,
    page: Page,
) {
    let spec = lane.spec.get_value();
    let model = spec.provider.model.clone();
    let fail = |msg: String| {
        let _ = lane.error.try_set(Some(msg.clone()));
        say(page.error, page.several, &model, msg);
        let _ = lane.state.try_set(RunState::Failed);
    };
    let _ = lane.state.try_set(RunState::Running);
    // `fetch` to the provider, or the model in this tab for its `tab://` base URL.
    let transport = crate::platform::local_llm::PageTransport::new();
    let clock = WebClock::new();
    let cache = StorageCache { enabled: spec.use_cache };
    let runner = Runner::new(&transport, &clock, &cache, spec.provider.clone(), secret, spec.options.clone());
    if spec.run.vision.as_ref().is_some_and(|v| v.render == Render::Image) && log.entries.is_empty() {
        // One image first (a fresh run only: a resumed one passed it): a model or endpoint that
        // takes no images fails here, before any trial.
        match runner.probe_images(&c).await {
            Err(e) if c.is_cancelled() || e.kind == wmlab_llm::LlmErrorKind::Cancelled => {
                let _ = lane.state.try_set(RunState::Cancelled);
                return;
            }
            Err(e) => {
                return fail(format!(
                    "The model did not take an image: {} Choose a model that reads images, or give the frames as text.",
                    e.message
                ));
            }
            Ok(reply) if !wmlab_core::llm::vision::image_probe_seen(&reply) => {
                let short: String = reply.chars().take(80).collect();
                say(
                    page.notice,
                    page.several,
                    &model,
                    format!(
                        "Asked the colour of a red square, the model answered \"{short}\": it may not see the images."
                    ),
                );
            }
            Ok(_) => {}
        }
    }
    let writer = LogWriter::new(&spec.id, prior);
    let mut on_entry = |e: &LogEntry| {
        writer.append(e);
        if let LogEntry::Outcome(o) = e {
            let o = (**o).clone();
            let _ = lane.outcomes.try_update(|v| match v.iter_mut().find(|x| x.sample_id == o.sample_id) {
                Some(x) => *x = o,
                None => v.push(o),
            });
        }
    };
    let mut on_progress = |p: &Progress| {
        let _ = lane.progress.try_set(Some(p.clone()));
    };
    let result = if spec.batch {
        match runner.run_batch(&list, &log, &c, &mut on_entry, &mut on_progress).await {
            Ok(r) => r,
            Err(e) => return fail(format!("The batch was not sent: {}", e.message)),
        }
    } else {
        runner.run(&list, &log, &c, &mut on_entry, &mut on_progress).await
    };
    if writer.failed.get() {
        say(
            page.notice,
            page.several,
            &model,
            "The browser's storage is full: this run's log could not be saved, so a reload cannot resume it.".into(),
        );
    }
    if !result.cancelled && !result.limit_reached {
        // A finished run goes into this browser's results history.
        crate::platform::history::add_later(record_of(&spec, &result.outcomes));
    }
    let spent = result.progress.cost;
    let _ = lane.outcomes.try_set(result.outcomes);
    let _ = lane.progress.try_set(Some(result.progress));
    if result.limit_reached {
        let msg = format!(
            "Stopped at the spending limit ({}; estimated so far {:.4}). Raise the limit and press Resume to go on.",
            spec.options.max_cost.unwrap_or(0.0),
            spent.unwrap_or(0.0)
        );
        let _ = lane.error.try_set(Some(msg.clone()));
        say(page.notice, page.several, &model, msg);
    }
    let _ =
        lane.state.try_set(if result.cancelled || result.limit_reached { RunState::Cancelled } else { RunState::Done });
}

/// Where a start stands once all its models' runs have ended: cancelled if any was (Resume goes on
/// with all), done if any finished, failed if none did.
fn settled(states: &[RunState]) -> RunState {
    if states.contains(&RunState::Cancelled) {
        RunState::Cancelled
    } else if states.contains(&RunState::Done) {
        RunState::Done
    } else {
        RunState::Failed
    }
}

#[component]
pub fn Llm() -> impl IntoView {
    let f = Form::new();
    if let Some(s) = store::load_form() {
        f.load(&s);
    }
    let key = RwSignal::new(String::new());
    let remember = RwSignal::new(false);
    if let Some(k) = store::saved_key() {
        key.set(k);
        remember.set(true);
    }
    let error = RwSignal::new(None::<String>);
    let notice = RwSignal::new(None::<String>);
    let run_state = RwSignal::new(RunState::Idle);
    let lanes = RwSignal::new(Vec::<Lane>::new());
    // Which model's samples and results are shown (several models).
    let shown = RwSignal::new(0usize);
    let samples = StoredValue::new(Vec::<Sample>::new());
    let control = StoredValue::new(Control::new());
    let offer = RwSignal::new(store::unfinished().map(|runs| {
        let done: usize = runs.iter().map(|(_, log)| RunLog::parse(log).outcomes().len()).sum();
        (runs.into_iter().map(|(s, _)| s).collect::<Vec<_>>(), done)
    }));
    let run_seq = RwSignal::new(0u32);
    // The lanes' signals belong to the page (disposed when it is left), not to the click that made them.
    let owner = StoredValue::new(Owner::current());

    // Stop a running run when the page is left (its log is saved: it can be resumed).
    on_cleanup(move || {
        if let Some(c) = control.try_get_value() {
            c.cancel();
        }
    });

    let start = move |runs: Vec<(RunSpec, String)>| {
        error.set(None);
        notice.set(None);
        offer.set(None);
        shown.set(0);
        run_state.set(RunState::Loading);
        run_seq.update(|n| *n += 1);
        let c = Control::new();
        control.set_value(c.clone());
        let made = || runs.iter().map(|(s, _)| Lane::new(s.clone())).collect::<Vec<_>>();
        let new_lanes = match owner.get_value() {
            Some(o) => o.with(made),
            None => made(),
        };
        lanes.set(new_lanes.clone());
        let secret = Secret::new(key.get_untracked());
        let page = Page { error, notice, several: runs.len() > 1 };
        wasm_bindgen_futures::spawn_local(async move {
            // A run on the model in this tab (a resumed one too) needs that model loaded.
            if let Some(local) = runs[0].0.local.clone()
                && let Err(e) = crate::platform::local_llm::ensure(&local).await
            {
                let _ = error.try_set(Some(e));
                let _ = run_state.try_set(RunState::Failed);
                return;
            }
            // Every model takes the same samples: the suites are one spec's, whichever model.
            let list = match build_samples(&runs[0].0).await {
                Ok(l) => l,
                Err(e) => {
                    let _ = error.try_set(Some(e));
                    let _ = run_state.try_set(RunState::Failed);
                    return;
                }
            };
            if list.is_empty() {
                let _ = error.try_set(Some("Nothing to run: the chosen suites give no samples.".into()));
                let _ = run_state.try_set(RunState::Failed);
                return;
            }
            // Each model's saved log, parsed once: its outcomes shown now, the rest is the runner's.
            let logs: Vec<(String, RunLog)> = runs
                .into_iter()
                .map(|(_, prior)| {
                    let log = RunLog::parse(&prior);
                    (prior, log)
                })
                .collect();
            for ((_, log), lane) in logs.iter().zip(&new_lanes) {
                let prior_out = log.outcomes();
                let shown: Vec<Outcome> =
                    list.iter().filter_map(|s| prior_out.get(s.id.as_str()).map(|o| (*o).clone())).collect();
                let _ = lane.outcomes.try_set(shown);
            }
            let _ = samples.try_set_value(list.clone());
            if c.is_cancelled() {
                let _ = run_state.try_set(RunState::Cancelled);
                return;
            }
            let _ = run_state.try_set(if c.is_paused() { RunState::Paused } else { RunState::Running });
            let list = std::rc::Rc::new(list);
            for (log, lane) in logs.into_iter().zip(new_lanes.clone()) {
                let (list, c, secret, all) = (list.clone(), c.clone(), secret.clone(), new_lanes.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    run_lane(lane, log, list, c, secret, page).await;
                    // The last model to end settles the start (a lane's end and this look run without a
                    // pause between them, so exactly one sees them all ended).
                    let states: Vec<RunState> = all.iter().filter_map(|l| l.state.try_get_untracked()).collect();
                    if states.len() < all.len() || states.iter().any(|s| s.active()) {
                        return; // another model still runs, or the page was left
                    }
                    if states.iter().all(|s| *s == RunState::Done) {
                        let ids: Vec<String> = all.iter().map(|l| l.spec.with_value(|s| s.id.clone())).collect();
                        store::finish(&ids);
                    }
                    let _ = run_state.try_set(settled(&states));
                });
            }
        });
    };

    let on_start = move |_| match f.specs() {
        Ok(specs) => {
            store::save_form(&specs[0]);
            if !store::begin(&specs) {
                notice.set(Some(
                    "The browser did not let this page save the run: a reload will not be able to resume it.".into(),
                ));
            }
            start(specs.into_iter().map(|s| (s, String::new())).collect());
        }
        Err(e) => error.set(Some(e)),
    };
    let on_resume_saved = move |_| {
        if let Some(mut runs) = store::unfinished() {
            // A spending limit raised in the form since the run stopped at it applies to the rest.
            if let Some(typed) = f.max_cost_typed() {
                for (spec, _) in runs.iter_mut() {
                    if spec.options.max_cost.is_some_and(|old| typed > old) {
                        spec.options.max_cost = Some(typed);
                    }
                }
                store::save_form(&runs[0].0);
            }
            f.load(&runs[0].0);
            start(runs);
        } else {
            offer.set(None);
        }
    };
    let on_discard = move |_| {
        if let Some((specs, _)) = offer.get_untracked() {
            store::discard(&specs.iter().map(|s| s.id.clone()).collect::<Vec<_>>());
        }
        offer.set(None);
    };
    let on_pause = move |_| {
        control.with_value(|c| c.pause());
        run_state.set(RunState::Paused);
    };
    let on_continue = move |_| {
        control.with_value(|c| c.resume());
        run_state.set(RunState::Running);
    };
    let on_cancel = move |_| {
        control.with_value(|c| c.cancel());
    };
    let running = move || run_state.get().active();

    // All models' progress as one line (one model: its own).
    let p = move || Progress::sum(&lanes.with(|ls| ls.iter().filter_map(|l| l.progress.get()).collect::<Vec<_>>()));
    let any_progress = move || lanes.with(|ls| ls.iter().any(|l| l.progress.with(Option::is_some)));
    let several = move || lanes.with(|ls| ls.len() > 1);
    let first_failure = move || {
        let lines: Vec<String> = lanes.with(|ls| {
            ls.iter()
                .filter_map(|l| {
                    l.outcomes.with(|os| {
                        let failed: Vec<&Outcome> = os.iter().filter(|o| o.error.is_some()).collect();
                        let first = failed.first()?.error.as_ref()?;
                        let line = format!(
                            "{} of {} samples failed. First: {} ({})",
                            failed.len(),
                            os.len(),
                            first.message,
                            first.kind.as_str()
                        );
                        Some(if ls.len() > 1 { format!("{}: {line}", l.model()) } else { line })
                    })
                })
                .collect()
        });
        (!lines.is_empty()).then(|| lines.join(" "))
    };
    let shown_lane = move || lanes.with(|ls| ls.get(shown.get()).copied());

    view! {
        <section id="llm" class="llm study-form" data-run=move || run_state.get().as_str() data-run-seq=move || run_seq.get()>
            <h1>"Language models"</h1>
            <p>"Run the N-back, the Little Retrieval Test, Minerva and the visual suite (the WorM tasks as images or text) against your own provider or a local server. \
                Every request goes from this tab straight to the provider; results stay here until you export or share them."</p>
            {move || offer.get().map(|(specs, done)| view! {
                <div class="llm-banner" id="llm-resume-banner">
                    <p>{format!("An unfinished run ({}, {}, started {}) has {done} samples saved.", specs[0].label(),
                        specs.iter().map(|s| s.provider.model.as_str()).collect::<Vec<_>>().join(", "), specs[0].created)}</p>
                    <button class="primary" id="llm-resume" on:click=on_resume_saved>"Resume it"</button>
                    " "
                    <button id="llm-discard" on:click=on_discard>"Discard it"</button>
                </div>
            })}
            <ProviderBox f=f key=key remember=remember error=error notice=notice/>
            <SuitesBox f=f/>
            <div class="actions llm-actions">
                <button class="primary" id="llm-start" on:click=on_start disabled=running>"Start"</button>
                <button id="llm-pause" on:click=on_pause disabled=move || run_state.get() != RunState::Running>"Pause"</button>
                <button id="llm-continue" on:click=on_continue disabled=move || run_state.get() != RunState::Paused>"Continue"</button>
                <button id="llm-cancel" on:click=on_cancel disabled=move || !running()>"Cancel"</button>
                {move || (run_state.get() == RunState::Cancelled).then(|| view! {
                    <button id="llm-resume-cancelled" on:click=on_resume_saved>"Resume"</button>
                })}
            </div>
            {move || error.get().map(|e| view! { <p class="error" id="llm-error" role="alert">{e}</p> })}
            {move || notice.get().map(|e| view! { <p class="notice" id="llm-notice">{e}</p> })}
            <div class="llm-progress" id="llm-progress-box" class:hidden=move || !any_progress() && run_state.get() != RunState::Loading
                data-done=move || p().done data-total=move || p().total>
                <progress id="llm-progress" max=move || p().total.max(1) value=move || p().done></progress>
                <p>
                    {move || if run_state.get() == RunState::Loading { "Preparing the samples… ".to_string() } else { String::new() }}
                    <span id="llm-done">{move || p().done}</span> " / " <span id="llm-total">{move || p().total}</span> " samples"
                    {move || { let r = p().resumed; (r > 0).then(|| format!(" ({r} from the saved log)")) }}
                    // Inside multi-turn samples (N-back blocks, visual trials): the turns answered so far.
                    {move || { let q = p(); (q.turns_total as usize > q.total.saturating_sub(q.resumed)).then(|| view! {
                        " · turn " <span id="llm-turns">{q.turns_done}</span> " of about " {q.turns_total}
                    }) }}
                    " · ETA " <span id="llm-eta">{move || p().eta_ms.map(fmt_ms).unwrap_or_else(|| "—".into())}</span>
                    " · tokens in " <span id="llm-tokens-in">{move || p().tokens_in}</span>
                    ", out " <span id="llm-tokens-out">{move || p().tokens_out}</span>
                    " · cost " <span id="llm-cost">{move || p().cost.map(|c| format!("{c:.4}")).unwrap_or_else(|| "—".into())}</span>
                    " · errors " <span id="llm-failed">{move || p().failed}</span>
                    " · requests " <span id="llm-requests">{move || p().requests}</span>
                    " (cache " <span id="llm-cache-hits">{move || p().cache_hits}</span>
                    ", retries " <span id="llm-retries-count">{move || p().retries}</span> ")"
                    " · " <span id="llm-elapsed">{move || fmt_ms(p().elapsed_ms)}</span>
                    {move || p().batch.map(|b| view! { " · " <span id="llm-batch-state">{b}</span> })}
                </p>
            </div>
            {move || first_failure().map(|m| view! { <p class="small error" id="llm-failures">{m}</p> })}
            {move || several().then(|| view! { <Lanes lanes=lanes shown=shown/> })}
            {move || (several() && run_state.get().finished()).then(|| view! { <SideBySide lanes=lanes.get_untracked() error=error/> })}
            {move || shown_lane().map(|lane| view! {
                <div class:hidden=move || lane.outcomes.with(Vec::is_empty)>
                    <h2 id="llm-samples-title">{move || if several() { format!("Samples: {}", lane.model()) } else { "Samples".to_string() }}</h2>
                    <LlmLog outcomes=lane.outcomes samples=samples/>
                </div>
                {move || run_state.get().finished().then(|| view! {
                    <RunResults spec=lane.spec.get_value() outcomes=lane.outcomes error=error/>
                })}
            })}
        </section>
    }
}
