//! Checkpoints: the weights (burn's burnpack record bytes), the configs, the training state and Adam's
//! state (burn's optimizer record, burnpack bytes keyed by parameter id, which the weights carry too).
//! Natively a directory (`model.json`, `train.json`, `state.json`, `optimizer.bpk`, `weights.bpk`); in
//! the browser (and as a download) one bundle file (`WMLABNN1`, a little-endian u32 JSON length, the
//! JSON header, the weights, then the optimizer state; the header gives both lengths).
//!
//! Older checkpoints without optimizer state (format `wmlab-nn-checkpoint-1`: no lengths in the header,
//! everything after it is weights; directories without `optimizer.bpk`) still load: their `optimizer`
//! is `None`, and [`crate::Trainer::resume`] then starts Adam afresh (zero moments).

use burn::module::Module;
use burn::prelude::*;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use wmlab_core::networks::{Bundle, BundleHeader};

use crate::error::NnError;
use crate::model::BuildModel;
use crate::model::WormModel;
use crate::train::{TrainConfig, TrainState};

/// The one-file copy of a checkpoint directory (what the app loads and downloads).
pub const BUNDLE_FILE: &str = "checkpoint.wmlabnn";

#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub train: TrainConfig,
    pub state: TrainState,
    /// burnpack bytes of the model's parameters.
    pub weights: Vec<u8>,
    /// burnpack bytes of Adam's state (moments and step counts per parameter); `None` for a checkpoint
    /// made without it (weights only, e.g. the best model kept for evaluation, or an older checkpoint).
    pub optimizer: Option<Vec<u8>>,
}

impl Checkpoint {
    pub fn from_model(model: &WormModel, train: TrainConfig, state: TrainState) -> Result<Checkpoint, NnError> {
        let bytes = model.clone().into_record().into_bytes().map_err(|e| NnError::Weights(e.to_string()))?;
        Ok(Checkpoint { train, state, weights: bytes.to_vec(), optimizer: None })
    }

    /// Like [`Checkpoint::from_model`], but every parameter is read back with an async readback and
    /// copied into the same model on the CPU (`flex`) before serialising. burn's record serialiser reads
    /// tensors synchronously, which a GPU device in the browser cannot do (WebGPU has no blocking
    /// readback); this path works on every device. The bytes equal those of `from_model`.
    pub async fn from_model_async(
        model: &WormModel,
        train: TrainConfig,
        state: TrainState,
    ) -> Result<Checkpoint, NnError> {
        let mut collect = Collect(Vec::new());
        model.visit(&mut collect);
        let mut values = Vec::with_capacity(collect.0.len());
        for (id, shape, t) in collect.0 {
            let data = t.into_data_async().await.map_err(|e| NnError::device(format!("{e:?}")))?;
            let floats = data.try_to_vec::<f32>().map_err(|e| NnError::Weights(format!("{e:?}")))?;
            values.push((id, TensorData::new(floats, shape)));
        }
        let cpu = Device::flex();
        let mut fill = Fill { values: values.into_iter(), device: cpu.clone(), missing: false };
        let copy = train.model.init(&cpu).map(&mut fill);
        if fill.missing || fill.values.next().is_some() {
            return Err(NnError::Model("the model's parameters did not match its configuration".into()));
        }
        Checkpoint::from_model(&copy, train, state)
    }

    /// The same checkpoint with optimizer state (burnpack bytes of a `ModuleOptimizer` record).
    pub fn with_optimizer(mut self, optimizer: Option<Vec<u8>>) -> Checkpoint {
        self.optimizer = optimizer;
        self
    }

