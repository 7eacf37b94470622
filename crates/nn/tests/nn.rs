//! Native tests on the flex CPU backend. Configs are tiny so the whole run takes seconds.

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use wmlab_core::Split;
use wmlab_core::task::{MAX_STEPS, Target, TaskId, TaskSpec, Trial};
use wmlab_nn::BuildModel;
use wmlab_nn::batch::{Batch, N_HEADS, all_specs, head_kinds, joint_trials};
use wmlab_nn::loss::{Targets, joint_loss};
use wmlab_nn::model::{Arch, Attention, Encoder, ModelConfig, ModelInput};
use wmlab_nn::train::{TrainConfig, Trainer};
use wmlab_nn::{Checkpoint, cpu_device};

fn small(arch: Arch) -> ModelConfig {
    ModelConfig::new(arch, 16)
        .with_conv([4, 4, 8, 8])
        .with_mem_input(24)
        .with_trf_heads(2)
        .with_trf_ff(16)
        .with_trf_layers(2)
        .with_trf_dropout(0.0)
}

/// One trial of each of the 14 task ids.
fn trials() -> Vec<Trial> {
    joint_trials(&all_specs(), 7, Split::Train, 0, 1, None)
}

fn host(t: Tensor<3>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().unwrap()
}

#[test]
fn output_shapes_every_architecture() {
    let device = cpu_device();
    let batch = Batch::from_trials(&trials());
    for arch in Arch::ALL {
        for frozen in [false, true] {
            let cfg = small(arch).with_frozen_task_embedding(frozen);
            let model = cfg.init(&device);
            let input = ModelInput::from_batch(&batch, &device);
            assert_eq!(model.hidden(&input).dims(), [14, MAX_STEPS, 16], "{arch:?}");
            let out = model.forward(&input);
            assert_eq!(out.len(), N_HEADS);
            for (o, k) in out.iter().zip(head_kinds()) {
                assert_eq!(o.dims(), [14, MAX_STEPS, k.units() as usize], "{arch:?}");
            }
            let l = joint_loss(&out, &Targets::from_batch(&batch, &device)).into_scalar::<f32>();
            assert!(l.is_finite() && l > 0.0, "{arch:?}: {l}");
        }
    }
}

/// Changing a padded frame or the label of an unscored step leaves the loss and the gradients unchanged.
#[test]
fn loss_ignores_padded_and_unscored_steps() {
    let device = cpu_device().autodiff();
    let ts = trials();
    let base = Batch::from_trials(&ts);
    for arch in [Arch::Lstm, Arch::Trf] {
        device.seed(3);
        let model = small(arch).init(&device);
        let grad_of = |batch: &Batch| -> (f32, Vec<f32>) {
            let input = ModelInput::from_batch(batch, &device);
            let loss = joint_loss(&model.forward(&input), &Targets::from_batch(batch, &device));
            let v = loss.clone().into_scalar::<f32>();
            let grads = loss.backward();
            let g =
                model.conv1.as_ref().unwrap().weight.grad(&grads).unwrap().into_data().try_into_vec::<f32>().unwrap();
            (v, g)
        };
        let (l0, g0) = grad_of(&base);

        // 1. A padded frame (after seq_len) of a short trial turned white.
        let i = base.seq_len.iter().position(|&n| n < MAX_STEPS).expect("a trial shorter than 20 steps");
        let mut b1 = base.clone();
        let off = (i * MAX_STEPS + MAX_STEPS - 1) * 3 * 32 * 32;
        b1.frames[off..off + 3 * 32 * 32].fill(1.0);
        let (l1, g1) = grad_of(&b1);
        assert_eq!(l0.to_bits(), l1.to_bits(), "{arch:?}: padded frame changed the loss {l0} → {l1}");
        close(&g0, &g1, 1e-6, "padded frame gradient");

        // 2. A label put on an unscored step of the trial.
        let mut ts2 = ts.clone();
        let (ti, si) = ts2
            .iter()
            .enumerate()
            .find_map(|(ti, t)| t.steps.iter().position(|s| !s.scored).map(|si| (ti, si)))
            .expect("an unscored step");
        let kind = ts2[ti].task.head();
        ts2[ti].steps[si].target = match kind {
            wmlab_core::task::HeadKind::MultiLabel(_) => Target::Set(vec![0, 1, 2]),
            _ => Target::Class(1),
        };
        let b2 = Batch::from_trials(&ts2);
        let (l2, g2) = grad_of(&b2);
        assert_eq!(l0.to_bits(), l2.to_bits(), "{arch:?}: unscored label changed the loss");
        close(&g0, &g2, 0.0, "unscored label gradient");

        // 3. The targets of an unscored step in the batch arrays changed directly (weight 0).
        let mut b3 = base.clone();
        for h in &mut b3.heads {
            if let Some(r) = h.mask.iter().position(|&m| !m) {
                if !h.target_f.is_empty() {
                    h.target_f[r] = 1.0 - h.target_f[r];
                }
                if !h.target_i.is_empty() {
                    h.target_i[r] = 1;
                }
            }
        }
        let (l3, _) = grad_of(&b3);
        assert_eq!(l0.to_bits(), l3.to_bits(), "{arch:?}: unscored target changed the loss");
    }
}

