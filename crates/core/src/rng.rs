//! Seeded randomness. Every random choice in WM Lab goes through [`Rng`], a thin layer over ChaCha8
//! whose every method is written here (no float-dependent library samplers), so the same seed gives the
//! same bytes on every platform, native and wasm32, and across dependency upgrades of `rand`.

use chacha20::ChaCha8Rng;
use chacha20::rand_core::{Rng as _, SeedableRng};

/// Which stream of trials a seed belongs to. Splits never share a ChaCha key (see [`trial_seed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Train,
    Val,
    Test,
    /// Trials for people (practice and main blocks), drawn from their own stream.
    Human,
}

impl Split {
    pub const ALL: [Split; 4] = [Split::Train, Split::Val, Split::Test, Split::Human];
    /// The WorM paper's default split sizes per task id (86,400 / 9,600 / 9,600).
    pub fn paper_count(self) -> u64 {
        match self {
            Split::Train => 86_400,
            Split::Val | Split::Test => 9_600,
            Split::Human => 0,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Val => "val",
            Split::Test => "test",
            Split::Human => "human",
        }
    }
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
#[derive(Debug)]
pub struct Rng(ChaCha8Rng);

impl Clone for Rng {
    /// (chacha20's generator is not `Clone`; its state round-trips exactly, buffer position included.)
    fn clone(&self) -> Self {
        Rng(ChaCha8Rng::deserialize_state(&self.0.serialize_state()))
    }
}

/// The same stream through `rand`'s interface, for code that wants `rand`'s samplers (WM Lab's own draws
/// use the methods above, which are written out so they cannot change with a `rand` upgrade).
impl rand::RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        Rng::next_u32(self)
    }
    fn next_u64(&mut self) -> u64 {
        Rng::next_u64(self)
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.fill_bytes(dst)
    }
}

impl Rng {
    pub fn from_key(key: [u8; 32]) -> Self {
        Rng(ChaCha8Rng::from_seed(key))
    }
    /// A stream named by a plain u64 (for things that are not trials, e.g. a practice block order).
    pub fn from_u64(seed: u64) -> Self {
        let mut key = [0u8; 32];
        key[0..8].copy_from_slice(&seed.to_le_bytes());
        key[10..16].copy_from_slice(b"wmlabX");
        Rng::from_key(key)
    }
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
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
                    2 => {
                        let mut c = ours.clone();
                        assert_eq!(c.next_u32(), ours.next_u32(), "clone at draw {i}");
                        theirs.next_u32();
                    }
                    _ => assert_eq!(ours.next_u32(), theirs.next_u32(), "seed {seed} draw {i}"),
                }
            }
        }
    }
}
