//! Results: open a share link or an exported JSON file and show the record; download it as JSON or
//! CSV; copy its share link. A link or file that cannot be read shows a plain message and leaves the
//! result shown before in place. Below, this browser's results history (`platform::history`): open or
//! delete saved results; a storage error is reported there and never replaces the result shown.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wmlab_core::compare::{self as cmp, Extras};
use wmlab_core::people::StudyTask;
use wmlab_core::record::{ResultRecord, Summary};
use wmlab_core::share;
use wmlab_core::task::TaskId;

use crate::app::AppState;
use crate::components::chart::{CmpChart, RecordCharts};
use crate::platform::history;
use crate::platform::web;

fn fmt_num(x: f64) -> String {
    format!("{x:.4}")
}

fn summary_row(s: &Summary) -> impl IntoView {
    let se = s.se.map(fmt_num).unwrap_or_else(|| "—".into());
    view! {
        <tr>
            <td>{s.task.clone()}</td>
            <td>{s.conditions.label()}</td>
            <td>{s.metric.clone()}</td>
            <td class="num">{s.n}</td>
            <td class="num">{fmt_num(s.value)}</td>
            <td class="num">{se}</td>
        </tr>
    }
}

fn file_name(r: &ResultRecord, ext: &str) -> String {
    let clean: String = r.task.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    format!("wmlab-{}-{}.{ext}", clean, r.subject.kind())
}

fn record_view(state: AppState, r: ResultRecord) -> impl IntoView {
    let link = match share::fragment(&r) {
        Ok(f) => Ok(format!("{}{}", web::base_url(), f)),
        Err(e) => Err(e.to_string()),
    };
    let full_in_link = share::decode(link.as_ref().map(|s| s.as_str()).unwrap_or(""))
        .map(|back| back.trials.len() == r.trials.len())
        .unwrap_or(true);
    let (json_r, csv_r) = (r.clone(), r.clone());
    let download_json = move |_| match json_r.to_json() {
        Ok(text) => {
            if let Err(e) = web::download(&file_name(&json_r, "json"), "application/json", &text) {
                state.error.set(Some(format!("The download failed: {e}.")));
            }
        }
        Err(e) => state.error.set(Some(e.to_string())),
    };
    let download_csv = move |_| match csv_r.to_csv() {
        Ok(text) => {
            if let Err(e) = web::download(&file_name(&csv_r, "csv"), "text/csv", &text) {
                state.error.set(Some(format!("The download failed: {e}.")));
            }
        }
        Err(e) => state.error.set(Some(e.to_string())),
    };
    let copied = RwSignal::new(false);
    let link_input = NodeRef::<leptos::html::Input>::new();
    let link_text = link.clone().unwrap_or_default();
    let copy = move |_| {
        if let Some(i) = link_input.get() {
            i.select();
        }
        let clip = web::window().navigator().clipboard();
        let _ = clip.write_text(&link_text);
        copied.set(true);
    };
    let subject = r.subject.label();
    let kind = r.subject.kind();
    let created = r.created.clone().unwrap_or_else(|| "—".into());
    let summaries = r.summaries_in_order().into_iter().map(summary_row).collect_view();
    let n_trials = r.trials.len();
    let n_summaries = r.summaries.len();
    view! {
        <div class="record" id="record">
            <dl class="meta">
                <dt>"Subject"</dt><dd id="subject">{subject} " (" {kind} ")"</dd>
                <dt>"Task"</dt><dd id="record-task">{r.task.clone()}</dd>
                <dt>"Seed"</dt><dd id="record-seed">{r.config.seed}</dd>
                <dt>"Made"</dt><dd>{created} " · WM Lab " {r.app_version.clone()} " · record version " {r.schema}</dd>
                <dt>"Trials"</dt><dd id="trial-count">{n_trials}</dd>
            </dl>
            <h2>"Summary"</h2>
            {if n_summaries == 0 {
                view! { <p class="empty">"This result has no summaries."</p> }.into_any()
            } else {
                view! {
                    <table id="summary-table" class="summary">
                        <thead><tr>
                            <th>"Task"</th><th>"Condition"</th><th>"Metric"</th>
                            <th class="num">"n"</th><th class="num">"Value"</th><th class="num">"SE"</th>
                        </tr></thead>
                        <tbody>{summaries}</tbody>
                    </table>
                }.into_any()
            }}
            {crate::components::significance::significance_table(&r, "record-significance", "record-above-count")
                .map(|t| view! { <h2>"Above chance, and memory"</h2> {t} })}
            {staircases(&r)}
            {capacity(&r)}
            <h2>"Accuracy per condition"</h2>
            <RecordCharts record=r.clone()/>
            {wmlab_core::analysis::retention::vir_retention(&r).map(|t| view! { <p class="small" id="record-vir-retention">{t.line()}</p> })}
            {r.analyses.clone().map(|a| view! {
                <h2>"Neural analyses"</h2>
                <div id="record-analyses" class="eval">{crate::components::nn_analysis::record_analyses(a)}</div>
            })}
            <div class="actions">
                <button id="download-json" on:click=download_json>"Download JSON"</button>
                <button id="download-csv" on:click=download_csv>"Download CSV"</button>
            </div>
            <h2>"Share"</h2>
            {match link {
                Ok(l) => view! {
                    <div class="share">
                        <input id="share-link" type="text" readonly node_ref=link_input value=l.clone() prop:value=l
                            on:focus=move |ev| {
                                if let Some(i) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) { i.select(); }
                            }/>
                        <button id="copy-link" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy share link" }}</button>
                    </div>
                    <p class="small">
                        "The result travels inside the link (after the #); no server sees it."
                        {(!full_in_link).then_some(" This result is large, so the link carries the summaries only.")}
                    </p>
                }.into_any(),
                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
            }}
        </div>
    }
}

