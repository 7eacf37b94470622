//! Language Serial Recall (WorM A3.1) for networks: a run of LSR gets the words encoder (a linear layer
//! on the word slots in place of the ConvNet), trains alone, keeps its shape through a checkpoint, and is
//! evaluated into a record scored as a person's; long lists (A3.2) widen the slots and the steps; the
//! mixes the paper does not make are refused in words (flex CPU backend, small configs).

use burn::module::Module;
use wmlab_core::TaskId;
use wmlab_core::task::STEP_LIMIT;
use wmlab_nn::model::{Arch, Encoder, ModelConfig, ModelInput};
use wmlab_nn::train::{TrainConfig, Trainer};
use wmlab_nn::{Checkpoint, cpu_device};

/// The device RNG is process-wide: tests that initialise models take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn lsr(arch: Arch) -> TrainConfig {
    TrainConfig::new(ModelConfig::tiny(arch, 16).with_mem_input(40))
        .with_tasks(Some(vec![TaskId::Lsr]))
        .with_steps(3)
        .with_per_task(4)
        .with_val_every(3)
        .with_val_per_task(4)
        .with_lr(1e-2)
}

#[test]
fn a_run_of_lsr_reads_words_trains_and_is_evaluated_as_a_person() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = lsr(Arch::Lstm);
    cfg.check_task_settings().unwrap();
    let mut tr = Trainer::new(cfg, cpu_device().autodiff());
    assert_eq!(tr.config.model.encoder, Some(Encoder::Words));
    assert_eq!(tr.config.model.slots(), 9);
    // No ConvNet: the projection reads 9 slots of 50-d word vectors; the recall head has 16 units.
    let m = tr.model();
    assert!(m.conv1.is_none());
    assert_eq!(m.proj.weight.dims(), [9 * 50, 40 - 14]);
    assert_eq!(m.heads[TaskId::Lsr.head_index()].weight.dims(), [16, 16]);
    let batch = tr.train_batch(0);
    assert!(batch.tasks.iter().all(|&t| t == TaskId::Lsr));
    assert_eq!((batch.word_slots, batch.frames.len()), (9, 0), "words, no frames");
    assert_eq!(batch.words.len(), batch.size * batch.steps * 9 * 50);
    // The word slots of a studied word: slot 1 holds it, the others are zero.
    let first = &batch.words[..9 * 50];
    assert!(first[..50].iter().any(|&v| v != 0.0) && first[50..].iter().all(|&v| v == 0.0));
    let head = TaskId::Lsr.head_index();
    let before = m.heads[head].weight.val().into_data();
    while !tr.done() {
        assert!(pollster::block_on(tr.train_step()).unwrap().is_finite());
    }
    assert_ne!(tr.model().heads[head].weight.val().into_data(), before, "the recall head learns");
    let rep = pollster::block_on(tr.validate()).unwrap();
    assert_eq!(rep.accuracy.keys().collect::<Vec<_>>(), vec!["LSR"]);
    assert!(rep.scored_accuracy.as_ref().is_some_and(|s| s.contains_key("LSR")));

    // A checkpoint keeps the words model; evaluation gives LSR rows with serial positions.
    let ck = Checkpoint::from_bundle(&tr.checkpoint().unwrap().to_bundle()).unwrap();
    assert_eq!(ck.train.model.encoder, Some(Encoder::Words));
    let device = cpu_device();
    let model = ck.model(&device).unwrap();
    assert_eq!(model.num_params(), tr.model().num_params());
    let rec = pollster::block_on(wmlab_nn::eval::evaluate_checkpoint(&ck, "flex", 16, &device, &mut |_, _| true))
        .unwrap()
        .unwrap();
    assert_eq!(rec.trials.len(), 16);
    assert!(rec.trials.iter().all(|r| r.task == "LSR"));
    for r in &rec.trials {
        let l = r.conditions.list_length.unwrap() as usize;
        assert_eq!(r.correct.len(), l, "one answer per word");
        assert_eq!(r.targets.len(), l);
    }
    let curves = wmlab_core::people::subject_curves(&rec, wmlab_core::people::StudyTask::Worm(TaskId::Lsr));
    assert!(curves.iter().all(|c| c.panel == "LSR" && c.x_name == "serial_position"), "{curves:?}");
    assert!(curves.iter().any(|c| c.label == "list_length=9" && c.points.len() == 9));
    let sig = wmlab_core::chance::task_significance(TaskId::Lsr, &rec.trials).unwrap();
    assert!(sig.chance > 0.11 && sig.chance < 0.5, "chance 1/L over the lists: {}", sig.chance);

    // The neural analyses compare the visual tasks: refused for a words model, in words.
    let e =
        pollster::block_on(wmlab_nn::analyse::analyse_network(&model, &ck.train, 2, 2, 10, &device, &mut |_, _, _| {
            true
        }))
        .unwrap_err()
        .to_string();
    assert!(e.contains("LSR") && e.contains("words"), "{e}");
}

