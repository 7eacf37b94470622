//! The burn configs and their plain-data mirrors in the core (`wmlab_core::nn_messages::{TrainSettings,
//! ModelSettings}`, what the page and the worker exchange): the same fields and JSON, converted here.

use wmlab_core::nn_messages::{ModelSettings, TrainSettings};

use crate::model::ModelConfig;
use crate::train::TrainConfig;

impl From<ModelConfig> for ModelSettings {
    fn from(m: ModelConfig) -> Self {
        let ModelConfig {
            arch,
            capacity,
            conv,
            mem_input,
            frozen_task_embedding,
            trf_layers,
            trf_heads,
            trf_ff,
            trf_dropout,
            xavier,
            spatial,
            encoder,
            attention,
            max_steps,
            word_slots,
        } = m;
        ModelSettings {
            arch,
            capacity,
            spatial,
            encoder,
            attention,
            conv,
            mem_input,
            frozen_task_embedding,
            trf_layers,
            trf_heads,
            trf_ff,
            trf_dropout,
            xavier,
            max_steps,
            word_slots,
        }
    }
}

impl From<ModelSettings> for ModelConfig {
    fn from(m: ModelSettings) -> Self {
        let ModelSettings {
            arch,
            capacity,
            spatial,
            encoder,
            attention,
            conv,
            mem_input,
            frozen_task_embedding,
            trf_layers,
            trf_heads,
            trf_ff,
            trf_dropout,
            xavier,
            max_steps,
            word_slots,
        } = m;
        ModelConfig {
            arch,
            capacity,
            conv,
            mem_input,
            frozen_task_embedding,
            trf_layers,
            trf_heads,
            trf_ff,
            trf_dropout,
            xavier,
            spatial,
            encoder,
            attention,
            max_steps,
            word_slots,
        }
    }
}

impl From<TrainConfig> for TrainSettings {
    fn from(c: TrainConfig) -> Self {
        let TrainConfig {
            model,
            preset,
            steps,
            per_task,
            lr,
            seed,
            train_size,
            val_every,
            val_per_task,
            plateau_factor,
            plateau_patience,
            plateau_threshold,
            tasks,
            grad_clip,
            curriculum,
            multilabel_scale,
            quirks,
            task_settings,
            adam_epsilon,
            reference_init,
            shuffle_epochs,
        } = c;
        TrainSettings {
            model: model.into(),
            tasks,
            grad_clip,
            curriculum,
            multilabel_scale,
            quirks,
            task_settings,
            adam_epsilon,
            reference_init,
            shuffle_epochs,
            preset,
            steps,
            per_task,
            lr,
            seed,
            train_size,
            val_every,
            val_per_task,
            plateau_factor,
            plateau_patience,
            plateau_threshold,
        }
    }
}

impl From<TrainSettings> for TrainConfig {
    fn from(c: TrainSettings) -> Self {
        let TrainSettings {
            model,
            tasks,
            grad_clip,
            curriculum,
            multilabel_scale,
            quirks,
            task_settings,
            preset,
            steps,
            per_task,
            lr,
            seed,
            train_size,
            val_every,
            val_per_task,
            plateau_factor,
            plateau_patience,
            plateau_threshold,
            adam_epsilon,
            reference_init,
            shuffle_epochs,
        } = c;
        TrainConfig {
            model: model.into(),
            preset,
            steps,
            per_task,
            lr,
            seed,
            train_size,
            val_every,
            val_per_task,
            plateau_factor,
            plateau_patience,
            plateau_threshold,
            tasks,
            grad_clip,
            curriculum,
            multilabel_scale,
            quirks,
            task_settings,
            adam_epsilon,
            reference_init,
            shuffle_epochs,
        }
    }
}

#[cfg(test)]
mod tests {
    use wmlab_core::{Quirks, TaskId};

    use super::*;
    use crate::model::{Arch, Attention, Encoder};

    /// Every preset, and a config with every optional field set, make the same JSON as config and as
    /// settings, read back from either side's JSON, and convert back unchanged.
    #[test]
    fn configs_and_settings_are_the_same_data() {
        let mut configs: Vec<TrainConfig> = Vec::new();
        for name in TrainConfig::PRESETS {
            for arch in Arch::ALL {
                configs.push(TrainConfig::preset(name, arch, 96).unwrap());
            }
        }
        let full = TrainConfig::new(
            ModelConfig::new(Arch::Trf, 64)
                .with_spatial(Some(2))
                .with_encoder(Some(Encoder::Pixels))
                .with_attention(Some(Attention::Dot)),
        )
        .with_tasks(Some(vec![TaskId::Vsr, TaskId::Cs]))
        .with_grad_clip(Some(0.5))
        .with_curriculum(Some(100))
        .with_multilabel_scale(Some(2.0))
        .with_quirks(Some(Quirks::parse("cd-size,sts-cue-steps").unwrap()))
        .with_task_settings(Some(vec![("noise_mask".into(), "true".into())]))
        .with_adam_epsilon(Some(1e-8))
        .with_reference_init(Some(true))
        .with_shuffle_epochs(Some(false));
        configs.push(full);
        for c in configs {
            let s = TrainSettings::from(c.clone());
            let (cj, sj) = (serde_json::to_value(&c).unwrap(), serde_json::to_value(&s).unwrap());
            assert_eq!(cj, sj, "{} {:?}: the same JSON", c.preset, c.model.arch);
            assert_eq!(serde_json::from_value::<TrainSettings>(cj).unwrap(), s);
            assert_eq!(serde_json::from_value::<TrainConfig>(sj).unwrap(), c);
            assert_eq!(TrainConfig::from(s), c, "converts back unchanged");
        }
    }
}
