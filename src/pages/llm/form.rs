//! The LLM page's form: every field as a signal, turned into a run's spec (`RunSpec`: provider,
//! options, the suites' core configs) with plain messages for bad input, and filled back from a saved
//! spec (a resumed run, the last form).

use leptos::prelude::*;
use wmlab_core::llm::lrt::{LrtConfig, Order};
use wmlab_core::llm::nback::{BlockSource, DialogueOptions, History, NbackConfig, Protocol, Variant};
use wmlab_core::llm::vision::{self, Render, VisionConfig};
use wmlab_core::llm::{latent, lrt, minerva, pi, snapshot};
use wmlab_llm::{ModelListError, ProviderConfig, ProviderKind, Reasoning, RunOptions};

use crate::platform::llm_store::RunSpec;
use crate::platform::{local_llm, web};
use wmlab_core::llm::run::{GeneratedRun, LlmRun, SnapshotRun};

/// Base URL presets: (id, label, kind, URL).
pub(super) const PRESETS: &[(&str, &str, ProviderKind, &str)] = &[
    ("openai", "OpenAI", ProviderKind::OpenAi, "https://api.openai.com/v1"),
    ("anthropic", "Anthropic", ProviderKind::Anthropic, "https://api.anthropic.com"),
    ("gemini", "Google Gemini", ProviderKind::Gemini, "https://generativelanguage.googleapis.com/v1beta"),
    ("openrouter", "OpenRouter", ProviderKind::OpenAi, "https://openrouter.ai/api/v1"),
    ("ollama", "Ollama (local)", ProviderKind::OpenAi, "http://localhost:11434/v1"),
    // Not llama-server's default 8080: that is the port scripts/dev/serve.sh serves WM Lab on.
    (
        "llamacpp",
        "llama.cpp server (local, llama-server --port 8081)",
        ProviderKind::OpenAi,
        "http://127.0.0.1:8081/v1",
    ),
    // llama.cpp compiled for the browser, in this tab (src/platform/local_llm.rs): no server, no key.
    ("tab", "In this tab (a small model, no key)", ProviderKind::OpenAi, local_llm::TAB_BASE),
];

pub(super) fn kind_label(k: ProviderKind) -> &'static str {
    match k {
        ProviderKind::OpenAi => "OpenAI-compatible",
        ProviderKind::Anthropic => "Anthropic",
        ProviderKind::Gemini => "Google Gemini",
    }
}

const NOT_LOADED: &str = "In this tab: load a model first (\"Load\" the build's model, or open a .gguf from disk).";

/// Every generator task (the paper's and the extras).
pub(super) fn gen_tasks() -> Vec<&'static str> {
    minerva::TASKS.iter().chain(minerva::EXTRA_TASKS).map(|t| t.0).collect()
}

