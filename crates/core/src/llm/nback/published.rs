//! What Gong et al. published: the summary table, the per-block counts, and their d′ tests.

use serde::{Deserialize, Serialize};

use super::*;

/// One row of the paper's summary table ([`REPORTED_SUMMARY_CSV`]); rates in %.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportedSummary {
    /// The paper's results file summarised (`all_trials_*.json`).
    pub results_file: String,
    /// The model that was tested, as the paper names it (`GPT-3.5-turbo`, `Vicuna-13B`, …).
    pub model: String,
    /// The N-back level (1, 2 or 3).
    pub n: u8,
    /// Blocks the means and SEs are over (30 or 50).
    pub blocks_used: usize,
    /// Trials in each block (24 for the ChatGPT-WM sets, 30 for `n-back-datasets`).
    pub trials_per_block: usize,
    /// Hit rate (mean, SE), in %.
    pub hit_rate: (f64, f64),
    /// False-alarm rate (mean, SE), in %.
    pub false_alarm_rate: (f64, f64),
    /// Accuracy (mean, SE), in %.
    pub accuracy: (f64, f64),
    /// d′ (mean, SE) over the blocks.
    pub dprime: (f64, f64),
}

/// The rows of [`REPORTED_SUMMARY_CSV`]; a malformed line is skipped.
pub fn reported_summary() -> Vec<ReportedSummary> {
    REPORTED_SUMMARY_CSV
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            if f.len() != 13 {
                return None;
            }
            let x = |i: usize| f[i].parse::<f64>().ok();
            Some(ReportedSummary {
                results_file: f[0].into(),
                model: f[1].into(),
                n: f[2].parse().ok()?,
                blocks_used: f[3].parse().ok()?,
                trials_per_block: f[4].parse().ok()?,
                hit_rate: (x(5)?, x(6)?),
                false_alarm_rate: (x(7)?, x(8)?),
                accuracy: (x(9)?, x(10)?),
                dprime: (x(11)?, x(12)?),
            })
        })
        .collect()
}

/// The published results files of the same variant *and* protocol as a run: what a run is drawn
/// against. Letters (24 trials, system-prompt protocols) ↔ GPT-3.5's verbal files; letters_30 with the
/// README protocol ↔ GPT-4 and the open models (30 blocks of 30); grids ↔ GPT-3.5's spatial files of the
/// same grid and protocol. Empty where the papers ran no such experiment (e.g. 4×4 grids with noise).
pub fn reported_files_for(variant: Variant, protocol: Protocol) -> &'static [&'static str] {
    use Protocol::*;
    use Variant::*;
    match (variant, protocol) {
        (Letters, Base) => &["all_trials_verbal.json"],
        (Letters, Noise) => &["all_trials_verbal_noise.json"],
        (Letters, Feedback) => &["all_trials_verbal_feedback.json"],
        (Letters, Cot) => &["all_trials_verbal_think_by_step.json"],
        (Letters30, Readme) => &[
            "all_trials_verbal_gpt-4.json",
            "all_trials_verbal_Vicuna-13B.json",
            "all_trials_verbal_Vicuna-7B.json",
            "all_trials_verbal_chatglm-6b_v1.1.json",
            "all_trials_verbal_chatglm-6b_v1.0.json",
            "all_trials_verbal_bloomz-7b1-mt.json",
            "all_trials_verbal_bloomz-7b.json",
        ],
        (Grids3x3, Base) => &["all_trials_spatial_3*3.json"],
        (Grids3x3, Noise) => &["all_trials_spatial_with_noise.json"],
        (Grids3x3, Feedback) => &["all_trials_spatial_feedback.json"],
        (Grids3x3, Cot) => &["all_trials_spatial_think_by_step.json"],
        (Grids4x4, Base) => &["all_trials_spatial_4*4.json"],
        (Grids5x5, Base) => &["all_trials_spatial_5*5.json"],
        (Grids7x7, Base) => &["all_trials_spatial_7*7.json"],
        (Grids3x3Abstraction, Base) => &["all_trials_spatial_abstraction.json"],
        (Grids3x3Abstraction2, Base) => &["all_trials_spatial_abstraction_2.json"],
        _ => &[],
    }
}

/// [`reported_summary`] rows of [`reported_files_for`], in that order, each file's rows by N.
pub fn reported_for(variant: Variant, protocol: Protocol) -> Vec<ReportedSummary> {
    let all = reported_summary();
    let mut out = Vec::new();
    for file in reported_files_for(variant, protocol) {
        let mut rows: Vec<ReportedSummary> = all.iter().filter(|r| r.results_file == *file).cloned().collect();
        rows.sort_by_key(|r| r.n);
        rows.dedup_by_key(|r| r.n);
        out.extend(rows);
    }
    out
}

