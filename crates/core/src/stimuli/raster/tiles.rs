//! New frames composed from 2×2-pixel output tiles of shapes met before.

#[allow(unused_imports)]
use super::*;

/// Start fetching the cache line holding `x` into the caches: a hint, with no effect on any result. The
/// tables of tiles and shapes (5.7 MB) live in the L3 when the tasks are mixed, and a lookup waited for its
/// line before the next one began; fetched ahead, the lines of a frame's lookups arrive together (a
/// no-op off x86-64, where the lookups wait as before).
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(x);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Side of an output tile, in output pixels.
pub(super) const TILE: usize = 2;
/// Tiles per side of the output.
pub(super) const TILES: usize = SMALL / TILE;
/// Most shapes a tile's key holds; a tile under more is not kept.
pub(super) const TILE_SHAPES: usize = 12;
/// Most shapes a tile of the small-entry table has (98 % of the tiles composed in the joint benchmark).
pub(super) const FEW: usize = 4;
/// Sets of the tile tables (a set is one 64-byte cache line): tiles under at most `FEW` shapes in 2-way
/// sets of 32-byte entries (65,536 × 64 bytes), the others in direct-mapped 64-byte entries (8,192 × 64
/// bytes). A tile's set is the hash of its background and shape list plus its index, so the tiles of one
/// list in a row of tiles lie in consecutive lines, which the hardware prefetches (with the index in the
/// hash the same lookups ran 1–5 % slower on the joint mix in three paired runs, with the same simulated
/// misses).
pub(super) const TILE_SETS: usize = 1 << 16;
pub(super) const BIG_TILE_SETS: usize = 1 << 13;
/// Most backgrounds the tile tables tell apart (by their index in `Tiles::bgs`).
pub(super) const TILE_BGS: usize = 255;
const _: () = assert!(
    std::mem::size_of::<TileSet<FEW, 2>>() == 64 && std::mem::size_of::<TileSet<TILE_SHAPES, 1>>() == 64,
    "a tile set is one cache line"
);
/// Most words a shape's key has (a rounded rectangle's).
pub(super) const SHAPE_WORDS: usize = 9;
/// Sets and ways of the shape table: 16,384 entries of 72 bytes (with 8,192 the joint mix still pushed
/// out shapes of composed frames: VSR's frames were drawn for a shape not in the table 6 times in 100,
/// 0.1 times in 100 with 16,384).
pub(super) const SHAPE_SETS: usize = 4096;
pub(super) const SHAPE_WAYS: usize = 4;
/// The shape-table set of a shape by its key words' hash.
pub(super) fn shape_set(hash: u64) -> usize {
    (hash >> 40) as usize % SHAPE_SETS
}
/// The set of tile `t` under the shape list of hash `hash`, in a table of `sets` sets: the list's tiles
/// along a row of tiles in consecutive lines (see [`TILE_SETS`]).
pub(super) fn tile_set(hash: u64, t: usize, sets: usize) -> usize {
    ((hash >> 40) as usize + t) % sets
}
/// Most unknown tiles a frame may have and still be composed (the rest drawn and resampled alone).
pub(super) const PARTIAL: usize = 48;
/// Frames a shape must have been met in before the first for its tiles to be kept.
pub(super) const MATURE: u8 = 2;
/// Entries of the table that counts the sightings of shapes not yet in the shape table (direct-mapped
/// by hash): 16,384 × 8 bytes.
pub(super) const GHOSTS: usize = 1 << 14;

/// A shape met: its key words, the id given to them, its painted box (None: nothing in the image).
#[derive(Clone, Copy)]
pub(super) struct ShapeEntry {
    pub(super) len: u8,
    pub(super) words: [u32; SHAPE_WORDS],
    pub(super) id: u32,
    pub(super) bounds: Option<(i32, i32, i32, i32)>,
    pub(super) used: u64,
    /// Frames it was met in after the first (saturating).
    pub(super) seen: u8,
    /// Met in a frame whose shapes were all in the table (composed from tiles, or drawn when too many of
    /// its tiles were unknown): a new shape takes the place of one never so met first ([`Tiles::intern`]).
    pub(super) composed: bool,
}

