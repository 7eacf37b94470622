//! A pretrained model's card: an entry of `public/models/index.json` (written by
//! `scripts/research/model-card.py`), which the Networks page lists and shows before a model's weights are
//! fetched.

use serde::{Deserialize, Serialize};

use super::config::TrainConfig;

/// One task id's test result on the card.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CardTest {
    pub task: String,
    pub accuracy: f64,
    pub chance: f64,
    pub responses: u64,
    pub p_above_chance: f64,
    /// The best accuracy from the current frame alone (`core::chance::memoryless`); absent on cards
    /// made before it.
    pub memoryless: Option<f64>,
    pub p_above_memoryless: Option<f64>,
}

/// One behavioural effect of the paper, and whether the model shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CardEffect {
    pub effect: String,
    pub shown: bool,
    pub detail: String,
}

/// A pretrained model: where its weights are, how it was trained and how it did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelCard {
    /// The bundle's file name under `models/`.
    pub file: String,
    pub title: String,
    /// `TRF-96`.
    pub model: String,
    pub params: u64,
    pub preset: String,
    pub tasks: Vec<String>,
    pub steps: u64,
    pub trials_seen: u64,
    pub wall_time_s: f64,
    pub hardware: String,
    pub storage: String,
    pub seed: u64,
    pub test_trials_per_task: u64,
    /// `8 of 14`.
    pub above_chance: String,
    /// `4 of 14`: above the memoryless baseline too.
    pub shows_memory: String,
    pub test: Vec<CardTest>,
    pub effects: Vec<CardEffect>,
    pub notes: String,
    pub train_config: Option<TrainConfig>,
}

impl ModelCard {
    /// The list of cards (`models/index.json`), or why it does not read.
    pub fn list(json: &[u8]) -> Result<Vec<ModelCard>, CardListError> {
        serde_json::from_slice(json).map_err(|e| CardListError(e.to_string()))
    }
}

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
        assert!(
            ModelCard::list(b"{}")
                .unwrap_err()
                .to_string()
                .starts_with("the list of pretrained models could not be read")
        );
    }
}
