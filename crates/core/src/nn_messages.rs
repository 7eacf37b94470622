//! Messages between the Networks page and the networks Web Worker (`crates/nn-worker`): serde JSON in
//! the `json` field of each `{json, bytes?}` message; `bytes` carries checkpoint bundles. Plain data, no
//! IO: defined once here so the page (which must not link burn) and the worker share one definition.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::analysis::NetworkAnalysis;
use crate::chart::{Chart, Role, Series};
use crate::record::ResultRecord;

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Cmd {
    /// Choose the backend: `auto` (WebGPU if the browser offers it, else CPU), `webgpu`, `cpu`.
    Init {
        backend: String,
    },
    /// The settings of a named preset (`quick`, `paper`, `small`, `tiny`) for an architecture and
    /// capacity; answered by `Event::Config` with the same `seq` (see [`SettingsEdits`]).
    Preset {
        name: String,
        arch: String,
        capacity: usize,
        #[serde(default)]
        seq: u64,
    },
    /// Check a `wmlab_nn::TrainConfig` (JSON) and count its parameters; answered by `Event::Config` with
    /// the same `seq`.
    Check {
        config: serde_json::Value,
        #[serde(default)]
        seq: u64,
    },
    /// Start a new run with this `wmlab_nn::TrainConfig` (JSON).
    Start {
        config: serde_json::Value,
    },
    /// Resume training from the checkpoint in `bytes`.
    Resume {
        run: bool,
    },
    Pause,
    Continue,
    Stop,
    /// Evaluate the checkpoint in `bytes` (or the current model if none) on `n` test trials per task id.
    Evaluate {
        n: usize,
    },
    /// Run the neural analyses (Fig. 5, A5, A6, A13) of the checkpoint in `bytes` (or the current model)
    /// on `n` test trials per task id; answered by `Event::Analysis`.
    Analyse {
        n: usize,
    },
}

/// A number JSON wrote as `null` (serde_json writes NaN and ±∞ so) reads back as NaN, so a report with
/// no training loss yet (no steps since the last check) survives a message or a checkpoint.
fn nan_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// Result of one validation check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValReport {
    /// Steps done when the check ran.
    pub step: usize,
    /// Mean training loss since the previous check.
    #[serde(deserialize_with = "nan_if_null")]
    pub train_loss: f64,
    /// Validation loss (mean over validation batches of the joint loss).
    #[serde(deserialize_with = "nan_if_null")]
    pub val_loss: f64,
    /// Accuracy per task id (`{"SC": 0.61, …}`).
    pub accuracy: BTreeMap<String, f64>,
    /// Mean of the per-task accuracies.
    #[serde(deserialize_with = "nan_if_null")]
    pub mean_accuracy: f64,
    /// Learning rate after the check.
    #[serde(deserialize_with = "nan_if_null")]
    pub lr: f64,
    /// Whether this check gave the best mean accuracy so far.
    pub best: bool,
    /// Wall-clock seconds of training when the check ran (set by the caller through
    /// `Trainer::elapsed_s`; the trainer reads no clock). Absent in older checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<f64>,
    /// Accuracy per task id as the test scores it (a person's scoring, [`crate::chance`]), which
    /// for SFR, STS and CS differs from `accuracy` (the reference's training-time measure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored_accuracy: Option<BTreeMap<String, f64>>,
    /// Task ids whose scored validation accuracy is above chance (one-sided exact test, p < 0.01).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub above_chance: Option<usize>,
}

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum Event {
    /// The wasm module is running and listens for commands.
    Loaded,
    /// The backend is ready.
    Ready {
        backend: String,
        device: String,
    },
    /// A full training configuration and the model's parameter count; `seq` is the request's
    /// (`Cmd::Preset` / `Cmd::Check`), 0 when no request asked for it.
    Config {
        config: serde_json::Value,
        params: usize,
        #[serde(default)]
        seq: u64,
    },
    /// One training step done.
    Step {
        step: usize,
        steps: usize,
        loss: f32,
        ms: f64,
    },
    /// A validation check.
    Val {
        report: ValReport,
    },
    /// A checkpoint bundle in `bytes`: `kind` is `latest` (resume point) or `best` (by validation accuracy).
    Checkpoint {
        kind: String,
        step: usize,
    },
    Paused {
        step: usize,
    },
    Stopped {
        step: usize,
    },
    Done {
        step: usize,
    },
    /// Evaluation progress: trials done of total.
    EvalProgress {
        done: usize,
        total: usize,
    },
    /// The evaluation's `ResultRecord` (JSON).
    Record {
        record: Box<ResultRecord>,
    },
    /// Analysis progress: `stage` (`hidden`, `tsne-units`, `tsne-sts`, `lesions`), done of total.
    AnalysisProgress {
        stage: String,
        done: usize,
        total: usize,
    },
    /// The analysis report (`wmlab_core::analysis::NetworkAnalysis` as JSON).
    Analysis {
        report: Box<NetworkAnalysis>,
    },
    /// Something went wrong; `fatal` means the run stopped (the last checkpoint stays valid).
    Error {
        message: String,
        fatal: bool,
    },
}

