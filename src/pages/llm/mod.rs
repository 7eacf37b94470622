//! Language models: run the N-back, Little Retrieval Test and Minerva suites from the browser against
//! the user's own provider (OpenAI-compatible, Anthropic, Gemini), with the `wmlab-llm` runner
//! (concurrency, retries, pause / cancel, a response cache), a log saved as it arrives (a reload offers
//! to resume: no sample lost, none sent twice), a per-sample log viewer, exports, a share link and
//! charts beside the papers' numbers.
//!
//! The page is a folder: `form` (fields → `RunSpec`), `fields` (the provider and suites boxes),
//! `samples` (a spec's samples and result record), `results` (charts, exports, share link); this file
//! holds the run's state and its controls. The page turns form input into core values (`NbackConfig`, `LrtConfig`, snapshot files, a
//! `MinervaConfig`, `ProviderConfig`, `RunOptions`) and runner values into pixels. The API key is a
//! `Secret` given to the runner only; it is in memory unless "remember on this device" is ticked.

use leptos::prelude::*;
use wmlab_core::llm::Sample;
use wmlab_core::llm::vision::Render;
use wmlab_llm::web::{FetchTransport, WebClock};
use wmlab_llm::{Control, LogEntry, Outcome, Progress, RunLog, Runner, Secret};

use crate::components::format::fmt_ms;
use crate::components::llm_log::LlmLog;
use crate::platform::llm_store::{self as store, LogWriter, RunSpec, StorageCache};

mod fields;
mod form;
mod results;
mod samples;

