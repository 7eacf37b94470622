//! cl100k_base token counting and Minerva's `trim_context` rule.
//!
//! The reference generator measures context length with `tiktoken.encoding_for_model("gpt-4")`, i.e.
//! cl100k_base. A [`Tokenizer`] is a value the caller holds and passes to the generator: natively
//! [`Tokenizer::cl100k`] uses the ranks bundled in `tiktoken-rs`; in the browser they are not built in
//! (they were about 1.7 MB of the app's wasm, needed only by the Minerva generator): the app fetches
//! `data/cl100k_base.tiktoken.gz` (the same file) and makes one with [`Tokenizer::from_ranks`]. The
//! core holds no tokenizer of its own and does no IO.

use tiktoken_rs::CoreBPE;

/// The cl100k_base tokenizer, as the generator uses it.
pub struct Tokenizer {
    bpe: Bpe,
}

enum Bpe {
    #[cfg(not(target_arch = "wasm32"))]
    Bundled(&'static CoreBPE),
    Owned(Box<CoreBPE>),
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokenizer(cl100k_base)")
    }
}

impl Tokenizer {
    /// The ranks bundled in `tiktoken-rs` (native builds only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn cl100k() -> Tokenizer {
        Tokenizer { bpe: Bpe::Bundled(tiktoken_rs::cl100k_base_singleton()) }
    }

    /// The ranks in `text` (the `cl100k_base.tiktoken` format: a base64 token and its rank per line).
    /// A malformed file is refused with the line.
    pub fn from_ranks(text: &str) -> Result<Tokenizer, crate::llm::SuiteError> {
        Ok(Tokenizer { bpe: Bpe::Owned(Box::new(parse_ranks(text)?)) })
    }

    fn bpe(&self) -> &CoreBPE {
        match &self.bpe {
            #[cfg(not(target_arch = "wasm32"))]
            Bpe::Bundled(b) => b,
            Bpe::Owned(b) => b,
        }
    }

    /// The number of cl100k_base tokens of `text` (ordinary encoding: special-token strings are plain
    /// text).
    pub fn count(&self, text: &str) -> usize {
        self.bpe().encode_ordinary(text).len()
    }

    /// Minerva's `trim_context` (see [`trim_context`]'s rule).
    pub fn trim_context(&self, ctx: &str, max: usize) -> String {
        trim_with(self.bpe(), ctx, max, encode_head(self.bpe(), ctx, max))
    }
}

/// cl100k_base's pre-tokenizer pattern and special tokens (as `tiktoken_rs::cl100k_base` sets them).
const PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";
const SPECIAL: [(&str, u32); 5] = [
    ("<|endoftext|>", 100257),
    ("<|fim_prefix|>", 100258),
    ("<|fim_middle|>", 100259),
    ("<|fim_suffix|>", 100260),
    ("<|endofprompt|>", 100276),
];

/// A cl100k tokenizer from the text of a `cl100k_base.tiktoken` file.
fn parse_ranks(text: &str) -> Result<CoreBPE, crate::llm::SuiteError> {
    use crate::llm::SuiteError;
    use base64::Engine;
    let mut encoder = std::collections::HashMap::default();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
        let bad = || SuiteError::RanksLine(i + 1);
        let (tok, rank) = line.split_once(' ').ok_or_else(bad)?;
        let tok = base64::engine::general_purpose::STANDARD.decode(tok).map_err(|_| bad())?;
        encoder.insert(tok, rank.trim().parse::<tiktoken_rs::Rank>().map_err(|_| bad())?);
    }
    if encoder.len() < 100_000 {
        return Err(SuiteError::RanksCount(encoder.len()));
    }
    let mut special = std::collections::HashMap::default();
    for (s, r) in SPECIAL {
        special.insert(s.to_string(), r);
    }
    CoreBPE::new(encoder, special, PATTERN).map_err(|e| SuiteError::Ranks(e.to_string()))
}

/// Minerva's `trim_context(ctx, max)`: encode, keep the first `max` tokens, decode to `t`; then
/// - if the character after `t` in `ctx` is `','` or `' '` and the last character of `t` is not `':'`,
///   the cut fell between items: return `t.rstrip(", ")`;
/// - otherwise the last item is partial (or a `key:` without its value): drop it,
///   `", ".join(t.split(", ")[:-1])`.
///
/// A context of at most `max` tokens is returned unchanged (the reference would index past the end there;
/// its generators always over-produce, so it never meets that case).
#[cfg(not(target_arch = "wasm32"))]
pub fn trim_context(ctx: &str, max: usize) -> String {
    Tokenizer::cl100k().trim_context(ctx, max)
}

/// The number of cl100k_base tokens of `text` with the bundled ranks (native builds only).
#[cfg(not(target_arch = "wasm32"))]
pub fn count_tokens(text: &str) -> usize {
    Tokenizer::cl100k().count(text)
}

