//! Minerva (Xia et al., "Minerva: A Programmable Memory Test Benchmark for Language Models"): the test
//! generator. Every atomic and composite test of the paper's Table 1, with the instruction templates of
//! the published snapshot (`shared/data/minerva/minerva_snapshot`, which is the ground truth for wording
//! where it differs from the paper's Appendix A), the grids and sample counts of Table 10 (1110 cases),
//! and the construction rules of the published generator (`microsoft/minerva_memory_test`, see
//! `shared/spec/reference-implementations.md` §4).
//!
//! Pure: the word list is an argument (the edges load `words_alpha_dwyl_2019-03-13.txt.gz`, one word a
//! line, CR stripped); all randomness comes from [`Rng`], one stream per task derived from the seed, so
//! choosing a subset of tasks does not change the samples of the others.
//!
//! Deviations from the reference code (each also marked `DEVIATION` where it happens):
//! - "absent" words (string search "no", group membership "no", replacement words) are checked against
//!   the context's words, so they are truly absent; the reference's group_membership checks a set of
//!   *characters* of the context string, and its string search gives up after 100 draws.
//! - string_search_sequence: the corrupting word differs from the word it replaces (the reference could,
//!   with probability 1/|WORDS|, "corrupt" a word into itself and label a present sequence "no").
//! - processing_data_blocks: the query word is never the role's very last word, whose reference would be
//!   empty (one such sample is in the snapshot; it cannot be scored).
//! - replace_all / overwrite_positions take the query/substitute words from the word list as the published
//!   code does; the snapshot used a small list of common words (fruit, orange, purple, ...).
//! - set_state / theory_of_mind follow the snapshot and the paper (100 steps, set_state 10 samples per
//!   size; ToM state_size {10, 20}), not the published code (200 steps / 5 samples; steps {100, 200}).
//! - Index arithmetic (`int(len*depth)`, `int(len/(k-1)*i)`) is done in exact integers.

#[cfg(test)]
mod tests;
mod tokenizer;

use std::collections::{BTreeMap, HashMap, HashSet};

pub use tokenizer::Tokenizer;
#[cfg(not(target_arch = "wasm32"))]
pub use tokenizer::{count_tokens, trim_context};

use super::{Message, Metric, Reference, Sample, SampleBody, Single, Suite};
use crate::rng::Rng;

/// The system message of the reference runner (`inference.py`).
pub const SYSTEM_PROMPT: &str = "You are a helpful AI assistant.";

/// The paper's test set (Table 10): task name (as the snapshot file), category (as the snapshot folder),
/// number of samples. The sum is 1110. `iterate_last` is the paper's "Iterate" (the generator default).
pub const TASKS: &[(&str, &str, usize)] = &[
    ("string_search_word", "search", 50),
    ("string_search_sequence", "search", 80),
    ("key_value_search", "search", 50),
    ("batch_key_value_search", "search", 20),
    ("snapshot_unique_words", "recall_and_edit", 10),
    ("snapshot_random_numbers", "recall_and_edit", 10),
    ("replace_all", "recall_and_edit", 20),
    ("replace_all_x_to_null", "recall_and_edit", 20),
    ("overwrite_positions", "recall_and_edit", 15),
    ("overwrite_positions_nth_to_null", "recall_and_edit", 15),
    ("functional_updates", "recall_and_edit", 15),
    ("compare_positions", "match_and_compare", 75),
    ("find_duplicates", "match_and_compare", 25),
    ("count", "match_and_compare", 25),
    ("check_association", "match_and_compare", 50),
    ("compare_two_lists", "spot_the_differences", 80),
    ("identify_odd_group", "spot_the_differences", 60),
    ("patch_the_difference", "spot_the_differences", 120),
    ("group_membership", "compute_on_sets_and_lists", 100),
    ("group_association", "compute_on_sets_and_lists", 40),
    ("alternating_group_association", "compute_on_sets_and_lists", 50),
    ("iterate_last", "compute_on_sets_and_lists", 20),
    ("quantity_state", "stateful_processing", 10),
    ("set_state", "stateful_processing", 40),
    ("processing_data_blocks", "composite", 50),
    ("theory_of_mind", "composite", 60),
];

/// Tasks in the snapshot but not in the paper's 1110: the gibberish ablation (Table 3) and the
/// "first word" Iterate ablation. Generated only when named in [`MinervaConfig::tasks`].
pub const EXTRA_TASKS: &[(&str, &str, usize)] =
    &[("string_search_gibberish", "search", 50), ("iterate_first", "compute_on_sets_and_lists", 20)];

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct MinervaConfig {
    /// Seed of the samples: each task draws from its own stream keyed by the seed and the task, so a
    /// subset of tasks leaves the others' samples unchanged.
    pub seed: u64,
    /// Context length in cl100k tokens (paper: 4000; compare_two_lists uses half per list).
    pub context_tokens: usize,
    /// Task names to generate, in [`TASKS`] order (`None` = the paper's set). May name [`EXTRA_TASKS`].
    pub tasks: Option<Vec<String>>,
    /// Samples per grid cell for every task, replacing the paper's (5, 10, 3 ...). `None` = the paper's.
    pub samples_per_cell: Option<usize>,
    /// Samples per grid cell for single tasks (wins over `samples_per_cell`).
    pub task_samples: BTreeMap<String, usize>,
    /// Number of operation steps of quantity_state / set_state / theory_of_mind (`None` = 200 / 100 / 100).
    pub steps: Option<usize>,
    /// The wording of the instruction of the [`PROMPT_VARIANT_TASKS`] (Tables 8 and 12): `None` or 1 =
    /// the paper's standard prompt, 2 = its second wording. A set value is written into each of those
    /// tasks' samples as the condition `prompt_variant`.
    pub prompt_variant: Option<u8>,
}

impl Default for MinervaConfig {
    fn default() -> Self {
        MinervaConfig {
            seed: 0,
            context_tokens: 4000,
            tasks: None,
            samples_per_cell: None,
            task_samples: BTreeMap::new(),
            steps: None,
            prompt_variant: None,
        }
    }
}

/// The tasks whose instruction the paper also ran in a second wording (Table 8: string search, group
/// association; Table 12: replace all, quantity state). Table 12's third task, check association, is
/// left out: the seed's text of its second wording is cut off after "Given the context".
pub const PROMPT_VARIANT_TASKS: [&str; 4] =
    ["string_search_word", "group_association", "replace_all", "quantity_state"];

/// Category of a task name (paper set or extra).
pub fn task_category(task: &str) -> Option<&'static str> {
    TASKS.iter().chain(EXTRA_TASKS).find(|t| t.0 == task).map(|t| t.1)
}

/// The paper's samples per grid cell and the number of grid cells of each task (count = cells × samples).
fn grid(task: &str) -> (usize, usize) {
    match task {
        "string_search_word" | "string_search_gibberish" => (10, 5),
        "string_search_sequence" => (8, 10),
        "key_value_search" => (5, 10),
        "batch_key_value_search" => (4, 5),
        "snapshot_unique_words" | "snapshot_random_numbers" => (1, 10),
        "replace_all" | "replace_all_x_to_null" => (4, 5),
        "overwrite_positions" | "overwrite_positions_nth_to_null" => (3, 5),
        "functional_updates" => (3, 5),
        "compare_positions" => (25, 3),
        "find_duplicates" | "count" => (5, 5),
        "check_association" => (10, 5),
        "compare_two_lists" => (8, 10),
        "identify_odd_group" => (12, 5),
        "patch_the_difference" => (24, 5),
        "group_membership" => (20, 5),
        "group_association" => (8, 5),
        "alternating_group_association" => (10, 5),
        "iterate_last" | "iterate_first" => (4, 5),
        "quantity_state" => (1, 10),
        "set_state" => (4, 10),
        "processing_data_blocks" => (5, 10),
        "theory_of_mind" => (6, 10),
        _ => (0, 0),
    }
}