fn close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * (1.0 + x.abs()), "{what}: {x} vs {y}");
    }
}

/// The Transformer's output at step t does not depend on frames after t, with the paper's dot-product
/// attention and with the `quick` preset's distance attention.
#[test]
fn transformer_is_causal() {
    let device = cpu_device();
    let ts: Vec<Trial> = trials().into_iter().filter(|t| t.len() >= 8).take(3).collect();
    let batch = Batch::from_trials(&ts);
    let t_cut = 4;
    let mut changed = batch.clone();
    for i in 0..changed.size {
        for s in t_cut + 1..MAX_STEPS {
            let off = (i * MAX_STEPS + s) * 3 * 32 * 32;
            for (k, v) in changed.frames[off..off + 3 * 32 * 32].iter_mut().enumerate() {
                *v = ((k * 7 + s) % 11) as f32 / 10.0;
            }
        }
    }
    for attention in [Attention::Dot, Attention::Distance] {
        device.seed(5);
        let model = small(Arch::Trf).with_attention(Some(attention)).init(&device);
        let h0 = host(model.hidden(&ModelInput::from_batch(&batch, &device)));
        let h1 = host(model.hidden(&ModelInput::from_batch(&changed, &device)));
        let c = 16;
        let mut later_differs = false;
        for i in 0..batch.size {
            for s in 0..MAX_STEPS {
                for k in 0..c {
                    let (a, b) = (h0[(i * MAX_STEPS + s) * c + k], h1[(i * MAX_STEPS + s) * c + k]);
                    if s <= t_cut {
                        assert!((a - b).abs() < 1e-5, "{attention:?}: trial {i} step {s}: {a} vs {b}");
                    } else if (a - b).abs() > 1e-4 {
                        later_differs = true;
                    }
                }
            }
        }
        assert!(later_differs, "{attention:?}: the change after t should show at later steps");
    }
}

/// A small model overfits a fixed batch: the loss falls by a large factor.
#[test]
fn small_model_overfits_fixed_batch() {
    let device = cpu_device().autodiff();
    device.seed(11);
    let ts: Vec<Trial> = joint_trials(&all_specs(), 9, Split::Train, 0, 1, None);
    let batch = Batch::from_trials(&ts);
    let mut model = ModelConfig::new(Arch::Lstm, 32).with_conv([4, 8, 8, 16]).with_mem_input(32).init(&device);
    let mut optim = AdamConfig::new().init();
    let input = ModelInput::from_batch(&batch, &device);
    let targets = Targets::from_batch(&batch, &device);
    let mut first = None;
    let mut last = 0.0;
    for _ in 0..60 {
        let loss = joint_loss(&model.forward(&input), &targets);
        last = loss.clone().into_scalar::<f32>();
        first.get_or_insert(last);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(1e-2, model, grads);
    }
    let first = first.unwrap();
    eprintln!("overfit: loss {first} → {last}");
    assert!(last < first / 5.0, "loss {first} → {last}");
}

