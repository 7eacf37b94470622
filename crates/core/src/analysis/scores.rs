//! Human-comparison scores of WorM Appendix A2.3 (Table A3) on the curves of
//! [`crate::people::reference`], and the chance model's curves.
//!
//! * Slope difference `A = |(M_A − H_A)/H_A|`, `M_A`/`H_A` the least-squares slopes of the subject's and
//!   the humans' accuracy against the curve's x.
//! * Average accuracy difference `B = |(M_B − H_B)/H_B|`, `M_B`/`H_B` the mean accuracy over all
//!   conditions. This is A2.3's definition, and it reproduces Table A3: a model at 100 % gets
//!   `B_setsize` = 1/0.861 − 1 = 0.161 on SMU and 1/0.9007 − 1 = 0.110 on CD (all five features pooled),
//!   exactly the values most models have there.
//! * `b_slope`: A2.3's worked example for VSRec instead takes, per condition (pattern difference), the
//!   mean accuracy over serial positions and fits a slope of those means against the condition value.
//!   It is given wherever a task has several curves with a numeric condition (VSR list length, VIR
//!   retention interval, VSRec pattern difference).
//!
//! Matching: a subject curve and a human curve pair up when `panel` and `label` are equal; within a pair
//! only the x values present in both are used, so both slopes are taken over the same positions. When a
//! task has several curves (one per condition), `M_A` and `H_A` are the means of the per-curve slopes
//! (for curves on the same x this is the slope of the condition-averaged curve); `M_B`, `H_B` average
//! every matched point. A score is `None` when the human quantity is 0 or there is too little data
//! (a slope needs 2 distinct x).
//!
//! Effects per task (Table A3):
//!
//! | task | effect | A against | B / b_slope |
//! |---|---|---|---|
//! | VSR | `primacy` | serial position, positions up to the human curve's minimum | — |
//! | VSR | `recency` | serial position, positions from the human curve's minimum | — |
//! | VSR | `list_length` | — | mean accuracy; b_slope over list length |
//! | VIR | `retention` | probed serial position (mean over retention curves) | mean; b_slope over retention interval |
//! | VSRec | `pattern_difference` | serial position (mean over pattern-difference curves) | mean; b_slope over pattern difference |
//! | CS | `load` | distractor count (mean over the 4 storage–distractor curves) | mean accuracy |
//! | SMU | `set_size` | set size | mean accuracy |
//! | CD-* | `set_size` | set size (one feature per task; the paper pools the five) | mean accuracy |
//!
//! VSR split: A2.3 divides each list "at the point of minimum top-1 accuracy". The split is made at the
//! first minimum of the *human* curve of each list length, and the subject curve is cut at the same
//! serial position, so both primacy (and both recency) slopes cover the same positions; the minimum
//! belongs to both halves (a half needs 2 points for a slope).

use serde::{Deserialize, Serialize};

use crate::people::StudyTask;
use crate::people::reference::{Curve, human_curves};
use crate::rng::Split;
use crate::task::{Response, TaskId, TaskSpec};

/// Points of a curve, (x, y).
pub type Points = Vec<(f64, f64)>;

/// One row of Table A3 for one subject.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreRow {
    /// Task id (`VSR`, `CD-Color`, …), or `CD` for the row of the five CD features pooled.
    pub task: String,
    /// The effect scored, as Table A3 names it: `primacy`, `recency`, `list_length`, `retention`,
    /// `pattern_difference`, `load` or `set_size`.
    pub effect: String,
    /// Slope difference score A.
    pub a: Option<f64>,
    /// Average accuracy difference score B.
    pub b: Option<f64>,
    /// The A2.3 worked-example variant of B (slope of per-condition means against the condition value).
    #[serde(default)]
    pub b_slope: Option<f64>,
    /// The subject's and the humans' slopes behind A (`M_A`, `H_A`).
    #[serde(default)]
    pub m_a: Option<f64>,
    /// `H_A`, the humans' slope (see `m_a`).
    #[serde(default)]
    pub h_a: Option<f64>,
    /// The subject's and the humans' mean accuracies behind B (`M_B`, `H_B`).
    #[serde(default)]
    pub m_b: Option<f64>,
    /// `H_B`, the humans' mean accuracy (see `m_b`).
    #[serde(default)]
    pub h_b: Option<f64>,
    /// How the row was computed, in words: curves and points used, the VSR split, curves without a match, and
    /// for CD the retention interval or the pooling.
    pub note: String,
    /// The observations (answers or trials) behind the subject's points that have a human point to
    /// match; `None` where the subject's curves carry no counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// How many of those points rest on fewer than [`crate::stats::MIN_POINT_N`] observations: a score
    /// built on them is flagged as thin.
    #[serde(default)]
    pub thin_points: u32,
    /// Table A3's asterisk for A: the two-tailed t-test of the subject's A against the chance model's A
    /// (see [`record_table_a3_with`]); `None` where it cannot be run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a_test: Option<ChanceTest>,
    /// The same for B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_test: Option<ChanceTest>,
}

/// The models of the paper's Table A3, in its column order (`arch`-`capacity` as the app labels models).
pub const A3_MODELS: [&str; 12] = [
    "RNN-96",
    "RNN-256",
    "RNN-1024",
    "GRU-96",
    "GRU-256",
    "GRU-1024",
    "LSTM-96",
    "LSTM-256",
    "LSTM-1024",
    "TRF-96",
    "TRF-256",
    "TRF-1024",
];

