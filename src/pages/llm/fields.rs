//! The LLM page's form sections as components: the provider box and the suites box, and the small
//! field helpers they share.

use leptos::prelude::*;
use wmlab_core::llm::nback::{Protocol, Variant};
use wmlab_core::llm::snapshot;
use wmlab_llm::web::WebClock;
use wmlab_llm::{ProviderConfig, ProviderKind, Secret};

use super::form::{Form, PRESETS, gen_tasks, kind_label};
use super::local::LocalBox;
use crate::platform::llm_store as store;
use crate::platform::local_llm;

/// Where the provider's model list stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fetch {
    Idle,
    Loading,
    Loaded,
    Failed,
}

impl Fetch {
    fn as_str(self) -> &'static str {
        match self {
            Fetch::Idle => "idle",
            Fetch::Loading => "loading",
            Fetch::Loaded => "loaded",
            Fetch::Failed => "failed",
        }
    }
}

fn check(id: &'static str, label: &'static str, sig: RwSignal<bool>) -> impl IntoView {
    view! {
        <label class="check"><input type="checkbox" id=id prop:checked=move || sig.get()
            on:change=move |ev| sig.set(event_target_checked(&ev))/>{label}</label>
    }
}

/// A sampling field: typing in it means "send this", so it turns the papers' sampling off.
/// A sampling value; while the papers' sampling is ticked it reads "per paper" (each suite sends its
/// paper's value) and typing a value unticks it.
fn sampling_input(id: &'static str, sig: RwSignal<String>, paper: RwSignal<bool>) -> impl IntoView {
    let shown = move || if paper.get() { String::new() } else { sig.get() };
    view! { <input type="text" id=id prop:value=shown placeholder=move || if paper.get() { "per paper" } else { "" }
    on:input=move |ev| { sig.set(event_target_value(&ev)); paper.set(false); }/> }
}

fn text_input(id: &'static str, sig: RwSignal<String>) -> impl IntoView {
    view! { <input type="text" id=id prop:value=move || sig.get() on:input=move |ev| sig.set(event_target_value(&ev))/> }
}

fn field(label: &'static str, input: impl IntoView, hint: &'static str) -> impl IntoView {
    view! {
        <label class="field">{label}</label>
        <div>{input}{(!hint.is_empty()).then(|| view! { <span class="small">" " {hint}</span> })}</div>
    }
}