/// The training settings as the Networks page edits them, kept consistent while requests to the worker
/// are in flight. Choosing a preset, architecture or capacity asks the worker for a whole new
/// configuration ([`SettingsEdits::request`]); answers can arrive after the user has already edited a
/// field (steps, learning rate, …) or asked again. Without care, a late answer overwrites those edits
/// (a run meant to take 2 steps trains 10,000) or an older answer replaces a newer one. Here an answer
/// to an older request is dropped, and the fields edited since the latest request are applied again on
/// top of its answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SettingsEdits {
    /// The latest request's number (requests are numbered from 1).
    seq: u64,
    /// Whether the latest request is still unanswered (edits are recorded while it is).
    open: bool,
    /// Whether the page should show the settings as still changing (cleared by an error too).
    pending: bool,
    /// Fields edited since the latest request, in order.
    edits: Vec<(Vec<String>, serde_json::Value)>,
}

impl SettingsEdits {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new request for a whole configuration: its number, to send with `Cmd::Preset` / `Cmd::Check`.
    /// Edits made before it are the old configuration's and are not carried over.
    pub fn request(&mut self) -> u64 {
        self.seq += 1;
        self.open = true;
        self.pending = true;
        self.edits.clear();
        self.seq
    }

    /// Whether a request is unanswered (the settings shown may still change).
    pub fn pending(&self) -> bool {
        self.pending
    }

    /// The worker reported an error (a settings request it refused, or anything else): stop showing
    /// the settings as changing. Edits are still recorded, should the answer come after all.
    pub fn settle(&mut self) {
        self.pending = false;
    }

    /// Set one field of `config` (a path of object keys) and remember the edit while a request is
    /// unanswered, so its answer keeps it.
    pub fn edit(&mut self, config: &mut serde_json::Value, path: &[&str], value: serde_json::Value) {
        set_path(config, path, value.clone());
        if self.open {
            self.edits.push((path.iter().map(|k| k.to_string()).collect(), value));
        }
    }

    /// The worker's answer `config` to request `seq`: `None` when a newer request is out (drop it),
    /// else the configuration to show, with the fields edited since the request set again. An answer no
    /// request asked for (`seq` 0, e.g. the settings of a resumed checkpoint) replaces everything.
    pub fn answer(&mut self, seq: u64, mut config: serde_json::Value) -> Option<serde_json::Value> {
        if seq == 0 {
            self.open = false;
            self.pending = false;
            self.edits.clear();
            return Some(config);
        }
        if seq != self.seq {
            return None;
        }
        for (path, v) in self.edits.drain(..) {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            set_path(&mut config, &path, v);
        }
        self.open = false;
        self.pending = false;
        Some(config)
    }
}

/// Set `config[path[0]][path[1]]… = value`, making objects on the way where needed.
pub fn set_path(config: &mut serde_json::Value, path: &[&str], value: serde_json::Value) {
    let Some((last, parents)) = path.split_last() else {
        *config = value;
        return;
    };
    let mut node = config;
    for k in parents {
        if !node.get(*k).is_some_and(|v| v.is_object()) {
            node[*k] = serde_json::json!({});
        }
        node = &mut node[*k];
    }
    if !node.is_object() {
        *node = serde_json::json!({});
    }
    node[*last] = value;
}

/// A training run's curves as the Networks page keeps them (saved beside the checkpoints so a reload
/// redraws them): the loss of every step, the validation checks, and the backend that ran them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunCurves {
    pub losses: Vec<(f64, f64)>,
    pub vals: Vec<ValReport>,
    pub backend: String,
}

impl RunCurves {
    /// Loss against step: every training step (thin) and the validation loss at each check (thick).
    pub fn loss_chart(&self) -> Chart {
        let val = self.vals.iter().map(|r| (r.step as f64, r.val_loss)).collect();
        Chart {
            series: vec![
                Series::new("training (per step)", Role::Reference, self.losses.clone()),
                Series::new("validation", Role::Subject, val),
            ],
            ..Chart::new("Loss", "step", "joint loss")
        }
    }