/// Checkpoint save → load gives identical outputs (bundle bytes and directory).
#[test]
fn checkpoint_roundtrip_identical_outputs() {
    let device = cpu_device();
    let batch = Batch::from_trials(&trials());
    for arch in [Arch::Gru, Arch::Trf] {
        device.seed(13);
        let cfg = TrainConfig::new(small(arch)).with_steps(2);
        let model = cfg.model.init(&device);
        let ck = Checkpoint::from_model(&model, cfg.clone(), Default::default()).unwrap();
        let out0: Vec<Vec<f32>> =
            model.forward(&ModelInput::from_batch(&batch, &device)).into_iter().map(host).collect();

        let from_bundle = Checkpoint::from_bundle(&ck.to_bundle()).unwrap();
        assert_eq!(from_bundle, ck);
        let dir = std::env::temp_dir().join(format!("wmlab-nn-test-{}-{}", std::process::id(), arch.as_str()));
        ck.save_dir(&dir).unwrap();
        let from_dir = Checkpoint::load_path(&dir).unwrap();
        // The directory also holds the one-file bundle the app loads.
        let from_file = Checkpoint::load_path(&dir.join(wmlab_nn::checkpoint::BUNDLE_FILE)).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(from_dir, ck);
        assert_eq!(from_file, ck);

        device.seed(999); // a different init, overwritten by the load
        let loaded = from_dir.model(&device).unwrap();
        let out1: Vec<Vec<f32>> =
            loaded.forward(&ModelInput::from_batch(&batch, &device)).into_iter().map(host).collect();
        assert_eq!(out0, out1, "{arch:?}");
        assert_eq!(loaded.num_params(), model.num_params());
    }
}

/// The trainer runs steps and a validation check, reports per-task accuracy, and keeps the best model.
#[test]
fn trainer_steps_and_validates() {
    let device = cpu_device().autodiff();
    let cfg = TrainConfig::new(small(Arch::Rnn))
        .with_steps(2)
        .with_per_task(1)
        .with_val_every(2)
        .with_val_per_task(1)
        .with_lr(1e-3);
    let mut tr = Trainer::new(cfg, device);
    while !tr.done() {
        let l = pollster::block_on(tr.train_step()).unwrap();
        assert!(l.is_finite());
    }
    assert!(tr.check_due());
    let rep = pollster::block_on(tr.validate()).unwrap();
    assert_eq!(rep.step, 2);
    assert_eq!(rep.accuracy.len(), 14);
    assert!(rep.best && tr.best.is_some());
    // Resume from the checkpoint: same step, same outputs.
    let ck = tr.checkpoint().unwrap();
    let tr2 = Trainer::resume(&ck, cpu_device().autodiff()).unwrap();
    assert_eq!(tr2.state.step, 2);
}

/// Parameter counts of the paper's models, compared with Table A4 (rounded there).
#[test]
fn paper_parameter_counts_match_table_a4() {
    let device = cpu_device();
    // The rows of the core's copy of Table A4 (the one the Papers and Networks pages show); the largest
    // models (capacity 1024 of RNN, GRU and TRF) are left out to keep this test quick.
    let table = wmlab_core::papers::TABLE_A4
        .iter()
        .filter(|(a, c, _)| *c < 1024 || *a == "lstm")
        .map(|&(a, c, n)| (Arch::parse(a).expect("an architecture"), c, n));
    for (arch, c, paper) in table {
        let cfg = ModelConfig::paper(arch, c);
        let n = cfg.param_count() as f64;
        assert_eq!(cfg.param_count(), cfg.init(&device).num_params(), "{arch:?}-{c}: counted = built");
        eprintln!("{}-{c}: {:.2}M (Table A4: {:.1}M)", arch.as_str(), n / 1e6, paper / 1e6);
        assert!((n - paper).abs() / paper < 0.2, "{arch:?}-{c}: {n} vs {paper}");
    }
}

