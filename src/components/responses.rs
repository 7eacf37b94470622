//! Response controls for people: what a step awaits, drawn as buttons over or below the stimulus
//! canvas. Option and cell buttons sit over the canvas at the option's place in the 96-unit display
//! space (positions in % of the canvas, so they follow any canvas size). Clicks and taps both arrive as
//! `click`; keys (F / J, space) are handled by the page.

use leptos::prelude::*;

/// What the current step awaits.
#[derive(Clone, Debug, PartialEq)]
pub enum Awaiting {
    /// Two alternatives (keys F and J, or the two buttons `btn-0` / `btn-1`).
    Binary { labels: [String; 2] },
    /// One of the options, each a box `(x, y, w, h)` in display units; buttons `opt-<i>`.
    Options { boxes: Vec<(f32, f32, f32, f32)> },
    /// Cells of a `grid` × `grid` board (SFR): buttons `cell-<i>`, then `confirm`.
    Cells { grid: u16, origin: f32, cell: f32, picks: u16 },
    /// N-back: "match" (space or button `match`); `nomatch` too in the test-speed mode.
    Match { pressed: bool, fast: bool },
}

impl Awaiting {
    pub fn kind(&self) -> &'static str {
        match self {
            Awaiting::Binary { .. } => "binary",
            Awaiting::Options { .. } => "choice",
            Awaiting::Cells { .. } => "cells",
            Awaiting::Match { .. } => "match",
        }
    }
}

fn pct(u: f32) -> String {
    format!("{:.4}%", u as f64 / 96.0 * 100.0)
}

fn placed(x: f32, y: f32, w: f32, h: f32) -> String {
    format!("left:{};top:{};width:{};height:{}", pct(x), pct(y), pct(w), pct(h))
}

/// Buttons laid over the canvas (options, cells).
pub fn overlay(a: &Awaiting, sel: RwSignal<Vec<u16>>, on_index: fn(u16)) -> AnyView {
    match a {
        Awaiting::Options { boxes } => boxes
            .iter()
            .enumerate()
            .map(|(i, &(x, y, w, h))| {
                view! {
                    <button class="opt" id=format!("opt-{i}") style=placed(x, y, w, h)
                        aria-label=format!("option {}", i + 1)
                        on:click=move |_| on_index(i as u16)></button>
                }
            })
            .collect_view()
            .into_any(),
        &Awaiting::Cells { grid, origin, cell, .. } => (0..grid * grid)
            .map(|i| {
                let (x, y) = (origin + cell * (i % grid) as f32, origin + cell * (i / grid) as f32);
                view! {
                    <button class="cell" id=format!("cell-{i}") style=placed(x, y, cell, cell)
                        class:selected=move || sel.with(|s| s.contains(&i))
                        aria-label=format!("square {}", i + 1)
                        on:click=move |_| on_index(i)></button>
                }
            })
            .collect_view()
            .into_any(),
        _ => ().into_any(),
    }
}

/// Controls below the canvas (two-choice buttons, confirm, match).
pub fn below(a: &Awaiting, sel: RwSignal<Vec<u16>>, on_index: fn(u16), on_confirm: fn()) -> AnyView {
    match a {
        Awaiting::Binary { labels } => {
            let [l0, l1] = labels.clone();
            view! {
                <div class="answer-row">
                    <button id="btn-0" class="answer" on:click=move |_| on_index(0)><kbd>"F"</kbd> " " {l0}</button>
                    <button id="btn-1" class="answer" on:click=move |_| on_index(1)><kbd>"J"</kbd> " " {l1}</button>
                </div>
            }
            .into_any()
        }
        &Awaiting::Cells { picks, .. } => view! {
            <div class="answer-row">
                <span class="small" id="cells-chosen">{move || format!("{} of {picks} chosen", sel.with(|s| s.len()))}</span>
                <button id="confirm" class="answer" disabled=move || sel.with(|s| s.is_empty()) on:click=move |_| on_confirm()>"Done"</button>
            </div>
        }
        .into_any(),
        &Awaiting::Match { pressed, fast } => view! {
            <div class="answer-row">
                <button id="match" class="answer" class:pressed=pressed on:click=move |_| on_index(1)><kbd>"Space"</kbd> " match"</button>
                {fast.then(|| view! { <button id="nomatch" class="answer" on:click=move |_| on_index(0)>"no match (test mode)"</button> })}
            </div>
        }
        .into_any(),
        Awaiting::Options { .. } => view! { <p class="small answer-row">"Click or tap your answer in the picture."</p> }.into_any(),
    }
}
