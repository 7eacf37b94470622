//! Networks: train the WorM models in the tab and evaluate them against the human numbers.
//!
//! Training runs in a dedicated Web Worker (`crates/nn-worker`: burn on WebGPU, or the flex CPU backend
//! when the browser has no WebGPU), so the page never freezes and the participant pages never download
//! burn. This page only turns form input into a `TrainConfig` (JSON; the presets come from the worker,
//! i.e. from `wmlab_nn::TrainConfig::preset`), worker events into pixels, and checkpoints into IndexedDB
//! (`latest` = the resume point, `best` = the best validation accuracy so far, `run` = the curves).
//! Evaluation returns a `ResultRecord` whose behavioural curves are computed by the core, exactly as for
//! a person, and drawn over the WorM human curves.

use leptos::prelude::*;
use serde_json::{Value, json};
use wmlab_core::nn_messages::{RunCurves, SettingsEdits};
use wmlab_core::record::ResultRecord;

use crate::app::AppState;
use crate::components::chart::{RecordCharts, SpecChart};
use crate::components::nn_analysis::NnAnalysis;
use crate::platform::nn_worker::{self as nnw, BundleInfo, Cmd, Event, NnWorker};
use crate::platform::web;

mod results;
use results::{a3_table, model_card, significance_row};

/// The 14 task ids in the order the networks crate reports them ([`wmlab_core::TaskId::ALL`]).
fn task_ids() -> [&'static str; 14] {
    wmlab_core::TaskId::ALL.map(|t| t.as_str())
}
/// The list of shipped pretrained models and their cards.
const PRETRAINED_INDEX: &str = "models/index.json";

use wmlab_core::chance::LEVEL as SIGNIFICANCE;

/// Kept points of the per-step loss curve (older points are thinned by half when exceeded).
const MAX_LOSS_POINTS: usize = 3000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The worker is loading or initialising its backend.
    Starting,
    Ready,
    Training,
    Paused,
    Stopped,
    Done,
    Failed,
}

impl Phase {
    fn as_str(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Ready => "ready",
            Phase::Training => "training",
            Phase::Paused => "paused",
            Phase::Stopped => "stopped",
            Phase::Done => "done",
            Phase::Failed => "failed",
        }
    }
}

/// A comma list of task ids as the config's `tasks` (null for all 14), or a message naming the bad id.
fn parse_task_list(text: &str) -> Result<Value, String> {
    let mut ids: Vec<&'static str> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part.eq_ignore_ascii_case("all") {
            return Ok(Value::Null);
        }
        let id =
            wmlab_core::TaskId::ALL.into_iter().find(|t| t.as_str().eq_ignore_ascii_case(part)).ok_or_else(|| {
                format!("Task ids: \"{part}\" is not a task id. Use a comma list of {}.", task_ids().join(", "))
            })?;
        if !ids.contains(&id.as_str()) {
            ids.push(id.as_str());
        }
    }
    Ok(if ids.is_empty() || ids.len() == task_ids().len() { Value::Null } else { json!(ids) })
}

fn thin(v: &mut Vec<(f64, f64)>) {
    if v.len() > MAX_LOSS_POINTS {
        *v = v.chunks(2).map(|c| (c[0].0, c.iter().map(|p| p.1).sum::<f64>() / c.len() as f64)).collect();
    }
}

