//! Hidden states, lesions and the streamed hidden-state summaries (flex CPU backend, tiny configs).

use burn::prelude::*;
use wmlab_core::Split;
use wmlab_core::task::{MAX_STEPS, TaskId};
use wmlab_nn::BuildModel;
use wmlab_nn::analyse::{
    HiddenLimits, N_FAMILIES, collect_hidden_with, family_accuracy, family_names, lesion_accuracies, sts_cue_rule,
};
use wmlab_nn::batch::{Batch, all_specs, joint_trials};
use wmlab_nn::cpu_device;
use wmlab_nn::loss::{accuracy, logits_to_host};
use wmlab_nn::model::{Arch, ModelConfig, ModelInput};
use wmlab_nn::train::TrainConfig;

const C: usize = 16;

fn small(arch: Arch) -> ModelConfig {
    ModelConfig::new(arch, C)
        .with_conv([4, 4, 8, 8])
        .with_mem_input(24)
        .with_trf_heads(2)
        .with_trf_ff(16)
        .with_trf_layers(1)
        .with_trf_dropout(0.0)
}

fn host<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().unwrap()
}

/// The device RNG is process-wide: tests that initialise models take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn unit_masks_on_the_memory_output() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let device = cpu_device();
    let batch = Batch::from_trials(&joint_trials(&all_specs(), 3, Split::Test, 0, 1, None));
    for arch in [Arch::Lstm, Arch::Trf] {
        device.seed(31);
        let model = small(arch).init(&device);
        let input = ModelInput::from_batch(&batch, &device);
        let plain: Vec<Vec<f32>> = model.forward(&input).into_iter().map(host).collect();
        let hidden = host(model.hidden(&input));

        let ones = Tensor::<1>::ones([C], &device);
        let (logits, mem) = model.forward_with_hidden(&input, Some(ones));
        assert_eq!(mem.dims(), [batch.size, MAX_STEPS, C]);
        assert_eq!(host(mem), hidden, "{arch:?}: memory output = hidden()");
        let masked: Vec<Vec<f32>> = logits.into_iter().map(host).collect();
        assert_eq!(masked, plain, "{arch:?}: an all-ones mask changes nothing");
        let (unmasked, _) = model.forward_with_hidden(&input, None);
        assert_eq!(unmasked.into_iter().map(host).collect::<Vec<_>>(), plain);

        let zeros = Tensor::<1>::zeros([C], &device);
        let (logits, _) = model.forward_with_hidden(&input, Some(zeros));
        for (l, head) in logits.into_iter().zip(&model.heads) {
            let bias = host(head.bias.as_ref().expect("heads have biases").val());
            let u = bias.len();
            for (r, x) in host(l).chunks(u).enumerate() {
                assert_eq!(x, &bias[..], "{arch:?}: row {r} of an all-lesioned head is its bias");
            }
        }

        // One lesioned unit changes the logits.
        let mut m = vec![1.0f32; C];
        m[3] = 0.0;
        let (logits, _) = model.forward_with_hidden(&input, Some(Tensor::from_data(TensorData::new(m, [C]), &device)));
        assert_ne!(logits.into_iter().map(host).collect::<Vec<_>>(), plain);
    }
}

#[test]
fn task_embedding_rows_learned_and_frozen() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let device = cpu_device();
    let model = small(Arch::Gru).init(&device);
    let rows = pollster::block_on(model.task_embedding_rows()).unwrap();
    let w = host(model.task_embedding.as_ref().unwrap().weight.val());
    assert_eq!(rows.len(), 14);
    assert_eq!(rows.concat(), w);
    let frozen = small(Arch::Gru).with_frozen_task_embedding(true).init(&device);
    let rows = pollster::block_on(frozen.task_embedding_rows()).unwrap();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.iter().sum::<f32>(), 1.0);
        assert_eq!(r[i], 1.0);
    }
}

