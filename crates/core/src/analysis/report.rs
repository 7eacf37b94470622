//! The whole neural analysis of one trained network as one serialisable report (Fig. 5A–D, A5, A6,
//! A13): built by [`network_analysis`] from the network's bounded hidden-state summaries (plain vectors,
//! so the core does not depend on the network crate), and completed with lesion results by
//! [`NetworkAnalysis::add_lesions`] once the lesioned accuracies are known.

use serde::{Deserialize, Serialize};

use super::lesion::{accuracy_drop, lesion_mask};
use super::similarity::cosine_matrix;
use super::tsne::{TsneConfig, tsne};
use super::tv::{analyse_tv, ftv, histogram, unit_rows};

/// Bins of each FTV histogram over [−1, 1].
pub const FTV_BINS: usize = 20;
/// At most this many STS probe states go into the Fig. 5A embedding (evenly subsampled).
pub const STS_MAX_POINTS: usize = 300;
/// Tried numbers of clusters (limited to n − 1 by the clustering).
pub const K_RANGE: std::ops::RangeInclusive<usize> = 2..=12;
/// A cluster *prefers* the tasks whose mean normalised TV is at least this (and always its top task).
pub const PREFERRED: f64 = 0.5;

/// The inputs of [`network_analysis`] (the fields of `wmlab_nn::analyse::HiddenStats`).
#[derive(Clone, Debug, Default)]
pub struct AnalysisInput<'a> {
    /// Family names, rows of `tv` (10).
    pub families: &'a [String],
    /// Task variance, families × units.
    pub tv: &'a [Vec<f64>],
    /// Units per STS state.
    pub sts_units: usize,
    /// STS probe states, `[points × sts_units]` row-major.
    pub sts_states: &'a [f32],
    /// Correct answer per STS point (0/1).
    pub sts_answer: &'a [u8],
    /// Rule in force per STS point (0 up/down, 1 left/right).
    pub sts_rule: &'a [u8],
    /// Task ids of the first-item and task-embedding rows (14).
    pub tasks: &'a [String],
    /// Mean state at the first item, per task id.
    pub first_item: &'a [Vec<f64>],
    /// Task-embedding vectors, per task id.
    pub task_embedding: &'a [Vec<f64>],
    /// Fig. A5 serial-position similarity of VSR (passed through).
    pub vsr_position_similarity: &'a [Vec<Option<f64>>],
    /// Seed of k-means and t-SNE.
    pub seed: u64,
    /// t-SNE iterations (1000 in the paper's defaults).
    pub tsne_iterations: usize,
}

/// One cluster of units (Fig. 5B legend).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterInfo {
    /// Active units in the cluster.
    pub size: usize,
    /// Mean normalised TV per family.
    pub profile: Vec<f64>,
    /// Family indices it prefers, strongest first.
    pub preferred: Vec<usize>,
}

/// The FTV histogram of one pair of families (Fig. 5D).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FtvPair {
    /// Index of the first family in [`NetworkAnalysis::families`] (`a < b`).
    pub a: usize,
    /// Index of the second family.
    pub b: usize,
    /// Counts in [`FTV_BINS`] bins over [−1, 1] (FTV = 1: selective to `a`).
    pub counts: Vec<u32>,
}

/// The Fig. 5A embedding of STS probe states.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StsEmbedding {
    /// t-SNE position of each plotted probe state (at most [`STS_MAX_POINTS`], evenly subsampled).
    pub xy: Vec<[f64; 2]>,
    /// Correct answer at each plotted state (0/1), in `xy`'s order.
    pub answer: Vec<u8>,
    /// Rule in force at each plotted state (0 up/down, 1 left/right), in `xy`'s order.
    pub rule: Vec<u8>,
    /// Probe states before subsampling.
    pub total: usize,
}

/// Accuracy under lesions of each cluster (Fig. A6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LesionReport {
    /// Accuracy per family, intact network.
    pub base: Vec<Option<f64>>,
    /// Accuracy per cluster × family with the cluster's units zeroed.
    pub lesioned: Vec<Vec<Option<f64>>>,
    /// `base − lesioned`, cluster × family.
    pub drop: Vec<Vec<Option<f64>>>,
}

