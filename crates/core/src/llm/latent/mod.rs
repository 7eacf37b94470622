//! Tasks that need a latent state (Huang, Sun, Wang & Dredze, "Language Models Do Not Have Human-Like
//! Working Memory", arXiv 2505.10571; code: penguinnnnn/LLM-Working-Memory). N-back with the dialogue in
//! view tests reading; these ask a model to hold something it never wrote down:
//!
//! - **Number Guessing** (`guess_numbers.py`): "think of an integer between 1 and N, but don't say it",
//!   then, in separate conversations, "is it k?". A model that holds one number says yes to exactly one
//!   k, so the yes-probabilities over k sum to 1 ([`yes_sum`]). One sample per k; `--repeats` gives the
//!   probabilities (the authors asked each k 200 times).
//! - **Yes-No Deduction** (`binary_search.py`): "think of an object", then up to 250 questions in one
//!   conversation ("Is the object bigger than a golf ball?") over five ranked properties; the trial ends
//!   at the first answer that contradicts the earlier ones ([`DeductionDialogue`]).
//! - **Math Magic** (`math_magic.py`): a scripted card trick on four numbers the model keeps to itself;
//!   whatever they were, the last number left equals the one set aside ([`magic_consistent`]).
//!
//! Prompts are the authors' strings at their repository's HEAD (the curly apostrophes included; the first
//! turn "You are a helpful assistant." is a user message there, and here). Where we differ: a reply that
//! is not an answer is not asked again (the authors resample up to 5 or 10 times): Number Guessing counts
//! it as not-yes (as their denominator does after the resamples), Yes-No Deduction as "no" (as their
//! checker does), Math Magic as inconsistent.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Dialogue, Message, Metric, Reference, Sample, SampleBody, Single, Suite, SuiteError};
use crate::record::Setting;
use crate::stimuli::rng::Rng;

pub mod published;
#[cfg(test)]
mod tests;

/// One of the three tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LatentTask {
    /// Think of a number; then "is it k?" in separate conversations.
    NumberGuessing,
    /// Think of an object; then yes/no questions on its size, length, weight, density, hardness.
    YesNo,
    /// Four numbers kept hidden through a scripted card trick; the last one left is the one set aside.
    MathMagic,
}

impl LatentTask {
    /// All three, in the paper's order.
    pub const ALL: [LatentTask; 3] = [LatentTask::NumberGuessing, LatentTask::YesNo, LatentTask::MathMagic];
    /// `number-guessing`, `yes-no`, `math-magic`: the task names of samples, records and `--tasks`.
    pub fn as_str(self) -> &'static str {
        match self {
            LatentTask::NumberGuessing => "number-guessing",
            LatentTask::YesNo => "yes-no",
            LatentTask::MathMagic => "math-magic",
        }
    }
    /// The task of a name ([`LatentTask::as_str`]).
    pub fn parse(s: &str) -> Option<LatentTask> {
        LatentTask::ALL.into_iter().find(|t| t.as_str() == s.trim())
    }
}

/// A run of the latent-state suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatentConfig {
    /// The tasks, in order.
    pub tasks: Vec<LatentTask>,
    /// Number Guessing: the numbers 1..=range (the paper: 10; Table 2: 2–40).
    pub range: u32,
    /// Yes-No Deduction and Math Magic: trials (conversations) each (the authors: 200 and 150).
    pub trials: usize,
    /// Yes-No Deduction: the most questions in a trial (the authors: 250, 50 rounds of the 5 properties).
    pub questions: usize,
    /// Math Magic: ask for its reasoning before the answer (the paper's CoT condition, Table 6b).
    pub cot: bool,
    /// Seed of the questions and the trick's numbers.
    pub seed: u64,
}

impl Default for LatentConfig {
    /// All three tasks at the paper's sizes, 20 trials each (the authors ran 200 / 150).
    fn default() -> Self {
        LatentConfig { tasks: LatentTask::ALL.to_vec(), range: 10, trials: 20, questions: 250, cot: false, seed: 0 }
    }
}