#[component]
pub fn Networks() -> impl IntoView {
    let state = expect_context::<AppState>();
    let phase = RwSignal::new(Phase::Starting);
    let error = RwSignal::new(None::<String>);
    let notice = RwSignal::new(None::<String>);
    let backend_pick = RwSignal::new(String::from("auto"));
    let backend = RwSignal::new(String::new());
    let device = RwSignal::new(String::new());
    // The quick preset's measured best (docs/learning.md): the causal Transformer, 96 units.
    let arch = RwSignal::new(String::from("trf"));
    let capacity = RwSignal::new(String::from("96"));
    let preset = RwSignal::new(String::from("quick"));
    let config = RwSignal::new(Value::Null);
    let params = RwSignal::new(None::<usize>);
    let config_text = RwSignal::new(String::new());
    // Fields edited while the worker is still answering a preset / settings request survive its answer.
    let edits = StoredValue::new(SettingsEdits::new());
    // Whether a settings request is unanswered (`data-settings="pending"`; tests wait for "settled").
    let settling = RwSignal::new(false);
    let step = RwSignal::new(0usize);
    let steps = RwSignal::new(0usize);
    let ms_per_step = RwSignal::new(None::<f64>);
    let curves = RwSignal::new(RunCurves::default());
    let saved = RwSignal::new(None::<BundleInfo>);
    let has_best = RwSignal::new(false);
    let eval_n = RwSignal::new(String::from("20"));
    let eval_progress = RwSignal::new(None::<(usize, usize)>);
    let record = RwSignal::new(None::<ResultRecord>);
    // Neural analyses (Fig. 5, A5, A6, A13): trials per task, progress (stage, done, total), the report.
    let analyse_n = RwSignal::new(String::from("10"));
    let analyse_progress = RwSignal::new(None::<(String, usize, usize)>);
    let analysis = RwSignal::new(None::<Value>);
    let worker = StoredValue::new(None::<NnWorker>);

    let send = move |cmd: Cmd, bytes: Option<&[u8]>| {
        worker.with_value(|w| {
            if let Some(w) = w {
                w.send(&cmd, bytes)
            }
        })
    };
    let request_preset = move || {
        let cap = capacity.get_untracked().trim().parse::<usize>().unwrap_or(0);
        if cap == 0 {
            error.set(Some("Capacity must be a whole number above 0 (the paper uses 96, 256 and 1024).".into()));
            return;
        }
        let seq = edits.try_update_value(|e| e.request()).unwrap_or(0);
        settling.set(true);
        send(Cmd::Preset { name: preset.get_untracked(), arch: arch.get_untracked(), capacity: cap, seq }, None);
    };

    // Persist a checkpoint and the curves; a failure (storage full, private mode) is reported, not fatal.
    let persist = move |kind: String, bytes: Vec<u8>| {
        if kind == "best" {
            has_best.set(true);
        } else if let Ok(info) = BundleInfo::read(&bytes) {
            saved.set(Some(info));
        }
        let curves_json = serde_json::to_string(&curves.get_untracked()).unwrap_or_default();
        nnw::store_checkpoint(kind, bytes, curves_json, notice);
    };
    let on_event = move |ev: Event, bytes: Option<Vec<u8>>| match ev {
        Event::Loaded => {
            send(Cmd::Init { backend: backend_pick.get_untracked() }, None);
        }
        Event::Ready { backend: b, device: d } => {
            backend.set(b);
            device.set(d);
            if phase.get_untracked() == Phase::Starting {
                phase.set(Phase::Ready);
                // The first start asks for the preset; a restarted worker (after Cancel) keeps the settings.
                if config.with_untracked(|c| c.is_null()) {
                    request_preset();
                }
            }
        }
        Event::Config { config: c, params: p, seq } => {
            // An answer to an older request is dropped; fields edited since the latest are kept.
            let Some(c) = edits.try_update_value(|e| e.answer(seq, c)).flatten() else { return };
            settling.set(false);
            steps.set(c["steps"].as_u64().unwrap_or(0) as usize);
            config_text.set(serde_json::to_string_pretty(&c).unwrap_or_default());
            config.set(c);
            params.set(Some(p));
        }
        Event::Step { step: s, steps: n, loss, ms } => {
            step.set(s);
            steps.set(n);
            ms_per_step.update(|m| *m = Some(m.map_or(ms, |old| 0.9 * old + 0.1 * ms)));
            curves.update(|c| {
                c.losses.push((s as f64, loss as f64));
                thin(&mut c.losses);
            });
        }
        Event::Val { report } => curves.update(|c| c.vals.push(report)),
        Event::Checkpoint { kind, .. } => {
            if let Some(b) = bytes {
                persist(kind, b);
            }
        }
        Event::Paused { step: s } => {
            step.set(s);
            phase.set(Phase::Paused);
        }
        Event::Stopped { step: s } => {
            step.set(s);
            phase.set(Phase::Stopped);
        }
        Event::Done { step: s } => {
            step.set(s);
            phase.set(Phase::Done);
            notice.set(Some("Training finished. Evaluate the best model below.".into()));
        }
        Event::EvalProgress { done, total } => eval_progress.set(Some((done, total))),
        Event::Record { record: r } => {
            eval_progress.set(None);
            let mut r = *r;
            r.created = Some(web::now_iso());
            // Analyses of the same model made before this evaluation stay with its record.
            r.analyses = analysis.get_untracked();
            crate::platform::history::add_later(r.clone());
            record.set(Some(r));
        }
        Event::AnalysisProgress { stage, done, total } => analyse_progress.set(Some((stage, done, total))),
        Event::Analysis { report } => {
            analyse_progress.set(None);
            let Ok(report) = serde_json::to_value(&*report) else {
                return error.set(Some("The analysis could not be kept.".into()));
            };
            // Saved into the evaluation's record too (travels in exports; dropped from share links).
            if record.with_untracked(|r| r.is_some()) {
                record.update(|r| {
                    if let Some(r) = r {
                        r.analyses = Some(report.clone());
                    }
                });
            }
            analysis.set(Some(report));
        }
        Event::Error { message, fatal } => {
            edits.update_value(|e| e.settle());
            settling.set(false);
            eval_progress.set(None);
            analyse_progress.set(None);
            if fatal && matches!(phase.get_untracked(), Phase::Training | Phase::Starting) {
                phase.set(if phase.get_untracked() == Phase::Starting { Phase::Failed } else { Phase::Stopped });
            }
            error.set(Some(message));
        }
    };

    // Start the worker and look for a saved run.
    let start_worker = move || match NnWorker::spawn(on_event) {
        Ok(w) => {
            w.on_error(move |m| {
                error.set(Some(format!("The networks worker stopped: {m}")));
                phase.set(Phase::Failed);
            });
            worker.set_value(Some(w));
        }
        Err(e) => {
            error.set(Some(e));
            phase.set(Phase::Failed);
        }
    };
    start_worker();
    // Cancel a running evaluation or analysis: the worker computes without reading messages until it is
    // done, so it is stopped and a fresh one started (it loads from the wasm cache); the checkpoints live
    // in IndexedDB and are untouched. The page waits for the new worker's `Ready` (phase `Starting`).
    let cancel_work = move |_| {
        worker.with_value(|w| {
            if let Some(w) = w {
                w.terminate();
            }
        });
        eval_progress.set(None);
        analyse_progress.set(None);
        phase.set(Phase::Starting);
        notice.set(Some("Cancelled. The saved checkpoints are kept.".into()));
        start_worker();
    };
    wasm_bindgen_futures::spawn_local(async move {
        if let Ok(Some(b)) = nnw::load_bytes("nn/latest").await
            && let Ok(info) = BundleInfo::read(&b)
        {
            let _ = saved.try_set(Some(info));
        }
        if let Ok(Some(_)) = nnw::load_bytes("nn/best").await {
            let _ = has_best.try_set(true);
        }
        if let Ok(Some(t)) = nnw::load_text("nn/run").await
            && let Ok(c) = serde_json::from_str::<RunCurves>(&t)
        {
            let _ = curves.try_set(c);
        }
    });
    on_cleanup(move || {
        if let Some(Some(w)) = worker.try_get_value() {
            w.terminate();
        }
    });

    // Form field helpers: a number field bound to a path in the config JSON.
    let set_field = move |path: &'static [&'static str], v: Value| {
        config.update(|c| edits.update_value(|e| e.edit(c, path, v.clone())));
        config_text.set(serde_json::to_string_pretty(&config.get_untracked()).unwrap_or_default());
        if path == ["steps"] {
            steps.set(v.as_u64().unwrap_or(0) as usize);
        }
    };
    let field = move |id: &'static str, label: &'static str, path: &'static [&'static str], float: bool| {
        // A memo: the field is written only when its own value changes, so an answer that leaves it as
        // it was does not wipe what is being typed there.
        let shown = Memo::new(move |_| {
            config.with(|c| {
                let mut node = c;
                for k in path {
                    node = &node[*k];
                }
                match node {
                    Value::Number(n) => n.to_string(),
                    _ => String::new(),
                }
            })
        });
        let on = move |ev: leptos::ev::Event| {
            let t = event_target_value(&ev);
            let v = if float {
                t.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0).map(|x| json!(x))
            } else {
                t.trim().parse::<u64>().ok().map(|x| json!(x))
            };
            match v {
                Some(v) => {
                    error.set(None);
                    set_field(path, v);
                }
                None => error.set(Some(format!(
                    "{label}: \"{}\" is not a valid {}.",
                    t.trim(),
                    if float { "positive number" } else { "whole number" }
                ))),
            }
        };
        view! {
            <label>{label} " " <input type="text" class="short" id=id prop:value=move || shown.get() on:change=on/></label>
        }
    };

    // The trained task ids: `tasks` in the config (null = all 14), shown and edited as a comma list.
    let tasks_shown = Memo::new(move |_| {
        config.with(|c| match c["tasks"].as_array() {
            Some(v) => v.iter().filter_map(|t| t.as_str()).collect::<Vec<_>>().join(","),
            None => String::new(),
        })
    });
    let on_tasks = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        match parse_task_list(&text) {
            Ok(v) => {
                error.set(None);
                set_field(&["tasks"], v);
            }
            Err(e) => error.set(Some(e)),
        }
    };

    // Reference-code quirks: `quirks` in the config (null = none, the paper's tasks), one box each.
    let quirks_now = move || -> wmlab_core::Quirks {
        config.with(|c| serde_json::from_value(c["quirks"].clone()).ok().flatten().unwrap_or_default())
    };
    let quirk_box = move |name: &'static str, what: &'static str| {
        let on = move || quirks_now().names().contains(&name);
        let toggle = move |ev: leptos::ev::Event| {
            let mut q = quirks_now();
            if q.set(name, event_target_checked(&ev)).is_ok() {
                set_field(&["quirks"], if q.is_none() { Value::Null } else { json!(q) });
            }
        };
        view! {
            <label class="small" title=what><input type="checkbox" id=format!("nn-quirk-{name}") prop:checked=on on:change=toggle/>
                " " {name}</label>
        }
    };

    let busy = move || matches!(phase.get(), Phase::Training | Phase::Starting);
    let start = move |_| {
        error.set(None);
        notice.set(None);
        record.set(None);
        analysis.set(None);
        let c = config.get_untracked();
        if c.is_null() {
            error.set(Some("The settings are not loaded yet.".into()));
            return;
        }
        curves.set(RunCurves { backend: backend.get_untracked(), ..Default::default() });
        has_best.set(false);
        step.set(0);
        ms_per_step.set(None);
        phase.set(Phase::Training);
        wasm_bindgen_futures::spawn_local(async move {
            let _ = nnw::delete("nn/best").await;
        });
        send(Cmd::Start { config: c }, None);
    };
    let pause = move |_| send(Cmd::Pause, None);
    let cont = move |_| {
        error.set(None);
        phase.set(Phase::Training);
        send(Cmd::Continue, None);
    };
    let stop = move |_| send(Cmd::Stop, None);
    let resume_saved = move |_| {
        error.set(None);
        wasm_bindgen_futures::spawn_local(async move {
            match nnw::load_bytes("nn/latest").await {
                Ok(Some(b)) => {
                    if let Ok(info) = BundleInfo::read(&b) {
                        steps.set(info.steps());
                        step.set(info.step());
                        config_text.set(serde_json::to_string_pretty(&info.train).unwrap_or_default());
                        let c = edits
                            .try_update_value(|e| e.answer(0, info.train.clone()))
                            .flatten()
                            .unwrap_or(info.train.clone());
                        config.set(c);
                    }
                    phase.set(Phase::Training);
                    send(Cmd::Resume { run: true }, Some(&b));
                }
                Ok(None) => error.set(Some("No saved run in this browser.".into())),
                Err(e) => error.set(Some(format!("The saved run could not be read: {e}"))),
            }
        });
    };
    let discard = move |_| {
        wasm_bindgen_futures::spawn_local(async move {
            for k in ["nn/latest", "nn/best", "nn/run"] {
                let _ = nnw::delete(k).await;
            }
            saved.set(None);
            has_best.set(false);
            curves.set(RunCurves::default());
        });
    };
    let download = move |kind: &'static str| {
        move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match nnw::load_bytes(&format!("nn/{kind}")).await {
                    Ok(Some(b)) => {
                        let name = BundleInfo::read(&b)
                            .map(|i| {
                                format!(
                                    "wmlab-{}{}-{}-step{}.wmlabnn",
                                    i.train["model"]["arch"].as_str().unwrap_or("net"),
                                    i.train["model"]["capacity"].as_u64().unwrap_or(0),
                                    kind,
                                    i.step()
                                )
                            })
                            .unwrap_or_else(|_| format!("wmlab-{kind}.wmlabnn"));
                        if let Err(e) = web::download_bytes(&name, &b) {
                            error.set(Some(format!("The download failed: {e}")));
                        }
                    }
                    Ok(None) => error.set(Some(format!("There is no {kind} checkpoint yet."))),
                    Err(e) => error.set(Some(format!("The checkpoint could not be read: {e}"))),
                }
            });
        }
    };
    // A checkpoint bundle (a file or a shipped pretrained model) replaces the stored run; the one shown
    // before stays until the new one is read and stored.
    let load_bundle = move |name: String, buf: Vec<u8>| {
        wasm_bindgen_futures::spawn_local(async move {
            let info = match BundleInfo::read(&buf) {
                Ok(i) => i,
                Err(e) => return error.set(Some(format!("{name}: {e}"))),
            };
            let r = async {
                nnw::store_bytes("nn/latest", &buf).await?;
                nnw::delete("nn/best").await?;
                let c = RunCurves {
                    vals: serde_json::from_value(info.state["history"].clone()).unwrap_or_default(),
                    ..Default::default()
                };
                nnw::store_text("nn/run", &serde_json::to_string(&c).unwrap_or_default()).await?;
                Ok::<RunCurves, String>(c)
            }
            .await;
            match r {
                Ok(c) => {
                    curves.set(c);
                    has_best.set(false);
                    record.set(None);
                    analysis.set(None);
                    notice.set(Some(format!(
                        "Loaded {name}: {}. Evaluate or analyse it below, or resume its training.",
                        info.label()
                    )));
                    saved.set(Some(info));
                }
                Err(e) => error.set(Some(format!("The checkpoint could not be stored in this browser: {e}"))),
            }
        });
    };
    let on_upload = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        error.set(None);
        wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Ok(b) => load_bundle(file.name(), js_sys::Uint8Array::new(&b).to_vec()),
                Err(e) => error.set(Some(format!("The file could not be read: {e:?}"))),
            }
        });
    };
    // Pretrained models shipped under public/models: the list (index.json, the cards) is read when this
    // page opens; a model's weights are fetched only when it is loaded.
    let pretrained = RwSignal::new(Vec::<Value>::new());
    let pretrained_pick = RwSignal::new(0usize);
    let pretrained_loading = RwSignal::new(false);
    wasm_bindgen_futures::spawn_local(async move {
        match crate::platform::web::fetch_bytes(PRETRAINED_INDEX).await {
            Ok(b) => match serde_json::from_slice::<Vec<Value>>(&b) {
                Ok(v) => {
                    let _ = pretrained.try_set(v);
                }
                Err(e) => {
                    let _ = notice.try_set(Some(format!("The list of pretrained models could not be read ({e}).")));
                }
            },
            Err(e) => {
                let _ = notice.try_set(Some(format!("No pretrained models are available here: {e}")));
            }
        }
    });
    let load_pretrained = move |_| {
        let Some(card) = pretrained.with_untracked(|v| v.get(pretrained_pick.get_untracked()).cloned()) else { return };
        let Some(file) = card["file"].as_str().map(str::to_string) else { return };
        error.set(None);
        pretrained_loading.set(true);
        wasm_bindgen_futures::spawn_local(async move {
            let r = crate::platform::web::fetch_bytes(&format!("models/{file}")).await;
            pretrained_loading.set(false);
            match r {
                Ok(b) => load_bundle(file, b),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let evaluate = move |_| {
        error.set(None);
        let n = match eval_n.get_untracked().trim().parse::<usize>() {
            Ok(n) if (1..=10_000).contains(&n) => n,
            _ => return error.set(Some("Test trials per task: a whole number from 1 to 10000.".into())),
        };
        record.set(None);
        eval_progress.set(Some((0, n * task_ids().len())));
        wasm_bindgen_futures::spawn_local(async move {
            send(Cmd::Evaluate { n }, nnw::stored_model().await.as_deref());
        });
    };
    let analyse = move |_| {
        error.set(None);
        let n = match analyse_n.get_untracked().trim().parse::<usize>() {
            Ok(n) if (2..=1000).contains(&n) => n,
            _ => return error.set(Some("Analysis trials per task: a whole number from 2 to 1000.".into())),
        };
        analysis.set(None);
        analyse_progress.set(Some(("hidden".into(), 0, n * task_ids().len())));
        wasm_bindgen_futures::spawn_local(async move {
            send(Cmd::Analyse { n }, nnw::stored_model().await.as_deref());
        });
    };
    let apply_json = move |ev: leptos::ev::Event| {
        let t = event_target_value(&ev);
        match serde_json::from_str::<Value>(&t) {
            Ok(v) if v.is_object() => {
                error.set(None);
                let seq = edits.try_update_value(|e| e.request()).unwrap_or(0);
                settling.set(true);
                send(Cmd::Check { config: v, seq }, None);
            }
            _ => error.set(Some("The settings JSON is not valid; the previous settings are kept.".into())),
        }
    };

    // Charts.
    let loss_chart = Signal::derive(move || curves.with(RunCurves::loss_chart));
    let acc_chart = Signal::derive(move || curves.with(|c| c.accuracy_chart(&task_ids())));

    let status_text = move || {
        let (s, n) = (step.get(), steps.get());
        let mut t = format!("step {s} of {n}");
        let ids = config.with(|c| c["tasks"].as_array().map_or(task_ids().len(), |v| v.len().max(1))) as f64;
        if let (Some(ms), Some(per)) = (ms_per_step.get(), config.with(|c| c["per_task"].as_f64())) {
            t.push_str(&format!(" · {:.0} ms/step · {:.1} trials/s", ms, per * ids * 1000.0 / ms.max(1e-3)));
            if phase.get() == Phase::Training && n > s {
                t.push_str(&format!(" · about {} left", crate::components::format::fmt_ms(ms * (n - s) as f64)));
            }
        }
        t
    };
    let open_results = move |_| {
        if let Some(r) = record.get_untracked() {
            match r.to_json() {
                Ok(j) => {
                    state.open_json(&j);
                    web::set_hash("#/results");
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        }
    };
    let acc_rows = move || {
        record.with(|r| {
            r.as_ref().map(|r| {
                wmlab_core::chance::record_significance(r)
                    .into_iter()
                    .map(|s| significance_row(s.task, s.accuracy, s.chance, s.responses, s.p_above_chance))
                    .collect_view()
            })
        })
    };
    let above_count = move || {
        record.with(|r| {
            r.as_ref().map(|r| {
                let sig = wmlab_core::chance::record_significance(r);
                let k = sig.iter().filter(|s| s.above_chance(SIGNIFICANCE)).count();
                format!("{k} of {} task ids above chance (one-sided exact binomial test, p < 0.01).", sig.len())
            })
        })
    };

    view! {
        <section class="page networks" id="networks" data-phase=move || phase.get().as_str()
            data-settings=move || if settling.get() { "pending" } else { "settled" }>
            <h1>"Networks"</h1>
            <p class="lead">"Train the WorM models (a convolutional encoder, a task embedding, an RNN, GRU, LSTM or causal \
                Transformer memory and one head per task) jointly on all 14 task ids (or a subset), in this tab, then \
                evaluate them on the test trials and compare their curves with people's. The default preset, quick, \
                learns within minutes on a CPU: it is not the paper's model (a linear map of the pixels instead of the \
                ConvNet, and a Transformer that compares each frame with the earlier ones by distance), and \
                docs/learning.md says what it does and does not learn; or load a pretrained model below. Training runs in a background worker on \
                WebGPU when your browser has it, otherwise on the CPU. The paper-scale settings are meant for a GPU \
                machine with " <code>"wmlab train"</code> "; its checkpoints open here."</p>
            <p class="status" id="nn-status">
                <strong>{move || match phase.get() {
                    Phase::Starting => "Starting the training worker…",
                    Phase::Ready => "Ready.",
                    Phase::Training => "Training…",
                    Phase::Paused => "Paused.",
                    Phase::Stopped => "Stopped.",
                    Phase::Done => "Finished.",
                    Phase::Failed => "The training worker is not available.",
                }}</strong>
                " Backend: " <span id="nn-backend">{move || { let b = backend.get(); if b.is_empty() { "—".to_string() } else if b == "webgpu" { "WebGPU".into() } else { "CPU (flex, in wasm)".into() } }}</span>
                <span class="small" id="nn-device" title=move || device.get()>{move || if device.get().is_empty() { String::new() } else { " · device ready".to_string() }}</span>
            </p>
            {move || error.get().map(|e| view! { <p class="error" id="nn-error" role="alert">{e}</p> })}
            {move || notice.get().map(|n| view! { <p class="notice" id="nn-notice">{n}</p> })}
            {move || (saved.get().is_some() && matches!(phase.get(), Phase::Ready | Phase::Failed)).then(|| {
                let label = saved.get().map(|i| i.label()).unwrap_or_default();
                view! {
                    <div class="notice" id="nn-saved">
                        "A saved run is in this browser: " <strong>{label}</strong> ". "
                        <button id="nn-resume-saved" on:click=resume_saved disabled=move || phase.get() != Phase::Ready>"Resume training"</button>
                        " " <button id="nn-discard" class="secondary" on:click=discard>"Discard it"</button>
                    </div>
                }
            })}

            <fieldset class="form" disabled=busy>
                <legend>"Model and training"</legend>
                <label>"Backend "
                    <select id="nn-backend-pick" prop:value=move || backend_pick.get() on:change=move |ev| {
                        let v = event_target_value(&ev);
                        backend_pick.set(v.clone());
                        send(Cmd::Init { backend: v }, None);
                    }>
                        <option value="auto">"WebGPU if available, else CPU"</option>
                        <option value="webgpu">"WebGPU"</option>
                        <option value="cpu">"CPU"</option>
                    </select>
                </label>
                <label>"Memory "
                    <select id="nn-arch" prop:value=move || arch.get() on:change=move |ev| { arch.set(event_target_value(&ev)); request_preset(); }>
                        <option value="rnn">"RNN"</option>
                        <option value="gru">"GRU"</option>
                        <option value="lstm">"LSTM"</option>
                        <option value="trf">"Transformer (causal)"</option>
                    </select>
                </label>
                <label>"Capacity "
                    <input type="text" class="short" id="nn-capacity" list="nn-capacities" prop:value=move || capacity.get()
                        on:change=move |ev| { capacity.set(event_target_value(&ev)); request_preset(); }/>
                    <datalist id="nn-capacities"><option value="96"/><option value="256"/><option value="1024"/></datalist>
                </label>
                <label>"Preset "
                    <select id="nn-preset" prop:value=move || preset.get() on:change=move |ev| { preset.set(event_target_value(&ev)); request_preset(); }>
                        <option value="quick">"quick (learns in minutes on a CPU)"</option>
                        <option value="tiny">"tiny (a smoke test: stays near chance)"</option>
                        <option value="small">"small (minutes on a GPU)"</option>
                        <option value="paper">"paper (Table A1; days)"</option>
                    </select>
                </label>
                <span class="small" id="nn-params">{move || params.get().map(|p| {
                    // Beside Table A4's count for the same architecture and hidden size.
                    // (Only for the paper preset: the others change the encoder.)
                    let (paper, arch, cap) = config.with(|c| (c["preset"] == "paper", c["model"]["arch"].as_str().unwrap_or("").to_string(), c["model"]["capacity"].as_u64().unwrap_or(0)));
                    match wmlab_core::papers::table_a4_params(&arch, cap as usize).filter(|_| paper) {
                        Some(n) => format!("{p} parameters (Table A4: {}M)", n / 1e6),
                        None => format!("{p} parameters"),
                    }
                }).unwrap_or_default()}</span>
                <div class="row">
                    {field("nn-steps", "Steps", &["steps"], false)}
                    {field("nn-per-task", "Trials per task per step", &["per_task"], false)}
                    {field("nn-lr", "Learning rate", &["lr"], true)}
                    {field("nn-seed", "Seed", &["seed"], false)}
                    {field("nn-val-every", "Validate every (steps)", &["val_every"], false)}
                    {field("nn-val-n", "Validation trials per task", &["val_per_task"], false)}
                </div>
                <div class="row">
                    <label>"Task ids "
                        <input type="text" id="nn-tasks" placeholder="all 14" size="40" prop:value=move || tasks_shown.get() on:change=on_tasks/></label>
                    <span class="small">"Train a subset, e.g. " <code>"VSR"</code> " (the paper's VSR-alone ablation) or "
                        <code>"CD-Color,VIR,SC"</code> "; empty = all 14. Only these ids get a loss; evaluation tests these ids."</span>
                </div>
                <div class="row" id="nn-quirks">
                    <span>"Reference-code behaviours "</span>
                    {wmlab_core::Quirks::ALL.into_iter().map(|(name, what)| quirk_box(name, what)).collect_view()}
                    <span class="small">"Off = the paper's tasks. On = what the WorM code does, to reproduce numbers made with it \
                        (hover for each). Kept in the checkpoint; evaluation uses the same."</span>
                </div>
                <details>
                    <summary id="nn-json-summary">"All settings (JSON)"</summary>
                    <p class="small">"Every field of the training and model configuration; edits are checked by the worker."</p>
                    <textarea id="nn-config-json" rows="14" cols="70" prop:value=move || config_text.get() on:change=apply_json></textarea>
                </details>
            </fieldset>

            <div class="buttons">
                <button id="nn-train" on:click=start disabled=move || busy() || config.with(|c| c.is_null())>"Train a new model"</button>
                <button id="nn-pause" on:click=pause disabled=move || phase.get() != Phase::Training>"Pause"</button>
                <button id="nn-continue" on:click=cont disabled=move || phase.get() != Phase::Paused>"Resume"</button>
                <button id="nn-stop" class="secondary" on:click=stop disabled=move || !matches!(phase.get(), Phase::Training | Phase::Paused)>"Stop"</button>
            </div>
            <div class="progress-line">
                <progress id="nn-progress" max=move || steps.get().max(1) value=move || step.get()></progress>
                <span id="nn-step" data-step=move || step.get()>{status_text}</span>
            </div>
            <div class="charts">
                <SpecChart id="nn-loss-chart" chart=loss_chart width=760 height=320/>
                <SpecChart id="nn-acc-chart" chart=acc_chart width=760 height=380/>
            </div>

            <h2>"Pretrained models"</h2>
            <p class="small">"Models trained with " <code>"wmlab train"</code> " and shipped with the app: load one to evaluate, \
                analyse and compare it without training. Its card says how it was trained and how it did on the test trials."</p>
            {move || pretrained.with(|v| v.is_empty()).then(|| view! { <p class="small">"None loaded yet."</p> })}
            {move || (!pretrained.with(|v| v.is_empty())).then(|| view! {
                <div class="buttons">
                    <label>"Model "
                        <select id="nn-pretrained" prop:value=move || pretrained_pick.get().to_string()
                            on:change=move |ev| pretrained_pick.set(event_target_value(&ev).parse().unwrap_or(0))>
                            {move || pretrained.get().into_iter().enumerate().map(|(i, c)| view! {
                                <option value=i.to_string()>{c["title"].as_str().unwrap_or("model").to_string()}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <button id="nn-load-pretrained" on:click=load_pretrained disabled=move || busy() || pretrained_loading.get()>
                        {move || if pretrained_loading.get() { "Loading…" } else { "Load this pretrained model" }}</button>
                </div>
                {move || pretrained.with(|v| v.get(pretrained_pick.get()).cloned()).map(model_card)}
            })}

            <h2>"Checkpoints"</h2>
            <p class="small">"Saved in this browser at every validation check and on pause, so a reload can resume. \
                Downloads open in the app and in the CLI (" <code>"wmlab eval --checkpoint FILE"</code> ")."</p>
            <div class="buttons">
                <button id="nn-download-latest" on:click=download("latest") disabled=move || saved.get().is_none()>"Download latest"</button>
                <button id="nn-download-best" on:click=download("best") disabled=move || !has_best.get()>"Download best"</button>
                <label class="file">"Load a checkpoint file "
                    <input type="file" id="nn-upload" accept=".wmlabnn,application/octet-stream" on:change=on_upload disabled=busy/></label>
            </div>

            <h2>"Evaluate"</h2>
            <p class="small">"Runs the best checkpoint (or the latest) on the test trials of every task id and scores it like a \
                participant: per-task accuracy and the paper's behavioural curves (Fig. 4) over the human curves."</p>
            <div class="buttons">
                <label>"Test trials per task " <input type="text" class="short" id="nn-eval-n" prop:value=move || eval_n.get()
                    on:input=move |ev| eval_n.set(event_target_value(&ev))/></label>
                <button id="nn-evaluate" on:click=evaluate disabled=move || busy() || eval_progress.get().is_some() || (saved.get().is_none() && !has_best.get())>"Evaluate"</button>
            </div>
            {move || eval_progress.get().map(|(d, t)| view! {
                <div class="progress-line"><progress id="nn-eval-progress" max=t.max(1) value=d></progress>
                    <span>{format!("{d} of {t} test trials")}</span>
                    <button id="nn-cancel-eval" class="secondary" on:click=cancel_work>"Cancel"</button></div>
            })}
            {move || record.get().map(|r| {
                let label = r.subject.label();
                view! {
                    <div id="nn-eval" class="eval">
                        <h3>{format!("{label}: test accuracy")}</h3>
                        <p id="nn-above-count">{above_count}</p>
                        <table class="summary" id="nn-eval-table"><thead><tr><th>"task"</th><th>"accuracy"</th><th>"chance"</th>
                            <th title="scored responses the accuracy is over">"responses"</th><th>"p (above chance)"</th><th></th></tr></thead>
                            <tbody>{acc_rows}</tbody></table>
                        <p class="small">"Chance is the accuracy of guessing among the answers each step offers (½ for the yes/no \
                            tasks, 1/9 for VSR and SMU, 1/8 for CS recall, L/100 for SFR); p is the one-sided exact probability of \
                            doing at least this well by guessing."</p>
                        <RecordCharts record=r.clone()/>
                        {a3_table(&r)}
                        <div class="buttons"><button id="nn-open-results" on:click=open_results>"Open in Results (downloads, share link)"</button></div>
                    </div>
                }
            })}

            <h3>"Analyse"</h3>
            <p class="small">"Neural analyses of the best checkpoint (or the latest) on the test trials: task variance and \
                clusters of hidden units, fractional task variance, cluster lesions, the STS probe-state embedding and \
                the similarity matrices (paper Fig. 5, A5, A6, A13)."</p>
            <div class="buttons">
                <label>"Trials per task " <input type="text" class="short" id="nn-analyse-n" prop:value=move || analyse_n.get()
                    on:input=move |ev| analyse_n.set(event_target_value(&ev))/></label>
                <button id="nn-analyse" on:click=analyse disabled=move || busy() || analyse_progress.get().is_some() || eval_progress.get().is_some() || (saved.get().is_none() && !has_best.get())>"Analyse"</button>
            </div>
            {move || analyse_progress.get().map(|(stage, d, t)| view! {
                <div class="progress-line"><progress max=t.max(1) value=d></progress>
                    <span id="nn-analyse-progress">{format!("{stage}: {d} of {t}")}</span>
                    <button id="nn-cancel-analyse" class="secondary" on:click=cancel_work>"Cancel"</button></div>
            })}
            {move || analysis.get().map(|r| view! { <div id="nn-analysis" class="eval"><NnAnalysis report=r/></div> })}
        </section>
    }
}