/// Number of samples `generate` makes for one task under `config`.
pub fn task_count(config: &MinervaConfig, task: &str) -> usize {
    let (cells, paper) = grid(task);
    cells * samples_for(config, task, paper)
}

fn samples_for(config: &MinervaConfig, task: &str, paper: usize) -> usize {
    config.task_samples.get(task).copied().or(config.samples_per_cell).unwrap_or(paper)
}

/// The metrics of a task: the same table as the published snapshot's (`snapshot::metrics_for`: the
/// paper's headline metric first, the official task's other metrics, strict exact match beside exact
/// match), so generated and snapshot samples are scored alike.
pub fn task_metrics(task: &str) -> Vec<Metric> {
    crate::llm::snapshot::metrics_for(task)
        .map(<[Metric]>::to_vec)
        .unwrap_or_else(|| vec![Metric::ExactMatch, Metric::ExactMatchStrict])
}

/// Id prefix of generated Minerva samples (`minerva/<task>/<i>`).
pub const GENERATED: &str = "minerva";
/// Id prefix of the published snapshot's samples (`minerva-snapshot/<task>/<i>`): a run may hold both,
/// and ids are the resume key, so they must never collide.
pub const SNAPSHOT: &str = "minerva-snapshot";

/// A Minerva sample as the paper's runner sends it (system prompt, one user message), for generated
/// (`source` = [`GENERATED`]) and snapshot ([`SNAPSHOT`]) entries alike; `source` is also recorded as a
/// condition.
pub fn sample(
    source: &str,
    task: &str,
    index: usize,
    conditions: BTreeMap<String, String>,
    prompt: String,
    reference: Reference,
    metrics: Vec<Metric>,
) -> Sample {
    let mut conditions = conditions;
    conditions.insert("source".into(), if source == SNAPSHOT { "snapshot" } else { "generated" }.into());
    Sample {
        id: format!("{source}/{task}/{index}"),
        suite: Suite::Minerva,
        task: task.to_string(),
        conditions,
        epoch: 1,
        body: SampleBody::Single(Single {
            messages: vec![Message::system(SYSTEM_PROMPT), Message::user(prompt)],
            reference,
            metrics,
        }),
    }
}

/// Generate the samples of the configured tasks. `words` is the word list (dwyl `words_alpha` for the
/// paper); it must hold well over `2 × context_tokens` distinct words.
///
/// Unknown task names are ignored.
pub fn generate<S: AsRef<str>>(config: &MinervaConfig, words: &[S], tok: &Tokenizer) -> Vec<Sample> {
    let words: Vec<&str> = words.iter().map(|w| w.as_ref()).collect();
    let all: Vec<(usize, &(&str, &str, usize))> = TASKS.iter().chain(EXTRA_TASKS).enumerate().collect();
    let chosen: Vec<(usize, &(&str, &str, usize))> = match &config.tasks {
        None => all.into_iter().filter(|(i, _)| *i < TASKS.len()).collect(),
        Some(names) => all.into_iter().filter(|(_, t)| names.iter().any(|n| n == t.0)).collect(),
    };
    let mut out = Vec::new();
    for (ordinal, &(task, category, _)) in chosen {
        let (_, paper) = grid(task);
        let mut g = Gen {
            rng: Rng::from_key(task_key(config.seed, ordinal as u8)),
            words: &words,
            tok,
            max: config.context_tokens,
            s: samples_for(config, task, paper),
            steps: config.steps,
            second_wording: config.prompt_variant == Some(2),
            items: Vec::new(),
        };
        g.run(task);
        let metrics = task_metrics(task);
        let variant = config.prompt_variant.filter(|_| PROMPT_VARIANT_TASKS.contains(&task));
        for (index, item) in g.items.into_iter().enumerate() {
            let mut conditions: BTreeMap<String, String> =
                item.cond.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            conditions.insert("category".into(), category.into());
            if let Some(v) = variant {
                conditions.insert("prompt_variant".into(), v.to_string());
            }
            out.push(sample(GENERATED, task, index, conditions, item.prompt, item.reference, metrics.clone()));
        }
    }
    out
}

/// The tasks whose length is set by their number of operation steps, not by the context length.
pub const STATEFUL: [&str; 3] = ["quantity_state", "set_state", "theory_of_mind"];

/// Several context lengths and step counts in one run: the paper's context-length tables (7 and 11) and
/// its steps figure (Fig. 6). Empty = the configuration's single value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sweep {
    /// Context lengths in tokens for the tasks sized by context.
    pub contexts: Vec<usize>,
    /// Operation steps for the stateful tasks ([`STATEFUL`]).
    pub steps: Vec<usize>,
    /// Instruction wordings (1, 2) of the [`PROMPT_VARIANT_TASKS`] (Tables 8 and 12).
    pub variants: Vec<u8>,
}

impl Sweep {
    /// A comma list of whole numbers of at least `least` (`"500, 1000,2000"`), each once, in the order
    /// given; `what` names the field in the message.
    pub fn parse_list(text: &str, least: usize, what: &str) -> Result<Vec<usize>, super::SuiteError> {
        let mut out = Vec::new();
        for p in crate::list_items(text) {
            let v = p.parse::<usize>().ok().filter(|v| *v >= least).ok_or_else(|| super::SuiteError::NotWhole {
                what: what.to_string(),
                item: p.to_string(),
                least,
            })?;
            if !out.contains(&v) {
                out.push(v);
            }
        }
        Ok(out)
    }

    /// A comma list of instruction wordings: 1 (the paper's standard prompt) and/or 2 (its second).
    pub fn parse_variants(text: &str) -> Result<Vec<u8>, super::SuiteError> {
        let mut out = Vec::new();
        for p in crate::list_items(text) {
            let v = match p {
                "1" => 1,
                "2" => 2,
                _ => return Err(super::SuiteError::Variant(p.to_string())),
            };
            if !out.contains(&v) {
                out.push(v);
            }
        }
        Ok(out)
    }
}

/// Put a sweep point's tag (`@var=2`) into a generated sample's id, before its index.
fn tag_id(mut s: Sample, tag: &str) -> Sample {
    if let Some((head, index)) = s.id.rsplit_once('/') {
        s.id = format!("{head}{tag}/{index}");
    }
    s
}

