//! PI-LLM for people: the key–value updates of Wang & Sun (2025, "Unable to Forget: Proactive
//! Interference Reveals Working Memory Limits in LLMs Beyond Context Length", arXiv 2506.08184), taken
//! one update at a time, as a study task (`pi-llm` in links and records). The LLM suite
//! ([`crate::llm::pi`]) draws its streams and scores its replies with the code here ([`draw`],
//! [`score_values`]), so a person's rows and a model's rows are the same kind of number on one plot.
//!
//! A stream updates each of a few keys (categories) several times (`fruit: pear`, `job: chef`,
//! `fruit: kiwi`, …; never the same key twice in a row); at the end the participant types the last value
//! of each key. Earlier values of a key interfere with its last one (proactive interference), so
//! accuracy falls as the updates per key grow.
//!
//! The paper has no human protocol; this is ours (docs/fielding-a-study.md, "Key–value updates"):
//!
//! - **Vocabulary**: [`VOCABULARY`], 8 keys with 30 familiar one-word values each, every value taken
//!   from the authors' vocabulary (`public/data/pi-llm/categories.json.gz`, MIT): their categories fruit,
//!   sport, quodruped (here "animal"), body ("body part"), profession ("job"), tools ("tool"),
//!   furnishing ("home") and land vehicle ("vehicle"). Built in, so a study needs no file.
//! - **Design**: [`KEYS`] = 4 keys a stream (drawn from the 8), [`LEVELS`] = 1, 2, 4 and 8 updates per key
//!   (4 to 32 updates a stream), `tpc` streams per level (the link's trials per condition), the streams
//!   of all levels in one block in a seeded shuffled order; values as they are (value length 1) and the
//!   paper's random order (the authors' rule: no key twice in a row).
//! - **Practice** (the link's `practice=`): one stream of [`PRACTICE_UPDATES`] updates per key, then
//!   feedback with the right values.
//! - **Timing**: each update `key: value` is drawn as text in the stimulus square for [`UPDATE_MS`], then a
//!   blank of [`BLANK_MS`], frame-locked as every task's frames; then the question, untimed.
//! - **Answer**: one text field per key, labelled with the key (in the stream's key order, as the LLM
//!   prompt lists them); "Done" commits. A key scores when its typed value equals the last value,
//!   ignoring case and surrounding spaces ([`score_values`], the LLM suite's metric `last_values`); an
//!   empty field is wrong. A resize while values are typed (a phone's keyboard) stops nothing.
//! - **Record**: one row per stream, task `pi-llm`, `conditions.other` `updates`, `keys` and `value_len`
//!   as an LLM's rows have them; targets the last values, responses the typed ones, one `correct` per key;
//!   the score in the extra `score_last_values` (the LLM rows' name), the keys in `pi_keys`, the stream in
//!   `stream`. Summaries: metric `last_values` over every stream and per updates level.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::reference::Curve;
use super::score::{Answer, ScoreError};
use super::session::{PlannedBlock, ScoredAnswers, Unit};
use super::{StudyConfig, StudyTask};
use crate::display::{Frame, palette, text};
use crate::record::{Setting, Summary, TrialRow, mean_se};
use crate::rng::{Rng, Split, trial_seed};
use crate::stats::point_interval;
use crate::task::{Conditions, Phase, Step};

/// The task's name in study links and records, as the LLM suite's samples have it.
pub const TASK: &str = "pi-llm";
/// Keys a person tracks in a stream.
pub const KEYS: usize = 4;
/// The updates per key of a person's streams, one level each.
pub const LEVELS: [usize; 4] = [1, 2, 4, 8];
/// Updates per key of the practice stream.
pub const PRACTICE_UPDATES: usize = 2;
/// How long each update is on screen, in ms.
pub const UPDATE_MS: f64 = 1000.0;
/// The blank after each update, in ms.
pub const BLANK_MS: f64 = 250.0;
/// The metric of the score, as the LLM suite names it.
pub const METRIC: &str = "last_values";
/// The extra column holding a row's score, as an LLM's rows name it.
pub const SCORE_EXTRA: &str = "score_last_values";
/// Stream numbers of practice streams start here, apart from the main streams `0..tpc` (below 2³², so
/// that a stream is the same natively and in wasm32).
pub const PRACTICE_STREAM: usize = 1 << 30;

