//! One N-back block as a dialogue ([`NbackDialogue`]) with what a model sees of it ([`History`]),
//! the configs that make samples ([`NbackConfig`], [`samples`]) and the adaptive run
//! ([`NbackStaircase`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::*;
use crate::llm::{Dialogue, Message, Sample, SampleBody, Suite};
use crate::rng::Rng;
use crate::sdt::SdtScores;

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
    ) -> Result<Self, crate::llm::SuiteError> {
        let protocol = opts.protocol;
        if !protocol.supports(variant) {
            return Err(crate::llm::SuiteError::Protocol { protocol: protocol.as_str(), variant: variant.as_str() });
        }
        if block.stimuli.len() != block.conditions.chars().count() {
            return Err(crate::llm::SuiteError::BlockLengths);
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

    pub(super) fn target(&self, i: usize) -> char {
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
    pub fn validate(&self) -> Result<(), crate::llm::SuiteError> {
        use crate::llm::SuiteError;
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
    pub fn new(config: NbackConfig) -> Result<NbackStaircase, crate::llm::SuiteError> {
        config.validate()?;
        let mut sc = crate::adaptive::StaircaseConfig::nback();
        if config.source == BlockSource::Published {
            sc.max = 3;
        }
        let staircase = crate::adaptive::Staircase::new(sc).map_err(|_| crate::llm::SuiteError::NZero)?;
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
            epoch: 1,
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
                epoch: 1,
                body: SampleBody::Dialogue(d),
            });
        }
    }
    out
}
