//! The WorM human reference numbers (embedded `data/worm_human_reference.csv`, transcribed from the
//! WorM evaluation notebooks; see `shared/data/worm-human/README.md`) as curves, and the same axes
//! computed from any result record's trial rows, so a results page can overlay a person (or a network,
//! or an LLM) on the human reference.
//!
//! Curves are named so that a subject's curve and the human curve of the same series share `panel` and
//! `label`:
//!
//! | task | panel | label | x |
//! |---|---|---|---|
//! | CD-* | the task id | `feature=Color` … | set_size (human: 2, 4, 6; a subject at retention 18, the paper's comparison, or pooled: [`CurveOptions`]) |
//! | CS | `CS` | storage-distractor, e.g. `Spatial-Visual` | distractor_count |
//! | SMU | `SMU` | `all` | set_size |
//! | VIR | `VIR list_length=L` | `retention=R` | serial_position (the probed item) |
//! | VSR | `VSR` | `list_length=L` | serial_position |
//! | VSRec | `VSRec list_length=L` | `pattern_difference=D` | serial_position |
//! | SFR, SC, SI | the task id | `all` | list_length (no human numbers) |
//! | STS | `STS` | `all` | switches (no human numbers) |
//! | N-back | the task | `accuracy`, `hit_rate`, `false_alarm_rate`, `dprime` | n_back (no human numbers) |
//! | PI-LLM | `pi-llm` | `all` (or `keys=K` where a record mixes key counts) | log10_updates_per_key (no human numbers; [`super::pi::curves`]) |
//!
//! CS: the human x values in the source are cognitive loads (e.g. 0.33, 0.41, 0.49) while the notebook
//! plots models at 1, 3 and 5 distractors; the human points are placed at 1, 3, 5 in load order and the
//! raw loads are kept in the curve's `note`. VSR/VSRec: the CSV already holds proportions (the notebook's
//! k/8 and k/20 are divided out). Subject curves use main trials only (rows with
//! `block_kind=practice` are skipped); CS subject accuracy is recall accuracy (targets of class ≥ 4).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::StudyTask;
use crate::record::{ResultRecord, Setting, TrialRow};
use crate::sdt::SdtScores;
use crate::stats::point_interval;
use crate::task::{Domain, TaskId};

/// The embedded reference table: `task,condition,x_name,x,accuracy,source_file`.
pub const HUMAN_CSV: &str = include_str!("../../data/worm_human_reference.csv");

/// One series on one panel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// The chart panel the series is drawn on: the task id, or with a split (`VIR list_length=4`).
    pub panel: String,
    /// The series within the panel (`feature=Color`, `retention=5`, `all`); a subject's curve and the human
    /// curve of the same series share `panel` and `label`.
    pub label: String,
    /// The condition on the x axis (`set_size`, `serial_position`, `distractor_count`, `n_back`, …).
    pub x_name: String,
    /// (x, accuracy or measure), sorted by x.
    pub points: Vec<(f64, f64)>,
    /// A remark shown with the curve: for the human CS curves, the source's cognitive loads behind the
    /// x positions 1, 3, 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Per point, the observations it averages (answers at that position, trials, blocks); empty where
    /// the source gives none (the published numbers, the chance model).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub n: Vec<u32>,
    /// Per point, its 95 % interval ([`crate::stats::point_interval`]: Wilson for 0/1 answers, else a
    /// bootstrap of the mean over trials or blocks); `None` where a point has none; empty where `n` is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ci: Vec<Option<(f64, f64)>>,
}

/// One row of the reference table.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanRow {
    /// The source's task name: `CD` (one for all five features), `CS`, `SMU`, `VIR`, `VSR` or `VSRec`.
    pub task: String,
    /// The series, as `;`-separated `key=value` pairs (`feature=Color`, `list_length=4;RI=5`) or `all`.
    pub condition: String,
    /// The condition on the x axis in the source (`set_size`, `serial_position`, `cognitive_load`).
    pub x_name: String,
    /// The x value in the source's units (a set size, a 1-based serial position, a CS cognitive load).
    pub x: f64,
    /// The human proportion correct at `x`, 0–1.
    pub accuracy: f64,
}

/// The table's rows.
pub fn human_rows() -> Vec<HumanRow> {
    HUMAN_CSV
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let f: Vec<&str> = l.splitn(6, ',').collect();
            Some(HumanRow {
                task: f.first()?.to_string(),
                condition: f.get(1)?.to_string(),
                x_name: f.get(2)?.to_string(),
                x: f.get(3)?.parse().ok()?,
                accuracy: f.get(4)?.parse().ok()?,
            })
        })
        .collect()
}

