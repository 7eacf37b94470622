//! Hypothesis tests the four papers' claims rest on, one implementation for the app and the CLI.
//!
//! - [`t_one_sample`], [`t_ind`] (Student's, pooled variance) and [`welch`]: two-sided t-tests (WorM
//!   Table A3's "two-tailed t-tests against chance").
//! - [`mann_whitney`], [`wilcoxon`], [`kruskal`]: the N-back paper's comparisons of d′ between N levels
//!   and variants (`analysis_across_exps.ipynb`: Kruskal–Wallis across N, Mann–Whitney post hoc, Wilcoxon
//!   of d′ against 0).
//! - [`binom_greater`]: exact one-sided binomial test P(X ≥ k) (above-chance accuracy of a network).
//! - [`ci_mean`]: the t confidence interval of a mean (Minerva's 95 % intervals).
//!
//! Conventions follow SciPy's defaults where the issue names them, so a user can check a number with
//! `scipy.stats`: the expected values in the tests were computed with SciPy 1.x by
//! `scripts/research/stats-reference.py`, not by this code. The distributions come from `statrs`; nothing here
//! writes a special function by hand.
//!
//! Degenerate input (too few values, zero variance, every value tied) is an [`Err`] with a sentence saying
//! why, never a NaN: a NaN cannot be written to JSON and would silently become `null`.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ChiSquared, ContinuousCDF, Normal, StudentsT};

/// A test's statistic and its p-value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// The test's statistic: t, Mann–Whitney U of `a`, the smaller Wilcoxon W, or Kruskal–Wallis H.
    pub statistic: f64,
    /// The p-value, two-sided for the t, Mann–Whitney and Wilcoxon tests (H's upper χ² tail for Kruskal–Wallis).
    pub p: f64,
}

/// Why a test cannot be computed on its input (the messages `wmlab stats` answers with).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A sample holds NaN or an infinity.
    #[error("{name}[{index}] is not a finite number")]
    NotFinite {
        /// The sample's name as the request gives it (`a`, `b`, `groups[2]`).
        name: String,
        /// The position of the first non-finite value in it, from 0.
        index: usize,
    },
    /// A sample is too short for the test.
    #[error("{name} needs at least {need} values (it has {has})")]
    TooFew {
        /// The sample's name as the request gives it (`a`, `b`, `groups[2]`).
        name: String,
        /// The fewest values the test needs in it.
        need: usize,
        /// The values it holds.
        has: usize,
    },
    /// A parameter out of its range (`mu`, `n`, `k`, `p0`, `level`, the groups' count, pairing).
    #[error("{0}")]
    Parameter(String),
    /// The statistic is undefined on these values (no spread, all differences zero).
    #[error("{0}")]
    Undefined(&'static str),
}

crate::message_into_string!(StatsError);

/// Written as its message (a report's JSON keeps the words a person reads).
impl serde::Serialize for StatsError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

fn finite(name: &str, xs: &[f64]) -> Result<(), StatsError> {
    if let Some(index) = xs.iter().position(|x| !x.is_finite()) {
        return Err(StatsError::NotFinite { name: name.to_string(), index });
    }
    Ok(())
}

fn need(name: &str, xs: &[f64], n: usize) -> Result<(), StatsError> {
    finite(name, xs)?;
    if xs.len() < n {
        return Err(StatsError::TooFew { name: name.to_string(), need: n, has: xs.len() });
    }
    Ok(())
}

/// The arithmetic mean; NaN for no values.
pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample variance (ddof = 1).
pub fn variance(xs: &[f64]) -> f64 {
    let m = mean(xs);
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() as f64 - 1.0)
}

/// Two-sided p of a t statistic with `df` degrees of freedom.
fn t_two_sided(t: f64, df: f64) -> f64 {
    let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0");
    (2.0 * dist.sf(t.abs())).min(1.0)
}

fn normal_two_sided(z: f64) -> f64 {
    (2.0 * Normal::standard().sf(z.abs())).min(1.0)
}

/// Variances this small relative to the values' scale are rounding, not spread.
fn zero_spread(var: f64, xs: &[f64]) -> bool {
    let scale = xs.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
    var.sqrt() <= 1e-12 * scale
}

