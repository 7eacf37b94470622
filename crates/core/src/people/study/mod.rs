//! Study links: the URL query that carries a study ⇄ [`StudyConfig`].
//!
//! ```text
//! ?tasks=VIR,CD-Color,nback-verbal&tpc=2&order=random&seed=7&practice=1&pid=P01&done=https://example.org/done
//! ```
//!
//! | parameter | meaning | values (default) |
//! |---|---|---|
//! | `tasks` | tasks in order | comma list of `SC SFR SI SMU STS VIR VSR VSRec CD-Color CD-Orientation CD-Size CD-Gap CD-Conjunction CS LSR nback-verbal nback-spatial pi-llm`, or `all` (required) |
//! | `tpc` | trials per condition cell of each WorM task; PI-LLM streams per level of updates per key | 1–200 (1) |
//! | `order` | block order | `fixed` or `random` (fixed) |
//! | `seed` | stimulus seed | 0–2⁶⁴−1 (none: a hash of the participant id, or for a link with neither a random seed per session, recorded; see [`StudyConfig::effective_seed`]) |
//! | `practice` | practice block before each task | `1`/`0`/`true`/`false`/`yes`/`no` (1) |
//! | `pt` | practice trials per task | 1–10 (3) |
//! | `n` | N-back levels | comma list of 1–3 (1,2,3) |
//! | `nbb` | N-back blocks per level | 1–10 (1) |
//! | `results` | show the participant their results | bool (0) |
//! | `fs` | ask for fullscreen | bool (0) |
//! | `pid`, `participant`, `PROLIFIC_PID`, `workerId` | participant id | letters, digits, `_ . - @ :`, 1–128 chars |
//! | `STUDY_ID`, `SESSION_ID`, `assignmentId`, `hitId` | panel ids, kept in the record | same charset |
//! | `done` (`completion`) | completion URL to redirect to | `http(s)://…`, may hold placeholders: `{pid}`, `{session}`, a panel id or kept parameter (`{STUDY_ID}`, `{survey_code}`) |
//! | `declined` | where a participant who does not agree to the consent is sent | as `done` |
//! | `screened` | where a participant the study screens out (device, window) is sent | as `done` |
//! | `keep` | a platform's own parameters to let through into the record and the placeholders | comma list of names (letters, digits, `_`) |
//! | `turkSubmitTo` | MTurk: where the HIT is submitted at the end; `assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE` is MTurk's preview | `https://www.mturk.com`, `https://workersandbox.mturk.com` (or loopback, for tests) |
//! | `devices` | who may take it, checked before consent | `desktop`, `touch` or `any` (any) |
//! | `min_window` | the smallest window, checked before consent | `WIDTHxHEIGHT` CSS px, each 100–10000 (none) |
//! | `chinrest` | the virtual chinrest before the first task: a card matched on the screen (px/mm) and the blind spot (viewing distance), each repeated; kept in the record ([`super::chinrest`]) | bool (0) |
//! | `visual_angle` | the stimulus square drawn at this many degrees of visual angle (needs the chinrest, so it turns it on); a window that cannot hold it is refused in words | 1–40 degrees (none: as large as the window allows) |
//! | `survey` | the built-in questionnaire: age, gender, handedness, corrected vision, colour vision ([`super::survey::demographics`]) | `demographics` (none) |
//! | `survey_url` | a questionnaire of the study's own, a JSON file on the same site ([`super::survey::Questionnaire::from_json`]); after the built-in one where both are given | a relative path such as `questions.json` |
//! | `survey_at` | when the questionnaire is shown | `start` (after consent) or `end` (after the last task) (start) |
//! | `endpoint` | URL the record is POSTed to | `http(s)://…` |
//! | `datapipe` | a DataPipe experiment id: at the end the session's CSV goes to the researcher's OSF through DataPipe (`{experimentID, filename, data}`, the file named by participant and session) | the id DataPipe shows, 4–64 letters, digits, `_` or `-` |
//! | `datapipe_blocks` | with `datapipe`: after each block the session so far goes to DataPipe too, in its own file (`…_partNN.csv`), so a participant who drops out leaves their data; DataPipe counts every file toward an experiment's session limit | bool (1) |
//! | `datapipe_url` | where DataPipe requests go (a DataPipe of your own, a test receiver) | `http(s)://…` (`https://pipe.jspsych.org/api/data/`) |
//! | `consent` / `consent_url` | consent text the participant must agree to before the first trial (the agreement is recorded), by value or as a path on the same site | text up to 20,000 characters / a relative path such as `consent.txt` |
//! | `info` / `info_url` | extra instructions shown before the first trial | as `consent` |
//! | `conditions` | counterbalanced task orders: each participant takes one, assigned by DataPipe's condition API when `datapipe` is set, else by the participant id's hash (balanced in expectation) | 2–64 orders of the study's tasks separated by `\|` (`VIR,SC\|SC,VIR`) |
//! | `condition_sets` | counterbalanced task parameters: each participant takes one set (crossed with `conditions` where both are given: condition k takes order k mod orders and set k div orders), assigned as `conditions` are | 2–64 `set`-style lists separated by `\|` (`noise_mask=true\|noise_mask=false`) |
//! | `adaptive` | tasks run as a staircase ([`crate::adaptive`]) instead of the fixed grid: CD's set size converging on 75 % right, VSR / VSRec / LSR's list length on 50 % of lists recalled whole, N-back's N on half the blocks passed (one block per step, in place of `n`); the task ends when the staircase has settled | comma list of the study's CD, VSR, VSRec, LSR or N-back tasks, or `all` (none) |
//! | `set` | task parameters of the WorM tasks, `KEY=VALUE` entries separated by `;` (`set=noise_mask=true;list_lengths=2,4,8,16`); each key goes to the chosen tasks that have it | see `wmlab generate --help` and the Gallery (none: the paper's) |
//!
//! Any unknown, repeated, empty or invalid parameter gives a [`StudyError`] naming the parameter and
//! the allowed values; no partial config is ever returned. Parameters a platform puts before the `#`
//! are read too ([`StudyConfig::from_location`]).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::StudyTask;
use super::device::{Devices, Eligibility};
use super::survey::SurveyAt;

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_start(a: &SurveyAt) -> bool {
    *a == SurveyAt::Start
}

fn is_any_device(d: &Devices) -> bool {
    *d == Devices::Any
}

/// The order of a study's task blocks (`order=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockOrder {
    /// Tasks and N-back levels in the link's order.
    Fixed,
    /// Tasks shuffled by the session's seed, and each N-back kind's levels too.
    Random,
}

/// Limits.
pub const MAX_TPC: u16 = 200;
/// The most practice trials per WorM task (`pt=`).
pub const MAX_PRACTICE_TRIALS: u8 = 10;
/// The most N-back blocks per level (`nbb=`).
pub const MAX_NBACK_BLOCKS: u8 = 10;
/// The highest N-back level a link may name (`n=`).
pub const MAX_NBACK_N: u8 = 3;
/// The longest participant or panel id, in characters (ids are ASCII).
pub const MAX_ID_LEN: usize = 128;
/// The longest URL (`done`, `endpoint`, `datapipe_url`) or site path (`consent_url`, `info_url`), in bytes.
pub const MAX_URL_LEN: usize = 2048;
/// The longest consent or instruction text given in the link itself (`consent=`, `info=`), in characters.
pub const MAX_TEXT_LEN: usize = 20_000;

