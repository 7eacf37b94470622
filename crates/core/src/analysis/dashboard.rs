//! The researcher's dashboard: many participants' records (JSON records, or the long-format CSVs that
//! DataPipe puts on the OSF) read back, checked against exclusion rules with reasons, averaged over the
//! included participants per task (mean ± SE across participants, on the axes of the WorM human
//! curves), and written as one long-format CSV of every trial of every participant.

use std::collections::BTreeMap;

use crate::chart::{Chart, Role};
use crate::compare::{Extras, Panel, Who, panels};
use crate::people::StudyTask;
use crate::people::reference::{Curve, is_practice, subject_curves};
use crate::record::{ResultRecord, RunConfig, Setting, Subject, TrialRow, push_csv_row, summarise};
use crate::task::Conditions;

/// When a participant is left out of the group numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// Practice accuracy below this (over all practice trials) excludes. 0 = no rule.
    pub min_practice_accuracy: f64,
    /// A median response time (over answered steps of the main trials) below this, in ms, excludes.
    pub min_median_rt_ms: f64,
    /// More losses of focus (blurs, hidden tab) than this over the session exclude.
    pub max_blurs: u32,
    /// A session that did not reach the end excludes (where the record says).
    pub require_finished: bool,
    /// A session taken on a phone or tablet excludes (where the record says the device).
    pub exclude_touch: bool,
    /// A session in which the window changed size during a trial excludes.
    pub exclude_window_changed: bool,
    /// A stimulus drawn smaller than this (CSS px, the smallest over the trials) excludes. 0 = no rule.
    pub min_stimulus_px: f64,
    /// A stimulus under this many degrees of visual angle (the smallest over the trials; the chinrest
    /// measures it) excludes, and so does a session without the chinrest, whose angle is unknown.
    /// 0 = no rule.
    pub min_stimulus_deg: f64,
    /// A session in which text was pasted into the page (the questionnaire) excludes.
    pub exclude_pasted: bool,
    /// A session whose browser said it was automated (`navigator.webdriver`, headless Chrome) excludes.
    pub exclude_automated: bool,
    /// More than this share of the main trials' answers given under
    /// [`crate::people::session::FAST_ANSWER_MS`] excludes. `None` = no rule.
    pub max_fast_share: Option<f64>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            min_practice_accuracy: 0.5,
            min_median_rt_ms: 200.0,
            max_blurs: 3,
            require_finished: true,
            exclude_touch: false,
            exclude_window_changed: false,
            min_stimulus_px: 0.0,
            min_stimulus_deg: 0.0,
            exclude_pasted: false,
            exclude_automated: false,
            max_fast_share: None,
        }
    }
}

/// A trial's column as text (JSON records keep types; a record read back from CSV holds text).
fn cell(t: &TrialRow, key: &str) -> Option<String> {
    t.extra.get(key).map(|v| match v {
        Setting::Text(s) => s.clone(),
        Setting::Bool(b) => b.to_string(),
        Setting::Int(i) => i.to_string(),
        Setting::Num(x) => x.to_string(),
    })
}

/// A trial's column as a number, where it is one.
fn cell_num(t: &TrialRow, key: &str) -> Option<f64> {
    cell(t, key).and_then(|s| s.trim().parse::<f64>().ok()).filter(|v| v.is_finite())
}

/// What the record says of the participant's display, for the rules and the dashboard's table: the
/// device class (`desktop`, `phone`, `tablet`), the smallest stimulus (CSS px), the trials in which
/// the window changed size, and whether the browser said it was automated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DisplaySeen {
    /// The device class, where the record says it.
    pub device: Option<String>,
    /// The smallest stimulus over the trials, CSS px.
    pub min_stimulus_px: Option<f64>,
    /// The smallest stimulus over the trials, degrees of visual angle (sessions with the chinrest).
    pub min_stimulus_deg: Option<f64>,
    /// Window size changes during trials.
    pub resizes: i64,
    /// `navigator.webdriver` was true or the browser was headless Chrome.
    pub automated: bool,
    /// Times text was pasted into the page.
    pub pastes: i64,
}