/// The saved results of this browser, newest first, with open and delete.
#[component]
fn History() -> impl IntoView {
    let state = expect_context::<AppState>();
    let list = history::use_list();
    let failure = RwSignal::new(None::<String>);
    let open = move |id: String| {
        wasm_bindgen_futures::spawn_local(async move {
            match history::load(&id).await {
                Ok(r) => {
                    let _ = state.result.try_set(Some(r));
                    let _ = state.error.try_set(None);
                    let _ = failure.try_set(None);
                    web::window().scroll_to_with_x_and_y(0.0, 0.0);
                }
                Err(e) => {
                    let _ = failure.try_set(Some(format!("This result could not be read from the history: {e}")));
                }
            }
        });
    };
    let delete = move |id: String| {
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = history::remove(&id).await {
                let _ = failure.try_set(Some(format!("This result could not be deleted: {e}")));
            }
        });
    };
    view! {
        <section class="history" id="history-section">
            <h2>"Saved in this browser"</h2>
            <p class="small">{format!(
                "Finished participant sessions, LLM runs, evaluated networks and results opened here are kept in this browser                  (the last {} of them; older ones are dropped). Choose several to ", history::CAP)}
                <a href="#/compare" id="to-compare">"compare them"</a> "."</p>
            {move || state.history_error.get().map(|e| view! { <p class="error" id="history-error">{e}</p> })}
            {move || failure.get().map(|e| view! { <p class="error" id="history-failure">{e}</p> })}
            {move || match list.get() {
                None => view! { <p class="small">"Reading the history…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error" id="history-read-error">{format!("The history could not be read: {e}")}</p> }.into_any(),
                Some(Ok(entries)) if entries.is_empty() => view! { <p class="small" id="history-empty">"Nothing saved yet."</p> }.into_any(),
                Some(Ok(entries)) => {
                    let n = entries.len();
                    view! {
                        <table class="summary" id="history" data-count=n>
                            <thead><tr><th>"Subject"</th><th>"Kind"</th><th>"Task"</th><th>"Made"</th><th></th></tr></thead>
                            <tbody>
                                {entries.into_iter().map(|e| {
                                    let (a, b) = (e.id.clone(), e.id.clone());
                                    view! {
                                        <tr class="history-row" data-id=e.id.clone() data-kind=e.kind.clone()>
                                            <td>{e.label.clone()}</td>
                                            <td>{e.kind.clone()}</td>
                                            <td>{e.task.clone()}</td>
                                            <td class="small">{e.created.clone().unwrap_or_else(|| "—".into())}</td>
                                            <td>
                                                <button class="history-open" on:click=move |_| open(a.clone())>"Open"</button>
                                                " "
                                                <button class="history-delete" on:click=move |_| delete(b.clone())>"Delete"</button>
                                            </td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any()
                }
            }}
        </section>
    }
}

/// Nothing open yet: the published numbers a result will be set against (people on VSR, WorM Fig. 4,
/// with the chance and memoryless models), and one click to each way of making a result of one's own.
fn empty_state() -> impl IntoView {
    let task = StudyTask::Worm(TaskId::Vsr);
    let panels = cmp::panels(task, &[], Extras { human: true, chance: true, published: false });
    view! {
        <div class="empty" id="results-empty">
            <p>"No result is open yet. Paste a share link above or open a JSON file — or make one:"</p>
            <ul class="ways">
                <li><a id="empty-people" href="#/take?tasks=VSR&tpc=1&practice=0&results=1">"Take VSR yourself (8 rounds, about 3 minutes)"</a></li>
                <li><a id="empty-llm" href="#/llm">"Run a language model on the text suites"</a></li>
                <li><a id="empty-networks" href="#/networks">"Train or load a network"</a></li>
                <li><a href="#/gallery">"Make a demo result in the Task gallery"</a></li>
            </ul>
            <p class="small">"What a result is set against: the published human numbers (WorM, Fig. 4), the chance model and the \
                memoryless model (the best from the probe frame alone: on VSR, 1/L). "
                <a href="#/compare">"Compare"</a> " draws any task's published numbers, and yours beside them."</p>
            <div class="charts" id="results-published">
                {panels.into_iter().take(1).enumerate().map(|(i, p)| view! { <CmpChart panel=p index=i names=vec![]/> }).collect_view()}
            </div>
        </div>
    }
}

#[component]
pub fn Results() -> impl IntoView {
    let state = expect_context::<AppState>();
    let pasted = RwSignal::new(String::new());
    let open_pasted = move || {
        let text = pasted.get_untracked();
        if text.trim().is_empty() {
            state.error.set(Some(share::ShareError::Empty.to_string()));
        } else {
            state.open_link(&text);
        }
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        const MAX_FILE: f64 = 64.0 * 1024.0 * 1024.0;
        if file.size() > MAX_FILE {
            state.error.set(Some("This file is too large to be a WM Lab result (more than 64 MB).".into()));
            return;
        }
        let Ok(reader) = web_sys::FileReader::new() else { return };
        let r2 = reader.clone();
        let onload = Closure::once_into_js(move |_ev: web_sys::ProgressEvent| {
            match r2.result().ok().and_then(|v| v.as_string()) {
                Some(text) => state.open_json(&text),
                None => state.error.set(Some("This file could not be read as text.".into())),
            }
        });
        let onerror = Closure::once_into_js(move |_ev: web_sys::ProgressEvent| {
            state.error.set(Some("This file could not be read.".into()));
        });
        reader.set_onload(Some(onload.unchecked_ref()));
        reader.set_onerror(Some(onerror.unchecked_ref()));
        if reader.read_as_text(&file).is_err() {
            state.error.set(Some("This file could not be read.".into()));
        }
        input.set_value("");
    };

    view! {
        <section class="results" id="results"
            data-state=move || match (state.result.with(|r| r.is_some()), state.error.with(|e| e.is_some())) {
                (_, true) => "error",
                (true, false) => "shown",
                (false, false) => "empty",
            }>
            <h1>"Results"</h1>
            <div class="open">
                <form class="paste" on:submit=move |ev| { ev.prevent_default(); open_pasted(); }>
                    <label for="link-input">"Share link"</label>
                    <input id="link-input" type="text" placeholder="Paste a link with #r=…"
                        prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))/>
                    <button id="open-link" type="submit">"Open"</button>
                </form>
                <div class="file">
                    <label for="file-input">"or a JSON file exported by WM Lab "</label>
                    <input id="file-input" type="file" accept=".json,application/json" on:change=on_file/>
                </div>
            </div>
            {move || state.error.get().map(|e| view! { <p class="error" id="share-error" role="alert">{e}</p> })}
            {move || match state.result.get() {
                Some(r) => record_view(state, r).into_any(),
                None => empty_state().into_any(),
            }}
            <History/>
        </section>
    }
}

/// Capacity in standard units, where the record has trials that give one.
fn capacity(r: &ResultRecord) -> Option<impl IntoView + use<>> {
    let m = wmlab_core::analysis::capacity::measures(r);
    (!m.is_empty()).then(|| {
        view! {
            <h2>"Capacity"</h2>
            <p class="small">"In the units working-memory studies report: Cowan's K = N × (H − FA) for change detection (the \
                largest over set sizes), the span and 50 % point of the recall tasks (lists recalled whole), N-back's d′, \
                and where the difficulty was adaptive the level the staircase settled on; the same function for people, \
                networks and language models."</p>
            {crate::components::capacity::capacity_table(m.into_iter().map(|m| (None, m)).collect(), "capacity")}
        }
    })
}

/// The staircase runs the record keeps (`adaptive=` study links, `wmlab eval --adaptive`): the level
/// each converged on, with its interval, and the track (level per trial, ✓/✗).
fn staircases(r: &ResultRecord) -> Option<impl IntoView + use<>> {
    let runs = wmlab_core::adaptive::results_of(r);
    if runs.is_empty() {
        return None;
    }
    let rows = runs
        .into_iter()
        .map(|run| {
            let e = run.estimate;
            let f = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
            let track: String = run
                .track
                .iter()
                .map(|s| format!("{}{}", s.level, if s.correct { "✓" } else { "✗" }))
                .collect::<Vec<_>>()
                .join(" ");
            view! {
                <tr class="staircase-row" data-task=run.task.clone() data-trials=run.track.len()
                    data-level=f(e.map(|e| e.level)) data-low=f(e.map(|e| e.low)) data-high=f(e.map(|e| e.high))>
                    <td>{run.task.clone()}</td>
                    <td>{run.describe()}</td>
                    <td class="small staircase-track">{track}</td>
                </tr>
            }
        })
        .collect_view();
    Some(view! {
        <h2>"Adaptive runs (staircases)"</h2>
        <p class="small">"Each staircase moved the task's difficulty after every answer (up after a right one, down after a \
            wrong one, by weighted steps) until it settled on the level answered right at its target accuracy: the \
            estimate is the mean level at its reversals, with a 95 % interval."</p>
        <table class="summary" id="staircases">
            <thead><tr><th>"Task"</th><th>"Estimate"</th><th>"Track (level, right ✓ / wrong ✗)"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    })
}
