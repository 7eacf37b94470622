//! The text suites for language models (N-back, the Little Retrieval Test, Minerva): generators, prompts,
//! answer extraction and metrics. Pure: the word list, block files and snapshot are passed in or
//! embedded; nothing here does IO. The HTTP runner lives outside the core.
//!
//! Two shapes of work:
//! - a [`Sample`] with [`SampleBody::Single`]: one request (messages), one reply, scored by metrics;
//! - a [`Sample`] with [`SampleBody::Dialogue`]: a multi-turn protocol (N-back) driven through the
//!   [`Dialogue`] state machine: `next_request` gives the full conversation to send, `feed` records the
//!   model's reply. Replaying the saved replies rebuilds the state exactly, which is how a run resumes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Why a suite's settings are refused: a list a person typed, a configuration that makes no run, a
/// damaged tokenizer file. Each message says what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SuiteError {
    /// An item of a comma list of whole numbers (Minerva's context lengths or step counts) is not a whole
    /// number of at least `least`.
    #[error("{what}: \"{item}\" is not a whole number of {least} or more (give one, or a comma list)")]
    NotWhole {
        /// The field the list was typed into, as the message names it (`--context-tokens`, `--steps`).
        what: String,
        /// The offending item, as typed.
        item: String,
        /// The smallest number the field allows.
        least: usize,
    },
    /// An item of Minerva's prompt-wording list is not 1 (the standard prompt) or 2 (the second
    /// wording); holds the item.
    #[error("Prompt wordings: \"{0}\" is not 1 or 2 (give 1, 2 or 1,2)")]
    Variant(String),
    /// The Little Retrieval Test's insertion rule is neither `uniform` nor `reference`; holds the name
    /// given.
    #[error("insertion {0:?}: uniform (the paper's intent) or reference (the published code)")]
    Insertion(String),
    /// The Little Retrieval Test's block sizes are not whole numbers of 1 or more, nor `none`; holds the
    /// whole list as typed.
    #[error("\"{0}\": give block sizes of 1 or more (1 = a full shuffle), e.g. 1, 10, 250; or none")]
    BlockSizes(String),
    /// A line of the `cl100k_base.tiktoken` ranks text is not `<base64 token> <rank>`; holds its 1-based
    /// line number.
    #[error("the token ranks file is damaged at line {0}")]
    RanksLine(usize),
    /// The ranks text holds too few ranks (under 100,000) to be cl100k_base; holds the count read.
    #[error("the token ranks file holds {0} ranks, not cl100k_base's 100,256")]
    RanksCount(usize),
    /// The tokenizer could not be built from the ranks; holds `tiktoken_rs`'s message.
    #[error("the token ranks: {0}")]
    Ranks(String),
    /// The N-back protocol is not defined for the block set ([`nback::Protocol::supports`]: README
    /// protocol with letters only, abstraction grids with the base protocol only).
    #[error("protocol {protocol} is not defined for {variant}")]
    Protocol {
        /// The protocol asked for, as [`nback::Protocol::as_str`] names it.
        protocol: &'static str,
        /// The block set asked for, as [`nback::Variant::as_str`] names it.
        variant: &'static str,
    },
    /// An N-back level of 0 was asked for (also what an N-back staircase that cannot start reports).
    #[error("N must be at least 1")]
    NZero,
    /// An N-back block's stimuli and its `m` / `-` condition string differ in length.
    #[error("stimuli and conditions differ in length")]
    BlockLengths,
    /// A new N-back block could not be generated ([`nback::generate_block`]: e.g. more matches than
    /// fit in the trials).
    #[error(transparent)]
    Block(#[from] nback::BlockError),
    /// An N other than 1, 2 or 3 with the published N-back blocks (no files exist for it); holds the N.
    #[error("no published blocks for N = {0} (only 1, 2, 3)")]
    NotPublished(u8),
    /// A name in the visual suite's task list is neither a WorM task id nor an N-back; holds the name.
    #[error("`{0}` is not a task of the visual suite (WorM task ids such as VSR or CD-Color, or nback-spatial)")]
    NotVisual(String),
    /// The letter N-back was asked of the visual suite; it runs in the N-back text suite.
    #[error("nback-verbal is letters, not pictures: run it in the N-back text suite")]
    VerbalNback,
    /// LSR was asked of the visual suite: its stimuli are words, so a model would see empty frames.
    #[error("{}", vision::LSR_NOT_VISUAL)]
    LsrNotVisual,
    /// The visual suite's task list is empty.
    #[error("choose at least one task")]
    NoTask,
    /// A task of an adaptive visual run has no level a staircase can move; holds the task's name.
    #[error(
        "{0} has no level a staircase can move: an adaptive run takes the change-detection tasks (set size), VSR / VSRec (list length) and nback-spatial (N)"
    )]
    NotAdaptive(String),
    /// Trials per task (blocks per N for the N-back) outside 1–1000 in the visual suite.
    #[error("trials per task must be 1–1000, not {0}")]
    Trials(u32),
    /// An image side outside [`vision::MIN_SIZE`]–[`vision::MAX_SIZE`] px.
    #[error("image size must be {min}–{max} px, not {0}", min = vision::MIN_SIZE, max = vision::MAX_SIZE)]
    Size(u32),
    /// A character-grid width that is not one of [`vision::TEXT_COLS`] (widths dividing the 96-px frame).
    #[error("text grid width must be one of {cols:?} characters, not {0}", cols = vision::TEXT_COLS)]
    TextCols(u32),
    /// The visual suite runs the spatial N-back but no N was given.
    #[error("choose at least one N-back level")]
    NoLevel,
    /// A visual-suite N-back level outside 1–5; holds it.
    #[error("N-back levels are 1–5, not {0}")]
    Level(u8),
    /// PI-LLM's vocabulary is not a JSON object of categories, each with its values; holds why.
    #[error("the PI-LLM vocabulary: {0}")]
    PiVocabulary(String),
    /// Data a run needs was not read, or does not read ([`run::LlmRun::needs`]); holds which and why.
    #[error("{0}")]
    Data(String),
    /// Repeats outside 1 to [`MAX_REPEATS`]; holds the number asked for.
    #[error("repeats: 1 to {max} (1 asks each item once), not {0}", max = MAX_REPEATS)]
    Repeats(u32),
    /// Repeats of the visual suite, whose items are trials: it takes more trials instead.
    #[error("repeats: the visual suite takes more trials instead (trials per task); ask each item once")]
    VisionRepeats,
    /// A setting of the latent-state suite that makes no run; holds what is allowed.
    #[error("latent-state suite: {0}")]
    LatentConfig(String),
    /// A PI-LLM setting that makes no run or cannot be drawn; holds what is allowed.
    #[error("PI-LLM {0}")]
    PiConfig(String),
}

