//! Batches for the networks, built in plain Rust (no burn): frames, task ids, per-step targets and
//! masks per head, sequence lengths. A batch is a list of trials of any task ids; the joint training
//! step is 10 trials of each of the 14 ids (140), drawn on the fly from the generators.

use wmlab_core::Split;
use wmlab_core::raster::{TENSOR_LEN, tensors_into};
use wmlab_core::task::{HeadKind, MAX_STEPS, Target, TaskId, TaskSpec, Trial};

/// Output heads (the five CD ids share one) and task-embedding rows (= its width: the 14 WorM ids; LSR
/// reads VSR's row, [`TaskId::embedding_row`]): the core's, where the configuration counts parameters.
pub use wmlab_core::networks::{N_HEADS, N_TASKS};
/// Number of task ids counted apart (accuracy per id): the 14 and LSR ([`TaskId::EVERY`]).
pub const N_IDS: usize = 15;

/// The head kind of each head index (see [`TaskId::head_index`]).
pub fn head_kinds() -> [HeadKind; N_HEADS] {
    let mut k = [HeadKind::Binary; N_HEADS];
    for t in TaskId::ALL {
        k[t.head_index()] = t.head();
    }
    k
}

/// The head indices grouped by kind: the binary heads, then the multi-label head, then the k-way
/// heads (each group in index order). The GPU backends lay the heads' logits side by side in this order,
/// so that the loss takes each kind at once ([`crate::loss::kind_loss`]).
pub fn heads_by_kind() -> [usize; N_HEADS] {
    let kinds = head_kinds();
    let rank = |k: HeadKind| match k {
        HeadKind::Binary => 0,
        HeadKind::MultiLabel(_) => 1,
        HeadKind::Classes(_) => 2,
    };
    let mut order: [usize; N_HEADS] = std::array::from_fn(|i| i);
    order.sort_by_key(|&i| (rank(kinds[i]), i));
    order
}

/// Targets of one head over the whole batch (rows of trials that use other heads are all zero weight).
#[derive(Clone, Debug, PartialEq)]
pub struct HeadTargets {
    pub kind: HeadKind,
    /// Loss weight per (trial, step), `[B * T]`: `1 / n` on the scored steps of trials using this head,
    /// where `n` is the number of scored steps of that trial's task id in the batch (so each task id's
    /// loss is its mean over its scored steps, and the task losses add up unweighted); 0 elsewhere.
    pub weight: Vec<f32>,
    /// Whether (trial, step) is scored with this head, `[B * T]`.
    pub mask: Vec<bool>,
    /// Binary: 0/1 per (trial, step), `[B * T]`. Multi-label: multi-hot, `[B * T * units]`. Classes: empty.
    pub target_f: Vec<f32>,
    /// Classes: class index per (trial, step), `[B * T]` (0 where unscored). Others: empty.
    pub target_i: Vec<i64>,
}

/// A batch of trials as flat arrays (row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    /// Number of trials `B`.
    pub size: usize,
    /// Steps `T` every trial is padded to: [`MAX_STEPS`] (the paper's 20), or the longest trial's
    /// length when task parameters make longer ones (long lists, WorM A3.2).
    pub steps: usize,
    /// `[B, T, 3, 32, 32]`; black (zeros) after each trial's end. Empty for a batch of word trials (LSR).
    pub frames: Vec<f32>,
    /// Word slots per step of a batch of LSR trials (0 otherwise).
    pub word_slots: usize,
    /// `[B, T, word_slots · 50]`: each step's word vectors ([`crate::words`]), zeros in empty slots and
    /// after each trial's end. Empty unless the batch is LSR's.
    pub words: Vec<f32>,
    /// Task id of each trial.
    pub tasks: Vec<TaskId>,
    /// Steps before padding, per trial.
    pub seq_len: Vec<usize>,
    /// One entry per head, index = [`TaskId::head_index`].
    pub heads: Vec<HeadTargets>,
}

impl Batch {
    /// Task-embedding row of each trial.
    pub fn task_ordinals(&self) -> Vec<i64> {
        self.tasks.iter().map(|t| t.embedding_row() as i64).collect()
    }

