//! Throughput benchmark (prints numbers; not a test):
//! `cargo run --release -p wmlab-nn --example bench [-- STEPS [PER_TASK]]`
//! Training throughput (trials/s) for LSTM-256 and TRF-256 (paper models) at the paper's batch (10 per
//! task id = 140), and inference latency per trial, on the flex CPU backend.
//! `WMLAB_BENCH_LENS=FILE` also writes the batches' trial lengths for the PyTorch-eager baseline
//! `scripts/bench/bench-torch.py --lens FILE` (same models, batch and conv work); `scripts/bench/bench.sh` runs both.

use std::time::Instant;

use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use wmlab_core::Split;
use wmlab_nn::BuildModel;
use wmlab_nn::batch::{all_specs, joint_batch};
use wmlab_nn::loss::Targets;
use wmlab_nn::model::{Arch, ModelConfig, ModelInput};

/// `WMLAB_BENCH_KERNELS=1` (GPU backends): cubecl logs every kernel it launches to a file, set up in
/// a `cubecl.toml` of a fresh directory that becomes the working directory before any device starts
/// (cubecl reads its config from there once). Returns the log's path.
fn kernel_log() -> Option<std::path::PathBuf> {
    if std::env::var("WMLAB_BENCH_KERNELS").map_or(true, |v| v != "1") {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("wmlab-bench-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("kernel log folder");
    let log = dir.join("kernels.log");
    let toml =
        format!("[profiling.logger]\nlevel = \"minimal\"\nfile = {:?}\nappend = false\n", log.display().to_string());
    std::fs::write(dir.join("cubecl.toml"), toml).expect("cubecl.toml");
    std::env::set_current_dir(&dir).expect("cd to the kernel log folder");
    Some(log)
}

/// Kernels launched so far (lines of the log); the logger writes from its own thread, so wait until
/// the count stops moving.
fn kernels_so_far(log: &Option<std::path::PathBuf>) -> Option<usize> {
    let log = log.as_ref()?;
    let count =
        || std::fs::read_to_string(log).map(|s| s.lines().filter(|l| l.contains("Executing")).count()).unwrap_or(0);
    let mut last = count();
    loop {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let now = count();
        if now == last {
            return Some(now);
        }
        last = now;
    }
}

fn main() {
    let kernels = kernel_log();
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
    // The trial lengths of every batch, for the PyTorch baseline (`scripts/bench/bench-torch.py --lens`), so
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
    #[cfg(feature = "cuda")]
    if std::env::var("WMLAB_BENCH_CUDA").map_or(true, |v| v != "0") {
        match wmlab_nn::cuda_device() {
            Ok(d) => devices.push(("cuda", d)),
            Err(e) => println!("cuda: {e}"),
        }
    }
    // WMLAB_BENCH_CONV=8,16,16,32: other conv widths (kernel and upload counts do not depend on them;
    // a CPU Vulkan driver runs the paper's widths too slowly to count them). WMLAB_BENCH_ARCHS=lstm,trf.
    let widths: Option<[usize; 4]> = std::env::var("WMLAB_BENCH_CONV").ok().map(|v| {
        let w: Vec<usize> = v.split(',').map(|x| x.trim().parse().expect("WMLAB_BENCH_CONV: four widths")).collect();
        w.try_into().expect("WMLAB_BENCH_CONV: four widths")
    });
    let archs: Vec<Arch> = std::env::var("WMLAB_BENCH_ARCHS")
        .unwrap_or_else(|_| "lstm,trf".into())
        .split(',')
        .map(|a| Arch::parse(a).unwrap_or_else(|| panic!("WMLAB_BENCH_ARCHS: {a:?} is not lstm, trf, gru or rnn")))
        .collect();
    for (name, plain) in devices {
        println!("backend {name}: {plain:?}");
        // WMLAB_BENCH_BURN_CONV=1 also runs flex with burn's own Conv2d (before crates/nn/src/conv.rs).
        let mut ways = vec![true];
        if name == "flex" && std::env::var("WMLAB_BENCH_BURN_CONV").is_ok_and(|v| v == "1") {
            ways.push(false);
        }
        for (arch, c, ours) in ways.into_iter().flat_map(|ours| archs.iter().map(move |&a| (a, 256, ours))) {
            #[cfg(feature = "flex")]
            wmlab_nn::conv::FLEX_KERNELS.store(ours, std::sync::atomic::Ordering::Relaxed);
            let name = if ours { name.to_string() } else { format!("{name}, burn's conv") };
            let cfg = match widths {
                Some(w) => ModelConfig::paper(arch, c).with_conv(w),
                None => ModelConfig::paper(arch, c),
            };
            let device = plain.clone().autodiff();
            device.seed(86);
            let mut model = cfg.init(&device);
            let params = burn::module::Module::num_params(&model);
            let mut optim = AdamConfig::new().init();
            let mut times = Vec::new();
            let mut parts = Vec::new();
            let mut counts = Vec::new();
            let _ = kernels_so_far(&kernels);
            for batch in order.iter().map(|&i| &batches[i]) {
                let k0 = kernels_so_far(&kernels);
                wmlab_nn::model::UPLOADED_BYTES.store(0, std::sync::atomic::Ordering::Relaxed);
                let t = Instant::now();
                let input = ModelInput::from_batch(batch, &device);
                let targets = Targets::from_batch(batch, &device);
                let uploaded = wmlab_nn::model::UPLOADED_BYTES.load(std::sync::atomic::Ordering::Relaxed);
                // With the kernel log, each phase is flushed and counted (its own launches).
                let phase = |label: &'static str, phases: &mut Vec<(&'static str, usize)>| {
                    if kernels.is_some() {
                        device.sync().expect("device sync");
                        phases.push((label, kernels_so_far(&kernels).unwrap_or(0)));
                    }
                };
                let mut phases = Vec::new();
                phase("start", &mut phases);
                let loss = model.loss(&input, &targets, 1.0);
                phase("forward+loss", &mut phases);
                let t1 = Instant::now();
                let grads = GradientsParams::from_grads(loss.backward(), &model);
                phase("backward", &mut phases);
                let t2 = Instant::now();
                model = optim.step(1e-4, model, grads);
                phase("optimizer", &mut phases);
                let t3 = Instant::now();
                if phases.len() > 1 {
                    let split: Vec<String> =
                        phases.windows(2).map(|w| format!("{} {}", w[1].0, w[1].1 - w[0].1)).collect();
                    eprintln!("    kernels by phase: {}", split.join(", "));
                }
                // Recorded (on flex: computed); now wait for the device, then the one host read.
                device.sync().expect("device sync");
                let t4 = Instant::now();
                let v = loss.into_scalar::<f32>();
                let t5 = Instant::now();
                let dt = (t5 - t).as_secs_f64();
                let k1 = kernels_so_far(&kernels);
                let launched = k1.zip(k0).map(|(a, b)| a - b);
                // WMLAB_BENCH_KERNEL_DUMP=FILE: the step's kernel launches in order, a line per phase
                // boundary between them (the last step's overwrite the earlier ones').
                if let (Some(log), Some(a), Ok(dump)) = (&kernels, k0, std::env::var("WMLAB_BENCH_KERNEL_DUMP")) {
                    let text = std::fs::read_to_string(log).unwrap_or_default();
                    let lines: Vec<&str> = text.lines().filter(|l| l.contains("Executing")).collect();
                    let mut out = String::new();
                    let mut at = a;
                    for &(label, upto) in &phases {
                        for l in lines.get(at..upto).unwrap_or_default() {
                            out.push_str(l);
                            out.push('\n');
                        }
                        out.push_str(&format!("== end of {label}\n"));
                        at = upto;
                    }
                    std::fs::write(&dump, out).expect("WMLAB_BENCH_KERNEL_DUMP");
                }
                // WMLAB_BENCH_KERNEL_NAMES=1: the step's kernels by name (the fused ones by their hash).
                if let (Some(log), Some(a), Some(b)) = (&kernels, k0, k1)
                    && std::env::var("WMLAB_BENCH_KERNEL_NAMES").is_ok_and(|v| v == "1")
                {
                    let text = std::fs::read_to_string(log).unwrap_or_default();
                    let mut names = std::collections::BTreeMap::<String, usize>::new();
                    for l in text.lines().filter(|l| l.contains("Executing")).skip(a).take(b - a) {
                        let name = l.trim_start_matches("Executing ").split(['<', '(']).next().unwrap_or(l);
                        *names.entry(name.chars().take(70).collect()).or_default() += 1;
                    }
                    let mut names: Vec<_> = names.into_iter().collect();
                    names.sort_by_key(|x| std::cmp::Reverse(x.1));
                    for (name, n) in names.iter().take(25) {
                        eprintln!("    {n:5} {name}");
                    }
                }
                eprintln!(
                    "  {} step: {:.2} s (recorded in {:.2} s, then {:.2} s waiting for the device), loss {v:.4}, {} real frames, {:.2} MB uploaded, 1 host read{}",
                    cfg.label(),
                    dt,
                    (t3 - t).as_secs_f64(),
                    (t5 - t3).as_secs_f64(),
                    batch.seq_len.iter().sum::<usize>(),
                    uploaded as f64 / 1e6,
                    launched.map(|k| format!(", {k} kernels")).unwrap_or_default()
                );
                times.push(dt);
                parts.push([
                    (t1 - t).as_secs_f64(),
                    (t2 - t1).as_secs_f64(),
                    (t3 - t2).as_secs_f64(),
                    (t4 - t3).as_secs_f64(),
                ]);
                counts.push((uploaded, launched));
            }
            // First step includes warm-up; report the rest when there are more.
            let skip = usize::from(times.len() > 1);
            let steady = &times[skip..];
            let per_step = steady.iter().sum::<f64>() / steady.len() as f64;
            let part = |j: usize| parts[skip..].iter().map(|p| p[j]).sum::<f64>() / steady.len() as f64;
            let mean_of = |f: &dyn Fn(&(u64, Option<usize>)) -> Option<f64>| {
                let v: Vec<f64> = counts[skip..].iter().filter_map(f).collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            };
            let mb = mean_of(&|c| Some(c.0 as f64 / 1e6)).unwrap_or(0.0);
            let kernels_line = mean_of(&|c| c.1.map(|k| k as f64))
                .map(|k| format!("; {k:.0} kernels/step (times include the kernel log's syncs and waits)"))
                .unwrap_or_default();
            println!(
                "[{name}] {} ({:.2}M params{}) training: {:.3} s/step at batch {b} → {:.1} trials/s (mean of {} steps after the first; first {:.2} s; excludes batch building); recording forward+loss {:.3} s, backward {:.3} s, optimizer {:.3} s, then waiting for the device {:.3} s; {mb:.2} MB uploaded/step, 1 host read/step{kernels_line}",
                cfg.label(),
                params as f64 / 1e6,
                widths.map(|w| format!(", conv {w:?}")).unwrap_or_default(),
                per_step,
                b as f64 / per_step,
                steady.len(),
                times[0],
                part(0),
                part(1),
                part(2),
                part(3)
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