/// The samples divided by their largest magnitude when that is far from 1, so sums and squares
/// cannot overflow (values near 1e300) or underflow; t statistics do not change with the scale.
fn rescaled(samples: &[&[f64]], extra: f64) -> (Vec<Vec<f64>>, f64) {
    let big = samples.iter().flat_map(|s| s.iter()).fold(extra.abs(), |m, x| m.max(x.abs()));
    let s = if big > 1e100 || (big > 0.0 && big < 1e-100) { big } else { 1.0 };
    (samples.iter().map(|xs| xs.iter().map(|x| x / s).collect()).collect(), s)
}

/// One-sample t-test of H0: mean(a) = mu, two-sided (`scipy.stats.ttest_1samp`).
pub fn t_one_sample(a: &[f64], mu: f64) -> Result<TestResult, StatsError> {
    need("a", a, 2)?;
    if !mu.is_finite() {
        return Err(StatsError::Parameter("mu is not a finite number".into()));
    }
    let (v, scale) = rescaled(&[a], mu);
    let (a, mu) = (v[0].as_slice(), mu / scale);
    let v = variance(a);
    if zero_spread(v, a) {
        return Err(StatsError::Undefined("a has no spread (every value is the same), so t is undefined"));
    }
    let n = a.len() as f64;
    let t = (mean(a) - mu) / (v / n).sqrt();
    Ok(TestResult { statistic: t, p: t_two_sided(t, n - 1.0) })
}

/// Student's two-sample t-test with pooled variance, two-sided (`ttest_ind(a, b)`).
pub fn t_ind(a: &[f64], b: &[f64]) -> Result<TestResult, StatsError> {
    need("a", a, 2)?;
    need("b", b, 2)?;
    let (v, _) = rescaled(&[a, b], 0.0);
    let (a, b) = (v[0].as_slice(), v[1].as_slice());
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let df = na + nb - 2.0;
    let pooled = ((na - 1.0) * variance(a) + (nb - 1.0) * variance(b)) / df;
    let all: Vec<f64> = a.iter().chain(b).copied().collect();
    if zero_spread(pooled, &all) {
        return Err(StatsError::Undefined("a and b have no spread within either sample, so t is undefined"));
    }
    let t = (mean(a) - mean(b)) / (pooled * (1.0 / na + 1.0 / nb)).sqrt();
    Ok(TestResult { statistic: t, p: t_two_sided(t, df) })
}

/// Welch's two-sample t-test (unequal variances, Welch–Satterthwaite df), two-sided
/// (`ttest_ind(a, b, equal_var=False)`).
pub fn welch(a: &[f64], b: &[f64]) -> Result<TestResult, StatsError> {
    need("a", a, 2)?;
    need("b", b, 2)?;
    let (v, _) = rescaled(&[a, b], 0.0);
    let (a, b) = (v[0].as_slice(), v[1].as_slice());
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (qa, qb) = (variance(a) / na, variance(b) / nb);
    let all: Vec<f64> = a.iter().chain(b).copied().collect();
    if zero_spread(qa + qb, &all) {
        return Err(StatsError::Undefined("a and b have no spread within either sample, so t is undefined"));
    }
    let t = (mean(a) - mean(b)) / (qa + qb).sqrt();
    let df = (qa + qb).powi(2) / (qa * qa / (na - 1.0) + qb * qb / (nb - 1.0));
    Ok(TestResult { statistic: t, p: t_two_sided(t, df) })
}

/// Average ranks (1-based, ties get their mean rank) of `xs`, and the tie groups' sizes.
pub fn ranks(xs: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&i, &j| xs[i].total_cmp(&xs[j]));
    let mut r = vec![0.0; xs.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            r[k] = avg;
        }
        if j > i {
            ties.push(j - i + 1);
        }
        i = j + 1;
    }
    (r, ties)
}

fn tie_sum(ties: &[usize]) -> f64 {
    ties.iter().map(|&t| (t as f64).powi(3) - t as f64).sum()
}

