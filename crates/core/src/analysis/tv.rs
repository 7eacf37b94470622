//! Task variance (Yang et al. 2019; WorM A4.4), its normalisation, fractional task variance and
//! histograms, and the whole Fig. 5B–C pipeline ([`analyse_tv`]).

use serde::{Deserialize, Serialize};

use super::cluster::{best_k_clusters, cluster_profiles, order_by_cluster};

/// Units whose summed TV is below this fraction of the largest unit's summed TV are inactive.
pub const REL_ACTIVE: f64 = 1e-3;
/// Absolute floor of the activity threshold (an all-zero network keeps no unit).
pub const ABS_ACTIVE: f64 = 1e-12;

/// Streaming task-variance accumulator: memory is O(tasks × max_steps × units), independent of the
/// number of trials. Welford's algorithm in f64 per (task, step, unit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskVarianceAccumulator {
    n_tasks: usize,
    max_steps: usize,
    units: usize,
    /// Trials seen per (task, step).
    count: Vec<u64>,
    /// Running mean per (task, step, unit).
    mean: Vec<f64>,
    /// Running sum of squared deviations per (task, step, unit).
    m2: Vec<f64>,
}

impl TaskVarianceAccumulator {
    /// An empty accumulator for `n_tasks` tasks, trials of at most `max_steps` time steps, and `units` hidden
    /// units.
    pub fn new(n_tasks: usize, max_steps: usize, units: usize) -> Self {
        let cells = n_tasks * max_steps * units;
        TaskVarianceAccumulator {
            n_tasks,
            max_steps,
            units,
            count: vec![0; n_tasks * max_steps],
            mean: vec![0.0; cells],
            m2: vec![0.0; cells],
        }
    }

    /// Tasks it accumulates (the rows of [`Self::finish`]'s TV matrix).
    pub fn n_tasks(&self) -> usize {
        self.n_tasks
    }
    /// Time steps per trial it keeps; later steps are ignored.
    pub fn max_steps(&self) -> usize {
        self.max_steps
    }
    /// Hidden units per state (the columns of the TV matrix).
    pub fn units(&self) -> usize {
        self.units
    }
    /// Trials added for `task` (those that reached step 0).
    pub fn trials(&self, task: usize) -> u64 {
        self.count.get(task * self.max_steps).copied().unwrap_or(0)
    }

    /// One trial's hidden states, row-major [steps × units] (only the first `steps` steps are valid;
    /// steps beyond `max_steps` or beyond the slice are ignored). A `task` out of range is ignored.
    pub fn add(&mut self, task: usize, states: &[f32], steps: usize) {
        if task >= self.n_tasks || self.units == 0 {
            return;
        }
        let steps = steps.min(self.max_steps).min(states.len() / self.units);
        for s in 0..steps {
            let c = task * self.max_steps + s;
            self.count[c] += 1;
            let n = self.count[c] as f64;
            let base = c * self.units;
            let row = &states[s * self.units..(s + 1) * self.units];
            for (u, &x) in row.iter().enumerate() {
                let x = x as f64;
                let mean = &mut self.mean[base + u];
                let delta = x - *mean;
                *mean += delta / n;
                self.m2[base + u] += delta * (x - *mean);
            }
        }
    }

    /// Several trials of one task: `states` is [trials × stride × units] row-major and trial `r` has
    /// `lengths[r]` valid steps (≤ `stride`).
    pub fn add_batch(&mut self, task: usize, states: &[f32], stride: usize, lengths: &[usize]) {
        let per = stride * self.units;
        for (r, &len) in lengths.iter().enumerate() {
            if let Some(trial) = states.get(r * per..(r + 1) * per) {
                self.add(task, trial, len.min(stride));
            }
        }
    }

