//! A finished (or cancelled) run's charts beside the papers' numbers (a visual-suite run: the people's
//! per-condition curves), its exports and its share link.

use leptos::prelude::*;
use wmlab_core::share;
use wmlab_llm::Outcome;

use super::samples::record_of;
use crate::app::AppState;
use crate::components::chart::RecordCharts;
use crate::components::llm_charts::LlmCharts;
use crate::platform::llm_store::RunSpec;
use crate::platform::web;

#[component]
pub(super) fn RunResults(
    spec: RunSpec,
    outcomes: RwSignal<Vec<Outcome>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let spec = StoredValue::new(spec);
    let copied = RwSignal::new(false);
    let current_record = move || Some(outcomes.with_untracked(|o| record_of(&spec.get_value(), o)));
    let file_stem = move || spec.with_value(|s| format!("wmlab-llm-{}-{}", s.label(), s.id));
    let export_jsonl = move |_| {
        let text: String = outcomes
            .with_untracked(|os| os.iter().filter_map(|o| serde_json::to_string(o).ok()).map(|l| l + "\n").collect());
        if let Err(e) = web::download(&format!("{}.jsonl", file_stem()), "application/x-ndjson", &text) {
            error.set(Some(format!("The download failed: {e}.")));
        }
    };
    let export_csv = move |_| {
        if let Some(r) = current_record() {
            match r.to_csv() {
                Ok(t) => {
                    if let Err(e) = web::download(&format!("{}.csv", file_stem()), "text/csv", &t) {
                        error.set(Some(format!("The download failed: {e}.")));
                    }
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        }
    };
    let export_json = move |_| {
        if let Some(r) = current_record() {
            match r.to_json() {
                Ok(t) => {
                    if let Err(e) = web::download(&format!("{}.json", file_stem()), "application/json", &t) {
                        error.set(Some(format!("The download failed: {e}.")));
                    }
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        }
    };
    let open_results = move |_| {
        if let Some(r) = current_record() {
            state.result.set(Some(r));
            state.error.set(None);
            web::set_hash("#/results");
        }
    };
    let share_link = Memo::new(move |_| {
        let r = outcomes.with(|o| spec.with_value(|s| record_of(s, o)));
        Some(share::fragment(&r).map(|f| format!("{}{}", web::base_url(), f)).map_err(|e| e.to_string()))
    });
    let copy_link = move |_| {
        if let Some(Ok(l)) = share_link.get_untracked() {
            let _ = web::window().navigator().clipboard().write_text(&l);
            copied.set(true);
        }
    };

    view! {
                <div class="llm-results" id="llm-results">
                    <h2>"Charts"</h2>
                    {move || if spec.with_value(|s| s.run.vision.is_some()) {
                        // The visual suite's record is a person's: the Fig. 4 curves beside the people's.
                        view! { <RecordCharts record=outcomes.with(|o| spec.with_value(|s| record_of(s, o)))/> }.into_any()
                    } else {
                        outcomes.with(|o| view! { <LlmCharts outcomes=o.clone()/> }).into_any()
                    }}
                    <h2>"Export and share"</h2>
                    <div class="actions">
                        <button id="llm-export-jsonl" on:click=export_jsonl>"Download JSONL (one line per sample)"</button>
                        <button id="llm-export-csv" on:click=export_csv>"Download CSV"</button>
                        <button id="llm-export-json" on:click=export_json>"Download result (JSON)"</button>
                        <button id="llm-open-results" on:click=open_results>"Open in Results"</button>
                    </div>
                    {move || share_link.get().map(|l| match l {
                        Ok(l) => view! {
                            <div class="share">
                                <input id="llm-share-link" type="text" readonly prop:value=l.clone() value=l/>
                                <button id="llm-copy-link" on:click=copy_link>{move || if copied.get() { "Copied" } else { "Copy share link" }}</button>
                            </div>
                        }.into_any(),
                        Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                    })}
                </div>
    }
}