/// The report (see the module notes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetworkAnalysis {
    /// Task family names (the 10 tasks, CD ids pooled), in the order of every per-family row and index here.
    pub families: Vec<String>,
    /// All units C.
    pub units: usize,
    /// Active units, in cluster order (columns of `tv_sorted`).
    pub columns: Vec<usize>,
    /// Cluster of each column.
    pub column_cluster: Vec<usize>,
    /// Normalised TV, families × columns (Fig. 5C).
    pub tv_sorted: Vec<Vec<f64>>,
    /// Number of clusters: the k in [`K_RANGE`] with the best mean silhouette (1 with under 3 active units,
    /// 0 with none).
    pub k: usize,
    /// Mean silhouette per tried k.
    pub silhouettes: Vec<(usize, f64)>,
    /// One per cluster, indexed by the labels in `column_cluster` (Fig. 5B legend).
    pub clusters: Vec<ClusterInfo>,
    /// t-SNE of the normalised TV vectors, per column (Fig. 5B).
    pub unit_xy: Vec<[f64; 2]>,
    /// FTV histograms of every pair a < b.
    pub ftv: Vec<FtvPair>,
    /// The Fig. 5A t-SNE of STS probe-step states.
    pub sts: StsEmbedding,
    /// Task ids (14) of the rows and columns of `task_embedding_cos` and `first_item_cos`.
    pub tasks: Vec<String>,
    /// Cosine similarity of task embeddings (Fig. A13).
    pub task_embedding_cos: Vec<Vec<f64>>,
    /// Cosine similarity of first-item states (Fig. A5).
    pub first_item_cos: Vec<Vec<f64>>,
    /// Fig. A5: mean cosine similarity of VSR hidden states at serial positions i and j (`None` where no
    /// trial had both; empty when the JSON has none).
    #[serde(default)]
    pub vsr_position_similarity: Vec<Vec<Option<f64>>>,
    /// Accuracies with each cluster lesioned (Fig. A6): `None` until [`NetworkAnalysis::add_lesions`].
    #[serde(default)]
    pub lesion: Option<LesionReport>,
}

/// Evenly spaced indices: at most `max` of `0..n`.
fn subsample(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    (0..max).map(|i| i * n / max).collect()
}

/// Each row scaled to [0, 1] by its own minimum and maximum, as the paper draws Fig. A13 (the task
/// embeddings' cosine similarities); a row with one value throughout becomes all 0. The report keeps
/// the raw matrix; this is for drawing.
pub fn rows_to_unit(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    m.iter()
        .map(|row| {
            let lo = row.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            row.iter().map(|&v| if hi > lo { (v - lo) / (hi - lo) } else { 0.0 }).collect()
        })
        .collect()
}

