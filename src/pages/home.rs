//! What WM Lab is, and the ways in.

use leptos::prelude::*;

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <section class="home" id="home">
            <h1>"WM Lab"</h1>
            <p class="lead">
                "People, language models and neural networks take the same working-memory tests, "
                "are scored the same way, and are plotted against the published numbers."
            </p>
            <p>
                "The tests are the 14 tasks of the WorM benchmark: spatial and visual memory, change "
                "detection, serial recall, updating and complex span. Every trial is generated from a seed, "
                "so any result can be reproduced exactly."
            </p>
            <div class="cards">
                <div class="card soon">
                    <h2>"People"</h2>
                    <p>"Take the tasks yourself, or run a study with participants."</p>
                    <span class="badge">"coming soon"</span>
                </div>
                <div class="card soon">
                    <h2>"LLMs"</h2>
                    <p>"Give a language model the same trials, as text or images."</p>
                    <span class="badge">"coming soon"</span>
                </div>
                <div class="card soon">
                    <h2>"Networks"</h2>
                    <p>"Train recurrent networks and transformers in the browser."</p>
                    <span class="badge">"coming soon"</span>
                </div>
            </div>
            <div class="cards">
                <a class="card go" href="#/gallery" id="card-gallery">
                    <h2>"Task gallery"</h2>
                    <p>"Step through a trial of any task, frame by frame, with the correct answers and what a network sees."</p>
                </a>
                <a class="card go" href="#/results" id="card-results">
                    <h2>"Results"</h2>
                    <p>"Open a shared result link or an exported file; download it as JSON or CSV."</p>
                </a>
            </div>
        </section>
    }
}