fn parse_list(s: &str) -> Result<Vec<usize>, String> {
    wmlab_core::list_items(s)
        .map(|p| p.parse::<usize>().map_err(|_| format!("\"{p}\" is not a whole number.")))
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
pub(super) struct Form {
    pub(super) kind: RwSignal<ProviderKind>,
    pub(super) base_url: RwSignal<String>,
    pub(super) model: RwSignal<String>,
    /// Sample each suite as its paper did (the three fields below are then not used); typing in one of
    /// them turns it off.
    pub(super) paper_sampling: RwSignal<bool>,
    pub(super) temperature: RwSignal<String>,
    pub(super) max_tokens: RwSignal<String>,
    pub(super) top_p: RwSignal<String>,
    pub(super) seed: RwSignal<String>,
    /// A reasoning model's effort or thinking budget as typed (empty = the model's default).
    pub(super) reasoning: RwSignal<String>,
    pub(super) concurrency: RwSignal<String>,
    pub(super) price_in: RwSignal<String>,
    pub(super) price_out: RwSignal<String>,
    /// A spending limit as typed (empty = none).
    pub(super) max_cost: RwSignal<String>,
    /// Send LRT and Minerva through the provider's batch API.
    pub(super) batch: RwSignal<bool>,
    pub(super) timeout_s: RwSignal<String>,
    pub(super) max_retries: RwSignal<String>,
    pub(super) backoff_ms: RwSignal<String>,
    pub(super) use_cache: RwSignal<bool>,
    pub(super) slice: RwSignal<String>,
    pub(super) repeats: RwSignal<String>,
    pub(super) nb_on: RwSignal<bool>,
    pub(super) nb_variant: RwSignal<String>,
    pub(super) nb_ns: RwSignal<String>,
    pub(super) nb_protocol: RwSignal<String>,
    /// What the model sees of the earlier trials: `full`, `note` or `none`.
    pub(super) nb_history: RwSignal<String>,
    pub(super) nb_note_tokens: RwSignal<String>,
    pub(super) nb_blocks: RwSignal<String>,
    /// New blocks from the generator (the variant's published shape) instead of the published files.
    pub(super) nb_new: RwSignal<bool>,
    pub(super) nb_seed: RwSignal<String>,
    pub(super) lrt_on: RwSignal<bool>,
    pub(super) lrt_lines: RwSignal<String>,
    pub(super) lrt_tests: RwSignal<String>,
    pub(super) lrt_ordered: RwSignal<bool>,
    pub(super) lrt_shuffled: RwSignal<bool>,
    pub(super) lrt_block: RwSignal<String>,
    /// `uniform` or `reference` ([`wmlab_core::llm::lrt::Insertion`]).
    pub(super) lrt_insertion: RwSignal<String>,
    pub(super) lrt_seed: RwSignal<String>,
    pub(super) lat_on: RwSignal<bool>,
    pub(super) lat_guess: RwSignal<bool>,
    pub(super) lat_yesno: RwSignal<bool>,
    pub(super) lat_magic: RwSignal<bool>,
    pub(super) lat_range: RwSignal<String>,
    pub(super) lat_trials: RwSignal<String>,
    pub(super) lat_questions: RwSignal<String>,
    pub(super) lat_cot: RwSignal<bool>,
    pub(super) lat_seed: RwSignal<String>,
    pub(super) pi_on: RwSignal<bool>,
    pub(super) pi_keys: RwSignal<String>,
    pub(super) pi_updates: RwSignal<String>,
    pub(super) pi_value_len: RwSignal<String>,
    pub(super) pi_sessions: RwSignal<String>,
    pub(super) pi_order: RwSignal<String>,
    pub(super) pi_seed: RwSignal<String>,
    pub(super) snap_on: RwSignal<bool>,
    pub(super) snap_files: RwSignal<Vec<bool>>,
    pub(super) snap_limit: RwSignal<String>,
    pub(super) gen_on: RwSignal<bool>,
    pub(super) gen_tasks: RwSignal<Vec<bool>>,
    pub(super) gen_spc: RwSignal<String>,
    pub(super) gen_ctx: RwSignal<String>,
    pub(super) gen_steps: RwSignal<String>,
    pub(super) gen_variants: RwSignal<String>,
    pub(super) gen_seed: RwSignal<String>,
    pub(super) vis_on: RwSignal<bool>,
    pub(super) vis_tasks: RwSignal<String>,
    /// `image` or `text`.
    pub(super) vis_render: RwSignal<String>,
    pub(super) vis_size: RwSignal<String>,
    pub(super) vis_cols: RwSignal<String>,
    pub(super) vis_trials: RwSignal<String>,
    pub(super) vis_ns: RwSignal<String>,
    pub(super) vis_seed: RwSignal<String>,
}

impl Form {
    pub(super) fn new() -> Self {
        let mut snap = vec![false; snapshot::FILES.len()];
        snap[0] = true;
        let mut gen_on = vec![false; gen_tasks().len()];
        gen_on[0] = true;
        Form {
            kind: RwSignal::new(ProviderKind::OpenAi),
            base_url: RwSignal::new(ProviderKind::OpenAi.default_base_url().to_string()),
            model: RwSignal::new(String::new()),
            paper_sampling: RwSignal::new(true),
            // Empty: with the papers' sampling ticked each suite sends its paper's values, and a field that
            // showed 0 would say otherwise (the N-back paper ran at the API's default temperature).
            temperature: RwSignal::new(String::new()),
            max_tokens: RwSignal::new(String::new()),
            top_p: RwSignal::new(String::new()),
            seed: RwSignal::new(String::new()),
            reasoning: RwSignal::new(String::new()),
            concurrency: RwSignal::new("2".into()),
            price_in: RwSignal::new(String::new()),
            price_out: RwSignal::new(String::new()),
            max_cost: RwSignal::new(String::new()),
            batch: RwSignal::new(false),
            timeout_s: RwSignal::new("120".into()),
            max_retries: RwSignal::new("6".into()),
            backoff_ms: RwSignal::new("1000".into()),
            use_cache: RwSignal::new(true),
            slice: RwSignal::new("0".into()),
            repeats: RwSignal::new("1".into()),
            nb_on: RwSignal::new(true),
            nb_variant: RwSignal::new("letters_30".into()),
            nb_ns: RwSignal::new("1, 2, 3".into()),
            nb_protocol: RwSignal::new("readme".into()),
            nb_history: RwSignal::new("full".into()),
            nb_note_tokens: RwSignal::new("64".into()),
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
            lat_on: RwSignal::new(false),
            lat_guess: RwSignal::new(true),
            lat_yesno: RwSignal::new(true),
            lat_magic: RwSignal::new(true),
            lat_range: RwSignal::new("10".into()),
            lat_trials: RwSignal::new("20".into()),
            lat_questions: RwSignal::new("250".into()),
            lat_cot: RwSignal::new(false),
            lat_seed: RwSignal::new("0".into()),
            pi_on: RwSignal::new(false),
            pi_keys: RwSignal::new(pi::PAPER_KEYS.to_string()),
            pi_updates: RwSignal::new(pi::PAPER_UPDATES.map(|u| u.to_string()).join(", ")),
            pi_value_len: RwSignal::new("1".into()),
            pi_sessions: RwSignal::new("5".into()),
            pi_order: RwSignal::new("random".into()),
            pi_seed: RwSignal::new("0".into()),
            snap_on: RwSignal::new(false),
            snap_files: RwSignal::new(snap),
            snap_limit: RwSignal::new("0".into()),
            gen_on: RwSignal::new(false),
            gen_tasks: RwSignal::new(gen_on),
            gen_spc: RwSignal::new("1".into()),
            gen_ctx: RwSignal::new("4000".into()),
            gen_steps: RwSignal::new(String::new()),
            gen_variants: RwSignal::new(String::new()),
            gen_seed: RwSignal::new("0".into()),
            vis_on: RwSignal::new(false),
            vis_tasks: RwSignal::new("VSR, CD-Color, VIR, SMU, nback-spatial".into()),
            vis_render: RwSignal::new("image".into()),
            vis_size: RwSignal::new(vision::DEFAULT_SIZE.to_string()),
            vis_cols: RwSignal::new(vision::DEFAULT_TEXT_COLS.to_string()),
            vis_trials: RwSignal::new("4".into()),
            vis_ns: RwSignal::new("1, 2".into()),
            vis_seed: RwSignal::new("0".into()),
        }
    }

    /// One spec per model of the model field (a comma list runs several side by side on the same
    /// samples, each with its concurrency: one value for all, or a comma list with one per model).
    pub(super) fn specs(&self) -> Result<Vec<RunSpec>, String> {
        if local_llm::is_tab(&self.base_url.get_untracked()) && local_llm::loaded().is_none() {
            return Err(NOT_LOADED.into());
        }
        let conc: Vec<usize> = wmlab_core::list_items(&self.concurrency.get_untracked())
            .map(|c| num::<usize>(c, "Concurrency").map(|c| c.clamp(1, 64)))
            .collect::<Result<_, _>>()?;
        let models = wmlab_llm::model_list(&self.model.get_untracked(), &conc).map_err(|e| match e {
            ModelListError::Empty => "Choose a model (type its name or press \"Fetch models\").".to_string(),
            ModelListError::Concurrency { .. } => format!("Concurrency: {e}."),
            e => format!("Model: {e}."),
        })?;
        let base = self.spec(&models[0].0)?;
        if base.local.is_some() && models.len() > 1 {
            return Err("In this tab one model runs at a time: give one model.".into());
        }
        let ids = wmlab_app::storage::llm_run_ids(&base.id, models.len());
        let several = models.len() > 1;
        Ok(models
            .iter()
            .zip(ids)
            .map(|((m, c), id)| {
                let mut s = base.clone();
                s.id = id;
                s.provider.model = m.clone();
                s.options.concurrency = *c;
                s.models = if several { models.clone() } else { Vec::new() };
                s
            })
            .collect())
    }

    /// The spec of one model (everything but the model from the form; concurrency set by the caller).
    fn spec(&self, model: &str) -> Result<RunSpec, String> {
        let kind = self.kind.get_untracked();
        let base = self.base_url.get_untracked();
        // WM Lab's own address (a local model server on the port `serve.sh` uses) answers with this app,
        // not a model: say so before any request.
        let own = crate::platform::web::window().location().origin().unwrap_or_default();
        if !own.is_empty() && base.trim().trim_end_matches('/').starts_with(&own) {
            return Err(format!(
                "The base URL {base} is WM Lab's own address, not a model server. Run the model server on \
                 another port (llama.cpp: llama-server --port 8081, then http://127.0.0.1:8081/v1)."
            ));
        }
        // The model in this tab: the one loaded there, on the page's own transport (no batch API).
        let local = if local_llm::is_tab(&base) {
            let Some(m) = local_llm::loaded() else {
                return Err(NOT_LOADED.into());
            };
            if kind != ProviderKind::OpenAi {
                return Err(
                    "In this tab: the kind is OpenAI-compatible (the model in the tab answers chat completions)."
                        .into(),
                );
            }
            if model != m.model {
                return Err(format!("In this tab the model is the one loaded, {}: put its name in Model.", m.model));
            }
            if self.batch.get_untracked() {
                return Err("In this tab there is no batch API: untick batch.".into());
            }
            Some(m)
        } else {
            None
        };
        let mut provider = ProviderConfig::new(kind, base, model);
        provider.temperature = opt_f64(&self.temperature.get_untracked(), "Temperature")?;
        provider.max_tokens = opt_f64(&self.max_tokens.get_untracked(), "Max tokens")?.map(|v| v.max(1.0) as u32);
        provider.top_p = opt_f64(&self.top_p.get_untracked(), "Top-p")?;
        provider.seed = opt_f64(&self.seed.get_untracked(), "Seed")?.map(|v| v as i64);
        provider.paper_sampling = self.paper_sampling.get_untracked();
        let reasoning = self.reasoning.get_untracked();
        if !reasoning.trim().is_empty() {
            provider.reasoning = Some(Reasoning::parse(&reasoning).map_err(|e| format!("Reasoning: {e}."))?);
        }
        provider.check().map_err(|e| format!("Reasoning: {e}."))?;
        let options = RunOptions {
            max_retries: num(&self.max_retries.get_untracked(), "Retries")?,
            backoff_base_ms: num(&self.backoff_ms.get_untracked(), "Backoff")?,
            timeout_ms: (num::<f64>(&self.timeout_s.get_untracked(), "Timeout")? * 1000.0).max(100.0) as u64,
            price_in_per_m: opt_f64(&self.price_in.get_untracked(), "Price in")?,
            price_out_per_m: opt_f64(&self.price_out.get_untracked(), "Price out")?,
            max_cost: opt_f64(&self.max_cost.get_untracked(), "Spending limit")?,
            ..RunOptions::default()
        };
        if options.max_cost.is_some() && options.price_in_per_m.is_none() && options.price_out_per_m.is_none() {
            return Err("A spending limit needs the prices per 1M tokens (in and/or out) to estimate the cost.".into());
        }
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
            let tokens: usize = num(&self.nb_note_tokens.get_untracked(), "Note tokens")?;
            let history = self.nb_history.get_untracked();
            if history == "note" && tokens == 0 {
                return Err("N-back: a note needs at least 1 token (no note at all is \"none\").".into());
            }
            let mut options = DialogueOptions::new(protocol);
            options.history = History::parse(&history, tokens).ok_or("Unknown N-back history.")?;
            let c = NbackConfig { variant, ns, blocks: None, limit: Some(blocks), options, source };
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
        let latent_cfg = if self.lat_on.get_untracked() {
            let tasks: Vec<latent::LatentTask> = [
                (self.lat_guess, latent::LatentTask::NumberGuessing),
                (self.lat_yesno, latent::LatentTask::YesNo),
                (self.lat_magic, latent::LatentTask::MathMagic),
            ]
            .into_iter()
            .filter(|(on, _)| on.get_untracked())
            .map(|(_, t)| t)
            .collect();
            let c = latent::LatentConfig {
                tasks,
                range: num(&self.lat_range.get_untracked(), "Number Guessing range")?,
                trials: num(&self.lat_trials.get_untracked(), "Latent-state trials")?,
                questions: num(&self.lat_questions.get_untracked(), "Yes-No questions")?,
                cot: self.lat_cot.get_untracked(),
                seed: num(&self.lat_seed.get_untracked(), "Latent-state seed")?,
            };
            c.check().map_err(|e| format!("{e}."))?;
            Some(c)
        } else {
            None
        };
        let pi_cfg = if self.pi_on.get_untracked() {
            let c = pi::PiConfig {
                keys: num(&self.pi_keys.get_untracked(), "PI-LLM keys")?,
                updates: parse_list(&self.pi_updates.get_untracked())?,
                value_len: num(&self.pi_value_len.get_untracked(), "PI-LLM value length")?,
                sessions: num(&self.pi_sessions.get_untracked(), "PI-LLM sessions per level")?,
                order: pi::Order::parse(&self.pi_order.get_untracked()).ok_or("PI-LLM: choose an order.")?,
                seed: num(&self.pi_seed.get_untracked(), "PI-LLM seed")?,
            };
            if c.updates.is_empty() {
                return Err("PI-LLM: give the updates per key, e.g. 2, 8, 32.".into());
            }
            Some(c)
        } else {
            None
        };
        let snap = if self.snap_on.get_untracked() {
            let files: Vec<usize> =
                self.snap_files.get_untracked().iter().enumerate().filter(|(_, on)| **on).map(|(i, _)| i).collect();
            if files.is_empty() {
                return Err("Minerva snapshot: tick at least one file.".into());
            }
            let tasks = files.iter().filter_map(|&i| snapshot::FILES.get(i)).map(|f| f.1.to_string()).collect();
            Some(SnapshotRun {
                tasks: Some(tasks),
                per_file: num(&self.snap_limit.get_untracked(), "Entries per file")?,
            })
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
            let contexts = minerva::Sweep::parse_list(&self.gen_ctx.get_untracked(), 100, "Context tokens")?;
            if contexts.is_empty() {
                return Err("Context tokens: give a length (the paper: 4000), or a comma list for a sweep.".into());
            }
            Some(GeneratedRun {
                tasks: Some(tasks),
                samples_per_cell: Some(num::<usize>(&self.gen_spc.get_untracked(), "Samples per cell")?.max(1)),
                seed: num(&self.gen_seed.get_untracked(), "Seed")?,
                contexts,
                steps: minerva::Sweep::parse_list(&self.gen_steps.get_untracked(), 1, "Operation steps")?,
                variants: minerva::Sweep::parse_variants(&self.gen_variants.get_untracked())?,
            })
        } else {
            None
        };
        let vision_cfg = if self.vis_on.get_untracked() {
            if nback.is_some()
                || lrt_cfg.is_some()
                || snap.is_some()
                || generated.is_some()
                || pi_cfg.is_some()
                || latent_cfg.is_some()
            {
                return Err("The visual suite runs on its own (its record is scored like a person's): untick the text suites, or run them separately.".into());
            }
            let render =
                Render::parse(&self.vis_render.get_untracked()).ok_or("Visual suite: choose image or text.")?;
            let tasks = VisionConfig::parse_tasks(&self.vis_tasks.get_untracked())
                .map_err(|e| format!("Visual suite: {e}."))?;
            let mut c = VisionConfig::new(tasks, render);
            c.size = num(&self.vis_size.get_untracked(), "Image size")?;
            c.text_cols = num(&self.vis_cols.get_untracked(), "Grid width")?;
            c.trials = num(&self.vis_trials.get_untracked(), "Trials per task")?;
            c.nback_ns = parse_list(&self.vis_ns.get_untracked())?.into_iter().map(|n| n.min(255) as u8).collect();
            c.seed = num(&self.vis_seed.get_untracked(), "Seed")?;
            c.check().map_err(|e| format!("Visual suite: {e}."))?;
            Some(c)
        } else {
            None
        };
        if nback.is_none()
            && lrt_cfg.is_none()
            && snap.is_none()
            && generated.is_none()
            && vision_cfg.is_none()
            && pi_cfg.is_none()
            && latent_cfg.is_none()
        {
            return Err("Tick at least one suite.".into());
        }
        let repeats: u32 = num(&self.repeats.get_untracked(), "Repeats")?;
        let batch = self.batch.get_untracked();
        if batch && latent_cfg.as_ref().is_some_and(|c| c.tasks.contains(&latent::LatentTask::YesNo)) {
            return Err(
                "Batch mode: Yes-No Deduction is a dialogue, each question asked after the model's last answer. \
                 Untick it, or untick batch."
                    .into(),
            );
        }
        if batch && (nback.is_some() || vision_cfg.is_some()) {
            return Err(
                "Batch mode takes the Little Retrieval Test and Minerva only: N-back and the visual suite are \
                        dialogues, each turn asked after the model's answer to the last. Untick them, or untick batch."
                    .into(),
            );
        }
        let run = LlmRun {
            nback,
            lrt: match lrt_cfg {
                Some(c) => Some((c, num(&self.lrt_seed.get_untracked(), "LRT seed")?)),
                None => None,
            },
            pi: pi_cfg,
            latent: latent_cfg,
            snapshot: snap,
            generated,
            vision: vision_cfg,
            slice: num(&self.slice.get_untracked(), "Slice")?,
            repeats,
        };
        // The core's check, the one the CLI makes: repeats 1–100, none of the visual suite.
        run.check().map_err(|e| {
            let e = e.to_string();
            format!("{}{}.", e[..1].to_uppercase(), &e[1..])
        })?;
        let now = js_sys::Date::now();
        Ok(RunSpec {
            id: format!("{:x}", now as u64),
            provider,
            options,
            use_cache: self.use_cache.get_untracked(),
            run,
            batch,
            created: web::now_iso(),
            models: Vec::new(),
            local,
        })
    }

    /// The spending limit typed in the form, when it reads as a number.
    pub(super) fn max_cost_typed(&self) -> Option<f64> {
        opt_f64(&self.max_cost.get_untracked(), "Spending limit").ok().flatten()
    }

    pub(super) fn load(&self, s: &RunSpec) {
        let o = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        self.kind.set(s.provider.kind);
        self.base_url.set(s.provider.base_url.clone());
        if s.models.is_empty() {
            self.model.set(s.provider.model.clone());
            self.concurrency.set(s.options.concurrency.to_string());
        } else {
            self.model.set(s.models.iter().map(|m| m.0.as_str()).collect::<Vec<_>>().join(", "));
            let c: Vec<String> = s.models.iter().map(|m| m.1.to_string()).collect();
            let same = c.windows(2).all(|w| w[0] == w[1]);
            self.concurrency.set(if same { c[0].clone() } else { c.join(", ") });
        }
        self.temperature.set(o(s.provider.temperature));
        self.max_tokens.set(o(s.provider.max_tokens.map(f64::from)));
        self.top_p.set(o(s.provider.top_p));
        self.paper_sampling.set(s.provider.paper_sampling);
        self.seed.set(o(s.provider.seed.map(|v| v as f64)));
        self.reasoning.set(s.provider.reasoning.map(|r| r.label()).unwrap_or_default());
        self.price_in.set(o(s.options.price_in_per_m));
        self.price_out.set(o(s.options.price_out_per_m));
        self.max_cost.set(o(s.options.max_cost));
        self.batch.set(s.batch);
        self.timeout_s.set((s.options.timeout_ms as f64 / 1000.0).to_string());
        self.max_retries.set(s.options.max_retries.to_string());
        self.backoff_ms.set(s.options.backoff_base_ms.to_string());
        self.use_cache.set(s.use_cache);
        let s = &s.run;
        self.slice.set(s.slice.to_string());
        self.repeats.set(s.repeats.max(1).to_string());
        self.nb_on.set(s.nback.is_some());
        if let Some(c) = &s.nback {
            self.nb_variant.set(c.variant.as_str().into());
            self.nb_ns.set(c.ns.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "));
            self.nb_protocol.set(c.options.protocol.as_str().into());
            let (kind, tokens) = match c.options.history {
                History::Full => ("full", None),
                History::Note { tokens } => ("note", Some(tokens)),
                History::None => ("none", None),
            };
            self.nb_history.set(kind.into());
            if let Some(t) = tokens {
                self.nb_note_tokens.set(t.to_string());
            }
            self.nb_blocks.set(c.limit.unwrap_or(30).to_string());
            self.nb_new.set(matches!(c.source, BlockSource::Generated { .. }));
            if let BlockSource::Generated { seed, .. } = c.source {
                self.nb_seed.set(seed.to_string());
            }
        }
        self.lrt_on.set(s.lrt.is_some());
        if let Some((c, seed)) = &s.lrt {
            self.lrt_seed.set(seed.to_string());
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
        self.lat_on.set(s.latent.is_some());
        if let Some(c) = &s.latent {
            self.lat_guess.set(c.tasks.contains(&latent::LatentTask::NumberGuessing));
            self.lat_yesno.set(c.tasks.contains(&latent::LatentTask::YesNo));
            self.lat_magic.set(c.tasks.contains(&latent::LatentTask::MathMagic));
            self.lat_range.set(c.range.to_string());
            self.lat_trials.set(c.trials.to_string());
            self.lat_questions.set(c.questions.to_string());
            self.lat_cot.set(c.cot);
            self.lat_seed.set(c.seed.to_string());
        }
        self.pi_on.set(s.pi.is_some());
        if let Some(c) = &s.pi {
            self.pi_keys.set(c.keys.to_string());
            self.pi_updates.set(c.updates.iter().map(usize::to_string).collect::<Vec<_>>().join(", "));
            self.pi_value_len.set(c.value_len.to_string());
            self.pi_sessions.set(c.sessions.to_string());
            self.pi_order.set(c.order.as_str().into());
            self.pi_seed.set(c.seed.to_string());
        }
        self.snap_on.set(s.snapshot.is_some());
        if let Some(c) = &s.snapshot {
            let files = c.files();
            self.snap_files.set(snapshot::FILES.iter().map(|f| files.contains(f)).collect());
            self.snap_limit.set(c.per_file.to_string());
        }
        self.gen_on.set(s.generated.is_some());
        if let Some(g) = &s.generated {
            let on = |t: &str| g.tasks.as_ref().is_none_or(|list| list.iter().any(|x| x == t));
            self.gen_tasks.set(gen_tasks().iter().map(|t| on(t)).collect());
            self.gen_spc.set(g.samples_per_cell.unwrap_or(1).to_string());
            let ctx: Vec<String> = g.contexts.iter().map(usize::to_string).collect();
            self.gen_ctx.set(ctx.join(", "));
            self.gen_steps.set(g.steps.iter().map(usize::to_string).collect::<Vec<_>>().join(", "));
            self.gen_variants.set(g.variants.iter().map(u8::to_string).collect::<Vec<_>>().join(", "));
            self.gen_seed.set(g.seed.to_string());
        }
        self.vis_on.set(s.vision.is_some());
        if let Some(c) = &s.vision {
            self.vis_tasks.set(c.tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", "));
            self.vis_render.set(c.render.as_str().into());
            self.vis_size.set(c.size.to_string());
            self.vis_cols.set(c.text_cols.to_string());
            self.vis_trials.set(c.trials.to_string());
            self.vis_ns.set(c.nback_ns.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "));
            self.vis_seed.set(c.seed.to_string());
        }
    }
}
