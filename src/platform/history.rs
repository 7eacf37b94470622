//! The results history of this browser, in IndexedDB (`idb.rs`): every finished participant session,
//! finished LLM run, evaluated network and every result opened in Results from a file or a share link.
//!
//! Each entry is two keys: `history/meta/<id>` (a small JSON [`Entry`]: subject, kind, task, times) for
//! listing without reading every record, and `history/rec/<id>` (the record's JSON). The id is the
//! record's content id (`wmlab_core::compare::content_id`, which ignores the `created` time), so the
//! same result saved twice is one entry. At most [`CAP`] entries are kept; the oldest added are dropped.
//!
//! Storage errors are reported to the caller (and, from [`add_later`], shown on the Results page); they
//! never touch the result on screen.

use std::cell::Cell;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use wmlab_core::compare::{content_id, record_tasks};
use wmlab_core::record::ResultRecord;

use super::idb;

/// Most entries kept; adding one more drops the oldest.
pub const CAP: usize = 200;
const META: &str = "history/meta/";
const REC: &str = "history/rec/";

/// What the list shows of one saved result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    pub label: String,
    pub kind: String,
    /// The record's task field (a task id, several joined by `+`, or a suite name).
    pub task: String,
    /// The tasks the comparison page can draw from it (`VSR`, `nback-verbal`, …).
    #[serde(default)]
    pub tasks: Vec<String>,
    #[serde(default)]
    pub created: Option<String>,
    /// When it was added to the history (ms since the epoch).
    pub added: f64,
}

/// The history revision and the last storage error.
type Signals = (RwSignal<u32>, RwSignal<Option<String>>);

thread_local! {
    static SIGNALS: Cell<Option<Signals>> = const { Cell::new(None) };
}

/// Called once by the app with signals that live as long as it: a revision bumped after every finished
/// [`add`] (also of a result already saved) and [`remove`] (pages re-read the list; the app shows it as
/// `data-history` on `<main>`, which tests wait on), and the last storage error.
pub fn install(revision: RwSignal<u32>, error: RwSignal<Option<String>>) {
    SIGNALS.with(|s| s.set(Some((revision, error))));
}

/// The revision signal (re-read the list when it changes); a dummy before [`install`].
pub fn revision() -> u32 {
    SIGNALS.with(|s| s.get()).and_then(|(r, _)| r.try_get()).unwrap_or(0)
}

fn bump() {
    if let Some((r, _)) = SIGNALS.with(|s| s.get()) {
        let _ = r.try_update(|n| *n += 1);
    }
}

fn report(e: &str) {
    if let Some((_, err)) = SIGNALS.with(|s| s.get()) {
        let _ = err
            .try_set(Some(format!("The result could not be saved in this browser's history: {e}. It is still shown.")));
    }
    web_sys::console::warn_1(&format!("WM Lab history: {e}").into());
}

/// Add a record to the history (nothing happens if the same result is already there). Drops the
/// oldest entries beyond [`CAP`].
pub async fn add(record: &ResultRecord) -> Result<(), String> {
    let json = record.to_json().map_err(|e| e.to_string())?;
    let id = content_id(record);
    if idb::load_text(&format!("{META}{id}")).await?.is_some() {
        bump();
        return Ok(());
    }
    let entry = Entry {
        id: id.clone(),
        label: record.subject.label(),
        kind: record.subject.kind().to_string(),
        task: record.task.clone(),
        tasks: record_tasks(record).into_iter().map(|t| t.as_str().to_string()).collect(),
        created: record.created.clone(),
        added: js_sys::Date::now(),
    };
    idb::store_text(&format!("{REC}{id}"), &json).await?;
    idb::store_text(&format!("{META}{id}"), &serde_json::to_string(&entry).map_err(|e| e.to_string())?).await?;
    let mut all = list().await?;
    if all.len() > CAP {
        // `list` is newest first: drop the tail.
        for old in all.split_off(CAP) {
            remove_quiet(&old.id).await?;
        }
    }
    bump();
    Ok(())
}

/// [`add`] in the background; a failure is shown on the Results page and logged, nothing else.
pub fn add_later(record: ResultRecord) {
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = add(&record).await {
            report(&e);
        }
    });
}

/// Every entry, newest first.
pub async fn list() -> Result<Vec<Entry>, String> {
    let mut out: Vec<Entry> = idb::text_entries(META)
        .await?
        .into_iter()
        .filter_map(|(_, v)| serde_json::from_str::<Entry>(&v).ok())
        .collect();
    out.sort_by(|a, b| b.added.total_cmp(&a.added).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// The record of an entry.
pub async fn load(id: &str) -> Result<ResultRecord, String> {
    let text = idb::load_text(&format!("{REC}{id}")).await?.ok_or("this result is no longer in the history")?;
    ResultRecord::from_json(&text).map_err(|e| e.to_string())
}

async fn remove_quiet(id: &str) -> Result<(), String> {
    idb::delete(&format!("{META}{id}")).await?;
    idb::delete(&format!("{REC}{id}")).await
}

/// Delete an entry.
pub async fn remove(id: &str) -> Result<(), String> {
    remove_quiet(id).await?;
    bump();
    Ok(())
}

/// The history as a reactive list: re-read whenever the revision changes. `None` while loading;
/// `Err` when IndexedDB cannot be read.
pub fn use_list() -> RwSignal<Option<Result<Vec<Entry>, String>>> {
    let out = RwSignal::new(None);
    Effect::new(move |_| {
        let _ = revision();
        wasm_bindgen_futures::spawn_local(async move {
            let l = list().await;
            let _ = out.try_set(Some(l));
        });
    });
    out
}