fn cd_feature(id: TaskId) -> &'static str {
    match id {
        TaskId::CdColor => "Color",
        TaskId::CdOrientation => "Orientation",
        TaskId::CdSize => "Size",
        TaskId::CdGap => "Gap",
        _ => "Conjunction",
    }
}

fn curve(panel: impl Into<String>, label: impl Into<String>, x_name: &str, mut points: Vec<(f64, f64)>) -> Curve {
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    Curve {
        panel: panel.into(),
        label: label.into(),
        x_name: x_name.into(),
        points,
        note: None,
        n: Vec::new(),
        ci: Vec::new(),
    }
}

/// Parse `a=1;b=2` conditions of the reference table.
fn kv(cond: &str) -> BTreeMap<&str, &str> {
    cond.split(';').filter_map(|p| p.split_once('=')).collect()
}

/// The human reference curves of a task (empty where the source has none: SFR, SC, SI, STS, N-back).
pub fn human_curves(task: StudyTask) -> Vec<Curve> {
    let Some(id) = task.worm() else { return Vec::new() };
    let rows = human_rows();
    fn of<'a>(rows: &'a [HumanRow], t: &'a str) -> impl Iterator<Item = &'a HumanRow> + 'a {
        rows.iter().filter(move |r| r.task == t)
    }
    let of = |t: &'static str| of(&rows, t);
    // Group rows of a task into series by a key function.
    let group = |t: &'static str, key: &dyn Fn(&HumanRow) -> Option<(String, String)>| {
        let mut m: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
        for r in of(t) {
            if let Some(k) = key(r) {
                m.entry(k).or_default().push((r.x, r.accuracy));
            }
        }
        m
    };
    let mut out = Vec::new();
    match id {
        cd if cd.is_cd() => {
            let want = format!("feature={}", cd_feature(cd));
            let pts: Vec<(f64, f64)> = of("CD").filter(|r| r.condition == want).map(|r| (r.x, r.accuracy)).collect();
            out.push(curve(cd.as_str(), want, "set_size", pts));
        }
        TaskId::Cs => {
            for ((_, label), mut pts) in
                group("CS", &|r| Some((String::new(), r.condition.strip_prefix("memory-distractor=")?.to_string())))
            {
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                let loads: Vec<String> = pts.iter().map(|p| p.0.to_string()).collect();
                let placed = pts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| ([1.0, 3.0, 5.0].get(i).copied().unwrap_or(i as f64 * 2.0 + 1.0), p.1))
                    .collect();
                let mut c = curve("CS", label, "distractor_count", placed);
                c.note = Some(format!(
                    "human x = cognitive load {} in the source, placed at 1, 3, 5 distractors",
                    loads.join(", ")
                ));
                out.push(c);
            }
        }
        TaskId::Smu => out.push(curve("SMU", "all", "set_size", of("SMU").map(|r| (r.x, r.accuracy)).collect())),
        TaskId::Vir => {
            for ((panel, label), pts) in group("VIR", &|r| {
                let k = kv(&r.condition);
                Some((format!("VIR list_length={}", k.get("list_length")?), format!("retention={}", k.get("RI")?)))
            }) {
                out.push(curve(panel, label, "serial_position", pts));
            }
        }
        TaskId::Vsr => {
            for ((_, label), pts) in group("VSR", &|r| Some((String::new(), r.condition.clone()))) {
                out.push(curve("VSR", label, "serial_position", pts));
            }
        }
        TaskId::VsRec => {
            for ((panel, label), pts) in group("VSRec", &|r| {
                let k = kv(&r.condition);
                Some((
                    format!("VSRec list_length={}", k.get("list_length")?),
                    format!("pattern_difference={}", k.get("pattern_distractor_diff")?),
                ))
            }) {
                out.push(curve(panel, label, "serial_position", pts));
            }
        }
        _ => {}
    }
    // Natural order of labels like list_length=10 after list_length=9.
    out.sort_by(|a, b| {
        (a.panel.len(), &a.panel, a.label.len(), &a.label).cmp(&(b.panel.len(), &b.panel, b.label.len(), &b.label))
    });
    out
}

fn domain(d: Option<Domain>) -> &'static str {
    match d {
        Some(Domain::Spatial) => "Spatial",
        Some(Domain::Visual) => "Visual",
        None => "?",
    }
}

/// Accumulates values per (panel, label, x), and whether every value at a point is one 0/1 answer.
#[derive(Default)]
struct Acc(BTreeMap<(String, String), BTreeMap<i64, (Vec<f64>, bool)>>);

