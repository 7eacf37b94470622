//! Exact t-SNE (van der Maaten & Hinton 2008), O(n²) per iteration: fine for ≤ ~1100 points (hidden units
//! of the largest model, or a few hundred STS probe states). WorM Sec. 5G (A4.3) and 5H (A4.4).

use serde::{Deserialize, Serialize};

use super::dist2;
use crate::rng::Rng;

/// Iterations with early exaggeration and the low momentum.
pub const EXAGGERATION_ITERS: usize = 250;
/// Early exaggeration: the input affinities are multiplied by this for the first [`EXAGGERATION_ITERS`]
/// iterations.
pub const EXAGGERATION: f64 = 12.0;

/// Settings of [`tsne`]; the default is scikit-learn's classic one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TsneConfig {
    /// Target perplexity of each point's Gaussian neighbourhood (lowered to (n−1)/3 for few points).
    pub perplexity: f64,
    /// Gradient-descent iterations in all, the first [`EXAGGERATION_ITERS`] of them exaggerated.
    pub iterations: usize,
    /// Step size of the gradient descent (scaled per coordinate by the delta-bar-delta gains).
    pub learning_rate: f64,
    /// Seed of the initial layout, drawn from N(0, 1e-4²).
    pub seed: u64,
}

impl Default for TsneConfig {
    /// scikit-learn's classic defaults: perplexity 30, 1000 iterations, learning rate 200.
    fn default() -> Self {
        TsneConfig { perplexity: 30.0, iterations: 1000, learning_rate: 200.0, seed: 0 }
    }
}

/// Conditional probabilities p_{j|i} for one row of squared distances, bandwidth found by binary search
/// on beta = 1/(2σ²) so the entropy equals ln(perplexity).
fn row_p(d: &[f64], i: usize, perplexity: f64) -> Vec<f64> {
    let target = perplexity.ln();
    let (mut beta, mut lo, mut hi) = (1.0f64, 0.0f64, f64::INFINITY);
    // Shift by the smallest off-diagonal distance so exp() cannot underflow to all zeros.
    let dmin = d.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &v)| v).fold(f64::INFINITY, f64::min);
    let mut p = vec![0.0; d.len()];
    for _ in 0..100 {
        let mut sum = 0.0;
        for (j, &dj) in d.iter().enumerate() {
            p[j] = if j == i { 0.0 } else { (-(dj - dmin) * beta).exp() };
            sum += p[j];
        }
        // H = ln(sum) + beta · Σ p_j (d_j − dmin) / sum
        let mut h = 0.0;
        for (j, &dj) in d.iter().enumerate() {
            h += p[j] * (dj - dmin);
        }
        let h = sum.ln() + beta * h / sum;
        p.iter_mut().for_each(|v| *v /= sum);
        let diff = h - target;
        if diff.abs() < 1e-5 {
            break;
        }
        if diff > 0.0 {
            lo = beta;
            beta = if hi.is_finite() { (beta + hi) / 2.0 } else { beta * 2.0 };
        } else {
            hi = beta;
            beta = (beta + lo) / 2.0;
        }
    }
    p
}

