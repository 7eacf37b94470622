//! Capacity in standard units (`wmlab_core::analysis::capacity::measures`, one function for people,
//! networks and language models): Cowan's K, span and 50 % point, N-back d′, staircase estimates, each
//! with its 95 % interval. Results shows a record's; Compare every chosen result's on its task.

use leptos::prelude::*;
use wmlab_core::analysis::capacity::Measure;

/// A table of measures, one row each; `who` names the subject of each row where several are shown.
pub fn capacity_table(rows: Vec<(Option<String>, Measure)>, id: &'static str) -> impl IntoView {
    let with_who = rows.iter().any(|(w, _)| w.is_some());
    let n = rows.len();
    let body = rows
        .into_iter()
        .map(|(who, m)| {
            let ci = m.interval.map(|(lo, hi)| format!("[{lo:.2}, {hi:.2}]")).unwrap_or_else(|| "—".into());
            view! {
                <tr class="capacity-row" data-who=who.clone().unwrap_or_default() data-task=m.task.clone()
                    data-measure=m.measure.clone() data-value=format!("{:.6}", m.value)>
                    {with_who.then(|| view! { <td>{who.clone().unwrap_or_default()}</td> })}
                    <td>{m.task.clone()}</td>
                    <td>{m.measure.clone()}</td>
                    <td>{m.at.clone()}</td>
                    <td class="num">{format!("{:.2}", m.value)}</td>
                    <td class="num">{ci}</td>
                    <td class="num">{m.trials}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="summary" id=id data-count=n>
            <thead><tr>
                {with_who.then(|| view! { <th>"Result"</th> })}
                <th>"Task"</th><th>"Measure"</th><th>"At"</th><th class="num">"Value"</th>
                <th class="num">"95 % interval"</th><th class="num">"Trials"</th>
            </tr></thead>
            <tbody>{body}</tbody>
        </table>
    }
}