/// The tokens of `ctx`, or of a head of it that already has more than `max` tokens. The generators
/// over-produce about fourfold, so encoding a head is much faster. The head ends just before a `", "`,
/// where cl100k's pre-tokenizer always splits (`"word"`, `","`, `" next"`), so its tokens are exactly
/// the first tokens of the whole string.
fn encode_head(bpe: &CoreBPE, ctx: &str, max: usize) -> Vec<tiktoken_rs::Rank> {
    let limit = max.saturating_mul(4).saturating_add(64);
    if ctx.len() > limit
        && let Some(cut) = ctx.as_bytes()[..limit].windows(2).rposition(|w| w == b", ")
    {
        let head = bpe.encode_ordinary(&ctx[..cut]);
        if head.len() > max {
            return head;
        }
    }
    bpe.encode_ordinary(ctx)
}

fn trim_with(bpe: &CoreBPE, ctx: &str, max: usize, tokens: Vec<tiktoken_rs::Rank>) -> String {
    if tokens.len() <= max {
        return ctx.to_string();
    }
    // BPE tokens concatenate to the original bytes, so the decoded prefix is a byte prefix of `ctx`.
    let bytes = bpe.decode_bytes(&tokens[..max]).expect("cl100k tokens decode");
    debug_assert!(ctx.as_bytes().starts_with(&bytes));
    let mut cut = bytes.len();
    while !ctx.is_char_boundary(cut) {
        cut -= 1; // a token ended inside a multi-byte character (never for a–z word lists)
    }
    let t = &ctx[..cut];
    let next = ctx.as_bytes()[cut];
    let prev = t.as_bytes().last().copied();
    if (next == b',' || next == b' ') && prev != Some(b':') {
        t.trim_end_matches([',', ' ']).to_string()
    } else {
        let parts: Vec<&str> = t.split(", ").collect();
        parts[..parts.len() - 1].join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file the app fetches holds the ranks bundled natively: installed from it, the tokenizer gives
    /// the same tokens for text of every kind the generators make.
    #[test]
    fn shipped_ranks_file_is_cl100k() {
        let gz = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cl100k_base.tiktoken.gz"))
            .expect("public/data/cl100k_base.tiktoken.gz");
        let text = String::from_utf8(crate::llm::snapshot::gunzip(&gz).unwrap()).unwrap();
        assert!(Tokenizer::from_ranks("abc").unwrap_err().to_string().contains("line 1"));
        assert!(Tokenizer::from_ranks("YQ== 0\n").unwrap_err().to_string().contains("not cl100k_base"));
        // Built from the file beside the bundled singleton (not installed: other tests use the bundle).
        let file = parse_ranks(&text).unwrap();
        let bundled = tiktoken_rs::cl100k_base_singleton();
        for s in [
            "hello world",
            "tiktoken is great!",
            "apple, banana, k3: v17, 42, 1234567, List 1: x\ny",
            "Überraschung — naïve café 東京 🙂",
        ] {
            assert_eq!(file.encode_ordinary(s), bundled.encode_ordinary(s), "{s}");
        }
    }

    #[test]
    fn minerva_cl100k_known_counts() {
        // Reference values from tiktoken cl100k_base.
        assert_eq!(count_tokens("hello world"), 2);
        assert_eq!(count_tokens(""), 0);
        // The OpenAI cookbook's example ids.
        assert_eq!(Tokenizer::cl100k().bpe().encode_ordinary("tiktoken is great!"), vec![83, 1609, 5963, 374, 2294, 0]);
    }

    #[test]
    fn minerva_trim_rule_cases() {
        // Whole items: the result is a prefix made of whole items and within budget.
        let words: Vec<String> = (0..400).map(|i| format!("word{i}")).collect();
        let ctx = words.join(", ");
        for max in [1usize, 2, 3, 7, 50, 123, 400] {
            let t = trim_context(&ctx, max);
            assert!(count_tokens(&t) <= max, "max {max}");
            assert!(ctx.starts_with(&t));
            if !t.is_empty() {
                let items: Vec<&str> = t.split(", ").collect();
                assert_eq!(items[..], words.iter().map(String::as_str).collect::<Vec<_>>()[..items.len()]);
            }
        }
        // Key-value pairs: a cut after "key:" drops the dangling key.
        let pairs: Vec<String> = (0..300).map(|i| format!("k{i}: v{i}")).collect();
        let ctx = pairs.join(", ");
        for max in 1..60 {
            let t = trim_context(&ctx, max);
            assert!(count_tokens(&t) <= max);
            if !t.is_empty() {
                for item in t.split(", ") {
                    assert!(pairs.iter().any(|p| p == item), "partial item {item:?} at max {max}");
                }
            }
        }
        // Encoding a head gives the same result as encoding the whole context.
        let long: Vec<String> = (0..3000).map(|i| format!("w{}x{}, {i}: q", i * 7919 % 1000, i % 13)).collect();
        let long = long.join(", ");
        for max in [10usize, 100, 999, 2000, 5000] {
            let bpe = Tokenizer::cl100k();
            let whole = trim_with(bpe.bpe(), &long, max, bpe.bpe().encode_ordinary(&long));
            assert_eq!(trim_context(&long, max), whole, "max {max}");
        }
        // Short contexts are unchanged.
        assert_eq!(trim_context("a, b", 100), "a, b");
    }
}
