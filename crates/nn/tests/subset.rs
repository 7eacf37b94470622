//! Task-subset training (the paper's VSR-alone ablation A3.3 and any other subset), the spatial-grid
//! encoder option and the SFR loss scale (flex CPU backend, tiny configs).

use burn::module::Module;
use burn::prelude::*;
use wmlab_core::Split;
use wmlab_core::TaskId;
use wmlab_nn::BuildModel;
use wmlab_nn::batch::{Batch, joint_trials};
use wmlab_nn::loss::{Targets, joint_loss, joint_loss_scaled};
use wmlab_nn::model::{Arch, ModelConfig, ModelInput};
use wmlab_nn::train::{TrainConfig, Trainer};
use wmlab_nn::{Checkpoint, cpu_device};

fn small(arch: Arch) -> ModelConfig {
    ModelConfig::new(arch, 16).with_conv([4, 4, 8, 8]).with_mem_input(24)
}

/// The device RNG is process-wide: tests that initialise models take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn host2(t: Tensor<2>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().unwrap()
}

/// The weights of every head, in head order.
fn head_weights(tr: &Trainer) -> Vec<Vec<f32>> {
    tr.model().heads.iter().map(|h| host2(h.weight.val())).collect()
}

#[test]
fn parse_task_lists() {
    assert_eq!(TrainConfig::parse_tasks("VSR").unwrap(), Some(vec![TaskId::Vsr]));
    assert_eq!(TrainConfig::parse_tasks(" cd-color , VIR,VIR").unwrap(), Some(vec![TaskId::CdColor, TaskId::Vir]));
    assert_eq!(TrainConfig::parse_tasks("all").unwrap(), None);
    assert_eq!(TrainConfig::parse_tasks("").unwrap(), None);
    let all = TaskId::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",");
    assert_eq!(TrainConfig::parse_tasks(&all).unwrap(), None, "all 14 named = no subset");
    let e = TrainConfig::parse_tasks("VSR,XYZ").unwrap_err().to_string();
    assert!(e.contains("XYZ") && e.contains("CD-Color"), "{e}");
    // Order follows TaskId::ALL whatever the list's order.
    let cfg = TrainConfig::new(small(Arch::Gru)).with_tasks(Some(vec![TaskId::Cs, TaskId::Sc]));
    assert_eq!(cfg.task_ids(), vec![TaskId::Sc, TaskId::Cs]);
    assert_eq!(cfg.trials_per_step(), 2 * cfg.per_task);
    assert!(cfg.is_subset());
}

/// Training VSR alone: only the VSR head moves; the other heads get no gradient. Validation reports
/// VSR only, and a checkpoint keeps the subset so a resumed run trains the same ids.
#[test]
fn subset_trains_only_its_heads() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = TrainConfig::new(small(Arch::Gru))
        .with_tasks(Some(vec![TaskId::Vsr]))
        .with_steps(3)
        .with_per_task(2)
        .with_val_every(3)
        .with_val_per_task(2)
        .with_lr(1e-2);
    let mut tr = Trainer::new(cfg, cpu_device().autodiff());
    // The step's batch holds VSR trials only.
    let batch = tr.train_batch(0);
    assert_eq!(batch.size, 2);
    assert!(batch.tasks.iter().all(|&t| t == TaskId::Vsr));
    let before = head_weights(&tr);
    while !tr.done() {
        assert!(pollster::block_on(tr.train_step()).unwrap().is_finite());
    }
    let after = head_weights(&tr);
    let vsr = TaskId::Vsr.head_index();
    for (h, (b, a)) in before.iter().zip(&after).enumerate() {
        if h == vsr {
            assert_ne!(b, a, "the VSR head must learn");
        } else {
            assert_eq!(b, a, "head {h} is outside the subset and must get no gradient");
        }
    }
    let rep = pollster::block_on(tr.validate()).unwrap();
    let ids: Vec<&String> = rep.accuracy.keys().collect();
    assert_eq!(ids, vec!["VSR"]);
    let ck = Checkpoint::from_bundle(&tr.checkpoint().unwrap().to_bundle()).unwrap();
    assert_eq!(ck.train.task_ids(), vec![TaskId::Vsr]);
    let resumed = Trainer::resume(&ck, cpu_device().autodiff()).unwrap();
    assert!(resumed.train_batch(7).tasks.iter().all(|&t| t == TaskId::Vsr));
}

/// The loss of a subset batch is the sum over the subset's ids only: a batch of VSR and CD-Color trials
/// gives the same loss as the two single-id batches added.
#[test]
fn subset_loss_is_the_sum_over_its_ids() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let device = cpu_device();
    device.seed(3);
    let model = small(Arch::Lstm).init(&device);
    let loss_of = |ids: &[TaskId]| {
        let specs: Vec<_> = ids.iter().map(|&t| wmlab_core::TaskSpec::new(t)).collect();
        let batch = Batch::from_trials(&joint_trials(&specs, 9, Split::Train, 0, 2, None));
        let l =
            joint_loss(&model.forward(&ModelInput::from_batch(&batch, &device)), &Targets::from_batch(&batch, &device));
        l.into_scalar::<f32>()
    };
    let both = loss_of(&[TaskId::Vsr, TaskId::CdColor]);
    let sum = loss_of(&[TaskId::Vsr]) + loss_of(&[TaskId::CdColor]);
    assert!((both - sum).abs() < 1e-4 * sum.abs().max(1.0), "{both} vs {sum}");
}