use fields::{ProviderBox, SuitesBox};
use form::Form;
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
    let progress = RwSignal::new(None::<Progress>);
    let outcomes = RwSignal::new(Vec::<Outcome>::new());
    let samples = StoredValue::new(Vec::<Sample>::new());
    let control = StoredValue::new(Control::new());
    let spec_now = RwSignal::new(None::<RunSpec>);
    let offer = RwSignal::new(store::unfinished().map(|(s, log)| {
        let done = RunLog::parse(&log).outcomes().len();
        (s, done)
    }));
    let run_seq = RwSignal::new(0u32);

    // Stop a running run when the page is left (its log is saved: it can be resumed).
    on_cleanup(move || {
        if let Some(c) = control.try_get_value() {
            c.cancel();
        }
    });

    let start = move |spec: RunSpec, prior: String| {
        error.set(None);
        notice.set(None);
        progress.set(None);
        offer.set(None);
        spec_now.set(Some(spec.clone()));
        run_state.set(RunState::Loading);
        run_seq.update(|n| *n += 1);
        let c = Control::new();
        control.set_value(c.clone());
        let secret = Secret::new(key.get_untracked());
        wasm_bindgen_futures::spawn_local(async move {
            let list = match build_samples(&spec).await {
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
            let log = RunLog::parse(&prior);
            {
                let prior_out = log.outcomes();
                let shown: Vec<Outcome> =
                    list.iter().filter_map(|s| prior_out.get(s.id.as_str()).map(|o| (*o).clone())).collect();
                let _ = outcomes.try_set(shown);
            }
            let _ = samples.try_set_value(list.clone());
            if c.is_cancelled() {
                let _ = run_state.try_set(RunState::Cancelled);
                return;
            }
            let _ = run_state.try_set(if c.is_paused() { RunState::Paused } else { RunState::Running });
            let transport = FetchTransport::new();
            let clock = WebClock::new();
            let cache = StorageCache { enabled: spec.use_cache };
            let runner = Runner::new(&transport, &clock, &cache, spec.provider.clone(), secret, spec.options.clone());
            if spec.vision.as_ref().is_some_and(|v| v.render == Render::Image) && log.entries.is_empty() {
                // One image first (a fresh run only: a resumed one passed it): a model or endpoint that
                // takes no images fails here, before any trial.
                match runner.probe_images(&c).await {
                    Err(e) if c.is_cancelled() || e.kind == wmlab_llm::LlmErrorKind::Cancelled => {
                        let _ = run_state.try_set(RunState::Cancelled);
                        return;
                    }
                    Err(e) => {
                        let _ = error.try_set(Some(format!(
                            "The model did not take an image: {} Choose a model that reads images, or give the frames as text.",
                            e.message
                        )));
                        let _ = run_state.try_set(RunState::Failed);
                        return;
                    }
                    Ok(reply) if !wmlab_core::llm::vision::image_probe_seen(&reply) => {
                        let short: String = reply.chars().take(80).collect();
                        let _ = notice.try_set(Some(format!(
                            "Asked the colour of a red square, the model answered \"{short}\": it may not see the images."
                        )));
                    }
                    Ok(_) => {}
                }
            }
            let writer = LogWriter::new(&spec.id, prior);
            let mut on_entry = |e: &LogEntry| {
                writer.append(e);
                if let LogEntry::Outcome(o) = e {
                    let o = (**o).clone();
                    let _ = outcomes.try_update(|v| match v.iter_mut().find(|x| x.sample_id == o.sample_id) {
                        Some(x) => *x = o,
                        None => v.push(o),
                    });
                }
            };
            let mut on_progress = |p: &Progress| {
                let _ = progress.try_set(Some(p.clone()));
            };
            let result = if spec.batch {
                match runner.run_batch(&list, &log, &c, &mut on_entry, &mut on_progress).await {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = error.try_set(Some(format!("The batch was not sent: {}", e.message)));
                        let _ = run_state.try_set(RunState::Failed);
                        return;
                    }
                }
            } else {
                runner.run(&list, &log, &c, &mut on_entry, &mut on_progress).await
            };
            if writer.failed.get() {
                let _ = notice.try_set(Some(
                    "The browser's storage is full: this run's log could not be saved, so a reload cannot resume it."
                        .into(),
                ));
            }
            if !result.cancelled && !result.limit_reached {
                // A finished run goes into this browser's results history.
                crate::platform::history::add_later(record_of(&spec, &result.outcomes));
            }
            let spent = result.progress.cost;
            let _ = outcomes.try_set(result.outcomes);
            let _ = progress.try_set(Some(result.progress));
            if result.limit_reached {
                let _ = notice.try_set(Some(format!(
                    "Stopped at the spending limit ({}; estimated so far {:.4}). Raise the limit and press Resume to go on.",
                    spec.options.max_cost.unwrap_or(0.0),
                    spent.unwrap_or(0.0)
                )));
            }
            if result.cancelled || result.limit_reached {
                let _ = run_state.try_set(RunState::Cancelled);
            } else {
                store::finish(&spec.id);
                let _ = run_state.try_set(RunState::Done);
            }
        });
    };

    let on_start = move |_| match f.spec() {
        Ok(spec) => {
            store::save_form(&spec);
            if !store::begin(&spec) {
                notice.set(Some(
                    "The browser did not let this page save the run: a reload will not be able to resume it.".into(),
                ));
            }
            start(spec, String::new());
        }
        Err(e) => error.set(Some(e)),
    };
    let on_resume_saved = move |_| {
        if let Some((mut spec, log)) = store::unfinished() {
            // A spending limit raised in the form since the run stopped at it applies to the rest.
            if let (Some(typed), Some(old)) = (f.max_cost_typed(), spec.options.max_cost)
                && typed > old
            {
                spec.options.max_cost = Some(typed);
                store::save_form(&spec);
            }
            f.load(&spec);
            start(spec, log);
        } else {
            offer.set(None);
        }
    };
    let on_discard = move |_| {
        if let Some((s, _)) = offer.get_untracked() {
            store::discard(&s.id);
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

    let p = move || progress.get().unwrap_or_default();
    let first_failure = move || {
        outcomes.with(|os| {
            let failed: Vec<&Outcome> = os.iter().filter(|o| o.error.is_some()).collect();
            let first = failed.first()?.error.as_ref()?;
            Some(format!(
                "{} of {} samples failed. First: {} ({})",
                failed.len(),
                os.len(),
                first.message,
                first.kind.as_str()
            ))
        })
    };

    view! {
        <section id="llm" class="llm study-form" data-run=move || run_state.get().as_str() data-run-seq=move || run_seq.get()>
            <h1>"Language models"</h1>
            <p>"Run the N-back, the Little Retrieval Test, Minerva and the visual suite (the WorM tasks as images or text) against your own provider or a local server. \
                Every request goes from this tab straight to the provider; results stay here until you export or share them."</p>
            {move || offer.get().map(|(s, done)| view! {
                <div class="llm-banner" id="llm-resume-banner">
                    <p>{format!("An unfinished run ({}, {}, started {}) has {done} samples saved.", s.label(), s.provider.model, s.created)}</p>
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
            <div class="llm-progress" id="llm-progress-box" class:hidden=move || progress.with(|p| p.is_none()) && run_state.get() != RunState::Loading
                data-done=move || p().done data-total=move || p().total>
                <progress id="llm-progress" max=move || p().total.max(1) value=move || p().done></progress>
                <p>
                    {move || if run_state.get() == RunState::Loading { "Preparing the samples… ".to_string() } else { String::new() }}
                    <span id="llm-done">{move || p().done}</span> " / " <span id="llm-total">{move || p().total}</span> " samples"
                    {move || { let r = p().resumed; (r > 0).then(|| format!(" ({r} from the saved log)")) }}
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
            <div class:hidden=move || outcomes.with(Vec::is_empty)>
                <h2>"Samples"</h2>
                <LlmLog outcomes=outcomes samples=samples/>
            </div>
            {move || run_state.get().finished().then(|| spec_now.get().map(|spec| view! {
                <RunResults spec=spec outcomes=outcomes error=error/>
            })).flatten()}
        </section>
    }
}
