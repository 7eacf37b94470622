//! What WM Lab is, and the ways in.

use leptos::prelude::*;

/// The People card's one-click first result: one trial per list length (2–9) of VSR, the paper's human
/// timings, results shown at the end (and kept in this browser's Results history).
const TRY_LINK: &str = "#/take?tasks=VSR&tpc=1&practice=0&results=1";

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
            <div class="cards" id="home-ways">
                <a class="card go" href=TRY_LINK id="card-people">
                    <h2>"People"</h2>
                    <p>"Take a task yourself: eight Visual Serial Recall trials at the paper's timings, about \
                        three minutes, then your curve beside the published human one."</p>
                </a>
                <a class="card go" href="#/llm" id="card-llm">
                    <h2>"LLMs"</h2>
                    <p>"Give a language model the N-back, Little Retrieval Test and Minerva suites, or the WorM \
                        frames: with your own API key (it goes to the provider only) or a local server."</p>
                </a>
                <a class="card go" href="#/networks" id="card-networks">
                    <h2>"Networks"</h2>
                    <p>"Load a pretrained WorM model and evaluate it (a result in about a minute), or train one in \
                        this tab: the quick preset is above chance on 8 of 14 task ids after about 1,200 of its 10,000 \
                        steps (minutes on a CPU; pause there and evaluate), 4 of them beyond what the current frame alone \
                        gives."</p>
                </a>
                <a class="card go" href="#/compare" id="card-compare">
                    <h2>"Compare"</h2>
                    <p>"People, language models and networks on the same axes, with the published numbers; \
                        share the comparison as a link."</p>
                </a>
            </div>
            <p class="small">"Running a study? " <a href="#/study" id="home-study">"Build a study link"</a>
                " for participants (tasks, trials per condition, order, timings; results to a file or your server)."</p>
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