impl ShapeEntry {
    const EMPTY: ShapeEntry =
        ShapeEntry { len: 0, words: [0; SHAPE_WORDS], id: 0, bounds: None, used: 0, seen: 0, composed: false };
}

/// The output bytes of one tile of `img`, computed directly: the horizontal pass ([`horizontal`], which
/// copies the outputs whose taps hold one colour) over the rows under the tile's taps, once per row
/// (the two output rows' windows share half their rows), then the vertical pass: the same function of
/// the pixels as [`downsample`].
pub(super) fn resample_tile(img: &Image96, tx: usize, ty: usize, out: &mut [u8; TENSOR_LEN]) {
    let t = taps();
    let plane = SMALL * SMALL;
    let (c0, c1) = (tx * TILE, tx * TILE + TILE - 1);
    let (r0, r1) = (ty * TILE, ty * TILE + TILE - 1);
    let y_lo = t.start[r0] + t.nonzero[r0].0;
    let y_hi = t.start[r1] + t.nonzero[r1].1;
    // the horizontal outputs of the rows y_lo..=y_hi (at most 3 × (TILE - 1) + 6 of them)
    let mut mid = [[0u8; MID]; 3 * (TILE - 1) + 6];
    assert!(y_hi - y_lo < mid.len(), "a tile's taps span at most {} rows", mid.len());
    for (y, m) in (y_lo..=y_hi).zip(mid.iter_mut()) {
        let row: &[u8; ROW] = img.px[y * ROW..(y + 1) * ROW].try_into().expect("a row is ROW bytes");
        horizontal(t, row, c0, c1, m);
    }
    for oy in r0..=r1 {
        let (s, (k0, k1), w) = (t.start[oy], t.nonzero[oy], &t.w[oy]);
        for ox in c0..=c1 {
            let mut acc = [0i32; 3];
            for k in k0..=k1 {
                let m = &mid[s + k - y_lo][ox * 3..ox * 3 + 3];
                for c in 0..3 {
                    acc[c] += w[k] * m[c] as i32;
                }
            }
            for c in 0..3 {
                out[c * plane + oy * SMALL + ox] = to_u8(acc[c]);
            }
        }
    }
}

/// What [`Tiles::compose`] made of a frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Compose {
    /// Every tile was known: `Tiles::bytes` holds the frame's tensor bytes.
    Done,
    /// Some tiles were not known: draw the frame, then [`Tiles::store`] them.
    Missed,
    /// A shape never seen before, or one that cannot be bounded: draw the frame, keep nothing.
    Skipped,
}

/// One kept tile: which shapes (ids, in painting order, then zeros; ids start at 1), over which
/// background (by index), gave which bytes; `len` 0 is an empty entry.
#[derive(Clone, Copy)]
#[repr(C)]
pub(super) struct TileEntry<const K: usize> {
    pub(super) ids: [u32; K],
    pub(super) px: [u8; 3 * TILE * TILE],
    pub(super) tile: u8,
    pub(super) len: u8,
    pub(super) bg: u8,
}

/// The first `K` ids of a tile's list (its ids, then the zeros it was cleared to): a table entry's key.
/// The list is cleared when its first id is written, so a key is read, not built; building it (zeros,
/// then a copy of the `n` ids) was two library calls per tile, 2 % of the joint benchmark's instructions.
#[inline]
pub(super) fn padded<const K: usize>(ids: &[u32; TILE_SHAPES]) -> &[u32; K] {
    const { assert!(K <= TILE_SHAPES) };
    ids[..K].try_into().expect("K <= TILE_SHAPES")
}

