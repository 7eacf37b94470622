//! The fast hashes the caches key on (FxHash, and a frame's words).

#[allow(unused_imports)]
use super::*;

/// A fast hasher for the sprite cache's small keys (SipHash, the default, was a tenth of drawing a grid).
#[derive(Default)]
pub(super) struct FxHasher(u64);
impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("chunks of 8 bytes")));
        }
        for &b in chunks.remainder() {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_i32(&mut self, v: i32) {
        self.write_u64(v as u32 as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = fx_mix(self.0, v);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
pub(super) type FxBuild = std::hash::BuildHasherDefault<FxHasher>;

/// One step of FxHash (rustc's hasher): fold a word into the state.
#[inline]
pub(super) fn fx_mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95)
}

/// FxHash-style hashing of words (as rustc's hasher), four lanes at a time so the multiplies overlap.
/// Only for lookups whose hits are confirmed by comparing keys.
pub(super) fn fx(words: &[u32]) -> u64 {
    let mut h = [0u64, 1, 2, 3];
    let mut chunks = words.chunks_exact(4);
    for c in &mut chunks {
        for i in 0..4 {
            h[i] = fx_mix(h[i], c[i] as u64);
        }
    }
    let mut t = fx_mix(0, h[0] ^ h[1].rotate_left(16) ^ h[2].rotate_left(32) ^ h[3].rotate_left(48));
    for &w in chunks.remainder() {
        t = fx_mix(t, w as u64);
    }
    fx_mix(t, words.len() as u64)
}