/// The core counts a config's parameters without building it (the Networks page shows the count as
/// settings are edited); the count equals the built model's for every preset, memory, encoder, attention
/// and option that changes the layers.
#[test]
fn the_core_counts_the_parameters_burn_builds() {
    let device = cpu_device();
    let mut configs = Vec::new();
    for preset in wmlab_nn::Preset::ALL.into_iter().filter(|p| *p != wmlab_nn::Preset::Paper) {
        for arch in Arch::ALL {
            configs.push(wmlab_nn::TrainConfig::preset(preset, arch, 32).model);
        }
    }
    for attention in [Attention::Dot, Attention::Distance] {
        configs.push(ModelConfig::tiny(Arch::Trf, 16).with_attention(Some(attention)).with_max_steps(Some(40)));
    }
    configs.push(ModelConfig::tiny(Arch::Gru, 24).with_spatial(Some(2)).with_frozen_task_embedding(true));
    configs.push(ModelConfig::tiny(Arch::Lstm, 24).with_encoder(Some(Encoder::Words)).with_word_slots(Some(16)));
    configs.push(ModelConfig::tiny(Arch::Rnn, 24).with_encoder(Some(Encoder::Pixels)));
    for cfg in configs {
        assert_eq!(cfg.param_count(), cfg.init(&device).num_params(), "{cfg:?}");
    }
}

#[test]
fn every_task_head_matches_core() {
    for t in TaskId::ALL {
        assert_eq!(head_kinds()[t.head_index()], t.head());
        let _ = TaskSpec::new(t);
    }
}

/// Running the conv stack only on real frames (plus one black frame) equals running it on every frame.
#[test]
fn padding_shortcut_equals_full_features() {
    let device = cpu_device();
    device.seed(17);
    let model = small(Arch::Lstm).init(&device);
    let batch = Batch::from_trials(&trials());
    assert!(batch.seq_len.iter().any(|&n| n < MAX_STEPS));
    let n = batch.size * MAX_STEPS;
    let frames = Tensor::<1>::from_data(TensorData::new(batch.frames.clone(), [n * 3 * 32 * 32]), &device)
        .reshape([n, 3, 32, 32]);
    let full = model.features(frames).into_data().try_to_vec::<f32>().unwrap();
    // What the model runs: the uploaded real frames and the black one, then each step's row.
    let up = ModelInput::from_batch(&batch, &device).frames.unwrap();
    let stepped = model.features(up.real).select(0, up.index.unwrap()).into_data().try_to_vec::<f32>().unwrap();
    close(&full, &stepped, 1e-5, "features of the uploaded frames");
}

/// Long lists (WorM A3.2): VSRec lists up to 16 make trials of 32 steps. A batch pads to its longest
/// trial, `fit_to_tasks` sizes the Transformer's positions, and every architecture trains on them and
/// scores its answers (a padded step past 20 is still masked).
#[test]
fn long_lists_train_every_architecture_on_32_step_trials() {
    use wmlab_core::task::STEP_LIMIT;
    let set = vec![("list_lengths".to_string(), "2,16".to_string())];
    for arch in [Arch::Lstm, Arch::Trf] {
        let mut cfg = TrainConfig::new(small(arch));
        cfg.tasks = Some(vec![TaskId::VsRec, TaskId::CdColor]);
        cfg.task_settings = Some(set.clone());
        cfg.per_task = 4;
        cfg.val_per_task = 4;
        cfg.val_every = 1;
        cfg.steps = 1;
        cfg.check_task_settings().unwrap();
        let mut tr = Trainer::new(cfg, cpu_device().autodiff());
        assert_eq!(tr.config.model.max_steps, Some(STEP_LIMIT), "{arch:?}: positions for long trials");
        let trials =
            tr.config.specs().iter().flat_map(|s| (0..6).map(|j| s.trial(1, Split::Train, j))).collect::<Vec<_>>();
        let batch = Batch::from_trials(&trials);
        assert_eq!(batch.steps, 32, "padded to the longest trial (L = 16)");
        let cd = trials.iter().position(|t| t.task == TaskId::CdColor).unwrap();
        let cd_head = &batch.heads[TaskId::CdColor.head_index()];
        assert!(cd_head.mask[cd * 32 + MAX_STEPS..(cd + 1) * 32].iter().all(|&m| !m), "padding is never scored");
        let loss = pollster::block_on(tr.train_step()).unwrap();
        assert!(loss.is_finite(), "{arch:?}: {loss}");
        let report = pollster::block_on(tr.validate()).unwrap();
        assert!(report.accuracy.contains_key("VSRec") && report.mean_accuracy.is_finite(), "{arch:?}");
    }
    // Without long trials the positions stay the paper's 20.
    let mut plain = TrainConfig::new(small(Arch::Trf));
    plain.fit_to_tasks();
    assert_eq!(plain.model.max_steps, None);
}

