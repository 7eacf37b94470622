//! Language models (in progress).

use leptos::prelude::*;

#[component]
pub fn Llm() -> impl IntoView {
    
    view! {
        <section id="llm">
            <h1>"Language models"</h1>
            <p>"This page is being built."</p>
        </section>
    }
}