/// Mann–Whitney U test, two-sided, normal approximation with tie correction and continuity correction
/// (`mannwhitneyu(a, b, method="asymptotic")`). The statistic is U of `a`: the number of pairs (x in a,
/// y in b) with x > y, ties counting one half.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Result<TestResult, StatsError> {
    need("a", a, 1)?;
    need("b", b, 1)?;
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let all: Vec<f64> = a.iter().chain(b).copied().collect();
    let (r, ties) = ranks(&all);
    let r1: f64 = r[..a.len()].iter().sum();
    let u1 = r1 - n1 * (n1 + 1.0) / 2.0;
    let u2 = n1 * n2 - u1;
    let n = n1 + n2;
    let mu = n1 * n2 / 2.0;
    let var = n1 * n2 / 12.0 * ((n + 1.0) - tie_sum(&ties) / (n * (n - 1.0)));
    if var <= 0.0 {
        return Err(StatsError::Undefined("every value in a and b is the same, so U has no spread"));
    }
    // As SciPy: z from the larger U less the continuity correction, and p = 2·sf(z) capped at 1, so
    // a U within ½ of its mean gives p = 1 (taking |z| there gave 0.988–0.992).
    let z = (u1.max(u2) - mu - 0.5) / var.sqrt();
    Ok(TestResult { statistic: u1, p: (2.0 * Normal::standard().sf(z)).min(1.0) })
}

/// Wilcoxon signed-rank test of paired samples, two-sided, normal approximation: zero differences
/// dropped, tie-corrected variance, no continuity correction; the statistic is the smaller of W+ and W−
/// (`wilcoxon(a, b, zero_method="wilcox", correction=False, method="approx")`). With `b` empty, `a` is
/// tested against 0 (the N-back paper's "Wilcoxon of d′ against 0").
pub fn wilcoxon(a: &[f64], b: &[f64]) -> Result<TestResult, StatsError> {
    finite("a", a)?;
    finite("b", b)?;
    let d: Vec<f64> = if b.is_empty() {
        a.to_vec()
    } else {
        if a.len() != b.len() {
            return Err(StatsError::Parameter(format!(
                "a and b must be paired (same length): {} vs {}",
                a.len(),
                b.len()
            )));
        }
        a.iter().zip(b).map(|(x, y)| x - y).collect()
    };
    let d: Vec<f64> = d.into_iter().filter(|x| *x != 0.0).collect();
    if d.is_empty() {
        return Err(StatsError::Undefined("every difference is zero, so the signed ranks are empty"));
    }
    let abs: Vec<f64> = d.iter().map(|x| x.abs()).collect();
    let (r, ties) = ranks(&abs);
    let w_plus: f64 = d.iter().zip(&r).filter(|(x, _)| **x > 0.0).map(|(_, r)| r).sum();
    let w_minus: f64 = d.iter().zip(&r).filter(|(x, _)| **x < 0.0).map(|(_, r)| r).sum();
    let n = d.len() as f64;
    let stat = w_plus.min(w_minus);
    let mn = n * (n + 1.0) / 4.0;
    let var = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - tie_sum(&ties) / 48.0;
    let z = (stat - mn) / var.sqrt();
    Ok(TestResult { statistic: stat, p: normal_two_sided(z) })
}

/// Kruskal–Wallis H test, tie-corrected, p from χ² with k − 1 degrees of freedom (`kruskal(*groups)`).
pub fn kruskal(groups: &[Vec<f64>]) -> Result<TestResult, StatsError> {
    if groups.len() < 2 {
        return Err(StatsError::Parameter(format!("kruskal needs at least 2 groups (it has {})", groups.len())));
    }
    for (i, g) in groups.iter().enumerate() {
        need(&format!("groups[{i}]"), g, 1)?;
    }
    let all: Vec<f64> = groups.iter().flatten().copied().collect();
    let n = all.len() as f64;
    let (r, ties) = ranks(&all);
    let mut h = 0.0;
    let mut at = 0;
    for g in groups {
        let rs: f64 = r[at..at + g.len()].iter().sum();
        h += rs * rs / g.len() as f64;
        at += g.len();
    }
    h = 12.0 / (n * (n + 1.0)) * h - 3.0 * (n + 1.0);
    let correction = 1.0 - tie_sum(&ties) / (n * n * n - n);
    if correction <= 0.0 {
        return Err(StatsError::Undefined("every value in every group is the same, so H is undefined"));
    }
    h /= correction;
    let chi = ChiSquared::new(groups.len() as f64 - 1.0).expect("k - 1 > 0");
    Ok(TestResult { statistic: h, p: chi.sf(h) })
}

