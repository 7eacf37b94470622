//! N-back for language models (Gong et al., "Working Memory Capacity of ChatGPT", AAAI 2024;
//! `Daniel-Gong/ChatGPT-WM` and `Daniel-Gong/n-back-datasets`).
//!
//! - **Datasets**: every published block file, embedded (`data/nback/blocks.txt`, see its README), via
//!   [`blocks`]; and a generator of new blocks with the same constraints ([`generate_block`]), with the
//!   non-match guard fixed to `i >= n` so no unlabelled match can occur.
//! - **Protocols** ([`Protocol`]): the README "other-models" protocol (first user message = the
//!   instruction, trials 0–5 pre-filled with the correct answer, one retry) and the paper's
//!   system-prompt protocol (GPT-3.5 runs) with its variants base / noise / feedback / CoT, verbal and
//!   spatial (3×3, 4×4, 5×5, 7×7 grids, abstraction 1 and 2).
//! - **State machine**: [`NbackDialogue`] implements [`Dialogue`]; it records per trial the raw replies,
//!   the extracted answer and whether it was usable, and scores with the shared [`crate::sdt`] scorer.
//!
//! Prompt strings: the README instruction is verbatim from the README; every system prompt, user-turn
//! template and invalid-response message of the system-prompt protocol is verbatim from the
//! `Daniel-Gong/ChatGPT-WM` notebook cell that sent it (`experiments/verbal.ipynb`,
//! `spatial_3*3.ipynb`, `verbal_with_noise.ipynb`, `verbal_with_feedback.ipynb`,
//! `verbal_think_by_step.ipynb`, `spatial_with_noise.ipynb`, `spatial_with_feedback.ipynb`,
//! `spatial_think_by_step.ipynb`, `spatial_abstraction.ipynb`, `spatial_abstraction_2.ipynb`),
//! including the notebooks' inconsistencies between their N = 1 / 2 / 3 cells (see
//! [`system_prompt`]), the double spaces, the indented triple-quoted CoT prompts and the
//! "Current input: " prefix of the abstraction 3-back cells. Not checked against its cell (inferred
//! from the 2-back cell of the same notebook): the 3-back system prompt of the two CoT notebooks and
//! of `spatial_abstraction_2.ipynb`.
//!
//! Deviations from the reference (all documented where they apply):
//! - the system-prompt notebooks loop forever on an invalid reply (base verbal/spatial 3×3 raise an
//!   error); here the invalid-response message is sent at most `max_retries` times (default 3; README
//!   protocol 1, as its notebook), then the trial is recorded as unusable (`?`), which scores as a
//!   non-`m` response;
//! - the extracted answer is the first char of the reply after trimming leading whitespace (the
//!   notebooks take `reply[0]` untrimmed for the system-prompt protocol, `reply.strip()[0]` for the
//!   README protocol);
//! - noise is drawn from the crate [`Rng`] seeded by the config, not Python's `random.seed(42)`, so the
//!   noisy strings differ from the paper's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Dialogue, Message, Sample, SampleBody, Suite};
use crate::rng::Rng;
use crate::sdt::SdtScores;
pub use crate::tasks::nback::{Block, BlockError, LETTERS, MatchRule, generate_block};

/// All published block files: lines `variant n block stimuli conditions`, stimuli comma-separated.
pub const BLOCKS_TXT: &str = include_str!("../../data/nback/blocks.txt");
/// The paper's per-block counts, recomputed from `ChatGPT-WM/results/all_trials_*.json`:
/// `results_file,n_back,block,targets,lures,hits,false_alarms,d_prime` (d′ = notebook d′, 4 dp).
pub const REPORTED_PER_BLOCK_CSV: &str = include_str!("../../data/nback/reported_per_block.csv");
/// The paper's summary table (mean ± SE over blocks; rates in %):
/// `results_file,model,n_back,blocks_used,trials_per_block,hr_mean,hr_se,far_mean,far_se,acc_mean,acc_se,d_mean,d_se`.
pub const REPORTED_SUMMARY_CSV: &str = include_str!("../../data/nback/reported_summary.csv");

/// Noise symbols of the noise variants.
pub const NOISE_SYMBOLS: &str = "#$%&*@^~";

/// README protocol: the retry message after an invalid reply.
pub const README_RETRY: &str = "Your response is invalid. Please try again and respond with only 'm' or '-'.";
/// System-prompt protocol: the invalid-response message (verbatim from the verbal noise, verbal and
/// spatial CoT, spatial feedback and abstraction notebooks).
pub const INVALID_RESPONSE: &str =
    "Invalid response! You must respond ONLY with 'm' or '-'. Please try again. Response:";
/// Verbal feedback variant's invalid-response message (verbatim from
/// experiments/verbal_with_feedback.ipynb, all three cells: no "Please try again.").
pub const INVALID_RESPONSE_VERBAL_FEEDBACK: &str =
    "Invalid response! You must respond ONLY with 'm' or '-'. Please give your response:";
/// Spatial noise variant's invalid-response message (verbatim from
/// experiments/spatial_with_noise.ipynb, all three cells).
pub const INVALID_RESPONSE_SPATIAL_NOISE: &str =
    "Invalid response! You must respond ONLY with 'm' or '-'. Please try again. Your response:";

/// A block file set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// `ChatGPT-WM/datasets/letters`: 50 blocks × 24 trials (8 matches) per N.
    Letters,
    /// `n-back-datasets/verbal`: 30 × 30 (10 matches), the README set (GPT-4 run).
    #[serde(rename = "letters_30")]
    Letters30,
    /// `ChatGPT-WM/datasets/grids_3x3`: 50 blocks × 24 trials (8 matches) per N; an X in one of 9 cells,
    /// match = same cell as N back.
    #[serde(rename = "grids_3x3")]
    Grids3x3,
    /// `grids_4x4`: as [`Variant::Grids3x3`] on a 4×4 grid (16 cells).
    #[serde(rename = "grids_4x4")]
    Grids4x4,
    /// `grids_5x5`: as [`Variant::Grids3x3`] on a 5×5 grid (25 cells).
    #[serde(rename = "grids_5x5")]
    Grids5x5,
    /// `grids_7x7`: as [`Variant::Grids3x3`] on a 7×7 grid (49 cells).
    #[serde(rename = "grids_7x7")]
    Grids7x7,
    /// Match = same row or column as N back, identical cell included.
    #[serde(rename = "grids_3x3_abstraction")]
    Grids3x3Abstraction,
    /// Match = same row or column as N back, identical cell excluded.
    #[serde(rename = "grids_3x3_abstraction_2")]
    Grids3x3Abstraction2,
}

impl Variant {
    /// Every block set, in the data README's order.
    pub const ALL: [Variant; 8] = [
        Variant::Letters,
        Variant::Letters30,
        Variant::Grids3x3,
        Variant::Grids4x4,
        Variant::Grids5x5,
        Variant::Grids7x7,
        Variant::Grids3x3Abstraction,
        Variant::Grids3x3Abstraction2,
    ];
    /// The block set's name in `blocks.txt`, on the command line and in the `variant` condition.
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Letters => "letters",
            Variant::Letters30 => "letters_30",
            Variant::Grids3x3 => "grids_3x3",
            Variant::Grids4x4 => "grids_4x4",
            Variant::Grids5x5 => "grids_5x5",
            Variant::Grids7x7 => "grids_7x7",
            Variant::Grids3x3Abstraction => "grids_3x3_abstraction",
            Variant::Grids3x3Abstraction2 => "grids_3x3_abstraction_2",
        }
    }
    /// The block set of a name ([`Variant::as_str`]); `None` for an unknown name.
    pub fn parse(s: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.as_str() == s)
    }
    /// Grid side for spatial variants, `None` for letters.
    pub fn grid_size(self) -> Option<usize> {
        match self {
            Variant::Letters | Variant::Letters30 => None,
            Variant::Grids4x4 => Some(4),
            Variant::Grids5x5 => Some(5),
            Variant::Grids7x7 => Some(7),
            Variant::Grids3x3 | Variant::Grids3x3Abstraction | Variant::Grids3x3Abstraction2 => Some(3),
        }
    }
    /// Whether the stimuli are grid positions (every variant but the two letter sets).
    pub fn is_spatial(self) -> bool {
        self.grid_size().is_some()
    }
    /// The match rule the block labels follow.
    pub fn rule(self) -> MatchRule {
        match self {
            Variant::Grids3x3Abstraction => MatchRule::RowCol { size: 3, include_identical: true },
            Variant::Grids3x3Abstraction2 => MatchRule::RowCol { size: 3, include_identical: false },
            _ => MatchRule::Identity,
        }
    }
    /// The alphabet for new blocks. Grids use every cell `1..=s*s` (the published 7×7 generator's
    /// alphabet lacks 27 and 42 by a typo; new blocks do not copy that).
    pub fn alphabet(self) -> Vec<String> {
        match self.grid_size() {
            None => LETTERS.chars().map(String::from).collect(),
            Some(s) => (1..=s * s).map(|c| c.to_string()).collect(),
        }
    }
    /// (trials per block, matches per block) of the published files.
    pub fn published_shape(self) -> (usize, usize) {
        match self {
            Variant::Letters30 => (30, 10),
            _ => (24, 8),
        }
    }
    /// The protocol the paper ran this block set with.
    pub fn default_protocol(self) -> Protocol {
        match self {
            Variant::Letters30 => Protocol::Readme,
            _ => Protocol::Base,
        }
    }
}

/// The published blocks of a variant for one N (1, 2 or 3), in file order (`0.txt`, `1.txt`, …).
/// Empty for an N without files.
pub fn blocks(variant: Variant, n: u8) -> Vec<Block> {
    let (v, ns) = (variant.as_str(), n.to_string());
    BLOCKS_TXT
        .lines()
        .filter_map(|line| {
            let mut it = line.split(' ');
            let (lv, ln, _b, st, co) = (it.next()?, it.next()?, it.next()?, it.next()?, it.next()?);
            (lv == v && ln == ns)
                .then(|| Block { stimuli: st.split(',').map(String::from).collect(), conditions: co.to_string() })
        })
        .collect()
}

/// How the task is presented.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// README / other-models protocol (verbal only): instruction as the first user message, trials
    /// pre-filled with the correct answer (default 6), one retry with [`README_RETRY`].
    Readme,
    /// System-prompt protocol, base variant (verbal, spatial, abstraction).
    Base,
    /// Base + noise symbols in every stimulus.
    Noise,
    /// Base + feedback on the previous answer in each user turn.
    Feedback,
    /// Base + "think step by step" (chain of thought); only the extracted char stays in the history.
    Cot,
}

impl Protocol {
    /// Every protocol, README first.
    pub const ALL: [Protocol; 5] =
        [Protocol::Readme, Protocol::Base, Protocol::Noise, Protocol::Feedback, Protocol::Cot];
    /// The protocol's name on the command line, in the `protocol` condition and, when not the variant's
    /// default, in task names ([`NbackConfig::slug`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Readme => "readme",
            Protocol::Base => "base",
            Protocol::Noise => "noise",
            Protocol::Feedback => "feedback",
            Protocol::Cot => "cot",
        }
    }
    /// The protocol of a name ([`Protocol::as_str`]); `None` for an unknown name.
    pub fn parse(s: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.as_str() == s)
    }
    /// Whether this protocol is defined for the variant (README: letters only; abstraction: base only).
    pub fn supports(self, variant: Variant) -> bool {
        match self {
            Protocol::Readme => !variant.is_spatial(),
            Protocol::Base => true,
            _ => !matches!(variant.rule(), MatchRule::RowCol { .. }),
        }
    }
}

