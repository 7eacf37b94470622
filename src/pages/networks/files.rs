//! Models that come from files: the shipped pretrained models (`models/index.json` and their cards),
//! checkpoint downloads, and a checkpoint file the user loads. A bundle that is loaded replaces the
//! stored run only once the page has read it and the worker has loaded its weights into the model it
//! describes; the one shown before stays otherwise.

use leptos::prelude::*;
use wmlab_core::networks::{Bundle, BundleHeader, CheckpointKind, ModelCard, RunCurves};

use super::results::model_card;
use super::state::{Net, RUN_KEY};
use crate::platform::nn_worker as nnw;
use crate::platform::web;

/// The list of shipped pretrained models and their cards.
const PRETRAINED_INDEX: &str = "models/index.json";

impl Net {
    /// Read the list of pretrained models (the weights are fetched only when one is loaded).
    pub fn load_pretrained_index(self) {
        wasm_bindgen_futures::spawn_local(async move {
            let r = web::fetch_bytes(PRETRAINED_INDEX).await.and_then(|b| ModelCard::list(&b).map_err(String::from));
            match r {
                Ok(v) => {
                    let _ = self.pretrained.try_set(v);
                }
                Err(e) => {
                    let _ = self.notice.try_set(Some(format!("No pretrained models are available here: {e}")));
                }
            }
        });
    }

    /// A checkpoint bundle (a file or a pretrained model) becomes the stored run.
    fn load_bundle(self, name: String, buf: Vec<u8>) {
        // The whole file is checked (format, lengths, checksums, the model it describes) before it
        // replaces the stored run: a refused file leaves the stored checkpoint as it was.
        match Bundle::read(&buf).map(|b| b.header) {
            Ok(header) => self.accept_bundle(name, buf, header),
            Err(e) => self.error.set(Some(format!("{name} is not a usable checkpoint: {e}"))),
        }
    }

    /// A bundle read whole, with its `header`: the model it describes checked, then handed to the worker.
    fn accept_bundle(self, name: String, buf: Vec<u8>, header: BundleHeader) {
        if let Err(e) = header.train.model.validate() {
            let e = format!("it describes an impossible model: {e}");
            return self.error.set(Some(format!("{name} is not a usable checkpoint: {e}")));
        }
        // Then the worker loads its weights into that model (what the page cannot: it has no burn).
        self.verify_then_store(name, buf, header);
    }

    /// A verified checkpoint becomes the stored run.
    pub(super) fn store_bundle(self, name: String, buf: Vec<u8>, header: BundleHeader) {
        wasm_bindgen_futures::spawn_local(async move {
            let curves = RunCurves { vals: header.state.history.clone(), ..Default::default() };
            let r = async {
                nnw::store_bytes(CheckpointKind::Latest.key(), &buf).await?;
                nnw::delete(CheckpointKind::Best.key()).await?;
                nnw::store_text(RUN_KEY, &serde_json::to_string(&curves).unwrap_or_default()).await
            }
            .await;
            match r {
                Ok(()) => {
                    self.curves.set(curves);
                    self.has_best.set(false);
                    self.record.set(None);
                    self.analysis.set(None);
                    self.notice.set(Some(format!(
                        "Loaded {name}: {}. Evaluate or analyse it below, or resume its training.",
                        header.label()
                    )));
                    self.saved.set(Some(header));
                }
                Err(e) => self.error.set(Some(format!("The checkpoint could not be stored in this browser: {e}"))),
            }
        });
    }

    fn load_pretrained(self) {
        let Some(card) = self.pretrained.with_untracked(|v| v.get(self.pretrained_pick.get_untracked()).cloned())
        else {
            return;
        };
        let file = card.file.clone();
        self.error.set(None);
        self.pretrained_loading.set(true);
        wasm_bindgen_futures::spawn_local(async move {
            let r = web::fetch_bytes(&format!("models/{file}")).await;
            self.pretrained_loading.set(false);
            match r {
                // The card's promise kept (the weights' checksum), or the file refused before it loads.
                Ok(b) => match card.check(&b) {
                    Ok(header) => self.accept_bundle(file, b, header),
                    Err(e) => self.error.set(Some(format!("The pretrained model could not be loaded: {e}."))),
                },
                Err(e) => self.error.set(Some(e)),
            }
        });
    }

