//! Routing and navigation. Routes live in the URL fragment so the app works on any static host
//! (GitHub Pages, JATOS, `python3 -m http.server`): `#/`, `#/gallery`, `#/results`, `#/compare`, a share
//! link `#r=1.<payload>` opens Results with the record it carries, and a comparison link `#c=1.<payload>`
//! opens the comparison page with the results it carries.

use leptos::prelude::*;
use wmlab_core::record::ResultRecord;
use wmlab_core::{TaskId, share};

use crate::components::chart::RecordCharts;
use crate::pages::compare::{Compare, CompareState};
use crate::pages::{
    dashboard::Dashboard, gallery::Gallery, home::Home, llm::Llm, networks::Networks, papers::Papers, results::Results,
    study::Study, take::Take,
};
use crate::platform::history;
use crate::platform::web;

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
    /// Networks: train and evaluate the WorM models in the tab.
    Networks,
    /// A share link: the fragment after `#`.
    Share(String),
    /// Compare results side by side.
    Compare,
    /// A comparison link: the fragment after `#`.
    CompareLink(String),
    /// Every figure and table of the source papers, published and reproduced.
    Papers,
    /// Researchers: many participants' results together, with exclusions.
    Dashboard,
}

impl Route {
    pub fn parse(hash: &str) -> Route {
        let h = hash.strip_prefix('#').unwrap_or(hash);
        if h.starts_with("r=") {
            return Route::Share(h.to_string());
        }
        if h.starts_with("c=") {
            return Route::CompareLink(h.to_string());
        }
        let path = h.trim_start_matches('/');
        let query = path.split_once('?').map(|(_, q)| q.to_string()).unwrap_or_default();
        match path.split(['?', '/']).next().unwrap_or("") {
            "gallery" => Route::Gallery,
            "results" => Route::Results,
            "study" => Route::Study,
            "take" => Route::Take(query),
            "llm" => Route::Llm,
            "networks" => Route::Networks,
            "compare" => Route::Compare,
            "papers" => Route::Papers,
            "dashboard" => Route::Dashboard,
            _ => Route::Home,
        }
    }
    /// The route of a page address: its fragment ([`Route::parse`]), or, when the fragment names no page
    /// and the query before the `#` names tasks (a platform that cannot keep a fragment in a study
    /// URL), the participant's page, which reads the study from that query.
    pub fn from_location(search: &str, hash: &str) -> Route {
        let route = Route::parse(hash);
        let names_tasks =
            search.trim_start_matches('?').split('&').any(|p| p.split('=').next().is_some_and(|k| k == "tasks"));
        if route == Route::Home && names_tasks && hash.trim_start_matches(['#', '/']).is_empty() {
            return Route::Take(String::new());
        }
        route
    }
    fn nav(&self) -> &'static str {
        match self {
            Route::Home => "home",
            Route::Gallery => "gallery",
            Route::Results | Route::Share(_) => "results",
            Route::Study | Route::Take(_) | Route::Dashboard => "people",
            Route::Llm => "llm",
            Route::Networks => "networks",
            Route::Compare | Route::CompareLink(_) => "compare",
            Route::Papers => "papers",
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
    /// The comparison page's choices (kept while moving between pages).
    pub compare: CompareState,
    /// Bumped whenever the results history changes; the last history storage error.
    pub history_rev: RwSignal<u32>,
    pub history_error: RwSignal<Option<String>>,
}

#[derive(Clone, Copy)]
pub struct GalleryState {
    pub task: RwSignal<TaskId>,
    /// Index into `TaskSpec::new(task).grid()`.
    pub cell: RwSignal<usize>,
    pub seed: RwSignal<u64>,
    pub step: RwSignal<usize>,
    /// Task parameters as typed (`KEY=VALUE; …`, the CLI's `--set` and a study link's `set`).
    pub params: RwSignal<String>,
}

impl AppState {
    /// Open a share link (a payload, fragment or whole URL). On failure the error is shown and the
    /// result shown before stays.
    pub fn open_link(&self, link: &str) {
        match share::decode(link) {
            Ok(r) => {
                history::add_later(r.clone());
                self.result.set(Some(r));
                self.error.set(None);
            }
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }
    pub fn open_json(&self, text: &str) {
        match ResultRecord::from_json(text) {
            Ok(r) => {
                history::add_later(r.clone());
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
            params: RwSignal::new(String::new()),
        },
        compare: CompareState::new(),
        history_rev: RwSignal::new(0),
        history_error: RwSignal::new(None),
    };
    history::install(state.history_rev, state.history_error);
    // The participant's end screen draws their results with the app's charts.
    provide_context(crate::pages::take::ResultsView(|r| view! { <RecordCharts record=r/> }.into_any()));
    provide_context(state);

    let route = RwSignal::new(Route::from_location(&web::search(), &web::hash()));
    if let Route::Share(link) = route.get_untracked() {
        state.open_link(&link);
    }
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        let r = Route::from_location(&web::search(), &web::hash());
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

    // A participant's page is the study and nothing else: no app navigation or footer to wander off by.
    let chrome = move || !route.with(|r| matches!(r, Route::Take(_)));
    view! {
        <Show when=chrome>
        <header class="top">
            <a class="brand" href="#/">"WM Lab"</a>
            <nav>
                {link("#/", "home", "Home")}
                {link("#/gallery", "gallery", "Gallery")}
                {link("#/study", "people", "People")}
                {link("#/llm", "llm", "LLMs")}
                {link("#/networks", "networks", "Networks")}
                {link("#/results", "results", "Results")}
                {link("#/compare", "compare", "Compare")}
                {link("#/papers", "papers", "Papers")}
            </nav>
        </header>
        </Show>
        <main id="page" data-route=move || route.with(|r| r.nav()) data-history=move || state.history_rev.get()>
            {move || match route.get() {
                Route::Home => view! { <Home/> }.into_any(),
                Route::Gallery => view! { <Gallery/> }.into_any(),
                Route::Results | Route::Share(_) => view! { <Results/> }.into_any(),
                Route::Study => view! { <Study/> }.into_any(),
                Route::Take(query) => view! { <Take query=query/> }.into_any(),
                Route::Llm => view! { <Llm/> }.into_any(),
                Route::Networks => view! { <Networks/> }.into_any(),
                Route::Compare => view! { <Compare link=None/> }.into_any(),
                Route::CompareLink(l) => view! { <Compare link=Some(l)/> }.into_any(),
                Route::Papers => view! { <Papers/> }.into_any(),
                Route::Dashboard => view! { <Dashboard/> }.into_any(),
            }}
        </main>
        <Show when=chrome>
        <footer class="foot">
            "WM Lab " {wmlab_core::VERSION} " · tasks from the WorM benchmark · everything runs in your browser"
        </footer>
        </Show>
    }
}