    /// Validation accuracy against step: the mean over tasks (thick) and each of `tasks` (thin).
    pub fn accuracy_chart(&self, tasks: &[&str]) -> Chart {
        let mut series = vec![Series::new(
            "mean of 14",
            Role::Subject,
            self.vals.iter().map(|r| (r.step as f64, r.mean_accuracy)).collect(),
        )];
        for id in tasks {
            let points = self.vals.iter().filter_map(|r| Some((r.step as f64, *r.accuracy.get(*id)?))).collect();
            series.push(Series::new(*id, Role::Reference, points));
        }
        Chart { y_range: Some((0.0, 1.0)), series, ..Chart::new("Validation accuracy per task", "step", "accuracy") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_events_round_trip_through_json_and_a_missing_loss_reads_as_nan() {
        let report = ValReport {
            step: 100,
            train_loss: f64::NAN,
            val_loss: 0.7,
            accuracy: [("SC".to_string(), 0.61), ("VSR".to_string(), 0.2)].into_iter().collect(),
            mean_accuracy: 0.405,
            lr: 1e-4,
            best: true,
            elapsed_s: Some(12.5),
            scored_accuracy: Some([("SC".to_string(), 0.6)].into_iter().collect()),
            above_chance: Some(1),
        };
        let text = serde_json::to_string(&Event::Val { report: report.clone() }).unwrap();
        assert!(text.contains(r#""train_loss":null"#), "{text}");
        let Event::Val { report: back } = serde_json::from_str::<Event>(&text).unwrap() else { panic!() };
        assert!(back.train_loss.is_nan());
        assert_eq!(ValReport { train_loss: 0.0, ..back }, ValReport { train_loss: 0.0, ..report });
        // An older report (Value-shaped, without the newer fields) still reads.
        let old = r#"{"step":5,"train_loss":1.2,"val_loss":1.1,"accuracy":{"CS":0.5},"mean_accuracy":0.5,"lr":0.001,"best":false}"#;
        let r: ValReport = serde_json::from_str(old).unwrap();
        assert_eq!((r.accuracy["CS"], r.scored_accuracy, r.elapsed_s), (0.5, None, None));
        // A record travels typed too.
        let rec = ResultRecord::new(
            crate::record::Subject::Reference { source: "test".into() },
            "VSR",
            crate::record::RunConfig::default(),
        );
        let ev = Event::Record { record: Box::new(rec) };
        assert_eq!(serde_json::from_str::<Event>(&serde_json::to_string(&ev).unwrap()).unwrap(), ev);
    }
    use serde_json::json;

    #[test]
    fn a_late_answer_keeps_the_fields_edited_since_the_request() {
        let mut e = SettingsEdits::new();
        let mut shown = json!({"steps": 300, "lr": 0.001, "model": {"capacity": 96}});
        // The user changes capacity: a request goes out; then edits steps and the model's capacity
        // field before the answer comes.
        let seq = e.request();
        assert!(e.pending());
        e.edit(&mut shown, &["steps"], json!(2));
        assert_eq!(shown["steps"], json!(2), "the edit shows at once");
        e.edit(&mut shown, &["val_every"], json!(2));
        let answer = json!({"steps": 10000, "lr": 0.001, "val_every": 500, "model": {"capacity": 16}});
        let now = e.answer(seq, answer).expect("the latest request's answer is used");
        assert_eq!(now["steps"], json!(2));
        assert_eq!(now["val_every"], json!(2));
        assert_eq!(now["model"]["capacity"], json!(16), "the rest comes from the answer");
        assert!(!e.pending());
        // Edits after the answer are not kept for later answers.
        e.edit(&mut shown, &["steps"], json!(5));
        let seq2 = e.request();
        let now = e.answer(seq2, json!({"steps": 300})).unwrap();
        assert_eq!(now["steps"], json!(300), "a new preset's own values win over edits made before it");
    }

    #[test]
    fn an_answer_to_an_older_request_is_dropped() {
        let mut e = SettingsEdits::new();
        let first = e.request();
        let second = e.request();
        assert_eq!(e.answer(first, json!({"arch": "trf"})), None);
        assert!(e.pending(), "still waiting for the newer answer");
        assert_eq!(e.answer(second, json!({"arch": "gru"})), Some(json!({"arch": "gru"})));
        // An unrequested configuration (a resumed checkpoint's) replaces all.
        let third = e.request();
        let _ = third;
        let mut shown = json!({});
        e.edit(&mut shown, &["steps"], json!(9));
        assert_eq!(e.answer(0, json!({"steps": 1})), Some(json!({"steps": 1})));
        assert!(!e.pending());
    }

    #[test]
    fn an_error_settles_but_a_late_answer_still_keeps_the_edits() {
        let mut e = SettingsEdits::new();
        let seq = e.request();
        e.settle();
        assert!(!e.pending());
        let mut shown = json!({"steps": 300});
        e.edit(&mut shown, &["steps"], json!(7));
        assert_eq!(e.answer(seq, json!({"steps": 10})), Some(json!({"steps": 7})));
    }

    #[test]
    fn set_path_makes_missing_objects() {
        let mut v = json!({"a": 1});
        set_path(&mut v, &["model", "capacity"], json!(16));
        assert_eq!(v, json!({"a": 1, "model": {"capacity": 16}}));
        set_path(&mut v, &["a", "b"], json!(2));
        assert_eq!(v["a"], json!({"b": 2}));
    }

    #[test]
    fn messages_round_trip_in_the_wire_format() {
        let c: Cmd = serde_json::from_str(r#"{"cmd":"preset","name":"tiny","arch":"gru","capacity":16}"#).unwrap();
        assert_eq!(c, Cmd::Preset { name: "tiny".into(), arch: "gru".into(), capacity: 16, seq: 0 });
        assert_eq!(serde_json::to_string(&Cmd::Pause).unwrap(), r#"{"cmd":"pause"}"#);
        let e = Event::Step { step: 3, steps: 8, loss: 1.5, ms: 2.0 };
        let text = serde_json::to_string(&e).unwrap();
        assert!(text.starts_with(r#"{"ev":"step""#));
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), e);
        assert!(serde_json::from_str::<Cmd>(r#"{"cmd":"explode"}"#).is_err());
    }
}
