//! A record's accuracy per WorM task id beside chance and beside the memoryless baseline
//! (`wmlab_core::chance::record_significance`, the one function for people, LLMs and networks): the
//! Networks page's evaluation, its model cards and the Results page draw these rows.

use leptos::prelude::*;
use wmlab_core::chance::{LEVEL as SIGNIFICANCE, record_significance};
use wmlab_core::record::ResultRecord;

/// A p-value for a table: 3 significant digits, or "< 1e-12".
pub fn fmt_p(p: f64) -> String {
    if p < 1e-12 {
        "< 1e-12".into()
    } else if p < 0.001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.3}")
    }
}

/// One task's row: accuracy beside chance, and where known (`memory`: the memoryless baseline and the
/// p of the accuracy above it) whether it shows memory, i.e. beats the best a subject seeing only the
/// current frame can do (`core::chance::memoryless`).
pub fn significance_row(
    task: String,
    accuracy: f64,
    chance: f64,
    responses: u64,
    p: f64,
    memory: Option<(f64, f64)>,
) -> impl IntoView {
    let above = p < SIGNIFICANCE;
    let shows = memory.map(|(_, pm)| pm < SIGNIFICANCE);
    let label = task.clone();
    let mark = match (above, shows) {
        (false, _) => "at chance".to_string(),
        (true, None) => "✓ above chance".to_string(),
        (true, Some(true)) => "✓ above chance · shows memory".to_string(),
        // Above guessing, but no better than the frame on screen allows without memory: not a success,
        // so no check mark and not green.
        (true, Some(false)) => format!(
            "above chance, but no memory shown (the current frame alone gives {:.3})",
            memory.map_or(0.0, |(m, _)| m)
        ),
    };
    let row_class = match (above, shows) {
        (true, Some(false)) => "no-memory",
        (true, _) => "above",
        (false, _) => "",
    };
    let title = match memory {
        Some((m, pm)) => format!(
            "one-sided exact tests, p < 0.01: against guessing p = {}; against the best a subject with no memory of \
             the earlier frames can do ({m:.3}) p = {}",
            fmt_p(p),
            fmt_p(pm)
        ),
        None if above => "above chance (one-sided exact test, p < 0.01)".to_string(),
        None => "not distinguishable from guessing at p < 0.01".to_string(),
    };
    view! {
        <tr data-task=task data-above=above.to_string() data-memory=shows.map(|s| s.to_string()) class=row_class>
            <td>{label}</td>
            <td class="num">{format!("{accuracy:.3}")}</td>
            <td class="num">{format!("{chance:.3}")}</td>
            <td class="num">{responses}</td>
            <td class="num">{fmt_p(p)}</td>
            <td class="mark" title=title>{mark}</td>
        </tr>
    }
}

/// A record's significance table (`id`: the table's element id, `count_id`: its summary line's), or
/// None when the record has no rows of a WorM task id (N-back and the text suites).
pub fn significance_table(r: &ResultRecord, id: &'static str, count_id: &'static str) -> Option<impl IntoView + use<>> {
    let sig = record_significance(r);
    if sig.is_empty() {
        return None;
    }
    let above = sig.iter().filter(|s| s.above_chance(SIGNIFICANCE)).count();
    let memory = sig.iter().filter(|s| s.shows_memory(SIGNIFICANCE)).count();
    let counts = format!(
        "{above} of {} task ids above chance (one-sided exact binomial test, p < 0.01); {memory} show memory \
         (above the best a subject seeing only the current frame can do).",
        sig.len()
    );
    let rows = sig
        .into_iter()
        .map(|s| {
            let memory = Some((s.memoryless, s.p_above_memoryless));
            significance_row(s.task, s.accuracy, s.chance, s.responses, s.p_above_chance, memory)
        })
        .collect_view();
    Some(view! {
        <p id=count_id>{counts}</p>
        <table class="summary" id=id><thead><tr><th>"task"</th><th>"accuracy"</th><th>"chance"</th>
            <th title="scored responses the accuracy is over">"responses"</th><th>"p (above chance)"</th><th></th></tr></thead>
            <tbody>{rows}</tbody></table>
        <p class="small">"Chance is the accuracy of guessing among the answers each step offers (½ for the yes/no \
            tasks, 1/9 for VSR and SMU, 1/L for LSR, 1/8 for CS recall, L/100 for SFR); p is the one-sided exact probability of \
            doing at least this well by guessing. Some probes can be answered from the frame shown alone (VSR's \
            probe shows the studied patterns, STS's diagonal markers answer alike under both rules, …): \
            \"shows memory\" means the accuracy is also above that memoryless best (one-sided, p < 0.01)."</p>
    })
}
