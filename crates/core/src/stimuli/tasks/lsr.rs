//! LSR, Language Serial Recall (WorM appendix A3.1): VSR's protocol with words.
//!
//! P_present shows L words one at a time; a network reads each as the word's embedding in slot 1 of
//! `slots` word slots, the others zero ("zero padding this vector to produce L×300"). P_probe repeats L
//! times: all L words at once, in a random order, in slots 1..L (the rest zero); at probe `i` the answer
//! is the slot that holds the `i`-th word shown, a `slots`-way choice (9 for the paper's lists of 2–9, 16
//! for the longer lists of A3.2). People see the words on the canvas and click them in order.
//!
//! The words are the shipped vocabulary ([`words`], `public/data/lsr/words.txt`, made by
//! `scripts/research/lsr-embeddings.py` with its vectors): a step carries word indices ([`Step::words`]), so the
//! core stays free of the embeddings; the networks' crate turns indices into vectors.
use serde::{Deserialize, Serialize};

use crate::display::{Area, Frame, line, palette, text};
use crate::task::{Conditions, Phase, Response, Step, Target, TrialCtx};

/// An empty word slot (the network reads zeros there).
pub const NO_WORD: u16 = u16::MAX;
/// The most word slots a trial may have (A3.2's lists of up to 16).
pub const MAX_SLOTS: usize = 16;

/// The shipped vocabulary, one word per line.
const WORDS: &str = include_str!("../../../../../public/data/lsr/words.txt");

/// The vocabulary in file order: a step's word index points here.
pub fn words() -> &'static [&'static str] {
    static LIST: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    LIST.get_or_init(|| WORDS.lines().map(str::trim).filter(|w| !w.is_empty()).collect())
}

/// Parameters of LSR (paper defaults via `Default`: lists of 2–9 words, 9 slots); the grid is one cell per
/// list length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LsrParams {
    /// The list lengths L of the grid (paper: 2–9; A3.2: up to 16).
    pub list_lengths: Vec<u8>,
    /// Word slots of a step, = the answer's classes (paper: 9; 16 for lists longer than 9).
    pub slots: u8,
}

impl Default for LsrParams {
    fn default() -> Self {
        LsrParams { list_lengths: (2..=9).collect(), slots: 9 }
    }
}

/// Whether the parameters make trials: 2 to 16 slots, every list 1 to `slots` words.
pub(crate) fn check(p: &LsrParams) -> Result<(), String> {
    if !(2..=MAX_SLOTS as u8).contains(&p.slots) {
        return Err(format!("slots must be 2 to {MAX_SLOTS} (a list of up to 16 words, WorM A3.2)"));
    }
    if p.list_lengths.iter().any(|&l| l == 0 || l > p.slots) {
        return Err(format!(
            "each list length must be 1 to slots ({}): the probe shows the whole list in the slots; set slots=16 \
             for longer lists",
            p.slots
        ));
    }
    Ok(())
}

/// The condition cells: one per list length.
pub fn grid(p: &LsrParams) -> Vec<Conditions> {
    p.list_lengths.iter().map(|&l| Conditions { list_length: Some(l), ..Default::default() }).collect()
}

/// Columns of the probe layout for `slots` slots: 3×3 up to 9, 4×4 up to 16.
fn columns(slots: usize) -> usize {
    if slots <= 9 { 3 } else { 4 }
}

/// Where slot `slot` of a probe with `slots` slots is drawn, and where a person clicks to choose it.
pub fn slot_area(slots: usize, slot: usize) -> Area {
    let c = columns(slots);
    let cell = 96.0 / c as f32;
    Area::new((slot % c) as f32 * cell, (slot / c) as f32 * cell, cell, cell)
}

/// A studied word, large, in the middle of a gray frame.
pub fn word_frame(word: &str) -> Frame {
    Frame::gray(vec![text(47.5, 47.5, 13.0, word, palette::BLACK)])
}

/// The probe: the slot layout (black lines between cells) with `shown[k]` written in slot `k`.
pub fn probe_frame(slots: usize, shown: &[u16]) -> Frame {
    let c = columns(slots);
    let cell = 96.0 / c as f32;
    let mut f = Frame::blank();
    for k in 1..c {
        let at = k as f32 * cell;
        f.push(line(at, 0.0, at, 95.0, palette::BLACK, 1.0));
        f.push(line(0.0, at, 95.0, at, palette::BLACK, 1.0));
    }
    let size = if c == 3 { 6.5 } else { 5.0 };
    for (k, &w) in shown.iter().enumerate() {
        if w == NO_WORD {
            continue;
        }
        let a = slot_area(slots, k);
        f.push(text(a.x + a.w / 2.0 - 0.5, a.y + a.h / 2.0 - 0.5, size, words()[w as usize], palette::BLACK));
    }
    f
}

