//! The one error of the burn side ([`NnError`]): training, evaluation and analysis, checkpoints, and
//! PyTorch `state_dict` import. Each message says what went wrong in words a person can act on; the CLI
//! and the Networks page show it as it is.

/// Why a step, a checkpoint, an import or an evaluation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NnError {
    /// The loss became NaN or infinite at this step; the model was not updated.
    #[error("loss became {loss} at step {step}: training stopped, the last good checkpoint is kept")]
    NonFinite {
        /// The step whose loss was not finite.
        step: usize,
        /// The loss it gave.
        loss: f32,
    },
    /// The device could not allocate a buffer (a batch or model too large for it); holds its message.
    #[error(
        "the device could not allocate a buffer this large: use fewer trials per step (per_task; `--per-task` in \
         the CLI) or a smaller model. Device error: {0}"
    )]
    OutOfMemory(String),
    /// A device failed: a readback, a lost GPU, no usable adapter; holds its message.
    #[error("device error: {0}")]
    Device(String),
    /// The trials asked for cannot be taken (a replayed record with none of the model's tasks).
    #[error("{0}")]
    Trials(String),
    /// The weights could not be written, read or fitted to the model; holds what burn said, in words.
    #[error("{0}")]
    Weights(String),
    /// The configuration describes a model that cannot be built (or its parameters do not match it).
    #[error("{0}")]
    Model(String),
    /// A checkpoint file or folder cannot be used: unreadable, damaged, of another format.
    #[error("{path}: not a usable checkpoint: {why}")]
    Checkpoint {
        /// The file or folder.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// A checkpoint bundle's bytes are not a usable bundle (format, lengths, checksums).
    #[error(transparent)]
    Bundle(#[from] wmlab_core::networks::BundleError),
    /// A file of a checkpoint folder could not be read; holds the path and the system's message.
    #[error("{0}")]
    Io(String),
    /// The saved optimizer state cannot be read.
    #[error("the checkpoint's optimizer state is unreadable: {0}")]
    Optimizer(String),
    /// A PyTorch `state_dict` is not the authors' model of this memory and capacity; holds which key and
    /// why.
    #[error("{0}")]
    Torch(String),
}

impl NnError {
    /// A device's message, read as out-of-memory where it says it could not allocate a buffer.
    pub fn device(message: impl Into<String>) -> NnError {
        let m = message.into();
        if m.contains("can't allocate buffer") { NnError::OutOfMemory(m) } else { NnError::Device(m) }
    }
}

impl From<NnError> for String {
    fn from(e: NnError) -> String {
        e.to_string()
    }
}
