//! The virtual chinrest screen (`chinrest=`, `visual_angle=`): the card matched on the screen, then
//! the blind spot found with a moving ball. The procedure and its arithmetic are the core's
//! (`people::chinrest::Chinrest`); this draws it, runs the ball on `requestAnimationFrame`, and hands
//! the result to the controller.
//!
//! Test support: the panel carries `data-step` (`card`, `blind`) and `data-rep`; the ball its offset
//! from the square in `data-offset` (CSS px), as drawn.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wmlab_core::people::chinrest::{
    BLIND_REPS, CARD_HEIGHT_MM, CARD_PX_RANGE, CARD_REPS, CARD_WIDTH_MM, Chinrest, ChinrestRetry, ChinrestStep,
};

use super::browser::window_size;
use super::ctl::act;
use crate::platform::web;

/// The square's centre, CSS px from the field's right edge.
const SQUARE_FROM_RIGHT: f64 = 60.0;
/// The field's height, CSS px.
const FIELD_H: f64 = 160.0;

/// Run `f(ts)` on each animation frame while it returns true.
fn animate(f: impl FnMut(f64) -> bool + 'static) {
    type Slot = Rc<RefCell<Option<Closure<dyn FnMut(f64)>>>>;
    let slot: Slot = Rc::new(RefCell::new(None));
    let again = slot.clone();
    let mut f = f;
    *slot.borrow_mut() = Some(Closure::new(move |ts: f64| {
        if f(ts) {
            if let Some(cb) = again.borrow().as_ref() {
                let _ = web::window().request_animation_frame(cb.as_ref().unchecked_ref());
            }
        } else {
            // Drop the closure after this call returns (it cannot drop itself while running).
            let done = again.clone();
            wasm_bindgen_futures::spawn_local(async move {
                done.borrow_mut().take();
            });
        }
    }));
    if let Some(cb) = slot.borrow().as_ref() {
        let _ = web::window().request_animation_frame(cb.as_ref().unchecked_ref());
    }
}