#[test]
fn collect_hidden_streams_bounded_summaries() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let device = cpu_device();
    device.seed(41);
    let train = TrainConfig::new(small(Arch::Gru)).with_seed(86);
    let model = train.model.init(&device);
    let n = 5;
    let limits = HiddenLimits { sts_max_trials: 2, sts_max_values: 1_000_000 };
    let mut last = (0, 0);
    let stats = pollster::block_on(collect_hidden_with(
        &model,
        &train,
        n,
        2,
        &device,
        &mut |d, t| {
            last = (d, t);
            true
        },
        limits,
    ))
    .unwrap()
    .unwrap();
    assert_eq!(last, (14 * n, 14 * n));
    assert_eq!(stats.families, family_names());
    assert_eq!(stats.families[8], "CD");
    // The accumulator got every trial once: n per family, 5n for the pooled CD ids.
    let want: Vec<u64> = (0..N_FAMILIES).map(|f| if f == 8 { 5 * n as u64 } else { n as u64 }).collect();
    assert_eq!(stats.trials_per_family, want);
    assert_eq!(stats.tv.len(), N_FAMILIES);
    assert!(stats.tv.iter().all(|r| r.len() == C && r.iter().all(|v| v.is_finite() && *v >= 0.0)));
    assert!(stats.tv.iter().any(|r| r.iter().any(|&v| v > 0.0)));
    assert_eq!(stats.first_item.len(), 14);
    assert!(stats.first_item.iter().all(|r| r.len() == C && r.iter().any(|&v| v != 0.0)));
    assert_eq!(stats.task_embedding.len(), 14);
    let sim = &stats.vsr_position_similarity;
    assert_eq!((sim.len(), sim[0].len()), (9, 9));
    assert!((sim[0][0].unwrap() - 1.0).abs() < 1e-9 && sim[0][1].is_some());

    // STS: only the first 2 trials are kept, one point per scored step, with the rule in force.
    let spec = all_specs().into_iter().find(|s| s.id == TaskId::Sts).unwrap();
    let sts_trials: Vec<_> = (0..2).map(|j| spec.trial(86, Split::Test, j)).collect();
    let points: usize = sts_trials.iter().map(|t| t.scored_steps().count()).sum();
    let s = &stats.sts;
    assert_eq!(s.len(), points);
    assert_eq!(s.states.len(), points * C);
    assert!(s.trial.iter().all(|&t| t < 2));
    assert!(s.answer.iter().all(|&a| a <= 1) && s.rule.iter().all(|&r| r <= 1));
    for (j, t) in sts_trials.iter().enumerate() {
        let rules: Vec<u8> = (0..s.len()).filter(|&i| s.trial[i] == j as u32).map(|i| s.rule[i]).collect();
        let changes = rules.windows(2).filter(|w| w[0] != w[1]).count();
        assert_eq!(changes as u8, t.conditions.switches.unwrap(), "a rule change per switch cue");
        assert_eq!(sts_cue_rule(&t.steps[0].frame), Some(rules[0]));
    }
    // A kept state is the memory output of that trial at that step.
    let h = host(model.hidden(&ModelInput::from_batch(&Batch::from_trials(&sts_trials[..1]), &device)));
    let step = s.step[0] as usize;
    let direct = &h[step * C..(step + 1) * C];
    for (a, b) in s.state(0).iter().zip(direct) {
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }
    let json = serde_json::to_string(&stats).unwrap();
    let back: wmlab_nn::analyse::HiddenStats = serde_json::from_str(&json).unwrap();
    assert_eq!(back.sts.len(), s.len());

    // The value cap also bounds the STS states.
    let tight = HiddenLimits { sts_max_trials: 300, sts_max_values: 25 * C };
    let st = pollster::block_on(collect_hidden_with(&model, &train, 3, 3, &device, &mut |_, _| true, tight))
        .unwrap()
        .unwrap();
    assert!(st.sts.states.len() <= 25 * C && !st.sts.is_empty());
    // Cancelled.
    let none =
        pollster::block_on(collect_hidden_with(&model, &train, 3, 1, &device, &mut |d, _| d < 14, limits)).unwrap();
    assert!(none.is_none());
}

#[test]
fn lesion_accuracies_reuse_validation_scoring() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let device = cpu_device();
    device.seed(51);
    let train = TrainConfig::new(small(Arch::Rnn)).with_seed(86);
    let model = train.model.init(&device);
    let n = 3;
    let masks = vec![vec![1.0f32; C], vec![0.0f32; C]];
    let accs = pollster::block_on(lesion_accuracies(&model, &train, &masks, n, 2, &device, &mut |_, _| true))
        .unwrap()
        .unwrap();
    assert_eq!(accs.len(), 2);
    // The intact mask equals scoring the plain forward pass on the same test trials.
    let trials: Vec<_> =
        all_specs().iter().flat_map(|s| (0..n as u64).map(move |j| s.trial(86, Split::Test, j))).collect();
    let batch = Batch::from_trials(&trials);
    let logits = pollster::block_on(logits_to_host(model.forward(&ModelInput::from_batch(&batch, &device)))).unwrap();
    assert_eq!(accs[0], accuracy(&batch, &logits));
    assert_eq!(accs[1].total, accs[0].total);
    assert_eq!(family_accuracy(&accs[0]).len(), N_FAMILIES);
    assert!(family_accuracy(&accs[1]).iter().all(|a| a.is_some_and(|a| (0.0..=1.0).contains(&a))));
    let bad = pollster::block_on(lesion_accuracies(&model, &train, &[vec![1.0; 3]], n, 2, &device, &mut |_, _| true));
    assert!(bad.is_err());
}
