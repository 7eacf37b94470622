//! Lesions of neural clusters (WorM A4.5, Fig. A6).

/// A per-unit multiplier (1 keep, 0 lesion) that zeroes the units of cluster `c`. `kept` maps label
/// index → unit index (as returned by [`super::tv::normalise_tv`]); unit indices ≥ `units` are ignored.
/// Multiplying the hidden state fed to the task classifiers by this mask is the paper's "zero out their
/// projection weights to task-specific classifiers".
pub fn lesion_mask(units: usize, kept: &[usize], labels: &[usize], c: usize) -> Vec<f32> {
    let mut m = vec![1.0f32; units];
    for (&u, &l) in kept.iter().zip(labels) {
        if l == c && u < units {
            m[u] = 0.0;
        }
    }
    m
}

/// Accuracy drop per cluster per task: `base[task] − lesioned[cluster][task]` (None where either has
/// no accuracy).
pub fn accuracy_drop(base: &[Option<f64>], lesioned: &[Vec<Option<f64>>]) -> Vec<Vec<Option<f64>>> {
    lesioned
        .iter()
        .map(|row| base.iter().enumerate().map(|(t, b)| Some((*b)? - row.get(t).copied().flatten()?)).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lesion_mask_and_drop() {
        let kept = [0, 2, 3, 5];
        let labels = [1, 0, 1, 0];
        assert_eq!(lesion_mask(6, &kept, &labels, 1), vec![0.0, 1.0, 1.0, 0.0, 1.0, 1.0]);
        assert_eq!(lesion_mask(6, &kept, &labels, 0), vec![1.0, 1.0, 0.0, 1.0, 1.0, 0.0]);
        assert_eq!(lesion_mask(6, &kept, &labels, 7), vec![1.0; 6]);
        let d = accuracy_drop(
            &[Some(0.9), None, Some(0.5)],
            &[vec![Some(0.4), Some(0.3), Some(0.5)], vec![Some(0.9), None, None]],
        );
        assert_eq!(d, vec![vec![Some(0.5), None, Some(0.0)], vec![Some(0.0), None, None]]);
    }
}
