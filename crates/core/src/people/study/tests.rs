//! The study link's tests: every parameter read, written back and refused in words.

use super::*;

#[test]
fn a_link_without_nback_carries_no_nback_levels() {
    let mut c = StudyConfig::new(vec![StudyTask::Worm(TaskId::Vsr)]);
    c.nback_ns = vec![3];
    let link = c.link_query();
    assert!(!link.split('&').any(|p| p.starts_with("n=") || p.starts_with("nbb=")), "{link}");
    let back = StudyConfig::from_query(&link).unwrap();
    assert_eq!(back.tasks, c.tasks);
    assert_eq!(back.to_query(), StudyConfig { nback_ns: back.nback_ns.clone(), ..c.clone() }.to_query());
    // With N-back, the levels stay.
    let mut d = StudyConfig::new(vec![StudyTask::Nback(crate::people::NbackKind::Verbal)]);
    d.nback_ns = vec![3];
    assert_eq!(StudyConfig::from_query(&d.link_query()).unwrap(), d);
}
use crate::people::NbackKind;
use crate::task::TaskId;

#[test]
fn parses_the_example_link() {
    let c = StudyConfig::from_query("?tasks=VIR,CD-Color&tpc=2&seed=7&practice=1&pid=p01&done=https://app.prolific.com/submissions/complete?cc=C1X2").unwrap();
    assert_eq!(c.tasks, vec![StudyTask::Worm(TaskId::Vir), StudyTask::Worm(TaskId::CdColor)]);
    assert_eq!((c.trials_per_condition, c.seed, c.practice), (2, Some(7), true));
    assert_eq!(c.participant.as_deref(), Some("p01"));
    assert_eq!(c.completion_url.as_deref(), Some("https://app.prolific.com/submissions/complete?cc=C1X2"));
    assert_eq!(c.effective_seed(), 7);
}

#[test]
fn adaptive_names_the_studys_tasks_with_a_level() {
    let c = StudyConfig::from_query("tasks=VSR,CD-Color,SC&adaptive=CD-Color,VSR").unwrap();
    assert_eq!(c.adaptive, [StudyTask::Worm(TaskId::CdColor), StudyTask::Worm(TaskId::Vsr)]);
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c, "round trip");
    let all = StudyConfig::from_query("tasks=VSR,CD-Color,SC,nback-verbal&adaptive=all").unwrap();
    let worm = |id| StudyTask::Worm(id);
    assert_eq!(all.adaptive, [worm(TaskId::Vsr), worm(TaskId::CdColor), StudyTask::Nback(NbackKind::Verbal)]);
    for (q, words) in [
        ("tasks=VSR,SC&adaptive=SC", "SC has no level"),
        ("tasks=VSR&adaptive=CD-Color", "not one of the study's tasks; this study's are VSR, or all"),
        ("tasks=VSR&adaptive=nback-verbal", "nback-verbal is not one of the study's tasks"),
        ("tasks=VSR&adaptive=VSR,VSR", "listed twice"),
        ("tasks=VSR&adaptive=XYZ", "unknown task"),
        ("tasks=SC&adaptive=all", "no task can run as a staircase"),
    ] {
        let e = StudyConfig::from_query(q).unwrap_err();
        assert_eq!(e.param, "adaptive", "{q}");
        assert!(e.message.contains(words), "{q}: {e}");
    }
}

#[test]
fn prolific_and_mturk_parameters() {
    let c = StudyConfig::from_query(
        "tasks=nback-verbal&PROLIFIC_PID=5f1a2b3c4d5e6f7a8b9c0d1e&STUDY_ID=abc123&SESSION_ID=s-9",
    )
    .unwrap();
    assert_eq!(c.tasks, vec![StudyTask::Nback(NbackKind::Verbal)]);
    assert_eq!(c.participant.as_deref(), Some("5f1a2b3c4d5e6f7a8b9c0d1e"));
    assert_eq!(c.external_ids.get("STUDY_ID").map(String::as_str), Some("abc123"));
    assert_eq!(c.seed, None);
    assert_ne!(c.effective_seed(), 0);
    let m = StudyConfig::from_query("tasks=SC&workerId=A1B2&assignmentId=X&hitId=Y").unwrap();
    assert_eq!(m.participant.as_deref(), Some("A1B2"));
    // The same id from two sources is fine; two different ids are not.
    assert!(StudyConfig::from_query("tasks=SC&pid=a&PROLIFIC_PID=a").is_ok());
    let e = StudyConfig::from_query("tasks=SC&pid=a&PROLIFIC_PID=b").unwrap_err();
    assert_eq!(e.param, "PROLIFIC_PID");
}

