//! `wmlab`: the WM Lab command line. Datasets for ML (`generate`), a contact sheet of every task
//! (`gallery`), single-thread stimulus throughput (`bench`) and a determinism hash (`hash`), all over the
//! same pure core as the browser app.

/// `println!` for the CLI's stdout: a closed pipe (`wmlab eval … | head -c 1`) ends the program quietly
/// with success, as Unix tools do, instead of panicking ("failed printing to stdout: Broken pipe").
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($t)*) {
            $crate::stdout_failed(e);
        }
    }};
}

/// What [`out!`] does when stdout cannot be written: exit 0 on a closed pipe, else say why and exit 1.
pub(crate) fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("wmlab: error: cannot write stdout: {e}");
    std::process::exit(1);
}

mod bench;
mod compare;
mod dataset;
mod gallery;
mod generate;
mod inspect;
mod llm;
mod npy;
mod pngout;
mod predict;
mod progress;
mod score;
mod sweep;
mod torch;
mod train;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use wmlab_core::{Split, TaskId};

/// Largest `--count` per task id. The paper's train split is 86,400 trials per task; one trial is
/// 20×3×32×32 float32 = 240 KiB in frames.npy, so this cap is ~24 GiB per task.
pub const MAX_COUNT: u64 = 100_000;

#[derive(Parser, Debug)]
#[command(
    name = "wmlab",
    version,
    about = "WM Lab command line: working-memory task datasets, a gallery and benchmarks",
    long_about = "WM Lab command line over the same pure core as the browser app.\n\n\
        Task ids (exactly as written): SC SFR SI SMU STS VIR VSR VSRec CD-Color CD-Orientation CD-Size \
        CD-Gap CD-Conjunction CS.\n\
        Trials are deterministic: (task, split, seed, index) always gives the same bytes, natively and in \
        the browser.",
    after_help = "Examples:\n  wmlab generate --task VIR --split train --count 1000 --seed 1 --out data/vir\n  \
        wmlab generate --task all --split test --count 96 --seed 1 --out data/test --png none\n  \
        wmlab gallery --out gallery.png\n  wmlab bench --seconds 0.5\n  \
        wmlab hash --task CS --split test --count 100 --seed 7\n  \
        wmlab llm run --suite lrt --lines 500,1000 --tests 10 --provider openai --base-url http://127.0.0.1:18080/v1 --model smollm2 --out runs/lrt\n  \
        wmlab llm run --suite nback --variant letters --provider anthropic --model claude-sonnet-4-5 --out runs/nback\n  \
        wmlab score < predictions.jsonl > scored.jsonl\n  \
        wmlab stats < tests.jsonl > p_values.jsonl\n  \
        wmlab train --arch lstm --capacity 32 --preset tiny --steps 300 --backend cpu --seed 86 --out runs/lstm-tiny\n  \
        wmlab eval --checkpoint runs/lstm-tiny --n 100 --record runs/lstm-tiny/record.json"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Write a dataset: frames.npy (N,20,3,32,32 float32), trials.jsonl (labels, masks, conditions),
    /// PNG frames and meta.json.
    #[command(long_about = "Write a dataset of trials START..START+COUNT (default 0..COUNT) of a task and split.\n\n\
        Files in OUT (or OUT/<ID>/ for each id with --task all):\n  \
        frames.npy   NumPy float32 array (COUNT, 20, 3, 32, 32), values in [0,1]; steps after a trial's end \
        are the black padding frame\n  \
        trials.jsonl one JSON object per trial (in order): trial (its index), task, split, seed, seq_len, targets[20], mask[20], \
        conditions, serial_positions[20]\n  \
        png/         {split}_{i:06d}_{t:02d}.png for every real step (96x96 drawn frames, or the 32x32 \
        tensors with --png 32)\n  \
        meta.json    task, parameters, split, count, seed, version, shapes, max_steps\n\n\
        Trial i belongs to condition cell i mod K of the task's grid, so any COUNT is balanced within ±1 \
        per cell. Steps are padded to 20 (the paper's longest trial), or to the longest trial when --set makes \
        longer ones (e.g. --set list_lengths=2,4,8,16 on VSRec: 32 steps); meta.json's max_steps says which.")]
    Generate(GenerateArgs),
    /// Write one PNG contact sheet with a trial of every task id (one row per task).
    Gallery(GalleryArgs),
    /// Measure stimulus generation throughput (frames/s rendered to the 32x32x3 tensor) on one thread.
    #[command(long_about = "Measure stimulus generation throughput on ONE thread: trials generated and \
        every real step drawn at 96x96 and downsampled to the 32x32x3 tensor, as the training pipeline \
        does. Prints one line per task id, then a `joint` line for the training mix (equal trials of the \
        14 ids, round robin) and a `joint-batch` line for the same mix in runs of 10 trials per id, as a \
        training batch of the paper's size holds them. Each line runs for about --seconds.")]
    Bench(BenchArgs),
    /// Print the FNV-1a hash (16 hex digits) of trials 0..COUNT, to compare native and wasm builds.
    Hash(HashArgs),
    /// Language models: run a text suite (N-back, LRT, Minerva) against a model over HTTP.
    #[command(subcommand)]
    Llm(llm::LlmCmd),
    /// Score JSONL lines from stdin ({"metric", "reference", "prediction"}) to stdout, in order.
    #[command(
        long_about = "Score JSONL lines read from stdin and write one JSON line per non-blank input line to stdout, \
        in order. Each input object has `metric` (exact_match, exact_match_strict, final_answer_exact_match, \
        count_accuracy, first_integer, rouge_l, rouge_l_recall, jaccard, theory_of_mind, nback), `reference` and \
        `prediction`; the output is the same object plus `score` (or hit_rate, false_alarm_rate, accuracy, dprime, \
        dprime_notebook for nback), or an `error` field. Errors never stop the stream."
    )]
    Score,
    /// Hypothesis tests on JSONL lines from stdin ({"test": "t1"|"t_ind"|"welch"|"mannwhitney"|
    /// "wilcoxon"|"kruskal"|"binom"|"ci_mean", ...}) to stdout, in order.
    #[command(
        long_about = "Hypothesis tests: read JSON lines from stdin, write one JSON line per non-blank input line to \
        stdout, in order (SciPy's conventions; the same code as the app's p-values).\n\n  \
        {\"test\":\"t1\",\"a\":[..],\"mu\":0.5}            one-sample t-test, two-sided -> {\"statistic\",\"p\"}\n  \
        {\"test\":\"t_ind\",\"a\":[..],\"b\":[..]}          Student's two-sample t-test (pooled variance)\n  \
        {\"test\":\"welch\",\"a\":[..],\"b\":[..]}          Welch's t-test (unequal variances)\n  \
        {\"test\":\"mannwhitney\",\"a\":[..],\"b\":[..]}    U of a; two-sided, normal approximation, tie and \
        continuity corrections\n  \
        {\"test\":\"wilcoxon\",\"a\":[..],\"b\":[..]}       paired signed-rank (b omitted: a against 0); zeros \
        dropped, tie-corrected, no continuity correction; statistic = min(W+, W-)\n  \
        {\"test\":\"kruskal\",\"groups\":[[..],[..]]}     Kruskal-Wallis H, tie-corrected, chi-square with k-1 df\n  \
        {\"test\":\"binom\",\"k\":K,\"n\":N,\"p0\":P}       exact one-sided binomial, P(X >= k) -> {\"p\"}\n  \
        {\"test\":\"ci_mean\",\"a\":[..],\"level\":0.95}    t confidence interval of the mean -> {\"lo\",\"hi\"}\n\n\
        A bad line gives {\"error\": \"...\"} on its line and the rest go on.",
        after_help = "Example:\n  echo '{\"test\":\"t1\",\"a\":[0.61,0.55,0.7,0.58],\"mu\":0.5}' | wmlab stats"
    )]
    Stats,
    /// Train a WorM network jointly on the 14 task ids (flex CPU backend, or wgpu); one JSON line per
    /// validation check on stdout, config + checkpoints (best/, last/ with Adam's state) in OUT.
    Train(train::TrainArgs),
    /// Test a network checkpoint: per-task accuracies, Fig. 4 curves beside the human ones and Table A3
    /// scores as one JSON document; --record writes the result record.
    Eval(train::EvalArgs),
    /// Neural analyses of a network checkpoint (paper Fig. 5, A5, A6, A13: task variance, clusters, FTV,
    /// lesions, STS embedding, similarity) as one JSON document; --record stores them in a result record.
    Analyse(train::AnalyseArgs),
    /// Train and evaluate a grid of configurations one after another into one folder (resumable): the
    /// WorM paper's Table A1 grid with --grid table-a1, or lists of architectures, capacities, batch
    /// sizes, learning rates, task embeddings and seeds; one result record per run and a summary.csv.
    Sweep(sweep::SweepArgs),
    /// A network's raw outputs on trials `wmlab generate` wrote (one task's folder): float32 [N, T, K],
    /// the trial's task head's logits before sigmoid/softmax at every step, to check a model against
    /// another implementation.
    Predict(predict::PredictArgs),
    /// A PyTorch state_dict of the WorM authors' model (their `WM_Model`, e.g. a checkpoint their
    /// train.py saved) as a WM Lab checkpoint of the paper's model, with the same outputs.
    Import(torch::ImportArgs),
    /// A WM Lab checkpoint of the paper's model as a PyTorch state_dict the authors' `WM_Model` loads
    /// (`load_state_dict`).
    Export(torch::ExportArgs),
    /// Several results on one task, as the Compare page draws them: SVG plots (every run together, or
    /// one plot per run as WorM Figs. A2 and A7–A12), the curves and the Table A3 scores as CSV.
    Compare(compare::CompareArgs),
    /// Result records as a Psych-DS dataset: dataset_description.json (every CSV column described, what
    /// was run) and one data/study-wmlab_subject-<id>_session-<k>_data.csv per record.
    Dataset(dataset::DatasetArgs),
}

