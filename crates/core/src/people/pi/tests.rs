//! PI-LLM for people: the vocabulary, the plan, the presenter's frames and typed answer, the scorer,
//! the record's rows, summaries and curves.

use super::*;
use crate::people::presenter::{Action, Awaiting, Input, Presenter};
use crate::people::session::{Position, Session, SessionTrial, TrialResult};
use crate::people::timing::{FrameTiming, frames_for, hz, step_timing};
use crate::record::Subject;

const R: f64 = 1000.0 / 60.0;

fn study(query: &str) -> Session {
    Session::new(StudyConfig::from_query(query).unwrap())
}

/// The typed values of `t`: the last value of key `i` where `right(i)`, else a wrong one.
fn typed(t: &SessionTrial, right: impl Fn(usize) -> bool) -> Vec<Answer> {
    let pi = t.pi.as_ref().unwrap();
    let last = pi.stream.last_values();
    pi.keys()
        .iter()
        .enumerate()
        .map(|(i, k)| Answer::Text(if right(i) { format!(" {} ", last[k].to_uppercase()) } else { "wombat".into() }))
        .collect()
}

fn record_current(s: &mut Session, right: impl Fn(usize) -> bool) -> crate::people::RecordOutcome {
    let t = s.current_trial().unwrap();
    let answers = typed(&t, right);
    let frames = vec![
        FrameTiming { step: 0, intended_ms: UPDATE_MS, onset: 100.0, offset: 100.0 + UPDATE_MS };
        t.steps.len() / 2
    ];
    let rt_ms = vec![Some(2500.0); answers.len()];
    s.record(TrialResult { position: t.position, answers, rt_ms, frames, ..Default::default() }).unwrap()
}

#[test]
fn the_vocabulary_is_familiar_words_distinct_within_a_key() {
    let v = vocabulary();
    assert_eq!(v.len(), 8);
    for (k, vs) in &v {
        assert_eq!(vs.len(), 30, "{k}");
        let mut d = vs.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), 30, "{k}: a value twice");
        assert!(vs.iter().all(|x| x.chars().all(|c| c.is_ascii_lowercase()) && x.len() <= 11), "{k}: {vs:?}");
    }
    // Every level can be drawn: a key has a distinct value for each of its updates.
    assert!(LEVELS.iter().all(|&u| u <= 30) && KEYS <= v.len());
}

#[test]
fn a_session_plans_a_practice_stream_then_every_level_shuffled() {
    let s = study("tasks=pi-llm&tpc=3&seed=5");
    assert_eq!(s.blocks.len(), 2);
    let (practice, main) = (&s.blocks[0], &s.blocks[1]);
    assert!(practice.practice && !main.practice);
    assert_eq!(practice.units, vec![Unit::Pi { updates: PRACTICE_UPDATES as u16, stream: 0 }]);
    assert_eq!(main.units.len(), LEVELS.len() * 3);
    for &u in &LEVELS {
        let streams: Vec<u32> = main
            .units
            .iter()
            .filter_map(|x| match x {
                Unit::Pi { updates, stream } if *updates as usize == u => Some(*stream),
                _ => None,
            })
            .collect();
        let mut sorted = streams.clone();
        sorted.sort();
        assert_eq!(sorted, [0, 1, 2], "level {u}");
    }
    let ordered: Vec<Unit> =
        LEVELS.iter().flat_map(|&u| (0..3).map(move |stream| Unit::Pi { updates: u as u16, stream })).collect();
    assert_ne!(main.units, ordered, "shuffled");
    assert_eq!(study("tasks=pi-llm&tpc=3&seed=5").blocks, s.blocks, "by the seed");
    assert!(study("tasks=pi-llm&tpc=1&seed=5&practice=0").blocks.iter().all(|b| !b.practice));
    assert_eq!(StudyTask::parse("pi-llm"), Some(StudyTask::Pi));
    assert!(crate::people::text::instructions(StudyTask::Pi).contains("last word"));
}

