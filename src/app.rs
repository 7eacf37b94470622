//! Routing and navigation. Routes live in the URL fragment so the app works on any static host
//! (GitHub Pages, JATOS, `python3 -m http.server`): `#/`, `#/gallery`, `#/results`, and a share link
//! `#r=1.<payload>` opens Results with the record it carries.

use leptos::prelude::*;
use wmlab_core::record::ResultRecord;
use wmlab_core::{share, TaskId};

use crate::pages::{gallery::Gallery, home::Home, llm::Llm, results::Results, study::Study, take::Take};
use crate::web;

#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    Home,
    Gallery,
    Results,
    /// Researchers: build a study link.
    Study,
    /// Participants: take a study; the text after `#/take?` is the study's query.
    Take(String),
    /// Language models: run the text suites against a provider.
    Llm,
    /// A share link: the fragment after `#`.
    Share(String),
}

impl Route {
    pub fn parse(hash: &str) -> Route {
        let h = hash.strip_prefix('#').unwrap_or(hash);
        if h.starts_with("r=") {
            return Route::Share(h.to_string());
        }
        let path = h.trim_start_matches('/');
        let query = path.split_once('?').map(|(_, q)| q.to_string()).unwrap_or_default();
        match path.split(['?', '/']).next().unwrap_or("") {
            "gallery" => Route::Gallery,
            "results" => Route::Results,
            "study" => Route::Study,
            "take" => Route::Take(query),
            "llm" => Route::Llm,
            _ => Route::Home,
        }
    }
    fn nav(&self) -> &'static str {
        match self {
            Route::Home => "home",
            Route::Gallery => "gallery",
            Route::Results | Route::Share(_) => "results",
            Route::Study | Route::Take(_) => "people",
            Route::Llm => "llm",
        }
    }
}

/// State that outlives a page: the open result and the gallery's choices.
#[derive(Clone, Copy)]
pub struct AppState {
    pub result: RwSignal<Option<ResultRecord>>,
    /// A plain-words error from the last link or file that could not be opened.
    pub error: RwSignal<Option<String>>,
    pub gallery: GalleryState,
}

#[derive(Clone, Copy)]
pub struct GalleryState {
    pub task: RwSignal<TaskId>,
    /// Index into `TaskSpec::new(task).grid()`.
    pub cell: RwSignal<usize>,
    pub seed: RwSignal<u64>,
    pub step: RwSignal<usize>,
}

impl AppState {
    /// Open a share link (a payload, fragment or whole URL). On failure the error is shown and the
    /// result shown before stays.
    pub fn open_link(&self, link: &str) {
        match share::decode(link) {
            Ok(r) => {
                self.result.set(Some(r));
                self.error.set(None);
            }
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }
    pub fn open_json(&self, text: &str) {
        match ResultRecord::from_json(text) {
            Ok(r) => {
                self.result.set(Some(r));
                self.error.set(None);
            }
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }
}

#[component]
pub fn App() -> impl IntoView {
    let state = AppState {
        result: RwSignal::new(None),
        error: RwSignal::new(None),
        gallery: GalleryState {
            task: RwSignal::new(TaskId::Vir),
            cell: RwSignal::new(0),
            seed: RwSignal::new(1),
            step: RwSignal::new(0),
        },
    };
    provide_context(state);

    let route = RwSignal::new(Route::parse(&web::hash()));
    if let Route::Share(link) = route.get_untracked() {
        state.open_link(&link);
    }
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        let r = Route::parse(&web::hash());
        if let Route::Share(link) = &r {
            state.open_link(link);
        }
        route.set(r);
        web::window().scroll_to_with_x_and_y(0.0, 0.0);
    });
    on_cleanup(move || handle.remove());

    let link = move |href: &'static str, name: &'static str, label: &'static str| {
        view! {
            <a href=href id=format!("nav-{name}") class:active=move || route.with(|r| r.nav() == name)>
                {label}
            </a>
        }
    };

    view! {
        <header class="top">
            <a class="brand" href="#/">"WM Lab"</a>
            <nav>
                {link("#/", "home", "Home")}
                {link("#/gallery", "gallery", "Gallery")}
                {link("#/study", "people", "People")}
                {link("#/llm", "llm", "LLMs")}
                {link("#/results", "results", "Results")}
            </nav>
        </header>
        <main id="page" data-route=move || route.with(|r| r.nav())>
            {move || match route.get() {
                Route::Home => view! { <Home/> }.into_any(),
                Route::Gallery => view! { <Gallery/> }.into_any(),
                Route::Results | Route::Share(_) => view! { <Results/> }.into_any(),
                Route::Study => view! { <Study/> }.into_any(),
                Route::Take(query) => view! { <Take query=query/> }.into_any(),
                Route::Llm => view! { <Llm/> }.into_any(),
            }}
        </main>
        <footer class="foot">
            "WM Lab " {wmlab_core::VERSION} " · tasks from the WorM benchmark · everything runs in your browser"
        </footer>
    }
}
