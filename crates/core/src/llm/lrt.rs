//! The Little Retrieval Test (`anadim/the-little-retrieval-test`): a file of
//! `line {i}: REGISTER_CONTENT is <{v}>` lines with one `[EXECUTE THIS]: Go to line {k} ...` instruction
//! inserted somewhere; the model must reply with line k's value. Ordered or (block-)shuffled lines.
//!
//! Faithful to `little_retrieval_test.py` except where noted:
//! - values are `randint(1, 50000)` by default (the code; the README says 10000), configurable;
//! - **insertion** ([`Insertion`]): the default [`Insertion::Uniform`] follows the paper's intent (the
//!   instruction in a uniformly random gap between register lines, the target line drawn independently);
//!   [`Insertion::Reference`] reproduces the code: `k = randint(1, n)`, `lines.insert(k - 1, instr)` in
//!   a list whose index 0 is the header, so the instruction lands after k − 2 register lines (before the
//!   header when k = 1) and, when ordered, always two lines above its target;
//! - **shuffle**: a real block shuffle (the published `block_shuffle` is a no-op: no `return`, typo'd
//!   variable): line numbers 1..n cut into consecutive blocks of B, block order shuffled, order kept
//!   inside each block; B = 1 is a full shuffle;
//! - **prompt**: one user message `"Here are the file contents:\n" + text` (text without its final
//!   newline, as the code's `[:-1]`). The code used the old Anthropic completions format
//!   `"\n\nHuman: ...\n\nAssistant:"`; chat APIs add the turn markers themselves, so they are left out;
//! - scoring: the first run of ASCII digits in the reply ([`first_integer`], the code's `re.search(r'\d+')`)
//!   equals the target value.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Message, Metric, Reference, Sample, SampleBody, Single, Suite};
use crate::rng::Rng;

/// The file's first line, as in `little_retrieval_test.py`; a blank line follows it.
pub const HEADER: &str = "Testing Long Context";
/// What the user message puts before the file text (the code's prompt without its `Human:` /
/// `Assistant:` turn markers).
pub const PROMPT_PREFIX: &str = "Here are the file contents:\n";
/// The reference grid of line counts.
pub const DEFAULT_LINES: [usize; 10] = [500, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 6500];

/// Success rates read off `images/retrieval_accuracy.png` (spec §3.2; ±0.01 reading error), for the
/// line counts of [`DEFAULT_LINES`]: (model, order, rates).
pub const REPORTED: &[(&str, &str, [f64; 10])] = &[
    ("claude-v1.3-100k", "ordered", [1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 0.98, 0.98]),
    ("claude-v1.3-100k", "shuffled", [0.94, 0.94, 0.96, 0.92, 0.88, 0.86, 0.86, 0.78, 0.80, 0.76]),
    ("claude-instant-v1.1-100k", "ordered", [0.98, 1.00, 0.98, 0.94, 0.92, 0.82, 0.80, 0.80, 0.88, 0.58]),
    ("claude-instant-v1.1-100k", "shuffled", [0.86, 0.82, 0.64, 0.60, 0.62, 0.40, 0.46, 0.46, 0.38, 0.24]),
];

/// `images/block_shuffle.png` (model unnamed, presumably claude-instant-v1.1): (B, success rates) for
/// the line counts of [`DEFAULT_LINES`].
pub const REPORTED_BLOCK_SHUFFLE: &[(usize, [f64; 10])] = &[
    (10, [0.82, 0.76, 0.70, 0.52, 0.40, 0.14, 0.16, 0.08, 0.14, 0.04]),
    (250, [0.96, 0.86, 0.74, 0.60, 0.52, 0.22, 0.38, 0.06, 0.14, 0.12]),
];

/// Order of the register lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Order {
    /// Register lines in number order, 1 to n.
    Ordered,
    /// Block shuffle with blocks of `block` consecutive line numbers (1 = fully shuffled).
    Shuffled {
        /// B: consecutive line numbers per block (0 is taken as 1).
        block: usize,
    },
}