#[test]
fn a_trial_shows_each_update_then_a_blank_and_asks_for_each_key() {
    let s = study("tasks=pi-llm&tpc=2&seed=5&practice=0");
    for trial in 0..s.blocks[0].units.len() {
        let t = s.trial(Position { block: 0, trial }).unwrap();
        let pi = t.pi.as_ref().unwrap();
        let u = pi.updates;
        assert!(LEVELS.contains(&u));
        assert_eq!(pi.stream.keys.len(), KEYS);
        assert_eq!(pi.stream.updates.len(), KEYS * u);
        assert!(pi.stream.updates.windows(2).all(|w| w[0].0 != w[1].0), "a key twice in a row");
        assert_eq!(t.steps.len(), 2 * KEYS * u + 1);
        for (i, (k, v)) in pi.stream.updates.iter().enumerate() {
            assert_eq!(t.steps[2 * i].frame, update_frame(&pi.stream.keys[*k as usize], v));
            assert_eq!(t.steps[2 * i].phase, Phase::Present);
            assert_eq!(t.steps[2 * i + 1].frame, Frame::blank());
        }
        assert_eq!(t.steps.last().unwrap().phase, Phase::Probe);
        let c = &t.conditions.other;
        assert_eq!((c["updates"].as_str(), c["keys"].as_str(), c["value_len"].as_str()), (&*u.to_string(), "4", "1"));
        assert_eq!(t.cell, t.conditions);
        // The same stream is drawn again, and it is the suite's draw on the people's vocabulary.
        assert_eq!(s.trial(Position { block: 0, trial }).unwrap(), t);
        assert_eq!(pi.stream, draw(&vocabulary(), KEYS, u, 1, Order::Random, s.seed, t.index as usize));
    }
    // The practice stream is not a main one.
    let p = study("tasks=pi-llm&tpc=2&seed=5");
    let practice = p.trial(Position { block: 0, trial: 0 }).unwrap();
    assert!(practice.practice);
    assert_ne!(practice.pi.as_ref().unwrap().stream, PiTrial::new(5, PRACTICE_UPDATES, 0, false).stream);
    // An update is one line of text, as large as fits.
    let f = update_frame("body part", "shoulder");
    let crate::display::Shape::Text { text, size, .. } = &f.shapes[0] else { panic!("{f:?}") };
    assert_eq!(text, "body part: shoulder");
    assert!(*size * 0.58 * 19.0 <= 88.5 && *size >= 6.0, "{size}");
}

#[test]
fn the_presenter_shows_each_update_for_its_frames_and_awaits_the_typed_values() {
    let s = study("tasks=pi-llm&tpc=1&seed=8&practice=0");
    let t = (0..4)
        .map(|trial| s.trial(Position { block: 0, trial }).unwrap())
        .find(|t| t.pi.as_ref().unwrap().updates == 2)
        .unwrap();
    let keys = t.pi.as_ref().unwrap().keys();
    let want: Vec<String> = keys.iter().map(|k| t.pi.as_ref().unwrap().stream.last_values()[k].clone()).collect();
    // Step timing: 1000 ms per update, 250 ms blank, an untimed question.
    assert_eq!(step_timing(StudyTask::Pi, &t.steps[0]).stimulus_ms, Some(UPDATE_MS));
    assert_eq!(step_timing(StudyTask::Pi, &t.steps[1]).stimulus_ms, Some(BLANK_MS));
    let q = step_timing(StudyTask::Pi, t.steps.last().unwrap());
    assert!(q.responds && q.window_ms.is_none());
    let (mut p, _) = Presenter::new(t.clone(), R, false, vec![]);
    let mut ts = 0.0;
    let mut paints = vec![];
    while p.awaiting().is_none() {
        ts += R;
        for a in p.on_frame(ts) {
            if let Action::Paint(f) = a {
                paints.push((ts, f));
            }
        }
        assert!(ts < 100_000.0, "never asked");
    }
    assert_eq!(p.awaiting(), Some(&Awaiting::Typed { keys: keys.clone() }));
    assert_eq!(p.awaiting().unwrap().kind(), "typed");
    assert_eq!(p.expected(), None);
    assert_eq!(p.expected_values(), Some(want.clone()));
    // No key is an input while values are typed.
    for k in ["f", "j", " ", "Enter", "Backspace", "1"] {
        assert_eq!(p.awaiting().unwrap().key_input(k), None, "{k}");
    }
    // Blank gap, then per update its frame and a blank, then the question's frame.
    let n = t.steps.len();
    assert_eq!(paints.len(), n);
    for (i, w) in paints.windows(2).enumerate() {
        let held = (w[1].0 - w[0].0) / R;
        let intended = if i % 2 == 0 { frames_for(UPDATE_MS, hz(R)) } else { frames_for(BLANK_MS, hz(R)) };
        assert!((held - intended as f64).abs() < 1e-6, "step {i}: {held} refreshes");
    }
    // A phone's keyboard opening resizes the window: recorded, the question stays.
    let resize = crate::people::session::PageEvent { kind: crate::people::session::PageEventKind::Resize, t_ms: ts };
    assert!(p.on_page_event(resize).is_empty());
    assert!(p.running() && p.awaiting().is_some());
    // Too few values are refused; the right number commits at once, each timed from the question.
    let onset = ts;
    assert!(p.on_input(Input::Typed(vec!["x".into()]), onset + 10.0).is_empty());
    assert!(p.on_input(Input::Confirm, onset + 10.0).is_empty());
    let mut given = want.clone();
    given[1] = "  nothing ".into();
    assert_eq!(p.on_input(Input::Typed(given), onset + 3000.0), vec![Action::Await(None), Action::Answered]);
    let res = loop {
        ts += R;
        if let Some(Action::Finished(r)) = p.on_frame(ts).into_iter().find(|a| matches!(a, Action::Finished(_))) {
            break r;
        }
    };
    let mut expect: Vec<Answer> = want.iter().map(|v| Answer::Text(v.clone())).collect();
    expect[1] = Answer::Text("nothing".into());
    assert_eq!(res.answers, expect);
    assert_eq!(res.rt_ms, vec![Some(3000.0); keys.len()]);
    assert_eq!(res.frames.len(), n - 1, "every update and blank timed");
    assert_eq!(res.events, vec![resize]);
    // The session scores it: the second key wrong.
    let mut s = s;
    while s.current().unwrap() != t.position {
        record_current(&mut s, |_| true);
    }
    let out = s.record(res).unwrap();
    assert_eq!(out.correct, vec![true, false, true, true]);
    assert_eq!(out.score, 0.75);
}

