//! Signal-detection scoring of yes/no (match / non-match) responses: the one N-back scorer shared by
//! people and language models.
//!
//! A block is a condition string (`m` = match trial, `-` = non-match, one char per trial) and an answer
//! string of the same length (`m` / `-`; any other char — `?` by convention — is an unusable reply). An
//! unusable reply counts as a non-`m` response (a miss on a match trial, a correct rejection on a
//! non-match trial, as in the reference notebooks where an invalid reply is simply not `m`) and is also
//! counted separately in [`SdtScores::unusable`].
//!
//! Two d′ values are kept:
//! - [`SdtScores::dprime`]: the README definition, z(HR) − z(FAR), signed, where a rate of exactly 0 or 1
//!   is moved by 0.01 (to 0.01 / 0.99);
//! - [`SdtScores::dprime_notebook`]: what the paper's numbers were computed with
//!   (`compute_summary_stats`): |z(clip(HR, .01, .99)) − z(clip(FAR, .01, .99))|, absolute value.
//!
//! They differ only when HR < FAR (sign) or a rate lies strictly inside (0, .01) or (.99, 1) (blocks of
//! more than 100 trials). Block summaries are mean ± SE with SE = population SD (ddof 0) / √blocks, as
//! the notebook (`np.std(x) / sqrt(blocks)`).

use serde::{Deserialize, Serialize};

/// The README's adjustment of a rate of 0 or 1.
pub const RATE_ADJUST: f64 = 0.01;

/// Inverse of the standard normal CDF (probit), Acklam's rational approximation (relative error
/// below 1.15e-9 on (0, 1)). Returns ±∞ at 0 and 1 and NaN outside [0, 1].
pub fn inv_norm_cdf(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    const P_LOW: f64 = 0.024_25;
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let tail = |p: f64| {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < P_LOW {
        tail(p)
    } else if p <= 1.0 - P_LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail(1.0 - p)
    }
}

/// README d′: z(HR) − z(FAR), a rate of exactly 0 or 1 moved by 0.01. Signed.
pub fn dprime(hit_rate: f64, false_alarm_rate: f64) -> f64 {
    let adj = |r: f64| {
        if r <= 0.0 {
            RATE_ADJUST
        } else if r >= 1.0 {
            1.0 - RATE_ADJUST
        } else {
            r
        }
    };
    inv_norm_cdf(adj(hit_rate)) - inv_norm_cdf(adj(false_alarm_rate))
}

/// Notebook d′ (the reported numbers): |z(clip(HR, .01, .99)) − z(clip(FAR, .01, .99))|.
pub fn dprime_notebook(hit_rate: f64, false_alarm_rate: f64) -> f64 {
    let clip = |r: f64| r.clamp(RATE_ADJUST, 1.0 - RATE_ADJUST);
    (inv_norm_cdf(clip(hit_rate)) - inv_norm_cdf(clip(false_alarm_rate))).abs()
}

/// Scores of one block. Rates are fractions (0–1); a rate with an empty denominator is 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SdtScores {
    /// Scored trials (after any exclusion).
    pub trials: u32,
    /// Match trials answered `m`.
    pub hits: u32,
    /// Match trials answered anything but `m` (an unusable reply included).
    pub misses: u32,
    /// Non-match trials answered `m`.
    pub false_alarms: u32,
    /// Non-match trials answered anything but `m` (an unusable reply included).
    pub correct_rejections: u32,
    /// Replies that were neither `m` nor `-` (already counted as non-`m` responses above).
    pub unusable: u32,
    /// Hits / match trials (HR), unadjusted.
    pub hit_rate: f64,
    /// False alarms / non-match trials (FAR), unadjusted.
    pub false_alarm_rate: f64,
    /// (Hits + correct rejections) / scored trials.
    pub accuracy: f64,
    /// README d′ (signed, 0/1 moved by 0.01).
    pub dprime: f64,
    /// Notebook d′ (clip to [.01, .99], absolute value): the one the paper's tables report.
    pub dprime_notebook: f64,
}

impl SdtScores {
    /// From counts (targets = hits + misses, non-targets = false alarms + correct rejections).
    pub fn from_counts(hits: u32, misses: u32, false_alarms: u32, correct_rejections: u32, unusable: u32) -> Self {
        let targets = hits + misses;
        let lures = false_alarms + correct_rejections;
        let trials = targets + lures;
        let ratio = |a: u32, b: u32| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let hit_rate = ratio(hits, targets);
        let false_alarm_rate = ratio(false_alarms, lures);
        SdtScores {
            trials,
            hits,
            misses,
            false_alarms,
            correct_rejections,
            unusable,
            hit_rate,
            false_alarm_rate,
            accuracy: ratio(hits + correct_rejections, trials),
            dprime: dprime(hit_rate, false_alarm_rate),
            dprime_notebook: dprime_notebook(hit_rate, false_alarm_rate),
        }
    }

    /// Score every trial. `conditions` and `answers` are compared char by char; a missing answer (answers
    /// shorter than conditions) is unusable. Conditions other than `m` count as non-match.
    pub fn score(conditions: &str, answers: &str) -> Self {
        Self::score_masked(conditions, answers, &[])
    }

