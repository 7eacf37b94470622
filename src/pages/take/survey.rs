//! The questionnaire screen (`survey=`, `survey_url=`): the core's `people::survey::Questionnaire`
//! drawn as a form; what the participant enters goes back to the core's check, whose messages appear
//! beside their items, and the checked answers to the controller.
//!
//! Ids for tests: each item's field `q-<id>` (text, number), its options `q-<id>-<n>` (from 0; Likert
//! points from 1), its message `q-<id>-error`; the button `survey-submit`.

use std::collections::BTreeMap;

use leptos::prelude::*;
use wmlab_core::people::StudyConfig;
use wmlab_core::people::study::StudyText;
use wmlab_core::people::survey::{Entry, Item, ItemError, ItemKind, Questionnaire};

use super::ctl::act;
use crate::platform::web;

/// The study's questionnaire: the built-in set and/or the study's file, fetched and checked.
pub async fn load(cfg: &StudyConfig) -> Result<Questionnaire, String> {
    let file = match &cfg.survey_url {
        None => None,
        Some(p) => Some(
            web::fetch_bytes(p)
                .await
                .and_then(|b| StudyText::checked_file_text(p, &b).map_err(String::from))
                .map_err(|e| format!("{e} The study's questionnaire could not be shown, so the study cannot go on."))?,
        ),
    };
    Questionnaire::for_study(cfg.demographics, file.as_deref())
        .map_err(|e| format!("{e} Please tell the researcher."))?
        .ok_or_else(|| "This study has no questionnaire.".to_string())
}

fn one(entries: RwSignal<BTreeMap<String, Entry>>, id: &str, v: String) {
    entries.update(|m| {
        m.insert(id.to_string(), Entry::One(v));
    });
}

fn toggle(entries: RwSignal<BTreeMap<String, Entry>>, id: &str, option: &str, on: bool) {
    entries.update(|m| {
        let e = m.entry(id.to_string()).or_insert_with(|| Entry::Many(vec![]));
        if let Entry::Many(v) = e {
            v.retain(|o| o != option);
            if on {
                v.push(option.to_string());
            }
        }
    });
}

fn field(item: &Item, entries: RwSignal<BTreeMap<String, Entry>>) -> AnyView {
    let id = item.id.clone();
    let name = format!("q-{id}");
    match &item.kind {
        ItemKind::Text { lines } if *lines > 1 => {
            view! { <textarea id=name.clone() rows=*lines on:input=move |ev| one(entries, &id, event_target_value(&ev))></textarea> }
                .into_any()
        }
        ItemKind::Text { .. } => {
            view! { <input type="text" id=name.clone() on:input=move |ev| one(entries, &id, event_target_value(&ev))/> }
                .into_any()
        }
        ItemKind::Number { .. } => view! {
            <input type="text" inputmode="decimal" id=name.clone() class="short" on:input=move |ev| one(entries, &id, event_target_value(&ev))/>
        }
        .into_any(),
        ItemKind::Single { options } => options
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let (id, o2) = (id.clone(), o.clone());
                view! {
                    <label class="check option"><input type="radio" name=name.clone() id=format!("{name}-{i}") value=o.clone()
                        on:change=move |_| one(entries, &id, o2.clone())/>" "{o.clone()}</label>
                }
            })
            .collect_view()
            .into_any(),
        ItemKind::Multiple { options } => options
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let (id, o2) = (id.clone(), o.clone());
                view! {
                    <label class="check option"><input type="checkbox" id=format!("{name}-{i}")
                        on:change=move |ev| toggle(entries, &id, &o2, event_target_checked(&ev))/>" "{o.clone()}</label>
                }
            })
            .collect_view()
            .into_any(),
        ItemKind::Likert { points, low, high } => {
            let pts = (1..=*points)
                .map(|p| {
                    let id = id.clone();
                    view! {
                        <label class="likert-point"><input type="radio" name=name.clone() id=format!("{name}-{p}") value=p.to_string()
                            on:change=move |_| one(entries, &id, p.to_string())/><span>{p.to_string()}</span></label>
                    }
                })
                .collect_view();
            view! { <div class="likert"><span class="small">{low.clone()}</span>{pts}<span class="small">{high.clone()}</span></div> }
                .into_any()
        }
    }
}

/// The form; "Continue" hands the checked answers to the controller.
pub fn form(q: Questionnaire) -> impl IntoView {
    let entries = RwSignal::new(BTreeMap::<String, Entry>::new());
    let errors = RwSignal::new(Vec::<ItemError>::new());
    let q2 = q.clone();
    let submit = move |_| match q2.check(&entries.get_untracked()) {
        Ok(answers) => {
            errors.set(vec![]);
            act(|c| c.surveyed(answers));
        }
        Err(e) => errors.set(e),
    };
    let message = move |id: String| move || errors.with(|es| es.iter().find(|e| e.id == id).map(|e| e.message.clone()));
    let title = if q.title.is_empty() { "A few questions".to_string() } else { q.title.clone() };
    let items = q
        .items
        .iter()
        .map(|it| {
            let id = it.id.clone();
            let msg = message(id.clone());
            let item_id = format!("item-{id}");
            view! {
                <fieldset class="survey-item" id=item_id>
                    <legend>{it.prompt.clone()}{it.required.then_some(" *")}</legend>
                    {field(it, entries)}
                    {move || msg().map(|m| view! { <p class="error" id=format!("q-{id}-error")>{m}</p> })}
                </fieldset>
            }
        })
        .collect_view();
    view! {
        <div class="panel survey">
            <h2>{title}</h2>
            <p class="small">"Questions marked * need an answer. Your answers are kept with your results."</p>
            <form on:submit=|ev| ev.prevent_default()>
                {items}
                {move || (!errors.with(Vec::is_empty)).then(|| view! {
                    <p class="error" role="alert" id="survey-error">"Please look at the questions marked in red."</p>
                })}
                <div class="actions">
                    <button type="submit" id="survey-submit" class="primary" on:click=submit>"Continue"</button>
                </div>
            </form>
        </div>
    }
}