#[test]
fn outcome_urls_fill_placeholders_sona_and_kept_parameters() {
    // SONA: the participant's code is the id, and the credit URL carries it back.
    let done =
        "https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=12%26credit_token=ab9%26survey_code={pid}";
    let c = StudyConfig::from_query(&format!("tasks=SC&pid=40213&done={done}")).unwrap();
    assert_eq!(
        c.outcome_url(Outcome::Completed, "s1").unwrap(),
        "https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=12&credit_token=ab9&survey_code=40213"
    );
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c, "round trip");
    // A platform's own parameter, declared with keep=, fills a placeholder and is kept in the record.
    let c = StudyConfig::from_query(
        "tasks=SC&keep=survey_code&survey_code=777&done=https://x.org/c?code={survey_code}%26s={session}\
         &declined=https://x.org/no?code={survey_code}&screened=https://x.org/out",
    )
    .unwrap();
    assert_eq!(c.external_ids["survey_code"], "777");
    assert_eq!(c.outcome_url(Outcome::Completed, "ab12").unwrap(), "https://x.org/c?code=777&s=ab12");
    assert_eq!(c.outcome_url(Outcome::Declined, "ab12").unwrap(), "https://x.org/no?code=777");
    assert_eq!(c.outcome_url(Outcome::ScreenedOut, "ab12").unwrap(), "https://x.org/out");
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c, "round trip");
    let rec = crate::people::session::Session::new(c).to_record(None);
    assert_eq!(rec.config.settings["survey_code"], crate::record::Setting::Text("777".into()));
    assert_eq!(StudyConfig::from_query("tasks=SC").unwrap().outcome_url(Outcome::Declined, "s"), None);
    for (q, param, why) in [
        ("tasks=SC&done=https://x.org/?c={pid}", "done", "{pid} is not a placeholder this link can fill"),
        ("tasks=SC&pid=a&done=https://x.org/?c={code}", "done", "it can fill {session}, {pid}"),
        ("tasks=SC&screened=https://x.org/?c={pid", "screened", "without its }"),
        ("tasks=SC&declined=javascript:{session}", "declined", "http"),
        ("tasks=SC&keep=survey_code", "keep", "the link has no survey_code="),
        ("tasks=SC&keep=tasks&tasks=SC", "keep", "already a study link parameter"),
        ("tasks=SC&keep=a b&a=1", "keep", "not a parameter name"),
        ("tasks=SC&survey_code=7", "survey_code", "keep=survey_code"),
        ("tasks=SC&keep=code&code=1%202", "code", "usable id"),
    ] {
        let e = StudyConfig::from_query(q).unwrap_err();
        assert_eq!(e.param, param, "{q}: {e}");
        assert!(e.message.contains(why), "{q}: {e}");
    }
}

