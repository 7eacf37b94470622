//! `wmlab sweep`: a grid of training configurations run one after another into one folder, each
//! trained (`wmlab train`) and then evaluated into a result record (`wmlab eval --record`), as the
//! WorM paper's grid search over Table A1 (architectures × capacities × batch sizes × learning rates).
//!
//! The folder: `sweep.json` (the grid: every run's name and settings, written first), one run folder
//! per configuration (`<name>/` with `best/`, `last/` and `record.json`), and `summary.csv` (one row per
//! finished run, rewritten after each). A sweep is resumable: run the same command again and finished
//! runs (those with a `record.json`) are skipped, a run cut off mid-training continues from its `last/`
//! checkpoint. A folder that holds a different grid is refused, so two sweeps never mix.
//!
//! On a cluster (README, "Running a sweep on a cluster"): `--plan` writes `sweep.json` once (stable run
//! indices); `--index K` (or Slurm's `SLURM_ARRAY_TASK_ID`, or Kubernetes' `JOB_COMPLETION_INDEX`) runs
//! run K alone, the grid read from `sweep.json`; `--slurm` writes `sweep.sbatch`, a job array of one task
//! per run, and `--k8s` writes `sweep-job.json`, an Indexed Job. Every file is written whole (a temporary
//! file renamed), and `summary.csv` is rebuilt from the run folders after each run and by `--summary`, so
//! runs in parallel never tear it.
//!
//! stdout: the training checks of each run as `wmlab train` prints them, and after each run one line
//! `{"run": …, "status": "trained" | "done earlier", "mean_accuracy": …, "above_chance_ids": …, "record": …}`.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};

use crate::train::{ArchArg, BackendArg, EmbeddingArg, EvalArgs, TrainArgs};

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Start from a named grid: `table-a1` (the WorM paper's Table A1: rnn,gru,lstm,trf × capacity
    /// 96,256,1024 × batch 140,70 (per task 10,5) × learning rate 8e-5,1e-4,3e-4 = 72 runs, with the
    /// paper preset). A list given below replaces that axis.
    #[arg(long, value_name = "NAME")]
    pub grid: Option<String>,
    /// Memory architectures (comma list).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub arch: Vec<ArchArg>,
    /// Capacities (comma list; default 256).
    #[arg(long, value_delimiter = ',')]
    pub capacity: Vec<usize>,
    /// Learning rates (comma list; default the preset's).
    #[arg(long, value_delimiter = ',')]
    pub lr: Vec<f64>,
    /// Trials of each task id per step (comma list; the batch is this × the trained ids; default the
    /// preset's).
    #[arg(long, value_delimiter = ',')]
    pub per_task: Vec<usize>,
    /// Task embeddings (comma list of learned, static; default learned).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub task_embedding: Vec<EmbeddingArg>,
    /// Seeds (comma list; default 86).
    #[arg(long, value_delimiter = ',')]
    pub seed: Vec<u64>,
    /// Preset of every run (default: quick, or paper for `--grid table-a1`).
    #[arg(long)]
    pub preset: Option<String>,
    /// Steps of every run (default: the preset's).
    #[arg(long)]
    pub steps: Option<usize>,
    /// Steps between validation checks (default: the preset's).
    #[arg(long)]
    pub val_every: Option<usize>,
    /// Validation trials per task id at each check (default: the preset's).
    #[arg(long)]
    pub val_per_task: Option<usize>,
    /// Train only these task ids (comma list; default all 14).
    #[arg(long, value_name = "IDS")]
    pub tasks: Option<String>,
    /// A task parameter for every run (repeatable), as `wmlab train --set`.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::parse_setting)]
    pub set: Vec<(String, String)>,
    /// Test trials per task id in each run's evaluation.
    #[arg(long = "n", value_name = "N", default_value_t = 100)]
    pub count: usize,
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: BackendArg,
    /// The sweep's folder.
    #[arg(long)]
    pub out: PathBuf,
    /// List the runs (and which are done) without training.
    #[arg(long)]
    pub dry_run: bool,
    /// Write the grid to `sweep.json` and list its runs with their indices, without training (what a
    /// scheduler's tasks then read with `--index`).
    #[arg(long)]
    pub plan: bool,
    /// Run only run K (0-based, as `--plan` lists them), the grid read from `--out`'s `sweep.json` when no
    /// grid is given. Without it: `SLURM_ARRAY_TASK_ID`, then `JOB_COMPLETION_INDEX`, else every run.
    #[arg(long, value_name = "K")]
    pub index: Option<usize>,
    /// Rebuild `summary.csv` from the run folders and stop.
    #[arg(long)]
    pub summary: bool,
    /// Plan, and write `sweep.sbatch`: a Slurm job array with one task per run (`sbatch DIR/sweep.sbatch`).
    #[arg(long)]
    pub slurm: bool,
    /// Plan, and write `sweep-job.json`: a Kubernetes Indexed Job with one completion per run.
    #[arg(long)]
    pub k8s: bool,
    /// GPUs per run (Slurm `--gres=gpu:N`, Kubernetes `nvidia.com/gpu`).
    #[arg(long, default_value_t = 0)]
    pub gpus_per_run: u32,
    /// CPUs per run.
    #[arg(long, default_value_t = 1)]
    pub cpus_per_run: u32,
    /// Wall-clock limit of each run, HH:MM:SS (Slurm `--time`).
    #[arg(long, value_name = "HH:MM:SS")]
    pub time: Option<String>,
    /// Slurm partition.
    #[arg(long)]
    pub partition: Option<String>,
    /// Runs at once (the array's `%M`, the Job's parallelism).
    #[arg(long, default_value_t = 4)]
    pub max_parallel: usize,
    /// Container image of the Kubernetes Job (one with `wmlab` on its PATH).
    #[arg(long, default_value = "wmlab")]
    pub image: String,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// One configuration of the grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub name: String,
    pub arch: String,
    pub capacity: usize,
    pub lr: Option<f64>,
    pub per_task: Option<usize>,
    pub task_embedding: String,
    pub seed: u64,
}