crate::message_into_string!(SuiteError);

pub mod charts;
pub mod latent;
pub mod lrt;
pub mod metrics;
pub mod minerva;
pub mod nback;
pub mod outcome;
pub mod pi;
pub mod reasoning;
pub mod record;
pub mod run;
pub mod score;
pub mod snapshot;
pub mod vision;

/// Who speaks a [`Message`]; serialized in lower case, as chat APIs name the roles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions before the conversation (an N-back system prompt, Minerva's runner message, the
    /// visual suite's task instructions).
    System,
    /// The tester: the prompt, each trial's stimulus or question, retry messages.
    User,
    /// The model: its earlier replies, or answers pre-filled for it (N-back README protocol).
    Assistant,
}

/// One chat message: who speaks, the text and any images; a conversation is a `Vec<Message>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks it.
    pub role: Role,
    /// The text of the message (prompt, stimulus, question or reply).
    pub content: String,
    /// Images shown after the text (the visual suite's frames); each provider writes them as its own
    /// image parts. Empty for the text suites, and then absent from the JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImagePart>,
}

/// A PNG attached to a message: base64 of its bytes, with its size for people reading a log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImagePart {
    /// `image/png`.
    pub media_type: String,
    /// Standard base64 (with padding) of the file; empty in a log that keeps prompts without images.
    pub data: String,
    /// Width of the PNG in pixels.
    pub width: u32,
    /// Height of the PNG in pixels.
    pub height: u32,
}

impl ImagePart {
    /// An image part from a PNG file's bytes (base64-encoded here) and its size in pixels.
    pub fn png(bytes: &[u8], width: u32, height: u32) -> Self {
        use base64::Engine;
        ImagePart {
            media_type: "image/png".into(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            width,
            height,
        }
    }
    /// `data:image/png;base64,…` (OpenAI-compatible `image_url`).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.data)
    }
}

