//! Where results come from: this browser's history (a box per entry), JSON files, pasted links.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::Page;
use crate::platform::history;

fn history_list(page: Page) -> impl IntoView {
    let list = history::use_list();
    let st = page.st;
    move || {
        match list.get() {
        None => view! { <p class="small">"Reading the history…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="error">{format!("The history could not be read: {e}")}</p> }.into_any(),
        Some(Ok(entries)) if entries.is_empty() => view! {
            <p class="small" id="cmp-history-empty">"No saved results yet. Finished sessions, LLM runs, evaluated networks and results opened in "
                <a href="#/results">"Results"</a> " are saved here."</p>
        }
        .into_any(),
        Some(Ok(entries)) => {
            let n = entries.len();
            view! {
                <ul class="cmp-history" id="cmp-history" data-count=n>
                    {entries.into_iter().map(|e| {
                        let id = e.id.clone();
                        let id2 = e.id.clone();
                        let checked = move || st.chosen.with(|c| c.iter().any(|x| x.id == id2));
                        let tasks = if e.tasks.is_empty() { "nothing to draw".to_string() } else { e.tasks.join(", ") };
                        view! {
                            <li class="cmp-history-item" data-id=e.id.clone() data-kind=e.kind.clone()>
                                <label>
                                    <input type="checkbox" class="cmp-pick" id=format!("cmp-pick-{}", e.id) data-id=e.id.clone()
                                        disabled=e.tasks.is_empty()
                                        prop:checked=checked
                                        on:change=move |ev| page.toggle_history(id.clone(), event_target_checked(&ev))/>
                                    " " <strong>{e.label.clone()}</strong> " (" {e.kind.clone()} ") · " {tasks}
                                    <span class="small">" · " {e.created.clone().unwrap_or_default()}</span>
                                </label>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            }
            .into_any()
        }
    }
    }
}

pub fn sources(page: Page) -> impl IntoView {
    let pasted = RwSignal::new(String::new());
    let on_files = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(files) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        input.set_value("");
        page.add_files(files);
    };
    view! {
        <div class="cmp-sources">
            <fieldset>
                <legend>"From this browser's history"</legend>
                {history_list(page)}
                <p class="small">{format!("The history keeps the last {} results in this browser; older ones are dropped. ", history::CAP)}
                    <a href="#/results">"Manage it in Results"</a> "."</p>
            </fieldset>
            <fieldset>
                <legend>"From files or links"</legend>
                <label for="cmp-file">"JSON results exported by WM Lab "</label>
                <input id="cmp-file" type="file" multiple accept=".json,application/json" on:change=on_files/>
                <form class="paste" on:submit=move |ev| {
                    ev.prevent_default();
                    if page.add_pasted(&pasted.get_untracked()) {
                        pasted.set(String::new());
                    }
                }>
                    <label for="cmp-link">"Share link"</label>
                    <input id="cmp-link" type="text" placeholder="Paste a link with #r=… or #c=…"
                        prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))/>
                    <button id="cmp-add-link" type="submit">"Add"</button>
                </form>
            </fieldset>
        </div>
    }
}
