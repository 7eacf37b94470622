//! Language models: run the N-back, Little Retrieval Test and Minerva suites from the browser against
//! the user's own provider (OpenAI-compatible, Anthropic, Gemini), with the `wmlab-llm` runner
//! (concurrency, retries, pause / cancel, a response cache), a log saved as it arrives (a reload offers
//! to resume: no sample lost, none sent twice), a per-sample log viewer, exports, a share link and
//! charts beside the papers' numbers.
//!
//! The page turns form input into core values (`NbackConfig`, `LrtConfig`, snapshot files, a
//! `MinervaConfig`, `ProviderConfig`, `RunOptions`) and runner values into pixels. The API key is a
//! `Secret` given to the runner only; it is in memory unless "remember on this device" is ticked.

use leptos::prelude::*;
use wmlab_core::llm::lrt::{LrtConfig, Order};
use wmlab_core::llm::nback::{BlockSource, DialogueOptions, NbackConfig, Protocol, Variant};
use wmlab_core::llm::{Sample, lrt, minerva, nback, snapshot};
use wmlab_core::record::{ResultRecord, Setting};
use wmlab_core::share;
use wmlab_llm::web::{FetchTransport, WebClock};
use wmlab_llm::{
    Control, LogEntry, Outcome, Progress, ProviderConfig, ProviderKind, RunLog, RunOptions, Runner, Secret,
};

use crate::app::AppState;
use crate::components::format::fmt_ms;
use crate::components::llm_log::LlmLog;
use crate::components::llm_plot::LlmCharts;
use crate::platform::llm_store::{self as store, GeneratedSpec, LogWriter, RunSpec, SnapshotSpec, StorageCache};
use crate::platform::web;

/// Base URL presets: (id, label, kind, URL).
const PRESETS: &[(&str, &str, ProviderKind, &str)] = &[
    ("openai", "OpenAI", ProviderKind::OpenAi, "https://api.openai.com/v1"),
    ("anthropic", "Anthropic", ProviderKind::Anthropic, "https://api.anthropic.com"),
    ("gemini", "Google Gemini", ProviderKind::Gemini, "https://generativelanguage.googleapis.com/v1beta"),
    ("openrouter", "OpenRouter", ProviderKind::OpenAi, "https://openrouter.ai/api/v1"),
    ("ollama", "Ollama (local)", ProviderKind::OpenAi, "http://localhost:11434/v1"),
    ("llamacpp", "llama.cpp server (local)", ProviderKind::OpenAi, "http://127.0.0.1:8080/v1"),
];

fn kind_label(k: ProviderKind) -> &'static str {
    match k {
        ProviderKind::OpenAi => "OpenAI-compatible",
        ProviderKind::Anthropic => "Anthropic",
        ProviderKind::Gemini => "Google Gemini",
    }
}

/// Every generator task (the paper's and the extras).
fn gen_tasks() -> Vec<&'static str> {
    minerva::TASKS.iter().chain(minerva::EXTRA_TASKS).map(|t| t.0).collect()
}

fn parse_list(s: &str) -> Result<Vec<usize>, String> {
    s.split([',', ' ', ';'])
        .filter(|p| !p.trim().is_empty())
        .map(|p| p.trim().parse::<usize>().map_err(|_| format!("\"{p}\" is not a whole number.")))
        .collect()
}

fn opt_f64(s: &str, what: &str) -> Result<Option<f64>, String> {
    let t = s.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<f64>().map(Some).map_err(|_| format!("{what}: \"{t}\" is not a number."))
}

fn num<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, String> {
    s.trim().parse::<T>().map_err(|_| format!("{what}: \"{}\" is not a valid number.", s.trim()))
}

