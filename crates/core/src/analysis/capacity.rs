//! Working-memory capacity in a standard unit for any subject's rows (issue 48, item 2): Cowan's K for
//! change detection, `K = N × (H − FA)` at set size `N`, with `H` the share of change trials answered
//! "changed" and `FA` the share of no-change trials answered so (Cowan 2001; Rouder et al. 2011 for the
//! single-probe form the CD tasks use). A CD row's target and response are the class of the answer:
//! `1` = changed, `0` = same. Span for the recall tasks (VSR, VSRec, LSR, SFR, CS): per list length the
//! share of lists recalled whole (every scored answer right); the span is the longest length at which
//! that share is at least one half, and the 50 % point the length where it crosses one half, by linear
//! interpolation between the lengths either side of the first fall below it. Practice trials are left
//! out.
//!
//! Intervals (95 %): a share's is Wilson's score interval; K's is `N` times Newcombe's hybrid score
//! interval for the difference `H − FA` (Newcombe 1998, method 10), which stays inside the possible
//! range and keeps a width where a rate is 0 or 1 (a Wald interval collapses there).

use std::collections::BTreeMap;

use crate::record::TrialRow;

/// Cowan's K of one CD task at one set size.
#[derive(Clone, Debug, PartialEq)]
pub struct CowanK {
    /// CD task id (`CD-Color`, …).
    pub task: String,
    /// Set size `N`: items in the memory display.
    pub set_size: u8,
    /// Change and no-change trials answered.
    pub changes: usize,
    /// No-change trials answered (target `0`).
    pub sames: usize,
    /// `H`: share of change trials answered "changed", in [0, 1].
    pub hit_rate: f64,
    /// `FA`: share of no-change trials answered "changed", in [0, 1].
    pub false_alarm_rate: f64,
    /// `K = N × (H − FA)`, in [−N, N]: 0 for a guesser, `N` for an observer who holds every item.
    pub k: f64,
    /// K's 95 % interval.
    pub k_low: f64,
    /// Upper end of K's 95 % interval (`k_low` is the lower).
    pub k_high: f64,
}

use crate::stats::Z95;
pub use crate::stats::wilson;

/// Newcombe's hybrid score interval for `p1 − p2` (`a` of `n1` against `b` of `n2`), 95 %.
pub fn difference_interval(a: usize, n1: usize, b: usize, n2: usize) -> (f64, f64) {
    let (p1, p2) = (a as f64 / n1.max(1) as f64, b as f64 / n2.max(1) as f64);
    let ((l1, u1), (l2, u2)) = (wilson(a, n1, Z95), wilson(b, n2, Z95));
    let d = p1 - p2;
    (d - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt(), d + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt())
}

/// Cowan's K per CD task and set size (in task, then set-size order), where the rows hold both change
/// and no-change trials of that cell.
pub fn cowan_k(rows: &[TrialRow]) -> Vec<CowanK> {
    // (task, set size) → [changes, said changed on a change, sames, said changed on a same]
    let mut cells: BTreeMap<(String, u8), [usize; 4]> = BTreeMap::new();
    for r in rows {
        let practice = crate::people::reference::is_practice(r);
        let (Some(n), false, true) = (r.conditions.set_size, practice, r.task.starts_with("CD-")) else { continue };
        let (Some(target), Some(response)) = (r.targets.first(), r.responses.first()) else { continue };
        let said_changed = response == "1";
        let c = cells.entry((r.task.clone(), n)).or_default();
        match target.as_str() {
            "1" => {
                c[0] += 1;
                c[1] += said_changed as usize;
            }
            "0" => {
                c[2] += 1;
                c[3] += said_changed as usize;
            }
            _ => {}
        }
    }
    cells
        .into_iter()
        .filter(|(_, c)| c[0] > 0 && c[2] > 0)
        .map(|((task, set_size), c)| {
            let hit_rate = c[1] as f64 / c[0] as f64;
            let false_alarm_rate = c[3] as f64 / c[2] as f64;
            let (low, high) = difference_interval(c[1], c[0], c[3], c[2]);
            CowanK {
                task,
                set_size,
                changes: c[0],
                sames: c[2],
                hit_rate,
                false_alarm_rate,
                k: set_size as f64 * (hit_rate - false_alarm_rate),
                k_low: set_size as f64 * low,
                k_high: set_size as f64 * high,
            }
        })
        .collect()
}

/// The largest K of each CD task over its set sizes (the usual capacity estimate).
pub fn max_k(ks: &[CowanK]) -> BTreeMap<String, f64> {
    let mut out: BTreeMap<String, f64> = BTreeMap::new();
    for k in ks {
        let e = out.entry(k.task.clone()).or_insert(f64::NEG_INFINITY);
        *e = e.max(k.k);
    }
    out
}