impl Acc {
    /// One observation: a single answer (`answer`: 0 or 1) or a trial's or block's score.
    fn push(&mut self, panel: &str, label: &str, x: Option<u8>, v: f64, answer: bool) {
        if let Some(x) = x {
            let e = self
                .0
                .entry((panel.to_string(), label.to_string()))
                .or_default()
                .entry(x as i64)
                .or_insert((Vec::new(), true));
            e.0.push(v);
            e.1 &= answer;
        }
    }
    /// A trial's or block's score (a mean of its answers, a d′).
    fn add(&mut self, panel: &str, label: &str, x: Option<u8>, v: f64) {
        self.push(panel, label, x, v, false)
    }
    /// A trial's score: one answer where it has one.
    fn add_row(&mut self, panel: &str, label: &str, x: Option<u8>, row: &TrialRow) {
        self.push(panel, label, x, row.score(), row.correct.len() == 1)
    }
    fn curves(self, x_name: &str) -> Vec<Curve> {
        let mut out: Vec<Curve> = self
            .0
            .into_iter()
            .map(|((panel, label), m)| {
                let pts = m.iter().map(|(&x, (v, _))| (x as f64, v.iter().sum::<f64>() / v.len() as f64)).collect();
                // The map is sorted by x, as `curve` sorts the points: the counts line up.
                let n = m.values().map(|(v, _)| v.len() as u32).collect();
                let ci = m.values().map(|(v, answers)| point_interval(v, *answers)).collect();
                Curve { n, ci, ..curve(panel, label, x_name, pts) }
            })
            .collect();
        out.sort_by(|a, b| {
            (a.panel.len(), &a.panel, a.label.len(), &a.label).cmp(&(b.panel.len(), &b.panel, b.label.len(), &b.label))
        });
        out
    }
}

fn positions(row: &TrialRow) -> Vec<Option<u8>> {
    match row.extra.get("serial_positions") {
        Some(Setting::Text(t)) => t.split(' ').map(|p| p.parse().ok()).collect(),
        _ => (1..=row.correct.len()).map(|p| Some(p as u8)).collect(),
    }
}

/// Whether a row is a practice trial (`block_kind` = practice): left out of curves and group numbers.
pub(crate) fn is_practice(row: &TrialRow) -> bool {
    matches!(row.extra.get("block_kind"), Some(Setting::Text(k)) if k == "practice")
}

/// The retention interval (blank frames) at which the paper compares a model's CD curves with the
/// humans' (`bench_cd_task.ipynb`: "the model is compared at RI = 18").
pub const CD_PAPER_RETENTION: u8 = 18;

/// Choices in how a subject's curves are built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurveOptions {
    /// CD: pool every retention interval instead of the paper's comparison at
    /// [`CD_PAPER_RETENTION`]. A record with no CD trial at that interval is pooled either way.
    #[serde(default)]
    pub cd_pooled: bool,
}

/// Whether a CD task's curve from these rows is taken at the paper's retention interval
/// (false: pooled over every interval, by choice or because no row has that interval).
pub fn cd_at_paper_retention(record: &ResultRecord, task: StudyTask, opts: CurveOptions) -> bool {
    !opts.cd_pooled
        && matches!(task, StudyTask::Worm(id) if id.is_cd())
        && record
            .trials
            .iter()
            .any(|r| r.task == task.as_str() && !is_practice(r) && r.conditions.retention == Some(CD_PAPER_RETENTION))
}

/// The subject's curves for `task` from a record's main trial rows, on the axes of [`human_curves`],
/// as the paper builds them (CD at retention 18; [`subject_curves_with`] for the other choices).
pub fn subject_curves(record: &ResultRecord, task: StudyTask) -> Vec<Curve> {
    subject_curves_with(record, task, CurveOptions::default())
}

