//! The GPU paths on a real wgpu device against flex: the GEMM convolution (values and the three
//! gradients, through the ReLU and the pooling) and the LSTM as one operation, then a whole training
//! step of a small model (loss and a gradient). Built only with `--features wgpu` (the default test
//! build has no native GPU stack); without a GPU, Debian's lavapipe runs it on the CPU:
//! `cargo test --profile native -p wmlab-nn --features wgpu,fusion --test gpu_parity`.
#![cfg(feature = "wgpu")]

use burn::nn::LstmConfig;
use burn::nn::PaddingConfig2d;
use burn::nn::conv::Conv2dConfig;
use burn::prelude::*;
use burn::tensor::Distribution;
use wmlab_core::Split;
use wmlab_nn::BuildModel;
use wmlab_nn::batch::{Batch, all_specs, joint_trials};
use wmlab_nn::conv::{conv3x3_relu, conv3x3_relu_pool};
use wmlab_nn::loss::{Targets, joint_loss};
use wmlab_nn::model::{Arch, ModelConfig, ModelInput, lstm_forward};

fn host<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_into_vec::<f32>().unwrap()
}

fn close(what: &str, a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len(), "{what}: sizes");
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
    let worst = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    assert!(worst <= tol * scale, "{what}: largest difference {worst} against values up to {scale}");
}

/// The process's wgpu device (it can be set up once).
fn gpu() -> Device {
    static GPU: std::sync::OnceLock<Device> = std::sync::OnceLock::new();
    GPU.get_or_init(|| {
        wmlab_nn::wgpu_device().expect("a wgpu adapter (apt install mesa-vulkan-drivers gives lavapipe)")
    })
    .clone()
    .autodiff()
}

/// The same tensor's values on another device.
fn moved<const D: usize>(t: &Tensor<D>, device: &Device) -> Tensor<D> {
    Tensor::from_data(t.to_data(), device)
}

#[test]
fn gemm_convolution_on_wgpu_equals_flex() {
    let (cpu, gpu) = (Device::flex().autodiff(), gpu());
    cpu.seed(5);
    for (n, cin, cout, side, pool) in [(3, 3, 8, 16, false), (5, 8, 16, 8, true), (2, 16, 4, 4, true)] {
        let layer =
            Conv2dConfig::new([cin, cout], [3, 3]).with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1)).init(&cpu);
        let x = Tensor::<4>::random([n, cin, side, side], Distribution::Normal(0.0, 1.0), &cpu);
        let out = if pool { side / 2 } else { side };
        let r = Tensor::<4>::random([n, cout, out, out], Distribution::Normal(0.0, 1.0), &cpu);
        let run = |device: &Device| {
            // The same weights, tracked on `device`.
            let mut layer = layer.clone();
            layer.weight = layer.weight.map(|w| moved(&w, device).require_grad());
            layer.bias = layer.bias.map(|b| b.map(|b| moved(&b, device).require_grad()));
            let x = moved(&x, device).require_grad();
            let y = if pool { conv3x3_relu_pool(&layer, x.clone()) } else { conv3x3_relu(&layer, x.clone()) };
            let g = (y.clone() * moved(&r, device)).sum().backward();
            let dw = layer.weight.val().grad(&g).unwrap();
            (host(y), host(x.grad(&g).unwrap()), host(dw))
        };
        let (a, b) = (run(&cpu), run(&gpu));
        let label = format!("N{n} {cin}->{cout} {side}x{side} pool {pool}");
        close(&format!("{label} output"), &b.0, &a.0, 1e-4);
        close(&format!("{label} d input"), &b.1, &a.1, 1e-4);
        close(&format!("{label} d weight"), &b.2, &a.2, 1e-4);
    }
}

/// The LSTM op (on wgpu: our two kernels, forward and backward over all steps) against flex's ops:
/// outputs and the gradients of the input and of a hidden weight, for a memory narrower than a cube of
/// threads and one wider (each thread then takes several hidden units), one step and several.
#[test]
fn lstm_op_on_wgpu_equals_flex() {
    let (cpu, gpu) = (Device::flex().autodiff(), gpu());
    cpu.seed(6);
    for (batch, steps, input, hidden) in [(4, 7, 10, 12), (3, 5, 6, 300), (2, 1, 5, 8)] {
        let lstm = LstmConfig::new(input, hidden, true).init(&cpu);
        let x = Tensor::<3>::random([batch, steps, input], Distribution::Normal(0.0, 1.0), &cpu);
        let r = Tensor::<3>::random([batch, steps, hidden], Distribution::Normal(0.0, 1.0), &cpu);
        let run = |device: &Device| {
            use burn::module::Module;
            let lstm = LstmConfig::new(input, hidden, true).init(device).load_record(lstm.clone().into_record());
            let x = moved(&x, device).require_grad();
            let h = lstm_forward(&lstm, x.clone());
            let g = (h.clone() * moved(&r, device)).sum().backward();
            let wh = lstm.forget_gate.as_ref().unwrap().hidden_transform.weight.val().grad(&g).unwrap();
            (host(h), host(x.grad(&g).unwrap()), host(wh))
        };
        let (a, b) = (run(&cpu), run(&gpu));
        let label = format!("B{batch} T{steps} {input}->{hidden}");
        close(&format!("{label} outputs"), &b.0, &a.0, 1e-4);
        close(&format!("{label} d input"), &b.1, &a.1, 1e-4);
        close(&format!("{label} d hidden weight"), &b.2, &a.2, 1e-4);
    }
}

/// A small model's loss and its gradients, one training step, on both devices from the same weights:
/// the uploads (real frames as bytes on wgpu), the GEMM convolution, the LSTM op and the heads as one
/// product together.
#[test]
fn a_training_step_on_wgpu_equals_flex() {
    let (cpu, gpu) = (Device::flex().autodiff(), gpu());
    cpu.seed(7);
    let cfg = ModelConfig::tiny(Arch::Lstm, 16);
    let model = cfg.init(&cpu);
    let batch = Batch::from_trials(&joint_trials(&all_specs(), 9, Split::Train, 0, 1, None));
    let run = |device: &Device| {
        use burn::module::Module;
        let model = cfg.init(device).load_record(model.clone().into_record());
        let loss =
            joint_loss(&model.forward(&ModelInput::from_batch(&batch, device)), &Targets::from_batch(&batch, device));
        let g = loss.backward();
        let conv = model.conv1.as_ref().unwrap().weight.val().grad(&g).unwrap();
        (host(loss), host(conv))
    };
    let (a, b) = (run(&cpu), run(&gpu));
    close("loss", &b.0, &a.0, 1e-4);
    close("first conv's weight gradient", &b.1, &a.1, 1e-3);
}

/// A fresh run from the same seed starts from the same weights on every device (they are drawn on the
/// CPU and moved), so its first losses on wgpu equal flex's: what the Networks page's backend probe
/// shows for WebGPU against the CPU.
#[test]
fn a_run_from_one_seed_has_the_same_first_losses_on_wgpu_and_flex() {
    use wmlab_nn::{TrainConfig, Trainer};
    let config = TrainConfig::preset(wmlab_nn::Preset::Tiny, Arch::Gru, 16).with_steps(3);
    let losses = |device: Device| {
        let mut t = Trainer::new(config.clone(), device);
        (0..3).map(|_| pollster::block_on(t.train_step()).unwrap()).collect::<Vec<f32>>()
    };
    let (a, b) = (losses(Device::flex().autodiff()), losses(gpu()));
    close("the first three losses", &b, &a, 1e-3);
    assert!(a[0] != a[2], "the weights moved: {a:?}");
}
