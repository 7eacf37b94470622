//! Item-level agreement between two subjects who took the same trials (issue 48): do a person, a network
//! and a language model fail on the *same* items? Error consistency (Geirhos, Meding & Wichmann 2020):
//! with `p₁`, `p₂` the two subjects' accuracies on their common items, the agreement expected from them
//! alone is `c_exp = p₁p₂ + (1 − p₁)(1 − p₂)`; with `c_obs` the share of items both got right or both got
//! wrong, `κ = (c_obs − c_exp) / (1 − c_exp)` (0: no more agreement than their accuracies give; 1: the
//! same errors). κ is undefined when `c_exp` is 1 (both always right, or both always wrong).
//!
//! An item is one scored answer: a trial of a task and its `k`-th scored step. Two subjects can share
//! items only when their trials came from the same seed and split ([`Rated`]); two of their rows are
//! the same trial when their task, their trial's index in its task (the `index` every kind of subject
//! writes in the row's extras: the generator's index for people and the visual LLM suite, the
//! evaluation's for networks; else the row's place in its run), their conditions and their targets
//! agree; practice trials are left out. The interval is a seeded percentile bootstrap over items.

use std::collections::BTreeMap;

use crate::record::TrialRow;
use crate::rng::Rng;

/// Error consistency of two subjects on one set of items.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreement {
    /// Items both answered (matched by task, trial, targets and step).
    pub items: usize,
    /// Trials of the task the first subject took with no matching trial of the second (other trials,
    /// or other targets: not the same items).
    pub unmatched: usize,
    /// Share of the items the first subject got right, in [0, 1] (`p₁`; 0 without items).
    pub accuracy_a: f64,
    /// Share of the items the second subject got right, in [0, 1] (`p₂`; 0 without items).
    pub accuracy_b: f64,
    /// Share of items both got right or both got wrong.
    pub observed: f64,
    /// What their accuracies alone give.
    pub expected: f64,
    /// `None` when `expected` is 1.
    pub kappa: Option<f64>,
    /// 95 % percentile bootstrap interval of κ over the resamples that have one (`None` without κ, or
    /// when fewer than half of them do).
    pub ci: Option<(f64, f64)>,
}

/// Per task, the paired correctness of the items the two subjects share and the count of the first's
/// trials with no match (`task → ([(a, b)], unmatched)`).
pub fn paired_items(a: &[TrialRow], b: &[TrialRow]) -> BTreeMap<String, (Vec<(bool, bool)>, usize)> {
    let practice = crate::people::reference::is_practice;
    let index = |r: &TrialRow| match r.extra.get("index") {
        Some(crate::record::Setting::Int(i)) if *i >= 0 => *i as u64,
        _ => r.trial,
    };
    // A trial counts once on either side: a record whose rows repeat (a file joined to itself) has the
    // same items, not more — its first row of a trial is the one paired, whichever side it is on.
    let mut by_trial: BTreeMap<(&str, u64), &TrialRow> = BTreeMap::new();
    for r in b.iter().filter(|r| !practice(r)) {
        by_trial.entry((r.task.as_str(), index(r))).or_insert(r);
    }
    let mut seen: std::collections::BTreeSet<(&str, u64)> = Default::default();
    let mut out: BTreeMap<String, (Vec<(bool, bool)>, usize)> = BTreeMap::new();
    for r in a.iter().filter(|r| !practice(r)) {
        if !seen.insert((r.task.as_str(), index(r))) {
            continue;
        }
        let entry = out.entry(r.task.clone()).or_default();
        match by_trial.get(&(r.task.as_str(), index(r))) {
            Some(o) if o.targets == r.targets && o.conditions == r.conditions && o.correct.len() == r.correct.len() => {
                entry.0.extend(r.correct.iter().copied().zip(o.correct.iter().copied()));
            }
            _ => entry.1 += 1,
        }
    }
    out
}

/// κ of paired correctness (see the module's doc): `(observed, expected, κ)`.
fn kappa_of(pairs: &[(bool, bool)]) -> (f64, f64, Option<f64>) {
    let n = pairs.len() as f64;
    if pairs.is_empty() {
        return (0.0, 0.0, None);
    }
    let pa = pairs.iter().filter(|p| p.0).count() as f64 / n;
    let pb = pairs.iter().filter(|p| p.1).count() as f64 / n;
    let observed = pairs.iter().filter(|p| p.0 == p.1).count() as f64 / n;
    let expected = pa * pb + (1.0 - pa) * (1.0 - pb);
    let kappa = (expected < 1.0 - 1e-12).then(|| (observed - expected) / (1.0 - expected));
    (observed, expected, kappa)
}

