//! # wmlab-nn
//!
//! The WorM networks (paper §4, reference implementation §1.3–1.4) in burn 0.22: a conv feature extractor,
//! a task embedding concatenated at every step, a memory (RNN/GRU/LSTM or a causal Transformer) and 10
//! per-task linear heads; joint training over the 14 task ids with masked per-task losses; checkpoints.
//!
//! - [`batch`]: trials → flat arrays (frames, task ids, per-head targets, weights and masks). No burn.
//! - [`model`]: [`model::WormModel`], built from [`model::ModelConfig`] (the core's plain settings,
//!   which the page reads without burn).
//! - [`loss`]: the joint loss and per-task accuracies.
//! - [`lstm`]: the LSTM's recurrence as one operation with its own backward pass (on the GPU
//!   backends two kernels of our own, `lstm_kernel.rs`).
//! - [`conv`]: the ConvNet's 3×3 convolutions (flex's kernels; the GEMM path on the GPU backends).
//! - [`train`]: [`train::TrainConfig`], presets, the async [`train::Trainer`] and [`train::evaluate_rows`].
//! - [`checkpoint`]: weights + configs + state, as a directory or one bundle file.
//! - [`analyse`]: hidden states (task variance, STS probe states, Fig. A5 similarity) and lesions.
//! - [`eval`]: test evaluation as a result record (people encoding, Fig. 4 curves).
//! - [`words`]: LSR's word vectors (the input of an [`Encoder::Words`] model).
//!
//! The code takes a runtime [`burn::prelude::Device`]; natively the tests and the CLI use `flex`.

pub mod analyse;
pub mod batch;
pub mod checkpoint;
#[cfg(feature = "flex")]
pub mod conv;
pub mod dist_attn;
pub mod error;
pub mod eval;
pub mod loss;
#[cfg(feature = "flex")]
pub mod lstm;
#[cfg(all(feature = "flex", any(feature = "wgpu", feature = "cuda")))]
mod lstm_kernel;
pub mod model;
pub mod torch;
pub mod train;
pub mod words;

pub use batch::Batch;
pub use checkpoint::Checkpoint;
pub use error::NnError;
pub use model::{Arch, Attention, BuildModel, Encoder, ModelConfig, WormModel};
pub use train::{Preset, TrainConfig, Trainer, ValReport};

/// The native CPU device used by tests, the CLI and the benchmark.
#[cfg(feature = "flex")]
pub fn cpu_device() -> burn::prelude::Device {
    burn::prelude::Device::flex()
}

/// The native wgpu device (the default adapter; Vulkan/Metal/DX12), initialised synchronously. In the
/// browser use `Device::wgpu_options().init_async().await` instead.
#[cfg(all(feature = "wgpu", not(target_arch = "wasm32")))]
pub fn wgpu_device() -> Result<burn::prelude::Device, NnError> {
    burn::prelude::Device::wgpu_options()
        .init()
        .map_err(|e| NnError::Device(format!("no usable GPU adapter (wgpu): {e:?}")))
}

/// The native CUDA device (the first NVIDIA GPU), initialised synchronously.
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
pub fn cuda_device() -> Result<burn::prelude::Device, NnError> {
    // The device starts on its first operation: one small readback tells whether it can.
    std::panic::catch_unwind(|| {
        let device = burn::prelude::Device::cuda(0);
        let probe = burn::prelude::Tensor::<1>::ones([4], &device).sum().into_scalar::<f32>();
        (probe == 4.0).then_some(device)
    })
    .ok()
    .flatten()
    .ok_or_else(|| NnError::Device("no usable CUDA device (an NVIDIA GPU with its driver and NVRTC is needed)".into()))
}
