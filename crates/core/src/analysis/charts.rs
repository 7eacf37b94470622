//! A result's per-condition curves as charts ([`crate::chart::Chart`]): the subject's curves
//! ([`crate::people::subject_curves`]) over the WorM human reference of the same panel
//! ([`crate::people::human_curves`]), one chart per panel — what the participant's end screen, the
//! Networks evaluation and the Results page draw.

use crate::chart::{Chart, Role, Series, n_span, palette};
use crate::compare::record_tasks;
use crate::people::{
    CD_PAPER_RETENTION, Curve, CurveOptions, StudyTask, cd_at_paper_retention, human_curves, subject_curves,
};
use crate::record::ResultRecord;
use crate::stats::MIN_POINT_N;

/// A chart title that says how a CD panel's curve was taken: at the paper's retention interval, or
/// pooled over every interval the record has.
pub fn cd_title(record: &ResultRecord, panel: &str) -> String {
    match StudyTask::parse(panel) {
        Some(t @ StudyTask::Worm(id)) if id.is_cd() => {
            if cd_at_paper_retention(record, t, CurveOptions::default()) {
                format!("{panel} · at retention {CD_PAPER_RETENTION}, the paper's comparison")
            } else {
                format!("{panel} · pooled over retention intervals")
            }
        }
        _ => panel.to_string(),
    }
}

/// One chart per panel of every task the record has rows for, with the panel's name (panels with no
/// subject points left out). One colour per curve label, so a subject's curve and the people's curve
/// of the same label share it; the subject's thick with filled markers and 95 % intervals, named with their n, points on
/// fewer than [`MIN_POINT_N`] observations faint; the people's thin with hollow ones. y spans at least
/// 0–1.
pub fn record_charts(record: &ResultRecord) -> Vec<(String, Chart)> {
    let mut panels: Vec<(String, String, Vec<(Curve, bool)>)> = Vec::new();
    for task in record_tasks(record) {
        let subject = subject_curves(record, task).into_iter().map(|c| (c, false));
        let human = human_curves(task).into_iter().map(|c| (c, true));
        for (c, is_human) in subject.chain(human) {
            match panels.iter_mut().find(|p| p.0 == c.panel) {
                Some(p) => p.2.push((c, is_human)),
                // Human panels without any subject curve are left out.
                None if !is_human => panels.push((c.panel.clone(), c.x_name.clone(), vec![(c, false)])),
                None => {}
            }
        }
    }
    panels.retain(|(_, _, cs)| cs.iter().any(|(c, h)| !h && !c.points.is_empty()));
    panels
        .into_iter()
        .map(|(name, x_name, curves)| {
            let mut labels: Vec<&str> = Vec::new();
            for (c, _) in &curves {
                if !labels.contains(&c.label.as_str()) {
                    labels.push(&c.label);
                }
            }
            let y_label = if labels.contains(&"dprime") { "value" } else { "accuracy" };
            let mut chart = Chart::new(cd_title(record, &name), x_name.replace('_', " "), y_label);
            chart.min_n = MIN_POINT_N;
            for (c, is_human) in curves.iter().filter(|(c, _)| !c.points.is_empty()) {
                let who = if *is_human { "people (WorM)" } else { "this result" };
                let series_name = if c.label == "all" { who.to_string() } else { format!("{who}: {}", c.label) };
                let role = if *is_human { Role::Reference } else { Role::Subject };
                let colour = palette(labels.iter().position(|l| *l == c.label).unwrap_or(0));
                let name = format!("{series_name}{}", n_span(c.n.iter().copied()));
                chart.series.push(Series::with_intervals(name, role, c.points.clone(), &c.ci, &c.n).colour(colour));
            }
            let (_, (y0, y1)) = chart.bounds();
            chart.y_range = Some((y0.min(0.0), y1.max(1.0)));
            (name, chart)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{RunConfig, Subject, TrialRow};
    use crate::task::Conditions;

    #[test]
    fn a_record_gives_one_chart_per_panel_with_the_people_beside_it() {
        let mut r = ResultRecord::new(Subject::Person { id: "p".into() }, "VSR", RunConfig::default());
        for (l, correct) in [(3u8, vec![true, true, false]), (4, vec![true, true, false, false])] {
            r.trials.push(TrialRow {
                task: "VSR".into(),
                conditions: Conditions { list_length: Some(l), ..Default::default() },
                targets: correct.iter().map(|_| "0".into()).collect(),
                responses: correct.iter().map(|_| "0".into()).collect(),
                correct,
                ..Default::default()
            });
        }
        let charts = record_charts(&r);
        assert_eq!(charts.len(), 1);
        let (panel, c) = &charts[0];
        assert_eq!(panel, "VSR");
        assert_eq!((c.title.as_str(), c.x_label.as_str(), c.y_label.as_str()), ("VSR", "serial position", "accuracy"));
        let subject: Vec<_> = c.series.iter().filter(|s| s.role == Role::Subject).collect();
        assert_eq!(
            subject.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["this result: list_length=3 · n 1", "this result: list_length=4 · n 1"]
        );
        assert_eq!(subject[0].points, vec![(1.0, 1.0), (2.0, 1.0), (3.0, 0.0)]);
        // Each point with its Wilson interval and its n, all under the minimum: faint, and said so.
        assert_eq!(subject[0].bars.len(), 3);
        assert!(subject[0].bars[2].1 == 0.0 && subject[0].bars[2].2 > 0.7, "0 of 1: {:?}", subject[0].bars[2]);
        assert_eq!(subject[0].n, vec![1, 1, 1]);
        assert_eq!(c.thin_note().as_deref(), Some("faint: n < 10"));
        // The people's curve of the same label is there, in the same colour.
        let people = c.series.iter().find(|s| s.name == "people (WorM): list_length=3").expect("people drawn");
        assert!(people.bars.is_empty() && people.n.is_empty(), "the published numbers carry no n");
        assert_eq!((people.role, people.colour), (Role::Reference, subject[0].colour));
        assert_ne!(subject[0].colour, subject[1].colour);
        assert_eq!(c.y_range, Some((0.0, 1.0)));
        assert!(
            record_charts(&ResultRecord::new(Subject::Person { id: "q".into() }, "VSR", RunConfig::default()))
                .is_empty()
        );
    }
}