/// `W` tile entries in one cache line, the most recently stored first.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct TileSet<const K: usize, const W: usize>([TileEntry<K>; W]);

impl<const K: usize, const W: usize> TileSet<K, W> {
    const EMPTY: Self = TileSet([TileEntry { ids: [0; K], px: [0; 3 * TILE * TILE], tile: 0, len: 0, bg: 0 }; W]);

    /// The bytes kept for this key, if any.
    #[inline]
    pub(super) fn find(&self, ids: &[u32; K], tile: u8, len: u8, bg: u8) -> Option<&[u8; 3 * TILE * TILE]> {
        self.0.iter().find(|e| e.len == len && e.tile == tile && e.bg == bg && e.ids == *ids).map(|e| &e.px)
    }

    /// Keep a tile's bytes as the set's first entry (the others move down one, the last leaves).
    pub(super) fn put(&mut self, ids: &[u32; K], tile: u8, len: u8, bg: u8) -> &mut [u8; 3 * TILE * TILE] {
        self.0.copy_within(0..W - 1, 1);
        self.0[0] = TileEntry { ids: *ids, px: [0; 3 * TILE * TILE], tile, len, bg };
        &mut self.0[0].px
    }
}

/// Output tiles by the shapes that paint under them. Every output byte depends only on the input
/// pixels under its 6×6 taps, and painting only overwrites pixels, so the pixels under a tile's taps
/// are the background and, in order, the shapes whose painted box meets them: a tile whose background
/// and shapes (each known exactly, by an id given to its exact key) were met before has the bytes it
/// had then. Grids of cells repeat a few shapes at fixed places (VIR, VSR, VSRec, CS), SI's figures
/// take segments from one lattice: their new frames are mostly old tiles. Ids are never reused
/// (everything is cleared before they would wrap), so a stale entry can only fail to match.
pub(super) struct Tiles {
    /// Shapes met in `MATURE` frames before, in sets of `SHAPE_WAYS` by the hash of their words.
    pub(super) shapes: Vec<ShapeEntry>,
    /// Shapes met fewer times: per entry, a hash of the words (its low byte cleared) and the frames it
    /// was met in after the first. A shape enters `shapes` only on reaching `MATURE`, so the shapes met
    /// once or twice (every trial's own) cannot push the ones met again and again out of it (CD's bars,
    /// which recur, do enter: see [`Tiles::intern`] for the way they take).
    /// A hash met by two shapes only makes one of them enter early or late: ids and tiles stay exact.
    pub(super) ghosts: Vec<u64>,
    pub(super) next_id: u32,
    /// Shape lookups so far (when each entry was last used), and its value when the frame being composed
    /// began (an entry used since is one of that frame's shapes).
    pub(super) clock: u64,
    pub(super) frame_clock: u64,
    /// The drawn shapes of the frame being composed that paint here: (index among the drawn shapes,
    /// first and last tile column, first and last tile row).
    pub(super) placed: Vec<(usize, [u8; 4])>,
    /// Where the shapes of the frame being composed are in `shapes` (marked `composed` if it is).
    pub(super) entries: Vec<usize>,
    /// The hashes of the words of the frame being composed's shapes, computed first to fetch their sets
    /// ahead ([`prefetch`]).
    pub(super) hashes: Vec<u64>,
    /// Where the shapes under unknown tiles are drawn.
    pub(super) img: Image96,
    /// Kept tiles under at most `FEW` shapes, and under more.
    pub(super) few: Vec<TileSet<FEW, 2>>,
    pub(super) many: Vec<TileSet<TILE_SHAPES, 1>>,
    /// The backgrounds met, whose indices the tile entries hold.
    pub(super) bgs: Vec<Rgb>,
    /// Per tile: the ids of the shapes under it, in painting order, then zeros (more than `TILE_SHAPES`:
    /// the first `TILE_SHAPES`, and the tile is not kept). Valid for the tiles the last `compose` reached
    /// (`lens[t] > 0`); the others hold an older frame's list.
    pub(super) lists: Vec<[u32; TILE_SHAPES]>,
    pub(super) lens: [u8; TILES * TILES],
    /// The tiles not found by the last `compose` and their sets (in `few`, or `many` when the tile is under
    /// more than `FEW` shapes; usize::MAX: not kept).
    pub(super) missed: Vec<(usize, usize)>,
    /// The index in `bgs` of the last composed frame's background.
    pub(super) bg: u8,
    /// The composed tensor bytes.
    pub(super) bytes: [u8; TENSOR_LEN],
    /// Per input pixel (either axis): the first and last tile whose taps reach it.
    pub(super) reach: [(u8, u8); BIG],
}