/// `trial_seed` ordinal of the stream that orders the main block (WorM tasks use 0–13, N-back 200–201).
const PI_ORDINAL: u8 = 202;

/// PI-LLM's blocks in a session: with the link's `practice`, one practice stream of [`PRACTICE_UPDATES`]
/// updates per key; then one main block of `tpc` streams at each of [`LEVELS`], in an order shuffled by
/// the seed.
pub fn plan(config: &StudyConfig, seed: u64) -> Vec<PlannedBlock> {
    let mut out = Vec::new();
    if config.practice {
        let units = vec![Unit::Pi { updates: PRACTICE_UPDATES as u16, stream: 0 }];
        out.push(PlannedBlock { task: StudyTask::Pi, practice: true, n: None, units, adaptive: None });
    }
    let per_level = config.trials_per_condition as u32;
    let mut units: Vec<Unit> =
        LEVELS.iter().flat_map(|&u| (0..per_level).map(move |stream| Unit::Pi { updates: u as u16, stream })).collect();
    Rng::from_key(trial_seed(seed, PI_ORDINAL, Split::Human, u64::MAX - 1)).shuffle(&mut units);
    out.push(PlannedBlock { task: StudyTask::Pi, practice: false, n: None, units, adaptive: None });
    out
}

/// The people's vocabulary: (key as shown, 30 values), each value from the authors' category.
pub const VOCABULARY: [(&str, [&str; 30]); 8] = [
    (
        "fruit",
        [
            "banana",
            "melon",
            "lime",
            "pear",
            "fig",
            "plum",
            "lemon",
            "mango",
            "guava",
            "cherry",
            "coconut",
            "peach",
            "kiwi",
            "grape",
            "papaya",
            "apricot",
            "lychee",
            "cranberry",
            "blueberry",
            "raspberry",
            "pineapple",
            "avocado",
            "date",
            "nectarine",
            "mulberry",
            "persimmon",
            "quince",
            "damson",
            "blackberry",
            "tangelo",
        ],
    ),
    (
        "sport",
        [
            "boxing",
            "running",
            "football",
            "rowing",
            "golf",
            "sumo",
            "baseball",
            "netball",
            "hockey",
            "archery",
            "polo",
            "cycling",
            "swimming",
            "soccer",
            "softball",
            "darts",
            "fencing",
            "skiing",
            "judo",
            "karate",
            "sailing",
            "squash",
            "fishing",
            "diving",
            "surfing",
            "tennis",
            "bowling",
            "climbing",
            "wrestling",
            "badminton",
        ],
    ),
    (
        "animal",
        [
            "cat", "bear", "cow", "lion", "rabbit", "bull", "monkey", "dog", "mouse", "deer", "hamster", "fox", "wolf",
            "horse", "camel", "pig", "rat", "gorilla", "otter", "panda", "tiger", "sheep", "goat", "donkey",
            "elephant", "koala", "badger", "leopard", "squirrel", "llama",
        ],
    ),
    (
        "body part",
        [
            "neck", "chin", "throat", "hand", "lip", "head", "face", "eye", "foot", "heart", "chest", "skin", "thumb",
            "hair", "lung", "hip", "leg", "back", "mouth", "finger", "brain", "jaw", "ear", "arm", "knee", "elbow",
            "ankle", "wrist", "shoulder", "nose",
        ],
    ),
    (
        "job",
        [
            "driver",
            "chef",
            "actor",
            "doctor",
            "teacher",
            "farmer",
            "baker",
            "butcher",
            "plumber",
            "dentist",
            "waiter",
            "barber",
            "banker",
            "poet",
            "soldier",
            "dancer",
            "artist",
            "author",
            "writer",
            "editor",
            "miner",
            "gardener",
            "tailor",
            "cashier",
            "janitor",
            "nanny",
            "architect",
            "magician",
            "librarian",
            "scientist",
        ],
    ),
    (
        "tool",
        [
            "pliers",
            "axe",
            "brush",
            "clamp",
            "hammer",
            "hoe",
            "saw",
            "shovel",
            "spade",
            "rake",
            "chisel",
            "scissors",
            "ladder",
            "ruler",
            "wrench",
            "screwdriver",
            "file",
            "needle",
            "mallet",
            "anvil",
            "funnel",
            "ladle",
            "sieve",
            "trowel",
            "crowbar",
            "tongs",
            "shears",
            "whisk",
            "grater",
            "pulley",
        ],
    ),
    (
        "home",
        [
            "desk", "shelf", "lamp", "sink", "bed", "clock", "table", "locker", "cradle", "blanket", "stool",
            "bathtub", "armchair", "quilt", "cupboard", "pillow", "sofa", "hammock", "bookcase", "vase", "dresser",
            "crib", "lantern", "cabinet", "rocker", "trunk", "wardrobe", "mattress", "cushion", "footrest",
        ],
    ),
    (
        "vehicle",
        [
            "bus",
            "car",
            "metro",
            "pickup",
            "wagon",
            "tram",
            "truck",
            "tractor",
            "tank",
            "moped",
            "taxi",
            "sedan",
            "minivan",
            "tricycle",
            "subway",
            "scooter",
            "bicycle",
            "ambulance",
            "forklift",
            "trolley",
            "unicycle",
            "rickshaw",
            "hearse",
            "limousine",
            "monorail",
            "bulldozer",
            "excavator",
            "camper",
            "coupe",
            "roadster",
        ],
    ),
];

