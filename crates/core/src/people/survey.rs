//! Questionnaires (`survey=`): a small declarative form shown before or after the tasks, its answers
//! checked here and kept in the record (settings and every row, as `q_<id>` columns).
//!
//! A questionnaire is a list of [`Item`]s: free text, a number, one choice, several choices or a
//! Likert scale, each optionally required. [`demographics`] is the built-in set (age, gender,
//! handedness, corrected vision, colour vision: CD-Color depends on it); a study may give its own as a
//! JSON file on its site ([`Questionnaire::from_json`], refused with plain reasons when malformed).
//! [`Questionnaire::check`] turns what the participant entered into answers or, per item, why not.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::record::Setting;

/// The most items a questionnaire may hold.
pub const MAX_ITEMS: usize = 60;
/// The most options a choice item may offer.
pub const MAX_OPTIONS: usize = 30;
/// The longest prompt, option or free-text answer, characters.
pub const MAX_TEXT: usize = 2000;

/// What an item asks for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ItemKind {
    /// Free text (one line, or several when `lines` > 1).
    Text {
        /// Rows of the input (1: one line).
        #[serde(default = "one")]
        lines: u8,
    },
    /// A number within `min`–`max` (whole when `integer`).
    Number {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
        /// Whole numbers only.
        #[serde(default)]
        integer: bool,
    },
    /// Exactly one of `options`.
    Single {
        /// The choices, as shown and as recorded.
        options: Vec<String>,
    },
    /// Any number of `options` (recorded `;`-joined, in the options' order).
    Multiple {
        /// The choices, as shown and as recorded.
        options: Vec<String>,
    },
    /// A point 1–`points` of a scale labelled at its ends.
    Likert {
        /// Points on the scale (2–11).
        points: u8,
        /// The label of point 1.
        low: String,
        /// The label of the last point.
        high: String,
    },
}

fn one() -> u8 {
    1
}

/// One question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Its name in the record (`q_<id>`): letters, digits, `_`; 1–40 characters.
    pub id: String,
    /// The question as the participant reads it.
    pub prompt: String,
    /// What it asks for.
    #[serde(flatten)]
    pub kind: ItemKind,
    /// Whether it must be answered.
    #[serde(default)]
    pub required: bool,
}

/// When the questionnaire is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SurveyAt {
    /// After consent (and the chinrest), before the first task.
    #[default]
    Start,
    /// After the last task, before the data are sent.
    End,
}

impl SurveyAt {
    /// As written in links (`survey_at=`).
    pub fn as_str(self) -> &'static str {
        match self {
            SurveyAt::Start => "start",
            SurveyAt::End => "end",
        }
    }
}

/// A questionnaire: its items in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Questionnaire {
    /// A heading above the items.
    #[serde(default)]
    pub title: String,
    /// The questions in order.
    pub items: Vec<Item>,
}

/// What the participant entered for one item: text (text and number fields, one choice, Likert as
/// its point) or the ticked options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Entry {
    /// A typed or chosen value; empty = not answered.
    One(String),
    /// The ticked options of a multiple-choice item.
    Many(Vec<String>),
}

/// An answer that cannot be taken, said to the participant beside its item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemError {
    /// The item's id.
    pub id: String,
    /// What to change, in plain words.
    pub message: String,
}

/// Why a questionnaire file was refused (for the researcher).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurveyError(pub String);

impl fmt::Display for SurveyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "The questionnaire cannot be used: {}", self.0)
    }
}

impl std::error::Error for SurveyError {}

/// The built-in demographics set: age, gender, handedness, corrected vision and colour vision.
pub fn demographics() -> Questionnaire {
    let single = |id: &str, prompt: &str, options: &[&str]| Item {
        id: id.into(),
        prompt: prompt.into(),
        kind: ItemKind::Single { options: options.iter().map(|s| s.to_string()).collect() },
        required: true,
    };
    Questionnaire {
        title: "About you".into(),
        items: vec![
            Item {
                id: "age".into(),
                prompt: "How old are you (years)?".into(),
                kind: ItemKind::Number { min: 16.0, max: 110.0, integer: true },
                required: true,
            },
            single("gender", "What is your gender?", &["woman", "man", "non-binary", "another", "prefer not to say"]),
            single("handedness", "Which hand do you write with?", &["right", "left", "either"]),
            single(
                "vision",
                "Is your eyesight normal, or corrected to normal?",
                &["normal", "corrected to normal (glasses or contact lenses)", "not corrected to normal"],
            ),
            single(
                "wearing_correction",
                "If you use glasses or contact lenses for the screen, are you wearing them now?",
                &["yes", "no", "I do not need them"],
            ),
            single(
                "colour_vision",
                "Do you have a colour vision deficiency (colour blindness)?",
                &["no", "yes", "I do not know"],
            ),
        ],
    }
}