/// Error consistency of paired correctness, with a 95 % bootstrap interval from `resamples` resamples
/// of the items drawn with `seed`.
pub fn error_consistency(pairs: &[(bool, bool)], unmatched: usize, resamples: usize, seed: u64) -> Agreement {
    let n = pairs.len();
    let frac = |f: &dyn Fn(&(bool, bool)) -> bool| {
        if n == 0 { 0.0 } else { pairs.iter().filter(|p| f(p)).count() as f64 / n as f64 }
    };
    let (observed, expected, kappa) = kappa_of(pairs);
    let ci = kappa.and_then(|_| {
        let mut rng = Rng::from_u64(seed);
        let mut ks = Vec::with_capacity(resamples);
        let mut sample = vec![(false, false); n];
        for _ in 0..resamples {
            for s in sample.iter_mut() {
                *s = pairs[rng.index(n)];
            }
            // A resample of items all right (or all wrong) for both has no κ: it is left out.
            ks.extend(kappa_of(&sample).2);
        }
        ks.sort_by(f64::total_cmp);
        let at = |q: f64| ks[((q * (ks.len() - 1) as f64).round() as usize).min(ks.len() - 1)];
        (ks.len() * 2 >= resamples.max(1)).then(|| (at(0.025), at(0.975)))
    });
    Agreement {
        items: n,
        unmatched,
        accuracy_a: frac(&|p| p.0),
        accuracy_b: frac(&|p| p.1),
        observed,
        expected,
        kappa,
        ci,
    }
}

/// Error consistency of two subjects per task, on the items they share (tasks with none are left out).
pub fn agreement_per_task(a: &[TrialRow], b: &[TrialRow], resamples: usize, seed: u64) -> BTreeMap<String, Agreement> {
    paired_items(a, b)
        .into_iter()
        .filter(|(_, (p, _))| !p.is_empty())
        .map(|(task, (p, unmatched))| (task, error_consistency(&p, unmatched, resamples, seed)))
        .collect()
}

/// The human–human noise ceiling of one task: κ of every pair of people (`kappas`), and their mean and
/// standard deviation over the pairs that have one.
#[derive(Clone, Debug, PartialEq)]
pub struct NoiseCeiling {
    /// Pairs of people with a κ on the task (pairs whose κ is undefined are not counted).
    pub pairs: usize,
    /// Mean κ over those pairs.
    pub mean: f64,
    /// Standard deviation of κ over those pairs (ddof 1; 0 for a single pair).
    pub sd: f64,
}

/// The noise ceiling from the people's pairwise κ: their mean and SD (ddof 1; 0 for one pair); `None`
/// without a pair.
pub fn noise_ceiling(kappas: &[f64]) -> Option<NoiseCeiling> {
    if kappas.is_empty() {
        return None;
    }
    let sd = if kappas.len() > 1 { crate::stats::variance(kappas).sqrt() } else { 0.0 };
    Some(NoiseCeiling { pairs: kappas.len(), mean: crate::stats::mean(kappas), sd })
}

/// One subject of an agreement matrix: its rows, where its trials were drawn from (two subjects share
/// items only with the same seed and split) and whether it is a person (the noise ceiling's).
#[derive(Clone, Copy, Debug)]
pub struct Rated<'a> {
    /// Its trial rows, every task (practice trials are left out when items are paired).
    pub rows: &'a [TrialRow],
    /// Seed its trials were generated from (the run configuration's `seed`).
    pub seed: u64,
    /// Split its trials were drawn from (`human` where the record names none).
    pub split: &'a str,
    /// Whether it is a person: only pairs of people make the noise ceiling.
    pub person: bool,
}

impl<'a> Rated<'a> {
    /// A record as a subject: its seed and split ([`crate::record::ResultRecord::split_name`]).
    pub fn of(record: &'a crate::record::ResultRecord) -> Rated<'a> {
        Rated {
            rows: &record.trials,
            seed: record.config.seed,
            split: record.split_name(),
            person: matches!(record.subject, crate::record::Subject::Person { .. }),
        }
    }

    fn same_trials(&self, other: &Rated) -> bool {
        self.seed == other.seed && self.split == other.split
    }
}

/// Every pair of subjects' error consistency on one task, with the people's noise ceiling: what Compare
/// draws as a κ matrix and `wmlab compare` writes as `agreement.csv` and `noise_ceiling.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct AgreementMatrix {
    /// Task id of the items (as in [`TrialRow::task`], e.g. `VSR`, `CD-Color`).
    pub task: String,
    /// `cells[i][j]`: subject `i` against subject `j` on the items both took (`unmatched`: `i`'s
    /// trials `j` did not take); `None` on the diagonal and where the two share no item.
    pub cells: Vec<Vec<Option<Agreement>>>,
    /// Over the pairs of people (`None` with fewer than two who share items).
    pub ceiling: Option<NoiseCeiling>,
}

