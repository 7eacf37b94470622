//! Compare: people, LLMs and networks side by side on one task. Results come from this browser's
//! history, from JSON files or from pasted share links (`#r=1.…`, or a whole comparison `#c=1.…`). The
//! core (`wmlab_core::compare`) puts every result on the paper's axes with the same code, adds the
//! published human (and LLM N-back) numbers and the chance model, and scores each subject with Table A3's
//! A and B; this page only collects the choices and draws. A comparison link carries the task and the
//! chosen results (trimmed to that task), so it opens the same comparison anywhere.
//!
//! Bad input (a damaged link or file, a result without rows of any task the page can draw) gives a
//! plain message and leaves what was already chosen in place.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wmlab_core::TaskId;
use wmlab_core::analysis::ScoreRow;
use wmlab_core::compare::{self as cmp, Compared, Comparison, Extras, Who, common_task, content_id};
use wmlab_core::people::StudyTask;
use wmlab_core::people::reference::has_human_reference;

/// Whether a task has published numbers to draw: the WorM human curves, or the N-back papers' LLM results.
fn has_published(t: StudyTask) -> bool {
    has_human_reference(t) || t.nback().is_some()
}
use wmlab_core::record::ResultRecord;
use wmlab_core::share;

use crate::app::AppState;
use crate::components::chart::CmpChart;
use crate::components::format::{fmt, pair};
use crate::platform::history;
use crate::platform::web;
use wmlab_core::chart::{hex, palette};

/// One chosen result.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    /// Content id (the history's id for the same result).
    pub id: String,
    /// Where it came from: `history`, a file name, `link`.
    pub source: String,
    pub item: Compared,
}

/// The page's choices, kept in the app state so they survive a visit to another page.
#[derive(Clone, Copy)]
pub struct CompareState {
    pub chosen: RwSignal<Vec<Chosen>>,
    pub task: RwSignal<Option<StudyTask>>,
    pub human: RwSignal<bool>,
    pub chance: RwSignal<bool>,
    pub published: RwSignal<bool>,
}

impl CompareState {
    pub fn new() -> Self {
        CompareState {
            chosen: RwSignal::new(Vec::new()),
            // Nothing chosen yet: the published numbers of VSR are drawn from the start.
            task: RwSignal::new(Some(StudyTask::Worm(TaskId::Vsr))),
            human: RwSignal::new(true),
            chance: RwSignal::new(false),
            published: RwSignal::new(true),
        }
    }
    fn items(&self) -> Vec<Compared> {
        self.chosen.with(|c| c.iter().map(|x| x.item.clone()).collect())
    }
    /// Keep the task if some chosen result has it, else the one most of them share; with nothing chosen,
    /// any task with published numbers (VSR unless one is chosen), so the page is never empty.
    fn fix_task(&self) {
        let items = self.items();
        let t = self.task.get_untracked();
        if items.is_empty() {
            if !t.is_some_and(has_published) {
                self.task.set(Some(StudyTask::Worm(TaskId::Vsr)));
            }
            return;
        }
        let ok = t.is_some_and(|t| items.iter().any(|c| c.tasks().contains(&t)));
        if !ok {
            self.task.set(common_task(&items));
        }
    }
}