impl DisplaySeen {
    /// Read from a record's rows (its settings where the rows do not say).
    pub fn of(r: &ResultRecord) -> DisplaySeen {
        let setting = |k: &str| match r.config.settings.get(k) {
            Some(Setting::Text(s)) => Some(s.clone()),
            _ => None,
        };
        let device = r.trials.iter().find_map(|t| cell(t, "device")).or_else(|| setting("display_device"));
        let min_stimulus_px = r.trials.iter().filter_map(|t| cell_num(t, "canvas_css_px")).reduce(f64::min);
        let min_stimulus_deg = r.trials.iter().filter_map(|t| cell_num(t, "stimulus_deg")).reduce(f64::min);
        let resizes = r.trials.iter().filter_map(|t| cell_num(t, "resize_count")).sum::<f64>() as i64;
        let automated = r.trials.iter().any(|t| {
            cell(t, "webdriver").as_deref() == Some("true") || cell(t, "browser").as_deref() == Some("HeadlessChrome")
        }) || setting("display_browser").as_deref() == Some("HeadlessChrome");
        let pastes = r
            .trials
            .iter()
            .find_map(|t| cell_num(t, "paste_count"))
            .or_else(|| match r.config.settings.get("paste_count") {
                Some(Setting::Int(n)) => Some(*n as f64),
                _ => None,
            })
            .unwrap_or(0.0) as i64;
        DisplaySeen { device, min_stimulus_px, min_stimulus_deg, resizes, automated, pastes }
    }
}

/// The reasons a record is excluded under `rules` (empty = included).
pub fn exclusions(r: &ResultRecord, rules: &Rules) -> Vec<String> {
    let mut why = Vec::new();
    if !matches!(r.subject, Subject::Person { .. }) {
        why.push(format!("not a participant's result ({})", r.subject.kind()));
        return why;
    }
    if rules.require_finished && matches!(r.config.settings.get("finished"), Some(Setting::Bool(false))) {
        why.push(match r.config.settings.get("datapipe_part") {
            // A dropout's data as DataPipe staged them: the session so far after one of its blocks.
            Some(Setting::Int(n)) => format!("did not finish the study (its data end after block {n})"),
            _ => "did not finish the study".into(),
        });
    }
    let practice: Vec<bool> = r.trials.iter().filter(|t| is_practice(t)).flat_map(|t| t.correct.clone()).collect();
    if rules.min_practice_accuracy > 0.0 && !practice.is_empty() {
        let acc = practice.iter().filter(|&&c| c).count() as f64 / practice.len() as f64;
        if acc < rules.min_practice_accuracy {
            why.push(format!(
                "practice failed: {:.0} % correct (rule: at least {:.0} %)",
                acc * 100.0,
                rules.min_practice_accuracy * 100.0
            ));
        }
    }
    let mut rts: Vec<f64> = r
        .trials
        .iter()
        .filter(|t| !is_practice(t))
        .flat_map(|t| t.rt_ms.iter().copied())
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    if rules.min_median_rt_ms > 0.0 && !rts.is_empty() {
        rts.sort_by(f64::total_cmp);
        let median = rts[rts.len() / 2];
        if median < rules.min_median_rt_ms {
            why.push(format!(
                "too fast: median response time {median:.0} ms (rule: at least {:.0} ms)",
                rules.min_median_rt_ms
            ));
        }
    }
    let blurs: i64 = r
        .trials
        .iter()
        .map(|t| match t.extra.get("blur_count") {
            Some(Setting::Int(n)) => *n,
            _ => 0,
        })
        .sum();
    if blurs > rules.max_blurs as i64 {
        why.push(format!("left the task too often: {blurs} losses of focus (rule: at most {})", rules.max_blurs));
    }
    let seen = DisplaySeen::of(r);
    if rules.exclude_touch && matches!(seen.device.as_deref(), Some("phone" | "tablet")) {
        why.push(format!("took it on a {} (rule: no touch devices)", seen.device.as_deref().unwrap_or_default()));
    }
    if rules.exclude_window_changed && seen.resizes > 0 {
        why.push(format!("the window changed size during {} trial(s) (rule: no window changes)", seen.resizes));
    }
    if let Some(px) = seen.min_stimulus_px.filter(|&px| rules.min_stimulus_px > 0.0 && px < rules.min_stimulus_px) {
        why.push(format!("stimulus drawn at {px:.0} px (rule: at least {:.0} px)", rules.min_stimulus_px));
    }
    if rules.exclude_pasted && seen.pastes > 0 {
        why.push(format!("pasted text into the page {} time(s) (rule: no pasting)", seen.pastes));
    }
    if rules.min_stimulus_deg > 0.0 {
        match seen.min_stimulus_deg {
            Some(d) if d < rules.min_stimulus_deg => {
                why.push(format!("stimulus {d:.1}° of visual angle (rule: at least {}°)", rules.min_stimulus_deg))
            }
            Some(_) => {}
            None => why.push(format!(
                "visual angle unknown: no chinrest in this session (rule: at least {}°)",
                rules.min_stimulus_deg
            )),
        }
    }
    if let Some(max) = rules.max_fast_share {
        let main: Vec<&TrialRow> = r.trials.iter().filter(|t| !is_practice(t)).collect();
        let answers: usize = main.iter().map(|t| t.rt_ms.iter().filter(|v| **v >= 0.0).count()).sum();
        let fast: f64 = main.iter().filter_map(|t| cell_num(t, "fast_answers")).sum();
        if answers > 0 && fast / answers as f64 > max {
            why.push(format!(
                "implausibly fast: {:.0} % of answers under {:.0} ms (rule: at most {:.0} %)",
                100.0 * fast / answers as f64,
                crate::people::session::FAST_ANSWER_MS,
                100.0 * max
            ));
        }
    }
    if rules.exclude_automated && seen.automated {
        why.push("the browser said it was automated (webdriver or headless; rule: no automated browsers)".into());
    }
    why
}

