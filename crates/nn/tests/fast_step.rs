//! The training step's cheaper forms against the plain ones they replace, on flex: the LSTM with its
//! input projections hoisted out of the loop, the 10 heads as one matrix product, the frames uploaded
//! as real frames only (and as bytes, as the GPU backends take them), and a non-finite loss that
//! leaves the model and the optimizer as they were.

use burn::module::Module;
use burn::nn::LstmConfig;
use burn::prelude::*;
use burn::tensor::Distribution;
use wmlab_core::Split;
use wmlab_nn::BuildModel;
use wmlab_nn::NnError;
use wmlab_nn::batch::{Batch, all_specs, joint_trials};
use wmlab_nn::cpu_device;
use wmlab_nn::model::{Arch, ModelConfig, StepFrames, lstm_forward};
use wmlab_nn::train::{TrainConfig, Trainer};

/// flex's random stream is one per process: the tests that draw from it (initialisation, random
/// inputs) take turns, so each sees the stream its seed gives.
static RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn rng() -> std::sync::MutexGuard<'static, ()> {
    RNG.lock().unwrap_or_else(|e| e.into_inner())
}

fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().unwrap()
}

fn assert_close(what: &str, a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len(), "{what}: sizes");
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
    let worst = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    assert!(worst <= tol * scale, "{what}: largest difference {worst} against values up to {scale}");
}

#[test]
fn hoisted_lstm_equals_burns_lstm_with_gradients() {
    let _rng = rng();
    let device = cpu_device().autodiff();
    device.seed(3);
    let lstm = LstmConfig::new(12, 9, true).init(&device);
    let x = Tensor::<3>::random([4, 6, 12], Distribution::Normal(0.0, 1.0), &device).require_grad();
    let r = Tensor::<3>::random([4, 6, 9], Distribution::Normal(0.0, 1.0), &device);
    let ours = lstm_forward(&lstm, x.clone());
    let theirs = lstm.forward(x.clone(), None).0;
    assert_close("outputs", &values(ours.clone()), &values(theirs.clone()), 1e-5);
    let g_ours = (ours * r.clone()).sum().backward();
    let g_theirs = (theirs * r).sum().backward();
    assert_close("d input", &values(x.grad(&g_ours).unwrap()), &values(x.grad(&g_theirs).unwrap()), 1e-5);
    let weight = lstm.forget_gate.as_ref().unwrap().hidden_transform.weight.val();
    let (wo, wt) = (values(weight.grad(&g_ours).unwrap()), values(weight.grad(&g_theirs).unwrap()));
    assert!(wt.iter().any(|&v| v != 0.0), "a zero gradient tests nothing");
    assert_close("d forget gate's hidden weight", &wo, &wt, 1e-5);
}

#[test]
fn heads_as_one_product_equal_each_head() {
    let _rng = rng();
    let device = cpu_device();
    device.seed(5);
    let model = ModelConfig::tiny(Arch::Gru, 16).init(&device);
    let h = Tensor::<3>::random([3, 5, 16], Distribution::Normal(0.0, 1.0), &device);
    let all = wmlab_nn::model::all_heads(&model.heads, h.clone());
    assert_eq!(all.len(), model.heads.len());
    for (k, (ours, head)) in all.into_iter().zip(&model.heads).enumerate() {
        assert_close(&format!("head {k}"), &values(ours), &values(head.forward(h.clone())), 1e-6);
    }
}

#[test]
fn frames_upload_real_steps_only_and_bytes_give_the_same_floats() {
    let device = cpu_device();
    let batch = Batch::from_trials(&joint_trials(&all_specs(), 9, Split::Train, 0, 1, None));
    let real: usize = batch.seq_len.iter().sum();
    assert!(real < batch.size * batch.steps, "the batch has padding steps");
    for bytes in [false, true] {
        let f = StepFrames::from_batch_as(&batch, &device, bytes);
        assert_eq!(f.real.dims(), [real + 1, 3, 32, 32], "the real frames and one black frame");
        let rows = f.index.expect("padding steps read the black frame");
        // Every step's frame, gathered back, is the batch's padded frame (exactly: bytes are k / 255).
        let gathered = values(f.real.select(0, rows));
        assert!(gathered == batch.frames, "bytes = {bytes}: the steps' frames differ from the batch's");
    }
}

#[test]
fn a_non_finite_loss_updates_nothing() {
    let _rng = rng();
    let cfg = TrainConfig::new(ModelConfig::tiny(Arch::Lstm, 16)).with_per_task(1).with_steps(3);
    let mut tr = Trainer::new(cfg, cpu_device().autodiff());
    let params = |tr: &Trainer| {
        let mut v = Vec::new();
        tr.model().visit(&mut Collect(&mut v));
        v
    };
    let mut batch = Batch::from_trials(&joint_trials(&all_specs(), 9, Split::Train, 0, 1, None));
    pollster::block_on(tr.step_on(&batch)).expect("a finite step");
    let before = params(&tr);
    // A scored step's weight of NaN makes the loss NaN (a NaN pixel may vanish in a max pool).
    let h = batch.heads.iter().position(|h| h.mask.iter().any(|&m| m)).unwrap();
    let r = batch.heads[h].mask.iter().position(|&m| m).unwrap();
    let weight = batch.heads[h].weight[r];
    batch.heads[h].weight[r] = f32::NAN;
    match pollster::block_on(tr.step_on(&batch)) {
        Err(NnError::NonFinite { .. }) => {}
        other => panic!("expected a non-finite loss, got {other:?}"),
    }
    assert!(params(&tr) == before, "the model changed on a non-finite loss");
    // The optimizer state was put back too: the next finite step is the one it would have been.
    batch.heads[h].weight[r] = weight;
    let mut fresh = Trainer::new(
        TrainConfig::new(ModelConfig::tiny(Arch::Lstm, 16)).with_per_task(1).with_steps(3),
        cpu_device().autodiff(),
    );
    let first = Batch::from_trials(&joint_trials(&all_specs(), 9, Split::Train, 0, 1, None));
    pollster::block_on(fresh.step_on(&first)).unwrap();
    assert!(params(&fresh) == before, "a fresh trainer's first step differs (the test's premise)");
    pollster::block_on(fresh.step_on(&batch)).unwrap();
    pollster::block_on(tr.step_on(&batch)).unwrap();
    assert!(params(&tr) == params(&fresh), "the step after the refused one differs from a run without it");
}

/// Every float parameter's values, in visiting order.
struct Collect<'a>(&'a mut Vec<Vec<f32>>);

impl burn::module::ModuleVisitor for Collect<'_> {
    fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
        self.0.push(values(param.val()));
    }
}
