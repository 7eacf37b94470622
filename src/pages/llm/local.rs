//! The provider box's "In this tab" part: what the build holds (`local-llm/manifest.json`), loading its
//! model or a `.gguf` from disk into llama.cpp in the browser (`platform::local_llm`), where it runs
//! (WebGPU or the CPU) and what the record will keep of it (runtime, file, SHA-256). Labelled for what it
//! is: a 135M-parameter model demonstrates the pipeline and answers near chance on most suites.

use leptos::prelude::*;

use super::form::Form;
use crate::platform::local_llm::{self, LocalModel, Manifest, Source};

/// Where the model in this tab stands (`data-state` of `#llm-local`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Reading the build's manifest.
    Checking,
    /// The build has no runtime.
    Absent,
    /// The runtime is there; no model loaded.
    Ready,
    Loading,
    Loaded,
    Failed,
}

impl State {
    fn as_str(self) -> &'static str {
        match self {
            State::Checking => "checking",
            State::Absent => "absent",
            State::Ready => "ready",
            State::Loading => "loading",
            State::Loaded => "loaded",
            State::Failed => "failed",
        }
    }
}

fn mb(bytes: f64) -> String {
    format!("{:.0} MB", bytes / 1e6)
}

/// What the build holds, in words.
fn build_line(m: Option<&Manifest>) -> String {
    match m {
        None => "The model is not in this build: llama.cpp for the browser (about 10 MB) and SmolLM2-135M-Instruct \
                 (94 MB) are added by scripts/dev/publish.sh --with-local-model, which this site was published without."
            .into(),
        Some(m) => match &m.model {
            Some(s) => format!(
                "In this build: {} ({}) and {} ({}, {}; downloaded into the tab when you press Load).",
                m.runtime_label(),
                mb(m.runtime.bytes as f64),
                s.name,
                mb(s.bytes as f64),
                if s.license.is_empty() { "its licence in the build" } else { &s.license }
            ),
            None => format!(
                "In this build: {} ({}). The model is not in this build (published with --with-local-runtime): \
                 open a .gguf from disk.",
                m.runtime_label(),
                mb(m.runtime.bytes as f64)
            ),
        },
    }
}

fn loaded_line(m: &LocalModel) -> String {
    format!(
        "Loaded: {} ({}, {}) on {}, context {} tokens · {} (llama.cpp {}) · SHA-256 {}",
        m.model,
        m.file,
        mb(m.bytes as f64),
        m.backend,
        m.n_ctx,
        m.runtime,
        m.llama_cpp,
        m.sha256
    )
}

/// Shown in the provider box while the base URL is the tab's.
#[component]
pub(super) fn LocalBox(f: Form) -> impl IntoView {
    let manifest = RwSignal::new(None::<Manifest>);
    let info = RwSignal::new(local_llm::loaded());
    let state = RwSignal::new(if info.get_untracked().is_some() { State::Loaded } else { State::Checking });
    let message = RwSignal::new(None::<String>);
    let progress = RwSignal::new((0.0f64, 0.0f64));
    // WebGPU where the browser has it (else the CPU), or the CPU alone.
    let gpu = RwSignal::new(true);
    wasm_bindgen_futures::spawn_local(async move {
        let m = local_llm::manifest().await;
        let found = m.is_some();
        let _ = manifest.try_set(m);
        if state.try_get_untracked() == Some(State::Checking) {
            let _ = state.try_set(if found { State::Ready } else { State::Absent });
        }
    });
    let runtime = move || manifest.with(Option::is_some);
    let shipped = move || manifest.with(|m| m.as_ref().and_then(|m| m.model.clone()));
    let busy = move || matches!(state.get(), State::Loading | State::Checking);

    let start = move |source: Source| {
        state.set(State::Loading);
        message.set(None);
        progress.set((0.0, 0.0));
        wasm_bindgen_futures::spawn_local(async move {
            let on_progress = move |got: f64, total: f64| {
                let _ = progress.try_set((got, total));
            };
            match local_llm::load(source, gpu.get_untracked(), on_progress).await {
                Ok(m) => {
                    let _ = f.model.try_set(m.model.clone());
                    let _ = info.try_set(Some(m));
                    let _ = state.try_set(State::Loaded);
                }
                Err(e) => {
                    let _ = info.try_set(None);
                    let _ = message.try_set(Some(e));
                    let _ = state.try_set(State::Failed);
                }
            }
        });
    };
    let on_load = move |_| start(Source::Shipped);
    let on_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|l| l.get(0)) else { return };
        input.set_value("");
        start(Source::File(file));
    };
    let load_label = move || match shipped() {
        Some(s) => format!("Load {} ({})", s.name, mb(s.bytes as f64)),
        None => "Load the build's model".to_string(),
    };
    let progress_line = move || {
        let (got, total) = progress.get();
        if total > 0.0 && got < total {
            format!("Downloading the model: {} of {}…", mb(got), mb(total))
        } else {
            "Reading the model (its SHA-256, then llama.cpp loads it)…".to_string()
        }
    };

    view! {
        <div class="notice llm-local" id="llm-local" data-state=move || state.get().as_str()>
            <p><strong>"In this tab: a demonstration, not a measurement."</strong>
                " llama.cpp, compiled to WebAssembly (wllama), runs a model on this device: no server, no key, nothing \
                sent anywhere. The model that comes with WM Lab, SmolLM2-135M-Instruct (135 million parameters, 4-bit), \
                answers near chance on most suites: it shows the whole pipeline running, and its scores say little about \
                language models. Any other .gguf chat model can be opened from disk (up to 2 GB, as the browser's memory allows). \
                Requests run one at a time; a reply is capped at Max tokens (set to 16 here, as a small model rarely stops \
                by itself)."</p>
            <p class="small" id="llm-local-build">{move || {
                if state.get() == State::Checking { "Looking for the runtime in this build…".to_string() } else { manifest.with(|m| build_line(m.as_ref())) }
            }}</p>
            <p>
                "Run on "
                <select id="llm-local-backend" prop:value=move || if gpu.get() { "auto" } else { "cpu" }
                    on:change=move |ev| gpu.set(event_target_value(&ev) != "cpu")>
                    <option value="auto">"WebGPU where the browser has it, else the CPU"</option>
                    <option value="cpu">"the CPU (WebAssembly)"</option>
                </select>
                " "
                <button id="llm-local-load" on:click=on_load disabled=move || busy() || shipped().is_none()>{load_label}</button>
                " "
                <label class="file">"or open a .gguf from disk "
                    <input type="file" id="llm-local-file" accept=".gguf" on:change=on_file
                        disabled=move || busy() || !runtime()/></label>
            </p>
            {move || (state.get() == State::Loading).then(|| view! {
                <p class="small" id="llm-local-progress">{progress_line}</p>
            })}
            {move || info.get().map(|m| view! {
                <p class="small" id="llm-local-info" data-model=m.model.clone() data-sha256=m.sha256.clone()
                    data-runtime=m.runtime.clone() data-backend=m.backend.clone()>{loaded_line(&m)}</p>
            })}
            {move || message.get().map(|e| view! { <p class="error" id="llm-local-error">{e}</p> })}
        </div>
    }
}