/// The SFR scale multiplies the multi-label head's part of the loss and nothing else.
#[test]
fn sfr_scale_weighs_only_the_multilabel_head() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let device = cpu_device();
    device.seed(4);
    let model = small(Arch::Gru).init(&device);
    let specs: Vec<_> = [TaskId::Sfr, TaskId::Sc].iter().map(|&t| wmlab_core::TaskSpec::new(t)).collect();
    let batch = Batch::from_trials(&joint_trials(&specs, 2, Split::Train, 0, 2, None));
    let sfr_only = Batch::from_trials(&joint_trials(&specs[..1], 2, Split::Train, 0, 2, None));
    let logits = model.forward(&ModelInput::from_batch(&batch, &device));
    let t = Targets::from_batch(&batch, &device);
    let l1 = joint_loss(&logits, &t).into_scalar::<f32>();
    let l100 = joint_loss_scaled(&logits, &t, 100.0).into_scalar::<f32>();
    let sfr = joint_loss(
        &model.forward(&ModelInput::from_batch(&sfr_only, &device)),
        &Targets::from_batch(&sfr_only, &device),
    )
    .into_scalar::<f32>();
    assert!((l100 - (l1 + 99.0 * sfr)).abs() < 1e-3 * l100.abs(), "{l100} vs {l1} + 99 × {sfr}");
}

/// The spatial grid keeps an s×s map (K = c4·s²) before the projection; 1 is the paper's global pool.
#[test]
fn spatial_grid_widens_the_projection() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let device = cpu_device();
    let paper = small(Arch::Gru);
    let grid = small(Arch::Gru).with_spatial(Some(4));
    let (mp, mg) = (paper.init(&device), grid.init(&device));
    assert_eq!(mp.proj.weight.dims(), [8, 24 - 14]);
    assert_eq!(mg.proj.weight.dims(), [8 * 16, 24 - 14]);
    assert_eq!(mg.num_params() - mp.num_params(), 8 * 15 * 10);
    let x = Tensor::<4>::zeros([3, 3, 32, 32], &device);
    assert_eq!(mg.features(x).dims(), [3, 10]);
    assert!(small(Arch::Gru).with_spatial(Some(9)).validate().is_err());
    // A config saved before the option existed (no `spatial` key) loads as the paper's pool.
    let mut v = serde_json::to_value(&paper).unwrap();
    v.as_object_mut().unwrap().remove("spatial");
    let back: ModelConfig = serde_json::from_value(v).unwrap();
    assert_eq!(back.spatial_side(), 1);
}

/// Quirks travel in the config (and so in checkpoints): the specs trained and evaluated carry them, and a
/// train.json written before quirks existed reads as none.
#[test]
fn quirks_reach_the_trained_specs() {
    use wmlab_core::task::TaskParams;
    let mut cfg = TrainConfig::new(small(Arch::Gru));
    let sts = |c: &TrainConfig| {
        c.specs()
            .into_iter()
            .find(|s| s.id == TaskId::Sts)
            .map(|s| matches!(s.params, TaskParams::Sts(p) if p.score_cue_steps))
            .unwrap()
    };
    assert!(!sts(&cfg));
    cfg.quirks = Some(wmlab_core::Quirks::parse("sts-cue-steps").unwrap());
    assert!(sts(&cfg));
    let json = serde_json::to_string(&cfg).unwrap();
    let back: TrainConfig = serde_json::from_str(&json).unwrap();
    assert_eq!(back.quirks, cfg.quirks);
    let mut old: serde_json::Value = serde_json::from_str(&json).unwrap();
    old.as_object_mut().unwrap().remove("quirks");
    let old: TrainConfig = serde_json::from_value(old).unwrap();
    assert_eq!(old.quirks, None);
}

/// `task_settings` (`--set KEY=VALUE`) reach the trained ids that have the key, are checked before a run,
/// travel in the config JSON, and an older config without them loads as the paper's.
#[test]
fn task_settings_reach_the_trained_specs() {
    use wmlab_core::task::TaskParams;
    let mut cfg = TrainConfig::new(small(Arch::Gru)).with_tasks(Some(vec![TaskId::CdColor, TaskId::Vsr]));
    cfg.task_settings = Some(vec![("noise_mask".into(), "true".into()), ("retentions".into(), "6".into())]);
    cfg.check_task_settings().unwrap();
    let specs = cfg.specs();
    let TaskParams::Cd(p) = &specs[1].params else { panic!("CD-Color second in TaskId order: {:?}", specs[1].id) };
    assert!(p.noise_mask && p.retentions == vec![6]);
    assert_eq!(specs[0], wmlab_core::TaskSpec::new(TaskId::Vsr), "VSR has neither key: unchanged");
    // Refused in words: a key no trained id has, a value that does not fit.
    cfg.task_settings = Some(vec![("noise_mask".into(), "true".into())]);
    let vsr_only = TrainConfig { tasks: Some(vec![TaskId::Vsr]), ..cfg.clone() };
    assert!(
        vsr_only
            .check_task_settings()
            .unwrap_err()
            .to_string()
            .contains("no trained task has a parameter \"noise_mask\"")
    );
    let bad = TrainConfig { task_settings: Some(vec![("noise_mask".into(), "often".into())]), ..cfg.clone() };
    assert!(bad.check_task_settings().unwrap_err().to_string().contains("not true or false"));
    let json = serde_json::to_string(&cfg).unwrap();
    assert_eq!(serde_json::from_str::<TrainConfig>(&json).unwrap().task_settings, cfg.task_settings);
    let mut old: serde_json::Value = serde_json::from_str(&json).unwrap();
    old.as_object_mut().unwrap().remove("task_settings");
    assert_eq!(serde_json::from_value::<TrainConfig>(old).unwrap().task_settings, None);
}
