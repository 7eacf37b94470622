//! Networks: train the WorM models in the tab and evaluate them against the human numbers.
//!
//! Training runs in a dedicated Web Worker (`crates/nn-worker`: burn on WebGPU, or the flex CPU backend
//! when the browser has no WebGPU), so the page never freezes and the participant pages never download
//! burn. The page turns form input into typed settings (`wmlab_core::networks::TrainConfig`, whose
//! presets, checks and parameter count are the core's, so no edit waits for the worker), worker events into pixels,
//! and checkpoints into IndexedDB (`latest` = the resume point, `best` = the best validation accuracy so
//! far, `run` = the curves). Evaluation returns a `ResultRecord` whose behavioural curves are computed
//! by the core, exactly as for a person, and drawn over the WorM human curves.
//!
//! - `state`: the page's signals as one `Copy` value ([`state::Net`]), the worker's events, the run's
//!   actions;
//! - `form`: the settings; `files`: pretrained models, downloads and uploads; `evaluate`: evaluation and
//!   analyses; `results`: the tables and the model card.

use leptos::prelude::*;
use wmlab_core::TaskId;
use wmlab_core::networks::RunCurves;
use wmlab_core::nn_protocol::{Backend, Cmd};

use crate::components::chart::SpecChart;
use crate::platform::nn_worker as nnw;

mod evaluate;
mod files;
mod form;
mod results;
mod state;
use state::{Net, Phase};

/// What is running, on which backend, and an earlier run stored in this browser.
fn status(net: Net) -> impl IntoView {
    let saved = move || {
        let label = net.saved.with(|s| s.as_ref().map(|h| h.label()))?;
        matches!(net.phase.get(), Phase::Ready | Phase::Failed).then(|| {
            view! {
                <div class="notice" id="nn-saved">
                    "A saved run is in this browser: " <strong>{label}</strong> ". "
                    <button id="nn-resume-saved" on:click=move |_| net.resume_saved()
                        disabled=move || net.phase.get() != Phase::Ready>"Resume training"</button>
                    " " <button id="nn-discard" class="secondary" on:click=move |_| net.discard()>"Discard it"</button>
                </div>
            }
        })
    };
    view! {
        <p class="status" id="nn-status">
            <strong>{move || net.phase.get().label()}</strong>
            " Backend: " <span id="nn-backend">{move || net.backend.get().map_or("—", |b| b.label())}</span>
            <span id="nn-threads" data-threads=move || net.threads.get().to_string()>
                {move || (net.threads.get() > 1).then(|| format!(" · {} threads", net.threads.get()))}</span>
            <span class="small" id="nn-device" title=move || net.device.get()>
                {move || if net.device.with(String::is_empty) { "" } else { " · device ready" }}</span>
        </p>
        {threads_offer(net)}
        // Auto's choice for the latest run: each backend's ms per step (`data-probe`: the figures as
        // JSON, for tests).
        {move || net.probe.get().map(|o| {
            let measured = net.probe_measured.get();
            let json = serde_json::to_string(&o).unwrap_or_default();
            view! {
                <p class="small" id="nn-probe" data-chosen=o.chosen.as_str() data-measured=measured.to_string()
                    data-probe=json>
                    "Auto timed this model: " {o.describe()}
                    {if measured { " (measured just now)." } else { " (measured earlier in this browser)." }}
                </p>
            }
        })}
        {move || net.error.get().map(|e| view! { <p class="error" id="nn-error" role="alert">{e}</p> })}
        {move || net.notice.get().map(|n| view! { <p class="notice" id="nn-notice">{n}</p> })}
        {saved}
    }
}

/// The CPU on more than one thread: where the host does not send the cross-origin isolation headers, an
/// offer to add them with a service worker (and, under it, a way back).
fn threads_offer(net: Net) -> impl IntoView {
    let cores = web_sys::window().map(|w| w.navigator().hardware_concurrency() as usize).unwrap_or(1);
    let busy = move || net.phase.get().busy();
    let failed = RwSignal::new(None::<String>);
    let act = move |enable: bool| {
        wasm_bindgen_futures::spawn_local(async move {
            let r = if enable { nnw::enable_isolation_worker().await } else { nnw::disable_isolation_worker().await };
            if let Err(e) = r {
                failed.set(Some(e));
            }
        })
    };
    move || {
        let on_cpu = net.backend.get() == Some(Backend::Cpu);
        if nnw::isolation_worker_active() {
            Some(view! {
                <p class="small" id="nn-isolation">
                    {move || if net.threads.get() > 1 {
                        "Multi-threaded through a service worker that adds the isolation headers this host does not send. "
                    } else {
                        "A service worker adds the isolation headers this host does not send (the CPU backend runs on every core). "
                    }}
                    <button class="secondary" id="nn-isolation-off" disabled=busy on:click=move |_| act(false)>
                        "Remove it"</button>
                    {move || failed.get().map(|e| view! { <span class="error">" "{e}</span> })}
                </p>
            }
            .into_any())
        } else if on_cpu && cores > 1 && net.threads.get() <= 1 && nnw::can_isolate_with_worker() {
            Some(
                view! {
                    <p class="small" id="nn-isolation">
                        "The CPU runs on one thread here: this host does not send the cross-origin isolation headers "
                        "(COOP/COEP) that shared memory between workers needs. "
                        <button id="nn-isolation-on" disabled=busy on:click=move |_| act(true)>
                            {format!("Use all {cores} cores")}</button>
                        " installs a small service worker that adds them, and reloads the page (the saved run is kept)."
                        {move || failed.get().map(|e| view! { <span class="error">" "{e}</span> })}
                    </p>
                }
                .into_any(),
            )
        } else {
            None
        }
    }
}