/// What `sweep.json` holds: the runs and the settings common to all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    pub preset: String,
    pub steps: Option<usize>,
    pub val_every: Option<usize>,
    pub val_per_task: Option<usize>,
    pub tasks: Option<String>,
    pub set: Vec<(String, String)>,
    pub runs: Vec<Run>,
}

fn arch_name(a: ArchArg) -> &'static str {
    match a {
        ArchArg::Rnn => "rnn",
        ArchArg::Gru => "gru",
        ArchArg::Lstm => "lstm",
        ArchArg::Trf => "trf",
    }
}

fn arch_of(name: &str) -> ArchArg {
    match name {
        "rnn" => ArchArg::Rnn,
        "gru" => ArchArg::Gru,
        "lstm" => ArchArg::Lstm,
        _ => ArchArg::Trf,
    }
}

fn embedding_name(e: EmbeddingArg) -> &'static str {
    match e {
        EmbeddingArg::Learned => "learned",
        EmbeddingArg::Static => "static",
    }
}

/// The grid the arguments describe, runs in order (architecture, capacity, batch, learning rate,
/// embedding, seed), or why it is not one.
pub fn grid(a: &SweepArgs) -> anyhow::Result<Grid> {
    let paper = match a.grid.as_deref() {
        None => false,
        Some(g) if g.eq_ignore_ascii_case("table-a1") => true,
        Some(g) => {
            return Err(anyhow::anyhow!("--grid {g:?}: the only named grid is table-a1 (the WorM paper's Table A1)"));
        }
    };
    let or = |given: &[usize], paper_axis: &[usize], default: &[usize]| -> Vec<usize> {
        if !given.is_empty() {
            given.to_vec()
        } else if paper {
            paper_axis.to_vec()
        } else {
            default.to_vec()
        }
    };
    let archs: Vec<ArchArg> = if !a.arch.is_empty() {
        a.arch.clone()
    } else if paper {
        vec![ArchArg::Rnn, ArchArg::Gru, ArchArg::Lstm, ArchArg::Trf]
    } else {
        return Err(anyhow::anyhow!("give the architectures (--arch lstm,trf …) or a named grid (--grid table-a1)"));
    };
    let capacities = or(&a.capacity, &[96, 256, 1024], &[256]);
    let per_task: Vec<Option<usize>> = if !a.per_task.is_empty() {
        a.per_task.iter().map(|&n| Some(n)).collect()
    } else if paper {
        vec![Some(10), Some(5)]
    } else {
        vec![None]
    };
    let lrs: Vec<Option<f64>> = if !a.lr.is_empty() {
        a.lr.iter().map(|&x| Some(x)).collect()
    } else if paper {
        vec![Some(8e-5), Some(1e-4), Some(3e-4)]
    } else {
        vec![None]
    };
    if let Some(x) = lrs.iter().flatten().find(|x| !(x.is_finite() && **x > 0.0)) {
        return Err(anyhow::anyhow!("--lr {x}: learning rates are positive numbers"));
    }
    if capacities.contains(&0) || per_task.contains(&Some(0)) {
        return Err(anyhow::anyhow!("--capacity and --per-task take whole numbers above 0"));
    }
    let embeddings = if a.task_embedding.is_empty() { vec![EmbeddingArg::Learned] } else { a.task_embedding.clone() };
    let seeds = if a.seed.is_empty() { vec![86] } else { a.seed.clone() };
    let mut runs = Vec::new();
    for &arch in &archs {
        for &capacity in &capacities {
            for &pt in &per_task {
                for &lr in &lrs {
                    for &e in &embeddings {
                        for &seed in &seeds {
                            let mut name = format!("{}-{capacity}", arch_name(arch));
                            if let Some(n) = pt {
                                name.push_str(&format!("-pt{n}"));
                            }
                            if let Some(x) = lr {
                                name.push_str(&format!("-lr{x:e}"));
                            }
                            if e == EmbeddingArg::Static {
                                name.push_str("-static");
                            }
                            if seeds.len() > 1 {
                                name.push_str(&format!("-s{seed}"));
                            }
                            if runs.iter().any(|r: &Run| r.name == name) {
                                continue; // a list that names a value twice
                            }
                            runs.push(Run {
                                name,
                                arch: arch_name(arch).into(),
                                capacity,
                                lr,
                                per_task: pt,
                                task_embedding: embedding_name(e).into(),
                                seed,
                            });
                        }
                    }
                }
            }
        }
    }
    let preset = a.preset.clone().unwrap_or_else(|| if paper { "paper" } else { "quick" }.into());
    Ok(Grid {
        preset,
        steps: a.steps,
        val_every: a.val_every,
        val_per_task: a.val_per_task,
        tasks: a.tasks.clone(),
        set: a.set.clone(),
        runs,
    })
}

