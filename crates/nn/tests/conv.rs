//! The ConvNet's flex kernels (`wmlab_nn::conv`, im2col + GEMM) against burn's own `Conv2d`: the same
//! outputs and the same gradients for the input, the weight and the bias, on shapes that take one
//! group of frames and several (with a partial last group), square and not.

mod common;

use burn::nn::conv::Conv2dConfig;
use burn::prelude::*;
use burn::tensor::Distribution;
use common::conv_check::{check, close, conv};
use wmlab_nn::conv::{conv3x3, conv3x3_relu, is_flex};

#[test]
fn small_shapes_match_burn() {
    check(2, 3, 4, 5, 7); // odd sides: pooling drops the last row and column
    check(2, 3, 4, 5, 5);
    check(3, 5, 7, 6, 4); // not square
    check(1, 1, 1, 1, 1); // a 1×1 image: only the centre tap sees data
    check(2, 2, 3, 2, 3);
}

#[test]
fn several_groups_match_burn() {
    // K·p = 64·9 · 32·32 = 589,824 floats a frame, over a group's 524,288: one frame a group, 9 groups.
    check(9, 64, 16, 32, 32);
    // K·p = 16·9 · 16·16 = 36,864: 14 frames a group, so 17 frames are 14 + 3.
    check(17, 16, 8, 16, 16);
    // 35 one-frame groups: the weight gradient sums them in runs of 3 (12 runs, the last of 2).
    check(35, 64, 4, 32, 32);
}

#[test]
fn untracked_forward_matches_burn_and_wgpu_devices_fall_back() {
    let device = Device::flex();
    assert!(is_flex(&device) && is_flex(&device.clone().autodiff()));
    let layer = conv(&device, 4, 6);
    let x = Tensor::<4>::random([3, 4, 8, 8], Distribution::Normal(0.0, 1.0), &device);
    close("inference", conv3x3(&layer, x.clone()), layer.forward(x));
    // A layer that is not 3×3 "same" takes burn's conv (and gives its output shape).
    let wide = Conv2dConfig::new([4, 2], [3, 3]).init(&device); // no padding
    let x = Tensor::<4>::random([1, 4, 8, 8], Distribution::Normal(0.0, 1.0), &device);
    assert_eq!(conv3x3(&wide, x).dims(), [1, 2, 6, 6]);
}

/// The gradients are the same bits whatever the number of threads: the weight gradient's sum over
/// groups of frames is cut into a fixed number of runs, not one per thread (a run resumed with other
/// threads on the same CPU repeats its steps exactly).
#[test]
fn gradients_do_not_depend_on_the_thread_count() {
    let grads = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            // (values from a local generator: the device's random stream is shared with the tests
            // running beside this one)
            let device = Device::flex().autodiff();
            let mut state = 11u64;
            let mut values = |shape: [usize; 4]| {
                let v: Vec<f32> = (0..shape.iter().product::<usize>())
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
                    })
                    .collect();
                Tensor::<4>::from_data(TensorData::new(v, shape), &device)
            };
            let x = values([35, 64, 32, 32]).require_grad();
            let r = values([35, 4, 32, 32]);
            let mut layer = conv(&device, 64, 4);
            layer.weight = layer.weight.map(|_| values([4, 64, 3, 3]).require_grad());
            let bias = layer.bias.take().unwrap();
            layer.bias = Some(bias.map(|_| values([1, 1, 1, 4]).reshape([4]).require_grad()));
            let g = (conv3x3_relu(&layer, x.clone()) * r).sum().backward();
            let w = layer.weight.val().grad(&g).unwrap().into_data().try_into_vec::<f32>().unwrap();
            let dx = x.grad(&g).unwrap().into_data().try_into_vec::<f32>().unwrap();
            (w, dx)
        })
    };
    let one = grads(1);
    assert!(one.0.iter().any(|&v| v != 0.0), "a zero weight gradient tests nothing");
    for threads in [2, 5] {
        let other = grads(threads);
        assert!(one.0 == other.0, "weight gradient differs between 1 and {threads} threads");
        assert!(one.1 == other.1, "input gradient differs between 1 and {threads} threads");
    }
}