impl Message {
    /// A system message (instructions), text only.
    pub fn system(s: impl Into<String>) -> Self {
        Message { role: Role::System, content: s.into(), images: Vec::new() }
    }
    /// A user turn (the tester's prompt, stimulus or question), text only.
    pub fn user(s: impl Into<String>) -> Self {
        Message { role: Role::User, content: s.into(), images: Vec::new() }
    }
    /// An assistant turn: a reply of the model (or an answer pre-filled for it) kept in the history.
    pub fn assistant(s: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: s.into(), images: Vec::new() }
    }
    /// A user turn with images after its text.
    pub fn user_with_images(s: impl Into<String>, images: Vec<ImagePart>) -> Self {
        Message { role: Role::User, content: s.into(), images }
    }
    /// The message with each image's data dropped (size and type kept): what a log keeps of a prompt.
    pub fn without_image_data(&self) -> Message {
        let mut m = self.clone();
        for i in &mut m.images {
            i.data.clear();
        }
        m
    }
}

/// The suite a sample belongs to; serialized in lower case (`nback`, `lrt`, `minerva`, `vision`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Suite {
    /// N-back for language models (Gong et al.): blocks as multi-turn dialogues, [`nback`].
    Nback,
    /// The Little Retrieval Test: find one register line's value in a long file, [`lrt`].
    Lrt,
    /// Minerva's memory tests: the generator ([`minerva`]) or the published snapshot ([`snapshot`]).
    Minerva,
    /// The WorM tasks and the spatial N-back as frames (images or character grids), [`vision`].
    Vision,
    /// PI-LLM: key–value updates, then each key's last value (Wang & Sun), [`pi`].
    Pi,
    /// Tasks that need a latent state (Huang et al.): Number Guessing, Yes-No Deduction, Math Magic,
    /// [`latent`].
    Latent,
}

/// The sampling parameters a suite's paper sent (`None` = not sent: the API's default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperSampling {
    /// Sampling temperature; `None`: not sent.
    pub temperature: Option<f64>,
    /// Cap on the reply's length in tokens; `None`: no cap sent.
    pub max_tokens: Option<u32>,
    /// Nucleus-sampling top-p; `None`: not sent.
    pub top_p: Option<f64>,
    /// Where the values come from, for people.
    pub source: &'static str,
}

impl Suite {
    /// How each paper's runner sampled (`shared/spec/reference-implementations.md` §2.1, §3.1, §4.4):
    /// N-back sent no temperature (GPT-3.5 at the API's default, 1.0 for OpenAI) and no length cap;
    /// the Little Retrieval Test temperature 0 and 10 tokens (`max_tokens_to_sample=10`); Minerva
    /// temperature 0, top-p 1 and 4,096 tokens (`inference.py`: snapshot, replace and overwrite answers
    /// run to thousands of tokens).
    pub fn paper_sampling(self) -> PaperSampling {
        match self {
            Suite::Nback => PaperSampling {
                temperature: None,
                max_tokens: None,
                top_p: None,
                source: "N-back (Gong et al.): GPT-3.5 at the API's default temperature (1.0 for OpenAI), no length cap",
            },
            Suite::Lrt => PaperSampling {
                temperature: Some(0.0),
                max_tokens: Some(10),
                top_p: None,
                source: "Little Retrieval Test: temperature 0, 10 tokens",
            },
            Suite::Minerva => PaperSampling {
                temperature: Some(0.0),
                max_tokens: Some(4096),
                top_p: Some(1.0),
                source: "Minerva (inference.py): temperature 0, top-p 1, 4,096 tokens",
            },
            Suite::Pi => PaperSampling {
                temperature: Some(0.0),
                max_tokens: Some(1024),
                top_p: None,
                source: "PI-LLM (the authors' configs): temperature 0, 1,024 tokens",
            },
            Suite::Latent => PaperSampling {
                temperature: Some(1.0),
                max_tokens: Some(4096),
                top_p: Some(1.0),
                source: "latent-state tasks (Huang et al., utils.py): temperature 1, top-p 1, 4,096 tokens",
            },
            Suite::Vision => PaperSampling {
                temperature: Some(0.0),
                max_tokens: Some(vision::MAX_TOKENS),
                top_p: None,
                source: "visual suite (no paper of its own): temperature 0, short answers",
            },
        }
    }
}

