//! The session's tests: plans, practice, resume, records, scoring.

use super::*;
use crate::people::score::Answer;
use crate::people::timing::answerable;
use crate::task::TaskSpec;
use crate::task::{Response, TaskId};

fn cfg(tasks: Vec<StudyTask>) -> StudyConfig {
    StudyConfig { seed: Some(11), ..StudyConfig::new(tasks) }
}

/// The correct answer of a step, as a person gives it.
pub(crate) fn right_answer(task: StudyTask, step: &Step) -> Answer {
    match (&step.target, &step.response) {
        (Target::Set(v), _) => Answer::Set(v.clone()),
        (Target::Class(t), _) if task == StudyTask::Worm(TaskId::Cs) => {
            Answer::Class(t - crate::tasks::cs::class_offset(*t))
        }
        (Target::Class(t), _) => Answer::Class(*t),
        (Target::None, _) => Answer::None,
    }
}

/// A wrong answer of a step.
pub(crate) fn wrong_answer(task: StudyTask, step: &Step) -> Answer {
    match (right_answer(task, step), &step.response) {
        (Answer::Class(c), Response::Binary { .. }) => Answer::Class(1 - c),
        (Answer::Class(c), Response::Choice { n }) => Answer::Class((c + 1) % n),
        (Answer::Set(v), Response::MultiSelect { n, .. }) => {
            // Keep the first cell (if L > 1), fill up with cells outside the target.
            let mut out = if v.len() > 1 { vec![v[0]] } else { vec![] };
            let mut c = 0u16;
            while out.len() < v.len() {
                if !v.contains(&c) {
                    out.push(c);
                }
                c = (c + 1) % n;
            }
            Answer::Set(out)
        }
        (a, _) => a,
    }
}

/// A scripted participant: answers every step right when `right(global)` is true, else wrong.
pub(crate) fn run(session: &mut Session, right: impl Fn(usize) -> bool) -> Vec<(usize, bool)> {
    run_with(session, |t| right(t.global))
}

/// A scripted participant who answers a trial right when `right(trial)` is true, else wrong.
pub(crate) fn run_with(session: &mut Session, mut right: impl FnMut(&SessionTrial) -> bool) -> Vec<(usize, bool)> {
    let mut log = Vec::new();
    while let Some(pos) = session.current() {
        let t = session.trial(pos).unwrap();
        let ok = right(&t);
        answer(session, &t, ok);
        log.push((t.global, ok));
    }
    log
}

/// Answer the current trial `t` all right or all wrong.
pub(crate) fn answer(session: &mut Session, t: &SessionTrial, ok: bool) {
    let answers: Vec<Answer> = match &t.pi {
        // PI-LLM: each key's last value typed, or a word no key has.
        Some(pi) => {
            let last = pi.stream.last_values();
            pi.keys().iter().map(|k| Answer::Text(if ok { last[k].clone() } else { "wombat".into() })).collect()
        }
        None => t
            .steps
            .iter()
            .filter(|s| answerable(s))
            .map(|s| if ok { right_answer(t.task, s) } else { wrong_answer(t.task, s) })
            .collect(),
    };
    let n = answers.len();
    let frames = t
        .steps
        .iter()
        .enumerate()
        .map(|(i, _)| FrameTiming {
            step: i as u32,
            intended_ms: 100.0,
            onset: 1000.0 * i as f64,
            offset: 1000.0 * i as f64 + 100.2,
        })
        .collect();
    let res = TrialResult {
        position: t.position,
        answers,
        rt_ms: (0..n).map(|i| if i == 0 && !ok { None } else { Some(400.0 + i as f64) }).collect(),
        frames,
        events: vec![],
        view: None,
    };
    let out = session.record(res).unwrap();
    assert!(out.correct.iter().all(|&c| c == ok) || t.task == StudyTask::Worm(TaskId::Sfr), "{} {out:?}", t.task);
}

/// `conditions=`: the session takes its condition's task order, the record says which and how.
#[test]
fn a_condition_orders_the_blocks_and_is_recorded() {
    let q = "tasks=SC,VIR&conditions=SC,VIR|VIR,SC&practice=0&seed=3";
    let s = Session::new(StudyConfig::from_query(q).unwrap());
    let c = s.condition.clone().unwrap();
    let first = |s: &Session| s.blocks[0].task.as_str().to_string();
    assert_eq!(first(&s), if c.index == 0 { "SC" } else { "VIR" });
    assert_eq!(c.source, "seed");
    let other = s.clone().in_condition(1 - c.index, "datapipe");
    assert_ne!(first(&other), first(&s));
    let rec = other.to_record(None);
    assert_eq!(rec.config.settings["condition"], Setting::Int(2 - c.index as i64));
    assert_eq!(rec.config.settings["condition_source"], Setting::Text("datapipe".into()));
    assert_eq!(Session::from_json(&other.to_json()).unwrap(), other, "resumed in its condition");
    let plain = Session::new(StudyConfig::from_query("tasks=SC,VIR&seed=3").unwrap());
    assert_eq!((plain.condition.clone(), plain.clone().in_condition(1, "x")), (None, plain));
}

