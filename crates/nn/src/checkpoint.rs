//! Checkpoints: the weights (burn's burnpack record bytes), the configs and the training state.
//! Natively a directory (`model.json`, `train.json`, `state.json`, `weights.bpk`); in the browser (and as
//! a download) one bundle file (`WMLABNN1`, a little-endian u32 JSON length, the JSON, the weights).

use burn::module::Module;
use burn::prelude::*;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};

use crate::model::WormModel;
use crate::train::{TrainConfig, TrainState};

const MAGIC: &[u8; 8] = b"WMLABNN1";

#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub train: TrainConfig,
    pub state: TrainState,
    /// burnpack bytes of the model's parameters.
    pub weights: Vec<u8>,
}

#[derive(Serialize, Deserialize)]
struct Header {
    format: String,
    train: serde_json::Value,
    state: TrainState,
}

impl Checkpoint {
    pub fn from_model(model: &WormModel, train: TrainConfig, state: TrainState) -> Result<Checkpoint, String> {
        let bytes = model.clone().into_record().into_bytes().map_err(|e| e.to_string())?;
        Ok(Checkpoint { train, state, weights: bytes.to_vec() })
    }

    /// The model with these weights on `device`.
    pub fn model(&self, device: &Device) -> Result<WormModel, String> {
        let record =
            ModuleRecord::from_bytes(Bytes::from_bytes_vec(self.weights.clone())).map_err(|e| e.to_string())?;
        self.train.model.init(device).try_load_record(record).map_err(|e| e.to_string())
    }

    /// One file: magic, header length, JSON header, weights.
    pub fn to_bundle(&self) -> Vec<u8> {
        let header = Header {
            format: "wmlab-nn-checkpoint-1".into(),
            train: serde_json::to_value(&self.train).expect("config json"),
            state: self.state.clone(),
        };
        let json = serde_json::to_vec(&header).expect("header json");
        let mut out = Vec::with_capacity(12 + json.len() + self.weights.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&json);
        out.extend_from_slice(&self.weights);
        out
    }

    pub fn from_bundle(bytes: &[u8]) -> Result<Checkpoint, String> {
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err("not a WM Lab network checkpoint".into());
        }
        let n = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
        let json = bytes.get(12..12 + n).ok_or("truncated checkpoint")?;
        let header: Header = serde_json::from_slice(json).map_err(|e| e.to_string())?;
        let train: TrainConfig = serde_json::from_value(header.train).map_err(|e| e.to_string())?;
        Ok(Checkpoint { train, state: header.state, weights: bytes[12 + n..].to_vec() })
    }

    /// Write to a directory (created if missing).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn save_dir(&self, dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let j = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap();
        std::fs::write(dir.join("model.json"), j(serde_json::to_value(&self.train.model).unwrap()))?;
        std::fs::write(dir.join("train.json"), j(serde_json::to_value(&self.train).unwrap()))?;
        std::fs::write(dir.join("state.json"), j(serde_json::to_value(&self.state).unwrap()))?;
        // Write the weights last, via a temporary name, so a crash never leaves a torn checkpoint.
        let tmp = dir.join("weights.bpk.tmp");
        std::fs::write(&tmp, &self.weights)?;
        std::fs::rename(tmp, dir.join("weights.bpk"))
    }

    /// Read a directory written by [`Checkpoint::save_dir`], or a bundle file.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_path(path: &std::path::Path) -> Result<Checkpoint, String> {
        if path.is_file() {
            return Checkpoint::from_bundle(&std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?);
        }
        let read =
            |name: &str| std::fs::read(path.join(name)).map_err(|e| format!("{}: {e}", path.join(name).display()));
        let train: TrainConfig = serde_json::from_slice(&read("train.json")?).map_err(|e| e.to_string())?;
        let state: TrainState = serde_json::from_slice(&read("state.json")?).map_err(|e| e.to_string())?;
        Ok(Checkpoint { train, state, weights: read("weights.bpk")? })
    }
}
