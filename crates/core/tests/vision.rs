//! The visual LLM suite: the same trials as people, frames as PNGs or character grids, numbered options,
//! answers read and scored by the people's code.

use wmlab_core::llm::vision::{
    AnswerError, Render, VisionConfig, VisionDialogue, frame_png, frame_text, read_answer, samples,
};
use wmlab_core::llm::{Dialogue, Role, SampleBody, Suite, SuiteError};
use wmlab_core::people::score::Answer;
use wmlab_core::people::session::nback_frame;
use wmlab_core::people::{NbackKind, StudyTask};
use wmlab_core::png::decode_rgb;
use wmlab_core::record::Setting;
use wmlab_core::task::{Response, Target};
use wmlab_core::tasks::cs::class_offset;
use wmlab_core::{Split, TaskId, TaskSpec};

fn tasks() -> Vec<StudyTask> {
    VisionConfig::parse_tasks("VSR,CD-Color,VIR,SMU,nback-spatial,SFR,CS,STS").unwrap()
}

fn dialogues(cfg: &VisionConfig) -> Vec<VisionDialogue> {
    samples(cfg)
        .unwrap()
        .into_iter()
        .map(|s| {
            assert_eq!(s.suite, Suite::Vision);
            match s.body {
                SampleBody::Vision(d) => d,
                _ => panic!("{} is not a vision dialogue", s.id),
            }
        })
        .collect()
}

/// The reply a perfect subject gives to the awaited step.
fn right_reply(d: &VisionDialogue) -> String {
    let asked: Vec<_> = d.steps.iter().filter(|s| s.scored && s.response != Response::None).collect();
    let step = asked[d.answers.len()];
    match (&step.target, &step.response) {
        (Target::Class(c), Response::Binary { labels }) => {
            let i = if d.task == StudyTask::Worm(TaskId::Cs) { c - class_offset(*c) } else { *c };
            format!("{}.", labels[i as usize])
        }
        (Target::Class(c), Response::Choice { .. }) => {
            let i = if d.task == StudyTask::Worm(TaskId::Cs) { c - class_offset(*c) } else { *c };
            format!("Number {}", i + 1)
        }
        (Target::Set(v), _) => v.iter().map(|c| (c + 1).to_string()).collect::<Vec<_>>().join(", "),
        other => panic!("unexpected step {other:?}"),
    }
}

#[test]
fn trials_are_the_peoples_and_a_perfect_subject_scores_one() {
    let mut cfg = VisionConfig::new(tasks(), Render::Text);
    cfg.trials = 3;
    cfg.seed = 77;
    let ds = dialogues(&cfg);
    assert_eq!(ds.len(), 7 * 3 + 2 * 3, "3 trials per WorM task, 3 blocks per N-back level");
    for mut d in ds {
        if let StudyTask::Worm(id) = d.task {
            let t = TaskSpec::new(id).trial(77, Split::Human, d.index);
            assert_eq!(d.steps, t.steps, "{id} trial {} is the people's", d.index);
        }
        let mut turns = 0;
        while let Some(msgs) = d.next_request() {
            assert_eq!(msgs[0].role, Role::System);
            assert_eq!(msgs.last().unwrap().role, Role::User);
            let r = right_reply(&d);
            d.feed(&r);
            turns += 1;
            assert!(turns < 100);
        }
        let (row, sdt) = d.scored().unwrap().unwrap();
        assert!(row.correct.iter().all(|&c| c), "{}: {:?} vs {:?}", d.task, row.responses, row.targets);
        assert_eq!(row.extra.get("unreadable"), Some(&Setting::Int(0)));
        assert_eq!(sdt.is_some(), d.task.nback().is_some());
    }
}

#[test]
fn wrong_and_unreadable_answers_are_scored_as_people_are() {
    let mut cfg = VisionConfig::new(vec![StudyTask::Worm(TaskId::CdColor)], Render::Image);
    cfg.trials = 2;
    cfg.size = 96;
    let mut ds = dialogues(&cfg);
    // Trial 0: an unreadable reply, asked once more, then right.
    let d = &mut ds[0];
    d.feed("I am not sure what I see.");
    let last = d.next_request().unwrap();
    assert!(last.last().unwrap().content.contains("could not read"), "{:?}", last.last());
    assert!(!d.finished());
    let r = right_reply(d);
    d.feed(&r);
    let (row, _) = d.scored().unwrap().unwrap();
    assert_eq!(row.correct, vec![true]);
    assert_eq!(row.extra.get("unreadable"), Some(&Setting::Int(0)));
    // Trial 1: unreadable twice → no answer, incorrect, counted.
    let d = &mut ds[1];
    d.feed("hmm");
    d.feed("still hmm");
    assert!(d.finished());
    assert_eq!(d.answers, vec![Answer::None]);
    let (row, _) = d.scored().unwrap().unwrap();
    assert_eq!(row.correct, vec![false]);
    assert_eq!(row.responses, vec!["none"]);
    assert_eq!(row.extra.get("unreadable"), Some(&Setting::Int(1)));
}