/// `condition_sets=`: the session's tasks take its set's parameters, crossed with the orders.
#[test]
fn a_parameter_set_condition_changes_the_trials_and_is_recorded() {
    let q = "tasks=nback-verbal,VIR&conditions=nback-verbal,VIR|VIR,nback-verbal\
             &condition_sets=list_lengths=4|list_lengths=16&practice=0&n=1&seed=3";
    let cfg = StudyConfig::from_query(q).unwrap();
    assert_eq!(cfg.condition_count(), 4);
    for k in 0..4 {
        let s = Session::new(cfg.clone()).in_condition(k, "datapipe");
        assert_eq!(s.blocks[0].task.as_str(), if k % 2 == 0 { "nback-verbal" } else { "VIR" }, "order {k}");
        let want = if k < 2 { 4 } else { 16 };
        let vir = s.blocks.iter().position(|b| b.task.as_str() == "VIR").unwrap();
        for trial in 0..s.blocks[vir].units.len() {
            let t = s.trial(Position { block: vir, trial }).unwrap();
            assert_eq!(t.cell.list_length, Some(want), "condition {k}");
        }
        let rec = s.to_record(None);
        let set = format!("list_lengths={want}");
        assert_eq!(rec.config.settings["condition_set"], Setting::Text(set));
        assert!(rec.config.tasks.iter().any(|spec| spec.id == crate::TaskId::Vir));
    }
}