/// The chinrest: card (three times), then the blind spot (five runs); then the controller goes on.
pub fn chinrest() -> impl IntoView {
    let state = RwSignal::new(Chinrest::default());
    let note = RwSignal::new(None::<String>);
    let step = Memo::new(move |_| state.with(Chinrest::step));
    let max_card = (window_size().0 as f64 - 32.0).clamp(CARD_PX_RANGE.0, CARD_PX_RANGE.1);
    let width = RwSignal::new(Chinrest::card_start(0).min(max_card));
    // The blind spot: whether the ball is moving, and its offset left of the square's centre.
    let running = RwSignal::new(false);
    let offset = RwSignal::new(0.0f64);

    let finish = move || {
        if let Some(cal) = state.with_untracked(Chinrest::calibration) {
            act(|c| c.calibrated(cal));
        }
    };
    let card_ok = move |_| {
        let w = width.get_untracked();
        let res = state.try_update(|s| s.card(w));
        match res {
            Some(Ok(())) => {
                note.set(None);
                if let ChinrestStep::Card(rep) = state.with_untracked(Chinrest::step) {
                    width.set(Chinrest::card_start(rep).min(max_card));
                }
            }
            Some(Err(e)) => note.set(Some(e.to_string())),
            None => {}
        }
    };
    let nudge = move |d: f64| width.update(|w| *w = (*w + d).clamp(CARD_PX_RANGE.0, max_card));
    let press = move || {
        if !running.get_untracked() {
            return;
        }
        running.set(false);
        let at = offset.get_untracked();
        match state.try_update(|s| s.press(at)) {
            Some(Ok(())) => {
                note.set(None);
                if state.with_untracked(Chinrest::step) == ChinrestStep::Done {
                    finish();
                }
            }
            Some(Err(e)) => note.set(Some(e.to_string())),
            None => {}
        }
    };
    let go = move |ev: leptos::ev::MouseEvent| {
        // Away from the button, so that the space bar that stops the ball does not press it again.
        if let Some(b) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = b.blur();
        }
        if running.get_untracked() {
            return;
        }
        note.set(None);
        offset.set(state.with_untracked(|s| s.ball_offset(0.0)));
        running.set(true);
        // The field spans the panel; the ball goes out to its left edge.
        let field_w = web::window()
            .document()
            .and_then(|d| d.get_element_by_id("chinrest-field"))
            .map(|e| e.client_width() as f64)
            .unwrap_or(0.0);
        let start = Rc::new(RefCell::new(None::<f64>));
        animate(move |ts| {
            if running.try_get_untracked() != Some(true) {
                return false;
            }
            let t0 = *start.borrow_mut().get_or_insert(ts);
            let off = state.with_untracked(|s| s.ball_offset(ts - t0));
            if off > field_w - SQUARE_FROM_RIGHT - 10.0 {
                running.set(false);
                note.set(Some(ChinrestRetry::NoPress.to_string()));
                return false;
            }
            offset.set(off);
            true
        });
    };
    let keys = window_event_listener(leptos::ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.key() == " " && !ev.repeat() && running.get_untracked() {
            ev.prevent_default();
            press();
        }
    });
    on_cleanup(move || {
        keys.remove();
        let _ = running.try_set(false);
    });

    let card_view = move |rep: usize| {
        view! {
            <h2>"Measure your screen (part 1 of 2)"</h2>
            <p>"The tasks are drawn at a fixed size on your screen. Hold a bank card (or any card of that size: a
                driving licence, an ID or library card) flat against the screen over the picture below, and move
                the slider until the picture is exactly as wide as your card."</p>
            <p class="small">{format!("Match {} of {CARD_REPS}. The slider starts somewhere new each time.", rep + 1)}</p>
            <div class="chinrest-card" id="chinrest-card"
                style=move || format!("width:{:.1}px;height:{:.1}px", width.get(), width.get() * CARD_HEIGHT_MM / CARD_WIDTH_MM)></div>
            <div class="chinrest-slider">
                <button id="chinrest-smaller" aria-label="smaller" on:click=move |_| nudge(-1.0)>"−"</button>
                <input id="chinrest-slider" type="range" aria-label="picture width"
                    min=CARD_PX_RANGE.0 max=max_card step="0.5"
                    prop:value=move || width.get().to_string()
                    on:input=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                            width.set(v);
                        }
                    }/>
                <button id="chinrest-larger" aria-label="larger" on:click=move |_| nudge(1.0)>"+"</button>
            </div>
            <div class="actions">
                <button id="chinrest-card-ok" class="primary" on:click=card_ok>"The picture matches my card"</button>
            </div>
        }
    };
    let blind_view = move |rep: usize| {
        view! {
            <h2>"Measure how far you sit (part 2 of 2)"</h2>
            <p>"Sit as you will for the tasks. Cover your "<strong>"right"</strong>" eye with your hand and look
                only at the black square with your left eye. Press “Start”: a red ball moves to the left. Keep
                looking at the square, and press the "<strong>"space bar"</strong>" (or tap the grey field) the
                moment the ball disappears."</p>
            <p class="small">{format!("Run {} of {BLIND_REPS}.", rep + 1)}</p>
            <div class="chinrest-field" id="chinrest-field" on:pointerdown=move |_| press()
                style=format!("height:{FIELD_H:.0}px")>
                <div class="chinrest-square" style=format!("right:{:.1}px", SQUARE_FROM_RIGHT - 15.0)></div>
                <div class="chinrest-ball" id="chinrest-ball" class:hidden=move || !running.get()
                    data-offset=move || format!("{:.2}", offset.get())
                    style=move || format!("right:{:.1}px", SQUARE_FROM_RIGHT + offset.get() - 15.0)></div>
            </div>
            <div class="actions">
                <button id="chinrest-go" class="primary" disabled=move || running.get() on:click=go>"Start"</button>
            </div>
        }
    };

    view! {
        <div class="panel chinrest"
            data-step=move || match step.get() { ChinrestStep::Card(_) => "card", ChinrestStep::BlindSpot(_) => "blind", ChinrestStep::Done => "done" }
            data-rep=move || match step.get() { ChinrestStep::Card(r) | ChinrestStep::BlindSpot(r) => r.to_string(), ChinrestStep::Done => String::new() }>
            {move || note.get().map(|n| view! { <p class="notice" role="alert" id="chinrest-note">{n}</p> })}
            {move || match step.get() {
                ChinrestStep::Card(rep) => card_view(rep).into_any(),
                ChinrestStep::BlindSpot(rep) => blind_view(rep).into_any(),
                ChinrestStep::Done => view! { <p class="small">"Thank you."</p> }.into_any(),
            }}
        </div>
    }
}
