//! Share links: a result record carried in the URL fragment, so no server is involved.
//!
//! Format: `#r=1.<payload>` where `1` is the link format and `<payload>` is base64url (no padding) of the
//! raw-DEFLATE-compressed JSON of the record. The fragment never reaches a server. Links are capped at
//! [`MAX_LINK_CHARS`]; a record that would be larger is shared without its per-trial rows.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

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
    Empty,
    UnknownFormat(String),
    TooLong(usize),
    Garbled(String),
    Truncated,
    Record(RecordError),
}

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShareError::Empty => write!(f, "This link carries no result. Ask for the full link, including the part after #r=."),
            ShareError::UnknownFormat(v) => write!(
                f,
                "This link was made by a different version of WM Lab (link format “{v}”). Open it with the app that made it."
            ),
            ShareError::TooLong(n) => write!(
                f,
                "This link is too long to be a WM Lab result ({n} characters; at most {MAX_LINK_CHARS})."
            ),
            ShareError::Garbled(why) => write!(f, "This link is damaged and cannot be read ({why}). Copy it again in full."),
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
        let json = serde_json::to_vec(&r).expect("a record serialises");
        let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
        let s = format!("{LINK_FORMAT}.{}", URL_SAFE_NO_PAD.encode(packed));
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
    let text = String::from_utf8(json).map_err(|_| ShareError::Garbled("the content is not text".into()))?;
    ResultRecord::from_json(&text).map_err(ShareError::Record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{RunConfig, Subject, Summary, SCHEMA_VERSION};
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
}