/// Build the report. `progress(stage, done, total)` is called during the t-SNE stages (`tsne-units`,
/// `tsne-sts`); returning false cancels (→ `None`).
pub fn network_analysis(
    input: &AnalysisInput,
    progress: &mut dyn FnMut(&str, usize, usize) -> bool,
) -> Option<NetworkAnalysis> {
    let nf = input.tv.len();
    let units = input.tv.first().map_or(0, |r| r.len());
    let tva = analyse_tv(input.tv, K_RANGE, input.seed);
    // Columns in cluster order: position in `kept` of each ordered unit.
    let pos_of: std::collections::HashMap<usize, usize> = tva.kept.iter().enumerate().map(|(i, &u)| (u, i)).collect();
    let columns = tva.order.clone();
    let column_cluster: Vec<usize> = columns.iter().map(|u| tva.labels[pos_of[u]]).collect();
    let tv_sorted: Vec<Vec<f64>> = tva.tv_norm.iter().map(|row| columns.iter().map(|&u| row[u]).collect()).collect();
    let mut sizes = vec![0usize; tva.k];
    for &l in &tva.labels {
        if l < sizes.len() {
            sizes[l] += 1;
        }
    }
    let clusters = tva
        .profiles
        .iter()
        .zip(&sizes)
        .map(|(p, &size)| {
            let mut idx: Vec<usize> = (0..p.len()).collect();
            idx.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
            let preferred =
                idx.iter().enumerate().filter(|&(r, &f)| r == 0 || p[f] >= PREFERRED).map(|(_, &f)| f).collect();
            ClusterInfo { size, profile: p.clone(), preferred }
        })
        .collect();
    // t-SNE of the kept units' normalised TV, then reordered to columns.
    let rows = unit_rows(&tva.tv_norm, &tva.kept);
    let cfg = TsneConfig { iterations: input.tsne_iterations, seed: input.seed, ..TsneConfig::default() };
    let xy = tsne(&rows, &cfg, &mut |d, t| progress("tsne-units", d, t))?;
    let unit_xy = columns.iter().map(|u| xy[pos_of[u]]).collect();
    let mut ftv_pairs = Vec::new();
    for a in 0..nf {
        for b in a + 1..nf {
            ftv_pairs.push(FtvPair { a, b, counts: histogram(&ftv(input.tv, a, b, &tva.kept), FTV_BINS, -1.0, 1.0) });
        }
    }
    // STS embedding.
    let c = input.sts_units;
    let total =
        input.sts_states.len().checked_div(c).unwrap_or(0).min(input.sts_answer.len()).min(input.sts_rule.len());
    let pick = subsample(total, STS_MAX_POINTS);
    let pts: Vec<Vec<f64>> =
        pick.iter().map(|&i| input.sts_states[i * c..(i + 1) * c].iter().map(|&x| x as f64).collect()).collect();
    let sxy = tsne(&pts, &cfg, &mut |d, t| progress("tsne-sts", d, t))?;
    let sts = StsEmbedding {
        xy: sxy,
        answer: pick.iter().map(|&i| input.sts_answer[i]).collect(),
        rule: pick.iter().map(|&i| input.sts_rule[i]).collect(),
        total,
    };
    Some(NetworkAnalysis {
        families: input.families.to_vec(),
        units,
        columns,
        column_cluster,
        tv_sorted,
        k: tva.k,
        silhouettes: tva.silhouettes,
        clusters,
        unit_xy,
        ftv: ftv_pairs,
        sts,
        tasks: input.tasks.to_vec(),
        task_embedding_cos: cosine_matrix(input.task_embedding),
        first_item_cos: cosine_matrix(input.first_item),
        vsr_position_similarity: input.vsr_position_similarity.to_vec(),
        lesion: None,
    })
}

impl NetworkAnalysis {
    /// One lesion mask per cluster (1 keep, 0 lesion; length `units`).
    pub fn lesion_masks(&self) -> Vec<Vec<f32>> {
        (0..self.k).map(|c| lesion_mask(self.units, &self.columns, &self.column_cluster, c)).collect()
    }