/// Exact one-sided binomial test: P(X ≥ k) for X ~ Binomial(n, p0)
/// (`binomtest(k, n, p0, alternative="greater").pvalue`).
pub fn binom_greater(k: u64, n: u64, p0: f64) -> Result<f64, StatsError> {
    if n == 0 {
        return Err(StatsError::Parameter("n must be at least 1".into()));
    }
    if k > n {
        return Err(StatsError::Parameter(format!("k ({k}) cannot exceed n ({n})")));
    }
    if !(0.0..=1.0).contains(&p0) || !p0.is_finite() {
        return Err(StatsError::Parameter(format!("p0 must be a probability in [0, 1] (it is {p0})")));
    }
    Ok(crate::chance::binomial_tail(n, p0, k))
}

/// The t confidence interval of the mean of `a` at `level` (e.g. 0.95):
/// mean ± t_{(1+level)/2, n−1} · s/√n (`scipy.stats.t.interval(level, n-1, mean, sem)`).
pub fn ci_mean(a: &[f64], level: f64) -> Result<(f64, f64), StatsError> {
    need("a", a, 2)?;
    if !(level > 0.0 && level < 1.0) {
        return Err(StatsError::Parameter(format!("level must be between 0 and 1 (it is {level})")));
    }
    let n = a.len() as f64;
    let m = mean(a);
    let sem = (variance(a) / n).sqrt();
    let q = StudentsT::new(0.0, 1.0, n - 1.0).expect("n > 1").inverse_cdf((1.0 + level) / 2.0);
    Ok((m - q * sem, m + q * sem))
}

/// The 95 % normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson's score interval for `successes` of `n` at normal quantile `z` (`(0, 1)` for no trials).
pub fn wilson(successes: usize, n: usize, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, p) = (n as f64, successes as f64 / n as f64);
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The fewest observations a plotted point needs to be drawn solid: below it a chart draws the point
/// faint and its legend says so. With 10 answers a 95 % Wilson interval around 0.5 already spans
/// 0.24–0.76, so a point on fewer is mostly noise.
pub const MIN_POINT_N: u32 = 10;