#[test]
fn mturk_parameters_before_the_hash_preview_and_submit() {
    let search = "?assignmentId=3XYZ&hitId=H1&workerId=A2W&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com%2F";
    let c = StudyConfig::from_location(search, "tasks=SC&tpc=1").unwrap();
    assert_eq!(c.participant.as_deref(), Some("A2W"));
    assert_eq!(c.external_ids["hitId"], "H1");
    assert!(!c.mturk_preview());
    assert_eq!(c.mturk_submit_url().unwrap(), "https://workersandbox.mturk.com/mturk/externalSubmit");
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c, "the canonical link holds it all");
    let p = StudyConfig::from_location(
        "?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1&turkSubmitTo=https://www.mturk.com",
        "tasks=SC",
    )
    .unwrap();
    assert!(p.mturk_preview());
    assert_eq!(p.mturk_submit_url(), None, "a preview submits nothing");
    let local = StudyConfig::from_query("tasks=SC&assignmentId=A&turkSubmitTo=http://127.0.0.1:9/").unwrap();
    assert_eq!(local.mturk_submit_url().unwrap(), "http://127.0.0.1:9/mturk/externalSubmit");
    for (search, q, param, why) in [
        ("?assignmentId=A&turkSubmitTo=https://evil.example", "tasks=SC", "turkSubmitTo", "not MTurk's address"),
        ("?assignmentId=A&turkSubmitTo=http://www.mturk.com", "tasks=SC", "turkSubmitTo", "not MTurk's address"),
        ("?assignmentId=A&turkSubmitTo=https://mturk.com.evil.org", "tasks=SC", "turkSubmitTo", "not MTurk"),
        ("?turkSubmitTo=https://www.mturk.com", "tasks=SC", "turkSubmitTo", "without assignmentId"),
        ("?assignmentId=A&turkSubmitTo=https://www.mturk.com", "tasks=SC&done=https://x.org", "done", "MTurk"),
        ("?pid=a", "tasks=SC&pid=a", "pid", "more than once"),
    ] {
        let e = StudyConfig::from_location(search, q).unwrap_err();
        assert_eq!(e.param, param, "{search} {q}: {e}");
        assert!(e.message.contains(why), "{search} {q}: {e}");
    }
}

#[test]
fn before_the_hash_a_hosts_own_parameters_are_left_alone() {
    // JATOS' srid, a campaign's tags, a name that does not even decode: not the study's concern.
    let c = StudyConfig::from_location("?srid=12&utm_source=mail&%ZZ=1&PROLIFIC_PID=p9", "tasks=SC").unwrap();
    assert_eq!(c.participant.as_deref(), Some("p9"));
    assert_eq!(c, StudyConfig::from_query("tasks=SC&PROLIFIC_PID=p9").unwrap());
    // The whole study before the hash works too (a platform that takes no fragment).
    let c = StudyConfig::from_location("?tasks=VIR&tpc=2&pid=q", "").unwrap();
    assert_eq!((c.tasks.len(), c.trials_per_condition), (1, 2));
    // The link's own part stays strict, and a known parameter before the hash is checked as well.
    assert_eq!(StudyConfig::from_location("?srid=1", "tasks=SC&srid=1").unwrap_err().param, "srid");
    assert_eq!(StudyConfig::from_location("?tpc=0", "tasks=SC").unwrap_err().param, "tpc");
    // keep= in the link lets a platform's parameter through from before the hash.
    let c = StudyConfig::from_location("?survey_code=55", "tasks=SC&keep=survey_code").unwrap();
    assert_eq!(c.external_ids["survey_code"], "55");
}

#[test]
fn conditions_are_orders_of_the_tasks() {
    let c = StudyConfig::from_query("tasks=VIR,SC&conditions=VIR,SC|SC,VIR&pid=p1").unwrap();
    assert_eq!(c.conditions.len(), 2);
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c, "round trip");
    let k = c.condition_for(0).unwrap();
    assert_eq!(c.condition_for(99), Some(k), "the participant id decides, not the seed");
    // Over many ids both orders come up about equally often.
    let mut n = [0usize; 2];
    for i in 0..400 {
        let ci = StudyConfig::from_query(&format!("tasks=VIR,SC&conditions=VIR,SC|SC,VIR&pid=p{i}")).unwrap();
        n[ci.condition_for(0).unwrap()] += 1;
    }
    assert!(n[0] > 150 && n[1] > 150, "{n:?}");
    assert_eq!(StudyConfig::from_query("tasks=VIR").unwrap().condition_for(1), None);
    for (q, why) in [
        ("tasks=VIR,SC&conditions=VIR,SC", "2 to 64"),
        ("tasks=VIR,SC&conditions=VIR|SC,VIR", "not an order of the study's tasks"),
        ("tasks=VIR,SC&conditions=VIR,SC|VIR,SC", "given twice"),
        ("tasks=VIR,SC&conditions=VIR,XX|SC,VIR", "unknown task"),
        ("tasks=VIR,SC&order=random&conditions=VIR,SC|SC,VIR", "order=random"),
    ] {
        let e = StudyConfig::from_query(q).unwrap_err();
        assert_eq!(e.param, "conditions", "{q}");
        assert!(e.message.contains(why), "{q}: {e}");
    }
}