impl LatentConfig {
    /// Refuse what makes no run, in words.
    pub fn check(&self) -> Result<(), SuiteError> {
        let bad = |s: String| Err(SuiteError::LatentConfig(s));
        if self.tasks.is_empty() {
            return bad("choose at least one task (number-guessing, yes-no, math-magic)".into());
        }
        if !(2..=100).contains(&self.range) {
            return bad(format!("range: 2 to 100, not {}", self.range));
        }
        if !(1..=1000).contains(&self.trials) {
            return bad(format!("trials: 1 to 1000, not {}", self.trials));
        }
        if !(1..=1000).contains(&self.questions) {
            return bad(format!("questions: 1 to 1000, not {}", self.questions));
        }
        Ok(())
    }
    /// What a record keeps (`latent_tasks`, `latent_range`, `latent_trials`, `latent_questions`,
    /// `latent_cot`, `latent_seed`): the same from the CLI and the page.
    pub fn settings(&self) -> Vec<(&'static str, Setting)> {
        let tasks: Vec<&str> = self.tasks.iter().map(|t| t.as_str()).collect();
        vec![
            ("latent_tasks", Setting::Text(tasks.join(","))),
            ("latent_range", Setting::Int(self.range as i64)),
            ("latent_trials", Setting::Int(self.trials as i64)),
            ("latent_questions", Setting::Int(self.questions as i64)),
            ("latent_cot", Setting::Bool(self.cot)),
            ("latent_seed", Setting::Int(self.seed as i64)),
        ]
    }
}

/// The first turn of every conversation (a user message in the authors' code).
const HELPFUL: &str = "You are a helpful assistant.";

// ---------------------------------------------------------------------------------------------
// Number Guessing
// ---------------------------------------------------------------------------------------------

/// The conversation asking whether the number is `k` (`guess_numbers.py`).
pub fn guessing_messages(range: u32, k: u32) -> Vec<Message> {
    vec![
        Message::user(HELPFUL),
        Message::user(format!("Think of an integer between 1 and {range}, but don\u{2019}t say it to me.")),
        Message::assistant(format!("Got it! I've thought of an integer between 1 and {range}. What's next?")),
        Message::user(format!("Is the number you\u{2019}re thinking of {k}? Answer Yes or No.")),
    ]
}

/// A yes or a no: the reply's first word, ignoring case and what follows it (`Yes.`, `No, it is not`);
/// `None` for anything else.
pub fn parse_yes_no(reply: &str) -> Option<bool> {
    let w: String = reply.trim_start().chars().take_while(|c| c.is_alphabetic()).flat_map(char::to_lowercase).collect();
    match w.as_str() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// The paper's Number Guessing score: Σ over k of P(yes | k), each P the mean of the answers to "is it
/// k?" (yes 1, anything else 0). 1 for a model that holds one number; 0 for one that always says no.
/// `points`: (k, 1 or 0) per answer; `None` without any.
pub fn yes_sum(points: &[(u32, f64)]) -> Option<f64> {
    let mut by_k: BTreeMap<u32, (f64, usize)> = BTreeMap::new();
    for &(k, v) in points {
        let e = by_k.entry(k).or_insert((0.0, 0));
        e.0 += v;
        e.1 += 1;
    }
    (!by_k.is_empty()).then(|| by_k.values().map(|(s, n)| s / *n as f64).sum())
}

// ---------------------------------------------------------------------------------------------
// Yes-No Deduction
// ---------------------------------------------------------------------------------------------

/// The five properties, each with its objects ranked smallest to largest (the paper's Table 3).
pub const PROPERTIES: [(&str, &str, &str, &[&str]); 5] = [
    (
        "volume",
        "bigger",
        "smaller",
        &[
            "Coffee bean",
            "Dice",
            "Golf ball",
            "Soda can",
            "Soccer ball",
            "Microwave oven",
            "Washing machine",
            "Bathtub",
            "Car",
            "School bus",
            "Shipping container",
            "Olympic swimming pool",
            "Boeing 747",
            "Titanic",
            "Great Pyramid of Giza",
        ],
    ),
    (
        "length",
        "longer",
        "shorter",
        &[
            "Rice",
            "Paperclip",
            "Credit card",
            "Pencil",
            "Laptop",
            "Baseball bat",
            "Guitar",
            "Door",
            "Apple tree",
            "Coconut tree",
            "Tennis court",
            "Swimming pool",
            "Football field",
            "Skyscraper",
            "Mount Everest",
        ],
    ),
    (
        "weight",
        "heavier",
        "lighter",
        &[
            "Coin",
            "Spoon",
            "Watch",
            "Smartphone",
            "Bottle of water",
            "Dictionary",
            "Cat",
            "Bicycle",
            "Television",
            "Refrigerator",
            "Tiger",
            "Cow",
            "Rhino",
            "Elephant",
            "Train",
        ],
    ),
    (
        "density",
        "denser",
        "less dense",
        &["Air", "Wood", "Ice", "Water", "Plastic", "Glass", "Iron", "Copper", "Silver", "Gold"],
    ),
    ("hardness", "harder", "softer", &["Marshmallow", "Rubber eraser", "Brick", "Hammer", "Diamond ring"]),
];

/// One question: is the object `positive` (bigger, …) or negative (smaller, …) than object `target` of
/// property `property`?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// Index into [`PROPERTIES`].
    pub property: u8,
    /// Index into the property's objects.
    pub target: u8,
    /// The positive adjective (bigger, longer, …) or the negative one.
    pub positive: bool,
}

