//! `Cmd::Analyse`: the neural analyses of a trained network (paper Fig. 5A–D, A5, A6, A13) by
//! [`wmlab_nn::analyse::analyse_network`] (the same code as `wmlab analyse`), posted as
//! `Event::Analysis`; `Event::AnalysisProgress { stage, done, total }` is posted during every stage.

use burn::prelude::Device;
use wmlab_nn::analyse::analyse_network;
use wmlab_nn::{TrainConfig, WormModel};

use crate::protocol::Event;
use crate::worker::{error, post};

/// Trials per forward batch.
const CHUNK: usize = 8;
/// t-SNE iterations of both embeddings.
const TSNE_ITERATIONS: usize = 1000;

/// Run every analysis of `model` on `n` test trials per task id and post the report.
pub async fn analyse(model: &WormModel, train: &TrainConfig, n: usize, device: &Device) {
    let mut progress = |stage: &str, done: usize, total: usize| {
        post(&Event::AnalysisProgress { stage: stage.to_string(), done, total }, None);
        true
    };
    match analyse_network(model, train, n, CHUNK, TSNE_ITERATIONS, device, &mut progress).await {
        Ok(report) => post(&Event::Analysis { report: Box::new(report) }, None),
        Err(e) => error(e.to_string(), false),
    }
}