/// [`subject_curves`] with the choices in `opts`.
pub fn subject_curves_with(record: &ResultRecord, task: StudyTask, opts: CurveOptions) -> Vec<Curve> {
    let cd_at = cd_at_paper_retention(record, task, opts);
    let rows: Vec<&TrialRow> = record
        .trials
        .iter()
        .filter(|r| r.task == task.as_str() && !is_practice(r))
        .filter(|r| !cd_at || r.conditions.retention == Some(CD_PAPER_RETENTION))
        .collect();
    let mut acc = Acc::default();
    let name = task.as_str();
    match task {
        StudyTask::Pi => super::pi::curves(&rows),
        StudyTask::Nback(_) => {
            for r in rows {
                let s = SdtScores::score(&r.targets.concat(), &r.responses.concat());
                let n = r.conditions.set_size.or(match r.extra.get("n_back") {
                    Some(Setting::Int(n)) => Some(*n as u8),
                    _ => None,
                });
                for (label, v) in [
                    ("accuracy", s.accuracy),
                    ("hit_rate", s.hit_rate),
                    ("false_alarm_rate", s.false_alarm_rate),
                    ("dprime", s.dprime),
                ] {
                    acc.add(name, label, n, v);
                }
            }
            acc.curves("n_back")
        }
        StudyTask::Worm(id) => {
            let x_name = match id {
                cd if cd.is_cd() => "set_size",
                TaskId::Smu => "set_size",
                TaskId::Cs => "distractor_count",
                TaskId::Vir | TaskId::Vsr | TaskId::VsRec | TaskId::Lsr => "serial_position",
                TaskId::Sts => "switches",
                _ => "list_length",
            };
            for r in rows {
                let c = &r.conditions;
                match id {
                    cd if cd.is_cd() => acc.add_row(name, &format!("feature={}", cd_feature(cd)), c.set_size, r),
                    TaskId::Smu => acc.add_row(name, "all", c.set_size, r),
                    TaskId::Cs => {
                        let recall: Vec<bool> = r
                            .targets
                            .iter()
                            .zip(&r.correct)
                            .filter(|(t, _)| t.parse::<u16>().map(|t| (4..20).contains(&t)).unwrap_or(false))
                            .map(|(_, &ok)| ok)
                            .collect();
                        if !recall.is_empty() {
                            let v = recall.iter().filter(|&&b| b).count() as f64 / recall.len() as f64;
                            acc.add(
                                name,
                                &format!("{}-{}", domain(c.storage), domain(c.distractor)),
                                c.distractor_count,
                                v,
                            );
                        }
                    }
                    TaskId::Vir => {
                        let panel = format!("VIR list_length={}", c.list_length.unwrap_or(0));
                        acc.add_row(&panel, &format!("retention={}", c.retention.unwrap_or(0)), c.probed_position, r);
                    }
                    TaskId::Vsr | TaskId::VsRec | TaskId::Lsr => {
                        let (panel, label) = if id != TaskId::VsRec {
                            (id.as_str().to_string(), format!("list_length={}", c.list_length.unwrap_or(0)))
                        } else {
                            (
                                format!("VSRec list_length={}", c.list_length.unwrap_or(0)),
                                format!("pattern_difference={}", c.pattern_difference.unwrap_or(0)),
                            )
                        };
                        for (p, &ok) in positions(r).into_iter().zip(&r.correct) {
                            acc.push(&panel, &label, p, ok as u8 as f64, true);
                        }
                    }
                    TaskId::Sts => acc.add_row(name, "all", c.switches, r),
                    _ => acc.add_row(name, "all", c.list_length, r),
                }
            }
            acc.curves(x_name)
        }
    }
}