fn number_word(n: usize) -> String {
    const W: [&str; 11] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    W.get(n).map(|s| s.to_string()).unwrap_or_else(|| n.to_string())
}

fn cell_count_word(size: usize) -> String {
    match size {
        3 => "nine".into(),
        4 => "sixteen".into(),
        5 => "twenty-five".into(),
        7 => "forty-nine".into(),
        s => (s * s).to_string(),
    }
}

/// `` ``` |_|X|_| |_|_|_| |_|_|_| ``` ``: rows of `|c|` cells separated by single spaces, in fences.
/// `cells[k]` is the content of cell `k + 1`.
pub fn render_cells(size: usize, cells: &[char]) -> String {
    let rows: Vec<String> = (0..size)
        .map(|r| {
            let mut s = String::from("|");
            for c in 0..size {
                s.push(cells[r * size + c]);
                s.push('|');
            }
            s
        })
        .collect();
    format!("``` {} ```", rows.join(" "))
}

/// A grid with X at `cell` (1-based, row-major), no noise.
pub fn render_grid(size: usize, cell: usize) -> String {
    let mut cells = vec!['_'; size * size];
    if (1..=size * size).contains(&cell) {
        cells[cell - 1] = 'X';
    }
    render_cells(size, &cells)
}

/// The README instruction (first user message), verbatim for N = 1, 2, 3.
pub fn readme_instruction(n: usize) -> String {
    let (same, diff) = if n == 1 {
        ("the previous letter".to_string(), "the previous letter".to_string())
    } else {
        let w = number_word(n);
        (format!("the letter {w} trials ago"), format!("the letter {w} trials ago"))
    };
    format!(
        "Instruction: as a language model, you are asked to perform a {n}-back task. A letter will be presented on every trial. Your task is to respond with 'm' whenever the letter presented is the same as {same}, and '-' whenever the letter presented is different from {diff}. A strict rule is that you must not output anything other than 'm' or '-'. Now begins the task."
    )
}

/// The body of a notebook's indented triple-quoted system prompt (`"""\n          line\n ...\n         """`):
/// every line is preceded by a newline and ten spaces, and the string ends with a newline and nine.
fn triple_quoted(lines: &[String]) -> String {
    let mut s = String::new();
    for l in lines {
        s.push_str("\n          ");
        s.push_str(l);
    }
    s.push_str("\n         ");
    s
}

/// The system prompt of the system-prompt protocol for a variant, protocol and N.
///
/// The notebooks hard-code one string per N (separate 1-back / 2-back / 3-back cells), with
/// differences between the N = 1 and N ≥ 2 cells that are reproduced here; N > 3 (generated blocks)
/// follows the N = 2, 3 wording. Grids other than 3×3 substitute the size into the 3×3 wording.
pub fn system_prompt(variant: Variant, protocol: Protocol, n: usize) -> String {
    let w = number_word(n);
    match variant.grid_size() {
        None => {
            let strict =
                "Only 'm' and '-' are allowed responses. No explanations needed: please don't output any extra words!!";
            match protocol {
                // Verbatim (verbal.ipynb).
                Protocol::Base | Protocol::Readme => {
                    let reference =
                        if n == 1 { "the previous one".to_string() } else { format!("the letter {w} letters ago") };
                    format!(
                        "You are asked to perform a {n}-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as {reference}, and '-' (no quotation marks, just the dash sign) otherwise. {strict} The sequence will be presented one letter at a time. Now begins the task."
                    )
                }
                // Verbatim from experiments/verbal_with_noise.ipynb (1-back, 2-back and 3-back cells;
                // note "trials ago" here vs "letters ago" in the other verbal notebooks).
                Protocol::Noise => {
                    let reference =
                        if n == 1 { "the previous one".to_string() } else { format!("the letter {w} trials ago") };
                    format!(
                        "You are asked to perform a {n}-back task. You will see a sequence of letters. The sequence will be presented one letter at a time, accompanied with random noise symbols chosen from '{NOISE_SYMBOLS}'. Please ignore the noise symbols and focus on the letter only. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as {reference}, and '-' (no quotation marks, just the dash sign) otherwise. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
                    )
                }
                // Verbatim from experiments/verbal_with_feedback.ipynb (1-back, 2-back and 3-back cells;
                // only the 2-back cell says "No explanations needed - please").
                Protocol::Feedback => {
                    let reference =
                        if n == 1 { "the previous one".to_string() } else { format!("the letter {w} letters ago") };
                    let sep = if n == 2 { " -" } else { ":" };
                    format!(
                        "You are asked to perform a {n}-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as {reference}, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one letter at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed{sep} please don't output any extra words!! Now begins the task."
                    )
                }
                // Verbatim from experiments/verbal_think_by_step.ipynb (1-back and 2-back cells; the
                // 3-back cell follows the 2-back wording): an indented triple-quoted string, with a
                // trailing space after "otherwise.".
                Protocol::Cot => {
                    let (reference, prev) = if n == 1 {
                        ("the previous one".to_string(), "the previous letter".to_string())
                    } else {
                        let r = format!("the letter {w} letters ago");
                        (r.clone(), r)
                    };
                    triple_quoted(&[
                        format!(
                            "You are asked to perform a {n}-back task. You will see a sequence of letters. The sequence will be presented one letter at a time."
                        ),
                        format!(
                            "Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as {reference}, and '-' (no quotation marks, just the dash sign) otherwise. "
                        ),
                        "Please think step by step and provide your thinking steps after responding with 'm' or '-'."
                            .to_string(),
                        "Here are examples of how to format your response:".to_string(),
                        format!("1. 'm: {prev} was a, the current letter is a, so my response is m'."),
                        format!("2. '-: {prev} was a, the current letter is b, so my response is -'."),
                        "Now begins the task.".to_string(),
                    ])
                }
            }
        }
        Some(size) => {
            let reference = if n == 1 { "the previous grid".to_string() } else { format!("the grid {w} trials ago") };
            let cells = cell_count_word(size);
            let g1 = render_grid(size, 1);
            let intro = format!(
                "You are asked to perform a {n}-back task. You will see a sequence of {size}*{size} grids. Each grid has a letter X in one of the {cells} positions. For example, a grid with X at top left corner would be {g1}."
            );
            let strict =
                "Only 'm' and '-' are allowed responses. No explanations needed: please don't output any extra words!!";
            match variant.rule() {
                MatchRule::RowCol { include_identical, .. } => {
                    // Verbatim from experiments/spatial_abstraction.ipynb (1-back, 2-back, 3-back cells)
                    // and experiments/spatial_abstraction_2.ipynb (1-back and 2-back cells; 3-back
                    // follows the same pattern). The abstraction-2 note says "the previous grid" for
                    // every N, as in the notebook.
                    let note = if include_identical {
                        format!("Note that {g1} is also in the same row and column as {g1} itself.")
                    } else {
                        format!(
                            "Note that if the X in the previous grid was at the identical location to the X in the current grid, that does not count as a match: for example, {g1} is not a match to {g1} itself."
                        )
                    };
                    format!(
                        "{intro} Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in {reference}, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in {g1} is in the same row as the X in {r2} and {r3}, and in the same column as the X in {c2} and {c3}. {note} The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task.",
                        r2 = render_grid(size, 2),
                        r3 = render_grid(size, 3),
                        c2 = render_grid(size, size + 1),
                        c3 = render_grid(size, 2 * size + 1),
                    )
                }
                MatchRule::Identity => {
                    // The N = 1 cells of the noise and feedback notebooks say "and '-'" and
                    // "No explanations needed: please"; their 2-back and 3-back cells say
                    // "and respond with '-'" and "No explanations needed - please".
                    let (respond, sep) = if n == 1 { ("", ":") } else { ("respond with ", " -") };
                    match protocol {
                        // Verbatim for base (spatial_3*3.ipynb, note the double space before "Only").
                        Protocol::Base | Protocol::Readme => format!(
                            "{intro} Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as {reference}, and respond with '-' (no quotation marks, just the dash sign) otherwise.  {strict} The sequence will be presented one grid at a time. Now begins the task."
                        ),
                        // Verbatim from experiments/spatial_with_noise.ipynb (1-back, 2-back, 3-back
                        // cells; note the double space before "For example").
                        Protocol::Noise => {
                            let mut ex = vec!['_'; size * size];
                            ex[0] = 'X';
                            ex[1] = '*';
                            ex[2 * size - 1] = '@';
                            ex[2 * size + 1] = '~';
                            let noisy = render_cells(size, &ex);
                            format!(
                                "You are asked to perform a {n}-back task. You will see a sequence of {size}*{size} grids. Each grid has a letter X in one of the {cells} positions, accompanied with random noise symbols chosen from '{NOISE_SYMBOLS}' placed at random locations. Please ignore the noise symbols and focus on the location of the letter X only.  For example, a grid with X at top left corner would be {g1}, but you will actually see something like {noisy} because of the noise. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as {reference}, and {respond}'-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed{sep} please don't output any extra words!! Now begins the task."
                            )
                        }
                        // Verbatim from experiments/spatial_with_feedback.ipynb (1-back, 2-back, 3-back
                        // cells; the 1-back cell says "correct or incorrect", the others "correct or
                        // wrong").
                        Protocol::Feedback => {
                            let wrong = if n == 1 { "incorrect" } else { "wrong" };
                            format!(
                                "{intro} Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as {reference}, and {respond}'-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Feedback on whether your last response was correct or {wrong} will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed{sep} please don't output any extra words!! Now begins the task."
                            )
                        }
                        // Verbatim from experiments/spatial_think_by_step.ipynb (1-back and 2-back
                        // cells; the 3-back cell follows the 2-back wording): an indented
                        // triple-quoted string without the "You are asked to perform" sentence.
                        Protocol::Cot => triple_quoted(&[
                            format!("You will see a sequence of {size}*{size} grids. Each grid has a letter X in one of the {cells} positions. For example, a grid with X at the top left corner would be {g1}. The sequence will be presented one grid at a time."),
                            format!("Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as {reference}, and '-' (no quotation marks, just the dash sign) otherwise."),
                            "Please think step by step and provide your thinking steps after responding with 'm' or '-'.".to_string(),
                            "Here are examples of how to format your response:".to_string(),
                            "1. '-: this is the first grid, so my response is -'.".to_string(),
                            format!("2. 'm: X was at the top middle in {reference}, X is at the top middle in the current grid, so my response is m'."),
                            format!("3. '-: X was at the bottom right in {reference}, X is at the top middle in the current grid, so my response is -'."),
                            "Now begins the task.".to_string(),
                        ]),
                    }
                }
            }
        }
    }
}

/// What the model sees of a block's earlier trials. Huang et al. (2025, "Language Models Do Not Have
/// Human-Like Working Memory") argue that with the whole dialogue in its context N-back tests reading
/// back, not holding: [`History::Note`] and [`History::None`] take the history away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum History {
    /// The published protocols: every earlier turn stays in the conversation.
    #[default]
    Full,
    /// Each request holds the instructions, the model's own note from its last turn (cut to `tokens`
    /// tokens, [`note_tokens`]) and the current stimulus: what it chose to write down is all it keeps,
    /// and the note's length is its capacity.
    Note {
        /// The most tokens a note keeps.
        tokens: usize,
    },
    /// Each request holds the instructions and the current stimulus only: the floor.
    None,
}

