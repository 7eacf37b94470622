//! Evaluate the model on the test trials (scored like a participant, curves over the human curves) and
//! run the neural analyses; both can be cancelled.

use leptos::prelude::*;
use wmlab_core::TaskId;
use wmlab_core::analysis::retention::vir_retention;
use wmlab_core::people::StudyTask;
use wmlab_core::people::replay::worm_trials_of;
use wmlab_core::record::Setting;

use super::results::a3_table;
use super::state::Net;
use crate::components::chart::RecordCharts;
use crate::components::nn_analysis::NnAnalysis;
use crate::components::significance::significance_table;
use crate::platform::nn_worker::{self as nnw, Cmd};
use crate::platform::{history, web};

/// A whole number in `range` typed in a box, or the message naming `what`.
fn count(text: &str, range: std::ops::RangeInclusive<usize>, what: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| format!("{what}: a whole number from {} to {}.", range.start(), range.end()))
}

impl Net {
    fn evaluate(self) {
        self.error.set(None);
        let n = match count(&self.eval_n.get_untracked(), 1..=10_000, "Test trials per task") {
            Ok(n) => n,
            Err(e) => return self.error.set(Some(e)),
        };
        self.record.set(None);
        self.eval_progress.set(Some((0, n * TaskId::ALL.len())));
        wasm_bindgen_futures::spawn_local(async move {
            self.send(Cmd::Evaluate { n }, nnw::stored_model().await.as_deref());
        });
    }

    /// The model on the very trials of the chosen history entry (a person's session, a visual LLM run):
    /// item by item comparable with it on Compare.
    fn evaluate_trials_of(self) {
        self.error.set(None);
        let id = self.trials_of.get_untracked();
        if id.is_empty() {
            return self
                .error
                .set(Some("Choose whose trials to take first (a participant's or a model's result).".into()));
        }
        self.record.set(None);
        self.eval_progress.set(Some((0, 0)));
        wasm_bindgen_futures::spawn_local(async move {
            let fail = move |e: String| {
                let _ = self.eval_progress.try_set(None);
                let _ = self.error.try_set(Some(e));
            };
            let theirs = match history::load(&id).await {
                Ok(r) => r,
                Err(e) => return fail(format!("That result could not be read from the history: {e}")),
            };
            let subject = theirs.subject.label();
            let replay = match worm_trials_of(&theirs) {
                Ok(r) => r,
                Err(e) => return fail(format!("The trials of {subject} cannot be taken again: {e}.")),
            };
            self.send(
                Cmd::EvaluateTrialsOf { replay: Box::new(replay), subject },
                nnw::stored_model().await.as_deref(),
            );
        });
    }

    fn analyse(self) {
        self.error.set(None);
        let n = match count(&self.analyse_n.get_untracked(), 2..=1000, "Analysis trials per task") {
            Ok(n) => n,
            Err(e) => return self.error.set(Some(e)),
        };
        self.analysis.set(None);
        self.analyse_progress.set(Some(("hidden".into(), 0, n * TaskId::ALL.len())));
        wasm_bindgen_futures::spawn_local(async move {
            self.send(Cmd::Analyse { n }, nnw::stored_model().await.as_deref());
        });
    }