/// Whether the arguments describe a grid (else it comes from `sweep.json`).
fn grid_given(a: &SweepArgs) -> bool {
    a.grid.is_some()
        || !a.arch.is_empty()
        || !a.capacity.is_empty()
        || !a.lr.is_empty()
        || !a.per_task.is_empty()
        || !a.task_embedding.is_empty()
        || !a.seed.is_empty()
        || a.preset.is_some()
        || a.steps.is_some()
        || a.val_every.is_some()
        || a.val_per_task.is_some()
        || a.tasks.is_some()
        || !a.set.is_empty()
}

/// The run the environment names: `--index`, else a Slurm array task, else a Kubernetes Indexed Job's
/// completion index; `None`: every run.
fn chosen_index(a: &SweepArgs, runs: usize) -> anyhow::Result<Option<usize>> {
    let mut from = a.index.map(|k| ("--index", k));
    if from.is_none() {
        for var in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"] {
            if let Ok(v) = std::env::var(var) {
                let k = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("{var}={v:?} is not a run index"))
                    .map_err(anyhow::Error::msg)?;
                from = Some((var, k));
                break;
            }
        }
    }
    match from {
        Some((what, k)) if k >= runs => {
            Err(anyhow::anyhow!("{what} {k}: the sweep has {runs} runs, indices 0 to {}", runs.saturating_sub(1)))
        }
        Some((_, k)) => Ok(Some(k)),
        None => Ok(None),
    }
}

/// A run's name as a folder inside the sweep: letters, digits, `.`, `_`, `-`, not `.` or `..` — a
/// hand-edited `sweep.json` with `../x` would otherwise write checkpoints outside the sweep's folder.
fn check_run_name(name: &str) -> anyhow::Result<()> {
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && name.len() <= 128
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(anyhow::anyhow!(
            "run name {:?} in sweep.json: a run's folder name is letters, digits, '.', '_' and '-' only (at most 128),              inside the sweep's folder",
            wmlab_llm::error::printable(name)
        ))
    }
}