    /// Like [`score`](Self::score) but trials `i` with `exclude[i] == true` are not scored (e.g. the
    /// 6 pre-filled trials of the other-models protocol, if one wants to leave them out; the paper
    /// counts them). `exclude` may be shorter than the block (missing = included).
    pub fn score_masked(conditions: &str, answers: &str, exclude: &[bool]) -> Self {
        let (mut h, mut m, mut fa, mut cr, mut un) = (0, 0, 0, 0, 0);
        let mut ans = answers.chars();
        for (i, c) in conditions.chars().enumerate() {
            let a = ans.next().unwrap_or('?');
            if exclude.get(i).copied().unwrap_or(false) {
                continue;
            }
            if a != 'm' && a != '-' {
                un += 1;
            }
            match (c == 'm', a == 'm') {
                (true, true) => h += 1,
                (true, false) => m += 1,
                (false, true) => fa += 1,
                (false, false) => cr += 1,
            }
        }
        Self::from_counts(h, m, fa, cr, un)
    }
}

/// Mean ± standard error over blocks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeanSe {
    /// The mean over blocks (NaN when there is none).
    pub mean: f64,
    /// Population SD (ddof 0) / √n, as `np.std(x) / sqrt(n)` in the notebooks.
    pub se: f64,
    /// Blocks averaged.
    pub n: usize,
}

/// Mean and SE (population SD / √n). Empty input gives NaN mean and SE.
pub fn mean_se(values: &[f64]) -> MeanSe {
    let n = values.len();
    if n == 0 {
        return MeanSe { mean: f64::NAN, se: f64::NAN, n };
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
    MeanSe { mean, se: var.sqrt() / (n as f64).sqrt(), n }
}

/// Mean ± SE of every block measure (rates as fractions, not %).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SdtSummary {
    /// Blocks summarised.
    pub blocks: usize,
    /// The blocks' hit rates ([`SdtScores::hit_rate`]).
    pub hit_rate: MeanSe,
    /// The blocks' false-alarm rates ([`SdtScores::false_alarm_rate`]).
    pub false_alarm_rate: MeanSe,
    /// The blocks' accuracies ([`SdtScores::accuracy`]).
    pub accuracy: MeanSe,
    /// The blocks' README d′ values ([`SdtScores::dprime`]).
    pub dprime: MeanSe,
    /// The blocks' notebook d′ values ([`SdtScores::dprime_notebook`]): what the paper's tables report.
    pub dprime_notebook: MeanSe,
    /// Total unusable replies over all blocks.
    pub unusable: u32,
}

/// Mean ± SE over `blocks` of each measure ([`mean_se`]: population SD / √blocks, as the notebooks), and
/// the unusable replies summed; NaN means and SEs when there is no block.
pub fn summarize(blocks: &[SdtScores]) -> SdtSummary {
    let col = |f: fn(&SdtScores) -> f64| mean_se(&blocks.iter().map(f).collect::<Vec<_>>());
    SdtSummary {
        blocks: blocks.len(),
        hit_rate: col(|s| s.hit_rate),
        false_alarm_rate: col(|s| s.false_alarm_rate),
        accuracy: col(|s| s.accuracy),
        dprime: col(|s| s.dprime),
        dprime_notebook: col(|s| s.dprime_notebook),
        unusable: blocks.iter().map(|s| s.unusable).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probit_known_values() {
        assert!((inv_norm_cdf(0.975) - 1.959_964).abs() < 1e-6);
        assert!((inv_norm_cdf(0.01) + 2.326_348).abs() < 1e-6);
        assert!((inv_norm_cdf(0.99) - 2.326_348).abs() < 1e-6);
        assert!(inv_norm_cdf(0.5).abs() < 1e-12);
        assert!((inv_norm_cdf(0.841_344_746) - 1.0).abs() < 1e-6);
        assert!((inv_norm_cdf(0.001) + 3.090_232).abs() < 1e-6);
        assert!((inv_norm_cdf(0.02) + 2.053_749).abs() < 1e-6);
        assert!(inv_norm_cdf(0.0).is_infinite() && inv_norm_cdf(1.0).is_infinite());
        assert!(inv_norm_cdf(1.5).is_nan());
    }

    #[test]
    fn perfect_block_uses_the_001_adjustment() {
        let s = SdtScores::score("--m-mm--", "--m-mm--");
        assert_eq!((s.hits, s.misses, s.false_alarms, s.correct_rejections, s.unusable), (3, 0, 0, 5, 0));
        assert_eq!((s.hit_rate, s.false_alarm_rate, s.accuracy), (1.0, 0.0, 1.0));
        assert!((s.dprime - 4.6527).abs() < 1e-4, "{}", s.dprime);
        assert!((s.dprime_notebook - 4.6527).abs() < 1e-4);
    }

    #[test]
    fn unusable_replies_count_as_non_match_and_separately() {
        let s = SdtScores::score("mm--", "m?x");
        assert_eq!((s.hits, s.misses, s.false_alarms, s.correct_rejections), (1, 1, 0, 2));
        assert_eq!(s.unusable, 3);
        // Inverted responder: README d' is negative, notebook d' is its absolute value.
        let s = SdtScores::score("mm--", "--mm");
        assert!(s.dprime < -4.0 && (s.dprime + s.dprime_notebook).abs() < 1e-12);
    }

    #[test]
    fn masked_trials_are_not_scored() {
        let s = SdtScores::score_masked("m--m", "----", &[true, true]);
        assert_eq!((s.trials, s.misses, s.correct_rejections), (2, 1, 1));
    }

    #[test]
    fn mean_se_is_population_sd_over_sqrt_n() {
        let m = mean_se(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(m.mean, 2.5);
        assert!((m.se - (1.25f64).sqrt() / 2.0).abs() < 1e-12);
    }
}