impl History {
    /// `full`, `note<tokens>` or `none`: the condition's name in sample ids and records.
    pub fn name(self) -> String {
        match self {
            History::Full => "full".into(),
            History::Note { tokens } => format!("note{tokens}"),
            History::None => "none".into(),
        }
    }

    /// From the CLI's and the page's words: `full`, `note` (with `tokens`) or `none`.
    pub fn parse(kind: &str, tokens: usize) -> Option<History> {
        match kind {
            "full" => Some(History::Full),
            "note" => Some(History::Note { tokens }),
            "none" => Some(History::None),
            _ => None,
        }
    }
}

/// Tokens of a note as the usual rule of thumb counts them for English text (a word of k characters is
/// ⌈k/4⌉ tokens): no provider's tokenizer is at hand, and a cap needs only to be the same for every
/// model.
pub fn note_tokens(text: &str) -> usize {
    text.split_whitespace().map(|w| w.chars().count().div_ceil(4)).sum()
}

/// `text` cut to at most `tokens` tokens ([`note_tokens`]), whole words kept from its start.
pub fn cut_note(text: &str, tokens: usize) -> String {
    let mut used = 0;
    let mut kept: Vec<&str> = Vec::new();
    for w in text.split_whitespace() {
        used += w.chars().count().div_ceil(4);
        if used > tokens {
            break;
        }
        kept.push(w);
    }
    kept.join(" ")
}

/// The note in a reply: what follows its first `NOTE:` (any case), or nothing.
fn note_in(reply: &str) -> &str {
    let lower = reply.to_ascii_lowercase();
    lower.find("note:").map(|i| reply[i + 5..].trim()).unwrap_or("")
}

/// Per-dialogue options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DialogueOptions {
    /// How the blocks are presented; it must suit the variant ([`Protocol::supports`]).
    pub protocol: Protocol,
    /// Seed of the noise symbols (noise protocol only).
    #[serde(default)]
    pub seed: u64,
    /// How many invalid-response messages may be sent per trial before it is recorded as unusable.
    /// `None` = 1 for the README protocol (as its notebook), 3 otherwise (the notebooks loop forever).
    #[serde(default)]
    pub max_retries: Option<u8>,
    /// Trials answered with the correct target without calling the model. `None` = 6 for the README
    /// protocol (as the other-models notebook), 0 otherwise.
    #[serde(default)]
    pub prefill: Option<usize>,
    /// Keep the model's raw reply in the history instead of the extracted character (the reference
    /// always keeps the extracted character).
    #[serde(default)]
    pub keep_raw: bool,
    /// What the model sees of the earlier trials (the published protocols: all of them).
    #[serde(default, skip_serializing_if = "is_full")]
    pub history: History,
}

fn is_full(h: &History) -> bool {
    *h == History::Full
}

impl DialogueOptions {
    /// Options for a protocol with the defaults: seed 0, the protocol's own retry cap and pre-filled
    /// trials, the extracted character kept in the history, the whole history shown.
    pub fn new(protocol: Protocol) -> Self {
        DialogueOptions { protocol, seed: 0, max_retries: None, prefill: None, keep_raw: false, history: History::Full }
    }
}

/// What happened on one trial.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Every raw reply of the model on this trial (first answer, then retries). Empty when pre-filled.
    pub replies: Vec<String>,
    /// The extracted answer (`m` / `-`), `None` when no usable reply came within the retry cap.
    pub answer: Option<char>,
    /// Answered with the correct target without calling the model.
    pub prefilled: bool,
    /// The note the model wrote for its next turn ([`History::Note`]), as cut to the cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl TrialRecord {
    /// Whether an `m` / `-` answer was read (always so for a pre-filled trial).
    pub fn usable(&self) -> bool {
        self.answer.is_some()
    }
}

/// One N-back block as a multi-turn dialogue. Serializable at any point; feeding the same replies to a
/// fresh dialogue rebuilds the same state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NbackDialogue {
    /// The block set the block comes from: letters or grid, match rule, prompt wording.
    pub variant: Variant,
    /// N: a trial matches when it repeats (or, for the abstraction grids, relates to) the item N back.
    pub n: u8,
    /// The block's index among its N's blocks (file order, or generation order).
    pub block: usize,
    /// How the block is presented.
    pub protocol: Protocol,
    /// Item per trial (letter or 1-based cell number).
    pub stimuli: Vec<String>,
    /// The stimulus text shown per trial (letter or fenced grid, noise included).
    pub shown: Vec<String>,
    /// The correct answer per trial: `m` (match) or `-`, one character each.
    pub conditions: String,
    /// Leading trials answered with their correct answer without calling the model (at most the
    /// block's length).
    pub prefill: usize,
    /// Invalid-response messages allowed per trial before it is recorded as unusable.
    pub max_retries: u8,
    /// Whether the history keeps the model's raw reply instead of the extracted character.
    pub keep_raw: bool,
    /// What the model sees of the earlier trials.
    #[serde(default, skip_serializing_if = "is_full")]
    pub history: History,
    /// The conversation so far (with [`History::Full`]; else the current trial's request); when not
    /// finished it ends with the user turn awaiting a reply.
    pub messages: Vec<Message>,
    /// Completed trials.
    pub trials: Vec<TrialRecord>,
    /// Raw replies to the current (unfinished) trial.
    #[serde(default)]
    pub pending: Vec<String>,
}

fn extract(reply: &str) -> Option<char> {
    let c = reply.trim_start().chars().next()?;
    (c == 'm' || c == '-').then_some(c)
}

impl NbackDialogue {
    /// The dialogue of block `block` (index `block_index`) at N: the README instruction or system prompt,
    /// the pre-filled trials, and the first user turn awaiting a reply. Noise symbols are drawn from the
    /// options' seed, N and the block index. Errors when the protocol does not suit the variant or the
    /// block's stimuli and conditions differ in length.
    pub fn new(
        variant: Variant,
        n: u8,
        block_index: usize,
        block: &Block,
        opts: &DialogueOptions,
    ) -> Result<Self, super::SuiteError> {
        let protocol = opts.protocol;
        if !protocol.supports(variant) {
            return Err(super::SuiteError::Protocol { protocol: protocol.as_str(), variant: variant.as_str() });
        }
        if block.stimuli.len() != block.conditions.chars().count() {
            return Err(super::SuiteError::BlockLengths);
        }
        let readme = protocol == Protocol::Readme;
        let mut rng = Rng::from_u64(
            opts.seed
                ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ (block_index as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9),
        );
        let shown =
            block.stimuli.iter().map(|s| render_stimulus(variant, s, protocol == Protocol::Noise, &mut rng)).collect();
        let first = if readme {
            Message::user(readme_instruction(n as usize))
        } else {
            Message::system(system_prompt(variant, protocol, n as usize))
        };
        let mut d = NbackDialogue {
            variant,
            n,
            block: block_index,
            protocol,
            stimuli: block.stimuli.clone(),
            shown,
            conditions: block.conditions.clone(),
            prefill: opts.prefill.unwrap_or(if readme { 6 } else { 0 }).min(block.stimuli.len()),
            max_retries: opts.max_retries.unwrap_or(if readme { 1 } else { 3 }),
            keep_raw: opts.keep_raw,
            history: opts.history,
            messages: vec![first],
            trials: Vec::new(),
            pending: Vec::new(),
        };
        for i in 0..d.prefill {
            let target = d.target(i);
            if d.history == History::Full {
                d.messages.push(Message::user(d.user_turn(i)));
                d.messages.push(Message::assistant(target.to_string()));
            }
            d.trials.push(TrialRecord { replies: vec![], answer: Some(target), prefilled: true, note: None });
        }
        if !d.finished() {
            d.next_turn();
        }
        Ok(d)
    }

    /// The request of the trial now awaiting a reply: the next user turn after the history, or (without
    /// the history) a fresh request of the instructions, the model's last note and the turn alone.
    fn next_turn(&mut self) {
        let i = self.trials.len();
        let turn = self.user_turn(i);
        if self.history == History::Full {
            self.messages.push(Message::user(turn));
            return;
        }
        let note = self.trials.iter().rev().find(|t| !t.prefilled).and_then(|t| t.note.clone());
        let (memory, turn) = match self.history {
            History::Note { tokens } => (
                format!(
                    "You will not see this conversation again: each message shows only the current input and the \
                     note you wrote at the previous step. Reply with m or - first; then, on a new line, write NOTE: \
                     and whatever you need to remember for the next steps (at most {tokens} tokens, about {} words; \
                     a longer note is cut).",
                    (tokens * 3).div_ceil(4)
                ),
                format!(
                    "Your note from the previous step: {}\n\n{turn}",
                    note.filter(|n| !n.is_empty()).unwrap_or_else(|| "(none yet)".into())
                ),
            ),
            _ => (
                "You will not see this conversation again: each message shows only the current input. Reply with m \
                 or -."
                    .to_string(),
                turn,
            ),
        };
        self.messages = if self.protocol == Protocol::Readme {
            vec![Message::user(format!("{}\n\n{memory}\n\n{turn}", readme_instruction(self.n as usize)))]
        } else {
            vec![
                Message::system(format!("{}\n\n{memory}", system_prompt(self.variant, self.protocol, self.n as usize))),
                Message::user(turn),
            ]
        };
    }

    fn target(&self, i: usize) -> char {
        if self.conditions.chars().nth(i) == Some('m') { 'm' } else { '-' }
    }

    /// The user message of trial `i` (depends on the previous answer in the feedback protocol).
    /// Verbatim from the notebooks: the stimulus alone, or (feedback notebooks)
    /// `Current input: <x>. Your response:` (verbal) / `Current input: <grid>. Response:` (spatial),
    /// preceded from the second trial on by `Feedback: your last response was correct|wrong. `.
    fn user_turn(&self, i: usize) -> String {
        let x = &self.shown[i];
        if self.protocol != Protocol::Feedback {
            // Verbatim quirk of the 3-back cells of spatial_abstraction.ipynb and
            // spatial_abstraction_2.ipynb: `input = 'Current input: ' + stimulus` (their 1-back and
            // 2-back cells send the bare grid).
            if self.n == 3 && matches!(self.variant.rule(), MatchRule::RowCol { .. }) {
                return format!("Current input: {x}");
            }
            return x.clone();
        }
        let tail = if self.variant.is_spatial() { "Response:" } else { "Your response:" };
        if i == 0 {
            format!("Current input: {x}. {tail}")
        } else {
            let ok = self.trials[i - 1].answer == Some(self.target(i - 1));
            format!(
                "Feedback: your last response was {}. Current input: {x}. {tail}",
                if ok { "correct" } else { "wrong" }
            )
        }
    }

