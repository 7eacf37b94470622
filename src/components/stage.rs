//! Canvas components: the big stimulus stage and the 32×32 network view. Each repaints when its frame
//! changes and then writes `data-drawn=<key>` on the canvas (an explicit signal for tests).

use leptos::html::Canvas;
use leptos::prelude::*;
use wmlab_core::display::Frame;

use super::{network_view::paint_tensor, painter::paint};

#[component]
pub fn Stage(
    #[prop(into)] frame: Signal<Frame>,
    /// Identifies what is drawn; written to `data-drawn` after painting.
    #[prop(into)]
    key: Signal<String>,
    #[prop(default = 480.0)] size: f64,
    #[prop(default = "stage")] id: &'static str,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let f = frame.get();
        let k = key.get();
        if let Some(c) = canvas.get() {
            paint(&c, &f, size);
            let _ = c.set_attribute("data-drawn", &k);
        }
    });
    view! {
        <canvas node_ref=canvas id=id class="stage" width=size height=size
            role="img" aria-label="the trial's current frame"></canvas>
    }
}

#[component]
pub fn NetworkView(
    #[prop(into)] frame: Signal<Frame>,
    #[prop(into)] key: Signal<String>,
    #[prop(default = "netview")] id: &'static str,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let f = frame.get();
        let k = key.get();
        if let Some(c) = canvas.get() {
            paint_tensor(&c, &f);
            let _ = c.set_attribute("data-drawn", &k);
        }
    });
    view! {
        <canvas node_ref=canvas id=id class="netview" width="32" height="32"
            role="img" aria-label="what a network sees: 32 by 32 pixels"></canvas>
    }
}
