//! Metrics of the text suites, reproducing the official scorers exactly, quirks included.
//!
//! Minerva (`microsoft/minerva_memory_test`, `src/evaluate.py`, see `shared/spec/reference-implementations.md`
//! §4.4):
//! - [`exact_match`]: `format_reference(ref) in generation.strip().lower().rstrip(".")`, a **substring**
//!   test (so "no" matches "not sure", "list 1" matches "list 12"); text references are lowercased, list
//!   and agent references are not.
//! - [`exact_match_strict`]: our addition, equality after normalisation (definition on the function).
//! - [`final_answer_exact_match`]: [`parse_final_answer`] equals `format_reference(ref)`.
//! - [`count_accuracy`]: the first of `once, twice, three, thrice, four, …, ten` found as a
//!   case-sensitive substring, else the first `(\d+) times`; compared to the integer.
//! - [`rouge_l`] / [`rouge_l_recall`]: `rouge_score` rougeL (LCS over whole token sequences) F and recall.
//! - [`jaccard`]: `set_overlap`: FINAL ANSWER parsed, split on exactly `", "`, Jaccard of the sets.
//! - [`theory_of_mind`]: per-agent set overlap averaged over the reference agents; the paper reports
//!   the Jaccard similarity (Table 10: `jaccard_similarity`), so that is the headline number.
//!
//! The Little Retrieval Test: [`first_integer_match`] (first `\d+` of the reply equals the value).
//!
//! Every function is pure; no regex crate: the few patterns are parsed by hand, with Python `re`
//! semantics worked out in the comments.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Metric, Reference};

// ---------------------------------------------------------------------------------------------
// Python string helpers
// ---------------------------------------------------------------------------------------------

