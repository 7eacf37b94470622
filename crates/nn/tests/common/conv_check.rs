//! Shared by `conv.rs` (flex's kernels) and `conv_gemm.rs` (the GPU backends' GEMM path run on flex):
//! a conv layer's output and its three gradients against burn's own `Conv2d`.

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::MaxPool2dConfig;
use burn::nn::{PaddingConfig2d, Relu};
use burn::prelude::*;
use burn::tensor::Distribution;
use wmlab_nn::conv::{conv3x3, conv3x3_relu, conv3x3_relu_pool};

pub fn close(what: &str, ours: Tensor<4>, theirs: Tensor<4>) {
    let a = ours.into_data().try_into_vec::<f32>().unwrap();
    let b = theirs.into_data().try_into_vec::<f32>().unwrap();
    assert_eq!(a.len(), b.len(), "{what}: sizes");
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
    let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    assert!(worst <= 1e-4 * scale, "{what}: largest difference {worst} against values up to {scale}");
}

pub fn conv(device: &Device, cin: usize, cout: usize) -> Conv2d {
    Conv2dConfig::new([cin, cout], [3, 3]).with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1)).init(device)
}

#[derive(Clone, Copy, Debug)]
enum Then {
    Nothing,
    Relu,
    ReluPool,
}

/// Forward and all three gradients of `sum(f(x) * r)`, ours against burn's, for `f` = the conv then
/// nothing, a ReLU, or a ReLU and 2×2 max pooling.
fn check_then(n: usize, cin: usize, cout: usize, h: usize, w: usize, then: Then) {
    let device = Device::flex().autodiff();
    device.seed(7);
    let layer = conv(&device, cin, cout);
    let x = Tensor::<4>::random([n, cin, h, w], Distribution::Normal(0.0, 1.0), &device).require_grad();
    let (oh, ow) = if matches!(then, Then::ReluPool) { (h / 2, w / 2) } else { (h, w) };
    let r = Tensor::<4>::random([n, cout, oh, ow], Distribution::Normal(0.0, 1.0), &device);
    let label = format!("N{n} {cin}->{cout} {h}x{w} then {then:?}");

    let (ours, theirs) = match then {
        Then::Nothing => (conv3x3(&layer, x.clone()), layer.forward(x.clone())),
        Then::Relu => (conv3x3_relu(&layer, x.clone()), Relu::new().forward(layer.forward(x.clone()))),
        Then::ReluPool => (
            conv3x3_relu_pool(&layer, x.clone()),
            MaxPool2dConfig::new([2, 2]).init().forward(Relu::new().forward(layer.forward(x.clone()))),
        ),
    };
    close(&format!("{label} forward"), ours.clone(), theirs.clone());

    let g_ours = (ours * r.clone()).sum().backward();
    let g_theirs = (theirs * r).sum().backward();
    close(&format!("{label} d input"), x.grad(&g_ours).unwrap(), x.grad(&g_theirs).unwrap());
    let (wo, wt) = (layer.weight.val().grad(&g_ours).unwrap(), layer.weight.val().grad(&g_theirs).unwrap());
    close(&format!("{label} d weight"), wo, wt);
    let bias = layer.bias.as_ref().unwrap().val();
    let (bo, bt) = (bias.grad(&g_ours).unwrap(), bias.grad(&g_theirs).unwrap());
    close(&format!("{label} d bias"), bo.reshape([1, 1, 1, cout]), bt.reshape([1, 1, 1, cout]));
}

pub fn check(n: usize, cin: usize, cout: usize, h: usize, w: usize) {
    for then in [Then::Nothing, Then::Relu, Then::ReluPool] {
        check_then(n, cin, cout, h, w, then);
    }
}
