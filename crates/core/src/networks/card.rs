//! A pretrained model's card: an entry of `public/models/index.json` (written by
//! `scripts/research/model-card.py`), which the Networks page lists and shows before a model's weights are
//! fetched.

use serde::{Deserialize, Serialize};

use super::config::TrainConfig;

/// One task id's test result on the card.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CardTest {
    /// The task id (`VSR`, `CD-Color`, …).
    pub task: String,
    /// Test-split accuracy of the id as `wmlab eval` scores it (proportion correct, 0–1).
    pub accuracy: f64,
    /// Expected accuracy of a uniform guesser on the same items.
    pub chance: f64,
    /// Scored responses the accuracy is over.
    pub responses: u64,
    /// One-sided exact p of that many correct under guessing ([`crate::chance`]); below the significance
    /// level, the id counts as above chance.
    pub p_above_chance: f64,
    /// The best accuracy from the current frame alone (`core::chance::memoryless`); absent on cards
    /// made before it.
    pub memoryless: Option<f64>,
    /// One-sided exact p of that many correct for the memoryless subject; absent on cards made before it.
    pub p_above_memoryless: Option<f64>,
}

/// One behavioural effect of the paper, and whether the model shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CardEffect {
    /// The effect's name (`VSR primacy`, `SMU set-size decline`, …).
    pub effect: String,
    /// Whether the network's slope (Table A3's M_A) has the human slope's sign (H_A) and the task is above
    /// chance.
    pub shown: bool,
    /// The two slopes and A as text, and why an effect with the right sign does not count (the task is not
    /// above chance).
    pub detail: String,
}

/// A pretrained model: where its weights are, how it was trained and how it did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelCard {
    /// The bundle's file name under `models/`.
    pub file: String,
    /// The card's heading, as whoever shipped the model wrote it.
    pub title: String,
    /// `TRF-96`.
    pub model: String,
    /// Trained parameters of the model ([`super::ModelConfig::param_count`]).
    pub params: u64,
    /// The preset the run was made from (`quick`, `paper`, … or `custom`).
    pub preset: String,
    /// The trained task ids.
    pub tasks: Vec<String>,
    /// Training steps of the shipped checkpoint (the run's best).
    pub steps: u64,
    /// Training trials seen up to that checkpoint (steps × trials per step).
    pub trials_seen: u64,
    /// Wall-clock seconds of training up to that checkpoint.
    pub wall_time_s: f64,
    /// What it was trained on, as whoever shipped it wrote it.
    pub hardware: String,
    /// What the weights file holds and how large it is, as text.
    pub storage: String,
    /// The run's master seed ([`TrainConfig::seed`]).
    pub seed: u64,
    /// Test-split trials per task id behind `test` (`wmlab eval --n`).
    pub test_trials_per_task: u64,
    /// `8 of 14`.
    pub above_chance: String,
    /// `4 of 14`: above the memoryless baseline too.
    pub shows_memory: String,
    /// The test result of each trained task id.
    pub test: Vec<CardTest>,
    /// The paper's Fig. 4 effects that the trained ids let one measure, each shown or not.
    pub effects: Vec<CardEffect>,
    /// Notes from whoever shipped it (empty when none).
    pub notes: String,
    /// The checkpoint's full training configuration (its `train.json`).
    pub train_config: Option<TrainConfig>,
    /// The CRC-32 of the weights, as the checkpoint's header gives it: a card that names one promises
    /// a checkpoint that carries it (see [`ModelCard::check`]).
    pub weights_crc32: Option<u32>,
}

impl ModelCard {
    /// The list of cards (`models/index.json`), or why it does not read.
    pub fn list(json: &[u8]) -> Result<Vec<ModelCard>, CardListError> {
        serde_json::from_slice(json).map_err(|e| CardListError(e.to_string()))
    }

    /// Whether `bytes` are the checkpoint this card describes: a bundle that reads (its lengths and
    /// checksums hold) and, where the card names the weights' checksum, carries that one. A shipped
    /// model that was damaged in transit, cut, extended or swapped is refused in plain words. The
    /// header of the bundle read, so that it is read once.
    pub fn check(&self, bytes: &[u8]) -> Result<super::BundleHeader, CardError> {
        let file = self.file.clone();
        let bundle = super::Bundle::read(bytes).map_err(|source| CardError::Bundle { file: file.clone(), source })?;
        match (self.weights_crc32, bundle.header.weights_crc32) {
            (Some(want), Some(got)) if want != got => Err(CardError::Other { file, got, want }),
            (Some(_), None) => Err(CardError::NoChecksum { file }),
            _ => Ok(bundle.header),
        }
    }
}

