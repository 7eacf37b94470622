//! The tables: the chosen results, and Table A3's A and B scores of each subject.

use leptos::prelude::*;
use wmlab_core::analysis::ScoreRow;
use wmlab_core::chart::{hex, palette};
use wmlab_core::compare::Who;

use super::state::{CompareState, task_names};
use crate::components::format::{fmt, pair};

pub fn chosen_table(st: CompareState) -> impl IntoView {
    move || {
        let chosen = st.chosen.get();
        if chosen.is_empty() {
            return view! { <p class="small" id="cmp-none">"Nothing chosen yet."</p> }.into_any();
        }
        let task = st.task.get();
        let n = chosen.len();
        view! {
            <table class="summary" id="cmp-chosen" data-count=n>
                <thead><tr><th>"Result"</th><th>"Kind"</th><th>"Tasks"</th><th>"From"</th><th></th></tr></thead>
                <tbody>
                    {chosen.into_iter().enumerate().map(|(i, c)| {
                        let r = &c.item.record;
                        let tasks = c.item.tasks();
                        let has = task.is_some_and(|t| tasks.contains(&t));
                        let id = c.id.clone();
                        view! {
                            <tr class="cmp-chosen-row" data-who=format!("s{i}") data-id=c.id.clone() class:missing=!has>
                                <td><span class="swatch" style=format!("background:{}", hex(palette(i)))></span>{r.run_label()}</td>
                                <td>{r.subject.kind()}</td>
                                <td>{task_names(&tasks)}</td>
                                <td>{c.source.clone()}</td>
                                <td><button class="cmp-remove" on:click=move |_| st.remove(&id)>"Remove"</button></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        }
        .into_any()
    }
}

fn score_rows(who: Who, rows: Vec<ScoreRow>, name: String, kind: String) -> impl IntoView {
    let colour = match &who {
        Who::Subject(i) => hex(palette(*i)),
        other => hex(other.colour(0)),
    };
    let key = who.key();
    rows.into_iter()
        .map(|r| {
            let id = format!("cmp-score-{key}-{}", r.effect);
            view! {
                <tr class="cmp-score-row" id=id data-who=key.clone() data-effect=r.effect.clone()
                    data-a=r.a.map(|v| v.to_string()).unwrap_or_default() data-b=r.b.map(|v| v.to_string()).unwrap_or_default()>
                    <td><span class="swatch" style=format!("background:{colour}")></span>{name.clone()}</td>
                    <td>{kind.clone()}</td>
                    <td>{r.effect.replace('_', " ")}</td>
                    <td class="num cmp-a">{fmt(r.a)}</td>
                    <td class="num cmp-b">{fmt(r.b)}</td>
                    <td class="num">{pair(r.m_a, r.h_a)}</td>
                    <td class="num">{pair(r.m_b, r.h_b)}</td>
                    <td class="small">{r.note.clone()}</td>
                </tr>
            }
        })
        .collect_view()
}

/// Table A3's scores of every subject on the chosen task (`names`: the chosen results' labels).
pub fn scores_table(
    st: CompareState,
    scores: Memo<Vec<(Who, Vec<ScoreRow>)>>,
    names: Memo<Vec<String>>,
) -> impl IntoView {
    move || {
        let table = scores.get();
        let Some(task) = st.task.get() else { return ().into_any() };
        if table.is_empty() {
            return view! {
                <p class="small" id="cmp-scores-none">{format!(
                    "Table A3 compares a subject with the WorM human curves, and {task} has none, so there are no A/B scores for it; compare the plotted curves instead.")}</p>
            }
            .into_any();
        }
        let names = names.get();
        let kinds: Vec<String> =
            st.chosen.with(|c| c.iter().map(|x| x.item.record.subject.kind().to_string()).collect());
        view! {
            <table class="summary cmp-scores" id="cmp-scores" data-task=task.as_str()>
                <thead><tr>
                    <th>"Subject"</th><th>"Kind"</th><th>"Effect"</th><th class="num">"A"</th><th class="num">"B"</th>
                    <th class="num">"slope: subject / people"</th><th class="num">"mean: subject / people"</th><th>"Note"</th>
                </tr></thead>
                <tbody>
                    {table.into_iter().map(|(who, rows)| {
                        let (name, kind) = match &who {
                            Who::Subject(i) => (names.get(*i).cloned().unwrap_or_default(), kinds.get(*i).cloned().unwrap_or_default()),
                            Who::Chance => ("chance model".to_string(), "model".to_string()),
                            other => (other.name(&names), "reference".to_string()),
                        };
                        score_rows(who, rows, name, kind)
                    }).collect_view()}
                </tbody>
            </table>
        }
        .into_any()
    }
}
