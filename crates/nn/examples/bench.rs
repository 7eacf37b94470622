//! Throughput benchmark (prints numbers; not a test):
//! `cargo run --release -p wmlab-nn --example bench [-- STEPS [PER_TASK]]`
//! Training throughput (trials/s) for LSTM-256 and TRF-256 (paper models) at the paper's batch (10 per
//! task id = 140), and inference latency per trial, on the flex CPU backend.
//! `WMLAB_BENCH_LENS=FILE` also writes the batches' trial lengths for the PyTorch-eager baseline
//! `scripts/bench_torch.py --lens FILE` (same models, batch and conv work); `scripts/bench.sh` runs both.

use std::time::Instant;

use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use wmlab_core::Split;
use wmlab_nn::batch::{all_specs, joint_batch};
use wmlab_nn::loss::{Targets, joint_loss};
use wmlab_nn::model::{Arch, ModelConfig, ModelInput};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let steps: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let per_task: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    println!(
        "machine: {cpu}, {threads} threads available; burn 0.22.1, f32; flex = CPU (rayon + simd), wgpu = burn-wgpu (with --features wgpu)"
    );
    let specs = all_specs();
    let b = per_task * specs.len();

    // Batch building alone (rasterising 140 trials).
    let t0 = Instant::now();
    let batches: Vec<_> = (0..steps).map(|s| joint_batch(&specs, 86, Split::Train, s as u64, per_task, None)).collect();
    let build = t0.elapsed().as_secs_f64() / steps as f64;
    // The trial lengths of every batch, for the PyTorch baseline (`scripts/bench_torch.py --lens`), so
    // both run the same conv work step by step.
    if let Ok(path) = std::env::var("WMLAB_BENCH_LENS") {
        let lens: Vec<&Vec<usize>> = batches.iter().map(|b| &b.seq_len).collect();
        std::fs::write(&path, serde_json::to_string(&lens).unwrap()).expect("write lens");
        println!("trial lengths of the {} batches written to {path}", lens.len());
    }
    let real: usize = batches.iter().map(|x| x.seq_len.iter().sum::<usize>()).sum();
    println!(
        "batch building (1 thread, rasterising): {:.3} s per batch of {b} trials ({:.0} trials/s); mean trial length {:.1} of 20 steps",
        build,
        b as f64 / build,
        real as f64 / (b * batches.len()) as f64
    );

    // WMLAB_BENCH_ORDER="0,1,0,1": which batch each step trains on (default: each once, in order), to
    // tell a backend's cost for a new batch shape from its cost for one it has seen.
    let order: Vec<usize> = match std::env::var("WMLAB_BENCH_ORDER") {
        Ok(o) => o
            .split(',')
            .map(|i| match i.trim().parse::<usize>() {
                Ok(i) if i < batches.len() => i,
                _ => panic!("WMLAB_BENCH_ORDER: {i:?} is not a batch index below {}", batches.len()),
            })
            .collect(),
        Err(_) => (0..batches.len()).collect(),
    };

    // Backends: flex (unless WMLAB_BENCH_FLEX=0); wgpu too when built with `--features wgpu` (and
    // WMLAB_BENCH_WGPU is not 0).
    let mut devices: Vec<(&str, Device)> = Vec::new();
    if std::env::var("WMLAB_BENCH_FLEX").map_or(true, |v| v != "0") {
        devices.push(("flex", Device::flex()));
    }
    #[cfg(feature = "wgpu")]
    if std::env::var("WMLAB_BENCH_WGPU").map_or(true, |v| v != "0") {
        match wmlab_nn::wgpu_device() {
            Ok(d) => devices.push(("wgpu", d)),
            Err(e) => println!("wgpu: {e}"),
        }
    }
    for (name, plain) in devices {
        println!("backend {name}: {plain:?}");
        // WMLAB_BENCH_BURN_CONV=1 also runs flex with burn's own Conv2d (before crates/nn/src/conv.rs).
        let mut ways = vec![true];
        if name == "flex" && std::env::var("WMLAB_BENCH_BURN_CONV").is_ok_and(|v| v == "1") {
            ways.push(false);
        }
        for (arch, c, ours) in ways.into_iter().flat_map(|ours| [(Arch::Lstm, 256, ours), (Arch::Trf, 256, ours)]) {
            #[cfg(feature = "flex")]
            wmlab_nn::conv::FLEX_KERNELS.store(ours, std::sync::atomic::Ordering::Relaxed);
            let name = if ours { name.to_string() } else { format!("{name}, burn's conv") };
            let cfg = ModelConfig::paper(arch, c);
            let device = plain.clone().autodiff();
            device.seed(86);
            let mut model = cfg.init(&device);
            let params = burn::module::Module::num_params(&model);
            let mut optim = AdamConfig::new().init();
            let mut times = Vec::new();
            let mut parts = Vec::new();
            for batch in order.iter().map(|&i| &batches[i]) {
                let t = Instant::now();
                let input = ModelInput::from_batch(batch, &device);
                let targets = Targets::from_batch(batch, &device);
                let loss = joint_loss(&model.forward(&input), &targets);
                let v = loss.clone().into_scalar::<f32>();
                let t1 = Instant::now();
                let grads = GradientsParams::from_grads(loss.backward(), &model);
                let t2 = Instant::now();
                model = optim.step(1e-4, model, grads);
                let t3 = Instant::now();
                let dt = (t3 - t).as_secs_f64();
                eprintln!(
                    "  {} step: {:.2} s, loss {v:.4}, {} real frames",
                    cfg.label(),
                    dt,
                    batch.seq_len.iter().sum::<usize>()
                );
                times.push(dt);
                parts.push([(t1 - t).as_secs_f64(), (t2 - t1).as_secs_f64(), (t3 - t2).as_secs_f64()]);
            }
            // First step includes warm-up; report the rest when there are more.
            let skip = usize::from(times.len() > 1);
            let steady = &times[skip..];
            let per_step = steady.iter().sum::<f64>() / steady.len() as f64;
            let part = |j: usize| parts[skip..].iter().map(|p| p[j]).sum::<f64>() / steady.len() as f64;
            println!(
                "[{name}] {} ({:.2}M params) training: {:.2} s/step at batch {b} → {:.1} trials/s (mean of {} steps after the first; first {:.2} s; excludes batch building); forward+loss {:.2} s, backward {:.2} s, optimizer {:.3} s",
                cfg.label(),
                params as f64 / 1e6,
                per_step,
                b as f64 / per_step,
                steady.len(),
                times[0],
                part(0),
                part(1),
                part(2)
            );

            // Inference: forward only, plain device, whole batch and single trial.
            let m = burn::module::Module::valid(&model);
            let batch = &batches[0];
            let input = ModelInput::from_batch(batch, &plain);
            let _ = m.forward(&input)[0].clone().into_data();
            let t = Instant::now();
            let out = m.forward(&input);
            out.into_iter().for_each(|o| drop(o.into_data()));
            let dt = t.elapsed().as_secs_f64();
            let one = wmlab_nn::Batch::from_trials(&[specs[6].trial(86, Split::Test, 0)]);
            let input1 = ModelInput::from_batch(&one, &plain);
            let t = Instant::now();
            let reps = 5;
            for _ in 0..reps {
                m.forward(&input1).into_iter().for_each(|o| drop(o.into_data()));
            }
            let dt1 = t.elapsed().as_secs_f64() / reps as f64;
            println!(
                "[{name}] {} inference: {:.1} ms per trial in a batch of {b} ({:.0} trials/s); {:.1} ms for a single trial alone",
                cfg.label(),
                dt * 1e3 / b as f64,
                b as f64 / dt,
                dt1 * 1e3
            );
        }
    }
}
