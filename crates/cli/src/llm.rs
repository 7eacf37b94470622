//! `wmlab llm run`: run a text suite against a model over HTTP, resumably.
//!
//! Files in OUT: `log.jsonl` (one line per finished sample and per dialogue turn, written and
//! flushed as they happen; a rerun with the same OUT continues where it stopped), `record.json` and
//! `record.csv` (the core result record), and with `--cache FILE` a JSONL response cache.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use wmlab_core::llm::nback::{self, BlockSource, DialogueOptions, NbackConfig, Protocol, Variant};
use wmlab_core::llm::run::{GeneratedRun, LlmRun, Needs, SnapshotRun, SuiteData};
use wmlab_core::llm::vision::{self, Render, VisionConfig};
use wmlab_core::llm::{Sample, latent, lrt, minerva, pi, snapshot};
use wmlab_core::record::{ResultRecord, Setting};
use wmlab_llm::native::{StdClock, UreqTransport, block_on};
use wmlab_llm::record::{iso8601, to_record, to_vision_record};
use wmlab_llm::runner::MetaEntry;
use wmlab_llm::{Clock, Control, LogEntry, MemoryCache, NoCache, Outcome, ProviderConfig, ProviderKind};
use wmlab_llm::{Progress, Reasoning, RunLog, RunOptions, Runner, Secret};