#[test]
fn typed_values_are_scored_by_the_one_scorer() {
    let t = PiTrial::new(3, 4, 0, false);
    let keys = t.keys();
    let last = t.stream.last_values();
    let answers = vec![
        Answer::Text(last[&keys[0]].to_uppercase()),
        Answer::Text("wrong".into()),
        Answer::Text(format!("  {}\t", last[&keys[2]])),
        Answer::Text(String::new()),
    ];
    let s = t.score(&answers).unwrap();
    assert_eq!(s.correct, vec![true, false, true, false]);
    assert_eq!(s.targets, keys.iter().map(|k| last[k].clone()).collect::<Vec<_>>());
    assert_eq!(s.responses[1], "wrong");
    assert_eq!(s.responses[2], last[&keys[2]]);
    let given: BTreeMap<String, String> = keys
        .iter()
        .zip(&answers)
        .map(|(k, a)| (k.clone(), if let Answer::Text(v) = a { v.clone() } else { String::new() }))
        .collect();
    assert_eq!(s.extra[SCORE_EXTRA], Setting::Num(score_values(&last, &given)));
    assert_eq!(s.extra[SCORE_EXTRA], Setting::Num(0.5));
    assert_eq!(s.extra["pi_keys"], Setting::Text(keys.join(",")));
    assert!(matches!(&s.extra["stream"], Setting::Text(x) if x.starts_with(&keys[t.stream.updates[0].0 as usize])));
    assert_eq!(t.score(&answers[..3]), Err(ScoreError::TypedCount { answers: 3, keys: 4 }));
    assert_eq!(t.score(&[Answer::Class(1), Answer::None, Answer::None, Answer::None]), Err(ScoreError::TakesText));
    // No answer at all is wrong, not an error.
    assert_eq!(t.score(&[Answer::None, Answer::None, Answer::None, Answer::None]).unwrap().correct, vec![false; 4]);
    assert!(crate::people::session::score_answers(StudyTask::Pi, &t.steps(), None, &answers).is_err());
}

