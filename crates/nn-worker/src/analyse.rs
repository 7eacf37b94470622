//! `Cmd::Analyse`: the neural analyses of a trained network (paper Fig. 5A–D, A5, A6, A13). Hidden
//! states over the test trials ([`wmlab_nn::analyse::collect_hidden`]) → the core's report
//! ([`wmlab_core::analysis::network_analysis`]: TV, clusters, t-SNE, FTV, STS embedding, similarity) →
//! accuracies of the intact network and with each cluster lesioned → `Event::Analysis`.
//! `Event::AnalysisProgress { stage, done, total }` is posted during every stage.

use burn::prelude::Device;
use wmlab_core::analysis::{AnalysisInput, network_analysis};
use wmlab_nn::analyse::{collect_hidden, family_accuracy, lesion_accuracies};
use wmlab_nn::{TrainConfig, WormModel};

use crate::protocol::Event;
use crate::worker::{error, post};

/// Trials per forward batch.
const CHUNK: usize = 8;
/// t-SNE iterations of both embeddings.
const TSNE_ITERATIONS: usize = 1000;

fn progress(stage: &str, done: usize, total: usize) {
    post(&Event::AnalysisProgress { stage: stage.to_string(), done, total }, None);
}

/// Run every analysis of `model` on `n` test trials per task id and post the report.
pub async fn analyse(model: &WormModel, train: &TrainConfig, n: usize, device: &Device) {
    let n = n.max(2);
    let mut p = |d: usize, t: usize| {
        progress("hidden", d, t);
        true
    };
    let stats = match collect_hidden(model, train, n, CHUNK, device, &mut p).await {
        Ok(Some(s)) => s,
        Ok(None) => return error("analysis cancelled", false),
        Err(e) => return error(format!("analysis failed (hidden states): {e}"), false),
    };
    let emb: Vec<Vec<f64>> = stats.task_embedding.iter().map(|r| r.iter().map(|&x| x as f64).collect()).collect();
    let input = AnalysisInput {
        families: &stats.families,
        tv: &stats.tv,
        sts_units: stats.sts.units,
        sts_states: &stats.sts.states,
        sts_answer: &stats.sts.answer,
        sts_rule: &stats.sts.rule,
        tasks: &stats.first_item_tasks,
        first_item: &stats.first_item,
        task_embedding: &emb,
        vsr_position_similarity: &stats.vsr_position_similarity,
        seed: train.seed,
        tsne_iterations: TSNE_ITERATIONS,
    };
    // t-SNE runs synchronously; report every 50 iterations.
    let mut tp = |stage: &str, d: usize, t: usize| {
        if d % 50 == 0 || d + 1 == t {
            progress(stage, d, t);
        }
        true
    };
    let Some(mut report) = network_analysis(&input, &mut tp) else { return error("analysis cancelled", false) };
    // Lesions: the intact network first, then one mask per cluster.
    let mut masks = vec![vec![1.0f32; train.model.capacity]];
    masks.extend(report.lesion_masks());
    let mut lp = |d: usize, t: usize| {
        progress("lesions", d, t);
        true
    };
    match lesion_accuracies(model, train, &masks, n, CHUNK, device, &mut lp).await {
        Ok(Some(accs)) => {
            let mut fam: Vec<Vec<Option<f64>>> = accs.iter().map(family_accuracy).collect();
            let base = fam.remove(0);
            report.add_lesions(base, fam);
        }
        Ok(None) => return error("analysis cancelled", false),
        Err(e) => return error(format!("analysis failed (lesions): {e}"), false),
    }
    match serde_json::to_value(&report) {
        Ok(v) => post(&Event::Analysis { report: v }, None),
        Err(e) => error(format!("the analysis could not be saved: {e}"), false),
    }
}
