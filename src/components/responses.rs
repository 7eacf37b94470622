//! Response controls for people: what the presenter awaits ([`Awaiting`], from the core), drawn as
//! buttons over or below the stimulus canvas. Click-to-answer areas sit over the canvas at the task's
//! areas in the 96-unit display space (positions in % of the canvas, so they follow any canvas size);
//! chosen items are marked at once (their order number for serial recall, a tick for free recall).
//! Clicks and taps both arrive as `click`; keys are mapped by the core (`Awaiting::key_input`).

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

/// Controls below the canvas (two-choice buttons; the count, Undo and Done of a recall; match).
pub fn below(a: &Awaiting, input: fn(Input)) -> AnyView {
    match a {
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