/// Table A3 as the WorM paper publishes it: (task, effect, 'a' or 'b', one value per [`A3_MODELS`]), tasks
/// and effects named as [`ScoreRow`]s name them ("CD" = the five features pooled). Every published value
/// carries an asterisk (p < 0.01 against chance).
#[allow(clippy::approx_constant)] // 0.318 is a published score, not 1/π
pub const PUBLISHED_A3: &[(&str, &str, char, [f64; 12])] = &[
    ("VSR", "primacy", 'a', [3.3, 3.264, 3.112, 8.108, 6.748, 6.859, 3.363, 6.458, 6.538, 3.307, 3.287, 3.48]),
    ("VSR", "recency", 'a', [1.164, 1.183, 1.138, 1.449, 1.327, 1.276, 1.134, 1.384, 1.328, 1.17, 1.124, 1.102]),
    ("VSR", "list_length", 'b', [0.692, 0.697, 0.705, 0.467, 0.387, 0.4, 0.696, 0.348, 0.364, 0.693, 0.693, 0.693]),
    ("VIR", "retention", 'a', [0.324, 0.729, 0.958, 0.801, 2.244, 0.729, 3.021, 0.951, 0.554, 0.995, 0.968, 1.438]),
    ("VIR", "retention", 'b', [0.245, 0.272, 0.261, 0.164, 0.126, 0.068, 0.265, 0.057, 0.14, 0.446, 0.441, 0.262]),
    ("CS", "load", 'a', [0.995, 0.997, 0.996, 0.995, 0.996, 0.989, 0.999, 0.998, 0.991, 0.998, 0.999, 0.995]),
    ("CS", "load", 'b', [0.754, 0.763, 0.718, 0.75, 0.741, 0.35, 0.708, 0.594, 0.34, 0.218, 0.511, 0.773]),
    ("SMU", "set_size", 'a', [0.347, 1.059, 0.006, 1.001, 1.001, 1.0, 0.985, 0.993, 0.999, 1.049, 1.0, 1.255]),
    ("SMU", "set_size", 'b', [0.68, 0.396, 0.31, 0.16, 0.16, 0.161, 0.159, 0.16, 0.161, 0.155, 0.161, 0.133]),
    (
        "VSRec",
        "pattern_difference",
        'a',
        [1.103, 1.382, 0.979, 0.15, 0.569, 0.91, 0.531, 0.097, 0.625, 0.977, 0.923, 1.196],
    ),
    (
        "VSRec",
        "pattern_difference",
        'b',
        [0.302, 0.318, 0.347, 0.03, 0.271, 0.311, 0.08, 0.22, 0.287, 0.356, 0.358, 0.323],
    ),
    ("CD", "set_size", 'a', [0.999, 0.999, 0.799, 1.003, 0.999, 0.999, 0.999, 0.999, 0.999, 0.999, 0.999, 1.003]),
    ("CD", "set_size", 'b', [0.11, 0.11, 0.154, 0.11, 0.11, 0.11, 0.11, 0.11, 0.11, 0.11, 0.11, 0.11]),
];

/// The published Table A3 value of `model` (e.g. "LSTM-256") for a row's task, effect and score ('a'
/// or 'b'); `None` for a model or row the paper's table does not have.
pub fn published_a3(model: &str, task: &str, effect: &str, score: char) -> Option<f64> {
    let m = A3_MODELS.iter().position(|x| x.eq_ignore_ascii_case(model))?;
    PUBLISHED_A3.iter().find(|r| r.0 == task && r.1 == effect && r.2 == score).map(|r| r.3[m])
}

/// The significance level of Table A3's asterisks ("Asterisk (*) indicates p-value < 0.01").
pub const A3_STAR_LEVEL: f64 = 0.01;

/// Number of disjoint parts a record's trials are cut into for Table A3's t-tests.
pub const A3_FOLDS: usize = 10;

/// A two-tailed one-sample t-test of a score, computed on each of `n` disjoint parts of the subject's
/// trials, against the chance model's score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChanceTest {
    /// The chance model's score (its curves are flat at [`chance_level`]).
    pub chance: f64,
    /// Parts with a score (at most [`A3_FOLDS`]).
    pub n: usize,
    /// Mean of the parts' scores.
    pub mean: f64,
    /// The t statistic; `None` when every part scored the same (t is infinite: then `p` is 0 when that
    /// score differs from chance, as `scipy.stats.ttest_1samp` gives, and 1 when it equals chance).
    pub t: Option<f64>,
    /// Two-tailed p value (0 or 1 when `t` is `None`, as above); below [`A3_STAR_LEVEL`] earns the asterisk.
    pub p: f64,
}

impl ChanceTest {
    /// Table A3's asterisk: different from chance at p < 0.01.
    pub fn star(&self) -> bool {
        self.p < A3_STAR_LEVEL
    }
}

/// Least-squares slope of y on x; `None` with fewer than 2 points or no spread in x.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 1e-12 * (1.0 + mx * mx)).then(|| sxy / sxx)
}

/// `|(m − h)/h|`; `None` when `h` is 0 (or either is missing).
pub fn relative_difference(m: Option<f64>, h: Option<f64>) -> Option<f64> {
    let (m, h) = (m?, h?);
    (h.abs() > 1e-12).then(|| ((m - h) / h).abs())
}