/// A task id, or `all`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TaskSel {
    All,
    One(TaskId),
}

impl TaskSel {
    pub fn ids(self) -> Vec<TaskId> {
        match self {
            TaskSel::All => TaskId::ALL.to_vec(),
            TaskSel::One(t) => vec![t],
        }
    }
}

fn valid_ids() -> String {
    TaskId::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" ")
}

/// `KEY=VALUE` of `--set`.
/// One `--set KEY=VALUE` (the core's one parser of task parameters; one entry per flag).
pub(crate) fn parse_setting(s: &str) -> Result<(String, String), String> {
    match wmlab_core::parse_settings(s)?.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!("\"{s}\" is not KEY=VALUE (e.g. noise_mask=true; one per --set)")),
    }
}

fn parse_task(s: &str) -> Result<TaskSel, String> {
    if s == "all" {
        return Ok(TaskSel::All);
    }
    if let Some(t) = TaskId::parse(s) {
        return Ok(TaskSel::One(t));
    }
    let hint = TaskId::ALL
        .iter()
        .find(|t| t.as_str().eq_ignore_ascii_case(s))
        .map(|t| format!(" (did you mean '{t}'? ids are case-sensitive)"))
        .unwrap_or_default();
    Err(format!("unknown task id '{s}'{hint}; valid ids: {} (or 'all')", valid_ids()))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SplitArg {
    Train,
    Val,
    Test,
}

impl SplitArg {
    pub fn split(self) -> Split {
        match self {
            SplitArg::Train => Split::Train,
            SplitArg::Val => Split::Val,
            SplitArg::Test => Split::Test,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PngMode {
    /// No PNG files.
    None,
    /// The 96x96 frames as drawn (what people see, and what the reference saved).
    #[value(name = "96")]
    Px96,
    /// The 32x32 tensors the networks see.
    #[value(name = "32")]
    Px32,
}

impl PngMode {
    pub fn as_str(self) -> &'static str {
        match self {
            PngMode::None => "none",
            PngMode::Px96 => "96",
            PngMode::Px32 => "32",
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// Task id (SC SFR SI SMU STS VIR VSR VSRec CD-Color CD-Orientation CD-Size CD-Gap CD-Conjunction
    /// CS), or `all` for every id into OUT/<ID>/.
    #[arg(long, value_name = "ID", value_parser = parse_task)]
    pub task: TaskSel,
    /// Which split's random stream to draw from (splits never share trials).
    #[arg(long, value_enum)]
    pub split: SplitArg,
    /// Number of trials per task id (1..=100000).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub count: u64,
    /// Master seed.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Index of the first trial: writes trials START..START+N (to build a large split in parts or in
    /// parallel processes; trial i is the same whatever the part it is written in).
    #[arg(long, value_name = "I", default_value_t = 0)]
    pub start: u64,
    /// Output directory (created if missing; existing files are overwritten).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// PNG frames to write for each real step: none, 96 (drawn frames) or 32 (network tensors).
    #[arg(long, value_enum, default_value = "96")]
    pub png: PngMode,
    /// Reproduce reference-code behaviours (comma list; default none, the paper's tasks): cd-size,
    /// cs-all-steps, sts-cue-steps. meta.json's parameters record them.
    #[arg(long, value_name = "LIST", value_parser = wmlab_core::Quirks::parse, default_value = "none")]
    pub quirks: wmlab_core::Quirks,
    /// Set a task parameter (repeatable), e.g. `--set noise_mask=true` (CD: noise retention frames, WorM
    /// A3.4) or `--set set_sizes=2,4`: a switch, a number or a comma list. With `--task all` a key applies
    /// to the ids that have it. An unknown key or a bad value is refused, naming the allowed ones, before
    /// anything is written; meta.json's parameters record what was set.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_setting)]
    pub set: Vec<(String, String)>,
    /// Threads that make trials (default: every core). The files are the same whatever the number.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(clap::Args, Debug)]
pub struct GalleryArgs {
    /// Output PNG file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Master seed.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Trial index to show for every task. By default each row shows the longest of the task's first K
    /// trials (one per condition cell).
    #[arg(long, value_name = "I")]
    pub index: Option<u64>,
    /// Split to draw from.
    #[arg(long, value_enum, default_value = "test")]
    pub split: SplitArg,
}

fn parse_count(s: &str) -> Result<u64, String> {
    let n: u64 = s.trim().parse().map_err(|_| format!("'{s}' is not a whole number of trials"))?;
    if n == 0 {
        return Err("count must be at least 1".to_string());
    }
    if n > MAX_COUNT {
        let gib = n as f64 * (20 * 3 * 32 * 32 * 4) as f64 / (1u64 << 30) as f64;
        return Err(format!(
            "count {n} is too large: at most {MAX_COUNT} trials per task id (frames.npy alone would be {gib:.0} GiB); \
             write larger sets in parts with --start"
        ));
    }
    Ok(n)
}

/// Writes a file whole: a temporary file beside it, renamed over it (a reader, or a run in parallel,
/// sees the old file or the new one, never a part).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(|e| anyhow::anyhow!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number of seconds"))?;
    if !v.is_finite() || !(0.0..=3600.0).contains(&v) {
        return Err(format!("seconds must be between 0 and 3600, got {s}"));
    }
    Ok(v)
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Seconds to run each line for (at least one trial is always generated).
    #[arg(long, value_name = "X", default_value = "1", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub seconds: f64,
    /// Benchmark only this task id (no joint line); `all` or absent = every id plus the joint mix.
    #[arg(long, value_name = "ID", value_parser = parse_task)]
    pub task: Option<TaskSel>,
    /// Master seed of the generated trials.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
}

#[derive(clap::Args, Debug)]
pub struct HashArgs {
    /// Task id, or `all` (the 14 ids in order, hashed into one value).
    #[arg(long, value_name = "ID", value_parser = parse_task)]
    pub task: TaskSel,
    #[arg(long, value_enum)]
    pub split: SplitArg,
    /// Number of trials per task id (1..=100000).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub count: u64,
    /// Master seed.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
}

fn hash(a: &HashArgs) -> u64 {
    let mut h = wmlab_core::hash::Fnv64::default();
    for id in a.task.ids() {
        let spec = wmlab_core::TaskSpec::new(id);
        for i in 0..a.count {
            wmlab_core::hash::trial_hash(&mut h, &spec.trial(a.seed, a.split.split(), i));
        }
    }
    h.finish()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.cmd {
        Cmd::Generate(a) => generate::run(a),
        Cmd::Gallery(a) => gallery::run(a),
        Cmd::Bench(a) => {
            bench::run(a);
            Ok(())
        }
        Cmd::Hash(a) => {
            out!("{:016x}", hash(a));
            Ok(())
        }
        Cmd::Llm(c) => llm::run(c),
        Cmd::Score => score::run(),
        Cmd::Stats => score::stats(),
        Cmd::Train(a) => train::run_train(a),
        Cmd::Eval(a) => train::run_eval(a),
        Cmd::Analyse(a) => train::run_analyse(a),
        Cmd::Sweep(a) => sweep::run_sweep(a),
        Cmd::Predict(a) => predict::run(a),
        Cmd::Import(a) => torch::import(a),
        Cmd::Export(a) => torch::export(a),
        Cmd::Compare(a) => compare::run(a),
        Cmd::Dataset(a) => dataset::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Errors can carry a provider's or a file's text: control characters shown, not obeyed.
            eprintln!("wmlab: error: {}", wmlab_llm::error::printable(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}