impl Order {
    /// `ordered` or `shuffled` whatever the block size: the sample's `order` condition (the block size is
    /// its own condition, `block`).
    pub fn name(self) -> &'static str {
        match self {
            Order::Ordered => "ordered",
            Order::Shuffled { .. } => "shuffled",
        }
    }
    /// Block size, 0 for ordered.
    pub fn block(self) -> usize {
        match self {
            Order::Ordered => 0,
            Order::Shuffled { block } => block.max(1),
        }
    }
    /// `ordered`, `shuffled` (B = 1) or `shuffled_b{B}`.
    pub fn slug(self) -> String {
        match self {
            Order::Ordered => "ordered".into(),
            Order::Shuffled { block } if block <= 1 => "shuffled".into(),
            Order::Shuffled { block } => format!("shuffled_b{block}"),
        }
    }
}

/// Where the instruction goes and how the target line is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Insertion {
    /// Paper intent (default): a uniformly random gap among the n + 1 (0..=n register lines before it),
    /// target line uniform in 1..=n, independent.
    Uniform,
    /// The published code: target k uniform in 1..=n, `lines.insert(k - 1, instr)` with the header at 0.
    Reference,
}

impl Insertion {
    /// Both insertion rules, default first.
    pub const ALL: [Insertion; 2] = [Insertion::Uniform, Insertion::Reference];
    /// The rule's name on the command line (`--insertion`) and in serialized configs.
    pub fn as_str(self) -> &'static str {
        match self {
            Insertion::Uniform => "uniform",
            Insertion::Reference => "reference",
        }
    }
    /// The rule of a name ([`Insertion::as_str`], surrounding spaces ignored); any other name is
    /// [`super::SuiteError::Insertion`].
    pub fn parse(s: &str) -> Result<Insertion, super::SuiteError> {
        Insertion::ALL
            .into_iter()
            .find(|i| i.as_str() == s.trim())
            .ok_or_else(|| super::SuiteError::Insertion(s.to_string()))
    }
}

/// Block sizes as a person types them (the CLI's `--shuffle-blocks`, the LLM page's field): whole numbers
/// of 1 or more separated by commas, spaces or semicolons (1 = a full shuffle), or `none` for no
/// shuffled order. A bad list gets a sentence saying what is allowed.
pub fn parse_block_sizes(text: &str) -> Result<Vec<usize>, super::SuiteError> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    let bad = || super::SuiteError::BlockSizes(text.trim().to_string());
    let sizes: Vec<usize> = crate::list_items(text)
        .map(|p| p.parse::<usize>().ok().filter(|b| *b >= 1).ok_or_else(bad))
        .collect::<Result<_, _>>()?;
    if sizes.is_empty() {
        return Err(bad());
    }
    Ok(sizes)
}

/// The orders of a run: ordered (if asked) then a block shuffle for each block size B (1 = a full
/// shuffle), each B once, in the order given.
pub fn orders(ordered: bool, shuffle_blocks: &[usize]) -> Vec<Order> {
    let mut out = Vec::new();
    if ordered {
        out.push(Order::Ordered);
    }
    for &b in shuffle_blocks {
        let o = Order::Shuffled { block: b.max(1) };
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

/// What [`samples`] generates: every order × line count, `tests_per_size` files each. The
/// default is the reference grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LrtConfig {
    /// Line counts (`n`).
    pub lines: Vec<usize>,
    /// Files per (order, line count) cell (the reference: 50).
    pub tests_per_size: usize,
    /// Line orders to run, each crossed with every line count ([`orders`] builds the list).
    pub orders: Vec<Order>,
    /// Smallest register value (inclusive).
    pub value_min: u32,
    /// Largest register value (inclusive; default 50,000, as the code's `randint(1, 50000)`).
    pub value_max: u32,
    /// Where the instruction goes and how the target line is drawn ([`Insertion`]).
    pub insertion: Insertion,
}

impl Default for LrtConfig {
    /// The reference grid, 50 tests per size, ordered and fully shuffled, values 1..=50000, uniform
    /// insertion.
    fn default() -> Self {
        LrtConfig {
            lines: DEFAULT_LINES.to_vec(),
            tests_per_size: 50,
            orders: vec![Order::Ordered, Order::Shuffled { block: 1 }],
            value_min: 1,
            value_max: 50_000,
            insertion: Insertion::Uniform,
        }
    }
}

/// One generated file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LrtItem {
    /// The file text (header, register lines, instruction), without a final newline.
    pub text: String,
    /// Line number asked for (1-based).
    pub target_line: usize,
    /// The value on the target line: the answer (the reply's first integer must equal it).
    pub target_value: u32,
    /// Register lines placed before the instruction (0..=n); with the reference insertion at k = 1 the
    /// instruction is before the header too (`before_header`).
    pub instruction_after: usize,
    /// Whether the instruction precedes the header line (reference insertion with k = 1 only).
    pub before_header: bool,
    /// Line numbers in file order.
    pub order: Vec<usize>,
}