/// The form, as signals (numbers kept as typed text until Start).
#[derive(Clone, Copy)]
struct Form {
    kind: RwSignal<ProviderKind>,
    base_url: RwSignal<String>,
    model: RwSignal<String>,
    /// Sample each suite as its paper did (the three fields below are then not used); typing in one of
    /// them turns it off.
    paper_sampling: RwSignal<bool>,
    temperature: RwSignal<String>,
    max_tokens: RwSignal<String>,
    top_p: RwSignal<String>,
    seed: RwSignal<String>,
    concurrency: RwSignal<String>,
    price_in: RwSignal<String>,
    price_out: RwSignal<String>,
    timeout_s: RwSignal<String>,
    max_retries: RwSignal<String>,
    backoff_ms: RwSignal<String>,
    use_cache: RwSignal<bool>,
    slice: RwSignal<String>,
    nb_on: RwSignal<bool>,
    nb_variant: RwSignal<String>,
    nb_ns: RwSignal<String>,
    nb_protocol: RwSignal<String>,
    nb_blocks: RwSignal<String>,
    /// New blocks from the generator (the variant's published shape) instead of the published files.
    nb_new: RwSignal<bool>,
    nb_seed: RwSignal<String>,
    lrt_on: RwSignal<bool>,
    lrt_lines: RwSignal<String>,
    lrt_tests: RwSignal<String>,
    lrt_ordered: RwSignal<bool>,
    lrt_shuffled: RwSignal<bool>,
    lrt_block: RwSignal<String>,
    /// `uniform` or `reference` ([`wmlab_core::llm::lrt::Insertion`]).
    lrt_insertion: RwSignal<String>,
    lrt_seed: RwSignal<String>,
    snap_on: RwSignal<bool>,
    snap_files: RwSignal<Vec<bool>>,
    snap_limit: RwSignal<String>,
    gen_on: RwSignal<bool>,
    gen_tasks: RwSignal<Vec<bool>>,
    gen_spc: RwSignal<String>,
    gen_ctx: RwSignal<String>,
    gen_seed: RwSignal<String>,
}

impl Form {
    fn new() -> Self {
        let mut snap = vec![false; snapshot::FILES.len()];
        snap[0] = true;
        let mut gen_on = vec![false; gen_tasks().len()];
        gen_on[0] = true;
        Form {
            kind: RwSignal::new(ProviderKind::OpenAi),
            base_url: RwSignal::new(ProviderKind::OpenAi.default_base_url().to_string()),
            model: RwSignal::new(String::new()),
            paper_sampling: RwSignal::new(true),
            temperature: RwSignal::new("0".into()),
            max_tokens: RwSignal::new(String::new()),
            top_p: RwSignal::new(String::new()),
            seed: RwSignal::new(String::new()),
            concurrency: RwSignal::new("2".into()),
            price_in: RwSignal::new(String::new()),
            price_out: RwSignal::new(String::new()),
            timeout_s: RwSignal::new("120".into()),
            max_retries: RwSignal::new("6".into()),
            backoff_ms: RwSignal::new("1000".into()),
            use_cache: RwSignal::new(true),
            slice: RwSignal::new("0".into()),
            nb_on: RwSignal::new(true),
            nb_variant: RwSignal::new("letters_30".into()),
            nb_ns: RwSignal::new("1, 2, 3".into()),
            nb_protocol: RwSignal::new("readme".into()),
            nb_blocks: RwSignal::new("30".into()),
            nb_new: RwSignal::new(false),
            nb_seed: RwSignal::new("1".into()),
            lrt_on: RwSignal::new(false),
            lrt_lines: RwSignal::new("500, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 6500".into()),
            lrt_tests: RwSignal::new("50".into()),
            lrt_ordered: RwSignal::new(true),
            lrt_shuffled: RwSignal::new(true),
            lrt_block: RwSignal::new("1".into()),
            lrt_insertion: RwSignal::new("uniform".into()),
            lrt_seed: RwSignal::new("1".into()),
            snap_on: RwSignal::new(false),
            snap_files: RwSignal::new(snap),
            snap_limit: RwSignal::new("0".into()),
            gen_on: RwSignal::new(false),
            gen_tasks: RwSignal::new(gen_on),
            gen_spc: RwSignal::new("1".into()),
            gen_ctx: RwSignal::new("4000".into()),
            gen_seed: RwSignal::new("0".into()),
        }
    }