#[test]
fn image_turns_carry_every_frame_since_the_last_question_as_pngs_of_the_asked_size() {
    let mut cfg = VisionConfig::new(vec![StudyTask::Worm(TaskId::Vsr)], Render::Image);
    cfg.trials = 1;
    cfg.size = 192;
    let mut d = dialogues(&cfg).remove(0);
    let l = d.cell.list_length.unwrap() as usize;
    let first = d.next_request().unwrap();
    let user = first.last().unwrap();
    assert_eq!(user.images.len(), l + 1, "L study frames and the probe");
    assert!(user.content.contains(&format!("Frames 1–{}", l + 1)), "{}", user.content);
    assert!(user.content.contains("1st pattern") && user.content.contains("from 1 to 9"), "{}", user.content);
    for im in &user.images {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD.decode(&im.data).unwrap();
        let (w, h, _) = decode_rgb(&bytes).unwrap();
        assert_eq!((w, h, im.width, im.media_type.as_str()), (192, 192, 192, "image/png"));
    }
    let r = right_reply(&d);
    d.feed(&r);
    let second = d.next_request().unwrap();
    let user = second.last().unwrap();
    assert_eq!(user.images.len(), 1, "the probe again, nothing else");
    assert!(user.content.contains("2nd pattern"));
    assert_eq!(second.len(), first.len() + 2, "the reply and the next question");
}

#[test]
fn options_are_numbered_on_the_frame_or_listed_when_too_small() {
    let spec = TaskSpec::new(TaskId::Vsr);
    let t = spec.trial(5, Split::Human, 0);
    let probe = t.steps.iter().find(|s| matches!(s.response, Response::Choice { .. })).unwrap();
    let areas = wmlab_core::tasks::answer_areas(TaskId::Vsr, &t.conditions, probe);
    assert_eq!(areas.len(), 9);
    let (grid, listed) = frame_text(&probe.frame, 24, &areas);
    assert!(listed.is_none());
    let lines: Vec<&str> = grid.lines().collect();
    assert_eq!(lines.len(), 24);
    assert!(lines.iter().all(|l| l.chars().count() == 24));
    // slot k's label sits at its top-left character (slots are 32 units = 8 characters)
    for k in 0..9 {
        let (x, y) = ((k % 3) * 8, (k / 3) * 8);
        assert_eq!(lines[y].chars().nth(x), char::from_digit(k as u32 + 1, 10), "slot {k}\n{grid}");
    }
    assert!(grid.contains('G'), "the green patterns are drawn");
    // the image: a white label box with black digits at slot 0's corner
    let (img, listed) = frame_png(&probe.frame, 384, &areas);
    assert!(listed.is_none());
    use base64::Engine;
    let (_, _, rgb) = decode_rgb(&base64::engine::general_purpose::STANDARD.decode(&img.data).unwrap()).unwrap();
    let px = |x: usize, y: usize| &rgb[(y * 384 + x) * 3..(y * 384 + x) * 3 + 3];
    assert_eq!(px(0, 0), &[255, 255, 255]);
    assert!((0..9).any(|y| (0..7).any(|x| px(x, y) == [0, 0, 0])), "a black digit");
    // SMU positions are 5 units apart: at 96 px (and in a 24-column grid) they are listed instead
    let smu = TaskSpec::new(TaskId::Smu).trial(5, Split::Human, 0);
    let probe = smu.steps.iter().find(|s| matches!(s.response, Response::Choice { .. })).unwrap();
    let areas = wmlab_core::tasks::answer_areas(TaskId::Smu, &smu.conditions, probe);
    let (_, listed) = frame_png(&probe.frame, 96, &areas);
    assert!(listed.unwrap().contains("1 = pixels"));
    let (_, listed) = frame_text(&probe.frame, 24, &areas);
    assert!(listed.unwrap().contains("9 = columns"));
    assert!(frame_png(&probe.frame, 384, &areas).1.is_none(), "at 384 px they fit");
}

#[test]
fn spatial_nback_as_text_shows_the_lit_cell() {
    let f = nback_frame(NbackKind::Spatial, "5");
    let (grid, _) = frame_text(&f, 24, &[]);
    let lines: Vec<&str> = grid.lines().collect();
    // cell 5 is the centre one: units 36–60, characters 9–14
    assert_eq!(lines[12].chars().nth(12), Some('B'), "\n{grid}");
    assert_eq!(lines[4].chars().nth(4), Some('.'), "\n{grid}");
    assert!(grid.contains('#'), "the grid lines");
}

