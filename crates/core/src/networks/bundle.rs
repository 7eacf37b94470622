//! A checkpoint bundle's header, read in one place: `wmlab_nn::Checkpoint` reads and writes bundles
//! through it, and the Networks page reads it to show what a file or a stored run holds without loading
//! burn. A bundle is `WMLABNN1`, a little-endian u32 JSON length, the JSON header, the weights, then the
//! optimizer state (the header gives both lengths; format 1 has no lengths: everything after the header
//! is weights).

use serde::{Deserialize, Serialize};

use super::ValReport;
use super::config::TrainConfig;

/// The first 8 bytes of every bundle file (formats 1 and 2 alike).
pub const BUNDLE_MAGIC: &[u8; 8] = b"WMLABNN1";

/// Training progress that goes into a checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainState {
    /// Training steps done.
    pub step: usize,
    /// The learning rate now: [`TrainConfig::lr`] after the plateau schedule's cuts.
    pub lr: f64,
    /// The best mean validation accuracy so far (`None` before the first check).
    pub best_mean_accuracy: Option<f64>,
    /// The step of that best check (the `best` checkpoint's step).
    pub best_step: Option<usize>,
    /// The lowest validation loss the plateau schedule has counted as an improvement (`None` before the
    /// first check).
    pub plateau_best_loss: Option<f64>,
    /// Checks since then without a relative improvement by `plateau_threshold`; the learning rate is cut when
    /// they pass `plateau_patience` (and the count restarts).
    pub plateau_bad_checks: usize,
    /// Every validation check of the run up to this checkpoint, oldest first.
    pub history: Vec<ValReport>,
}

/// The JSON header of a bundle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BundleHeader {
    /// `wmlab-nn-checkpoint-1` (weights only) or `-2` (weights and optimizer state, with lengths).
    pub format: String,
    /// The run's training configuration, the model's included: what the weights are rebuilt into.
    pub train: TrainConfig,
    /// Training progress when the checkpoint was taken.
    pub state: TrainState,
    /// Bytes of weights after the header (absent in files written before it: then all the rest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_len: Option<u64>,
    /// Bytes of optimizer state after the weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimizer_len: Option<u64>,
    /// CRC-32 of the weights (absent in files written before it: then nothing is checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_crc32: Option<u32>,
    /// CRC-32 of the optimizer state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimizer_crc32: Option<u32>,
}

/// The formats this version reads.
pub const BUNDLE_FORMATS: [&str; 2] = ["wmlab-nn-checkpoint-1", "wmlab-nn-checkpoint-2"];

/// A bundle split into its parts.
#[derive(Debug, PartialEq)]
pub struct Bundle<'a> {
    /// The bundle's JSON header.
    pub header: BundleHeader,
    /// The model's weights (burn's burnpack record bytes).
    pub weights: &'a [u8],
    /// `None` in a bundle without optimizer state.
    pub optimizer: Option<&'a [u8]>,
}

/// Why bytes are not a checkpoint this version reads (every message says "checkpoint").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    /// Too short for a header, or not starting with [`BUNDLE_MAGIC`].
    #[error(
        "this file is not a WM Lab network checkpoint (it should start with WMLABNN1; download one from the \
         Networks page or write one with `wmlab train`)"
    )]
    NotABundle,
    /// The file ends before the header, or before the lengths the header gives.
    #[error("the checkpoint file is truncated")]
    Truncated,
    /// The JSON header does not read as a [`BundleHeader`]; serde's account of why.
    #[error("the checkpoint's header is damaged or not this app's: {0}")]
    Header(String),
    /// A `format` this version does not read.
    #[error("the checkpoint's format {found:?} is not one this version of WM Lab reads ({known})")]
    Format {
        /// The header's `format`.
        found: String,
        /// The formats this version reads, joined with " or ".
        known: String,
    },
    /// Bytes past the end that the header's lengths give (format 2); how many.
    #[error("the checkpoint has {0} bytes past its end (damaged, or joined with another file)")]
    Trailing(usize),
    /// `what`: "weights" or "optimizer state".
    #[error("the checkpoint's {what} are damaged (their checksum does not match)")]
    Checksum {
        /// The damaged part.
        what: &'static str,
    },
}

crate::message_into_string!(BundleError);

