//! Test-evaluation throughput (prints numbers; not a test):
//! `cargo run --release -p wmlab-nn --example eval_speed [-- N_PER_TASK]`
//! Trials/s of `eval::evaluate_record` (batch building + forward + scoring into trial rows) for a tiny
//! LSTM-96 and the paper's LSTM-256, freshly initialised, on the flex CPU backend.

use std::time::Instant;

use wmlab_nn::BuildModel;
use wmlab_nn::eval::evaluate_record;
use wmlab_nn::model::Arch;
use wmlab_nn::train::{Preset, TrainConfig};

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let device = wmlab_nn::cpu_device();
    for (preset, arch, c) in [(Preset::Tiny, Arch::Lstm, 96), (Preset::Paper, Arch::Lstm, 256)] {
        let train = TrainConfig::preset(preset, arch, c);
        device.seed(1);
        let model = train.model.init(&device);
        let t0 = Instant::now();
        let rec = pollster::block_on(evaluate_record(&model, &train, "flex", n, 10, &device, &mut |_, _| true))
            .unwrap()
            .unwrap();
        let s = t0.elapsed().as_secs_f64();
        println!(
            "{} {}: {} test trials in {s:.2} s = {:.0} trials/s",
            preset.as_str(),
            train.model.label(),
            rec.trials.len(),
            rec.trials.len() as f64 / s
        );
    }
}
