//! One LLM run's specification ([`LlmRun`]): which suites, with which settings, how many samples of
//! each and how many repeats. The LLM page and `wmlab llm run` only fill one; its samples
//! ([`LlmRun::samples`]) and the settings its record keeps ([`LlmRun::settings`]) are made here, once, so
//! the same run from either side makes the same samples and writes the same settings.
//!
//! Pure: the data some suites need (Minerva's word list and tokenizer, snapshot files, PI-LLM's
//! vocabulary) is read by the caller as [`LlmRun::needs`] says and handed over in a [`SuiteData`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::lrt::LrtConfig;
use super::nback::NbackConfig;
use super::vision::VisionConfig;
use super::{Sample, SuiteError, latent, lrt, minerva, nback, pi, snapshot};
use crate::record::Setting;

/// The published Minerva snapshot: which files, and how many entries of each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotRun {
    /// Task names of [`snapshot::FILES`] (`None` = the paper's set, [`snapshot::in_paper`]).
    pub tasks: Option<Vec<String>>,
    /// Entries per file (0 = all).
    pub per_file: usize,
}

impl SnapshotRun {
    /// The (category, task) files this reads, in [`snapshot::FILES`] order.
    pub fn files(&self) -> Vec<(&'static str, &'static str)> {
        snapshot::FILES
            .iter()
            .copied()
            .filter(|(_, t)| match &self.tasks {
                Some(list) => list.iter().any(|x| x == t),
                None => snapshot::in_paper(t),
            })
            .collect()
    }
}

/// Minerva's generator: tasks, samples per grid cell, seed and the sweep of context lengths, operation
/// steps and instruction wordings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeneratedRun {
    /// Task names (`None` = the paper's set).
    pub tasks: Option<Vec<String>>,
    /// Samples per grid cell (`None` = the paper's).
    pub samples_per_cell: Option<usize>,
    /// Seed of the samples.
    pub seed: u64,
    /// Context lengths in cl100k tokens (one = no sweep; the paper: 4000).
    pub contexts: Vec<usize>,
    /// Operation steps of the stateful tasks (empty = the paper's 200 / 100 / 100).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<usize>,
    /// Instruction wordings (empty = the paper's standard one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<u8>,
}

impl GeneratedRun {
    fn sweep(&self) -> minerva::Sweep {
        minerva::Sweep { contexts: self.contexts.clone(), steps: self.steps.clone(), variants: self.variants.clone() }
    }
}

/// What a run asks of the model: its suites (each `None` when not run), how many samples of each and
/// how many repeats.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LlmRun {
    /// N-back (Gong et al.).
    #[serde(default)]
    pub nback: Option<NbackConfig>,
    /// The Little Retrieval Test and its seed.
    #[serde(default)]
    pub lrt: Option<(LrtConfig, u64)>,
    /// Minerva's published snapshot.
    #[serde(default)]
    pub snapshot: Option<SnapshotRun>,
    /// Minerva's generator.
    #[serde(default)]
    pub generated: Option<GeneratedRun>,
    /// PI-LLM.
    #[serde(default)]
    pub pi: Option<pi::PiConfig>,
    /// The latent-state tasks (Huang et al.).
    #[serde(default)]
    pub latent: Option<latent::LatentConfig>,
    /// The visual suite (runs alone: its record is scored like a person's).
    #[serde(default)]
    pub vision: Option<VisionConfig>,
    /// At most this many samples per suite, spread over its conditions ([`super::spread_slice`]; 0 = all).
    #[serde(default)]
    pub slice: usize,
    /// Each item asked this many times ([`super::with_repeats`]; 0 or 1 = once).
    #[serde(default)]
    pub repeats: u32,
}

/// What a run needs read before its samples can be made ([`LlmRun::needs`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Needs {
    /// Minerva's word list (the generator).
    pub words: bool,
    /// The cl100k tokenizer (the generator).
    pub tokenizer: bool,
    /// These snapshot files, gzipped, by (category, task).
    pub snapshot_files: Vec<(&'static str, &'static str)>,
    /// PI-LLM's vocabulary.
    pub pi_vocabulary: bool,
}