/// The reference answer of a single-request sample: text, or a list (set metrics, Minerva lists), or
/// per-agent lists (theory of mind).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reference {
    /// A string: the answer text (Minerva), or a `", "`-joined list or integer where a metric reads one.
    Text(String),
    /// An integer, such as the Little Retrieval Test's register value.
    Int(i64),
    /// A list of strings (set_state's items, Minerva lists); formatted `", "`-joined for text metrics.
    List(Vec<String>),
    /// Agent name → that agent's words (theory of mind).
    Agents(BTreeMap<String, Vec<String>>),
}

/// The metric names of `wmlab score` and the suites.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Minerva's official `exact_match`: the formatted reference is a substring of the normalised reply
    /// ([`metrics::exact_match`]).
    ExactMatch,
    /// Our strict exact match: normalised reply and reference equal as comma-separated item sequences
    /// ([`metrics::exact_match_strict`]).
    ExactMatchStrict,
    /// The text after `FINAL ANSWER:` equals the formatted reference (Minerva's quantity_state,
    /// [`metrics::final_answer_exact_match`]).
    FinalAnswerExactMatch,
    /// The count read from the reply (`once`, `twice`, …, or `<n> times`) equals the reference (Minerva's
    /// count, [`metrics::count_accuracy`]).
    CountAccuracy,
    /// The first integer in the reply equals the reference (the Little Retrieval Test,
    /// [`metrics::first_integer_match`]).
    FirstInteger,
    /// ROUGE-L F-measure of the reply against the reference (`rouge_score` rougeL, [`metrics::rouge_l`]).
    RougeL,
    /// ROUGE-L recall: longest common token subsequence / reference tokens ([`metrics::rouge_l_recall`]).
    RougeLRecall,
    /// Jaccard similarity of the FINAL ANSWER items (split on `", "`) and the reference list (Minerva's
    /// set_state, [`metrics::jaccard`]).
    Jaccard,
    /// Per-agent Jaccard similarity averaged over the reference agents (Minerva's theory_of_mind,
    /// [`metrics::theory_of_mind`]).
    TheoryOfMind,
    /// N-back signal detection over a whole block (hit rate, false-alarm rate, accuracy, d′), not one
    /// reply: `wmlab score` takes the condition string and the answers.
    Nback,
    /// PI-LLM: the fraction of keys whose value read from "The current value of <key> is <value>."
    /// equals the key's last update, ignoring case ([`pi::score_reply`]); the reference is key →
    /// [last value].
    LastValues,
    /// Number Guessing: 1 when the reply's first word is yes, else 0 ([`latent::parse_yes_no`]).
    SaysYes,
    /// Math Magic: 1 when the reply's last JSON object gives the same `final_number` and
    /// `put_aside_number`, 1–10 ([`latent::magic_consistent`]).
    SameNumber,
}

impl Metric {
    /// Every metric, in the order `wmlab score` lists them when a name is unknown.
    pub const ALL: [Metric; 13] = [
        Metric::ExactMatch,
        Metric::ExactMatchStrict,
        Metric::FinalAnswerExactMatch,
        Metric::CountAccuracy,
        Metric::FirstInteger,
        Metric::RougeL,
        Metric::RougeLRecall,
        Metric::Jaccard,
        Metric::TheoryOfMind,
        Metric::Nback,
        Metric::LastValues,
        Metric::SaysYes,
        Metric::SameNumber,
    ];
    /// The snake_case name used in `wmlab score` lines and records (`exact_match`, `rouge_l`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::ExactMatch => "exact_match",
            Metric::ExactMatchStrict => "exact_match_strict",
            Metric::FinalAnswerExactMatch => "final_answer_exact_match",
            Metric::CountAccuracy => "count_accuracy",
            Metric::FirstInteger => "first_integer",
            Metric::RougeL => "rouge_l",
            Metric::RougeLRecall => "rouge_l_recall",
            Metric::Jaccard => "jaccard",
            Metric::TheoryOfMind => "theory_of_mind",
            Metric::Nback => "nback",
            Metric::LastValues => "last_values",
            Metric::SaysYes => "says_yes",
            Metric::SameNumber => "same_number",
        }
    }
    /// The metric of a name ([`Metric::as_str`]); `None` for an unknown name.
    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// A single-request sample: the messages to send, the reference and the metrics that score the reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Single {
    /// The conversation to send, system message first where the suite has one.
    pub messages: Vec<Message>,
    /// The expected answer the metrics compare the reply with.
    pub reference: Reference,
    /// The metrics that score the reply, headline first (Minerva: [`snapshot::metrics_for`]).
    pub metrics: Vec<Metric>,
}

