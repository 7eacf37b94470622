//! `wmlab score`: score one JSONL line.
//!
//! Input: a JSON object with `metric` (a [`Metric`] name), `reference` and `prediction` (the raw reply).
//! Output: the same object (keys in sorted order: serde_json's map without `preserve_order`) plus
//! - `score` (a number in [0, 1]) for `exact_match`, `exact_match_strict`, `final_answer_exact_match`,
//!   `count_accuracy`, `first_integer`, `rouge_l`, `rouge_l_recall`, `jaccard`, `theory_of_mind`;
//! - `hit_rate`, `false_alarm_rate`, `accuracy`, `dprime` (README d′: z(HR) − z(FAR), a rate of 0 or 1
//!   moved by 0.01, signed) and `dprime_notebook` (clipped to [.01, .99], absolute value: what the
//!   paper's tables report) for `nback`, where `reference` is the condition string (`m`/`-` per trial)
//!   and `prediction` the extracted answers (`m`/`-`; any other character is an unusable reply).
//!
//! Reference shapes: a string, an integer, a list of strings (set metrics, Minerva lists) or an object
//! agent → list of strings (theory of mind); see [`crate::llm::metrics::score`] for which metric takes
//! which. A `null` prediction is scored as an empty reply (the official Minerva runner does the same
//! for a failed request); a missing one is an error.
//!
//! Errors never abort: the object gets an `error` field with a plain message and keeps its other
//! fields. A line that is not a JSON object becomes `{"error": "...", "line": "<the raw line>"}`.

use serde_json::{Map, Value};

use super::metrics;
use super::{Metric, Reference};
use crate::sdt::SdtScores;

/// Score one line (see the module docs). Always returns one line of JSON.
pub fn score_line(line: &str) -> String {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return raw_error(line, &format!("not valid JSON: {e}")),
    };
    let Value::Object(mut obj) = value else {
        return raw_error(line, "not a JSON object");
    };
    if let Err(e) = score_object(&mut obj) {
        obj.insert("error".into(), Value::String(e.to_string()));
    }
    Value::Object(obj).to_string()
}

fn raw_error(line: &str, msg: &str) -> String {
    let mut obj = Map::new();
    obj.insert("error".into(), Value::String(msg.into()));
    obj.insert("line".into(), Value::String(line.into()));
    Value::Object(obj).to_string()
}

/// Score a parsed object in place: add the result fields, or return what is wrong.
pub fn score_object(obj: &mut Map<String, Value>) -> Result<(), ScoreLineError> {
    let metric = match obj.get("metric") {
        None => return Err(ScoreLineError::Missing("metric")),
        Some(Value::String(s)) => Metric::parse(s).ok_or_else(|| ScoreLineError::UnknownMetric(s.clone()))?,
        Some(_) => return Err(ScoreLineError::NotText("metric")),
    };
    let prediction = match obj.get("prediction") {
        None => return Err(ScoreLineError::Missing("prediction")),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => String::new(),
        Some(_) => return Err(ScoreLineError::NotText("prediction")),
    };
    let reference = obj.get("reference").ok_or(ScoreLineError::Missing("reference"))?;

    if metric == Metric::Nback {
        let Value::String(conditions) = reference else {
            return Err(ScoreLineError::NbackReference);
        };
        if let Some(c) = conditions.chars().find(|c| *c != 'm' && *c != '-') {
            return Err(ScoreLineError::NbackCondition(c));
        }
        let (nc, na) = (conditions.chars().count(), prediction.chars().count());
        if nc != na {
            return Err(ScoreLineError::NbackLengths { trials: nc, answers: na });
        }
        let s = SdtScores::score(conditions, &prediction);
        for (k, v) in [
            ("hit_rate", s.hit_rate),
            ("false_alarm_rate", s.false_alarm_rate),
            ("accuracy", s.accuracy),
            ("dprime", s.dprime),
            ("dprime_notebook", s.dprime_notebook),
        ] {
            obj.insert(k.into(), number(v)?);
        }
        return Ok(());
    }

    let reference = parse_reference(reference)?;
    let score = metrics::score(metric, &reference, &prediction)?;
    obj.insert("score".into(), number(score)?);
    Ok(())
}

