//! Compare: people, LLMs and networks side by side on one task. Results come from this browser's
//! history, from JSON files or from pasted share links (`#r=1.…`, or a whole comparison `#c=1.…`). The
//! core (`wmlab_core::compare`) puts every result on the paper's axes with the same code, adds the
//! published human (and LLM N-back) numbers and the chance model, and scores each subject with Table A3's
//! A and B; this page only collects the choices and draws. A comparison link carries the task and the
//! chosen results (trimmed to that task), so it opens the same comparison anywhere.
//!
//! `state`: the choices and how a result gets chosen; `sources`: the history, files and links;
//! `tables`: the chosen results and the A/B scores; here: the plots, options and share link.
//!
//! Bad input (a damaged link or file, a result without rows of any task the page can draw) gives a
//! plain message and leaves what was already chosen in place.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wmlab_core::compare::{self as cmp, Comparison, Extras};
use wmlab_core::people::StudyTask;
use wmlab_core::share;

use crate::app::AppState;
use crate::components::chart::{CmpChart, CmpLevels, SpecChart};
use crate::platform::web;

mod sources;
mod state;
mod tables;
pub use state::CompareState;
use state::{Page, has_published};

#[component]
pub fn Compare(link: Option<String>) -> impl IntoView {
    let app = expect_context::<AppState>();
    let st = app.compare;
    let page = Page::new(st);
    let Page { error, notice, loading, .. } = page;
    let copied = RwSignal::new(false);
    if let Some(l) = link {
        page.apply_comparison(&l, true);
    }

    let names = Memo::new(move |_| {
        st.chosen.with(|c| cmp::subject_names(&c.iter().map(|x| &x.item.record).collect::<Vec<_>>()))
    });
    let training = Memo::new(move |_| {
        st.chosen.with(|c| cmp::training_panel(&c.iter().map(|x| &x.item.record).collect::<Vec<_>>()))
    });
    let all_tasks = Memo::new(move |_| {
        let items = st.chosen.with(|c| c.iter().map(|x| x.item.tasks()).collect::<Vec<_>>());
        if items.is_empty() {
            // Nothing chosen: every task with published numbers to look at.
            return StudyTask::all().into_iter().filter(|&t| has_published(t)).map(|t| (t, 0)).collect::<Vec<_>>();
        }
        StudyTask::all()
            .into_iter()
            .filter_map(|t| {
                let n = items.iter().filter(|ts| ts.contains(&t)).count();
                (n > 0).then_some((t, n))
            })
            .collect::<Vec<_>>()
    });
    let curves = Memo::new(move |_| {
        let t = st.task.get()?;
        Some((t, st.chosen.with(|c| c.iter().map(|x| x.item.curves(t)).collect::<Vec<_>>())))
    });
    let extras = move || Extras { human: st.human.get(), chance: st.chance.get(), published: st.published.get() };
    let panels = Memo::new(move |_| curves.get().map(|(t, cs)| cmp::panels(t, &cs, extras())).unwrap_or_default());
    // The per-run layout: runs named by everything that tells them apart, networks in the paper's grid order.
    let run_titles =
        Memo::new(move |_| st.chosen.with(|c| cmp::run_titles(&c.iter().map(|x| &x.item.record).collect::<Vec<_>>())));
    let runs = Memo::new(move |_| {
        if !st.per_run.get() {
            return Vec::new();
        }
        let order = st.chosen.with(|c| cmp::run_order(&c.iter().map(|x| &x.item.record).collect::<Vec<_>>()));
        curves.get().map(|(t, cs)| cmp::run_panels(t, &cs, extras(), &order, &run_titles.get())).unwrap_or_default()
    });
    let scores = Memo::new(move |_| curves.get().map(|(t, cs)| cmp::score_table(t, &cs)).unwrap_or_default());
    // Each chosen result's capacity on the task, in its standard unit (issue 48).
    let capacity = Memo::new(move |_| {
        let Some(t) = st.task.get() else { return Vec::new() };
        let names = names.get();
        st.chosen.with(|c| {
            c.iter()
                .enumerate()
                .flat_map(|(i, x)| {
                    let who = format!("s{i} {}", names.get(i).cloned().unwrap_or_default());
                    wmlab_core::analysis::capacity::measures(&x.item.record)
                        .into_iter()
                        .filter(|m| m.task == t.as_str())
                        .map(move |m| (Some(who.clone()), m))
                })
                .collect::<Vec<_>>()
        })
    });
    // Error consistency of every pair on the trials both took (issue 48): the same function as `wmlab
    // compare`'s agreement.csv.
    let agreement = Memo::new(move |_| {
        let t = st.task.get()?;
        st.chosen.with(|c| {
            use wmlab_core::analysis::agreement::{Rated, agreement_matrix};
            let rated: Vec<Rated> = c.iter().map(|x| Rated::of(&x.item.record)).collect();
            agreement_matrix(&rated, t.as_str(), 1000, 48)
        })
    });
    let missing = move || {
        let (t, cs) = curves.get()?;
        let names = names.get();
        let without: Vec<String> = cs
            .iter()
            .enumerate()
            .filter(|(_, c)| c.iter().all(|c| c.points.is_empty()))
            .map(|(i, _)| names[i].clone())
            .collect();
        (!without.is_empty()).then(|| format!("Not drawn (no rows of {t}): {}.", without.join("; ")))
    };
    let share_link = Memo::new(move |_| {
        let t = st.task.get()?;
        let items = st.chosen.with(|c| c.iter().map(|x| x.item.clone()).collect::<Vec<_>>());
        if items.is_empty() {
            return None;
        }
        let c = Comparison {
            per_run: st.per_run.get(),
            overlay: st.overlay.get(),
            ..Comparison::new(t, &items, st.human.get(), st.chance.get(), st.published.get())
        };
        Some(
            share::comparison_fragment(&c)
                .map(|(f, full)| (format!("{}{}", web::base_url(), f), full))
                .map_err(|e| e.to_string()),
        )
    });

    let plots_view = move || {
        let ps = panels.get();
        if st.task.get().is_none() {
            return view! { <p class="small" id="cmp-plots-empty">"Choose results above to draw them."</p> }.into_any();
        }
        if ps.is_empty() {
            let msg = if st.chosen.with(|c| c.is_empty()) {
                "Nothing to draw: tick \"people\" or \"published LLM numbers\" above, or choose results."
            } else {
                "None of the chosen results has trial rows of this task."
            };
            return view! { <p class="small" id="cmp-plots-empty">{msg}</p> }.into_any();
        }
        if st.per_run.get() && !st.chosen.with(|c| c.is_empty()) {
            let titles = run_titles.get();
            let rs = runs.get();
            let n = rs.len();
            let mut k = 0;
            return view! {
                <div class="cmp-runs" id="cmp-runs" data-runs=n>
                    {rs.into_iter().map(|r| {
                        let plots = r.panels.into_iter().map(|p| {
                            k += 1;
                            view! { <CmpChart panel=p index=k - 1 names=titles.clone()/> }
                        }).collect_view();
                        view! {
                            <div class="cmp-run" data-subject=r.subject>
                                <h3 class="cmp-run-title">{r.title}</h3>
                                <div class="charts cmp-plots">{plots}</div>
                            </div>
                        }
                    }).collect_view()}
                </div>
            }
            .into_any();
        }
        let names = names.get();
        let n = ps.len();
        if !st.overlay.get() {
            return view! {
                <div class="cmp-plots cmp-small-multiples" id="cmp-plots" data-panels=n>
                    {ps.into_iter().enumerate().map(|(i, p)| view! { <CmpLevels panel=p index=i names=names.clone()/> }).collect_view()}
                </div>
            }
            .into_any();
        }
        view! {
            <div class="charts cmp-plots" id="cmp-plots" data-panels=n>
                {ps.into_iter().enumerate().map(|(i, p)| view! { <CmpChart panel=p index=i names=names.clone()/> }).collect_view()}
            </div>
        }
        .into_any()
    };

    let on_task = move |ev: leptos::ev::Event| {
        if let Some(t) = StudyTask::parse(&event_target_value(&ev)) {
            st.task.set(Some(t));
            notice.set(None);
        }
    };
    let link_input = NodeRef::<leptos::html::Input>::new();
    let copy = move |_| {
        if let Some(Ok((l, _))) = share_link.get_untracked() {
            if let Some(i) = link_input.get() {
                i.select();
            }
            let _ = web::window().navigator().clipboard().write_text(&l);
            copied.set(true);
        }
    };
    // The tasks with published LLM numbers: N-back (Gong et al. 2024) and PI-LLM (Wang & Sun 2025).
    let has_llm_numbers = move || st.task.get().is_some_and(|t| t.nback().is_some() || t == StudyTask::Pi);

    view! {
        <section class="compare" id="compare"
            data-state=move || { if error.get().is_some() { "error" } else if loading.get() > 0 { "loading" } else { "ready" } }
            data-chosen=move || st.chosen.with(|c| c.len())
            data-task=move || st.task.get().map(|t| t.as_str()).unwrap_or("")>
            <h1>"Compare"</h1>
            <p class="lead">"People, language models and networks on one task: each result is put on the paper's axes by the same \
                code, drawn beside the published human numbers, and scored against them."</p>
            {move || error.get().map(|e| view! { <p class="error" id="cmp-error" role="alert">{e}</p> })}
            {move || notice.get().map(|n| view! { <p class="notice" id="cmp-notice">{n}</p> })}

            {sources::sources(page)}

            <h2>"Chosen results"</h2>
            {tables::chosen_table(st)}

            <div class="cmp-options">
                <label>"Task "
                    <select id="cmp-task" on:change=on_task prop:value=move || st.task.get().map(|t| t.as_str()).unwrap_or("")>
                        {move || all_tasks.get().into_iter().map(|(t, n)| view! {
                            <option value=t.as_str() selected=move || st.task.get() == Some(t)>
                                {match st.chosen.with(|c| c.len()) {
                                    0 => format!("{} — {} (published numbers)", t.as_str(), t.title()),
                                    k => format!("{} — {} ({n} of {k})", t.as_str(), t.title()),
                                }}
                            </option>
                        }).collect_view()}
                    </select>
                </label>
                <label><input type="checkbox" id="cmp-human" prop:checked=move || st.human.get()
                    on:change=move |ev| st.human.set(event_target_checked(&ev))/>" people (WorM, where published)"</label>
                <label class:hidden=move || !has_llm_numbers()><input type="checkbox" id="cmp-published" prop:checked=move || st.published.get()
                    on:change=move |ev| st.published.set(event_target_checked(&ev))/>" published LLM numbers (N-back, PI-LLM)"</label>
                <label>"Layout "
                    <select id="cmp-layout"
                        prop:value=move || if st.per_run.get() { "per-run" } else if st.overlay.get() { "together" } else { "levels" }
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            st.per_run.set(v == "per-run");
                            st.overlay.set(v == "together");
                        }>
                        <option value="levels">"a plot per condition level, every run on each"</option>
                        <option value="together">"every run and level on one plot"</option>
                        <option value="per-run">"one plot per run (WorM Figs. A2, A7–A12)"</option>
                    </select>
                </label>
                <label><input type="checkbox" id="cmp-chance" prop:checked=move || st.chance.get()
                    on:change=move |ev| st.chance.set(event_target_checked(&ev))/>" chance and memoryless models"</label>
            </div>

            {plots_view}
            {move || missing().map(|m| view! { <p class="small" id="cmp-missing">{m}</p> })}
            <p class="small" id="cmp-layout-explained">"One plot per run draws each chosen result on its own beside the \
                references, as the WorM appendix draws one panel per model (Figs. A7–A12: networks ordered RNN, GRU, LSTM, \
                Transformer, then by capacity; Fig. A2: VSR trained jointly, alone, or with longer lists). Each run is named by \
                its architecture, capacity, preset, steps, task subset and task parameters."</p>
            <p class="small" id="cmp-layout-levels">"By default each task is drawn as small multiples: first a summary (each \
                subject's accuracy per condition level — list length, retention … — pooled over the x axis, with a 95 % Wilson \
                interval), then one plot per level with every subject on it as a line of its own colour, the same colour on every \
                plot. One level at a time is easier to read than eight curves told apart by marker shape, and a subject keeps its \
                colour from plot to plot."</p>
            <p class="small">"Thick lines with filled markers: the chosen results, one colour each; bars: 95 % intervals (Wilson \
                for answers right or wrong, a bootstrap of the mean for scores); the legend gives the n behind each point, and a \
                point on fewer than 10 is drawn faint. Thin lines: people in the WorM study (dark), published LLM numbers, the \
                chance model (dashed grey) and the memoryless model (dashed brown). The WorM repository gives the human numbers \
                without standard errors or n (its notebooks plot them with no error bars), so they are drawn as a line, not a \
                band. In the one-plot layouts the marker shape tells the curves of a panel apart (e.g. list lengths). Under each \
                plot: SVG, and PNG at 300 dpi, both 7 inches wide."</p>
            <p class="small" id="cmp-chance-explained">"The chance model guesses among the answers a participant can give: 1/2 for \
                the yes/no tasks, 1/9 for VSR and SMU, 1/8 for each CS recall probe. The WorM paper draws CS's chance line at 0.04 \
                (Fig. A9) without saying how it was derived; it is below what any guess among the 8 options scores, so a CS curve \
                at 0.125 is still at chance here."</p>
            <p class="small" id="cmp-memoryless-explained">"The memoryless model is the best a subject can do from the frame it is \
                shown alone, with no memory of the trial's earlier frames: VSR's probe shows the L studied patterns, so naming any \
                of them is right 1/L of the time; SMU's likeliest cell is the centre; three of four STS probes answer themselves. \
                It is drawn where it is above chance; a curve at or below it shows no memory."</p>

            {move || training.get().map(|p| {
                let subjects = p.subjects().iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
                let data = vec![("data-subjects", subjects)];
                view! {
                    <h2>"Training curves (WorM Fig. A4)"</h2>
                    <p class="small">"Each chosen network's mean validation accuracy over its trained task ids at every check of \
                        its training, against the training trials it had seen (the paper draws it against epochs of its 1.4M-trial \
                        set: one epoch = 1,400 thousand trials). Runs are named by architecture, capacity, preset, steps and task \
                        subset where two would otherwise read the same."</p>
                    <SpecChart chart=p.chart(&names.get()) id="cmp-training".to_string() class="cmp-plot" width=780 data caption=None/>
                }
            })}

            <h2>"Scores A and B (Table A3)"</h2>
            <p class="small" id="cmp-scores-explained">"For each effect, A = |(M_A − H_A) / H_A| compares the slope of the subject's \
                accuracy along the effect's axis (serial position, set size, distractors …) with the humans' slope H_A, and \
                B = |(M_B − H_B) / H_B| compares the subject's mean accuracy over the same conditions with the humans' mean H_B. \
                0 means the same as people; larger means further from them. The chance model answers at random, so its scores show \
                how far \"not remembering at all\" is."</p>
            {tables::scores_table(st, scores, names)}

            {move || {
                let rows = capacity.get();
                (!rows.is_empty()).then(|| view! {
                    <h2>"Capacity"</h2>
                    <p class="small">"Each chosen result's capacity on this task in its standard unit (Cowan's K, span, d′, a \
                        staircase's level), with its 95 % interval: the same function as Results and wmlab compare's measures.csv."</p>
                    {crate::components::capacity::capacity_table(rows, "cmp-capacity")}
                })
            }}

            <h2>"Same trials, same errors? (error consistency κ)"</h2>
            <p class="small" id="cmp-agreement-explained">"Where two chosen results took the very same trials (a network evaluated \
                on a participant's trials on the Networks page, a visual LLM run with the participant's seed, people on one study \
                link), κ says whether they fail on the same items: 0 is no more agreement than their accuracies give, 1 the same \
                errors (Geirhos et al. 2020). Each cell: κ with its 95 % bootstrap interval over the shared items."</p>
            {move || match agreement.get() {
                Some(m) => tables::agreement_table(m, names.get()).into_any(),
                None => view! { <p class="small" id="cmp-agreement-none">"No two chosen results took the same trials of this task."</p> }.into_any(),
            }}

            <h2>"Share this comparison"</h2>
            {move || match share_link.get() {
                None => view! { <p class="small">"Choose results to get a link."</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error" id="cmp-share-error">{e}</p> }.into_any(),
                Some(Ok((l, full))) => view! {
                    <div class="share">
                        <input id="cmp-share-link" type="text" readonly node_ref=link_input prop:value=l.clone()
                            on:focus=move |ev| {
                                if let Some(i) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) { i.select(); }
                            }/>
                        <button id="cmp-copy" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy link" }}</button>
                    </div>
                    <p class="small" id="cmp-share-note" data-full=full.to_string()>
                        "The chosen results travel inside the link (after the #), cut to this task's rows; no server sees them."
                        {(!full).then_some(" They are too long for a link, so it carries their summaries and curves only.")}
                    </p>
                }.into_any(),
            }}
        </section>
    }
}