/// One participant's curves averaged with the others': per panel, label and x, the mean over the
/// participants that have a point there, its standard error, and how many they were.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupPoint {
    /// The x value, on the curve's `x_name` axis (set size, serial position, …).
    pub x: f64,
    /// Mean over those participants of their curve's value at x (accuracy, or the curve's measure).
    pub mean: f64,
    /// Standard error of that mean across participants (ddof 1); `None` with one participant.
    pub se: Option<f64>,
    /// Participants with a point at this x.
    pub n: usize,
}

/// The group's curves for `task` (mean over participants of each participant's curve value).
pub fn group_curves(records: &[&ResultRecord], task: StudyTask) -> Vec<(Curve, Vec<GroupPoint>)> {
    let mut acc: Vec<(Curve, BTreeMap<i64, (f64, Vec<f64>)>)> = Vec::new();
    for r in records {
        for c in subject_curves(r, task) {
            let i = match acc.iter().position(|(k, _)| k.panel == c.panel && k.label == c.label) {
                Some(i) => i,
                None => {
                    acc.push((Curve { points: Vec::new(), note: None, ..c.clone() }, BTreeMap::new()));
                    acc.len() - 1
                }
            };
            for &(x, y) in &c.points {
                if y.is_finite() {
                    acc[i].1.entry((x * 1000.0).round() as i64).or_insert((x, Vec::new())).1.push(y);
                }
            }
        }
    }
    acc.into_iter()
        .map(|(mut c, by_x)| {
            let pts: Vec<GroupPoint> = by_x
                .into_values()
                .map(|(x, ys)| {
                    let (mean, se) = crate::record::mean_se(&ys);
                    GroupPoint { x, mean, se, n: ys.len() }
                })
                .collect();
            c.points = pts.iter().map(|p| (p.x, p.mean)).collect();
            (c, pts)
        })
        .collect()
}

/// The group's plots for `task`: per panel the participants' mean with ± 1 SE bars beside the WorM
/// human curves (the same panels as the Compare page).
pub fn group_charts(records: &[&ResultRecord], task: StudyTask) -> Vec<(Panel, Chart)> {
    let groups = group_curves(records, task);
    let curves: Vec<Curve> = groups.iter().map(|(c, _)| c.clone()).collect();
    let name = format!("participants (mean ± SE, n = {})", records.len());
    panels(task, &[curves], Extras { human: true, chance: false, published: false })
        .into_iter()
        .map(|p| {
            let mut chart = p.chart(std::slice::from_ref(&name));
            // Panel::chart draws the subject's non-empty curves in order, one series each: give them bars.
            let mine: Vec<&Curve> = p
                .series
                .iter()
                .filter(|s| s.who == Who::Subject(0))
                .flat_map(|s| s.curves.iter().filter(|c| !c.points.is_empty()))
                .collect();
            let subject_series = chart.series.iter_mut().filter(|s| s.role == Role::Subject);
            for (series, curve) in subject_series.zip(mine) {
                if let Some((_, pts)) = groups.iter().find(|(c, _)| c.panel == curve.panel && c.label == curve.label) {
                    series.bars = pts.iter().filter_map(|g| g.se.map(|se| (g.x, g.mean - se, g.mean + se))).collect();
                }
            }
            (p, chart)
        })
        .collect()
}

