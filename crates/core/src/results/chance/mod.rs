//! Chance and significance of a WorM task's accuracy, for any result record (people, LLMs, networks):
//! the same scored items the task's accuracy is over, the accuracy a guesser would expect on them, and
//! the one-sided exact probability of doing at least as well by guessing.
//!
//! The scored items are those of the reference's accuracy (see [`accuracy_items`]): every entry of a
//! row's `correct`, except for CS, where only the recall probes count (classes 4–19, as
//! `bench_cs_task.ipynb` scores it). An item's chance is that of a uniform guess among the answers the
//! step offers:
//!
//! | ids | item | chance |
//! |---|---|---|
//! | SC, SI, VIR, VSRec, CD×5 | the one binary probe | 1/2 |
//! | STS | a task frame (up/down or left/right) | 1/2 |
//! | VSR, SMU | a probe over the 9 cells | 1/9 |
//! | CS | a recall probe over the 8 slots | 1/8 |
//! | SFR | a target cell, recalled by choosing L of the 100 cells | L/100 |
//!
//! SFR's chance is that of choosing L cells at random among all 100, as the network and the scoring do;
//! a guesser who knew which 30 cells were on the board would expect L/30, so an SFR accuracy between
//! the two shows only that the board was seen.
//!
//! The p-value is exact under independent items: `P(X ≥ correct)` for X the number of successes of
//! independent Bernoulli trials with the items' chances (a Poisson-binomial; a plain binomial when all
//! chances are equal). SFR's cells within one trial are not independent (L cells chosen without
//! replacement), so there it is an approximation.
//!
//! Above chance is not yet memory: some probes can be answered from the frame shown alone (VSR's probe
//! shows the L studied patterns, so any of them is right 1/L of the time; STS's diagonal markers have one
//! answer under both rules; …). [`memoryless`] gives each item the best accuracy a subject with no memory
//! of the trial's earlier frames can reach, and [`TaskSignificance::p_above_memoryless`] tests the same
//! items against it the same way; [`TaskSignificance::shows_memory`] is the claim that needs memory.

use serde::{Deserialize, Serialize};

use crate::record::{ResultRecord, TrialRow};
use crate::task::{Conditions, TaskId, TaskSpec};
use crate::tasks::sfr::SfrParams;

pub mod memoryless;
pub use memoryless::{item_memoryless, memoryless_items};

/// The level of the one-sided test behind "above chance" everywhere (CLI, trainer, Networks page).
pub const LEVEL: f64 = 0.01;

/// CS classes of the recall probes (4 + slot); the other CS classes are the processing judgements.
const CS_RECALL: std::ops::Range<u16> = 4..20;

/// Chance of one scored item of `task` in a trial with `conditions` (see the module table).
pub fn item_chance(task: TaskId, conditions: &Conditions) -> f64 {
    match task {
        TaskId::Vsr | TaskId::Smu => 1.0 / 9.0,
        TaskId::Cs => 1.0 / 8.0,
        // A guess among the L words the probe shows.
        TaskId::Lsr => 1.0 / conditions.list_length.unwrap_or(1).max(1) as f64,
        TaskId::Sfr => {
            let p = SfrParams::default();
            let cells = (p.grid as f64).powi(2);
            let l = conditions.list_length.unwrap_or(1).max(1) as f64;
            (l / cells).min(1.0)
        }
        _ => 0.5,
    }
}

/// The scored items of a row that count in its task's accuracy, as `(correct, chance)`; none for a row
/// whose task is not a WorM task id.
pub fn accuracy_items(row: &TrialRow) -> Vec<(bool, f64)> {
    let Some(task) = TaskId::parse(&row.task) else { return Vec::new() };
    let chance = item_chance(task, &row.conditions);
    row.targets
        .iter()
        .zip(&row.correct)
        .filter(|(t, _)| counts_in_accuracy(task, t))
        .map(|(_, &ok)| (ok, chance))
        .collect()
}

/// Whether a scored item with `target` counts in `task`'s accuracy (all but CS's judgements).
fn counts_in_accuracy(task: TaskId, target: &str) -> bool {
    task != TaskId::Cs || target.parse::<u16>().is_ok_and(|c| CS_RECALL.contains(&c))
}