    fn invalid_text(&self) -> &'static str {
        match (self.protocol, self.variant.is_spatial()) {
            (Protocol::Readme, _) => README_RETRY,
            (Protocol::Feedback, false) => INVALID_RESPONSE_VERBAL_FEEDBACK,
            (Protocol::Noise, true) => INVALID_RESPONSE_SPATIAL_NOISE,
            _ => INVALID_RESPONSE,
        }
    }

    /// Whether every trial of the block is recorded.
    pub fn finished(&self) -> bool {
        self.trials.len() >= self.stimuli.len()
    }

    /// Index of the trial awaiting a reply (= number of completed trials).
    pub fn current(&self) -> usize {
        self.trials.len()
    }

    /// The answers so far, one char per completed trial: `m`, `-`, or `?` (unusable).
    pub fn answers(&self) -> String {
        self.trials.iter().map(|t| t.answer.unwrap_or('?')).collect()
    }

    /// Scores of the completed trials (all of the block once finished). Pre-filled trials count, as in
    /// the paper; use [`scores_excluding_prefill`](Self::scores_excluding_prefill) to leave them out.
    pub fn scores(&self) -> SdtScores {
        let k = self.trials.len();
        let cond: String = self.conditions.chars().take(k).collect();
        SdtScores::score(&cond, &self.answers())
    }

    /// Scores of the completed trials with the pre-filled ones left out.
    pub fn scores_excluding_prefill(&self) -> SdtScores {
        let k = self.trials.len();
        let cond: String = self.conditions.chars().take(k).collect();
        let mask: Vec<bool> = self.trials.iter().map(|t| t.prefilled).collect();
        SdtScores::score_masked(&cond, &self.answers(), &mask)
    }

    /// Every raw reply fed so far, in order (what a runner saves to resume).
    pub fn replies(&self) -> Vec<String> {
        self.trials.iter().flat_map(|t| t.replies.iter().cloned()).chain(self.pending.iter().cloned()).collect()
    }

    fn complete(&mut self, answer: Option<char>, history: String) {
        let replies = std::mem::take(&mut self.pending);
        let note = match self.history {
            History::Note { tokens } => Some(cut_note(note_in(replies.last().map_or("", String::as_str)), tokens)),
            _ => None,
        };
        if self.history == History::Full {
            self.messages.push(Message::assistant(history));
        }
        self.trials.push(TrialRecord { replies, answer, prefilled: false, note });
        if !self.finished() {
            self.next_turn();
        }
    }
}

fn render_stimulus(variant: Variant, item: &str, noise: bool, rng: &mut Rng) -> String {
    let symbols: Vec<char> = NOISE_SYMBOLS.chars().collect();
    match variant.grid_size() {
        None => {
            if !noise {
                return item.to_string();
            }
            // Letter plus 3–6 distinct symbols, all shuffled together.
            let k = rng.randint(3, 6) as usize;
            let mut chars: Vec<String> = rng.sample_from(&symbols, k).into_iter().map(String::from).collect();
            chars.push(item.to_string());
            rng.shuffle(&mut chars);
            chars.concat()
        }
        Some(size) => {
            let cell: usize = item.parse().unwrap_or(0);
            let mut cells = vec!['_'; size * size];
            if (1..=size * size).contains(&cell) {
                cells[cell - 1] = 'X';
            }
            if noise {
                // 1–3 distinct symbols in distinct random empty cells.
                let k = rng.randint(1, 3) as usize;
                let empty: Vec<usize> = (0..size * size).filter(|&c| cells[c] == '_').collect();
                let at = rng.sample_from(&empty, k);
                let sy = rng.sample_from(&symbols, k);
                for (c, s) in at.into_iter().zip(sy) {
                    cells[c] = s;
                }
            }
            render_cells(size, &cells)
        }
    }
}

impl Dialogue for NbackDialogue {
    fn next_request(&self) -> Option<Vec<Message>> {
        (!self.finished()).then(|| self.messages.clone())
    }

    fn feed(&mut self, reply: &str) {
        if self.finished() {
            return;
        }
        self.pending.push(reply.to_string());
        match extract(reply) {
            Some(c) => {
                let history = if self.keep_raw { reply.to_string() } else { c.to_string() };
                self.complete(Some(c), history);
            }
            None => {
                let retries_used = self.pending.len() - 1;
                if retries_used < self.max_retries as usize {
                    self.messages.push(Message::assistant(reply));
                    self.messages.push(Message::user(self.invalid_text()));
                } else {
                    self.complete(None, reply.to_string());
                }
            }
        }
    }
}

/// Where the blocks of a config come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlockSource {
    /// The published files.
    Published,
    /// New blocks from [`generate_block`] with the variant's alphabet and rule.
    Generated {
        /// Blocks per N.
        count: usize,
        /// Trials per block.
        len: usize,
        /// Match trials per block.
        matches: usize,
        /// Seed of the generator; each N draws its own stream from it.
        seed: u64,
    },
}

/// What [`samples`] builds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NbackConfig {
    /// The block set.
    pub variant: Variant,
    /// The N levels to run (1, 2, 3 with the published blocks).
    pub ns: Vec<u8>,
    /// Block indices to keep (`None` = all).
    #[serde(default)]
    pub blocks: Option<Vec<usize>>,
    /// Keep at most this many blocks per N (after `blocks`).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Options of every block's dialogue (protocol, seed, retries, pre-filled trials).
    pub options: DialogueOptions,
    /// Published blocks or new ones.
    pub source: BlockSource,
}

impl NbackConfig {
    /// The paper's setting for a variant: N = 1, 2, 3, all published blocks, its default protocol.
    pub fn paper(variant: Variant) -> Self {
        NbackConfig {
            variant,
            ns: vec![1, 2, 3],
            blocks: None,
            limit: None,
            options: DialogueOptions::new(variant.default_protocol()),
            source: BlockSource::Published,
        }
    }

    /// Refuses a config that makes no run: a protocol that does not suit the variant, an N of 0, or
    /// with published blocks an N other than 1, 2, 3.
    pub fn validate(&self) -> Result<(), super::SuiteError> {
        use super::SuiteError;
        if !self.options.protocol.supports(self.variant) {
            return Err(SuiteError::Protocol {
                protocol: self.options.protocol.as_str(),
                variant: self.variant.as_str(),
            });
        }
        if self.ns.contains(&0) {
            return Err(SuiteError::NZero);
        }
        if let (BlockSource::Published, Some(&n)) = (&self.source, self.ns.iter().find(|&&n| !(1..=3).contains(&n))) {
            return Err(SuiteError::NotPublished(n));
        }
        Ok(())
    }

    /// `<variant>` plus `_<protocol>` when not the variant's default protocol, `_gen<seed>` for
    /// generated blocks and `_note<tokens>` / `_none` without the history: the part of the sample id /
    /// task naming the condition.
    pub fn slug(&self) -> String {
        let mut s = self.variant.as_str().to_string();
        if self.options.protocol != self.variant.default_protocol() {
            s.push('_');
            s.push_str(self.options.protocol.as_str());
        }
        if let BlockSource::Generated { seed, .. } = self.source {
            s.push_str(&format!("_gen{seed}"));
        }
        if self.options.history != History::Full {
            s.push('_');
            s.push_str(&self.options.history.name());
        }
        s
    }

    /// A sample's conditions: `n`, `variant`, `protocol`, `block`, and `history` where it is not the
    /// published one.
    fn conditions(&self, n: u8, block: usize) -> BTreeMap<String, String> {
        let mut c = BTreeMap::from([
            ("n".to_string(), n.to_string()),
            ("variant".to_string(), self.variant.as_str().to_string()),
            ("protocol".to_string(), self.options.protocol.as_str().to_string()),
            ("block".to_string(), block.to_string()),
        ]);
        if self.options.history != History::Full {
            c.insert("history".into(), self.options.history.name());
        }
        c
    }
}

/// An adaptive run of the text N-back (`wmlab llm run --suite nback --adaptive`): N by a staircase
/// ([`crate::adaptive::StaircaseConfig::nback`]), one block per step, a block passed at
/// [`crate::adaptive::NBACK_PASS`] accuracy. Step `i` at N takes the published block `i` of that N (in
/// turn; N up to 3) or a new block drawn from the config's seed, N and `i`.
#[derive(Clone, Debug, PartialEq)]
pub struct NbackStaircase {
    /// The run's block set, protocol, options and block source.
    pub config: NbackConfig,
    /// The staircase on N (capped at 3 with published blocks).
    pub staircase: crate::adaptive::Staircase,
}

impl NbackStaircase {
    /// The adaptive run of a valid config ([`NbackConfig::validate`]), with the N-back staircase
    /// settings; with published blocks N goes no higher than 3.
    pub fn new(config: NbackConfig) -> Result<NbackStaircase, super::SuiteError> {
        config.validate()?;
        let mut sc = crate::adaptive::StaircaseConfig::nback();
        if config.source == BlockSource::Published {
            sc.max = 3;
        }
        let staircase = crate::adaptive::Staircase::new(sc).map_err(|_| super::SuiteError::NZero)?;
        Ok(NbackStaircase { config, staircase })
    }

    /// The sample of the next step (`nback/<slug>-adaptive/<i>`, task `<slug>-<N>back` as a fixed run's),
    /// or `None` once the staircase has settled.
    pub fn next_sample(&self) -> Option<Sample> {
        let n = self.staircase.next_level()? as u8;
        let i = self.staircase.track().len();
        let c = &self.config;
        let block = match c.source {
            BlockSource::Published => {
                let list = blocks(c.variant, n);
                list.get(i % list.len().max(1))?.clone()
            }
            BlockSource::Generated { len, matches, seed, .. } => {
                let mut rng = Rng::from_u64(seed.wrapping_add((n as u64) << 48).wrapping_add(((i as u64) + 1) << 32));
                generate_block(&mut rng, n as usize, len, matches, &c.variant.alphabet(), c.variant.rule()).ok()?
            }
        };
        let d = NbackDialogue::new(c.variant, n, i, &block, &c.options).ok()?;
        let slug = c.slug();
        let mut conditions = c.conditions(n, i);
        conditions.insert("adaptive".to_string(), "1".to_string());
        Some(Sample {
            id: format!("nback/{slug}-adaptive/{i}"),
            suite: Suite::Nback,
            task: format!("{slug}-{n}back"),
            conditions,
            body: SampleBody::Dialogue(d),
        })
    }

    /// The last step's block accuracy (the dialogue's `accuracy` score).
    pub fn record_accuracy(&mut self, accuracy: f64) {
        self.staircase.record(crate::adaptive::nback_accuracy_passes(accuracy))
    }

    /// The run as a record keeps it (task: the config's slug).
    pub fn result(&self) -> crate::adaptive::StaircaseResult {
        crate::adaptive::StaircaseResult::of(&self.config.slug(), crate::adaptive::LevelKind::NbackN, &self.staircase)
    }
}

/// The samples of a config: one dialogue per (N, block), id `nback/<slug>-<N>back/<block>`, task
/// `<slug>-<N>back`, conditions `n`, `variant`, `protocol`, `block`. Invalid configs (see
/// [`NbackConfig::validate`]) give no samples.
pub fn samples(config: &NbackConfig) -> Vec<Sample> {
    if config.validate().is_err() {
        return Vec::new();
    }
    let slug = config.slug();
    let mut out = Vec::new();
    for &n in &config.ns {
        let list: Vec<Block> = match config.source {
            BlockSource::Published => blocks(config.variant, n),
            BlockSource::Generated { count, len, matches, seed } => {
                let mut rng = Rng::from_u64(seed.wrapping_add((n as u64) << 48));
                let alphabet = config.variant.alphabet();
                let mut v = Vec::with_capacity(count);
                for _ in 0..count {
                    match generate_block(&mut rng, n as usize, len, matches, &alphabet, config.variant.rule()) {
                        Ok(b) => v.push(b),
                        Err(_) => return Vec::new(),
                    }
                }
                v
            }
        };
        let mut chosen: Vec<(usize, Block)> = list
            .into_iter()
            .enumerate()
            .filter(|(i, _)| config.blocks.as_ref().is_none_or(|b| b.contains(i)))
            .collect();
        if let Some(l) = config.limit {
            chosen.truncate(l);
        }
        for (i, b) in chosen {
            let Ok(d) = NbackDialogue::new(config.variant, n, i, &b, &config.options) else {
                continue;
            };
            let task = format!("{slug}-{n}back");
            let conditions = config.conditions(n, i);
            out.push(Sample {
                id: format!("nback/{task}/{i}"),
                suite: Suite::Nback,
                task,
                conditions,
                body: SampleBody::Dialogue(d),
            });
        }
    }
    out
}

