//! N-back's stimuli, shared by people (`people::session`) and language models (`llm::nback`, whose
//! published blocks these follow): the match rules, a block, and the generator of new blocks with the
//! reference's constraints (Gong et al. 2024; `Daniel-Gong/n-back-datasets`).

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

/// The verbal alphabet of every published letter block (20 consonants).
pub const LETTERS: &str = "bcdfghjklnpqrstvwxyz";

/// When the item at `i` "matches" the item at `i - n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MatchRule {
    /// Same item.
    Identity,
    /// Same row or column of a `size`×`size` grid (cells numbered from 1, row-major).
    RowCol {
        /// Cells per side of the grid (3 in the published abstraction blocks).
        size: usize,
        /// Whether the same cell counts as a match (abstraction: yes; abstraction 2: no).
        include_identical: bool,
    },
}

impl MatchRule {
    /// Whether items `a` and `b`, as a block writes them, match under the rule (callers pass the item N back
    /// first; both rules are symmetric). Under `RowCol`, items that are not cell numbers from 1 never match.
    pub fn is_match(self, a: &str, b: &str) -> bool {
        match self {
            MatchRule::Identity => a == b,
            MatchRule::RowCol { size, include_identical } => {
                let (Ok(x), Ok(y)) = (a.parse::<usize>(), b.parse::<usize>()) else {
                    return false;
                };
                if x == 0 || y == 0 {
                    return false;
                }
                let (rx, cx, ry, cy) = ((x - 1) / size, (x - 1) % size, (y - 1) / size, (y - 1) % size);
                if x == y { include_identical } else { rx == ry || cx == cy }
            }
        }
    }
}

/// One block: the stimulus per trial (a letter, or a grid cell number from 1) and the labels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// One item per trial, in order: a letter of the alphabet, or a grid cell number (from 1) as text.
    pub stimuli: Vec<String>,
    /// `m` (match) / `-` (non-match), one char per trial: the scoring truth.
    pub conditions: String,
}

/// Why [`generate_block`] could not make a block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    /// N is 0 or not below the block length, or there are more matches than trials with an item N back.
    #[error("cannot place {matches} matches at N={n} in {len} trials")]
    NoRoom {
        /// The match trials asked for.
        matches: usize,
        /// N, how many trials back a match refers.
        n: usize,
        /// The trials asked for in the block.
        len: usize,
    },
    /// The alphabet has fewer than two items, so no non-match can be drawn.
    #[error("alphabet needs at least two items")]
    Alphabet,
    /// No item meets the constraints at this trial (0-based index), as with an alphabet that does not fit the
    /// rule's grid.
    #[error("no candidate item at trial {0}")]
    NoCandidate(usize),
}

crate::message_into_string!(BlockError);

/// A new block with the reference generator's constraints: `matches` match positions sampled from
/// `n..len`; a match copies (identity) or relates by the rule to (row/col) the item N back; a non-match
/// is drawn uniformly among the items that do **not** match the item N back (guard `i >= n`, fixed), and
/// for the row/col rule (a quirk of the abstraction notebooks, kept) also differ from the previous item.
pub fn generate_block(
    rng: &mut Rng,
    n: usize,
    len: usize,
    matches: usize,
    alphabet: &[String],
    rule: MatchRule,
) -> Result<Block, BlockError> {
    if n == 0 || n >= len || matches > len - n {
        return Err(BlockError::NoRoom { matches, n, len });
    }
    if alphabet.len() < 2 {
        return Err(BlockError::Alphabet);
    }
    let mut is_match = vec![false; len];
    for p in rng.sample(len - n, matches) {
        is_match[p + n] = true;
    }
    let mut seq: Vec<String> = Vec::with_capacity(len);
    let mut cond = String::with_capacity(len);
    for (i, &m) in is_match.iter().enumerate() {
        let cands: Vec<&String> = if m {
            let back = &seq[i - n];
            match rule {
                MatchRule::Identity => vec![back],
                MatchRule::RowCol { .. } => alphabet.iter().filter(|x| rule.is_match(back, x)).collect(),
            }
        } else {
            alphabet
                .iter()
                .filter(|x| i < n || !rule.is_match(&seq[i - n], x))
                .filter(|x| matches!(rule, MatchRule::Identity) || i == 0 || **x != seq[i - 1])
                .collect()
        };
        if cands.is_empty() {
            return Err(BlockError::NoCandidate(i));
        }
        seq.push(cands[rng.index(cands.len())].clone());
        cond.push(if m { 'm' } else { '-' });
    }
    Ok(Block { stimuli: seq, conditions: cond })
}
