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

use serde::{Deserialize, Serialize};

use crate::sdt::SdtScores;
pub use crate::tasks::nback::{Block, BlockError, LETTERS, MatchRule, generate_block};

mod dialogue;
mod published;
#[cfg(test)]
mod tests;

pub use dialogue::*;
pub use published::*;

/// All published block files: lines `variant n block stimuli conditions`, stimuli comma-separated.
pub const BLOCKS_TXT: &str = include_str!("../../../data/nback/blocks.txt");
/// The paper's per-block counts, recomputed from `ChatGPT-WM/results/all_trials_*.json`:
/// `results_file,n_back,block,targets,lures,hits,false_alarms,d_prime` (d′ = notebook d′, 4 dp).
pub const REPORTED_PER_BLOCK_CSV: &str = include_str!("../../../data/nback/reported_per_block.csv");
/// The paper's summary table (mean ± SE over blocks; rates in %):
/// `results_file,model,n_back,blocks_used,trials_per_block,hr_mean,hr_se,far_mean,far_se,acc_mean,acc_se,d_mean,d_se`.
pub const REPORTED_SUMMARY_CSV: &str = include_str!("../../../data/nback/reported_summary.csv");

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
