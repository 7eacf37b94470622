//! Messages between the Networks page and the networks Web Worker (`crates/nn-worker`): serde JSON in
//! the `json` field of each `{json, bytes?}` message; `bytes` carries checkpoint bundles. Plain data, no
//! IO: defined once here so the page (which must not link burn) and the worker share one definition.
//! The settings, checkpoints and curves they carry are `crate::networks`'.

use serde::{Deserialize, Serialize};

mod backend;
pub mod workers;
pub use backend::{Backend, BackendPick};

use crate::analysis::NetworkAnalysis;
use crate::networks::{CheckpointKind, TrainConfig, ValReport};
use crate::record::ResultRecord;

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Cmd {
    /// Choose the backend.
    Init {
        /// The pick: `Auto` takes WebGPU where the browser gives an adapter, else the CPU (the threaded
        /// worker has the CPU only). Answered by `Event::Ready`, or by a fatal `Event::Error`.
        backend: BackendPick,
    },
    /// Time a fresh run of these settings on `backend` (the worker's WebGPU device, or the CPU): one
    /// warm-up step, then `steps` timed steps; answered by `Event::Probed` with the same `seq`. Nothing
    /// of the probe is kept.
    Probe {
        /// The settings whose model and batch are timed (fitted and checked as for `Start`; their own
        /// `steps` is ignored).
        config: Box<TrainConfig>,
        /// Where to time: the worker's WebGPU device, or the CPU (a fresh flex device beside a WebGPU one).
        backend: Backend,
        /// Timed steps after the warm-up (at least 1; fewer when the worker's time budget for a probe runs out).
        steps: usize,
        /// The page's request number, echoed in `Event::Probed` so that an answer to an older probe is ignored.
        #[serde(default)]
        seq: u64,
    },
    /// Start a new run with these settings.
    Start {
        /// The run's settings: the worker fits them to the trained tasks and checks them (a refusal is a fatal
        /// `Event::Error`). The backend must be initialised.
        config: Box<TrainConfig>,
    },
    /// Resume training from the checkpoint in `bytes`.
    Resume {
        /// Whether to train at once. A run that does not start (this `false`, or every step already done) is
        /// answered by `Event::Paused`, or `Event::Done` when it has finished.
        run: bool,
    },
    /// Stop after the current step: the worker sends a `latest` checkpoint and answers `Event::Paused`;
    /// `Continue` goes on.
    Pause,
    /// Go on training the paused run in the worker (ignored when there is none or it has finished).
    Continue,
    /// End training: as `Pause` (a `latest` checkpoint is sent) but answered by `Event::Stopped`; the page
    /// then offers no `Continue`, only resuming the run stored in the browser.
    Stop,
    /// Evaluate the checkpoint in `bytes` (or the current model if none) on `n` test trials per task id.
    Evaluate {
        /// Fresh test-split trials per trained task id (at least 1).
        n: usize,
    },
    /// Evaluate the checkpoint in `bytes` (or the current model) on the very trials another subject took
    /// (`replay`, from [`crate::people::replay::worm_trials_of`]), those of its trained task ids;
    /// `subject` names whose trials they are. Answered like `Evaluate`.
    EvaluateTrialsOf {
        /// The other subject's trials, as [`crate::people::replay::worm_trials_of`] gathers them.
        replay: Box<crate::people::replay::Replay>,
        /// Whose trials they are; the record keeps it as its `trials_of` setting.
        subject: String,
    },
    /// Run the neural analyses (Fig. 5, A5, A6, A13) of the checkpoint in `bytes` (or the current model)
    /// on `n` test trials per task id; answered by `Event::Analysis`.
    Analyse {
        /// Test-split trials per task id (at least 2).
        n: usize,
    },
    /// Load the checkpoint in `bytes` as an evaluation would (header, checksums, the model it describes,
    /// its weights into that model) without keeping it; answered by `Event::Verified` with the same
    /// `seq`. The page stores a file only once it is verified.
    Verify {
        /// The page's request number, echoed in `Event::Verified` so that the answer finds its file.
        seq: u64,
    },
    /// Test support: the worker panics, as a bug would (the page's browser tests check that it shows a
    /// message and restarts the worker). The page sends it only when `localStorage.wmlab_test` is `1`.
    Crash,
}