/// [`VOCABULARY`] as [`draw`] takes it.
pub fn vocabulary() -> Vec<(String, Vec<String>)> {
    VOCABULARY.iter().map(|(k, vs)| (k.to_string(), vs.iter().map(|v| v.to_string()).collect())).collect()
}

/// How the updates of the keys are interleaved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Shuffled, never the same key twice in a row (the paper's main experiments).
    #[default]
    Random,
    /// Each key's updates in one run, the keys one after another (the paper's test5).
    Sequential,
}

impl Order {
    /// `random` or `sequential`.
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Random => "random",
            Order::Sequential => "sequential",
        }
    }
    /// The order of a name ([`Order::as_str`]).
    pub fn parse(s: &str) -> Option<Order> {
        [Order::Random, Order::Sequential].into_iter().find(|o| o.as_str() == s.trim())
    }
}

/// One stream: the keys tracked and the updates in the order shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stream {
    /// The keys, in the order the prompt lists them.
    pub keys: Vec<String>,
    /// (index into `keys`, value), in the order shown.
    pub updates: Vec<(u16, String)>,
}

impl Stream {
    /// Each key's last value: the answer.
    pub fn last_values(&self) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        for (k, v) in &self.updates {
            m.insert(self.keys[*k as usize].clone(), v.clone());
        }
        m
    }
    /// The updates as the prompt writes them: ` bird: emu; sport: judo; ` (one line, a leading space).
    pub fn text(&self) -> String {
        let mut s = String::from(" ");
        for (k, v) in &self.updates {
            s.push_str(&self.keys[*k as usize]);
            s.push_str(": ");
            s.push_str(v);
            s.push_str("; ");
        }
        s
    }
    /// How many times key `k` (an index into `keys`) was updated.
    pub fn updates_of(&self, k: usize) -> usize {
        self.updates.iter().filter(|(i, _)| *i as usize == k).count()
    }
}

fn session_rng(seed: u64, keys: usize, updates: usize, value_len: usize, session: usize) -> Rng {
    let mut key = [0u8; 32];
    key[0..8].copy_from_slice(&seed.to_le_bytes());
    key[8..12].copy_from_slice(&(keys as u32).to_le_bytes());
    key[12..16].copy_from_slice(&(updates as u32).to_le_bytes());
    key[16..20].copy_from_slice(&(value_len as u32).to_le_bytes());
    key[20..28].copy_from_slice(&(session as u64).to_le_bytes());
    key[28..32].copy_from_slice(b"pi01");
    Rng::from_key(key)
}

/// A value of `len` of the category's values run together: as it is for 1, else each without spaces
/// and capitalised (`dark chocolate` + `pie` → `DarkchocolatePie`).
fn value_of(rng: &mut Rng, values: &[String], len: usize) -> String {
    if len == 1 {
        return rng.choose(values).clone();
    }
    rng.sample_from(values, len.min(values.len()))
        .iter()
        .map(|v| {
            let v: String = v.chars().filter(|c| !c.is_whitespace()).collect();
            let mut c = v.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect(),
                None => String::new(),
            }
        })
        .collect()
}