    /// Build a batch from trials.
    pub fn from_trials(trials: &[Trial]) -> Batch {
        let b = trials.len();
        let t_max = trials.iter().map(|t| t.len()).max().unwrap_or(0).max(MAX_STEPS);
        let kinds = head_kinds();
        // A batch reads words (LSR) or frames, never both: LSR trains alone (`parse_tasks` refuses a mix).
        let word_slots = trials.iter().flat_map(|t| &t.steps).map(|s| s.words.len()).max().unwrap_or(0);
        assert!(
            word_slots == 0 || trials.iter().all(|t| t.steps.iter().all(|s| s.words.len() == word_slots)),
            "a batch mixes word trials (LSR) with frame trials, or word trials with different slots"
        );
        let width = word_slots * crate::words::DIM;
        let mut frames = vec![0.0f32; if word_slots == 0 { b * t_max * TENSOR_LEN } else { 0 }];
        let mut words = vec![0.0f32; b * t_max * width];
        let mut heads: Vec<HeadTargets> = kinds
            .iter()
            .map(|&kind| HeadTargets {
                kind,
                weight: vec![0.0; b * t_max],
                mask: vec![false; b * t_max],
                target_f: match kind {
                    HeadKind::Binary => vec![0.0; b * t_max],
                    HeadKind::MultiLabel(u) => vec![0.0; b * t_max * u as usize],
                    HeadKind::Classes(_) => Vec::new(),
                },
                target_i: match kind {
                    HeadKind::Classes(_) => vec![0; b * t_max],
                    _ => Vec::new(),
                },
            })
            .collect();
        // Scored steps per task id, for the per-task mean.
        let mut scored_per_task = [0usize; N_IDS];
        for tr in trials {
            scored_per_task[tr.task.ordinal() as usize] += tr.scored_steps().count();
        }
        for (i, tr) in trials.iter().enumerate() {
            assert!(tr.len() <= t_max, "{} trial has {} steps", tr.task, tr.len());
            // Padding frames stay zero: `Frame::padding()` rasterizes to black (checked in a test).
            if word_slots > 0 {
                for (t, step) in tr.steps.iter().enumerate() {
                    let off = (i * t_max + t) * width;
                    crate::words::fill_slots(&step.words, &mut words[off..off + width]);
                }
            } else {
                // A trial's steps are contiguous; frames drawn before (a repeated probe, a recurring board) come
                // from the raster memo.
                let off = i * t_max * TENSOR_LEN;
                tensors_into(tr.steps.iter().map(|s| &s.frame), &mut frames[off..off + tr.len() * TENSOR_LEN]);
            }
            let h = &mut heads[tr.task.head_index()];
            let n = scored_per_task[tr.task.ordinal() as usize].max(1) as f32;
            for (t, step) in tr.scored_steps() {
                let r = i * t_max + t;
                h.mask[r] = true;
                h.weight[r] = 1.0 / n;
                match (h.kind, &step.target) {
                    (HeadKind::Binary, Target::Class(c)) => h.target_f[r] = *c as f32,
                    (HeadKind::Classes(_), Target::Class(c)) => {
                        // The task's own classes (LSR's word slots may exceed the VSR head's 9).
                        let k = tr.task.head().units();
                        assert!(*c < k, "{} target {} ≥ {}", tr.task, c, k);
                        h.target_i[r] = *c as i64
                    }
                    (HeadKind::MultiLabel(u), Target::Set(set)) => {
                        for &c in set {
                            assert!(c < u, "{} target unit {} ≥ {}", tr.task, c, u);
                            h.target_f[r * u as usize + c as usize] = 1.0;
                        }
                    }
                    (kind, target) => panic!("{}: target {:?} does not fit head {:?}", tr.task, target, kind),
                }
            }
        }
        Batch {
            size: b,
            steps: t_max,
            frames,
            word_slots,
            words,
            tasks: trials.iter().map(|t| t.task).collect(),
            seq_len: trials.iter().map(|t| t.len()).collect(),
            heads,
        }
    }
}

/// The task specs with reference parameters, in [`TaskId::ALL`] order.
pub fn all_specs() -> Vec<TaskSpec> {
    TaskId::ALL.iter().map(|&t| TaskSpec::new(t)).collect()
}

/// A deterministic shuffle of the trial indices of a split: the `k`-th trial drawn is index
/// `(a · (k mod n) + b_e) mod n` of a split of `n` trials per task id, where `a` is coprime with `n` (so
/// each pass `e = k div n` is a permutation) and `b_e` changes per pass. Consecutive draws therefore
/// spread over the condition grid and the balanced answer bit (trial `i` is in cell `i mod K` with the
/// coin `(i div K) mod 2`), as the reference's shuffled dataloader does; consecutive indices would give
/// a batch of 10 trials with the same coin-flip answer.
pub fn spread_index(k: u64, n: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    const PRIMES: [u64; 4] = [1_000_003, 999_983, 1_000_033, 1_000_037];
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let a = PRIMES.into_iter().find(|&p| gcd(p, n) == 1).unwrap_or(1);
    let pass = k / n;
    let b = pass.wrapping_mul(0x9E37_79B9_7F4A_7C15) % n;
    ((a % n) * (k % n) % n + b) % n
}