/// The index of the first minimum of `points` (by y), and the two halves split there (the minimum
/// belongs to both): `(primacy, recency)`.
pub fn split_at_minimum(points: &[(f64, f64)]) -> (usize, Points, Points) {
    let Some(idx) = (0..points.len()).reduce(|a, b| if points[b].1 < points[a].1 { b } else { a }) else {
        return (0, Vec::new(), Vec::new());
    };
    (idx, points[..=idx].to_vec(), points[idx..].to_vec())
}

/// A matched pair of curves: (label, condition value parsed from `label` after `=`, points as
/// (x, subject y, human y)).
struct Pair {
    condition: Option<f64>,
    points: Vec<(f64, f64, f64)>,
    /// The subject's count behind each of `points`, where its curve has counts.
    n: Vec<u32>,
}

impl Pair {
    fn subject(&self) -> Vec<(f64, f64)> {
        self.points.iter().map(|p| (p.0, p.1)).collect()
    }
    fn human(&self) -> Vec<(f64, f64)> {
        self.points.iter().map(|p| (p.0, p.2)).collect()
    }
}

fn pairs(subject: &[Curve], human: &[Curve]) -> Vec<Pair> {
    human
        .iter()
        .filter_map(|h| {
            let s = subject.iter().find(|s| s.panel == h.panel && s.label == h.label)?;
            let (mut points, mut n) = (Vec::new(), Vec::new());
            for &(x, yh) in &h.points {
                if let Some(i) = s.points.iter().position(|p| (p.0 - x).abs() < 1e-9) {
                    points.push((x, s.points[i].1, yh));
                    n.extend(s.n.get(i));
                }
            }
            let condition = h.label.rsplit_once('=').and_then(|(_, v)| v.parse().ok());
            (!points.is_empty()).then_some(Pair { condition, points, n })
        })
        .collect()
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Mean per-curve slopes (subject, human) over the curves where both exist, with the count.
fn mean_slopes(curves: &[(Points, Points)]) -> (Option<f64>, Option<f64>, usize) {
    let both: Vec<(f64, f64)> = curves.iter().filter_map(|(s, h)| Some((slope(s)?, slope(h)?))).collect();
    let m = mean(&both.iter().map(|p| p.0).collect::<Vec<_>>());
    let h = mean(&both.iter().map(|p| p.1).collect::<Vec<_>>());
    (m, h, both.len())
}

fn row(task: StudyTask, effect: &str, note: String) -> ScoreRow {
    ScoreRow {
        task: task.as_str().to_string(),
        effect: effect.to_string(),
        a: None,
        b: None,
        b_slope: None,
        m_a: None,
        h_a: None,
        m_b: None,
        h_b: None,
        note,
        n: None,
        thin_points: 0,
        a_test: None,
        b_test: None,
    }
}

/// Fill A from whole-curve slopes.
fn with_a(mut r: ScoreRow, pairs: &[Pair]) -> ScoreRow {
    let (m, h, n) = mean_slopes(&pairs.iter().map(|p| (p.subject(), p.human())).collect::<Vec<_>>());
    r.m_a = m;
    r.h_a = h;
    r.a = relative_difference(m, h);
    r.note = format!("{}A over {n} curve(s)", sep(&r.note));
    r
}

/// Fill B (mean accuracy) and, with `conditions`, b_slope.
fn with_b(mut r: ScoreRow, pairs: &[Pair], conditions: Option<&str>) -> ScoreRow {
    let all: Vec<&(f64, f64, f64)> = pairs.iter().flat_map(|p| &p.points).collect();
    r.m_b = mean(&all.iter().map(|p| p.1).collect::<Vec<_>>());
    r.h_b = mean(&all.iter().map(|p| p.2).collect::<Vec<_>>());
    r.b = relative_difference(r.m_b, r.h_b);
    r.note = format!("{}B over {} point(s)", sep(&r.note), all.len());
    if let Some(name) = conditions {
        let per: Vec<(f64, f64, f64)> = pairs
            .iter()
            .filter_map(|p| {
                let c = p.condition?;
                let s = mean(&p.points.iter().map(|q| q.1).collect::<Vec<_>>())?;
                let h = mean(&p.points.iter().map(|q| q.2).collect::<Vec<_>>())?;
                Some((c, s, h))
            })
            .collect();
        let ms = slope(&per.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>());
        let hs = slope(&per.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>());
        r.b_slope = relative_difference(ms, hs);
        r.note = format!("{}b_slope over {} {name} value(s)", sep(&r.note), per.len());
    }
    r
}

fn sep(s: &str) -> String {
    if s.is_empty() { String::new() } else { format!("{s}; ") }
}

/// Table A3 rows of one subject for `task` (see the module doc for the effects). `subject` and `human`
/// are curves on the axes of [`crate::people::reference`]; tasks without human curves (SFR, SC, SI,
/// STS, N-back) give no rows. Rows are returned even when nothing matches (scores `None`).
pub fn table_a3(task: StudyTask, subject: &[Curve], human: &[Curve]) -> Vec<ScoreRow> {
    // The subject's counts at the points that meet a human point.
    let counts: Vec<u32> = pairs(subject, human).into_iter().flat_map(|p| p.n).collect();
    let mut rows = table_a3_scores(task, subject, human);
    for r in &mut rows {
        r.n = (!counts.is_empty()).then(|| counts.iter().sum());
        r.thin_points = counts.iter().filter(|&&n| n < crate::stats::MIN_POINT_N).count() as u32;
    }
    rows
}

/// Test trials per task id that give every condition cell of every task in `specs` enough trials:
/// trials are spread over a task's grid in turn, so with [`crate::stats::MIN_POINT_N`] (and at least
/// [`A3_FOLDS`]) times the largest grid, every cell holds that many — every plotted point of the
/// paper's comparison rests on at least that many trials, and each of Table A3's parts holds every
/// cell.
pub fn enough_eval_trials(specs: &[crate::task::TaskSpec]) -> usize {
    let per_cell = (crate::stats::MIN_POINT_N as usize).max(A3_FOLDS);
    per_cell * specs.iter().map(|s| s.grid().len()).max().unwrap_or(1)
}

fn table_a3_scores(task: StudyTask, subject: &[Curve], human: &[Curve]) -> Vec<ScoreRow> {
    let Some(id) = task.worm() else { return Vec::new() };
    let p = pairs(subject, human);
    let unmatched = if p.is_empty() { "no subject curve matches a human curve".to_string() } else { String::new() };
    match id {
        TaskId::Vsr => {
            let mut splits = Vec::new();
            let (mut prim, mut rec) = (Vec::new(), Vec::new());
            for pair in &p {
                let (idx, hp, hr) = split_at_minimum(&pair.human());
                let s = pair.subject();
                if !s.is_empty() {
                    splits.push(format!("{}", pair.points[idx].0));
                    prim.push((s[..=idx].to_vec(), hp));
                    rec.push((s[idx..].to_vec(), hr));
                }
            }
            let split_note = format!(
                "split at the human minimum: serial position {}",
                if splits.is_empty() { "-".into() } else { splits.join(", ") }
            );
            let mut out = Vec::new();
            for (effect, halves) in [("primacy", &prim), ("recency", &rec)] {
                let (m, h, n) = mean_slopes(halves);
                let mut r = row(task, effect, format!("{}{split_note}; A over {n} curve(s)", sep(&unmatched)));
                r.m_a = m;
                r.h_a = h;
                r.a = relative_difference(m, h);
                out.push(r);
            }
            out.push(with_b(row(task, "list_length", unmatched), &p, Some("list_length")));
            out
        }
        TaskId::Vir => vec![with_b(with_a(row(task, "retention", unmatched), &p), &p, Some("retention"))],
        TaskId::VsRec => {
            vec![with_b(with_a(row(task, "pattern_difference", unmatched), &p), &p, Some("pattern_difference"))]
        }
        TaskId::Cs => vec![with_b(with_a(row(task, "load", unmatched), &p), &p, None)],
        TaskId::Smu => vec![with_b(with_a(row(task, "set_size", unmatched), &p), &p, None)],
        cd if cd.is_cd() => vec![with_b(with_a(row(task, "set_size", unmatched), &p), &p, None)],
        _ => Vec::new(),
    }
}

/// Table A3 of one result record over every WorM task that has human curves (VSR, VIR, VSRec, CS, SMU
/// and the five CD ids, in [`TaskId::ALL`] order), then one row for CD with the five features pooled (as
/// the paper's table has it): the subject's curves from the record's trial rows
/// ([`crate::people::subject_curves`]: CD at retention 18, the paper's comparison) against the human
/// curves. A network's evaluation covers them all; a participant's record gives rows with `None` scores
/// for the tasks it did not take.
pub fn record_table_a3(record: &crate::record::ResultRecord) -> Vec<ScoreRow> {
    record_table_a3_with(record, crate::people::CurveOptions::default())
}

/// [`record_table_a3`] with the curve choices in `opts` (e.g. CD pooled over retention intervals).
///
/// Each score also gets Table A3's test ("two-tailed t-tests against chance … asterisk indicates
/// p-value < 0.01"): the record's trials of each task are cut into [`A3_FOLDS`] disjoint parts, each
/// with the same share of every condition cell (the j-th trial of a cell goes to part j mod K), the score
/// is computed on each part, and a one-sample two-tailed t-test compares those scores with the chance
/// model's score ([`chance_curves`]). The paper does not say what its samples were; this is one honest
/// reading that any single run supports. Too few trials for a part to have a score gives no test.
pub fn record_table_a3_with(record: &crate::record::ResultRecord, opts: crate::people::CurveOptions) -> Vec<ScoreRow> {
    use crate::people::subject_curves_with;
    let mut rows = table_rows(record, opts, |t| subject_curves_with(record, t, opts));
    let chance = table_rows(record, opts, chance_curves);
    let folds: Vec<Vec<ScoreRow>> = fold_records(record, A3_FOLDS)
        .iter()
        .map(|r| table_rows(r, opts, |t| subject_curves_with(r, t, opts)))
        .collect();
    for row in &mut rows {
        let same = |r: &&ScoreRow| r.task == row.task && r.effect == row.effect;
        let Some(c) = chance.iter().find(same) else { continue };
        let parts: Vec<&ScoreRow> = folds.iter().filter_map(|f| f.iter().find(same)).collect();
        let test = |score: fn(&ScoreRow) -> Option<f64>| -> Option<ChanceTest> {
            let chance = score(c)?;
            score(row)?;
            let xs: Vec<f64> = parts.iter().filter_map(|r| score(r)).collect();
            if xs.len() < 2 {
                return None;
            }
            let mean = crate::stats::mean(&xs);
            let n = xs.len();
            Some(match crate::stats::t_one_sample(&xs, chance) {
                Ok(r) => ChanceTest { chance, n, mean, t: Some(r.statistic), p: r.p },
                // No spread: every part gave the same score.
                Err(_) => {
                    ChanceTest { chance, n, mean, t: None, p: if (mean - chance).abs() > 1e-12 { 0.0 } else { 1.0 } }
                }
            })
        };
        let (a, b) = (test(|r| r.a), test(|r| r.b));
        row.a_test = a;
        row.b_test = b;
    }
    rows
}

/// The record cut into `k` records of disjoint trials: within each (task, conditions) cell, the j-th trial
/// goes to part j mod k, so every part sees every cell as evenly as the record allows.
fn fold_records(record: &crate::record::ResultRecord, k: usize) -> Vec<crate::record::ResultRecord> {
    let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
    // Everything but the trials, cloned once (not the whole record once per part).
    let mut shell = record.clone();
    shell.trials.clear();
    let mut parts = vec![shell; k];
    for row in &record.trials {
        let key = format!("{}|{}", row.task, serde_json::to_string(&row.conditions).unwrap_or_default());
        let j = seen.entry(key).or_default();
        parts[*j % k].trials.push(row.clone());
        *j += 1;
    }
    parts
}

/// Table A3 rows with the subject's curves from `subject_of` (the record's, a part's, or chance's).
fn table_rows(
    record: &crate::record::ResultRecord,
    opts: crate::people::CurveOptions,
    subject_of: impl Fn(StudyTask) -> Vec<Curve>,
) -> Vec<ScoreRow> {
    use crate::people::{CD_PAPER_RETENTION, cd_at_paper_retention};
    let cd_note = |t: StudyTask| {
        if cd_at_paper_retention(record, t, opts) {
            format!("subject at retention {CD_PAPER_RETENTION} (the paper's comparison)")
        } else {
            "subject pooled over every retention interval".to_string()
        }
    };
    let mut rows = Vec::new();
    // Each CD id's curves (subject, human), for the pooled row after the per-id rows.
    let mut cd: Vec<(StudyTask, Vec<Curve>, Vec<Curve>)> = Vec::new();
    for t in TaskId::ALL.into_iter().map(StudyTask::Worm) {
        let human = human_curves(t);
        if human.is_empty() {
            continue;
        }
        let subject = subject_of(t);
        let mut task_rows = table_a3(t, &subject, &human);
        if matches!(t, StudyTask::Worm(id) if id.is_cd()) {
            let note = cd_note(t);
            for r in &mut task_rows {
                r.note = format!("{}{note}", sep(&r.note));
            }
            cd.push((t, subject, human));
        }
        rows.extend(task_rows);
    }
    // CD, the five features pooled: per set size, the mean over the features of each side's accuracy.
    let pool = |curves: Vec<&Curve>| -> Option<Curve> {
        // Per x: the sum of y, the curves, and the observations behind them.
        let mut by_x: std::collections::BTreeMap<i64, (f64, usize, u32)> = Default::default();
        for c in &curves {
            for (i, &(x, y)) in c.points.iter().enumerate() {
                let e = by_x.entry((x * 1000.0).round() as i64).or_default();
                e.0 += y;
                e.1 += 1;
                e.2 += c.n.get(i).copied().unwrap_or(0);
            }
        }
        let first = curves.first()?;
        let counted = curves.iter().all(|c| c.n.len() == c.points.len());
        Some(Curve {
            panel: "CD".into(),
            label: "features pooled".into(),
            x_name: first.x_name.clone(),
            points: by_x.iter().map(|(&x, &(sum, n, _))| (x as f64 / 1000.0, sum / n as f64)).collect(),
            note: None,
            n: if counted { by_x.values().map(|e| e.2).collect() } else { Vec::new() },
            ci: Vec::new(),
        })
    };
    let subject: Vec<Curve> = pool(cd.iter().flat_map(|(_, s, _)| s).collect()).into_iter().collect();
    if let (Some(human), Some(&(first, ..))) = (pool(cd.iter().flat_map(|(_, _, h)| h).collect()), cd.first()) {
        let ids = cd.iter().filter(|(_, s, _)| !s.is_empty()).count();
        let note = cd_note(first);
        for mut r in table_a3(first, &subject, &[human]) {
            r.task = "CD".into();
            r.note = format!("{}the five features pooled ({ids} of 5 with data); {note}", sep(&r.note));
            rows.push(r);
        }
    }
    rows
}

/// Chance accuracy of a task's answer, from the response kind of its (last) scored probe step:
/// 2-AFC 1/2, a choice of n 1/n (VSR and SMU 1/9, CS recall 1/8), a multi-select of `picks` of `n`
/// picks/n. N-back answers match / no match: 1/2.
pub fn chance_level(task: StudyTask) -> Option<f64> {
    let Some(id) = task.worm() else { return Some(0.5) };
    let trial = TaskSpec::new(id).trial(0, Split::Test, 0);
    let step = trial.steps.iter().rev().find(|s| s.scored && s.response != Response::None)?;
    match step.response {
        Response::Binary { .. } => Some(0.5),
        Response::Choice { n } if n > 0 => Some(1.0 / n as f64),
        Response::MultiSelect { n, picks } if n > 0 => Some(picks as f64 / n as f64),
        _ => None,
    }
}

/// Where the WorM paper draws CS's chance line (Fig. A9 caption: "The chance level is 0.04"); the app's
/// chance model for CS is 1/8 per recall probe ([`chance_level`]), what guessing among the options scores.
pub const CS_PAPER_CHANCE_LINE: f64 = 0.04;

/// The chance model's curves on the axes of [`human_curves`] (same panels, labels and x), flat at
/// [`chance_level`]. Empty for tasks without human curves.
pub fn chance_curves(task: StudyTask) -> Vec<Curve> {
    let Some(c) = chance_level(task) else { return Vec::new() };
    human_curves(task)
        .into_iter()
        .map(|mut h| {
            h.points.iter_mut().for_each(|p| p.1 = c);
            h.note = Some(match task {
                StudyTask::Worm(TaskId::Cs) => format!(
                    "chance model: accuracy {c:.4} at every point (a guess among the 8 options of each recall probe); \
                     the paper's Fig. A9 draws its chance line at {CS_PAPER_CHANCE_LINE}, below any such guess"
                ),
                _ => format!("chance model: accuracy {c:.4} at every point"),
            });
            h
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks() -> Vec<StudyTask> {
        [
            TaskId::Vsr,
            TaskId::Vir,
            TaskId::VsRec,
            TaskId::Cs,
            TaskId::Smu,
            TaskId::CdColor,
            TaskId::CdOrientation,
            TaskId::CdSize,
            TaskId::CdGap,
            TaskId::CdConjunction,
        ]
        .into_iter()
        .map(StudyTask::Worm)
        .collect()
    }

    #[test]
    fn record_table_covers_every_task_with_human_curves() {
        use crate::record::{ResultRecord, RunConfig, Subject};
        let empty = ResultRecord::new(Subject::Person { id: "p1".into() }, "all", RunConfig::default());
        let rows = record_table_a3(&empty);
        // VSR has three effects; VIR, VSRec, CS, SMU and each CD id one; then CD with the features pooled.
        assert_eq!(rows.len(), 3 + 4 + 5 + 1, "{rows:?}");
        assert_eq!(rows.last().unwrap().task, "CD");
        let names: Vec<&str> = rows.iter().map(|r| r.task.as_str()).collect();
        for t in tasks() {
            assert!(names.contains(&t.as_str()), "{t:?} missing from {names:?}");
        }
        assert!(rows.iter().all(|r| r.a.is_none() && r.b.is_none()), "no trial rows, no scores");
    }

    /// A subject perfect at retention 18 and at chance at 0 (set sizes 2, 4, 6, every CD id): at the
    /// paper's comparison the pooled CD row has B = 1/0.9007 − 1 = 0.110, the value of Table A3 for
    /// models at 100 %; pooling the retention intervals halves the subject's accuracy instead.
    #[test]
    fn cd_rows_compare_at_retention_18_and_pool_the_five_features() {
        use crate::people::CurveOptions;
        use crate::record::{ResultRecord, RunConfig, Subject, TrialRow};
        use crate::task::Conditions;
        let mut r = ResultRecord::new(Subject::Person { id: "p1".into() }, "all", RunConfig::default());
        for id in TaskId::ALL.into_iter().filter(|t| t.is_cd()) {
            for s in [2u8, 4, 6] {
                for (ri, ok) in [(0u8, false), (18, true)] {
                    r.trials.push(TrialRow {
                        task: id.as_str().into(),
                        conditions: Conditions { set_size: Some(s), retention: Some(ri), ..Default::default() },
                        targets: vec!["1".into()],
                        responses: vec![if ok { "1" } else { "0" }.into()],
                        correct: vec![ok],
                        ..Default::default()
                    });
                }
            }
        }
        let rows = record_table_a3(&r);
        let pooled = rows.iter().find(|x| x.task == "CD").unwrap();
        assert!((pooled.h_b.unwrap() - 13.51 / 15.0).abs() < 1e-12, "{pooled:?}");
        assert_eq!(pooled.m_b, Some(1.0));
        assert!((pooled.b.unwrap() - (15.0 / 13.51 - 1.0)).abs() < 1e-12, "{pooled:?}");
        assert!((pooled.b.unwrap() - 0.110).abs() < 5e-4);
        assert!(pooled.note.contains("retention 18") && pooled.note.contains("5 of 5"), "{}", pooled.note);
        let color = rows.iter().find(|x| x.task == "CD-Color").unwrap();
        assert_eq!(color.m_b, Some(1.0));
        let rows = record_table_a3_with(&r, CurveOptions { cd_pooled: true });
        let pooled = rows.iter().find(|x| x.task == "CD").unwrap();
        assert_eq!(pooled.m_b, Some(0.5));
        assert!(pooled.note.contains("pooled over every retention"), "{}", pooled.note);
    }

    /// CD-Color at retention 18, set sizes 2, 4, 6, `per_cell` trials per set size, correct as `ok(j)`
    /// for the j-th trial of a cell.
    fn cd_record(per_cell: usize, ok: impl Fn(usize) -> bool) -> crate::record::ResultRecord {
        use crate::record::{ResultRecord, RunConfig, Subject, TrialRow};
        use crate::task::Conditions;
        let mut r = ResultRecord::new(Subject::Person { id: "p1".into() }, "all", RunConfig::default());
        for j in 0..per_cell {
            for s in [2u8, 4, 6] {
                r.trials.push(TrialRow {
                    task: "CD-Color".into(),
                    trial: r.trials.len() as u64,
                    conditions: Conditions { set_size: Some(s), retention: Some(18), ..Default::default() },
                    targets: vec!["1".into()],
                    responses: vec![if ok(j) { "1" } else { "0" }.into()],
                    correct: vec![ok(j)],
                    ..Default::default()
                });
            }
        }
        r
    }

    #[test]
    fn table_a3_stars_test_each_score_against_the_chance_model() {
        // Perfect: every part has B = 1/H_B − 1 (0.083 on CD-Color) against chance's |0.5 − H_B| / H_B
        // (0.458): starred (p = 0, no spread). Its A (flat curve, slope 0) equals chance's A = 1: no star.
        let rows = record_table_a3(&cd_record(20, |_| true));
        let row = rows.iter().find(|r| r.task == "CD-Color").unwrap();
        let h = row.h_b.unwrap();
        let b = row.b_test.as_ref().unwrap();
        assert_eq!((b.n, b.t, b.p), (A3_FOLDS, None, 0.0), "{b:?}");
        assert!(b.star() && (b.chance - (0.5 - h).abs() / h).abs() < 1e-12, "{b:?}");
        assert!((b.mean - (1.0 / h - 1.0)).abs() < 1e-12, "{b:?}");
        let a = row.a_test.as_ref().unwrap();
        assert!(!a.star() && a.chance == 1.0 && a.p == 1.0, "{a:?}");
        // The pooled CD row is tested too.
        assert!(rows.iter().find(|r| r.task == "CD").unwrap().b_test.as_ref().unwrap().star());
        // Half right (even j): half the parts all right, half all wrong; mean B 0.54 vs chance 0.46,
        // t ≈ 0.5 with 9 df: no star. (By hand: B_right = 1/H_B − 1, B_wrong = 1.)
        let rows = record_table_a3(&cd_record(20, |j| j % 2 == 0));
        let b = rows.iter().find(|r| r.task == "CD-Color").unwrap().b_test.clone().unwrap();
        let (right, wrong) = (1.0 / h - 1.0, 1.0);
        assert!((b.mean - (right + wrong) / 2.0).abs() < 1e-12, "{b:?}");
        let sd = ((5.0 * ((right - b.mean).powi(2) + (wrong - b.mean).powi(2))) / 9.0f64).sqrt();
        let t = (b.mean - b.chance) / (sd / 10f64.sqrt());
        assert!((b.t.unwrap() - t).abs() < 1e-9 && !b.star() && b.p > 0.3, "{b:?}");
        // One trial per cell: a single part has a score, no test.
        let rows = record_table_a3(&cd_record(1, |_| true));
        assert!(rows.iter().all(|r| r.a_test.is_none() && r.b_test.is_none()));
    }

    #[test]
    fn published_a3_names_rows_as_the_app_does() {
        use crate::record::{ResultRecord, RunConfig, Subject};
        let rows = record_table_a3(&ResultRecord::new(Subject::Person { id: "p".into() }, "all", RunConfig::default()));
        for (task, effect, score, _) in PUBLISHED_A3 {
            assert!(
                rows.iter().any(|r| r.task == *task && r.effect == *effect),
                "{task} {effect} is a row of the app's table"
            );
            assert!(published_a3("lstm-256", task, effect, *score).is_some());
        }
        // A perfect model's pooled CD B is the paper's 0.110 for most models (see the CD test above).
        assert_eq!(published_a3("TRF-96", "CD", "set_size", 'b'), Some(0.11));
        assert_eq!(published_a3("LSTM-256", "VSR", "primacy", 'a'), Some(6.458));
        assert_eq!(published_a3("TRF-512", "VSR", "primacy", 'a'), None);
        assert_eq!(published_a3("TRF-96", "VSR", "primacy", 'b'), None);
    }

    #[test]
    fn parts_share_every_condition_cell_evenly() {
        let parts = fold_records(&cd_record(20, |_| true), A3_FOLDS);
        for p in &parts {
            for s in [2u8, 4, 6] {
                assert_eq!(p.trials.iter().filter(|t| t.conditions.set_size == Some(s)).count(), 2);
            }
        }
    }

    fn scores(r: &ScoreRow) -> Vec<f64> {
        [r.a, r.b, r.b_slope].into_iter().flatten().collect()
    }

    #[test]
    fn slope_and_relative_difference() {
        assert_eq!(slope(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]), Some(2.0));
        assert_eq!(slope(&[(1.0, 1.0)]), None);
        assert_eq!(slope(&[(1.0, 1.0), (1.0, 2.0)]), None);
        assert_eq!(relative_difference(Some(3.0), Some(-1.0)), Some(4.0));
        assert_eq!(relative_difference(Some(3.0), Some(0.0)), None);
    }

    #[test]
    fn identical_curves_score_zero() {
        for t in tasks() {
            let h = human_curves(t);
            let rows = table_a3(t, &h, &h);
            assert!(!rows.is_empty(), "{t:?}");
            for r in &rows {
                let s = scores(r);
                assert!(!s.is_empty(), "{r:?}");
                assert!(s.iter().all(|v| v.abs() < 1e-12), "{r:?}");
            }
        }
        let effects: Vec<String> =
            table_a3(StudyTask::Worm(TaskId::Vsr), &[], &human_curves(StudyTask::Worm(TaskId::Vsr)))
                .into_iter()
                .map(|r| r.effect)
                .collect();
        assert_eq!(effects, ["primacy", "recency", "list_length"]);
        assert!(table_a3(StudyTask::Worm(TaskId::Sfr), &[], &[]).is_empty());
    }

    #[test]
    fn doubled_slope_gives_a_one() {
        for t in tasks() {
            let h = human_curves(t);
            // y' = mean + 2 (y − mean): every slope doubles, every curve mean (so B) stays.
            let doubled: Vec<Curve> = h
                .iter()
                .map(|c| {
                    let m = c.points.iter().map(|p| p.1).sum::<f64>() / c.points.len() as f64;
                    Curve { points: c.points.iter().map(|&(x, y)| (x, m + 2.0 * (y - m))).collect(), ..c.clone() }
                })
                .collect();
            for r in table_a3(t, &doubled, &h) {
                if let Some(a) = r.a {
                    assert!((a - 1.0).abs() < 1e-9, "{r:?}");
                }
                for b in [r.b, r.b_slope].into_iter().flatten() {
                    assert!(b.abs() < 1e-9, "{r:?}");
                }
            }
        }
    }

    #[test]
    fn chance_model_scores_are_large() {
        let sv = |id| chance_level(StudyTask::Worm(id)).unwrap();
        assert!((sv(TaskId::Vsr) - 1.0 / 9.0).abs() < 1e-15);
        assert!((sv(TaskId::Smu) - 1.0 / 9.0).abs() < 1e-15);
        assert_eq!(sv(TaskId::Cs), 0.125);
        // CS: the paper's figure line (0.04) is said beside the app's 1/8.
        let cs = chance_curves(StudyTask::Worm(TaskId::Cs));
        assert!(
            cs.iter().all(|c| c.note.as_deref().is_some_and(|n| n.contains("0.125") && n.contains("0.04"))),
            "{cs:?}"
        );
        for id in [TaskId::Vir, TaskId::VsRec, TaskId::CdColor, TaskId::CdConjunction] {
            assert_eq!(sv(id), 0.5);
        }
        for t in tasks() {
            let h = human_curves(t);
            let c = chance_curves(t);
            assert_eq!(c.len(), h.len());
            for r in table_a3(t, &c, &h) {
                if let Some(a) = r.a {
                    assert!((a - 1.0).abs() < 1e-12, "{r:?}"); // a flat curve has slope 0
                }
                if let Some(b) = r.b {
                    assert!(b > 0.25, "{r:?}");
                }
                assert!(!scores(&r).is_empty());
            }
        }
    }

    #[test]
    fn vsr_split_at_the_human_minimum() {
        assert_eq!(
            split_at_minimum(&[(1.0, 0.9), (2.0, 0.5), (3.0, 0.4), (4.0, 0.7)]),
            (2, vec![(1.0, 0.9), (2.0, 0.5), (3.0, 0.4)], vec![(3.0, 0.4), (4.0, 0.7)])
        );
        let c = |pts: Vec<(f64, f64)>| Curve {
            panel: "VSR".into(),
            label: "list_length=4".into(),
            x_name: "serial_position".into(),
            points: pts,
            note: None,
            n: vec![],
            ci: vec![],
        };
        let human = [c(vec![(1.0, 0.9), (2.0, 0.6), (3.0, 0.5), (4.0, 0.8)])];
        let subject = [c(vec![(1.0, 0.9), (2.0, 0.7), (3.0, 0.5), (4.0, 0.6)])];
        let rows = table_a3(StudyTask::Worm(TaskId::Vsr), &subject, &human);
        // Primacy over positions 1–3: both slopes −0.2; recency over 3–4: 0.1 against 0.3.
        assert!(rows[0].a.unwrap().abs() < 1e-12, "{:?}", rows[0]);
        assert!((rows[1].a.unwrap() - 2.0 / 3.0).abs() < 1e-12, "{:?}", rows[1]);
        assert!(rows[0].note.contains("serial position 3"));
        let json = serde_json::to_string(&rows).unwrap();
        assert_eq!(serde_json::from_str::<Vec<ScoreRow>>(&json).unwrap(), rows);
    }

    #[test]
    fn scores_carry_the_n_behind_them_and_the_default_evaluation_fills_every_cell() {
        let vsr = StudyTask::Worm(TaskId::Vsr);
        let human = human_curves(vsr);
        let mut subject: Vec<Curve> =
            human.iter().map(|h| Curve { n: vec![12; h.points.len()], ..h.clone() }).collect();
        subject[0].n[0] = 3;
        let rows = table_a3(vsr, &subject, &human);
        let points: u32 = human.iter().map(|h| h.points.len() as u32).sum();
        assert!(rows.iter().all(|r| r.n == Some(12 * points - 9) && r.thin_points == 1), "{rows:?}");
        let unknown = table_a3(vsr, &human, &human);
        assert!(unknown.iter().all(|r| r.n.is_none() && r.thin_points == 0));
        // VSRec's 40 cells are the largest grid: 10 trials each.
        let specs: Vec<TaskSpec> = TaskId::ALL.iter().map(|&id| TaskSpec::new(id)).collect();
        assert_eq!(enough_eval_trials(&specs), 400);
        assert_eq!(enough_eval_trials(&[TaskSpec::new(TaskId::Vsr)]), 80);
    }
}