/// A text the study shows (consent, extra instructions): given in the link, or a path on the same site
/// that the page loads (shown as plain text; never run as HTML).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StudyText {
    /// The text itself, given in the link (at most [`MAX_TEXT_LEN`] characters).
    Text(String),
    /// A path relative to the app's page (`consent.txt`, `/study/a/consent.txt`): same site only.
    Path(String),
}

impl StudyText {
    /// The text of a [`StudyText::Path`] file as the site served it (`bytes`), checked before it is
    /// shown as a consent or an instruction: plain UTF-8 text of at most
    /// [`crate::record::MAX_TEXT_CHARS`] bytes, not an HTML page (what a static server or a single-page
    /// app answers for a path it does not have) and not a binary file. The error names the path and
    /// says what was found.
    pub fn checked_file_text(path: &str, bytes: &[u8]) -> Result<String, StudyFileError> {
        let max = crate::record::MAX_TEXT_CHARS;
        let path = path.to_string();
        if bytes.len() > max {
            return Err(StudyFileError::TooLong { path, bytes: bytes.len() });
        }
        let text = std::str::from_utf8(bytes).map_err(|_| StudyFileError::NotUtf8(path.clone()))?;
        if text.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
            return Err(StudyFileError::Control(path));
        }
        let head = text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .get(..64)
            .unwrap_or(text.trim_start())
            .to_ascii_lowercase();
        if ["<!doctype", "<html", "<head", "<body", "<?xml", "<svg"].iter().any(|t| head.starts_with(t)) {
            return Err(StudyFileError::WebPage(path));
        }
        if text.trim().is_empty() {
            return Err(StudyFileError::Empty(path));
        }
        Ok(text.to_string())
    }
}

/// Why a study text file (consent, instructions) is not shown: each names the path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StudyFileError {
    /// Larger than [`crate::record::MAX_TEXT_CHARS`] bytes.
    #[error("{path} is {bytes} bytes; a study text may have at most {max} (is it the right file?).", max = crate::record::MAX_TEXT_CHARS)]
    TooLong {
        /// The file's path as the link gives it.
        path: String,
        /// The file's size in bytes.
        bytes: usize,
    },
    /// Not UTF-8 (a binary file or another encoding); holds the path.
    #[error("{0} is not a text file (it is not UTF-8 text: a binary file or another encoding).")]
    NotUtf8(String),
    /// Holds control characters other than newline, carriage return and tab; holds the path.
    #[error("{0} is not a text file (it holds control characters).")]
    Control(String),
    /// Starts like an HTML, XML or SVG document (often a server's answer for a missing file); holds the path.
    #[error(
        "{0} is a web page or an image, not a plain text file (a server may answer with the app's page for a file \
         it does not have: check the path)."
    )]
    WebPage(String),
    /// Empty or only white space; holds the path.
    #[error("{0} is empty.")]
    Empty(String),
}

crate::message_into_string!(StudyFileError);

/// A study: which tasks, how many trials, and where the data and the participant go afterwards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyConfig {
    /// The tasks in the link's order (`tasks=`), each once.
    pub tasks: Vec<StudyTask>,
    /// Main trials per condition cell of each WorM task's grid, and PI-LLM streams per level (`tpc=`, 1–[`MAX_TPC`]).
    pub trials_per_condition: u16,
    /// Whether the blocks keep the link's order or are shuffled by the seed (`order=`).
    pub block_order: BlockOrder,
    /// The stimulus seed the link gives (`seed=`); `None`: see [`StudyConfig::effective_seed`].
    pub seed: Option<u64>,
    /// A practice block before each WorM task and each N-back level (a staircase: one, at its first N) (`practice=`).
    pub practice: bool,
    /// Trials in each WorM practice block (`pt=`, 1–[`MAX_PRACTICE_TRIALS`]).
    pub practice_trials: u8,
    /// N-back levels (each 1–3), in the order given.
    pub nback_ns: Vec<u8>,
    /// N-back blocks (30 trials, 10 targets) per level and kind.
    pub nback_blocks: u8,
    /// The participant id (`pid`, `participant`, `PROLIFIC_PID` or `workerId`): names the record and, without
    /// a seed, keys the stimuli.
    pub participant: Option<String>,
    /// Pass-through panel ids (`STUDY_ID`, `SESSION_ID`, `assignmentId`, `hitId`), kept in the record.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub external_ids: BTreeMap<String, String>,
    /// Where the participant is sent at the end, once the data are sent (`done=` or `completion=`); may
    /// hold placeholders ([`StudyConfig::outcome_url`]).
    pub completion_url: Option<String>,
    /// Where a participant who does not agree to the consent text is sent (`declined=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declined_url: Option<String>,
    /// Where a participant the study screens out (device, window) is sent (`screened=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screened_url: Option<String>,
    /// Pass-through parameters the researcher declares (`keep=survey_code`): their values are kept in
    /// `external_ids`, go into the record and can fill placeholders of the outcome URLs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep: Vec<String>,
    /// MTurk's `turkSubmitTo`: at the end the HIT is submitted there (`…/mturk/externalSubmit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mturk_submit_to: Option<String>,
    /// Which devices may take the study (`devices=`).
    #[serde(default, skip_serializing_if = "is_any_device")]
    pub devices: Devices,
    /// The smallest window (inner width × height, CSS px) the study accepts (`min_window=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_window: Option<(u32, u32)>,
    /// The virtual chinrest before the first task (`chinrest=`; on with `visual_angle=`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub chinrest: bool,
    /// The stimulus square's side in degrees of visual angle (`visual_angle=`, 1–[`MAX_VISUAL_ANGLE`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visual_angle: Option<f64>,
    /// The built-in demographics questionnaire (`survey=demographics`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub demographics: bool,
    /// A questionnaire file on the study's site (`survey_url=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survey_url: Option<String>,
    /// When the questionnaire is shown (`survey_at=`).
    #[serde(default, skip_serializing_if = "is_start")]
    pub survey_at: SurveyAt,
    /// The URL the record is POSTed to after each block and at the end (`endpoint=`).
    pub endpoint: Option<String>,
    /// DataPipe experiment id (OSF through DataPipe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datapipe: Option<String>,
    /// With `datapipe`: the session so far after each block too (`datapipe_blocks=`, on by default).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub datapipe_blocks: bool,
    /// DataPipe's API address (None = [`DATAPIPE_URL`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datapipe_url: Option<String>,
    /// Show the participant their results at the end (`results=`).
    pub show_results: bool,
    /// Offer full screen (`fs=`): each block's instruction screen has a Full screen button.
    pub fullscreen: bool,
    /// Consent the participant must agree to before the first trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consent: Option<StudyText>,
    /// Extra instructions shown before the first trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<StudyText>,
    /// Task parameters (`KEY=VALUE`) applied to every chosen WorM task that has the key; empty = the
    /// paper's tasks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task_settings: Vec<(String, String)>,
    /// Counterbalanced task orders (`conditions=`): each participant takes the tasks in one of them
    /// ([`StudyConfig::condition_for`]); empty = the link's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Vec<StudyTask>>,
    /// Counterbalanced task parameters (`condition_sets=`): each participant's tasks take one set on
    /// top of `task_settings`, crossed with `conditions` ([`StudyConfig::condition_count`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub condition_sets: Vec<Vec<(String, String)>>,
    /// Tasks run as a staircase on their level (`adaptive=`), in the study's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adaptive: Vec<StudyTask>,
}

