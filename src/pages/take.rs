//! Take a study (in progress).

use leptos::prelude::*;

#[component]
pub fn Take(query: String) -> impl IntoView {
    let _ = query;
    view! {
        <section id="take">
            <h1>"Take a study"</h1>
            <p>"This page is being built."</p>
        </section>
    }
}
