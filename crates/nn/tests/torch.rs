//! The authors' PyTorch `state_dict` in and out (`wmlab_nn::torch`): an exported model imports back to
//! the same logits, and those logits are what the authors' `WM_Model.forward` computes from the exported
//! weights — its equations written out here from their `src/model.py` (the task embedding first in the
//! memory's input, PyTorch's gate order and packing, a post-norm Transformer encoder layer), on host
//! floats, sharing only the ConvNet's features with WM Lab. Files that are not such a `state_dict` are
//! refused naming the key.

use burn::prelude::*;
use wmlab_core::Split;
use wmlab_core::task::{TaskId, TaskSpec};
use wmlab_nn::batch::{Batch, joint_trials};
use wmlab_nn::model::{Arch, ModelInput, WormModel};
use wmlab_nn::torch::{HEADS, Named, detect, export, import};
use wmlab_nn::train::{Preset, TrainConfig, TrainState};
use wmlab_nn::{BuildModel, Checkpoint, cpu_device};

const C: usize = 16;

/// The paper's model at small widths (the authors' code takes any), random weights.
fn config(arch: Arch, frozen: bool) -> TrainConfig {
    let mut cfg = TrainConfig::preset(Preset::Paper, arch, C);
    cfg.model.conv = [4, 4, 8, 8];
    // The Transformer's memory input is its width C; the recurrent ones' is their own.
    if arch == Arch::Trf {
        cfg.model.trf_ff = 32;
    } else {
        cfg.model.mem_input = 24;
    }
    cfg.model.frozen_task_embedding = frozen;
    cfg
}

fn trials() -> Vec<wmlab_core::task::Trial> {
    let specs: Vec<TaskSpec> = [TaskId::CdColor, TaskId::Vsr, TaskId::Sts].map(TaskSpec::new).to_vec();
    joint_trials(&specs, 3, Split::Test, 0, 1, None)
}

fn get<'a>(d: &'a [Named], key: &str) -> &'a [f32] {
    &d.iter().find(|n| n.0 == key).unwrap_or_else(|| panic!("{key} exported")).2
}

/// `W x + b` for PyTorch's `[out, in]` `w` (rows `rows` of it).
fn affine(w: &[f32], b: &[f32], x: &[f32], rows: std::ops::Range<usize>) -> Vec<f32> {
    let n = x.len();
    rows.map(|r| b[r] + w[r * n..(r + 1) * n].iter().zip(x).map(|(a, b)| a * b).sum::<f32>()).collect()
}
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}
fn layer_norm(x: &[f32], g: &[f32], b: &[f32]) -> Vec<f32> {
    let n = x.len() as f32;
    let mean = x.iter().sum::<f32>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n;
    x.iter().enumerate().map(|(i, v)| (v - mean) / (var + 1e-5).sqrt() * g[i] + b[i]).collect()
}

