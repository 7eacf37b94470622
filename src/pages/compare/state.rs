//! What the Compare page holds: the chosen results (kept in the app state, so they survive a visit to
//! another page) and the page's own messages, with the ways a result gets chosen — from the history, a
//! file, a share link or a comparison link — as methods of one `Copy` value.

use leptos::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wmlab_core::TaskId;
use wmlab_core::compare::{Compared, common_task, content_id};
use wmlab_core::people::StudyTask;
use wmlab_core::people::reference::has_human_reference;
use wmlab_core::record::ResultRecord;
use wmlab_core::share;

use crate::platform::history;

/// Whether a task has published numbers to draw: the WorM human curves, or the N-back and PI-LLM papers'
/// LLM results.
pub fn has_published(t: StudyTask) -> bool {
    has_human_reference(t) || t.nback().is_some() || t == StudyTask::Pi
}

pub fn task_names(tasks: &[StudyTask]) -> String {
    tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
}

/// One chosen result.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    /// Content id (the history's id for the same result).
    pub id: String,
    /// Where it came from: `history`, a file name, `link`.
    pub source: String,
    pub item: Compared,
}

/// The page's choices, kept in the app state so they survive a visit to another page.
#[derive(Clone, Copy)]
pub struct CompareState {
    pub chosen: RwSignal<Vec<Chosen>>,
    pub task: RwSignal<Option<StudyTask>>,
    pub human: RwSignal<bool>,
    pub chance: RwSignal<bool>,
    pub published: RwSignal<bool>,
    /// One plot per run (WorM Figs. A2, A7–A12) instead of every run on one plot.
    pub per_run: RwSignal<bool>,
    /// Every curve of a panel on one plot, told apart by marker shape, instead of the default small
    /// multiples (a summary and one plot per condition level).
    pub overlay: RwSignal<bool>,
}

impl CompareState {
    pub fn new() -> Self {
        CompareState {
            chosen: RwSignal::new(Vec::new()),
            // Nothing chosen yet: the published numbers of VSR are drawn from the start.
            task: RwSignal::new(Some(StudyTask::Worm(TaskId::Vsr))),
            human: RwSignal::new(true),
            chance: RwSignal::new(false),
            published: RwSignal::new(true),
            per_run: RwSignal::new(false),
            overlay: RwSignal::new(false),
        }
    }
    pub fn items(&self) -> Vec<Compared> {
        self.chosen.with(|c| c.iter().map(|x| x.item.clone()).collect())
    }
    /// Keep the task if some chosen result has it, else the one most of them share; with nothing chosen,
    /// any task with published numbers (VSR unless one is chosen), so the page is never empty.
    fn fix_task(&self) {
        let items = self.items();
        let t = self.task.get_untracked();
        if items.is_empty() {
            if !t.is_some_and(has_published) {
                self.task.set(Some(StudyTask::Worm(TaskId::Vsr)));
            }
            return;
        }
        let ok = t.is_some_and(|t| items.iter().any(|c| c.tasks().contains(&t)));
        if !ok {
            self.task.set(common_task(&items));
        }
    }
    /// Add one result (from `source`: `history`, a file name, `link`, `LLM page`); refuses a result with
    /// nothing to draw. Returns a note about it, if any.
    pub fn add(&self, item: Compared, source: String) -> Result<Option<String>, String> {
        let label = item.record.subject.label();
        let tasks = item.tasks();
        if tasks.is_empty() {
            return Err(format!(
                "“{label}” ({}) has no trial rows of a task this page can draw (a WorM task or N-back), so it was not added.",
                item.record.task
            ));
        }
        let id = content_id(&item.record);
        if self.chosen.with_untracked(|c| c.iter().any(|x| x.id == id)) {
            return Ok(Some(format!("“{label}” is already chosen.")));
        }
        self.chosen.update(|c| c.push(Chosen { id, source, item }));
        self.fix_task();
        let t = self.task.get_untracked();
        Ok(t.filter(|t| !tasks.contains(t)).map(|t| {
            format!("“{label}” has no rows of {t}: it is listed but not drawn. It has {}.", task_names(&tasks))
        }))
    }

    pub fn remove(&self, id: &str) {
        self.chosen.update(|c| c.retain(|x| x.id != id));
        self.fix_task();
    }
}

impl Default for CompareState {
    fn default() -> Self {
        Self::new()
    }
}

/// The page: the choices and its messages.
#[derive(Clone, Copy)]
pub struct Page {
    pub st: CompareState,
    pub error: RwSignal<Option<String>>,
    pub notice: RwSignal<Option<String>>,
    /// Files or history entries being read.
    pub loading: RwSignal<u32>,
}