/// One row of the paper's summary table ([`REPORTED_SUMMARY_CSV`]); rates in %.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportedSummary {
    /// The paper's results file summarised (`all_trials_*.json`).
    pub results_file: String,
    /// The model that was tested, as the paper names it (`GPT-3.5-turbo`, `Vicuna-13B`, …).
    pub model: String,
    /// The N-back level (1, 2 or 3).
    pub n: u8,
    /// Blocks the means and SEs are over (30 or 50).
    pub blocks_used: usize,
    /// Trials in each block (24 for the ChatGPT-WM sets, 30 for `n-back-datasets`).
    pub trials_per_block: usize,
    /// Hit rate (mean, SE), in %.
    pub hit_rate: (f64, f64),
    /// False-alarm rate (mean, SE), in %.
    pub false_alarm_rate: (f64, f64),
    /// Accuracy (mean, SE), in %.
    pub accuracy: (f64, f64),
    /// d′ (mean, SE) over the blocks.
    pub dprime: (f64, f64),
}

/// The rows of [`REPORTED_SUMMARY_CSV`]; a malformed line is skipped.
pub fn reported_summary() -> Vec<ReportedSummary> {
    REPORTED_SUMMARY_CSV
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            if f.len() != 13 {
                return None;
            }
            let x = |i: usize| f[i].parse::<f64>().ok();
            Some(ReportedSummary {
                results_file: f[0].into(),
                model: f[1].into(),
                n: f[2].parse().ok()?,
                blocks_used: f[3].parse().ok()?,
                trials_per_block: f[4].parse().ok()?,
                hit_rate: (x(5)?, x(6)?),
                false_alarm_rate: (x(7)?, x(8)?),
                accuracy: (x(9)?, x(10)?),
                dprime: (x(11)?, x(12)?),
            })
        })
        .collect()
}

/// The published results files of the same variant *and* protocol as a run: what a run is drawn
/// against. Letters (24 trials, system-prompt protocols) ↔ GPT-3.5's verbal files; letters_30 with the
/// README protocol ↔ GPT-4 and the open models (30 blocks of 30); grids ↔ GPT-3.5's spatial files of the
/// same grid and protocol. Empty where the papers ran no such experiment (e.g. 4×4 grids with noise).
pub fn reported_files_for(variant: Variant, protocol: Protocol) -> &'static [&'static str] {
    use Protocol::*;
    use Variant::*;
    match (variant, protocol) {
        (Letters, Base) => &["all_trials_verbal.json"],
        (Letters, Noise) => &["all_trials_verbal_noise.json"],
        (Letters, Feedback) => &["all_trials_verbal_feedback.json"],
        (Letters, Cot) => &["all_trials_verbal_think_by_step.json"],
        (Letters30, Readme) => &[
            "all_trials_verbal_gpt-4.json",
            "all_trials_verbal_Vicuna-13B.json",
            "all_trials_verbal_Vicuna-7B.json",
            "all_trials_verbal_chatglm-6b_v1.1.json",
            "all_trials_verbal_chatglm-6b_v1.0.json",
            "all_trials_verbal_bloomz-7b1-mt.json",
            "all_trials_verbal_bloomz-7b.json",
        ],
        (Grids3x3, Base) => &["all_trials_spatial_3*3.json"],
        (Grids3x3, Noise) => &["all_trials_spatial_with_noise.json"],
        (Grids3x3, Feedback) => &["all_trials_spatial_feedback.json"],
        (Grids3x3, Cot) => &["all_trials_spatial_think_by_step.json"],
        (Grids4x4, Base) => &["all_trials_spatial_4*4.json"],
        (Grids5x5, Base) => &["all_trials_spatial_5*5.json"],
        (Grids7x7, Base) => &["all_trials_spatial_7*7.json"],
        (Grids3x3Abstraction, Base) => &["all_trials_spatial_abstraction.json"],
        (Grids3x3Abstraction2, Base) => &["all_trials_spatial_abstraction_2.json"],
        _ => &[],
    }
}

/// [`reported_summary`] rows of [`reported_files_for`], in that order, each file's rows by N.
pub fn reported_for(variant: Variant, protocol: Protocol) -> Vec<ReportedSummary> {
    let all = reported_summary();
    let mut out = Vec::new();
    for file in reported_files_for(variant, protocol) {
        let mut rows: Vec<ReportedSummary> = all.iter().filter(|r| r.results_file == *file).cloned().collect();
        rows.sort_by_key(|r| r.n);
        rows.dedup_by_key(|r| r.n);
        out.extend(rows);
    }
    out
}

/// The N-back paper's tests on d′ (`analysis_across_exps.ipynb`): Kruskal–Wallis across N, pairwise
/// Mann–Whitney post hoc with Bonferroni correction, and Wilcoxon of d′ against 0 at each N. Each test is
/// an `Err` with the reason where the data cannot support it (e.g. one block per N).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DprimeTests {
    /// (N, number of blocks, mean d′) for each N present, ascending.
    pub levels: Vec<(u8, usize, f64)>,
    /// Kruskal–Wallis H across the N levels (an `Err` with fewer than two).
    pub kruskal: Result<crate::stats::TestResult, String>,
    /// (N a, N b, U of a and raw p, Bonferroni-adjusted p).
    pub pairs: Vec<(u8, u8, Result<(crate::stats::TestResult, f64), String>)>,
    /// (N, Wilcoxon signed-rank test of that N's d′ against 0).
    pub against_zero: Vec<(u8, Result<crate::stats::TestResult, String>)>,
}

/// [`DprimeTests`] of per-block `(N, d′)` values.
pub fn dprime_tests(per_block: &[(u8, f64)]) -> DprimeTests {
    use crate::stats;
    let mut ns: Vec<u8> = per_block.iter().map(|p| p.0).collect();
    ns.sort();
    ns.dedup();
    let group = |n: u8| -> Vec<f64> { per_block.iter().filter(|p| p.0 == n).map(|p| p.1).collect() };
    let groups: Vec<Vec<f64>> = ns.iter().map(|&n| group(n)).collect();
    let levels = ns.iter().zip(&groups).map(|(&n, g)| (n, g.len(), stats::mean(g))).collect();
    let kruskal = if ns.len() < 2 {
        Err("Kruskal–Wallis needs at least two N levels".to_string())
    } else {
        stats::kruskal(&groups).map_err(String::from)
    };
    let mut raw = Vec::new();
    for i in 0..ns.len() {
        for j in i + 1..ns.len() {
            raw.push((ns[i], ns[j], stats::mann_whitney(&groups[i], &groups[j]).map_err(String::from)));
        }
    }
    let ok_ps: Vec<f64> = raw.iter().filter_map(|r| r.2.as_ref().ok().map(|t| t.p)).collect();
    let adjusted = stats::bonferroni(&ok_ps);
    let mut k = 0;
    let pairs = raw
        .into_iter()
        .map(|(a, b, r)| {
            let r = r.map(|t| {
                k += 1;
                (t, adjusted[k - 1])
            });
            (a, b, r)
        })
        .collect();
    let against_zero =
        ns.iter().zip(&groups).map(|(&n, g)| (n, stats::wilcoxon(g, &[]).map_err(String::from))).collect();
    DprimeTests { levels, kruskal, pairs, against_zero }
}

/// One row of [`REPORTED_PER_BLOCK_CSV`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportedBlock {
    /// The paper's results file (`all_trials_*.json`).
    pub results_file: String,
    /// The N-back level (1, 2 or 3).
    pub n: u8,
    /// The block's index within its N.
    pub block: usize,
    /// Match trials.
    pub targets: u32,
    /// Non-match trials.
    pub lures: u32,
    /// Match trials answered `m`.
    pub hits: u32,
    /// Non-match trials answered `m`.
    pub false_alarms: u32,
    /// Notebook d′ as reported (4 dp).
    pub dprime: f64,
}

impl ReportedBlock {
    /// The block's measures recomputed from its counts (no unusable trials).
    pub fn scores(&self) -> SdtScores {
        SdtScores::from_counts(
            self.hits,
            self.targets - self.hits,
            self.false_alarms,
            self.lures - self.false_alarms,
            0,
        )
    }
}

/// The rows of [`REPORTED_PER_BLOCK_CSV`]; a malformed line is skipped.
pub fn reported_blocks() -> Vec<ReportedBlock> {
    REPORTED_PER_BLOCK_CSV
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            if f.len() != 8 {
                return None;
            }
            Some(ReportedBlock {
                results_file: f[0].into(),
                n: f[1].parse().ok()?,
                block: f[2].parse().ok()?,
                targets: f[3].parse().ok()?,
                lures: f[4].parse().ok()?,
                hits: f[5].parse().ok()?,
                false_alarms: f[6].parse().ok()?,
                dprime: f[7].parse().ok()?,
            })
        })
        .collect()
}