impl Default for StudyConfig {
    fn default() -> Self {
        StudyConfig {
            tasks: Vec::new(),
            trials_per_condition: 1,
            block_order: BlockOrder::Fixed,
            seed: None,
            practice: true,
            practice_trials: 3,
            nback_ns: vec![1, 2, 3],
            nback_blocks: 1,
            participant: None,
            external_ids: BTreeMap::new(),
            completion_url: None,
            declined_url: None,
            screened_url: None,
            keep: Vec::new(),
            mturk_submit_to: None,
            devices: Devices::Any,
            min_window: None,
            chinrest: false,
            visual_angle: None,
            demographics: false,
            survey_url: None,
            survey_at: SurveyAt::Start,
            endpoint: None,
            datapipe: None,
            datapipe_blocks: true,
            datapipe_url: None,
            show_results: false,
            fullscreen: false,
            consent: None,
            info: None,
            task_settings: Vec::new(),
            conditions: Vec::new(),
            condition_sets: Vec::new(),
            adaptive: Vec::new(),
        }
    }
}

/// Why a study link was refused: the parameter and a plain message for the researcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StudyError {
    /// The parameter at fault, as named in the link.
    pub param: String,
    /// What is wrong and what is allowed, in plain words.
    pub message: String,
}

impl StudyError {
    fn new(param: &str, message: impl Into<String>) -> Self {
        StudyError { param: param.to_string(), message: message.into() }
    }
}

impl fmt::Display for StudyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Study link, parameter “{}”: {}", self.param, self.message)
    }
}

impl std::error::Error for StudyError {}

const PARTICIPANT_KEYS: [&str; 4] = ["pid", "participant", "PROLIFIC_PID", "workerId"];
const EXTERNAL_KEYS: [&str; 4] = ["STUDY_ID", "SESSION_ID", "assignmentId", "hitId"];
/// What MTurk puts in `assignmentId` while a worker previews the HIT (before accepting it).
pub const MTURK_PREVIEW: &str = "ASSIGNMENT_ID_NOT_AVAILABLE";
/// MTurk's parameter naming where the HIT is submitted.
const MTURK_SUBMIT_KEY: &str = "turkSubmitTo";
/// The largest `visual_angle=`, degrees.
pub const MAX_VISUAL_ANGLE: f64 = 40.0;
const KNOWN: [&str; 34] = [
    "condition_sets",
    "datapipe_blocks",
    "survey",
    "survey_url",
    "survey_at",
    "chinrest",
    "visual_angle",
    "conditions",
    "declined",
    "screened",
    "keep",
    "devices",
    "min_window",
    MTURK_SUBMIT_KEY,
    "tasks",
    "tpc",
    "order",
    "seed",
    "practice",
    "pt",
    "n",
    "nbb",
    "results",
    "fs",
    "done",
    "endpoint",
    "datapipe",
    "datapipe_url",
    "consent",
    "consent_url",
    "info",
    "info_url",
    "set",
    "adaptive",
];

fn allowed_params() -> String {
    let mut v: Vec<&str> = KNOWN.to_vec();
    v.push("completion");
    v.extend(PARTICIPANT_KEYS);
    v.extend(EXTERNAL_KEYS);
    v.join(", ")
}

fn task_names() -> String {
    StudyTask::all().iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ") + ", or all"
}

/// Percent-decode a query component (`+` is a space). Invalid escapes or UTF-8 → None.
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let h = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(h, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Percent-encode a query value (unreserved characters and `, : /` stay as they are).
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if c.is_ascii_alphanumeric() || b"-_.~,:/".contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    out
}

fn parse_bool(param: &str, v: &str) -> Result<bool, StudyError> {
    match v.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(StudyError::new(param, format!("“{v}” is not on/off; use 1 or 0 (also true/false, yes/no)."))),
    }
}

fn parse_int<T: TryFrom<u64>>(param: &str, v: &str, lo: u64, hi: u64) -> Result<T, StudyError> {
    let bad = || StudyError::new(param, format!("“{v}” is not allowed; use a whole number from {lo} to {hi}."));
    let x: u64 = v.parse().map_err(|_| bad())?;
    if !(lo..=hi).contains(&x) {
        return Err(bad());
    }
    T::try_from(x).map_err(|_| bad())
}

fn check_id(param: &str, v: &str) -> Result<String, StudyError> {
    let ok =
        !v.is_empty() && v.len() <= MAX_ID_LEN && v.chars().all(|c| c.is_ascii_alphanumeric() || "_.-@:".contains(c));
    if ok {
        Ok(v.to_string())
    } else {
        Err(StudyError::new(
            param,
            format!("“{v}” is not a usable id; use 1 to {MAX_ID_LEN} letters, digits or _ . - @ : (no spaces)."),
        ))
    }
}

/// DataPipe's API (jsPsych's `pipe` plugin and the DataPipe examples POST here).
pub const DATAPIPE_URL: &str = "https://pipe.jspsych.org/api/data/";

/// A DataPipe experiment id as DataPipe shows it (letters and digits; `_` and `-` allowed for self-hosted).
pub fn check_datapipe_id(v: &str) -> Result<String, StudyError> {
    if (4..=64).contains(&v.len()) && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        Ok(v.to_string())
    } else {
        Err(StudyError::new(
            "datapipe",
            format!("“{v}” is not a DataPipe experiment id (4–64 letters, digits, _ or -, as DataPipe shows it)"),
        ))
    }
}

/// What goes to DataPipe at the end of a session: the JSON body DataPipe documents
/// (`{experimentID, filename, data}`) with the record's long-format CSV as `data`, in a file named by
/// participant and session: `wmlab_<participant>_<session>.csv` (characters outside letters, digits,
/// `-` and `_` become `-`; `anonymous` without a participant id).
pub fn datapipe_body(experiment_id: &str, participant: Option<&str>, session: &str, csv: &str) -> serde_json::Value {
    datapipe_part_body(experiment_id, participant, session, None, csv)
}

/// As [`datapipe_body`], for the session so far after its block `part` (1-based): the file
/// `wmlab_<participant>_<session>_partNN.csv` holds every trial up to then (DataPipe refuses to write a
/// file twice, so each block's file has its own name). A dropout's data arrive this way; the dashboard
/// keeps the latest part of a session without its final file, as unfinished ([`datapipe_file`]).
pub fn datapipe_part_body(
    experiment_id: &str,
    participant: Option<&str>,
    session: &str,
    part: Option<usize>,
    csv: &str,
) -> serde_json::Value {
    let clean = |s: &str| -> String {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).take(64).collect()
    };
    let tail = part.map(|p| format!("_part{p:02}")).unwrap_or_default();
    let filename = format!("wmlab_{}_{}{tail}.csv", clean(participant.unwrap_or("anonymous")), clean(session));
    serde_json::json!({ "experimentID": experiment_id, "filename": filename, "data": csv })
}

/// A DataPipe file's session and part, from its name: `wmlab_P01_k3_part02.csv` → (`wmlab_P01_k3`,
/// `Some(2)`); the final file `wmlab_P01_k3.csv` → (`wmlab_P01_k3`, `None`). Other names: `None`.
pub fn datapipe_file(name: &str) -> Option<(String, Option<usize>)> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.strip_suffix(".csv").filter(|s| s.starts_with("wmlab_"))?;
    if let Some((session, part)) = stem.rsplit_once("_part")
        && let Ok(p) = part.parse::<usize>()
    {
        return Some((session.to_string(), Some(p)));
    }
    Some((stem.to_string(), None))
}