impl Page {
    pub fn new(st: CompareState) -> Page {
        Page { st, error: RwSignal::new(None), notice: RwSignal::new(None), loading: RwSignal::new(0) }
    }

    /// Add one result; refuses results with nothing to draw. Returns a note about it, if any.
    fn add(self, item: Compared, source: String) -> Result<Option<String>, String> {
        self.st.add(item, source)
    }

    /// A comparison link: replace (opened as a page) or add to (pasted) the current choice.
    pub fn apply_comparison(self, text: &str, replace: bool) {
        let st = self.st;
        match share::decode_comparison(text) {
            Ok(c) => {
                let items: Vec<Chosen> = c
                    .results
                    .iter()
                    .map(|r| Chosen { id: content_id(&r.record), source: "link".into(), item: r.clone() })
                    .collect();
                if replace {
                    st.chosen.set(items);
                } else {
                    st.chosen.update(|v| {
                        for i in items {
                            if !v.iter().any(|x| x.id == i.id) {
                                v.push(i);
                            }
                        }
                    });
                }
                st.task.set(Some(c.task));
                st.human.set(c.human);
                st.chance.set(c.chance);
                st.published.set(c.published);
                st.per_run.set(c.per_run);
                st.overlay.set(c.overlay);
                self.error.set(None);
                self.notice.set((!c.has_rows()).then(|| {
                    "This comparison link carries summaries and curves only (the full results were too long for a link); the plots and scores are the same.".to_string()
                }));
            }
            Err(e) => self.error.set(Some(format!("The comparison link could not be opened: {e}"))),
        }
    }

    /// A pasted share link or comparison link; `true` when it was taken (the box can be cleared).
    pub fn add_pasted(self, text: &str) -> bool {
        let text = text.trim();
        if text.is_empty() {
            self.error.set(Some("Paste a share link (with #r=…) or a comparison link (with #c=…) first.".into()));
            return false;
        }
        if share::is_comparison_link(text) {
            self.apply_comparison(text, false);
            return self.error.get_untracked().is_none();
        }
        match share::decode(text) {
            Ok(r) => match self.add(Compared::new(r), "link".into()) {
                Ok(n) => {
                    self.error.set(None);
                    self.notice.set(n);
                    true
                }
                Err(e) => {
                    self.error.set(Some(e));
                    false
                }
            },
            Err(e) => {
                self.error.set(Some(format!("The link could not be opened: {e}")));
                false
            }
        }
    }

    /// JSON result files; each that does not read says why, the others are added.
    pub fn add_files(self, files: Vec<web_sys::File>) {
        self.loading.update(|n| *n += 1);
        wasm_bindgen_futures::spawn_local(async move {
            let mut errors = Vec::new();
            let mut notes = Vec::new();
            for f in files {
                let name = f.name();
                if f.size() > 64.0 * 1024.0 * 1024.0 {
                    errors.push(format!("“{name}” is too large to be a WM Lab result (more than 64 MB)."));
                    continue;
                }
                let text = match JsFuture::from(f.text()).await {
                    Ok(v) => v.as_string().unwrap_or_default(),
                    Err(_) => {
                        errors.push(format!("“{name}” could not be read."));
                        continue;
                    }
                };
                match ResultRecord::from_json(&text) {
                    Ok(r) => match self.add(Compared::new(r), name.clone()) {
                        Ok(Some(n)) => notes.push(n),
                        Ok(None) => {}
                        Err(e) => errors.push(format!("“{name}”: {e}")),
                    },
                    Err(e) => errors.push(format!("“{name}”: {e}")),
                }
            }
            let _ = self.error.try_set((!errors.is_empty()).then(|| errors.join(" ")));
            let _ = self.notice.try_set((!notes.is_empty()).then(|| notes.join(" ")));
            let _ = self.loading.try_update(|n| *n -= 1);
        });
    }

    /// Tick or untick a history entry.
    pub fn toggle_history(self, id: String, on: bool) {
        if !on {
            return self.st.remove(&id);
        }
        self.loading.update(|n| *n += 1);
        wasm_bindgen_futures::spawn_local(async move {
            match history::load(&id).await {
                Ok(r) => match self.add(Compared::new(r), "history".into()) {
                    Ok(n) => {
                        let _ = self.error.try_set(None);
                        let _ = self.notice.try_set(n);
                    }
                    Err(e) => {
                        let _ = self.error.try_set(Some(e));
                    }
                },
                Err(e) => {
                    let _ = self.error.try_set(Some(format!("This result could not be read from the history: {e}")));
                }
            }
            let _ = self.loading.try_update(|n| *n -= 1);
        });
    }
}