    /// Record the accuracies per family of the intact network (`base`) and with each cluster lesioned
    /// (`lesioned[cluster]`, in the order of [`Self::lesion_masks`]).
    pub fn add_lesions(&mut self, base: Vec<Option<f64>>, lesioned: Vec<Vec<Option<f64>>>) {
        let drop = accuracy_drop(&base, &lesioned);
        self.lesion = Some(LesionReport { base, lesioned, drop });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// `per` units selective to each of `nf` families (TV ≈ 1 for it, 0 elsewhere, a little noise on
    /// the selective value), interleaved so clusters are not contiguous in unit order.
    fn selective_tv(nf: usize, per: usize, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = Rng::from_u64(seed);
        let units = nf * per;
        let mut tv = vec![vec![0.0; units]; nf];
        for u in 0..units {
            tv[u % nf][u] = 1.0 + 0.1 * rng.unit_f64();
        }
        tv
    }

    fn input<'a>(
        families: &'a [String],
        tv: &'a [Vec<f64>],
        sts: &'a [f32],
        ans: &'a [u8],
        rule: &'a [u8],
        tasks: &'a [String],
        first: &'a [Vec<f64>],
        emb: &'a [Vec<f64>],
    ) -> AnalysisInput<'a> {
        AnalysisInput {
            families,
            tv,
            sts_units: 2,
            sts_states: sts,
            sts_answer: ans,
            sts_rule: rule,
            tasks,
            first_item: first,
            task_embedding: emb,
            vsr_position_similarity: &[],
            seed: 3,
            tsne_iterations: 300,
        }
    }

    #[test]
    fn selective_units_form_one_cluster_per_family() {
        let nf = 4;
        let tv = selective_tv(nf, 5, 1);
        let families: Vec<String> = (0..nf).map(|f| format!("T{f}")).collect();
        // STS: two well-separated groups by answer.
        let mut sts = Vec::new();
        let (mut ans, mut rule) = (Vec::new(), Vec::new());
        for i in 0..40 {
            let a = (i % 2) as u8;
            sts.extend_from_slice(&[a as f32 * 10.0 + (i as f32) * 0.01, 0.5]);
            ans.push(a);
            rule.push((i / 20) as u8);
        }
        let tasks: Vec<String> = vec!["A".into(), "B".into(), "C".into()];
        let emb = vec![vec![1.0, 0.0], vec![2.0, 0.0], vec![0.0, 1.0]];
        let first = vec![vec![1.0, 1.0], vec![-1.0, -1.0], vec![1.0, 0.0]];
        let mut stages = std::collections::BTreeSet::new();
        let r = network_analysis(&input(&families, &tv, &sts, &ans, &rule, &tasks, &first, &emb), &mut |s, _, _| {
            stages.insert(s.to_string());
            true
        })
        .expect("not cancelled");
        assert_eq!(stages.into_iter().collect::<Vec<_>>(), vec!["tsne-sts", "tsne-units"]);
        assert_eq!(r.k, nf);
        assert_eq!(r.units, nf * 5);
        assert_eq!(r.columns.len(), nf * 5);
        // Each cluster: 5 units, all selective to one family, which it prefers alone.
        let mut prefs: Vec<usize> = r
            .clusters
            .iter()
            .map(|c| {
                assert_eq!(c.size, 5);
                assert_eq!(c.preferred.len(), 1);
                c.preferred[0]
            })
            .collect();
        prefs.sort();
        assert_eq!(prefs, (0..nf).collect::<Vec<_>>());
        for (col, &u) in r.columns.iter().enumerate() {
            let fam = u % nf;
            assert_eq!(r.clusters[r.column_cluster[col]].preferred, vec![fam]);
            // Sorted heat map: 1 at the unit's family, 0 elsewhere.
            for f in 0..nf {
                assert_eq!(r.tv_sorted[f][col], if f == fam { 1.0 } else { 0.0 });
            }
        }
        // Columns are grouped by cluster.
        assert!(r.column_cluster.windows(2).all(|w| w[0] <= w[1]));
        // FTV: every unit of a pair's families is at ±1; the others (TV 0 in both) are left out.
        assert_eq!(r.ftv.len(), nf * (nf - 1) / 2);
        for p in &r.ftv {
            let mut want = vec![0u32; FTV_BINS];
            want[FTV_BINS - 1] = 5;
            want[0] = 5;
            assert_eq!(p.counts, want, "pair {} {}", p.a, p.b);
        }
        // t-SNE: units of one cluster lie closer to each other than to the others' centroid.
        let centroid = |c: usize| {
            let pts: Vec<&[f64; 2]> =
                r.unit_xy.iter().zip(&r.column_cluster).filter(|&(_, &l)| l == c).map(|(p, _)| p).collect();
            let n = pts.len() as f64;
            [pts.iter().map(|p| p[0]).sum::<f64>() / n, pts.iter().map(|p| p[1]).sum::<f64>() / n]
        };
        let cents: Vec<[f64; 2]> = (0..r.k).map(centroid).collect();
        for (p, &l) in r.unit_xy.iter().zip(&r.column_cluster) {
            let d = |c: &[f64; 2]| (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2);
            let own = d(&cents[l]);
            assert!(cents.iter().enumerate().all(|(j, c)| j == l || d(c) > own));
        }
        // STS embedding: all 40 points (below the cap), labels kept in order.
        assert_eq!(r.sts.total, 40);
        assert_eq!(r.sts.xy.len(), 40);
        assert_eq!(r.sts.answer, ans);
        assert_eq!(r.sts.rule, rule);
        // Cosine matrices.
        assert_eq!(r.task_embedding_cos, vec![vec![1.0, 1.0, 0.0], vec![1.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]]);
        assert!((r.first_item_cos[0][1] + 1.0).abs() < 1e-12);
        assert!((r.first_item_cos[0][2] - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        // Serialises and reads back.
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<NetworkAnalysis>(&json).unwrap(), r);
    }

    #[test]
    fn lesioning_a_cluster_drops_only_its_family() {
        let nf = 3;
        let tv = selective_tv(nf, 4, 2);
        let families: Vec<String> = (0..nf).map(|f| format!("T{f}")).collect();
        let mut r =
            network_analysis(&input(&families, &tv, &[], &[], &[], &[], &[], &[]), &mut |_, _, _| true).unwrap();
        assert_eq!(r.k, nf);
        assert!(r.sts.xy.is_empty());
        let masks = r.lesion_masks();
        assert_eq!(masks.len(), nf);
        // Constructed accuracy table: a family's accuracy is 0.9 if all its units are intact, else 0.3.
        let base = vec![Some(0.9); nf];
        let lesioned: Vec<Vec<Option<f64>>> = masks
            .iter()
            .map(|m| {
                assert_eq!(m.len(), nf * 4);
                assert_eq!(m.iter().filter(|&&x| x == 0.0).count(), 4);
                (0..nf)
                    .map(|f| Some(if (0..nf * 4).filter(|u| u % nf == f).all(|u| m[u] == 1.0) { 0.9 } else { 0.3 }))
                    .collect()
            })
            .collect();
        r.add_lesions(base, lesioned);
        let l = r.lesion.as_ref().unwrap();
        for (c, row) in l.drop.iter().enumerate() {
            let fam = r.clusters[c].preferred[0];
            for (f, d) in row.iter().enumerate() {
                let want = if f == fam { 0.6 } else { 0.0 };
                assert!((d.unwrap() - want).abs() < 1e-12, "cluster {c} family {f}: {d:?}");
            }
        }
    }

    #[test]
    fn sts_is_subsampled_and_cancel_stops() {
        let n = 700;
        let sts: Vec<f32> = (0..n * 2).map(|i| (i % 7) as f32).collect();
        let ans: Vec<u8> = (0..n).map(|i| (i % 2) as u8).collect();
        let tv = selective_tv(2, 3, 4);
        let fam = vec!["A".to_string(), "B".to_string()];
        let mut inp = input(&fam, &tv, &sts, &ans, &ans, &[], &[], &[]);
        inp.tsne_iterations = 5;
        let r = network_analysis(&inp, &mut |_, _, _| true).unwrap();
        assert_eq!(r.sts.total, n);
        assert_eq!(r.sts.xy.len(), STS_MAX_POINTS);
        assert_eq!(r.sts.answer.len(), STS_MAX_POINTS);
        assert!(network_analysis(&inp, &mut |s, d, _| !(s == "tsne-sts" && d > 2)).is_none());
    }

    #[test]
    fn rows_to_unit_scales_each_row_by_its_own_range() {
        let m = vec![vec![1.0, 0.5, -0.5], vec![0.2, 0.2, 0.2], vec![1.0, 0.9, 0.95]];
        let u = rows_to_unit(&m);
        assert_eq!(u[0], vec![1.0, 2.0 / 3.0, 0.0]);
        assert_eq!(u[1], vec![0.0, 0.0, 0.0]);
        let r2: Vec<f64> = u[2].iter().map(|v| (v * 1e9).round() / 1e9).collect();
        assert_eq!(r2, vec![1.0, 0.0, 0.5]);
    }
}