/// One unit of work for a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Stable across runs with the same configuration (`suite/task/index`): the key for resume.
    pub id: String,
    /// The suite that made the sample.
    pub suite: Suite,
    /// Task or variant name (`verbal-2back`, `lrt-shuffled`, `key_value_search`, …).
    pub task: String,
    /// Condition values for grouping results (`n`, `lines`, `depth`, …).
    #[serde(default)]
    pub conditions: BTreeMap<String, String>,
    /// What to send and how to score it.
    pub body: SampleBody,
    /// Which repeat of its item this is (Inspect's epoch), from 1; a run with `--repeats K` asks each
    /// item K times ([`with_repeats`]). Absent from the JSON when 1.
    #[serde(default = "first_epoch", skip_serializing_if = "is_first_epoch")]
    pub epoch: u32,
}

/// Serde's default of an epoch (the first repeat), for [`Sample::epoch`] and [`outcome::Outcome::epoch`].
pub(crate) fn first_epoch() -> u32 {
    1
}

/// A first repeat is written without its epoch.
pub(crate) fn is_first_epoch(e: &u32) -> bool {
    *e <= 1
}

/// The most repeats of an item a run takes ([`with_repeats`]).
pub const MAX_REPEATS: u32 = 100;

/// Each sample `k` times (Inspect's epochs): the first repeat keeps its id, repeat `e` of 2..=k is
/// `<id>@r<e>`, so a run with more repeats resumes the fewer it had. All first repeats come first, then
/// all second ones: a run stopped early holds whole passes over the items. `k` of 0 or 1 changes
/// nothing.
pub fn with_repeats(samples: Vec<Sample>, k: u32) -> Vec<Sample> {
    if k <= 1 {
        return samples;
    }
    let mut out = Vec::with_capacity(samples.len() * k as usize);
    for e in 1..=k {
        for s in &samples {
            let mut r = s.clone();
            if e > 1 {
                r.id = format!("{}@r{e}", s.id);
            }
            r.epoch = e;
            out.push(r);
        }
    }
    out
}

/// `xs` grouped by the item their sample id names ([`item_id`]), items in the order they first appear,
/// each group in its own order: the repeats of one item together.
pub fn group_by_item<'a, T>(xs: impl IntoIterator<Item = T>, id: impl Fn(&T) -> &'a str) -> Vec<Vec<T>> {
    let mut groups: Vec<Vec<T>> = Vec::new();
    let mut index: BTreeMap<&'a str, usize> = BTreeMap::new();
    for x in xs {
        let i = *index.entry(item_id(id(&x))).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[i].push(x);
    }
    groups
}

/// The item a sample id names, less its repeat ([`with_repeats`]): `lrt/1000/3@r2` → `lrt/1000/3`.
pub fn item_id(id: &str) -> &str {
    match id.rsplit_once("@r") {
        Some((item, e)) if !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()) => item,
        _ => id,
    }
}

impl Sample {
    /// About how many requests the sample takes from its start, one per turn without retries: 1 for a
    /// single request, an N-back block's trials after its prefilled ones, a visual trial's questions.
    /// What a progress line's time estimate counts before a whole sample has finished.
    pub fn expected_requests(&self) -> usize {
        match &self.body {
            SampleBody::Single(_) => 1,
            SampleBody::Dialogue(d) => d.stimuli.len().saturating_sub(d.prefill).max(1),
            SampleBody::Vision(v) => v.questions_left().max(1),
            SampleBody::Deduction(d) => d.questions.len().max(1),
        }
    }
}

