//! k-means (k-means++ seeding), silhouette and the choice of k (WorM Sec. 5H, A4.4; Yang et al. 2019).

use super::dist2;
use crate::rng::Rng;

const MAX_ITER: usize = 300;
/// Restarts used by [`best_k_clusters`] for each k.
pub const RESTARTS: usize = 10;

/// k-means++ seeding from the stream `rng`.
fn seed_centres(points: &[Vec<f64>], k: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
    let n = points.len();
    let mut centres = vec![points[rng.index(n)].clone()];
    let mut d2: Vec<f64> = points.iter().map(|p| dist2(p, &centres[0])).collect();
    while centres.len() < k {
        let total: f64 = d2.iter().sum();
        let pick = if total > 0.0 {
            let target = rng.unit_f64() * total;
            let mut acc = 0.0;
            let mut pick = n - 1;
            for (i, &d) in d2.iter().enumerate() {
                acc += d;
                if acc > target && d > 0.0 {
                    pick = i;
                    break;
                }
            }
            pick
        } else {
            rng.index(n)
        };
        let c = points[pick].clone();
        for (d, p) in d2.iter_mut().zip(points) {
            *d = d.min(dist2(p, &c));
        }
        centres.push(c);
    }
    centres
}

fn nearest(p: &[f64], centres: &[Vec<f64>]) -> (usize, f64) {
    let mut best = (0, f64::INFINITY);
    for (j, c) in centres.iter().enumerate() {
        let d = dist2(p, c);
        if d < best.1 {
            best = (j, d);
        }
    }
    best
}