/// RFC 4180 CSV text as rows of cells (quoted cells may hold commas, quotes and newlines), with
/// WM Lab's formula escape undone ([`crate::record::csv_unescape`]).
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, CsvError> {
    let mut rows = parse_csv_raw(text)?;
    for row in &mut rows {
        for cell in row.iter_mut() {
            let plain = crate::record::csv_unescape(cell);
            if plain.len() != cell.len() {
                *cell = plain.to_string();
            }
        }
    }
    Ok(rows)
}

/// RFC 4180 CSV text as rows of cells, exactly as written.
fn parse_csv_raw(text: &str) -> Result<Vec<Vec<String>>, CsvError> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                '"' => quoted = false,
                _ => cell.push(c),
            }
            continue;
        }
        match c {
            '"' if cell.is_empty() => quoted = true,
            ',' => row.push(std::mem::take(&mut cell)),
            '\r' => {}
            '\n' => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            _ => cell.push(c),
        }
    }
    if quoted {
        return Err(CsvError::Unclosed);
    }
    if any && (!cell.is_empty() || !row.is_empty()) {
        row.push(cell);
        rows.push(row);
    }
    Ok(rows)
}

fn setting_of(v: &str) -> Setting {
    if let Ok(b) = v.parse::<bool>() {
        Setting::Bool(b)
    } else if let Ok(i) = v.parse::<i64>() {
        Setting::Int(i)
    } else if let Ok(x) = v.parse::<f64>() {
        Setting::Num(x)
    } else {
        Setting::Text(v.to_string())
    }
}