fn one() -> usize {
    1
}

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum Event {
    /// The wasm module is running and listens for commands.
    Loaded,
    /// The backend is ready. `threads`: how many threads its kernels run on (more than one only in the
    /// threaded CPU worker, on a cross-origin isolated page).
    Ready {
        /// The backend it runs on (under `Auto`, the CPU when the browser gave no WebGPU adapter).
        backend: Backend,
        /// burn's debug text for the device (the page shows it as a tooltip).
        device: String,
        /// Threads its kernels run on; a worker that does not say is read as single-threaded.
        #[serde(default = "one")]
        threads: usize,
    },
    /// One training step done.
    Step {
        /// Steps done, this one included.
        step: usize,
        /// Steps the run is set to train ([`TrainConfig::steps`]).
        steps: usize,
        /// The step's joint training loss: the sum over trained task ids of each id's mean loss.
        loss: f32,
        /// Wall-clock milliseconds the step took in the worker (a validation check after it not included).
        ms: f64,
    },
    /// The answer to `Cmd::Probe` with the same `seq`.
    Probed {
        /// The probed backend's figure, or why it could not be timed.
        timing: workers::Timing,
        /// The `seq` of the `Cmd::Probe` this answers (0 when absent).
        #[serde(default)]
        seq: u64,
    },
    /// A validation check.
    Val {
        /// The check's losses and accuracies.
        report: ValReport,
    },
    /// A checkpoint bundle in `bytes`.
    Checkpoint {
        /// Whether the bundle is the resume point or the best model so far.
        kind: CheckpointKind,
        /// The step the checkpoint was taken at.
        step: usize,
    },
    /// Training paused (after `Cmd::Pause`, or a resumed run that was not to train at once); `Cmd::Continue`
    /// goes on.
    Paused {
        /// Steps done.
        step: usize,
    },
    /// Training ended by `Cmd::Stop`; a `latest` checkpoint was sent before it.
    Stopped {
        /// Steps done.
        step: usize,
    },
    /// Every step of the run is done (a `latest` checkpoint was sent before it).
    Done {
        /// Steps done (the run's `steps`).
        step: usize,
    },
    /// Evaluation progress: trials done of total.
    EvalProgress {
        /// Trials evaluated so far.
        done: usize,
        /// Trials to evaluate in all (trials per task id × trained ids).
        total: usize,
    },
    /// The evaluation's `ResultRecord` (JSON).
    Record {
        /// The evaluation's result record, with the run's training curve.
        record: Box<ResultRecord>,
    },
    /// Analysis progress: `stage` (`hidden`, `tsne-units`, `tsne-sts`, `lesions`), done of total.
    AnalysisProgress {
        /// The stage running: `hidden` (hidden states), a t-SNE stage, or `lesions`.
        stage: String,
        /// Work done in this stage: trials, or t-SNE iterations (reported every 50).
        done: usize,
        /// Work of the whole stage, in the same unit.
        total: usize,
    },
    /// The analysis report (`wmlab_core::analysis::NetworkAnalysis` as JSON).
    Analysis {
        /// The neural analyses' report.
        report: Box<NetworkAnalysis>,
    },
    /// The answer to `Cmd::Verify` `seq`: `error` says why the checkpoint cannot be used (None: it loads).
    Verified {
        /// The `seq` of the `Cmd::Verify` this answers.
        seq: u64,
        /// Why the checkpoint cannot be used, in plain words; `None` when it loads.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// Something went wrong; `fatal` means the run stopped (the last checkpoint stays valid).
    Error {
        /// What went wrong, in plain words (the page shows it).
        message: String,
        /// Whether training stopped or could not start (a backend, settings or a checkpoint refused); otherwise
        /// the worker goes on.
        fatal: bool,
    },
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
    #[test]
    fn messages_round_trip_in_the_wire_format() {
        let c: Cmd = serde_json::from_str(r#"{"cmd":"init","backend":"cpu"}"#).unwrap();
        assert_eq!(c, Cmd::Init { backend: BackendPick::Cpu });
        assert!(serde_json::from_str::<Cmd>(r#"{"cmd":"init","backend":"tpu"}"#).is_err());
        let c = Cmd::Start { config: Box::new(crate::networks::choices::tests::settings(96, 8)) };
        assert_eq!(serde_json::from_str::<Cmd>(&serde_json::to_string(&c).unwrap()).unwrap(), c);
        let e = Event::Checkpoint { kind: CheckpointKind::Best, step: 4 };
        assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"ev":"checkpoint","kind":"best","step":4}"#);
        let e = Event::Ready { backend: Backend::Cpu, device: "flex".into(), threads: 4 };
        assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"ev":"ready","backend":"cpu","device":"flex","threads":4}"#);
        // A worker that does not say is single-threaded.
        let e: Event = serde_json::from_str(r#"{"ev":"ready","backend":"webgpu","device":"wgpu"}"#).unwrap();
        assert_eq!(e, Event::Ready { backend: Backend::Webgpu, device: "wgpu".into(), threads: 1 });
        assert_eq!(serde_json::to_string(&Cmd::Pause).unwrap(), r#"{"cmd":"pause"}"#);
        let e = Event::Step { step: 3, steps: 8, loss: 1.5, ms: 2.0 };
        let text = serde_json::to_string(&e).unwrap();
        assert!(text.starts_with(r#"{"ev":"step""#));
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), e);
        assert!(serde_json::from_str::<Cmd>(r#"{"cmd":"explode"}"#).is_err());
    }
}