/// Lloyd iterations from `centres`; returns (labels, inertia).
fn lloyd(points: &[Vec<f64>], mut centres: Vec<Vec<f64>>) -> (Vec<usize>, f64) {
    let (n, k, dim) = (points.len(), centres.len(), points[0].len());
    let mut labels = vec![usize::MAX; n];
    for _ in 0..MAX_ITER {
        let mut changed = false;
        for (i, p) in points.iter().enumerate() {
            let (j, _) = nearest(p, &centres);
            if labels[i] != j {
                labels[i] = j;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        let mut sums = vec![vec![0.0; dim]; k];
        let mut counts = vec![0usize; k];
        for (p, &l) in points.iter().zip(&labels) {
            counts[l] += 1;
            sums[l].iter_mut().zip(p).for_each(|(s, x)| *s += x);
        }
        for j in 0..k {
            if counts[j] > 0 {
                centres[j] = sums[j].iter().map(|s| s / counts[j] as f64).collect();
            } else {
                // An empty cluster takes the point farthest from its own centre.
                let far = (0..n)
                    .map(|i| (i, dist2(&points[i], &centres[labels[i]])))
                    .fold((0, -1.0), |a, b| if b.1 > a.1 { b } else { a })
                    .0;
                centres[j] = points[far].clone();
                labels[far] = j;
            }
        }
    }
    let inertia = points.iter().zip(&labels).map(|(p, &l)| dist2(p, &centres[l])).sum();
    (labels, inertia)
}

/// Renumber labels in order of first appearance (0, 1, 2, …).
fn canonical(labels: &[usize]) -> Vec<usize> {
    let mut map = std::collections::HashMap::new();
    labels
        .iter()
        .map(|&l| {
            let next = map.len();
            *map.entry(l).or_insert(next)
        })
        .collect()
}

/// k-means with k-means++ seeding; the best of `restarts` (≥ 1) runs by inertia, all drawn from one
/// `Rng::from_u64(seed)` stream. Labels are numbered in order of first appearance. `k` is clamped to
/// 1..=n; no points give no labels.
pub fn kmeans(points: &[Vec<f64>], k: usize, seed: u64, restarts: usize) -> Vec<usize> {
    let n = points.len();
    if n == 0 {
        return Vec::new();
    }
    let k = k.clamp(1, n);
    let mut rng = Rng::from_u64(seed);
    let mut best: Option<(Vec<usize>, f64)> = None;
    for _ in 0..restarts.max(1) {
        let run = lloyd(points, seed_centres(points, k, &mut rng));
        if best.as_ref().is_none_or(|b| run.1 < b.1) {
            best = Some(run);
        }
    }
    canonical(&best.map(|b| b.0).unwrap_or_default())
}

/// Pairwise Euclidean distances.
fn distances(points: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = points.len();
    let mut d = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in i + 1..n {
            let v = dist2(&points[i], &points[j]).sqrt();
            d[i][j] = v;
            d[j][i] = v;
        }
    }
    d
}

fn silhouette_from(d: &[Vec<f64>], labels: &[usize]) -> f64 {
    let n = labels.len();
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let sizes = labels.iter().fold(vec![0usize; k], |mut s, &l| {
        s[l] += 1;
        s
    });
    if n < 2 || sizes.iter().filter(|&&s| s > 0).count() < 2 {
        return 0.0;
    }
    let mut total = 0.0;
    for i in 0..n {
        if sizes[labels[i]] < 2 {
            continue; // s(i) = 0 for a point alone in its cluster.
        }
        let mut sums = vec![0.0; k];
        for j in 0..n {
            sums[labels[j]] += d[i][j];
        }
        let a = sums[labels[i]] / (sizes[labels[i]] - 1) as f64;
        let b = (0..k)
            .filter(|&c| c != labels[i] && sizes[c] > 0)
            .map(|c| sums[c] / sizes[c] as f64)
            .fold(f64::INFINITY, f64::min);
        let m = a.max(b);
        if m > 0.0 {
            total += (b - a) / m;
        }
    }
    total / n as f64
}

/// Mean silhouette (Euclidean). A point alone in its cluster scores 0; fewer than 2 clusters give 0.
pub fn silhouette(points: &[Vec<f64>], labels: &[usize]) -> f64 {
    silhouette_from(&distances(points), labels)
}

/// k chosen by the best mean silhouette over `k_range` (k limited to 2..=n−1; the first k wins ties);
/// returns (k, labels, score per tried k). Each k uses [`kmeans`] with [`RESTARTS`] restarts and the
/// same `seed`. With fewer than 3 points, or no k to try, everything is one cluster (k = 1).
pub fn best_k_clusters(
    points: &[Vec<f64>],
    k_range: std::ops::RangeInclusive<usize>,
    seed: u64,
) -> (usize, Vec<usize>, Vec<(usize, f64)>) {
    let n = points.len();
    let lo = (*k_range.start()).max(2);
    let hi = (*k_range.end()).min(n.saturating_sub(1));
    if n < 3 || lo > hi {
        return (n.min(1), vec![0; n], Vec::new());
    }
    let d = distances(points);
    let mut scores = Vec::new();
    let mut best: Option<(usize, Vec<usize>, f64)> = None;
    for k in lo..=hi {
        let labels = kmeans(points, k, seed, RESTARTS);
        let s = silhouette_from(&d, &labels);
        scores.push((k, s));
        if best.as_ref().is_none_or(|b| s > b.2) {
            best = Some((k, labels, s));
        }
    }
    let (k, labels, _) = best.expect("at least one k");
    let k = labels.iter().max().map_or(0, |m| m + 1).min(k);
    (k, labels, scores)
}

/// For each cluster, the mean of its units' rows (mean normalised TV per task): k × tasks. An empty
/// cluster's profile is all 0.
pub fn cluster_profiles(tv_norm_units: &[Vec<f64>], labels: &[usize], k: usize) -> Vec<Vec<f64>> {
    let dim = tv_norm_units.first().map_or(0, |r| r.len());
    let mut sums = vec![vec![0.0; dim]; k];
    let mut counts = vec![0usize; k];
    for (row, &l) in tv_norm_units.iter().zip(labels) {
        if l < k {
            counts[l] += 1;
            sums[l].iter_mut().zip(row).for_each(|(s, x)| *s += x);
        }
    }
    for (s, &c) in sums.iter_mut().zip(&counts) {
        if c > 0 {
            s.iter_mut().for_each(|v| *v /= c as f64);
        }
    }
    sums
}

/// Indices sorted by cluster label (stable: original order within a cluster).
pub fn order_by_cluster(labels: &[usize]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..labels.len()).collect();
    idx.sort_by_key(|&i| labels[i]);
    idx
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::tv::{TaskVarianceAccumulator, normalise_tv, unit_rows};

    /// Standard normal by Box–Muller.
    pub(crate) fn normal(r: &mut Rng) -> f64 {
        let u1 = 1.0 - r.unit_f64();
        let u2 = r.unit_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// `per` points around each of `centres`, with the blob index of each point.
    pub(crate) fn blobs(centres: &[Vec<f64>], per: usize, sd: f64, seed: u64) -> (Vec<Vec<f64>>, Vec<usize>) {
        let mut r = Rng::from_u64(seed);
        let mut pts = Vec::new();
        let mut truth = Vec::new();
        for i in 0..per * centres.len() {
            let b = i % centres.len();
            pts.push(centres[b].iter().map(|c| c + sd * normal(&mut r)).collect());
            truth.push(b);
        }
        (pts, truth)
    }

    /// Labels equal the truth up to a permutation (a bijection between label sets).
    pub(crate) fn same_partition(a: &[usize], b: &[usize]) -> bool {
        let mut ab = std::collections::HashMap::new();
        let mut ba = std::collections::HashMap::new();
        a.iter().zip(b).all(|(x, y)| *ab.entry(x).or_insert(y) == y && *ba.entry(y).or_insert(x) == x)
    }

    #[test]
    fn three_blobs_best_k_is_three() {
        let centres = vec![vec![0.0, 0.0, 0.0], vec![10.0, 0.0, 0.0], vec![0.0, 10.0, 5.0]];
        let (pts, truth) = blobs(&centres, 20, 0.5, 7);
        let (k, labels, scores) = best_k_clusters(&pts, 2..=6, 1);
        assert_eq!(k, 3, "{scores:?}");
        assert!(same_partition(&labels, &truth));
        assert!(silhouette(&pts, &truth) > 0.8);
        assert_eq!(scores.iter().map(|s| s.0).collect::<Vec<_>>(), vec![2, 3, 4, 5, 6]);
        // Deterministic for a seed.
        assert_eq!(best_k_clusters(&pts, 2..=6, 1), (k, labels.clone(), scores));
        assert_eq!(kmeans(&pts, 3, 9, 3), kmeans(&pts, 3, 9, 3));
        assert_eq!(labels[0], 0, "labels numbered by first appearance");
    }

    #[test]
    fn silhouette_and_helpers_edge_cases() {
        let pts = vec![vec![0.0], vec![1.0], vec![10.0], vec![11.0]];
        // a = 1 for every point; b = mean(10, 11) for the outer points, mean(9, 10) for the inner ones.
        let s = silhouette(&pts, &[0, 0, 1, 1]);
        assert!((s - (9.5 / 10.5 + 8.5 / 9.5) / 2.0).abs() < 1e-12);
        assert_eq!(silhouette(&pts, &[0, 0, 0, 0]), 0.0);
        assert_eq!(kmeans(&[], 3, 0, 1), Vec::<usize>::new());
        assert_eq!(kmeans(&pts, 9, 0, 1).len(), 4);
        assert_eq!(order_by_cluster(&[2, 0, 1, 0, 2]), vec![1, 3, 2, 0, 4]);
        assert_eq!(
            cluster_profiles(&[vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 0.5]], &[0, 1, 0], 3),
            vec![vec![1.0, 0.25], vec![0.0, 1.0], vec![0.0, 0.0]]
        );
        assert_eq!(best_k_clusters(&pts[..2], 2..=4, 0).0, 1);
    }

    #[test]
    fn task_selective_groups_become_clusters() {
        // 4 tasks; units 10g..10g+9 vary across trials only in task g (others constant + tiny noise).
        let (nt, ms, units) = (4, 5, 40);
        let mut acc = TaskVarianceAccumulator::new(nt, ms, units);
        let mut r = Rng::from_u64(5);
        for trial in 0..80 {
            let t = trial % nt;
            let x: Vec<f32> = (0..ms * units)
                .map(|i| {
                    let u = i % units;
                    let amp = if u / 10 == t { 0.5 + 0.1 * (u % 10) as f64 } else { 0.01 };
                    (0.3 + amp * normal(&mut r)) as f32
                })
                .collect();
            acc.add(t, &x, ms);
        }
        let (norm, kept) = normalise_tv(&acc.finish());
        assert_eq!(kept.len(), units);
        let rows = unit_rows(&norm, &kept);
        let (k, labels, scores) = best_k_clusters(&rows, 2..=8, 3);
        assert_eq!(k, 4, "{scores:?}");
        let truth: Vec<usize> = kept.iter().map(|u| u / 10).collect();
        assert!(same_partition(&labels, &truth));
        let prof = cluster_profiles(&rows, &labels, k);
        for (c, p) in prof.iter().enumerate() {
            let g = truth[labels.iter().position(|&l| l == c).unwrap()];
            let peak = (0..nt).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap();
            assert_eq!(peak, g);
            assert!(p[g] > 0.99 && p.iter().enumerate().all(|(t, &v)| t == g || v < 0.01));
        }
        let order = order_by_cluster(&labels);
        assert!(order.windows(2).all(|w| labels[w[0]] <= labels[w[1]]));
    }
}
