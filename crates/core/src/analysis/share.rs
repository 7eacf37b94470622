//! Share links: a result record carried in the URL fragment, so no server is involved.
//!
//! Format: `#r=1.<payload>` where `1` is the link format and `<payload>` is base64url (no padding) of the
//! raw-DEFLATE-compressed JSON of the record. The fragment never reaches a server. Links are capped at
//! [`MAX_LINK_CHARS`]; a record that would be larger is shared without its per-trial rows.
//!
//! Comparison links (`#c=1.<payload>`, the same encoding) carry a [`Comparison`]: the chosen task and
//! the chosen results, each trimmed to its rows of that task ([`crate::compare::trim`]). A comparison
//! that would be longer than the cap is shared with summaries only, each result carrying its curves for
//! the task instead of its rows, so the link still draws the same plots and scores.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::compare::Comparison;
use crate::record::{RecordError, ResultRecord};

/// The link format written before the payload.
pub const LINK_FORMAT: u32 = 1;
/// Longest fragment payload accepted or produced (well inside every browser's URL limit).
pub const MAX_LINK_CHARS: usize = 60_000;
/// Largest decompressed record accepted from a link (guards against decompression bombs).
pub const MAX_JSON_BYTES: usize = 4 << 20;

/// Why a link could not be opened; each says in plain words what happened.
#[derive(Clone, Debug, PartialEq)]
pub enum ShareError {
    /// A result link without its result: nothing after `#r=`.
    Empty,
    /// A comparison link without its comparison.
    NoComparison,
    /// The payload's link format is not [`LINK_FORMAT`]: another version made it (its first 12 characters).
    UnknownFormat(String),
    /// The payload is longer than [`MAX_LINK_CHARS`] (its length; when encoding, the cap plus one).
    TooLong(usize),
    /// The payload cannot be decoded (why, in words): no format mark, not base64url, invalid compressed
    /// data, more than [`MAX_JSON_BYTES`] once expanded, or not text.
    Garbled(String),
    /// The compressed data ends early: the link was cut short.
    Truncated,
    /// The record or comparison is not valid: the one decoded from the link, or the one given to encode.
    Record(RecordError),
}

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShareError::Empty => {
                write!(f, "This link carries no result. Ask for the full link, including the part after #r=.")
            }
            ShareError::NoComparison => {
                write!(f, "This link carries no comparison. Ask for the full link, including the part after #c=.")
            }
            ShareError::UnknownFormat(v) => write!(
                f,
                "This link was made by a different version of WM Lab (link format “{v}”). Open it with the app that made it."
            ),
            ShareError::TooLong(n) => {
                write!(f, "This link is too long to be a WM Lab result ({n} characters; at most {MAX_LINK_CHARS}).")
            }
            ShareError::Garbled(why) => {
                write!(f, "This link is damaged and cannot be read ({why}). Copy it again in full.")
            }
            ShareError::Truncated => write!(f, "This link is cut short: part of it is missing. Copy it again in full."),
            ShareError::Record(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ShareError {}

/// Encode a record as a fragment payload `1.<base64url>` (without the leading `#r=`). Falls back to the
/// summaries alone when the full record would exceed the cap; errors if even that is too long.
pub fn encode(record: &ResultRecord) -> Result<String, ShareError> {
    record.validate().map_err(ShareError::Record)?;
    for r in [record.clone(), record.summary_only()] {
        let s = pack(&serde_json::to_vec(&r).expect("a record serialises"));
        if s.len() <= MAX_LINK_CHARS {
            return Ok(s);
        }
    }
    Err(ShareError::TooLong(MAX_LINK_CHARS + 1))
}

/// The full fragment, `#r=…`.
pub fn fragment(record: &ResultRecord) -> Result<String, ShareError> {
    Ok(format!("#r={}", encode(record)?))
}

/// Decode a payload, a fragment (`#r=…`) or a whole URL containing one.
pub fn decode(input: &str) -> Result<ResultRecord, ShareError> {
    let s = input.trim();
    let s = match s.find("#r=") {
        Some(i) => &s[i + 3..],
        None => s.strip_prefix("r=").unwrap_or(s),
    };
    if s.is_empty() {
        return Err(ShareError::Empty);
    }
    let text = unpack(s)?;
    ResultRecord::from_json(&text).map_err(ShareError::Record)
}

/// Pack JSON as `1.<base64url(deflate)>`.
fn pack(json: &[u8]) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec(json, 9);
    format!("{LINK_FORMAT}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// The JSON text of a non-empty `1.<payload>`, or why it cannot be read.
fn unpack(s: &str) -> Result<String, ShareError> {
    if s.len() > MAX_LINK_CHARS {
        return Err(ShareError::TooLong(s.len()));
    }
    let Some((format, payload)) = s.split_once('.') else {
        return Err(ShareError::Garbled("the version mark is missing".into()));
    };
    if format != LINK_FORMAT.to_string() {
        return Err(ShareError::UnknownFormat(format.chars().take(12).collect()));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|_| ShareError::Garbled("it contains characters a WM Lab link never has".into()))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_JSON_BYTES).map_err(|e| {
        use miniz_oxide::inflate::TINFLStatus;
        match e.status {
            TINFLStatus::FailedCannotMakeProgress => ShareError::Truncated,
            TINFLStatus::HasMoreOutput => ShareError::Garbled("it expands to more than 4 MB".into()),
            _ => ShareError::Garbled("the compressed data is invalid".into()),
        }
    })?;
    String::from_utf8(json).map_err(|_| ShareError::Garbled("the content is not text".into()))
}

/// Encode a comparison as a fragment payload `1.<base64url>` (without the leading `#c=`), and whether
/// it carries the results' trial rows (`false`: summaries and curves only, because the full comparison
/// would exceed the cap). Errors if even that is too long (too many results).
pub fn encode_comparison(comparison: &Comparison) -> Result<(String, bool), ShareError> {
    comparison.validate().map_err(ShareError::Record)?;
    let full = comparison.has_rows();
    for (c, with_rows) in [(comparison.clone(), full), (comparison.summaries_only(), false)] {
        let s = pack(&serde_json::to_vec(&c).expect("a comparison serialises"));
        if s.len() <= MAX_LINK_CHARS {
            return Ok((s, with_rows));
        }
    }
    Err(ShareError::TooLong(MAX_LINK_CHARS + 1))
}

/// The full fragment, `#c=…`, and whether it carries the trial rows.
pub fn comparison_fragment(comparison: &Comparison) -> Result<(String, bool), ShareError> {
    let (s, full) = encode_comparison(comparison)?;
    Ok((format!("#c={s}"), full))
}

/// Decode a comparison payload, a fragment (`#c=…`) or a whole URL containing one.
pub fn decode_comparison(input: &str) -> Result<Comparison, ShareError> {
    let s = input.trim();
    let s = match s.find("#c=") {
        Some(i) => &s[i + 3..],
        None => s.strip_prefix("c=").unwrap_or(s),
    };
    if s.is_empty() {
        return Err(ShareError::NoComparison);
    }
    let text = unpack(s)?;
    Comparison::from_json(&text).map_err(ShareError::Record)
}

/// Whether a pasted text is a comparison link rather than a result link.
pub fn is_comparison_link(input: &str) -> bool {
    let s = input.trim();
    s.contains("#c=") || s.starts_with("c=")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{RunConfig, SCHEMA_VERSION, Subject, Summary};
    use crate::task::Conditions;

    fn record() -> ResultRecord {
        let mut r = ResultRecord::new(Subject::Reference { source: "test".into() }, "VSR", RunConfig::default());
        for l in 2..=9u8 {
            r.summaries.push(Summary {
                task: "VSR".into(),
                conditions: Conditions { list_length: Some(l), ..Default::default() },
                metric: "accuracy".into(),
                n: 10,
                value: 1.0 / l as f64,
                se: Some(0.01),
            });
        }
        r
    }

    /// Issue 71: a 24k-character link of 400 copies of a small record froze the tab for minutes.
    #[test]
    fn a_comparison_of_hundreds_of_results_is_refused_in_words() {
        use crate::compare::{Compared, MAX_COMPARED};
        let task = crate::people::StudyTask::Worm(crate::task::TaskId::Vsr);
        let many: Vec<Compared> = (0..400).map(|_| Compared::new(record())).collect();
        let c = Comparison::new(task, &many, true, false, false);
        // The app does not write such a link (comparison_fragment refuses it too); a hand-made one:
        assert!(comparison_fragment(&c).is_err());
        let link = format!("#c={}", pack(serde_json::to_string(&c).unwrap().as_bytes()));
        let e = decode_comparison(&link).unwrap_err().to_string();
        assert!(e.contains("400 results") && e.contains(&MAX_COMPARED.to_string()), "{e}");
        let few = Comparison::new(task, &many[..MAX_COMPARED], true, false, false);
        assert!(decode_comparison(&comparison_fragment(&few).unwrap().0).is_ok());
    }

    #[test]
    fn round_trip_through_a_url() {
        let r = record();
        let url = format!("http://127.0.0.1:8080/results{}", fragment(&r).unwrap());
        assert_eq!(decode(&url).unwrap(), r);
    }

    #[test]
    fn damaged_links_give_errors_not_panics() {
        let good = encode(&record()).unwrap();
        assert_eq!(decode(""), Err(ShareError::Empty));
        assert_eq!(decode("#r="), Err(ShareError::Empty));
        assert!(matches!(decode(&good[..good.len() / 2]), Err(ShareError::Truncated | ShareError::Garbled(_))));
        assert!(matches!(decode("1.!!!!"), Err(ShareError::Garbled(_))));
        assert!(matches!(decode("9.abc"), Err(ShareError::UnknownFormat(_))));
        assert!(matches!(decode("nodot"), Err(ShareError::Garbled(_))));
        assert!(matches!(decode(&"A".repeat(MAX_LINK_CHARS + 10)), Err(ShareError::TooLong(_))));
        // every prefix and a flipped character: never a panic
        for cut in 0..good.len() {
            let _ = decode(&good[..cut]);
        }
        let mut flipped = good.clone().into_bytes();
        let mid = flipped.len() / 2;
        flipped[mid] = if flipped[mid] == b'A' { b'B' } else { b'A' };
        let _ = decode(std::str::from_utf8(&flipped).unwrap());
    }

    #[test]
    fn future_record_versions_are_refused_with_a_message() {
        let mut r = record();
        r.schema = SCHEMA_VERSION + 5;
        let json = serde_json::to_vec(&r).unwrap();
        let s = format!("1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&json, 6)));
        let e = decode(&s).unwrap_err();
        assert!(e.to_string().contains("newer version"), "{e}");
    }

    #[test]
    fn decompression_bomb_is_refused() {
        let big = vec![b' '; MAX_JSON_BYTES + 10];
        let s = format!("1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&big, 9)));
        assert!(s.len() < MAX_LINK_CHARS);
        assert!(matches!(decode(&s), Err(ShareError::Garbled(_))));
    }

    #[test]
    fn big_records_fall_back_to_summaries() {
        let mut r = record();
        for i in 0..20_000 {
            r.trials.push(crate::record::TrialRow {
                task: "VSR".into(),
                trial: i,
                targets: vec![format!("{}", i * 7919 % 9973)],
                responses: vec![format!("{}", i * 104_729 % 9967)],
                correct: vec![i % 3 == 0],
                ..Default::default()
            });
        }
        let back = decode(&encode(&r).unwrap()).unwrap();
        assert!(back.trials.is_empty());
        assert_eq!(back.summaries, r.summaries);
    }

    fn comparison() -> Comparison {
        use crate::compare::Compared;
        use crate::people::StudyTask;
        use crate::task::TaskId;
        let mut person = record();
        person.subject = Subject::Person { id: "p1".into() };
        for l in 3..=6u8 {
            for k in 0..4u64 {
                person.trials.push(crate::record::TrialRow {
                    task: "VSR".into(),
                    trial: k,
                    conditions: Conditions { list_length: Some(l), ..Default::default() },
                    targets: vec!["1".into(); l as usize],
                    responses: vec!["1".into(); l as usize],
                    correct: (0..l).map(|i| !(i as u64 + k).is_multiple_of(3)).collect(),
                    rt_ms: vec![612.5; l as usize],
                    ..Default::default()
                });
            }
        }
        let mut net = person.clone();
        net.subject = Subject::Network {
            arch: "gru".into(),
            capacity: 16,
            preset: "tiny".into(),
            steps: 2,
            backend: "cpu".into(),
        };
        net.trials.iter_mut().for_each(|t| t.correct.iter_mut().for_each(|c| *c = !*c));
        Comparison::new(StudyTask::Worm(TaskId::Vsr), &[Compared::new(person), Compared::new(net)], true, true, false)
    }

    #[test]
    fn comparison_round_trip_through_a_url() {
        let c = comparison();
        let (frag, full) = comparison_fragment(&c).unwrap();
        assert!(full);
        assert!(frag.starts_with("#c=1."));
        let url = format!("http://127.0.0.1:8080/index.html{frag}");
        let back = decode_comparison(&url).unwrap();
        assert_eq!(back, c);
        assert!(is_comparison_link(&url) && !is_comparison_link("#r=1.abc"));
        // A result link is not a comparison (and the other way round): plain errors.
        assert!(decode_comparison(&fragment(&record()).unwrap()).is_err());
        assert!(decode(&frag).is_err());
    }

    #[test]
    fn damaged_and_future_comparison_links_give_errors() {
        let (good, _) = encode_comparison(&comparison()).unwrap();
        assert_eq!(decode_comparison(""), Err(ShareError::NoComparison));
        assert_eq!(decode_comparison("#c="), Err(ShareError::NoComparison));
        assert!(ShareError::NoComparison.to_string().contains("no comparison"));
        assert!(matches!(decode_comparison("#c=1.!!!!"), Err(ShareError::Garbled(_))));
        assert!(
            matches!(decode_comparison(&format!("#c=2.{}", &good[2..])), Err(ShareError::UnknownFormat(v)) if v == "2")
        );
        assert!(matches!(
            decode_comparison(&good[..good.len() / 2]),
            Err(ShareError::Truncated | ShareError::Garbled(_))
        ));
        for cut in (0..good.len()).step_by(7) {
            let _ = decode_comparison(&good[..cut]);
        }
        // A newer comparison version inside a well-formed link.
        let mut c = comparison();
        c.schema = crate::compare::COMPARISON_SCHEMA + 1;
        let s = pack(&serde_json::to_vec(&c).unwrap());
        let e = decode_comparison(&s).unwrap_err();
        assert!(e.to_string().contains("newer version"), "{e}");
        // Valid JSON of the wrong shape.
        let e = decode_comparison(&pack(b"{\"schema\":1,\"task\":\"VSR\"}")).unwrap_err();
        assert!(matches!(e, ShareError::Record(RecordError::Invalid(_))), "{e}");
    }

    #[test]
    fn long_comparisons_fall_back_to_curves() {
        use crate::people::StudyTask;
        use crate::task::TaskId;
        let vsr = StudyTask::Worm(TaskId::Vsr);
        let mut c = comparison();
        // Make the rows incompressible enough to pass the cap.
        for r in &mut c.results {
            let rows: Vec<_> = (0..30_000u64)
                .map(|i| crate::record::TrialRow {
                    task: "VSR".into(),
                    trial: i,
                    conditions: Conditions { list_length: Some(3 + (i % 4) as u8), ..Default::default() },
                    targets: vec![format!("{}", i * 7919 % 9973); 3],
                    responses: vec![format!("{}", i * 104_729 % 9967); 3],
                    correct: vec![i % 3 == 0, i % 5 == 0, i % 7 == 0],
                    ..Default::default()
                })
                .collect();
            r.record.trials = rows;
        }
        let (s, full) = encode_comparison(&c).unwrap();
        assert!(!full);
        assert!(s.len() <= MAX_LINK_CHARS);
        let back = decode_comparison(&s).unwrap();
        assert!(back.results.iter().all(|r| r.record.trials.is_empty() && !r.curves.is_empty()));
        for (a, b) in c.results.iter().zip(&back.results) {
            assert_eq!(a.curves(vsr), b.curves(vsr), "the same curves");
            assert_eq!(a.record.summaries, b.record.summaries);
        }
    }
}