impl Tiles {
    pub(super) fn new() -> Self {
        let t = taps();
        let mut reach = [(u8::MAX, 0u8); BIG];
        for tile in 0..TILES {
            // the whole 6-pixel windows of the tile's outputs (a superset of the weighted taps)
            let (lo, hi) = (t.start[tile * TILE], t.start[tile * TILE + TILE - 1] + 5);
            for r in &mut reach[lo..=hi] {
                r.0 = r.0.min(tile as u8);
                r.1 = r.1.max(tile as u8);
            }
        }
        debug_assert!(reach.iter().all(|r| r.0 <= r.1), "every pixel is under some tile's taps");
        Tiles {
            shapes: Vec::new(),
            ghosts: Vec::new(),
            next_id: 0,
            clock: 0,
            frame_clock: 0,
            placed: Vec::new(),
            entries: Vec::new(),
            hashes: Vec::new(),
            img: Image96::new(crate::display::palette::BLACK),
            few: Vec::new(),
            many: Vec::new(),
            bgs: Vec::new(),
            lists: vec![[0; TILE_SHAPES]; TILES * TILES],
            lens: [0; TILES * TILES],
            missed: Vec::new(),
            bg: 0,
            bytes: [0; TENSOR_LEN],
            reach,
        }
    }

    /// The id, painted box and frames met in after the first of a shape by its key words. A shape met in
    /// fewer than `MATURE` frames before is only counted (its id is 0, and unused: its frame is drawn,
    /// unless the shape paints nothing here); on reaching `MATURE` it gets a new id in the table (4-way
    /// sets). The way it takes is, of those not used by the frame being composed, the least recently
    /// used whose shape was never met in a frame of shapes all in the table, else the least recently
    /// used: CD's bars recur enough to enter the table but never compose (a new bar comes with them), and
    /// with plain LRU they pushed the other tasks' shapes out in the joint mix (SI's frames drawn 17 times
    /// in 100 against 1 alone). Also returns the entry's index in `shapes` (None: not in it), which names
    /// this shape until the next shape enters its set. None when it cannot be bounded.
    #[allow(clippy::type_complexity)]
    pub(super) fn intern(
        &mut self,
        words: &[u32],
        shape: &Shape,
        h: u64,
    ) -> Option<(u32, Option<(i32, i32, i32, i32)>, u8, Option<usize>)> {
        self.clock += 1;
        let set = shape_set(h) * SHAPE_WAYS;
        let ways = &mut self.shapes[set..set + SHAPE_WAYS];
        if let Some(w) = ways.iter().position(|e| e.len as usize == words.len() && e.words[..words.len()] == *words) {
            let e = &mut ways[w];
            e.used = self.clock;
            e.seen = e.seen.saturating_add(1);
            return Some((e.id, e.bounds, e.seen, Some(set + w)));
        }
        let bounds = paint_bounds(shape)?;
        let ghost = &mut self.ghosts[(h >> 16) as usize % GHOSTS];
        let seen = if *ghost & !0xFF == h & !0xFF { (*ghost & 0xFF) as u8 + 1 } else { 0 };
        if seen < MATURE {
            *ghost = h & !0xFF | seen as u64;
            return Some((0, bounds, seen, None));
        }
        *ghost = 0;
        let frame = self.frame_clock;
        let w = (0..SHAPE_WAYS)
            .min_by_key(|&w| (ways[w].used > frame, ways[w].composed, ways[w].used))
            .expect("SHAPE_WAYS is above 0");
        let e = &mut ways[w];
        // (ids never wrap: out of ids the frame is drawn, and the next one clears the tables)
        self.next_id = self.next_id.checked_add(1)?;
        e.len = words.len() as u8;
        e.words[..words.len()].copy_from_slice(words);
        (e.id, e.bounds, e.used, e.seen, e.composed) = (self.next_id, bounds, self.clock, seen, false);
        Some((e.id, bounds, seen, Some(set + w)))
    }