/// A point's 95 % interval from its observations. `answers`: each value is one 0/1 answer, and the
/// point is a proportion: Wilson's score interval. Otherwise each value is a score of a trial or block
/// (a proportion of several answers, a d′): the percentile bootstrap of the mean (2,000 resamples, a
/// fixed seed so the same values always give the same interval). `None` for no values, and for a mean
/// of one value (nothing to resample).
pub fn point_interval(values: &[f64], answers: bool) -> Option<(f64, f64)> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return None;
    }
    if answers && finite.iter().all(|&v| v == 0.0 || v == 1.0) {
        let k = finite.iter().filter(|&&v| v == 1.0).count();
        return Some(wilson(k, finite.len(), Z95));
    }
    if finite.len() < 2 {
        return None;
    }
    const RESAMPLES: usize = 2000;
    let n = finite.len();
    let mut rng = crate::rng::Rng::from_u64(0x5eed_b007);
    let mut means: Vec<f64> =
        (0..RESAMPLES).map(|_| (0..n).map(|_| finite[rng.index(n)]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    // The 2.5th and 97.5th percentiles (numpy's default linear interpolation).
    let q = |p: f64| {
        let h = p * (RESAMPLES - 1) as f64;
        let (lo, frac) = (h.floor() as usize, h - h.floor());
        means[lo] + frac * (means[(lo + 1).min(RESAMPLES - 1)] - means[lo])
    };
    Some((q(0.025), q(0.975)))
}

/// Bonferroni-adjusted p-values (each times the number of tests, capped at 1), as the N-back notebook
/// corrects its Mann–Whitney post hoc comparisons.
pub fn bonferroni(ps: &[f64]) -> Vec<f64> {
    ps.iter().map(|p| (p * ps.len() as f64).min(1.0)).collect()
}

/// One request line of `wmlab stats` (see [`stats_line`]).
#[derive(Debug, Deserialize)]
#[serde(tag = "test", rename_all = "snake_case", deny_unknown_fields)]
enum Request {
    T1 {
        a: Vec<f64>,
        mu: f64,
    },
    TInd {
        a: Vec<f64>,
        b: Vec<f64>,
    },
    Welch {
        a: Vec<f64>,
        b: Vec<f64>,
    },
    #[serde(rename = "mannwhitney")]
    MannWhitney {
        a: Vec<f64>,
        b: Vec<f64>,
    },
    Wilcoxon {
        a: Vec<f64>,
        #[serde(default)]
        b: Vec<f64>,
    },
    Kruskal {
        groups: Vec<Vec<f64>>,
    },
    Binom {
        k: u64,
        n: u64,
        p0: f64,
    },
    CiMean {
        a: Vec<f64>,
        level: f64,
    },
}

/// The tests `wmlab stats` knows, as written in its `"test"` field.
pub const TEST_NAMES: [&str; 8] = ["t1", "t_ind", "welch", "mannwhitney", "wilcoxon", "kruskal", "binom", "ci_mean"];

/// `wmlab stats`: one JSON request line in, one JSON line out. `{"test":"t1","a":[…],"mu":0.5}` →
/// `{"statistic":t,"p":p}`; `t_ind`, `welch`, `mannwhitney`, `wilcoxon` with `a`, `b` →
/// `{"statistic","p"}`; `kruskal` with `groups` → `{"statistic","p"}`; `binom` with `k`, `n`, `p0` →
/// `{"p"}`; `ci_mean` with `a`, `level` → `{"lo","hi"}`. A bad line gives `{"error":"…"}`.
pub fn stats_line(line: &str) -> String {
    let out = match run_line(line) {
        Ok(v) => v,
        Err(e) => serde_json::json!({ "error": e }),
    };
    out.to_string()
}

fn run_line(line: &str) -> Result<serde_json::Value, String> {
    use serde_json::json;
    let value: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let name = value.get("test").and_then(|t| t.as_str()).map(str::to_owned);
    match name.as_deref() {
        None => return Err(format!("missing \"test\"; one of: {}", TEST_NAMES.join(", "))),
        Some(n) if !TEST_NAMES.contains(&n) => {
            return Err(format!("unknown test {n:?}; one of: {}", TEST_NAMES.join(", ")));
        }
        _ => {}
    }
    let req: Request = serde_json::from_value(value).map_err(|e| format!("bad fields for this test: {e}"))?;
    let tr = |r: TestResult| json!({ "statistic": r.statistic, "p": r.p });
    Ok(match req {
        Request::T1 { a, mu } => tr(t_one_sample(&a, mu)?),
        Request::TInd { a, b } => tr(t_ind(&a, &b)?),
        Request::Welch { a, b } => tr(welch(&a, &b)?),
        Request::MannWhitney { a, b } => tr(mann_whitney(&a, &b)?),
        Request::Wilcoxon { a, b } => tr(wilcoxon(&a, &b)?),
        Request::Kruskal { groups } => tr(kruskal(&groups)?),
        Request::Binom { k, n, p0 } => json!({ "p": binom_greater(k, n, p0)? }),
        Request::CiMean { a, level } => {
            let (lo, hi) = ci_mean(&a, level)?;
            json!({ "lo": lo, "hi": hi })
        }
    })
}

#[cfg(test)]
mod interval_tests {
    use super::*;

    #[test]
    fn proportions_get_wilson_and_means_a_seeded_bootstrap() {
        // 3 of 4 right: Wilson (statsmodels proportion_confint(3, 4, method="wilson")).
        let (lo, hi) = point_interval(&[1.0, 1.0, 0.0, 1.0], true).unwrap();
        assert!((lo - 0.300_641_8).abs() < 1e-6 && (hi - 0.954_412_7).abs() < 1e-6, "{lo} {hi}");
        // One answer still has an interval; one mean does not; nothing has none.
        assert_eq!(point_interval(&[0.0], true).map(|(l, _)| l), Some(0.0));
        assert_eq!(point_interval(&[1.0], false), None, "one block's score is a mean of one");
        assert_eq!(point_interval(&[], true), None);
        // Partial credit: the bootstrap holds the mean, stays inside the values and repeats exactly.
        let xs = [0.2, 0.4, 0.5, 0.6, 0.9, 0.3, 0.7, 0.5];
        let (lo, hi) = point_interval(&xs, false).unwrap();
        let m = mean(&xs);
        assert!(lo < m && m < hi && lo >= 0.2 && hi <= 0.9, "{lo} {m} {hi}");
        assert_eq!(point_interval(&xs, false), Some((lo, hi)));
        assert_eq!(point_interval(&xs, true), Some((lo, hi)), "values that are not 0/1 are means");
        // Its width is near the t interval's for this many values.
        let (tl, th) = ci_mean(&xs, 0.95).unwrap();
        assert!(((hi - lo) / (th - tl) - 1.0).abs() < 0.35, "{lo}..{hi} vs {tl}..{th}");
    }
}