/// Returns n × 2 coordinates. Calls `progress(iter, total)` before each iteration (and `(total, total)`
/// at the end) and stops early returning `None` if it returns false (cancellation). Perplexity is
/// lowered to (n−1)/3 when n < 3·perplexity + 1. Fewer than 2 points embed at the origin.
pub fn tsne(
    points: &[Vec<f64>],
    cfg: &TsneConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Option<Vec<[f64; 2]>> {
    let n = points.len();
    let total = cfg.iterations;
    if n < 2 {
        return progress(total, total).then(|| vec![[0.0; 2]; n]);
    }
    let perplexity = cfg.perplexity.min((n - 1) as f64 / 3.0).max(1.0);
    // Input affinities.
    let d: Vec<Vec<f64>> = points.iter().map(|a| points.iter().map(|b| dist2(a, b)).collect()).collect();
    let cond: Vec<Vec<f64>> = (0..n).map(|i| row_p(&d[i], i, perplexity)).collect();
    let mut p = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            p[i * n + j] = ((cond[i][j] + cond[j][i]) / (2.0 * n as f64)).max(1e-12);
        }
    }
    drop(cond);
    // Seeded initial layout N(0, 1e-4²) (Box–Muller).
    let mut rng = Rng::from_u64(cfg.seed);
    let mut y: Vec<[f64; 2]> = (0..n)
        .map(|_| {
            let (u1, u2) = (1.0 - rng.unit_f64(), rng.unit_f64());
            let r = (-2.0 * u1.ln()).sqrt() * 1e-4;
            let a = 2.0 * std::f64::consts::PI * u2;
            [r * a.cos(), r * a.sin()]
        })
        .collect();
    let mut update = vec![[0.0f64; 2]; n];
    let mut gains = vec![[1.0f64; 2]; n];
    let mut num = vec![0.0; n * n];
    let mut grad = vec![[0.0f64; 2]; n];
    for it in 0..total {
        if !progress(it, total) {
            return None;
        }
        let (exag, momentum) = if it < EXAGGERATION_ITERS { (EXAGGERATION, 0.5) } else { (1.0, 0.8) };
        // Student-t affinities.
        let mut sum = 0.0;
        for i in 0..n {
            num[i * n + i] = 0.0;
            for j in i + 1..n {
                let dx = y[i][0] - y[j][0];
                let dy = y[i][1] - y[j][1];
                let q = 1.0 / (1.0 + dx * dx + dy * dy);
                num[i * n + j] = q;
                num[j * n + i] = q;
                sum += 2.0 * q;
            }
        }
        let sum = sum.max(1e-300);
        for i in 0..n {
            let mut g = [0.0; 2];
            for j in 0..n {
                if j == i {
                    continue;
                }
                let q = (num[i * n + j] / sum).max(1e-12);
                let m = (exag * p[i * n + j] - q) * num[i * n + j];
                g[0] += m * (y[i][0] - y[j][0]);
                g[1] += m * (y[i][1] - y[j][1]);
            }
            grad[i] = [4.0 * g[0], 4.0 * g[1]];
        }
        for i in 0..n {
            for c in 0..2 {
                let same_sign = (grad[i][c] > 0.0) == (update[i][c] > 0.0);
                gains[i][c] = if same_sign { (gains[i][c] * 0.8).max(0.01) } else { gains[i][c] + 0.2 };
                update[i][c] = momentum * update[i][c] - cfg.learning_rate * gains[i][c] * grad[i][c];
                y[i][c] += update[i][c];
            }
        }
        // Keep the layout centred.
        for c in 0..2 {
            let mean = y.iter().map(|p| p[c]).sum::<f64>() / n as f64;
            y.iter_mut().for_each(|p| p[c] -= mean);
        }
    }
    progress(total, total).then_some(y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cluster::tests::blobs;

    #[test]
    fn tsne_keeps_blobs_apart_is_seeded_and_cancellable() {
        let centres: Vec<Vec<f64>> =
            (0..3).map(|b| (0..10).map(|d| if d == b { 8.0 } else { 0.0 }).collect()).collect();
        let (pts, truth) = blobs(&centres, 25, 1.0, 2);
        let cfg = TsneConfig { perplexity: 10.0, iterations: 400, learning_rate: 100.0, seed: 4 };
        let mut calls = 0;
        let y = tsne(&pts, &cfg, &mut |_, _| {
            calls += 1;
            true
        })
        .unwrap();
        assert_eq!(calls, 401);
        assert_eq!(y.len(), pts.len());
        let n = y.len();
        let good = (0..n)
            .filter(|&i| {
                let nn = (0..n)
                    .filter(|&j| j != i)
                    .min_by(|&a, &b| {
                        let da = (y[a][0] - y[i][0]).powi(2) + (y[a][1] - y[i][1]).powi(2);
                        let db = (y[b][0] - y[i][0]).powi(2) + (y[b][1] - y[i][1]).powi(2);
                        da.total_cmp(&db)
                    })
                    .unwrap();
                truth[nn] == truth[i]
            })
            .count();
        assert!(good as f64 > 0.95 * n as f64, "{good}/{n}");
        assert_eq!(tsne(&pts, &cfg, &mut |_, _| true).unwrap(), y);
        assert!(tsne(&pts, &cfg, &mut |it, _| it < 10).is_none());
        // Tiny inputs: perplexity is lowered, single points sit at the origin.
        assert_eq!(tsne(&pts[..4], &cfg, &mut |_, _| true).unwrap().len(), 4);
        assert_eq!(tsne(&pts[..1], &cfg, &mut |_, _| true), Some(vec![[0.0, 0.0]]));
    }
}
