//! Seeded randomness. Every random choice in WM Lab goes through [`Rng`], a thin layer over ChaCha8
//! whose every method is written here (no float-dependent library samplers), so the same seed gives the
//! same bytes on every platform, native and wasm32, and across dependency upgrades of `rand`.

use chacha20::cipher::{Block, StreamCipherCore};
use chacha20::rand_core::SeedableRng;
use chacha20::variants::Legacy;
use chacha20::{ChaChaCore, R8};

/// Which stream of trials a seed belongs to. Splits never share a ChaCha key (see [`trial_seed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Trials networks are trained on.
    Train,
    /// Held-out trials for validation checks during training (loss plateau schedule, best model).
    Val,
    /// Held-out trials that trained networks (and language models) are scored on.
    Test,
    /// Trials for people (practice and main blocks), drawn from their own stream.
    Human,
}

impl Split {
    /// Every split, in the order train, val, test, human.
    pub const ALL: [Split; 4] = [Split::Train, Split::Val, Split::Test, Split::Human];
    /// The WorM paper's default split sizes per task id (86,400 / 9,600 / 9,600).
    pub fn paper_count(self) -> u64 {
        match self {
            Split::Train => 86_400,
            Split::Val | Split::Test => 9_600,
            Split::Human => 0,
        }
    }
    /// The lowercase name (`"train"`, `"val"`, `"test"`, `"human"`), as serialised and as [`Split::parse`] reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Val => "val",
            Split::Test => "test",
            Split::Human => "human",
        }
    }
    /// The split named `s` by [`Split::as_str`] (exact, lowercase), or `None`.
    pub fn parse(s: &str) -> Option<Split> {
        Split::ALL.into_iter().find(|x| x.as_str() == s)
    }
    fn tag(self) -> u8 {
        match self {
            Split::Train => 1,
            Split::Val => 2,
            Split::Test => 3,
            Split::Human => 4,
        }
    }
}

/// The 32-byte ChaCha key of one trial. It is an injective function of (master seed, task ordinal,
/// split, trial index): distinct tuples give distinct keys, so trials of different splits can never
/// share a random stream, whatever the counts.
pub fn trial_seed(master: u64, task_ordinal: u8, split: Split, index: u64) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[0..8].copy_from_slice(&master.to_le_bytes());
    key[8] = task_ordinal;
    key[9] = split.tag();
    key[10..16].copy_from_slice(b"wmlab1");
    key[16..24].copy_from_slice(&index.to_le_bytes());
    key
}

/// A deterministic random source. Cheap to create; one per trial.
///
/// The words are ChaCha8Rng's, in order (the same key, the same ChaCha core and block counter; a test
/// checks them against `rand_chacha`), held here so that a run of them can be read at once
/// ([`Rng::randint_pairs_until`]).
///
/// They are made as the cipher's keystream, which is the same words: chacha20 makes sixteen blocks at a
/// time there with AVX-512 where the CPU has it and the build sets `--cfg chacha20_avx512`
/// (`.cargo/config.toml` does on x86-64), 2.2× the bytes per second of its RNG path, which stops at AVX2
/// (0.15 against 0.34 ns per byte on the Xeon of the benchmarks). CD's placement draws about 14,000
/// words a trial. A stream's first refill makes only four blocks, so a trial that draws a few words
/// does not pay for sixteen.
pub struct Rng {
    /// The blocks of words made last; `buf[pos..]` are still unread.
    buf: [u32; BLOCK],
    pos: usize,
    /// The ChaCha core, just past `buf`'s blocks, and its key (to clone it).
    core: ChaChaCore<R8, Legacy>,
    key: [u8; 32],
}

/// Words in one ChaCha block (64 bytes).
const BLOCK_WORDS: usize = 16;
/// Blocks made by a refill after the first, as many as chacha20's AVX-512 backend makes in one pass.
const BLOCKS: usize = 16;
/// Words held: those of the `BLOCKS` blocks of a refill after the first.
const BLOCK: usize = BLOCKS * BLOCK_WORDS;
/// Blocks made by a stream's first refill.
const FIRST_BLOCKS: usize = 4;