/// [`generate`] at every point of `sweep`: each task sized by context at every context length, each
/// stateful task at every step count (once, whatever the context list). With one value on an axis (or
/// none) the samples are exactly [`generate`]'s; with several, a sample's id carries its point
/// (`generated/count@ctx=8000/3`, `generated/set_state@steps=50/0`) so ids stay unique resume keys, and
/// its conditions carry it too (`context_length`, `step`).
pub fn generate_sweep<S: AsRef<str>>(
    config: &MinervaConfig,
    sweep: &Sweep,
    words: &[S],
    tok: &Tokenizer,
) -> Vec<Sample> {
    if sweep.variants.len() > 1 {
        // The other tasks once; the wording tasks once per wording, on the same trials (same streams).
        let names: Vec<String> = match &config.tasks {
            Some(v) => v.clone(),
            None => TASKS.iter().map(|t| t.0.to_string()).collect(),
        };
        let (worded, rest): (Vec<String>, Vec<String>) =
            names.into_iter().partition(|t| PROMPT_VARIANT_TASKS.contains(&t.as_str()));
        let inner = Sweep { variants: Vec::new(), ..sweep.clone() };
        let mut out = Vec::new();
        if !rest.is_empty() {
            out.extend(generate_sweep(&MinervaConfig { tasks: Some(rest), ..config.clone() }, &inner, words, tok));
        }
        if !worded.is_empty() {
            for &v in &sweep.variants {
                let cfg = MinervaConfig { tasks: Some(worded.clone()), prompt_variant: Some(v), ..config.clone() };
                out.extend(
                    generate_sweep(&cfg, &inner, words, tok).into_iter().map(|s| tag_id(s, &format!("@var={v}"))),
                );
            }
        }
        return out;
    }
    let config =
        &MinervaConfig { prompt_variant: sweep.variants.first().copied().or(config.prompt_variant), ..config.clone() };
    if sweep.contexts.len() <= 1 && sweep.steps.len() <= 1 {
        let cfg = MinervaConfig {
            context_tokens: sweep.contexts.first().copied().unwrap_or(config.context_tokens),
            steps: sweep.steps.first().copied().or(config.steps),
            ..config.clone()
        };
        return generate(&cfg, words, tok);
    }
    let names: Vec<String> = match &config.tasks {
        Some(v) => v.clone(),
        None => TASKS.iter().map(|t| t.0.to_string()).collect(),
    };
    let (stateful, sized): (Vec<String>, Vec<String>) = names.into_iter().partition(|t| STATEFUL.contains(&t.as_str()));
    let contexts = if sweep.contexts.is_empty() { vec![config.context_tokens] } else { sweep.contexts.clone() };
    let steps: Vec<Option<usize>> =
        if sweep.steps.is_empty() { vec![config.steps] } else { sweep.steps.iter().map(|&s| Some(s)).collect() };
    let tagged = |samples: Vec<Sample>, tag: String| {
        samples.into_iter().map(move |s| if tag.is_empty() { s } else { tag_id(s, &tag) })
    };
    let mut out = Vec::new();
    if !sized.is_empty() {
        for &ctx in &contexts {
            let cfg = MinervaConfig { context_tokens: ctx, tasks: Some(sized.clone()), ..config.clone() };
            let tag = if contexts.len() > 1 { format!("@ctx={ctx}") } else { String::new() };
            out.extend(tagged(generate(&cfg, words, tok), tag));
        }
    }
    if !stateful.is_empty() {
        for &st in &steps {
            let cfg = MinervaConfig {
                context_tokens: contexts[0],
                steps: st,
                tasks: Some(stateful.clone()),
                ..config.clone()
            };
            let tag = match st {
                Some(n) if steps.len() > 1 => format!("@steps={n}"),
                _ => String::new(),
            };
            out.extend(tagged(generate(&cfg, words, tok), tag));
        }
    }
    out
}

/// The ChaCha key of one task's stream: (seed, task ordinal in TASKS ++ EXTRA_TASKS, a Minerva tag).
fn task_key(seed: u64, ordinal: u8) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[0..8].copy_from_slice(&seed.to_le_bytes());
    key[8] = ordinal;
    key[10..16].copy_from_slice(b"minrva");
    key
}

// ---------------------------------------------------------------------------------------------------
// Prompt skeletons (reference §4.2).

/// `"Context:\n" + ctx + "\n\nInstruction:\n" + instr + "\n\nAnswer:"`.
fn prompt(ctx: &str, instr: &str) -> String {
    format!("Context:\n{ctx}\n\nInstruction:\n{instr}\n\nAnswer:")
}

/// For instructions that end in their own answer lead-in (key-value, batch, find_duplicates, count, patch).
fn prompt_lead(ctx: &str, instr: &str, lead: &str) -> String {
    format!("Context:\n{ctx}\n\nInstruction:\n{instr}{lead}")
}

/// Stateful tasks: `head` is `"Context:\n\n"`, `"Agent actions:\n\n"` or `"Agents actions:\n\n"`; `ops`
/// ends with a newline.
fn prompt_final(head: &str, ops: &str, instr: &str) -> String {
    format!("{head}{ops}\n\nInstruction:\n{instr}\n\nFINAL ANSWER:")
}

const DEPTHS: [(usize, &str); 5] = [(0, "0"), (1, "0.25"), (2, "0.5"), (3, "0.75"), (4, "1")];

/// `int(len * quarters/4)`, depth 1 meaning the last item.
fn depth_index(len: usize, quarters: usize) -> usize {
    (len * quarters / 4).min(len.saturating_sub(1))
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

// ---------------------------------------------------------------------------------------------------
// The generator state of one task.

struct Item {
    cond: Vec<(&'static str, String)>,
    prompt: String,
    reference: Reference,
}

struct Gen<'a> {
    rng: Rng,
    words: &'a [&'a str],
    tok: &'a Tokenizer,
    max: usize,
    s: usize,
    steps: Option<usize>,
    /// The paper's second wording of the instruction ([`PROMPT_VARIANT_TASKS`]).
    second_wording: bool,
    items: Vec<Item>,
}

fn text(s: impl Into<String>) -> Reference {
    Reference::Text(s.into())
}