    /// Fold another accumulator of the same shape into this one (Chan et al.'s parallel update), e.g.
    /// one filled per worker thread. Shapes that differ are ignored.
    pub fn merge(&mut self, other: &TaskVarianceAccumulator) {
        if (self.n_tasks, self.max_steps, self.units) != (other.n_tasks, other.max_steps, other.units) {
            return;
        }
        for c in 0..self.count.len() {
            let (na, nb) = (self.count[c], other.count[c]);
            if nb == 0 {
                continue;
            }
            let n = na + nb;
            let (fa, fb, f) = (na as f64, nb as f64, n as f64);
            for u in c * self.units..(c + 1) * self.units {
                let delta = other.mean[u] - self.mean[u];
                self.mean[u] += delta * fb / f;
                self.m2[u] += other.m2[u] + delta * delta * fa * fb / f;
            }
            self.count[c] = n;
        }
    }

    /// TV matrix `[n_tasks][units]`: per unit, the mean over valid steps of the across-trial variance
    /// (ddof 0). Steps with fewer than 2 trials are skipped; a task with no valid step has TV 0.
    pub fn finish(&self) -> Vec<Vec<f64>> {
        (0..self.n_tasks)
            .map(|t| {
                let mut tv = vec![0.0; self.units];
                let mut valid = 0usize;
                for s in 0..self.max_steps {
                    let c = t * self.max_steps + s;
                    let n = self.count[c];
                    if n < 2 {
                        continue;
                    }
                    valid += 1;
                    for (u, v) in tv.iter_mut().enumerate() {
                        *v += self.m2[c * self.units + u] / n as f64;
                    }
                }
                if valid > 0 {
                    tv.iter_mut().for_each(|v| *v /= valid as f64);
                }
                tv
            })
            .collect()
    }
}

/// Normalise each unit's TV vector so its maximum over tasks is 1. Returns the normalised matrix
/// (tasks × units; inactive units are all 0) and the indices of the active (kept) units: summed TV
/// ≥ `max(REL_ACTIVE × largest summed TV, ABS_ACTIVE)`.
pub fn normalise_tv(tv: &[Vec<f64>]) -> (Vec<Vec<f64>>, Vec<usize>) {
    let units = tv.first().map_or(0, |r| r.len());
    let sums: Vec<f64> = (0..units).map(|u| tv.iter().map(|r| r.get(u).copied().unwrap_or(0.0)).sum()).collect();
    let largest = sums.iter().copied().fold(0.0, f64::max);
    let threshold = (REL_ACTIVE * largest).max(ABS_ACTIVE);
    let kept: Vec<usize> = (0..units).filter(|&u| sums[u].is_finite() && sums[u] >= threshold).collect();
    let mut norm = vec![vec![0.0; units]; tv.len()];
    for &u in &kept {
        let max = tv.iter().map(|r| r[u]).fold(0.0, f64::max);
        if max > 0.0 {
            for (t, row) in tv.iter().enumerate() {
                norm[t][u] = row[u] / max;
            }
        }
    }
    (norm, kept)
}

/// The kept units' normalised TV as rows (units × tasks), the points that are clustered and embedded.
pub fn unit_rows(tv_norm: &[Vec<f64>], kept: &[usize]) -> Vec<Vec<f64>> {
    kept.iter().map(|&u| tv_norm.iter().map(|r| r[u]).collect()).collect()
}

/// `FTV_i(A,B) = (TV_i(A) − TV_i(B)) / (TV_i(A) + TV_i(B))` for each of `units` (in order); units with
/// `TV_i(A) + TV_i(B) = 0` have no FTV and are left out. Works on raw or normalised TV alike (the ratio
/// is invariant to the per-unit scale).
pub fn ftv(tv: &[Vec<f64>], a: usize, b: usize, units: &[usize]) -> Vec<f64> {
    let (Some(ra), Some(rb)) = (tv.get(a), tv.get(b)) else { return Vec::new() };
    units
        .iter()
        .filter_map(|&u| {
            let (x, y) = (*ra.get(u)?, *rb.get(u)?);
            let s = x + y;
            (s > 0.0).then(|| (x - y) / s)
        })
        .collect()
}

/// Counts of `values` in `bins` equal bins over [lo, hi]. The last bin is closed (`hi` counts in it);
/// values outside the range count in the end bins; NaN is skipped, so the counts sum to the number of
/// non-NaN values.
pub fn histogram(values: &[f64], bins: usize, lo: f64, hi: f64) -> Vec<u32> {
    let mut h = vec![0u32; bins];
    if bins == 0 || hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return h;
    }
    let w = (hi - lo) / bins as f64;
    for &v in values.iter().filter(|v| !v.is_nan()) {
        let i = ((v - lo) / w).floor();
        let i = if i < 0.0 { 0 } else { (i as usize).min(bins - 1) };
        h[i] += 1;
    }
    h
}