/// Which of these DataPipe files to read: a session's final file where it arrived, else its latest
/// part (the data of a participant who dropped out); any other name is kept. One flag per name.
pub fn datapipe_latest(names: &[&str]) -> Vec<bool> {
    let parsed: Vec<Option<(String, Option<usize>)>> = names.iter().map(|n| datapipe_file(n)).collect();
    parsed
        .iter()
        .map(|f| match f {
            None | Some((_, None)) => true,
            Some((session, Some(p))) => !parsed.iter().flatten().any(|(s, q)| {
                s == session
                    && match q {
                        None => true,
                        Some(q) => q > p,
                    }
            }),
        })
        .collect()
}

/// Where DataPipe assigns conditions, beside its data address (`…/api/data/` → `…/api/condition/`):
/// POST `{experimentID}`, answered `{"condition": n}` (DataPipe's counter, moved on each request).
pub fn datapipe_condition_url(data_url: &str) -> String {
    let base = data_url.trim_end_matches('/');
    match base.strip_suffix("/data") {
        Some(root) => format!("{root}/condition/"),
        None => format!("{base}/condition/"),
    }
}

/// DataPipe's answer to a condition request: the condition number, or why the answer is not one.
pub fn parse_datapipe_condition(text: &str) -> Result<usize, DatapipeError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|_| DatapipeError::NotJson)?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        return Err(DatapipeError::Refused(e.chars().filter(|c| !c.is_control()).take(100).collect()));
    }
    v.get("condition")
        .and_then(|c| c.as_u64())
        .filter(|&c| c < 1 << 20)
        .map(|c| c as usize)
        .ok_or(DatapipeError::NoCondition)
}

/// Why DataPipe's answer to a condition request gives no condition ([`parse_datapipe_condition`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DatapipeError {
    /// The answer does not parse as JSON.
    #[error("DataPipe's answer is not JSON")]
    NotJson,
    /// DataPipe's own error word (control characters left out, at most 100 characters).
    #[error("DataPipe answered {0}")]
    Refused(String),
    /// No condition number below 2^20 in the answer.
    #[error("DataPipe's answer holds no condition number")]
    NoCondition,
}

crate::message_into_string!(DatapipeError);

/// `v` if it is an absolute `http://` or `https://` URL with a host, no user name or password, no spaces
/// or control characters, at most [`MAX_URL_LEN`] bytes; else a [`StudyError`] for `param`.
pub fn check_url(param: &str, v: &str) -> Result<String, StudyError> {
    let err = |why: &str| {
        Err(StudyError::new(param, format!("“{v}” is not allowed: {why}. Use a full http:// or https:// address.")))
    };
    if v.len() > MAX_URL_LEN {
        return err("it is too long");
    }
    if v.chars().any(|c| c.is_control() || c.is_whitespace() || "\"<>\\^`{|}".contains(c)) {
        return err("it contains spaces or characters a URL cannot hold");
    }
    let lower = v.to_ascii_lowercase();
    let rest = if let Some(r) = lower.strip_prefix("https://") {
        &v[v.len() - r.len()..]
    } else if let Some(r) = lower.strip_prefix("http://") {
        &v[v.len() - r.len()..]
    } else {
        return err("only http and https addresses are accepted");
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return err("it carries a user name or password");
    }
    let host = authority
        .rsplit_once(':')
        .map(|(h, port)| if port.chars().all(|c| c.is_ascii_digit()) { h } else { authority })
        .unwrap_or(authority);
    if host.is_empty() || !host.chars().all(|c| c.is_ascii_alphanumeric() || "-.[]:".contains(c)) {
        return err("it has no valid host name");
    }
    Ok(v.to_string())
}

/// A path on the app's own site (relative, or absolute from the site root): no scheme, no host, no
/// `..`, no spaces, at most [`MAX_URL_LEN`] characters.
pub fn check_site_path(param: &str, v: &str) -> Result<String, StudyError> {
    let err = |why: &str| {
        Err(StudyError::new(
            param,
            format!("“{v}” is not allowed: {why}. Give a path on the study's own site, e.g. consent.txt."),
        ))
    };
    if v.len() > MAX_URL_LEN {
        return err("it is too long");
    }
    if v.chars().any(|c| c.is_control() || c.is_whitespace() || "\"<>\\^`{|}".contains(c)) {
        return err("it contains spaces or characters a URL cannot hold");
    }
    let before_slash = v.split('/').next().unwrap_or("");
    if v.starts_with("//") || before_slash.contains(':') {
        return err("it names another site or a scheme (only paths on this site are loaded)");
    }
    if v.split(['/', '?', '#']).any(|seg| seg == "..") {
        return err("it climbs out of the folder with ..");
    }
    Ok(v.to_string())
}

/// `keep=`: names of a platform's own parameters to let through (letters, digits, `_`; not a study
/// parameter's name).
fn parse_keep(v: &str) -> Result<Vec<String>, StudyError> {
    let mut out: Vec<String> = Vec::new();
    for name in v.split(',').map(str::trim) {
        let ok = !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            return Err(StudyError::new(
                "keep",
                format!("“{name}” is not a parameter name; use letters, digits and _ (e.g. keep=survey_code)."),
            ));
        }
        let reserved = name == "completion"
            || name == "session"
            || KNOWN.contains(&name)
            || PARTICIPANT_KEYS.contains(&name)
            || EXTERNAL_KEYS.contains(&name);
        if reserved {
            return Err(StudyError::new(
                "keep",
                format!("{name} is already a study link parameter; keep= is for a platform's own parameters."),
            ));
        }
        if out.iter().any(|x| x == name) {
            return Err(StudyError::new("keep", format!("“{name}” is listed twice.")));
        }
        out.push(name.to_string());
    }
    Ok(out)
}