/// The provider: kind, base URL, model (with the provider's list), key (kept in memory unless
/// remembered), sampling, concurrency, prices, timeouts, retries and the reply cache.
#[component]
pub(super) fn ProviderBox(
    f: Form,
    key: RwSignal<String>,
    remember: RwSignal<bool>,
    error: RwSignal<Option<String>>,
    notice: RwSignal<Option<String>>,
) -> impl IntoView {
    let models = RwSignal::new(Vec::<String>::new());
    let models_state = RwSignal::new(Fetch::Idle);
    let fetch_models = move |_| {
        let kind = f.kind.get_untracked();
        let cfg = ProviderConfig::new(kind, f.base_url.get_untracked(), f.model.get_untracked());
        let secret = Secret::new(key.get_untracked());
        models_state.set(Fetch::Loading);
        error.set(None);
        wasm_bindgen_futures::spawn_local(async move {
            let transport = local_llm::PageTransport::new();
            let clock = WebClock::new();
            match wmlab_llm::provider::list_models(&transport, &clock, &cfg, &secret, 20_000).await {
                Ok(list) => {
                    let ids: Vec<String> = list.into_iter().map(|m| m.id).collect();
                    if f.model.get_untracked().trim().is_empty()
                        && let Some(first) = ids.first()
                    {
                        let _ = f.model.try_set(first.clone());
                    }
                    let _ = models.try_set(ids);
                    let _ = models_state.try_set(Fetch::Loaded);
                }
                Err(e) => {
                    let _ = error.try_set(Some(format!("Could not list the models: {}", e.message)));
                    let _ = models_state.try_set(Fetch::Failed);
                }
            }
        });
    };

    let on_preset = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        if let Some(p) = PRESETS.iter().find(|p| p.0 == v) {
            f.kind.set(p.2);
            f.base_url.set(p.3.to_string());
            models.set(Vec::new());
            if local_llm::is_tab(p.3) {
                // One request at a time, and a cap: a small model rarely stops by itself, and N-back as
                // its paper ran it sends none.
                f.concurrency.set("1".into());
                if f.paper_sampling.get_untracked() || f.max_tokens.get_untracked().trim().is_empty() {
                    f.paper_sampling.set(false);
                    f.max_tokens.set("16".into());
                }
                if let Some(m) = local_llm::loaded() {
                    f.model.set(m.model);
                }
            }
        }
    };
    let in_tab = Memo::new(move |_| local_llm::is_tab(&f.base_url.get()));
    let on_kind = move |ev: leptos::ev::Event| {
        if let Some(k) = ProviderKind::parse(&event_target_value(&ev)) {
            let old = f.base_url.get_untracked();
            if old.trim().is_empty() || ProviderKind::ALL.iter().any(|x| x.default_base_url() == old.trim()) {
                f.base_url.set(k.default_base_url().to_string());
            }
            f.kind.set(k);
            models.set(Vec::new());
        }
    };
    let on_key = move |ev: leptos::ev::Event| {
        let k = event_target_value(&ev);
        if remember.get_untracked() {
            store::save_key(&k);
        }
        key.set(k);
    };
    let on_remember = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        remember.set(on);
        if on {
            store::save_key(&key.get_untracked());
        } else {
            store::forget_key();
        }
    };
    let on_forget = move |_| {
        key.set(String::new());
        remember.set(false);
        store::forget_key();
        notice.set(Some("The key is forgotten (removed from this page and from this device's storage).".into()));
    };
    let on_clear_cache = move |_| {
        let n = store::clear_cache();
        notice.set(Some(format!("Removed {n} cached replies.")));
    };

    view! {
        <fieldset class="llm-provider">
            <legend>"Provider"</legend>
            {move || in_tab.get().then(|| view! { <LocalBox f=f/> })}
            <div class="grid2">
                {field("Kind", view! {
                    <select id="llm-kind" on:change=on_kind prop:value=move || f.kind.get().as_str()>
                        {ProviderKind::ALL.iter().map(|k| view! { <option value=k.as_str()>{kind_label(*k)}</option> }).collect_view()}
                    </select>
                    " "
                    <select id="llm-preset" on:change=on_preset prop:value="">
                        <option value="">"Presets…"</option>
                        {PRESETS.iter().map(|p| view! { <option value=p.0>{p.1}</option> }).collect_view()}
                    </select>
                }, "")}
                {field("Base URL", view! {
                    <input type="url" id="llm-base-url" class="wide" prop:value=move || f.base_url.get()
                        on:input=move |ev| f.base_url.set(event_target_value(&ev))/>
                }, "")}
                {field("Model", view! {
                    <input type="text" id="llm-model" list="llm-models" prop:value=move || f.model.get()
                        on:input=move |ev| f.model.set(event_target_value(&ev))/>
                    <datalist id="llm-models">
                        {move || models.get().into_iter().map(|m| view! { <option value=m/> }).collect_view()}
                    </datalist>
                    " "
                    <button id="llm-fetch-models" on:click=fetch_models data-state=move || models_state.get().as_str()>"Fetch models"</button>
                    <span class="small" id="llm-model-count">{move || { let n = models.with(Vec::len); (n > 0).then(|| format!(" {n} models")) }}</span>
                }, "several, comma-separated, run side by side on the same samples")}
                {field("API key", view! {
                    <input type="password" id="llm-key" autocomplete="off" spellcheck="false" prop:value=move || key.get() on:input=on_key/>
                    " "
                    <label class="check"><input type="checkbox" id="llm-remember" prop:checked=move || remember.get() on:change=on_remember/>"remember on this device"</label>
                    <button id="llm-forget" on:click=on_forget>"Forget key"</button>
                }, "")}
                <span></span>
                <p class="small">"The key is sent only to the base URL above, in a request header. It stays in this tab's memory unless \"remember\" is ticked (then in this browser's storage), and never enters a result, an export, a share link or the log. Local servers need none."</p>
                {field("Sampling", view! {
                    <label class="check"><input type="checkbox" id="llm-paper-sampling" prop:checked=move || f.paper_sampling.get()
                        on:change=move |ev| f.paper_sampling.set(event_target_checked(&ev))/>"as each paper ran it"</label>
                }, "N-back: the API's default temperature (GPT-3.5 was run so), no cap; Little Retrieval Test: temperature 0, 10 tokens; \
                    Minerva: temperature 0, top-p 1, 4,096 tokens. Typing below sends those values to every suite instead.")}
                {field("Temperature", sampling_input("llm-temperature", f.temperature, f.paper_sampling), "empty = not sent")}
                {field("Max tokens", sampling_input("llm-max-tokens", f.max_tokens, f.paper_sampling), "reply length cap; empty = provider default")}
                {field("Top-p", sampling_input("llm-top-p", f.top_p, f.paper_sampling), "")}
                {field("Seed", text_input("llm-seed", f.seed), "sampling seed, where the API has one")}
                {field("Reasoning", text_input("llm-reasoning", f.reasoning), "reasoning models: off, low, medium, high, or a thinking budget in tokens (Anthropic, Gemini); \
                    empty = the model's default. Reasoning is logged, never scored.")}
                {field("Concurrency", text_input("llm-concurrency", f.concurrency), "requests in flight at once; with several models one value \
                    for each, or a comma list with one per model")}
                {field("Prices per 1M tokens", view! {
                    "in " <input type="text" id="llm-price-in" class="short" prop:value=move || f.price_in.get() on:input=move |ev| f.price_in.set(event_target_value(&ev))/>
                    " out " <input type="text" id="llm-price-out" class="short" prop:value=move || f.price_out.get() on:input=move |ev| f.price_out.set(event_target_value(&ev))/>
                }, "optional: gives an estimated cost")}
                {field("Spending limit", text_input("llm-max-cost", f.max_cost), "optional, in the prices' currency: the run stops before a request \
                    that would pass it; raise it and press Resume to go on")}
                {field("Batch", check("llm-batch", "send LRT and Minerva as one batch", f.batch), "the provider's batch API \
                    (OpenAI Batch, Anthropic Message Batches, Gemini batch mode): half the price, replies within 24 hours. The page \
                    waits for it; a reload resumes the same batch, and items it returns as failed are sent one by one.")}
                {field("Timeout (s)", text_input("llm-timeout", f.timeout_s), "per request")}
                {field("Retries", view! {
                    <input type="text" id="llm-retries" class="short" prop:value=move || f.max_retries.get() on:input=move |ev| f.max_retries.set(event_target_value(&ev))/>
                    " first wait (ms) " <input type="text" id="llm-backoff" class="short" prop:value=move || f.backoff_ms.get() on:input=move |ev| f.backoff_ms.set(event_target_value(&ev))/>
                }, "doubling with jitter; Retry-After is honoured")}
                {field("Cache", view! {
                    {check("llm-use-cache", "reuse stored replies to identical requests", f.use_cache)}
                    <button id="llm-clear-cache" on:click=on_clear_cache>"Clear cache"</button>
                }, "")}
            </div>
        </fieldset>
    }
}

