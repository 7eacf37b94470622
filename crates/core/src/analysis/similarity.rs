//! Cosine-similarity matrices: task embeddings (Fig. A13, A4.6) and hidden states at the serial positions
//! of VSR presentation averaged over trials (Fig. A5, A4.2).

use serde::{Deserialize, Serialize};

fn cos(a: &[f64], b: &[f64], na: f64, nb: f64) -> f64 {
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    (a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() / (na * nb)).clamp(-1.0, 1.0)
}

fn norm(a: &[f64]) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// Cosine similarity of every pair of rows (symmetric, diagonal 1). A zero row has similarity 0 with
/// everything, itself included.
pub fn cosine_matrix(rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let norms: Vec<f64> = rows.iter().map(|r| norm(r)).collect();
    let n = rows.len();
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        m[i][i] = if norms[i] > 0.0 { 1.0 } else { 0.0 };
        for j in i + 1..n {
            let c = cos(&rows[i], &rows[j], norms[i], norms[j]);
            m[i][j] = c;
            m[j][i] = c;
        }
    }
    m
}

/// Fig. A5: the cosine similarity between the hidden states at serial positions i and j of the same
/// trial, averaged over trials. Streaming: memory O(positions²).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionSimilarity {
    positions: usize,
    sum: Vec<f64>,
    count: Vec<u64>,
}

impl PositionSimilarity {
    /// An empty accumulator for trials of up to `positions` serial positions (items presented).
    pub fn new(positions: usize) -> Self {
        PositionSimilarity { positions, sum: vec![0.0; positions * positions], count: vec![0; positions * positions] }
    }

    /// One trial: `states` row-major [rows × units], row p = the state when item p+1 was presented
    /// (rows beyond `positions` are ignored).
    pub fn add(&mut self, states: &[f32], units: usize, rows: usize) {
        if units == 0 {
            return;
        }
        let rows = rows.min(self.positions).min(states.len() / units);
        let v: Vec<Vec<f64>> =
            (0..rows).map(|r| states[r * units..(r + 1) * units].iter().map(|&x| x as f64).collect()).collect();
        let m = cosine_matrix(&v);
        for (i, row) in m.iter().enumerate() {
            for (j, &c) in row.iter().enumerate() {
                self.sum[i * self.positions + j] += c;
                self.count[i * self.positions + j] += 1;
            }
        }
    }

    /// positions × positions mean similarity; `None` where no trial had both positions.
    pub fn finish(&self) -> Vec<Vec<Option<f64>>> {
        (0..self.positions)
            .map(|i| {
                (0..self.positions)
                    .map(|j| {
                        let c = self.count[i * self.positions + j];
                        (c > 0).then(|| self.sum[i * self.positions + j] / c as f64)
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_matrix_properties() {
        let m = cosine_matrix(&[
            vec![1.0, 0.0, 0.0],
            vec![0.0, 2.0, 0.0],
            vec![1.0, 1.0, 0.0],
            vec![-3.0, 0.0, 0.0],
            vec![0.0; 3],
        ]);
        for (i, row) in m.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                assert_eq!(v, m[j][i]);
            }
            if i < 4 {
                assert!((m[i][i] - 1.0).abs() < 1e-15);
            }
        }
        assert_eq!(m[0][1], 0.0);
        assert!((m[0][2] - 0.5f64.sqrt()).abs() < 1e-12);
        assert!((m[0][3] + 1.0).abs() < 1e-15);
        assert_eq!(m[4], vec![0.0; 5]);
    }

    #[test]
    fn position_similarity_averages_trials() {
        let mut s = PositionSimilarity::new(3);
        s.add(&[1.0, 0.0, 0.0, 1.0], 2, 2); // orthogonal
        s.add(&[1.0, 0.0, 1.0, 0.0, 0.0, 1.0], 2, 3); // identical, then orthogonal
        let m = s.finish();
        assert_eq!(m[0][1], Some(0.5));
        assert_eq!(m[0][0], Some(1.0));
        assert_eq!(m[0][2], Some(0.0));
        assert_eq!(m[2][2], Some(1.0));
        assert_eq!(PositionSimilarity::new(2).finish()[0][1], None);
    }
}