/// The authors' memory outputs `[T][C]` of one trial: `feats[t]` the projected features (D), `row` the
/// task's embedding row.
fn authors_memory(d: &[Named], arch: Arch, layers: usize, feats: &[Vec<f32>], row: usize, len: usize) -> Vec<Vec<f32>> {
    let emb = &get(d, "task_embedding.weight")[row * 14..(row + 1) * 14];
    let inputs: Vec<Vec<f32>> = feats.iter().map(|f| emb.iter().chain(f).copied().collect()).collect();
    let mut out = Vec::new();
    if arch == Arch::Trf {
        let pos = get(d, "positional_encoding.weight");
        let mut x: Vec<Vec<f32>> = inputs
            .iter()
            .enumerate()
            .map(|(t, a)| a.iter().enumerate().map(|(j, v)| v + pos[t * C + j]).collect())
            .collect();
        let (heads, dk) = (8, C / 8);
        for l in 0..layers {
            let k = |s: &str| get(d, &format!("MEM.layers.{l}.{s}")).to_vec();
            let (w, b) = (k("self_attn.in_proj_weight"), k("self_attn.in_proj_bias"));
            let q: Vec<Vec<f32>> = x.iter().map(|v| affine(&w, &b, v, 0..C)).collect();
            let kk: Vec<Vec<f32>> = x.iter().map(|v| affine(&w, &b, v, C..2 * C)).collect();
            let vv: Vec<Vec<f32>> = x.iter().map(|v| affine(&w, &b, v, 2 * C..3 * C)).collect();
            let mut next = Vec::new();
            for i in 0..x.len() {
                let mut cat = vec![0.0; C];
                for h in 0..heads {
                    let hs = h * dk..(h + 1) * dk;
                    // Causal, and keys past the trial's end masked.
                    let keys: Vec<usize> = (0..=i).filter(|&j| j < len.max(1)).collect();
                    let scores: Vec<f32> = keys
                        .iter()
                        .map(|&j| {
                            q[i][hs.clone()].iter().zip(&kk[j][hs.clone()]).map(|(a, b)| a * b).sum::<f32>()
                                / (dk as f32).sqrt()
                        })
                        .collect();
                    let m = scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                    let e: Vec<f32> = scores.iter().map(|s| (s - m).exp()).collect();
                    let z: f32 = e.iter().sum();
                    for (n, &j) in keys.iter().enumerate() {
                        for u in hs.clone() {
                            cat[u] += e[n] / z * vv[j][u];
                        }
                    }
                }
                let sa = affine(&k("self_attn.out_proj.weight"), &k("self_attn.out_proj.bias"), &cat, 0..C);
                let y: Vec<f32> = x[i].iter().zip(&sa).map(|(a, b)| a + b).collect();
                let y = layer_norm(&y, &k("norm1.weight"), &k("norm1.bias"));
                let ff = k("linear1.bias").len();
                let hidden: Vec<f32> = affine(&k("linear1.weight"), &k("linear1.bias"), &y, 0..ff)
                    .into_iter()
                    .map(|v| v.max(0.0))
                    .collect();
                let f = affine(&k("linear2.weight"), &k("linear2.bias"), &hidden, 0..C);
                let y: Vec<f32> = y.iter().zip(&f).map(|(a, b)| a + b).collect();
                next.push(layer_norm(&y, &k("norm2.weight"), &k("norm2.bias")));
            }
            x = next;
        }
        return x;
    }
    let (wi, wh, bi, bh) =
        (get(d, "MEM.weight_ih_l0"), get(d, "MEM.weight_hh_l0"), get(d, "MEM.bias_ih_l0"), get(d, "MEM.bias_hh_l0"));
    let (mut h, mut cell) = (vec![0.0f32; C], vec![0.0f32; C]);
    for a in &inputs {
        let g = |n: usize, x: &[f32], w: &[f32], b: &[f32]| affine(w, b, x, n * C..(n + 1) * C);
        h = match arch {
            Arch::Rnn => g(0, a, wi, bi).iter().zip(g(0, &h, wh, bh)).map(|(x, y)| (x + y).tanh()).collect(),
            Arch::Gru => {
                let r: Vec<f32> = g(0, a, wi, bi).iter().zip(g(0, &h, wh, bh)).map(|(x, y)| sigmoid(x + y)).collect();
                let z: Vec<f32> = g(1, a, wi, bi).iter().zip(g(1, &h, wh, bh)).map(|(x, y)| sigmoid(x + y)).collect();
                let hn = g(2, &h, wh, bh);
                let n: Vec<f32> = g(2, a, wi, bi).iter().enumerate().map(|(u, x)| (x + r[u] * hn[u]).tanh()).collect();
                (0..C).map(|u| (1.0 - z[u]) * n[u] + z[u] * h[u]).collect()
            }
            _ => {
                let gate = |n: usize| -> Vec<f32> {
                    g(n, a, wi, bi).iter().zip(g(n, &h, wh, bh)).map(|(x, y)| x + y).collect()
                };
                let (i, f, gg, o) = (gate(0), gate(1), gate(2), gate(3));
                cell = (0..C).map(|u| sigmoid(f[u]) * cell[u] + sigmoid(i[u]) * gg[u].tanh()).collect();
                (0..C).map(|u| sigmoid(o[u]) * cell[u].tanh()).collect()
            }
        };
        out.push(h.clone());
    }
    out
}

fn logits(model: &WormModel, batch: &Batch, device: &Device) -> Vec<Vec<f32>> {
    let input = ModelInput::from_batch(batch, device);
    model.forward(&input).into_iter().map(|t| t.into_data().try_to_vec::<f32>().unwrap()).collect()
}