/// Train, pause, resume, stop; progress; the live loss and accuracy curves.
fn run(net: Net) -> impl IntoView {
    let phase = net.phase;
    let ids: Vec<&str> = TaskId::EVERY.iter().map(|t| t.as_str()).collect();
    let loss_chart = Signal::derive(move || net.curves.with(RunCurves::loss_chart));
    let acc_chart = Signal::derive(move || net.curves.with(|c| c.accuracy_chart(&ids)));
    view! {
        <div class="buttons">
            <button id="nn-train" on:click=move |_| net.start()
                disabled=move || phase.get().busy() || net.config.with(Option::is_none)>"Train a new model"</button>
            <button id="nn-pause" on:click=move |_| net.send(Cmd::Pause, None)
                disabled=move || phase.get() != Phase::Training>"Pause"</button>
            <button id="nn-continue" on:click=move |_| net.resume() disabled=move || phase.get() != Phase::Paused>"Resume"</button>
            <button id="nn-stop" class="secondary" on:click=move |_| net.send(Cmd::Stop, None)
                disabled=move || !matches!(phase.get(), Phase::Training | Phase::Paused)>"Stop"</button>
        </div>
        <div class="progress-line">
            <progress id="nn-progress" max=move || net.steps.get().max(1) value=move || net.step.get()></progress>
            // `data-losses`: the training loss of each step this page saw, `[[step, loss], …]` (tests).
            <span id="nn-step" data-step=move || net.step.get()
                data-losses=move || net.curves.with(|c| serde_json::to_string(&c.losses).unwrap_or_default())>
                {move || net.status_text()}</span>
        </div>
        // The full run's time left can be long; the quick preset learns most of what it learns early.
        {move || (net.preset.get() == wmlab_core::networks::Preset::Quick
            && matches!(phase.get(), Phase::Training | Phase::Paused)).then(|| view! {
            <p class="small" id="nn-quick-hint">"The quick preset is usually above chance on 8 of 14 task ids by step \
                1,200 (about 2.5 minutes on the CPU of a 2-core AMD EPYC machine, release build; docs/learning.md) and gains little \
                after: pause there and evaluate, or let it run all its steps."</p>
        })}
        <div class="charts">
            <SpecChart id="nn-loss-chart" chart=loss_chart width=760 height=320/>
            <SpecChart id="nn-acc-chart" chart=acc_chart width=760 height=380/>
        </div>
    }
}

#[component]
pub fn Networks() -> impl IntoView {
    let net = Net::new();
    net.apply_preset();
    net.start_worker();
    net.install_test_hook();
    net.load_stored();
    net.load_pretrained_index();
    on_cleanup(move || net.stop_worker());

    view! {
        <section class="page networks" id="networks" data-phase=move || net.phase.get().as_str()>
            <h1>"Networks"</h1>
            <p class="lead">"Train the WorM models (a convolutional encoder, a task embedding, an RNN, GRU, LSTM or causal \
                Transformer memory and one head per task) jointly on all 14 task ids (or a subset), in this tab, then \
                evaluate them on the test trials and compare their curves with people's. The default preset, quick, \
                learns within minutes on a CPU: it is not the paper's model (a linear map of the pixels instead of the \
                ConvNet, and a Transformer that compares each frame with the earlier ones by distance), and \
                docs/learning.md says what it does and does not learn; or load a pretrained model below. Training runs in a background worker on \
                WebGPU when your browser has it, otherwise on the CPU. The paper-scale settings are meant for a GPU \
                machine with " <code>"wmlab train"</code> "; its checkpoints open here."</p>
            {status(net)}
            {form::settings_form(net)}
            {run(net)}
            {files::pretrained(net)}
            {files::checkpoints(net)}
            {evaluate::evaluate_and_analyse(net)}
        </section>
    }
}
