//! Response controls for people: what the presenter awaits ([`Awaiting`], from the core), drawn as
//! buttons over or below the stimulus canvas. Click-to-answer areas sit over the canvas at the task's
//! areas in the 96-unit display space (positions in % of the canvas, so they follow any canvas size);
//! chosen items are marked at once (their order number for serial recall, a tick for free recall).
//! Clicks and taps both arrive as `click`; keys are mapped by the core (`Awaiting::key_input`).
//! Typed answers (PI-LLM) are a form of plain text fields, one per key, in place of the stimulus: Enter
//! moves to the next field, and in the last one (or "Done") commits every value at once.

use leptos::prelude::*;
use wmlab_core::display::Area;
use wmlab_core::people::presenter::{Awaiting, Input};

fn pct(u: f32) -> String {
    format!("{:.4}%", u as f64 / 96.0 * 100.0)
}

fn placed(a: &Area) -> String {
    format!("left:{};top:{};width:{};height:{}", pct(a.x), pct(a.y), pct(a.w), pct(a.h))
}

/// Buttons laid over the canvas (click-to-answer areas), with the marks of the chosen ones.
pub fn overlay(a: &Awaiting, input: fn(Input)) -> AnyView {
    let (areas, prefix, ordered) = match a {
        Awaiting::Choice { areas } => (areas, "opt", false),
        Awaiting::Order { areas, .. } => (areas, "opt", true),
        Awaiting::Cells { areas, .. } => (areas, "cell", false),
        _ => return ().into_any(),
    };
    let chosen = a.chosen().to_vec();
    areas
        .iter()
        .enumerate()
        .map(|(i, area)| {
            let rank = chosen.iter().position(|&c| c as usize == i);
            let mark = rank.map(|r| if ordered { (r + 1).to_string() } else { "✓".to_string() });
            let label = match (prefix, rank) {
                ("cell", Some(_)) => format!("square {} (chosen)", i + 1),
                ("cell", None) => format!("square {}", i + 1),
                (_, Some(r)) => format!("option {} (chosen {})", i + 1, r + 1),
                (_, None) => format!("option {}", i + 1),
            };
            view! {
                <button class=prefix id=format!("{prefix}-{i}") style=placed(area)
                    class:selected=rank.is_some() aria-label=label
                    on:click=move |_| input(Input::Pick(i as u16))>
                    {mark.map(|m| view! { <span class="mark">{m}</span> })}
                </button>
            }
        })
        .collect_view()
        .into_any()
}

/// The typed answer (PI-LLM): a text field per key, labelled with it (no autocomplete, autocorrect or
/// capitals: the value is typed as remembered); the first has the focus; Enter goes to the next field;
/// Enter in the last one or "Done" sends every value, empty ones included (a key not remembered).
fn typed_form(keys: &[String], input: fn(Input)) -> AnyView {
    let refs: Vec<NodeRef<leptos::html::Input>> = keys.iter().map(|_| NodeRef::new()).collect();
    let n = keys.len();
    let values = refs.clone();
    let send = move || {
        input(Input::Typed(values.iter().map(|r| r.get_untracked().map(|e| e.value()).unwrap_or_default()).collect()))
    };
    // Safari's `autocorrect` is no attribute the view knows: set on each field once drawn; the first
    // takes the focus.
    let drawn = refs.clone();
    Effect::new(move |_| {
        for (i, r) in drawn.iter().enumerate() {
            if let Some(el) = r.get() {
                let _ = el.set_attribute("autocorrect", "off");
                if i == 0 {
                    let _ = el.focus();
                }
            }
        }
    });
    let fields = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let next = refs.get(i + 1).copied();
            let on_key = move |ev: web_sys::KeyboardEvent| {
                if ev.key() == "Enter"
                    && !ev.is_composing()
                    && let Some(el) = next.and_then(|r| r.get_untracked())
                {
                    ev.prevent_default();
                    let _ = el.focus();
                }
            };
            view! {
                <label class="typed-field" for=format!("typed-{i}")>
                    <span class="typed-key">{k.clone()}</span>
                    <input type="text" id=format!("typed-{i}") class="typed" node_ref=refs[i]
                        autocomplete="off" autocapitalize="off" spellcheck="false"
                        maxlength="60" enterkeyhint=if i + 1 < n { "next" } else { "done" } on:keydown=on_key/>
                </label>
            }
        })
        .collect_view();
    view! {
        <form class="typed-form" id="typed-form" on:submit=move |ev| { ev.prevent_default(); send(); }>
            <p class="answer-hint">"Type the last word you saw for each category."</p>
            {fields}
            <div class="answer-row">
                <button type="submit" id="typed-done" class="answer primary"><kbd>"Enter"</kbd> " Done"</button>
            </div>
        </form>
    }
    .into_any()
}

/// Controls below the canvas (two-choice buttons; the count, Undo and Done of a recall; match; the typed
/// answer's fields).
pub fn below(a: &Awaiting, input: fn(Input)) -> AnyView {
    match a {
        Awaiting::Typed { keys } => typed_form(keys, input),
        Awaiting::Binary { labels } => {
            let [l0, l1] = labels.clone();
            view! {
                <div class="answer-row">
                    <button id="btn-0" class="answer" on:click=move |_| input(Input::Class(0))><kbd>"F"</kbd> " " {l0}</button>
                    <button id="btn-1" class="answer" on:click=move |_| input(Input::Class(1))><kbd>"J"</kbd> " " {l1}</button>
                </div>
            }
            .into_any()
        }
        Awaiting::Order { need, chosen, .. } | Awaiting::Cells { need, chosen, .. } => {
            let (n, need, complete) = (chosen.len(), *need, a.complete());
            let what = if matches!(a, Awaiting::Order { .. }) {
                "Click the places in the order the items were shown."
            } else {
                "Click every square that was shown."
            };
            view! {
                <p class="small answer-hint">{what}</p>
                <div class="answer-row">
                    <span class="small" id="chosen-count">{format!("{n} of {need} chosen")}</span>
                    <button id="undo" class="answer" disabled={n == 0} on:click=move |_| input(Input::Undo)><kbd>"⌫"</kbd> " Undo"</button>
                    <button id="confirm" class="answer primary" disabled={!complete} on:click=move |_| input(Input::Confirm)><kbd>"Enter"</kbd> " Done"</button>
                </div>
            }
            .into_any()
        }
        &Awaiting::Match { pressed, fast } => view! {
            <div class="answer-row">
                <button id="match" class="answer" class:pressed=pressed on:click=move |_| input(Input::Class(1))><kbd>"Space"</kbd> " match"</button>
                {fast.then(|| view! { <button id="nomatch" class="answer" on:click=move |_| input(Input::Class(0))>"no match (test mode)"</button> })}
            </div>
        }
        .into_any(),
        Awaiting::Choice { .. } => view! { <p class="small answer-row">"Click or tap your answer in the picture."</p> }.into_any(),
    }
}