#[derive(Subcommand, Debug)]
pub enum LlmCmd {
    /// Run a suite (nback, lrt, minerva, minerva-snapshot, worm-vision) against a model; resumable.
    Run(Box<RunArgs>),
    /// Write a run folder as an Inspect AI evaluation log (FILE.json or FILE.eval) for `inspect view`.
    #[command(long_about = crate::inspect::LONG_ABOUT)]
    Export(crate::inspect::ExportArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuiteArg {
    Nback,
    Lrt,
    Minerva,
    MinervaSnapshot,
    /// The WorM tasks and the spatial N-back as frames (--render image|text), scored as people are.
    WormVision,
    /// PI-LLM (Wang & Sun): key–value updates, then each key's last value (--keys, --updates,
    /// --value-len, --sessions, --order).
    PiLlm,
    /// Tasks that need a latent state (Huang et al.): number-guessing, yes-no, math-magic (--tasks,
    /// --range, --trials, --questions, --cot).
    Latent,
}

impl SuiteArg {
    fn as_str(self) -> &'static str {
        match self {
            SuiteArg::Nback => "nback",
            SuiteArg::Lrt => "lrt",
            SuiteArg::Minerva => "minerva",
            SuiteArg::MinervaSnapshot => "minerva-snapshot",
            SuiteArg::WormVision => "worm-vision",
            SuiteArg::PiLlm => "pi-llm",
            SuiteArg::Latent => "latent",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProviderArg {
    /// Any OpenAI-compatible endpoint (OpenAI, OpenRouter, Groq, Mistral, Together, Ollama, llama.cpp,
    /// vLLM, LM Studio).
    Openai,
    Anthropic,
    Gemini,
}

impl ProviderArg {
    fn kind(self) -> ProviderKind {
        match self {
            ProviderArg::Openai => ProviderKind::OpenAi,
            ProviderArg::Anthropic => ProviderKind::Anthropic,
            ProviderArg::Gemini => ProviderKind::Gemini,
        }
    }
}

fn default_data_dir() -> PathBuf {
    // crates/cli → the repo root's sibling `shared/data/minerva`.
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/minerva"))
}

fn default_pi_vocabulary() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/")).join(wmlab_core::llm::pi::VOCABULARY_PATH)
}

/// PI-LLM's configuration from the arguments.
pub fn pi_config(a: &RunArgs) -> anyhow::Result<pi::PiConfig> {
    Ok(pi::PiConfig {
        keys: a.keys,
        updates: a.updates.clone().unwrap_or_else(|| pi::PAPER_UPDATES.to_vec()),
        value_len: a.value_len,
        sessions: a.sessions,
        order: pi::Order::parse(&a.order)
            .ok_or_else(|| anyhow::anyhow!("--order {}: random or sequential", a.order))?,
        seed: a.seed,
    })
}

/// The latent-state suite's configuration from the arguments.
pub fn latent_config(a: &RunArgs) -> anyhow::Result<latent::LatentConfig> {
    let tasks = match &a.tasks {
        None => latent::LatentTask::ALL.to_vec(),
        Some(list) => list
            .iter()
            .map(|t| {
                latent::LatentTask::parse(t).ok_or_else(|| {
                    format!("--tasks: `{t}` is not a latent-state task (number-guessing, yes-no, math-magic)")
                })
            })
            .collect::<Result<_, _>>()
            .map_err(anyhow::Error::msg)?,
    };
    let cfg = latent::LatentConfig {
        tasks,
        range: a.range,
        trials: a.trials.map_or(20, |t| t as usize),
        questions: a.questions,
        cot: a.cot,
        seed: a.seed,
    };
    cfg.check()?;
    Ok(cfg)
}

/// PI-LLM's vocabulary from `--pi-data`.
fn pi_vocabulary(a: &RunArgs) -> anyhow::Result<pi::Vocabulary> {
    let p = &a.pi_data;
    let gz = fs::read(p).map_err(|e| anyhow::anyhow!("cannot read {}: {e} (set --pi-data FILE)", p.display()))?;
    let text = String::from_utf8(snapshot::gunzip(&gz).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?)
        .map_err(|_| format!("{} is not UTF-8 text", p.display()))
        .map_err(anyhow::Error::msg)?;
    Ok(pi::Vocabulary::from_json(&text)?)
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[arg(long, value_enum)]
    pub suite: SuiteArg,
    /// N-back variant: letters, letters_30, grids_3x3, grids_4x4, grids_5x5, grids_7x7,
    /// grids_3x3_abstraction, grids_3x3_abstraction_2.
    #[arg(long, default_value = "letters")]
    pub variant: String,
    /// N-back protocol: readme, base, noise, feedback, cot (default: the variant's own).
    #[arg(long)]
    pub protocol: Option<String>,
    /// N-back values of N, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3")]
    pub n: Vec<u8>,
    /// N-back: what the model sees of the earlier trials — full (the published dialogue), note (only
    /// its own note from its last turn, at most --note-tokens) or none (the current stimulus alone).
    #[arg(long, default_value = "full", value_parser = ["full", "note", "none"])]
    pub history: String,
    /// N-back with --history note: the most tokens a note keeps (a word of k characters counts
    /// ⌈k/4⌉); its capacity, as a span is a person's.
    #[arg(long, default_value_t = 64)]
    pub note_tokens: usize,
    /// N-back: COUNT new blocks per N from the generator (the variant's published block length and
    /// number of matches, --seed), instead of the published files; any N ≥ 1.
    #[arg(long, value_name = "COUNT")]
    pub new_blocks: Option<usize>,
    /// LRT line counts, comma-separated (default: the reference grid 500..6500).
    #[arg(long, value_delimiter = ',')]
    pub lines: Option<Vec<usize>>,
    /// LRT tests per line count.
    #[arg(long, default_value_t = 50)]
    pub tests: usize,
    /// LRT: include the ordered lines.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub ordered: bool,
    /// LRT block sizes B of the shuffled lines, comma-separated (1 = a full shuffle; `10,250` = the
    /// README's block-shuffle figure; `none` = no shuffled lines). Each B is its own series.
    #[arg(long, default_value = "1", value_name = "B,...")]
    pub shuffle_blocks: String,
    /// LRT: where the instruction goes: uniform (the paper's intent) or reference (the published code's
    /// `lines.insert(k - 1, ...)`).
    #[arg(long, default_value = "uniform", value_parser = lrt::Insertion::parse)]
    pub insertion: lrt::Insertion,
    /// Minerva tasks, comma-separated (default: the paper's set). worm-vision: WorM task ids and
    /// nback-spatial (default VSR,CD-Color,VIR,SMU,nback-spatial). latent: number-guessing, yes-no,
    /// math-magic (default: all three).
    #[arg(long, value_delimiter = ',')]
    pub tasks: Option<Vec<String>>,
    /// worm-vision: frames as PNG images (`image`, for multimodal models) or as character grids (`text`).
    #[arg(long, default_value = "image", value_name = "image|text")]
    pub render: String,
    /// worm-vision: image side in px (96–1024; the 96×96 frames enlarged without smoothing).
    #[arg(long, default_value_t = wmlab_core::llm::vision::DEFAULT_SIZE, value_name = "PX")]
    pub size: u32,
    /// worm-vision: characters per row of a text frame (12, 16, 24, 32, 48 or 96).
    #[arg(long, default_value_t = wmlab_core::llm::vision::DEFAULT_TEXT_COLS, value_name = "N")]
    pub text_cols: u32,
    /// worm-vision: trials per WorM task, and blocks per level of the N-back (its levels: --n; default
    /// 4). latent: Yes-No Deduction and Math Magic conversations each (default 20; the authors: 200 and
    /// 150).
    #[arg(long, value_name = "N")]
    pub trials: Option<u32>,
    /// latent: Number Guessing's numbers, 1 to N (the paper: 10; its Table 2: 2–40).
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub range: u32,
    /// latent: the most questions of a Yes-No Deduction trial (the paper: 250).
    #[arg(long, default_value_t = 250, value_name = "Q")]
    pub questions: usize,
    /// latent: Math Magic asks for the model's analysis before its answer (the paper's CoT, Table 6b).
    #[arg(long)]
    pub cot: bool,
    /// Minerva generator context length in cl100k tokens; a comma list (`500,1000,2000,4000,8000`) runs
    /// every task sized by context at each length in one run (Tables 7 and 11).
    #[arg(long, default_value = "4000", value_name = "TOKENS,...")]
    pub context_tokens: String,
    /// Minerva: operation steps of the stateful tasks (quantity_state, set_state, theory_of_mind; default
    /// 200 / 100 / 100); a comma list (`50,100,200,400`) runs each at every count in one run (Fig. 6).
    #[arg(long, default_value = "", value_name = "STEPS,...")]
    pub steps: String,
    /// Minerva: the wording of the instruction of string_search_word, group_association, replace_all and
    /// quantity_state: 1 (the paper's standard prompt), 2 (its second wording) or 1,2 (both on the same
    /// trials, as Tables 8 and 12).
    #[arg(long, default_value = "", value_name = "1|2|1,2")]
    pub prompt_variants: String,
    /// Minerva generator samples per grid cell (default: the paper's).
    #[arg(long)]
    pub samples_per_cell: Option<usize>,
    /// PI-LLM: keys tracked (1–46; the paper: 46).
    #[arg(long, default_value_t = wmlab_core::llm::pi::PAPER_KEYS)]
    pub keys: usize,
    /// PI-LLM: updates per key, comma-separated, one level each (default: the paper's 16 levels,
    /// 2,3,4,6,8,12,17,24,34,48,68,97,139,197,281,400).
    #[arg(long, value_delimiter = ',', value_name = "U,...")]
    pub updates: Option<Vec<usize>>,
    /// PI-LLM: values run together into one (1 = a value as it is; the paper's test4 goes to 40).
    #[arg(long, default_value_t = 1, value_name = "V")]
    pub value_len: usize,
    /// PI-LLM: streams per level of updates, each its own draw (the authors ran 5–50).
    #[arg(long, default_value_t = 5)]
    pub sessions: usize,
    /// PI-LLM: how the keys' updates interleave: random (never a key twice in a row) or sequential.
    #[arg(long, default_value = "random", value_parser = ["random", "sequential"])]
    pub order: String,
    /// PI-LLM: the vocabulary (categories and their values; gzipped JSON).
    #[arg(long, value_name = "FILE", default_value_os_t = default_pi_vocabulary())]
    pub pi_data: PathBuf,
    /// Minerva data folder (minerva_snapshot/ and the word list).
    #[arg(long, value_name = "DIR", default_value_os_t = default_data_dir())]
    pub data: PathBuf,
    /// Run only the first N samples.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Ask each item K times (Inspect's epochs; after --limit): summaries take each item's mean over its
    /// repeats, so n counts items, and add `<metric>_repeat_sd`, the mean spread across repeats. Each
    /// repeat is its own request (never the cache's copy of another). 1–100.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub repeats: u32,
    #[arg(long, value_enum)]
    pub provider: ProviderArg,
    /// API base URL (default: the provider's public one), e.g. http://127.0.0.1:18080/v1.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model, or several as a comma list: one run per model, side by side, in a sub-folder of
    /// `--out` named after it, on the same suite, items and seed (`models.json` lists them).
    #[arg(long, value_name = "M[,M…]")]
    pub model: String,
    /// Requests in flight at once; with several models a comma list gives each its own (one value:
    /// each the same).
    #[arg(long, value_name = "N[,N…]", value_delimiter = ',', default_value = "4")]
    pub concurrency: Vec<usize>,
    /// Sampling temperature. Without --temperature, --max-tokens and --top-p each suite is sampled as
    /// its paper did: N-back at the API's default temperature with no cap, LRT at 0 with 10 tokens,
    /// Minerva at 0, top-p 1, 4,096 tokens. Giving any of the three sends what is given, for every suite
    /// (temperature 0 when only the others are given).
    #[arg(long, allow_negative_numbers = true)]
    pub temperature: Option<f64>,
    /// Reply length cap (Anthropic needs one: 1024 when absent).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    #[arg(long)]
    pub top_p: Option<f64>,
    /// Sampling seed sent to APIs that take one.
    #[arg(long)]
    pub sampling_seed: Option<i64>,
    /// How long a reasoning model may think: off, low, medium, high (OpenAI-compatible
    /// `reasoning_effort`; budgets of 1,024 / 4,096 / 16,384 tokens for Anthropic and Gemini), or a
    /// number of tokens (Anthropic, 1,024 or more; Gemini). Absent: the model's default. Its reasoning
    /// is logged and never scored either way.
    #[arg(long, value_name = "EFFORT")]
    pub reasoning: Option<String>,
    /// Output directory; rerunning with the same one resumes.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY /
    /// GEMINI_API_KEY). A server on localhost needs none.
    #[arg(long, value_name = "VAR")]
    pub key_env: Option<String>,
    /// Send no key even to a non-local server.
    #[arg(long)]
    pub no_key: bool,
    /// Seed of the generated items and of the retry jitter.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Retries per request (429, 5xx, timeouts, network).
    #[arg(long, default_value_t = 6)]
    pub retries: u32,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
    /// First backoff wait in ms (doubles per retry, with jitter).
    #[arg(long, default_value_t = 1000)]
    pub backoff_ms: u64,
    /// Longest wait in seconds honoured when the provider asks for one (Retry-After, rate-limit
    /// reset); a longer request is cut to this, and every wait shows on the progress line.
    #[arg(long, default_value_t = 60.0)]
    pub max_wait: f64,
    /// Redo samples that failed in the previous run of this OUT.
    #[arg(long)]
    pub retry_errors: bool,
    /// A staircase instead of a fixed number of trials, one trial at a time: worm-vision per task (CD:
    /// set size at 75 % right; VSR / VSRec: list length at half the lists whole; nback-spatial: N),
    /// nback on N (one block per step, passed at 80 % right). The record keeps each run's track and
    /// estimate. Resumes like any run.
    #[arg(long)]
    pub adaptive: bool,
    /// JSONL response cache file (shared between runs and OUT dirs).
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,
    /// Leave the prompts out of log.jsonl (much smaller for long LRT items).
    #[arg(long)]
    pub no_prompts: bool,
    /// Price per 1M input tokens, for the cost estimate.
    #[arg(long)]
    pub price_in: Option<f64>,
    /// Price per 1M output tokens.
    #[arg(long)]
    pub price_out: Option<f64>,
    /// Stop before the request that would take the estimated cost past this (in the prices' currency;
    /// needs --price-in or --price-out). The rest of the run has no outcome: rerun with a higher limit
    /// to continue.
    #[arg(long, value_name = "COST")]
    pub max_cost: Option<f64>,
    /// Send the items through the provider's batch API (OpenAI Batch, Anthropic Message Batches,
    /// Gemini batch mode: half the price, separate rate limits, replies within 24 hours) and wait for
    /// it. Single-request suites only (lrt, minerva, minerva-snapshot, pi-llm). The batch id is in log.jsonl:
    /// a rerun into the same --out polls it instead of sending another; items the batch returns as
    /// failed are sent as ordinary requests.
    #[arg(long)]
    pub batch: bool,
    /// Seconds before the first look at an open batch; each wait doubles, up to --batch-poll-max.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub batch_poll: f64,
    /// The longest wait in seconds between looks at an open batch.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    pub batch_poll_max: f64,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

fn is_local(url: &str) -> bool {
    let u = url.to_ascii_lowercase();
    ["://localhost", "://127.", "://[::1]", "://0.0.0.0"].iter().any(|p| u.contains(p))
}

fn read_key(a: &RunArgs, kind: ProviderKind, base_url: &str) -> anyhow::Result<Secret> {
    if a.no_key {
        return Ok(Secret::none());
    }
    let var = a.key_env.clone().unwrap_or_else(|| kind.default_key_env().to_string());
    match std::env::var(&var) {
        Ok(v) if !v.trim().is_empty() => Ok(Secret::new(v)),
        _ if is_local(base_url) => Ok(Secret::none()),
        _ => Err(anyhow::anyhow!(
            "no API key: set {var} (or name another variable with --key-env VAR; --no-key for a server without keys)"
        )),
    }
}

/// The visual suite's configuration from the arguments.
pub fn vision_config(a: &RunArgs) -> anyhow::Result<VisionConfig> {
    let render = Render::parse(&a.render)
        .ok_or_else(|| anyhow::anyhow!("--render: `{}` is neither image nor text", a.render))?;
    let list = a.tasks.as_ref().map(|t| t.join(",")).unwrap_or_else(|| "VSR,CD-Color,VIR,SMU,nback-spatial".into());
    let mut cfg =
        VisionConfig::new(VisionConfig::parse_tasks(&list).map_err(|e| anyhow::anyhow!("--tasks: {e}"))?, render);
    cfg.trials = a.trials.unwrap_or(4);
    cfg.nback_ns = a.n.clone();
    cfg.seed = a.seed;
    cfg.size = a.size;
    cfg.text_cols = a.text_cols;
    cfg.check()?;
    Ok(cfg)
}

/// The text N-back suite's configuration from the arguments.
pub fn nback_config(a: &RunArgs) -> anyhow::Result<NbackConfig> {
    let variant = Variant::parse(&a.variant)
        .ok_or_else(|| {
            let all: Vec<&str> = Variant::ALL.iter().map(|v| v.as_str()).collect();
            format!("unknown N-back variant '{}' (known: {})", a.variant, all.join(", "))
        })
        .map_err(anyhow::Error::msg)?;
    let protocol = match &a.protocol {
        None => variant.default_protocol(),
        Some(p) => Protocol::parse(p)
            .ok_or_else(|| {
                let all: Vec<&str> = Protocol::ALL.iter().map(|v| v.as_str()).collect();
                format!("unknown protocol '{p}' (known: {})", all.join(", "))
            })
            .map_err(anyhow::Error::msg)?,
    };
    let mut options = DialogueOptions::new(protocol);
    options.seed = a.seed;
    if a.history == "note" && a.note_tokens == 0 {
        return Err(anyhow::anyhow!("--note-tokens: at least 1 (a note of 0 tokens is --history none)"));
    }
    options.history = nback::History::parse(&a.history, a.note_tokens)
        .ok_or_else(|| anyhow::anyhow!("--history {}: full, note or none", a.history))?;
    let source = match a.new_blocks {
        None => BlockSource::Published,
        Some(0) => return Err(anyhow::anyhow!("--new-blocks: at least 1 block per N")),
        Some(count) => {
            let (len, matches) = variant.published_shape();
            BlockSource::Generated { count, len, matches, seed: a.seed }
        }
    };
    let cfg = NbackConfig { variant, ns: a.n.clone(), blocks: None, limit: None, options, source };
    cfg.validate()?;
    Ok(cfg)
}

/// The samples of the run the arguments ask for ([`llm_run`]), with the data it reads.
pub fn build_samples(a: &RunArgs, run: &LlmRun) -> anyhow::Result<Vec<Sample>> {
    let data = ReadData::read(a, &run.needs())?;
    let samples = run.samples(&data.lend())?;
    if samples.is_empty() {
        anyhow::bail!("no samples to run (check --tasks / --n / --limit)");
    }
    Ok(samples)
}

/// The run the arguments ask for, as the LLM page would fill it: the one suite, `--limit` as the
/// page's slice (spread over the conditions: a limit of 3 on N-back runs a block of each N),
/// `--repeats`.
pub fn llm_run(a: &RunArgs) -> anyhow::Result<LlmRun> {
    if a.limit == Some(0) {
        anyhow::bail!("--limit 0 runs nothing: give at least 1, or leave it out for every sample");
    }
    let mut run = LlmRun { slice: a.limit.unwrap_or(0), repeats: a.repeats, ..Default::default() };
    match a.suite {
        SuiteArg::WormVision => run.vision = Some(vision_config(a)?),
        SuiteArg::Nback => run.nback = Some(nback_config(a)?),
        SuiteArg::PiLlm => run.pi = Some(pi_config(a)?),
        SuiteArg::Latent => run.latent = Some(latent_config(a)?),
        SuiteArg::Lrt => {
            let mut cfg = lrt::LrtConfig::default();
            if let Some(l) = &a.lines {
                cfg.lines = l.clone();
            }
            cfg.tests_per_size = a.tests;
            let blocks =
                lrt::parse_block_sizes(&a.shuffle_blocks).map_err(|e| anyhow::anyhow!("--shuffle-blocks {e}"))?;
            cfg.orders = lrt::orders(a.ordered, &blocks);
            if cfg.orders.is_empty() {
                anyhow::bail!("LRT: --ordered false and --shuffle-blocks none leave nothing to run");
            }
            cfg.insertion = a.insertion;
            run.lrt = Some((cfg, a.seed));
        }
        SuiteArg::MinervaSnapshot => {
            run.snapshot = Some(SnapshotRun { tasks: a.tasks.clone(), per_file: 0 });
        }
        SuiteArg::Minerva => {
            run.generated = Some(GeneratedRun {
                tasks: a.tasks.clone(),
                samples_per_cell: a.samples_per_cell,
                seed: a.seed,
                contexts: minerva::Sweep::parse_list(&a.context_tokens, 100, "--context-tokens")?,
                steps: minerva::Sweep::parse_list(&a.steps, 1, "--steps")?,
                variants: minerva::Sweep::parse_variants(&a.prompt_variants)
                    .map_err(|e| anyhow::anyhow!("--prompt-variants: {e}"))?,
            });
        }
    }
    Ok(run)
}

/// What the run needs, read from `--data` (Minerva) and `--pi-data` (PI-LLM).
struct ReadData {
    words: Vec<String>,
    tokenizer: Option<minerva::Tokenizer>,
    snapshot_files: std::collections::BTreeMap<String, Vec<u8>>,
    pi_vocabulary: Option<pi::Vocabulary>,
}

impl ReadData {
    fn read(a: &RunArgs, needs: &Needs) -> anyhow::Result<ReadData> {
        let read = |path: &Path| {
            fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e} (set --data DIR)", path.display()))
        };
        let mut data =
            ReadData { words: Vec::new(), tokenizer: None, snapshot_files: Default::default(), pi_vocabulary: None };
        if needs.words {
            let gz = read(&a.data.join("words_alpha_dwyl_2019-03-13.txt.gz"))?;
            let text = String::from_utf8(snapshot::gunzip(&gz)?)
                .map_err(|e| anyhow::anyhow!("word list is not UTF-8: {e}"))?;
            data.words =
                text.lines().map(|l| l.trim_end_matches('\r')).filter(|w| !w.is_empty()).map(str::to_string).collect();
        }
        if needs.tokenizer {
            data.tokenizer = Some(minerva::Tokenizer::cl100k());
        }
        for (category, task) in &needs.snapshot_files {
            let path = a.data.join("minerva_snapshot").join(snapshot::file_path(category, task));
            data.snapshot_files.insert(task.to_string(), read(&path)?);
        }
        if needs.pi_vocabulary {
            data.pi_vocabulary = Some(pi_vocabulary(a)?);
        }
        Ok(data)
    }
    fn lend(&self) -> SuiteData<'_> {
        SuiteData {
            words: &self.words,
            tokenizer: self.tokenizer.as_ref(),
            snapshot_files: &self.snapshot_files,
            pi_vocabulary: self.pi_vocabulary.as_ref(),
        }
    }
}

/// What a log must agree on to be resumed (the visual suite: its configuration too, so an image run and
/// a text run of the same trials never share a log).
fn fingerprint(
    p: &ProviderConfig,
    suite: SuiteArg,
    vision: Option<&VisionConfig>,
    adaptive: bool,
) -> serde_json::Value {
    let mut v = serde_json::json!({
        "wmlab_llm_log": 1,
        "suite": suite.as_str(),
        "provider": p.kind.as_str(),
        "base_url": p.base_url,
        "model": p.model,
        "temperature": p.temperature,
        "max_tokens": p.max_tokens,
        "top_p": p.top_p,
        "seed": p.seed,
        "paper_sampling": p.paper_sampling,
    });
    // Absent from logs written before the setting existed: they resume as before.
    if let Some(r) = p.reasoning {
        v["reasoning"] = serde_json::json!(r.label());
    }
    if let Some(c) = vision {
        v["vision"] = serde_json::to_value(c).expect("serialises");
    }
    if adaptive {
        v["adaptive"] = serde_json::json!(true);
    }
    v
}

struct LogFile {
    file: File,
}

impl LogFile {
    fn open(path: &Path) -> anyhow::Result<(LogFile, RunLog)> {
        let text = match fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
        };
        let log = RunLog::parse(&text);
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", path.display()))?;
        if !text.is_empty() && !text.ends_with('\n') {
            // a crash cut the last line: end it so the next entry starts on its own line
            file.write_all(b"\n").map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        Ok((LogFile { file }, log))
    }
    fn write(&mut self, e: &LogEntry) {
        let mut line = e.to_line();
        line.push('\n');
        if let Err(err) = self.file.write_all(line.as_bytes()).and_then(|_| self.file.flush()) {
            eprintln!("wmlab: warning: cannot write the log: {err}");
        }
    }
}

fn fmt_ms(ms: f64) -> String {
    let s = (ms / 1000.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

fn progress_message(p: &Progress) -> String {
    let mut m = format!("req {} · tok {}/{}", p.requests, p.tokens_in, p.tokens_out);
    if let Some(w) = &p.waiting {
        m.push_str(&format!(" · {}", w.message()));
    }
    if let Some(b) = &p.batch {
        m.push_str(&format!(" · {b}"));
    }
    if p.failed > 0 {
        m.push_str(&format!(" · {} failed", p.failed));
    }
    if p.retries > 0 {
        m.push_str(&format!(" · {} retries", p.retries));
    }
    if p.cache_hits > 0 {
        m.push_str(&format!(" · {} cached", p.cache_hits));
    }
    if let Some(c) = p.cost {
        m.push_str(&format!(" · cost {c:.4}"));
    }
    if let Some(eta) = p.eta_ms {
        m.push_str(&format!(" · ETA {}", fmt_ms(eta)));
    }
    m
}

pub fn run(cmd: &LlmCmd) -> anyhow::Result<()> {
    match cmd {
        LlmCmd::Run(a) => run_models(a),
        LlmCmd::Export(a) => crate::inspect::export(a),
    }
}

/// Each model and its concurrency, from `--model a,b,c` and `--concurrency` (one value for all, or one
/// per model).
fn models_of(a: &RunArgs) -> anyhow::Result<Vec<(String, usize)>> {
    wmlab_llm::model_list(&a.model, &a.concurrency).map_err(|e| match e {
        wmlab_llm::ModelListError::Concurrency { .. } => anyhow::anyhow!("--concurrency: {e}"),
        e => anyhow::anyhow!("--model {}: {e}", a.model),
    })
}

/// One model: a run into `--out`. Several: each in `--out/<model>/` at once, on its own threads (each
/// with its own concurrency, retries and rate limits), the tables printed as each ends.
fn run_models(a: &RunArgs) -> anyhow::Result<()> {
    let models = models_of(a)?;
    if let [(model, c)] = &models[..] {
        return run_suite(&RunArgs { model: model.clone(), concurrency: vec![*c], ..a.clone() });
    }
    fs::create_dir_all(&a.out).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", a.out.display()))?;
    let list: Vec<serde_json::Value> = models
        .iter()
        .map(|(m, c)| serde_json::json!({ "model": m, "folder": wmlab_llm::folder_name(m), "concurrency": c }))
        .collect();
    let listing = serde_json::to_string_pretty(&serde_json::json!({
        "suite": a.suite.to_possible_value().map(|v| v.get_name().to_string()),
        "models": list,
    }))
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::write_atomic(&a.out.join("models.json"), listing.as_bytes())?;
    let results: Vec<(String, anyhow::Result<()>)> = std::thread::scope(|scope| {
        let runs: Vec<_> = models
            .iter()
            .map(|(m, c)| {
                let one = RunArgs {
                    model: m.clone(),
                    concurrency: vec![*c],
                    out: a.out.join(wmlab_llm::folder_name(m)),
                    quiet: true,
                    ..a.clone()
                };
                (m.clone(), scope.spawn(move || run_suite(&one)))
            })
            .collect();
        runs.into_iter()
            .map(|(m, h)| (m, h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("the run's thread panicked")))))
            .collect()
    });
    let failed: Vec<String> =
        results.iter().filter_map(|(m, r)| r.as_ref().err().map(|e| format!("{m}: {e}"))).collect();
    eprintln!(
        "wmlab: {} of {} models done in {} (one folder each; open their record.json files together on Compare)",
        results.len() - failed.len(),
        results.len(),
        a.out.display()
    );
    if failed.is_empty() { Ok(()) } else { Err(anyhow::Error::msg(failed.join("; "))) }
}

fn run_suite(a: &RunArgs) -> anyhow::Result<()> {
    let kind = a.provider.kind();
    let mut provider = ProviderConfig::new(kind, a.base_url.clone().unwrap_or_default(), &a.model);
    provider.paper_sampling = a.temperature.is_none() && a.max_tokens.is_none() && a.top_p.is_none();
    provider.temperature = Some(a.temperature.unwrap_or(0.0));
    provider.max_tokens = a.max_tokens;
    provider.top_p = a.top_p;
    provider.seed = a.sampling_seed;
    provider.reasoning =
        a.reasoning.as_deref().map(Reasoning::parse).transpose().map_err(|e| anyhow::anyhow!("--{e}"))?;
    provider.check().map_err(|e| anyhow::anyhow!("--reasoning: {e}"))?;
    if let Some(m) = a.max_cost {
        if !(m.is_finite() && m >= 0.0) {
            return Err(anyhow::anyhow!("--max-cost {m}: a cost of 0 or more"));
        }
        if a.price_in.is_none() && a.price_out.is_none() {
            return Err(anyhow::anyhow!(
                "--max-cost needs the prices (--price-in and/or --price-out) to estimate the cost"
            ));
        }
    }
    let key = read_key(a, kind, &provider.base_url)?;
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return Err(anyhow::anyhow!("--timeout must be a positive number of seconds"));
    }
    if !(a.max_wait.is_finite() && a.max_wait >= 0.0) {
        return Err(anyhow::anyhow!("--max-wait must be a number of seconds, 0 or more"));
    }
    let options = RunOptions {
        concurrency: a.concurrency.first().copied().unwrap_or(4).max(1),
        max_retries: a.retries,
        backoff_base_ms: a.backoff_ms,
        max_wait_ms: (a.max_wait * 1000.0) as u64,
        timeout_ms: (a.timeout * 1000.0) as u64,
        seed: a.seed,
        retry_errors: a.retry_errors,
        keep_prompts: !a.no_prompts,
        price_in_per_m: a.price_in,
        price_out_per_m: a.price_out,
        max_cost: a.max_cost,
        batch_poll_ms: (a.batch_poll * 1000.0) as u64,
        batch_poll_max_ms: (a.batch_poll_max * 1000.0) as u64,
        ..Default::default()
    };
    if a.batch {
        if !(a.batch_poll.is_finite() && a.batch_poll > 0.0 && a.batch_poll_max.is_finite() && a.batch_poll_max > 0.0) {
            return Err(anyhow::anyhow!("--batch-poll and --batch-poll-max must be positive numbers of seconds"));
        }
        if a.adaptive {
            return Err(anyhow::anyhow!(
                "--batch and --adaptive do not go together: a staircase asks one trial at a time"
            ));
        }
        if !matches!(a.suite, SuiteArg::Lrt | SuiteArg::Minerva | SuiteArg::MinervaSnapshot | SuiteArg::PiLlm) {
            return Err(anyhow::anyhow!("--batch: {}", wmlab_llm::batch::DIALOGUES_DO_NOT_BATCH));
        }
    }
    // The run as the page would fill it, checked as the page checks it.
    let run = llm_run(a)?;
    run.check().map_err(|e| anyhow::anyhow!("--{e}"))?;
    if a.repeats > 1 && a.adaptive {
        anyhow::bail!("--repeats: a staircase takes more trials instead (--trials)");
    }
    let vision_cfg = run.vision.clone();
    let staircases: Option<Vec<Box<dyn AdaptiveRun>>> = match (a.adaptive, a.suite, &vision_cfg) {
        (false, ..) => None,
        (true, SuiteArg::WormVision, Some(cfg)) => {
            let runs = vision::staircases(cfg).map_err(|e| anyhow::anyhow!("--adaptive: {e}"))?;
            Some(runs.into_iter().map(|run| Box::new((run, cfg.clone())) as Box<dyn AdaptiveRun>).collect())
        }
        (true, SuiteArg::Nback, _) => {
            let run = nback::NbackStaircase::new(nback_config(a)?).map_err(|e| anyhow::anyhow!("--adaptive: {e}"))?;
            Some(vec![Box::new(run) as Box<dyn AdaptiveRun>])
        }
        (true, ..) => {
            return Err(anyhow::anyhow!(
                "--adaptive runs staircases in the visual suite and the N-back suite: use it with \
                        --suite worm-vision or --suite nback"
            ));
        }
    };
    let samples = if staircases.is_some() { Vec::new() } else { build_samples(a, &run)? };

    fs::create_dir_all(&a.out).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", a.out.display()))?;
    let log_path = a.out.join("log.jsonl");
    let (mut log_file, log) = LogFile::open(&log_path)?;
    let fp = fingerprint(&provider, a.suite, vision_cfg.as_ref(), a.adaptive);
    match log.meta() {
        Some(m) if *m != fp => {
            return Err(anyhow::anyhow!(
                "{} belongs to another run ({}); use another --out to start a new one",
                log_path.display(),
                m
            ));
        }
        Some(_) => {}
        None => log_file.write(&LogEntry::Meta(MetaEntry { info: fp })),
    }
    if log.bad_lines > 0 {
        eprintln!("wmlab: {} unreadable line(s) in the log were skipped (an interrupted write)", log.bad_lines);
    }

    let cache = a.cache.as_ref().map(|p| MemoryCache::from_jsonl(&fs::read_to_string(p).unwrap_or_default()));
    let transport = UreqTransport::new();
    let clock = StdClock::new();
    let control = Control::new();

    let bar = if a.quiet {
        ProgressBar::hidden()
    } else if a.adaptive {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::new(samples.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {msg}").expect("template").progress_chars("=> "),
    );
    let mut on_entry = |e: &LogEntry| log_file.write(e);
    // Without a terminal the bar is not drawn: each wait is then a line of its own, so a run held by a
    // provider's Retry-After never sits silent in a log.
    let plain = !a.quiet && !std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut last_wait: Option<wmlab_llm::runner::Waiting> = None;
    let mut on_progress = |p: &Progress| {
        bar.set_position(p.done as u64);
        bar.set_message(wmlab_llm::error::printable(&progress_message(p)));
        if plain
            && p.waiting != last_wait
            && let Some(w) = &p.waiting
        {
            eprintln!("wmlab: {}", w.message());
        }
        last_wait = p.waiting.clone();
    };
    // The one-image probe on a fresh run (a resumed one passed it).
    let probe = vision_cfg.as_ref().is_some_and(|c| c.render == Render::Image)
        && log.entries.iter().all(|e| matches!(e, LogEntry::Meta(_)));
    let mut staircases = staircases;
    let result = match &cache {
        Some(c) => {
            let r = Runner::new(&transport, &clock, c, provider.clone(), key, options.clone());
            if probe {
                check_images(&r, &control)?;
            }
            match &mut staircases {
                Some(runs) => run_staircases(&r, runs, &log, &control, &mut on_entry, &mut on_progress),
                None if a.batch => block_on(r.run_batch(&samples, &log, &control, &mut on_entry, &mut on_progress))
                    .map_err(|e| anyhow::anyhow!("--batch: {}", e.message))?,
                None => block_on(r.run(&samples, &log, &control, &mut on_entry, &mut on_progress)),
            }
        }
        None => {
            let r = Runner::new(&transport, &clock, &NoCache, provider.clone(), key, options.clone());
            if probe {
                check_images(&r, &control)?;
            }
            match &mut staircases {
                Some(runs) => run_staircases(&r, runs, &log, &control, &mut on_entry, &mut on_progress),
                None if a.batch => block_on(r.run_batch(&samples, &log, &control, &mut on_entry, &mut on_progress))
                    .map_err(|e| anyhow::anyhow!("--batch: {}", e.message))?,
                None => block_on(r.run(&samples, &log, &control, &mut on_entry, &mut on_progress)),
            }
        }
    };
    bar.finish_and_clear();
    if let (Some(c), Some(p)) = (&cache, &a.cache) {
        save_cache(c, p)?;
    }

    let mut record = match &vision_cfg {
        Some(cfg) => to_vision_record(&provider, &options, cfg, &result.outcomes, Some(iso8601(clock.now_ms()))),
        None => {
            // The run's settings as the page writes them (one LlmRun), then this run's counts.
            let run_settings = run.settings();
            let mut extra: Vec<(&str, Setting)> = run_settings.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            extra.push(("samples", Setting::Int(samples.len().max(result.outcomes.len()) as i64)));
            if a.batch {
                // How many samples a batch answered (the rest were ordinary requests).
                let batched = result.outcomes.iter().filter(|o| o.batch.is_some()).count();
                extra.push(("batch_answered", Setting::Int(batched as i64)));
            }
            to_record(
                &provider,
                &options,
                &run.label(),
                a.seed,
                &extra,
                &result.outcomes,
                Some(iso8601(clock.now_ms())),
            )
        }
    };
    for run in staircases.iter().flatten() {
        let kept = run.result();
        eprintln!("wmlab: {}: {}", kept.task, kept.describe());
        kept.write_into(&mut record.config.settings);
    }
    write_record(&record, &a.out)?;
    print_table(&record, &result.outcomes, &result.progress);
    if result.limit_reached {
        eprintln!(
            "wmlab: stopped at the spending limit (--max-cost {}; estimated so far {:.4}): rerun with a higher \
             --max-cost into the same --out to continue",
            a.max_cost.unwrap_or(0.0),
            result.progress.cost.unwrap_or(0.0)
        );
    }
    eprintln!(
        "wmlab: {} of {} samples done ({} resumed, {} failed) in {}; log, record.json and record.csv in {}",
        result.progress.done,
        result.progress.total,
        result.progress.resumed,
        result.progress.failed,
        fmt_ms(result.progress.elapsed_ms),
        a.out.display()
    );
    Ok(())
}

/// One staircase of an adaptive LLM run: the visual suite's per task, the text N-back's on N.
trait AdaptiveRun {
    /// The next trial's sample, or `None` once the staircase has settled.
    fn next_sample(&self) -> Option<Sample>;
    /// Take the sample's outcome; false when its request failed (the run can be resumed with
    /// --retry-errors). An answer that cannot be scored counts as wrong, as a person's would.
    fn record(&mut self, o: &Outcome) -> bool;
    fn result(&self) -> wmlab_core::adaptive::StaircaseResult;
}

impl AdaptiveRun for (vision::VisionStaircase, VisionConfig) {
    fn next_sample(&self) -> Option<Sample> {
        self.0.next_sample(&self.1)
    }
    fn record(&mut self, o: &Outcome) -> bool {
        if o.error.is_some() {
            return false;
        }
        match &o.row {
            Some(row) => self.0.record(row),
            None => self.0.staircase.record(false),
        }
        true
    }
    fn result(&self) -> wmlab_core::adaptive::StaircaseResult {
        self.0.result()
    }
}

impl AdaptiveRun for nback::NbackStaircase {
    fn next_sample(&self) -> Option<Sample> {
        nback::NbackStaircase::next_sample(self)
    }
    fn record(&mut self, o: &Outcome) -> bool {
        if o.error.is_some() {
            return false;
        }
        self.record_accuracy(o.scores.get("accuracy").copied().unwrap_or(0.0));
        true
    }
    fn result(&self) -> wmlab_core::adaptive::StaircaseResult {
        nback::NbackStaircase::result(self)
    }
}

/// `--adaptive`: each staircase, one trial at a time (each trial is the staircase's next at the level
/// the answers so far ask; a resumed run takes the logged outcomes and walks the same path). A trial
/// that failed (no answer from the provider, not a wrong answer) stops that staircase: rerun with
/// --retry-errors to continue it.
fn run_staircases<T: wmlab_llm::Transport, C: Clock, K: wmlab_llm::Cache>(
    r: &Runner<T, C, K>,
    runs: &mut [Box<dyn AdaptiveRun>],
    log: &RunLog,
    control: &Control,
    on_entry: &mut dyn FnMut(&LogEntry),
    on_progress: &mut dyn FnMut(&Progress),
) -> wmlab_llm::runner::RunResult {
    let mut all = wmlab_llm::runner::RunResult {
        outcomes: Vec::new(),
        cancelled: false,
        limit_reached: false,
        progress: Progress::default(),
    };
    for run in runs.iter_mut() {
        while let Some(sample) = run.next_sample() {
            let one = block_on(r.run(std::slice::from_ref(&sample), log, control, on_entry, on_progress));
            let p = &one.progress;
            all.progress.done += p.done;
            all.progress.total += 1;
            all.progress.resumed += p.resumed;
            all.progress.failed += p.failed;
            all.progress.requests += p.requests;
            all.progress.tokens_in += p.tokens_in;
            all.progress.tokens_out += p.tokens_out;
            all.progress.elapsed_ms += p.elapsed_ms;
            all.progress.cost = match (all.progress.cost, p.cost) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
            let Some(outcome) = one.outcomes.into_iter().next() else {
                all.cancelled |= one.cancelled;
                all.limit_reached |= one.limit_reached;
                return all;
            };
            let scored = run.record(&outcome);
            all.outcomes.push(outcome);
            if !scored {
                eprintln!("wmlab: {} failed; its staircase stops here (rerun with --retry-errors)", sample.id);
                break;
            }
        }
    }
    all
}

/// The one-image probe before an image run: a refusal stops the run with the provider's words; an answer
/// that does not name the square's colour is a warning (the model may not see the images).
fn check_images<T: wmlab_llm::Transport, C: Clock, K: wmlab_llm::Cache>(
    r: &Runner<T, C, K>,
    control: &Control,
) -> anyhow::Result<()> {
    match block_on(r.probe_images(control)) {
        Err(e) => Err(anyhow::anyhow!(
            "the model did not take an image ({}): choose a model that reads images, or --render text",
            e.message
        )),
        Ok(reply) if !vision::image_probe_seen(&reply) => {
            eprintln!(
                "wmlab: warning: asked the colour of a red square, the model answered {:?}; it may not see the images",
                reply.chars().take(80).collect::<String>()
            );
            Ok(())
        }
        Ok(_) => Ok(()),
    }
}

fn save_cache(c: &MemoryCache, path: &Path) -> anyhow::Result<()> {
    let lines = c.take_new_lines();
    if lines.is_empty() {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        let _ = fs::create_dir_all(parent);
    }
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot open the cache {}: {e}", path.display()))?;
    let mut text = lines.join("\n");
    text.push('\n');
    f.write_all(text.as_bytes()).map_err(|e| anyhow::anyhow!("cannot write the cache: {e}"))
}

fn write_record(record: &ResultRecord, out: &Path) -> anyhow::Result<()> {
    let json = record.to_json().map_err(|e| anyhow::anyhow!("{e}"))?;
    fs::write(out.join("record.json"), json).map_err(|e| anyhow::anyhow!("cannot write record.json: {e}"))?;
    let csv = record.to_csv().map_err(|e| anyhow::anyhow!("{e}"))?;
    fs::write(out.join("record.csv"), csv).map_err(|e| anyhow::anyhow!("cannot write record.csv: {e}"))?;
    Ok(())
}

fn print_table(record: &ResultRecord, outcomes: &[Outcome], p: &Progress) {
    // Several models' runs end on their own threads: one table at a time.
    static ONE_TABLE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _table = ONE_TABLE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let name = |s: &wmlab_core::record::Summary| {
        let c = s.conditions.all_pairs();
        if c.is_empty() {
            s.task.clone()
        } else {
            let c: Vec<String> = c.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} | {}", s.task, c.join(", "))
        }
    };
    let w = record.summaries.iter().map(|s| name(s).chars().count()).max().unwrap_or(4).max(4);
    let mw = record.summaries.iter().map(|s| s.metric.len()).max().unwrap_or(6).max(6);
    out!("{:<w$}  {:<mw$}  {:>5}  {:>8}  {:>7}", "task", "metric", "n", "value", "se");
    for s in &record.summaries {
        let se = s.se.map(|x| format!("{x:.3}")).unwrap_or_default();
        out!("{:<w$}  {:<mw$}  {:>5}  {:>8.3}  {:>7}", name(s), s.metric, s.n, s.value, se);
    }
    let errors: Vec<&Outcome> = outcomes.iter().filter(|o| o.error.is_some()).collect();
    out!(
        "{} samples, {} failed; tokens in {} out {}{}",
        outcomes.len(),
        errors.len(),
        p.tokens_in,
        p.tokens_out,
        p.cost.map(|c| format!("; estimated cost {c:.4}")).unwrap_or_default()
    );
    let mut kinds: Vec<(&str, &str)> = Vec::new();
    for o in &errors {
        let e = o.error.as_ref().expect("filtered");
        if !kinds.iter().any(|(k, _)| *k == e.kind.as_str()) {
            kinds.push((e.kind.as_str(), &e.message));
        }
    }
    for (k, m) in kinds {
        out!("  {k}: {m}");
    }
}