impl Default for CompareState {
    fn default() -> Self {
        Self::new()
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

fn task_names(tasks: &[StudyTask]) -> String {
    tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
}

#[component]
pub fn Compare(link: Option<String>) -> impl IntoView {
    let app = expect_context::<AppState>();
    let st = app.compare;
    let error = RwSignal::new(None::<String>);
    let notice = RwSignal::new(None::<String>);
    let pasted = RwSignal::new(String::new());
    let copied = RwSignal::new(false);
    let list = history::use_list();
    let loading = RwSignal::new(0u32);

    // Add one result; refuses results with nothing to draw. Returns a note about it, if any.
    let add = move |item: Compared, source: String| -> Result<Option<String>, String> {
        let label = item.record.subject.label();
        let tasks = item.tasks();
        if tasks.is_empty() {
            return Err(format!(
                "“{label}” ({}) has no trial rows of a task this page can draw (a WorM task or N-back), so it was not added.",
                item.record.task
            ));
        }
        let id = content_id(&item.record);
        if st.chosen.with_untracked(|c| c.iter().any(|x| x.id == id)) {
            return Ok(Some(format!("“{label}” is already chosen.")));
        }
        st.chosen.update(|c| c.push(Chosen { id, source, item }));
        st.fix_task();
        let t = st.task.get_untracked();
        Ok(t.filter(|t| !tasks.contains(t)).map(|t| {
            format!("“{label}” has no rows of {t}: it is listed but not drawn. It has {}.", task_names(&tasks))
        }))
    };

    // A comparison link: replace (opened as a page) or add to (pasted) the current choice.
    let apply_comparison = move |text: &str, replace: bool| match share::decode_comparison(text) {
        Ok(c) => {
            let items: Vec<Chosen> = c
                .results
                .iter()
                .map(|r| Chosen { id: content_id(&r.record), source: "link".into(), item: r.clone() })
                .collect();
            if replace {
                st.chosen.set(items);
            } else {
                st.chosen.update(|v| {
                    for i in items {
                        if !v.iter().any(|x| x.id == i.id) {
                            v.push(i);
                        }
                    }
                });
            }
            st.task.set(Some(c.task));
            st.human.set(c.human);
            st.chance.set(c.chance);
            st.published.set(c.published);
            error.set(None);
            notice.set((!c.has_rows()).then(|| {
                "This comparison link carries summaries and curves only (the full results were too long for a link); the plots and scores are the same.".to_string()
            }));
        }
        Err(e) => error.set(Some(format!("The comparison link could not be opened: {e}"))),
    };

    if let Some(l) = link {
        apply_comparison(&l, true);
    }

    let add_pasted = move || {
        let text = pasted.get_untracked();
        let text = text.trim();
        if text.is_empty() {
            error.set(Some("Paste a share link (with #r=…) or a comparison link (with #c=…) first.".into()));
            return;
        }
        if share::is_comparison_link(text) {
            apply_comparison(text, false);
            if error.get_untracked().is_none() {
                pasted.set(String::new());
            }
            return;
        }
        match share::decode(text) {
            Ok(r) => match add(Compared::new(r), "link".into()) {
                Ok(n) => {
                    error.set(None);
                    notice.set(n);
                    pasted.set(String::new());
                }
                Err(e) => error.set(Some(e)),
            },
            Err(e) => error.set(Some(format!("The link could not be opened: {e}"))),
        }
    };

    let on_files = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(files) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        input.set_value("");
        loading.update(|n| *n += 1);
        wasm_bindgen_futures::spawn_local(async move {
            let mut errors = Vec::new();
            let mut notes = Vec::new();
            for f in files {
                let name = f.name();
                if f.size() > 64.0 * 1024.0 * 1024.0 {
                    errors.push(format!("“{name}” is too large to be a WM Lab result (more than 64 MB)."));
                    continue;
                }
                let text = match JsFuture::from(f.text()).await {
                    Ok(v) => v.as_string().unwrap_or_default(),
                    Err(_) => {
                        errors.push(format!("“{name}” could not be read."));
                        continue;
                    }
                };
                match ResultRecord::from_json(&text) {
                    Ok(r) => match add(Compared::new(r), name.clone()) {
                        Ok(Some(n)) => notes.push(n),
                        Ok(None) => {}
                        Err(e) => errors.push(format!("“{name}”: {e}")),
                    },
                    Err(e) => errors.push(format!("“{name}”: {e}")),
                }
            }
            let _ = error.try_set((!errors.is_empty()).then(|| errors.join(" ")));
            let _ = notice.try_set((!notes.is_empty()).then(|| notes.join(" ")));
            let _ = loading.try_update(|n| *n -= 1);
        });
    };

    let toggle_history = move |id: String, on: bool| {
        if !on {
            st.chosen.update(|c| c.retain(|x| x.id != id));
            st.fix_task();
            return;
        }
        loading.update(|n| *n += 1);
        wasm_bindgen_futures::spawn_local(async move {
            match history::load(&id).await {
                Ok(r) => match add(Compared::new(r), "history".into()) {
                    Ok(n) => {
                        let _ = error.try_set(None);
                        let _ = notice.try_set(n);
                    }
                    Err(e) => {
                        let _ = error.try_set(Some(e));
                    }
                },
                Err(e) => {
                    let _ = error.try_set(Some(format!("This result could not be read from the history: {e}")));
                }
            }
            let _ = loading.try_update(|n| *n -= 1);
        });
    };

    let names = Memo::new(move |_| {
        st.chosen.with(|c| {
            c.iter()
                .map(|x| format!("{} ({})", x.item.record.subject.label(), x.item.record.subject.kind()))
                .collect::<Vec<_>>()
        })
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
    let scores = Memo::new(move |_| curves.get().map(|(t, cs)| cmp::score_table(t, &cs)).unwrap_or_default());
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
        let c = Comparison::new(t, &items, st.human.get(), st.chance.get(), st.published.get());
        Some(
            share::comparison_fragment(&c)
                .map(|(f, full)| (format!("{}{}", web::base_url(), f), full))
                .map_err(|e| e.to_string()),
        )
    });

    let history_view = move || {
        match list.get() {
        None => view! { <p class="small">"Reading the history…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="error">{format!("The history could not be read: {e}")}</p> }.into_any(),
        Some(Ok(entries)) if entries.is_empty() => view! {
            <p class="small" id="cmp-history-empty">"No saved results yet. Finished sessions, LLM runs, evaluated networks and results opened in "
                <a href="#/results">"Results"</a> " are saved here."</p>
        }
        .into_any(),
        Some(Ok(entries)) => {
            let n = entries.len();
            view! {
                <ul class="cmp-history" id="cmp-history" data-count=n>
                    {entries.into_iter().map(|e| {
                        let id = e.id.clone();
                        let id2 = e.id.clone();
                        let checked = move || st.chosen.with(|c| c.iter().any(|x| x.id == id2));
                        let tasks = if e.tasks.is_empty() { "nothing to draw".to_string() } else { e.tasks.join(", ") };
                        view! {
                            <li class="cmp-history-item" data-id=e.id.clone() data-kind=e.kind.clone()>
                                <label>
                                    <input type="checkbox" class="cmp-pick" id=format!("cmp-pick-{}", e.id) data-id=e.id.clone()
                                        disabled=e.tasks.is_empty()
                                        prop:checked=checked
                                        on:change=move |ev| toggle_history(id.clone(), event_target_checked(&ev))/>
                                    " " <strong>{e.label.clone()}</strong> " (" {e.kind.clone()} ") · " {tasks}
                                    <span class="small">" · " {e.created.clone().unwrap_or_default()}</span>
                                </label>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            }
            .into_any()
        }
    }
    };

    let chosen_view = move || {
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
                                <td><span class="swatch" style=format!("background:{}", hex(palette(i)))></span>{r.subject.label()}</td>
                                <td>{r.subject.kind()}</td>
                                <td>{task_names(&tasks)}</td>
                                <td>{c.source.clone()}</td>
                                <td><button class="cmp-remove" on:click=move |_| {
                                    st.chosen.update(|v| v.retain(|x| x.id != id));
                                    st.fix_task();
                                }>"Remove"</button></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        }
        .into_any()
    };

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
        let names = names.get();
        let n = ps.len();
        view! {
            <div class="charts cmp-plots" id="cmp-plots" data-panels=n>
                {ps.into_iter().enumerate().map(|(i, p)| view! { <CmpChart panel=p index=i names=names.clone()/> }).collect_view()}
            </div>
        }
        .into_any()
    };

    let scores_view = move || {
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
    let is_nback = move || st.task.get().is_some_and(|t| t.nback().is_some());

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

            <div class="cmp-sources">
                <fieldset>
                    <legend>"From this browser's history"</legend>
                    {history_view}
                    <p class="small">{format!("The history keeps the last {} results in this browser; older ones are dropped. ", history::CAP)}
                        <a href="#/results">"Manage it in Results"</a> "."</p>
                </fieldset>
                <fieldset>
                    <legend>"From files or links"</legend>
                    <label for="cmp-file">"JSON results exported by WM Lab "</label>
                    <input id="cmp-file" type="file" multiple accept=".json,application/json" on:change=on_files/>
                    <form class="paste" on:submit=move |ev| { ev.prevent_default(); add_pasted(); }>
                        <label for="cmp-link">"Share link"</label>
                        <input id="cmp-link" type="text" placeholder="Paste a link with #r=… or #c=…"
                            prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))/>
                        <button id="cmp-add-link" type="submit">"Add"</button>
                    </form>
                </fieldset>
            </div>

            <h2>"Chosen results"</h2>
            {chosen_view}

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
                <label class:hidden=move || !is_nback()><input type="checkbox" id="cmp-published" prop:checked=move || st.published.get()
                    on:change=move |ev| st.published.set(event_target_checked(&ev))/>" published LLM numbers (N-back)"</label>
                <label><input type="checkbox" id="cmp-chance" prop:checked=move || st.chance.get()
                    on:change=move |ev| st.chance.set(event_target_checked(&ev))/>" chance model"</label>
            </div>

            {plots_view}
            {move || missing().map(|m| view! { <p class="small" id="cmp-missing">{m}</p> })}
            <p class="small">"Thick lines with filled markers: the chosen results, one colour each. Thin lines: people in the WorM \
                study (dark), published LLM numbers, and the chance model (dashed grey). The marker shape tells the curves of one \
                panel apart (e.g. list lengths)."</p>
            <p class="small" id="cmp-chance-explained">"The chance model guesses among the answers a participant can give: 1/2 for \
                the yes/no tasks, 1/9 for VSR and SMU, 1/8 for each CS recall probe. The WorM paper draws CS's chance line at 0.04 \
                (Fig. A9) without saying how it was derived; it is below what any guess among the 8 options scores, so a CS curve \
                at 0.125 is still at chance here."</p>

            <h2>"Scores A and B (Table A3)"</h2>
            <p class="small" id="cmp-scores-explained">"For each effect, A = |(M_A − H_A) / H_A| compares the slope of the subject's \
                accuracy along the effect's axis (serial position, set size, distractors …) with the humans' slope H_A, and \
                B = |(M_B − H_B) / H_B| compares the subject's mean accuracy over the same conditions with the humans' mean H_B. \
                0 means the same as people; larger means further from them. The chance model answers at random, so its scores show \
                how far \"not remembering at all\" is."</p>
            {scores_view}

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