#[test]
fn questionnaire_answers_go_into_the_settings_and_every_row() {
    let config = StudyConfig::from_query("tasks=SC&practice=0&seed=5&survey=demographics&survey_at=end").unwrap();
    let mut s = Session::new(config);
    assert!(!s.needs_survey(SurveyAt::Start) && s.needs_survey(SurveyAt::End));
    let pos = s.current().unwrap();
    let t = s.trial(pos).unwrap();
    let answers: Vec<Answer> = t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
    s.record(TrialResult { position: pos, answers, ..Default::default() }).unwrap();
    let a: BTreeMap<String, String> =
        [("age", "41"), ("colour_vision", "yes")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    s.set_survey(a);
    s.note_paste();
    assert!(!s.needs_survey(SurveyAt::End));
    let rec = Session::from_json(&s.to_json()).unwrap().to_record(None);
    assert_eq!(rec.config.settings["q_colour_vision"], Setting::Text("yes".into()));
    assert_eq!(rec.config.settings["survey_at"], Setting::Text("end".into()));
    assert_eq!(rec.trials[0].extra["q_age"], Setting::Text("41".into()));
    assert_eq!(rec.trials[0].extra["paste_count"], Setting::Int(1));
    let csv = rec.to_csv().unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert!(header.contains(&"q_age") && header.contains(&"q_colour_vision"), "{header:?}");
}

#[test]
fn a_calibrated_session_draws_at_its_angle_and_records_degrees() {
    use crate::people::chinrest::{CARD_WIDTH_MM, Chinrest};
    use crate::people::device::TrialView;
    let config = StudyConfig::from_query("tasks=SC&practice=0&seed=5&visual_angle=8").unwrap();
    let mut s = Session::new(config);
    assert!(s.needs_calibration());
    assert_eq!(s.stimulus_side((1366.0, 800.0)), Ok(610.0), "before the chinrest: the window's size");
    let mut c = Chinrest::default();
    for _ in 0..3 {
        c.card(CARD_WIDTH_MM * 4.0).unwrap();
    }
    let off = 500.0 * 13.5f64.to_radians().tan() * 4.0;
    for _ in 0..5 {
        c.press(off).unwrap();
    }
    s.set_calibration(c.calibration().unwrap());
    assert!(!s.needs_calibration());
    // 8° at 50 cm, 4 px/mm: 2·500·tan 4° mm · 4 = 279.7 px.
    let side = s.stimulus_side((1366.0, 800.0)).unwrap();
    assert_eq!(side, 280.0);
    assert!(s.stimulus_side((300.0, 420.0)).is_err());
    let pos = s.current().unwrap();
    let t = s.trial(pos).unwrap();
    let answers: Vec<Answer> = t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
    let view =
        TrialView { css_px: side, device_px: 280, window_w: 1366, window_h: 800, dpr: 1.0, ..Default::default() };
    s.record(TrialResult { position: pos, answers, view: Some(view), ..Default::default() }).unwrap();
    let back = Session::from_json(&s.to_json()).unwrap();
    assert_eq!(back.calibration, s.calibration, "kept on resume");
    let rec = back.to_record(None);
    assert!(matches!(rec.trials[0].extra["stimulus_deg"], Setting::Num(d) if (d - 8.0).abs() < 0.01));
    assert_eq!(rec.config.settings["visual_angle_deg"], Setting::Num(8.0));
    assert_eq!(rec.config.settings["chinrest_distance_mm"], Setting::Num(500.0));
    assert_eq!(rec.config.settings["chinrest_px_per_mm"], Setting::Num(4.0));
    assert!(rec.to_csv().unwrap().lines().next().unwrap().split(',').any(|h| h == "stimulus_deg"));
}

/// What the participant saw goes into every row, the CSV and the record's settings; a hostile view
/// (NaN size, an unknown pointer) is refused with nothing recorded.
#[test]
fn the_display_and_each_trials_view_are_recorded() {
    use crate::people::device::{DisplayFacts, TrialView};
    let config = StudyConfig::from_query("tasks=SC&practice=0&seed=5").unwrap();
    let mut s = Session::new(config);
    s.set_display(DisplayFacts {
        user_agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Version/18.1 Mobile Safari/604.1".into(),
        screen_w: 390,
        screen_h: 844,
        window_w: 390,
        window_h: 700,
        outer_w: 0,
        dpr: 3.0,
        touch_points: 5,
        coarse: true,
        fine: false,
        hover: false,
        webdriver: false,
    });
    let pos = s.current().unwrap();
    let t = s.trial(pos).unwrap();
    let answers: Vec<Answer> = t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
    let view = TrialView {
        css_px: 358.0,
        device_px: 1074,
        window_w: 390,
        window_h: 700,
        dpr: 3.0,
        pointers: vec!["touch".into()],
        pointer_moves: 0,
        instructions_ms: Some(5300.0),
    };
    for bad in
        [TrialView { css_px: f64::NAN, ..view.clone() }, TrialView { pointers: vec!["<b>".into()], ..view.clone() }]
    {
        let r = TrialResult { position: pos, answers: answers.clone(), view: Some(bad), ..Default::default() };
        assert!(matches!(s.record(r), Err(SessionError::BadResult(_))));
    }
    assert!(s.done.is_empty(), "nothing recorded");
    let resized = vec![PageEvent { kind: PageEventKind::Resize, t_ms: 5.0 }];
    let rt_ms = answers.iter().enumerate().map(|(i, _)| Some(if i == 0 { 90.0 } else { 700.0 })).collect();
    let r = TrialResult { position: pos, answers, view: Some(view), events: resized, rt_ms, ..Default::default() };
    s.record(r).unwrap();
    let rec = s.to_record(None);
    let row = &rec.trials[0].extra;
    assert_eq!(row["device"], Setting::Text("phone".into()));
    assert_eq!(row["os"], Setting::Text("iOS".into()));
    assert_eq!(row["canvas_css_px"], Setting::Num(358.0));
    assert_eq!(row["pointer"], Setting::Text("touch".into()));
    assert_eq!(row["resize_count"], Setting::Int(1));
    assert_eq!(row["fast_answers"], Setting::Int(1));
    assert_eq!(row["instructions_ms"], Setting::Num(5300.0));
    assert_eq!(rec.config.settings["display_device"], Setting::Text("phone".into()));
    assert_eq!(rec.config.settings["pointer_types"], Setting::Text("touch".into()));
    let csv = rec.to_csv().unwrap();
    let header = csv.lines().next().unwrap();
    for col in ["device", "browser", "screen", "window", "dpr", "canvas_css_px", "canvas_device_px", "pointer"] {
        assert!(header.split(',').any(|h| h == col), "{col} in {header}");
    }
    // Saved and resumed with it.
    assert_eq!(Session::from_json(&s.to_json()).unwrap(), s);
}

/// `adaptive=`: CD's and VSR's main blocks follow their staircases, one trial at a time; an observer
/// who holds 4 items (CD) and recalls lists of up to 5 whole (VSR) is placed there; the record keeps
/// both runs; a session saved halfway resumes with the same next trial; and the person's staircase
/// trials are regenerated exactly for a network to take (`people::replay`).
#[test]
fn an_adaptive_block_follows_its_staircase_and_the_record_keeps_it() {
    let config = StudyConfig::from_query("tasks=SC,CD-Color,VSR&adaptive=CD-Color,VSR&practice=1&seed=3").unwrap();
    let mut s = Session::new(config);
    assert_eq!(s.blocks.iter().filter(|b| b.adaptive.is_some()).count(), 2);
    assert_eq!(s.progress(), (0, 3 + 20 + 3 + 1 + 3 + 1), "SC's 20 cells; an adaptive block starts with one trial");
    let observer = |t: &SessionTrial| match t.task {
        _ if t.practice => true,
        StudyTask::Worm(TaskId::CdColor) => t.cell.set_size.unwrap() <= 4,
        StudyTask::Worm(TaskId::Vsr) => t.cell.list_length.unwrap() <= 5,
        _ => true,
    };
    let mut shown = Vec::new();
    let mut resumed = None;
    while let Some(pos) = s.current() {
        let t = s.trial(pos).unwrap();
        if s.blocks[pos.block].adaptive.is_some() {
            let level = s.adaptive_level(pos).unwrap() as u8;
            assert_eq!(t.cell.set_size.or(t.cell.list_length), Some(level));
            assert_eq!(t.conditions.set_size.or(t.conditions.list_length), Some(level));
            if pos.trial == 6 && resumed.is_none() {
                let again = Session::from_json(&s.to_json()).unwrap();
                assert_eq!(again.trial(pos).unwrap(), t, "resumed halfway: the same trial");
                resumed = Some(again);
            }
        }
        if !t.practice {
            shown.push((t.index, t.steps.clone()));
        }
        answer(&mut s, &t, observer(&t));
    }
    assert!(s.is_finished());
    let record = s.to_record(Some("stair"));
    let runs = crate::adaptive::results_of(&record);
    assert_eq!(runs.iter().map(|r| r.task.as_str()).collect::<Vec<_>>(), ["CD-Color", "VSR"]);
    let cd_run = &runs[0];
    let e = cd_run.estimate.unwrap();
    assert!((2.5..=5.5).contains(&e.level), "CD: {e:?}");
    let vsr = runs[1].estimate.unwrap();
    assert!((5.0..=6.0).contains(&vsr.level), "VSR: {vsr:?}");
    let cd_rows: Vec<_> =
        record.trials.iter().filter(|r| r.task == "CD-Color" && !crate::people::reference::is_practice(r)).collect();
    assert_eq!(cd_rows.len(), cd_run.track.len());
    for (row, step) in cd_rows.iter().zip(&cd_run.track) {
        assert_eq!(row.conditions.set_size, Some(step.level as u8));
        assert_eq!(row.correct.iter().all(|&c| c), step.correct);
    }
    assert!(cd_run.track.len() < cd_run.config.max_trials, "settled before the trial limit");
    assert!(runs[0].describe().starts_with("set size at 75 % right: "), "{}", runs[0].describe());
    let replay = crate::people::replay::worm_trials_of(&record).unwrap();
    assert_eq!(replay.levels.len(), cd_run.track.len() + runs[1].track.len());
    let again: Vec<_> = replay.generate().into_iter().map(|(i, t)| (i, t.steps)).collect();
    assert_eq!(again.len(), record.trials.iter().filter(|r| !crate::people::reference::is_practice(r)).count());
    assert_eq!(again, shown, "the staircase trials regenerated from the record");
}

/// `adaptive=nback-verbal`: one block per step, each at the N the blocks so far ask (up one after a
/// block passed, down one after one failed); a participant who passes up to 2-back settles between
/// 2 and 3; the record keeps the run; a session saved between blocks resumes with the same block.
#[test]
fn an_adaptive_nback_runs_one_block_per_step() {
    let config = StudyConfig::from_query("tasks=nback-verbal&adaptive=all&practice=1&seed=4").unwrap();
    let mut s = Session::new(config);
    assert_eq!(s.blocks.len(), 2, "practice, then the first step");
    let mut shown = Vec::new();
    let mut resumed = None;
    let player = |t: &SessionTrial| t.practice || t.nback.as_ref().is_some_and(|b| b.n <= 2);
    while let Some(pos) = s.current() {
        let t = s.trial(pos).unwrap();
        let n = t.nback.as_ref().unwrap().n;
        if !t.practice {
            assert_eq!(s.adaptive_level(pos), Some(n as u32));
            assert_eq!(s.blocks[pos.block].n, Some(n), "the block says its N (the page's instructions)");
            shown.push(n);
            if shown.len() == 3 {
                let again = Session::from_json(&s.to_json()).unwrap();
                assert_eq!(again.trial(pos).unwrap(), t, "resumed between blocks: the same block");
                resumed = Some(again);
            }
        }
        answer(&mut s, &t, player(&t));
    }
    let mut again = resumed.expect("resumed at the third block");
    run_with(&mut again, player);
    assert_eq!(again.staircase_results(), s.staircase_results(), "the resumed session ends the same");
    let record = s.to_record(Some("nb"));
    let runs = crate::adaptive::results_of(&record);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!((run.task.as_str(), run.kind), ("nback-verbal", crate::adaptive::LevelKind::NbackN));
    assert_eq!(run.track.iter().map(|t| t.level as u8).collect::<Vec<_>>(), shown);
    assert_eq!(&shown[..3], [1, 2, 3], "up after each block passed, from 1-back");
    let e = run.estimate.unwrap();
    assert!((2.0..=3.0).contains(&e.level), "{e:?}");
    assert!(run.track.len() <= 12);
    // Summaries per N, as for a fixed run; no fixed levels in the settings (the staircase chose them).
    assert!(record.summaries.iter().any(|m| m.task == "nback-verbal" && m.conditions.set_size == Some(3)));
    assert!(!record.config.settings.contains_key("nback_ns"), "{:?}", record.config.settings.keys());
    // Beside a fixed N-back the levels are kept.
    let both = StudyConfig::from_query("tasks=nback-verbal,nback-spatial&adaptive=nback-verbal&seed=4").unwrap();
    let record = Session::new(both).to_record(Some("nb2"));
    assert!(record.config.settings.contains_key("nback_ns"));
}

#[test]
fn plan_is_deterministic_and_sized() {
    let mut c =
        cfg(vec![StudyTask::Worm(TaskId::Vir), StudyTask::Worm(TaskId::Sfr), StudyTask::Nback(NbackKind::Verbal)]);
    c.trials_per_condition = 2;
    c.block_order = BlockOrder::Random;
    let a = Session::new(c.clone());
    let b = Session::new(c.clone());
    assert_eq!(a, b);
    // VIR 20 cells × 2 + 3 practice; SFR 12 × 2 + 3; N-back 3 levels × (1 practice + 1 main).
    assert_eq!(a.progress(), (0, 43 + 27 + 6));
    assert_eq!(a.blocks.len(), 2 + 2 + 6);
    for (i, blk) in a.blocks.iter().enumerate() {
        for j in 0..blk.units.len() {
            let p = Position { block: i, trial: j };
            assert_eq!(a.trial(p).unwrap(), b.trial(p).unwrap());
        }
    }
    // Main block = each grid cell exactly tpc times, in a shuffled order.
    let vir = a.blocks.iter().find(|b| b.task == StudyTask::Worm(TaskId::Vir) && !b.practice).unwrap();
    let mut idx: Vec<u64> = vir
        .units
        .iter()
        .map(|u| match u {
            Unit::Worm { index } => *index,
            _ => panic!(),
        })
        .collect();
    assert_ne!(idx, (0..40).collect::<Vec<_>>());
    idx.sort();
    assert_eq!(idx, (0..40).collect::<Vec<_>>());
    // Practice trials differ from every main trial.
    let pi = a.blocks.iter().position(|b| b.task == StudyTask::Worm(TaskId::Vir) && b.practice).unwrap();
    let mi = a.blocks.iter().position(|b| b.task == StudyTask::Worm(TaskId::Vir) && !b.practice).unwrap();
    for j in 0..3 {
        let p = a.trial(Position { block: pi, trial: j }).unwrap();
        for k in 0..40 {
            assert_ne!(p.steps, a.trial(Position { block: mi, trial: k }).unwrap().steps);
        }
    }
    // Another seed gives other stimuli; fixed order keeps the link's order.
    let other = Session::new(StudyConfig { seed: Some(12), ..c.clone() });
    assert_ne!(
        other.trial(Position { block: 1, trial: 0 }).unwrap().steps,
        a.trial(Position { block: 1, trial: 0 }).unwrap().steps
    );
    let fixed = Session::new(StudyConfig { block_order: BlockOrder::Fixed, ..c });
    assert_eq!(fixed.blocks[0].task, StudyTask::Worm(TaskId::Vir));
    assert_eq!(fixed.blocks.iter().filter_map(|b| b.n).collect::<Vec<_>>(), vec![1, 1, 2, 2, 3, 3]);
}

#[test]
fn anonymous_links_draw_their_own_seed_and_named_ones_keep_theirs() {
    let tasks = vec![StudyTask::Worm(TaskId::Vsr)];
    let anon = StudyConfig::new(tasks.clone());
    assert!(anon.anonymous());
    let (a, b) = (Session::for_link(anon.clone(), 1234), Session::for_link(anon.clone(), 98765));
    assert_eq!((a.seed, b.seed), (1234, 98765));
    assert_eq!(a.config, anon, "the config stays the link's, so a reload finds the saved session");
    let first = Position { block: 0, trial: 0 };
    assert_ne!(
        a.trial(first).unwrap().steps,
        b.trial(first).unwrap().steps,
        "two anonymous sessions see other stimuli"
    );
    // A seed or a participant id in the link decides the seed; the fresh number is ignored.
    let seeded = StudyConfig { seed: Some(7), ..anon.clone() };
    assert!(!seeded.anonymous());
    assert_eq!(Session::for_link(seeded, 1234).seed, 7);
    let named = StudyConfig { participant: Some("P01".into()), ..anon };
    assert_eq!(Session::for_link(named.clone(), 1234).seed, named.effective_seed());
    assert_eq!(Session::for_link(named.clone(), 1).seed, Session::for_link(named, 2).seed);
}

#[test]
fn a_main_trial_is_the_tasks_trial_of_the_human_split() {
    let s = Session::new(StudyConfig {
        seed: Some(77),
        ..cfg(vec![StudyTask::Worm(TaskId::Vsr), StudyTask::Worm(TaskId::CdColor)])
    });
    for (b, block) in s.blocks.iter().enumerate().filter(|(_, b)| !b.practice) {
        let id = block.task.worm().unwrap();
        for (j, unit) in block.units.iter().enumerate() {
            let Unit::Worm { index } = *unit else { panic!() };
            let t = s.trial(Position { block: b, trial: j }).unwrap();
            let same = TaskSpec::new(id).trial(77, Split::Human, index);
            assert_eq!((t.steps, t.conditions), (same.steps, same.conditions), "{id:?} trial {index}");
        }
    }
}

#[test]
fn answers_are_balanced_with_one_trial_per_condition() {
    let s = Session::new(StudyConfig { practice: false, ..cfg(vec![StudyTask::Worm(TaskId::CdColor)]) });
    let targets: Vec<u16> = (0..24)
        .map(|j| match s.trial(Position { block: 0, trial: j }).unwrap().steps.last().unwrap().target {
            Target::Class(c) => c,
            _ => panic!(),
        })
        .collect();
    assert_eq!(targets.iter().filter(|&&c| c == 1).count(), 12);
}

#[test]
fn nback_blocks_match_the_llm_shape() {
    let s = Session::new(cfg(vec![StudyTask::Nback(NbackKind::Spatial)]));
    let main = s.trial(Position { block: 1, trial: 0 }).unwrap();
    let nb = main.nback.as_ref().unwrap();
    assert_eq!((nb.n, nb.stimuli.len(), nb.conditions.matches('m').count()), (1, 30, 10));
    assert!(nb.stimuli.iter().all(|c| ("1"..="9").contains(&c.as_str()) && c.len() == 1));
    for (i, c) in nb.conditions.chars().enumerate() {
        assert_eq!(c == 'm', i >= 1 && nb.stimuli[i] == nb.stimuli[i - 1]);
    }
    assert_eq!(main.steps.len(), 30);
    assert_eq!(main.cell.set_size, Some(1));
    let practice = s.trial(Position { block: 0, trial: 0 }).unwrap();
    assert!(practice.practice);
    assert_eq!(practice.nback.unwrap().stimuli.len(), NBACK_PRACTICE_LEN);
}

#[test]
fn resume_mid_session_regenerates_identical_trials() {
    let mut c =
        cfg(vec![StudyTask::Worm(TaskId::VsRec), StudyTask::Worm(TaskId::Cs), StudyTask::Nback(NbackKind::Verbal)]);
    c.nback_ns = vec![2];
    let s = Session::new(c);
    // Take 7 trials, then "reload".
    let mut first = s.clone();
    let mut n = 0;
    while n < 7 {
        let pos = first.current().unwrap();
        let t = first.trial(pos).unwrap();
        let answers = t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
        first.record(TrialResult { position: pos, answers, ..Default::default() }).unwrap();
        n += 1;
    }
    let saved = first.to_json();
    let resumed = Session::from_json(&saved).unwrap();
    assert_eq!(resumed, first);
    assert_eq!(resumed.current(), first.current());
    assert_eq!(resumed.progress().0, 7);
    assert_eq!(resumed.done[..7], first.done[..7]);
    for (i, b) in resumed.blocks.iter().enumerate() {
        for j in 0..b.units.len() {
            let p = Position { block: i, trial: j };
            assert_eq!(resumed.trial(p).unwrap(), s.trial(p).unwrap());
        }
    }
    // A repeat of an earlier trial (e.g. the page re-sending it after reload) is refused, unchanged.
    let mut resumed = resumed;
    let before = resumed.clone();
    let err =
        resumed.record(TrialResult { position: Position { block: 0, trial: 0 }, ..Default::default() }).unwrap_err();
    assert!(matches!(err, SessionError::OutOfOrder { .. }), "{err}");
    assert_eq!(resumed, before);
    // Continue to the end from the resumed state.
    let log = run(&mut resumed, |g| g % 2 == 0);
    assert_eq!(log.first().unwrap().0, 7);
    assert!(resumed.is_finished());
    assert_eq!(resumed.progress().0, resumed.progress().1);
    assert_eq!(resumed.record(TrialResult::default()).unwrap_err(), SessionError::Finished);
    // Bad saved states.
    assert!(Session::from_json("{").is_err());
    let mut broken = first.clone();
    broken.done.pop();
    assert!(Session::from_json(&broken.to_json()).is_err());
}

#[test]
fn a_study_with_consent_records_nothing_before_the_agreement_and_keeps_it_in_the_record() {
    use crate::people::study::StudyText;
    let c =
        StudyConfig { consent: Some(StudyText::Text("I agree.".into())), ..cfg(vec![StudyTask::Worm(TaskId::Vir)]) };
    let mut s = Session::new(c);
    assert!(s.needs_consent());
    let pos = s.current().unwrap();
    let t = s.trial(pos).unwrap();
    let answers: Vec<Answer> = t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
    let res = TrialResult { position: pos, answers, ..Default::default() };
    let e = s.record(res.clone()).unwrap_err();
    assert!(e.to_string().contains("consent"), "{e}");
    s.agree("2026-11-25T10:00:00Z", "I agree.");
    assert!(!s.needs_consent());
    s.record(res).unwrap();
    // Saved and resumed with the agreement; the record says when and to which text.
    let back = Session::from_json(&s.to_json()).unwrap();
    assert_eq!(back.consent, s.consent);
    let r = s.to_record(None);
    let text = |k: &str| match r.config.settings.get(k) {
        Some(Setting::Text(t)) => t.clone(),
        other => panic!("{k}: {other:?}"),
    };
    assert_eq!(text("consent_agreed_at"), "2026-11-25T10:00:00Z");
    let mut h = crate::hash::Fnv64::default();
    h.write(b"I agree.");
    assert_eq!(text("consent_text_fnv64"), format!("{:016x}", h.finish()));
    // A study without consent text needs none.
    assert!(!Session::new(cfg(vec![StudyTask::Worm(TaskId::Vir)])).needs_consent());
}

#[test]
fn out_of_order_and_malformed_results_are_rejected() {
    let mut s = Session::new(cfg(vec![StudyTask::Worm(TaskId::Vsr)]));
    let pos = s.current().unwrap();
    let skip = Position { block: pos.block, trial: pos.trial + 1 };
    assert!(matches!(
        s.record(TrialResult { position: skip, ..Default::default() }),
        Err(SessionError::OutOfOrder { .. })
    ));
    assert!(matches!(
        s.record(TrialResult { position: pos, answers: vec![], ..Default::default() }),
        Err(SessionError::BadResult(_))
    ));
    let t = s.trial(pos).unwrap();
    let answers: Vec<Answer> = t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
    let bad_rt = TrialResult {
        position: pos,
        answers: answers.clone(),
        rt_ms: vec![Some(-5.0); answers.len()],
        ..Default::default()
    };
    assert!(matches!(s.record(bad_rt), Err(SessionError::BadResult(_))));
    let short_rt =
        TrialResult { position: pos, answers: answers.clone(), rt_ms: vec![Some(5.0)], ..Default::default() };
    if answers.len() != 1 {
        assert!(matches!(s.record(short_rt), Err(SessionError::BadResult(_))));
    }
    assert_eq!(s.progress().0, 0);
    let out = s.record(TrialResult { position: pos, answers, ..Default::default() }).unwrap();
    assert!(out.practice && out.correct.iter().all(|&c| c));
    assert_eq!(s.progress().0, 1);
    assert!(s.trial(Position { block: 9, trial: 0 }).is_err());
}

#[test]
fn scripted_participant_completes_every_task() {
    let mut c = cfg(StudyTask::all());
    c.participant = Some("bot-1".into());
    c.practice_trials = 2;
    c.nback_ns = vec![1, 2];
    let mut s = Session::new(c);
    s.set_refresh(1000.0 / 60.0);
    let (_, total) = s.progress();
    let right = |g: usize| g % 3 != 1;
    let log = run(&mut s, right);
    assert!(s.is_finished());
    assert_eq!(log.len(), total);
    let rec = s.to_record(None);
    rec.validate().unwrap();
    assert_eq!(rec.subject, Subject::Person { id: "bot-1".into() });
    assert_eq!(rec.trials.len(), total, "one row per trial");
    for (row, (g, ok)) in rec.trials.iter().zip(&log) {
        assert_eq!(row.trial as usize, *g);
        assert!(!row.correct.is_empty() && row.targets.len() == row.correct.len(), "{}", row.task);
        if row.task == "SFR" {
            assert_eq!(row.correct.iter().all(|&c| c), *ok);
            assert_eq!(row.extra.get("sfr_exact"), Some(&Setting::Bool(*ok)));
        } else {
            assert!(row.correct.iter().all(|&c| c == *ok), "{} {row:?}", row.task);
            let resp: Vec<&String> = row.responses.iter().collect();
            if *ok {
                assert_eq!(resp, row.targets.iter().collect::<Vec<_>>(), "{}", row.task);
            }
        }
        assert!(matches!(row.extra.get("frame_err_max_ms"), Some(Setting::Num(x)) if (x - 0.2).abs() < 1e-9));
        assert!(row.extra.contains_key("block_kind"));
    }
    // Practice rows: 2 per WorM task and LSR, one block per N-back level and kind, one PI-LLM stream.
    let practice =
        rec.trials.iter().filter(|r| r.extra.get("block_kind") == Some(&Setting::Text("practice".into()))).count();
    assert_eq!(practice, 15 * 2 + 2 * 2 + 1);
    // PI-LLM: last_values over its streams and per level of updates (1, 2, 4, 8).
    assert_eq!(rec.summaries.iter().filter(|x| x.task == "pi-llm" && x.metric == "last_values").count(), 5);
    // Summaries: one accuracy per condition cell of every WorM task, SDT measures per N-back level.
    for id in TaskId::EVERY {
        let k = TaskSpec::new(id).grid().len();
        let sums: Vec<&Summary> = rec.summaries.iter().filter(|x| x.task == id.as_str()).collect();
        assert_eq!(sums.len(), k, "{id}");
        assert!(sums.iter().all(|x| x.metric == "accuracy" && x.n == 1));
        // Each cell's value is the score of its one main row.
        for x in sums {
            let row =
                s.done.iter().find(|d| !d.practice && d.task == StudyTask::Worm(id) && d.cell == x.conditions).unwrap();
            assert!((row.row.score() - x.value).abs() < 1e-12);
        }
    }
    for kind in ["nback-verbal", "nback-spatial"] {
        let sums: Vec<&Summary> = rec.summaries.iter().filter(|x| x.task == kind).collect();
        assert_eq!(sums.len(), 2 * 5, "{kind}");
        for n in [1u8, 2] {
            let acc = sums.iter().find(|x| x.metric == "accuracy" && x.conditions.set_size == Some(n)).unwrap();
            let hr = sums.iter().find(|x| x.metric == "hit_rate" && x.conditions.set_size == Some(n)).unwrap();
            let dp = sums.iter().find(|x| x.metric == "dprime" && x.conditions.set_size == Some(n)).unwrap();
            let ok = right(
                rec.trials
                    .iter()
                    .find(|r| {
                        r.task == kind
                            && r.conditions.set_size == Some(n)
                            && r.extra.get("block_kind") == Some(&Setting::Text("main".into()))
                    })
                    .unwrap()
                    .trial as usize,
            );
            let expect = if ok { (1.0, 1.0) } else { (0.0, 0.0) };
            assert_eq!((acc.value, hr.value), expect, "{kind} N={n}");
            assert!(if ok { dp.value > 4.0 } else { dp.value < -4.0 });
        }
    }
    // Export: CSV one line per trial with timing columns; JSON round trip.
    let csv = rec.to_csv().unwrap();
    assert_eq!(csv.lines().count(), total + 1);
    assert!(csv.lines().next().unwrap().contains("frame_err_median_ms"));
    // (serde_json without `float_roundtrip` may move a parsed f64 by one ulp: compare with a tolerance.)
    let back = ResultRecord::from_json(&rec.to_json().unwrap()).unwrap();
    assert_eq!(back.trials.len(), rec.trials.len());
    let close = |a: &Setting, b: &Setting| match (a, b) {
        (Setting::Num(x), Setting::Num(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
        _ => a == b,
    };
    for (a, b) in back.trials.iter().zip(&rec.trials) {
        assert_eq!(
            (&a.task, a.trial, &a.conditions, &a.targets, &a.responses, &a.correct, &a.rt_ms),
            (&b.task, b.trial, &b.conditions, &b.targets, &b.responses, &b.correct, &b.rt_ms)
        );
        assert!(
            a.extra.len() == b.extra.len()
                && a.extra.iter().zip(&b.extra).all(|((ka, va), (kb, vb))| ka == kb && close(va, vb))
        );
    }
    assert_eq!(back.summaries.len(), rec.summaries.len());
    for (a, b) in back.summaries.iter().zip(&rec.summaries) {
        assert!(
            a.task == b.task
                && a.conditions == b.conditions
                && a.metric == b.metric
                && (a.value - b.value).abs() < 1e-12
        );
    }
    assert!(matches!(rec.config.settings.get("frame_within_one_fraction"), Some(Setting::Num(x)) if *x == 1.0));
    assert_eq!(rec.config.tasks.len(), 15);
    // Person and human curves share panel and label names (VSR: list_length=3..6 on panel VSR).
    let person = crate::people::subject_curves(&rec, StudyTask::Worm(TaskId::Vsr));
    for h in crate::people::human_curves(StudyTask::Worm(TaskId::Vsr)) {
        assert!(person.iter().any(|p| p.panel == h.panel && p.label == h.label && p.x_name == h.x_name), "{}", h.label);
    }
    // Curves for the results page exist for every task.
    for t in StudyTask::all() {
        assert!(!crate::people::subject_curves(&rec, t).is_empty(), "{t}");
    }
}

#[test]
fn blur_and_focus_are_counted() {
    let ev = |kind, t_ms| PageEvent { kind, t_ms };
    let (n, ms) = unfocused(&[
        ev(PageEventKind::Blur, 100.0),
        ev(PageEventKind::Hidden, 120.0),
        ev(PageEventKind::Visible, 900.0),
        ev(PageEventKind::Focus, 910.0),
        ev(PageEventKind::Blur, 2000.0),
        ev(PageEventKind::Focus, 2500.0),
    ]);
    assert_eq!((n, ms), (2, 1300.0));
}