impl std::fmt::Debug for Rng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rng").finish_non_exhaustive()
    }
}

impl Clone for Rng {
    /// (chacha20's core is not `Clone`: a new one from the key, moved to the same block.)
    fn clone(&self) -> Self {
        let mut core = ChaChaCore::from_seed(self.key);
        core.set_block_pos(self.core.get_block_pos());
        Rng { buf: self.buf, pos: self.pos, core, key: self.key }
    }
}

/// The same stream through `rand`'s interface, for code that wants `rand`'s samplers (WM Lab's own draws
/// use `Rng`'s own methods, which are written out so they cannot change with a `rand` upgrade).
impl rand::RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        Rng::next_u32(self)
    }
    fn next_u64(&mut self) -> u64 {
        Rng::next_u64(self)
    }
    /// Whole words in order, little-endian; the unused bytes of a last partial word are dropped (as
    /// ChaCha8Rng does).
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(4) {
            chunk.copy_from_slice(&Rng::next_u32(self).to_le_bytes()[..chunk.len()]);
        }
    }
}

impl Rng {
    /// The ChaCha8 stream of `key` (usually a [`trial_seed`]), from its first word.
    pub fn from_key(key: [u8; 32]) -> Self {
        Rng { buf: [0; BLOCK], pos: BLOCK, core: ChaChaCore::from_seed(key), key }
    }
    /// A stream named by a plain u64 (for things that are not trials, e.g. a practice block order).
    pub fn from_u64(seed: u64) -> Self {
        let mut key = [0u8; 32];
        key[0..8].copy_from_slice(&seed.to_le_bytes());
        key[10..16].copy_from_slice(b"wmlabX");
        Rng::from_key(key)
    }
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        // (the words end at `BLOCK` whatever the count: the readers take `buf[pos..]`)
        let count = if self.core.get_block_pos() == 0 { FIRST_BLOCKS } else { BLOCKS };
        let mut blocks: [Block<ChaChaCore<R8, Legacy>>; BLOCKS] = Default::default();
        self.core.write_keystream_blocks(&mut blocks[..count]);
        self.pos = BLOCK - BLOCK_WORDS * count;
        for (words, block) in self.buf[self.pos..].chunks_exact_mut(BLOCK_WORDS).zip(&blocks) {
            for (w, b) in words.iter_mut().zip(block.chunks_exact(4)) {
                *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
    }
    /// The next 32-bit word of the stream (ChaCha8Rng's words, in order).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.pos >= BLOCK {
            self.refill();
        }
        let w = self.buf[self.pos];
        self.pos += 1;
        w
    }
    /// The next two words as one u64, the first as the low half (as ChaCha8Rng's `next_u64`).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let lo = self.next_u32();
        let hi = self.next_u32();
        (u64::from(hi) << 32) | u64::from(lo)
    }
    /// Uniform integer in `0..n` (unbiased, Lemire's method). `n` must be > 0.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "Rng::below(0)");
        let mut m = (self.next_u32() as u64) * (n as u64);
        if (m as u32) < n {
            let t = n.wrapping_neg() % n;
            while (m as u32) < t {
                m = (self.next_u32() as u64) * (n as u64);
            }
        }
        (m >> 32) as u32
    }
    /// Uniform index in `0..n`.
    #[inline]
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u32) as usize
    }
    /// Uniform integer in the inclusive range `lo..=hi` (like Python's `randint`).
    #[inline]
    pub fn randint(&mut self, lo: i32, hi: i32) -> i32 {
        assert!(hi >= lo, "randint({lo}, {hi})");
        lo + self.below((hi - lo + 1) as u32) as i32
    }
    /// Up to `tries` points `(randint(lo, hi), randint(lo, hi))` until `accept` takes one: the same draws
    /// and the same result as that loop written out, x drawn before y. For rejection sampling that takes
    /// thousands of tries (CD's arrays: about 7,000 tries per CD trial of the benchmark): whole tries are
    /// read from the current blocks with no check per word but one compare against `n` (only a word whose
    /// product's low half is below `n` may be rejected by Lemire's method), and a try that meets such a
    /// word or the blocks' end is drawn word by word. Per try, 20 instructions against 37 for the loop
    /// written out over `randint`. (Should `accept` panic, the stream's position is unspecified.)
    #[inline]
    pub fn randint_pairs_until(
        &mut self,
        lo: i32,
        hi: i32,
        tries: u32,
        mut accept: impl FnMut(i32, i32) -> bool,
    ) -> Option<(i32, i32)> {
        if tries == 0 {
            return None; // (no try: no draw, and no check of the range, as the loop written out)
        }
        assert!(hi >= lo, "randint({lo}, {hi})");
        let n = (hi - lo + 1) as u32;
        assert!(n > 0, "Rng::below(0)");
        let wide = n as u64;
        let mut left = tries as usize;
        while left > 0 {
            let pos = self.pos;
            let whole = left.min((BLOCK - pos) / 2);
            let mut used = 0;
            let mut slow = whole == 0;
            for pair in self.buf[pos..pos + 2 * whole].chunks_exact(2) {
                let (mx, my) = (u64::from(pair[0]) * wide, u64::from(pair[1]) * wide);
                if (mx as u32).min(my as u32) < n {
                    slow = true; // maybe a rejection: this try goes word by word
                    break;
                }
                used += 1;
                let (x, y) = (lo + (mx >> 32) as i32, lo + (my >> 32) as i32);
                if accept(x, y) {
                    self.pos = pos + 2 * used;
                    return Some((x, y));
                }
            }
            self.pos = pos + 2 * used;
            left -= used;
            if slow {
                debug_assert!(left > 0, "a try is left when one goes word by word");
                let x = self.randint(lo, hi);
                let y = self.randint(lo, hi);
                left -= 1;
                if accept(x, y) {
                    return Some((x, y));
                }
            }
        }
        None
    }
    /// A fair coin flip: the lowest bit of the next word.
    #[inline]
    pub fn coin(&mut self) -> bool {
        self.next_u32() & 1 == 1
    }
    /// Uniform in [0, 1) with 53 bits, computed exactly (integer to f64 conversion and a power-of-two scale).
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// True with probability `p` (p given as a fraction of 2^32 so no float rounding can differ).
    pub fn chance(&mut self, numerator: u32, denominator: u32) -> bool {
        self.below(denominator) < numerator
    }
    /// One item of a non-empty slice, uniformly (one [`Rng::index`] draw); panics on an empty slice.
    pub fn choose<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
    /// `k` distinct values from `0..n`, in random order (like Python's `random.sample(range(n), k)`).
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        assert!(k <= n, "sample {k} of {n}");
        let mut pool: Vec<usize> = (0..n).collect();
        for i in 0..k {
            let j = i + self.index(n - i);
            pool.swap(i, j);
        }
        pool.truncate(k);
        pool
    }
    /// `k` distinct items of a slice, in random order.
    pub fn sample_from<T: Clone>(&mut self, items: &[T], k: usize) -> Vec<T> {
        self.sample(items.len(), k).into_iter().map(|i| items[i].clone()).collect()
    }
    /// A random permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        self.sample(n, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_stream_and_splits_differ() {
        let a: Vec<u32> = (0..8)
            .map({
                let mut r = Rng::from_key(trial_seed(7, 3, Split::Train, 5));
                move |_| r.next_u32()
            })
            .collect();
        let b: Vec<u32> = (0..8)
            .map({
                let mut r = Rng::from_key(trial_seed(7, 3, Split::Train, 5));
                move |_| r.next_u32()
            })
            .collect();
        assert_eq!(a, b);
        let mut keys = std::collections::HashSet::new();
        for s in Split::ALL {
            for i in 0..100 {
                assert!(keys.insert(trial_seed(7, 3, s, i)), "key collision");
            }
        }
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::from_u64(1);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[r.below(7) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        for _ in 0..1000 {
            let v = r.randint(-3, 4);
            assert!((-3..=4).contains(&v));
        }
    }

    #[test]
    fn sample_is_distinct() {
        let mut r = Rng::from_u64(2);
        for k in 0..=36 {
            let s = r.sample(36, k);
            let set: std::collections::HashSet<_> = s.iter().collect();
            assert_eq!(set.len(), k);
            assert!(s.iter().all(|&x| x < 36));
        }
    }

    /// The stream is `rand_chacha`'s ChaCha8Rng word for word (what every earlier trial was drawn
    /// from), across buffer refills, 64-bit reads, byte fills and clones made mid-stream.
    #[test]
    fn stream_equals_rand_chacha() {
        use rand::{RngCore, SeedableRng};
        for seed in 0..40u64 {
            let key = trial_seed(seed, (seed % 15) as u8, Split::Train, seed * 977);
            let mut ours = Rng::from_key(key);
            let mut theirs = rand_chacha::ChaCha8Rng::from_seed(key);
            for i in 0..3000 {
                match (i + seed) % 11 {
                    0 => assert_eq!(ours.next_u64(), theirs.next_u64(), "seed {seed} draw {i}"),
                    1 => {
                        let (mut a, mut b) = ([0u8; 12], [0u8; 12]);
                        RngCore::fill_bytes(&mut ours, &mut a);
                        theirs.fill_bytes(&mut b);
                        assert_eq!(a, b, "seed {seed} draw {i}");
                    }
                    3 => {
                        // a partial last word: its unused bytes are dropped, as ChaCha8Rng drops them
                        let (mut a, mut b) = ([0u8; 7], [0u8; 7]);
                        RngCore::fill_bytes(&mut ours, &mut a);
                        theirs.fill_bytes(&mut b);
                        assert_eq!(a, b, "seed {seed} draw {i}");
                    }
                    2 => {
                        let mut c = ours.clone();
                        for k in 0..70 {
                            assert_eq!(c.next_u32(), ours.next_u32(), "clone at draw {i}, word {k}");
                            theirs.next_u32();
                        }
                    }
                    _ => assert_eq!(ours.next_u32(), theirs.next_u32(), "seed {seed} draw {i}"),
                }
            }
        }
    }

    /// `randint_pairs_until` draws the words and gives the point that the loop written out over `randint`
    /// does, leaving the stream at the same place: for tries that end inside a block, at its end and
    /// across it, found or not, and for a range so wide that many of its words are rejected by Lemire's
    /// method (the word-by-word path).
    #[test]
    fn pairs_until_is_the_loop_written_out() {
        let (mut found, mut missed) = (0, 0);
        for seed in 0..300u64 {
            // n = 3 · 2^29: 37 % of words go word by word, and a quarter of all words are rejected
            let (lo, hi) = if seed % 3 == 0 { (-805_306_368, 805_306_367) } else { (7, 84) };
            let mut ours = Rng::from_u64(seed);
            let mut loop_rng = ours.clone();
            for round in 0..40u32 {
                let tries = (seed as u32 * 7 + round * 13) % 121;
                let want = (seed as i32 + round as i32) % 29;
                let accept = |x: i32, y: i32| (x.wrapping_mul(31) ^ y).rem_euclid(29) == want;
                let expected = (0..tries).find_map(|_| {
                    let x = loop_rng.randint(lo, hi);
                    let y = loop_rng.randint(lo, hi);
                    accept(x, y).then_some((x, y))
                });
                assert_eq!(ours.randint_pairs_until(lo, hi, tries, accept), expected, "seed {seed} round {round}");
                if expected.is_some() {
                    found += 1
                } else {
                    missed += 1
                }
                // an odd number of words between calls puts tries across blocks' ends at both parities
                for _ in 0..(seed + round as u64) % 3 {
                    assert_eq!(ours.next_u32(), loop_rng.next_u32(), "seed {seed} round {round}");
                }
            }
            assert_eq!(ours.next_u32(), loop_rng.next_u32(), "seed {seed}: the stream goes on alike");
        }
        assert!(found > 1000 && missed > 1000, "both outcomes are tested: {found} found, {missed} missed");
    }
}