impl AgreementMatrix {
    /// The pairs `i < j` that share items, in order.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize, &Agreement)> {
        self.cells.iter().enumerate().flat_map(|(i, row)| {
            row.iter().enumerate().skip(i + 1).filter_map(move |(j, c)| c.as_ref().map(|g| (i, j, g)))
        })
    }

    /// Whether a pair's κ reaches the people's noise ceiling (at least its mean less one SD): as
    /// consistent with a person as people are with each other. `None` without a ceiling or a κ.
    pub fn at_ceiling(&self, g: &Agreement) -> Option<bool> {
        let c = self.ceiling.as_ref()?;
        Some(g.kappa? >= c.mean - c.sd)
    }
}

/// The agreement matrix of `subjects` on `task`, each pair's interval from `resamples` resamples
/// drawn with `seed` (computed once per pair; the cell the other way round has the same κ and interval);
/// `None` when no pair shares an item of the task.
pub fn agreement_matrix(subjects: &[Rated], task: &str, resamples: usize, seed: u64) -> Option<AgreementMatrix> {
    let rows: Vec<Vec<TrialRow>> =
        subjects.iter().map(|s| s.rows.iter().filter(|r| r.task == task).cloned().collect()).collect();
    let n = rows.len();
    let mut cells = vec![vec![None; n]; n];
    let mut people = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if !subjects[i].same_trials(&subjects[j]) {
                continue;
            }
            let Some(g) = agreement_per_task(&rows[i], &rows[j], resamples, seed).remove(task) else { continue };
            let unmatched = paired_items(&rows[j], &rows[i]).get(task).map_or(0, |p| p.1);
            let back = Agreement { unmatched, accuracy_a: g.accuracy_b, accuracy_b: g.accuracy_a, ..g.clone() };
            if subjects[i].person && subjects[j].person {
                people.extend(g.kappa);
            }
            cells[i][j] = Some(g);
            cells[j][i] = Some(back);
        }
    }
    if cells.iter().all(|r| r.iter().all(Option::is_none)) {
        return None;
    }
    Some(AgreementMatrix { task: task.to_string(), cells, ceiling: noise_ceiling(&people) })
}

/// Every task any two of `subjects` (with the same seed and split) share items of, sorted.
pub fn shared_tasks(subjects: &[Rated]) -> Vec<String> {
    let mut tasks = std::collections::BTreeSet::new();
    for i in 0..subjects.len() {
        for j in i + 1..subjects.len() {
            if subjects[i].same_trials(&subjects[j]) {
                for (t, (p, _)) in paired_items(subjects[i].rows, subjects[j].rows) {
                    if !p.is_empty() {
                        tasks.insert(t);
                    }
                }
            }
        }
    }
    tasks.into_iter().collect()
}

/// The header of [`csv_rows`]' table.
pub const CSV_HEADER: &str = "run_a,who_a,run_b,who_b,task,items,unmatched_trials,accuracy_a,accuracy_b,observed,expected,kappa,ci_low,ci_high,at_noise_ceiling\n";