/// The scheduler options written into `sweep.sbatch` / `sweep-job.json`, checked before a script holds
/// them: a newline or a `$(…)` in `--time`, `--partition` or the folder would be a command in the job
/// script, and absurd resource counts are refused with the limit.
fn check_job_options(a: &SweepArgs, out: &Path) -> anyhow::Result<()> {
    if let Some(t) = &a.time {
        // Slurm's forms: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
        let (days, clock) = match t.split_once('-') {
            Some((d, c)) => (Some(d), c),
            None => (None, t.as_str()),
        };
        let digits = |x: &str| !x.is_empty() && x.len() <= 4 && x.chars().all(|c| c.is_ascii_digit());
        let parts: Vec<&str> = clock.split(':').collect();
        if !(days.is_none_or(digits) && (1..=3).contains(&parts.len()) && parts.iter().all(|p| digits(p))) {
            return Err(anyhow::anyhow!(
                "--time {:?}: Slurm's wall-clock limit, as MM, HH:MM:SS or D-HH:MM:SS (digits, ':' and '-' only)",
                wmlab_llm::error::printable(t)
            ));
        }
    }
    if let Some(p) = &a.partition {
        let name = |x: &str| {
            !x.is_empty()
                && x.len() <= 64
                && x.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        };
        if !p.split(',').all(name) {
            return Err(anyhow::anyhow!(
                "--partition {:?}: a Slurm partition name (letters, digits, '.', '_', '-'; a comma list for several)",
                wmlab_llm::error::printable(p)
            ));
        }
    }
    let dir = out.display().to_string();
    if dir.chars().any(|c| c.is_control() || c == '%') {
        return Err(anyhow::anyhow!(
            "--out {:?}: the folder's path goes into the job script's #SBATCH lines; choose one without control \
             characters or '%'",
            wmlab_llm::error::printable(&dir)
        ));
    }
    if a.image.chars().any(|c| c.is_control() || c.is_whitespace()) || a.image.is_empty() {
        return Err(anyhow::anyhow!(
            "--image {:?}: a container image name, with no spaces",
            wmlab_llm::error::printable(&a.image)
        ));
    }
    for (what, v, max) in [
        ("--gpus-per-run", a.gpus_per_run as usize, 64),
        ("--cpus-per-run", a.cpus_per_run as usize, 1024),
        ("--max-parallel", a.max_parallel, 100_000),
    ] {
        if v > max {
            return Err(anyhow::anyhow!("{what} {v}: at most {max}"));
        }
    }
    Ok(())
}

/// A word for a POSIX shell, in single quotes.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The backend as `--backend` spells it (clap's own name for the value).
fn backend_name(b: BackendArg) -> String {
    b.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
}

/// `sweep.sbatch`: a Slurm job array whose task K runs run K of the sweep in `out` (an absolute path).
pub fn sbatch_script(a: &SweepArgs, out: &Path, runs: usize, wmlab: &Path) -> String {
    let dir = out.display().to_string();
    let mut s = String::from("#!/bin/bash\n");
    s.push_str("# Written by `wmlab sweep --slurm`: array task K runs run K of the sweep (sweep.json's order).\n");
    s.push_str("# Submit with: sbatch sweep.sbatch   (a task cut off resumes from its run's last/ when rerun)\n");
    s.push_str("#SBATCH --job-name=wmlab-sweep\n");
    s.push_str(&format!("#SBATCH --array=0-{}%{}\n", runs.saturating_sub(1), a.max_parallel.max(1)));
    s.push_str(&format!("#SBATCH --cpus-per-task={}\n", a.cpus_per_run.max(1)));
    if a.gpus_per_run > 0 {
        s.push_str(&format!("#SBATCH --gres=gpu:{}\n", a.gpus_per_run));
    }
    if let Some(t) = &a.time {
        s.push_str(&format!("#SBATCH --time={t}\n"));
    }
    if let Some(p) = &a.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    s.push_str(&format!("#SBATCH --output={dir}/slurm/%A_%a.out\n"));
    s.push_str("set -euo pipefail\n");
    s.push_str("echo \"wmlab-sweep start $(date +%s.%N) index $SLURM_ARRAY_TASK_ID\"\n");
    s.push_str(&format!(
        "{} sweep --out {} --index \"$SLURM_ARRAY_TASK_ID\" --backend {} --n {} --quiet\n",
        sh_quote(&wmlab.display().to_string()),
        sh_quote(&dir),
        backend_name(a.backend),
        a.count
    ));
    s.push_str("echo \"wmlab-sweep end $(date +%s.%N) index $SLURM_ARRAY_TASK_ID\"\n");
    s
}