/// The span of one recall task.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// Recall task id: `VSR`, `VSRec`, `LSR`, `SFR` or `CS`.
    pub task: String,
    /// `(list length, lists, share recalled whole)`, by length.
    pub per_length: Vec<(u8, usize, f64)>,
    /// The 95 % interval of each length's share (in `per_length`'s order).
    pub per_length_interval: Vec<(f64, f64)>,
    /// The longest length with at least half the lists recalled whole (`None`: none reaches half).
    pub span: Option<u8>,
    /// Where the share crosses one half (`None` when it never falls below half, or never reaches it).
    pub fifty: Option<f64>,
}

/// The tasks [`span`] reads (those with a list length).
const SPAN_TASKS: [&str; 5] = ["VSR", "VSRec", "LSR", "SFR", "CS"];

/// Span per recall task (see the module's doc), from any subject's rows.
pub fn span(rows: &[TrialRow]) -> Vec<Span> {
    let mut cells: BTreeMap<(String, u8), (usize, usize)> = BTreeMap::new();
    for r in rows {
        let practice = crate::people::reference::is_practice(r);
        let (Some(l), false, true) = (r.conditions.list_length, practice, SPAN_TASKS.contains(&r.task.as_str())) else {
            continue;
        };
        let c = cells.entry((r.task.clone(), l)).or_default();
        c.0 += 1;
        c.1 += (!r.correct.is_empty() && r.correct.iter().all(|&x| x)) as usize;
    }
    let mut by_task: BTreeMap<String, Vec<(u8, usize, f64)>> = BTreeMap::new();
    let mut intervals: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for ((task, l), (n, whole)) in cells {
        intervals.entry(task.clone()).or_default().push(wilson(whole, n, Z95));
        by_task.entry(task).or_default().push((l, n, whole as f64 / n as f64));
    }
    by_task
        .into_iter()
        .map(|(task, per_length)| {
            let per_length_interval = intervals.remove(&task).unwrap_or_default();
            let (span, fifty) = span_and_fifty(&per_length);
            Span { task, per_length, per_length_interval, span, fifty }
        })
        .collect()
}

/// The span (longest length with at least half the lists whole) and the 50 % point of per-length
/// shares `(length, lists, share whole)` in length order.
fn span_and_fifty(per_length: &[(u8, usize, f64)]) -> (Option<u8>, Option<f64>) {
    let span = per_length.iter().filter(|p| p.2 >= 0.5).map(|p| p.0).max();
    let fall = per_length.iter().position(|p| p.2 < 0.5);
    let fifty = match fall {
        Some(i) if i > 0 => {
            let ((l0, _, s0), (l1, _, s1)) = (per_length[i - 1], per_length[i]);
            Some(l0 as f64 + (s0 - 0.5) / (s0 - s1) * (l1 as f64 - l0 as f64))
        }
        _ => None,
    };
    (span, fifty)
}

/// 95 % intervals of a span and its 50 % point: a seeded bootstrap over the lists (each length's lists
/// drawn again with replacement, `resamples` times); an interval is `None` when fewer than half the
/// resamples have the figure.
pub fn span_intervals(s: &Span, resamples: usize, seed: u64) -> (Option<(f64, f64)>, Option<(f64, f64)>) {
    let mut rng = crate::rng::Rng::from_u64(seed);
    let (mut spans, mut fifties) = (Vec::new(), Vec::new());
    for _ in 0..resamples {
        let again: Vec<(u8, usize, f64)> = s
            .per_length
            .iter()
            .map(|&(l, n, share)| {
                let whole = (0..n).filter(|_| rng.unit_f64() < share).count();
                (l, n, if n == 0 { 0.0 } else { whole as f64 / n as f64 })
            })
            .collect();
        let (sp, fi) = span_and_fifty(&again);
        spans.extend(sp.map(f64::from));
        fifties.extend(fi);
    }
    let interval = |mut v: Vec<f64>| {
        if v.is_empty() || v.len() * 2 < resamples.max(1) {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((q * (v.len() - 1) as f64).round() as usize).min(v.len() - 1)];
        Some((at(0.025), at(0.975)))
    };
    (interval(spans), interval(fifties))
}