/// The N-back paper's tests on d′ (`analysis_across_exps.ipynb`): Kruskal–Wallis across N, pairwise
/// Mann–Whitney post hoc with Bonferroni correction, and Wilcoxon of d′ against 0 at each N. Each test is
/// an `Err` with the reason where the data cannot support it (e.g. one block per N).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DprimeTests {
    /// (N, number of blocks, mean d′) for each N present, ascending.
    pub levels: Vec<(u8, usize, f64)>,
    /// Kruskal–Wallis H across the N levels (an `Err` with fewer than two).
    pub kruskal: Result<crate::stats::TestResult, crate::stats::StatsError>,
    /// (N a, N b, U of a and raw p, Bonferroni-adjusted p).
    pub pairs: Vec<(u8, u8, Result<(crate::stats::TestResult, f64), crate::stats::StatsError>)>,
    /// (N, Wilcoxon signed-rank test of that N's d′ against 0).
    pub against_zero: Vec<(u8, Result<crate::stats::TestResult, crate::stats::StatsError>)>,
}

/// [`DprimeTests`] of per-block `(N, d′)` values.
pub fn dprime_tests(per_block: &[(u8, f64)]) -> DprimeTests {
    use crate::stats;
    let mut ns: Vec<u8> = per_block.iter().map(|p| p.0).collect();
    ns.sort();
    ns.dedup();
    let group = |n: u8| -> Vec<f64> { per_block.iter().filter(|p| p.0 == n).map(|p| p.1).collect() };
    let groups: Vec<Vec<f64>> = ns.iter().map(|&n| group(n)).collect();
    let levels = ns.iter().zip(&groups).map(|(&n, g)| (n, g.len(), stats::mean(g))).collect();
    let kruskal = if ns.len() < 2 {
        Err(stats::StatsError::Parameter("Kruskal–Wallis needs at least two N levels".into()))
    } else {
        stats::kruskal(&groups)
    };
    let mut raw = Vec::new();
    for i in 0..ns.len() {
        for j in i + 1..ns.len() {
            raw.push((ns[i], ns[j], stats::mann_whitney(&groups[i], &groups[j])));
        }
    }
    let ok_ps: Vec<f64> = raw.iter().filter_map(|r| r.2.as_ref().ok().map(|t| t.p)).collect();
    let adjusted = stats::bonferroni(&ok_ps);
    let mut k = 0;
    let pairs = raw
        .into_iter()
        .map(|(a, b, r)| {
            let r = r.map(|t| {
                k += 1;
                (t, adjusted[k - 1])
            });
            (a, b, r)
        })
        .collect();
    let against_zero = ns.iter().zip(&groups).map(|(&n, g)| (n, stats::wilcoxon(g, &[]))).collect();
    DprimeTests { levels, kruskal, pairs, against_zero }
}

/// One row of [`REPORTED_PER_BLOCK_CSV`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportedBlock {
    /// The paper's results file (`all_trials_*.json`).
    pub results_file: String,
    /// The N-back level (1, 2 or 3).
    pub n: u8,
    /// The block's index within its N.
    pub block: usize,
    /// Match trials.
    pub targets: u32,
    /// Non-match trials.
    pub lures: u32,
    /// Match trials answered `m`.
    pub hits: u32,
    /// Non-match trials answered `m`.
    pub false_alarms: u32,
    /// Notebook d′ as reported (4 dp).
    pub dprime: f64,
}

impl ReportedBlock {
    /// The block's measures recomputed from its counts (no unusable trials).
    pub fn scores(&self) -> SdtScores {
        SdtScores::from_counts(
            self.hits,
            self.targets - self.hits,
            self.false_alarms,
            self.lures - self.false_alarms,
            0,
        )
    }
}

/// The rows of [`REPORTED_PER_BLOCK_CSV`]; a malformed line is skipped.
pub fn reported_blocks() -> Vec<ReportedBlock> {
    REPORTED_PER_BLOCK_CSV
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            if f.len() != 8 {
                return None;
            }
            Some(ReportedBlock {
                results_file: f[0].into(),
                n: f[1].parse().ok()?,
                block: f[2].parse().ok()?,
                targets: f[3].parse().ok()?,
                lures: f[4].parse().ok()?,
                hits: f[5].parse().ok()?,
                false_alarms: f[6].parse().ok()?,
                dprime: f[7].parse().ok()?,
            })
        })
        .collect()
}

/// The paper's d′ tests ([`dprime_tests`]) on the published blocks of one results file; `None` when the
/// file has no per-block rows.
pub fn reported_file_tests(results_file: &str) -> Option<DprimeTests> {
    let per: Vec<(u8, f64)> =
        reported_blocks().iter().filter(|b| b.results_file == results_file).map(|b| (b.n, b.dprime)).collect();
    (!per.is_empty()).then(|| dprime_tests(&per))
}