#[test]
fn answers_are_read_by_their_format() {
    let bin = |a: &str, b: &str| Response::Binary { labels: [a.into(), b.into()] };
    let sym = bin("not symmetric", "symmetric");
    assert_eq!(read_answer(&sym, "Symmetric."), Ok(Answer::Class(1)));
    assert_eq!(read_answer(&sym, "It is not symmetric"), Ok(Answer::Class(0)));
    let nb = bin("no match", "match");
    assert_eq!(read_answer(&nb, "match"), Ok(Answer::Class(1)));
    assert_eq!(read_answer(&nb, "No match."), Ok(Answer::Class(0)));
    let sts = bin("top / left", "bottom / right");
    assert_eq!(read_answer(&sts, "bottom"), Ok(Answer::Class(1)));
    assert_eq!(read_answer(&sts, "The dot is on the left."), Ok(Answer::Class(0)));
    assert_eq!(read_answer(&bin("same", "changed"), "It changed; not the same"), Ok(Answer::Class(1)));
    assert!(read_answer(&bin("same", "changed"), "sameness").is_err());
    let ch = Response::Choice { n: 9 };
    assert_eq!(read_answer(&ch, "Position 7"), Ok(Answer::Class(6)));
    assert_eq!(read_answer(&ch, "10"), Err(AnswerError::OutOfRange { k: 10, n: 9 }));
    assert!(read_answer(&ch, "seven").is_err());
    let ms = Response::MultiSelect { n: 16, picks: 3 };
    assert_eq!(read_answer(&ms, "3, 7, 3, 12"), Ok(Answer::Set(vec![2, 6, 11])));
    assert_eq!(read_answer(&ms, "1,2,3,4"), Err(AnswerError::TooMany { count: 4, picks: 3 }));
    assert!(read_answer(&ms, "17").is_err());
}

#[test]
fn settings_that_cannot_make_a_run_are_refused() {
    assert_eq!(VisionConfig::parse_tasks("VSR,nback-verbal"), Err(SuiteError::VerbalNback));
    assert!(SuiteError::VerbalNback.to_string().contains("text suite"));
    assert!(VisionConfig::parse_tasks("VSR,XYZ").unwrap_err().to_string().contains("`XYZ`"));
    assert!(VisionConfig::parse_tasks(" , ").is_err());
    // LSR is words: its frames would reach a model empty.
    assert!(VisionConfig::parse_tasks("VSR,LSR").unwrap_err().to_string().contains("not pictures"));
    let lsr = VisionConfig::new(vec![StudyTask::Worm(wmlab_core::TaskId::Lsr)], Render::Text);
    assert_eq!(lsr.check(), Err(SuiteError::LsrNotVisual));
    let mut c = VisionConfig::new(tasks(), Render::Image);
    c.size = 64;
    assert_eq!(c.check(), Err(SuiteError::Size(64)));
    assert!(SuiteError::Size(64).to_string().contains("96"));
    c.size = 384;
    c.text_cols = 20;
    assert_eq!(c.check(), Err(SuiteError::TextCols(20)));
    c.text_cols = 24;
    c.nback_ns = vec![9];
    assert_eq!(c.check(), Err(SuiteError::Level(9)));
    c.nback_ns = vec![2];
    c.trials = 0;
    assert!(samples(&c).is_err());
}

#[test]
fn seeds_change_trials_and_the_same_seed_repeats_them() {
    let mut cfg = VisionConfig::new(vec![StudyTask::Worm(TaskId::Vir)], Render::Image);
    cfg.trials = 2;
    cfg.size = 96;
    let a = samples(&cfg).unwrap();
    assert_eq!(a, samples(&cfg).unwrap());
    cfg.seed = 1;
    assert_ne!(a, samples(&cfg).unwrap());
}

#[test]
fn a_models_record_is_compared_with_people_on_the_same_axes() {
    use wmlab_core::compare::{Compared, score_table};
    use wmlab_core::people::session::{StudyRow, study_summaries};
    use wmlab_core::record::{ResultRecord, RunConfig, Subject};
    let mut cfg = VisionConfig::new(vec![StudyTask::Worm(TaskId::Vsr)], Render::Image);
    cfg.trials = 8;
    cfg.size = 96;
    let mut scored = Vec::new();
    for mut d in dialogues(&cfg) {
        while d.next_request().is_some() {
            let r = right_reply(&d);
            d.feed(&r);
        }
        let (row, _) = d.scored().unwrap().unwrap();
        scored.push((d.cell.clone(), row));
    }
    let mut rec = ResultRecord::new(
        Subject::Llm { provider: "openai".into(), model: "vlm".into() },
        "VSR",
        RunConfig { seed: 0, tasks: vec![TaskSpec::new(TaskId::Vsr)], settings: Default::default() },
    );
    let rows: Vec<StudyRow> = scored
        .iter()
        .map(|(c, r)| StudyRow { task: StudyTask::Worm(TaskId::Vsr), cell: c, row: r, sdt: None })
        .collect();
    rec.summaries = study_summaries(&rows);
    rec.trials = scored.iter().map(|(_, r)| r.clone()).collect();
    rec.validate().unwrap();
    assert_eq!(rec.summaries.len(), 8, "one accuracy per list length");
    assert!(rec.summaries.iter().all(|s| s.value == 1.0));
    let c = Compared::new(rec);
    let vsr = StudyTask::Worm(TaskId::Vsr);
    assert_eq!(c.tasks(), vec![vsr]);
    let curves = c.curves(vsr);
    assert!(!curves.is_empty());
    let table = score_table(vsr, &[curves]);
    assert!(!table.is_empty(), "Table A3 rows for the model");
}