/// A task's accuracy beside chance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskSignificance {
    /// The WorM task id as records write it (`SC`, `CD-Color`, `LSR`, …).
    pub task: String,
    /// Proportion correct over the scored items.
    pub accuracy: f64,
    /// Expected accuracy of a uniform guesser on the same items.
    pub chance: f64,
    /// Scored items (responses) the accuracy is over.
    pub responses: u64,
    /// Items answered correctly.
    pub correct: u64,
    /// One-sided exact `P(X ≥ correct)` under guessing (see the module notes).
    pub p_above_chance: f64,
    /// Expected accuracy on the same items of the best subject that sees only the current frame
    /// ([`memoryless`]); at least `chance`.
    #[serde(default)]
    pub memoryless: f64,
    /// One-sided exact `P(X ≥ correct)` for X the successes of that subject (Poisson-binomial over the
    /// items' baselines).
    #[serde(default = "one")]
    pub p_above_memoryless: f64,
}

fn one() -> f64 {
    1.0
}

impl TaskSignificance {
    /// Above chance at level `alpha` (one-sided).
    pub fn above_chance(&self, alpha: f64) -> bool {
        self.p_above_chance < alpha
    }
    /// Above the memoryless baseline at level `alpha` (one-sided): better than any subject answering
    /// from the current frame alone can expect, so the subject kept something of the earlier frames.
    pub fn shows_memory(&self, alpha: f64) -> bool {
        self.p_above_memoryless < alpha
    }
}

/// Accuracy, chance, the memoryless baseline and both p of `task` over the rows of that task, with the
/// reference parameters (None when it has no scored item).
pub fn task_significance(task: TaskId, rows: &[TrialRow]) -> Option<TaskSignificance> {
    task_significance_in(&TaskSpec::new(task), rows)
}

/// [`task_significance`] with the parameters the rows were generated with (they set SMU's number of
/// updates, CD's size quirk, SFR's board, which the memoryless baseline depends on).
pub fn task_significance_in(spec: &TaskSpec, rows: &[TrialRow]) -> Option<TaskSignificance> {
    let task = spec.id;
    let (mut outcomes, mut chances, mut baselines) = (Vec::new(), Vec::new(), Vec::new());
    for r in rows.iter().filter(|r| r.task == task.as_str()) {
        let items = accuracy_items(r);
        let m = memoryless_items(r, Some(spec));
        debug_assert_eq!(items.len(), m.len());
        for ((ok, p), m) in items.into_iter().zip(m) {
            outcomes.push(ok);
            chances.push(p);
            // (The best from the frame is never below a uniform guess; `max` only guards rounding.)
            baselines.push(m.max(p));
        }
    }
    if outcomes.is_empty() {
        return None;
    }
    let n = outcomes.len() as u64;
    let k = outcomes.iter().filter(|ok| **ok).count() as u64;
    Some(TaskSignificance {
        task: task.as_str().to_string(),
        accuracy: k as f64 / n as f64,
        chance: chances.iter().sum::<f64>() / n as f64,
        responses: n,
        correct: k,
        p_above_chance: poisson_binomial_tail(&chances, k),
        memoryless: baselines.iter().sum::<f64>() / n as f64,
        p_above_memoryless: poisson_binomial_tail(&baselines, k),
    })
}

/// [`task_significance`] of every WorM task id (and LSR) that has scored rows in the record, in
/// [`TaskId::EVERY`] order, each with the record's parameters for it (`config.tasks`; the reference
/// ones where it has none). Works on any record: a person's session, an LLM run, a network's test.
pub fn record_significance(record: &ResultRecord) -> Vec<TaskSignificance> {
    TaskId::EVERY
        .iter()
        .filter_map(|&t| {
            let spec = record.config.tasks.iter().find(|s| s.id == t).cloned().unwrap_or_else(|| TaskSpec::new(t));
            task_significance_in(&spec, &record.trials)
        })
        .collect()
}

/// `P(X ≥ k)` for X ~ Binomial(n, p), accurate to about 1e-12 relative at any n up to 2⁶⁴ − 1.
///
/// `P(X ≥ k) = I_p(k, n − k + 1)`, the regularized incomplete beta function, computed as its leading
/// factor — the binomial probability of exactly k, times q — by Loader's saddle-point method (no
/// `ln Γ` differences, which lose every digit at n near 1e9), times its continued fraction (modified
/// Lentz), on the side of the mean where the fraction converges (else `1 − P(X ≤ k − 1)`). The fraction
/// takes about √n steps at k near the mean and few in the tails; past 1e12 trials the Lugannani–Rice
/// saddle-point approximation takes over, whose error there is far below double precision's needs.
pub fn binomial_tail(n: u64, p: f64, k: u64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    if p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    if k == n {
        return (n as f64 * p.ln()).exp();
    }
    // Past about 1e12 trials the fraction's √n steps grow long; there the saddle-point approximation
    // (relative error of order 1/n) is better than double precision needs.
    if n > 1_000_000_000_000 {
        return saddle_point_tail(n, p, k);
    }
    let (a, b) = (k as f64, (n - k) as f64 + 1.0);
    if p < (a + 1.0) / (a + b + 2.0) {
        // P(X ≥ k) = I_p(k, n−k+1) = pmf(k) · q · cf.
        (binom_pmf(k, n, p) * (1.0 - p) * beta_cf(a, b, p)).clamp(0.0, 1.0)
    } else {
        // 1 − P(X ≤ k−1), where P(X ≤ k−1) = I_q(n−k+1, k) = pmf(k−1) · p · cf'.
        let lower = binom_pmf(k - 1, n, p) * p * beta_cf(b, a, 1.0 - p);
        (1.0 - lower).clamp(0.0, 1.0)
    }
}

