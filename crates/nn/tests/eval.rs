//! The network's test evaluation as a result record (flex CPU backend, tiny configs).

use wmlab_core::Split;
use wmlab_core::people::StudyTask;
use wmlab_core::people::reference::subject_curves;
use wmlab_core::record::{ResultRecord, Subject};
use wmlab_core::task::{HeadKind, MAX_STEPS, TaskId};
use wmlab_nn::BuildModel;
use wmlab_nn::batch::{Batch, all_specs};
use wmlab_nn::cpu_device;
use wmlab_nn::eval::{evaluate_record, network_record, task_accuracy, trial_row};
use wmlab_nn::model::{Arch, ModelConfig};
use wmlab_nn::train::TrainConfig;

fn small(arch: Arch) -> ModelConfig {
    ModelConfig::new(arch, 16)
        .with_conv([4, 4, 8, 8])
        .with_mem_input(24)
        .with_trf_heads(2)
        .with_trf_ff(16)
        .with_trf_layers(1)
        .with_trf_dropout(0.0)
}

const CURVE_TASKS: [TaskId; 6] = [TaskId::Vsr, TaskId::Vir, TaskId::Cs, TaskId::Smu, TaskId::VsRec, TaskId::CdColor];

#[test]
fn fresh_model_record_validates_and_gives_curves() {
    let device = cpu_device();
    device.seed(21);
    let train = TrainConfig::new(small(Arch::Gru)).with_preset("test".into()).with_steps(0);
    let model = train.model.init(&device);
    let n = 6;
    let mut calls = Vec::new();
    let rec = pollster::block_on(evaluate_record(&model, &train, "flex", n, 4, &device, &mut |d, t| {
        calls.push((d, t));
        true
    }))
    .unwrap()
    .expect("not cancelled");
    assert_eq!(calls.first(), Some(&(0, 14 * n)));
    assert_eq!(calls.last(), Some(&(14 * n, 14 * n)));
    rec.validate().unwrap();
    let back = ResultRecord::from_json(&rec.to_json().unwrap()).unwrap();
    assert_eq!(back, rec);
    assert_eq!(rec.trials.len(), 14 * n);
    assert!(
        matches!(&rec.subject, Subject::Network { arch, capacity: 16, backend, .. } if arch == "gru" && backend == "flex")
    );
    for t in TaskId::ALL {
        let rows: Vec<_> = rec.trials.iter().filter(|r| r.task == t.as_str()).collect();
        assert_eq!(rows.len(), n, "{t}");
        for r in &rows {
            assert!(!r.correct.is_empty() && r.targets.len() == r.correct.len(), "{t}: {r:?}");
        }
        let acc = rec
            .summaries
            .iter()
            .find(|s| s.task == t.as_str() && s.metric == "accuracy" && s.conditions == Default::default())
            .unwrap();
        assert!((0.0..=1.0).contains(&acc.value), "{t}: {}", acc.value);
    }
    let trial_numbers: Vec<u64> = rec.trials.iter().map(|r| r.trial).collect();
    assert_eq!(trial_numbers, (0..14 * n as u64).collect::<Vec<_>>());
    for t in CURVE_TASKS {
        let c = subject_curves(&rec, StudyTask::Worm(t));
        assert!(!c.is_empty() && c.iter().all(|c| !c.points.is_empty()), "{t}: {c:?}");
    }
    // Cancelling stops at once.
    let none = pollster::block_on(evaluate_record(&model, &train, "flex", n, 4, &device, &mut |d, _| d == 0)).unwrap();
    assert!(none.is_none());
}

/// Logits that say the ground truth at every step (margin 5), laid out as `logits_to_host` returns them.
fn ideal_logits(batch: &Batch) -> Vec<Vec<f32>> {
    batch
        .heads
        .iter()
        .map(|h| {
            let u = h.kind.units() as usize;
            let mut v = vec![0.0f32; batch.size * MAX_STEPS * u];
            for r in 0..batch.size * MAX_STEPS {
                match h.kind {
                    HeadKind::Binary => v[r] = if h.target_f[r] > 0.5 { 5.0 } else { -5.0 },
                    HeadKind::Classes(_) => v[r * u + h.target_i[r] as usize] = 5.0,
                    HeadKind::MultiLabel(_) => {
                        for k in 0..u {
                            v[r * u + k] = if h.target_f[r * u + k] > 0.5 { 5.0 } else { -5.0 };
                        }
                    }
                }
            }
            v
        })
        .collect()
}

#[test]
fn ground_truth_answers_score_one() {
    let specs = all_specs();
    let n = 24;
    let trials: Vec<_> = specs.iter().flat_map(|s| (0..n).map(move |j| s.trial(86, Split::Test, j))).collect();
    let batch = Batch::from_trials(&trials);
    let logits = ideal_logits(&batch);
    let rows: Vec<_> = trials
        .iter()
        .enumerate()
        .map(|(b, t)| trial_row(t, b as u64, b as u64 % n, &logits, batch.steps, b).unwrap())
        .collect();
    for r in &rows {
        assert!(r.correct.iter().all(|&c| c), "{r:?}");
        assert_eq!(r.targets, if r.task == "SFR" { r.targets.clone() } else { r.responses.clone() }, "{r:?}");
    }
    for t in TaskId::ALL {
        assert_eq!(task_accuracy(t, &rows).unwrap().value, 1.0, "{t}");
    }
    let rec = network_record(&TrainConfig::new(small(Arch::Lstm)), "flex", n as usize, rows);
    rec.validate().unwrap();
    assert!(rec.summaries.iter().all(|s| s.value == 1.0), "{:?}", rec.summaries);
    // The Fig. 4 curves of a perfect subject are flat at 1.
    for t in CURVE_TASKS {
        for c in subject_curves(&rec, StudyTask::Worm(t)) {
            assert!(c.points.iter().all(|p| p.1 == 1.0), "{t}: {c:?}");
        }
    }

    // Wrong answers: every logit negated. The STS/CS argmax may leave the options: written as the class.
    let neg: Vec<Vec<f32>> = logits.iter().map(|h| h.iter().map(|x| -x).collect()).collect();
    let rows: Vec<_> =
        trials.iter().enumerate().map(|(b, t)| trial_row(t, b as u64, 0, &neg, batch.steps, b).unwrap()).collect();
    for t in [TaskId::Sc, TaskId::Vir, TaskId::VsRec, TaskId::CdGap] {
        assert_eq!(task_accuracy(t, &rows).unwrap().value, 0.0, "{t}");
    }
    let sts = rows.iter().find(|r| r.task == "STS").unwrap();
    assert!(sts.responses.iter().all(|r| r != "none"), "{sts:?}");
}