/// Python's `str.isspace` for one character: Unicode White_Space plus the ASCII information separators
/// U+001C..U+001F (which Python counts as whitespace and Rust does not).
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `s.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

/// Python `s.rstrip(".")`.
fn rstrip_dots(s: &str) -> &str {
    s.trim_end_matches('.')
}

/// The official normalisation of a generation for exact match: `generation.strip().lower().rstrip(".")`.
pub fn normalize_generation(generation: &str) -> String {
    let lowered = py_strip(generation).to_lowercase();
    rstrip_dots(&lowered).to_string()
}

/// The official `format_reference`: list → `", ".join`; dict → `"key: v1, v2\n"` per key (keys in map
/// order, which for the snapshot's `Agent A`, `Agent B`, … is the file's order); string → lowercased;
/// int → decimal.
pub fn format_reference(reference: &Reference) -> String {
    match reference {
        Reference::Text(s) => s.to_lowercase(),
        Reference::Int(i) => i.to_string(),
        Reference::List(items) => items.join(", "),
        Reference::Agents(map) => {
            let mut out = String::new();
            for (agent, words) in map {
                out.push_str(agent);
                out.push_str(": ");
                out.push_str(&words.join(", "));
                out.push('\n');
            }
            out
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Exact match
// ---------------------------------------------------------------------------------------------

/// Official Minerva `exact_match`: 1 if `format_reference(reference)` is a **substring** of
/// `prediction.strip().lower().rstrip(".")`, else 0. An empty formatted reference always matches.
pub fn exact_match(reference: &Reference, prediction: &str) -> f64 {
    let reference = format_reference(reference);
    let generation = normalize_generation(prediction);
    bool_score(generation.contains(reference.as_str()))
}

/// Strict normalisation: `strip → lower → rstrip(".") → strip`.
fn strict_norm(s: &str) -> String {
    let lowered = py_strip(s).to_lowercase();
    py_strip(rstrip_dots(&lowered)).to_string()
}

/// A normalised comma-separated item sequence: each item stripped, empty items dropped.
fn strict_items(s: &str) -> Vec<String> {
    s.split(',').map(|x| py_strip(x).to_string()).filter(|x| !x.is_empty()).collect()
}

/// Exact match, strict (our variant; not in the official scorer). Both sides are normalised with
/// `strip → lower → rstrip(".") → strip`, then compared **for equality as comma-separated item
/// sequences** (each item stripped, empty items dropped), so `"Yes."` = `"yes"`, `"a,b"` = `"a, b"`,
/// but `"not sure"` ≠ `"no"` and `"list 12"` ≠ `"list 1"`.
/// - Text / Int reference: the normalised reference's items.
/// - List reference: the reference items, each stripped and lowercased, in order (order matters).
/// - Agents reference: the prediction is read line by line; each non-empty line `name: items` gives
///   an agent (name stripped and lowercased) and its item sequence; the result must have exactly the
///   reference's agents with equal item sequences (agent order free, a repeated agent: last line wins).
pub fn exact_match_strict(reference: &Reference, prediction: &str) -> f64 {
    match reference {
        Reference::Text(_) | Reference::Int(_) => {
            let r = strict_items(&strict_norm(&format_reference(reference)));
            bool_score(strict_items(&strict_norm(prediction)) == r)
        }
        Reference::List(items) => {
            let r: Vec<String> = items.iter().map(|x| py_strip(x).to_lowercase()).filter(|x| !x.is_empty()).collect();
            bool_score(strict_items(&strict_norm(prediction)) == r)
        }
        Reference::Agents(map) => {
            let r: BTreeMap<String, Vec<String>> = map
                .iter()
                .map(|(k, v)| {
                    let items = v.iter().map(|x| py_strip(x).to_lowercase()).filter(|x| !x.is_empty()).collect();
                    (py_strip(k).to_lowercase(), items)
                })
                .collect();
            let norm = strict_norm(prediction);
            let mut got: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for line in norm.lines() {
                if py_strip(line).is_empty() {
                    continue;
                }
                let Some((name, items)) = line.split_once(':') else {
                    return 0.0;
                };
                got.insert(py_strip(name).to_string(), strict_items(rstrip_dots(py_strip(items))));
            }
            bool_score(got == r)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// FINAL ANSWER
// ---------------------------------------------------------------------------------------------

const FINAL_ANSWER: &str = "FINAL ANSWER:";

/// The text after the first `FINAL ANSWER:` if at least one character follows it: Python
/// `re.search(r"FINAL ANSWER:(.+)", g, re.DOTALL).group(1)`. The marker cannot overlap itself, so only
/// the first occurrence can match; if nothing follows it, there is no later occurrence either.
fn final_answer_group(generation: &str) -> Option<&str> {
    let i = generation.find(FINAL_ANSWER)?;
    let rest = &generation[i + FINAL_ANSWER.len()..];
    (!rest.is_empty()).then_some(rest)
}

/// Official `parse_final_answer`: the text after `FINAL ANSWER:` (regex `FINAL ANSWER:(.+)`, DOTALL),
/// `.strip().rstrip(".")`; if there is none, the whole generation `.strip().rstrip(".")`. Case-sensitive;
/// only the trailing dots of the whole text are removed (no strip after them).
pub fn parse_final_answer(generation: &str) -> String {
    let body = final_answer_group(generation).unwrap_or(generation);
    rstrip_dots(py_strip(body)).to_string()
}

/// Official `final_answer_exact_match` (quantity_state): [`parse_final_answer`] **equals**
/// `format_reference(reference)` (so a text reference is lowercased, the prediction is not).
pub fn final_answer_exact_match(reference: &Reference, prediction: &str) -> f64 {
    bool_score(parse_final_answer(prediction) == format_reference(reference))
}

// ---------------------------------------------------------------------------------------------
// Counting and integers
// ---------------------------------------------------------------------------------------------

/// The official `COUNT_WORDS`, in dict order (the first one found wins).
pub const COUNT_WORDS: [(&str, u32); 11] = [
    ("once", 1),
    ("twice", 2),
    ("three", 3),
    ("thrice", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
];

/// Decimal value of an ASCII digit string; `None` if it does not fit (it then equals no `i64`).
fn digits_value(d: &str) -> Option<i128> {
    let mut v: i128 = 0;
    for b in d.bytes() {
        v = v.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
    }
    Some(v)
}

/// The count the official scorer reads from a reply: the first word of [`COUNT_WORDS`] (in that order)
/// that occurs anywhere as a case-sensitive substring (`"often"` contains `"ten"`, `"fourteen"`
/// contains `"four"`: quirks kept); otherwise the number of the first `(\d+) times` (a maximal run of
/// ASCII digits directly followed by `" times"`); otherwise `None`.
pub fn count_from_reply(generation: &str) -> Option<i128> {
    for (word, n) in COUNT_WORDS {
        if generation.contains(word) {
            return Some(i128::from(n));
        }
    }
    let b = generation.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if generation[i..].starts_with(" times") {
                // A run too long for i128 cannot equal any reference: report it as unmatched.
                return digits_value(&generation[start..i]).or(Some(i128::MAX));
            }
        } else {
            i += 1;
        }
    }
    None
}

/// Official `count_accuracy`: 1 if [`count_from_reply`] equals the reference count.
pub fn count_accuracy(reference: i64, prediction: &str) -> f64 {
    bool_score(count_from_reply(prediction) == Some(i128::from(reference)))
}

/// The first run of ASCII digits in the text (`re.search(r"\d+", s)`), if any.
pub fn first_integer(s: &str) -> Option<&str> {
    let start = s.find(|c: char| c.is_ascii_digit())?;
    let rest = &s[start..];
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The Little Retrieval Test: 1 if the first integer of the reply equals the reference value (compared
/// as integers, so `"007"` matches 7), 0 otherwise or if the reply has no digits.
pub fn first_integer_match(reference: i64, prediction: &str) -> f64 {
    let got = first_integer(prediction).and_then(digits_value);
    bool_score(got == Some(i128::from(reference)))
}

// ---------------------------------------------------------------------------------------------
// ROUGE (rouge_score semantics)
// ---------------------------------------------------------------------------------------------

/// Precision, recall and F-measure (`rouge_score.scoring.Score`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Prf {
    /// Matched tokens / prediction tokens (LCS length for rougeL, clipped unigrams for rouge1), in [0, 1].
    pub precision: f64,
    /// Matched tokens / reference tokens, in [0, 1].
    pub recall: f64,
    /// Their harmonic mean 2PR/(P+R), 0 when both are 0.
    pub fmeasure: f64,
}

impl Prf {
    /// `scoring.fmeasure`: 2PR/(P+R), or 0 when P + R = 0.
    pub fn new(precision: f64, recall: f64) -> Self {
        let fmeasure = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
        Prf { precision, recall, fmeasure }
    }
}

/// `rouge_score` tokenisation without a stemmer: lowercase (Unicode), replace every run of characters
/// outside `[a-z0-9]` by a space, split on whitespace, keep `^[a-z0-9]+$` tokens. Equivalently: the
/// maximal runs of ASCII `[a-z0-9]` in the lowercased text (`"Don't"` → `don`, `t`; `"É"` → nothing).
pub fn rouge_tokenize(text: &str) -> Vec<String> {
    let lowered = text.to_lowercase();
    lowered
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Length of the longest common subsequence, O(n·m) time and O(min(n, m)) memory.
pub fn lcs_len<T: Eq>(a: &[T], b: &[T]) -> usize {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return 0;
    }
    let mut row = vec![0usize; short.len() + 1];
    for x in long {
        let mut diag = 0; // row[j-1] of the previous row
        for (j, y) in short.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[short.len()]
}

/// Tokens as small integer ids (one table for both sides) so the LCS compares integers.
fn token_ids(a: &[String], b: &[String]) -> (Vec<u32>, Vec<u32>) {
    let mut table: HashMap<&str, u32> = HashMap::new();
    let mut ids = [Vec::with_capacity(a.len()), Vec::with_capacity(b.len())];
    for (side, toks) in [a, b].into_iter().enumerate() {
        for t in toks {
            let next = table.len() as u32;
            ids[side].push(*table.entry(t.as_str()).or_insert(next));
        }
    }
    let [ia, ib] = ids;
    (ia, ib)
}

/// rougeL of `rouge_score` on two texts (target = reference, prediction): LCS over the whole token
/// sequences, P = LCS/|pred|, R = LCS/|ref|, F = 2PR/(P+R); all 0 if either side has no tokens.
pub fn rouge_l_text(reference: &str, prediction: &str) -> Prf {
    let r = rouge_tokenize(reference);
    let p = rouge_tokenize(prediction);
    if r.is_empty() || p.is_empty() {
        return Prf::default();
    }
    let (ir, ip) = token_ids(&r, &p);
    let lcs = lcs_len(&ir, &ip) as f64;
    Prf::new(lcs / p.len() as f64, lcs / r.len() as f64)
}

/// rouge1 of `rouge_score` (clipped unigram overlap), for completeness: the official scorer reports it
/// beside rougeL.
pub fn rouge_1_text(reference: &str, prediction: &str) -> Prf {
    let r = rouge_tokenize(reference);
    let p = rouge_tokenize(prediction);
    if r.is_empty() || p.is_empty() {
        return Prf::default();
    }
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
    for t in &r {
        counts.entry(t).or_default().0 += 1;
    }
    for t in &p {
        counts.entry(t).or_default().1 += 1;
    }
    let overlap: usize = counts.values().map(|(a, b)| (*a).min(*b)).sum();
    Prf::new(overlap as f64 / p.len() as f64, overlap as f64 / r.len() as f64)
}

/// The official `compute_rouge` rougeL on a reference (formatted with [`format_reference`]).
pub fn rouge_l_scores(reference: &Reference, prediction: &str) -> Prf {
    rouge_l_text(&format_reference(reference), prediction)
}

/// `rouge-L` (the F-measure).
pub fn rouge_l(reference: &Reference, prediction: &str) -> f64 {
    rouge_l_scores(reference, prediction).fmeasure
}

/// `rouge-L_recall`: LCS / reference length.
pub fn rouge_l_recall(reference: &Reference, prediction: &str) -> f64 {
    rouge_l_scores(reference, prediction).recall
}

// ---------------------------------------------------------------------------------------------
// Set overlap
// ---------------------------------------------------------------------------------------------

/// The official `calculate_set_overlap` numbers.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SetOverlap {
    /// |reference ∩ answer| / |answer| (0 for an empty answer set).
    pub precision: f64,
    /// |reference ∩ answer| / |reference| (0 for an empty reference set).
    pub recall: f64,
    /// 2PR/(P+R), 0 when P + R = 0.
    pub f1: f64,
    /// |reference ∩ answer| / |reference ∪ answer| (0 when both are empty): the paper's headline number for
    /// set_state and theory of mind.
    pub jaccard: f64,
}

/// `calculate_set_overlap(reference_set, generation_set)`: P = |∩|/|gen| (0 if gen empty),
/// R = |∩|/|ref| (0 if ref empty), F1 = 2PR/(P+R) (0 if P+R = 0), Jaccard = |∩|/|∪| (0 if ∪ empty).
pub fn set_overlap<S: Ord>(reference: &BTreeSet<S>, generation: &BTreeSet<S>) -> SetOverlap {
    let inter = reference.intersection(generation).count() as f64;
    let union = reference.union(generation).count() as f64;
    let precision = if generation.is_empty() { 0.0 } else { inter / generation.len() as f64 };
    let recall = if reference.is_empty() { 0.0 } else { inter / reference.len() as f64 };
    let f1 = Prf::new(precision, recall).fmeasure;
    let jaccard = if union > 0.0 { inter / union } else { 0.0 };
    SetOverlap { precision, recall, f1, jaccard }
}

/// Official `compute_set_overlap_accuracy` (set_state): `set(parse_final_answer(g).split(", "))` against
/// `set(reference)`. The split is on exactly `", "` (`"a,b"` is one item), items are not stripped and
/// case matters. An empty answer gives the set `{""}`.
pub fn set_overlap_scores<S: AsRef<str>>(reference: &[S], prediction: &str) -> SetOverlap {
    let answer = parse_final_answer(prediction);
    let gen_set: BTreeSet<&str> = answer.split(", ").collect();
    let ref_set: BTreeSet<&str> = reference.iter().map(AsRef::as_ref).collect();
    set_overlap(&ref_set, &gen_set)
}

/// `set_overlap_jaccard_similarity` (the paper's set-state metric).
pub fn jaccard<S: AsRef<str>>(reference: &[S], prediction: &str) -> f64 {
    set_overlap_scores(reference, prediction).jaccard
}

/// Official `parse_final_answer_tom`: the FINAL ANSWER text (`.strip().rstrip(".")`; without the marker
/// the whole generation `.strip()` only), split on `"\n"`; each line split on its first `":"` into the
/// name (stripped) and items (split on `","`, each stripped). Lines without `":"` are skipped; a
/// repeated name keeps its last line.
pub fn parse_final_answer_tom(generation: &str) -> BTreeMap<String, BTreeSet<String>> {
    let answer = match final_answer_group(generation) {
        Some(g) => rstrip_dots(py_strip(g)),
        None => py_strip(generation),
    };
    let mut out = BTreeMap::new();
    for line in answer.split('\n') {
        let Some((name, items)) = line.split_once(':') else {
            continue;
        };
        let set = items.split(',').map(|x| py_strip(x).to_string()).collect();
        out.insert(py_strip(name).to_string(), set);
    }
    out
}

/// Official `compute_theory_of_mind_accuracy`: for every reference agent, the [`set_overlap`] of its
/// reference words against the parsed answer's words for that exact agent name (a missing agent scores
/// 0 on all four numbers), averaged over the reference agents. No reference agents → all 0 (the
/// official code would raise).
pub fn theory_of_mind_scores(reference: &BTreeMap<String, Vec<String>>, prediction: &str) -> SetOverlap {
    let parsed = parse_final_answer_tom(prediction);
    if reference.is_empty() {
        return SetOverlap::default();
    }
    let mut sum = SetOverlap::default();
    for (agent, words) in reference {
        let Some(got) = parsed.get(agent) else {
            continue;
        };
        let ref_set: BTreeSet<String> = words.iter().cloned().collect();
        let s = set_overlap(&ref_set, got);
        sum.precision += s.precision;
        sum.recall += s.recall;
        sum.f1 += s.f1;
        sum.jaccard += s.jaccard;
    }
    let n = reference.len() as f64;
    SetOverlap { precision: sum.precision / n, recall: sum.recall / n, f1: sum.f1 / n, jaccard: sum.jaccard / n }
}

/// Theory of mind headline: the per-agent Jaccard similarity averaged over the reference agents (the
/// paper's Table 10 metric for this task is `jaccard_similarity`).
pub fn theory_of_mind(reference: &BTreeMap<String, Vec<String>>, prediction: &str) -> f64 {
    theory_of_mind_scores(reference, prediction).jaccard
}

// ---------------------------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------------------------

/// An integer reference: a JSON integer, or a string holding one (Python `int(s)`: surrounding
/// whitespace allowed, an optional sign; the snapshot's count references are strings like `"2"`).
pub fn reference_int(reference: &Reference) -> Option<i64> {
    match reference {
        Reference::Int(i) => Some(*i),
        Reference::Text(s) => {
            let t = py_strip(s);
            let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            t.parse().ok()
        }
        _ => None,
    }
}

/// The headline score of one metric for one reply, in [0, 1]. Errors name the reference shape the
/// metric needs. `Nback` is not a single-reply metric (see `crate::sdt`), so it is an error here.
///
/// Reference shapes: exact_match, exact_match_strict, final_answer_exact_match, rouge_l, rouge_l_recall:
/// any; count_accuracy, first_integer: an integer (or a string holding one); jaccard: a list (a text
/// reference is read as a `", "`-joined list); theory_of_mind: agents.
pub fn score(metric: Metric, reference: &Reference, prediction: &str) -> Result<f64, MetricError> {
    let wrong = |needs: &'static str| MetricError::Reference { metric, needs };
    // ROUGE-L's table is words × words: a 200k-word reply took minutes. Bounded, the limit in the error.
    if matches!(metric, Metric::RougeL | Metric::RougeLRecall) {
        let (r, p) = (rouge_tokenize(&format_reference(reference)).len(), rouge_tokenize(prediction).len());
        if r.saturating_mul(p) > ROUGE_CELLS {
            return Err(MetricError::TooLong { metric, reference_words: r, reply_words: p });
        }
    }
    Ok(match metric {
        Metric::ExactMatch => exact_match(reference, prediction),
        Metric::ExactMatchStrict => exact_match_strict(reference, prediction),
        Metric::FinalAnswerExactMatch => final_answer_exact_match(reference, prediction),
        Metric::CountAccuracy => count_accuracy(reference_int(reference).ok_or(wrong("an integer"))?, prediction),
        Metric::FirstInteger => first_integer_match(reference_int(reference).ok_or(wrong("an integer"))?, prediction),
        Metric::RougeL => rouge_l(reference, prediction),
        Metric::RougeLRecall => rouge_l_recall(reference, prediction),
        Metric::Jaccard => match reference {
            Reference::List(items) => jaccard(items, prediction),
            Reference::Text(s) => jaccard(&s.split(", ").collect::<Vec<_>>(), prediction),
            _ => return Err(wrong("a list of strings")),
        },
        Metric::TheoryOfMind => match reference {
            Reference::Agents(map) => theory_of_mind(map, prediction),
            _ => return Err(wrong("an object agent -> list of strings")),
        },
        Metric::LastValues => match reference {
            Reference::Agents(map) => super::pi::score_reply(map, prediction),
            _ => return Err(wrong("an object key -> [last value]")),
        },
        Metric::SaysYes => f64::from(super::latent::parse_yes_no(prediction) == Some(true)),
        Metric::SameNumber => f64::from(super::latent::magic_consistent(prediction)),
        Metric::Nback => return Err(MetricError::WholeBlock),
    })
}

/// The most cells (reference words × reply words) of ROUGE-L's longest-common-subsequence table
/// [`score`] fills: about half a second on a 2-core machine; the official scorer takes as long.
pub const ROUGE_CELLS: usize = 200_000_000;

/// Why [`score`] could not score a reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricError {
    /// The reference has a shape the metric cannot read.
    #[error("{} needs {needs} as reference", metric.as_str())]
    Reference {
        /// The metric asked for.
        metric: Metric,
        /// The reference shape it takes, in words (`an integer`, `a list of strings`, …).
        needs: &'static str,
    },
    /// [`Metric::Nback`] was asked of one reply: N-back is scored over a whole block (`crate::sdt`).
    #[error("nback is scored over a whole block, not one reply")]
    WholeBlock,
    /// ROUGE-L of a reply and a reference whose word counts multiply past [`ROUGE_CELLS`].
    #[error(
        "{} of a {reply_words}-word reply against a {reference_words}-word reference would fill {} cells, over \
         the limit of {ROUGE_CELLS}; the reply is not scored",
        metric.as_str(),
        reference_words.saturating_mul(*reply_words)
    )]
    TooLong {
        /// The metric asked for.
        metric: Metric,
        /// Words of the reference.
        reference_words: usize,
        /// Words of the reply.
        reply_words: usize,
    },
}

fn bool_score(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Reference {
        Reference::Text(s.into())
    }
    fn list(items: &[&str]) -> Reference {
        Reference::List(items.iter().map(|s| s.to_string()).collect())
    }
    fn agents(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect())).collect()
    }
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn exact_match_is_substring_containment() {
        assert_eq!(exact_match(&t("no"), "not sure"), 1.0);
        assert_eq!(exact_match_strict(&t("no"), "not sure"), 0.0);
        assert_eq!(exact_match(&t("List 1"), "list 12"), 1.0);
        assert_eq!(exact_match_strict(&t("List 1"), "list 12"), 0.0);
        assert_eq!(exact_match(&t("yes"), "  Yes.  "), 1.0);
        assert_eq!(exact_match(&t("yes"), "The answer is YES..."), 1.0);
        assert_eq!(exact_match(&t("yes"), "no"), 0.0);
        // empty reference matches everything
        assert_eq!(exact_match(&t(""), "anything"), 1.0);
        // int reference
        assert_eq!(exact_match(&Reference::Int(2), "it appears 32 times"), 1.0);
    }

    #[test]
    fn exact_match_list_reference_not_lowercased() {
        // the generation is lowercased, the list reference is not: an upper-case item can never match
        assert_eq!(exact_match(&list(&["Apple", "pear"]), "Apple, pear"), 0.0);
        assert_eq!(exact_match(&list(&["apple", "pear"]), "Apple, Pear"), 1.0);
        assert_eq!(exact_match(&t("Apple"), "APPLE"), 1.0); // text references are lowercased
    }

    #[test]
    fn exact_match_only_trailing_dots_after_strip() {
        // strip first, then rstrip("."): "yes. " → "yes"; but a dot inside is kept
        assert_eq!(exact_match(&t("yes"), "yes. "), 1.0);
        // reference with trailing dot can't match a generation whose dots were stripped
        assert_eq!(exact_match(&t("etc."), "etc."), 0.0);
    }

    #[test]
    fn exact_match_strict_definition() {
        assert_eq!(exact_match_strict(&t("yes"), " Yes. "), 1.0);
        assert_eq!(exact_match_strict(&t("yes"), "yes, it is"), 0.0);
        assert_eq!(exact_match_strict(&t("a, b"), "A,b."), 1.0);
        assert_eq!(exact_match_strict(&Reference::Int(42), "42"), 1.0);
        assert_eq!(exact_match_strict(&list(&["Apple", "pear"]), "apple, pear"), 1.0);
        assert_eq!(exact_match_strict(&list(&["apple", "pear"]), "pear, apple"), 0.0);
        let a = Reference::Agents(agents(&[("Agent A", &["x", "y"]), ("Agent B", &["z"])]));
        assert_eq!(exact_match_strict(&a, "Agent B: z\nagent a: x, y."), 1.0);
        assert_eq!(exact_match_strict(&a, "Agent A: x, y"), 0.0);
        assert_eq!(exact_match_strict(&a, "Agent A: x, y\nAgent B: z\nnonsense"), 0.0);
    }

    #[test]
    fn final_answer_parsing() {
        assert_eq!(parse_final_answer("blah\nFINAL ANSWER: 42."), "42");
        assert_eq!(parse_final_answer("  17.. "), "17");
        // DOTALL: the group runs to the end, newlines included
        assert_eq!(parse_final_answer("FINAL ANSWER: a\nb\n"), "a\nb");
        // first marker wins
        assert_eq!(parse_final_answer("FINAL ANSWER: 1 FINAL ANSWER: 2"), "1 FINAL ANSWER: 2");
        // marker at the very end: no match, fallback to the whole text
        assert_eq!(parse_final_answer("x FINAL ANSWER:"), "x FINAL ANSWER:");
        // case-sensitive marker
        assert_eq!(parse_final_answer("final answer: 3"), "final answer: 3");
        assert_eq!(final_answer_exact_match(&Reference::Int(509), "509"), 1.0);
        assert_eq!(final_answer_exact_match(&Reference::Int(509), "Work...\nFINAL ANSWER: 509."), 1.0);
        assert_eq!(final_answer_exact_match(&Reference::Int(509), "FINAL ANSWER: 509 apples"), 0.0);
        assert_eq!(final_answer_exact_match(&Reference::Int(-5), "-5"), 1.0);
        // a text reference is lowercased, the answer is not
        assert_eq!(final_answer_exact_match(&t("Yes"), "Yes"), 0.0);
        assert_eq!(final_answer_exact_match(&t("Yes"), "yes"), 1.0);
    }

    #[test]
    fn count_words_order_and_patterns() {
        assert_eq!(count_from_reply(" twice in the context."), Some(2));
        assert_eq!(count_from_reply("3 times"), Some(3));
        assert_eq!(count_from_reply("thrice"), Some(3));
        // "three" is checked before "thrice", "once" before everything
        assert_eq!(count_from_reply("three or thrice"), Some(3));
        assert_eq!(count_from_reply("once, not twice"), Some(1));
        // quirks: word search is substring and case-sensitive, before the digit pattern
        assert_eq!(count_from_reply("often, 4 times"), Some(10)); // "often" contains "ten"
        assert_eq!(count_from_reply("fourteen times"), Some(4));
        assert_eq!(count_from_reply("Twice"), None); // case-sensitive, and no "(\d+) times"
        assert_eq!(count_from_reply("16 occurrences, i.e. 16 times"), Some(16));
        assert_eq!(count_from_reply("x12 times"), Some(12));
        assert_eq!(count_from_reply("32times"), None);
        assert_eq!(count_from_reply("appears 8 time"), None);
        assert_eq!(count_accuracy(2, " twice"), 1.0);
        assert_eq!(count_accuracy(3, "3 times"), 1.0);
        assert_eq!(count_accuracy(3, "4 times"), 0.0);
        assert_eq!(count_accuracy(32, "99999999999999999999999999999999999999999 times"), 0.0);
    }

    #[test]
    fn first_integer_lrt() {
        assert_eq!(first_integer("REGISTER_CONTENT is <4521>"), Some("4521"));
        assert_eq!(first_integer("none"), None);
        assert_eq!(first_integer_match(4521, "4521"), 1.0);
        assert_eq!(first_integer_match(4521, "The value is 4521."), 1.0);
        assert_eq!(first_integer_match(4521, "line 7: 4521"), 0.0); // first integer is 7
        assert_eq!(first_integer_match(7, "007"), 1.0);
        assert_eq!(first_integer_match(7, "no number"), 0.0);
    }

    #[test]
    fn rouge_tokenisation() {
        assert_eq!(rouge_tokenize("Hello, World! don't  x-ray 42"), ["hello", "world", "don", "t", "x", "ray", "42"]);
        assert_eq!(rouge_tokenize("Café_au-LAIT"), ["caf", "au", "lait"]);
        assert!(rouge_tokenize(" ,.; ").is_empty());
        assert_eq!(rouge_tokenize("a1b2"), ["a1b2"]);
    }

    #[test]
    fn lcs_small() {
        assert_eq!(lcs_len(&[1, 2, 3, 4], &[2, 4]), 2);
        assert_eq!(lcs_len(&[2, 4], &[1, 2, 3, 4]), 2);
        assert_eq!(lcs_len::<u8>(&[], &[1]), 0);
        assert_eq!(lcs_len(b"ABCBDAB", b"BDCABA"), 4);
    }

    #[test]
    fn rouge_l_worked() {
        // ref: a b c d (4), pred: a c e (3): LCS = "a c" = 2; P = 2/3, R = 2/4, F = 2·(2/3)(1/2)/(7/6) = 4/7
        // Issue 71: 100k words against 100k took 21.8 s (quadratic); past the limit, refused at once.
        let long = "word ".repeat(100_000);
        let started = std::time::Instant::now();
        let e = score(Metric::RougeL, &Reference::Text(long.clone()), &long).unwrap_err();
        assert!(started.elapsed().as_secs_f64() < 2.0, "{:?}", started.elapsed());
        assert!(e.to_string().contains("100000-word reply against a 100000-word reference"), "{e}");
        assert!(score(Metric::RougeLRecall, &Reference::Text("a b".into()), &"a ".repeat(1000)).is_ok());
        let s = rouge_l_text("a b c d", "A, c. e");
        assert!(close(s.precision, 2.0 / 3.0));
        assert!(close(s.recall, 0.5));
        assert!(close(s.fmeasure, 4.0 / 7.0));
        assert!(close(rouge_l(&t("a b c d"), "a c e"), 4.0 / 7.0));
        assert!(close(rouge_l_recall(&t("a b c d"), "a c e"), 0.5));
        // order matters for LCS, not for rouge1
        let s = rouge_l_text("a b", "b a");
        assert!(close(s.fmeasure, 0.5));
        assert!(close(rouge_1_text("a b", "b a").fmeasure, 1.0));
        // empty sides
        assert_eq!(rouge_l_text("", "a"), Prf::default());
        assert_eq!(rouge_l_text("a", "!!"), Prf::default());
        // list reference is joined with ", "
        assert!(close(rouge_l_recall(&list(&["x", "y"]), "x, z, y"), 1.0));
        // long inputs work
        let long: Vec<String> = (0..1300).map(|i| format!("w{}", i % 97)).collect();
        let text = long.join(", ");
        assert!(close(rouge_l(&t(&text), &text), 1.0));
    }

    #[test]
    fn jaccard_exact_split() {
        // "a,b" is one item; "a, b" are two
        assert!(close(jaccard(&["a", "b"], "a,b"), 0.0));
        assert!(close(jaccard(&["a", "b"], "a, b"), 1.0));
        assert!(close(jaccard(&["a", "b"], "FINAL ANSWER: b, a."), 1.0));
        // case and spaces matter: "A" ≠ "a", " b" stays " b" after ", " split of "a,  b"
        assert!(close(jaccard(&["a", "b"], "A, b"), 1.0 / 3.0));
        assert!(close(jaccard(&["a", "b"], "a,  b"), 1.0 / 3.0));
        let s = set_overlap_scores(&["a", "b", "c"], "a, b, d, e");
        assert!(close(s.precision, 0.5));
        assert!(close(s.recall, 2.0 / 3.0));
        assert!(close(s.f1, 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)));
        assert!(close(s.jaccard, 2.0 / 5.0));
        // empty answer = {""}
        let s = set_overlap_scores(&["a"], "");
        assert_eq!(s, SetOverlap::default());
        // duplicates collapse
        assert!(close(jaccard(&["a"], "a, a, a"), 1.0));
    }

    #[test]
    fn theory_of_mind_per_agent_jaccard() {
        let r = agents(&[("Agent A", &["x", "y"]), ("Agent B", &["z"])]);
        assert!(close(theory_of_mind(&r, "FINAL ANSWER: Agent A: x, y\nAgent B: z."), 1.0));
        // the fallback (no marker) strips only whitespace: "z." stays "z."
        assert!(close(theory_of_mind(&r, "Agent A: x,y\nAgent B: z."), 0.5));
        // missing agent scores 0; A: {x} vs {x,y} → 1/2; average (0.5 + 0)/2
        assert!(close(theory_of_mind(&r, "FINAL ANSWER: Agent A: x"), 0.25));
        // agent names must match exactly after strip
        assert!(close(theory_of_mind(&r, "FINAL ANSWER: agent a: x, y\nAgent B: z"), 0.5));
        // precision/recall/F1 averaged too
        let s = theory_of_mind_scores(&r, "FINAL ANSWER: Agent A: x, q\nAgent B: z");
        assert!(close(s.precision, (0.5 + 1.0) / 2.0));
        assert!(close(s.recall, (0.5 + 1.0) / 2.0));
        assert!(close(s.jaccard, (1.0 / 3.0 + 1.0) / 2.0));
        // parse: lines without ':' skipped, first ':' splits
        let p = parse_final_answer_tom("FINAL ANSWER:\nnothing here\nAgent A: a:b, c\n");
        assert_eq!(p.len(), 1);
        assert_eq!(p["Agent A"], ["a:b", "c"].iter().map(|s| s.to_string()).collect());
        assert_eq!(theory_of_mind(&BTreeMap::new(), "x"), 0.0);
    }

    #[test]
    fn format_reference_rules() {
        assert_eq!(format_reference(&t("List 3")), "list 3");
        assert_eq!(format_reference(&Reference::Int(7)), "7");
        assert_eq!(format_reference(&list(&["A", "b"])), "A, b");
        let a = Reference::Agents(agents(&[("Agent A", &["x", "y"]), ("Agent B", &[])]));
        assert_eq!(format_reference(&a), "Agent A: x, y\nAgent B: \n");
    }

    #[test]
    fn dispatch_and_reference_int() {
        assert_eq!(reference_int(&t(" 12 ")), Some(12));
        assert_eq!(reference_int(&t("1 2")), None);
        assert_eq!(reference_int(&t("-3")), Some(-3));
        assert_eq!(score(Metric::CountAccuracy, &t("2"), "twice").unwrap(), 1.0);
        assert!(score(Metric::CountAccuracy, &t("two"), "twice").is_err());
        assert!(score(Metric::TheoryOfMind, &t("x"), "x").is_err());
        assert!(score(Metric::Nback, &t("m-"), "m-").is_err());
        assert_eq!(score(Metric::Jaccard, &t("a, b"), "b, a").unwrap(), 1.0);
    }
}