#[test]
fn exported_weights_compute_the_authors_forward_and_import_back() {
    let device = cpu_device();
    let batch = Batch::from_trials(&trials());
    let (b, t) = (batch.size, batch.steps);
    for arch in Arch::ALL {
        for frozen in [false, true] {
            let cfg = config(arch, frozen);
            device.seed(7);
            let model = cfg.model.init(&device);
            let ck = Checkpoint::from_model(&model, cfg.clone(), TrainState::default()).unwrap();
            let dict = export(&ck, &device).unwrap();
            let names: Vec<&str> = dict.iter().map(|n| n.0.as_str()).collect();
            assert_eq!(names[0], "CNN_Encoder.0.weight");
            assert_eq!(
                names.len(),
                if arch == Arch::Trf { 31 + 1 + 12 * cfg.model.trf_layers } else { 35 },
                "{arch:?}"
            );
            let ours = logits(&model, &batch, &device);
            // The authors' forward on the same features.
            let frames = Tensor::<1>::from_data(TensorData::new(batch.frames.clone(), [batch.frames.len()]), &device)
                .reshape([b * t, 3, 32, 32]);
            let feats = model.features(frames).into_data().try_to_vec::<f32>().unwrap();
            let dim = feats.len() / (b * t);
            for (n, task) in batch.tasks.iter().enumerate() {
                let f: Vec<Vec<f32>> =
                    (0..t).map(|s| feats[(n * t + s) * dim..(n * t + s + 1) * dim].to_vec()).collect();
                let mem = authors_memory(
                    &dict,
                    arch,
                    cfg.model.trf_layers,
                    &f,
                    task.embedding_row() as usize,
                    batch.seq_len[n],
                );
                let hi = task.head_index();
                let u = cfg.model.head_units()[hi];
                let (w, bias) = (
                    get(&dict, &format!("{}_task_head.weight", HEADS[hi])),
                    get(&dict, &format!("{}_task_head.bias", HEADS[hi])),
                );
                for s in 0..batch.seq_len[n] {
                    let want = affine(w, bias, &mem[s], 0..u);
                    let got = &ours[hi][(n * t + s) * u..(n * t + s + 1) * u];
                    for (g, w) in got.iter().zip(&want) {
                        assert!(
                            (g - w).abs() < 1e-4,
                            "{arch:?} frozen {frozen} {task:?} step {s}: ours {g}, the authors' {w}"
                        );
                    }
                }
            }
            // Back in: the same logits (the import builds the paper's model at the file's widths).
            let back = import(&dict, arch, C, &device).unwrap();
            assert_eq!(back.train.model, cfg.model, "{arch:?}: the config is read from the file");
            let again = logits(&back.model(&device).unwrap(), &batch, &device);
            for (h, (a, z)) in ours.iter().zip(&again).enumerate() {
                let worst = a.iter().zip(z).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
                assert!(worst < 1e-5, "{arch:?} head {h}: differs by {worst}");
            }
        }
    }
}

#[test]
fn files_that_do_not_fit_are_refused_naming_the_key() {
    let device = cpu_device();
    let cfg = config(Arch::Gru, false);
    let model = cfg.model.init(&device);
    let ck = Checkpoint::from_model(&model, cfg, TrainState::default()).unwrap();
    let dict = export(&ck, &device).unwrap();
    assert_eq!(detect(&dict), Ok((Arch::Gru, C)), "the memory and capacity read from the keys");
    let without = |key: &str| dict.iter().filter(|n| n.0 != key).cloned().collect::<Vec<_>>();
    let missing = detect(&without("sc_task_head.weight")).unwrap_err();
    assert!(matches!(missing, wmlab_nn::NnError::Torch(_)), "{missing:?}");
    assert!(missing.to_string().contains("sc_task_head.weight: missing"));
    let err = |d: &[Named], arch: Arch, c: usize| import(d, arch, c, &device).unwrap_err().to_string();
    assert!(err(&without("MEM.bias_hh_l0"), Arch::Gru, C).contains("MEM.bias_hh_l0: missing"));
    assert!(err(&dict, Arch::Gru, 32).contains("capacity is not 32"));
    // The GRU's packed gates are not an LSTM's.
    let e = err(&dict, Arch::Lstm, C);
    assert!(e.contains("MEM.weight_ih_l0") && e.contains("[48, 24]"), "{e}");
    let mut extra = dict.clone();
    extra.push(("ProjectionHead.2.weight".into(), vec![1], vec![0.0]));
    assert!(err(&extra, Arch::Gru, C).contains("ProjectionHead.2.weight: the paper's GRU-16 has no such weight"));
    let mut bent = dict.clone();
    bent.iter_mut().find(|n| n.0 == "CNN_Encoder.5.weight").unwrap().1 = vec![8, 5, 3, 3];
    assert!(err(&bent, Arch::Gru, C).contains("CNN_Encoder.5.weight: shape [8, 5, 3, 3]"));
    // A model the authors' code cannot build is not exported.
    let quick = TrainConfig::preset(Preset::Quick, Arch::Trf, C);
    let qm = quick.model.init(&device);
    let e = export(&Checkpoint::from_model(&qm, quick, TrainState::default()).unwrap(), &device).unwrap_err();
    assert!(e.contains("not the paper's model"), "{e}");
}
