//! Several models in one run: the comma list a user types (`--model a,b,c` on the CLI, the model field
//! of the LLM page), each model's concurrency, and the progress of all of them as one line.

use std::fmt;

use crate::Progress;

/// Why a list of models cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelListError {
    /// No model named.
    Empty,
    /// A concurrency list that is neither one value nor one per model.
    Concurrency {
        /// Values given.
        given: usize,
        /// Models named.
        models: usize,
    },
    /// A model named twice, or two names that make the same folder name.
    Twice(String),
}

impl fmt::Display for ModelListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelListError::Empty => write!(f, "name a model (or several, comma-separated)"),
            ModelListError::Concurrency { given, models } => {
                write!(f, "{given} values for {models} models; give one for all, or one per model")
            }
            ModelListError::Twice(m) => write!(f, "\"{m}\" is named twice (or two names make one folder name)"),
        }
    }
}

impl std::error::Error for ModelListError {}

/// A model's name as a folder or file name: letters, digits, `.`, `-` and `_` kept, anything else `_`.
pub fn folder_name(model: &str) -> String {
    model.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect()
}

/// Each model of a comma list with its concurrency: `concurrency` is one value for all of them or one
/// per model. Blank items are skipped; a model named twice (by folder name) is refused.
pub fn model_list(models: &str, concurrency: &[usize]) -> Result<Vec<(String, usize)>, ModelListError> {
    let names: Vec<String> = models.split(',').map(|m| m.trim().to_string()).filter(|m| !m.is_empty()).collect();
    if names.is_empty() {
        return Err(ModelListError::Empty);
    }
    let conc: Vec<usize> = match (concurrency.len(), names.len()) {
        (1, n) => vec![concurrency[0]; n],
        (c, n) if c == n => concurrency.to_vec(),
        (given, models) => return Err(ModelListError::Concurrency { given, models }),
    };
    for (i, m) in names.iter().enumerate() {
        if names[..i].iter().any(|x| folder_name(x) == folder_name(m)) {
            return Err(ModelListError::Twice(m.clone()));
        }
    }
    Ok(names.into_iter().zip(conc).collect())
}

impl Progress {
    /// Several runs' progress as one: counts and tokens added, the cost added where any run has one,
    /// the elapsed time and the time left of the slowest, the first wait and batch state shown.
    pub fn sum(parts: &[Progress]) -> Progress {
        let mut t = Progress::default();
        for p in parts {
            t.done += p.done;
            t.total += p.total;
            t.resumed += p.resumed;
            t.failed += p.failed;
            t.requests += p.requests;
            t.cache_hits += p.cache_hits;
            t.retries += p.retries;
            t.tokens_in += p.tokens_in;
            t.tokens_out += p.tokens_out;
            t.turns_done += p.turns_done;
            t.turns_total += p.turns_total;
            t.elapsed_ms = t.elapsed_ms.max(p.elapsed_ms);
            t.eta_ms = match (t.eta_ms, p.eta_ms) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            t.cost = match (t.cost, p.cost) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
            if t.waiting.is_none() {
                t.waiting = p.waiting.clone();
            }
            if t.batch.is_none() {
                t.batch = p.batch.clone();
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_models_with_one_or_each_concurrency() {
        assert_eq!(model_list("a", &[4]).unwrap(), [("a".to_string(), 4)]);
        assert_eq!(
            model_list(" a, b ,,c", &[2]).unwrap(),
            [("a".to_string(), 2), ("b".to_string(), 2), ("c".to_string(), 2)]
        );
        assert_eq!(model_list("a,b", &[1, 8]).unwrap(), [("a".to_string(), 1), ("b".to_string(), 8)]);
        assert_eq!(model_list(" , ", &[4]), Err(ModelListError::Empty));
        assert_eq!(model_list("a,b,c", &[1, 2]), Err(ModelListError::Concurrency { given: 2, models: 3 }));
        assert_eq!(model_list("org/m,org_m", &[1]), Err(ModelListError::Twice("org_m".into())));
        assert_eq!(model_list("a,a", &[1]), Err(ModelListError::Twice("a".into())));
        assert_eq!(folder_name("meta-llama/Llama 3.1:8b"), "meta-llama_Llama_3.1_8b");
    }

    #[test]
    fn progress_of_several_runs_adds_up() {
        let a = Progress {
            done: 3,
            total: 10,
            resumed: 1,
            failed: 1,
            requests: 2,
            tokens_in: 100,
            tokens_out: 10,
            elapsed_ms: 500.0,
            eta_ms: Some(900.0),
            cost: Some(0.5),
            ..Progress::default()
        };
        let b = Progress {
            done: 10,
            total: 10,
            requests: 10,
            cache_hits: 2,
            retries: 3,
            tokens_in: 50,
            elapsed_ms: 800.0,
            batch: Some("batch b in_progress".into()),
            ..Progress::default()
        };
        let s = Progress::sum(&[a.clone(), b]);
        assert_eq!((s.done, s.total, s.resumed, s.failed), (13, 20, 1, 1));
        assert_eq!((s.requests, s.cache_hits, s.retries, s.tokens_in, s.tokens_out), (12, 2, 3, 150, 10));
        assert_eq!((s.elapsed_ms, s.eta_ms, s.cost), (800.0, Some(900.0), Some(0.5)));
        assert_eq!(s.batch.as_deref(), Some("batch b in_progress"));
        assert_eq!(Progress::sum(std::slice::from_ref(&a)), a);
        assert_eq!(Progress::sum(&[]), Progress::default());
    }
}
