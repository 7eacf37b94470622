//! `wmlab train` and `wmlab eval`: the WorM networks (crates/nn) trained jointly on the 14 task ids,
//! natively on the flex CPU backend (or burn-wgpu with the `wgpu` feature). `train` prints one JSON line
//! per validation check on stdout and keeps config + checkpoints in the output directory (`best/` by
//! mean validation accuracy, weights only; `last/` with Adam's state, so `--resume` continues exactly).
//! `eval` prints one JSON document: per-task test accuracies, the Fig. 4 curves beside the human ones and
//! the Table A3 scores; `--record` writes the result record the app opens.
//! Built with the `nn` feature (`cargo build -p wmlab-cli --features nn`); without it the two
//! subcommands say so.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
#[cfg(feature = "nn")]
pub(crate) use imp::{device, open_checkpoint};
#[cfg(feature = "nn")]
pub use imp::{eval_report, run_analyse, run_train};

/// `wmlab eval`: evaluate, write the record if asked, print the report: a table for a person at a
/// terminal, the JSON document with `--json` or when stdout is a pipe or a file (what scripts read).
pub fn run_eval(a: &EvalArgs) -> anyhow::Result<()> {
    let report = eval_report(a)?;
    if a.json || !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        out!("{report}");
    } else {
        out!("{}", eval_table(&report));
    }
    Ok(())
}

/// A p-value as a reader scans it: `0.031`, `4.2e-12`.
fn p_text(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 1e-3 => format!("{p:.1e}"),
        Some(p) => format!("{p:.3}"),
        None => "—".into(),
    }
}

/// The report of `wmlab eval` as a person reads it: per task id its accuracy, chance, the memoryless
/// baseline, the p above chance and whether memory is shown; for a staircase (`--adaptive`) the level
/// with its 95 % interval, or why there is none ("at the ceiling").
pub fn eval_table(report: &serde_json::Value) -> String {
    let num = |v: &serde_json::Value| v.as_f64().map(|x| format!("{x:.3}")).unwrap_or_else(|| "—".into());
    let tasks = report["tasks"].as_array().cloned().unwrap_or_default();
    let mut out = String::new();
    if report["adaptive"] == "staircase" {
        out.push_str(&format!("{:<16} {:>7} {:>8} {:>18}  {}\n", "task", "trials", "level", "95 % interval", "reads"));
        for t in &tasks {
            let interval = match (t["ci_low"].as_f64(), t["ci_high"].as_f64()) {
                (Some(lo), Some(hi)) => format!("[{lo:.2}, {hi:.2}]"),
                _ => "—".into(),
            };
            out.push_str(&format!(
                "{:<16} {:>7} {:>8} {:>18}  {}\n",
                t["task"].as_str().unwrap_or("?"),
                t["trials"].as_u64().unwrap_or(0),
                t["level"].as_f64().map(|l| format!("{l:.2}")).unwrap_or_else(|| "—".into()),
                interval,
                t["describe"].as_str().unwrap_or("")
            ));
        }
        return out;
    }
    out.push_str(&format!(
        "{} · {} · step {} · {} test trials per id · {:.1} s on {}\n\n",
        report["model"].as_str().unwrap_or("?"),
        report["preset"].as_str().unwrap_or("?"),
        report["step"].as_u64().unwrap_or(0),
        report["trials_per_task"].as_u64().unwrap_or(0),
        report["seconds"].as_f64().unwrap_or(0.0),
        report["backend"].as_str().unwrap_or("?"),
    ));
    out.push_str(&format!(
        "{:<16} {:>8} {:>7} {:>10} {:>9}  {}\n",
        "task", "accuracy", "chance", "memoryless", "p", "memory shown"
    ));
    for t in &tasks {
        let shown = match (t["above_chance"].as_bool(), t["shows_memory"].as_bool()) {
            (_, Some(true)) => "yes",
            (Some(true), _) => "no (above chance, not above memoryless)",
            (Some(false), _) => "no (not above chance)",
            _ => "—",
        };
        out.push_str(&format!(
            "{:<16} {:>8} {:>7} {:>10} {:>9}  {shown}\n",
            t["task"].as_str().unwrap_or("?"),
            num(&t["accuracy"]),
            num(&t["chance"]),
            num(&t["memoryless"]),
            p_text(t["p_above_chance"].as_f64()),
        ));
    }
    out.push_str(&format!(
        "\n{} of {} task ids above chance, {} show memory (p < {}); --json for the whole report{}\n",
        report["above_chance_ids"].as_u64().unwrap_or(0),
        tasks.len(),
        report["shows_memory_ids"].as_u64().unwrap_or(0),
        report["significance_level"].as_f64().unwrap_or(0.01),
        report["record"].as_str().map(|r| format!("; the record is in {r}")).unwrap_or_default(),
    ));
    out
}

#[cfg(not(feature = "nn"))]
pub fn run_train(_: &TrainArgs) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`"))
}
#[cfg(not(feature = "nn"))]
pub fn eval_report(_: &EvalArgs) -> anyhow::Result<serde_json::Value> {
    Err(anyhow::anyhow!("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`"))
}

