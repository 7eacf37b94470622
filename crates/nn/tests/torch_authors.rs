//! WM Lab's import of the authors' `state_dict` against the authors' own PyTorch model: the logits in
//! `tests/data/authors-logits.json` were computed by their `WM_Model` (their `src/model.py`, in PyTorch,
//! by `scripts/research/torch-fixture.py`) at the paper's widths, capacity 96, for every memory, on
//! test trials of all ten tasks. Its weights are not committed (7 to 10 MB a model): both sides fill
//! every tensor by the same formula ([`fill`]). Here the same tensors are imported and run on the same
//! trials; every logit of every real step must agree.

use serde::Deserialize;
use std::collections::BTreeMap;
use wmlab_core::Split;
use wmlab_core::task::{TaskId, TaskSpec};
use wmlab_nn::batch::Batch;
use wmlab_nn::model::{Arch, ModelInput};
use wmlab_nn::torch::{Named, export, import};
use wmlab_nn::train::{Preset, TrainConfig, TrainState};
use wmlab_nn::{BuildModel, Checkpoint, cpu_device};

#[derive(Deserialize)]
struct Fixture {
    seed: u64,
    capacity: usize,
    count: u64,
    archs: BTreeMap<String, ArchLogits>,
}

#[derive(Deserialize)]
struct ArchLogits {
    keys: usize,
    tasks: BTreeMap<String, TaskLogits>,
}

#[derive(Deserialize)]
struct TaskLogits {
    seq_len: Vec<usize>,
    /// `[trial][real step][unit]`.
    logits: Vec<Vec<Vec<f32>>>,
}

/// The value of every element of `key` (as `fill` in scripts/research/torch-fixture.py): a hash of its
/// flat index and its name, uniform in [-1, 1), scaled like an initialisation (He's for matrices and
/// convolutions; norm gains near 1; small biases).
fn fill(key: &str, shape: &[usize]) -> Vec<f32> {
    let n: usize = shape.iter().product();
    let k = key.bytes().map(u64::from).sum::<u64>() * 1_000_003;
    (0..n as u64)
        .map(|i| {
            let mut x = (i + k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            x ^= x >> 29;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x ^= x >> 32;
            let s = (x >> 11) as f64 / 2f64.powi(53) * 2.0 - 1.0;
            let v = if shape.len() >= 2 {
                s * (6.0 / (n / shape[0]) as f64).sqrt()
            } else if key.contains("norm") && key.ends_with("weight") {
                1.0 + 0.1 * s
            } else {
                0.1 * s
            };
            v as f32
        })
        .collect()
}

#[test]
fn imported_weights_give_the_logits_of_the_authors_pytorch_model() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/authors-logits.json"))
        .expect("the fixture is committed");
    let fx: Fixture = serde_json::from_str(&text).expect("the fixture parses");
    assert_eq!(fx.archs.len(), 4, "every memory");
    let device = cpu_device();
    for (name, want) in &fx.archs {
        let arch = Arch::parse(name).unwrap_or_else(|| panic!("memory {name}"));
        // The authors' tensor names and shapes: those that WM Lab's export of the paper model writes.
        let cfg = TrainConfig::preset(Preset::Paper, arch, fx.capacity);
        let ck = Checkpoint::from_model(&cfg.model.init(&device), cfg.clone(), TrainState::default()).unwrap();
        let dict: Vec<Named> = export(&ck, &device)
            .unwrap()
            .into_iter()
            .map(|(key, shape, _)| {
                let v = fill(&key, &shape);
                (key, shape, v)
            })
            .collect();
        assert_eq!(dict.len(), want.keys, "{name}: the authors' state_dict has as many tensors");
        let model = import(&dict, arch, fx.capacity, &device).unwrap().model(&device).unwrap();
        assert_eq!(want.tasks.len(), 10, "all ten heads");
        // All the tasks' trials in one batch, as joint training batches them.
        let mut trials = Vec::new();
        let mut order = Vec::new();
        for (task, logits) in &want.tasks {
            let id = TaskId::parse(task).unwrap_or_else(|| panic!("task {task}"));
            let spec = TaskSpec::new(id);
            for i in 0..fx.count {
                trials.push(spec.trial(fx.seed, Split::Test, i));
                order.push((task, logits, i as usize));
            }
        }
        let batch = Batch::from_trials(&trials);
        let outs: Vec<Vec<f32>> = model
            .forward(&ModelInput::from_batch(&batch, &device))
            .into_iter()
            .map(|t| t.into_data().try_to_vec::<f32>().unwrap())
            .collect();
        let (t, mut worst, mut compared) = (batch.steps, 0.0f32, 0);
        for (n, (task, logits, i)) in order.into_iter().enumerate() {
            assert_eq!(batch.seq_len[n], logits.seq_len[i], "{name} {task} trial {i}: the same trial");
            let hi = batch.tasks[n].head_index();
            let u = cfg.model.head_units()[hi];
            for (s, theirs) in logits.logits[i].iter().enumerate() {
                assert_eq!(theirs.len(), u, "{name} {task}: head width");
                let ours = &outs[hi][(n * t + s) * u..(n * t + s + 1) * u];
                for (k, (a, b)) in ours.iter().zip(theirs).enumerate() {
                    let d = (a - b).abs() / b.abs().max(1.0);
                    worst = worst.max(d);
                    compared += 1;
                    assert!(d < 1e-4, "{name} {task} trial {i} step {s} unit {k}: ours {a}, the authors' {b}");
                }
            }
        }
        eprintln!("{name}: {compared} logits, largest difference {worst:.1e} (relative above 1)");
    }
}