/// One CSV row per pair `i < j` of `m` (runs numbered from 1, named by `names`).
pub fn csv_rows(m: &AgreementMatrix, names: &[String]) -> Vec<Vec<String>> {
    let f = |v: f64| format!("{v:.6}");
    let opt = |v: Option<f64>| v.map(f).unwrap_or_default();
    m.pairs()
        .map(|(i, j, g)| {
            let mut row = vec![(i + 1).to_string(), names[i].clone(), (j + 1).to_string(), names[j].clone()];
            row.extend([m.task.clone(), g.items.to_string(), g.unmatched.to_string()]);
            row.extend([g.accuracy_a, g.accuracy_b, g.observed, g.expected].map(f));
            row.extend([g.kappa, g.ci.map(|c| c.0), g.ci.map(|c| c.1)].map(opt));
            row.push(m.at_ceiling(g).map(|b| b.to_string()).unwrap_or_default());
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(task: &str, trial: u64, target: &str, correct: &[bool]) -> TrialRow {
        TrialRow {
            task: task.into(),
            trial,
            conditions: Default::default(),
            targets: vec![target.into()],
            responses: vec![],
            correct: correct.to_vec(),
            rt_ms: vec![],
            extra: Default::default(),
        }
    }

    /// Worked by hand: A right on 5 of 8, B on 4 of 8, the same outcome on 5 of 8 items.
    /// c_exp = 5/8·4/8 + 3/8·4/8 = 1/2, κ = (5/8 − 1/2)/(1 − 1/2) = 1/4.
    #[test]
    fn kappa_matches_the_hand_worked_value() {
        let a = [true, true, false, false, true, false, true, true];
        let b = [true, false, false, true, true, false, true, false];
        let pairs: Vec<(bool, bool)> = a.iter().copied().zip(b.iter().copied()).collect();
        let g = error_consistency(&pairs, 0, 2000, 7);
        assert_eq!((g.items, g.accuracy_a, g.accuracy_b), (8, 0.625, 0.5));
        assert_eq!((g.observed, g.expected), (0.625, 0.5));
        assert!((g.kappa.unwrap() - 0.25).abs() < 1e-12);
        let (lo, hi) = g.ci.unwrap();
        assert!(lo < 0.25 && 0.25 < hi && lo >= -1.0 && hi <= 1.0, "{lo} {hi}");
        assert_eq!(error_consistency(&pairs, 0, 2000, 7), g, "seeded");
        // The same errors: κ = 1; opposite answers on every item: κ = −1; always right: none.
        let same: Vec<(bool, bool)> = a.iter().map(|&x| (x, x)).collect();
        assert_eq!(error_consistency(&same, 0, 100, 1).kappa, Some(1.0));
        let opposite: Vec<(bool, bool)> = a.iter().map(|&x| (x, !x)).collect();
        assert!(error_consistency(&opposite, 0, 100, 1).kappa.unwrap() < 0.0);
        assert_eq!(error_consistency(&[(true, true); 5], 0, 100, 1).kappa, None);
    }

    /// Items pair by task, trial, targets and step; other trials, other targets and practice are left out.
    #[test]
    fn items_pair_only_on_the_same_trials() {
        let mut practice = row("VSR", 9, "x", &[true]);
        practice.extra.insert("block_kind".into(), crate::record::Setting::Text("practice".into()));
        let a = vec![
            row("CD-Color", 0, "change", &[true]),
            row("CD-Color", 1, "same", &[false]),
            row("VSR", 0, "1 2", &[true, false]),
            row("VSR", 1, "3 4", &[true, true]),
            practice.clone(),
        ];
        let b = vec![
            row("CD-Color", 0, "change", &[false]),
            row("CD-Color", 1, "same", &[false]),
            row("VSR", 0, "1 2", &[true, true]),
            row("VSR", 1, "4 3", &[true, true]),
            practice,
        ];
        let pairs = paired_items(&a, &b);
        assert_eq!(pairs["CD-Color"], (vec![(true, false), (false, false)], 0));
        assert_eq!(pairs["VSR"], (vec![(true, true), (false, true)], 1), "VSR trial 1 has other targets");
        let per = agreement_per_task(&a, &b, 200, 3);
        assert_eq!(per["CD-Color"].items, 2);
        // Rows repeated ten times are the same items, in either order (issue 71: 2,200 for 220).
        let tenfold = |v: &[TrialRow]| -> Vec<TrialRow> { (0..10).flat_map(|_| v.iter().cloned()).collect() };
        assert_eq!(paired_items(&tenfold(&a), &b), pairs);
        assert_eq!(paired_items(&a, &tenfold(&b)), pairs);
        assert_eq!(paired_items(&tenfold(&b), &a), paired_items(&b, &a));
        // Three people: the ceiling is the mean κ of the pairs that have one.
        let c = vec![row("CD-Color", 0, "change", &[true]), row("CD-Color", 1, "same", &[true])];
        let rated = |rows: &'static [TrialRow]| Rated { rows, seed: 1, split: "human", person: true };
        let (a2, b2, c2): (&'static [TrialRow], &'static [TrialRow], &'static [TrialRow]) =
            (a.clone().leak(), b.clone().leak(), c.leak());
        let m = agreement_matrix(&[rated(a2), rated(b2), rated(c2)], "CD-Color", 50, 1).unwrap();
        let k = |x: &[TrialRow], y: &[TrialRow]| kappa_of(&paired_items(x, y)["CD-Color"].0).2;
        let ks: Vec<f64> = [k(a2, b2), k(a2, c2), k(b2, c2)].into_iter().flatten().collect();
        let ceiling = m.ceiling.unwrap();
        assert_eq!(ceiling.pairs, ks.len());
        assert!((ceiling.mean - ks.iter().sum::<f64>() / ks.len() as f64).abs() < 1e-12);
        assert!(noise_ceiling(&[]).is_none());
        // A network's rows are numbered across its run; the trial's index in its task pairs them.
        let indexed = |trial: u64, index: i64, correct: bool| {
            let mut r = row("VSR", trial, "1 2", &[correct]);
            r.extra.insert("index".into(), crate::record::Setting::Int(index));
            r
        };
        let p = paired_items(&[indexed(72, 0, true)], &[indexed(0, 0, false)]);
        assert_eq!(p["VSR"], (vec![(true, false)], 0));
        // The same index and targets at another level (two staircases' trial 0) are other trials.
        let mut longer = indexed(0, 0, false);
        longer.conditions.list_length = Some(3);
        assert_eq!(paired_items(&[indexed(72, 0, true)], &[longer])["VSR"], (vec![], 1));
    }

    /// The matrix: each cell is the pair's own error consistency, both ways round; the ceiling is the
    /// people's (the network's rows left out of it); tasks no pair shares give none.
    #[test]
    fn the_matrix_holds_every_pair_and_the_peoples_ceiling() {
        let cd = |outcomes: &[bool]| -> Vec<TrialRow> {
            outcomes.iter().enumerate().map(|(i, &c)| row("CD-Color", i as u64, "same", &[c])).collect()
        };
        // Hand-worked: p1 vs p2 as in the first test (κ = 1/4); the network answers as p1 (κ = 1).
        let p1 = cd(&[true, true, false, false, true, false, true, true]);
        let p2 = cd(&[true, false, false, true, true, false, true, false]);
        let mut net = p1.clone();
        net.push(row("VSR", 0, "1", &[true]));
        let rated = |rows: &'static [TrialRow], person: bool| Rated { rows, seed: 7, split: "human", person };
        let (p1s, p2s, nets): (&'static [TrialRow], &'static [TrialRow], &'static [TrialRow]) =
            (p1.clone().leak(), p2.clone().leak(), net.clone().leak());
        let subjects = [rated(p1s, true), rated(p2s, true), rated(nets, false)];
        let m = agreement_matrix(&subjects, "CD-Color", 500, 9).unwrap();
        let k = |i: usize, j: usize| m.cells[i][j].as_ref().and_then(|g| g.kappa);
        assert!((k(0, 1).unwrap() - 0.25).abs() < 1e-12 && (k(1, 0).unwrap() - 0.25).abs() < 1e-12);
        assert_eq!((k(0, 2), k(2, 0)), (Some(1.0), Some(1.0)));
        assert!(m.cells[1][1].is_none());
        let c = m.ceiling.clone().unwrap();
        assert_eq!((c.pairs, c.sd), (1, 0.0));
        assert!((c.mean - 0.25).abs() < 1e-12, "one pair of people: their κ");
        // The network's κ of 1 with p1 reaches the ceiling; p2's 1/4 with p1 is the ceiling itself.
        assert_eq!(m.at_ceiling(m.cells[0][2].as_ref().unwrap()), Some(true));
        let pairs: Vec<(usize, usize)> = m.pairs().map(|(i, j, _)| (i, j)).collect();
        assert_eq!(pairs, [(0, 1), (0, 2), (1, 2)]);
        let names = ["a".to_string(), "b".to_string(), "net".to_string()];
        let rows = csv_rows(&m, &names);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0][..7], ["1", "a", "2", "b", "CD-Color", "8", "0"]);
        assert_eq!(rows[0].len(), CSV_HEADER.split(',').count());
        assert_eq!(rows[1][11], "1.000000");
        assert_eq!(shared_tasks(&subjects), ["CD-Color"], "VSR is the network's alone");
        assert!(agreement_matrix(&subjects, "VSR", 10, 1).is_none());
        // Both ways round the same κ and interval; the accuracies swap.
        let (ab, ba) = (m.cells[0][1].as_ref().unwrap(), m.cells[1][0].as_ref().unwrap());
        assert_eq!((ab.kappa, ab.ci, ab.accuracy_a), (ba.kappa, ba.ci, ba.accuracy_b));
        // Trials drawn from another seed (or split) are other items, whatever their indices and targets.
        let other = [rated(p1s, true), Rated { seed: 8, ..rated(p2s, true) }];
        assert!(agreement_matrix(&other, "CD-Color", 10, 1).is_none());
        let test_split = [rated(p1s, true), Rated { split: "test", ..rated(p2s, true) }];
        assert!(shared_tasks(&test_split).is_empty());
    }
}