#[test]
fn datapipe_conditions_address_and_answers() {
    assert_eq!(datapipe_condition_url(DATAPIPE_URL), "https://pipe.jspsych.org/api/condition/");
    assert_eq!(datapipe_condition_url("http://127.0.0.1:9/api/data"), "http://127.0.0.1:9/api/condition/");
    assert_eq!(datapipe_condition_url("http://127.0.0.1:9/pipe"), "http://127.0.0.1:9/pipe/condition/");
    assert_eq!(parse_datapipe_condition(r#"{"message":"Success","condition":1}"#), Ok(1));
    for (bad, why) in [
        ("<html>", "not JSON"),
        (r#"{"error":"CONDITION_ASSIGNMENT_NOT_ACTIVE","message":"x"}"#, "CONDITION_ASSIGNMENT_NOT_ACTIVE"),
        (r#"{"condition":-1}"#, "no condition"),
        (r#"{"condition":"1"}"#, "no condition"),
    ] {
        assert!(parse_datapipe_condition(bad).unwrap_err().to_string().contains(why), "{bad}");
    }
}

#[test]
fn devices_and_window_rules() {
    assert_eq!(participant_page("https://lab.example/wm/"), "https://lab.example/wm/take.html");
    assert_eq!(participant_page("https://lab.example/wm/index.html"), "https://lab.example/wm/take.html");
    assert_eq!(participant_page("http://127.0.0.1:8080/"), "http://127.0.0.1:8080/take.html");
    let c = StudyConfig::from_query("tasks=VIR,nback-verbal&condition_sets=list_lengths=4|list_lengths=8,16").unwrap();
    assert_eq!(c.condition_count(), 2);
    assert_eq!(c.condition(1).1, [("list_lengths".to_string(), "8,16".to_string())]);
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c);
    for bad in ["list_lengths=4", "colour=red|list_lengths=4", "list_lengths=4|list_lengths=4"] {
        let e = StudyConfig::from_query(&format!("tasks=VIR&condition_sets={bad}")).unwrap_err();
        assert_eq!(e.param, "condition_sets", "{bad}: {e}");
    }
    assert!(StudyConfig::from_query("tasks=nback-verbal&condition_sets=a=1|a=2").is_err());
    let c = StudyConfig::from_query("tasks=SC&survey=demographics&survey_url=q/extra.json&survey_at=end").unwrap();
    assert!(c.demographics && c.survey_url.as_deref() == Some("q/extra.json") && c.survey_at == SurveyAt::End);
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c);
    for (bad, param) in [
        ("survey=age", "survey"),
        ("survey_url=https://evil.example/q.json", "survey_url"),
        ("survey=demographics&survey_at=middle", "survey_at"),
        ("survey_at=end", "survey_at"),
    ] {
        assert_eq!(StudyConfig::from_query(&format!("tasks=SC&{bad}")).unwrap_err().param, param, "{bad}");
    }
    let c = StudyConfig::from_query("tasks=SC&visual_angle=12.5").unwrap();
    assert!(c.chinrest && c.visual_angle == Some(12.5), "an angle turns the chinrest on");
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c);
    assert!(StudyConfig::from_query("tasks=SC&chinrest=1").unwrap().chinrest);
    for bad in ["0", "41", "ten", "NaN", "inf"] {
        let e = StudyConfig::from_query(&format!("tasks=SC&visual_angle={bad}")).unwrap_err();
        assert_eq!(e.param, "visual_angle", "{bad}");
    }
    let e = StudyConfig::from_query("tasks=SC&chinrest=0&visual_angle=10").unwrap_err();
    assert!(e.message.contains("needs the chinrest"), "{e}");
    let c = StudyConfig::from_query("tasks=SC&devices=desktop&min_window=1000x700").unwrap();
    assert_eq!(c.eligibility(), Eligibility { devices: Devices::Desktop, min_window: Some((1000, 700)) });
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c);
    assert!(c.to_query().contains("devices=desktop&min_window=1000x700"), "{}", c.to_query());
    assert_eq!(StudyConfig::from_query("tasks=SC&devices=tv").unwrap_err().param, "devices");
    let e = StudyConfig::from_query("tasks=SC&min_window=big").unwrap_err();
    assert!(e.message.contains("WIDTHxHEIGHT"), "{e}");
}

#[test]
fn study_text_files_must_be_plain_text() {
    let ok = StudyText::checked_file_text("consent.txt", "I agree to take part.\r\n\tYes.".as_bytes());
    assert_eq!(ok.unwrap(), "I agree to take part.\r\n\tYes.");
    assert!(StudyText::checked_file_text("c.txt", "\u{feff}Zustimmung: ä ö ü".as_bytes()).is_ok());
    // What the app's own server answers for a missing path, and what a wrong path can fetch.
    for (bytes, what) in [
        (&b"<!DOCTYPE html><html><body>WM Lab</body></html>"[..], "web page"),
        (&b"\n  <html lang=en>"[..], "web page"),
        (&b"<svg xmlns='http://www.w3.org/2000/svg'/>"[..], "image"),
        (&b"\x89PNG\r\n\x1a\n\0\0"[..], "not a text file"),
        (&b"\xff\xfe\x00a"[..], "not a text file"),
        (&b"a\0b"[..], "control characters"),
        (&b"  \n "[..], "empty"),
    ] {
        let e = StudyText::checked_file_text("consent.txt", bytes).unwrap_err().to_string();
        assert!(e.contains("consent.txt") && e.contains(what), "{e}");
    }
    let big = vec![b'a'; crate::record::MAX_TEXT_CHARS + 1];
    assert!(matches!(StudyText::checked_file_text("c.txt", &big), Err(StudyFileError::TooLong { .. })));
}

#[test]
fn consent_and_info_by_value_or_by_a_path_on_this_site() {
    let c = StudyConfig::from_query("tasks=SC&consent=I+agree%21&info_url=notes/info.txt").unwrap();
    assert_eq!(c.consent, Some(StudyText::Text("I agree!".into())));
    assert_eq!(c.info, Some(StudyText::Path("notes/info.txt".into())));
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c);
    for (q, param, why) in [
        ("tasks=SC&consent=a&consent_url=b.txt", "consent_url", "not both"),
        ("tasks=SC&consent_url=https://evil.example/c.txt", "consent_url", "another site"),
        ("tasks=SC&consent_url=//evil.example/c.txt", "consent_url", "another site"),
        ("tasks=SC&info_url=javascript:alert(1)", "info_url", "another site"),
        ("tasks=SC&info_url=../../secret.txt", "info_url", ".."),
        ("tasks=SC&info_url=a%20b.txt", "info_url", "spaces"),
    ] {
        let e = StudyConfig::from_query(q).unwrap_err();
        assert_eq!(e.param, param, "{q}");
        assert!(e.message.contains(why), "{q}: {}", e.message);
    }
    let long = format!("tasks=SC&consent={}", "a".repeat(MAX_TEXT_LEN + 1));
    assert!(StudyConfig::from_query(&long).unwrap_err().message.contains("consent_url"));
}