    fn spec(&self) -> Result<RunSpec, String> {
        let kind = self.kind.get_untracked();
        let base = self.base_url.get_untracked();
        let model = self.model.get_untracked();
        if model.trim().is_empty() {
            return Err("Choose a model (type its name or press \"Fetch models\").".into());
        }
        let mut provider = ProviderConfig::new(kind, base, model);
        provider.temperature = opt_f64(&self.temperature.get_untracked(), "Temperature")?;
        provider.max_tokens = opt_f64(&self.max_tokens.get_untracked(), "Max tokens")?.map(|v| v.max(1.0) as u32);
        provider.top_p = opt_f64(&self.top_p.get_untracked(), "Top-p")?;
        provider.seed = opt_f64(&self.seed.get_untracked(), "Seed")?.map(|v| v as i64);
        provider.paper_sampling = self.paper_sampling.get_untracked();
        let options = RunOptions {
            concurrency: num::<usize>(&self.concurrency.get_untracked(), "Concurrency")?.clamp(1, 64),
            max_retries: num(&self.max_retries.get_untracked(), "Retries")?,
            backoff_base_ms: num(&self.backoff_ms.get_untracked(), "Backoff")?,
            timeout_ms: (num::<f64>(&self.timeout_s.get_untracked(), "Timeout")? * 1000.0).max(100.0) as u64,
            price_in_per_m: opt_f64(&self.price_in.get_untracked(), "Price in")?,
            price_out_per_m: opt_f64(&self.price_out.get_untracked(), "Price out")?,
            ..RunOptions::default()
        };
        let nback = if self.nb_on.get_untracked() {
            let variant = Variant::parse(&self.nb_variant.get_untracked()).ok_or("Unknown N-back variant.")?;
            let protocol = Protocol::parse(&self.nb_protocol.get_untracked()).ok_or("Unknown N-back protocol.")?;
            let ns: Vec<u8> = parse_list(&self.nb_ns.get_untracked())?.into_iter().map(|n| n.min(255) as u8).collect();
            let blocks: usize = num(&self.nb_blocks.get_untracked(), "Blocks")?;
            let source = if self.nb_new.get_untracked() {
                if blocks == 0 {
                    return Err("N-back: new blocks need at least 1 block per N.".into());
                }
                let (len, matches) = variant.published_shape();
                BlockSource::Generated {
                    count: blocks,
                    len,
                    matches,
                    seed: num(&self.nb_seed.get_untracked(), "N-back seed")?,
                }
            } else {
                BlockSource::Published
            };
            let c = NbackConfig {
                variant,
                ns,
                blocks: None,
                limit: Some(blocks),
                options: DialogueOptions::new(protocol),
                source,
            };
            c.validate().map_err(|e| format!("N-back: {e}."))?;
            Some(c)
        } else {
            None
        };
        let lrt_cfg = if self.lrt_on.get_untracked() {
            let blocks = if self.lrt_shuffled.get_untracked() {
                let b = lrt::parse_block_sizes(&self.lrt_block.get_untracked())
                    .map_err(|e| format!("LRT block sizes: {e}."))?;
                if b.is_empty() {
                    return Err("LRT block sizes: give one or more (1 = a full shuffle), or untick shuffled.".into());
                }
                b
            } else {
                Vec::new()
            };
            let orders = lrt::orders(self.lrt_ordered.get_untracked(), &blocks);
            if orders.is_empty() {
                return Err("LRT: tick ordered, shuffled or both.".into());
            }
            Some(LrtConfig {
                lines: parse_list(&self.lrt_lines.get_untracked())?,
                tests_per_size: num(&self.lrt_tests.get_untracked(), "Tests per size")?,
                orders,
                insertion: lrt::Insertion::parse(&self.lrt_insertion.get_untracked())?,
                ..LrtConfig::default()
            })
        } else {
            None
        };
        let snap = if self.snap_on.get_untracked() {
            let files: Vec<usize> =
                self.snap_files.get_untracked().iter().enumerate().filter(|(_, on)| **on).map(|(i, _)| i).collect();
            if files.is_empty() {
                return Err("Minerva snapshot: tick at least one file.".into());
            }
            Some(SnapshotSpec { files, limit: num(&self.snap_limit.get_untracked(), "Entries per file")? })
        } else {
            None
        };
        let generated = if self.gen_on.get_untracked() {
            let names = gen_tasks();
            let tasks: Vec<String> = self
                .gen_tasks
                .get_untracked()
                .iter()
                .enumerate()
                .filter(|(_, on)| **on)
                .map(|(i, _)| names[i].to_string())
                .collect();
            if tasks.is_empty() {
                return Err("Minerva generated: tick at least one task.".into());
            }
            Some(GeneratedSpec {
                tasks,
                samples_per_cell: num::<usize>(&self.gen_spc.get_untracked(), "Samples per cell")?.max(1),
                context_tokens: num::<usize>(&self.gen_ctx.get_untracked(), "Context tokens")?.max(100),
                seed: num(&self.gen_seed.get_untracked(), "Seed")?,
            })
        } else {
            None
        };
        if nback.is_none() && lrt_cfg.is_none() && snap.is_none() && generated.is_none() {
            return Err("Tick at least one suite.".into());
        }
        let now = js_sys::Date::now();
        Ok(RunSpec {
            id: format!("{:x}", now as u64),
            provider,
            options,
            use_cache: self.use_cache.get_untracked(),
            nback,
            lrt: lrt_cfg,
            lrt_seed: num(&self.lrt_seed.get_untracked(), "LRT seed")?,
            snapshot: snap,
            generated,
            slice: num(&self.slice.get_untracked(), "Slice")?,
            created: web::now_iso(),
        })
    }