/// `sweep-job.json`: a Kubernetes Indexed Job (kubectl apply -f takes JSON) whose completion K runs run K;
/// the sweep's folder (with its `sweep.json`) is the volume claim `wmlab-sweep`, mounted at `/sweep`.
pub fn k8s_job(a: &SweepArgs, runs: usize) -> serde_json::Value {
    let mut limits = serde_json::json!({ "cpu": a.cpus_per_run.max(1).to_string() });
    if a.gpus_per_run > 0 {
        limits["nvidia.com/gpu"] = a.gpus_per_run.to_string().into();
    }
    let count = a.count.to_string();
    serde_json::json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": { "name": "wmlab-sweep" },
        "spec": {
            "completionMode": "Indexed",
            "completions": runs,
            "parallelism": a.max_parallel.max(1),
            "backoffLimitPerIndex": 2,
            "template": { "spec": {
                "restartPolicy": "Never",
                "containers": [{
                    "name": "wmlab",
                    "image": a.image,
                    "command": ["wmlab", "sweep", "--out", "/sweep", "--backend", &backend_name(a.backend), "--n", count, "--quiet"],
                    "resources": { "limits": limits },
                    "volumeMounts": [{ "name": "sweep", "mountPath": "/sweep" }],
                }],
                "volumes": [{ "name": "sweep", "persistentVolumeClaim": { "claimName": "wmlab-sweep" } }],
            }},
        },
    })
}

fn record_path(out: &Path, run: &Run) -> PathBuf {
    out.join(&run.name).join("record.json")
}

/// A run's result: its mean test accuracy and how many task ids scored above chance.
fn outcome(rec: &wmlab_core::record::ResultRecord) -> (Option<f64>, usize) {
    use wmlab_core::chance::{LEVEL, record_significance};
    let mean = rec.summaries.iter().find(|s| s.metric == "mean_accuracy").map(|s| s.value);
    (mean, record_significance(rec).iter().filter(|s| s.above_chance(LEVEL)).count())
}

/// `summary.csv`: one row per run with a record (its settings, trained steps, mean test accuracy and
/// task ids above chance).
fn write_summary(out: &Path, g: &Grid) -> anyhow::Result<()> {
    // Runs finishing in parallel each rebuild it; one that finds more records after its rename than it
    // wrote rebuilds it again, so the last to finish leaves every record in.
    let finished = || g.runs.iter().filter(|r| record_path(out, r).exists()).count();
    loop {
        let before = finished();
        write_summary_once(out, g)?;
        if finished() == before {
            return Ok(());
        }
    }
}

fn write_summary_once(out: &Path, g: &Grid) -> anyhow::Result<()> {
    let mut csv = String::new();
    let header =
        "run,arch,capacity,per_task,lr,task_embedding,seed,preset,steps,trials_seen,mean_accuracy,above_chance_ids";
    wmlab_core::record::push_csv_row(&mut csv, &header.split(',').map(String::from).collect::<Vec<_>>());
    for r in &g.runs {
        let Ok(text) = std::fs::read_to_string(record_path(out, r)) else { continue };
        let Ok(rec) = wmlab_core::record::ResultRecord::from_json(&text) else { continue };
        let (mean, above) = outcome(&rec);
        let steps = match &rec.subject {
            wmlab_core::record::Subject::Network { steps, .. } => *steps,
            _ => 0,
        };
        let trials = rec.training.iter().find(|p| p.step == steps).map(|p| p.trials.to_string()).unwrap_or_default();
        let cells = [
            r.name.to_string(),
            r.arch.to_string(),
            r.capacity.to_string(),
            r.per_task.map(|n| n.to_string()).unwrap_or_default(),
            r.lr.map(|x| x.to_string()).unwrap_or_default(),
            r.task_embedding.to_string(),
            r.seed.to_string(),
            g.preset.to_string(),
            steps.to_string(),
            trials,
            mean.map(|m| format!("{m:.4}")).unwrap_or_default(),
            above.to_string(),
        ];
        wmlab_core::record::push_csv_row(&mut csv, &cells);
    }
    crate::write_atomic(&out.join("summary.csv"), csv.as_bytes())
}

