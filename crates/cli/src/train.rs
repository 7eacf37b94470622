//! `wmlab train` and `wmlab eval`: the WorM networks (crates/nn) trained jointly on the 14 task ids,
//! natively on the flex CPU backend. One JSON line per validation check on stdout; config + checkpoints
//! in the output directory (`best/` by mean validation accuracy, `last/`).
//! Built with the `nn` feature (`cargo build -p wmlab-cli --features nn`); without it the two
//! subcommands say so.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
#[cfg(feature = "nn")]
pub use imp::{run_eval, run_train};

#[cfg(not(feature = "nn"))]
pub fn run_train(_: &TrainArgs) -> Result<(), String> {
    Err("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`".into())
}
#[cfg(not(feature = "nn"))]
pub fn run_eval(_: &EvalArgs) -> Result<(), String> {
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
    /// burn-wgpu (Vulkan/Metal/DX12): not built in this version.
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
    /// Preset: paper (Table A1), small, tiny (about a minute on 2 CPU cores).
    #[arg(long, default_value = "tiny")]
    pub preset: String,
    /// Optimisation steps (default: the preset's).
    #[arg(long)]
    pub steps: Option<usize>,
    /// Learning rate (default: the preset's).
    #[arg(long)]
    pub lr: Option<f64>,
    /// Steps between validation checks (default: the preset's).
    #[arg(long)]
    pub val_every: Option<usize>,
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
    /// Test trials per task id.
    #[arg(long, default_value_t = 100)]
    pub count: usize,
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: BackendArg,
}

#[cfg(feature = "nn")]
mod imp {
    use std::path::Path;

    use burn::prelude::Device;
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use wmlab_core::Split;
    use wmlab_nn::batch::all_specs;
    use wmlab_nn::train::{TrainConfig, Trainer, evaluate};
    use wmlab_nn::{Arch, Checkpoint};

    use super::{ArchArg, BackendArg, EvalArgs, TrainArgs};

    fn device(b: BackendArg) -> Result<Device, String> {
        match b {
            BackendArg::Cpu => Ok(wmlab_nn::cpu_device()),
            BackendArg::Wgpu => Err("the wgpu backend is not built in this version; use --backend cpu".into()),
        }
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
            eprintln!("resuming {} at step {}", last.display(), ck.state.step);
            Trainer::resume(&ck, dev)?
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
            cfg.model.validate()?;
            Trainer::new(cfg, dev)
        };
        std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
        let cfg_json = serde_json::to_string_pretty(&tr.config).unwrap();
        std::fs::write(a.out.join("train.json"), cfg_json).map_err(|e| e.to_string())?;
        let params = burn::module::Module::num_params(tr.model());
        eprintln!(
            "{} ({:.2}M parameters), preset {}, {} steps of {} trials, backend cpu (burn flex)",
            tr.config.model.label(),
            params as f64 / 1e6,
            tr.config.preset,
            tr.config.steps,
            tr.config.per_task * 14
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

    pub fn run_eval(a: &EvalArgs) -> Result<(), String> {
        let mut path = a.checkpoint.clone();
        if path.is_dir() && !path.join("weights.bpk").exists() && path.join("best").join("weights.bpk").exists() {
            path = path.join("best");
        }
        let ck = Checkpoint::load_path(&path)?;
        let dev = device(a.backend)?;
        let model = ck.model(&dev)?;
        let chunk = ck.train.per_task.max(1);
        let (loss, acc) =
            pollster::block_on(evaluate(&model, &all_specs(), ck.train.seed, Split::Test, a.count, chunk, &dev))
                .map_err(|e| e.to_string())?;
        let out = serde_json::json!({
            "checkpoint": path.display().to_string(),
            "model": ck.train.model.label(),
            "step": ck.state.step,
            "split": "test",
            "trials_per_task": a.count,
            "loss": loss,
            "accuracy": acc.to_json(),
            "mean_accuracy": acc.mean(),
        });
        println!("{out}");
        Ok(())
    }
}