#[test]
fn task_parameters_travel_in_the_link_and_are_checked() {
    let c =
        StudyConfig::from_query("tasks=VSRec,CD-Color,nback-verbal&set=list_lengths%3D2,16;noise_mask%3Dtrue").unwrap();
    assert_eq!(
        c.task_settings,
        vec![("list_lengths".to_string(), "2,16".to_string()), ("noise_mask".to_string(), "true".to_string())]
    );
    assert_eq!(c.spec(TaskId::VsRec).longest_trial(), 32, "lists of 16 for VSRec");
    let crate::task::TaskParams::Cd(p) = c.spec(TaskId::CdColor).params else { panic!() };
    assert!(p.noise_mask, "each key to the tasks that have it");
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c);
    // The session's trials and its record follow the parameters.
    let session = crate::people::session::Session::new(c.clone());
    let rec = session.to_record(Some("p"));
    assert!(rec.config.tasks.iter().any(|s| s.longest_trial() == 32));
    for (q, why) in [
        ("tasks=VSR&set=colour%3Dred", "no chosen task has a parameter \"colour\""),
        ("tasks=VSR&set=list_lengths%3D12", "between 1 and 9"),
        ("tasks=VSR&set=list_lengths", "not KEY=VALUE"),
        ("tasks=nback-verbal&set=noise_mask%3Dtrue", "this study has none"),
    ] {
        let e = StudyConfig::from_query(q).unwrap_err();
        assert_eq!(e.param, "set", "{q}");
        assert!(e.message.contains(why), "{q}: {}", e.message);
    }
}

