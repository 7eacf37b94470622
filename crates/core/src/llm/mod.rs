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
    #[error("{what}: \"{item}\" is not a whole number of {least} or more (give one, or a comma list)")]
    NotWhole { what: String, item: String, least: usize },
    #[error("Prompt wordings: \"{0}\" is not 1 or 2 (give 1, 2 or 1,2)")]
    Variant(String),
    #[error("insertion {0:?}: uniform (the paper's intent) or reference (the published code)")]
    Insertion(String),
    #[error("\"{0}\": give block sizes of 1 or more (1 = a full shuffle), e.g. 1, 10, 250; or none")]
    BlockSizes(String),
    #[error("the token ranks file is damaged at line {0}")]
    RanksLine(usize),
    #[error("the token ranks file holds {0} ranks, not cl100k_base's 100,256")]
    RanksCount(usize),
    #[error("the token ranks: {0}")]
    Ranks(String),
    #[error("protocol {protocol} is not defined for {variant}")]
    Protocol { protocol: &'static str, variant: &'static str },
    #[error("N must be at least 1")]
    NZero,
    #[error("stimuli and conditions differ in length")]
    BlockLengths,
    #[error(transparent)]
    Block(#[from] nback::BlockError),
    #[error("no published blocks for N = {0} (only 1, 2, 3)")]
    NotPublished(u8),
    #[error("`{0}` is not a task of the visual suite (WorM task ids such as VSR or CD-Color, or nback-spatial)")]
    NotVisual(String),
    #[error("nback-verbal is letters, not pictures: run it in the N-back text suite")]
    VerbalNback,
    #[error("{}", vision::LSR_NOT_VISUAL)]
    LsrNotVisual,
    #[error("choose at least one task")]
    NoTask,
    #[error(
        "{0} has no level a staircase can move: an adaptive run takes the change-detection tasks (set size), VSR / VSRec (list length) and nback-spatial (N)"
    )]
    NotAdaptive(String),
    #[error("trials per task must be 1–1000, not {0}")]
    Trials(u32),
    #[error("image size must be {min}–{max} px, not {0}", min = vision::MIN_SIZE, max = vision::MAX_SIZE)]
    Size(u32),
    #[error("text grid width must be one of {cols:?} characters, not {0}", cols = vision::TEXT_COLS)]
    TextCols(u32),
    #[error("choose at least one N-back level")]
    NoLevel,
    #[error("N-back levels are 1–5, not {0}")]
    Level(u8),
}

crate::message_into_string!(SuiteError);

pub mod lrt;
pub mod metrics;
pub mod minerva;
pub mod nback;
pub mod reasoning;
pub mod score;
pub mod snapshot;
pub mod vision;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
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
    pub width: u32,
    pub height: u32,
}

impl ImagePart {
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
    pub fn system(s: impl Into<String>) -> Self {
        Message { role: Role::System, content: s.into(), images: Vec::new() }
    }
    pub fn user(s: impl Into<String>) -> Self {
        Message { role: Role::User, content: s.into(), images: Vec::new() }
    }
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Suite {
    Nback,
    Lrt,
    Minerva,
    /// The WorM tasks and the spatial N-back as frames (images or character grids), [`vision`].
    Vision,
}

/// The sampling parameters a suite's paper sent (`None` = not sent: the API's default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperSampling {
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
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
    Text(String),
    Int(i64),
    List(Vec<String>),
    Agents(BTreeMap<String, Vec<String>>),
}

/// The metric names of `wmlab score` and the suites.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    ExactMatch,
    ExactMatchStrict,
    FinalAnswerExactMatch,
    CountAccuracy,
    FirstInteger,
    RougeL,
    RougeLRecall,
    Jaccard,
    TheoryOfMind,
    Nback,
}

impl Metric {
    pub const ALL: [Metric; 10] = [
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
    ];
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
        }
    }
    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// A single-request sample: the messages to send, the reference and the metrics that score the reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Single {
    pub messages: Vec<Message>,
    pub reference: Reference,
    pub metrics: Vec<Metric>,
}

/// One unit of work for a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Stable across runs with the same configuration (`suite/task/index`): the key for resume.
    pub id: String,
    pub suite: Suite,
    /// Task or variant name (`verbal-2back`, `lrt-shuffled`, `key_value_search`, …).
    pub task: String,
    /// Condition values for grouping results (`n`, `lines`, `depth`, …).
    #[serde(default)]
    pub conditions: BTreeMap<String, String>,
    pub body: SampleBody,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SampleBody {
    Single(Single),
    Dialogue(nback::NbackDialogue),
    /// A WorM trial or spatial N-back block of the visual suite.
    Vision(vision::VisionDialogue),
}

/// A multi-turn protocol. The runner loops: `next_request()` → send → `feed(reply)` until `None`.
pub trait Dialogue {
    /// The full conversation to send next, or `None` when the protocol is finished.
    fn next_request(&self) -> Option<Vec<Message>>;
    /// Record the model's reply to the last request.
    fn feed(&mut self, reply: &str);
}