    /// Compose `frame` (its key words and shape starts from [`frame_key`]) from known tiles; when only
    /// a few are unknown, draw just the shapes under those and resample just those tiles.
    pub(super) fn compose(&mut self, frame: &Frame, key: &[u32], starts: &[u32]) -> Compose {
        if self.few.is_empty() {
            self.shapes = vec![ShapeEntry::EMPTY; SHAPE_SETS * SHAPE_WAYS];
            self.ghosts = vec![0; GHOSTS];
            self.few = vec![TileSet::EMPTY; TILE_SETS];
            self.many = vec![TileSet::EMPTY; BIG_TILE_SETS];
        }
        if self.next_id >= u32::MAX - 1024 {
            // (never reached in practice: four billion shapes; reusing ids could match stale entries)
            self.shapes.fill(ShapeEntry::EMPTY);
            self.few.fill(TileSet::EMPTY);
            self.many.fill(TileSet::EMPTY);
            self.next_id = 0;
        }
        let bg = frame.background;
        self.bg = match self.bgs.iter().position(|&b| b == bg) {
            Some(i) => i as u8,
            None if self.bgs.len() < TILE_BGS => {
                self.bgs.push(bg);
                (self.bgs.len() - 1) as u8
            }
            None => return Compose::Skipped,
        };
        self.lens = [0; TILES * TILES];
        self.missed.clear();
        self.placed.clear();
        self.entries.clear();
        self.frame_clock = self.clock;
        let mut young = false;
        let drawn = frame.shapes.iter().filter(|s| !matches!(s, Shape::Text { .. }));
        // (shape i's words: from its start to the next one's, the last to the key's end)
        let words = |i: usize| &key[starts[i] as usize..starts.get(i + 1).map_or(key.len(), |&e| e as usize)];
        // Every shape's set is fetched before the first is looked up (a set spans five lines: each entry's
        // start and its length, which the lookup reads first).
        self.hashes.clear();
        for i in 0..starts.len() {
            let h = fx(words(i));
            self.hashes.push(h);
            let set = shape_set(h) * SHAPE_WAYS;
            for e in &self.shapes[set..set + SHAPE_WAYS] {
                prefetch(e);
                prefetch(&e.len);
            }
        }
        for (i, shape) in drawn.enumerate() {
            let words = words(i);
            if words.len() > SHAPE_WORDS {
                return Compose::Skipped;
            }
            let Some((id, bounds, seen, entry)) = self.intern(words, shape, self.hashes[i]) else {
                return Compose::Skipped;
            };
            // (a shape not yet in the table has no entry: a shape that paints nothing here does not make
            // its frame young, so such a frame is still composed)
            self.entries.extend(entry);
            let Some((x0, y0, x1, y1)) = bounds else { continue };
            // A shape met in fewer than `MATURE` frames before (CD's bars, placed anew each trial) makes
            // the frame's tiles unlikely to be known: it is drawn and resampled by difference, and only
            // its shapes are learnt.
            young |= seen < MATURE;
            if young {
                continue;
            }
            let (tx0, tx1) = (self.reach[x0 as usize].0, self.reach[x1 as usize].1);
            let (ty0, ty1) = (self.reach[y0 as usize].0, self.reach[y1 as usize].1);
            self.placed.push((i, [tx0, tx1, ty0, ty1]));
            for ty in ty0 as usize..=ty1 as usize {
                for tx in tx0 as usize..=tx1 as usize {
                    let t = ty * TILES + tx;
                    let n = self.lens[t] as usize;
                    if n == 0 {
                        self.lists[t] = [0; TILE_SHAPES]; // (a list's zeros end its key: see `padded`)
                    }
                    if n < TILE_SHAPES {
                        self.lists[t][n] = id;
                    }
                    self.lens[t] = (n + 1).min(TILE_SHAPES + 1) as u8;
                }
            }
        }
        if young {
            return Compose::Skipped;
        }
        for &e in &self.entries {
            self.shapes[e].composed = true;
        }
        let plane = SMALL * SMALL;
        self.bytes[..plane].fill(bg.0);
        self.bytes[plane..2 * plane].fill(bg.1);
        self.bytes[2 * plane..].fill(bg.2);
        // Every kept tile's set first, fetched ahead ([`prefetch`]), then the lookups.
        let mut sets = [0u32; TILES * TILES];
        for t in 0..TILES * TILES {
            let n = self.lens[t] as usize;
            if n == 0 || n > TILE_SHAPES {
                continue;
            }
            let mut h = fx_mix(self.bg as u64, n as u64);
            for &id in &self.lists[t][..n] {
                h = fx_mix(h, id as u64);
            }
            sets[t] = if n <= FEW {
                let at = tile_set(h, t, TILE_SETS);
                prefetch(&self.few[at]);
                at
            } else {
                let at = tile_set(h, t, BIG_TILE_SETS);
                prefetch(&self.many[at]);
                at
            } as u32;
        }
        for t in 0..TILES * TILES {
            let n = self.lens[t] as usize;
            if n == 0 {
                continue; // only background under its taps: the background exactly
            }
            if n > TILE_SHAPES {
                self.missed.push((t, usize::MAX));
                continue;
            }
            let ids = &self.lists[t];
            let (tile, len, at) = (t as u8, n as u8, sets[t] as usize);
            let found = if n <= FEW {
                self.few[at].find(padded(ids), tile, len, self.bg)
            } else {
                self.many[at].find(padded(ids), tile, len, self.bg)
            };
            match found {
                Some(px) => {
                    let (ty, tx) = (t / TILES, t % TILES);
                    for c in 0..3 {
                        for r in 0..TILE {
                            let o = c * plane + (ty * TILE + r) * SMALL + tx * TILE;
                            self.bytes[o..o + TILE].copy_from_slice(&px[(c * TILE + r) * TILE..][..TILE]);
                        }
                    }
                }
                None => self.missed.push((t, at)),
            }
        }
        if self.missed.is_empty() {
            return Compose::Done;
        }
        if self.missed.len() > PARTIAL {
            return Compose::Missed;
        }
        // Few tiles unknown: the shapes that reach them, in order, paint every pixel under their taps.
        let mut wanted = [false; TILES * TILES];
        for &(t, _) in &self.missed {
            wanted[t] = true;
        }
        self.img.reset(bg);
        let mut k = 0;
        for (i, shape) in frame.shapes.iter().filter(|s| !matches!(s, Shape::Text { .. })).enumerate() {
            if k == self.placed.len() || self.placed[k].0 != i {
                continue;
            }
            let [tx0, tx1, ty0, ty1] = self.placed[k].1;
            k += 1;
            let reaches =
                (ty0 as usize..=ty1 as usize).any(|ty| (tx0 as usize..=tx1 as usize).any(|tx| wanted[ty * TILES + tx]));
            if reaches {
                draw_shape(&mut self.img, shape);
            }
        }
        for m in 0..self.missed.len() {
            let t = self.missed[m].0;
            resample_tile(&self.img, t % TILES, t / TILES, &mut self.bytes);
        }
        let bytes = self.bytes;
        self.store(&bytes);
        Compose::Done
    }

