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
//! stdout: the training checks of each run as `wmlab train` prints them, and after each run one line
//! `{"run": …, "status": "trained" | "done earlier", "mean_accuracy": …, "above_chance_ids": …, "record": …}`.

use std::path::{Path, PathBuf};

use clap::Args;
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
pub fn grid(a: &SweepArgs) -> Result<Grid, String> {
    let paper = match a.grid.as_deref() {
        None => false,
        Some(g) if g.eq_ignore_ascii_case("table-a1") => true,
        Some(g) => return Err(format!("--grid {g:?}: the only named grid is table-a1 (the WorM paper's Table A1)")),
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
        return Err("give the architectures (--arch lstm,trf …) or a named grid (--grid table-a1)".into());
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
        return Err(format!("--lr {x}: learning rates are positive numbers"));
    }
    if capacities.contains(&0) || per_task.contains(&Some(0)) {
        return Err("--capacity and --per-task take whole numbers above 0".into());
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
fn write_summary(out: &Path, g: &Grid) -> Result<(), String> {
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
    std::fs::write(out.join("summary.csv"), csv).map_err(|e| format!("{}: {e}", out.display()))
}

pub fn run_sweep(a: &SweepArgs) -> Result<(), String> {
    let g = grid(a)?;
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let file = a.out.join("sweep.json");
    match std::fs::read_to_string(&file) {
        Ok(text) => {
            let before: Grid = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not a sweep file ({e}); use an empty folder", file.display()))?;
            if before != g {
                return Err(format!(
                    "{} holds a different sweep ({} runs, preset {}); give the same settings to resume it, or use another \
                     folder",
                    a.out.display(),
                    before.runs.len(),
                    before.preset
                ));
            }
        }
        Err(_) => {
            if !a.dry_run {
                std::fs::write(&file, serde_json::to_string_pretty(&g).unwrap())
                    .map_err(|e| format!("{}: {e}", file.display()))?;
            }
        }
    }
    let done = |r: &Run| record_path(&a.out, r).exists();
    eprintln!(
        "sweep of {} runs (preset {}) in {}: {} done earlier",
        g.runs.len(),
        g.preset,
        a.out.display(),
        g.runs.iter().filter(|r| done(r)).count()
    );
    if a.dry_run {
        for r in &g.runs {
            println!("{}", serde_json::json!({ "run": r.name, "done": done(r) }));
        }
        return Ok(());
    }
    for (i, r) in g.runs.iter().enumerate() {
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
            crate::train::run_train(&train).map_err(|e| format!("run {}: {e}", r.name))?;
            let eval = EvalArgs {
                checkpoint: if dir.join("best").join("weights.bpk").exists() { dir.clone() } else { dir.join("last") },
                count: a.count,
                backend: a.backend,
                record: Some(rec.clone()),
                cd_pooled: false,
                memoryless: false,
                trials_of: None,
                adaptive: false,
                quiet: a.quiet,
            };
            crate::train::eval_report(&eval).map_err(|e| format!("run {}: evaluation: {e}", r.name))?;
            "trained"
        };
        let text = std::fs::read_to_string(&rec).map_err(|e| format!("{}: {e}", rec.display()))?;
        let record = wmlab_core::record::ResultRecord::from_json(&text)
            .map_err(|e| format!("{}: not a result record ({e})", rec.display()))?;
        let (mean, above) = outcome(&record);
        println!(
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

    fn parse(args: &[&str]) -> Result<Grid, String> {
        let t = T::try_parse_from(std::iter::once("sweep").chain(args.iter().copied()).chain(["--out", "x"]))
            .map_err(|e| e.to_string())?;
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

    #[test]
    fn a_grid_of_lists_and_its_refusals() {
        let g = parse(&["--arch", "gru,trf", "--capacity", "8", "--task-embedding", "learned,static", "--seed", "1,2"])
            .unwrap();
        assert_eq!(g.runs.len(), 8);
        assert_eq!(g.preset, "quick");
        assert!(g.runs.iter().any(|r| r.name == "trf-8-static-s2"));
        assert!(g.runs.iter().all(|r| r.lr.is_none() && r.per_task.is_none()));
        assert!(parse(&[]).unwrap_err().contains("--grid table-a1"));
        assert!(parse(&["--grid", "a2"]).unwrap_err().contains("table-a1"));
        assert!(parse(&["--arch", "gru", "--lr", "0"]).unwrap_err().contains("positive"));
        assert!(parse(&["--arch", "gru", "--per-task", "0"]).unwrap_err().contains("above 0"));
        assert!(parse(&["--arch", "cnn"]).is_err());
    }
}