/// The data the caller read for a run ([`Needs`]), borrowed from where it keeps it: only what the run
/// needs must be there.
pub struct SuiteData<'a> {
    /// Minerva's word list.
    pub words: &'a [String],
    /// The cl100k tokenizer.
    pub tokenizer: Option<&'a minerva::Tokenizer>,
    /// Each snapshot file's gzipped bytes, by task name.
    pub snapshot_files: &'a BTreeMap<String, Vec<u8>>,
    /// PI-LLM's vocabulary.
    pub pi_vocabulary: Option<&'a pi::Vocabulary>,
}

/// No snapshot file: what [`SuiteData::default`] lends.
static NO_FILES: BTreeMap<String, Vec<u8>> = BTreeMap::new();

impl Default for SuiteData<'_> {
    /// Nothing read: enough for a run whose [`LlmRun::needs`] are empty.
    fn default() -> Self {
        SuiteData { words: &[], tokenizer: None, snapshot_files: &NO_FILES, pi_vocabulary: None }
    }
}

impl LlmRun {
    /// The suites run, as a label (`nback+lrt`): the record's task and `suites` setting.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        for (on, name) in [
            (self.nback.is_some(), "nback"),
            (self.lrt.is_some(), "lrt"),
            (self.pi.is_some(), "pi-llm"),
            (self.latent.is_some(), "latent"),
            (self.snapshot.is_some(), "minerva-snapshot"),
            (self.generated.is_some(), "minerva"),
            (self.vision.is_some(), "worm-vision"),
        ] {
            if on {
                parts.push(name);
            }
        }
        parts.join("+")
    }

    /// Refuse repeats the run cannot take, in words: outside 1 to [`super::MAX_REPEATS`], or more than
    /// one of the visual suite. (Each suite's own settings were checked when its config was made.)
    pub fn check(&self) -> Result<(), SuiteError> {
        if !(1..=super::MAX_REPEATS).contains(&self.repeats) {
            return Err(SuiteError::Repeats(self.repeats));
        }
        if self.repeats > 1 && self.vision.is_some() {
            return Err(SuiteError::VisionRepeats);
        }
        Ok(())
    }

    /// What must be read before [`LlmRun::samples`].
    pub fn needs(&self) -> Needs {
        Needs {
            words: self.generated.is_some(),
            tokenizer: self.generated.is_some(),
            snapshot_files: self.snapshot.as_ref().map(SnapshotRun::files).unwrap_or_default(),
            pi_vocabulary: self.pi.is_some(),
        }
    }

    /// Every suite's samples in the order the label names them: each cut to `slice` spread over its
    /// conditions, then repeated `repeats` times. The snapshot reads no more files than the slice needs.
    pub fn samples(&self, data: &SuiteData) -> Result<Vec<Sample>, SuiteError> {
        let cap = |v: Vec<Sample>| super::with_repeats(super::spread_slice(v, self.slice), self.repeats);
        let missing = |what: &str| SuiteError::Data(format!("{what} was not read"));
        let mut all = Vec::new();
        if let Some(c) = &self.nback {
            all.extend(cap(nback::samples(c)));
        }
        if let Some((c, seed)) = &self.lrt {
            all.extend(cap(lrt::samples(c, *seed)));
        }
        if let Some(c) = &self.pi {
            let vocab = data.pi_vocabulary.ok_or_else(|| missing("the PI-LLM vocabulary"))?;
            all.extend(cap(pi::samples(vocab, c)?));
        }
        if let Some(c) = &self.latent {
            all.extend(cap(latent::samples(c)?));
        }
        if let Some(s) = &self.snapshot {
            let mut v = Vec::new();
            for (category, task) in s.files() {
                if self.slice > 0 && v.len() >= self.slice {
                    break;
                }
                let gz = data.snapshot_files.get(task).ok_or_else(|| missing(&format!("snapshot file {task}")))?;
                let mut entries = snapshot::parse_gz_file(category, task, gz)
                    .map_err(|e| SuiteError::Data(format!("Minerva snapshot {task}: {e}")))?;
                if s.per_file > 0 {
                    entries.truncate(s.per_file);
                }
                v.extend(entries);
            }
            all.extend(cap(v));
        }
        if let Some(g) = &self.generated {
            let tok = data.tokenizer.ok_or_else(|| missing("the cl100k tokenizer"))?;
            if data.words.is_empty() {
                return Err(missing("Minerva's word list"));
            }
            let cfg = minerva::MinervaConfig {
                seed: g.seed,
                context_tokens: g.contexts.first().copied().unwrap_or(4000),
                tasks: g.tasks.clone(),
                samples_per_cell: g.samples_per_cell,
                ..Default::default()
            };
            all.extend(cap(minerva::generate_sweep(&cfg, &g.sweep(), data.words, tok)));
        }
        if let Some(c) = &self.vision {
            all.extend(cap(super::vision::samples(c)?));
        }
        Ok(all)
    }

    /// What the record keeps of the run, the same from the page and the CLI: `suites`, `slice`,
    /// `repeats` (when above 1), and each suite's settings (`nback_*`, `lrt_*`, `minerva_*`, `pi_*`,
    /// `latent_*`, the visual suite's `vision_*` and task parameters).
    pub fn settings(&self) -> Vec<(String, Setting)> {
        let mut s: Vec<(String, Setting)> =
            vec![("suites".into(), Setting::Text(self.label())), ("slice".into(), Setting::Int(self.slice as i64))];
        if self.repeats > 1 {
            s.push(("repeats".into(), Setting::Int(self.repeats as i64)));
        }
        let list = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        if let Some(c) = &self.nback {
            s.push(("nback_variant".into(), Setting::Text(c.variant.as_str().into())));
            s.push(("nback_protocol".into(), Setting::Text(c.options.protocol.as_str().into())));
            s.push(("nback_history".into(), Setting::Text(c.options.history.name())));
            let ns: Vec<String> = c.ns.iter().map(u8::to_string).collect();
            s.push(("nback_n".into(), Setting::Text(ns.join(","))));
            if let Some(k) = c.limit {
                s.push(("nback_blocks_per_n".into(), Setting::Int(k as i64)));
            }
            match c.source {
                nback::BlockSource::Published => s.push(("nback_blocks".into(), Setting::Text("published".into()))),
                nback::BlockSource::Generated { count, seed, .. } => {
                    s.push(("nback_blocks".into(), Setting::Text(format!("generated {count} per N"))));
                    s.push(("nback_seed".into(), Setting::Int(seed as i64)));
                }
            }
        }
        if let Some((c, seed)) = &self.lrt {
            s.push(("lrt_lines".into(), Setting::Text(list(&c.lines))));
            s.push(("lrt_tests".into(), Setting::Int(c.tests_per_size as i64)));
            let orders: Vec<String> = c.orders.iter().map(|o| o.slug()).collect();
            s.push(("lrt_orders".into(), Setting::Text(orders.join(","))));
            s.push(("lrt_insertion".into(), Setting::Text(c.insertion.as_str().into())));
            s.push(("lrt_seed".into(), Setting::Int(*seed as i64)));
        }
        if let Some(c) = &self.snapshot {
            let files: Vec<&str> = c.files().iter().map(|f| f.1).collect();
            s.push(("minerva_snapshot_files".into(), Setting::Text(files.join(","))));
            s.push(("minerva_snapshot_per_file".into(), Setting::Int(c.per_file as i64)));
        }
        if let Some(g) = &self.generated {
            if let Some(t) = &g.tasks {
                s.push(("minerva_tasks".into(), Setting::Text(t.join(","))));
            }
            if let Some(n) = g.samples_per_cell {
                s.push(("minerva_samples_per_cell".into(), Setting::Int(n as i64)));
            }
            s.push(("minerva_context_tokens".into(), Setting::Int(g.contexts.first().copied().unwrap_or(4000) as i64)));
            if g.contexts.len() > 1 {
                s.push(("minerva_context_sweep".into(), Setting::Text(list(&g.contexts))));
            }
            if !g.steps.is_empty() {
                s.push(("minerva_steps".into(), Setting::Text(list(&g.steps))));
            }
            if !g.variants.is_empty() {
                let v: Vec<String> = g.variants.iter().map(u8::to_string).collect();
                s.push(("minerva_prompt_variants".into(), Setting::Text(v.join(","))));
            }
            s.push(("minerva_seed".into(), Setting::Int(g.seed as i64)));
        }
        if let Some(c) = &self.pi {
            s.extend(c.settings().into_iter().map(|(k, v)| (k.to_string(), v)));
        }
        if let Some(c) = &self.latent {
            s.extend(c.settings().into_iter().map(|(k, v)| (k.to_string(), v)));
        }
        if let Some(c) = &self.vision {
            s.extend(c.settings());
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_of_several_suites_makes_their_samples_and_names_its_settings() {
        let lrt = LrtConfig { lines: vec![20], tests_per_size: 3, ..Default::default() };
        let latent = latent::LatentConfig { range: 3, trials: 1, questions: 4, ..Default::default() };
        let run = LlmRun { lrt: Some((lrt, 7)), latent: Some(latent), slice: 2, repeats: 2, ..Default::default() };
        assert_eq!(run.label(), "lrt+latent");
        assert_eq!(run.check(), Ok(()));
        assert_eq!(LlmRun { repeats: 0, ..run.clone() }.check(), Err(SuiteError::Repeats(0)));
        assert_eq!(LlmRun { repeats: 101, ..run.clone() }.check(), Err(SuiteError::Repeats(101)));
        let vision = Some(VisionConfig::new(
            vec![crate::people::StudyTask::Worm(crate::TaskId::Vsr)],
            super::super::vision::Render::Text,
        ));
        assert_eq!(LlmRun { vision, ..run.clone() }.check(), Err(SuiteError::VisionRepeats));
        assert_eq!(run.needs(), Needs::default(), "neither suite reads a file");
        let ss = run.samples(&SuiteData::default()).unwrap();
        // two of each suite, each asked twice
        assert_eq!(ss.len(), 8);
        assert_eq!(ss.iter().filter(|s| s.suite == crate::llm::Suite::Lrt).count(), 4);
        assert!(ss.iter().filter(|s| s.epoch == 2).all(|s| s.id.ends_with("@r2")));
        let s: BTreeMap<String, Setting> = run.settings().into_iter().collect();
        assert_eq!(s["suites"], Setting::Text("lrt+latent".into()));
        assert_eq!((s["slice"].clone(), s["repeats"].clone()), (Setting::Int(2), Setting::Int(2)));
        assert_eq!(s["lrt_lines"], Setting::Text("20".into()));
        assert_eq!(s["lrt_seed"], Setting::Int(7));
        assert_eq!(s["latent_range"], Setting::Int(3));
        assert!(s.keys().all(|k| !crate::record::credential_like(k)));
        // the same run, written and read back (the page saves it so), gives the same samples
        let back: LlmRun = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
        assert_eq!(back.samples(&SuiteData::default()).unwrap(), ss);
    }

    #[test]
    fn data_a_suite_needs_is_asked_for_and_its_absence_said() {
        let run = LlmRun {
            pi: Some(pi::PiConfig { keys: 2, updates: vec![2], sessions: 1, ..Default::default() }),
            snapshot: Some(SnapshotRun { tasks: Some(vec!["key_value_search".into()]), per_file: 1 }),
            ..Default::default()
        };
        let needs = run.needs();
        assert!(needs.pi_vocabulary && !needs.words);
        assert_eq!(needs.snapshot_files.iter().map(|f| f.1).collect::<Vec<_>>(), ["key_value_search"]);
        let e = run.samples(&SuiteData::default()).unwrap_err().to_string();
        assert!(e.contains("PI-LLM vocabulary was not read"), "{e}");
        let generated = LlmRun {
            generated: Some(GeneratedRun {
                tasks: None,
                samples_per_cell: Some(1),
                seed: 0,
                contexts: vec![500],
                steps: vec![],
                variants: vec![],
            }),
            ..Default::default()
        };
        assert!(generated.needs().words && generated.needs().tokenizer);
        assert!(generated.samples(&SuiteData::default()).unwrap_err().to_string().contains("tokenizer"));
    }
}
