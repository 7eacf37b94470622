//! The Papers page: every numbered figure and table of the four source papers and two 2025 critiques, where its published
//! numbers come from (shown when the app embeds them) and where the app draws the same thing from the
//! user's own results. The catalogue and the tables are built in `wmlab_core::papers`; this only lays
//! them out.

use leptos::prelude::*;
use wmlab_core::papers::{self, Entry, Paper, Published, Status, Where};
use wmlab_core::people::StudyTask;

use crate::app::AppState;
use crate::components::chart::SpecChart;

fn published_cell(e: &Entry) -> AnyView {
    match e.published {
        Published::Embedded(what) => {
            let t = papers::published_table(what);
            let n = t.rows.len();
            let id: String = format!("paper-chart-{}-{}", e.paper.key(), e.id)
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c.to_ascii_lowercase() } else { '-' })
                .collect();
            let chart = papers::published_chart(what).map(|c| view! { <SpecChart chart=c id=id class="spec-plot"/> });
            view! {
                <details class="paper-published" data-rows=n>
                    <summary>{format!("published numbers ({n} rows)")}</summary>
                    <p class="small">{t.source.clone()}</p>
                    {chart}
                    <div class="table-scroll">
                        <table class="results-table">
                            <thead><tr>{t.header.iter().map(|h| view! { <th>{h.clone()}</th> }).collect_view()}</tr></thead>
                            <tbody>
                                {t.rows.iter().map(|r| view! {
                                    <tr>{r.iter().map(|c| view! { <td>{c.clone()}</td> }).collect_view()}</tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                </details>
            }
            .into_any()
        }
        Published::SeedText => view! { <span class="small">"in the paper's text (not embedded yet)"</span> }.into_any(),
        Published::FigureOnly => view! { <span class="small">"only in the figure"</span> }.into_any(),
        Published::NoNumbers => view! { <span class="small">"no numbers"</span> }.into_any(),
    }
}

/// The way to the user's own version: a link to the page that draws it (choosing the task on Compare).
fn place_cell(e: &Entry) -> AnyView {
    let app = expect_context::<AppState>();
    match (e.place, e.place.route()) {
        (_, None) => view! { <span class="small">"—"</span> }.into_any(),
        (Where::Compare(task), Some(href)) => {
            let t = StudyTask::parse(task);
            view! {
                <a class="button secondary" href=href data-task=task
                    on:click=move |_| if let Some(t) = t { app.compare.task.set(Some(t)) }>
                    {format!("Compare ({task})")}</a>
            }
            .into_any()
        }
        (place, Some(href)) => view! { <a class="button secondary" href=href>{place.label()}</a> }.into_any(),
    }
}

fn status_class(s: Status) -> &'static str {
    match s {
        Status::Reproduced => "status-ok",
        Status::Partly => "status-part",
        Status::NotYet => "status-no",
        Status::NoResult => "status-none",
    }
}

#[component]
pub fn Papers() -> impl IntoView {
    let sections = Paper::ALL
        .into_iter()
        .map(|p| {
            let counts = papers::summary(p)
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(s, n)| format!("{n} {}", s.label()))
                .collect::<Vec<_>>()
                .join(" · ");
            let rows = papers::entries(p)
                .into_iter()
                .map(|e| {
                    view! {
                        <tr class="paper-entry" data-id=e.id data-status=e.status.key()>
                            <td><strong>{e.id}</strong></td>
                            <td>{e.title}<br/><span class="small">{e.shows}</span></td>
                            <td data-label="published">{published_cell(e)}</td>
                            <td data-label="in WM Lab"><span class=format!("badge {}", status_class(e.status))>{e.status.label()}</span></td>
                            <td data-label="your own"><span class="small">{e.run}</span><br/>{place_cell(e)}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <section class="paper" id=format!("paper-{}", p.key())>
                    <h2>{p.title()}</h2>
                    <p class="small paper-source">"Paper: "<a href=p.link().1 target="_blank" rel="noopener">{p.link().0}</a>{format!(" · {counts}")}</p>
                    <div class="table-scroll">
                        <table class="summary papers-table">
                            <thead><tr><th>"figure / table"</th><th>"what it shows"</th><th>"published"</th>
                                <th>"in WM Lab"</th><th>"your own: the run that produces it"</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                </section>
            }
        })
        .collect_view();
    view! {
        <section id="papers" data-entries=papers::ENTRIES.len()>
            <h1>"Papers"</h1>
            <p>"Every numbered figure and table of the four papers WM Lab is built from, and of two 2025 \
                papers that ask whether a model holds what it never wrote down (latent state, proactive \
                interference): where its published numbers \
                come from (open them where the app carries them), whether the app draws it, and the run that \
                produces your own version. \"Drawn by the app\" means the app draws it from your results, beside the \
                published numbers where they are embedded (your run reproduces the paper's only as far as your results \
                agree with it); \"partly drawn\" says what is missing."</p>
            {sections}
        </section>
    }
}