#[test]
fn the_record_has_the_llm_rows_columns_summaries_and_curve() {
    let mut s = study("tasks=pi-llm&tpc=2&seed=21&pid=p1");
    // Practice: feedback on the one stream.
    let out = record_current(&mut s, |_| true);
    assert!(out.practice && out.score == 1.0 && out.block_finished);
    // Main: keys 0 and 2 right, 1 and 3 wrong, except every stream at 8 updates is all right.
    while let Some(t) = s.current_trial() {
        let eight = t.pi.as_ref().unwrap().updates == 8;
        record_current(&mut s, |i| eight || i % 2 == 0);
    }
    assert!(s.is_finished());
    let rec = s.to_record(None);
    rec.validate().unwrap();
    assert_eq!(rec.task, "pi-llm");
    assert_eq!(rec.trials.len(), 1 + 4 * 2);
    for (row, d) in rec.trials.iter().zip(&s.done) {
        assert_eq!(row.task, "pi-llm");
        let c = &row.conditions.other;
        assert_eq!(c.len(), 3);
        assert_eq!((c["keys"].as_str(), c["value_len"].as_str()), ("4", "1"));
        assert_eq!(row.targets.len(), 4);
        assert_eq!(row.responses.len(), 4);
        assert_eq!(row.rt_ms, vec![2500.0; 4]);
        let all = d.practice || c["updates"] == "8";
        assert_eq!(row.correct, if all { vec![true; 4] } else { vec![true, false, true, false] });
        assert_eq!(row.extra[SCORE_EXTRA], Setting::Num(if all { 1.0 } else { 0.5 }));
        if all {
            assert!(row.responses.iter().zip(&row.targets).all(|(r, t)| r.to_lowercase() == *t));
        }
    }
    let sums: Vec<&Summary> = rec.summaries.iter().filter(|x| x.task == "pi-llm").collect();
    assert_eq!(sums.len(), 1 + LEVELS.len());
    assert!(sums.iter().all(|x| x.metric == "last_values"));
    let overall = sums.iter().find(|x| x.conditions == Conditions::default()).unwrap();
    assert_eq!((overall.n, overall.value), (8, (3.0 * 0.5 + 1.0) / 4.0));
    for &u in &LEVELS {
        let x = sums.iter().find(|x| x.conditions.other.get("updates") == Some(&u.to_string())).unwrap();
        assert_eq!((x.n, x.value, x.se), (2, if u == 8 { 1.0 } else { 0.5 }, Some(0.0)));
    }
    for (k, v) in [("pi_keys", Setting::Int(4)), ("pi_updates", Setting::Text("1,2,4,8".into()))] {
        assert_eq!(rec.config.settings[k], v);
    }
    assert_eq!(rec.config.settings["pi_sessions"], Setting::Int(2));
    // The curve: practice left out, x at log10 of the updates.
    let c = crate::people::subject_curves(&rec, StudyTask::Pi);
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].panel.as_str(), c[0].label.as_str(), c[0].x_name.as_str()), ("pi-llm", "all", X_NAME));
    let xs: Vec<f64> = LEVELS.iter().map(|&u| (u as f64).log10()).collect();
    assert_eq!(c[0].points, xs.iter().zip([0.5, 0.5, 0.5, 1.0]).map(|(&x, y)| (x, y)).collect::<Vec<_>>());
    assert_eq!(c[0].n, vec![2; 4]);
    // A resumed session is the same session.
    let back = Session::from_json(&s.to_json()).unwrap();
    assert_eq!(back, s);
}

#[test]
fn curves_pool_by_kind_and_skip_failed_samples() {
    let row = |keys: &str, u: &str, v: f64, error: bool| {
        let mut r = TrialRow { task: TASK.into(), ..Default::default() };
        r.conditions.other.insert("updates".into(), u.into());
        r.conditions.other.insert("keys".into(), keys.into());
        r.conditions.other.insert("value_len".into(), "1".into());
        r.correct = vec![v >= 1.0];
        r.extra.insert(SCORE_EXTRA.into(), Setting::Num(v));
        if error {
            r.extra.insert("error".into(), Setting::Text("timeout".into()));
        }
        r
    };
    let rows = [row("46", "2", 1.0, false), row("46", "400", 0.25, false), row("46", "400", 0.75, false)];
    let c = curves(&rows.iter().collect::<Vec<_>>());
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].label, "all");
    assert_eq!(c[0].points, vec![(2f64.log10(), 1.0), (400f64.log10(), 0.5)], "the score, not the one flag");
    assert!(c[0].note.as_ref().unwrap().starts_with("46 keys"));
    let mixed = [row("46", "2", 1.0, false), row("4", "2", 0.5, false), row("4", "8", 0.0, true)];
    let c = curves(&mixed.iter().collect::<Vec<_>>());
    assert_eq!(c.iter().map(|c| c.label.as_str()).collect::<Vec<_>>(), ["keys=4", "keys=46"]);
    assert_eq!(c[0].points.len(), 1, "the failed sample left out");
    let mut rec = crate::record::ResultRecord::new(
        Subject::Llm { provider: "openai".into(), model: "m".into() },
        "pi-llm",
        Default::default(),
    );
    rec.trials = rows.to_vec();
    assert_eq!(crate::people::subject_curves(&rec, StudyTask::Pi).len(), 1);
}