/// The instruction line asking for line `k`'s value, verbatim from `little_retrieval_test.py`.
pub fn instruction(k: usize) -> String {
    format!(
        "[EXECUTE THIS]: Go to line {k} and report only REGISTER_CONTENT, without any context or additional text, just the number, then EXIT"
    )
}

/// Register line `i` holding value `v`: `line {i}: REGISTER_CONTENT is <{v}>`.
pub fn register_line(i: usize, v: u32) -> String {
    format!("line {i}: REGISTER_CONTENT is <{v}>")
}

/// Line numbers 1..=n in block-shuffled order: consecutive blocks of `b` numbers (the last may be
/// shorter), blocks in random order, order kept within each block. `b` = 1 is a full shuffle, `b >= n`
/// keeps the order.
pub fn block_shuffle(rng: &mut Rng, n: usize, b: usize) -> Vec<usize> {
    let b = b.max(1);
    let mut blocks: Vec<Vec<usize>> = (1..=n).collect::<Vec<_>>().chunks(b).map(|c| c.to_vec()).collect();
    rng.shuffle(&mut blocks);
    blocks.concat()
}

/// One LRT file with `n` register lines.
pub fn generate(
    rng: &mut Rng,
    n: usize,
    order: Order,
    value_min: u32,
    value_max: u32,
    insertion: Insertion,
) -> LrtItem {
    assert!(n >= 1, "LRT needs at least one line");
    assert!(value_min <= value_max && value_max <= i32::MAX as u32, "bad value range");
    let line_numbers = match order {
        Order::Ordered => (1..=n).collect::<Vec<_>>(),
        Order::Shuffled { block } => block_shuffle(rng, n, block),
    };
    let mut values = vec![0u32; n + 1];
    for &i in &line_numbers {
        values[i] = rng.randint(value_min as i32, value_max as i32) as u32;
    }
    let target = rng.randint(1, n as i32) as usize;
    let (after, before_header) = match insertion {
        Insertion::Uniform => (rng.index(n + 1), false),
        Insertion::Reference => {
            if target == 1 {
                (0, true)
            } else {
                (target - 2, false)
            }
        }
    };
    let instr = instruction(target);
    let mut text = String::with_capacity(40 * (n + 4));
    if before_header {
        text.push_str(&instr);
        text.push('\n');
    }
    text.push_str(HEADER);
    text.push_str("\n\n");
    for (pos, &i) in line_numbers.iter().enumerate() {
        if pos == after && !before_header {
            text.push_str(&instr);
            text.push('\n');
        }
        text.push_str(&register_line(i, values[i]));
        text.push('\n');
    }
    if after == n && !before_header {
        text.push_str(&instr);
        text.push('\n');
    }
    text.pop();
    LrtItem {
        text,
        target_line: target,
        target_value: values[target],
        instruction_after: after,
        before_header,
        order: line_numbers,
    }
}

/// The messages of one item: a single user message.
pub fn messages(item: &LrtItem) -> Vec<Message> {
    vec![Message::user(format!("{PROMPT_PREFIX}{}", item.text))]
}

fn item_rng(seed: u64, n: usize, order: Order, t: usize) -> Rng {
    let mut key = [0u8; 32];
    key[0..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&(n as u64).to_le_bytes());
    key[16..24].copy_from_slice(&(order.block() as u64).to_le_bytes());
    key[24..28].copy_from_slice(&(t as u32).to_le_bytes());
    key[28..32].copy_from_slice(b"lrt1");
    Rng::from_key(key)
}

