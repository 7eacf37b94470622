//! Adam's state travels in checkpoints: stopping and resuming gives the same run (flex is deterministic).

use wmlab_nn::model::{Arch, ModelConfig};
use wmlab_nn::train::{TrainConfig, Trainer};
use wmlab_nn::{Checkpoint, cpu_device};

fn config(arch: Arch) -> TrainConfig {
    let m = ModelConfig::new(arch, 16)
        .with_conv([4, 4, 8, 8])
        .with_mem_input(24)
        .with_trf_heads(2)
        .with_trf_ff(16)
        .with_trf_layers(1)
        .with_trf_dropout(0.0);
    TrainConfig::new(m).with_steps(5).with_per_task(1).with_val_every(1000).with_lr(3e-3).with_seed(5)
}

/// The device RNG (seeded in `Trainer::new`) is process-wide: tests that initialise models take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run(tr: &mut Trainer, steps: usize) -> Vec<f32> {
    (0..steps).map(|_| pollster::block_on(tr.train_step()).unwrap()).collect()
}

#[test]
fn resume_continues_adam_exactly() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for arch in [Arch::Gru, Arch::Lstm] {
        let cfg = config(arch);
        let straight = run(&mut Trainer::new(cfg.clone(), cpu_device().autodiff()), 5);

        let mut first = Trainer::new(cfg.clone(), cpu_device().autodiff());
        let mut losses = run(&mut first, 3);
        let ck = first.checkpoint().unwrap();
        assert!(ck.optimizer.as_ref().is_some_and(|o| !o.is_empty()));
        // Through the bundle and through a directory.
        let bundled = Checkpoint::from_bundle(&ck.to_bundle()).unwrap();
        assert_eq!(bundled, ck);
        let dir = std::env::temp_dir().join(format!("wmlab-nn-resume-{}-{}", std::process::id(), arch.as_str()));
        ck.save_dir(&dir).unwrap();
        let from_dir = Checkpoint::load_path(&dir).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(from_dir, ck);
        drop(first);

        let mut second = Trainer::resume(&from_dir, cpu_device().autodiff()).unwrap();
        assert_eq!(second.state.step, 3);
        losses.extend(run(&mut second, 2));
        assert!(second.done());
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&losses), bits(&straight), "{arch:?}: resumed {losses:?} vs straight {straight:?}");

        // Without optimizer state (an old checkpoint) the run resumes with a fresh Adam: it differs.
        let old = Checkpoint::from_bundle(&ck.clone().with_optimizer(None).to_bundle()).unwrap();
        assert!(old.optimizer.is_none());
        let mut fresh = Trainer::resume(&old, cpu_device().autodiff()).unwrap();
        let l = run(&mut fresh, 2);
        assert_eq!(l[0].to_bits(), straight[3].to_bits(), "the weights are the same");
        assert_ne!(l[1].to_bits(), straight[4].to_bits(), "{arch:?}: fresh Adam moments should change step 5");
    }
}

#[test]
fn corrupt_or_truncated_bundles_give_messages() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = config(Arch::Gru);
    let mut tr = Trainer::new(cfg, cpu_device().autodiff());
    run(&mut tr, 1);
    let b = tr.checkpoint().unwrap().to_bundle();
    let cut = Checkpoint::from_bundle(&b[..b.len() - 10]).unwrap_err();
    assert!(matches!(cut, wmlab_nn::NnError::Bundle(_)) && cut.to_string().contains("truncated"), "{cut}");
    let mut ck = Checkpoint::from_bundle(&b).unwrap();
    ck.optimizer = Some(vec![1, 2, 3]);
    let err = Trainer::resume(&ck, cpu_device().autodiff()).err().unwrap();
    assert!(matches!(err, wmlab_nn::NnError::Optimizer(_)), "{err}");
    assert!(err.to_string().contains("optimizer"), "{err}");
}

/// The async checkpoint (parameters read back asynchronously and copied to the CPU, the path the
/// browser's WebGPU backend needs) resumes exactly like the synchronous one.
#[test]
fn async_checkpoint_resumes_like_the_sync_one() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = config(Arch::Trf);
    let straight = run(&mut Trainer::new(cfg.clone(), cpu_device().autodiff()), 5);
    let mut first = Trainer::new(cfg.clone(), cpu_device().autodiff());
    let mut losses = run(&mut first, 3);
    let ck = pollster::block_on(first.checkpoint_async()).unwrap();
    assert!(ck.optimizer.is_some(), "natively the optimizer state is included");
    let sync = first.checkpoint().unwrap();
    let a = ck.model(&cpu_device()).unwrap();
    let b = sync.model(&cpu_device()).unwrap();
    use burn::module::Module;
    assert_eq!(a.num_params(), b.num_params());
    let mut resumed =
        Trainer::resume(&Checkpoint::from_bundle(&ck.to_bundle()).unwrap(), cpu_device().autodiff()).unwrap();
    losses.extend(run(&mut resumed, 2));
    assert_eq!(losses, straight);
}

/// Every preset resumes exactly, with its own options (the quick preset's pixel encoder and clipping, a
/// curriculum that spans the stop) and its schedule state: the resumed run equals the straight one, and
/// the best-model record carries over. The ConvNet widths are shrunk so the test takes seconds.
#[test]
fn every_preset_resumes_exactly() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for name in wmlab_nn::Preset::ALL {
        let mut cfg = TrainConfig::preset(name, Arch::Trf, 16);
        cfg.model = cfg
            .model
            .with_conv([4, 4, 8, 8])
            .with_trf_heads(2)
            .with_trf_ff(16)
            .with_trf_layers(1)
            .with_trf_dropout(0.0);
        let cfg = cfg.with_steps(4).with_per_task(1).with_val_every(2).with_val_per_task(1).with_curriculum(Some(3));
        let straight = {
            let mut tr = Trainer::new(cfg.clone(), cpu_device().autodiff());
            let mut l = run(&mut tr, 2);
            pollster::block_on(tr.validate()).unwrap();
            l.extend(run(&mut tr, 2));
            l
        };
        let mut first = Trainer::new(cfg.clone(), cpu_device().autodiff());
        let mut losses = run(&mut first, 2);
        pollster::block_on(first.validate()).unwrap();
        let ck = Checkpoint::from_bundle(&first.checkpoint().unwrap().to_bundle()).unwrap();
        assert_eq!(ck.train, cfg, "{name:?}: the config travels whole");
        let mut second = Trainer::resume(&ck, cpu_device().autodiff()).unwrap();
        assert_eq!(second.state.best_step, Some(2), "{name:?}");
        assert_eq!(second.state.history.len(), 1, "{name:?}");
        losses.extend(run(&mut second, 2));
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&losses), bits(&straight), "{name:?}: resumed {losses:?} vs straight {straight:?}");
    }
}