    /// Keep the tiles the last `compose` missed, from the frame's drawn tensor bytes.
    pub(super) fn store(&mut self, out: &[u8; TENSOR_LEN]) {
        let plane = SMALL * SMALL;
        for &(t, at) in &self.missed {
            if at == usize::MAX {
                continue;
            }
            let n = self.lens[t] as usize;
            let (ids, tile, len) = (&self.lists[t], t as u8, n as u8);
            let px = if n <= FEW {
                self.few[at].put(padded(ids), tile, len, self.bg)
            } else {
                self.many[at].put(padded(ids), tile, len, self.bg)
            };
            let (ty, tx) = (t / TILES, t % TILES);
            for c in 0..3 {
                for r in 0..TILE {
                    let o = c * plane + (ty * TILE + r) * SMALL + tx * TILE;
                    px[(c * TILE + r) * TILE..][..TILE].copy_from_slice(&out[o..o + TILE]);
                }
            }
        }
    }
}

/// A box holding every pixel a shape can paint, clipped to the image (None inside: it paints nothing
/// here), or None when its numbers are not finite: the box its painting scans, by construction (a box
/// primitive tests the pixels from the floor of its first corner to the ceiling of its last, a line
/// those of its box grown by half its width; an arrow is its shaft and two barbs). The sprite path
/// paints the same pixels (it translates by whole pixels numbers that are exact in f32).
pub(super) fn paint_bounds(s: &Shape) -> Option<Option<(i32, i32, i32, i32)>> {
    let scan = |b: (f32, f32, f32, f32)| {
        if ![b.0, b.1, b.2, b.3].iter().all(|v| v.is_finite()) {
            return None;
        }
        let (xs, xe, ys, ye) = clip_box(b);
        Some((xs <= xe && ys <= ye).then_some((xs, ys, xe, ye)))
    };
    let segment = |(x0, y0, x1, y1): (f32, f32, f32, f32), width: f32| {
        let half = (width / 2.0).max(0.5);
        (x0.min(x1) - half, y0.min(y1) - half, x0.max(x1) + half, y0.max(y1) + half)
    };
    let join = |a: Option<(i32, i32, i32, i32)>, b: Option<(i32, i32, i32, i32)>| match (a, b) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3))),
        (a, b) => a.or(b),
    };
    match *s {
        Shape::Rect { x0, y0, x1, y1, width, .. }
        | Shape::RoundRect { x0, y0, x1, y1, width, .. }
        | Shape::Ellipse { x0, y0, x1, y1, width, .. } => {
            // (a box drawn backwards scans nothing; its ordered box bounds it all the same)
            [x0, y0, x1, y1, width].iter().all(|v| v.is_finite()).then_some(())?;
            scan((x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)))
        }
        Shape::Line { x0, y0, x1, y1, width, .. } => {
            [x0, y0, x1, y1, width].iter().all(|v| v.is_finite()).then_some(())?;
            scan(segment((x0, y0, x1, y1), width))
        }
        Shape::Arrow { x0, y0, x1, y1, width, tip, .. } => {
            [x0, y0, x1, y1, width, tip].iter().all(|v| v.is_finite()).then_some(())?;
            let mut all = scan(segment((x0, y0, x1, y1), width))?;
            for (bx, by) in arrow_barbs(x0, y0, x1, y1, tip) {
                all = join(all, scan(segment((x1, y1, bx, by), width))?);
            }
            Some(all)
        }
        Shape::Text { .. } => Some(None),
        Shape::Noise { .. } => Some(Some((0, 0, BIG as i32 - 1, BIG as i32 - 1))),
    }
}