/// The stream of session `session` of a level: `keys` of the `categories` (category, values), `updates`
/// distinct values each, values of `value_len` values run together, in `order`. Deterministic in (seed,
/// keys, updates, value length, session). The caller has checked that there are `keys` categories and,
/// for a value length of 1, `updates` values in each ([`crate::llm::pi::PiConfig::check`]).
#[allow(clippy::too_many_arguments)]
pub fn draw(
    categories: &[(String, Vec<String>)],
    keys: usize,
    updates: usize,
    value_len: usize,
    order: Order,
    seed: u64,
    session: usize,
) -> Stream {
    let mut rng = session_rng(seed, keys, updates, value_len, session);
    let chosen = rng.sample(categories.len(), keys);
    let names: Vec<String> = chosen.iter().map(|&i| categories[i].0.clone()).collect();
    let mut values: Vec<Vec<String>> = Vec::with_capacity(keys);
    for &i in &chosen {
        let pool = &categories[i].1;
        let vs = if value_len == 1 {
            rng.sample_from(pool, updates)
        } else {
            let mut vs: Vec<String> = Vec::with_capacity(updates);
            while vs.len() < updates {
                let v = value_of(&mut rng, pool, value_len);
                if !vs.contains(&v) {
                    vs.push(v);
                }
            }
            vs
        };
        values.push(vs);
    }
    let shown: Vec<u16> = match order {
        Order::Sequential => (0..keys).flat_map(|k| std::iter::repeat_n(k as u16, updates)).collect(),
        Order::Random => no_repeat_order(&mut rng, keys, updates),
    };
    let mut next = vec![0usize; keys];
    let updates = shown
        .into_iter()
        .map(|k| {
            let v = values[k as usize][next[k as usize]].clone();
            next[k as usize] += 1;
            (k, v)
        })
        .collect();
    Stream { keys: names, updates }
}

/// `keys` × `updates` key indices in random order, no key twice in a row: each next update is drawn
/// among the ones left whose key differs from the last; a dead end (only the last key left) starts the
/// draw again, as the authors' `pseudo_randomize` does. One key has no other order than its own run.
fn no_repeat_order(rng: &mut Rng, keys: usize, updates: usize) -> Vec<u16> {
    if keys == 1 {
        return vec![0; updates];
    }
    'again: loop {
        let mut left = vec![updates; keys];
        let mut out: Vec<u16> = Vec::with_capacity(keys * updates);
        let mut last: Option<usize> = None;
        for _ in 0..keys * updates {
            let total: usize = (0..keys).filter(|&k| Some(k) != last).map(|k| left[k]).sum();
            if total == 0 {
                continue 'again;
            }
            let mut pick = rng.index(total);
            let k = (0..keys)
                .filter(|&k| Some(k) != last)
                .find(|&k| {
                    if pick < left[k] {
                        true
                    } else {
                        pick -= left[k];
                        false
                    }
                })
                .expect("pick < total");
            left[k] -= 1;
            out.push(k as u16);
            last = Some(k);
        }
        return out;
    }
}

/// The score of the values given for the keys of `truth` (key → last value): the fraction of keys whose
/// value equals the last one, ignoring case and surrounding spaces; a key not given is wrong. The one
/// scorer of PI-LLM, for a model's reply ([`crate::llm::pi::score_reply`]) and for a person's typed
/// answers alike.
pub fn score_values(truth: &BTreeMap<String, String>, given: &BTreeMap<String, String>) -> f64 {
    if truth.is_empty() {
        return 0.0;
    }
    let right = truth.iter().filter(|(k, v)| given.get(*k).is_some_and(|g| same_value(g, v))).count();
    right as f64 / truth.len() as f64
}

/// Whether a given value is the true one: equal ignoring case and surrounding spaces.
pub fn same_value(given: &str, truth: &str) -> bool {
    given.trim().to_lowercase() == truth.trim().to_lowercase()
}

/// One stream of a person's session: its level and the stream shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PiTrial {
    /// Updates per key.
    pub updates: usize,
    /// The keys and the updates in the order shown.
    pub stream: Stream,
}