/// Trial `k` of a stream that walks a split of `n` trials in a fresh random order each epoch (epoch
/// `k / n`), one order per seed, task and epoch: a Fisher–Yates shuffle driven by SplitMix64, as the
/// authors' shuffled data loaders walk their fixed training sets. The epoch's order is made once and
/// kept (one per task) while that epoch lasts.
pub fn shuffled_index(seed: u64, task: u64, k: u64, n: u64) -> u64 {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    type Orders = HashMap<(u64, u64, u64), (u64, Arc<Vec<u32>>)>;
    static ORDERS: Mutex<Option<Orders>> = Mutex::new(None);
    if n <= 1 {
        return 0;
    }
    let epoch = k / n;
    let order = {
        let mut guard = ORDERS.lock().unwrap_or_else(|e| e.into_inner());
        let map = guard.get_or_insert_with(HashMap::new);
        match map.get(&(seed, task, n)) {
            Some((e, o)) if *e == epoch => o.clone(),
            _ => {
                let o = Arc::new(epoch_order(seed, task, epoch, n));
                map.insert((seed, task, n), (epoch, o.clone()));
                o
            }
        }
    };
    order[(k % n) as usize] as u64
}

/// The order of `0..n` for one epoch.
pub fn epoch_order(seed: u64, task: u64, epoch: u64, n: u64) -> Vec<u32> {
    let mut state = seed ^ task.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ epoch.wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..order.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// The trials of one joint step: `per_task` trials of each of the 14 ids, trial indices
/// draws `step * per_task .. (step + 1) * per_task` of `split`, shuffled over a split of `split_size`
/// trials per id by [`spread_index`] (unshuffled indices if `None`), so every step sees fresh, balanced
/// trials and the stream is reproducible from the seed.
pub fn joint_trials(
    specs: &[TaskSpec],
    seed: u64,
    split: Split,
    step: u64,
    per_task: usize,
    split_size: Option<u64>,
) -> Vec<Trial> {
    joint_trials_in(specs, seed, split, step, per_task, split_size, false, None)
}

/// [`joint_trials`], walking the split in a fresh random order each epoch per task id when
/// `shuffle_epochs` ([`shuffled_index`], instead of [`spread_index`]), and with each spec's trial
/// indices moved into its `easy` cells ([`TaskSpec::easy_index`]) when given (one list per spec): the
/// curriculum's first steps.
pub fn joint_trials_in(
    specs: &[TaskSpec],
    seed: u64,
    split: Split,
    step: u64,
    per_task: usize,
    split_size: Option<u64>,
    shuffle_epochs: bool,
    easy: Option<&[Vec<usize>]>,
) -> Vec<Trial> {
    let mut out = Vec::with_capacity(specs.len() * per_task);
    for (s, spec) in specs.iter().enumerate() {
        for j in 0..per_task as u64 {
            let k = step * per_task as u64 + j;
            let mut idx = match split_size.filter(|&n| n > 0) {
                Some(n) if shuffle_epochs => shuffled_index(seed, spec.id.ordinal() as u64, k, n),
                Some(n) => spread_index(k, n),
                None => k,
            };
            if let Some(cells) = easy.and_then(|e| e.get(s)) {
                idx = spec.easy_index(idx, cells);
            }
            out.push(spec.trial(seed, split, idx));
        }
    }
    out
}

/// The joint batch of one training step (see [`joint_trials`]).
pub fn joint_batch(
    specs: &[TaskSpec],
    seed: u64,
    split: Split,
    step: u64,
    per_task: usize,
    split_size: Option<u64>,
) -> Batch {
    Batch::from_trials(&joint_trials(specs, seed, split, step, per_task, split_size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wmlab_core::Frame;
    use wmlab_core::raster::tensor32;

    #[test]
    fn spread_index_is_a_permutation_per_pass() {
        for n in [1u64, 7, 9600, 86_400] {
            let m = n.min(20_000);
            let mut seen = std::collections::HashSet::new();
            for k in 0..m {
                assert!(seen.insert(spread_index(k, n)));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for k in 9600..2 * 9600 {
            assert!(seen.insert(spread_index(k, 9600)));
        }
    }

    #[test]
    fn padding_frame_is_black() {
        assert!(tensor32(&Frame::padding()).iter().all(|&v| v == 0.0));
    }

    #[test]
    fn joint_batch_shapes_and_weights() {
        let specs = all_specs();
        let b = joint_batch(&specs, 86, Split::Train, 0, 2, None);
        assert_eq!(b.size, 28);
        assert_eq!(b.frames.len(), 28 * MAX_STEPS * TENSOR_LEN);
        assert_eq!(b.heads.len(), N_HEADS);
        // Weights of each task id sum to 1 (one mean per task id).
        let mut per_task = [0.0f64; N_TASKS];
        for (i, &t) in b.tasks.iter().enumerate() {
            let h = &b.heads[t.head_index()];
            for s in 0..MAX_STEPS {
                per_task[t.ordinal() as usize] += h.weight[i * MAX_STEPS + s] as f64;
            }
        }
        for (k, w) in per_task.iter().enumerate() {
            assert!((w - 1.0).abs() < 1e-4, "task {k}: {w}");
        }
        // Frames after seq_len are black.
        for i in 0..b.size {
            for s in b.seq_len[i]..MAX_STEPS {
                let off = (i * MAX_STEPS + s) * TENSOR_LEN;
                assert!(b.frames[off..off + TENSOR_LEN].iter().all(|&v| v == 0.0));
            }
        }
    }
}
