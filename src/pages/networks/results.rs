//! The Networks page's result views: the evaluation's significance rows, Table A3 beside the paper's,
//! and the model card of a pretrained network.

use leptos::prelude::*;
use wmlab_core::networks::ModelCard;
use wmlab_core::record::ResultRecord;

use crate::components::significance::{fmt_p, significance_row};

/// Table A3 of an evaluation: slope (A) and average-accuracy (B) difference scores against the humans for
/// every task with human curves, then CD with the five features pooled (rows from
/// [`wmlab_core::analysis::record_table_a3_with`]). CD is compared at retention 18 as the paper does,
/// or pooled over every retention interval when the box is ticked.
pub fn a3_table(r: &ResultRecord) -> impl IntoView + use<> {
    use crate::components::format::pair;
    let rec = r.clone();
    let cd_pooled = RwSignal::new(false);
    // The paper's value for the same architecture and capacity, where its Table A3 has that model.
    let (model, preset) = match &r.subject {
        wmlab_core::record::Subject::Network { arch, capacity, preset, .. } => {
            (format!("{}-{capacity}", arch.to_uppercase()), preset.clone())
        }
        _ => (String::new(), String::new()),
    };
    let in_paper = wmlab_core::analysis::A3_MODELS.iter().any(|m| m.eq_ignore_ascii_case(&model));
    let paper_head = match (in_paper, preset.as_str()) {
        (false, _) => format!("paper (no {model} column)"),
        (true, "paper") => format!("paper, {model}: A / B"),
        (true, p) => format!("paper, {model}: A / B (the paper's model; this one: the {p} preset)"),
    };
    let rows = move || {
        let opts = wmlab_core::people::CurveOptions { cd_pooled: cd_pooled.get() };
        wmlab_core::analysis::record_table_a3_with(&rec, opts)
            .into_iter()
            .map(|row| {
                let published = |s: char| wmlab_core::analysis::published_a3(&model, &row.task, &row.effect, s);
                let paper = match (published('a'), published('b')) {
                    (None, None) => "—".to_string(),
                    (a, b) => {
                        let f = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.3}*"));
                        format!("{} / {}", f(a), f(b))
                    }
                };
                view! {
                    <tr data-task=row.task.clone() data-effect=row.effect.clone() data-note=row.note.clone() title=row.note.clone()
                        data-a=row.a.map(|v| v.to_string()).unwrap_or_default() data-b=row.b.map(|v| v.to_string()).unwrap_or_default()>
                        <td>{row.task.clone()}</td>
                        <td>{row.effect.replace('_', " ")}</td>
                        {starred(row.a, row.a_test.as_ref(), "a")}
                        {starred(row.b, row.b_test.as_ref(), "b")}
                        <td class="num">{pair(row.m_a, row.h_a)}</td>
                        <td class="num">{pair(row.m_b, row.h_b)}</td>
                        {crate::components::format::n_cell(row.n, row.thin_points)}
                        <td class="num a3-paper">{paper}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <h3>"Difference from the humans (Table A3)"</h3>
        <p class="small">"A = |(M_A − H_A) / H_A| compares the slopes of the behavioural effect, B = |(M_B − H_B) / H_B| the mean \
            accuracies (WorM appendix A2.3); 0 means human-like. The last row pools the five CD features, as the paper's table \
            does. The Compare page puts these beside other subjects and chance."</p>
        <label class="small"><input type="checkbox" id="nn-a3-cd-pooled" prop:checked=move || cd_pooled.get()
            on:change=move |ev| cd_pooled.set(event_target_checked(&ev))/>
            " CD: pool every retention interval (the paper compares the network with people at retention 18)"</label>
        <p class="small">"* : different from the chance model at p < 0.01 (two-tailed t-test, as Table A3 marks it). The \
            paper does not say what its t-tests were run over; here each score is computed on 10 disjoint parts of the \
            test trials (each with every condition) and the ten values are tested against the chance model's score. \
            Hover a score for its t, p and the chance score."</p>
        <table class="summary" id="nn-a3-table">
            <thead><tr><th>"task"</th><th>"effect"</th><th>"A"</th><th>"B"</th><th>"slope M_A / H_A"</th><th>"mean M_B / H_B"</th>
                <th class="num" title="answers or trials behind the points that meet a human point">"n"</th>
                <th id="nn-a3-paper-head">{paper_head}</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// A Table A3 score with its asterisk (p < 0.01 against the chance model) and the test in the tooltip.
fn starred(
    score: Option<f64>,
    test: Option<&wmlab_core::analysis::ChanceTest>,
    which: &'static str,
) -> impl IntoView + use<> {
    let star = test.is_some_and(|t| t.star());
    let title = test
        .map(|t| {
            let stat =
                t.t.map_or("t = ∞ (every part scored the same)".to_string(), |v| format!("t({}) = {v:.2}", t.n - 1));
            format!(
                "{stat}, p = {}, over {} parts (mean {:.3}); chance model: {:.3}",
                fmt_p(t.p),
                t.n,
                t.mean,
                t.chance
            )
        })
        .unwrap_or_else(|| "no test: too few trials for 10 parts, or no score".into());
    let p = test.map(|t| t.p.to_string()).unwrap_or_default();
    view! {
        <td class=format!("num a3-{which}") title=title data-p=p data-star=star.to_string()>
            {crate::components::format::fmt(score)}{if star { "*" } else { "" }}</td>
    }
}

/// A pretrained model's card (an entry of `models/index.json`, written by `scripts/research/model-card.py`):
/// how it was trained and its test accuracy per task id beside chance.
pub fn model_card(c: ModelCard) -> impl IntoView {
    let rows = c
        .test
        .into_iter()
        .map(|t| {
            let memory = t.memoryless.zip(t.p_above_memoryless);
            significance_row(t.task, t.accuracy, t.chance, t.responses, t.p_above_chance, memory)
        })
        .collect_view();
    let effects = c
        .effects
        .into_iter()
        .map(|e| {
            view! { <li class:shown=e.shown>{if e.shown { "✓ " } else { "✗ " }}<strong>{e.effect}</strong>
            ": " {e.detail}</li> }
        })
        .collect_view();
    view! {
        <div class="card" id="nn-model-card">
            <p><strong>{c.title}</strong> " · " {c.model} " · " {c.params} " parameters · preset " {c.preset}
                " · " {c.trials_seen} " trials seen in " {format!("{:.0}", c.wall_time_s / 60.0)}
                " min on " {c.hardware} " · " {c.storage}</p>
            <p class="small">{c.notes}</p>
            <p id="nn-card-counts">{format!("Test: {} ids above chance", c.above_chance)}
                {(!c.shows_memory.is_empty()).then(|| format!("; {} show memory (above what the current frame alone gives)", c.shows_memory))}
                "."</p>
            <table class="summary"><thead><tr><th>"task"</th><th>"test accuracy"</th><th>"chance"</th><th>"responses"</th><th>"p"</th><th></th></tr></thead>
                <tbody>{rows}</tbody></table>
            <ul class="effects">{effects}</ul>
        </div>
    }
}