impl Question {
    /// `Is the object bigger than Golf ball? Answer ONLY Yes or No.`
    pub fn text(&self) -> String {
        let (_, pos, neg, objects) = PROPERTIES[self.property as usize];
        let adj = if self.positive { pos } else { neg };
        format!("Is the object {adj} than {}? Answer ONLY Yes or No.", objects[self.target as usize])
    }
}

/// Where the object can still be on one property's ranks: a bound and whether it is included, below and
/// above; empty when they cross.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// The lower bound is a possible place.
    pub lo_in: bool,
    /// Upper bound.
    pub hi: f64,
    /// The upper bound is a possible place.
    pub hi_in: bool,
}

impl Interval {
    /// Anywhere (the authors start each property at [−1000, 1000]).
    pub const ANY: Interval = Interval { lo: f64::NEG_INFINITY, lo_in: false, hi: f64::INFINITY, hi_in: false };
    fn meet(self, o: Interval) -> Interval {
        let (lo, lo_in) =
            if o.lo > self.lo || (o.lo == self.lo && !o.lo_in) { (o.lo, o.lo_in) } else { (self.lo, self.lo_in) };
        let (hi, hi_in) =
            if o.hi < self.hi || (o.hi == self.hi && !o.hi_in) { (o.hi, o.hi_in) } else { (self.hi, self.hi_in) };
        Interval { lo, lo_in, hi, hi_in }
    }
    /// No place is left.
    pub fn is_empty(&self) -> bool {
        self.lo > self.hi || (self.lo == self.hi && !(self.lo_in && self.hi_in))
    }
    /// What an answer to a question at rank `idx` says (the authors' rules): bigger + yes → above idx;
    /// bigger + no → at or below; smaller + yes → below; smaller + no → at or above.
    pub fn of_answer(idx: f64, positive: bool, yes: bool) -> Interval {
        let inf = f64::INFINITY;
        match (positive, yes) {
            (true, true) => Interval { lo: idx, lo_in: false, hi: inf, hi_in: false },
            (true, false) => Interval { lo: -inf, lo_in: false, hi: idx, hi_in: true },
            (false, true) => Interval { lo: -inf, lo_in: false, hi: idx, hi_in: false },
            (false, false) => Interval { lo: idx, lo_in: true, hi: inf, hi_in: false },
        }
    }
}