/// The Fig. 5B–C pipeline on a TV matrix: normalise, cluster the active units (k by silhouette over
/// `k_range`), profiles and the sorted unit order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TvAnalysis {
    /// Raw TV, tasks × units.
    pub tv: Vec<Vec<f64>>,
    /// Normalised TV, tasks × units (inactive units 0).
    pub tv_norm: Vec<Vec<f64>>,
    /// Active units (label index → unit index).
    pub kept: Vec<usize>,
    /// Number of clusters: the k of the best mean silhouette (1 with fewer than 3 active units, 0 with none).
    pub k: usize,
    /// Cluster of each kept unit.
    pub labels: Vec<usize>,
    /// Mean silhouette per tried k.
    pub silhouettes: Vec<(usize, f64)>,
    /// Per cluster, the mean normalised TV per task (k × tasks).
    pub profiles: Vec<Vec<f64>>,
    /// Unit indices (into all units) sorted by cluster, for the sorted TV heat map.
    pub order: Vec<usize>,
}

/// The Fig. 5B–C pipeline on a TV matrix (tasks × units): [`normalise_tv`], then the active units' rows
/// clustered with k chosen by silhouette over `k_range` ([`best_k_clusters`], k-means seeded with `seed`),
/// the clusters' profiles and the units sorted by cluster.
pub fn analyse_tv(tv: &[Vec<f64>], k_range: std::ops::RangeInclusive<usize>, seed: u64) -> TvAnalysis {
    let (tv_norm, kept) = normalise_tv(tv);
    let rows = unit_rows(&tv_norm, &kept);
    let (k, labels, silhouettes) = best_k_clusters(&rows, k_range, seed);
    let profiles = cluster_profiles(&rows, &labels, k);
    let order = order_by_cluster(&labels).into_iter().map(|i| kept[i]).collect();
    TvAnalysis { tv: tv.to_vec(), tv_norm, kept, k, labels, silhouettes, profiles, order }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Direct two-pass TV.
    fn direct(trials: &[(usize, Vec<f32>, usize)], n_tasks: usize, max_steps: usize, units: usize) -> Vec<Vec<f64>> {
        let mut out = vec![vec![0.0; units]; n_tasks];
        for (t, row) in out.iter_mut().enumerate() {
            let mut valid = 0;
            for s in 0..max_steps {
                let xs: Vec<&Vec<f32>> =
                    trials.iter().filter(|(tt, _, len)| *tt == t && *len > s).map(|(_, x, _)| x).collect();
                if xs.len() < 2 {
                    continue;
                }
                valid += 1;
                for (u, v) in row.iter_mut().enumerate() {
                    let vals: Vec<f64> = xs.iter().map(|x| x[s * units + u] as f64).collect();
                    let m = vals.iter().sum::<f64>() / vals.len() as f64;
                    *v += vals.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / vals.len() as f64;
                }
            }
            if valid > 0 {
                row.iter_mut().for_each(|v| *v /= valid as f64);
            }
        }
        out
    }

    fn random_trials(
        seed: u64,
        n: usize,
        n_tasks: usize,
        max_steps: usize,
        units: usize,
    ) -> Vec<(usize, Vec<f32>, usize)> {
        let mut r = Rng::from_u64(seed);
        (0..n)
            .map(|_| {
                let t = r.index(n_tasks);
                let len = 1 + r.index(max_steps);
                let x = (0..max_steps * units).map(|_| (r.unit_f64() * 4.0 - 1.0) as f32).collect();
                (t, x, len)
            })
            .collect()
    }

    #[test]
    fn tv_streaming_equals_two_pass_and_chunks_and_merge_agree() {
        let (nt, ms, units) = (3, 6, 5);
        let trials = random_trials(11, 120, nt, ms, units);
        let mut acc = TaskVarianceAccumulator::new(nt, ms, units);
        for (t, x, len) in &trials {
            acc.add(*t, x, *len);
        }
        let want = direct(&trials, nt, ms, units);
        let got = acc.finish();
        for (a, b) in got.iter().flatten().zip(want.iter().flatten()) {
            assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
        // The same trials as per-task batches, and as two merged halves.
        let mut batched = TaskVarianceAccumulator::new(nt, ms, units);
        for t in 0..nt {
            let mine: Vec<_> = trials.iter().filter(|x| x.0 == t).collect();
            let states: Vec<f32> = mine.iter().flat_map(|x| x.1.iter().copied()).collect();
            let lengths: Vec<usize> = mine.iter().map(|x| x.2).collect();
            batched.add_batch(t, &states, ms, &lengths);
        }
        let (mut h1, mut h2) =
            (TaskVarianceAccumulator::new(nt, ms, units), TaskVarianceAccumulator::new(nt, ms, units));
        for (i, (t, x, len)) in trials.iter().enumerate() {
            if i < 50 { h1.add(*t, x, *len) } else { h2.add(*t, x, *len) }
        }
        h1.merge(&h2);
        for other in [batched.finish(), h1.finish()] {
            for (a, b) in got.iter().flatten().zip(other.iter().flatten()) {
                assert!((a - b).abs() < 1e-12, "{a} vs {b}");
            }
        }
        assert_eq!(h1.trials(0), acc.trials(0));
    }

    #[test]
    fn tv_selective_and_constant_units() {
        // Unit 0 varies only in task 0, unit 1 only in task 1, unit 2 is constant, unit 3 varies everywhere.
        let (nt, ms, units) = (2, 4, 4);
        let mut acc = TaskVarianceAccumulator::new(nt, ms, units);
        let mut r = Rng::from_u64(3);
        for trial in 0..40 {
            let t = trial % 2;
            let mut x = vec![0f32; ms * units];
            for s in 0..ms {
                let noise = r.unit_f64() as f32;
                x[s * units] = if t == 0 { noise } else { 0.5 };
                x[s * units + 1] = if t == 1 { noise } else { -0.2 };
                x[s * units + 2] = 0.7;
                x[s * units + 3] = r.unit_f64() as f32;
            }
            acc.add(t, &x, ms);
        }
        let tv = acc.finish();
        assert!(tv[0][0] > 0.01 && tv[1][0] == 0.0);
        assert!(tv[1][1] > 0.01 && tv[0][1] == 0.0);
        assert_eq!((tv[0][2], tv[1][2]), (0.0, 0.0));
        let (norm, kept) = normalise_tv(&tv);
        assert_eq!(kept, vec![0, 1, 3]);
        assert_eq!((norm[0][0], norm[1][0]), (1.0, 0.0));
        assert_eq!((norm[0][1], norm[1][1]), (0.0, 1.0));
        assert_eq!((norm[0][2], norm[1][2]), (0.0, 0.0));
        assert!((norm[0][3].max(norm[1][3]) - 1.0).abs() < 1e-15);
        // Steps with < 2 trials are skipped; one trial gives TV 0.
        let mut one = TaskVarianceAccumulator::new(1, 2, 1);
        one.add(0, &[1.0, 2.0], 2);
        assert_eq!(one.finish(), vec![vec![0.0]]);
        assert_eq!(normalise_tv(&[vec![0.0, 0.0]]).1, Vec::<usize>::new());
    }

    #[test]
    fn ftv_extremes_and_histogram() {
        let tv = vec![vec![2.0, 0.0, 1.5, 0.0, 3.0], vec![0.0, 0.7, 1.5, 0.0, 1.0]];
        assert_eq!(ftv(&tv, 0, 1, &[0, 1, 2, 3, 4]), vec![1.0, -1.0, 0.0, 0.5]);
        let h = histogram(&[-1.0, -0.95, 0.0, 0.5, 1.0, 1.0, 2.0, -3.0, f64::NAN], 10, -1.0, 1.0);
        assert_eq!(h.iter().sum::<u32>(), 8);
        assert_eq!((h[0], h[5], h[7], h[9]), (3, 1, 1, 3));
    }
}
