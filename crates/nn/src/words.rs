//! The word vectors of Language Serial Recall (LSR, WorM A3.1): `public/data/lsr/vectors.bin`, made with
//! the word list by `scripts/research/lsr-embeddings.py` (all-MiniLM-L6-v2 reduced to 50-d; the paper used 300-d
//! word2vec, which no registry ships). Row `i` is the vector of word `i` of
//! [`wmlab_core::tasks::lsr::words`]. Built into the binary, so the CLI and the browser worker read the
//! same numbers.

use wmlab_core::tasks::lsr::{NO_WORD, words};

const FILE: &[u8] = include_bytes!("../../../public/data/lsr/vectors.bin");

/// Width of one word vector.
pub const DIM: usize = wmlab_core::networks::WORD_DIM;

/// The vectors, row-major (`words().len()` rows of [`DIM`]).
pub fn table() -> &'static [f32] {
    static TABLE: std::sync::OnceLock<Vec<f32>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| parse(FILE).expect("the shipped word vectors are well formed"))
}

/// Read the `WMLV` file: magic, u32 n, u32 dim, f32 scale, then n·dim int8.
fn parse(b: &[u8]) -> Result<Vec<f32>, String> {
    if b.len() < 16 || &b[..4] != b"WMLV" {
        return Err("not a WMLV word-vector file".into());
    }
    let u = |k: usize| u32::from_le_bytes(b[k..k + 4].try_into().unwrap()) as usize;
    let (n, dim) = (u(4), u(8));
    let scale = f32::from_le_bytes(b[12..16].try_into().unwrap());
    if dim != DIM || b.len() != 16 + n * dim || n != words().len() {
        return Err(format!("{n} vectors of {dim} in {} bytes for {} words", b.len(), words().len()));
    }
    Ok(b[16..].iter().map(|&q| q as i8 as f32 * scale).collect())
}

/// Write the vectors of a step's word slots into `out` (`slots.len() · DIM`): zeros for [`NO_WORD`].
pub fn fill_slots(slots: &[u16], out: &mut [f32]) {
    let t = table();
    for (k, &w) in slots.iter().enumerate() {
        let dst = &mut out[k * DIM..(k + 1) * DIM];
        if w == NO_WORD {
            dst.fill(0.0);
        } else {
            dst.copy_from_slice(&t[w as usize * DIM..(w as usize + 1) * DIM]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_unit_vector_per_word_and_neighbours_make_sense() {
        let t = table();
        assert_eq!(t.len(), words().len() * DIM);
        let row = |w: &str| {
            let i = words().iter().position(|x| *x == w).unwrap();
            &t[i * DIM..(i + 1) * DIM]
        };
        for i in 0..words().len() {
            let n: f32 = t[i * DIM..(i + 1) * DIM].iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!((n - 1.0).abs() < 0.05, "word {i}: norm {n}");
        }
        let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        // Related words are closer than unrelated ones (the vectors carry meaning, not noise).
        assert!(cos(row("king"), row("queen")) > cos(row("king"), row("water")) + 0.2);
        let mut out = vec![1.0; 3 * DIM];
        fill_slots(&[NO_WORD, 0, NO_WORD], &mut out);
        assert!(out[..DIM].iter().all(|&v| v == 0.0) && out[2 * DIM..].iter().all(|&v| v == 0.0));
        assert_eq!(&out[DIM..2 * DIM], &t[..DIM]);
        assert!(parse(b"WMLV").is_err() && parse(&FILE[..100]).is_err());
    }
}