#[test]
fn long_lists_widen_the_slots_and_the_steps() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = lsr(Arch::Trf)
        .with_task_settings(Some(vec![("slots".into(), "16".into()), ("list_lengths".into(), "2,8,16".into())]));
    cfg.check_task_settings().unwrap();
    let mut tr = Trainer::new(cfg, cpu_device().autodiff());
    assert_eq!((tr.config.model.slots(), tr.config.model.step_capacity()), (16, STEP_LIMIT));
    assert_eq!(tr.model().proj.weight.dims()[0], 16 * 50);
    let batch = tr.train_batch(0);
    assert_eq!((batch.word_slots, batch.steps), (16, 32), "lists of 16: 32 steps");
    let out = tr.model().valid().forward(&ModelInput::from_batch(&batch, &cpu_device()));
    assert_eq!(out[TaskId::Lsr.head_index()].dims(), [batch.size, 32, 16]);
    assert!(pollster::block_on(tr.train_step()).unwrap().is_finite());
}

#[test]
fn mixes_the_paper_does_not_make_are_refused() {
    let e = TrainConfig::parse_tasks("LSR,VSR").unwrap_err().to_string();
    assert!(e.contains("trains alone"), "{e}");
    assert_eq!(TrainConfig::parse_tasks("lsr").unwrap(), Some(vec![TaskId::Lsr]));
    let both = lsr(Arch::Gru).with_tasks(Some(vec![TaskId::Vsr, TaskId::Lsr]));
    assert!(both.check_task_settings().unwrap_err().to_string().contains("trains alone"));
    let mut words_on_vsr = lsr(Arch::Gru).with_tasks(Some(vec![TaskId::Vsr]));
    words_on_vsr.model.encoder = Some(Encoder::Words);
    assert!(words_on_vsr.check_task_settings().unwrap_err().to_string().contains("train it with the task LSR"));
    // A preset's encoder (pixels) gives way to the words encoder for LSR.
    let mut quick = TrainConfig::preset(wmlab_nn::Preset::Quick, Arch::Trf, 16).with_tasks(Some(vec![TaskId::Lsr]));
    quick.check_task_settings().unwrap();
    quick.fit_to_tasks();
    assert_eq!(quick.model.encoder, Some(Encoder::Words));
    // A page that switches an LSR run back to visual tasks gets the ConvNet back, not a refusal.
    let mut back = quick.clone().with_tasks(None);
    back.fit_edited();
    assert_eq!((back.model.encoder, back.model.word_slots), (None, None));
    back.check_task_settings().unwrap();
    let bad = lsr(Arch::Gru).with_task_settings(Some(vec![("list_lengths".into(), "12".into())]));
    assert!(bad.check_task_settings().unwrap_err().to_string().contains("slots=16"));
}