/// The paper's d′ tests ([`dprime_tests`]) on the published blocks of one results file; `None` when the
/// file has no per-block rows.
pub fn reported_file_tests(results_file: &str) -> Option<DprimeTests> {
    let per: Vec<(u8, f64)> =
        reported_blocks().iter().filter(|b| b.results_file == results_file).map(|b| (b.n, b.dprime)).collect();
    (!per.is_empty()).then(|| dprime_tests(&per))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdt::summarize;

    fn run_perfect(d: &mut NbackDialogue) {
        while d.next_request().is_some() {
            let t = d.target(d.current());
            d.feed(&t.to_string());
        }
    }

    #[test]
    fn a_slice_takes_a_block_of_each_n() {
        let all = samples(&NbackConfig::paper(Variant::Letters));
        let ns = |v: &[Sample]| v.iter().map(|s| s.conditions["n"].clone()).collect::<Vec<_>>();
        assert!(ns(&all[..3]).iter().all(|n| n == "1"), "the blocks come N by N");
        let three = crate::llm::spread_slice(all.clone(), 3);
        assert_eq!(ns(&three), ["1", "2", "3"]);
        assert_eq!(three[0].id, all[0].id, "each N's first block");
        let seven = crate::llm::spread_slice(all.clone(), 7);
        assert_eq!(ns(&seven), ["1", "1", "1", "2", "2", "3", "3"], "in turn, in the samples' order");
        assert_eq!(crate::llm::spread_slice(all.clone(), 0).len(), all.len());
        // A letters block asks its 24 trials, one request each (no prefill in the paper's protocol).
        assert_eq!(all[0].expected_requests(), 24);
    }

    #[test]
    fn a_run_is_drawn_only_against_the_same_variant_and_protocol() {
        // Every published file belongs to exactly one (variant, protocol), and its blocks have that
        // variant's trials per block (GPT-4's 30×30 README run is never drawn beside 24-trial letters).
        let mut claimed = std::collections::BTreeMap::new();
        for v in Variant::ALL {
            for p in Protocol::ALL {
                for row in reported_for(v, p) {
                    assert!(p.supports(v), "{v:?} {p:?}");
                    assert_eq!(row.trials_per_block, v.published_shape().0, "{} drawn beside {v:?}", row.results_file);
                    claimed.entry(row.results_file.clone()).or_insert((v, p));
                    assert_eq!(claimed[&row.results_file], (v, p), "{} claimed twice", row.results_file);
                }
            }
        }
        let files: std::collections::BTreeSet<String> =
            reported_summary().into_iter().map(|r| r.results_file).collect();
        assert_eq!(files.len(), claimed.len(), "every published file is drawn beside some run: {files:?}");
        assert!(reported_for(Variant::Letters, Protocol::Readme).is_empty());
        assert_eq!(reported_for(Variant::Letters, Protocol::Noise)[0].results_file, "all_trials_verbal_noise.json");
        assert_eq!(reported_for(Variant::Letters30, Protocol::Readme)[0].model, "GPT-4");
    }

    #[test]
    fn dprime_tests_on_the_published_verbal_blocks_match_scipy() {
        // GPT-3.5 verbal base, the notebook's per-block d′ (50 blocks per N). Expected values from
        // scipy.stats 1.17.1: kruskal(*groups); mannwhitneyu(.., method="asymptotic"), Bonferroni × 3;
        // wilcoxon(g, zero_method="wilcox", correction=False, method="approx").
        let per_block: Vec<(u8, f64)> = reported_blocks()
            .iter()
            .filter(|b| b.results_file == "all_trials_verbal.json")
            .map(|b| (b.n, b.dprime))
            .collect();
        let t = dprime_tests(&per_block);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-7 * b.abs().max(1e-300);
        assert_eq!(t.levels.iter().map(|l| (l.0, l.1)).collect::<Vec<_>>(), vec![(1, 50), (2, 50), (3, 50)]);
        let k = t.kruskal.unwrap();
        assert!(close(k.statistic, 97.53758910622581) && close(k.p, 6.606655121674553e-22), "{k:?}");
        let want = [
            (1, 2, 2451.5, 8.87971678577776e-17),
            (1, 3, 2487.0, 1.1015314151433916e-17),
            (2, 3, 1566.0, 0.028331214684948567),
        ];
        for ((a, b, r), (wa, wb, u, p)) in t.pairs.iter().zip(want) {
            let (r, adj) = r.as_ref().unwrap();
            assert_eq!((*a, *b), (wa, wb));
            assert!(close(r.statistic, u) && close(r.p, p) && close(*adj, (3.0 * p).min(1.0)), "{a} {b} {r:?}");
        }
        let want = [5.924665376131595e-10, 1.008408848217435e-09, 6.768700093079094e-09];
        for ((_, r), p) in t.against_zero.iter().zip(want) {
            let r = r.as_ref().unwrap();
            assert!(r.statistic == 0.0 && close(r.p, p), "{r:?}");
        }
        // One N level: no Kruskal–Wallis, said in words.
        let one = dprime_tests(&[(2, 1.0), (2, 1.5)]);
        assert!(one.kruskal.unwrap_err().contains("two N levels"));
        assert!(one.pairs.is_empty());
    }

    #[test]
    fn embedded_blocks_have_the_published_shape() {
        for v in Variant::ALL {
            let (len, matches) = v.published_shape();
            for n in 1..=3u8 {
                let bs = blocks(v, n);
                assert_eq!(bs.len(), if v == Variant::Letters30 { 30 } else { 50 }, "{v:?} {n}");
                for b in &bs {
                    assert_eq!(b.stimuli.len(), len);
                    assert_eq!(b.conditions.matches('m').count(), matches);
                    // Every labelled match follows the rule.
                    for (i, c) in b.conditions.chars().enumerate() {
                        if c == 'm' {
                            assert!(i >= n as usize && v.rule().is_match(&b.stimuli[i - n as usize], &b.stimuli[i]));
                        }
                    }
                }
            }
        }
        assert_eq!(blocks(Variant::Letters, 1)[0].conditions, "----mm--mm--m---mm---m--");
        assert_eq!(blocks(Variant::Letters, 4).len(), 0);
    }

    #[test]
    fn embedded_blocks_show_the_i_eq_n_guard_quirk() {
        // Blocks with an unlabelled identity match (only possible at i == n): letters 4/2/0, letters_30 1/1/1.
        let count = |v: Variant, n: u8| {
            blocks(v, n)
                .iter()
                .filter(|b| {
                    b.conditions
                        .chars()
                        .enumerate()
                        .any(|(i, c)| c == '-' && i >= n as usize && b.stimuli[i] == b.stimuli[i - n as usize])
                })
                .count()
        };
        assert_eq!([count(Variant::Letters, 1), count(Variant::Letters, 2), count(Variant::Letters, 3)], [4, 2, 0]);
        assert_eq!(
            [count(Variant::Letters30, 1), count(Variant::Letters30, 2), count(Variant::Letters30, 3)],
            [1, 1, 1]
        );
    }

    #[test]
    fn generator_exact_targets_and_no_accidental_matches() {
        let mut rng = Rng::from_u64(11);
        for v in Variant::ALL {
            let alphabet = v.alphabet();
            for n in 1..=4usize {
                for _ in 0..40 {
                    let b = generate_block(&mut rng, n, 24, 8, &alphabet, v.rule()).unwrap();
                    assert_eq!(b.conditions.matches('m').count(), 8);
                    for (i, c) in b.conditions.chars().enumerate() {
                        if i >= n {
                            assert_eq!(c == 'm', v.rule().is_match(&b.stimuli[i - n], &b.stimuli[i]), "{v:?} {b:?}");
                        } else {
                            assert_eq!(c, '-');
                        }
                        assert!(alphabet.contains(&b.stimuli[i]));
                    }
                }
            }
        }
        assert!(generate_block(&mut rng, 3, 10, 8, &Variant::Letters.alphabet(), MatchRule::Identity).is_err());
    }

    #[test]
    fn readme_instruction_is_verbatim() {
        assert_eq!(
            readme_instruction(1),
            "Instruction: as a language model, you are asked to perform a 1-back task. A letter will be presented on every trial. Your task is to respond with 'm' whenever the letter presented is the same as the previous letter, and '-' whenever the letter presented is different from the previous letter. A strict rule is that you must not output anything other than 'm' or '-'. Now begins the task."
        );
        assert!(readme_instruction(2).contains("the same as the letter two trials ago, and '-' whenever the letter presented is different from the letter two trials ago."));
        assert!(readme_instruction(3).contains("3-back task") && readme_instruction(3).contains("three trials ago"));
    }

    #[test]
    fn system_prompts_match_the_notebooks() {
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Base, 3),
            "You are asked to perform a 3-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter three letters ago, and '-' (no quotation marks, just the dash sign) otherwise. Only 'm' and '-' are allowed responses. No explanations needed: please don't output any extra words!! The sequence will be presented one letter at a time. Now begins the task."
        );
        assert!(system_prompt(Variant::Letters, Protocol::Base, 1).contains("the same as the previous one, and '-'"));
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Base, 3),
            "You are asked to perform a 3-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the grid three trials ago, and respond with '-' (no quotation marks, just the dash sign) otherwise.  Only 'm' and '-' are allowed responses. No explanations needed: please don't output any extra words!! The sequence will be presented one grid at a time. Now begins the task."
        );
        let p4 = system_prompt(Variant::Grids4x4, Protocol::Base, 1);
        assert!(
            p4.contains("4*4 grids")
                && p4.contains("sixteen positions")
                && p4.contains("``` |X|_|_|_| |_|_|_|_| |_|_|_|_| |_|_|_|_| ```")
        );
        assert!(p4.contains("the same position as the previous grid,"));
        assert!(system_prompt(Variant::Grids7x7, Protocol::Base, 2).contains("forty-nine positions"));
        assert!(system_prompt(Variant::Letters, Protocol::Noise, 1).contains("accompanied with random noise symbols chosen from '#$%&*@^~'. Please ignore the noise symbols and focus on the letter only."));
        assert!(
            system_prompt(Variant::Grids3x3, Protocol::Noise, 1)
                .contains("``` |X|*|_| |_|_|@| |_|~|_| ``` because of the noise.")
        );
        assert!(
            system_prompt(Variant::Letters, Protocol::Cot, 1)
                .contains("'m: the previous letter was a, the current letter is a, so my response is m'")
        );
        assert!(
            system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 1)
                .contains("same row or column as the X in the previous grid")
        );
        assert!(
            system_prompt(Variant::Grids3x3Abstraction2, Protocol::Base, 1).contains("that does not count as a match")
        );
        assert_eq!(render_grid(3, 4), "``` |_|_|_| |X|_|_| |_|_|_| ```");
    }

    /// Full strings copied from the notebook cells (`experiments/*.ipynb`, JSON-unescaped).
    #[test]
    fn variant_prompts_are_verbatim() {
        let g1 = "``` |X|_|_| |_|_|_| |_|_|_| ```";
        // verbal_with_noise.ipynb
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Noise, 1),
            "You are asked to perform a 1-back task. You will see a sequence of letters. The sequence will be presented one letter at a time, accompanied with random noise symbols chosen from '#$%&*@^~'. Please ignore the noise symbols and focus on the letter only. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the previous one, and '-' (no quotation marks, just the dash sign) otherwise. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Noise, 2),
            "You are asked to perform a 2-back task. You will see a sequence of letters. The sequence will be presented one letter at a time, accompanied with random noise symbols chosen from '#$%&*@^~'. Please ignore the noise symbols and focus on the letter only. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter two trials ago, and '-' (no quotation marks, just the dash sign) otherwise. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Noise, 3),
            "You are asked to perform a 3-back task. You will see a sequence of letters. The sequence will be presented one letter at a time, accompanied with random noise symbols chosen from '#$%&*@^~'. Please ignore the noise symbols and focus on the letter only. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter three trials ago, and '-' (no quotation marks, just the dash sign) otherwise. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        // verbal_with_feedback.ipynb
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Feedback, 1),
            "You are asked to perform a 1-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the previous one, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one letter at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Feedback, 2),
            "You are asked to perform a 2-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter two letters ago, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one letter at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed - please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Feedback, 3),
            "You are asked to perform a 3-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter three letters ago, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one letter at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        // verbal_think_by_step.ipynb
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Cot, 1),
            "\n          You are asked to perform a 1-back task. You will see a sequence of letters. The sequence will be presented one letter at a time.\n          Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the previous one, and '-' (no quotation marks, just the dash sign) otherwise. \n          Please think step by step and provide your thinking steps after responding with 'm' or '-'.\n          Here are examples of how to format your response:\n          1. 'm: the previous letter was a, the current letter is a, so my response is m'.\n          2. '-: the previous letter was a, the current letter is b, so my response is -'.\n          Now begins the task.\n         "
        );
        assert_eq!(
            system_prompt(Variant::Letters, Protocol::Cot, 2),
            "\n          You are asked to perform a 2-back task. You will see a sequence of letters. The sequence will be presented one letter at a time.\n          Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter two letters ago, and '-' (no quotation marks, just the dash sign) otherwise. \n          Please think step by step and provide your thinking steps after responding with 'm' or '-'.\n          Here are examples of how to format your response:\n          1. 'm: the letter two letters ago was a, the current letter is a, so my response is m'.\n          2. '-: the letter two letters ago was a, the current letter is b, so my response is -'.\n          Now begins the task.\n         "
        );
        // spatial_with_noise.ipynb
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Noise, 1),
            "You are asked to perform a 1-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions, accompanied with random noise symbols chosen from '#$%&*@^~' placed at random locations. Please ignore the noise symbols and focus on the location of the letter X only.  For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```, but you will actually see something like ``` |X|*|_| |_|_|@| |_|~|_| ``` because of the noise. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the previous grid, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Noise, 2),
            "You are asked to perform a 2-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions, accompanied with random noise symbols chosen from '#$%&*@^~' placed at random locations. Please ignore the noise symbols and focus on the location of the letter X only.  For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```, but you will actually see something like ``` |X|*|_| |_|_|@| |_|~|_| ``` because of the noise. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the grid two trials ago, and respond with '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed - please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Noise, 3),
            system_prompt(Variant::Grids3x3, Protocol::Noise, 2)
                .replace("2-back", "3-back")
                .replace("two trials", "three trials")
        );
        // spatial_with_feedback.ipynb
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Feedback, 1),
            "You are asked to perform a 1-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the previous grid, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Feedback on whether your last response was correct or incorrect will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Feedback, 2),
            "You are asked to perform a 2-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the grid two trials ago, and respond with '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed - please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Feedback, 3),
            system_prompt(Variant::Grids3x3, Protocol::Feedback, 2)
                .replace("2-back", "3-back")
                .replace("two trials", "three trials")
        );
        // spatial_think_by_step.ipynb
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Cot, 1),
            "\n          You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at the top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. The sequence will be presented one grid at a time.\n          Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the previous grid, and '-' (no quotation marks, just the dash sign) otherwise.\n          Please think step by step and provide your thinking steps after responding with 'm' or '-'.\n          Here are examples of how to format your response:\n          1. '-: this is the first grid, so my response is -'.\n          2. 'm: X was at the top middle in the previous grid, X is at the top middle in the current grid, so my response is m'.\n          3. '-: X was at the bottom right in the previous grid, X is at the top middle in the current grid, so my response is -'.\n          Now begins the task.\n         "
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3, Protocol::Cot, 2),
            "\n          You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at the top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. The sequence will be presented one grid at a time.\n          Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the grid two trials ago, and '-' (no quotation marks, just the dash sign) otherwise.\n          Please think step by step and provide your thinking steps after responding with 'm' or '-'.\n          Here are examples of how to format your response:\n          1. '-: this is the first grid, so my response is -'.\n          2. 'm: X was at the top middle in the grid two trials ago, X is at the top middle in the current grid, so my response is m'.\n          3. '-: X was at the bottom right in the grid two trials ago, X is at the top middle in the current grid, so my response is -'.\n          Now begins the task.\n         "
        );
        // spatial_abstraction.ipynb
        let abs1 = "You are asked to perform a 1-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in the previous grid, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in ``` |X|_|_| |_|_|_| |_|_|_| ``` is in the same row as the X in ``` |_|X|_| |_|_|_| |_|_|_| ``` and ``` |_|_|X| |_|_|_| |_|_|_| ```, and in the same column as the X in ``` |_|_|_| |X|_|_| |_|_|_| ``` and ``` |_|_|_| |_|_|_| |X|_|_| ```. Note that ``` |X|_|_| |_|_|_| |_|_|_| ``` is also in the same row and column as ``` |X|_|_| |_|_|_| |_|_|_| ``` itself. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task.";
        assert_eq!(system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 1), abs1);
        assert_eq!(
            system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 2),
            "You are asked to perform a 2-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in the grid two trials ago, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in ``` |X|_|_| |_|_|_| |_|_|_| ``` is in the same row as the X in ``` |_|X|_| |_|_|_| |_|_|_| ``` and ``` |_|_|X| |_|_|_| |_|_|_| ```, and in the same column as the X in ``` |_|_|_| |X|_|_| |_|_|_| ``` and ``` |_|_|_| |_|_|_| |X|_|_| ```. Note that ``` |X|_|_| |_|_|_| |_|_|_| ``` is also in the same row and column as ``` |X|_|_| |_|_|_| |_|_|_| ``` itself. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 3),
            abs1.replace("1-back", "3-back").replace("X in the previous grid,", "X in the grid three trials ago,")
        );
        // spatial_abstraction_2.ipynb
        let note1 = format!("Note that {g1} is also in the same row and column as {g1} itself.");
        let note2 = format!(
            "Note that if the X in the previous grid was at the identical location to the X in the current grid, that does not count as a match: for example, {g1} is not a match to {g1} itself."
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3Abstraction2, Protocol::Base, 1),
            "You are asked to perform a 1-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in the previous grid, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in ``` |X|_|_| |_|_|_| |_|_|_| ``` is in the same row as the X in ``` |_|X|_| |_|_|_| |_|_|_| ``` and ``` |_|_|X| |_|_|_| |_|_|_| ```, and in the same column as the X in ``` |_|_|_| |X|_|_| |_|_|_| ``` and ``` |_|_|_| |_|_|_| |X|_|_| ```. Note that if the X in the previous grid was at the identical location to the X in the current grid, that does not count as a match: for example, ``` |X|_|_| |_|_|_| |_|_|_| ``` is not a match to ``` |X|_|_| |_|_|_| |_|_|_| ``` itself. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3Abstraction2, Protocol::Base, 2),
            "You are asked to perform a 2-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in the grid two trials ago, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in ``` |X|_|_| |_|_|_| |_|_|_| ``` is in the same row as the X in ``` |_|X|_| |_|_|_| |_|_|_| ``` and ``` |_|_|X| |_|_|_| |_|_|_| ```, and in the same column as the X in ``` |_|_|_| |X|_|_| |_|_|_| ``` and ``` |_|_|_| |_|_|_| |X|_|_| ```. Note that if the X in the previous grid was at the identical location to the X in the current grid, that does not count as a match: for example, ``` |X|_|_| |_|_|_| |_|_|_| ``` is not a match to ``` |X|_|_| |_|_|_| |_|_|_| ``` itself. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
        );
        assert_eq!(
            system_prompt(Variant::Grids3x3Abstraction2, Protocol::Base, 2),
            system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 2).replace(&note1, &note2)
        );
        // Invalid-response messages.
        assert_eq!(
            INVALID_RESPONSE,
            "Invalid response! You must respond ONLY with 'm' or '-'. Please try again. Response:"
        );
        assert_eq!(
            INVALID_RESPONSE_VERBAL_FEEDBACK,
            "Invalid response! You must respond ONLY with 'm' or '-'. Please give your response:"
        );
        assert_eq!(
            INVALID_RESPONSE_SPATIAL_NOISE,
            "Invalid response! You must respond ONLY with 'm' or '-'. Please try again. Your response:"
        );
        let retry = |v: Variant, p: Protocol, n: u8| {
            let b = &blocks(v, n)[0];
            let mut d = NbackDialogue::new(v, n, 0, b, &DialogueOptions::new(p)).unwrap();
            d.feed("?");
            d.next_request().unwrap().last().unwrap().content.clone()
        };
        for n in 1..=3 {
            assert_eq!(retry(Variant::Letters, Protocol::Noise, n), INVALID_RESPONSE);
            assert_eq!(retry(Variant::Letters, Protocol::Feedback, n), INVALID_RESPONSE_VERBAL_FEEDBACK);
            assert_eq!(retry(Variant::Letters, Protocol::Cot, n), INVALID_RESPONSE);
            assert_eq!(retry(Variant::Grids3x3, Protocol::Noise, n), INVALID_RESPONSE_SPATIAL_NOISE);
            assert_eq!(retry(Variant::Grids3x3, Protocol::Feedback, n), INVALID_RESPONSE);
            assert_eq!(retry(Variant::Grids3x3, Protocol::Cot, n), INVALID_RESPONSE);
            assert_eq!(retry(Variant::Grids3x3Abstraction, Protocol::Base, n), INVALID_RESPONSE);
            assert_eq!(retry(Variant::Grids3x3Abstraction2, Protocol::Base, n), INVALID_RESPONSE);
        }
        // User turns: bare grid, except the abstraction 3-back cells ("Current input: " + grid).
        for v in [Variant::Grids3x3Abstraction, Variant::Grids3x3Abstraction2] {
            for n in 1..=3u8 {
                let b = &blocks(v, n)[0];
                let d = NbackDialogue::new(v, n, 0, b, &DialogueOptions::new(Protocol::Base)).unwrap();
                let grid = render_grid(3, b.stimuli[0].parse().unwrap());
                let want = if n == 3 { format!("Current input: {grid}") } else { grid };
                assert_eq!(d.next_request().unwrap()[1].content, want);
            }
        }
    }

    #[test]
    fn base_protocol_flow_and_perfect_scores() {
        let b = &blocks(Variant::Letters, 1)[0];
        let mut d = NbackDialogue::new(Variant::Letters, 1, 0, b, &DialogueOptions::new(Protocol::Base)).unwrap();
        let req = d.next_request().unwrap();
        assert_eq!(req.len(), 2);
        assert_eq!(req[0].role, super::super::Role::System);
        assert_eq!(req[1], Message::user("q"));
        d.feed("- (dash)");
        let req = d.next_request().unwrap();
        assert_eq!(req[2], Message::assistant("-"));
        assert_eq!(req[3], Message::user("v"));
        let mut d = NbackDialogue::new(Variant::Letters, 1, 0, b, &DialogueOptions::new(Protocol::Base)).unwrap();
        run_perfect(&mut d);
        assert!(d.next_request().is_none());
        assert_eq!(d.answers(), b.conditions);
        let s = d.scores();
        assert_eq!((s.hit_rate, s.false_alarm_rate, s.accuracy), (1.0, 0.0, 1.0));
        assert!((s.dprime - 4.6527).abs() < 1e-4);
        assert_eq!(d.messages.len(), 1 + 2 * 24);
    }

    /// Without the history (issue 69, after Huang et al. 2025): each request is the instructions, the
    /// model's last note (cut to its cap) and the current stimulus — never an earlier stimulus or
    /// reply; with no note at all, the stimulus alone. Ids, conditions and serde say which.
    #[test]
    fn without_the_history_a_request_holds_the_last_note_and_the_current_stimulus_only() {
        let b = &blocks(Variant::Letters, 2)[0];
        let mut opts = DialogueOptions::new(Protocol::Base);
        opts.history = History::Note { tokens: 8 };
        let mut d = NbackDialogue::new(Variant::Letters, 2, 0, b, &opts).unwrap();
        let req = d.next_request().unwrap();
        assert_eq!(req.len(), 2);
        assert!(req[0].content.starts_with(&system_prompt(Variant::Letters, Protocol::Base, 2)));
        assert!(req[0].content.contains("NOTE:") && req[0].content.contains("at most 8 tokens"), "{}", req[0].content);
        assert_eq!(req[1].content, format!("Your note from the previous step: (none yet)\n\n{}", b.stimuli[0]));
        d.feed("-\nNOTE: saw q; keep the last two letters and compare them with every new one please");
        assert_eq!(d.trials[0].note.as_deref(), Some("saw q; keep the last two letters"), "8 tokens kept");
        let req = d.next_request().unwrap();
        assert_eq!(req.len(), 2, "no earlier turn is sent");
        assert_eq!(
            req[1].content,
            format!("Your note from the previous step: saw q; keep the last two letters\n\n{}", b.stimuli[1])
        );
        // A retry stays within the trial's request; a reply with no note leaves an empty one.
        d.feed("perhaps");
        assert_eq!(d.next_request().unwrap().len(), 4);
        d.feed("m");
        assert_eq!(d.trials[1].note.as_deref(), Some(""));
        assert!(d.next_request().unwrap()[1].content.contains("previous step: (none yet)"));
        // Round trip mid-block, and an old dialogue without the field is the full history.
        let back: NbackDialogue = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d);
        let full = NbackDialogue::new(Variant::Letters, 2, 0, b, &DialogueOptions::new(Protocol::Base)).unwrap();
        assert!(!serde_json::to_string(&full).unwrap().contains("history"));

        // No history: the stimulus alone after the instructions, at every trial.
        opts.history = History::None;
        let mut d = NbackDialogue::new(Variant::Letters, 2, 0, b, &opts).unwrap();
        for i in 0..b.stimuli.len() {
            let req = d.next_request().unwrap();
            assert_eq!((req.len(), req[1].content.as_str()), (2, b.stimuli[i].as_str()), "trial {i}");
            d.feed("-");
        }
        assert!(d.finished() && d.trials.iter().all(|t| t.note.is_none()));
        // The README protocol: instruction, memory and turn in one user message; pre-filled trials unseen.
        let b30 = &blocks(Variant::Letters30, 2)[0];
        let mut readme = DialogueOptions::new(Protocol::Readme);
        readme.history = History::None;
        let d = NbackDialogue::new(Variant::Letters30, 2, 0, b30, &readme).unwrap();
        let req = d.next_request().unwrap();
        assert_eq!(req.len(), 1);
        assert!(req[0].content.starts_with(&readme_instruction(2)) && req[0].content.ends_with(&b30.stimuli[6]));

        let mut cfg = NbackConfig::paper(Variant::Letters);
        cfg.options.history = History::Note { tokens: 32 };
        let s = &samples(&cfg)[0];
        assert_eq!(s.id, "nback/letters_note32-1back/0");
        assert_eq!(s.conditions["history"], "note32");
        assert_eq!((note_tokens("abcd efghi"), cut_note("a bb ccccc", 2)), (3, "a bb".to_string()));
        assert_eq!((History::parse("note", 5), History::parse("x", 5)), (Some(History::Note { tokens: 5 }), None));
    }

    #[test]
    fn readme_protocol_prefills_six_and_retries_once() {
        let b = &blocks(Variant::Letters30, 2)[0];
        let mut d = NbackDialogue::new(Variant::Letters30, 2, 0, b, &DialogueOptions::new(Protocol::Readme)).unwrap();
        assert_eq!(d.current(), 6);
        let req = d.next_request().unwrap();
        assert_eq!(req[0], Message::user(readme_instruction(2)));
        assert_eq!(req.len(), 1 + 2 * 6 + 1);
        assert_eq!(req[2].content, b.conditions[0..1]);
        assert_eq!(req[13], Message::user(b.stimuli[6].clone()));
        d.feed("I think so");
        let req = d.next_request().unwrap();
        assert_eq!(req[req.len() - 1], Message::user(README_RETRY));
        assert_eq!(d.current(), 6);
        d.feed("still no");
        assert_eq!(d.current(), 7);
        assert_eq!(d.trials[6].answer, None);
        assert_eq!(d.trials[6].replies.len(), 2);
        assert_eq!(&d.answers()[..7], format!("{}?", &b.conditions[..6]));
        let s = d.scores();
        assert_eq!((s.trials, s.unusable), (7, 1));
        assert_eq!(d.scores_excluding_prefill().trials, 1);
    }

    #[test]
    fn retries_are_bounded() {
        let b = &blocks(Variant::Grids3x3, 1)[0];
        let mut d = NbackDialogue::new(Variant::Grids3x3, 1, 0, b, &DialogueOptions::new(Protocol::Cot)).unwrap();
        let mut calls = 0;
        while d.next_request().is_some() {
            d.feed("I cannot answer");
            calls += 1;
            assert!(calls <= 24 * 4);
        }
        assert_eq!(calls, 24 * 4);
        assert_eq!(d.answers(), "?".repeat(24));
        assert_eq!(d.scores().unusable, 24);
        // CoT: only the extracted char stays in the history.
        let mut d = NbackDialogue::new(Variant::Grids3x3, 1, 0, b, &DialogueOptions::new(Protocol::Cot)).unwrap();
        d.feed("x");
        assert_eq!(d.next_request().unwrap().last().unwrap().content, INVALID_RESPONSE);
        d.feed("-: this is the first grid, so my response is -");
        let req = d.next_request().unwrap();
        assert_eq!(req[req.len() - 2], Message::assistant("-"));
        assert_eq!(d.trials[0].replies.len(), 2);
    }

    #[test]
    fn feedback_and_noise_turns() {
        let b = &blocks(Variant::Letters, 1)[0];
        let mut d = NbackDialogue::new(Variant::Letters, 1, 0, b, &DialogueOptions::new(Protocol::Feedback)).unwrap();
        assert_eq!(d.next_request().unwrap()[1].content, "Current input: q. Your response:");
        d.feed("m");
        assert_eq!(
            d.next_request().unwrap()[3].content,
            "Feedback: your last response was wrong. Current input: v. Your response:"
        );
        d.feed("-");
        assert_eq!(
            d.next_request().unwrap()[5].content,
            "Feedback: your last response was correct. Current input: b. Your response:"
        );
        let g = &blocks(Variant::Grids3x3, 1)[0];
        let d = NbackDialogue::new(Variant::Grids3x3, 1, 0, g, &DialogueOptions::new(Protocol::Feedback)).unwrap();
        assert!(d.next_request().unwrap()[1].content.ends_with(" ```. Response:"));

        let d = NbackDialogue::new(Variant::Letters, 1, 0, b, &DialogueOptions::new(Protocol::Noise)).unwrap();
        for (s, x) in d.shown.iter().zip(&b.stimuli) {
            let letters: Vec<char> = s.chars().filter(|c| !NOISE_SYMBOLS.contains(*c)).collect();
            assert_eq!(letters, x.chars().collect::<Vec<_>>());
            let k = s.chars().count() - 1;
            assert!((3..=6).contains(&k));
            let set: std::collections::HashSet<char> = s.chars().collect();
            assert_eq!(set.len(), k + 1);
        }
        let d = NbackDialogue::new(Variant::Grids3x3, 1, 0, g, &DialogueOptions::new(Protocol::Noise)).unwrap();
        for (s, x) in d.shown.iter().zip(&g.stimuli) {
            let cells: Vec<char> = s.chars().filter(|c| *c != '|' && *c != ' ' && *c != '`').collect();
            assert_eq!(cells.len(), 9);
            assert_eq!(cells.iter().position(|c| *c == 'X').unwrap() + 1, x.parse::<usize>().unwrap());
            let noise = cells.iter().filter(|c| NOISE_SYMBOLS.contains(**c)).count();
            assert!((1..=3).contains(&noise));
        }
    }

    #[test]
    fn serde_round_trip_mid_dialogue_equals_replay() {
        let b = &blocks(Variant::Letters, 2)[3];
        let opts = DialogueOptions { seed: 5, ..DialogueOptions::new(Protocol::Noise) };
        let mut d = NbackDialogue::new(Variant::Letters, 2, 3, b, &opts).unwrap();
        for (k, r) in ["m", "??", "-", "- because", "oops", "m"].iter().enumerate() {
            d.feed(r);
            if k == 3 {
                let json = serde_json::to_string(&SampleBody::Dialogue(d.clone())).unwrap();
                let back: SampleBody = serde_json::from_str(&json).unwrap();
                assert_eq!(back, SampleBody::Dialogue(d.clone()));
            }
        }
        let json = serde_json::to_string(&d).unwrap();
        let back: NbackDialogue = serde_json::from_str(&json).unwrap();
        assert_eq!(back, d);
        let mut replay = NbackDialogue::new(Variant::Letters, 2, 3, b, &opts).unwrap();
        for r in d.replies() {
            replay.feed(&r);
        }
        assert_eq!(replay, d);
    }

    #[test]
    fn samples_ids_and_conditions() {
        let s = samples(&NbackConfig::paper(Variant::Letters));
        assert_eq!(s.len(), 150);
        assert_eq!(s[0].id, "nback/letters-1back/0");
        assert_eq!(s[149].id, "nback/letters-3back/49");
        assert_eq!(s[0].conditions["n"], "1");
        assert_eq!(s[0].suite, Suite::Nback);
        let mut c = NbackConfig::paper(Variant::Grids3x3);
        c.options.protocol = Protocol::Noise;
        c.ns = vec![2];
        c.blocks = Some(vec![1, 4, 9]);
        c.limit = Some(2);
        let s = samples(&c);
        assert_eq!(
            s.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(),
            ["nback/grids_3x3_noise-2back/1", "nback/grids_3x3_noise-2back/4"]
        );
        let s30 = samples(&NbackConfig::paper(Variant::Letters30));
        assert_eq!(s30.len(), 90);
        c.options.protocol = Protocol::Readme;
        assert!(c.validate().is_err() && samples(&c).is_empty());
        let mut g = NbackConfig::paper(Variant::Grids3x3Abstraction2);
        g.ns = vec![4];
        g.source = BlockSource::Generated { count: 5, len: 24, matches: 8, seed: 3 };
        let s = samples(&g);
        assert_eq!(s.len(), 5);
        assert_eq!(s[0].id, "nback/grids_3x3_abstraction_2_gen3-4back/0");
        assert_eq!(samples(&g), s, "deterministic");
    }

    #[test]
    fn reported_per_block_dprime_is_reproduced() {
        let rows = reported_blocks();
        assert_eq!(rows.len(), 2580);
        for r in &rows {
            let s = r.scores();
            assert!((s.dprime_notebook - r.dprime).abs() < 6e-5, "{r:?} -> {}", s.dprime_notebook);
        }
    }

    #[test]
    fn reported_summary_is_reproduced() {
        let rows = reported_blocks();
        let summary = reported_summary();
        assert_eq!(summary.len(), 63);
        let close = |a: f64, b: f64| (a - b).abs() <= 0.0051;
        for r in &summary {
            let blocks: Vec<SdtScores> = rows
                .iter()
                .filter(|b| b.results_file == r.results_file && b.n == r.n && b.block < r.blocks_used)
                .map(|b| b.scores())
                .collect();
            assert_eq!(blocks.len(), r.blocks_used, "{r:?}");
            let m = summarize(&blocks);
            let pct = |x: crate::sdt::MeanSe| (x.mean * 100.0, x.se * 100.0);
            for (got, want, what) in [
                (pct(m.hit_rate), r.hit_rate, "HR"),
                (pct(m.false_alarm_rate), r.false_alarm_rate, "FAR"),
                (pct(m.accuracy), r.accuracy, "Acc"),
                ((m.dprime_notebook.mean, m.dprime_notebook.se), r.dprime, "d'"),
            ] {
                assert!(
                    close(got.0, want.0) && close(got.1, want.1),
                    "{} N={} {what}: {got:?} vs {want:?}",
                    r.results_file,
                    r.n
                );
            }
        }
        // The headline numbers: GPT-3.5 verbal base d' 3.53±.11 / 1.43±.10 / 1.11±.09.
        let want = [(3.53, 0.11), (1.43, 0.10), (1.11, 0.09)];
        for (n, w) in (1..=3u8).zip(want) {
            let bl: Vec<SdtScores> = rows
                .iter()
                .filter(|b| b.results_file == "all_trials_verbal.json" && b.n == n)
                .map(|b| b.scores())
                .collect();
            let m = summarize(&bl).dprime_notebook;
            assert!(close(m.mean, w.0) && close(m.se, w.1), "N={n}: {m:?}");
        }
    }
}