/// Why a shipped model's file is not the one its card describes ([`ModelCard::check`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    /// The file is not a checkpoint that reads (damaged, cut, extended).
    #[error("{file}: {source}")]
    Bundle {
        /// The card's file name.
        file: String,
        /// Why the bundle does not read.
        source: super::BundleError,
    },
    /// Its weights' checksum is another model's.
    #[error("{file} is not the model its card describes (its weights' checksum is {got:08x}, the card's {want:08x})")]
    Other {
        /// The card's file name.
        file: String,
        /// The checksum in the file's header.
        got: u32,
        /// The checksum the card names.
        want: u32,
    },
    /// The file's header has no checksum, though the card names one.
    #[error(
        "{file} carries no checksum of its weights, though its card promises one: the file was replaced or damaged"
    )]
    NoChecksum {
        /// The card's file name.
        file: String,
    },
}

crate::message_into_string!(CardError);

/// Why the list of pretrained models does not read (serde's account of where).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the list of pretrained models could not be read ({0})")]
pub struct CardListError(pub String);

crate::message_into_string!(CardListError);

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped list reads into cards, each with its weights' file and a full training configuration.
    #[test]
    fn the_shipped_model_list_reads() {
        let cards = ModelCard::list(include_bytes!("../../../../public/models/index.json")).unwrap();
        assert!(!cards.is_empty());
        for c in &cards {
            assert!(c.file.ends_with(".wmlabnn") && !c.title.is_empty() && c.params > 0, "{c:?}");
            assert!(!c.test.is_empty() && c.test.iter().all(|t| t.responses > 0 && t.chance > 0.0), "{}", c.file);
            let t = c.train_config.as_ref().expect("the training configuration");
            assert_eq!(t.preset, c.preset, "{}", c.file);
            assert!(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/models").join(&c.file).exists()
            );
        }
        assert!(cards.iter().all(|c| c.weights_crc32.is_some()), "every shipped card names its weights' checksum");
        assert!(
            ModelCard::list(b"{}")
                .unwrap_err()
                .to_string()
                .starts_with("the list of pretrained models could not be read")
        );
    }

    /// Every shipped model keeps its card's promise, and a damaged one is refused: 20 flipped bits in
    /// the weights, bytes appended, a header stripped of its checksum, another model's file.
    #[test]
    fn shipped_models_carry_checksums_and_damage_is_refused() {
        use crate::networks::{BUNDLE_MAGIC, BundleHeader};
        let cards = ModelCard::list(include_bytes!("../../../../public/models/index.json")).unwrap();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/models");
        let read = |c: &ModelCard| std::fs::read(dir.join(&c.file)).unwrap();
        for c in &cards {
            let bytes = read(c);
            c.check(&bytes).unwrap_or_else(|e| panic!("{e}"));
            let (header, start) = BundleHeader::read(&bytes).unwrap();
            assert_eq!(header.weights_len, Some((bytes.len() - start) as u64), "{}", c.file);
            // 20 bits flipped across the weights (a seeded spread, never the same byte twice).
            let mut flipped = bytes.clone();
            let span = bytes.len() - start;
            for k in 0..20 {
                flipped[start + (k * 7919 + 13) % span] ^= 1 << (k % 8);
            }
            let e = c.check(&flipped).unwrap_err().to_string();
            assert!(e.contains("weights are damaged"), "{e}");
            let mut longer = bytes.clone();
            longer.extend(std::iter::repeat_n(0u8, 300));
            assert!(c.check(&longer).unwrap_err().to_string().contains("300 bytes past its end"));
            // The checksum taken out of the header: the card still expects it.
            let json = serde_json::to_vec(&BundleHeader { weights_crc32: None, ..header }).unwrap();
            let mut stripped = BUNDLE_MAGIC.to_vec();
            stripped.extend_from_slice(&(json.len() as u32).to_le_bytes());
            stripped.extend_from_slice(&json);
            stripped.extend_from_slice(&bytes[start..]);
            assert!(c.check(&stripped).unwrap_err().to_string().contains("carries no checksum"), "{}", c.file);
        }
        // Another model's file under this card's name.
        let (a, b) = (&cards[0], &cards[1]);
        assert!(a.check(&read(b)).unwrap_err().to_string().contains("is not the model its card describes"));
    }
}