/// `turkSubmitTo`: MTurk's own address (https, a host under mturk.com), or a loopback address for a
/// test; anything else would send the worker's assignment to a stranger.
fn check_mturk_submit(v: &str) -> Result<String, StudyError> {
    let url = check_url(MTURK_SUBMIT_KEY, v)?;
    let lower = url.to_ascii_lowercase();
    let (https, rest) = match lower.strip_prefix("https://") {
        Some(r) => (true, r),
        None => (false, lower.strip_prefix("http://").unwrap_or(&lower)),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.split(':').next().unwrap_or(""),
    };
    let mturk = https && (host == "mturk.com" || host.ends_with(".mturk.com"));
    let loopback = matches!(host, "localhost" | "::1") || host.starts_with("127.");
    if !(mturk || loopback) {
        return Err(StudyError::new(
            MTURK_SUBMIT_KEY,
            format!("“{v}” is not MTurk's address (https://www.mturk.com or https://workersandbox.mturk.com)."),
        ));
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// An outcome URL (`done`, `declined`, `screened`): an http(s) address as [`check_url`] wants it, whose
/// `{name}` placeholders are each one this link can fill (`fills`).
fn check_outcome_url(param: &str, v: &str, fills: &[String]) -> Result<String, StudyError> {
    let mut plain = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(open) = rest.find('{') {
        plain.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(StudyError::new(param, format!("“{v}” has a {{ without its }}.")));
        };
        let name = &after[..close];
        if !fills.iter().any(|f| f == name) {
            return Err(StudyError::new(
                param,
                format!(
                    "{{{name}}} is not a placeholder this link can fill; it can fill {}.",
                    fills.iter().map(|f| format!("{{{f}}}")).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        plain.push('x');
        rest = &after[close + 1..];
    }
    plain.push_str(rest);
    check_url(param, &plain)?;
    Ok(v.to_string())
}

/// How a participant's session ended, for the URL they are sent to ([`StudyConfig::outcome_url`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// They took the study to the end (`done=`).
    Completed,
    /// They did not agree to the consent text (`declined=`).
    Declined,
    /// The study screened them out (`screened=`).
    ScreenedOut,
}

/// The participant's page beside the app's page at `base` (origin and path, as the Study page sees
/// it): `take.html` in the same folder, which loads the participant's page alone (a light first load).
pub fn participant_page(base: &str) -> String {
    let dir = base.rfind('/').map(|i| &base[..=i]).unwrap_or(base);
    format!("{dir}take.html")
}

/// Read `text` / `text_url` (one of them) into a [`StudyText`].
fn study_text(seen: &BTreeMap<String, String>, name: &str) -> Result<Option<StudyText>, StudyError> {
    let url = format!("{name}_url");
    match (seen.get(name), seen.get(&url)) {
        (Some(_), Some(_)) => Err(StudyError::new(&url, format!("give either {name} or {url}, not both."))),
        (Some(t), None) if t.chars().count() > MAX_TEXT_LEN => Err(StudyError::new(
            name,
            format!(
                "the text is {} characters; at most {MAX_TEXT_LEN} fit in a link (put it in a file and use {url}).",
                t.chars().count()
            ),
        )),
        (Some(t), None) => Ok(Some(StudyText::Text(t.clone()))),
        (None, Some(u)) => Ok(Some(StudyText::Path(check_site_path(&url, u)?))),
        (None, None) => Ok(None),
    }
}

impl StudyConfig {
    /// The task a WorM id is taken as in this study: the paper's, with the study's task parameters
    /// (checked when the link was read).
    pub fn spec(&self, id: crate::TaskId) -> crate::TaskSpec {
        let mut spec = crate::TaskSpec::new(id);
        let _ = spec.set_all(&self.task_settings, true);
        spec
    }

    /// The placeholders this link's outcome URLs may hold: `session` (the session's own id), `pid` where
    /// the link names a participant, and each panel id and kept parameter the link carries.
    pub fn placeholders(&self) -> Vec<String> {
        let mut v = vec!["session".to_string()];
        if self.participant.is_some() {
            v.push("pid".into());
        }
        v.extend(self.external_ids.keys().cloned());
        v
    }

    /// The URL to send a participant to at `outcome`, its placeholders filled (values %-encoded;
    /// `session` is the session's id, as in DataPipe's file name); `None` when the link has none.
    pub fn outcome_url(&self, outcome: Outcome, session: &str) -> Option<String> {
        let url = match outcome {
            Outcome::Completed => self.completion_url.as_ref(),
            Outcome::Declined => self.declined_url.as_ref(),
            Outcome::ScreenedOut => self.screened_url.as_ref(),
        }?;
        let value = |name: &str| -> String {
            match name {
                "session" => session.to_string(),
                "pid" => self.participant.clone().unwrap_or_default(),
                k => self.external_ids.get(k).cloned().unwrap_or_default(),
            }
        };
        let mut out = String::with_capacity(url.len());
        let mut rest = url.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let close = after.find('}').unwrap_or(after.len());
            out.push_str(&percent_encode(&value(&after[..close])));
            rest = after.get(close + 1..).unwrap_or("");
        }
        out.push_str(rest);
        Some(out)
    }

    /// Whether the link is an MTurk HIT being previewed (`assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE`):
    /// the worker sees what the study is, and nothing starts until they accept the HIT.
    pub fn mturk_preview(&self) -> bool {
        self.external_ids.get("assignmentId").is_some_and(|a| a == MTURK_PREVIEW)
    }

    /// Where the end of an MTurk HIT is submitted (a form POST of `assignmentId` and the session's id),
    /// when the link came from MTurk (`turkSubmitTo`) and is not a preview.
    pub fn mturk_submit_url(&self) -> Option<String> {
        if self.mturk_preview() {
            return None;
        }
        self.mturk_submit_to.as_ref().map(|b| format!("{b}/mturk/externalSubmit"))
    }

    /// The condition a session without an assignment from outside takes: the participant id's hash
    /// (else `seed`'s) modulo the number of conditions. Balanced only in expectation: with 40
    /// participants and 2 orders the counts are 20 ± 3. `None` without conditions.
    pub fn condition_for(&self, seed: u64) -> Option<usize> {
        let n = self.condition_count();
        if n == 0 {
            return None;
        }
        let key = match &self.participant {
            Some(p) => {
                let mut h = crate::hash::Fnv64::default();
                h.write(b"condition:");
                h.write(p.as_bytes());
                h.finish()
            }
            None => seed,
        };
        Some((key % n as u64) as usize)
    }

    /// How many counterbalanced conditions the link names: task orders × parameter sets (either alone
    /// where the other is not given); 0 without either.
    pub fn condition_count(&self) -> usize {
        match (self.conditions.len(), self.condition_sets.len()) {
            (0, 0) => 0,
            (o, s) => o.max(1) * s.max(1),
        }
    }

    /// Condition `k`'s task order (the link's order where it names no orders) and parameter set.
    pub fn condition(&self, k: usize) -> (Vec<StudyTask>, &[(String, String)]) {
        let o = self.conditions.len().max(1);
        let order = self.conditions.get(k % o).cloned().unwrap_or_else(|| self.tasks.clone());
        let set = self.condition_sets.get(k / o).map(Vec::as_slice).unwrap_or(&[]);
        (order, set)
    }

    /// A WorM task as condition `k` takes it: [`StudyConfig::spec`] with the condition's parameter set
    /// on top (keys the task does not have are left to the tasks that have them).
    pub fn spec_in(&self, id: crate::TaskId, k: Option<usize>) -> crate::TaskSpec {
        let mut spec = self.spec(id);
        if let Some(k) = k {
            let _ = spec.set_all(self.condition(k).1, true);
        }
        spec
    }

    /// Whether the study has a questionnaire (`survey=` or `survey_url=`).
    pub fn has_survey(&self) -> bool {
        self.demographics || self.survey_url.is_some()
    }

    /// Who may take the study (`devices=`, `min_window=`).
    pub fn eligibility(&self) -> Eligibility {
        Eligibility { devices: self.devices, min_window: self.min_window }
    }

    /// A config for these tasks with every other field at its default.
    pub fn new(tasks: Vec<StudyTask>) -> Self {
        StudyConfig { tasks, ..Default::default() }
    }

    /// Whether the link names neither a seed nor a participant id: each session then draws its own
    /// seed ([`crate::people::session::Session::for_link`]).
    pub fn anonymous(&self) -> bool {
        self.seed.is_none() && self.participant.is_none()
    }

    /// The seed the session uses: the link's seed, else a hash of the participant id (so participants
    /// differ but a participant reopening the link gets the same stimuli), else 0 (an anonymous link:
    /// the page starts its session with a random seed instead, see `Session::for_link`).
    pub fn effective_seed(&self) -> u64 {
        if let Some(s) = self.seed {
            return s;
        }
        match &self.participant {
            Some(p) => {
                let mut h = crate::hash::Fnv64::default();
                h.write(p.as_bytes());
                h.finish()
            }
            None => 0,
        }
    }

    /// The query a study link carries: [`StudyConfig::to_query`] less what does not apply — the N-back
    /// levels and blocks when no task is N-back. It reads back to the same study (the unused N-back
    /// settings at their defaults). A participant's session is stored under the hash of the
    /// `to_query` of the link they opened, so links made before this keep resuming.
    pub fn link_query(&self) -> String {
        let nback = self.tasks.iter().any(|t| t.nback().is_some());
        self.to_query()
            .split('&')
            .filter(|p| nback || !(p.starts_with("n=") || p.starts_with("nbb=")))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The canonical query string (without `?`); [`StudyConfig::from_query`] reads it back to an equal
    /// config.
    pub fn to_query(&self) -> String {
        let b = |x: bool| if x { "1" } else { "0" };
        let mut q: Vec<(String, String)> = vec![
            ("tasks".into(), self.tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")),
            ("tpc".into(), self.trials_per_condition.to_string()),
            (
                "order".into(),
                match self.block_order {
                    BlockOrder::Fixed => "fixed",
                    BlockOrder::Random => "random",
                }
                .into(),
            ),
        ];
        if let Some(s) = self.seed {
            q.push(("seed".into(), s.to_string()));
        }
        q.push(("practice".into(), b(self.practice).into()));
        q.push(("pt".into(), self.practice_trials.to_string()));
        q.push(("n".into(), self.nback_ns.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",")));
        q.push(("nbb".into(), self.nback_blocks.to_string()));
        q.push(("results".into(), b(self.show_results).into()));
        q.push(("fs".into(), b(self.fullscreen).into()));
        if let Some(p) = &self.participant {
            q.push(("pid".into(), p.clone()));
        }
        for (k, v) in &self.external_ids {
            q.push((k.clone(), v.clone()));
        }
        if !self.keep.is_empty() {
            q.push(("keep".into(), self.keep.join(",")));
        }
        if let Some(u) = &self.mturk_submit_to {
            q.push((MTURK_SUBMIT_KEY.into(), u.clone()));
        }
        for (name, u) in
            [("done", &self.completion_url), ("declined", &self.declined_url), ("screened", &self.screened_url)]
        {
            if let Some(u) = u {
                q.push((name.into(), u.clone()));
            }
        }
        if self.devices != Devices::Any {
            q.push(("devices".into(), self.devices.as_str().into()));
        }
        if let Some((w, h)) = self.min_window {
            q.push(("min_window".into(), format!("{w}x{h}")));
        }
        if self.chinrest {
            q.push(("chinrest".into(), "1".into()));
        }
        if let Some(a) = self.visual_angle {
            q.push(("visual_angle".into(), a.to_string()));
        }
        if self.demographics {
            q.push(("survey".into(), "demographics".into()));
        }
        if let Some(u) = &self.survey_url {
            q.push(("survey_url".into(), u.clone()));
        }
        if self.has_survey() && self.survey_at != SurveyAt::Start {
            q.push(("survey_at".into(), self.survey_at.as_str().into()));
        }
        if let Some(u) = &self.endpoint {
            q.push(("endpoint".into(), u.clone()));
        }
        if let Some(d) = &self.datapipe {
            q.push(("datapipe".into(), d.clone()));
        }
        if self.datapipe.is_some() && !self.datapipe_blocks {
            q.push(("datapipe_blocks".into(), "0".into()));
        }
        if let Some(u) = &self.datapipe_url {
            q.push(("datapipe_url".into(), u.clone()));
        }
        for (name, t) in [("consent", &self.consent), ("info", &self.info)] {
            match t {
                Some(StudyText::Text(v)) => q.push((name.into(), v.clone())),
                Some(StudyText::Path(p)) => q.push((format!("{name}_url"), p.clone())),
                None => {}
            }
        }
        if !self.task_settings.is_empty() {
            let text = self.task_settings.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";");
            q.push(("set".into(), text));
        }
        if !self.conditions.is_empty() {
            let text = self
                .conditions
                .iter()
                .map(|c| c.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(","))
                .collect::<Vec<_>>()
                .join("|");
            q.push(("conditions".into(), text));
        }
        if !self.condition_sets.is_empty() {
            let text = self
                .condition_sets
                .iter()
                .map(|set| set.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";"))
                .collect::<Vec<_>>()
                .join("|");
            q.push(("condition_sets".into(), text));
        }
        if !self.adaptive.is_empty() {
            q.push(("adaptive".into(), self.adaptive.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")));
        }
        q.iter().map(|(k, v)| format!("{k}={}", percent_encode(v))).collect::<Vec<_>>().join("&")
    }

    /// Read a study from a URL query (a leading `?` is allowed). Every parameter is checked; the first
    /// problem is returned as a [`StudyError`].
    pub fn from_query(query: &str) -> Result<StudyConfig, StudyError> {
        StudyConfig::from_location("", query)
    }

    /// Read a study from a page address: `search` is the part before the `#` (`location.search`, where
    /// MTurk, SONA and other platforms put their parameters), `query` the study link's query after
    /// `#/take?`. The link's own query is read strictly, as [`StudyConfig::from_query`] says; of the
    /// parameters before the `#` those a study link knows (and those `keep=` declares) are read and
    /// checked the same way, and any other is left alone: a host adds its own there (JATOS' `srid`, a
    /// campaign's `utm_source`) that are no concern of the study. A parameter in both places is refused.
    pub fn from_location(search: &str, query: &str) -> Result<StudyConfig, StudyError> {
        let decoded = |q: &str| -> Result<Vec<(String, String)>, StudyError> {
            let q = q.strip_prefix('?').unwrap_or(q);
            let mut out = Vec::new();
            for pair in q.split('&').filter(|p| !p.is_empty()) {
                let (rk, rv) = pair.split_once('=').unwrap_or((pair, ""));
                let key = percent_decode(rk).ok_or_else(|| StudyError::new(rk, "the name has a broken %-escape."))?;
                let val =
                    percent_decode(rv).ok_or_else(|| StudyError::new(&key, "the value has a broken %-escape."))?;
                out.push((key, val));
            }
            Ok(out)
        };
        let mut pairs = decoded(query)?;
        // Before the `#`: a pair whose name does not even decode is the host's business, not the study's.
        let search = search.strip_prefix('?').unwrap_or(search);
        let before: Vec<(String, String)> = search
            .split('&')
            .filter(|p| !p.is_empty())
            .filter_map(|p| {
                let (rk, rv) = p.split_once('=').unwrap_or((p, ""));
                Some((percent_decode(rk)?, percent_decode(rv).unwrap_or_else(|| rv.to_string())))
            })
            .collect();
        let keep_value = pairs.iter().chain(&before).find(|(k, _)| k == "keep").map(|(_, v)| v.clone());
        let keep = match &keep_value {
            Some(v) => parse_keep(v)?,
            None => Vec::new(),
        };
        let is_known = |k: &str| {
            let canonical = if k == "completion" { "done" } else { k };
            KNOWN.contains(&canonical)
                || PARTICIPANT_KEYS.contains(&canonical)
                || EXTERNAL_KEYS.contains(&canonical)
                || keep.iter().any(|x| x == canonical)
        };
        pairs.extend(before.into_iter().filter(|(k, _)| is_known(k)));
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        for (key, val) in pairs {
            let canonical = if key == "completion" { "done".to_string() } else { key.clone() };
            if !is_known(&key) {
                return Err(StudyError::new(
                    &key,
                    format!(
                        "unknown parameter. Allowed parameters: {}; a platform's own parameter can be let through \
                         with keep={key}.",
                        allowed_params()
                    ),
                ));
            }
            if val.is_empty() {
                return Err(StudyError::new(&key, "the value is empty."));
            }
            if seen.insert(canonical.clone(), val).is_some() {
                return Err(StudyError::new(&key, "given more than once."));
            }
        }
        let mut c = StudyConfig::default();
        match seen.get("tasks") {
            None => {
                return Err(StudyError::new(
                    "tasks",
                    format!("missing. Name the tasks, e.g. tasks=VIR,CD-Color; allowed: {}.", task_names()),
                ));
            }
            Some(v) if v.eq_ignore_ascii_case("all") => c.tasks = StudyTask::all(),
            Some(v) => {
                for name in v.split(',') {
                    let name = name.trim();
                    let t = StudyTask::parse(name).ok_or_else(|| {
                        StudyError::new("tasks", format!("unknown task “{name}”; allowed: {}.", task_names()))
                    })?;
                    if c.tasks.contains(&t) {
                        return Err(StudyError::new("tasks", format!("“{name}” is listed twice.")));
                    }
                    c.tasks.push(t);
                }
            }
        }
        if let Some(v) = seen.get("set") {
            let settings = crate::parse_settings(v).map_err(|e| StudyError::new("set", format!("{e}.")))?;
            let mut specs: Vec<crate::TaskSpec> =
                c.tasks.iter().filter_map(|t| t.worm()).map(crate::TaskSpec::new).collect();
            if specs.is_empty() {
                return Err(StudyError::new("set", "task parameters are for the WorM tasks; this study has none."));
            }
            crate::TaskSpec::set_on_all(&mut specs, &settings, "chosen")
                .map_err(|e| StudyError::new("set", format!("{e}.")))?;
            c.task_settings = settings;
        }
        if let Some(v) = seen.get("tpc") {
            c.trials_per_condition = parse_int("tpc", v, 1, MAX_TPC as u64)?;
        }
        if let Some(v) = seen.get("order") {
            c.block_order = match v.to_ascii_lowercase().as_str() {
                "fixed" => BlockOrder::Fixed,
                "random" => BlockOrder::Random,
                _ => return Err(StudyError::new("order", format!("“{v}” is not allowed; use fixed or random."))),
            };
        }
        if let Some(v) = seen.get("seed") {
            c.seed = Some(parse_int("seed", v, 0, u64::MAX)?);
        }
        if let Some(v) = seen.get("practice") {
            c.practice = parse_bool("practice", v)?;
        }
        if let Some(v) = seen.get("pt") {
            c.practice_trials = parse_int("pt", v, 1, MAX_PRACTICE_TRIALS as u64)?;
        }
        if let Some(v) = seen.get("n") {
            let mut ns = Vec::new();
            for x in v.split(',') {
                let n: u8 = parse_int("n", x.trim(), 1, MAX_NBACK_N as u64)?;
                if ns.contains(&n) {
                    return Err(StudyError::new("n", format!("level {n} is listed twice.")));
                }
                ns.push(n);
            }
            c.nback_ns = ns;
        }
        if let Some(v) = seen.get("nbb") {
            c.nback_blocks = parse_int("nbb", v, 1, MAX_NBACK_BLOCKS as u64)?;
        }
        if let Some(v) = seen.get("results") {
            c.show_results = parse_bool("results", v)?;
        }
        if let Some(v) = seen.get("fs") {
            c.fullscreen = parse_bool("fs", v)?;
        }
        for k in PARTICIPANT_KEYS {
            if let Some(v) = seen.get(k) {
                let id = check_id(k, v)?;
                match &c.participant {
                    Some(p) if *p != id => {
                        return Err(StudyError::new(
                            k,
                            format!(
                                "“{id}” differs from the participant id “{p}” given by another parameter ({}); give one.",
                                PARTICIPANT_KEYS.join(", ")
                            ),
                        ));
                    }
                    _ => c.participant = Some(id),
                }
            }
        }
        for k in EXTERNAL_KEYS {
            if let Some(v) = seen.get(k) {
                c.external_ids.insert(k.to_string(), check_id(k, v)?);
            }
        }
        c.keep = keep;
        for k in &c.keep {
            match seen.get(k) {
                Some(v) => {
                    c.external_ids.insert(k.clone(), check_id(k, v)?);
                }
                None => {
                    return Err(StudyError::new(
                        "keep",
                        format!(
                            "names {k}, but the link has no {k}= (the platform fills it in: check its placeholder)."
                        ),
                    ));
                }
            }
        }
        if let Some(v) = seen.get(MTURK_SUBMIT_KEY) {
            c.mturk_submit_to = Some(check_mturk_submit(v)?);
            if !c.external_ids.contains_key("assignmentId") {
                return Err(StudyError::new(
                    MTURK_SUBMIT_KEY,
                    "is given without assignmentId; MTurk sends both (is the link opened from the HIT?).",
                ));
            }
            if seen.contains_key("done") {
                return Err(StudyError::new(
                    "done",
                    "cannot be used with turkSubmitTo: on MTurk the HIT is submitted back to MTurk at the end. \
                     Leave done= out of an MTurk study's link.",
                ));
            }
        }
        let fills = c.placeholders();
        for (param, slot) in
            [("done", &mut c.completion_url), ("declined", &mut c.declined_url), ("screened", &mut c.screened_url)]
        {
            if let Some(v) = seen.get(param) {
                *slot = Some(check_outcome_url(param, v, &fills)?);
            }
        }
        if let Some(v) = seen.get("devices") {
            c.devices = Devices::parse(v).ok_or_else(|| {
                StudyError::new("devices", format!("“{v}” is not allowed; use desktop, touch or any."))
            })?;
        }
        if let Some(v) = seen.get("min_window") {
            c.min_window = Some(super::device::parse_window(v).ok_or_else(|| {
                StudyError::new(
                    "min_window",
                    format!(
                        "“{v}” is not a window size; use WIDTHxHEIGHT in CSS pixels, each 100–10000 (e.g. 1000x700)."
                    ),
                )
            })?);
        }
        if let Some(v) = seen.get("chinrest") {
            c.chinrest = parse_bool("chinrest", v)?;
        }
        if let Some(v) = seen.get("visual_angle") {
            let a = v.trim().parse::<f64>().ok().filter(|a| (1.0..=MAX_VISUAL_ANGLE).contains(a)).ok_or_else(|| {
                StudyError::new(
                    "visual_angle",
                    format!(
                        "“{v}” is not an angle; use degrees of visual angle from 1 to {MAX_VISUAL_ANGLE} (e.g. 10)."
                    ),
                )
            })?;
            if seen.contains_key("chinrest") && !c.chinrest {
                return Err(StudyError::new(
                    "visual_angle",
                    "needs the chinrest (to measure the screen and the distance), but the link says chinrest=0.",
                ));
            }
            c.visual_angle = Some(a);
            c.chinrest = true;
        }
        if let Some(v) = seen.get("survey") {
            if v.trim() != "demographics" {
                return Err(StudyError::new(
                    "survey",
                    format!(
                        "“{v}” is not a built-in questionnaire; use demographics (or survey_url= for your own file)."
                    ),
                ));
            }
            c.demographics = true;
        }
        if let Some(v) = seen.get("survey_url") {
            c.survey_url = Some(check_site_path("survey_url", v)?);
        }
        if let Some(v) = seen.get("survey_at") {
            c.survey_at = match v.trim() {
                "start" => SurveyAt::Start,
                "end" => SurveyAt::End,
                _ => return Err(StudyError::new("survey_at", format!("“{v}” is not allowed; use start or end."))),
            };
            if !c.has_survey() {
                return Err(StudyError::new("survey_at", "is given without a questionnaire (survey= or survey_url=)."));
            }
        }
        if let Some(v) = seen.get("endpoint") {
            c.endpoint = Some(check_url("endpoint", v)?);
        }
        if let Some(v) = seen.get("datapipe") {
            c.datapipe = Some(check_datapipe_id(v)?);
        }
        if let Some(v) = seen.get("datapipe_blocks") {
            if c.datapipe.is_none() {
                return Err(StudyError::new("datapipe_blocks", "is given without datapipe (the experiment id)"));
            }
            c.datapipe_blocks = parse_bool("datapipe_blocks", v)?;
        }
        if let Some(v) = seen.get("datapipe_url") {
            if c.datapipe.is_none() {
                return Err(StudyError::new("datapipe_url", "is given without datapipe (the experiment id)"));
            }
            c.datapipe_url = Some(check_url("datapipe_url", v)?);
        }
        c.consent = study_text(&seen, "consent")?;
        c.info = study_text(&seen, "info")?;
        if let Some(v) = seen.get("adaptive") {
            c.adaptive = parse_adaptive(&c.tasks, v)?;
        }
        if let Some(v) = seen.get("conditions") {
            if c.block_order == BlockOrder::Random {
                return Err(StudyError::new(
                    "conditions",
                    "cannot be used with order=random: the conditions are the orders (use order=fixed).",
                ));
            }
            c.conditions = parse_conditions(&c.tasks, v)?;
        }
        if let Some(v) = seen.get("condition_sets") {
            c.condition_sets = parse_condition_sets(&c.tasks, v)?;
            if c.condition_count() > MAX_CONDITIONS {
                return Err(StudyError::new(
                    "condition_sets",
                    format!("orders × sets make {} conditions; at most {MAX_CONDITIONS}.", c.condition_count()),
                ));
            }
        }
        Ok(c)
    }
}

/// `conditions=`: task orders separated by `|`, each the study's tasks in some order
/// (`conditions=VIR,SC|SC,VIR`), at most [`MAX_CONDITIONS`].
fn parse_conditions(tasks: &[StudyTask], v: &str) -> Result<Vec<Vec<StudyTask>>, StudyError> {
    let err = |m: String| StudyError::new("conditions", m);
    let mut out: Vec<Vec<StudyTask>> = Vec::new();
    for (i, cond) in v.split('|').enumerate() {
        let mut order = Vec::new();
        for name in cond.split(',').map(str::trim) {
            let t = StudyTask::parse(name).ok_or_else(|| {
                err(format!("condition {}: unknown task “{name}”; allowed: {}.", i + 1, task_names()))
            })?;
            if order.contains(&t) {
                return Err(err(format!("condition {}: “{name}” is listed twice.", i + 1)));
            }
            order.push(t);
        }
        let mut a = order.clone();
        let mut b = tasks.to_vec();
        a.sort();
        b.sort();
        if a != b {
            return Err(err(format!(
                "condition {} ({cond}) is not an order of the study's tasks ({}); each condition names each task once.",
                i + 1,
                tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")
            )));
        }
        if out.contains(&order) {
            return Err(err(format!("condition {} ({cond}) is given twice.", i + 1)));
        }
        out.push(order);
    }
    if out.len() < 2 || out.len() > MAX_CONDITIONS {
        return Err(err(format!("give 2 to {MAX_CONDITIONS} task orders separated by |, e.g. VIR,SC|SC,VIR.")));
    }
    Ok(out)
}

/// `condition_sets=`: `|`-separated `set`-style lists, each checked against the study's WorM tasks.
fn parse_condition_sets(tasks: &[StudyTask], v: &str) -> Result<Vec<Vec<(String, String)>>, StudyError> {
    let err = |m: String| StudyError::new("condition_sets", m);
    let worm: Vec<crate::TaskId> = tasks.iter().filter_map(|t| t.worm()).collect();
    if worm.is_empty() {
        return Err(err("task parameters are for the WorM tasks; this study has none.".into()));
    }
    let mut out: Vec<Vec<(String, String)>> = Vec::new();
    for (i, part) in v.split('|').enumerate() {
        let set = crate::parse_settings(part).map_err(|e| err(format!("set {}: {e}.", i + 1)))?;
        let mut specs: Vec<crate::TaskSpec> = worm.iter().copied().map(crate::TaskSpec::new).collect();
        crate::TaskSpec::set_on_all(&mut specs, &set, "chosen").map_err(|e| err(format!("set {}: {e}.", i + 1)))?;
        if out.contains(&set) {
            return Err(err(format!("set {} ({part}) is given twice.", i + 1)));
        }
        out.push(set);
    }
    if out.len() < 2 || out.len() > MAX_CONDITIONS {
        return Err(err(format!(
            "give 2 to {MAX_CONDITIONS} parameter sets separated by |, e.g. noise_mask=true|noise_mask=false."
        )));
    }
    Ok(out)
}

/// The most counterbalanced conditions a link may name.
pub const MAX_CONDITIONS: usize = 64;

/// `adaptive=`: the study's tasks that run as a staircase, each with a level to move.
fn parse_adaptive(tasks: &[StudyTask], v: &str) -> Result<Vec<StudyTask>, StudyError> {
    let with_level: Vec<StudyTask> = tasks.iter().copied().filter(|t| t.level_kind().is_some()).collect();
    let allowed = || {
        if with_level.is_empty() {
            "this study has none (CD, VSR, VSRec, LSR and N-back can run as a staircase)".to_string()
        } else {
            format!("this study's are {}, or all", with_level.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", "))
        }
    };
    if v.eq_ignore_ascii_case("all") {
        if with_level.is_empty() {
            return Err(StudyError::new("adaptive", format!("no task can run as a staircase: {}.", allowed())));
        }
        return Ok(with_level);
    }
    let mut out = Vec::new();
    for name in v.split(',').map(str::trim) {
        let t = StudyTask::parse(name)
            .ok_or_else(|| StudyError::new("adaptive", format!("unknown task “{name}”; {}.", allowed())))?;
        if t.level_kind().is_none() {
            return Err(StudyError::new(
                "adaptive",
                format!("{name} has no level a staircase can move; {}.", allowed()),
            ));
        }
        if !tasks.contains(&t) {
            return Err(StudyError::new("adaptive", format!("{name} is not one of the study's tasks; {}.", allowed())));
        }
        if out.contains(&t) {
            return Err(StudyError::new("adaptive", format!("“{name}” is listed twice.")));
        }
        out.push(t);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