/// One LSR trial: L distinct random words shown one per frame (Present), then the same probe of all L
/// words in random slots L times (Probe); probe `i` (1-based serial position) is answered with the slot of
/// the `i`-th word shown.
pub fn generate(p: &LsrParams, ctx: &mut TrialCtx) -> (Vec<Step>, Conditions) {
    let l = ctx.cell.list_length.expect("LSR cell has a list length") as usize;
    let slots = p.slots as usize;
    let list: Vec<u16> = ctx.rng.sample(words().len(), l).into_iter().map(|w| w as u16).collect();
    // order[k] = which studied item sits in probe slot k (a random permutation of the list).
    let order = ctx.rng.sample(l, l);
    let mut steps: Vec<Step> = list
        .iter()
        .map(|&w| {
            let mut input = vec![NO_WORD; slots];
            input[0] = w;
            Step::show(word_frame(words()[w as usize]), Phase::Present).with_words(input)
        })
        .collect();
    let mut shown = vec![NO_WORD; slots];
    for (k, &item) in order.iter().enumerate() {
        shown[k] = list[item];
    }
    let probe = probe_frame(slots, &shown);
    for i in 0..l {
        let slot = order.iter().position(|&item| item == i).expect("every item is in a slot");
        steps.push(
            Step::ask(probe.clone(), Phase::Probe, Target::Class(slot as u16), Response::Choice { n: slots as u16 })
                .at_position(i + 1)
                .with_words(shown.clone()),
        );
    }
    (steps, ctx.cell.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::Shape;
    use crate::rng::Split;
    use crate::task::{TaskId, TaskSpec};
    use crate::tasks::testutil::trials;

    fn texts(f: &Frame) -> Vec<String> {
        f.shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn vocabulary_is_distinct_lowercase_words() {
        let w = words();
        assert!(w.len() >= 500, "{} words", w.len());
        let mut u: Vec<&str> = w.to_vec();
        u.sort_unstable();
        u.dedup();
        assert_eq!(u.len(), w.len(), "no word twice");
        assert!(w.iter().all(|x| (3..=8).contains(&x.len()) && x.bytes().all(|b| b.is_ascii_lowercase())));
    }

    #[test]
    fn recall_targets_follow_the_order_words_were_shown() {
        let mut per_slot = [0usize; 9];
        for t in trials(TaskId::Lsr, 160) {
            let l = t.conditions.list_length.unwrap() as usize;
            assert_eq!(t.len(), 2 * l);
            let studied: Vec<u16> = t.steps[..l].iter().map(|s| s.words[0]).collect();
            let mut u = studied.clone();
            u.sort_unstable();
            u.dedup();
            assert_eq!(u.len(), l, "distinct words in a list");
            for (s, &w) in t.steps[..l].iter().zip(&studied) {
                assert_eq!(s.words.len(), 9);
                assert!(s.words[1..].iter().all(|&x| x == NO_WORD), "one word, the other slots zero");
                assert_eq!(texts(&s.frame), vec![words()[w as usize].to_string()], "people see the same word");
                assert!(!s.scored);
            }
            let probe = &t.steps[l];
            for (i, s) in t.steps[l..].iter().enumerate() {
                assert_eq!(s.words, probe.words, "the probe repeats L times");
                assert_eq!(s.frame, probe.frame);
                assert_eq!(s.serial_position, Some(i as u8 + 1));
                assert_eq!(s.response, Response::Choice { n: 9 });
                let Target::Class(slot) = s.target else { panic!() };
                assert_eq!(s.words[slot as usize], studied[i], "probe i points at the i-th word shown");
                per_slot[slot as usize] += 1;
            }
            // the probe holds exactly the list, in slots 1..L, and draws it
            let mut held: Vec<u16> = probe.words[..l].to_vec();
            held.sort_unstable();
            assert_eq!(held, u);
            assert!(probe.words[l..].iter().all(|&x| x == NO_WORD));
            let drawn: Vec<String> = probe.words[..l].iter().map(|&w| words()[w as usize].to_string()).collect();
            assert_eq!(texts(&probe.frame), drawn);
        }
        assert!(per_slot[..2].iter().all(|&n| n > 100), "answers spread over slots: {per_slot:?}");
    }

    #[test]
    fn long_lists_take_sixteen_slots_and_refuse_lists_longer_than_the_slots() {
        let mut spec = TaskSpec::new(TaskId::Lsr);
        let err = spec.set("list_lengths", "2,4,8,16").unwrap_err().to_string();
        assert!(err.contains("slots=16"), "{err}");
        spec.set("slots", "16").unwrap();
        spec.set("list_lengths", "2,4,8,16").unwrap();
        assert_eq!(spec.longest_trial(), 32, "A3.2: 32 steps");
        let mut lens = std::collections::BTreeMap::new();
        for i in 0..40 {
            let t = spec.trial(3, Split::Train, i);
            let l = t.conditions.list_length.unwrap() as usize;
            *lens.entry(l).or_insert(0) += 1;
            assert!(t.steps.iter().all(|s| s.words.len() == 16));
            for s in &t.steps[l..] {
                assert_eq!(s.response, Response::Choice { n: 16 });
                let Target::Class(c) = s.target else { panic!() };
                assert!((c as usize) < l);
            }
        }
        assert_eq!(lens.values().copied().collect::<Vec<_>>(), vec![10; 4], "balanced over the grid");
        assert!(spec.clone().set("slots", "17").is_err());
        assert!(TaskSpec::new(TaskId::Lsr).set("list_lengths", "0,3").is_err());
    }

    #[test]
    fn slot_areas_tile_the_frame_and_hold_their_words() {
        for slots in [9usize, 16] {
            for k in 0..slots {
                let a = slot_area(slots, k);
                assert!(a.x >= 0.0 && a.y >= 0.0 && a.x + a.w <= 96.01 && a.y + a.h <= 96.01);
                for j in 0..k {
                    let b = slot_area(slots, j);
                    let (cx, cy) = (a.x + a.w / 2.0, a.y + a.h / 2.0);
                    assert!(!b.contains(cx, cy), "slot {k}'s centre is not in slot {j}");
                }
            }
        }
        let f = probe_frame(9, &[0, 1, NO_WORD, NO_WORD, NO_WORD, NO_WORD, NO_WORD, NO_WORD, NO_WORD]);
        let at: Vec<(f32, f32)> = f
            .shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text { x, y, .. } => Some((*x, *y)),
                _ => None,
            })
            .collect();
        assert!(slot_area(9, 0).contains(at[0].0, at[0].1) && slot_area(9, 1).contains(at[1].0, at[1].1));
    }
}