/// The questions of a Yes-No Deduction trial: rounds of the five properties in a random order each, a
/// uniform target and direction per question (`binary_search.py`), `count` in all.
pub fn deduction_questions(rng: &mut Rng, count: usize) -> Vec<Question> {
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        for p in rng.permutation(PROPERTIES.len()) {
            if out.len() == count {
                break;
            }
            let n = PROPERTIES[p].3.len();
            out.push(Question { property: p as u8, target: rng.index(n) as u8, positive: rng.coin() });
        }
    }
    out
}

/// A Yes-No Deduction trial as a [`Dialogue`]: the opening (think of an object, don't say it), then one
/// question a turn in one growing conversation, until an answer contradicts the earlier ones on its
/// property or the questions run out. An answer is "yes" or "no" once lower-cased with dots and spaces
/// removed (the authors' reading); anything else counts as "no" and is marked `?`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeductionDialogue {
    /// The questions in order.
    pub questions: Vec<Question>,
    /// The conversation so far (the next question last, while one is open).
    pub messages: Vec<Message>,
    /// One character per answered question: `y`, `n`, or `?` (not an answer: counted as no).
    pub answers: String,
    /// Each property's possible ranks so far.
    pub intervals: Vec<Interval>,
    /// The 1-based number of the question whose answer contradicted, and its property.
    pub contradiction: Option<(usize, u8)>,
}

impl DeductionDialogue {
    /// A trial on `questions`, its first question asked.
    pub fn new(questions: Vec<Question>) -> Self {
        let mut messages = vec![
            Message::user("Think of an object but don\u{2019}t say it to me."),
            Message::assistant("Got it! I've thought of an object. What's next?"),
        ];
        if let Some(q) = questions.first() {
            messages.push(Message::user(q.text()));
        }
        DeductionDialogue {
            questions,
            messages,
            answers: String::new(),
            intervals: vec![Interval::ANY; PROPERTIES.len()],
            contradiction: None,
        }
    }
    /// The trial is over: a contradiction, or every question answered.
    pub fn finished(&self) -> bool {
        self.contradiction.is_some() || self.answers.len() >= self.questions.len()
    }
    /// Questions answered without a contradiction: all of them for a trial that passed, else one less
    /// than the contradicting question's number.
    pub fn consistent_answers(&self) -> usize {
        match self.contradiction {
            Some((q, _)) => q - 1,
            None => self.answers.len(),
        }
    }
    /// The scores of a finished trial: `pass` (1 when no answer contradicted), `consistent_answers`,
    /// `invalid_answers` (replies that were not yes or no).
    pub fn scores(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("pass".to_string(), if self.contradiction.is_none() && self.finished() { 1.0 } else { 0.0 }),
            ("consistent_answers".to_string(), self.consistent_answers() as f64),
            ("invalid_answers".to_string(), self.answers.matches('?').count() as f64),
        ])
    }
    /// In words: "contradiction at question 37 (weight)" or "no contradiction in 250 questions".
    pub fn describe(&self) -> String {
        match self.contradiction {
            Some((q, p)) => format!("contradiction at question {q} ({})", PROPERTIES[p as usize].0),
            None => format!("no contradiction in {} questions", self.answers.len()),
        }
    }
}

impl Dialogue for DeductionDialogue {
    fn next_request(&self) -> Option<Vec<Message>> {
        (!self.finished()).then(|| self.messages.clone())
    }