impl PiTrial {
    /// The main stream `index` of level `updates` (a practice stream when `practice`) of a session with
    /// this seed: [`draw`] on the people's vocabulary, [`KEYS`] keys, values as they are, random order.
    pub fn new(seed: u64, updates: usize, index: u32, practice: bool) -> PiTrial {
        let session = index as usize + if practice { PRACTICE_STREAM } else { 0 };
        let updates = updates.clamp(1, VOCABULARY[0].1.len());
        let stream = draw(&vocabulary(), KEYS, updates, 1, Order::Random, seed, session);
        PiTrial { updates, stream }
    }

    /// The keys in the order the answer form lists them (the stream's, as the LLM prompt lists them).
    pub fn keys(&self) -> Vec<String> {
        self.stream.keys.clone()
    }

    /// The design cell: `updates`, `keys` and `value_len` in `other`, as an LLM's PI rows have them.
    pub fn conditions(&self) -> Conditions {
        let mut c = Conditions::default();
        c.other.insert("updates".into(), self.updates.to_string());
        c.other.insert("keys".into(), self.stream.keys.len().to_string());
        c.other.insert("value_len".into(), "1".into());
        c
    }

    /// The steps a person sees: each update's frame ([`Phase::Present`], [`UPDATE_MS`]) and a blank after
    /// it ([`Phase::Retention`], [`BLANK_MS`]), then the question ([`Phase::Probe`], a blank frame: the
    /// page shows the answer form).
    pub fn steps(&self) -> Vec<Step> {
        let mut out = Vec::with_capacity(2 * self.stream.updates.len() + 1);
        for (k, v) in &self.stream.updates {
            out.push(Step::show(update_frame(&self.stream.keys[*k as usize], v), Phase::Present));
            out.push(Step::show(Frame::blank(), Phase::Retention));
        }
        out.push(Step::show(Frame::blank(), Phase::Probe));
        out
    }

    /// The typed answers (one [`Answer::Text`] per key, in [`PiTrial::keys`] order) scored by
    /// [`score_values`]: targets the last values, responses the typed ones (trimmed), one `correct` per
    /// key; extras `score_last_values`, `pi_keys` and `stream`.
    pub fn score(&self, answers: &[Answer]) -> Result<ScoredAnswers, ScoreError> {
        let keys = self.keys();
        if answers.len() != keys.len() {
            return Err(ScoreError::TypedCount { answers: answers.len(), keys: keys.len() });
        }
        let truth = self.stream.last_values();
        let mut given = BTreeMap::new();
        let (mut targets, mut responses, mut correct) = (Vec::new(), Vec::new(), Vec::new());
        for (k, a) in keys.iter().zip(answers) {
            let typed = match a {
                Answer::Text(t) => t.trim().to_string(),
                Answer::None => String::new(),
                _ => return Err(ScoreError::TakesText),
            };
            let target = truth.get(k).cloned().unwrap_or_default();
            correct.push(same_value(&typed, &target));
            targets.push(target);
            given.insert(k.clone(), typed.clone());
            responses.push(typed);
        }
        let mut extra = BTreeMap::new();
        extra.insert(SCORE_EXTRA.into(), Setting::Num(score_values(&truth, &given)));
        extra.insert("pi_keys".into(), Setting::Text(keys.join(",")));
        extra.insert("stream".into(), Setting::Text(self.stream.text().trim().to_string()));
        Ok(ScoredAnswers { targets, responses, correct, sdt: None, extra })
    }
}

/// The frame of one update: `key: value` in black on the trial's gray, centred, as large as fits.
pub fn update_frame(key: &str, value: &str) -> Frame {
    let line = format!("{key}: {value}");
    // A character is about 0.55 of the font size wide: keep the line within 88 of the 96 units.
    let size = (88.0 / (0.58 * line.chars().count().max(1) as f32)).clamp(6.0, 14.0);
    Frame::gray(vec![text(48.0, 48.0, size, line, palette::BLACK)])
}

/// What a record keeps of the people's PI design: `pi_keys`, `pi_updates` (a comma list), `pi_value_len`,
/// `pi_sessions` (streams per level, the link's `tpc`) and `pi_order`, named as the LLM suite's.
pub fn settings(streams_per_level: u16) -> Vec<(&'static str, Setting)> {
    let updates: Vec<String> = LEVELS.iter().map(usize::to_string).collect();
    vec![
        ("pi_keys", Setting::Int(KEYS as i64)),
        ("pi_updates", Setting::Text(updates.join(","))),
        ("pi_value_len", Setting::Int(1)),
        ("pi_sessions", Setting::Int(streams_per_level as i64)),
        ("pi_order", Setting::Text(Order::Random.as_str().into())),
    ]
}

