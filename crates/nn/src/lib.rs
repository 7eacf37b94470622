//! # wmlab-nn
//!
//! The WorM networks (paper §4, reference implementation §1.3–1.4) in burn 0.22: a conv feature extractor,
//! a task embedding concatenated at every step, a memory (RNN/GRU/LSTM or a causal Transformer) and 10
//! per-task linear heads; joint training over the 14 task ids with masked per-task losses; checkpoints.
//!
//! - [`batch`]: trials → flat arrays (frames, task ids, per-head targets, weights and masks). No burn.
//! - [`model`]: [`model::ModelConfig`] (`#[derive(Config)]`) and [`model::WormModel`].
//! - [`loss`]: the joint loss and per-task accuracies.
//! - [`train`]: [`train::TrainConfig`], presets, the async [`train::Trainer`] and [`train::evaluate`].
//! - [`checkpoint`]: weights + configs + state, as a directory or one bundle file.
//!
//! The code takes a runtime [`burn::prelude::Device`]; natively the tests and the CLI use `flex`.

pub mod batch;
pub mod checkpoint;
pub mod loss;
pub mod model;
pub mod train;

pub use batch::Batch;
pub use checkpoint::Checkpoint;
pub use model::{Arch, ModelConfig, WormModel};
pub use train::{TrainConfig, Trainer, ValReport};

/// The native CPU device used by tests, the CLI and the benchmark.
#[cfg(feature = "flex")]
pub fn cpu_device() -> burn::prelude::Device {
    burn::prelude::Device::flex()
}
