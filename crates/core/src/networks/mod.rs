//! The networks as a subject, beside `people/` and `llm/`: the training configuration ([`TrainConfig`],
//! [`ModelConfig`]) and its choices, the edits the Networks page and the CLI make to it ([`Field`],
//! [`Edit`]), the checkpoint format ([`Bundle`]), the shipped models' cards ([`ModelCard`]), a run's
//! validation checks and curves. Plain data, no IO; what travels between the page and the worker is
//! `crate::nn_protocol`.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

mod bundle;
mod card;
pub(crate) mod choices;
mod config;
mod edit;
pub use bundle::{BUNDLE_MAGIC, Bundle, BundleError, BundleHeader, TrainState};
pub use card::{CardEffect, CardError, CardListError, CardTest, ModelCard};
pub use choices::{Arch, Attention, Encoder, ModelError, Preset, SettingsError, lsr_alone, trained_ids};
pub use config::{ModelConfig, N_HEADS, N_TASKS, TrainConfig, WORD_DIM};
pub use edit::{Edit, Field};

use crate::chart::{Chart, Role, Series};

/// A number JSON wrote as `null` (serde_json writes NaN and ±∞ so) reads back as NaN, so a report with
/// no training loss yet (no steps since the last check) survives a message or a checkpoint.
fn nan_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// Result of one validation check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValReport {
    /// Steps done when the check ran.
    pub step: usize,
    /// Mean training loss since the previous check.
    #[serde(deserialize_with = "nan_if_null")]
    pub train_loss: f64,
    /// Validation loss (mean over validation batches of the joint loss).
    #[serde(deserialize_with = "nan_if_null")]
    pub val_loss: f64,
    /// Accuracy per task id (`{"SC": 0.61, …}`).
    pub accuracy: BTreeMap<String, f64>,
    /// Mean of the per-task accuracies.
    #[serde(deserialize_with = "nan_if_null")]
    pub mean_accuracy: f64,
    /// Learning rate after the check.
    #[serde(deserialize_with = "nan_if_null")]
    pub lr: f64,
    /// Whether this check gave the best mean accuracy so far.
    pub best: bool,
    /// Wall-clock seconds of training when the check ran (set by the caller through
    /// `Trainer::elapsed_s`; the trainer reads no clock). Absent in older checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<f64>,
    /// Accuracy per task id as the test scores it (a person's scoring, [`crate::chance`]), which
    /// for SFR, STS and CS differs from `accuracy` (the reference's training-time measure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored_accuracy: Option<BTreeMap<String, f64>>,
    /// Task ids whose scored validation accuracy is above chance (one-sided exact test, p < 0.01).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub above_chance: Option<usize>,
}

/// A run's validation history as a record's training curve (WorM Fig. A4): one point per check, with
/// the trials seen (`trials_per_step` × step); checks whose accuracy is not a number are left out.
pub fn training_curve(history: &[ValReport], trials_per_step: usize) -> Vec<crate::record::TrainPoint> {
    history
        .iter()
        .filter(|h| h.mean_accuracy.is_finite() && h.accuracy.values().all(|v| v.is_finite()))
        .map(|h| crate::record::TrainPoint {
            step: h.step as u64,
            trials: (h.step * trials_per_step) as u64,
            mean_accuracy: h.mean_accuracy,
            accuracy: h.accuracy.clone(),
        })
        .collect()
}

/// Which checkpoint a bundle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckpointKind {
    /// The resume point.
    Latest,
    /// The best so far by validation accuracy.
    Best,
}

impl CheckpointKind {
    /// The name in download file names and messages (`latest`, `best`).
    pub fn as_str(self) -> &'static str {
        match self {
            CheckpointKind::Latest => "latest",
            CheckpointKind::Best => "best",
        }
    }
    /// Where the page keeps it in IndexedDB.
    pub fn key(self) -> &'static str {
        match self {
            CheckpointKind::Latest => "nn/latest",
            CheckpointKind::Best => "nn/best",
        }
    }
}

/// A training run's curves as the Networks page keeps them (saved beside the checkpoints so a reload
/// redraws them): the loss of every step, the validation checks, and the backend that ran them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunCurves {
    /// `(step, loss)` of every training step, as `Event::Step` reports them (the page halves long curves by
    /// averaging neighbouring points).
    pub losses: Vec<(f64, f64)>,
    /// The run's validation checks, oldest first.
    pub vals: Vec<ValReport>,
    /// The backend that ran them (`webgpu`, `cpu`; empty when unknown).
    pub backend: String,
}

impl RunCurves {
    /// Loss against step: every training step (thin) and the validation loss at each check (thick).
    pub fn loss_chart(&self) -> Chart {
        let val = self.vals.iter().map(|r| (r.step as f64, r.val_loss)).collect();
        Chart {
            series: vec![
                Series::new("training (per step)", Role::Reference, self.losses.clone()),
                Series::new("validation", Role::Subject, val),
            ],
            ..Chart::new("Loss", "step", "joint loss")
        }
    }

    /// Validation accuracy against step: the mean over tasks (thick) and each of `tasks` (thin).
    pub fn accuracy_chart(&self, tasks: &[&str]) -> Chart {
        let mut series = vec![Series::new(
            "mean of 14",
            Role::Subject,
            self.vals.iter().map(|r| (r.step as f64, r.mean_accuracy)).collect(),
        )];
        for id in tasks {
            let points = self.vals.iter().filter_map(|r| Some((r.step as f64, *r.accuracy.get(*id)?))).collect();
            series.push(Series::new(*id, Role::Reference, points));
        }
        Chart { y_range: Some((0.0, 1.0)), series, ..Chart::new("Validation accuracy per task", "step", "accuracy") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_becomes_a_training_curve_without_its_missing_numbers() {
        let check = |step: usize, mean: f64| ValReport {
            step,
            train_loss: f64::NAN,
            val_loss: 0.5,
            accuracy: [("VSR".to_string(), mean)].into_iter().collect(),
            mean_accuracy: mean,
            lr: 1e-3,
            best: false,
            elapsed_s: None,
            scored_accuracy: None,
            above_chance: None,
        };
        let curve = training_curve(&[check(10, 0.2), check(20, f64::NAN), check(30, 0.7)], 14);
        assert_eq!(
            curve.iter().map(|p| (p.step, p.trials, p.mean_accuracy)).collect::<Vec<_>>(),
            [(10, 140, 0.2), (30, 420, 0.7)]
        );
        assert_eq!(curve[1].accuracy.get("VSR"), Some(&0.7));
    }
}