impl BundleHeader {
    /// The header of a bundle and where its body starts; errors in plain words.
    pub fn read(bytes: &[u8]) -> Result<(BundleHeader, usize), BundleError> {
        if bytes.len() < 12 || &bytes[..8] != BUNDLE_MAGIC {
            return Err(BundleError::NotABundle);
        }
        let n = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        let json = bytes.get(12..12 + n).ok_or(BundleError::Truncated)?;
        let header = serde_json::from_slice(json).map_err(|e| BundleError::Header(e.to_string()))?;
        Ok((header, 12 + n))
    }

    /// The step the checkpoint was taken at.
    pub fn step(&self) -> usize {
        self.state.step
    }

    /// The steps its run was set to train.
    pub fn steps(&self) -> usize {
        self.train.steps
    }

    /// `GRU-96 (tiny preset), step 8 of 8`.
    pub fn label(&self) -> String {
        format!("{}, step {} of {}", self.train.label(), self.step(), self.steps())
    }

    /// A file name for a download of this checkpoint of `kind` (`latest`, `best`).
    pub fn file_name(&self, kind: &str) -> String {
        format!(
            "wmlab-{}{}-{kind}-step{}.wmlabnn",
            self.train.model.arch.as_str(),
            self.train.model.capacity,
            self.step()
        )
    }
}

impl<'a> Bundle<'a> {
    /// Split a bundle into header, weights and optimizer state.
    pub fn read(bytes: &'a [u8]) -> Result<Bundle<'a>, BundleError> {
        const TRUNCATED: BundleError = BundleError::Truncated;
        let (header, start) = BundleHeader::read(bytes)?;
        if !BUNDLE_FORMATS.contains(&header.format.as_str()) {
            return Err(BundleError::Format { found: header.format.clone(), known: BUNDLE_FORMATS.join(" or ") });
        }
        let rest = &bytes[start..];
        let (weights, optimizer) = match header.weights_len {
            None => (rest, None),
            Some(w) => {
                let w = usize::try_from(w).map_err(|_| TRUNCATED)?;
                let o = usize::try_from(header.optimizer_len.unwrap_or(0)).map_err(|_| TRUNCATED)?;
                let weights = rest.get(..w).ok_or(TRUNCATED)?;
                let opt = w.checked_add(o).and_then(|end| rest.get(w..end)).ok_or(TRUNCATED)?;
                if rest.len() > w + o {
                    return Err(BundleError::Trailing(rest.len() - w - o));
                }
                (weights, header.optimizer_len.map(|_| opt))
            }
        };
        if header.weights_crc32.is_some_and(|c| c != crate::hash::crc32(weights)) {
            return Err(BundleError::Checksum { what: "weights" });
        }
        if let (Some(c), Some(o)) = (header.optimizer_crc32, optimizer)
            && c != crate::hash::crc32(o)
        {
            return Err(BundleError::Checksum { what: "optimizer state" });
        }
        Ok(Bundle { header, weights, optimizer })
    }

    /// One file: magic, header length, JSON header, weights, optimizer state. The header's format,
    /// lengths and checksums are set from the parts (without optimizer state: format 1, its weights'
    /// length given so that bytes past the end are found).
    pub fn write(&self) -> Vec<u8> {
        let header = BundleHeader {
            format: if self.optimizer.is_some() { "wmlab-nn-checkpoint-2" } else { "wmlab-nn-checkpoint-1" }.into(),
            weights_len: Some(self.weights.len() as u64),
            optimizer_len: self.optimizer.map(|o| o.len() as u64),
            weights_crc32: Some(crate::hash::crc32(self.weights)),
            optimizer_crc32: self.optimizer.map(crate::hash::crc32),
            ..self.header.clone()
        };
        let json = serde_json::to_vec(&header).expect("a header is plain data");
        let opt = self.optimizer.unwrap_or(&[]);
        let mut out = Vec::with_capacity(12 + json.len() + self.weights.len() + opt.len());
        out.extend_from_slice(BUNDLE_MAGIC);
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&json);
        out.extend_from_slice(self.weights);
        out.extend_from_slice(opt);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::networks::choices::tests::settings;

    fn header() -> BundleHeader {
        BundleHeader {
            format: String::new(),
            train: settings(96, 8),
            state: TrainState { step: 5, lr: 1e-3, ..Default::default() },
            weights_len: None,
            optimizer_len: None,
            weights_crc32: None,
            optimizer_crc32: None,
        }
    }

    #[test]
    fn bundles_round_trip_with_and_without_optimizer_state() {
        let h = header();
        let with = Bundle { header: h.clone(), weights: &[1, 2, 3], optimizer: Some(&[9, 9]) };
        let bytes = with.write();
        assert_eq!(&bytes[..8], BUNDLE_MAGIC);
        let back = Bundle::read(&bytes).unwrap();
        assert_eq!((back.weights, back.optimizer), (&[1u8, 2, 3][..], Some(&[9u8, 9][..])));
        assert_eq!((back.header.format.as_str(), back.header.weights_len), ("wmlab-nn-checkpoint-2", Some(3)));
        assert_eq!(back.header.train, h.train);
        // Without optimizer state: format 1, everything after the header is weights.
        let bytes = Bundle { header: h, weights: &[4, 5], optimizer: None }.write();
        let back = Bundle::read(&bytes).unwrap();
        assert_eq!(
            (back.weights, back.optimizer, back.header.format.as_str()),
            (&[4u8, 5][..], None, "wmlab-nn-checkpoint-1")
        );
        assert_eq!(back.header.weights_len, Some(2), "bytes past the end of a format-1 file are found too");
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Bundle::read(&longer).unwrap_err(), BundleError::Trailing(1));
        assert_eq!(back.header.label(), "GRU-96 (tiny preset), step 5 of 8");
        assert_eq!(back.header.file_name("best"), "wmlab-gru96-best-step5.wmlabnn");
    }

