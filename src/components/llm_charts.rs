//! Charts of an LLM run beside the papers' numbers: each panel of `wmlab_llm::charts` (series, references
//! of the same variant/protocol/block size, notes) becomes a chart spec drawn by the one chart
//! component; and the N-back paper's tests on d′ as a table.

use leptos::prelude::*;
use wmlab_core::llm::nback::DprimeTests;
use wmlab_llm::Outcome;
use wmlab_llm::charts::{LlmPanel, nback_tests, panels, panels_of_models};

use super::chart::SpecChart;

/// One panel; `prefix` tells a run's charts (`llm`) from several models' (`llm-models`) in element ids.
#[component]
fn LlmChart(panel: LlmPanel, #[prop(default = "llm")] prefix: &'static str) -> impl IntoView {
    let own = panel.series.iter().filter(|s| !s.reference).map(|s| s.points.len()).sum::<usize>();
    let labels = panel.series.iter().filter(|s| !s.reference).map(|s| s.label.as_str()).collect::<Vec<_>>().join(" | ");
    let data = vec![("data-points", own.to_string()), ("data-labels", labels)];
    view! {
        <SpecChart chart=panel.chart() id=format!("{prefix}-plot-{}", panel.id) class="llm-plot" data=data
            caption=panel.note.clone() caption_id=Some(format!("{prefix}-note-{}", panel.id))/>
    }
}

/// Several models' runs of one start, each panel once with every model on it.
#[component]
pub fn ModelsCharts(runs: Vec<(String, Vec<Outcome>)>) -> impl IntoView {
    let ps = panels_of_models(&runs);
    let n = ps.len();
    view! {
        <div class="charts" id="llm-models-charts" data-panels=n>
            {ps.into_iter().map(|p| view! { <LlmChart panel=p prefix="llm-models"/> }).collect_view()}
        </div>
    }
}

/// Every chart the outcomes allow.
#[component]
pub fn LlmCharts(outcomes: Vec<Outcome>) -> impl IntoView {
    let ps = panels(&outcomes);
    if ps.is_empty() {
        return view! { <p class="small" id="llm-charts-empty">"No charts yet."</p> }.into_any();
    }
    let n = ps.len();
    view! {
        <div class="charts" id="llm-charts" data-panels=n>
            {ps.into_iter().map(|p| view! { <LlmChart panel=p/> }).collect_view()}
        </div>
        <p class="small">"Thick lines and filled dots: this run. Thin lines and rings: the papers' published numbers."</p>
        {nback_tests(&outcomes).map(|(mine, published)| view! { <NbackTests mine=mine published=published/> })}
    }
    .into_any()
}

fn p_text(p: f64) -> String {
    if p < 1e-4 { format!("{p:.1e}") } else { format!("{p:.4}") }
}

fn test_cell(r: &Result<wmlab_core::stats::TestResult, wmlab_core::stats::StatsError>, stat: &str) -> String {
    match r {
        Ok(t) => format!("{stat} = {:.2}, p = {}", t.statistic, p_text(t.p)),
        Err(e) => e.to_string(),
    }
}

/// One column of the tests table: a subject's Kruskal–Wallis, post hoc and Wilcoxon rows, as text.
fn test_rows(t: &DprimeTests) -> Vec<(String, String)> {
    let mut rows = vec![(
        "d′ per N (blocks)".to_string(),
        t.levels.iter().map(|(n, k, m)| format!("{n}-back {m:.2} ({k})")).collect::<Vec<_>>().join(" · "),
    )];
    rows.push(("Kruskal–Wallis across N".into(), test_cell(&t.kruskal, "H")));
    for (a, b, r) in &t.pairs {
        let cell = match r {
            Ok((u, adj)) => format!("U = {:.1}, p = {} (Bonferroni {})", u.statistic, p_text(u.p), p_text(*adj)),
            Err(e) => e.to_string(),
        };
        rows.push((format!("Mann–Whitney {a}- vs {b}-back"), cell));
    }
    for (n, r) in &t.against_zero {
        rows.push((format!("Wilcoxon {n}-back d′ vs 0"), test_cell(r, "W")));
    }
    rows
}

/// The N-back paper's tests on d′ (notebook definition), for this run and the published blocks of the
/// same variant and protocol.
#[component]
fn NbackTests(mine: DprimeTests, published: Option<(String, DprimeTests)>) -> impl IntoView {
    let ours = test_rows(&mine);
    // Rows matched by name: the run may have fewer N levels than the published blocks.
    let theirs: std::collections::BTreeMap<String, String> =
        published.as_ref().map(|(_, t)| test_rows(t).into_iter().collect()).unwrap_or_default();
    let has_published = published.is_some();
    let head = published.as_ref().map(|(m, _)| format!("published ({m})"));
    view! {
        <details class="nback-tests" id="llm-nback-tests" open>
            <summary>"Statistics on d′, as the N-back paper tests it"</summary>
            <table class="results-table">
                <thead><tr><th>"test"</th><th>"this run"</th>{head.map(|h| view! { <th>{h}</th> })}</tr></thead>
                <tbody>
                    {ours.into_iter().map(|(name, cell)| {
                        let other = has_published.then(|| theirs.get(&name).cloned().unwrap_or_default());
                        view! { <tr><td>{name}</td><td>{cell}</td>{other.map(|o| view! { <td>{o}</td> })}</tr> }
                    }).collect_view()}
                </tbody>
            </table>
            <p class="small">"Two-sided tests, normal approximations with tie correction (Mann–Whitney also with \
                continuity correction), as scipy.stats computes them; the same code answers `wmlab stats`."</p>
        </details>
    }
}
