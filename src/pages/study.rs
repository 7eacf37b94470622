//! People: build a study link (in progress).

use leptos::prelude::*;

#[component]
pub fn Study() -> impl IntoView {
    
    view! {
        <section id="study">
            <h1>"People: build a study link"</h1>
            <p>"This page is being built."</p>
        </section>
    }
}
