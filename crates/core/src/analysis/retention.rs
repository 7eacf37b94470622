//! Fig. A3 of the WorM paper: VIR accuracy at each retention interval (0, 2, 4, 5, 6 blank frames), and
//! whether the intervals differ. The paper (A3.5) reports no significant difference for LSTM-1024 without
//! naming its test; here it is Kruskal–Wallis over the trials' scores grouped by interval (tie-corrected,
//! the same `stats::kruskal` as everywhere), so a reader can set a subject's result beside that claim.

use crate::record::ResultRecord;
use crate::stats::{self, TestResult};

/// One retention interval's VIR accuracy.
#[derive(Clone, Debug, PartialEq)]
pub struct RetentionCell {
    /// Retention interval: blank frames between the last item and the probe (0, 2, 4, 5 or 6 in the paper).
    pub retention: u8,
    /// Mean over the interval's trials of each trial's share of scored steps right, in [0, 1].
    pub accuracy: f64,
    /// VIR trials at this interval that have a scored step.
    pub trials: usize,
}

/// VIR accuracy per retention interval and the test across intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct RetentionTest {
    /// One per retention interval the record has, shortest first.
    pub cells: Vec<RetentionCell>,
    /// `Err` with the reason when the test cannot be run (one interval, or all scores equal).
    pub test: Result<TestResult, stats::StatsError>,
}

impl RetentionTest {
    /// One line for a page: "VIR by retention interval (Fig. A3): 0: 0.81 (n 40), …; Kruskal–Wallis H = 1.20, p = 0.88".
    pub fn line(&self) -> String {
        let cells: Vec<String> =
            self.cells.iter().map(|c| format!("{}: {:.2} (n {})", c.retention, c.accuracy, c.trials)).collect();
        let test = match &self.test {
            Ok(t) => format!("Kruskal–Wallis across intervals H = {:.2}, p = {:.3}", t.statistic, t.p),
            Err(e) => format!("no test ({e})"),
        };
        format!("VIR accuracy by retention interval (Fig. A3): {}; {test}.", cells.join(", "))
    }
}

/// The VIR rows of `record` by retention interval (`None` without VIR rows).
pub fn vir_retention(record: &ResultRecord) -> Option<RetentionTest> {
    let mut groups: Vec<(u8, Vec<f64>)> = Vec::new();
    for row in record.trials.iter().filter(|r| r.task == "VIR" && !r.correct.is_empty()) {
        let Some(r) = row.conditions.retention else { continue };
        match groups.iter_mut().find(|g| g.0 == r) {
            Some(g) => g.1.push(row.score()),
            None => groups.push((r, vec![row.score()])),
        }
    }
    if groups.is_empty() {
        return None;
    }
    groups.sort_by_key(|g| g.0);
    let cells = groups
        .iter()
        .map(|(r, v)| RetentionCell {
            retention: *r,
            accuracy: v.iter().sum::<f64>() / v.len() as f64,
            trials: v.len(),
        })
        .collect();
    let test = stats::kruskal(&groups.into_iter().map(|g| g.1).collect::<Vec<_>>());
    Some(RetentionTest { cells, test })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{RunConfig, Subject, TrialRow};
    use crate::task::Conditions;

    fn record(rows: &[(u8, bool)]) -> ResultRecord {
        let mut r = ResultRecord::new(Subject::Reference { source: "test".into() }, "VIR", RunConfig::default());
        r.trials = rows
            .iter()
            .enumerate()
            .map(|(i, &(ret, ok))| TrialRow {
                task: "VIR".into(),
                trial: i as u64,
                conditions: Conditions { retention: Some(ret), list_length: Some(4), ..Default::default() },
                targets: vec!["0".into()],
                responses: vec![if ok { "0" } else { "1" }.into()],
                correct: vec![ok],
                rt_ms: vec![],
                extra: Default::default(),
            })
            .collect();
        r
    }

    #[test]
    fn vir_accuracy_per_interval_and_the_test_across_them() {
        // Retention 0: 3 of 4 right; retention 6: 1 of 4.
        let rows = [(0, true), (0, true), (0, true), (0, false), (6, true), (6, false), (6, false), (6, false)];
        let t = vir_retention(&record(&rows)).unwrap();
        assert_eq!(
            t.cells.iter().map(|c| (c.retention, c.accuracy, c.trials)).collect::<Vec<_>>(),
            [(0, 0.75, 4), (6, 0.25, 4)]
        );
        // The same groups through the one Kruskal–Wallis (as `wmlab stats` computes it).
        let want = stats::kruskal(&[vec![1.0, 1.0, 1.0, 0.0], vec![1.0, 0.0, 0.0, 0.0]]).unwrap();
        assert_eq!(t.test, Ok(want));
        assert!(
            t.line().starts_with(
                "VIR accuracy by retention interval (Fig. A3): 0: 0.75 (n 4), 6: 0.25 (n 4); Kruskal–Wallis"
            )
        );
        // One interval: no test, said so; no VIR rows: nothing.
        assert!(vir_retention(&record(&[(2, true), (2, false)])).unwrap().test.is_err());
        let mut other = record(&rows);
        other.trials.iter_mut().for_each(|r| r.task = "VSR".into());
        assert_eq!(vir_retention(&other), None);
    }
}
