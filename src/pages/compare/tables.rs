//! The tables: the chosen results, and Table A3's A and B scores of each subject.

use leptos::prelude::*;
use wmlab_core::analysis::ScoreRow;
use wmlab_core::analysis::agreement::{self, AgreementMatrix};
use wmlab_core::chart::{hex, palette};
use wmlab_core::compare::Who;
use wmlab_core::record::push_csv_row;

use super::state::{CompareState, task_names};
use crate::components::format::{fmt, pair};
use crate::platform::web;

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
                    {crate::components::format::n_cell(r.n, r.thin_points)}
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
                    <th class="num">"slope: subject / people"</th><th class="num">"mean: subject / people"</th><th class="num">"n"</th><th>"Note"</th>
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

/// The κ matrix of the chosen results on one task (error consistency on the trials each pair took, with
/// its 95 % interval), the people's noise ceiling, and its CSV.
pub fn agreement_table(m: AgreementMatrix, names: Vec<String>) -> impl IntoView {
    let n = names.len();
    let ceiling = m.ceiling.clone();
    let pairs = m.pairs().count();
    let csv = {
        let mut out = String::from(agreement::CSV_HEADER);
        for row in agreement::csv_rows(&m, &names) {
            push_csv_row(&mut out, &row);
        }
        out
    };
    let file = format!("agreement-{}.csv", m.task);
    let head = names.iter().enumerate().map(|(j, name)| {
        view! { <th data-col=j><span class="swatch" style=format!("background:{}", hex(palette(j)))></span>{format!("s{j}")}
            <span class="small">{format!(" {name}")}</span></th> }
    });
    let body = m.cells.iter().enumerate().map(|(i, row)| {
        let cells = row.iter().enumerate().map(|(j, c)| {
            let (text, kappa, items, unmatched, at) = match c {
                _ if i == j => ("·".to_string(), String::new(), String::new(), String::new(), String::new()),
                None => ("no shared trials".to_string(), String::new(), "0".into(), String::new(), String::new()),
                Some(g) => {
                    let text = match (g.kappa, g.ci) {
                        (Some(k), Some((lo, hi))) => format!("{k:.2} [{lo:.2}, {hi:.2}]"),
                        (Some(k), None) => format!("{k:.2}"),
                        (None, _) => "undefined (both always right or always wrong)".to_string(),
                    };
                    let k = g.kappa.map(|k| format!("{k:.6}")).unwrap_or_default();
                    let at = m.at_ceiling(g).map(|b| b.to_string()).unwrap_or_default();
                    (format!("{text} · {} items", g.items), k, g.items.to_string(), g.unmatched.to_string(), at)
                }
            };
            view! {
                <td class="kappa" class:at-ceiling=at == "true" data-row=i data-col=j data-kappa=kappa data-items=items
                    data-unmatched=unmatched data-at-ceiling=at>{text}</td>
            }
        });
        view! { <tr data-row=i><th>{format!("s{i}")}</th>{cells.collect_view()}</tr> }
    });
    view! {
        <table class="summary" id="cmp-agreement" data-task=m.task.clone() data-subjects=n data-pairs=pairs
            data-ceiling=ceiling.as_ref().map(|c| format!("{:.6}", c.mean)).unwrap_or_default()>
            <thead><tr><th></th>{head.collect_view()}</tr></thead>
            <tbody>{body.collect_view()}</tbody>
        </table>
        {match ceiling {
            Some(c) => view! { <p class="small" id="cmp-ceiling" data-pairs=c.pairs>{format!(
                "Noise ceiling: the people agree with each other at κ = {:.2} ± {:.2} (mean ± SD over {} pair{}); a cell \
                 in bold reaches it (κ ≥ mean − SD): as consistent as two people are.",
                c.mean, c.sd, c.pairs, if c.pairs == 1 { "" } else { "s" })}</p> }.into_any(),
            None => view! { <p class="small" id="cmp-ceiling">"No noise ceiling: it needs two people who took the same trials."</p> }.into_any(),
        }}
        <div class="buttons"><button id="cmp-agreement-csv" class="secondary" on:click=move |_| {
            let _ = web::download(&file, "text/csv", &csv);
        }>"Download the κ table (CSV)"</button></div>
    }
}