/// One sample per (order, line count, test): id `lrt/<order>-<lines>/<t>`, task `lrt-<order>`,
/// conditions `lines`, `order` (`ordered` / `shuffled`), `block` (0 for ordered). Each item has its own
/// random stream (seed, n, block, t), so subsets and grid changes leave other items unchanged.
pub fn samples(config: &LrtConfig, seed: u64) -> Vec<Sample> {
    let mut out = Vec::new();
    for &order in &config.orders {
        for &n in &config.lines {
            if n == 0 {
                continue;
            }
            for t in 0..config.tests_per_size {
                let mut rng = item_rng(seed, n, order, t);
                let item = generate(&mut rng, n, order, config.value_min, config.value_max, config.insertion);
                let conditions = BTreeMap::from([
                    ("lines".to_string(), n.to_string()),
                    ("order".to_string(), order.name().to_string()),
                    ("block".to_string(), order.block().to_string()),
                ]);
                out.push(Sample {
                    id: format!("lrt/{}-{n}/{t}", order.slug()),
                    suite: Suite::Lrt,
                    task: format!("lrt-{}", order.slug()),
                    conditions,
                    epoch: 1,
                    body: SampleBody::Single(Single {
                        messages: messages(&item),
                        reference: Reference::Int(item.target_value as i64),
                        metrics: vec![Metric::FirstInteger],
                    }),
                });
            }
        }
    }
    out
}

/// The first run of ASCII digits in `s` (`re.search(r'\d+', s)`), as a number. `None` when there is no
/// digit or the run does not fit in a u64.
pub fn first_integer(s: &str) -> Option<u64> {
    let start = s.find(|c: char| c.is_ascii_digit())?;
    let run = &s[start..];
    let end = run.find(|c: char| !c.is_ascii_digit()).unwrap_or(run.len());
    run[..end].parse().ok()
}