pub fn run_sweep(a: &SweepArgs) -> anyhow::Result<()> {
    std::fs::create_dir_all(&a.out).map_err(|e| anyhow::anyhow!("{}: {e}", a.out.display()))?;
    let file = a.out.join("sweep.json");
    let before: Option<Grid> = match std::fs::read_to_string(&file) {
        Ok(text) => Some(
            serde_json::from_str(&text)
                .map_err(|e| anyhow::anyhow!("{}: not a sweep file ({e}); use an empty folder", file.display()))?,
        ),
        Err(_) => None,
    };
    let g = if grid_given(a) {
        let g = grid(a)?;
        if let Some(before) = &before
            && *before != g
        {
            return Err(anyhow::anyhow!(
                "{} holds a different sweep ({} runs, preset {}); give the same settings to resume it, or use another \
                 folder",
                a.out.display(),
                before.runs.len(),
                before.preset
            ));
        }
        g
    } else {
        before.clone().ok_or_else(|| {
            format!(
                "{} has no sweep.json: give the grid (--arch lstm,trf …, or --grid table-a1), or plan it there first \
                 (--plan)",
                a.out.display()
            )
        }).map_err(anyhow::Error::msg)?
    };
    for r in &g.runs {
        check_run_name(&r.name)?;
    }
    if before.is_none() && !a.dry_run {
        crate::write_atomic(&file, serde_json::to_string_pretty(&g).map_err(|e| anyhow::anyhow!("{e}"))?.as_bytes())?;
    }
    let done = |r: &Run| record_path(&a.out, r).exists();
    if a.summary {
        write_summary(&a.out, &g)?;
        eprintln!(
            "{}: {} of {} runs finished",
            a.out.join("summary.csv").display(),
            g.runs.iter().filter(|r| done(r)).count(),
            g.runs.len()
        );
        return Ok(());
    }
    if a.plan || a.slurm || a.k8s {
        for (i, r) in g.runs.iter().enumerate() {
            out!("{}", serde_json::json!({ "index": i, "run": r.name, "done": done(r) }));
        }
        let out = std::fs::canonicalize(&a.out).map_err(|e| anyhow::anyhow!("{}: {e}", a.out.display()))?;
        check_job_options(a, &out)?;
        if a.slurm {
            std::fs::create_dir_all(out.join("slurm")).map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
            let exe = std::env::current_exe().map_err(|e| anyhow::anyhow!("the path of wmlab itself: {e}"))?;
            let path = out.join("sweep.sbatch");
            crate::write_atomic(&path, sbatch_script(a, &out, g.runs.len(), &exe).as_bytes())?;
            eprintln!("{}: submit with `sbatch {}`", path.display(), path.display());
        }
        if a.k8s {
            let path = out.join("sweep-job.json");
            let job = serde_json::to_string_pretty(&k8s_job(a, g.runs.len())).map_err(|e| anyhow::anyhow!("{e}"))?;
            crate::write_atomic(&path, job.as_bytes())?;
            eprintln!(
                "{}: copy {} onto the volume claim wmlab-sweep, then `kubectl apply -f {}`",
                path.display(),
                out.display(),
                path.display()
            );
        }
        eprintln!("sweep of {} runs (preset {}) planned in {}", g.runs.len(), g.preset, out.display());
        return Ok(());
    }
    let index = chosen_index(a, g.runs.len())?;
    eprintln!(
        "sweep of {} runs (preset {}) in {}: {} done earlier{}",
        g.runs.len(),
        g.preset,
        a.out.display(),
        g.runs.iter().filter(|r| done(r)).count(),
        index.map(|k| format!("; this process runs run {k} alone")).unwrap_or_default()
    );
    if a.dry_run {
        for r in &g.runs {
            out!("{}", serde_json::json!({ "run": r.name, "done": done(r) }));
        }
        return Ok(());
    }
    for (i, r) in g.runs.iter().enumerate() {
        if index.is_some_and(|k| k != i) {
            continue;
        }
        let rec = record_path(&a.out, r);
        let status = if done(r) {
            "done earlier"
        } else {
            eprintln!("run {} of {}: {}", i + 1, g.runs.len(), r.name);
            let dir = a.out.join(&r.name);
            let train = TrainArgs {
                arch: arch_of(&r.arch),
                capacity: r.capacity,
                preset: g.preset.clone(),
                steps: g.steps,
                lr: r.lr,
                val_every: g.val_every,
                per_task: r.per_task,
                val_per_task: g.val_per_task,
                tasks: g.tasks.clone(),
                conv: None,
                encoder: None,
                attention: None,
                spatial: None,
                grad_clip: None,
                curriculum: None,
                sfr_scale: None,
                task_embedding: Some(if r.task_embedding == "static" {
                    EmbeddingArg::Static
                } else {
                    EmbeddingArg::Learned
                }),
                quirks: None,
                set: g.set.clone(),
                backend: a.backend,
                seed: r.seed,
                out: dir.clone(),
                resume: true,
                quiet: a.quiet,
            };
            crate::train::run_train(&train).map_err(|e| anyhow::anyhow!("run {}: {e}", r.name))?;
            let eval = EvalArgs {
                checkpoint: if dir.join("best").join("weights.bpk").exists() { dir.clone() } else { dir.join("last") },
                count: a.count,
                backend: a.backend,
                record: Some(rec.clone()),
                cd_pooled: false,
                memoryless: false,
                trials_of: None,
                adaptive: false,
                json: true,
                quiet: a.quiet,
            };
            crate::train::eval_report(&eval).map_err(|e| anyhow::anyhow!("run {}: evaluation: {e}", r.name))?;
            "trained"
        };
        let text = std::fs::read_to_string(&rec).map_err(|e| anyhow::anyhow!("{}: {e}", rec.display()))?;
        let record = wmlab_core::record::ResultRecord::from_json(&text)
            .map_err(|e| anyhow::anyhow!("{}: not a result record ({e})", rec.display()))?;
        let (mean, above) = outcome(&record);
        out!(
            "{}",
            serde_json::json!({
                "run": r.name,
                "status": status,
                "mean_accuracy": mean,
                "above_chance_ids": above,
                "record": rec.display().to_string(),
            })
        );
        write_summary(&a.out, &g)?;
    }
    eprintln!(
        "sweep done: {} (open the records on the Compare page to see them together)",
        a.out.join("summary.csv").display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        a: SweepArgs,
    }

    fn parse(args: &[&str]) -> anyhow::Result<Grid> {
        let t = T::try_parse_from(std::iter::once("sweep").chain(args.iter().copied()).chain(["--out", "x"]))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        grid(&t.a)
    }

    #[test]
    fn the_table_a1_grid_has_the_papers_72_runs_with_distinct_names() {
        let g = parse(&["--grid", "table-a1"]).unwrap();
        assert_eq!(g.runs.len(), 4 * 3 * 2 * 3);
        assert_eq!(g.preset, "paper");
        let mut names: Vec<&str> = g.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names[0], "rnn-96-pt10-lr8e-5");
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 72);
        // A list replaces one axis of the named grid.
        let g = parse(&["--grid", "table-a1", "--arch", "lstm", "--capacity", "96"]).unwrap();
        assert_eq!(g.runs.len(), 6);
        assert!(g.runs.iter().all(|r| r.arch == "lstm" && r.capacity == 96));
    }

    fn args(extra: &[&str]) -> SweepArgs {
        T::try_parse_from(["sweep", "--out", "x"].into_iter().chain(extra.iter().copied())).unwrap().a
    }

    /// Issue 71: a newline in --partition, --time or --out put a command line into sweep.sbatch, a
    /// run name with ../ wrote outside the sweep folder, and --gpus-per-run 1000000000 was accepted.
    #[test]
    fn job_options_and_run_names_that_would_inject_or_escape_are_refused() {
        let out = Path::new("/data/sweep");
        for (flags, words) in [
            (vec!["--partition", "gpu\nrm -rf ~"], "--partition"),
            (vec!["--partition", "gpu;id"], "--partition"),
            (vec!["--time", "$(reboot)"], "--time"),
            (vec!["--time", "12:00:00\n#SBATCH --wrap=x"], "--time"),
            (vec!["--time", "1:2:3:4"], "--time"),
            (vec!["--gpus-per-run", "1000000000"], "at most 64"),
            (vec!["--image", "a b"], "--image"),
        ] {
            let e = check_job_options(&args(&flags), out).unwrap_err().to_string();
            assert!(e.contains(words), "{flags:?}: {e}");
            assert!(!e.contains('\n'), "the message shows the newline escaped: {e}");
        }
        for good in [
            vec!["--time", "12:00:00"],
            vec!["--time", "2-00:00"],
            vec!["--time", "90"],
            vec!["--partition", "gpu,a100"],
        ] {
            assert!(check_job_options(&args(&good), out).is_ok(), "{good:?}");
        }
        assert!(check_job_options(&args(&[]), Path::new("/data/x\n/y")).is_err());
        assert!(check_job_options(&args(&[]), Path::new("/data/50%")).is_err());
        for bad in ["../escape", "..", ".", "a/b", "", "x\ny"] {
            assert!(check_run_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_run_name("lstm-96-pt10-lr8e-5").is_ok());
    }

    #[test]
    fn the_slurm_array_and_the_kubernetes_job_run_one_run_per_index() {
        let a = args(&["--gpus-per-run", "1", "--time", "12:00:00", "--partition", "gpu", "--max-parallel", "8"]);
        let s = sbatch_script(&a, Path::new("/data/it's here"), 72, Path::new("/opt/wmlab"));
        assert!(s.starts_with("#!/bin/bash\n"), "{s}");
        for line in [
            "#SBATCH --array=0-71%8",
            "#SBATCH --cpus-per-task=1",
            "#SBATCH --gres=gpu:1",
            "#SBATCH --time=12:00:00",
            "#SBATCH --partition=gpu",
            "#SBATCH --output=/data/it's here/slurm/%A_%a.out",
            "'/opt/wmlab' sweep --out '/data/it'\\''s here' --index \"$SLURM_ARRAY_TASK_ID\" --backend cpu --n 100 --quiet",
        ] {
            assert!(s.lines().any(|l| l == line), "no line {line:?} in\n{s}");
        }
        // No GPU asked, no gres line; no time or partition unless given.
        let s = sbatch_script(&args(&[]), Path::new("/d"), 4, Path::new("/w"));
        assert!(
            s.contains("--array=0-3%4") && !s.contains("--gres") && !s.contains("--time") && !s.contains("--partition")
        );
        let job = k8s_job(&args(&["--gpus-per-run", "2", "--max-parallel", "3", "--image", "lab/wmlab:1"]), 72);
        assert_eq!(job["spec"]["completionMode"], "Indexed");
        assert_eq!(job["spec"]["completions"], 72);
        assert_eq!(job["spec"]["parallelism"], 3);
        let c = &job["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["image"], "lab/wmlab:1");
        assert_eq!(c["resources"]["limits"]["nvidia.com/gpu"], "2");
        assert_eq!(c["command"][0], "wmlab");
        assert!(
            !c["command"].as_array().unwrap().iter().any(|w| w == "--index"),
            "the index comes from JOB_COMPLETION_INDEX"
        );
    }

    #[test]
    fn the_index_comes_from_the_flag_and_is_checked() {
        assert_eq!(chosen_index(&args(&["--index", "3"]), 4).unwrap(), Some(3));
        assert!(chosen_index(&args(&["--index", "4"]), 4).unwrap_err().to_string().contains("indices 0 to 3"));
        assert!(!grid_given(&args(&["--index", "1"])), "a run of a planned sweep needs no grid");
        assert!(grid_given(&args(&["--arch", "gru"])));
    }

    #[test]
    fn a_grid_of_lists_and_its_refusals() {
        let g = parse(&["--arch", "gru,trf", "--capacity", "8", "--task-embedding", "learned,static", "--seed", "1,2"])
            .unwrap();
        assert_eq!(g.runs.len(), 8);
        assert_eq!(g.preset, "quick");
        assert!(g.runs.iter().any(|r| r.name == "trf-8-static-s2"));
        assert!(g.runs.iter().all(|r| r.lr.is_none() && r.per_task.is_none()));
        assert!(parse(&[]).unwrap_err().to_string().contains("--grid table-a1"));
        assert!(parse(&["--grid", "a2"]).unwrap_err().to_string().contains("table-a1"));
        assert!(parse(&["--arch", "gru", "--lr", "0"]).unwrap_err().to_string().contains("positive"));
        assert!(parse(&["--arch", "gru", "--per-task", "0"]).unwrap_err().to_string().contains("above 0"));
        assert!(parse(&["--arch", "cnn"]).is_err());
    }
}