/// Why a CSV file could not be read as participants' results.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CsvError {
    /// A quoted cell is still open at the end of the file.
    #[error("a quoted cell is not closed")]
    Unclosed,
    /// The file has no rows, not even a header.
    #[error("the file is empty")]
    Empty,
    /// The header lacks a column every WM Lab result CSV has (named): `subject_kind`, `subject`, `task`,
    /// `trial`, `targets`, `responses`, `correct` or `rt_ms`.
    #[error("it has no `{0}` column: not a WM Lab result CSV")]
    MissingColumn(&'static str),
    /// A row is not a participant's (its `subject_kind` is not `person`).
    #[error("row {row} is a {kind} result: only participants' results go here")]
    NotPerson {
        /// Its row in the file, counting the header as row 1.
        row: usize,
        /// Its `subject_kind` as written.
        kind: String,
    },
    /// A row belongs to another participant than the first row.
    #[error("row {row} is another participant's ({who}): one participant per file")]
    OtherParticipant {
        /// Its row in the file, counting the header as row 1.
        row: usize,
        /// The other participant's id (`subject` without its `participant ` prefix).
        who: String,
    },
    /// A row's condition columns ([`Conditions::COLUMNS`]) do not make valid [`Conditions`].
    #[error("row {row}: a condition cannot be read ({why})")]
    Condition {
        /// Its row in the file, counting the header as row 1.
        row: usize,
        /// The JSON deserialiser's message.
        why: String,
    },
    /// A row's `trial` cell is not a non-negative whole number.
    #[error("row {row}: trial `{value}` is not a number")]
    Trial {
        /// Its row in the file, counting the header as row 1.
        row: usize,
        /// The cell as written.
        value: String,
    },
    /// The file has a header and no trial rows.
    #[error("the file has a header and no trials")]
    NoTrials,
    /// The record is not valid: the one read back ([`ResultRecord::validate`]), or one written out by
    /// [`long_csv`].
    #[error(transparent)]
    Record(#[from] crate::record::RecordError),
}

crate::message_into_string!(CsvError);

/// A participant's record read back from its long-format CSV (`ResultRecord::to_csv`: what the
/// download and DataPipe give). Errors say what is missing.
pub fn record_from_csv(text: &str) -> Result<ResultRecord, CsvError> {
    let rows = parse_csv(text)?;
    let Some((header, body)) = rows.split_first() else { return Err(CsvError::Empty) };
    let col = |name: &str| header.iter().position(|h| h == name);
    let need = |name: &'static str| col(name).ok_or(CsvError::MissingColumn(name));
    let (kind, subject, task, trial) = (need("subject_kind")?, need("subject")?, need("task")?, need("trial")?);
    let (targets, responses, correct, rt) = (need("targets")?, need("responses")?, need("correct")?, need("rt_ms")?);
    let last_cond = Conditions::COLUMNS.iter().filter_map(|c| col(c)).max().unwrap_or(trial);
    let mut id = None;
    let mut trials = Vec::new();
    for (n, r) in body.iter().enumerate().filter(|(_, r)| !(r.len() == 1 && r[0].is_empty())) {
        let cell = |i: usize| r.get(i).map(String::as_str).unwrap_or("");
        if cell(kind) != "person" {
            return Err(CsvError::NotPerson { row: n + 2, kind: cell(kind).to_string() });
        }
        let who = cell(subject).strip_prefix("participant ").unwrap_or(cell(subject)).to_string();
        if id.get_or_insert_with(|| who.clone()) != &who {
            return Err(CsvError::OtherParticipant { row: n + 2, who });
        }
        let mut cond = serde_json::Map::new();
        for c in Conditions::COLUMNS {
            if let Some(v) = col(c).map(cell).filter(|v| !v.is_empty()) {
                let value = v.parse::<u64>().map(serde_json::Value::from).unwrap_or_else(|_| v.into());
                cond.insert(c.to_string(), value);
            }
        }
        let mut conditions: Conditions = serde_json::from_value(serde_json::Value::Object(cond))
            .map_err(|e| CsvError::Condition { row: n + 2, why: e.to_string() })?;
        for i in last_cond + 1..targets {
            if !cell(i).is_empty() {
                conditions.other.insert(header[i].clone(), cell(i).to_string());
            }
        }
        let words = |i: usize| -> Vec<String> { cell(i).split_whitespace().map(str::to_string).collect() };
        let mut extra = BTreeMap::new();
        for i in rt + 1..header.len() {
            if !cell(i).is_empty() {
                extra.insert(header[i].clone(), setting_of(cell(i)));
            }
        }
        trials.push(TrialRow {
            task: cell(task).to_string(),
            trial: cell(trial).parse().map_err(|_| CsvError::Trial { row: n + 2, value: cell(trial).to_string() })?,
            conditions,
            targets: words(targets),
            responses: words(responses),
            correct: words(correct).iter().map(|c| c == "1").collect(),
            rt_ms: words(rt).iter().filter_map(|v| v.parse().ok()).collect(),
            extra,
        });
    }
    let id = id.ok_or(CsvError::NoTrials)?;
    let mut names: Vec<&str> = Vec::new();
    for t in &trials {
        if !names.contains(&t.task.as_str()) {
            names.push(&t.task);
        }
    }
    let mut r = ResultRecord::new(Subject::Person { id }, names.join("+"), RunConfig::default());
    r.summaries = summarise(&trials.iter().filter(|t| !is_practice(t)).cloned().collect::<Vec<_>>());
    r.trials = trials;
    r.validate()?;
    Ok(r)
}

/// One long-format CSV of every trial of every record: `source` (the file each came from) and
/// `excluded` (the reasons, `;`-separated; empty = included), then the union of the records' columns in
/// the order first seen.
pub fn long_csv(records: &[(&str, &ResultRecord, &[String])]) -> Result<String, CsvError> {
    let mut header: Vec<String> = vec!["source".into(), "excluded".into()];
    let mut tables = Vec::new();
    for (source, r, why) in records {
        let rows = parse_csv(&r.to_csv()?)?;
        let Some((h, body)) = rows.split_first() else { continue };
        for c in h {
            if !header.contains(c) {
                header.push(c.clone());
            }
        }
        tables.push((*source, why.join("; "), h.clone(), body.to_vec()));
    }
    let mut out = String::new();
    push_csv_row(&mut out, &header);
    for (source, why, h, body) in tables {
        for row in body {
            let cells: Vec<String> = header
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    if k == 0 {
                        return source.to_string();
                    }
                    if k == 1 {
                        return why.clone();
                    }
                    h.iter().position(|x| x == c).and_then(|i| row.get(i).cloned()).unwrap_or_default()
                })
                .collect();
            push_csv_row(&mut out, &cells);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::people::session::Session;
    use crate::people::study::StudyConfig;

    fn person(id: &str, seed: u64) -> ResultRecord {
        let cfg = StudyConfig::from_query(&format!("tasks=VSR&tpc=1&practice=0&pid={id}&seed={seed}")).unwrap();
        let mut s = Session::with_seed(cfg, seed);
        crate::people::session::tests::run(&mut s, |i| i % 3 != 0);
        s.to_record(None)
    }

    #[test]
    fn csv_round_trip_keeps_the_rows() {
        let r = person("P1", 3);
        let back = record_from_csv(&r.to_csv().unwrap()).unwrap();
        assert_eq!(back.subject, r.subject);
        assert_eq!(back.trials.len(), r.trials.len());
        for (a, b) in back.trials.iter().zip(&r.trials) {
            assert_eq!(
                (&a.task, a.trial, &a.targets, &a.responses, &a.correct),
                (&b.task, b.trial, &b.targets, &b.responses, &b.correct)
            );
            assert_eq!(a.conditions, b.conditions);
        }
        assert_eq!(record_from_csv("a,b\n1,2\n").unwrap_err(), CsvError::MissingColumn("subject_kind"));
        assert_eq!(record_from_csv("").unwrap_err(), CsvError::Empty);
        assert!(parse_csv("\"open,").is_err());
        // Formula-like text is written with a leading ' and read back as it was; numbers stay numbers.
        let cells: Vec<String> =
            ["=HYPERLINK(\"http://x\")", "+1+2", "-", "@SUM(A1)", "\tx", "-0.5", "+3", "'=x", "''-y", "'plain", "a=b"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        let mut out = String::new();
        push_csv_row(&mut out, &cells);
        assert_eq!(
            parse_csv_raw(&out).unwrap()[0],
            [
                "'=HYPERLINK(\"http://x\")",
                "'+1+2",
                "'-",
                "'@SUM(A1)",
                "'\tx",
                "-0.5",
                "+3",
                "''=x",
                "'''-y",
                "'plain",
                "a=b"
            ]
        );
        assert_eq!(parse_csv(&out).unwrap()[0], cells);
        assert_eq!(parse_csv("a,\"b,\"\"c\"\"\nd\"\n1,2\n").unwrap(), vec![vec!["a", "b,\"c\"\nd"], vec!["1", "2"]]);
    }

    #[test]
    fn exclusions_name_their_reasons() {
        let mut r = person("P2", 4);
        assert!(exclusions(&r, &Rules::default()).is_empty(), "{:?}", exclusions(&r, &Rules::default()));
        for t in &mut r.trials {
            t.rt_ms = vec![120.0; t.correct.len()];
            t.extra.insert("blur_count".into(), Setting::Int(2));
        }
        r.config.settings.insert("finished".into(), Setting::Bool(false));
        let why = exclusions(&r, &Rules::default());
        assert_eq!(why.len(), 3, "{why:?}");
        assert!(why[0].contains("did not finish"));
        let mut staged = r.clone();
        staged.config.settings.insert("datapipe_part".into(), Setting::Int(2));
        assert!(exclusions(&staged, &Rules::default())[0].contains("its data end after block 2"));
        assert!(why[1].contains("too fast: median response time 120 ms"));
        assert!(why[2].contains("losses of focus"));
        let lenient = Rules { min_median_rt_ms: 0.0, max_blurs: 1000, require_finished: false, ..Rules::default() };
        assert!(exclusions(&r, &lenient).is_empty());
        // What was seen: a phone, a window resized once, a small stimulus, an automated browser.
        let mut d = person("P4", 6);
        assert_eq!(DisplaySeen::of(&d), DisplaySeen::default(), "an older record says nothing");
        for (i, t) in d.trials.iter_mut().enumerate() {
            t.extra.insert("device".into(), Setting::Text("phone".into()));
            t.extra.insert("canvas_css_px".into(), Setting::Num(if i == 1 { 240.0 } else { 358.0 }));
            t.extra.insert("resize_count".into(), Setting::Int(i64::from(i == 0)));
            t.extra.insert("webdriver".into(), Setting::Text("true".into()));
        }
        assert!(exclusions(&d, &Rules::default()).is_empty(), "the display rules are off by default");
        let strict = Rules {
            exclude_touch: true,
            exclude_window_changed: true,
            min_stimulus_px: 300.0,
            exclude_automated: true,
            ..Rules::default()
        };
        let why = exclusions(&d, &strict);
        assert_eq!(why.len(), 4, "{why:?}");
        assert!(why[0].contains("took it on a phone"), "{why:?}");
        assert!(why[1].contains("changed size during 1 trial"), "{why:?}");
        assert!(why[2].contains("stimulus drawn at 240 px"), "{why:?}");
        assert!(why[3].contains("automated"), "{why:?}");
        for t in &mut d.trials {
            let n = t.rt_ms.iter().filter(|v| **v >= 0.0).count() as i64;
            t.extra.insert("fast_answers".into(), Setting::Int(n));
        }
        let fast_rule = Rules { max_fast_share: Some(0.2), ..Rules::default() };
        let why = exclusions(&d, &fast_rule);
        assert!(why.iter().any(|w| w.contains("implausibly fast: 100 % of answers under 150 ms")), "{why:?}");
        // Degrees: a session without the chinrest cannot show it met the rule; one with it is judged.
        let deg_rule = Rules { min_stimulus_deg: 8.0, ..Rules::default() };
        let why = exclusions(&d, &deg_rule);
        assert!(why.iter().any(|w| w.contains("visual angle unknown")), "{why:?}");
        for (i, t) in d.trials.iter_mut().enumerate() {
            t.extra.insert("stimulus_deg".into(), Setting::Num(if i == 2 { 6.5 } else { 9.0 }));
        }
        assert_eq!(DisplaySeen::of(&d).min_stimulus_deg, Some(6.5));
        let why = exclusions(&d, &deg_rule);
        assert!(why.iter().any(|w| w.contains("stimulus 6.5° of visual angle (rule: at least 8°)")), "{why:?}");
        assert!(exclusions(&d, &Rules { min_stimulus_deg: 6.0, ..Rules::default() }).is_empty());
        let no_paste = Rules { exclude_pasted: true, ..Rules::default() };
        assert!(exclusions(&d, &no_paste).is_empty());
        d.trials[0].extra.insert("paste_count".into(), Setting::Int(2));
        assert_eq!(exclusions(&d, &no_paste), ["pasted text into the page 2 time(s) (rule: no pasting)"]);
        let mut p = person("P3", 5);
        for t in &mut p.trials[..2] {
            t.extra.insert("block_kind".into(), Setting::Text("practice".into()));
            t.correct = vec![false; t.correct.len()];
        }
        assert!(exclusions(&p, &Rules::default())[0].contains("practice failed: 0 %"));
    }

    #[test]
    fn group_means_have_error_bars_over_participants_beside_the_humans() {
        let rs: Vec<ResultRecord> = (0..4).map(|i| person(&format!("G{i}"), 10 + i)).collect();
        let refs: Vec<&ResultRecord> = rs.iter().collect();
        let task = StudyTask::Worm(crate::task::TaskId::Vsr);
        let g = group_curves(&refs, task);
        assert!(!g.is_empty());
        let (c, pts) = &g[0];
        assert!(pts.iter().all(|p| p.n == 4 && p.se.is_some()), "{pts:?}");
        // the mean is the mean of the participants' own curve values
        let own: Vec<f64> = refs
            .iter()
            .map(|r| {
                subject_curves(r, task).into_iter().find(|x| x.label == c.label && x.panel == c.panel).unwrap().points
                    [0]
                .1
            })
            .collect();
        assert!((pts[0].mean - own.iter().sum::<f64>() / 4.0).abs() < 1e-12);
        let charts = group_charts(&refs, task);
        assert!(!charts.is_empty());
        let (_, chart) = &charts[0];
        assert!(chart.series.iter().any(|s| s.role == Role::Subject && !s.bars.is_empty()));
        assert!(chart.series.iter().any(|s| s.role == Role::Reference), "the human curves");
        let why = vec!["too fast".to_string()];
        let csv = long_csv(&[("a.json", &rs[0], &[]), ("b.csv", &rs[1], &why)]).unwrap();
        let rows = parse_csv(&csv).unwrap();
        assert_eq!(rows[0][..2], ["source", "excluded"]);
        assert_eq!(rows.last().unwrap()[..2], ["b.csv", "too fast"]);
        assert_eq!(rows.len(), 1 + rs[0].trials.len() + rs[1].trials.len());
        assert!(rows[1..].iter().all(|r| r.len() == rows[0].len()));
    }
}