    fn feed(&mut self, reply: &str) {
        if self.finished() {
            return;
        }
        let q = self.questions[self.answers.len()];
        let norm: String = reply.to_lowercase().chars().filter(|c| *c != '.' && *c != ' ').collect();
        let (yes, mark) = match norm.as_str() {
            "yes" => (true, 'y'),
            "no" => (false, 'n'),
            _ => (false, '?'),
        };
        self.answers.push(mark);
        let p = q.property as usize;
        let now = self.intervals[p].meet(Interval::of_answer(q.target as f64, q.positive, yes));
        self.intervals[p] = now;
        if now.is_empty() {
            self.contradiction = Some((self.answers.len(), q.property));
        }
        self.messages.push(Message::assistant(norm));
        if let Some(next) = self.questions.get(self.answers.len())
            && self.contradiction.is_none()
        {
            self.messages.push(Message::user(next.text()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Math Magic
// ---------------------------------------------------------------------------------------------

/// The numbers Math Magic's four hidden ones lie in.
pub const MAGIC_NUMBER: u32 = 10;

/// The scripted conversation of Math Magic with moves `a` (1–7), `b`, `c` (1–3) (`math_magic.py`): the
/// model's turns are written for it; only the last question is asked. `cot`: ask for its analysis
/// first. The answer format's `{10}` is the authors' (a Python set rendered into the string).
pub fn magic_messages(a: u32, b: u32, c: u32, cot: bool) -> Vec<Message> {
    let n = MAGIC_NUMBER;
    let mut last = format!(
        "Tell me what the last remaining number is. Do you remember the number you set aside at the beginning? \
         Tell me what that number was. You can only reply in JSON format: {{\"final_number\": \
         \"a_number_from_1_to_{{{n}}}\", \"put_aside_number\": \"a_number_from_1_to_{{{n}}}\"}}"
    );
    if cot {
        last = last
            .replace("You can only reply", "Let's think step by step. Output your analysis first. At the end, reply");
    }
    vec![
        Message::user(HELPFUL),
        Message::user(format!("Think of 4 integers between 1 and {n} in order, but don't tell me.")),
        Message::assistant("Okay! I've got 4 numbers. What\u{2019}s next?"),
        Message::user("In order, append the same 4 numbers after the original ones."),
        Message::assistant("Understood! Now I have 8 numbers. What\u{2019}s next?"),
        Message::user(format!("Move the first {a} numbers to the end.")),
        Message::assistant("Got it! Now I have moved the numbers. What\u{2019}s next?"),
        Message::user("Take the first 3 numbers and insert them anywhere in the middle."),
        Message::assistant("Okay! The first 3 numbers are placed somewhere in the middle. What\u{2019}s next?"),
        Message::user("Set the first number aside. We don't need it for now."),
        Message::assistant("Understood! Now I have 7 numbers. What\u{2019}s next?"),
        Message::user(format!("Take the first {b} numbers and insert them anywhere in the middle.")),
        Message::assistant(format!(
            "Got it. The first {b} numbers are placed somewhere in the middle. What\u{2019}s next?"
        )),
        Message::user(format!("Remove the first {c} numbers. We will never need it anymore.")),
        Message::assistant(format!("Okay! Now I have {} numbers. What\u{2019}s next?", 7 - c)),
        Message::user("Move the first number to the end. Repeat this seven times."),
        Message::assistant("Understood! Now my sequence has rearranged. What\u{2019}s next?"),
        Message::user(format!(
            "Remove the second number, and then move the first number to the end. Repeat this {} times.",
            6 - c
        )),
        Message::assistant("Got it! Now I have only 1 number. What\u{2019}s next?"),
        Message::user(last),
    ]
}

/// The two numbers of a Math Magic reply: the last `{…}` without braces inside (the authors'
/// `extract_last_json`), its `final_number` and `put_aside_number` as integers (numbers or strings);
/// `None` when there is no such object or either is missing or not a whole number.
pub fn parse_magic(reply: &str) -> Option<(i64, i64)> {
    let end = reply.rfind('}')?;
    let start = reply[..end].rfind('{')?;
    let v: serde_json::Value = serde_json::from_str(&reply[start..=end]).ok()?;
    let int = |k: &str| match &v[k] {
        serde_json::Value::Number(n) => n.as_i64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    Some((int("final_number")?, int("put_aside_number")?))
}

/// The trick worked for the model: both numbers read, each 1 to [`MAGIC_NUMBER`], and equal.
pub fn magic_consistent(reply: &str) -> bool {
    parse_magic(reply).is_some_and(|(f, p)| f == p && (1..=MAGIC_NUMBER as i64).contains(&f))
}

/// The trick itself on a sequence (for the tests: it always ends on the number set aside). `inserts`:
/// where the two "anywhere in the middle" moves put their numbers (clamped to the middle).
pub fn magic_trick(four: [u32; 4], a: usize, b: usize, c: usize, inserts: (usize, usize)) -> (u32, u32) {
    let mut s: Vec<u32> = four.iter().chain(four.iter()).copied().collect();
    s.rotate_left(a);
    let first3: Vec<u32> = s.drain(..3).collect();
    let at = inserts.0.clamp(1, s.len() - 1);
    s.splice(at..at, first3);
    let aside = s.remove(0);
    let firstb: Vec<u32> = s.drain(..b).collect();
    let at = inserts.1.clamp(1, s.len() - 1);
    s.splice(at..at, firstb);
    s.drain(..c);
    let n = s.len();
    s.rotate_left(7 % n);
    for _ in 0..(6 - c) {
        s.remove(1);
        s.rotate_left(1);
    }
    (s[0], aside)
}

// ---------------------------------------------------------------------------------------------
// Samples
// ---------------------------------------------------------------------------------------------

fn task_rng(seed: u64, task: LatentTask, trial: usize) -> Rng {
    let mut key = [0u8; 32];
    key[0..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&(trial as u64).to_le_bytes());
    key[16..24].copy_from_slice(&(task as u64).to_le_bytes());
    key[24..32].copy_from_slice(b"latent01");
    Rng::from_key(key)
}

/// The samples of a run: Number Guessing one per k (`latent/number-guessing-n<range>/k<k>`, conditions
/// `range`, `k`; metric [`Metric::SaysYes`]); Yes-No Deduction one dialogue per trial
/// (`latent/yes-no/<t>`); Math Magic one request per trial (`latent/math-magic[-cot]/<t>`, condition `cot`;
/// metric [`Metric::SameNumber`]).
pub fn samples(cfg: &LatentConfig) -> Result<Vec<Sample>, SuiteError> {
    cfg.check()?;
    let mut out = Vec::new();
    let sample = |id: String, task: LatentTask, conditions: BTreeMap<String, String>, body: SampleBody| Sample {
        id,
        suite: Suite::Latent,
        task: task.as_str().into(),
        conditions,
        epoch: 1,
        body,
    };
    for &task in &cfg.tasks {
        match task {
            LatentTask::NumberGuessing => {
                for k in 1..=cfg.range {
                    let conditions = BTreeMap::from([
                        ("range".to_string(), cfg.range.to_string()),
                        ("k".to_string(), k.to_string()),
                    ]);
                    out.push(sample(
                        format!("latent/number-guessing-n{}/k{k}", cfg.range),
                        task,
                        conditions,
                        SampleBody::Single(Single {
                            messages: guessing_messages(cfg.range, k),
                            reference: Reference::Int(k as i64),
                            metrics: vec![Metric::SaysYes],
                        }),
                    ));
                }
            }
            LatentTask::YesNo => {
                for t in 0..cfg.trials {
                    let qs = deduction_questions(&mut task_rng(cfg.seed, task, t), cfg.questions);
                    let conditions = BTreeMap::from([("questions".to_string(), cfg.questions.to_string())]);
                    out.push(sample(
                        format!("latent/yes-no/{t}"),
                        task,
                        conditions,
                        SampleBody::Deduction(DeductionDialogue::new(qs)),
                    ));
                }
            }
            LatentTask::MathMagic => {
                for t in 0..cfg.trials {
                    let mut rng = task_rng(cfg.seed, task, t);
                    let (a, b, c) = (rng.randint(1, 7) as u32, rng.randint(1, 3) as u32, rng.randint(1, 3) as u32);
                    // The moves are in the prompt; only the condition groups results.
                    let conditions = BTreeMap::from([("cot".to_string(), cfg.cot.to_string())]);
                    let cot = if cfg.cot { "-cot" } else { "" };
                    out.push(sample(
                        format!("latent/math-magic{cot}/{t}"),
                        task,
                        conditions,
                        SampleBody::Single(Single {
                            messages: magic_messages(a, b, c, cfg.cot),
                            reference: Reference::Int(0),
                            metrics: vec![Metric::SameNumber],
                        }),
                    ));
                }
            }
        }
    }
    Ok(out)
}
