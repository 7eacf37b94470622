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
pub use imp::{run_analyse, run_eval, run_train};

#[cfg(not(feature = "nn"))]
pub fn run_train(_: &TrainArgs) -> Result<(), String> {
    Err("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`".into())
}
#[cfg(not(feature = "nn"))]
pub fn run_eval(_: &EvalArgs) -> Result<(), String> {
    Err("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`".into())
}

#[cfg(not(feature = "nn"))]
pub fn run_analyse(_: &AnalyseArgs) -> Result<(), String> {
    Err("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`".into())
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
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Memory architecture.
    #[arg(long, value_enum)]
    pub arch: ArchArg,
    /// Memory capacity C (hidden size; d_model for trf). Paper: 96, 256, 1024.
    #[arg(long, default_value_t = 256)]
    pub capacity: usize,
    /// Preset: paper (Table A1), small, tiny (about 1.5 minutes on 2 CPU cores with --profile native).
    #[arg(long, default_value = "tiny")]
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
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use wmlab_core::TaskId;
    use wmlab_core::analysis::scores::table_a3;
    use wmlab_core::people::{StudyTask, human_curves, subject_curves};
    use wmlab_nn::train::{TrainConfig, Trainer};
    use wmlab_nn::{Arch, Checkpoint};

    use super::{AnalyseArgs, ArchArg, BackendArg, EvalArgs, TrainArgs};

    fn device(b: BackendArg) -> Result<Device, String> {
        match b {
            BackendArg::Cpu => Ok(wmlab_nn::cpu_device()),
            #[cfg(feature = "wgpu")]
            BackendArg::Wgpu => wmlab_nn::wgpu_device(),
            #[cfg(not(feature = "wgpu"))]
            BackendArg::Wgpu => Err("this build has no wgpu backend: rebuild with --features wgpu".into()),
        }
    }

    /// The backend's name in records and messages.
    fn backend_name(b: BackendArg) -> &'static str {
        match b {
            BackendArg::Cpu => "flex",
            BackendArg::Wgpu => "wgpu",
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

    pub fn run_train(a: &TrainArgs) -> Result<(), String> {
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
            eprintln!(
                "resuming {} at step {}{}",
                last.display(),
                ck.state.step,
                if ck.optimizer.is_some() { "" } else { " (no optimizer state saved: Adam restarts)" }
            );
            let mut tr = Trainer::resume(&ck, dev)?;
            // --steps / --val-every extend or reschedule a resumed run; the rest is the checkpoint's.
            if let Some(s) = a.steps {
                tr.config.steps = s;
            }
            if let Some(v) = a.val_every {
                tr.config.val_every = v;
            }
            tr
        } else {
            let mut cfg = TrainConfig::preset(&a.preset, arch, a.capacity)
                .ok_or_else(|| format!("unknown preset {:?} (one of {})", a.preset, TrainConfig::PRESETS.join(", ")))?
                .with_seed(a.seed);
            if let Some(s) = a.steps {
                cfg.steps = s;
            }
            if let Some(lr) = a.lr {
                cfg.lr = lr;
            }
            if let Some(v) = a.val_every {
                cfg.val_every = v;
            }
            if let Some(n) = a.per_task {
                cfg.per_task = n.max(1);
            }
            if let Some(n) = a.val_per_task {
                cfg.val_per_task = n.max(1);
            }
            cfg.model.validate()?;
            Trainer::new(cfg, dev)
        };
        std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
        let cfg_json = serde_json::to_string_pretty(&tr.config).unwrap();
        std::fs::write(a.out.join("train.json"), cfg_json).map_err(|e| e.to_string())?;
        let params = burn::module::Module::num_params(tr.model());
        eprintln!(
            "{} ({:.2}M parameters), preset {}, {} steps of {} trials, backend {}",
            tr.config.model.label(),
            params as f64 / 1e6,
            tr.config.preset,
            tr.config.steps,
            tr.config.per_task * 14,
            backend_name(a.backend)
        );
        let bar = if a.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::with_draw_target(Some(tr.config.steps as u64), ProgressDrawTarget::stderr())
        };
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} steps {msg} (eta {eta})")
                .unwrap()
                .progress_chars("=> "),
        );
        bar.set_position(tr.state.step as u64);
        let result = pollster::block_on(async {
            while !tr.done() {
                let loss = tr.train_step().await.map_err(|e| e.to_string())?;
                bar.set_position(tr.state.step as u64);
                bar.set_message(format!("loss {loss:.4}"));
                if tr.check_due() {
                    let rep = tr.validate().await.map_err(|e| e.to_string())?;
                    let line = serde_json::json!({
                        "step": rep.step,
                        "loss": rep.train_loss,
                        "val_loss": rep.val_loss,
                        "accuracy": rep.accuracy,
                        "mean_accuracy": rep.mean_accuracy,
                        "lr": rep.lr,
                        "best": rep.best,
                    });
                    bar.suspend(|| println!("{line}"));
                    if rep.best {
                        if let Some(best) = &tr.best {
                            save(best, &a.out.join("best"))?;
                        }
                    }
                    save(&tr.checkpoint()?, &last)?;
                }
            }
            Ok::<(), String>(())
        });
        bar.finish_and_clear();
        if let Err(e) = result {
            return Err(format!("{e} (checkpoints in {})", a.out.display()));
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

    fn save(ck: &Checkpoint, dir: &Path) -> Result<(), String> {
        ck.save_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))
    }

    /// The checkpoint at `path`: a checkpoint directory, a run directory (its `best/`), or a bundle file.
    fn open_checkpoint(path: &Path) -> Result<(PathBuf, Checkpoint), String> {
        let mut path = path.to_path_buf();
        if !path.exists() {
            return Err(format!("{}: no such checkpoint directory or bundle file", path.display()));
        }
        if path.is_dir() && !path.join("weights.bpk").exists() && path.join("best").join("weights.bpk").exists() {
            path = path.join("best");
        }
        let ck = Checkpoint::load_path(&path).map_err(|e| format!("{}: not a readable checkpoint ({e})", path.display()))?;
        Ok((path, ck))
    }

    pub fn run_analyse(a: &AnalyseArgs) -> Result<(), String> {
        // Read the record first: a bad file is reported before minutes of work.
        let mut record = match &a.record {
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
                Some(wmlab_core::record::ResultRecord::from_json(&text).map_err(|e| format!("{}: not a result record ({e})", p.display()))?)
            }
            None => None,
        };
        let (path, ck) = open_checkpoint(&a.checkpoint)?;
        let dev = device(a.backend)?.without_autodiff();
        let model = ck.model(&dev)?;
        let train = ck.train.clone().with_steps(ck.state.step);
        let bar = if a.quiet { ProgressBar::hidden() } else { ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::stderr()) };
        bar.set_style(ProgressStyle::with_template("{elapsed_precise} {msg:>14} [{bar:30}] {pos}/{len}").unwrap().progress_chars("=> "));
        let mut progress = |stage: &str, done: usize, total: usize| {
            bar.set_message(stage.to_string());
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            true
        };
        let chunk = ck.train.per_task.max(1);
        let report = pollster::block_on(wmlab_nn::analyse::analyse_network(&model, &train, a.count, chunk, a.tsne_iterations, &dev, &mut progress))
            .map_err(|e| e.to_string())?;
        bar.finish_and_clear();
        let value = serde_json::to_value(&report).map_err(|e| e.to_string())?;
        if let (Some(p), Some(r)) = (&a.record, record.as_mut()) {
            r.analyses = Some(value.clone());
            std::fs::write(p, r.to_json().map_err(|e| e.to_string())?).map_err(|e| format!("{}: {e}", p.display()))?;
            eprintln!("analyses stored in {}", p.display());
        }
        eprintln!("{} from {}: {} test trials per task id", ck.train.model.label(), path.display(), a.count.max(2));
        println!("{value}");
        Ok(())
    }

    pub fn run_eval(a: &EvalArgs) -> Result<(), String> {
        let (path, ck) = open_checkpoint(&a.checkpoint)?;
        let dev = device(a.backend)?;
        let backend = backend_name(a.backend);
        let total = (a.count * 14) as u64;
        let bar = if a.quiet { ProgressBar::hidden() } else { ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr()) };
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
        let record = pollster::block_on(wmlab_nn::eval::evaluate_checkpoint(&ck, backend, a.count, &dev, &mut progress))
            .map_err(|e| e.to_string())?
            .ok_or("evaluation cancelled")?;
        bar.finish_and_clear();
        let secs = t0.elapsed().as_secs_f64();
        let mut record = record;
        record.created = now_iso8601();
        let accuracy_of = |t: &str| {
            record
                .summaries
                .iter()
                .find(|s| s.task == t && s.metric == "accuracy" && s.conditions == Default::default())
                .map(|s| s.value)
        };
        let mut accuracy = serde_json::Map::new();
        let mut tasks = Vec::new();
        for t in TaskId::ALL {
            let st = StudyTask::Worm(t);
            let subject = subject_curves(&record, st);
            let human = human_curves(st);
            let a3 = if human.is_empty() { Vec::new() } else { table_a3(st, &subject, &human) };
            if let Some(v) = accuracy_of(t.as_str()) {
                accuracy.insert(t.as_str().into(), serde_json::json!(v));
            }
            tasks.push(serde_json::json!({
                "task": t.as_str(),
                "accuracy": accuracy_of(t.as_str()),
                "subject_curves": subject,
                "human_curves": human,
                "table_a3": a3,
            }));
        }
        let mean = record.summaries.iter().find(|s| s.metric == "mean_accuracy").map(|s| s.value);
        if let Some(out) = &a.record {
            let json = record.to_json().map_err(|e| e.to_string())?;
            std::fs::write(out, json).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        let out = serde_json::json!({
            "checkpoint": path.display().to_string(),
            "model": ck.train.model.label(),
            "step": ck.state.step,
            "split": "test",
            "trials_per_task": a.count,
            "backend": backend,
            "seconds": secs,
            "trials_per_second": if secs > 0.0 { total as f64 / secs } else { 0.0 },
            "accuracy": accuracy,
            "mean_accuracy": mean,
            "tasks": tasks,
            "record": a.record.as_ref().map(|p| p.display().to_string()),
        });
        println!("{out}");
        Ok(())
    }
}
