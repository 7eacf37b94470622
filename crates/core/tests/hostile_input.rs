//! Records read from outside (files, JATOS result files, share links) as a careless or hostile user
//! would give them: several records in one file, and texts long enough to freeze the page.

use wmlab_core::TaskSpec;
use wmlab_core::record::{MAX_TEXT_CHARS, ResultRecord, RunConfig, Subject, TrialRow, summarise};
use wmlab_core::task::{Conditions, TaskId};

fn record(id: &str, trials: u64) -> ResultRecord {
    let cfg = RunConfig { seed: 7, tasks: vec![TaskSpec::new(TaskId::Vir)], ..Default::default() };
    let mut r = ResultRecord::new(Subject::Person { id: id.into() }, "VIR", cfg);
    for i in 0..trials {
        r.trials.push(TrialRow {
            task: "VIR".into(),
            trial: i,
            conditions: Conditions { list_length: Some(4), ..Default::default() },
            targets: vec!["1".into()],
            responses: vec!["1".into()],
            correct: vec![true],
            rt_ms: vec![500.0],
            extra: Default::default(),
        });
    }
    r.summaries = summarise(&r.trials);
    r
}

/// JATOS's result file: the participant page appends the whole record so far after each block (pretty
/// JSON and a newline). The latest record of a participant supersedes the earlier blocks; JSON lines
/// and two participants in one file read too; a damaged later document says which.
#[test]
fn concatenated_records_read_back_the_latest_per_subject() {
    let (first, full) = (record("p01", 2), record("p01", 4));
    let jatos = format!("{}\n{}\n", first.to_json().unwrap(), full.to_json().unwrap());
    assert!(ResultRecord::from_json(&jatos).is_err(), "one record's reader refuses the stream");
    assert_eq!(ResultRecord::from_json_documents(&jatos).unwrap(), vec![full.clone()]);
    let other = record("p02", 3);
    let lines = [&first, &other, &full].map(|r| serde_json::to_string(r).unwrap()).join("\n");
    assert_eq!(ResultRecord::from_json_documents(&lines).unwrap(), vec![full.clone(), other]);
    assert_eq!(ResultRecord::from_json_documents(&full.to_json().unwrap()).unwrap(), vec![full.clone()]);
    let e = ResultRecord::from_json_documents(&format!("{}\n{{\"schema\":", full.to_json().unwrap())).unwrap_err();
    assert!(e.to_string().contains("JSON document 2 is not valid JSON"), "{e}");
    assert!(ResultRecord::from_json_documents("  \n").unwrap_err().to_string().contains("no record"));
}

/// A share link under the size cap whose record holds a multi-megabyte string (it compresses to
/// almost nothing) is refused before anything renders it; so is such a file.
#[test]
fn a_multi_megabyte_text_is_refused_in_links_and_files() {
    let mut r = record("p01", 2);
    r.trials[0].responses = vec!["x".repeat(3_000_000)];
    let link = wmlab_core::share::encode(&r).expect("compresses under the cap");
    let t = std::time::Instant::now();
    let e = wmlab_core::share::decode(&link).unwrap_err().to_string();
    assert!(e.contains("3000000 characters") && e.contains(&MAX_TEXT_CHARS.to_string()), "{e}");
    assert!(t.elapsed().as_secs_f64() < 1.0, "refused at once ({:?})", t.elapsed());
    let json = serde_json::to_string(&r).unwrap();
    assert!(ResultRecord::from_json(&json).unwrap_err().to_string().contains("characters"));
    // Texts of ordinary length still read.
    r.trials[0].responses = vec!["x".repeat(1000)];
    assert!(wmlab_core::share::decode(&wmlab_core::share::encode(&r).unwrap()).is_ok());
}