/// One capacity figure of a subject in its task's standard unit: what Results, Compare and `wmlab
/// compare` (measures.csv) show for people, networks and language models alike.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// Task id the figure is of (a CD task, a recall task, an N-back kind, or a staircase run's task).
    pub task: String,
    /// "Cowan's K", "span", "50 % point", "d′", "staircase (set size at 75 %)".
    pub measure: String,
    /// Where it was taken ("set size 4", "N = 2"; empty where it is over the whole task).
    pub at: String,
    /// The figure in its measure's unit: items held (K), a list length (span, 50 % point), d′, or the
    /// staircase's estimated level.
    pub value: f64,
    /// 95 % interval, where one is defined.
    pub interval: Option<(f64, f64)>,
    /// Trials (or N-back answers) it rests on.
    pub trials: usize,
}

/// Every capacity figure of a record: per CD task the largest Cowan's K over its set sizes; per recall
/// task the span and the 50 % point (bootstrap intervals); per N-back level the d′ of its summaries
/// (± 1.96 SE); per staircase run its estimate (in place of the task's K or span).
pub fn measures(record: &crate::record::ResultRecord) -> Vec<Measure> {
    let mut out = Vec::new();
    // A task run as a staircase has a trial or two at most of its levels: its estimate is the measure,
    // not the fixed grid's K or span over them.
    let staircases = crate::adaptive::results_of(record);
    let adaptive = |task: &str| staircases.iter().any(|r| r.task == task);
    let grid: Vec<crate::record::TrialRow> = record.trials.iter().filter(|r| !adaptive(&r.task)).cloned().collect();
    let ks = cowan_k(&grid);
    let mut tasks: Vec<&str> = ks.iter().map(|k| k.task.as_str()).collect();
    tasks.dedup();
    for t in tasks {
        let best = ks.iter().filter(|k| k.task == t).max_by(|a, b| a.k.total_cmp(&b.k));
        if let Some(k) = best {
            out.push(Measure {
                task: k.task.clone(),
                measure: "Cowan's K (largest over set sizes)".into(),
                at: format!("set size {}", k.set_size),
                value: k.k,
                interval: Some((k.k_low, k.k_high)),
                trials: k.changes + k.sames,
            });
        }
    }
    for (i, s) in span(&grid).into_iter().enumerate() {
        let trials = s.per_length.iter().map(|p| p.1).sum();
        let (span_ci, fifty_ci) = span_intervals(&s, 1000, 48 + i as u64);
        if let Some(v) = s.span {
            let measure = "span (longest list length recalled whole at least half the time)".into();
            out.push(Measure {
                task: s.task.clone(),
                measure,
                at: String::new(),
                value: v as f64,
                interval: span_ci,
                trials,
            });
        }
        if let Some(v) = s.fifty {
            let measure = "50 % point (list length recalled whole half the time)".into();
            out.push(Measure {
                task: s.task.clone(),
                measure,
                at: String::new(),
                value: v,
                interval: fifty_ci,
                trials,
            });
        }
    }
    for sm in record.summaries.iter().filter(|s| s.metric == "dprime" && s.task.starts_with("nback")) {
        out.push(Measure {
            task: sm.task.clone(),
            measure: "d′".into(),
            at: sm.conditions.set_size.map(|n| format!("N = {n}")).unwrap_or_default(),
            value: sm.value,
            interval: sm.se.map(|se| (sm.value - Z95 * se, sm.value + Z95 * se)),
            trials: sm.n as usize,
        });
    }
    for r in staircases {
        let Some(e) = r.estimate else { continue };
        out.push(Measure {
            task: r.task.clone(),
            measure: format!("staircase ({})", r.criterion()),
            at: String::new(),
            value: e.level,
            interval: Some((e.low, e.high)),
            trials: r.track.len(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cd(set_size: u8, target: &str, response: &str) -> TrialRow {
        TrialRow {
            task: "CD-Color".into(),
            trial: 0,
            conditions: crate::task::Conditions { set_size: Some(set_size), ..Default::default() },
            targets: vec![target.into()],
            responses: vec![response.into()],
            correct: vec![target == response],
            rt_ms: vec![],
            extra: Default::default(),
        }
    }

    /// Worked by hand: at set size 4, 3 of 4 changes seen (H = 0.75) and 1 of 4 sames called changed
    /// (FA = 0.25): K = 4 × 0.5 = 2. At set size 8, H = 0.5 and FA = 0.25: K = 2. A perfect observer at
    /// set size 2 holds 2; a guesser holds 0.
    #[test]
    fn k_matches_the_hand_worked_values() {
        let mut rows = Vec::new();
        rows.extend(["1", "1", "1", "-"].map(|r| cd(4, "1", r)));
        rows.extend(["1", "0", "0", "0"].map(|r| cd(4, "0", r)));
        rows.extend(["1", "1", "0", "0"].map(|r| cd(8, "1", r)));
        rows.extend(["1", "0", "0", "0"].map(|r| cd(8, "0", r)));
        rows.extend([cd(2, "1", "1"), cd(2, "0", "0")]);
        let mut practice = cd(2, "1", "0");
        practice.extra.insert("block_kind".into(), crate::record::Setting::Text("practice".into()));
        rows.push(practice);
        rows.push(cd(6, "1", "1")); // no no-change trial at 6: no K
        let ks = cowan_k(&rows);
        let got: Vec<(u8, f64, f64, f64)> =
            ks.iter().map(|k| (k.set_size, k.hit_rate, k.false_alarm_rate, k.k)).collect();
        assert_eq!(got, vec![(2, 1.0, 0.0, 2.0), (4, 0.75, 0.25, 2.0), (8, 0.5, 0.25, 2.0)]);
        assert_eq!(max_k(&ks)["CD-Color"], 2.0);
        let guess: Vec<TrialRow> = ["1", "0"].iter().flat_map(|t| ["1", "0"].map(|r| cd(6, t, r))).collect();
        assert_eq!(cowan_k(&guess)[0].k, 0.0);
        // Intervals hold the estimate, stay within ±N, and keep a width at H = 1, FA = 0.
        for k in &ks {
            assert!(k.k_low <= k.k && k.k <= k.k_high, "{k:?}");
            assert!(k.k_low >= -(k.set_size as f64) && k.k_high <= k.set_size as f64, "{k:?}");
        }
        assert!(ks[0].k_high - ks[0].k_low > 1.0, "one trial each at set size 2: {:?}", ks[0]);
    }

    /// Wilson's interval and Newcombe's difference interval against published values: Newcombe (1998),
    /// Table II, example (a): 56/70 against 48/80 gives 0.0524 to 0.3339; Wilson for 81/263 is 0.2553
    /// to 0.3662 (Newcombe 1998, single-proportion paper, example (b)); 0 of 10 gives 0 to 0.2775.
    #[test]
    fn intervals_match_published_values() {
        let (l, u) = difference_interval(56, 70, 48, 80);
        assert!((l - 0.0524).abs() < 5e-5 && (u - 0.3339).abs() < 5e-5, "{l} {u}");
        let (l, u) = wilson(81, 263, Z95);
        assert!((l - 0.2553).abs() < 5e-5 && (u - 0.3662).abs() < 5e-5, "{l} {u}");
        let (l, u) = wilson(0, 10, Z95);
        assert!(l == 0.0 && (u - 0.2775).abs() < 5e-5, "{l} {u}");
    }

    fn vsr(list_length: u8, correct: &[bool]) -> TrialRow {
        TrialRow {
            task: "VSR".into(),
            trial: 0,
            conditions: crate::task::Conditions { list_length: Some(list_length), ..Default::default() },
            targets: vec![],
            responses: vec![],
            correct: correct.to_vec(),
            rt_ms: vec![],
            extra: Default::default(),
        }
    }

    /// Worked by hand: whole lists at length 2: 2 of 2, at 3: 3 of 4 (0.75), at 4: 1 of 4 (0.25), at 5:
    /// 1 of 2 (0.5, after the fall). Span 5 (the longest at ≥ ½); the 50 % point between 3 and 4:
    /// 3 + (0.75 − 0.5)/(0.75 − 0.25) = 3.5.
    #[test]
    fn span_matches_the_hand_worked_values() {
        let (t, f) = (true, false);
        let mut rows = vec![vsr(2, &[t, t]), vsr(2, &[t, t])];
        rows.extend([vsr(3, &[t, t, t]), vsr(3, &[t, t, t]), vsr(3, &[t, t, t]), vsr(3, &[t, f, t])]);
        rows.extend([vsr(4, &[t, t, t, t]), vsr(4, &[f, t, t, t]), vsr(4, &[t, t, f, t]), vsr(4, &[f; 4])]);
        rows.extend([vsr(5, &[t; 5]), vsr(5, &[t, t, t, t, f])]);
        let s = &span(&rows)[0];
        assert_eq!(s.per_length, vec![(2, 2, 1.0), (3, 4, 0.75), (4, 4, 0.25), (5, 2, 0.5)]);
        assert_eq!(s.span, Some(5));
        assert_eq!(s.fifty, Some(3.5));
        assert_eq!(s.per_length_interval.len(), 4);
        assert!(s.per_length_interval.iter().zip(&s.per_length).all(|((l, h), p)| *l <= p.2 && p.2 <= *h));
        // Never below half: no crossing; never at half: no span.
        assert_eq!(span(&[vsr(2, &[t, t])])[0].fifty, None);
        assert_eq!(span(&[vsr(2, &[f, t])])[0].span, None);
    }

    /// Lists of 2–5 always recalled whole and of 6 never: span 5, 50 % point 5.5, both certain (every
    /// resample the same); a share of one half at 6 leaves the span uncertain between 5 and 6.
    #[test]
    fn span_intervals_come_from_resampled_lists() {
        let s = Span {
            task: "VSR".into(),
            per_length: vec![(2, 4, 1.0), (3, 4, 1.0), (4, 4, 1.0), (5, 4, 1.0), (6, 4, 0.0)],
            per_length_interval: vec![],
            span: Some(5),
            fifty: Some(5.5),
        };
        assert_eq!(span_intervals(&s, 200, 1), (Some((5.0, 5.0)), Some((5.5, 5.5))));
        let mut half = s.clone();
        half.per_length[4].2 = 0.5;
        half.per_length.push((7, 4, 0.0));
        let (sp, _) = span_intervals(&half, 500, 2);
        assert_eq!(sp, Some((5.0, 6.0)));
        assert_eq!(span_intervals(&half, 500, 2), span_intervals(&half, 500, 2), "seeded");
    }

    /// A record's measures: CD's largest K with its set size, a recall task's span and 50 % point, an
    /// N-back level's d′ from its summary.
    #[test]
    fn a_records_measures_in_their_units() {
        use crate::record::{ResultRecord, RunConfig, Subject, Summary};
        let mut r = ResultRecord::new(Subject::Person { id: "p".into() }, "all", RunConfig::default());
        // Set size 4: H = 3/4, FA = 1/4 → K = 2; set size 2: H = 1, FA = 0 → K = 2 too; set size 6: K = 0.
        r.trials.extend(["1", "1", "1", "0"].map(|x| cd(4, "1", x)));
        r.trials.extend(["0", "0", "0", "1"].map(|x| cd(4, "0", x)));
        r.trials.extend([cd(2, "1", "1"), cd(2, "0", "0"), cd(6, "1", "0"), cd(6, "0", "0")]);
        for (l, whole) in [(2u8, true), (3, true), (4, false)] {
            r.trials.push(TrialRow {
                task: "VSR".into(),
                conditions: crate::task::Conditions { list_length: Some(l), ..Default::default() },
                correct: vec![true, whole],
                ..Default::default()
            });
        }
        r.summaries.push(Summary {
            task: "nback-verbal".into(),
            conditions: crate::task::Conditions { set_size: Some(2), ..Default::default() },
            metric: "dprime".into(),
            n: 30,
            value: 1.5,
            se: Some(0.25),
        });
        let m = measures(&r);
        let names: Vec<(&str, &str)> = m.iter().map(|m| (m.task.as_str(), m.measure.as_str())).collect();
        assert_eq!(names.len(), 4, "{names:?}");
        let k = &m[0];
        assert_eq!((k.task.as_str(), k.value, k.trials), ("CD-Color", 2.0, 8));
        assert_eq!(k.at, "set size 4", "of tied set sizes, the larger");
        let span = m.iter().find(|m| m.measure.starts_with("span")).unwrap();
        assert_eq!((span.task.as_str(), span.value, span.trials), ("VSR", 3.0, 3));
        let fifty = m.iter().find(|m| m.measure.starts_with("50 %")).unwrap();
        assert_eq!(fifty.value, 3.5);
        let d = m.iter().find(|m| m.measure == "d′").unwrap();
        assert_eq!((d.at.as_str(), d.value), ("N = 2", 1.5));
        let (lo, hi) = d.interval.unwrap();
        assert!((lo - (1.5 - Z95 * 0.25)).abs() < 1e-12 && (hi - (1.5 + Z95 * 0.25)).abs() < 1e-12);
        // Run as a staircase, CD-Color's measure is the staircase's estimate, not K over its levels.
        let mut st = crate::adaptive::Staircase::new(crate::adaptive::StaircaseConfig::cd_set_size()).unwrap();
        for c in [true, true, true, false, true, false, true, true, false] {
            st.record(c);
        }
        let run = crate::adaptive::StaircaseResult::of("CD-Color", crate::adaptive::LevelKind::SetSize, &st);
        run.write_into(&mut r.config.settings);
        let m = measures(&r);
        let cd: Vec<&str> = m.iter().filter(|m| m.task == "CD-Color").map(|m| m.measure.as_str()).collect();
        assert_eq!(cd, ["staircase (set size at 75 % right)"]);
        assert_eq!(m.iter().find(|m| m.task == "CD-Color").unwrap().value, st.estimate().unwrap().level);
    }
}