#[test]
fn round_trips() {
    let mut c = StudyConfig::new(StudyTask::all());
    c.trials_per_condition = 200;
    c.block_order = BlockOrder::Random;
    c.seed = Some(u64::MAX);
    c.practice = false;
    c.practice_trials = 4;
    c.nback_ns = vec![3, 1];
    c.nback_blocks = 2;
    c.participant = Some("P-01@x:y.z".into());
    c.external_ids.insert("STUDY_ID".into(), "st1".into());
    c.external_ids.insert("SESSION_ID".into(), "se1".into());
    c.completion_url = Some("https://example.org/done?cc=AB&x=1#top".into());
    c.endpoint = Some("http://127.0.0.1:8080/post".into());
    c.consent = Some(StudyText::Text("I agree & consent: 100% (yes)\n\nSecond paragraph.".into()));
    c.info = Some(StudyText::Path("/studies/a/info.txt".into()));
    c.show_results = true;
    c.fullscreen = true;
    let q = c.to_query();
    assert_eq!(StudyConfig::from_query(&q).unwrap(), c, "{q}");
    assert_eq!(StudyConfig::from_query(&format!("?{q}")).unwrap(), c);
    let d = StudyConfig::new(vec![StudyTask::Worm(TaskId::Sfr)]);
    assert_eq!(StudyConfig::from_query(&d.to_query()).unwrap(), d);
    assert_eq!(d.to_query(), "tasks=SFR&tpc=1&order=fixed&practice=1&pt=3&n=1,2,3&nbb=1&results=0&fs=0");
    // JSON round trip too (the session stores the config).
    let j = serde_json::to_string(&c).unwrap();
    assert_eq!(serde_json::from_str::<StudyConfig>(&j).unwrap(), c);
    assert_eq!(StudyConfig::from_query("tasks=all").unwrap().tasks.len(), 18);
}

#[test]
fn bad_inputs_name_the_parameter() {
    let table: &[(&str, &str, &str)] = &[
        ("", "tasks", "missing"),
        ("tpc=2", "tasks", "missing"),
        ("tasks=VIR,FOO", "tasks", "FOO"),
        ("tasks=VIR,VIR", "tasks", "twice"),
        ("tasks=VIR&tpc=0", "tpc", "1 to 200"),
        ("tasks=VIR&tpc=201", "tpc", "1 to 200"),
        ("tasks=VIR&tpc=two", "tpc", "whole number"),
        ("tasks=VIR&tpc=-1", "tpc", "whole number"),
        ("tasks=VIR&order=shuffled", "order", "fixed or random"),
        ("tasks=VIR&seed=18446744073709551616", "seed", "whole number"),
        ("tasks=VIR&practice=maybe", "practice", "1 or 0"),
        ("tasks=VIR&pt=11", "pt", "1 to 10"),
        ("tasks=VIR&n=4", "n", "1 to 3"),
        ("tasks=VIR&n=1,1", "n", "twice"),
        ("tasks=VIR&nbb=0", "nbb", "1 to 10"),
        ("tasks=VIR&results=2", "results", "1 or 0"),
        ("tasks=VIR&fs=", "fs", "empty"),
        ("tasks=VIR&pid=a b", "pid", "usable id"),
        ("tasks=VIR&pid=%3Cscript%3E", "pid", "usable id"),
        ("tasks=VIR&tpc=1&tpc=2", "tpc", "more than once"),
        ("tasks=VIR&done=javascript:alert(1)", "done", "http"),
        ("tasks=VIR&done=ftp://x.org/", "done", "http"),
        ("tasks=VIR&done=https://", "done", "host"),
        ("tasks=VIR&done=https://user:pw@x.org/", "done", "password"),
        ("tasks=VIR&endpoint=https://x.org/a b", "endpoint", "spaces"),
        ("tasks=VIR&endpoint=//x.org", "endpoint", "http"),
        ("tasks=VIR&datapipe=a b", "datapipe", "experiment id"),
        ("tasks=VIR&datapipe=ab", "datapipe", "4–64"),
        ("tasks=VIR&datapipe_url=https://x.org/", "datapipe_url", "without datapipe"),
        ("tasks=VIR&datapipe=ABCDEF123456&datapipe_url=ftp://x", "datapipe_url", "http"),
        ("tasks=VIR&colour=red", "colour", "unknown parameter"),
        ("tasks=VIR&tpc=%ZZ", "tpc", "%-escape"),
    ];
    for (q, param, needle) in table {
        let e = StudyConfig::from_query(q).expect_err(q);
        assert_eq!(&e.param, param, "{q}: {e}");
        assert!(e.to_string().contains(needle), "{q}: {e}");
    }
    let e = StudyConfig::from_query("tasks=VIR&colour=red").unwrap_err();
    assert!(e.message.contains("tpc") && e.message.contains("PROLIFIC_PID"), "{e}");
    let e = StudyConfig::from_query("tasks=X").unwrap_err();
    assert!(e.message.contains("nback-spatial") && e.message.contains("CD-Gap"));
}