    #[test]
    fn a_bad_file_says_what_is_wrong_in_plain_words() {
        let e = BundleHeader::read(b"not a checkpoint").unwrap_err();
        assert_eq!(e, BundleError::NotABundle);
        assert!(e.to_string().contains("not a WM Lab network checkpoint"));
        let bytes = Bundle { header: header(), weights: &[1, 2, 3], optimizer: Some(&[9, 9]) }.write();
        assert_eq!(Bundle::read(&bytes[..bytes.len() - 1]).unwrap_err(), BundleError::Truncated, "optimizer cut short");
        assert_eq!(BundleHeader::read(&bytes[..20]).unwrap_err(), BundleError::Truncated, "header cut short");
        let mut damaged = bytes.clone();
        damaged[14] = b'#';
        assert!(
            BundleHeader::read(&damaged).unwrap_err().to_string().starts_with("the checkpoint's header is damaged")
        );
    }

    /// Bytes whose header says `format` and which otherwise are `bytes`.
    fn with_format(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
        let (h, start) = BundleHeader::read(bytes).unwrap();
        let json = serde_json::to_vec(&BundleHeader { format: h.format.replace(from, to), ..h }).unwrap();
        let mut out = BUNDLE_MAGIC.to_vec();
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&json);
        out.extend_from_slice(&bytes[start..]);
        out
    }

    #[test]
    fn another_format_trailing_bytes_and_flipped_bits_are_refused() {
        let bytes = Bundle { header: header(), weights: &[1, 2, 3, 4], optimizer: Some(&[9, 9]) }.write();
        assert!(Bundle::read(&bytes).is_ok());
        let other = with_format(&bytes, "checkpoint-2", "checkpoint-7");
        assert!(Bundle::read(&other).unwrap_err().to_string().contains("format \"wmlab-nn-checkpoint-7\" is not one"));
        let mut longer = bytes.clone();
        longer.extend_from_slice(&[0; 100]);
        assert!(Bundle::read(&longer).unwrap_err().to_string().contains("100 bytes past its end"));
        let n = bytes.len();
        for (at, what) in [(n - 4, "weights"), (n - 1, "optimizer state")] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x10;
            assert_eq!(
                Bundle::read(&flipped).unwrap_err().to_string(),
                format!("the checkpoint's {what} are damaged (their checksum does not match)")
            );
        }
        // A file written before the checksums (none in its header) still reads.
        let mut old = Bundle { header: header(), weights: &[1, 2], optimizer: None }.write();
        let (h, start) = BundleHeader::read(&old).unwrap();
        let json = serde_json::to_vec(&BundleHeader { weights_crc32: None, ..h }).unwrap();
        let body = old.split_off(start);
        let mut file = BUNDLE_MAGIC.to_vec();
        file.extend_from_slice(&(json.len() as u32).to_le_bytes());
        file.extend_from_slice(&json);
        file.extend_from_slice(&body);
        assert_eq!(Bundle::read(&file).unwrap().weights, &[1, 2]);
    }
}
