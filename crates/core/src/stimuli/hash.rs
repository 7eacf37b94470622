//! A small stable hash (FNV-1a, 64 bit) for determinism checks: the same generated batch must hash to the
//! same value natively and in wasm32; and CRC-32, the checksum of gzip, PNG and zip.

use crate::raster;
use crate::task::Trial;

/// CRC-32 (IEEE 802.3: gzip, PNG, zip, reflected, polynomial 0xEDB88320), bytewise with a table built at compile time.
pub fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c = TABLE[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    c ^ 0xFFFF_FFFF
}

/// A running 64-bit FNV-1a hash: start from `Fnv64::default()` (the FNV offset basis), feed bytes with
/// [`Fnv64::write`], read the value with [`Fnv64::finish`]. Platform-independent, unlike `std`'s hashers.
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    /// Fold `bytes` into the hash, one byte at a time (xor, then multiply by the FNV prime).
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// The hash of everything written so far.
    pub fn finish(self) -> u64 {
        self.0
    }
}

/// Hash of a trial's full content: its JSON (display lists, targets, masks, conditions) and the bytes of
/// every rendered 32×32 frame (so the rasterizer is covered too).
pub fn trial_hash(h: &mut Fnv64, trial: &Trial) {
    h.write(serde_json::to_string(trial).expect("trial serialises").as_bytes());
    for s in &trial.steps {
        let t = raster::tensor32(&s.frame);
        h.write(&raster::tensor_to_rgb8(&t));
    }
}
