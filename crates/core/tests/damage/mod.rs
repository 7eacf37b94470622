//! Damaged inputs for the fuzz suites: a valid input truncated, bytes flipped, pieces inserted,
//! repeated or removed; text that looks like the inputs; the case count. One file, included by the
//! core's suite (`tests/fuzz.rs`) and its siblings in the CLI (`crates/cli/tests/fuzz_cli.rs`) and the
//! LLM crate (`crates/llm/tests/fuzz_batch.rs`) with `#[path]`.
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::Config;

/// A damage to apply to a valid input.
#[derive(Clone, Debug)]
pub enum Damage {
    Truncate(usize),
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Repeat(usize, usize),
    Remove(usize, usize),
}

pub fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<usize>().prop_map(Damage::Truncate),
        (any::<usize>(), 1u8..=255).prop_map(|(i, x)| Damage::Flip(i, x)),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..24)).prop_map(|(i, b)| Damage::Insert(i, b)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Damage::Repeat(i, n)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Damage::Remove(i, n)),
    ]
}

pub fn damaged(valid: &[u8], ds: &[Damage]) -> Vec<u8> {
    let mut b = valid.to_vec();
    for d in ds {
        let n = b.len().max(1);
        match d {
            Damage::Truncate(i) => b.truncate(i % n),
            Damage::Flip(i, x) => {
                if !b.is_empty() {
                    let i = i % b.len();
                    b[i] ^= x;
                }
            }
            Damage::Insert(i, bytes) => {
                let i = i % (b.len() + 1);
                b.splice(i..i, bytes.iter().copied());
            }
            Damage::Repeat(i, len) => {
                if !b.is_empty() {
                    let i = i % b.len();
                    let end = (i + len).min(b.len());
                    let piece = b[i..end].to_vec();
                    b.splice(end..end, piece);
                }
            }
            Damage::Remove(i, len) => {
                if !b.is_empty() {
                    let i = i % b.len();
                    let end = (i + len).min(b.len());
                    b.drain(i..end);
                }
            }
        }
    }
    b
}

/// A damaged text, as text (a link or a file read as UTF-8 with replacement).
pub fn damaged_text(valid: &str, ds: &[Damage]) -> String {
    String::from_utf8_lossy(&damaged(valid.as_bytes(), ds)).into_owned()
}

pub fn damages() -> impl Strategy<Value = Vec<Damage>> {
    proptest::collection::vec(damage(), 1..4)
}

/// Text that looks like the inputs: mostly printable, with the characters parsers split on.
pub fn texty() -> impl Strategy<Value = String> {
    let alphabet: Vec<char> =
        "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 =&;,.:-+_#?%\"'{}[]\n\r\téü\u{0}\u{feff}".chars().collect();
    proptest::collection::vec(proptest::sample::select(alphabet), 0..300).prop_map(|v| v.into_iter().collect())
}

/// `cases` per property, times `WMLAB_FUZZ_SCALE` (default 1) for a deeper run by hand.
pub fn config(cases: u32) -> Config {
    let scale = std::env::var("WMLAB_FUZZ_SCALE").ok().and_then(|s| s.parse::<u32>().ok()).unwrap_or(1).max(1);
    Config { cases: cases.saturating_mul(scale), failure_persistence: None, ..Config::default() }
}