/// A row's PI score: its `score_last_values`, else the share of its keys right.
pub fn row_score(row: &TrialRow) -> f64 {
    match row.extra.get(SCORE_EXTRA) {
        Some(Setting::Num(v)) => *v,
        Some(Setting::Int(v)) => *v as f64,
        _ => row.score(),
    }
}

/// Summaries of PI rows as an LLM record has them: metric `last_values` (mean score, its SE, n streams)
/// over every row, and per updates level (`conditions.other.updates`) where there are two levels or more.
pub fn summaries(rows: &[&TrialRow]) -> Vec<Summary> {
    if rows.is_empty() {
        return Vec::new();
    }
    let summary = |conditions: Conditions, vals: &[f64]| {
        let (value, se) = mean_se(vals);
        Summary { task: TASK.into(), conditions, metric: METRIC.into(), n: vals.len() as u32, value, se }
    };
    let all: Vec<f64> = rows.iter().map(|r| row_score(r)).collect();
    let mut out = vec![summary(Conditions::default(), &all)];
    let mut levels: BTreeMap<u64, (String, Vec<f64>)> = BTreeMap::new();
    for r in rows {
        let Some(u) = r.conditions.other.get("updates") else { continue };
        let key = u.parse::<u64>().unwrap_or(u64::MAX);
        levels.entry(key).or_insert_with(|| (u.clone(), Vec::new())).1.push(row_score(r));
    }
    if levels.len() > 1 {
        for (_, (u, vals)) in levels {
            let mut c = Conditions::default();
            c.other.insert("updates".into(), u);
            out.push(summary(c, &vals));
        }
    }
    out
}

/// The x axis of PI-LLM's curves: log10 of the updates per key, as the LLM page draws it (1 → 0, 8 → 0.9,
/// 400 → 2.6), so that a person's few updates and a model's hundreds share one axis.
pub const X_NAME: &str = "log10_updates_per_key";

/// A subject's PI-LLM curve from its rows (main rows of task `pi-llm`, a person's or an LLM's; failed
/// samples, with an `error`, left out): the mean score per level of updates per key, at log10 of it, with
/// n (streams) and a 95 % interval per point; panel `pi-llm`. One curve, label `all`, where every row has
/// the same keys and value length (the note says which); else one per kind, label `keys=K` (and
/// `value_len=V` where not 1).
pub fn curves(rows: &[&TrialRow]) -> Vec<Curve> {
    let other = |r: &TrialRow, k: &str| r.conditions.other.get(k).cloned().unwrap_or_default();
    let kind = |r: &TrialRow| (other(r, "keys"), other(r, "value_len"));
    let mut groups: BTreeMap<(String, String), BTreeMap<u64, Vec<f64>>> = BTreeMap::new();
    for r in rows.iter().filter(|r| !r.extra.contains_key("error")) {
        let Some(u) = r.conditions.other.get("updates").and_then(|u| u.trim().parse::<u64>().ok()) else { continue };
        let v = row_score(r);
        if u == 0 || !v.is_finite() {
            continue;
        }
        groups.entry(kind(r)).or_default().entry(u).or_default().push(v);
    }
    let one = groups.len() == 1;
    groups
        .into_iter()
        .map(|((keys, value_len), levels)| {
            let label = if one {
                "all".to_string()
            } else if value_len == "1" || value_len.is_empty() {
                format!("keys={keys}")
            } else {
                format!("keys={keys},value_len={value_len}")
            };
            let points = levels.iter().map(|(&u, v)| ((u as f64).log10(), v.iter().sum::<f64>() / v.len() as f64));
            let mut note = format!("{keys} keys");
            if !value_len.is_empty() && value_len != "1" {
                note.push_str(&format!(", values of {value_len} run together"));
            }
            note.push_str("; x: log10 of the updates per key (1 → 0, 8 → 0.9, 400 → 2.6)");
            Curve {
                panel: TASK.into(),
                label,
                x_name: X_NAME.into(),
                points: points.collect(),
                note: Some(note),
                n: levels.values().map(|v| v.len() as u32).collect(),
                ci: levels.values().map(|v| point_interval(v, false)).collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