#[cfg(not(feature = "nn"))]
pub fn run_analyse(_: &AnalyseArgs) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    Rnn,
    Gru,
    Lstm,
    Trf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// burn's flex backend (pure Rust, multi-threaded).
    Cpu,
    /// burn-wgpu (Vulkan/Metal/DX12) with fusion: needs a build with `--features wgpu`.
    Wgpu,
    /// burn's CUDA backend with fusion (an NVIDIA GPU and its driver; NVRTC is loaded at run time):
    /// needs a build with `--features cuda`.
    Cuda,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EmbeddingArg {
    /// A learned task embedding (the paper's main models).
    Learned,
    /// A frozen identity embedding (one-hot task ids): the paper's "static" models (Table A1).
    Static,
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Memory architecture.
    #[arg(long, value_enum)]
    pub arch: ArchArg,
    /// Memory capacity C (hidden size; d_model for trf). Paper: 96, 256, 1024.
    #[arg(long, default_value_t = 256)]
    pub capacity: usize,
    /// Preset: quick (learns within 10 minutes on 2 CPU cores with --profile native; the pixel encoder
    /// and distance attention, not the paper's ConvNet and dot product: docs/learning.md), paper (Table A1), small, tiny (a smoke test).
    #[arg(long, default_value = "quick")]
    pub preset: String,
    /// Optimisation steps (default: the preset's; with --resume, the new total).
    #[arg(long)]
    pub steps: Option<usize>,
    /// Learning rate (default: the preset's).
    #[arg(long)]
    pub lr: Option<f64>,
    /// Steps between validation checks (default: the preset's).
    #[arg(long)]
    pub val_every: Option<usize>,
    /// Trials of each of the 14 task ids per step (default: the preset's; the paper's 10 = 140 per step).
    #[arg(long)]
    pub per_task: Option<usize>,
    /// Validation trials per task id at each check (default: the preset's).
    #[arg(long)]
    pub val_per_task: Option<usize>,
    /// Train only these task ids (comma list, e.g. VSR or CD-Color,VIR,SC; default all 14). The other
    /// ids' heads get no loss and no gradient; validation and `wmlab eval` cover the chosen ids. LSR
    /// (language serial recall, A3.1) trains alone and gets the words encoder.
    #[arg(long, value_name = "IDS")]
    pub tasks: Option<String>,
    /// Conv channels c1,c2,c3,c4 (default: the preset's; paper 64,128,256,512).
    #[arg(long, value_name = "C1,C2,C3,C4")]
    pub conv: Option<String>,
    /// Visual encoder: conv (the paper's ConvNet) or pixels (a linear map of the raw 32×32×3 frame;
    /// default: the preset's); words (LSR's word vectors) is set by --tasks LSR.
    #[arg(long, value_name = "KIND")]
    pub encoder: Option<String>,
    /// Transformer attention: dot (the paper's scaled dot product) or distance (negative squared distance
    /// between content queries and keys, with a "no match" slot; default: the preset's).
    #[arg(long, value_name = "KIND")]
    pub attention: Option<String>,
    /// Pool the last conv map to an N×N grid before the projection (1 = the paper's global average pool;
    /// default: the preset's).
    #[arg(long, value_name = "N")]
    pub spatial: Option<usize>,
    /// Clip each parameter's gradient to this L2 norm (default: the preset's; 0 = none).
    #[arg(long, value_name = "NORM")]
    pub grad_clip: Option<f64>,
    /// Curriculum: the first N steps draw trials from the easier half of each task's condition grid
    /// (default: the preset's; 0 = none).
    #[arg(long, value_name = "N")]
    pub curriculum: Option<usize>,
    /// Multiply SFR's loss (the mean BCE over its 100 units) by this (default: the preset's; 1 = the paper).
    #[arg(long, value_name = "X")]
    pub sfr_scale: Option<f64>,
    /// Task embedding: learned (default) or static (frozen one-hot task ids, the paper's Table A1
    /// "static" models).
    #[arg(long, value_enum, value_name = "KIND")]
    pub task_embedding: Option<EmbeddingArg>,
    /// Reproduce reference-code behaviours (comma list; default none, the paper's tasks): cd-size (CD's
    /// asymmetric size change), cs-all-steps (CS scores every step, "no response" included),
    /// sts-cue-steps (STS scores cue steps). Kept in the checkpoint; `wmlab eval` uses the same.
    #[arg(long, value_name = "LIST", value_parser = wmlab_core::Quirks::parse)]
    pub quirks: Option<wmlab_core::Quirks>,
    /// Set a task parameter (repeatable), e.g. `--set noise_mask=true` (CD with noise retention frames,
    /// WorM A3.4); each key goes to the trained ids that have it. Kept in the checkpoint; `wmlab eval`
    /// uses the same. A bad key or value is refused before training.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::parse_setting)]
    pub set: Vec<(String, String)>,
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: BackendArg,
    /// Master seed (trial streams and initialisation).
    #[arg(long, default_value_t = 86)]
    pub seed: u64,
    /// Output directory (config + checkpoints).
    #[arg(long)]
    pub out: PathBuf,
    /// Resume from the checkpoint in OUT/last if there is one.
    #[arg(long)]
    pub resume: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// A checkpoint directory (with train.json, state.json, weights.bpk), a run directory (its best/ is
    /// used), or a bundle file downloaded from the app.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// Test trials per task id (trial indices 0..N of the test split).
    #[arg(long = "n", visible_alias = "count", value_name = "N", default_value_t = 100)]
    pub count: usize,
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: BackendArg,
    /// Also write the result record (JSON, as the app exports and opens) to this file.
    #[arg(long, value_name = "PATH")]
    pub record: Option<PathBuf>,
    /// CD curves and Table A3: pool every retention interval (default: the paper's comparison at
    /// retention 18).
    #[arg(long)]
    pub cd_pooled: bool,
    /// Also run the memoryless control: the same test trials with every memory frame (every step that
    /// is not scored) shown blank. Each task gains `control_accuracy` and `control_p_above_chance`: what
    /// the model gets from the probe frames alone, beside the computed `memoryless` baseline.
    #[arg(long)]
    pub memoryless: bool,
    /// Evaluate on exactly the WorM trials of this result record (a person's, or a visual LLM run's):
    /// regenerated from its seed, those of the task ids the network was trained on, each row keeping
    /// its trial's index, so `wmlab compare` pairs the two item by item (agreement.csv). In place of
    /// `--n`'s test trials.
    #[arg(long, value_name = "RECORD")]
    pub trials_of: Option<PathBuf>,
    /// In place of the fixed grid: a staircase on the set size of each change-detection task the
    /// network was trained on (weighted up-down converging on 75 % right, `wmlab_core::adaptive`),
    /// reporting the set size the network holds at 75 % with a 95 % interval, and the track.
    #[arg(long)]
    pub adaptive: bool,
    /// Print the whole report as one JSON document (the default when stdout is not a terminal; at a
    /// terminal a table).
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// A checkpoint directory, a run directory (its best/ is used), or a bundle file from the app.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// Test trials per task id (at least 2).
    #[arg(long = "n", visible_alias = "count", value_name = "N", default_value_t = 20)]
    pub count: usize,
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: BackendArg,
    /// t-SNE iterations of both embeddings.
    #[arg(long, default_value_t = 1000)]
    pub tsne_iterations: usize,
    /// Also store the analyses in this result record (JSON, e.g. written by `wmlab eval --record`):
    /// the file is read, its `analyses` field set, and written back. The app's Results page draws them.
    #[arg(long, value_name = "PATH")]
    pub record: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[cfg(feature = "nn")]
mod imp {
    use std::path::{Path, PathBuf};

    use burn::prelude::Device;
    use indicatif::{ProgressBar, ProgressStyle};
    use wmlab_core::networks::{Edit, Field};
    use wmlab_core::people::{StudyTask, human_curves, subject_curves_with};
    use wmlab_core::record::Setting;
    use wmlab_nn::train::{Preset, TrainConfig, Trainer};
    use wmlab_nn::{Arch, Checkpoint};

    use super::{AnalyseArgs, ArchArg, BackendArg, EmbeddingArg, EvalArgs, TrainArgs};

    pub(crate) fn device(b: BackendArg) -> anyhow::Result<Device> {
        match b {
            BackendArg::Cpu => Ok(wmlab_nn::cpu_device()),
            #[cfg(feature = "wgpu")]
            BackendArg::Wgpu => wmlab_nn::wgpu_device(),
            #[cfg(not(feature = "wgpu"))]
            BackendArg::Wgpu => Err(anyhow::anyhow!("this build has no wgpu backend: rebuild with --features wgpu")),
            #[cfg(feature = "cuda")]
            BackendArg::Cuda => wmlab_nn::cuda_device(),
            #[cfg(not(feature = "cuda"))]
            BackendArg::Cuda => Err(anyhow::anyhow!("this build has no CUDA backend: rebuild with --features cuda")),
        }
    }

    /// The backend's name in records and messages.
    fn backend_name(b: BackendArg) -> &'static str {
        match b {
            BackendArg::Cpu => "flex",
            BackendArg::Wgpu => "wgpu",
            BackendArg::Cuda => "cuda",
        }
    }

    /// Now as ISO 8601 UTC (`2025-01-31T12:00:00Z`), for the record's `created`.
    fn now_iso8601() -> Option<String> {
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64;
        let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + (m <= 2) as i64;
        Some(format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60))
    }

    /// The flags that set the settings form's numbers, as the Networks page's fields edit them: each value
    /// goes through the same [`Field::parse`], so what the page refuses (0 trials per step, a learning
    /// rate of 0) is refused here in the page's words. A resumed run takes only `--steps` and
    /// `--val-every` (the rest is the checkpoint's).
    fn field_edits(a: &TrainArgs, resumed: bool) -> anyhow::Result<Vec<Edit>> {
        let s = |v: Option<usize>| v.map(|n| n.to_string());
        let mut given = vec![(Field::Steps, "--steps", s(a.steps)), (Field::ValEvery, "--val-every", s(a.val_every))];
        if !resumed {
            given.extend([
                (Field::Lr, "--lr", a.lr.map(|x| x.to_string())),
                (Field::PerTask, "--per-task", s(a.per_task)),
                (Field::ValPerTask, "--val-per-task", s(a.val_per_task)),
                (Field::Seed, "--seed", Some(a.seed.to_string())),
            ]);
        }
        given
            .into_iter()
            .filter_map(|(f, flag, v)| Some((f, flag, v?)))
            .map(|(f, flag, v)| f.parse(&v).map_err(|e| anyhow::anyhow!("{flag}: {e}")))
            .collect()
    }

    pub fn run_train(a: &TrainArgs) -> anyhow::Result<()> {
        let arch = match a.arch {
            ArchArg::Rnn => Arch::Rnn,
            ArchArg::Gru => Arch::Gru,
            ArchArg::Lstm => Arch::Lstm,
            ArchArg::Trf => Arch::Trf,
        };
        let dev = device(a.backend)?.autodiff();
        let last = a.out.join("last");
        let mut tr = if a.resume && last.join("weights.bpk").exists() {
            let ck = Checkpoint::load_path(&last)?;
            if let Some(list) = &a.tasks
                && TrainConfig::parse_tasks(list)? != ck.train.tasks
            {
                anyhow::bail!(
                    "--tasks differs from the run being resumed: start a new run (another --out) to train other ids"
                );
            }
            if let Some(q) = a.quirks
                && q != ck.train.quirks.unwrap_or_default()
            {
                anyhow::bail!(
                    "--quirks differs from the run being resumed: start a new run (another --out) to train other tasks"
                );
            }
            if !a.set.is_empty() && Some(&a.set) != ck.train.task_settings.as_ref() {
                anyhow::bail!(
                    "--set differs from the run being resumed: start a new run (another --out) to train other tasks"
                );
            }
            eprintln!(
                "resuming {} at step {}{}",
                last.display(),
                ck.state.step,
                if ck.optimizer.is_some() { "" } else { " (no optimizer state saved: Adam restarts)" }
            );
            let mut tr = Trainer::resume(&ck, dev)?;
            // --steps / --val-every extend or reschedule a resumed run; the rest is the checkpoint's.
            for e in field_edits(a, true)? {
                e.apply(&mut tr.config);
            }
            tr
        } else {
            let preset = Preset::parse(&a.preset)
                .ok_or_else(|| {
                    let names: Vec<&str> = Preset::ALL.iter().map(|p| p.as_str()).collect();
                    format!("unknown preset {:?} (one of {})", a.preset, names.join(", "))
                })
                .map_err(anyhow::Error::msg)?;
            let mut cfg = TrainConfig::preset(preset, arch, a.capacity);
            // The settings a person can edit on the page are edited as the page edits them.
            let mut edits = field_edits(a, false)?;
            if let Some(list) = &a.tasks {
                edits.push(Edit::tasks(list).map_err(|e| anyhow::anyhow!("--tasks: {e}"))?);
            }
            if let Some(q) = a.quirks {
                edits.push(Edit::Quirks((!q.is_none()).then_some(q)));
            }
            if let Some(e) = a.task_embedding {
                edits.push(Edit::StaticEmbedding(e == EmbeddingArg::Static));
            }
            edits.push(Edit::TaskSettings((!a.set.is_empty()).then(|| a.set.clone())));
            for e in &edits {
                e.apply(&mut cfg);
            }
            if let Some(text) = &a.conv {
                let v: Vec<usize> = text
                    .split(',')
                    .map(|x| x.trim().parse::<usize>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| format!("--conv {text:?}: four positive whole numbers, e.g. 8,16,16,32"))
                    .map_err(anyhow::Error::msg)?;
                cfg.model.conv = v
                    .try_into()
                    .map_err(|_| format!("--conv {text:?}: give exactly four channel counts, e.g. 8,16,16,32"))
                    .map_err(anyhow::Error::msg)?;
            }
            if let Some(e) = &a.encoder {
                cfg.model.encoder = Some(match e.to_ascii_lowercase().as_str() {
                    "conv" => wmlab_nn::Encoder::Conv,
                    "pixels" => wmlab_nn::Encoder::Pixels,
                    "words" => wmlab_nn::Encoder::Words,
                    other => return Err(anyhow::anyhow!("--encoder {other:?}: conv, pixels or words (LSR)")),
                });
            }
            if let Some(e) = &a.attention {
                cfg.model.attention = Some(match e.to_ascii_lowercase().as_str() {
                    "dot" => wmlab_nn::Attention::Dot,
                    "distance" => wmlab_nn::Attention::Distance,
                    other => return Err(anyhow::anyhow!("--attention {other:?}: dot or distance")),
                });
            }
            if let Some(n) = a.spatial {
                cfg.model.spatial = (n > 1).then_some(n);
            }
            if let Some(c) = a.grad_clip {
                cfg.grad_clip = (c > 0.0).then_some(c);
            }
            if let Some(n) = a.curriculum {
                cfg.curriculum = (n > 0).then_some(n);
            }
            if let Some(x) = a.sfr_scale {
                if !(x.is_finite() && x > 0.0) {
                    return Err(anyhow::anyhow!("--sfr-scale {x}: a positive number (1 = the paper's loss)"));
                }
                cfg.multilabel_scale = (x != 1.0).then_some(x);
            }
            cfg.check_task_settings().map_err(|e| anyhow::anyhow!("--set: {e}"))?;
            cfg.model.validate()?;
            Trainer::new(cfg, dev)
        };
        std::fs::create_dir_all(&a.out).map_err(|e| anyhow::anyhow!("{}: {e}", a.out.display()))?;
        let cfg_json = serde_json::to_string_pretty(&tr.config).unwrap();
        crate::write_atomic(&a.out.join("train.json"), cfg_json.as_bytes())?;
        let params = burn::module::Module::num_params(tr.model());
        let ids = tr.config.task_ids();
        eprintln!(
            "{} ({:.2}M parameters), preset {}, {} steps of {} trials ({} task ids{}), backend {}",
            tr.config.model.label(),
            params as f64 / 1e6,
            tr.config.preset,
            tr.config.steps,
            tr.config.trials_per_step(),
            ids.len(),
            if tr.config.is_subset() {
                format!(": {}", ids.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(","))
            } else {
                String::new()
            },
            backend_name(a.backend)
        );
        let t0 = std::time::Instant::now();
        // Wall time of the steps done before a resume, so `elapsed_s` continues across sessions.
        let elapsed_before = tr.state.history.last().and_then(|h| h.elapsed_s).unwrap_or(0.0);
        let bar = if a.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(tr.config.steps as u64), crate::progress::stderr_target())
        };
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} steps {msg} (eta {eta})")
                .unwrap()
                .progress_chars("=> "),
        );
        bar.set_position(tr.state.step as u64);
        let result = pollster::block_on(async {
            while !tr.done() {
                let loss = tr.train_step().await?;
                bar.set_position(tr.state.step as u64);
                bar.set_message(format!("loss {loss:.4}"));
                if tr.check_due() {
                    tr.elapsed_s = Some(elapsed_before + t0.elapsed().as_secs_f64());
                    let rep = tr.validate().await?;
                    let line = serde_json::json!({
                        "step": rep.step,
                        "trials": rep.step * tr.config.trials_per_step(),
                        "elapsed_s": rep.elapsed_s,
                        "loss": rep.train_loss,
                        "val_loss": rep.val_loss,
                        "accuracy": rep.accuracy,
                        "mean_accuracy": rep.mean_accuracy,
                        "scored_accuracy": rep.scored_accuracy,
                        "above_chance": rep.above_chance,
                        "lr": rep.lr,
                        "best": rep.best,
                    });
                    bar.suspend(|| out!("{line}"));
                    if rep.best
                        && let Some(best) = &tr.best
                    {
                        save(best, &a.out.join("best"))?;
                    }
                    save(&tr.checkpoint()?, &last)?;
                }
            }
            Ok::<(), anyhow::Error>(())
        });
        bar.finish_and_clear();
        if let Err(e) = result {
            return Err(anyhow::anyhow!("{e} (checkpoints in {})", a.out.display()));
        }
        save(&tr.checkpoint()?, &last)?;
        eprintln!(
            "done: best mean validation accuracy {:?} at step {:?}; checkpoints in {}",
            tr.state.best_mean_accuracy,
            tr.state.best_step,
            a.out.display()
        );
        Ok(())
    }

    fn save(ck: &Checkpoint, dir: &Path) -> anyhow::Result<()> {
        ck.save_dir(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))
    }

    /// The checkpoint at `path`: a checkpoint directory, a run directory (its `best/`), or a bundle file.
    pub(crate) fn open_checkpoint(path: &Path) -> anyhow::Result<(PathBuf, Checkpoint)> {
        let mut path = path.to_path_buf();
        if !path.exists() {
            return Err(anyhow::anyhow!("{}: no such checkpoint directory or bundle file", path.display()));
        }
        if path.is_dir() && !path.join("weights.bpk").exists() && path.join("best").join("weights.bpk").exists() {
            path = path.join("best");
        }
        let ck = Checkpoint::load_path(&path)
            .map_err(|e| anyhow::anyhow!("{}: not a readable checkpoint ({e})", path.display()))?;
        Ok((path, ck))
    }

    /// The whole run's validation history when `path` is a run's `best/` and the run's `last/` carries
    /// on from it (the record's training curve then shows the run to its end, as Fig. A4 does, not only
    /// up to the best check); `None` otherwise.
    fn whole_run_history(path: &Path, ck: &Checkpoint) -> Option<Vec<wmlab_nn::train::ValReport>> {
        if path.file_name()? != "best" {
            return None;
        }
        let text = std::fs::read(path.parent()?.join("last").join("state.json")).ok()?;
        let last: wmlab_nn::train::TrainState = serde_json::from_slice(&text).ok()?;
        let best = &ck.state.history;
        let same_run = last.history.len() >= best.len()
            && last
                .history
                .iter()
                .zip(best)
                .all(|(a, b)| a.step == b.step && a.mean_accuracy.to_bits() == b.mean_accuracy.to_bits());
        same_run.then_some(last.history)
    }

    pub fn run_analyse(a: &AnalyseArgs) -> anyhow::Result<()> {
        // Read the record first: a bad file is reported before minutes of work.
        let mut record = match &a.record {
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                Some(
                    wmlab_core::record::ResultRecord::from_json(&text)
                        .map_err(|e| anyhow::anyhow!("{}: not a result record ({e})", p.display()))?,
                )
            }
            None => None,
        };
        let (path, ck) = open_checkpoint(&a.checkpoint)?;
        let dev = device(a.backend)?.without_autodiff();
        let model = ck.model(&dev)?;
        let train = ck.train.clone().with_steps(ck.state.step);
        let bar = if a.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(1), crate::progress::stderr_target())
        };
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} {msg:>14} [{bar:30}] {pos}/{len}")
                .unwrap()
                .progress_chars("=> "),
        );
        let mut progress = |stage: &str, done: usize, total: usize| {
            bar.set_message(stage.to_string());
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            true
        };
        let chunk = ck.train.per_task.max(1);
        let report = pollster::block_on(wmlab_nn::analyse::analyse_network(
            &model,
            &train,
            a.count,
            chunk,
            a.tsne_iterations,
            &dev,
            &mut progress,
        ))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        bar.finish_and_clear();
        let value = serde_json::to_value(&report).map_err(|e| anyhow::anyhow!("{e}"))?;
        if let (Some(p), Some(r)) = (&a.record, record.as_mut()) {
            r.analyses = Some(value.clone());
            crate::write_atomic(p, r.to_json().map_err(|e| anyhow::anyhow!("{e}"))?.as_bytes())?;
            eprintln!("analyses stored in {}", p.display());
        }
        eprintln!("{} from {}: {} test trials per task id", ck.train.model.label(), path.display(), a.count.max(2));
        out!("{value}");
        Ok(())
    }

    /// `wmlab eval --adaptive`: a staircase per task with a level (CD's set size, VSR / VSRec / LSR's
    /// list length); the record (when asked for) holds the trials shown, and its settings each run.
    fn staircase_report(a: &EvalArgs, ck: &Checkpoint) -> anyhow::Result<serde_json::Value> {
        if a.trials_of.is_some() || a.memoryless {
            return Err(anyhow::anyhow!(
                "--adaptive chooses its own trials; it does not go with --trials-of or --memoryless"
            ));
        }
        if !ck.train.task_ids().iter().any(|&t| wmlab_core::adaptive::LevelKind::of(t).is_some()) {
            return Err(anyhow::anyhow!(
                "--adaptive runs a staircase on change detection's set size or a recall task's list length \
                        (VSR, VSRec, LSR), and this network was trained on none of them"
            ));
        }
        let dev = device(a.backend)?;
        let model = ck.model(&dev)?;
        let train = ck.train.clone().with_steps(ck.state.step);
        let bar = if a.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(None, crate::progress::stderr_target())
        };
        let mut progress = |n: usize| bar.set_message(format!("{n} adaptive trials"));
        let runs = pollster::block_on(wmlab_nn::eval::evaluate_staircase(&model, &train, &dev, &mut progress))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        bar.finish_and_clear();
        let mut tasks = Vec::new();
        let mut rows = Vec::new();
        let mut results = Vec::new();
        for r in runs {
            let s = r.run.staircase();
            let track: Vec<_> = s.track().iter().map(|t| serde_json::json!([t.level, t.correct])).collect();
            // No level where the run sat at an end of its range: `bound` says which, and `describe` in words.
            let kept = r.run.result();
            let e = kept.estimate;
            tasks.push(serde_json::json!({
                "task": r.task.as_str(),
                "level_kind": r.run.kind(),
                "target": s.config().target,
                "trials": s.track().len(),
                "level": e.map(|e| e.level),
                "ci_low": e.map(|e| e.low),
                "ci_high": e.map(|e| e.high),
                "reversals": e.map(|e| e.reversals),
                "bound": kept.bound,
                "describe": kept.describe(),
                "track": track,
            }));
            results.push(r.run.result());
            rows.extend(r.rows);
        }
        if let Some(out) = &a.record {
            let n = rows.len();
            let mut record = wmlab_nn::eval::network_record(&train, backend_name(a.backend), n, rows);
            record.created = now_iso8601();
            let settings = &mut record.config.settings;
            settings.insert("adaptive".into(), Setting::Text("staircase".into()));
            for r in &results {
                r.write_into(settings);
            }
            let json = record.to_json().map_err(|e| anyhow::anyhow!("{e}"))?;
            crate::write_atomic(out, json.as_bytes())?;
        }
        Ok(serde_json::json!({ "adaptive": "staircase", "tasks": tasks }))
    }

    /// Evaluate a checkpoint (writing the record when `a.record` names a file) and return the report
    /// `wmlab eval` prints.
    pub fn eval_report(a: &EvalArgs) -> anyhow::Result<serde_json::Value> {
        let (path, ck) = open_checkpoint(&a.checkpoint)?;
        if a.adaptive {
            return staircase_report(a, &ck);
        }
        let replay = match &a.trials_of {
            Some(p) => {
                if a.memoryless {
                    anyhow::bail!(
                        "--memoryless blanks the test trials' memory frames; it does not go with --trials-of"
                    );
                }
                let bytes = std::fs::read(p).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
                let text = String::from_utf8(bytes)
                    .map_err(|_| format!("{} is not a result record (not UTF-8 text)", p.display()))
                    .map_err(anyhow::Error::msg)?;
                let theirs = wmlab_core::record::ResultRecord::from_json(&text)
                    .map_err(|e| anyhow::anyhow!("{} is not a result record: {e}", p.display()))?;
                let replay = wmlab_core::people::replay::worm_trials_of(&theirs)
                    .and_then(|r| r.only(&ck.train.task_ids()))
                    .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                Some((replay, theirs.subject.label()))
            }
            None => None,
        };
        let dev = device(a.backend)?;
        let backend = backend_name(a.backend);
        let per_pass = match &replay {
            Some((r, _)) => r.trials.len() as u64,
            None => (a.count * ck.train.task_ids().len()) as u64,
        };
        let total = per_pass * if a.memoryless { 2 } else { 1 };
        let bar = if a.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(total), crate::progress::stderr_target())
        };
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} test trials (eta {eta})")
                .unwrap()
                .progress_chars("=> "),
        );
        let t0 = std::time::Instant::now();
        let mut progress = |done: usize, _total: usize| {
            bar.set_position(done as u64);
            true
        };
        let record = match &replay {
            Some((replay, subject)) => {
                let model = ck.model(&dev)?;
                let train = ck.train.clone().with_steps(ck.state.step);
                let chunk = ck.train.per_task.max(1) * ck.train.task_ids().len();
                let r = wmlab_nn::eval::evaluate_replay(
                    &model,
                    &train,
                    backend,
                    replay,
                    subject,
                    chunk,
                    &dev,
                    &mut progress,
                );
                pollster::block_on(r)
            }
            None => pollster::block_on(wmlab_nn::eval::evaluate_checkpoint(&ck, backend, a.count, &dev, &mut progress)),
        }
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .ok_or_else(|| anyhow::anyhow!("evaluation cancelled"))?;
        let control = if a.memoryless {
            let mut progress = |done: usize, _total: usize| {
                bar.set_position(per_pass + done as u64);
                true
            };
            let blanked = wmlab_nn::eval::Trials::MemoryBlanked;
            let r = wmlab_nn::eval::evaluate_checkpoint_on(&ck, backend, a.count, &dev, blanked, &mut progress);
            Some(
                pollster::block_on(r)
                    .map_err(|e| anyhow::anyhow!("{e}"))?
                    .ok_or_else(|| anyhow::anyhow!("evaluation cancelled"))?,
            )
        } else {
            None
        };
        bar.finish_and_clear();
        let secs = t0.elapsed().as_secs_f64();
        let mut record = record;
        record.created = now_iso8601();
        if let Some(h) = whole_run_history(&path, &ck) {
            record.training = wmlab_core::networks::training_curve(&h, ck.train.trials_per_step());
        }
        let accuracy_of = |t: &str| {
            record
                .summaries
                .iter()
                .find(|s| s.task == t && s.metric == "accuracy" && s.conditions == Default::default())
                .map(|s| s.value)
        };
        let mut accuracy = serde_json::Map::new();
        let mut tasks = Vec::new();
        use wmlab_core::chance::{LEVEL, record_significance};
        let significance = record_significance(&record);
        let control_sig = control.as_ref().map(record_significance).unwrap_or_default();
        let opts = wmlab_core::people::CurveOptions { cd_pooled: a.cd_pooled };
        // Every Table A3 row (per task id, then CD with the five features pooled, as the paper).
        let table = wmlab_core::analysis::record_table_a3_with(&record, opts);
        for t in ck.train.task_ids() {
            let st = StudyTask::Worm(t);
            let subject = subject_curves_with(&record, st, opts);
            let human = human_curves(st);
            let a3: Vec<_> = table.iter().filter(|r| r.task == t.as_str()).collect();
            if let Some(v) = accuracy_of(t.as_str()) {
                accuracy.insert(t.as_str().into(), serde_json::json!(v));
            }
            let sig = significance.iter().find(|s| s.task == t.as_str());
            let control = control_sig.iter().find(|s| s.task == t.as_str());
            let mut task = serde_json::json!({
                "task": t.as_str(),
                "accuracy": accuracy_of(t.as_str()),
                "chance": sig.map(|s| s.chance),
                "responses": sig.map(|s| s.responses),
                "p_above_chance": sig.map(|s| s.p_above_chance),
                "above_chance": sig.map(|s| s.above_chance(LEVEL)),
                "memoryless": sig.map(|s| s.memoryless),
                "p_above_memoryless": sig.map(|s| s.p_above_memoryless),
                "shows_memory": sig.map(|s| s.shows_memory(LEVEL)),
                "subject_curves": subject,
                "human_curves": human,
                "table_a3": a3,
            });
            if a.memoryless {
                task["control_accuracy"] = serde_json::json!(control.map(|s| s.accuracy));
                task["control_p_above_chance"] = serde_json::json!(control.map(|s| s.p_above_chance));
            }
            tasks.push(task);
        }
        let above = significance.iter().filter(|s| s.above_chance(LEVEL)).count();
        let memory = significance.iter().filter(|s| s.shows_memory(LEVEL)).count();
        let control_above = a.memoryless.then(|| control_sig.iter().filter(|s| s.above_chance(LEVEL)).count());
        let mean = record.summaries.iter().find(|s| s.metric == "mean_accuracy").map(|s| s.value);
        if let Some(out) = &a.record {
            let json = record.to_json().map_err(|e| anyhow::anyhow!("{e}"))?;
            crate::write_atomic(out, json.as_bytes())?;
        }
        let out = serde_json::json!({
            "checkpoint": path.display().to_string(),
            "model": ck.train.model.label(),
            "params": ck.train.model.param_count(),
            "preset": ck.train.preset,
            "step": ck.state.step,
            "trials_seen": ck.state.step * ck.train.trials_per_step(),
            "train_seconds": ck.state.history.iter().rev().find(|h| h.step == ck.state.step).and_then(|h| h.elapsed_s),
            "split": "test",
            "trials_per_task": a.count,
            "backend": backend,
            "seconds": secs,
            "trials_per_second": if secs > 0.0 { total as f64 / secs } else { 0.0 },
            "trained_tasks": ck.train.task_ids().iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            "accuracy": accuracy,
            "mean_accuracy": mean,
            "above_chance_ids": above,
            "shows_memory_ids": memory,
            "control_above_chance_ids": control_above,
            "significance_level": LEVEL,
            "tasks": tasks,
            "table_a3": table,
            "cd_retention": if a.cd_pooled { serde_json::json!("pooled") } else { serde_json::json!(wmlab_core::people::CD_PAPER_RETENTION) },
            "record": a.record.as_ref().map(|p| p.display().to_string()),
        });
        Ok(out)
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;

    /// At a terminal `wmlab eval` prints a table a person reads: each id's numbers and, in words,
    /// whether memory is shown; a staircase its level and interval, or why there is none.
    #[test]
    fn eval_reports_read_as_tables() {
        let report = serde_json::json!({
            "model": "TRF-96", "preset": "quick", "step": 1500, "trials_per_task": 200, "seconds": 3.25,
            "backend": "flex", "above_chance_ids": 1, "shows_memory_ids": 1, "significance_level": 0.01,
            "record": "r.json",
            "tasks": [
                {"task": "VSR", "accuracy": 0.42, "chance": 0.11, "memoryless": 0.2, "p_above_chance": 1e-12,
                 "above_chance": true, "shows_memory": true},
                {"task": "STS", "accuracy": 0.73, "chance": 0.5, "memoryless": 0.75, "p_above_chance": 0.0004,
                 "above_chance": true, "shows_memory": false},
                {"task": "SC", "accuracy": null, "chance": 0.5, "memoryless": 0.5, "p_above_chance": null,
                 "above_chance": null, "shows_memory": null}
            ]
        });
        let t = eval_table(&report);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "TRF-96 · quick · step 1500 · 200 test trials per id · 3.2 s on flex");
        assert!(lines[3].starts_with("VSR") && lines[3].contains("0.420") && lines[3].contains("1.0e-12"), "{t}");
        assert!(lines[3].ends_with("yes"), "{t}");
        assert!(lines[4].ends_with("no (above chance, not above memoryless)"), "{t}");
        assert!(lines[5].contains('—'), "{t}");
        assert!(t.contains("1 of 3 task ids above chance, 1 show memory (p < 0.01)") && t.contains("r.json"), "{t}");
        let stair = serde_json::json!({"adaptive": "staircase", "tasks": [
            {"task": "CD-Color", "trials": 60, "level": 3.4, "ci_low": 2.9, "ci_high": 3.9, "describe": "75 % right: 3.40"},
            {"task": "VSR", "trials": 40, "level": null, "ci_low": null, "ci_high": null,
             "describe": "half the lists whole: above the highest list length, 9 (8 of 8 right there; at the ceiling)"}
        ]});
        let t = eval_table(&stair);
        assert!(t.lines().nth(1).unwrap().contains("[2.90, 3.90]"), "{t}");
        assert!(t.lines().nth(2).unwrap().contains("at the ceiling"), "{t}");
    }
}
