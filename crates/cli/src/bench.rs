//! `wmlab bench`: single-thread stimulus throughput, trials generated and every real step rendered to the
//! 32×32×3 tensor (draw at 96, downsample to 32), as the training pipeline consumes them.

use std::hint::black_box;
use std::time::{Duration, Instant};

use wmlab_core::raster::{self, TENSOR_LEN};
use wmlab_core::{Split, TaskId, TaskSpec};

use crate::{BenchArgs, TaskSel};

pub struct Measure {
    pub trials: u64,
    pub frames: u64,
    pub secs: f64,
}

/// Generate and render trials from `specs` round robin until `budget` has passed (at least one trial).
fn measure(specs: &[TaskSpec], seed: u64, budget: Duration) -> Measure {
    measure_runs(specs, seed, budget, 1)
}

/// [`measure`] with `run` consecutive trials of each spec in turn (a training batch holds its trials
/// grouped by task id: `run` = 10 is the paper's batch of 10 per id).
fn measure_runs(specs: &[TaskSpec], seed: u64, budget: Duration, run: u64) -> Measure {
    let mut tensors = vec![0.0f32; wmlab_core::task::STEP_LIMIT * TENSOR_LEN];
    let (mut trials, mut frames) = (0u64, 0u64);
    let start = Instant::now();
    let mut index = 0u64;
    loop {
        for spec in specs {
            for j in 0..run {
                let trial = spec.trial(seed, Split::Train, index + j);
                // As a training batch renders a trial (through the raster memo and incremental resampling).
                raster::tensors_into(trial.steps.iter().map(|s| &s.frame), &mut tensors[..trial.len() * TENSOR_LEN]);
                black_box(&tensors);
                frames += trial.len() as u64;
                trials += 1;
            }
        }
        index += run;
        if start.elapsed() >= budget {
            break;
        }
    }
    Measure { trials, frames, secs: start.elapsed().as_secs_f64() }
}

pub fn line(name: &str, m: &Measure) -> String {
    let s = m.secs.max(1e-9);
    format!(
        "{:<15}frames/s {:>7.0}   trials/s {:>6.0}   (trials {}, frames {}, {:.2} s)",
        name,
        m.frames as f64 / s,
        m.trials as f64 / s,
        m.trials,
        m.frames,
        m.secs
    )
}

pub fn run(a: &BenchArgs) {
    let budget = Duration::from_secs_f64(a.seconds);
    let sel = a.task.unwrap_or(TaskSel::All);
    for id in sel.ids() {
        out!("{}", line(id.as_str(), &measure(&[TaskSpec::new(id)], a.seed, budget)));
    }
    if sel == TaskSel::All {
        let mix: Vec<TaskSpec> = TaskId::ALL.iter().map(|&id| TaskSpec::new(id)).collect();
        out!("{}", line("joint", &measure(&mix, a.seed, budget)));
        out!("{}", line("joint-batch", &measure_runs(&mix, a.seed, budget, 10)));
    }
}