/// Convenience: which tasks have human reference curves.
pub fn has_human_reference(task: StudyTask) -> bool {
    !human_curves(task).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::people::NbackKind;
    use crate::record::{RunConfig, Subject};
    use crate::task::Conditions;

    fn pts(c: &Curve) -> Vec<(f64, f64)> {
        c.points.clone()
    }

    #[test]
    fn human_curves_have_the_readme_values() {
        assert_eq!(human_rows().len(), 72);
        let smu = human_curves(StudyTask::Worm(TaskId::Smu));
        assert_eq!(smu.len(), 1);
        assert_eq!(pts(&smu[0]), vec![(1.0, 1.0), (2.0, 0.94), (3.0, 0.825), (4.0, 0.68)]);
        let cd = human_curves(StudyTask::Worm(TaskId::CdColor));
        assert_eq!((cd[0].panel.as_str(), cd[0].label.as_str()), ("CD-Color", "feature=Color"));
        assert_eq!(pts(&cd[0]), vec![(2.0, 0.985), (4.0, 0.945), (6.0, 0.84)]);
        assert_eq!(human_curves(StudyTask::Worm(TaskId::CdGap))[0].points[2], (6.0, 0.8));
        let vsr = human_curves(StudyTask::Worm(TaskId::Vsr));
        assert_eq!(
            vsr.iter().map(|c| c.label.as_str()).collect::<Vec<_>>(),
            ["list_length=3", "list_length=4", "list_length=5", "list_length=6"]
        );
        assert_eq!(vsr[0].points, vec![(1.0, 0.895), (2.0, 0.85), (3.0, 0.8625)]);
        assert_eq!(vsr[3].points.len(), 6);
        let vir = human_curves(StudyTask::Worm(TaskId::Vir));
        assert_eq!(vir.len(), 2);
        assert_eq!((vir[1].panel.as_str(), vir[1].label.as_str()), ("VIR list_length=4", "retention=5"));
        assert_eq!(vir[0].points[3], (4.0, 0.81));
        let vsrec = human_curves(StudyTask::Worm(TaskId::VsRec));
        assert_eq!(vsrec.len(), 3);
        assert_eq!(vsrec[2].label, "pattern_difference=6");
        assert_eq!(vsrec[0].points[0], (1.0, 0.6825));
        let cs = human_curves(StudyTask::Worm(TaskId::Cs));
        assert_eq!(cs.len(), 4);
        let sv = cs.iter().find(|c| c.label == "Spatial-Visual").unwrap();
        assert_eq!(sv.points, vec![(1.0, 0.775), (3.0, 0.715), (5.0, 0.6)]);
        assert!(sv.note.as_ref().unwrap().contains("0.345"));
        for t in [TaskId::Sfr, TaskId::Sc, TaskId::Si, TaskId::Sts] {
            assert!(human_curves(StudyTask::Worm(t)).is_empty());
        }
        assert!(human_curves(StudyTask::Nback(NbackKind::Verbal)).is_empty());
    }

    #[test]
    fn subject_curves_from_rows() {
        let mut r = ResultRecord::new(Subject::Person { id: "p".into() }, "VSR", RunConfig::default());
        let row = |l: u8, correct: Vec<bool>| TrialRow {
            task: "VSR".into(),
            conditions: Conditions { list_length: Some(l), ..Default::default() },
            targets: correct.iter().map(|_| "0".into()).collect(),
            responses: correct.iter().map(|_| "0".into()).collect(),
            correct,
            ..Default::default()
        };
        r.trials.push(row(3, vec![true, true, false]));
        r.trials.push(row(3, vec![true, false, false]));
        r.trials.push(row(4, vec![true, true, true, true]));
        let mut practice = row(3, vec![false, false, false]);
        practice.extra.insert("block_kind".into(), Setting::Text("practice".into()));
        r.trials.push(practice);
        let c = subject_curves(&r, StudyTask::Worm(TaskId::Vsr));
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].panel.as_str(), c[0].label.as_str(), c[0].x_name.as_str()),
            ("VSR", "list_length=3", "serial_position")
        );
        assert_eq!(c[0].points, vec![(1.0, 1.0), (2.0, 0.5), (3.0, 0.0)]);
        assert_eq!(c[1].points, vec![(1.0, 1.0), (2.0, 1.0), (3.0, 1.0), (4.0, 1.0)]);
        assert!(subject_curves(&r, StudyTask::Worm(TaskId::Smu)).is_empty());
    }

    /// CD curves are the paper's comparison at retention 18 unless pooling is chosen (or the record has
    /// no trial at 18).
    #[test]
    fn cd_curves_at_retention_18_or_pooled() {
        let mut r = ResultRecord::new(Subject::Person { id: "p".into() }, "CD-Color", RunConfig::default());
        let row = |ri: u8, ok: bool| TrialRow {
            task: "CD-Color".into(),
            conditions: Conditions { set_size: Some(4), retention: Some(ri), ..Default::default() },
            targets: vec!["1".into()],
            responses: vec![if ok { "1" } else { "0" }.into()],
            correct: vec![ok],
            ..Default::default()
        };
        r.trials.push(row(0, false));
        r.trials.push(row(6, false));
        r.trials.push(row(18, true));
        r.trials.push(row(18, true));
        let t = StudyTask::Worm(TaskId::CdColor);
        assert!(cd_at_paper_retention(&r, t, CurveOptions::default()));
        assert_eq!(subject_curves(&r, t)[0].points, vec![(4.0, 1.0)]);
        let pooled = subject_curves_with(&r, t, CurveOptions { cd_pooled: true });
        assert_eq!(pooled[0].points, vec![(4.0, 0.5)]);
        // No trial at 18: pooled, and said so.
        r.trials.retain(|x| x.conditions.retention != Some(18));
        assert!(!cd_at_paper_retention(&r, t, CurveOptions::default()));
        assert_eq!(subject_curves(&r, t)[0].points, vec![(4.0, 0.0)]);
        // Other tasks are not affected.
        assert!(!cd_at_paper_retention(&r, StudyTask::Worm(TaskId::Smu), CurveOptions::default()));
    }
}