#[test]
fn datapipe_in_links_and_its_documented_body() {
    let c =
        StudyConfig::from_query("tasks=VIR&pid=P 01&datapipe=ABCDEF123456&datapipe_url=http://127.0.0.1:9/api/data/")
            .unwrap_err();
    assert_eq!(c.param, "pid", "ids are checked as before");
    let c =
        StudyConfig::from_query("tasks=VIR&pid=P01&datapipe=ABCDEF123456&datapipe_url=http://127.0.0.1:9/api/data/")
            .unwrap();
    assert_eq!(c.datapipe.as_deref(), Some("ABCDEF123456"));
    assert_eq!(StudyConfig::from_query(&c.to_query()).unwrap(), c, "the link round-trips");
    let b = datapipe_body("ABCDEF123456", Some("P01@x"), "k3/9", "a,b\n1,2\n");
    let keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["data", "experimentID", "filename"]);
    assert_eq!(b["filename"], "wmlab_P01-x_k3-9.csv");
    assert_eq!(b["data"], "a,b\n1,2\n");
    assert_eq!(datapipe_body("X", None, "s", "")["filename"], "wmlab_anonymous_s.csv");
    assert!(c.datapipe_blocks, "each block's file is on by default");
    let off = StudyConfig::from_query("tasks=VIR&datapipe=ABCDEF123456&datapipe_blocks=0").unwrap();
    assert!(!off.datapipe_blocks);
    assert_eq!(StudyConfig::from_query(&off.to_query()).unwrap(), off);
    assert_eq!(StudyConfig::from_query("tasks=VIR&datapipe_blocks=0").unwrap_err().param, "datapipe_blocks");
    let part = datapipe_part_body("X", Some("P01"), "k3", Some(2), "");
    assert_eq!(part["filename"], "wmlab_P01_k3_part02.csv");
    assert_eq!(datapipe_file("osf/wmlab_P01_k3_part02.csv"), Some(("wmlab_P01_k3".into(), Some(2))));
    assert_eq!(datapipe_file("wmlab_P01_k3.csv"), Some(("wmlab_P01_k3".into(), None)));
    assert_eq!(datapipe_file("P01.json"), None);
    // A session with its final file: only that; one without: its latest part; others untouched.
    let names = [
        "wmlab_A_s1_part01.csv",
        "wmlab_A_s1_part02.csv",
        "wmlab_A_s1.csv",
        "wmlab_B_s2_part01.csv",
        "wmlab_B_s2_part03.csv",
        "wmlab_B_s2_part02.csv",
        "mine.json",
    ];
    assert_eq!(datapipe_latest(&names), [false, false, true, false, true, false, true]);
}