fn valid_id(id: &str) -> bool {
    (1..=40).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl Questionnaire {
    /// Read a questionnaire from JSON (`{"title": …, "items": [{"id", "prompt", "type", …}]}`),
    /// checking every item; the first problem is named.
    pub fn from_json(text: &str) -> Result<Questionnaire, SurveyError> {
        let q: Questionnaire = serde_json::from_str(text).map_err(|e| {
            SurveyError(format!(
                "it is not a questionnaire in JSON ({e}). Expected {{\"items\": [{{\"id\": \"age\", \"prompt\": \"…\", \
                 \"type\": \"number\", \"min\": 16, \"max\": 110}}, …]}} with types text, number, single, multiple, likert."
            ))
        })?;
        q.validate()?;
        Ok(q)
    }

    /// A study's questionnaire: the built-in demographics (when `demographics`), then the items of the
    /// study's own file (its JSON text), as one; `None` when neither is given.
    pub fn for_study(demographics: bool, file: Option<&str>) -> Result<Option<Questionnaire>, SurveyError> {
        let mut q = if demographics { Some(self::demographics()) } else { None };
        if let Some(text) = file {
            let own = Questionnaire::from_json(text)?;
            q = Some(match q {
                Some(mut d) => {
                    d.items.extend(own.items);
                    d.title = if own.title.is_empty() { d.title } else { own.title };
                    d
                }
                None => own,
            });
        }
        if let Some(q) = &q {
            q.validate()?;
        }
        Ok(q)
    }

    /// Check the items: ids unique and well formed, options present and unique, ranges sensible,
    /// texts within [`MAX_TEXT`].
    pub fn validate(&self) -> Result<(), SurveyError> {
        if self.items.is_empty() || self.items.len() > MAX_ITEMS {
            return Err(SurveyError(format!("it must hold 1–{MAX_ITEMS} items, not {}.", self.items.len())));
        }
        if self.title.chars().count() > MAX_TEXT {
            return Err(SurveyError("its title is too long.".into()));
        }
        let mut seen = Vec::new();
        for it in &self.items {
            let at = |m: String| SurveyError(format!("item “{}”: {m}", it.id.chars().take(40).collect::<String>()));
            if !valid_id(&it.id) {
                return Err(at("its id must be 1–40 letters, digits or _.".into()));
            }
            if seen.contains(&&it.id) {
                return Err(at("its id is used twice.".into()));
            }
            seen.push(&it.id);
            if it.prompt.trim().is_empty() || it.prompt.chars().count() > MAX_TEXT {
                return Err(at(format!("its prompt must be 1–{MAX_TEXT} characters.")));
            }
            match &it.kind {
                ItemKind::Text { lines } if *lines == 0 || *lines > 20 => {
                    return Err(at("lines must be 1–20.".into()));
                }
                ItemKind::Number { min, max, .. } if !(min.is_finite() && max.is_finite() && min < max) => {
                    return Err(at("min and max must be numbers with min below max.".into()));
                }
                ItemKind::Single { options } | ItemKind::Multiple { options } => {
                    if options.len() < 2 || options.len() > MAX_OPTIONS {
                        return Err(at(format!("it needs 2–{MAX_OPTIONS} options.")));
                    }
                    for (i, o) in options.iter().enumerate() {
                        if o.trim().is_empty() || o.chars().count() > MAX_TEXT || o.contains(';') {
                            return Err(at(format!("option {} must be 1–{MAX_TEXT} characters, without “;”.", i + 1)));
                        }
                        if options[..i].contains(o) {
                            return Err(at(format!("option “{o}” is there twice.")));
                        }
                    }
                }
                ItemKind::Likert { points, low, high } => {
                    if !(2..=11).contains(points) {
                        return Err(at("a Likert scale has 2–11 points.".into()));
                    }
                    if low.chars().count() > MAX_TEXT || high.chars().count() > MAX_TEXT {
                        return Err(at("its labels are too long.".into()));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The participant's entries (by item id) as answers, or every item that needs changing and why.
    /// Unanswered optional items are left out; entries for unknown ids are ignored.
    pub fn check(&self, entries: &BTreeMap<String, Entry>) -> Result<BTreeMap<String, String>, Vec<ItemError>> {
        let mut out = BTreeMap::new();
        let mut errors = Vec::new();
        for it in &self.items {
            let err = |m: &str| ItemError { id: it.id.clone(), message: m.to_string() };
            let answer: Result<Option<String>, ItemError> = match (&it.kind, entries.get(&it.id)) {
                (ItemKind::Multiple { options }, Some(Entry::Many(ticked))) => {
                    if ticked.iter().any(|t| !options.contains(t)) {
                        Err(err("Please choose among the options shown."))
                    } else {
                        let chosen: Vec<&str> =
                            options.iter().filter(|o| ticked.contains(o)).map(String::as_str).collect();
                        Ok((!chosen.is_empty()).then(|| chosen.join(";")))
                    }
                }
                (_, Some(Entry::Many(_))) => Err(err("Please give one answer.")),
                (kind, Some(Entry::One(v))) if !v.trim().is_empty() => {
                    let v = v.trim();
                    match kind {
                        ItemKind::Text { .. } if v.chars().count() > MAX_TEXT => {
                            Err(err("That answer is too long; please shorten it."))
                        }
                        ItemKind::Text { .. } => Ok(Some(v.to_string())),
                        ItemKind::Number { min, max, integer } => match v.replace(',', ".").parse::<f64>() {
                            Ok(x) if x.is_finite() && (*min..=*max).contains(&x) && (!integer || x.fract() == 0.0) => {
                                Ok(Some(if x.fract() == 0.0 { format!("{}", x as i64) } else { x.to_string() }))
                            }
                            Ok(x) if x.is_finite() && *integer && x.fract() != 0.0 => {
                                Err(err("Please give a whole number."))
                            }
                            _ => Err(ItemError {
                                id: it.id.clone(),
                                message: format!("Please give a number from {min} to {max}."),
                            }),
                        },
                        ItemKind::Single { options } if options.iter().any(|o| o == v) => Ok(Some(v.to_string())),
                        ItemKind::Single { .. } => Err(err("Please choose one of the options shown.")),
                        ItemKind::Likert { points, .. } => match v.parse::<u8>() {
                            Ok(p) if (1..=*points).contains(&p) => Ok(Some(p.to_string())),
                            _ => Err(err("Please choose a point on the scale.")),
                        },
                        ItemKind::Multiple { .. } => Err(err("Please choose among the options shown.")),
                    }
                }
                _ => Ok(None),
            };
            match answer {
                Ok(Some(a)) => {
                    out.insert(it.id.clone(), a);
                }
                Ok(None) if it.required => errors.push(err("Please answer this question.")),
                Ok(None) => {}
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() { Ok(out) } else { Err(errors) }
    }
}

/// A questionnaire's answers as record columns: `q_<id>` → the answer.
pub fn columns(answers: &BTreeMap<String, String>) -> BTreeMap<String, Setting> {
    answers.iter().map(|(k, v)| (format!("q_{k}"), Setting::Text(v.clone()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(v: &str) -> Entry {
        Entry::One(v.into())
    }

    #[test]
    fn demographics_takes_answers_and_says_what_is_missing() {
        let q = demographics();
        q.validate().unwrap();
        let mut e = BTreeMap::new();
        e.insert("age".into(), one("34"));
        e.insert("gender".into(), one("woman"));
        let errs = q.check(&e).unwrap_err();
        let ids: Vec<&str> = errs.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["handedness", "vision", "wearing_correction", "colour_vision"]);
        assert!(errs.iter().all(|e| e.message == "Please answer this question."));
        for (k, v) in [
            ("handedness", "left"),
            ("vision", "normal"),
            ("wearing_correction", "I do not need them"),
            ("colour_vision", "no"),
        ] {
            e.insert(k.into(), one(v));
        }
        let a = q.check(&e).unwrap();
        assert_eq!(a["age"], "34");
        assert_eq!(columns(&a)["q_colour_vision"], Setting::Text("no".into()));
        e.insert("age".into(), one("3"));
        e.insert("handedness".into(), one("<script>"));
        let errs = q.check(&e).unwrap_err();
        assert_eq!(errs[0].message, "Please give a number from 16 to 110.");
        assert_eq!(errs[1].message, "Please choose one of the options shown.");
        e.insert("age".into(), one("34.5"));
        assert_eq!(q.check(&e).unwrap_err()[0].message, "Please give a whole number.");
    }

    #[test]
    fn the_built_in_set_and_a_file_combine_and_ids_stay_unique() {
        assert_eq!(Questionnaire::for_study(false, None), Ok(None));
        let file = r#"{"items": [{"id": "sleep", "prompt": "Hours slept?", "type": "number", "min": 0, "max": 24}]}"#;
        let q = Questionnaire::for_study(true, Some(file)).unwrap().unwrap();
        assert_eq!(q.items.len(), demographics().items.len() + 1);
        assert_eq!(q.items.last().unwrap().id, "sleep");
        let clash = r#"{"items": [{"id": "age", "prompt": "Age?", "type": "text"}]}"#;
        assert!(Questionnaire::for_study(true, Some(clash)).unwrap_err().to_string().contains("used twice"));
        // The example the app ships for researchers to copy.
        let example =
            Questionnaire::from_json(include_str!("../../../../public/study/questions-example.json")).unwrap();
        assert_eq!(example.items.len(), 4);
    }

    #[test]
    fn a_researchers_file_is_read_and_its_mistakes_named() {
        let q = Questionnaire::from_json(
            r#"{"title": "Strategies", "items": [
                {"id": "strategy", "prompt": "How did you remember?", "type": "multiple", "options": ["words", "pictures", "counting"]},
                {"id": "effort", "prompt": "How hard did you try?", "type": "likert", "points": 5, "low": "not at all", "high": "very", "required": true},
                {"id": "notes", "prompt": "Anything else?", "type": "text", "lines": 3}
            ]}"#,
        )
        .unwrap();
        let mut e = BTreeMap::new();
        e.insert("strategy".into(), Entry::Many(vec!["counting".into(), "words".into()]));
        e.insert("effort".into(), one("4"));
        let a = q.check(&e).unwrap();
        assert_eq!(a["strategy"], "words;counting", "in the options' order");
        assert!(!a.contains_key("notes"), "optional and empty");
        e.insert("effort".into(), one("6"));
        e.insert("strategy".into(), Entry::Many(vec!["telepathy".into()]));
        let errs = q.check(&e).unwrap_err();
        assert_eq!(errs.len(), 2);
        for (bad, why) in [
            ("[]", "not a questionnaire"),
            (r#"{"items": []}"#, "1–60 items"),
            (r#"{"items": [{"id": "a b", "prompt": "x", "type": "text"}]}"#, "id must be"),
            (r#"{"items": [{"id": "a", "prompt": "x", "type": "single", "options": ["y"]}]}"#, "2–30 options"),
            (r#"{"items": [{"id": "a", "prompt": "x", "type": "single", "options": ["y", "y"]}]}"#, "twice"),
            (r#"{"items": [{"id": "a", "prompt": "x", "type": "number", "min": 5, "max": 1}]}"#, "min below max"),
            (
                r#"{"items": [{"id": "a", "prompt": "x", "type": "likert", "points": 40, "low": "", "high": ""}]}"#,
                "2–11",
            ),
            (
                r#"{"items": [{"id": "a", "prompt": "x", "type": "text"}, {"id": "a", "prompt": "y", "type": "text"}]}"#,
                "used twice",
            ),
            (r#"{"items": [{"id": "a", "prompt": "x", "type": "slider"}]}"#, "not a questionnaire"),
        ] {
            let e = Questionnaire::from_json(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