    /// The model with these weights on `device`.
    pub fn model(&self, device: &Device) -> Result<WormModel, NnError> {
        self.train
            .model
            .validate()
            .map_err(|e| NnError::Model(format!("the checkpoint describes an impossible model: {e}")))?;
        let label = self.train.model.label();
        let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(self.weights.clone())).map_err(|e| {
            NnError::Weights(format!(
                "the checkpoint's weights cannot be read ({label}): {}",
                first_error(&e.to_string())
            ))
        })?;
        self.train.model.init(device).try_load_record(record).map_err(|e| {
            NnError::Weights(format!(
                "the checkpoint's weights do not fit the model its header describes ({label}): {}",
                first_error(&e.to_string())
            ))
        })
    }

    /// One file: magic, header length, JSON header, weights, optimizer state (the layout and the
    /// header live in [`wmlab_core::networks::Bundle`], which the page reads too). Without optimizer
    /// state this is exactly format 1.
    pub fn to_bundle(&self) -> Vec<u8> {
        let header = BundleHeader {
            format: String::new(),
            train: self.train.clone(),
            state: self.state.clone(),
            weights_len: None,
            optimizer_len: None,
            weights_crc32: None,
            optimizer_crc32: None,
        };
        Bundle { header, weights: &self.weights, optimizer: self.optimizer.as_deref() }.write()
    }

    /// A checkpoint from a bundle's bytes: the format, lengths, checksums and the model it describes
    /// are checked before anything is built from it.
    pub fn from_bundle(bytes: &[u8]) -> Result<Checkpoint, NnError> {
        let b = Bundle::read(bytes)?;
        let ck = Checkpoint {
            train: b.header.train,
            state: b.header.state,
            weights: b.weights.to_vec(),
            optimizer: b.optimizer.map(<[u8]>::to_vec),
        };
        ck.train
            .model
            .validate()
            .map_err(|e| NnError::Model(format!("the checkpoint describes an impossible model: {e}")))?;
        Ok(ck)
    }

    /// Write to a directory (created if missing).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn save_dir(&self, dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let j = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap();
        // Every file through a temporary name: a crash, or a reader in parallel (a sweep's summary),
        // never meets a torn one.
        let whole = |name: &str, bytes: &[u8]| -> std::io::Result<()> {
            let tmp = dir.join(format!("{name}.tmp"));
            std::fs::write(&tmp, bytes)?;
            std::fs::rename(tmp, dir.join(name))
        };
        whole("model.json", j(serde_json::to_value(&self.train.model).unwrap()).as_bytes())?;
        whole("train.json", j(serde_json::to_value(&self.train).unwrap()).as_bytes())?;
        whole("state.json", j(serde_json::to_value(&self.state).unwrap()).as_bytes())?;
        let opt = dir.join("optimizer.bpk");
        match &self.optimizer {
            Some(o) => {
                let tmp = dir.join("optimizer.bpk.tmp");
                std::fs::write(&tmp, o)?;
                std::fs::rename(tmp, &opt)?;
            }
            None if opt.exists() => std::fs::remove_file(&opt)?,
            None => {}
        }
        // The same checkpoint as one file, for the app's "Load a checkpoint file".
        let tmp = dir.join("checkpoint.wmlabnn.tmp");
        std::fs::write(&tmp, self.to_bundle())?;
        std::fs::rename(tmp, dir.join(BUNDLE_FILE))?;
        // Write the weights last, via a temporary name, so a crash never leaves a torn checkpoint.
        let tmp = dir.join("weights.bpk.tmp");
        std::fs::write(&tmp, &self.weights)?;
        std::fs::rename(tmp, dir.join("weights.bpk"))
    }

    /// Read a directory written by [`Checkpoint::save_dir`], or a bundle file.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_path(path: &std::path::Path) -> Result<Checkpoint, NnError> {
        let named = |why: String| NnError::Checkpoint { path: path.display().to_string(), why };
        if path.is_file() {
            // The size first: a file far larger than any model is refused before it is read.
            let len = std::fs::metadata(path).map_err(|e| named(e.to_string()))?.len();
            if len > MAX_BUNDLE_BYTES {
                return Err(named(format!(
                    "{len} bytes, more than the {} MB of the largest model this app makes",
                    MAX_BUNDLE_BYTES >> 20
                )));
            }
            return Checkpoint::from_bundle(&std::fs::read(path).map_err(|e| named(e.to_string()))?)
                .map_err(|e| named(e.to_string()));
        }
        let read = |name: &str| {
            std::fs::read(path.join(name)).map_err(|e| NnError::Io(format!("{}: {e}", path.join(name).display())))
        };
        let json = |name: &str, e: serde_json::Error| named(format!("{name}: {e}"));
        let train: TrainConfig = serde_json::from_slice(&read("train.json")?).map_err(|e| json("train.json", e))?;
        let state: TrainState = serde_json::from_slice(&read("state.json")?).map_err(|e| json("state.json", e))?;
        let optimizer = if path.join("optimizer.bpk").is_file() { Some(read("optimizer.bpk")?) } else { None };
        train.model.validate().map_err(|e| named(format!("it describes an impossible model: {e}")))?;
        Ok(Checkpoint { train, state, weights: read("weights.bpk")?, optimizer })
    }
}

/// The largest checkpoint file read: the paper's largest model (TRF-1024) with Adam's state is about
/// 0.2 GB; 1 GiB leaves room and refuses a runaway file before it is read.
pub const MAX_BUNDLE_BYTES: u64 = 1 << 30;

/// Collects every float parameter (shape and a flattened handle) in visiting order.
struct Collect(Vec<(burn::module::ParamId, Vec<usize>, Tensor<1>)>);

impl burn::module::ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
        let t = param.val();
        let shape = t.dims().to_vec();
        let n = shape.iter().product::<usize>();
        self.0.push((param.id, shape, t.reshape([n])));
    }
}

/// Replaces every float parameter, in the same visiting order, with the collected values and ids.
struct Fill {
    values: std::vec::IntoIter<(burn::module::ParamId, TensorData)>,
    device: Device,
    missing: bool,
}

impl burn::module::ModuleMapper for Fill {
    fn map_float<const D: usize>(&mut self, param: burn::module::Param<Tensor<D>>) -> burn::module::Param<Tensor<D>> {
        match self.values.next() {
            // Same id as the original parameter: Adam's state is keyed by parameter id.
            Some((id, data)) => burn::module::Param::initialized(id, Tensor::<D>::from_data(data, &self.device)),
            None => {
                self.missing = true;
                param
            }
        }
    }
}

/// The first of burn's record errors (it lists one per tensor), at most 300 characters.
fn first_error(e: &str) -> String {
    let first = e.split_once("[\"").map(|(_, rest)| rest.split("\", \"").next().unwrap_or(rest)).unwrap_or(e);
    let first = first.trim_end_matches("\"]");
    let n = e.matches("shape mismatch").count();
    let mut out: String = first.chars().take(300).collect();
    if n > 1 {
        out.push_str(&format!(" (and {} more)", n - 1));
    }
    out
}