/// The suites: N-back, the Little Retrieval Test, Minerva's snapshot and generator, and the slice.
#[component]
pub(super) fn SuitesBox(f: Form) -> impl IntoView {
    let nb_variants =
        Variant::ALL.iter().map(|v| view! { <option value=v.as_str()>{v.as_str()}</option> }).collect_view();
    let nb_protocols =
        Protocol::ALL.iter().map(|p| view! { <option value=p.as_str()>{p.as_str()}</option> }).collect_view();
    let snap_boxes = snapshot::FILES
        .iter()
        .enumerate()
        .map(|(i, (cat, task))| {
            let n = snapshot::ENTRIES.get(i).copied().unwrap_or(0);
            view! {
                <label class="check" title=cat.replace('_', " ")><input type="checkbox" id=format!("llm-snap-{task}")
                    prop:checked=move || f.snap_files.with(|v| v[i])
                    on:change=move |ev| { let on = event_target_checked(&ev); f.snap_files.update(|v| v[i] = on); }/>
                    {format!("{task} ({n})")}</label>
            }
        })
        .collect_view();
    let gen_boxes = gen_tasks()
        .into_iter()
        .enumerate()
        .map(|(i, task)| {
            view! {
                <label class="check"><input type="checkbox" id=format!("llm-gen-{task}")
                    prop:checked=move || f.gen_tasks.with(|v| v[i])
                    on:change=move |ev| { let on = event_target_checked(&ev); f.gen_tasks.update(|v| v[i] = on); }/>
                    {task}</label>
            }
        })
        .collect_view();

    view! {
        <fieldset class="llm-suites">
            <legend>"Suites"</legend>
            <h3>{check("llm-nback-on", "N-back", f.nb_on)}</h3>
            <div class="grid2" class:hidden=move || !f.nb_on.get()>
                {field("Variant", view! {
                    <select id="llm-nback-variant" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Some(var) = Variant::parse(&v) { f.nb_protocol.set(var.default_protocol().as_str().into()); }
                        f.nb_variant.set(v);
                    } prop:value=move || f.nb_variant.get()>{nb_variants}</select>
                }, "letters_30: the README's 30×30 blocks; others: the paper's 50×24 files")}
                {field("N", text_input("llm-nback-ns", f.nb_ns), "e.g. 1, 2, 3")}
                {field("Protocol", view! {
                    <select id="llm-nback-protocol" on:change=move |ev| f.nb_protocol.set(event_target_value(&ev))
                        prop:value=move || f.nb_protocol.get()>{nb_protocols}</select>
                }, "readme = multi-turn with pre-filled trials; base/noise/feedback/cot = the paper's system prompt")}
                {field("History", view! {
                    <select id="llm-nback-history" on:change=move |ev| f.nb_history.set(event_target_value(&ev))
                        prop:value=move || f.nb_history.get()>
                        <option value="full">"full: the whole dialogue"</option>
                        <option value="note">"note: its own last note"</option>
                        <option value="none">"none: the stimulus alone"</option>
                    </select>
                    <span class:hidden=move || f.nb_history.get() != "note">
                        " at most " <input type="text" id="llm-nback-note-tokens" class="short"
                            prop:value=move || f.nb_note_tokens.get()
                            on:input=move |ev| f.nb_note_tokens.set(event_target_value(&ev))/> " tokens"
                    </span>
                }, "with the dialogue in view a model can read back; with a note it keeps what it wrote (Huang et al. 2025)")}
                {field("Blocks per N", text_input("llm-nback-blocks", f.nb_blocks), "")}
                {field("Blocks from", view! {
                    {check("llm-nback-new", "new blocks from the generator, seed", f.nb_new)}
                    " " <input type="text" id="llm-nback-seed" class="short" prop:value=move || f.nb_seed.get()
                        on:input=move |ev| f.nb_seed.set(event_target_value(&ev))/>
                }, "unticked = the published files (N = 1–3); new blocks have the published length and matches, any N")}
            </div>
            <h3>{check("llm-lrt-on", "Little Retrieval Test", f.lrt_on)}</h3>
            <div class="grid2" class:hidden=move || !f.lrt_on.get()>
                {field("Line counts", text_input("llm-lrt-lines", f.lrt_lines), "")}
                {field("Tests per size", text_input("llm-lrt-tests", f.lrt_tests), "")}
                {field("Order", view! {
                    {check("llm-lrt-ordered", "ordered", f.lrt_ordered)}
                    {check("llm-lrt-shuffled", "shuffled", f.lrt_shuffled)}
                    " block sizes " <input type="text" id="llm-lrt-block" class="short" prop:value=move || f.lrt_block.get() on:input=move |ev| f.lrt_block.set(event_target_value(&ev))/>
                }, "1 = a full shuffle; several (e.g. 1, 10, 250) run side by side, each drawn as its own series")}
                {field("Instruction placed", view! {
                    <select id="llm-lrt-insertion" on:change=move |ev| f.lrt_insertion.set(event_target_value(&ev))
                        prop:value=move || f.lrt_insertion.get()>
                        <option value="uniform">"uniformly among the lines (the paper)"</option>
                        <option value="reference">"as the published code does"</option>
                    </select>
                }, "the published code ties the place to the target line k: lines.insert(k − 1, instruction)")}
                {field("Seed", text_input("llm-lrt-seed", f.lrt_seed), "")}
            </div>
            <h3>{check("llm-lat-on", "Latent state: think of it, don't say it", f.lat_on)}</h3>
            <div class="grid2" class:hidden=move || !f.lat_on.get()>
                {field("Tasks", view! {
                    {check("llm-lat-guess", "Number Guessing", f.lat_guess)}
                    {check("llm-lat-yesno", "Yes-No Deduction", f.lat_yesno)}
                    {check("llm-lat-magic", "Math Magic", f.lat_magic)}
                }, "Huang, Sun, Wang & Dredze 2025: a state the model never writes down")}
                {field("Number range", text_input("llm-lat-range", f.lat_range), "Number Guessing asks \"is it k?\" for k = 1 to this, each in its own conversation (the paper: 10); use Repeats for the yes-probabilities")}
                {field("Trials", text_input("llm-lat-trials", f.lat_trials), "Yes-No and Math Magic conversations each (the authors: 200 and 150)")}
                {field("Questions", text_input("llm-lat-questions", f.lat_questions), "the most of a Yes-No trial, which ends at the first contradiction (the paper: 250)")}
                {field("Math Magic", check("llm-lat-cot", "ask for its reasoning first (CoT)", f.lat_cot), "")}
                {field("Seed", text_input("llm-lat-seed", f.lat_seed), "")}
            </div>
            <h3>{check("llm-pi-on", "PI-LLM: proactive interference", f.pi_on)}</h3>
            <div class="grid2" class:hidden=move || !f.pi_on.get()>
                {field("Keys", text_input("llm-pi-keys", f.pi_keys), "categories tracked, 1–46 (the paper: 46)")}
                {field("Updates per key", text_input("llm-pi-updates", f.pi_updates), "one level each; the paper: 2 to 400 (Wang & Sun 2025)")}
                {field("Value length", text_input("llm-pi-value-len", f.pi_value_len), "values run together into one; 1 = as they are")}
                {field("Sessions per level", text_input("llm-pi-sessions", f.pi_sessions), "streams drawn anew at each level (the authors: 5–50)")}
                {field("Order", view! {
                    <select id="llm-pi-order" on:change=move |ev| f.pi_order.set(event_target_value(&ev))
                        prop:value=move || f.pi_order.get()>
                        <option value="random">"random: never a key twice in a row"</option>
                        <option value="sequential">"sequential: each key's updates together"</option>
                    </select>
                }, "")}
                {field("Seed", text_input("llm-pi-seed", f.pi_seed), "")}
            </div>
            <h3>{check("llm-snap-on", "Minerva: the published snapshot", f.snap_on)}</h3>
            <div class:hidden=move || !f.snap_on.get()>
                <div class="task-grid">{snap_boxes}</div>
                <div class="grid2">{field("Entries per file", text_input("llm-snap-limit", f.snap_limit), "0 = all")}</div>
            </div>
            <h3>{check("llm-gen-on", "Minerva: newly generated", f.gen_on)}</h3>
            <div class:hidden=move || !f.gen_on.get()>
                <div class="task-grid">{gen_boxes}</div>
                <div class="grid2">
                    {field("Samples per grid cell", text_input("llm-gen-spc", f.gen_spc), "the paper: 1–25 per task")}
                    {field("Context tokens", text_input("llm-gen-ctx", f.gen_ctx), "cl100k tokens; the paper: 4000; a comma list (500, 1000, 2000, 4000, 8000) runs every length in one run, as Tables 7 and 11")}
                    {field("Operation steps", text_input("llm-gen-steps", f.gen_steps), "quantity and set state, theory of mind; empty = the paper's 200 / 100 / 100; a comma list runs each, as Fig. 6")}
                    {field("Instruction wording", text_input("llm-gen-variants", f.gen_variants), "string search, group association, replace all, quantity state: 1 = the paper's prompt, 2 = its second wording, 1, 2 = both on the same trials, as Tables 8 and 12; empty = 1")}
                    {field("Seed", text_input("llm-gen-seed", f.gen_seed), "")}
                </div>
            </div>
            <h3><label class="check"><input type="checkbox" id="llm-vis-on" prop:checked=move || f.vis_on.get()
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    f.vis_on.set(on);
                    if on {
                        // it runs on its own: ticking it unticks the text suites
                        for s in [f.nb_on, f.lrt_on, f.snap_on, f.gen_on] { s.set(false); }
                    }
                }/>"Visual suite: the WorM tasks and the spatial N-back as frames"</label></h3>
            <div class:hidden=move || !f.vis_on.get()>
                <p class="small">"The trials a person takes (same seed, same stimuli), one dialogue per trial: the frames since the last question, then the question in its answer format. Answers are scored by the people's code, so the result sits beside people and networks on the Compare page. Runs on its own."</p>
                <div class="grid2">
                    {field("Tasks", text_input("llm-vis-tasks", f.vis_tasks), "WorM task ids (VSR, CD-Color, VIR, SMU, SFR, CS, SC, SI, STS, VSRec, CD-Orientation, …) and nback-spatial")}
                    {field("Frames as", view! {
                        <select id="llm-vis-render" on:change=move |ev| f.vis_render.set(event_target_value(&ev))
                            prop:value=move || f.vis_render.get()>
                            <option value="image">"images (PNG) — for models that read images"</option>
                            <option value="text">"text (a character per block of pixels)"</option>
                        </select>
                    }, "run both on the same seed to compare images with text on identical trials")}
                    {field("Image size (px)", text_input("llm-vis-size", f.vis_size), "96–1024; the 96×96 frames enlarged without smoothing; option numbers fit from 384")}
                    {field("Text grid width", text_input("llm-vis-cols", f.vis_cols), "characters per row: 12, 16, 24, 32, 48 or 96")}
                    {field("Trials per task", text_input("llm-vis-trials", f.vis_trials), "N-back: blocks per level")}
                    {field("N-back levels", text_input("llm-vis-ns", f.vis_ns), "1–5")}
                    {field("Seed", text_input("llm-vis-seed", f.vis_seed), "the same seed as a participant's link gives the same trials")}
                </div>
            </div>
            <div class="grid2">
                {field("Slice", text_input("llm-slice", f.slice), "at most this many samples per suite (0 = all), taken in turn from each condition (N-back: a block of each N)")}
                {field("Repeats", text_input("llm-repeats", f.repeats), "ask each item this many times (1–100; not the visual suite): results give each item's mean and the spread across repeats")}
            </div>
        </fieldset>
    }
}