/// `P(X ≥ k)` by the Lugannani–Rice saddle-point approximation with Daniels' second continuity
/// correction (k − ½), for very large n: error of order n^(−3/2) in the tails and n^(−1) near the mean.
fn saddle_point_tail(n: u64, p: f64, k: u64) -> f64 {
    use statrs::distribution::{Continuous, ContinuousCDF, Normal};
    let norm = Normal::standard();
    let (nf, q) = (n as f64, 1.0 - p);
    let kt = k as f64 - 0.5;
    let (ph, qh) = (kt / nf, 1.0 - kt / nf);
    let theta = (ph * q / (qh * p)).ln();
    let dev = (bd0(kt, nf * p) + bd0(nf - kt, nf * q)).max(0.0);
    let w = theta.signum() * (2.0 * dev).sqrt();
    if w.abs() < 1e-6 {
        return norm.sf(w);
    }
    let u = 2.0 * (theta / 2.0).sinh() * (nf * ph * qh).sqrt();
    (norm.sf(w) + norm.pdf(w) * (1.0 / u - 1.0 / w)).clamp(0.0, 1.0)
}

/// `ln(n!) − ln(√(2πn) (n/e)ⁿ)`, the error of Stirling's formula (Loader 2000).
fn stirlerr(n: f64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if n <= 15.0 {
        return statrs::function::gamma::ln_gamma(n + 1.0) - (n + 0.5) * n.ln() + n
            - 0.5 * (2.0 * std::f64::consts::PI).ln();
    }
    let nn = n * n;
    if n > 500.0 {
        return (S0 - S1 / nn) / n;
    }
    (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
}

/// `x ln(x/np) + np − x`, the deviance term, without cancellation when x is near np (Loader 2000).
fn bd0(x: f64, np: f64) -> f64 {
    if (x - np).abs() < 0.1 * (x + np) {
        let v = (x - np) / (x + np);
        let mut s = (x - np) * v;
        let mut ej = 2.0 * x * v;
        let v2 = v * v;
        for j in 1..1000 {
            ej *= v2;
            let s1 = s + ej / (2 * j + 1) as f64;
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        return s;
    }
    x * (x / np).ln() + np - x
}

/// `P(X = x)` for X ~ Binomial(n, p), by Loader's saddle-point expansion: accurate at any n.
fn binom_pmf(x: u64, n: u64, p: f64) -> f64 {
    let q = 1.0 - p;
    if x == 0 {
        return (n as f64 * q.ln()).exp();
    }
    if x == n {
        return (n as f64 * p.ln()).exp();
    }
    let (x, nf) = (x as f64, n as f64);
    let lc = stirlerr(nf) - stirlerr(x) - stirlerr(nf - x) - bd0(x, nf * p) - bd0(nf - x, nf * q);
    let lf = (2.0 * std::f64::consts::PI).ln() + x.ln() + (-x / nf).ln_1p();
    (lc - 0.5 * lf).exp()
}

/// The continued fraction of the incomplete beta function, `I_x(a, b) = x^a (1−x)^b / (a B(a, b)) · cf`
/// (modified Lentz; converges quickly for `x < (a+1)/(a+b+2)`).
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-15;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let away = |v: f64| if v.abs() < TINY { TINY } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / away(1.0 - qab * x / qap);
    let mut h = d;
    // One Lentz step with the fraction's next coefficient: the factor it multiplies h by.
    let mut step = |aa: f64| {
        d = 1.0 / away(1.0 + aa * d);
        c = away(1.0 + aa / c);
        d * c
    };
    // About √max(a, b) steps near the mean; the cap only guards a broken input.
    let cap = (10.0 * a.max(b).sqrt()) as u64 + 10_000;
    for m in 1..=cap {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= del;
        if (del - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// `P(X ≥ k)` for X the number of successes of independent Bernoulli trials with probabilities
/// `chances` (exact; O(n²) by dynamic programming, a binomial when all are equal).
pub fn poisson_binomial_tail(chances: &[f64], k: u64) -> f64 {
    let n = chances.len();
    if k == 0 {
        return 1.0;
    }
    if k as usize > n {
        return 0.0;
    }
    if chances.iter().all(|&p| p == chances[0]) {
        return binomial_tail(n as u64, chances[0], k);
    }
    // dist[j] = P(j successes so far).
    let mut dist = vec![0.0f64; n + 1];
    dist[0] = 1.0;
    for (i, &p) in chances.iter().enumerate() {
        let p = p.clamp(0.0, 1.0);
        for j in (0..=i + 1).rev() {
            let stay = dist[j] * (1.0 - p);
            let up = if j > 0 { dist[j - 1] * p } else { 0.0 };
            dist[j] = stay + up;
        }
    }
    dist[k as usize..].iter().sum::<f64>().min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(task: &str, conditions: Conditions, targets: &[&str], correct: &[bool]) -> TrialRow {
        TrialRow {
            task: task.into(),
            trial: 0,
            conditions,
            targets: targets.iter().map(|s| s.to_string()).collect(),
            responses: targets.iter().map(|s| s.to_string()).collect(),
            correct: correct.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn binomial_tail_matches_hand_worked_values() {
        // n = 10, p = 1/2: P(X ≥ 8) = (45 + 10 + 1) / 1024.
        assert!((binomial_tail(10, 0.5, 8) - 56.0 / 1024.0).abs() < 1e-12);
        // P(X ≥ 0) = 1; P(X ≥ n + 1) = 0; P(X ≥ n) = p^n.
        assert_eq!(binomial_tail(10, 0.5, 0), 1.0);
        assert_eq!(binomial_tail(10, 0.5, 11), 0.0);
        assert!((binomial_tail(3, 1.0 / 9.0, 3) - 1.0 / 729.0).abs() < 1e-15);
        // n = 4, p = 1/9: P(X ≥ 2) = 1 − (8/9)^4 − 4 (1/9)(8/9)^3.
        let want = 1.0 - (8.0f64 / 9.0).powi(4) - 4.0 * (1.0 / 9.0) * (8.0f64 / 9.0).powi(3);
        assert!((binomial_tail(4, 1.0 / 9.0, 2) - want).abs() < 1e-12);
        // The bar of the quick preset: 200 binary trials need 117 correct (58.5 %) for p < 0.01.
        assert!(binomial_tail(200, 0.5, 117) < 0.01 && binomial_tail(200, 0.5, 116) >= 0.01);
        assert!((binomial_tail(200, 0.5, 117) - 0.009698472270169187).abs() < 1e-12);
    }

    #[test]
    fn poisson_binomial_matches_hand_worked_values() {
        let p = [0.5, 0.25, 0.1];
        // All three: 0.5 · 0.25 · 0.1.
        assert!((poisson_binomial_tail(&p, 3) - 0.0125).abs() < 1e-12);
        // At least two: 0.1125 + 0.0375 + 0.0125 + 0.0125.
        assert!((poisson_binomial_tail(&p, 2) - 0.175).abs() < 1e-12);
        assert_eq!(poisson_binomial_tail(&p, 0), 1.0);
        assert_eq!(poisson_binomial_tail(&p, 4), 0.0);
        // Equal chances reduce to the binomial.
        assert!((poisson_binomial_tail(&[0.5; 10], 8) - 56.0 / 1024.0).abs() < 1e-12);
    }

    #[test]
    fn items_chance_and_p_per_task() {
        let l3 = Conditions { list_length: Some(3), ..Default::default() };
        // VSR: 3 probes of 1/9 each, all right.
        let rows = vec![row("VSR", l3.clone(), &["1", "4", "7"], &[true, true, true])];
        let s = task_significance(TaskId::Vsr, &rows).unwrap();
        assert_eq!((s.responses, s.correct), (3, 3));
        assert!((s.chance - 1.0 / 9.0).abs() < 1e-12);
        assert!((s.p_above_chance - 1.0 / 729.0).abs() < 1e-15);
        // CS: the judgement steps (classes 0–3, 20) do not count; the recall probes (4–19) are 1/8.
        let rows = vec![row("CS", Conditions::default(), &["0", "3", "5", "12"], &[true, true, false, true])];
        let s = task_significance(TaskId::Cs, &rows).unwrap();
        assert_eq!((s.responses, s.correct), (2, 1));
        assert!((s.chance - 0.125).abs() < 1e-12);
        assert!((s.p_above_chance - (1.0 - 0.875f64.powi(2))).abs() < 1e-12);
        // SFR: L/100 per target cell, mixed list lengths average.
        let l1 = Conditions { list_length: Some(1), ..Default::default() };
        let rows = vec![row("SFR", l3, &["1", "2", "3"], &[true, false, false]), row("SFR", l1, &["9"], &[false])];
        let s = task_significance(TaskId::Sfr, &rows).unwrap();
        assert!((s.chance - (3.0 * 0.03 + 0.01) / 4.0).abs() < 1e-12);
        // Binary ids; a task with no rows has no entry.
        let rows: Vec<TrialRow> = (0..10).map(|i| row("CD-Color", Conditions::default(), &["1"], &[i < 8])).collect();
        let s = task_significance(TaskId::CdColor, &rows).unwrap();
        assert!((s.p_above_chance - 56.0 / 1024.0).abs() < 1e-12 && !s.above_chance(0.01));
        assert!(task_significance(TaskId::Sc, &rows).is_none());
        // Non-WorM rows (an LLM suite) give no items.
        assert!(accuracy_items(&row("nback", Conditions::default(), &["m"], &[true])).is_empty());
    }

    #[test]
    fn memoryless_significance_beside_chance() {
        // STS: 75 of 100 task frames right is far above chance (1/2) and just what a subject with no
        // memory of the cue expects (3/4): above chance, no sign of memory.
        let rows: Vec<TrialRow> = (0..10)
            .map(|i| {
                let ok: Vec<bool> = (0..10).map(|j| (i * 10 + j) % 4 != 0).collect();
                row("STS", Conditions::default(), &["0"; 10], &ok)
            })
            .collect();
        let s = task_significance(TaskId::Sts, &rows).unwrap();
        assert_eq!((s.responses, s.correct), (100, 75));
        assert!((s.memoryless - 0.75).abs() < 1e-12);
        assert!((s.p_above_memoryless - binomial_tail(100, 0.75, 75)).abs() < 1e-12);
        assert!(s.above_chance(LEVEL) && !s.shows_memory(LEVEL));
        // VSR with L = 3: three right is p = 1/729 against chance, 1/27 against the memoryless 1/3 each.
        let l3 = Conditions { list_length: Some(3), ..Default::default() };
        let s = task_significance(TaskId::Vsr, &[row("VSR", l3.clone(), &["1", "4", "7"], &[true; 3])]).unwrap();
        assert!((s.memoryless - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.p_above_memoryless - 1.0 / 27.0).abs() < 1e-12);
        // 60 lists of three all right: memory, at any level.
        let rows: Vec<TrialRow> = (0..60).map(|_| row("VSR", l3.clone(), &["1", "4", "7"], &[true; 3])).collect();
        let s = task_significance(TaskId::Vsr, &rows).unwrap();
        assert!(s.shows_memory(LEVEL) && s.above_chance(LEVEL));
        // Where the baseline is chance (SC), both tests agree.
        let rows: Vec<TrialRow> = (0..10).map(|i| row("SC", Conditions::default(), &["1"], &[i < 8])).collect();
        let s = task_significance(TaskId::Sc, &rows).unwrap();
        assert_eq!((s.memoryless, s.p_above_memoryless), (s.chance, s.p_above_chance));
        // CD-Orientation: a rotated bar shows in the probe, so nothing there shows memory.
        let s4 = Conditions { set_size: Some(4), ..Default::default() };
        let rows: Vec<TrialRow> = (0..50).map(|_| row("CD-Orientation", s4.clone(), &["1"], &[true])).collect();
        let s = task_significance(TaskId::CdOrientation, &rows).unwrap();
        assert!(s.above_chance(LEVEL) && !s.shows_memory(LEVEL) && s.memoryless == 1.0);
    }

    #[test]
    fn record_significance_takes_the_runs_parameters() {
        // SMU with 16 updates and one box: 16 moves, not 8, before the probe.
        let mut spec = TaskSpec::new(TaskId::Smu);
        spec.set("updates", "16").unwrap();
        let s1 = Conditions { set_size: Some(1), ..Default::default() };
        let mut record = ResultRecord::new(
            crate::record::Subject::Person { id: "p".into() },
            "SMU",
            crate::record::RunConfig { seed: 1, tasks: vec![spec], ..Default::default() },
        );
        record.trials = vec![row("SMU", s1, &["4"], &[true])];
        let s = &record_significance(&record)[0];
        assert!((s.memoryless - memoryless::smu_best(16)).abs() < 1e-15);
        let own = task_significance(TaskId::Smu, &record.trials).unwrap();
        assert!((own.memoryless - memoryless::smu_best(8)).abs() < 1e-15);
    }
}
