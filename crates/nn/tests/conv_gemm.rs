//! The GPU backends' convolution (`wmlab_nn::conv::gemm`: im2col views and batched matrix products
//! from the backend's own ops, what wgpu, WebGPU and CUDA run) checked on flex against burn's own
//! `Conv2d`: outputs and the three gradients. This binary switches flex to that path for all its
//! tests (a process of its own, so the other test binaries keep flex's kernels).

mod common;

use std::sync::atomic::Ordering;

use common::conv_check::check;
use wmlab_nn::conv::{FLEX_RUNS_GEMM_PATH, gemm};

fn gemm_path(group_floats: usize) {
    FLEX_RUNS_GEMM_PATH.store(true, Ordering::Relaxed);
    gemm::GROUP_FLOATS.store(group_floats, Ordering::Relaxed);
}

/// One test: the path and the group size are process-wide settings.
#[test]
fn gemm_path_matches_burn() {
    gemm_path(0);
    check(2, 3, 4, 5, 7); // odd sides
    check(3, 5, 7, 6, 4); // not square
    check(1, 1, 1, 1, 1); // a 1×1 image: only the centre tap sees data
    check(2, 2, 3, 2, 3);

    // 16×16 pixels: runs of 16 frames in the weight gradient, so 17 frames are padded to 32 with zero
    // frames; a group of 36,864 floats holds one frame (16·9 rows × 256 pixels), rounded up to a run of
    // 16: two groups.
    gemm_path(36_864);
    check(17, 16, 8, 16, 16);
    // 32×32: runs of 4 frames; 9 frames are padded to 12, in groups of one run (forward: 4, 4 and 1).
    gemm_path(3 * 9 * 1024 * 4);
    check(9, 3, 16, 32, 32);
    // groups of one frame in the forward pass and the input gradient (the group is smaller than one)
    gemm_path(1);
    check(5, 4, 6, 8, 8);
}
