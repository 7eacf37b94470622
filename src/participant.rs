//! The participant's page alone (`take.html`): what a study link needs and nothing else, so that a
//! participant on a slow connection downloads a fraction of the whole app (no LLM, networks, gallery or
//! comparison pages). The same `Take` page as the app's `#/take`; built beside the app by
//! `scripts/dev/build-participant.sh` (a Trunk post-build hook).
//!
//! Any other route (a share link, `#/results`) is sent on to the whole app (`index.html`), hash kept.

#[cfg(target_arch = "wasm32")]
fn main() {
    use leptos::prelude::*;
    use wmlab_app::app::Route;
    use wmlab_app::pages::take::Take;
    use wmlab_app::platform::web;

    console_error_panic_hook::set_once();
    let loc = web::window().location();
    let (search, hash) = (loc.search().unwrap_or_default(), loc.hash().unwrap_or_default());
    match Route::from_location(&search, &hash) {
        Route::Take(query) => {
            leptos::mount::mount_to_body(move || {
                // The browser's results history, as in the whole app (`data-history` counts its writes).
                let (rev, error) = (RwSignal::new(0u32), RwSignal::new(None::<String>));
                wmlab_app::platform::history::install(rev, error);
                view! {
                    <main id="page" class="participant" data-route="people" data-history=move || rev.get()>
                        <Take query=query.clone()/>
                    </main>
                }
            });
            wmlab_app::mark_ready();
        }
        _ => {
            let _ = loc.replace(&format!("index.html{search}{hash}"));
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("wmlab-take is the participant's page of the browser app: see `wmlab-app`.");
}