    fn load(&self, s: &RunSpec) {
        let o = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        self.kind.set(s.provider.kind);
        self.base_url.set(s.provider.base_url.clone());
        self.model.set(s.provider.model.clone());
        self.temperature.set(o(s.provider.temperature));
        self.max_tokens.set(o(s.provider.max_tokens.map(f64::from)));
        self.top_p.set(o(s.provider.top_p));
        self.paper_sampling.set(s.provider.paper_sampling);
        self.seed.set(o(s.provider.seed.map(|v| v as f64)));
        self.concurrency.set(s.options.concurrency.to_string());
        self.price_in.set(o(s.options.price_in_per_m));
        self.price_out.set(o(s.options.price_out_per_m));
        self.timeout_s.set((s.options.timeout_ms as f64 / 1000.0).to_string());
        self.max_retries.set(s.options.max_retries.to_string());
        self.backoff_ms.set(s.options.backoff_base_ms.to_string());
        self.use_cache.set(s.use_cache);
        self.slice.set(s.slice.to_string());
        self.nb_on.set(s.nback.is_some());
        if let Some(c) = &s.nback {
            self.nb_variant.set(c.variant.as_str().into());
            self.nb_ns.set(c.ns.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "));
            self.nb_protocol.set(c.options.protocol.as_str().into());
            self.nb_blocks.set(c.limit.unwrap_or(30).to_string());
            self.nb_new.set(matches!(c.source, BlockSource::Generated { .. }));
            if let BlockSource::Generated { seed, .. } = c.source {
                self.nb_seed.set(seed.to_string());
            }
        }
        self.lrt_on.set(s.lrt.is_some());
        if let Some(c) = &s.lrt {
            self.lrt_lines.set(c.lines.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "));
            self.lrt_tests.set(c.tests_per_size.to_string());
            self.lrt_ordered.set(c.orders.contains(&Order::Ordered));
            let blocks: Vec<String> = c
                .orders
                .iter()
                .filter(|o| matches!(o, Order::Shuffled { .. }))
                .map(|o| o.block().to_string())
                .collect();
            self.lrt_shuffled.set(!blocks.is_empty());
            if !blocks.is_empty() {
                self.lrt_block.set(blocks.join(", "));
            }
            self.lrt_insertion.set(c.insertion.as_str().into());
        }
        self.lrt_seed.set(s.lrt_seed.to_string());
        self.snap_on.set(s.snapshot.is_some());
        if let Some(c) = &s.snapshot {
            self.snap_files.set((0..snapshot::FILES.len()).map(|i| c.files.contains(&i)).collect());
            self.snap_limit.set(c.limit.to_string());
        }
        self.gen_on.set(s.generated.is_some());
        if let Some(g) = &s.generated {
            self.gen_tasks.set(gen_tasks().iter().map(|t| g.tasks.iter().any(|x| x == t)).collect());
            self.gen_spc.set(g.samples_per_cell.to_string());
            self.gen_ctx.set(g.context_tokens.to_string());
            self.gen_seed.set(g.seed.to_string());
        }
    }
}

thread_local! {
    static WORDS: std::cell::RefCell<Option<std::rc::Rc<Vec<String>>>> = const { std::cell::RefCell::new(None) };
}

/// The dwyl word list, fetched and gunzipped once per page load.
async fn words() -> Result<std::rc::Rc<Vec<String>>, String> {
    if let Some(w) = WORDS.with(|w| w.borrow().clone()) {
        return Ok(w);
    }
    let gz = crate::platform::web::fetch_bytes("data/minerva/words_alpha_dwyl_2019-03-13.txt.gz").await?;
    let text = String::from_utf8(snapshot::gunzip(&gz)?).map_err(|_| "The word list is not UTF-8 text.".to_string())?;
    let list: Vec<String> =
        text.lines().map(|l| l.trim_end_matches('\r')).filter(|w| !w.is_empty()).map(str::to_string).collect();
    let rc = std::rc::Rc::new(list);
    WORDS.with(|w| *w.borrow_mut() = Some(rc.clone()));
    Ok(rc)
}

/// The samples of a spec (Minerva data is fetched only when a Minerva suite is ticked).
async fn build_samples(spec: &RunSpec) -> Result<Vec<Sample>, String> {
    let cap = |mut v: Vec<Sample>| {
        if spec.slice > 0 {
            v.truncate(spec.slice);
        }
        v
    };
    let mut all = Vec::new();
    if let Some(c) = &spec.nback {
        all.extend(cap(nback::samples(c)));
    }
    if let Some(c) = &spec.lrt {
        all.extend(cap(lrt::samples(c, spec.lrt_seed)));
    }
    if let Some(s) = &spec.snapshot {
        let mut v = Vec::new();
        for &i in &s.files {
            let Some(&(cat, task)) = snapshot::FILES.get(i) else { continue };
            if spec.slice > 0 && v.len() >= spec.slice {
                break;
            }
            let path = format!("data/minerva/minerva_snapshot/{}", snapshot::file_path(cat, task));
            let gz = crate::platform::web::fetch_bytes(&path).await?;
            let mut ss =
                snapshot::parse_gz_file(cat, task, &gz).map_err(|e| format!("Minerva snapshot {task}: {e}"))?;
            if s.limit > 0 {
                ss.truncate(s.limit);
            }
            v.extend(ss);
        }
        all.extend(cap(v));
    }
    if let Some(g) = &spec.generated {
        let w = words().await?;
        let cfg = minerva::MinervaConfig {
            seed: g.seed,
            context_tokens: g.context_tokens,
            tasks: Some(g.tasks.clone()),
            samples_per_cell: Some(g.samples_per_cell),
            ..Default::default()
        };
        all.extend(cap(minerva::generate(&cfg, &w)));
    }
    Ok(all)
}

fn record_of(spec: &RunSpec, outcomes: &[Outcome]) -> ResultRecord {
    let mut extra: Vec<(&str, Setting)> =
        vec![("suites", Setting::Text(spec.label())), ("slice", Setting::Int(spec.slice as i64))];
    if let Some(c) = &spec.nback {
        extra.push(("nback_variant", Setting::Text(c.variant.as_str().into())));
        extra.push(("nback_protocol", Setting::Text(c.options.protocol.as_str().into())));
    }
    if let Some(g) = &spec.generated {
        extra.push(("minerva_context_tokens", Setting::Int(g.context_tokens as i64)));
        extra.push(("minerva_seed", Setting::Int(g.seed as i64)));
    }
    wmlab_llm::record::to_record(
        &spec.provider,
        &spec.options,
        &spec.label(),
        spec.lrt_seed,
        &extra,
        outcomes,
        Some(spec.created.clone()),
    )
}

fn check(id: &'static str, label: &'static str, sig: RwSignal<bool>) -> impl IntoView {
    view! {
        <label class="check"><input type="checkbox" id=id prop:checked=move || sig.get()
            on:change=move |ev| sig.set(event_target_checked(&ev))/>{label}</label>
    }
}

/// A sampling field: typing in it means "send this", so it turns the papers' sampling off.
fn sampling_input(id: &'static str, sig: RwSignal<String>, paper: RwSignal<bool>) -> impl IntoView {
    view! { <input type="text" id=id prop:value=move || sig.get() on:input=move |ev| { sig.set(event_target_value(&ev)); paper.set(false); }/> }
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

#[component]
pub fn Llm() -> impl IntoView {
    let state = expect_context::<AppState>();
    let f = Form::new();
    if let Some(s) = store::load_form() {
        f.load(&s);
    }
    let key = RwSignal::new(String::new());
    let remember = RwSignal::new(false);
    if let Some(k) = store::saved_key() {
        key.set(k);
        remember.set(true);
    }
    let models = RwSignal::new(Vec::<String>::new());
    let models_state = RwSignal::new("idle");
    let error = RwSignal::new(None::<String>);
    let notice = RwSignal::new(None::<String>);
    let run_state = RwSignal::new("idle");
    let progress = RwSignal::new(None::<Progress>);
    let outcomes = RwSignal::new(Vec::<Outcome>::new());
    let samples = StoredValue::new(Vec::<Sample>::new());
    let control = StoredValue::new(Control::new());
    let spec_now = RwSignal::new(None::<RunSpec>);
    let offer = RwSignal::new(store::unfinished().map(|(s, log)| {
        let done = RunLog::parse(&log).outcomes().len();
        (s, done)
    }));
    let copied = RwSignal::new(false);
    let run_seq = RwSignal::new(0u32);

    // Stop a running run when the page is left (its log is saved: it can be resumed).
    on_cleanup(move || {
        if let Some(c) = control.try_get_value() {
            c.cancel();
        }
    });

    let start = move |spec: RunSpec, prior: String| {
        error.set(None);
        notice.set(None);
        copied.set(false);
        progress.set(None);
        offer.set(None);
        spec_now.set(Some(spec.clone()));
        run_state.set("loading");
        run_seq.update(|n| *n += 1);
        let c = Control::new();
        control.set_value(c.clone());
        let secret = Secret::new(key.get_untracked());
        wasm_bindgen_futures::spawn_local(async move {
            let list = match build_samples(&spec).await {
                Ok(l) => l,
                Err(e) => {
                    let _ = error.try_set(Some(e));
                    let _ = run_state.try_set("failed");
                    return;
                }
            };
            if list.is_empty() {
                let _ = error.try_set(Some("Nothing to run: the chosen suites give no samples.".into()));
                let _ = run_state.try_set("failed");
                return;
            }
            let log = RunLog::parse(&prior);
            {
                let prior_out = log.outcomes();
                let shown: Vec<Outcome> =
                    list.iter().filter_map(|s| prior_out.get(s.id.as_str()).map(|o| (*o).clone())).collect();
                let _ = outcomes.try_set(shown);
            }
            let _ = samples.try_set_value(list.clone());
            if c.is_cancelled() {
                let _ = run_state.try_set("cancelled");
                return;
            }
            let _ = run_state.try_set(if c.is_paused() { "paused" } else { "running" });
            let transport = FetchTransport::new();
            let clock = WebClock::new();
            let cache = StorageCache { enabled: spec.use_cache };
            let runner = Runner::new(&transport, &clock, &cache, spec.provider.clone(), secret, spec.options.clone());
            let writer = LogWriter::new(&spec.id, prior);
            let mut on_entry = |e: &LogEntry| {
                writer.append(e);
                if let LogEntry::Outcome(o) = e {
                    let o = (**o).clone();
                    let _ = outcomes.try_update(|v| match v.iter_mut().find(|x| x.sample_id == o.sample_id) {
                        Some(x) => *x = o,
                        None => v.push(o),
                    });
                }
            };
            let mut on_progress = |p: &Progress| {
                let _ = progress.try_set(Some(p.clone()));
            };
            let result = runner.run(&list, &log, &c, &mut on_entry, &mut on_progress).await;
            if writer.failed.get() {
                let _ = notice.try_set(Some(
                    "The browser's storage is full: this run's log could not be saved, so a reload cannot resume it."
                        .into(),
                ));
            }
            if !result.cancelled {
                // A finished run goes into this browser's results history.
                crate::platform::history::add_later(record_of(&spec, &result.outcomes));
            }
            let _ = outcomes.try_set(result.outcomes);
            let _ = progress.try_set(Some(result.progress));
            if result.cancelled {
                let _ = run_state.try_set("cancelled");
            } else {
                store::finish(&spec.id);
                let _ = run_state.try_set("done");
            }
        });
    };

    let on_start = move |_| match f.spec() {
        Ok(spec) => {
            store::save_form(&spec);
            if !store::begin(&spec) {
                notice.set(Some(
                    "The browser did not let this page save the run: a reload will not be able to resume it.".into(),
                ));
            }
            start(spec, String::new());
        }
        Err(e) => error.set(Some(e)),
    };
    let on_resume_saved = move |_| {
        if let Some((spec, log)) = store::unfinished() {
            f.load(&spec);
            start(spec, log);
        } else {
            offer.set(None);
        }
    };
    let on_discard = move |_| {
        if let Some((s, _)) = offer.get_untracked() {
            store::discard(&s.id);
        }
        offer.set(None);
    };
    let on_pause = move |_| {
        control.with_value(|c| c.pause());
        run_state.set("paused");
    };
    let on_continue = move |_| {
        control.with_value(|c| c.resume());
        run_state.set("running");
    };
    let on_cancel = move |_| {
        control.with_value(|c| c.cancel());
    };
    let running = move || matches!(run_state.get(), "loading" | "running" | "paused");

    let fetch_models = move |_| {
        let kind = f.kind.get_untracked();
        let cfg = ProviderConfig::new(kind, f.base_url.get_untracked(), f.model.get_untracked());
        let secret = Secret::new(key.get_untracked());
        models_state.set("loading");
        error.set(None);
        wasm_bindgen_futures::spawn_local(async move {
            let transport = FetchTransport::new();
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
                    let _ = models_state.try_set("loaded");
                }
                Err(e) => {
                    let _ = error.try_set(Some(format!("Could not list the models: {}", e.message)));
                    let _ = models_state.try_set("failed");
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
        }
    };
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

    // Exports.
    let current_record = move || spec_now.get_untracked().map(|s| outcomes.with_untracked(|o| record_of(&s, o)));
    let file_stem =
        move || spec_now.get_untracked().map(|s| format!("wmlab-llm-{}-{}", s.label(), s.id)).unwrap_or_default();
    let export_jsonl = move |_| {
        let text: String = outcomes
            .with_untracked(|os| os.iter().filter_map(|o| serde_json::to_string(o).ok()).map(|l| l + "\n").collect());
        if let Err(e) = web::download(&format!("{}.jsonl", file_stem()), "application/x-ndjson", &text) {
            error.set(Some(format!("The download failed: {e}.")));
        }
    };
    let export_csv = move |_| {
        if let Some(r) = current_record() {
            match r.to_csv() {
                Ok(t) => {
                    if let Err(e) = web::download(&format!("{}.csv", file_stem()), "text/csv", &t) {
                        error.set(Some(format!("The download failed: {e}.")));
                    }
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        }
    };
    let export_json = move |_| {
        if let Some(r) = current_record() {
            match r.to_json() {
                Ok(t) => {
                    if let Err(e) = web::download(&format!("{}.json", file_stem()), "application/json", &t) {
                        error.set(Some(format!("The download failed: {e}.")));
                    }
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        }
    };
    let open_results = move |_| {
        if let Some(r) = current_record() {
            state.result.set(Some(r));
            state.error.set(None);
            web::set_hash("#/results");
        }
    };
    let share_link = Memo::new(move |_| {
        if !matches!(run_state.get(), "done" | "cancelled") {
            return None;
        }
        let spec = spec_now.get()?;
        let r = outcomes.with(|o| record_of(&spec, o));
        Some(share::fragment(&r).map(|f| format!("{}{}", web::base_url(), f)).map_err(|e| e.to_string()))
    });
    let copy_link = move |_| {
        if let Some(Ok(l)) = share_link.get_untracked() {
            let _ = web::window().navigator().clipboard().write_text(&l);
            copied.set(true);
        }
    };

    let p = move || progress.get().unwrap_or_default();
    let first_failure = move || {
        outcomes.with(|os| {
            let failed: Vec<&Outcome> = os.iter().filter(|o| o.error.is_some()).collect();
            let first = failed.first()?.error.as_ref()?;
            Some(format!(
                "{} of {} samples failed. First: {} ({})",
                failed.len(),
                os.len(),
                first.message,
                first.kind.as_str()
            ))
        })
    };

    let provider_box = view! {
        <fieldset class="llm-provider">
            <legend>"Provider"</legend>
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
                    <button id="llm-fetch-models" on:click=fetch_models data-state=move || models_state.get()>"Fetch models"</button>
                    <span class="small" id="llm-model-count">{move || { let n = models.with(Vec::len); (n > 0).then(|| format!(" {n} models")) }}</span>
                }, "")}
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
                {field("Concurrency", text_input("llm-concurrency", f.concurrency), "requests in flight at once")}
                {field("Prices per 1M tokens", view! {
                    "in " <input type="text" id="llm-price-in" class="short" prop:value=move || f.price_in.get() on:input=move |ev| f.price_in.set(event_target_value(&ev))/>
                    " out " <input type="text" id="llm-price-out" class="short" prop:value=move || f.price_out.get() on:input=move |ev| f.price_out.set(event_target_value(&ev))/>
                }, "optional: gives an estimated cost")}
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
    };

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

    let suites_box = view! {
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
                    {field("Context tokens", text_input("llm-gen-ctx", f.gen_ctx), "cl100k tokens; the paper: 4000")}
                    {field("Seed", text_input("llm-gen-seed", f.gen_seed), "")}
                </div>
            </div>
            <div class="grid2">
                {field("Slice", text_input("llm-slice", f.slice), "at most this many samples per suite (0 = all)")}
            </div>
        </fieldset>
    };

    view! {
        <section id="llm" class="llm study-form" data-run=move || run_state.get() data-run-seq=move || run_seq.get()>
            <h1>"Language models"</h1>
            <p>"Run the N-back, the Little Retrieval Test and Minerva against your own provider or a local server. \
                Every request goes from this tab straight to the provider; results stay here until you export or share them."</p>
            {move || offer.get().map(|(s, done)| view! {
                <div class="llm-banner" id="llm-resume-banner">
                    <p>{format!("An unfinished run ({}, {}, started {}) has {done} samples saved.", s.label(), s.provider.model, s.created)}</p>
                    <button class="primary" id="llm-resume" on:click=on_resume_saved>"Resume it"</button>
                    " "
                    <button id="llm-discard" on:click=on_discard>"Discard it"</button>
                </div>
            })}
            {provider_box}
            {suites_box}
            <div class="actions llm-actions">
                <button class="primary" id="llm-start" on:click=on_start disabled=running>"Start"</button>
                <button id="llm-pause" on:click=on_pause disabled=move || run_state.get() != "running">"Pause"</button>
                <button id="llm-continue" on:click=on_continue disabled=move || run_state.get() != "paused">"Continue"</button>
                <button id="llm-cancel" on:click=on_cancel disabled=move || !running()>"Cancel"</button>
                {move || (run_state.get() == "cancelled").then(|| view! {
                    <button id="llm-resume-cancelled" on:click=on_resume_saved>"Resume"</button>
                })}
            </div>
            {move || error.get().map(|e| view! { <p class="error" id="llm-error" role="alert">{e}</p> })}
            {move || notice.get().map(|e| view! { <p class="notice" id="llm-notice">{e}</p> })}
            <div class="llm-progress" id="llm-progress-box" class:hidden=move || progress.with(|p| p.is_none()) && run_state.get() != "loading"
                data-done=move || p().done data-total=move || p().total>
                <progress id="llm-progress" max=move || p().total.max(1) value=move || p().done></progress>
                <p>
                    {move || if run_state.get() == "loading" { "Preparing the samples… ".to_string() } else { String::new() }}
                    <span id="llm-done">{move || p().done}</span> " / " <span id="llm-total">{move || p().total}</span> " samples"
                    {move || { let r = p().resumed; (r > 0).then(|| format!(" ({r} from the saved log)")) }}
                    " · ETA " <span id="llm-eta">{move || p().eta_ms.map(fmt_ms).unwrap_or_else(|| "—".into())}</span>
                    " · tokens in " <span id="llm-tokens-in">{move || p().tokens_in}</span>
                    ", out " <span id="llm-tokens-out">{move || p().tokens_out}</span>
                    " · cost " <span id="llm-cost">{move || p().cost.map(|c| format!("{c:.4}")).unwrap_or_else(|| "—".into())}</span>
                    " · errors " <span id="llm-failed">{move || p().failed}</span>
                    " · requests " <span id="llm-requests">{move || p().requests}</span>
                    " (cache " <span id="llm-cache-hits">{move || p().cache_hits}</span>
                    ", retries " <span id="llm-retries-count">{move || p().retries}</span> ")"
                    " · " <span id="llm-elapsed">{move || fmt_ms(p().elapsed_ms)}</span>
                </p>
            </div>
            {move || first_failure().map(|m| view! { <p class="small error" id="llm-failures">{m}</p> })}
            <div class:hidden=move || outcomes.with(Vec::is_empty)>
                <h2>"Samples"</h2>
                <LlmLog outcomes=outcomes samples=samples/>
            </div>
            {move || matches!(run_state.get(), "done" | "cancelled").then(|| view! {
                <div class="llm-results" id="llm-results">
                    <h2>"Charts"</h2>
                    {outcomes.with(|o| view! { <LlmCharts outcomes=o.clone()/> })}
                    <h2>"Export and share"</h2>
                    <div class="actions">
                        <button id="llm-export-jsonl" on:click=export_jsonl>"Download JSONL (one line per sample)"</button>
                        <button id="llm-export-csv" on:click=export_csv>"Download CSV"</button>
                        <button id="llm-export-json" on:click=export_json>"Download result (JSON)"</button>
                        <button id="llm-open-results" on:click=open_results>"Open in Results"</button>
                    </div>
                    {move || share_link.get().map(|l| match l {
                        Ok(l) => view! {
                            <div class="share">
                                <input id="llm-share-link" type="text" readonly prop:value=l.clone() value=l/>
                                <button id="llm-copy-link" on:click=copy_link>{move || if copied.get() { "Copied" } else { "Copy share link" }}</button>
                            </div>
                        }.into_any(),
                        Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                    })}
                </div>
            })}
        </section>
    }
}
