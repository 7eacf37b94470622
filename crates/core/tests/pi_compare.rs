//! PI-LLM on Compare: a person's record (a session taken here, typed values) and an LLM's record (rows as
//! `wmlab_llm::record::trial_row` writes them) land on one panel, accuracy on log10 of the updates per
//! key, one series each, beside the published models; the comparison link keeps what the curves read.

use std::collections::BTreeMap;

use wmlab_core::compare::{Compared, Comparison, Extras, Who, panels, record_tasks, subject_names};
use wmlab_core::people::pi::{self, LEVELS, X_NAME};
use wmlab_core::people::presenter::{Action, Input, Presenter};
use wmlab_core::people::{Session, StudyConfig, StudyTask};
use wmlab_core::record::{ResultRecord, RunConfig, Setting, Subject, TrialRow};

/// A person who takes PI-LLM (tpc 2, no practice) through the presenter, typing the first two keys right.
fn person() -> ResultRecord {
    let mut s = Session::new(StudyConfig::from_query("tasks=pi-llm&tpc=2&practice=0&seed=4&pid=p-pi").unwrap());
    while let Some(t) = s.current_trial() {
        let (mut p, _) = Presenter::new(t, 1000.0 / 60.0, true, vec![]);
        let mut ts = 0.0;
        let result = loop {
            ts += 16.0;
            let acts = p.on_frame(ts);
            if let Some(Action::Finished(r)) = acts.into_iter().find(|a| matches!(a, Action::Finished(_))) {
                break r;
            }
            if let Some(mut values) = p.expected_values() {
                values[2] = "no idea".into();
                values[3] = String::new();
                assert_eq!(p.on_input(Input::Typed(values), ts + 5.0).len(), 2);
            }
        };
        s.record(result).unwrap();
    }
    s.to_record(None)
}

/// An LLM's PI rows at 46 keys as the LLM crate writes them: one target and one reply, `correct` only
/// when every key was right, the score in `score_last_values`.
fn llm() -> ResultRecord {
    let mut r = ResultRecord::new(
        Subject::Llm { provider: "openai".into(), model: "small-model".into() },
        "pi-llm",
        RunConfig::default(),
    );
    for (i, (u, score)) in [(2, 1.0), (2, 0.9), (24, 0.6), (24, 0.7), (400, 0.2), (400, 0.0)].into_iter().enumerate() {
        let other: BTreeMap<String, String> =
            [("updates", u.to_string()), ("keys", "46".into()), ("value_len", "1".into())]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        let mut row = TrialRow {
            task: "pi-llm".into(),
            trial: i as u64,
            targets: vec!["bird: kea\n".into()],
            responses: vec!["The current value of bird is kea.".into()],
            correct: vec![score >= 1.0],
            rt_ms: vec![900.0],
            ..Default::default()
        };
        row.conditions.other = other;
        row.extra.insert("score_last_values".into(), Setting::Num(score));
        row.extra.insert("sample_id".into(), Setting::Text(format!("pi-llm/k46-u{u}/{i}")));
        r.trials.push(row);
    }
    r
}

#[test]
fn a_person_and_an_llm_share_one_pi_panel() {
    let (p, l) = (person(), llm());
    assert!(record_tasks(&p).contains(&StudyTask::Pi) && record_tasks(&l).contains(&StudyTask::Pi));
    let subjects: Vec<Vec<_>> = [&p, &l].iter().map(|r| Compared::new((*r).clone()).curves(StudyTask::Pi)).collect();
    // The person: half the keys right at every level; the model: its score, not its one 0/1 flag.
    let xs: Vec<f64> = LEVELS.iter().map(|&u| (u as f64).log10()).collect();
    assert_eq!(subjects[0][0].points, xs.iter().map(|&x| (x, 0.5)).collect::<Vec<_>>());
    assert_eq!(subjects[0][0].n, vec![2; 4]);
    let model: Vec<(f64, f64)> = subjects[1][0].points.clone();
    assert_eq!(model.len(), 3);
    assert!((model[0].1 - 0.95).abs() < 1e-12 && (model[2].0 - 400f64.log10()).abs() < 1e-12, "{model:?}");
    let all = Extras { human: true, chance: true, published: true };
    let ps = panels(StudyTask::Pi, &subjects, all);
    assert_eq!(ps.len(), 1, "one panel");
    let panel = &ps[0];
    assert_eq!((panel.name.as_str(), panel.x_name.as_str(), panel.y_name.as_str()), ("pi-llm", X_NAME, "accuracy"));
    assert_eq!(panel.labels, ["all"]);
    let who: Vec<&Who> = panel.series.iter().map(|s| &s.who).collect();
    assert_eq!(who[..2], [&Who::Subject(0), &Who::Subject(1)]);
    assert_eq!(who.iter().filter(|w| matches!(w, Who::Published(_))).count(), 4, "{who:?}");
    assert!(!who.contains(&&Who::Chance) && !who.contains(&&Who::Human));
    // Drawn as one chart with both subjects on it.
    let names = subject_names(&[&p, &l]);
    let charts = panel.level_charts(&names);
    assert_eq!(charts.len(), 1);
    let drawn: Vec<&str> = charts[0].series.iter().map(|s| s.name.as_str()).collect();
    assert!(drawn[0].starts_with("participant p-pi") && drawn[1].starts_with("small-model"), "{drawn:?}");
    // The person's summaries are the LLM's metric.
    assert!(p.summaries.iter().any(|s| s.task == "pi-llm" && s.metric == pi::METRIC));
    // A comparison link keeps the score the curves read (not only the one flag), and its curves.
    let c = Comparison::new(StudyTask::Pi, &[Compared::new(p), Compared::new(l)], true, false, true);
    let back = Comparison::from_json(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(back.results[1].curves(StudyTask::Pi), subjects[1]);
    assert_eq!(back.summaries_only().results[0].curves(StudyTask::Pi), subjects[0]);
}