/// What is wrong with a line given to [`score_object`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScoreLineError {
    /// A required field is absent; holds its name (`metric`, `prediction` or `reference`).
    #[error("missing field `{0}`")]
    Missing(&'static str),
    /// `metric` or `prediction` is not a string (a `null` prediction is allowed: an empty reply); holds
    /// the field's name.
    #[error("`{0}` must be a string")]
    NotText(&'static str),
    /// `metric` names no [`Metric`]; holds the name given.
    #[error("unknown metric `{0}` (known: {known})", known = Metric::ALL.map(|m| m.as_str()).join(", "))]
    UnknownMetric(String),
    /// For `nback`, `reference` is not a string: it must be the condition string.
    #[error("nback: `reference` must be the condition string (`m`/`-` per trial)")]
    NbackReference,
    /// For `nback`, the condition string holds a character other than `m` or `-`; holds the first.
    #[error("nback: `reference` may only contain `m` and `-`, found {0:?}")]
    NbackCondition(char),
    /// For `nback`, the condition string and the answers differ in length.
    #[error("nback: `reference` has {trials} trials but `prediction` has {answers} answers")]
    NbackLengths {
        /// Characters of `reference`: one per trial.
        trials: usize,
        /// Characters of `prediction`: one per answer.
        answers: usize,
    },
    /// `reference` is not a valid [`Reference`].
    #[error(transparent)]
    Reference(#[from] ReferenceError),
    /// The metric cannot score that reference ([`metrics::MetricError`]).
    #[error(transparent)]
    Metric(#[from] metrics::MetricError),
    /// A result is NaN or infinite, which JSON cannot hold; holds it.
    #[error("non-finite result {0}")]
    NonFinite(f64),
}

/// Why a JSON value is not a [`Reference`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    /// A number that is not an integer within the `i64` range (`2.5`, `1e3`); holds the number.
    #[error("`reference` number {0} is not an integer")]
    NotInteger(String),
    /// A list with an item that is not a string.
    #[error("`reference` list must hold strings only")]
    List,
    /// An object whose value for this agent is not a list of strings; holds the agent's name.
    #[error("`reference` agent `{0}` must map to a list of strings")]
    Agent(String),
    /// Neither a string, an integer, a list nor an object (`true`, `null`).
    #[error("`reference` must be a string, an integer, a list of strings or an object agent -> list of strings")]
    Shape,
}

/// A JSON reference as a [`Reference`]: string, integer, list of strings, or object of string lists.
pub fn parse_reference(v: &Value) -> Result<Reference, ReferenceError> {
    match v {
        Value::String(s) => Ok(Reference::Text(s.clone())),
        Value::Number(n) => n.as_i64().map(Reference::Int).ok_or_else(|| ReferenceError::NotInteger(n.to_string())),
        Value::Array(items) => items
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(Reference::List)
            .ok_or(ReferenceError::List),
        Value::Object(map) => {
            let mut out = std::collections::BTreeMap::new();
            for (agent, words) in map {
                let list = words
                    .as_array()
                    .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
                    .ok_or_else(|| ReferenceError::Agent(agent.clone()))?;
                out.insert(agent.clone(), list);
            }
            Ok(Reference::Agents(out))
        }
        _ => Err(ReferenceError::Shape),
    }
}

fn number(x: f64) -> Result<Value, ScoreLineError> {
    serde_json::Number::from_f64(x).map(Value::Number).ok_or(ScoreLineError::NonFinite(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(line: &str) -> Map<String, Value> {
        let out = score_line(line);
        assert!(!out.contains('\n'), "one line: {out}");
        match serde_json::from_str::<Value>(&out).unwrap() {
            Value::Object(m) => m,
            other => panic!("not an object: {other}"),
        }
    }
    fn score_of(line: &str) -> f64 {
        let m = run(line);
        assert!(m.get("error").is_none(), "unexpected error: {m:?}");
        m["score"].as_f64().unwrap()
    }
    fn error_of(line: &str) -> String {
        run(line)["error"].as_str().expect("error field").to_string()
    }

    #[test]
    fn every_single_reply_metric() {
        assert_eq!(score_of(r#"{"metric":"exact_match","reference":"no","prediction":"Not sure."}"#), 1.0);
        assert_eq!(score_of(r#"{"metric":"exact_match_strict","reference":"no","prediction":"Not sure."}"#), 0.0);
        assert_eq!(score_of(r#"{"metric":"exact_match_strict","reference":"no","prediction":" No. "}"#), 1.0);
        assert_eq!(
            score_of(r#"{"metric":"final_answer_exact_match","reference":509,"prediction":"FINAL ANSWER: 509"}"#),
            1.0
        );
        assert_eq!(score_of(r#"{"metric":"count_accuracy","reference":"2","prediction":" twice"}"#), 1.0);
        assert_eq!(score_of(r#"{"metric":"count_accuracy","reference":3,"prediction":" 4 times"}"#), 0.0);
        assert_eq!(score_of(r#"{"metric":"first_integer","reference":4521,"prediction":"4521"}"#), 1.0);
        assert_eq!(score_of(r#"{"metric":"first_integer","reference":"4521","prediction":"it is 452"}"#), 0.0);
        let f = score_of(r#"{"metric":"rouge_l","reference":"a b c d","prediction":"a c e"}"#);
        assert!((f - 4.0 / 7.0).abs() < 1e-12);
        let r = score_of(r#"{"metric":"rouge_l_recall","reference":"a b c d","prediction":"a c e"}"#);
        assert!((r - 0.5).abs() < 1e-12);
        assert_eq!(score_of(r#"{"metric":"jaccard","reference":["a","b"],"prediction":"FINAL ANSWER: b, a"}"#), 1.0);
        assert_eq!(score_of(r#"{"metric":"jaccard","reference":["a","b"],"prediction":"a,b"}"#), 0.0);
        let tom = r#"{"metric":"theory_of_mind","reference":{"Agent A":["x","y"],"Agent B":["z"]},"prediction":"FINAL ANSWER: Agent A: x"}"#;
        assert!((score_of(tom) - 0.25).abs() < 1e-12);
        // null prediction = empty reply
        assert_eq!(score_of(r#"{"metric":"exact_match","reference":"yes","prediction":null}"#), 0.0);
    }

    #[test]
    fn nback_line() {
        let m = run(r#"{"metric":"nback","reference":"--m-m-","prediction":"--m--m"}"#);
        assert!(m.get("error").is_none(), "{m:?}");
        assert_eq!(m["hit_rate"].as_f64(), Some(0.5));
        assert_eq!(m["false_alarm_rate"].as_f64(), Some(0.25));
        assert!((m["accuracy"].as_f64().unwrap() - 4.0 / 6.0).abs() < 1e-12);
        assert!(m["dprime"].as_f64().is_some());
        assert!(m["dprime_notebook"].as_f64().is_some());
        assert!(m.get("score").is_none());
        // unusable answers are allowed (scored as non-m), lengths must agree
        let m = run(r#"{"metric":"nback","reference":"m-","prediction":"x-"}"#);
        assert!(m.get("error").is_none(), "{m:?}");
        assert_eq!(m["hit_rate"].as_f64(), Some(0.0));
        assert!(error_of(r#"{"metric":"nback","reference":"m-m","prediction":"m-"}"#).contains("3 trials"));
        assert!(error_of(r#"{"metric":"nback","reference":"mx","prediction":"m-"}"#).contains("only contain"));
        assert!(error_of(r#"{"metric":"nback","reference":["m"],"prediction":"m"}"#).contains("condition string"));
    }

    #[test]
    fn malformed_lines_get_an_error_and_keep_fields() {
        let m = run("not json {");
        assert!(m["error"].as_str().unwrap().starts_with("not valid JSON"));
        assert_eq!(m["line"], "not json {");
        let m = run("[1,2]");
        assert_eq!(m["error"], "not a JSON object");
        assert_eq!(m["line"], "[1,2]");

        let m = run(r#"{"id":7,"metric":"bleu","reference":"a","prediction":"a"}"#);
        assert!(m["error"].as_str().unwrap().contains("unknown metric `bleu`"));
        assert_eq!(m["id"], 7);
        assert_eq!(m["reference"], "a");
        assert!(m.get("score").is_none());

        let m = run(r#"{"id":"x","metric":"exact_match","reference":"a"}"#);
        assert_eq!(m["error"], "missing field `prediction`");
        assert_eq!(m["id"], "x");
        assert_eq!(error_of(r#"{"reference":"a","prediction":"a"}"#), "missing field `metric`");
        assert_eq!(error_of(r#"{"metric":"exact_match","prediction":"a"}"#), "missing field `reference`");
        assert_eq!(error_of(r#"{"metric":3,"reference":"a","prediction":"a"}"#), "`metric` must be a string");
        assert_eq!(
            error_of(r#"{"metric":"exact_match","reference":"a","prediction":5}"#),
            "`prediction` must be a string"
        );
        assert!(error_of(r#"{"metric":"exact_match","reference":true,"prediction":"a"}"#).contains("must be"));
        assert!(error_of(r#"{"metric":"exact_match","reference":2.5,"prediction":"a"}"#).contains("not an integer"));
        assert!(error_of(r#"{"metric":"jaccard","reference":["a",1],"prediction":"a"}"#).contains("strings only"));
        assert!(error_of(r#"{"metric":"jaccard","reference":{"A":["a"]},"prediction":"a"}"#).contains("list"));
        assert!(error_of(r#"{"metric":"theory_of_mind","reference":["a"],"prediction":"a"}"#).contains("agent"));
        assert!(
            error_of(r#"{"metric":"theory_of_mind","reference":{"A":"a"},"prediction":"a"}"#).contains("agent `A`")
        );
        assert!(error_of(r#"{"metric":"count_accuracy","reference":"two","prediction":"twice"}"#).contains("integer"));
        assert!(error_of(r#"{"metric":"first_integer","reference":["1"],"prediction":"1"}"#).contains("integer"));
    }

    #[test]
    fn output_keeps_other_fields_and_overwrites_score() {
        let m = run(r#"{"z":1,"a":[1,2],"metric":"exact_match","reference":"yes","prediction":"yes","score":0.3}"#);
        assert_eq!(m["score"].as_f64(), Some(1.0));
        assert_eq!(m["z"], 1);
        assert_eq!(m["a"], serde_json::json!([1, 2]));
    }
}