/// The loss by kind of head (the GPU backends' [`wmlab_nn::loss::kind_loss`], the heads' logits side by
/// side) equals the loss per head, in value and in every head's and the encoder's gradients: on the 14
/// ids, on a batch with one kind only (CD), with the SFR scale, and on a words model (LSR's wider head).
#[test]
fn loss_by_kind_equals_the_loss_per_head() {
    use wmlab_nn::loss::joint_loss_scaled;
    let device = cpu_device().autodiff();
    let cd: Vec<TaskSpec> = vec![TaskSpec::new(TaskId::CdColor)];
    let lsr = vec![TaskSpec::new(TaskId::Lsr)];
    let cases: Vec<(&str, ModelConfig, Batch)> = vec![
        ("14 ids", small(Arch::Lstm), Batch::from_trials(&joint_trials(&all_specs(), 7, Split::Train, 0, 2, None))),
        ("CD alone", small(Arch::Gru), Batch::from_trials(&joint_trials(&cd, 7, Split::Train, 0, 3, None))),
        (
            "LSR words",
            {
                let mut t = TrainConfig::new(ModelConfig::tiny(Arch::Lstm, 16).with_mem_input(40))
                    .with_tasks(Some(vec![TaskId::Lsr]));
                t.fit_to_tasks();
                t.model
            },
            Batch::from_trials(&joint_trials(&lsr, 7, Split::Train, 0, 3, None)),
        ),
    ];
    let close = |a: &[f32], b: &[f32], what: &str| {
        assert_eq!(a.len(), b.len(), "{what}");
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-5 + 1e-4 * x.abs().max(y.abs()), "{what}: {x} vs {y}");
        }
    };
    for (name, cfg, batch) in cases {
        device.seed(5);
        let model = cfg.init(&device);
        let input = ModelInput::from_batch(&batch, &device);
        let per_head = Targets::from_batch_as(&batch, &device, false);
        let by_kind = Targets::from_batch_as(&batch, &device, true);
        assert!(per_head.by_kind.is_none() && by_kind.by_kind.is_some());
        for scale in [1.0, 100.0] {
            let grads_of = |loss: Tensor<1>| -> (f32, Vec<Vec<f32>>) {
                let v = loss.clone().into_scalar::<f32>();
                let g = loss.backward();
                let mut out: Vec<Vec<f32>> = model
                    .heads
                    .iter()
                    .map(|h| {
                        h.weight.grad(&g).map(|t| t.into_data().try_into_vec::<f32>().unwrap()).unwrap_or_default()
                    })
                    .collect();
                out.push(model.proj.weight.grad(&g).unwrap().into_data().try_into_vec::<f32>().unwrap());
                (v, out)
            };
            let (l0, g0) = grads_of(joint_loss_scaled(&model.forward(&input), &per_head, scale));
            let (l1, g1) = grads_of(model.loss(&input, &by_kind, scale));
            let (l2, _) = grads_of(joint_loss_scaled(&model.forward(&input), &by_kind, scale));
            assert!(l0.is_finite() && l0 > 0.0, "{name}: {l0}");
            close(&[l0], &[l1], &format!("{name}, scale {scale}: loss by kind"));
            close(&[l0], &[l2], &format!("{name}, scale {scale}: loss by kind from per-head logits"));
            for (k, (a, b)) in g0.iter().zip(&g1).enumerate() {
                // A head that no trial uses gets no gradient per head, and zeros by kind.
                let b: Vec<f32> = if a.is_empty() { Vec::new() } else { b.clone() };
                close(a, &b, &format!("{name}, scale {scale}: gradient {k}"));
            }
        }
    }
}