    fn open_results(self) {
        let Some(r) = self.record.get_untracked() else { return };
        match r.to_json() {
            Ok(j) => {
                self.app.open_json(&j);
                web::set_hash("#/results");
            }
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }
}

/// The evaluation's result: per-task accuracy against chance, the curves, Table A3.
fn evaluation(net: Net) -> impl IntoView {
    move || {
        net.record.get().map(|r| {
            view! {
                <div id="nn-eval" class="eval">
                    <h3>{match r.config.settings.get("trials_of") {
                        Some(Setting::Text(who)) => format!("{} on the trials of {who}", r.subject.label()),
                        _ => format!("{}: test accuracy", r.subject.label()),
                    }}</h3>
                    {significance_table(&r, "nn-eval-table", "nn-above-count")}
                    <RecordCharts record=r.clone()/>
                    {vir_retention(&r).map(|t| view! { <p class="small" id="nn-vir-retention">{t.line()}</p> })}
                    {a3_table(&r)}
                    <div class="buttons"><button id="nn-open-results" on:click=move |_| net.open_results()>
                        "Open in Results (downloads, share link)"</button></div>
                </div>
            }
        })
    }
}

/// Whose trials to take: the results in this browser's history with WorM trials (people, the visual
/// LLM suite, other networks).
fn trials_of(net: Net) -> impl IntoView {
    let list = history::use_list();
    let no_model = move || net.phase.get().busy() || !net.has_model();
    let worm = |tasks: &[String]| tasks.iter().any(|t| StudyTask::parse(t).and_then(StudyTask::worm).is_some());
    move || {
        let entries: Vec<history::Entry> = match list.get() {
            Some(Ok(es)) => es.into_iter().filter(|e| worm(&e.tasks)).collect(),
            _ => Vec::new(),
        };
        let n = entries.len();
        view! {
            <div class="buttons" id="nn-trials-of-box" data-count=n>
                <label>"Or on the very trials of "
                    <select id="nn-trials-of" prop:value=move || net.trials_of.get()
                        on:change=move |ev| net.trials_of.set(event_target_value(&ev))>
                        <option value="">{if n == 0 { "(no result with WorM trials in this browser)" } else { "(choose a result)" }}</option>
                        {entries.into_iter().map(|e| {
                            let text = format!("{} ({}) · {}", e.label, e.kind, e.tasks.join(", "));
                            view! { <option value=e.id.clone() selected=e.id == net.trials_of.get_untracked()>{text}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <button id="nn-evaluate-trials-of" on:click=move |_| net.evaluate_trials_of()
                    disabled=move || no_model() || net.eval_progress.get().is_some() || net.trials_of.with(String::is_empty)>
                    "Evaluate on these trials"</button>
            </div>
            <p class="small">"A participant's session (or a visual LLM run) regenerated from its seed: the network takes the same \
                trials of the tasks it was trained on, so Compare can tell whether they fail on the same items (error consistency κ)."</p>
        }
    }
}

pub fn evaluate_and_analyse(net: Net) -> impl IntoView {
    let no_model = move || net.phase.get().busy() || !net.has_model();
    view! {
        <h2>"Evaluate"</h2>
        <p class="small">"Runs the best checkpoint (or the latest) on the test trials of every task id and scores it like a \
            participant: per-task accuracy and the paper's behavioural curves (Fig. 4) over the human curves, each point with its \
            95 % interval and n."</p>
        <p class="small" id="nn-eval-n-why">{format!(
            "The default, {} trials per task, gives each condition cell of the largest grid (VSRec's 40 cells) {} trials: every \
             plotted point rests on at least {} trials and each of Table A3's {} test parts holds every cell. Fewer run faster; \
             points on fewer than {} trials are drawn faint and scores built on them are flagged.",
            super::state::default_eval_n(),
            wmlab_core::stats::MIN_POINT_N,
            wmlab_core::stats::MIN_POINT_N,
            wmlab_core::analysis::A3_FOLDS,
            wmlab_core::stats::MIN_POINT_N,
        )}</p>
        <div class="buttons">
            <label>"Test trials per task " <input type="text" class="short" id="nn-eval-n" prop:value=move || net.eval_n.get()
                on:input=move |ev| net.eval_n.set(event_target_value(&ev))/></label>
            <button id="nn-evaluate" on:click=move |_| net.evaluate()
                disabled=move || no_model() || net.eval_progress.get().is_some()>"Evaluate"</button>
        </div>
        {trials_of(net)}
        {move || net.eval_progress.get().map(|(d, t)| view! {
            <div class="progress-line"><progress id="nn-eval-progress" max=t.max(1) value=d></progress>
                <span>{format!("{d} of {t} test trials")}</span>
                <button id="nn-cancel-eval" class="secondary" on:click=move |_| net.cancel_work()>"Cancel"</button></div>
        })}
        {evaluation(net)}

        <h3>"Analyse"</h3>
        <p class="small">"Neural analyses of the best checkpoint (or the latest) on the test trials: task variance and \
            clusters of hidden units, fractional task variance, cluster lesions, the STS probe-state embedding and \
            the similarity matrices (paper Fig. 5, A5, A6, A13)."</p>
        <div class="buttons">
            <label>"Trials per task " <input type="text" class="short" id="nn-analyse-n" prop:value=move || net.analyse_n.get()
                on:input=move |ev| net.analyse_n.set(event_target_value(&ev))/></label>
            <button id="nn-analyse" on:click=move |_| net.analyse()
                disabled=move || no_model() || net.analyse_progress.get().is_some() || net.eval_progress.get().is_some()>"Analyse"</button>
        </div>
        {move || net.analyse_progress.get().map(|(stage, d, t)| view! {
            <div class="progress-line"><progress max=t.max(1) value=d></progress>
                <span id="nn-analyse-progress">{format!("{stage}: {d} of {t}")}</span>
                <button id="nn-cancel-analyse" class="secondary" on:click=move |_| net.cancel_work()>"Cancel"</button></div>
        })}
        {move || net.analysis.get().map(|r| view! { <div id="nn-analysis" class="eval"><NnAnalysis report=r/></div> })}
    }
}