/// LRT score of one reply: the first integer equals the target.
pub fn score(reply: &str, target: u64) -> bool {
    first_integer(reply) == Some(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes_parse_as_typed_and_bad_ones_are_named() {
        assert_eq!(parse_block_sizes("1, 10;250"), Ok(vec![1, 10, 250]));
        assert_eq!(parse_block_sizes(" NONE "), Ok(vec![]));
        for bad in ["0", "1,x", "", " , ", "-3"] {
            let e = parse_block_sizes(bad).unwrap_err().to_string();
            assert!(e.contains("block sizes of 1 or more"), "{bad}: {e}");
        }
    }

    fn check_item(item: &LrtItem, n: usize) {
        let lines: Vec<&str> = item.text.lines().collect();
        assert_eq!(lines.len(), n + 3);
        assert!(!item.text.ends_with('\n'));
        let instr = instruction(item.target_line);
        assert_eq!(lines.iter().filter(|l| l.starts_with("[EXECUTE THIS]")).count(), 1);
        assert_eq!(lines.iter().filter(|l| **l == instr).count(), 1);
        let prefix = format!("line {}: ", item.target_line);
        let hits: Vec<&&str> = lines.iter().filter(|l| l.starts_with(&prefix)).collect();
        assert_eq!(hits.len(), 1);
        assert_eq!(*hits[0], register_line(item.target_line, item.target_value));
        assert_eq!(lines.iter().filter(|l| **l == HEADER).count(), 1);
        let mut seen: Vec<usize> = item.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (1..=n).collect::<Vec<_>>());
    }

    #[test]
    fn items_have_target_and_instruction_exactly_once() {
        let mut rng = Rng::from_u64(1);
        for n in [1, 2, 3, 10, 57, 500] {
            for order in [Order::Ordered, Order::Shuffled { block: 1 }, Order::Shuffled { block: 10 }] {
                for ins in [Insertion::Uniform, Insertion::Reference] {
                    for _ in 0..20 {
                        let item = generate(&mut rng, n, order, 1, 50_000, ins);
                        check_item(&item, n);
                        assert!((1..=50_000).contains(&item.target_value));
                    }
                }
            }
        }
    }

    #[test]
    fn reference_insertion_is_two_lines_above_target_when_ordered() {
        let mut rng = Rng::from_u64(2);
        for _ in 0..200 {
            let item = generate(&mut rng, 10, Order::Ordered, 1, 10, Insertion::Reference);
            let lines: Vec<&str> = item.text.lines().collect();
            let i = lines.iter().position(|l| l.starts_with("[EXECUTE")).unwrap();
            if item.target_line == 1 {
                assert_eq!(i, 0);
                assert_eq!(lines[1], HEADER);
            } else {
                // header, blank, then k-2 register lines, then the instruction; the target follows 2 lines later
                assert_eq!(i, 2 + item.target_line - 2);
                assert!(lines[i + 2].starts_with(&format!("line {}:", item.target_line)));
            }
        }
    }

    #[test]
    fn orders_and_insertion_names() {
        assert_eq!(
            orders(true, &[1, 10, 1, 0]),
            vec![Order::Ordered, Order::Shuffled { block: 1 }, Order::Shuffled { block: 10 }]
        );
        assert!(orders(false, &[]).is_empty());
        for i in Insertion::ALL {
            assert_eq!(Insertion::parse(i.as_str()).unwrap(), i);
        }
        assert!(Insertion::parse("middle").unwrap_err().to_string().contains("uniform"));
    }

    #[test]
    fn shuffle_is_a_permutation_and_keeps_blocks() {
        let mut rng = Rng::from_u64(3);
        let full = block_shuffle(&mut rng, 100, 1);
        let mut s = full.clone();
        s.sort_unstable();
        assert_eq!(s, (1..=100).collect::<Vec<_>>());
        assert_ne!(full, (1..=100).collect::<Vec<_>>());
        let b = block_shuffle(&mut rng, 103, 10);
        assert_ne!(b, (1..=103).collect::<Vec<_>>());
        // Runs: each block of 10 consecutive numbers stays contiguous and increasing.
        for start in (1..=103).step_by(10) {
            let p = b.iter().position(|&x| x == start).unwrap();
            let len = 10.min(103 - start + 1);
            assert_eq!(b[p..p + len], (start..start + len).collect::<Vec<_>>()[..]);
        }
        assert_eq!(block_shuffle(&mut rng, 50, 50), (1..=50).collect::<Vec<_>>());
    }

    #[test]
    fn first_integer_edge_cases() {
        assert_eq!(first_integer("The answer is 123."), Some(123));
        assert_eq!(first_integer("no number"), None);
        assert_eq!(first_integer("-5"), Some(5));
        assert_eq!(first_integer("12,345"), Some(12));
        assert_eq!(first_integer("<4711>"), Some(4711));
        assert_eq!(first_integer("line 7: 42"), Some(7));
        assert_eq!(first_integer("99999999999999999999999"), None);
        assert!(score(" 31337", 31337) && !score("31338", 31337));
    }

    #[test]
    fn samples_grid_and_prompt() {
        let cfg = LrtConfig { lines: vec![10, 20], tests_per_size: 3, ..LrtConfig::default() };
        let s = samples(&cfg, 9);
        assert_eq!(s.len(), 2 * 2 * 3);
        assert_eq!(s[0].id, "lrt/ordered-10/0");
        assert_eq!(s[6].id, "lrt/shuffled-10/0");
        assert_eq!(s[6].conditions["order"], "shuffled");
        assert_eq!(s[6].conditions["block"], "1");
        let SampleBody::Single(single) = &s[0].body else { panic!() };
        assert_eq!(single.messages.len(), 1);
        assert!(single.messages[0].content.starts_with("Here are the file contents:\nTesting Long Context\n\n"));
        assert_eq!(single.metrics, vec![Metric::FirstInteger]);
        let Reference::Int(v) = single.reference else { panic!() };
        assert!(single.messages[0].content.contains(&format!("REGISTER_CONTENT is <{v}>")));
        // Stable per item: a different grid leaves the shared items unchanged.
        let s2 = samples(&LrtConfig { lines: vec![20], tests_per_size: 3, ..LrtConfig::default() }, 9);
        assert_eq!(s2[0], s[3]);
        assert_eq!(samples(&cfg, 9), s);
        assert_eq!(REPORTED.len(), 4);
    }
}
