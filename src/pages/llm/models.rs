//! Several models in one start: a line per model while they run (and a button to show its samples
//! and results), then their results side by side — every summary number in one table, every chart
//! once with each model on it — and all of them sent to Compare at once.

use leptos::prelude::*;
use wmlab_core::compare::Compared;
use wmlab_core::record::{ResultRecord, side_by_side};

use super::Lane;
use super::samples::record_of;
use crate::app::AppState;
use crate::components::format::fmt_ms;
use crate::components::llm_charts::ModelsCharts;
use crate::platform::web;

/// A row per model: where its run stands; its button shows its samples and results below.
#[component]
pub(super) fn Lanes(lanes: RwSignal<Vec<Lane>>, shown: RwSignal<usize>) -> impl IntoView {
    view! {
        <h2>"Models"</h2>
        <table class="llm-lanes" id="llm-lanes">
            <thead><tr><th>"Model"</th><th>"State"</th><th>"Samples"</th><th>"Errors"</th><th>"Tokens in / out"</th><th>"Cost"</th><th>"Time"</th><th></th></tr></thead>
            <tbody>
                {move || lanes.get().into_iter().enumerate().map(|(k, lane)| {
                    let p = move || lane.progress.get().unwrap_or_default();
                    view! {
                        <tr class="llm-lane" data-model=lane.model() data-state=move || lane.state.get().as_str()
                            data-done=move || p().done data-total=move || p().total>
                            <td>{lane.model()}</td>
                            <td>{move || lane.state.get().as_str()}
                                {move || lane.error.get().map(|e| view! { <span class="small error">" · " {e}</span> })}
                                {move || p().batch.map(|b| view! { <span class="small">" · " {b}</span> })}</td>
                            <td>{move || format!("{} / {}", p().done, p().total)}</td>
                            <td>{move || p().failed}</td>
                            <td>{move || format!("{} / {}", p().tokens_in, p().tokens_out)}</td>
                            <td>{move || p().cost.map(|c| format!("{c:.4}")).unwrap_or_else(|| "—".into())}</td>
                            <td>{move || fmt_ms(p().elapsed_ms)}</td>
                            <td><button id=format!("llm-show-{k}") class="llm-show" disabled=move || shown.get() == k
                                on:click=move |_| shown.set(k)>"Show its samples"</button></td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

fn cell(v: Option<(f64, u32)>) -> String {
    match v {
        Some((x, n)) => format!("{x:.3} (n {n})"),
        None => "—".into(),
    }
}

/// The models' results side by side, and all of them on Compare at once.
#[component]
pub(super) fn SideBySide(lanes: Vec<Lane>, error: RwSignal<Option<String>>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let lanes = StoredValue::new(lanes);
    // Every model's record, made once for the table, the Compare button and its click.
    let records = Memo::new(move |_| -> Vec<ResultRecord> {
        lanes.with_value(|ls| {
            ls.iter().map(|l| l.outcomes.with(|o| l.spec.with_value(|s| record_of(s, o)))).collect::<Vec<_>>()
        })
    });
    let names = lanes.with_value(|ls| ls.iter().map(Lane::model).collect::<Vec<_>>());
    let table = {
        let names = names.clone();
        move || {
            let rows = records.with(|rs| side_by_side(&rs.iter().collect::<Vec<_>>()));
            let n = rows.len();
            view! {
                <table class="llm-side-by-side" id="llm-side-by-side" data-rows=n>
                    <thead><tr><th>"Task"</th><th>"Cell"</th><th>"Metric"</th>
                        {names.iter().map(|n| view! { <th>{n.clone()}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {rows.into_iter().map(|r| view! {
                            <tr><td>{r.task}</td><td>{r.cell}</td><td>{r.metric}</td>
                                {r.values.into_iter().map(|v| view! { <td class="num">{cell(v)}</td> }).collect_view()}</tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }
        }
    };
    let charts = move || {
        let runs = lanes.with_value(|ls| ls.iter().map(|l| (l.model(), l.outcomes.get())).collect::<Vec<_>>());
        view! { <ModelsCharts runs=runs/> }
    };
    // Compare draws the WorM tasks and N-back: the button is there when some model's record has them.
    let drawable = move || records.get().into_iter().any(|r| !Compared::new(r).tasks().is_empty());
    let to_compare = move |_| {
        let mut added = 0;
        let mut refused = Vec::new();
        for r in records.get_untracked() {
            match state.compare.add(Compared::new(r), "LLM page".into()) {
                Ok(_) => added += 1,
                Err(e) => refused.push(e),
            }
        }
        if added == 0 {
            error.set(Some(refused.join(" ")));
        } else {
            web::set_hash("#/compare");
        }
    };
    view! {
        <div class="llm-models-results" id="llm-models-results">
            <h2>"The models side by side"</h2>
            {table}
            {charts}
            <p class="small">"Thick lines and filled dots: the models, one colour each. Thin lines and rings: the papers' published numbers."</p>
            {move || if drawable() {
                view! { <button id="llm-compare-all" on:click=to_compare>"Open them all in Compare"</button> }.into_any()
            } else {
                view! { <p class="small" id="llm-compare-none">"Compare draws the WorM tasks and N-back; these suites' results are compared here."</p> }.into_any()
            }}
        </div>
    }
}
