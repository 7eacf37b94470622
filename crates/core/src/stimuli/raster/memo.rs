//! The memo of recent frames by their exact contents, in 4-way sets.

#[allow(unused_imports)]
use super::*;

/// Keep a frame in its memo set: it takes an empty way, else the way least met lately (the oldest among
/// equals), so a frame met a few times leaves before one met again and again (SMU's and SC's boards),
/// whatever mix of tasks runs. The others age by one, so a set's frames can change when the tasks do.
pub(super) fn admit(ways: &mut [Option<MemoSlot>], h: u64, key: &[u32], bytes: &[u8; TENSOR_LEN], stamp: &mut u64) {
    let victim = ways
        .iter()
        .enumerate()
        .min_by_key(|(_, s)| s.as_ref().map_or((0, 0), |s| (s.hits as u64 + 1, s.made)))
        .map(|(w, _)| w)
        .expect("a set has ways");
    for s in ways.iter_mut().flatten() {
        s.hits = s.hits.saturating_sub(1);
    }
    *stamp += 1;
    keep(&mut ways[victim], h, key, bytes, *stamp);
}

/// A memo entry: a frame's key and its hash, its tensor bytes, when it was filled (a stamp, so a hot
/// copy of an earlier occupant of the slot is not taken for it) and how often it was met lately.
pub(super) struct MemoSlot {
    pub(super) hash: u64,
    pub(super) key: Vec<u32>,
    pub(super) bytes: Box<[u8; TENSOR_LEN]>,
    pub(super) made: u64,
    pub(super) hits: u8,
}

/// Put a frame's key, bytes and stamp into a memo slot, or into the place of the frame kept aside (reusing
/// the allocations already there).
pub(super) fn keep(slot: &mut Option<MemoSlot>, hash: u64, key: &[u32], bytes: &[u8; TENSOR_LEN], made: u64) {
    match slot {
        Some(s) => {
            s.key.clear();
            s.key.extend_from_slice(key);
            *s.bytes = *bytes;
            (s.hash, s.made, s.hits) = (hash, made, 0);
        }
        None => *slot = Some(MemoSlot { hash, key: key.to_vec(), bytes: Box::new(*bytes), made, hits: 0 }),
    }
}

/// Frame families kept for resampling by difference.
pub(super) const LASTS: usize = 2;

/// A frame's family: its background and its first drawn shape's kind and line colour (a box's outline,
/// a line's colour; fills vary with the pattern a grid shows). A frame is resampled by difference from
/// the last one drawn of its family; any choice gives the same bytes.
pub(super) type Family = (Rgb, Option<std::mem::Discriminant<Shape>>, Option<Rgb>);

pub(super) fn family(frame: &Frame) -> Family {
    let Some(first) = frame.shapes.iter().find(|s| !matches!(s, Shape::Text { .. })) else {
        return (frame.background, None, None);
    };
    let colour = match *first {
        Shape::Rect { outline, .. } | Shape::RoundRect { outline, .. } | Shape::Ellipse { outline, .. } => outline,
        Shape::Line { color, .. } | Shape::Arrow { color, .. } => Some(color),
        Shape::Text { .. } | Shape::Noise { .. } => None,
    };
    (frame.background, Some(std::mem::discriminant(first)), colour)
}

/// Slots of the frame memo: 2,048 × 3 KB of bytes plus keys, in sets of `MEMO_WAYS` by key hash.
pub(super) const MEMO_SLOTS: usize = 2048;
pub(super) const MEMO_WAYS: usize = 4;
pub(super) const MEMO_SETS: usize = MEMO_SLOTS / MEMO_WAYS;
/// The memo set of a frame by its key's hash.
pub(super) fn memo_set(hash: u64) -> usize {
    (hash >> 40) as usize % MEMO_SETS
}
/// Entries of the table of frames met once (by key hash): 8,192 × 8 bytes.
pub(super) const FRAME_GHOSTS: usize = 1 << 13;
/// The most a slot's count of recent hits grows (each new frame in its set takes one off).
pub(super) const MEMO_HITS: u8 = 3;

/// Memo slots whose tensor values are also kept (direct-mapped by key hash; an entry names its slot
/// and stamp): 64 × 12 KB. Most frames are memo hits (64 % of the joint benchmark's, nearly all of
/// STS's and SC's), and turning bytes into values for each was the largest single cost after drawing;
/// a hit on a hot slot is a copy of its values (and of its bytes, as the frame before the next one).
pub(super) const HOT: usize = 64;

pub(super) struct Memo {
    pub(super) slots: Vec<Option<MemoSlot>>,
    /// Values of often hit slots: (slot, the slot's stamp when expanded, hits less misses, values).
    pub(super) hot: Vec<(usize, u64, u32, Box<[f32; TENSOR_LEN]>)>,
    /// Slots filled so far.
    pub(super) stamp: u64,
    /// The key being built (kept to reuse its allocation), and where each shape's words begin in it.
    pub(super) key: Vec<u32>,
    pub(super) starts: Vec<u32>,
    /// Output tiles by the shapes that paint under them, for frames drawn from known shapes.
    pub(super) tiles: Tiles,
    /// The image frames are drawn into.
    pub(super) scratch: Image96,
    /// The last frames drawn of `LASTS` families (by [`family`]) and their resampling, which the next
    /// frame of the family updates: SI's probe (a red border) follows a probe, not the memory frame
    /// before it, and the next memory frame follows the last memory frame, not the probe.
    pub(super) lasts: [Incremental; LASTS],
    pub(super) tags: [Option<Family>; LASTS],
    /// The slot a new family takes.
    pub(super) next: usize,
    /// Hashes of frames met once (direct-mapped): a frame enters the memo when met again.
    pub(super) ghosts: Vec<u64>,
    /// The last frame left out of the memo (its `made` and `hits` unused).
    pub(super) recent: Option<MemoSlot>,
    /// Calls of [`render`] so far, and the bytes of the frame the last one rendered.
    pub(super) serial: u64,
    pub(super) shown: Box<[u8; TENSOR_LEN]>,
}

thread_local! {
    pub(super) static MEMO: std::cell::RefCell<Memo> =
        std::cell::RefCell::new(Memo {
            slots: (0..MEMO_SLOTS).map(|_| None).collect(),
            key: Vec::new(),
            starts: Vec::new(),
            tiles: Tiles::new(),
            scratch: Image96::new(crate::display::palette::BLACK),
            lasts: std::array::from_fn(|_| Incremental::new()),
            tags: [None; LASTS],
            next: 0,
            hot: (0..HOT).map(|_| (usize::MAX, 0, 0, Box::new([0.0; TENSOR_LEN]))).collect(),
            stamp: 0,
            ghosts: vec![0; FRAME_GHOSTS],
            recent: None,
            serial: 0,
            shown: Box::new([0; TENSOR_LEN]),
        });
}