    fn upload(self, ev: leptos::ev::Event) {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        self.error.set(None);
        wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Ok(b) => self.load_bundle(file.name(), js_sys::Uint8Array::new(&b).to_vec()),
                Err(e) => self.error.set(Some(format!("The file could not be read: {e:?}"))),
            }
        });
    }

    fn download(self, kind: CheckpointKind) {
        wasm_bindgen_futures::spawn_local(async move {
            match nnw::load_bytes(kind.key()).await {
                Ok(Some(b)) => {
                    let name = BundleHeader::read(&b)
                        .map(|(h, _)| h.file_name(kind.as_str()))
                        .unwrap_or_else(|_| format!("wmlab-{}.wmlabnn", kind.as_str()));
                    if let Err(e) = web::download_bytes(&name, &b) {
                        self.error.set(Some(format!("The download failed: {e}")));
                    }
                }
                Ok(None) => self.error.set(Some(format!("There is no {} checkpoint yet.", kind.as_str()))),
                Err(e) => self.error.set(Some(format!("The checkpoint could not be read: {e}"))),
            }
        });
    }
}

pub fn pretrained(net: Net) -> impl IntoView {
    let Net { pretrained, pretrained_pick, pretrained_loading, .. } = net;
    view! {
        <h2>"Pretrained models"</h2>
        <p class="small">"Models trained with " <code>"wmlab train"</code> " and shipped with the app: load one to evaluate, \
            analyse and compare it without training. Its card says how it was trained and how it did on the test trials."</p>
        {move || pretrained.with(Vec::is_empty).then(|| view! { <p class="small">"None loaded yet."</p> })}
        {move || (!pretrained.with(Vec::is_empty)).then(|| view! {
            <div class="buttons">
                <label>"Model "
                    <select id="nn-pretrained" prop:value=move || pretrained_pick.get().to_string()
                        on:change=move |ev| pretrained_pick.set(event_target_value(&ev).parse().unwrap_or(0))>
                        {move || pretrained.get().into_iter().enumerate().map(|(i, c)| view! {
                            <option value=i.to_string()>{c.title}</option>
                        }).collect_view()}
                    </select>
                </label>
                <button id="nn-load-pretrained" on:click=move |_| net.load_pretrained()
                    disabled=move || net.phase.get().busy() || pretrained_loading.get()>
                    {move || if pretrained_loading.get() { "Loading…" } else { "Load this pretrained model" }}</button>
            </div>
            {move || pretrained.with(|v| v.get(pretrained_pick.get()).cloned()).map(model_card)}
        })}
    }
}

pub fn checkpoints(net: Net) -> impl IntoView {
    view! {
        <h2>"Checkpoints"</h2>
        <p class="small">"Saved in this browser at every validation check and on pause, so a reload can resume. \
            Downloads open in the app and in the CLI (" <code>"wmlab eval --checkpoint FILE"</code> ")."</p>
        <div class="buttons">
            <button id="nn-download-latest" on:click=move |_| net.download(CheckpointKind::Latest)
                disabled=move || net.saved.with(Option::is_none)>"Download latest"</button>
            <button id="nn-download-best" on:click=move |_| net.download(CheckpointKind::Best)
                disabled=move || !net.has_best.get()>"Download best"</button>
            <label class="file">"Load a checkpoint file "
                <input type="file" id="nn-upload" accept=".wmlabnn,application/octet-stream" on:change=move |ev| net.upload(ev)
                    disabled=move || net.phase.get().busy()/></label>
        </div>
    }
}