impl<'a> Gen<'a> {
    fn push(&mut self, cond: Vec<(&'static str, String)>, prompt: String, reference: Reference) {
        self.items.push(Item { cond, prompt, reference });
    }

    fn ctx_cond(&self) -> (&'static str, String) {
        ("context_length", self.max.to_string())
    }

    // ----- sampling helpers ---------------------------------------------------------------------

    /// `k` distinct indices of `0..n` in random order; the same values as [`Rng::sample`] without
    /// allocating `n` slots (a sparse Fisher–Yates).
    fn sample_idx(&mut self, n: usize, k: usize) -> Vec<usize> {
        sparse_sample(&mut self.rng, n, k)
    }

    /// `random.sample(WORDS, k)` (k clamped to the list size).
    fn sample_words(&mut self, k: usize) -> Vec<String> {
        let k = k.min(self.words.len());
        self.sample_idx(self.words.len(), k).into_iter().map(|i| self.words[i].to_string()).collect()
    }

    fn choose_word(&mut self) -> String {
        self.words[self.rng.index(self.words.len())].to_string()
    }

    /// A random word of the list not in `present`. DEVIATION: always truly absent (the reference tries
    /// 100 random words and falls back to "nft").
    fn absent_word(&mut self, present: &HashSet<&str>) -> String {
        for _ in 0..1000 {
            let w = self.words[self.rng.index(self.words.len())];
            if !present.contains(w) {
                return w.to_string();
            }
        }
        let start = self.rng.index(self.words.len());
        (0..self.words.len())
            .map(|i| self.words[(start + i) % self.words.len()])
            .find(|w| !present.contains(w))
            .expect("the word list has a word absent from the context")
            .to_string()
    }

    /// `k` distinct words, none in `present`.
    fn absent_words(&mut self, present: &HashSet<&str>, k: usize) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(k);
        while out.len() < k {
            let w = self.absent_word(present);
            if !out.contains(&w) {
                out.push(w);
            }
        }
        out
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.rng.index(items.len())].clone()
    }

    // ----- context generators (context_utils.py) -------------------------------------------------

    /// `unique_words(L)`: L distinct words, joined `", "`, trimmed to L tokens; returned as items.
    fn unique_words(&mut self, tokens: usize) -> Vec<String> {
        let ws = self.sample_words(tokens);
        split_items(&self.tok.trim_context(&ws.join(", "), tokens))
    }

    /// `random_numbers(L)`: L values `randint(0, 1000)`, joined, trimmed.
    fn random_numbers(&mut self, tokens: usize) -> Vec<String> {
        let ns: Vec<String> = (0..tokens).map(|_| self.rng.randint(0, 1000).to_string()).collect();
        split_items(&self.tok.trim_context(&ns.join(", "), tokens))
    }

    /// `word_pairs(L)`: 2L distinct words as L `"a: b"` pairs, joined, trimmed; returned as (key, value).
    fn word_pairs(&mut self, tokens: usize) -> Vec<(String, String)> {
        let ws = self.sample_words(2 * tokens);
        let pairs: Vec<String> = ws.chunks(2).filter(|c| c.len() == 2).map(|c| format!("{}: {}", c[0], c[1])).collect();
        split_items(&self.tok.trim_context(&pairs.join(", "), tokens))
            .into_iter()
            .map(|p| {
                let (k, v) = p.split_once(": ").expect("trimmed pairs are whole");
                (k.to_string(), v.to_string())
            })
            .collect()
    }

    fn gibberish_word(&mut self) -> String {
        let n = self.rng.randint(2, 9);
        (0..n).map(|_| (b'a' + self.rng.below(26) as u8) as char).collect()
    }

    /// `gibberish(L)`: L strings of `randint(2, 9)` letters a–z, joined, trimmed.
    fn gibberish(&mut self, tokens: usize) -> Vec<String> {
        let ws: Vec<String> = (0..tokens).map(|_| self.gibberish_word()).collect();
        split_items(&self.tok.trim_context(&ws.join(", "), tokens))
    }

    // ----- tasks ------------------------------------------------------------------------------------

    fn run(&mut self, task: &str) {
        match task {
            "string_search_word" => self.string_search(false),
            "string_search_gibberish" => self.string_search(true),
            "string_search_sequence" => self.string_search_sequence(),
            "key_value_search" => self.key_value_search(),
            "batch_key_value_search" => self.batch_key_value_search(),
            "snapshot_unique_words" => self.snapshot(false),
            "snapshot_random_numbers" => self.snapshot(true),
            "replace_all" => self.replace_all(false),
            "replace_all_x_to_null" => self.replace_all(true),
            "overwrite_positions" => self.overwrite_positions(false),
            "overwrite_positions_nth_to_null" => self.overwrite_positions(true),
            "functional_updates" => self.functional_updates(),
            "compare_positions" => self.compare_positions(),
            "find_duplicates" => self.duplicates(false),
            "count" => self.duplicates(true),
            "check_association" => self.check_association(),
            "compare_two_lists" => self.compare_two_lists(),
            "identify_odd_group" => self.identify_odd_group(),
            "patch_the_difference" => self.patch_the_difference(),
            "group_membership" => self.group_membership(),
            "group_association" => self.group_association(),
            "alternating_group_association" => self.alternating_group_association(),
            "iterate_last" => self.iterate(true),
            "iterate_first" => self.iterate(false),
            "quantity_state" => self.quantity_state(),
            "set_state" => self.set_state(),
            "processing_data_blocks" => self.processing_data_blocks(),
            "theory_of_mind" => self.theory_of_mind(),
            _ => {}
        }
    }

    /// String search (word / gibberish): one context per sample, used for every depth × label.
    fn string_search(&mut self, gib: bool) {
        for _ in 0..self.s {
            let ctx = if gib { self.gibberish(self.max) } else { self.unique_words(self.max) };
            let joined = ctx.join(", ");
            let present: HashSet<&str> = ctx.iter().map(String::as_str).collect();
            for (q, d) in DEPTHS {
                let yes = ctx[depth_index(ctx.len(), q)].clone();
                let no = if gib {
                    let mut w = self.gibberish_word();
                    while present.contains(w.as_str()) {
                        w = self.gibberish_word();
                    }
                    w
                } else {
                    self.absent_word(&present)
                };
                for (label, w) in [("yes", yes), ("no", no)] {
                    let instr = if self.second_wording && !gib {
                        format!("Is the word \"{w}\" present in the context? Answer with 'yes' or 'no'.")
                    } else {
                        format!(
                            "Given the context, determine if the word \"{w}\" is present in the context. Answer with 'yes' or 'no'."
                        )
                    };
                    let cond = vec![self.ctx_cond(), ("context_depth", d.into()), ("label", label.into())];
                    self.push(cond, prompt(&joined, &instr), text(label));
                }
            }
        }
    }

    /// String search (subsequence): per context and length, one contiguous run; the "no" entry replaces
    /// one of its words in place by a random word.
    fn string_search_sequence(&mut self) {
        for _ in 0..self.s {
            let ctx = self.unique_words(self.max);
            let joined = ctx.join(", ");
            for len in [8usize, 16, 32, 64] {
                let n = len.min(ctx.len());
                let start = self.rng.randint(0, (ctx.len() - n) as i32) as usize;
                let seq: Vec<String> = ctx[start..start + n].to_vec();
                let pos = self.rng.index(n);
                let mut bad = seq.clone();
                // DEVIATION: the replacement differs from the replaced word and the result is absent.
                loop {
                    bad[pos] = self.choose_word();
                    if bad[pos] != seq[pos] && !contains_run(&ctx, &bad) {
                        break;
                    }
                }
                for (label, s) in [("yes", &seq), ("no", &bad)] {
                    let instr = format!(
                        "Given the list of words in the context, determine if the sequence \"{}\" appears in the context. Answer with 'yes' or 'no'.",
                        s.join(", ")
                    );
                    let cond = vec![
                        self.ctx_cond(),
                        ("sequence_length", len.to_string()),
                        ("n_corrupt", "1".into()),
                        ("label", label.into()),
                    ];
                    self.push(cond, prompt(&joined, &instr), text(label));
                }
            }
        }
    }

    fn key_value_search(&mut self) {
        for (q, d) in DEPTHS {
            for _ in 0..self.s {
                let pairs = self.word_pairs(self.max);
                let (k, v) = pairs[depth_index(pairs.len(), q)].clone();
                let instr = format!(
                    "Given a list of word pairs formatted as \"word_1: word_2\" in the context, return the second word associated with the provided first word. For the first word \"{k}\", the corresponding second word is:"
                );
                let cond = vec![self.ctx_cond(), ("context_depth", d.into())];
                self.push(cond, prompt_lead(&join_pairs(&pairs), &instr, ""), text(v));
            }
        }
    }

    fn batch_key_value_search(&mut self) {
        for k in [4usize, 8, 16, 32] {
            for _ in 0..self.s {
                let pairs = self.word_pairs(self.max);
                let len = pairs.len();
                // int(len/(k-1)*i), the last forced to the final pair.
                let idx: Vec<usize> =
                    (0..k).map(|i| if i == k - 1 { len - 1 } else { (len * i / (k - 1)).min(len - 1) }).collect();
                let keys: Vec<&str> = idx.iter().map(|&i| pairs[i].0.as_str()).collect();
                let vals: Vec<&str> = idx.iter().map(|&i| pairs[i].1.as_str()).collect();
                let instr = format!(
                    "Given a list of word pairs formatted as \"word_1: word_2\" in the context, return the second words associated with the provided first words. For the first words \"{}\", the corresponding second words are:",
                    keys.join(", ")
                );
                let cond = vec![self.ctx_cond(), ("n_words", k.to_string())];
                self.push(cond, prompt_lead(&join_pairs(&pairs), &instr, ""), text(vals.join(", ")));
            }
        }
    }

    fn snapshot(&mut self, numbers: bool) {
        for _ in 0..self.s {
            let ctx = if numbers { self.random_numbers(self.max) } else { self.unique_words(self.max) };
            let joined = ctx.join(", ");
            let instr = "Repeat the previous context exactly as it is, without making any additions or deletions.";
            self.push(vec![self.ctx_cond()], prompt(&joined, instr), text(joined.clone()));
        }
    }

    /// Replace all (x → y / x → null): `int(len·density)` random positions are set to the query word.
    /// The reference applies the instruction to the prompt's context.
    fn replace_all(&mut self, null: bool) {
        for (tenths, d) in [(2usize, "0.2"), (4, "0.4"), (6, "0.6"), (8, "0.8")] {
            for _ in 0..self.s {
                let mut ctx = self.unique_words(self.max);
                // DEVIATION (snapshot): query and substitute come from the word list (the published
                // code); they are absent from the context so the density is exact.
                let (query, sub) = {
                    let present: HashSet<&str> = ctx.iter().map(String::as_str).collect();
                    let two = self.absent_words(&present, 2);
                    (two[0].clone(), two[1].clone())
                };
                let n = ctx.len() * tenths / 10;
                for p in self.sample_idx(ctx.len(), n) {
                    ctx[p] = query.clone();
                }
                let (instr, reference): (String, Vec<&str>) = if null {
                    (
                        format!("Repeat the previous context but skip the word \"{query}\" each time it appears."),
                        ctx.iter().filter(|w| **w != query).map(String::as_str).collect(),
                    )
                } else {
                    (
                        format!(
                            "{} the previous context {} the word \"{query}\" with \"{sub}\" each time it appears.",
                            if self.second_wording { "Copy" } else { "Repeat" },
                            if self.second_wording { "but replace" } else { "and replace" }
                        ),
                        ctx.iter().map(|w| if *w == query { sub.as_str() } else { w.as_str() }).collect(),
                    )
                };
                let cond = vec![self.ctx_cond(), ("density", d.into())];
                self.push(cond, prompt(&ctx.join(", "), &instr), text(reference.join(", ")));
            }
        }
    }

    /// Overwrite positions: every nth word (indices nth-1, 2nth-1, ...) replaced by y, or dropped.
    fn overwrite_positions(&mut self, null: bool) {
        for (nth, word) in [(2usize, "other"), (3, "third"), (4, "fourth")] {
            for _ in 0..self.s {
                let ctx = self.unique_words(self.max);
                let present: HashSet<&str> = ctx.iter().map(String::as_str).collect();
                let y = self.absent_word(&present);
                let hit = |i: usize| (i + 1).is_multiple_of(nth);
                let (instr, reference): (String, Vec<&str>) = if null {
                    (
                        format!("Repeat the previous context but skip every {word} word."),
                        ctx.iter().enumerate().filter(|(i, _)| !hit(*i)).map(|(_, w)| w.as_str()).collect(),
                    )
                } else {
                    (
                        format!("Repeat the previous context and replace every {word} word with \"{y}\"."),
                        ctx.iter().enumerate().map(|(i, w)| if hit(i) { y.as_str() } else { w.as_str() }).collect(),
                    )
                };
                let cond = vec![self.ctx_cond(), ("nth", nth.to_string())];
                self.push(cond, prompt(&ctx.join(", "), &instr), text(reference.join(", ")));
            }
        }
    }

    fn functional_updates(&mut self) {
        for op in ["add", "subtract", "multiply"] {
            for _ in 0..self.s {
                let ctx = self.random_numbers(self.max);
                let (instr, f): (&str, fn(i64) -> i64) = match op {
                    "add" => ("Add 3 to every number in the previous context.", |x| x + 3),
                    "subtract" => ("Subtract 1 from every number in the previous context.", |x| x - 1),
                    _ => ("Multiply every number in the previous context by 2.", |x| x * 2),
                };
                let reference: Vec<String> =
                    ctx.iter().map(|n| f(n.parse::<i64>().expect("number")).to_string()).collect();
                let cond = vec![self.ctx_cond(), ("operation", op.into())];
                self.push(cond, prompt(&ctx.join(", "), instr), text(reference.join(", ")));
            }
        }
    }

    /// Compare positions: words at depths d1 and d2; equal indices shift to the adjacent pair.
    fn compare_positions(&mut self) {
        for (q1, d1) in DEPTHS {
            for (q2, d2) in DEPTHS {
                for _ in 0..self.s {
                    let ctx = self.unique_words(self.max);
                    let (mut i1, mut i2) = (depth_index(ctx.len(), q1), depth_index(ctx.len(), q2));
                    if i1 == i2 {
                        if i1 + 1 < ctx.len() {
                            i2 = i1 + 1;
                        } else {
                            i1 -= 1;
                        }
                    }
                    let instr = format!(
                        "Given the list of words in the context, determine the relative positions of two words. Does the word \"{}\" come before the word \"{}\" in the list? Answer \"yes\" or \"no\".",
                        ctx[i1], ctx[i2]
                    );
                    let cond = vec![self.ctx_cond(), ("context_depth_1", d1.into()), ("context_depth_2", d2.into())];
                    self.push(cond, prompt(&ctx.join(", "), &instr), text(yes_no(i1 < i2)));
                }
            }
        }
    }

    /// Find duplicates / count: the word at a random index is copied into `rep - 1` other positions.
    fn duplicates(&mut self, count: bool) {
        for rep in [2usize, 4, 8, 16, 32] {
            for _ in 0..self.s {
                let mut ctx = self.unique_words(self.max);
                let i = self.rng.index(ctx.len());
                let w = ctx[i].clone();
                for j in self.sample_idx(ctx.len() - 1, (rep - 1).min(ctx.len() - 1)) {
                    let j = if j >= i { j + 1 } else { j };
                    ctx[j] = w.clone();
                }
                let joined = ctx.join(", ");
                let cond = vec![self.ctx_cond(), ("repetition_count", rep.to_string())];
                if count {
                    let n = ctx.iter().filter(|x| **x == w).count();
                    let instr = format!("Count the number of times the word \"{w}\" appears in the context.");
                    let lead = format!("\n\nAnswer: The word \"{w}\" appears");
                    self.push(cond, prompt_lead(&joined, &instr, &lead), text(n.to_string()));
                } else {
                    let instr = "A word is repeated multiple times in the context. Your task is to identify the word that is repeated.";
                    self.push(cond, prompt_lead(&joined, instr, "\n\nThe repeated word is:"), text(w));
                }
            }
        }
    }

    /// Check association: `"word: ATT_k"` with uniform attributes; one context per yes/no pair.
    fn check_association(&mut self) {
        for n_att in [2usize, 4, 8, 16, 32] {
            for _ in 0..self.s {
                let ws = self.sample_words(self.max);
                let tagged: Vec<String> =
                    ws.iter().map(|w| format!("{w}: ATT_{}", self.rng.randint(1, n_att as i32))).collect();
                let items: Vec<(String, String)> = split_items(&self.tok.trim_context(&tagged.join(", "), self.max))
                    .into_iter()
                    .map(|p| {
                        let (a, b) = p.split_once(": ").expect("whole items");
                        (a.to_string(), b.to_string())
                    })
                    .collect();
                let joined = join_pairs(&items);
                for label in ["yes", "no"] {
                    let same = label == "yes";
                    let (a, b) = loop {
                        let i = self.rng.index(items.len());
                        let partners: Vec<usize> =
                            (0..items.len()).filter(|&j| j != i && (items[j].1 == items[i].1) == same).collect();
                        if !partners.is_empty() {
                            let j = self.pick(&partners);
                            break (items[i].0.clone(), items[j].0.clone());
                        }
                    };
                    let instr = format!(
                        "Given the context with words and their assigned attributes in the format of \"word: ATT_N\", determine if the word \"{a}\" has the same attribute as the word \"{b}\"? Answer \"yes\" or \"no\"."
                    );
                    let cond = vec![self.ctx_cond(), ("n_attribute", n_att.to_string()), ("label", label.into())];
                    self.push(cond, prompt(&joined, &instr), text(label));
                }
            }
        }
    }

    /// Compare two lists: the second list has `n_diff` words replaced; each context gives a "first" and
    /// a "second" sample. Each list is half the context budget.
    fn compare_two_lists(&mut self) {
        for n_diff in [1usize, 5, 10, 20] {
            for _ in 0..self.s {
                let list1 = self.unique_words(self.max / 2);
                let present: HashSet<&str> = list1.iter().map(String::as_str).collect();
                let n = n_diff.min(list1.len());
                let pos = self.sample_idx(list1.len(), n);
                let subs = self.absent_words(&present, n);
                let mut list2 = list1.clone();
                for (p, w) in pos.iter().zip(&subs) {
                    list2[*p] = w.clone();
                }
                let ctx = format!("List 1: {}\nList 2: {}", list1.join(", "), list2.join(", "));
                let originals: Vec<&str> = pos.iter().map(|&p| list1[p].as_str()).collect();
                for (chosen, other, reference) in
                    [("first", "second", originals.join(", ")), ("second", "first", subs.join(", "))]
                {
                    let instr = format!(
                        "There are two lists of words in the context. The first list contains the original words. The second list is similar to the first but has some words replaced with different ones. Your task is to identify the words in the {chosen} list that are different from those in the {other} list. Provide the different words as your answer."
                    );
                    let cond =
                        vec![self.ctx_cond(), ("n_difference", n_diff.to_string()), ("chosen_list", chosen.into())];
                    self.push(cond, prompt(&ctx, &instr), text(reference));
                }
            }
        }
    }

    /// Identify the odd group: `max // tokens("List 1: " + words + "\n")` shuffles of the same words; one
    /// list has 1 (p = 0) or `int(n·p)` words replaced.
    fn identify_odd_group(&mut self) {
        for n in [25usize, 50, 75, 100] {
            for (quarters, p) in [(0usize, "0"), (1, "0.25"), (2, "0.5")] {
                for _ in 0..self.s {
                    let ws = self.sample_words(n);
                    let line_tokens = self.tok.count(&format!("List 1: {}\n", ws.join(", ")));
                    // At least 3 lists, or "the one different from the others" is undefined (never binds at
                    // 4000 tokens, where 100 words give about 10 lists).
                    let n_list = (self.max / line_tokens).max(3);
                    let odd = self.rng.index(n_list);
                    let n_rep = if quarters == 0 { 1 } else { ws.len() * quarters / 4 };
                    let present: HashSet<&str> = ws.iter().map(String::as_str).collect();
                    let mut lines = Vec::with_capacity(n_list);
                    for l in 0..n_list {
                        let mut list = ws.clone();
                        self.rng.shuffle(&mut list);
                        if l == odd {
                            let pos = self.sample_idx(list.len(), n_rep);
                            let subs = self.absent_words(&present, n_rep);
                            for (p, w) in pos.into_iter().zip(subs) {
                                list[p] = w;
                            }
                        }
                        lines.push(format!("List {}: {}", l + 1, list.join(", ")));
                    }
                    let instr = "Given the lists of words in the context, identify the list that is different from the others. Provide the list number as your answer. For example, if the Nth list is different, provide \"List N\" as your answer.";
                    let cond = vec![self.ctx_cond(), ("n_words", n.to_string()), ("p_anomaly", p.into())];
                    self.push(cond, prompt(&lines.join("\n"), instr), text(format!("List {}", odd + 1)));
                }
            }
        }
    }

    /// Patch the difference: a pattern repeated `max // tokens(pattern + ", ")` times, then the first
    /// word (start 0), the first half (start 0.5) or nothing (start 1). Pattern length 2 has no 0.5.
    fn patch_the_difference(&mut self) {
        for len in [2usize, 15, 30] {
            for (start, s_name) in [(0usize, "0"), (1, "0.5"), (2, "1")] {
                if len == 2 && start == 1 {
                    continue;
                }
                for (nth, nth_word) in [(1usize, "next"), (3, "third"), (6, "6th")] {
                    for _ in 0..self.s {
                        let pattern = self.sample_words(len);
                        let unit = format!("{}, ", pattern.join(", "));
                        let reps = (self.max / self.tok.count(&unit)).max(1);
                        let mut seq: Vec<&str> = Vec::new();
                        for _ in 0..reps {
                            seq.extend(pattern.iter().map(String::as_str));
                        }
                        let tail = match start {
                            0 => 1,
                            1 => pattern.len() / 2,
                            _ => 0,
                        };
                        seq.extend(pattern[..tail].iter().map(String::as_str));
                        let answer = pattern[(seq.len() - 1 + nth) % pattern.len()].clone();
                        let instr = format!(
                            "Given the sequence of words that follows a specific pattern in the context, predict the {nth_word} word that appears after the final word in the given sequence."
                        );
                        let lead = format!(
                            "\n\nAnswer: The {nth_word} word that appears after the final word in the given sequence is"
                        );
                        let cond = vec![
                            self.ctx_cond(),
                            ("pattern_length", len.to_string()),
                            ("start", s_name.into()),
                            ("nth", nth.to_string()),
                        ];
                        self.push(cond, prompt_lead(&seq.join(", "), &instr, &lead), text(answer));
                    }
                }
            }
        }
    }

    /// Round-robin lists `words[i::n]` of one trimmed context, printed `"List k: ...\n"`.
    fn round_robin(&mut self, n: usize) -> (Vec<Vec<String>>, String) {
        let ctx = self.unique_words(self.max);
        let lists: Vec<Vec<String>> = (0..n).map(|i| ctx.iter().skip(i).step_by(n).cloned().collect()).collect();
        let text: String =
            lists.iter().enumerate().map(|(i, l)| format!("List {}: {}\n", i + 1, l.join(", "))).collect();
        (lists, text)
    }

    fn group_membership(&mut self) {
        for n in [4usize, 8, 16, 32] {
            for i in 0..=4usize {
                let q = n * i / 4;
                for _ in 0..self.s {
                    let (lists, ctx) = self.round_robin(n);
                    let (w, reference) = if q == n {
                        // DEVIATION: the reference checks `w not in set(context)` with `context` the
                        // string, i.e. a set of characters; here the word is absent from every list.
                        let present: HashSet<&str> = lists.iter().flatten().map(String::as_str).collect();
                        (self.absent_word(&present), "no".to_string())
                    } else {
                        (self.pick(&lists[q]), format!("List {}", q + 1))
                    };
                    let instr = format!(
                        "Given the lists of words in the context, determine which list contains the word \"{w}\". If the word is not present in any list, answer \"no\"."
                    );
                    let cond = vec![self.ctx_cond(), ("n_list", n.to_string()), ("query_list", (q + 1).to_string())];
                    self.push(cond, prompt(&ctx, &instr), text(reference));
                }
            }
        }
    }

    /// Two distinct words from the same group (yes) or from two different groups (no).
    fn two_words(&mut self, groups: &[Vec<String>], same: bool) -> (String, String) {
        if same {
            let g = loop {
                let g = self.rng.index(groups.len());
                if groups[g].len() >= 2 {
                    break g;
                }
            };
            let ij = self.sample_idx(groups[g].len(), 2);
            (groups[g][ij[0]].clone(), groups[g][ij[1]].clone())
        } else {
            let gs = self.sample_idx(groups.len(), 2);
            (self.pick(&groups[gs[0]]), self.pick(&groups[gs[1]]))
        }
    }

    fn group_association(&mut self) {
        for n in [4usize, 8, 16, 32] {
            for label in ["yes", "no"] {
                for _ in 0..self.s {
                    let (lists, ctx) = self.round_robin(n);
                    let (a, b) = self.two_words(&lists, label == "yes");
                    let instr = if self.second_wording {
                        format!(
                            "Given the lists of words in the context, check if the words \"{a}\" and \"{b}\" belong to the same list. Answer with \"yes\" or \"no\"."
                        )
                    } else {
                        format!(
                            "Given the lists of words in the context, determine if the word \"{a}\" and the word \"{b}\" are in the same list. Answer with \"yes\" or \"no\"."
                        )
                    };
                    let cond = vec![self.ctx_cond(), ("n_list", n.to_string()), ("label", label.into())];
                    self.push(cond, prompt(&ctx, &instr), text(label));
                }
            }
        }
    }

    /// Alternating roles: contiguous role chunks of `len // R` words cut into 10 turns of `chunk // 10`
    /// (the remainder dropped), printed turn by turn. Returns (turns[t][r] = words, printed context).
    fn roles(&mut self, n_roles: usize) -> (Vec<Vec<Vec<String>>>, String) {
        const TURNS: usize = 10;
        let ctx = self.unique_words(self.max);
        let chunk = ctx.len() / n_roles;
        let per_turn = (chunk / TURNS).max(1);
        let mut turns = vec![vec![Vec::new(); n_roles]; TURNS];
        let mut lines = Vec::new();
        for (t, turn) in turns.iter_mut().enumerate() {
            for (r, slot) in turn.iter_mut().enumerate() {
                let lo = (r * chunk + t * per_turn).min(r * chunk + chunk);
                let hi = (lo + per_turn).min(r * chunk + chunk);
                *slot = ctx[lo..hi].to_vec();
                lines.push(format!("Role {}: {}", r + 1, slot.join(", ")));
            }
        }
        (turns, lines.join("\n"))
    }

    fn alternating_group_association(&mut self) {
        for n in [2usize, 4, 8, 16, 32] {
            for label in ["yes", "no"] {
                for _ in 0..self.s {
                    let (turns, ctx) = self.roles(n);
                    let groups: Vec<Vec<String>> =
                        (0..n).map(|r| turns.iter().flat_map(|t| t[r].iter().cloned()).collect()).collect();
                    let (a, b) = self.two_words(&groups, label == "yes");
                    let instr = format!(
                        "Given the context with alternating roles and their respective context words, determine if the word \"{a}\" and the word \"{b}\" are in the same role. Answer with \"yes\" or \"no\"."
                    );
                    let cond = vec![
                        self.ctx_cond(),
                        ("n_roles", n.to_string()),
                        ("n_turns", "10".into()),
                        ("label", label.into()),
                    ];
                    self.push(cond, prompt(&ctx, &instr), text(label));
                }
            }
        }
    }

    fn iterate(&mut self, last: bool) {
        let which = if last { "last" } else { "first" };
        for n in [4usize, 8, 16, 32] {
            for _ in 0..self.s {
                let (lists, ctx) = self.round_robin(n);
                let reference: Vec<&str> = lists
                    .iter()
                    .map(|l| if last { l.last() } else { l.first() }.map(String::as_str).unwrap_or(""))
                    .collect();
                let instr = format!(
                    "Given the lists of words in the context, identify and recall the {which} word from each list. Provide your answer as a list of these words separated by commas."
                );
                let cond = vec![self.ctx_cond(), ("n_list", n.to_string())];
                self.push(cond, prompt(&ctx, &instr), text(reference.join(", ")));
            }
        }
    }

    fn quantity_state(&mut self) {
        let steps = self.steps.unwrap_or(200);
        for _ in 0..self.s {
            let start = self.rng.randint(1, 100) as i64;
            let mut value = start;
            let mut ops = format!("Begin with the number {start}. Perform the following operations:\n");
            for i in 1..=steps {
                let k = self.rng.randint(1, 100) as i64;
                if self.rng.coin() {
                    value += k;
                    ops.push_str(&format!("{i}. Add {k}\n"));
                } else {
                    value -= k;
                    ops.push_str(&format!("{i}. Subtract {k}\n"));
                }
            }
            let ask = if self.second_wording {
                "Determine the final result after the operations."
            } else {
                "Your task is to determine the final result of the operations."
            };
            let instr = format!(
                "In the context, you are given an initial number and a series of operations to perform on that number. {ask} Write your final answer after the text \"FINAL ANSWER:\". For example, \"FINAL ANSWER: 42\"."
            );
            let cond = vec![("step", steps.to_string())];
            self.push(cond, prompt_final("Context:\n\n", &ops, &instr), Reference::Int(value));
        }
    }

    /// `k` words never used before in this sample (so the state is a set and every action is unambiguous).
    fn fresh_words(&mut self, used: &mut HashSet<String>, k: usize) -> Vec<String> {
        let mut out = Vec::with_capacity(k);
        while out.len() < k {
            let w = self.choose_word();
            if used.insert(w.clone()) {
                out.push(w);
            }
        }
        out
    }

    /// Set state: a first draw of `state_size` words, then `steps` alternating discards
    /// (`randint(1, |state| // 2)`) and draws (`randint(1, S - |state|)`).
    fn set_state(&mut self) {
        let steps = self.steps.unwrap_or(100);
        for size in [5usize, 10, 15, 20] {
            for _ in 0..self.s {
                let mut used = HashSet::new();
                let mut state = self.fresh_words(&mut used, size);
                let mut ops = format!("Agent draws the following words: {}.\n", state.join(", "));
                for step in 0..steps {
                    if step % 2 == 0 {
                        let k = self.rng.randint(1, (state.len() / 2).max(1) as i32) as usize;
                        let gone = self.sample_from_list(&state, k);
                        state.retain(|w| !gone.contains(w));
                        ops.push_str(&format!("Agent discards the following words: {}.\n", gone.join(", ")));
                    } else {
                        let room = size.saturating_sub(state.len()).max(1);
                        let k = self.rng.randint(1, room as i32) as usize;
                        let new = self.fresh_words(&mut used, k);
                        state.extend(new.iter().cloned());
                        ops.push_str(&format!("Agent draws the following words: {}.\n", new.join(", ")));
                    }
                }
                let instr = "Given the actions of the agent, your task is to determine the final list of words the agent ends up with after a series of actions. Write your final answer after the text \"FINAL ANSWER:\". For example, \"FINAL ANSWER: word1, word2, word3\"";
                let cond = vec![("step", steps.to_string()), ("state_size", size.to_string())];
                self.push(cond, prompt_final("Agent actions:\n\n", &ops, instr), Reference::List(state));
            }
        }
    }

    fn sample_from_list(&mut self, list: &[String], k: usize) -> Vec<String> {
        self.sample_idx(list.len(), k.min(list.len())).into_iter().map(|i| list[i].clone()).collect()
    }

    /// Processing data blocks: a random role, turn and word; the reference is every later word of that
    /// role (the rest of the turn, then the later turns).
    fn processing_data_blocks(&mut self) {
        for n in [2usize, 4, 8, 16, 32] {
            for _ in 0..self.s {
                let (turns, ctx) = self.roles(n);
                let r = self.rng.index(n);
                let (w, reference) = loop {
                    let t = self.rng.index(turns.len());
                    if turns[t][r].is_empty() {
                        continue;
                    }
                    let i = self.rng.index(turns[t][r].len());
                    let mut after: Vec<&str> = turns[t][r][i + 1..].iter().map(String::as_str).collect();
                    for later in &turns[t + 1..] {
                        after.extend(later[r].iter().map(String::as_str));
                    }
                    // DEVIATION: never the role's last word (an empty reference cannot be scored).
                    if !after.is_empty() {
                        break (turns[t][r][i].clone(), after.join(", "));
                    }
                };
                let instr = format!(
                    "The context consists of a series of alternating roles, each associated with a list of words. Your task is to identify and recall all the words from the role labeled \"Role {}\" that appear after the word \"{w}\" in the sequence. Please write your answer after the text \"Answer:\". For example, \"Answer: word1, word2, word3\".",
                    r + 1
                );
                let cond = vec![self.ctx_cond(), ("n_roles", n.to_string()), ("n_turns", "10".into())];
                self.push(cond, prompt(&ctx, &instr), text(reference));
            }
        }
    }

    /// Theory of mind: each agent starts with `randint(1, S-1)` words; then `steps` actions, each a
    /// uniform choice of agent and of draw (`randint(1, S-|state|)` new words), discard
    /// (`randint(1, |state|)` of its words) or swap (the same number of words with another agent);
    /// impossible actions are skipped without counting.
    fn theory_of_mind(&mut self) {
        let steps = self.steps.unwrap_or(100);
        const NAMES: [&str; 4] = ["Agent A", "Agent B", "Agent C", "Agent D"];
        for n_agents in [2usize, 3, 4] {
            for size in [10usize, 20] {
                for _ in 0..self.s {
                    let mut used = HashSet::new();
                    let mut state: Vec<Vec<String>> = Vec::new();
                    let mut ops = String::new();
                    for name in &NAMES[..n_agents] {
                        let k = self.rng.randint(1, size as i32 - 1) as usize;
                        let ws = self.fresh_words(&mut used, k);
                        ops.push_str(&format!("{name} starts with the following words: {}.\n", ws.join(", ")));
                        state.push(ws);
                    }
                    let mut done = 0;
                    while done < steps {
                        let a = self.rng.index(n_agents);
                        match self.rng.index(3) {
                            0 => {
                                if state[a].len() >= size {
                                    continue;
                                }
                                let k = self.rng.randint(1, (size - state[a].len()) as i32) as usize;
                                let new = self.fresh_words(&mut used, k);
                                ops.push_str(&format!("{} draws the following words: {}.\n", NAMES[a], new.join(", ")));
                                state[a].extend(new);
                            }
                            1 => {
                                if state[a].is_empty() {
                                    continue;
                                }
                                let k = self.rng.randint(1, state[a].len() as i32) as usize;
                                let gone = self.sample_from_list(&state[a], k);
                                state[a].retain(|w| !gone.contains(w));
                                ops.push_str(&format!(
                                    "{} discards the following words: {}.\n",
                                    NAMES[a],
                                    gone.join(", ")
                                ));
                            }
                            _ => {
                                let mut b = self.rng.index(n_agents - 1);
                                if b >= a {
                                    b += 1;
                                }
                                if state[a].is_empty() || state[b].is_empty() {
                                    continue;
                                }
                                let k = self.rng.randint(1, state[a].len().min(state[b].len()) as i32) as usize;
                                let give = self.sample_from_list(&state[a], k);
                                let get = self.sample_from_list(&state[b], k);
                                state[a].retain(|w| !give.contains(w));
                                state[b].retain(|w| !get.contains(w));
                                state[a].extend(get.iter().cloned());
                                state[b].extend(give.iter().cloned());
                                ops.push_str(&format!(
                                    "{} swaps the following words \"{}\" with {} for the following words \"{}\".\n",
                                    NAMES[a],
                                    give.join(", "),
                                    NAMES[b],
                                    get.join(", ")
                                ));
                            }
                        }
                        done += 1;
                    }
                    let reference: BTreeMap<String, Vec<String>> =
                        NAMES[..n_agents].iter().map(|n| n.to_string()).zip(state).collect();
                    let instr = "Given the actions of the agents, your task is to determine the final list of words each agent ends up with after a series of actions. Write your final answer after the text \"FINAL ANSWER:\". For example, \"FINAL ANSWER: Agent A: word1, word2, word3\nAgent B: word4, word5\".";
                    let cond = vec![
                        ("step", steps.to_string()),
                        ("state_size", size.to_string()),
                        ("n_agents", n_agents.to_string()),
                    ];
                    self.push(cond, prompt_final("Agents actions:\n\n", &ops, instr), Reference::Agents(reference));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Small helpers.

fn split_items(s: &str) -> Vec<String> {
    if s.is_empty() { Vec::new() } else { s.split(", ").map(str::to_string).collect() }
}

fn join_pairs(pairs: &[(String, String)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", ")
}

/// Is `run` a contiguous run of `items`?
fn contains_run(items: &[String], run: &[String]) -> bool {
    !run.is_empty() && items.windows(run.len()).any(|w| w == run)
}

/// `k` distinct values of `0..n` in random order, exactly as [`Rng::sample`] draws them, in O(k) memory.
fn sparse_sample(rng: &mut Rng, n: usize, k: usize) -> Vec<usize> {
    assert!(k <= n, "sample {k} of {n}");
    let mut moved: HashMap<usize, usize> = HashMap::with_capacity(k * 2);
    let mut out = Vec::with_capacity(k);
    for i in 0..k {
        let j = i + rng.index(n - i);
        let vj = moved.get(&j).copied().unwrap_or(j);
        let vi = moved.get(&i).copied().unwrap_or(i);
        moved.insert(j, vi);
        out.push(vj);
    }
    out
}
