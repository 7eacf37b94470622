//! The analysis layer, the highest but for the worker protocol: everything that reads results of
//! several subjects. The Compare page's logic ([`compare`]), share links ([`share`]), the four papers'
//! figures and tables ([`papers`]), and the WorM paper's analyses below.
//!
//! Pure analyses of the WorM paper: neural-population analyses of a network's hidden states
//! (Sec. 5G, 5H; Appendix A4.2–A4.6) and the human-comparison scores (Appendix A2.3, Table A3).
//! Everything here is a plain computation on its arguments; randomness (k-means++, t-SNE) goes through
//! [`crate::rng::Rng`] seeded by the caller.
//!
//! # Definitions
//!
//! **Task variance** ([`tv`], A4.4, after Yang et al. 2019). For hidden unit *i* and task *A*,
//! `TV_i(A)` = mean over time steps *t* of `Var_trials(h_i(t))`, the population variance (ddof 0, as
//! `np.var`) across the task's trials of the unit's activity at step *t*. Steps that fewer than 2 trials
//! reach (trials of variable length) are skipped. [`tv::TaskVarianceAccumulator`] computes it in one
//! streaming pass (Welford per task × step × unit, in f64; memory independent of the trial count).
//!
//! **Normalised TV** ([`tv::normalise_tv`], A4.4): each unit's TV vector divided by its maximum over tasks,
//! so its largest entry is 1. Units whose summed TV is below `max(1e-3 × the largest unit's summed TV,
//! 1e-12)` are *inactive* and excluded from clustering ([`tv::REL_ACTIVE`], [`tv::ABS_ACTIVE`]); Yang
//! uses an absolute 1e-3 on the summed variance, which depends on the activation scale, so a threshold
//! relative to the most active unit is used (with an absolute floor so an all-zero network keeps none).
//!
//! **Fractional task variance** ([`tv::ftv`], A4.4): `FTV_i(A,B) = (TV_i(A) − TV_i(B)) / (TV_i(A) + TV_i(B))`
//! in [−1, 1] (1: selective to A). Units with `TV_i(A) + TV_i(B) = 0` have no FTV and are left out.
//!
//! **Clusters** ([`cluster`], Sec. 5H, A4.4): k-means (k-means++ seeding, best of several seeded
//! restarts by inertia) on the normalised TV rows of the active units; the number of clusters is the k of
//! the highest mean silhouette (Euclidean; a point alone in its cluster scores 0, as scikit-learn). Labels
//! are renumbered in order of first appearance. [`cluster::cluster_profiles`]: each cluster's mean
//! normalised TV per task; [`cluster::order_by_cluster`]: units sorted by cluster (Fig. 5C heat map).
//!
//! **t-SNE** ([`tsne`](mod@tsne), Sec. 5G/A4.3 on probe-step states, Sec. 5H/A4.4 on TV rows): exact van der Maaten
//! t-SNE — per-point Gaussian bandwidth by binary search to the perplexity (lowered to (n−1)/3 for small
//! n), symmetrised P, early exaggeration 12 for the first 250 iterations, momentum 0.5 then 0.8,
//! delta-bar-delta gains (min 0.01), seeded initial layout N(0, 1e-4²).
//!
//! **Lesions** ([`lesion`], A4.5): zeroing the units of one cluster (the paper zeroes their projection
//! weights to the task classifiers; a per-unit 0/1 multiplier on the readout input is the same thing),
//! and the accuracy drop `base − lesioned` per cluster and task (Fig. A6).
//!
//! **Similarity** ([`similarity`]): cosine-similarity matrices of task embeddings (Fig. A13, A4.6) and of
//! hidden states at the serial positions of VSR presentation, averaged over trials (Fig. A5, A4.2).
//!
//! **Human-comparison scores** ([`scores`], A2.3, Table A3): slope difference `A = |(M_A − H_A)/H_A|`
//! with `M_A`, `H_A` least-squares slopes of accuracy against the curve's x (serial position, set size,
//! distractor count), and average accuracy difference `B = |(M_B − H_B)/H_B|` with `M_B`, `H_B` the mean
//! accuracy over the conditions. See [`scores`] for which effects each task reports and how curves are
//! matched; `b_slope` holds the per-condition-slope variant of the A2.3 worked example.

pub mod agreement;
pub mod capacity;
pub mod charts;
pub mod cluster;
pub mod compare;
pub mod dashboard;
pub mod figures;
pub mod lesion;
pub mod papers;
pub mod report;
pub mod retention;
pub mod scores;
pub mod share;
pub mod similarity;
pub mod tsne;
pub mod tv;

pub use charts::record_charts;
pub use cluster::{best_k_clusters, cluster_profiles, kmeans, order_by_cluster, silhouette};
pub use lesion::{accuracy_drop, lesion_mask};
pub use report::{AnalysisInput, NetworkAnalysis, network_analysis, rows_to_unit};
pub use scores::{
    A3_FOLDS, A3_MODELS, A3_STAR_LEVEL, ChanceTest, PUBLISHED_A3, ScoreRow, chance_curves, chance_level,
    enough_eval_trials, published_a3, record_table_a3, record_table_a3_with, slope, table_a3,
};
pub use similarity::{PositionSimilarity, cosine_matrix};
pub use tsne::{TsneConfig, tsne};
pub use tv::{TaskVarianceAccumulator, TvAnalysis, analyse_tv, ftv, histogram, normalise_tv, unit_rows};

/// Squared Euclidean distance.
pub(crate) fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}