/// At most `k` of `samples` (all for `k` = 0), spread over their conditions: one from each (task,
/// conditions) cell in turn (N-back's block number is not a condition), in order of first appearance, each cell's own order kept, returned in the
/// samples' order. A 3-sample slice of N-back is then a block of each N, not three 1-back blocks — a
/// slice still spans the design its statistics compare.
pub fn spread_slice(samples: Vec<Sample>, k: usize) -> Vec<Sample> {
    if k == 0 || samples.len() <= k {
        return samples;
    }
    // A sample's cell: its task and conditions, less N-back's block number (an item, not a condition).
    let cell = |s: &Sample| {
        let mut c = s.conditions.clone();
        if s.suite == Suite::Nback {
            c.remove("block");
        }
        (s.task.clone(), c)
    };
    let mut cells: Vec<((String, BTreeMap<String, String>), Vec<usize>)> = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let key = cell(s);
        match cells.iter_mut().find(|c| c.0 == key) {
            Some(c) => c.1.push(i),
            None => cells.push((key, vec![i])),
        }
    }
    let mut keep = vec![false; samples.len()];
    let (mut taken, mut round) = (0, 0);
    while taken < k {
        for c in &cells {
            if let Some(&i) = c.1.get(round)
                && taken < k
            {
                keep[i] = true;
                taken += 1;
            }
        }
        round += 1;
    }
    samples.into_iter().zip(keep).filter_map(|(s, k)| k.then_some(s)).collect()
}

/// What a sample asks of the model: one request or a multi-turn protocol; tagged by `kind` in JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SampleBody {
    /// One request, one reply, scored by its metrics (the Little Retrieval Test, Minerva).
    Single(Single),
    /// An N-back block of the text suite, one trial per turn, driven through [`Dialogue`].
    Dialogue(nback::NbackDialogue),
    /// A WorM trial or spatial N-back block of the visual suite.
    Vision(vision::VisionDialogue),
    /// A Yes-No Deduction trial of the latent-state suite: questions in one conversation until a
    /// contradiction.
    Deduction(latent::DeductionDialogue),
}

/// A multi-turn protocol. The runner loops: `next_request()` → send → `feed(reply)` until `None`.
pub trait Dialogue {
    /// The full conversation to send next, or `None` when the protocol is finished.
    fn next_request(&self) -> Option<Vec<Message>>;
    /// Record the model's reply to the last request.
    fn feed(&mut self, reply: &str);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_keep_the_first_id_and_number_the_rest() {
        let cfg = lrt::LrtConfig { lines: vec![20], tests_per_size: 2, ..Default::default() };
        let items = lrt::samples(&cfg, 3);
        let n = items.len();
        assert!(n >= 2);
        assert_eq!(with_repeats(items.clone(), 1), items);
        assert_eq!(with_repeats(items.clone(), 0), items);
        let r = with_repeats(items.clone(), 3);
        assert_eq!(r.len(), 3 * n);
        // whole passes: the first n are the items as they were
        assert_eq!(r[..n].iter().map(|s| &s.id).collect::<Vec<_>>(), items.iter().map(|s| &s.id).collect::<Vec<_>>());
        assert!(r[..n].iter().all(|s| s.epoch == 1));
        for (i, s) in r.iter().enumerate() {
            let e = (i / n + 1) as u32;
            assert_eq!(s.epoch, e);
            assert_eq!(item_id(&s.id), items[i % n].id);
            assert_eq!(s.body, items[i % n].body, "a repeat asks the same thing");
            if e > 1 {
                assert_eq!(s.id, format!("{}@r{e}", items[i % n].id));
            }
        }
        // every id distinct (the resume key)
        let mut ids: Vec<&String> = r.iter().map(|s| &s.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 3 * n);
        // the epoch survives JSON, and a first repeat writes none
        let back: Sample = serde_json::from_str(&serde_json::to_string(&r[2 * n]).unwrap()).unwrap();
        assert_eq!(back.epoch, 3);
        assert!(!serde_json::to_string(&r[0]).unwrap().contains("epoch"));
    }

    #[test]
    fn item_ids_strip_only_a_repeat() {
        assert_eq!(item_id("lrt/20/0@r2"), "lrt/20/0");
        assert_eq!(item_id("lrt/20/0@r12"), "lrt/20/0");
        assert_eq!(item_id("minerva/quantity_state@steps=3/0"), "minerva/quantity_state@steps=3/0");
        assert_eq!(item_id("minerva/x@rounds=3/0"), "minerva/x@rounds=3/0");
        assert_eq!(item_id("a@r"), "a@r");
        assert_eq!(item_id("plain"), "plain");
    }
}
