//! Messages between the Networks page and the networks Web Worker (`crates/nn-worker`): serde JSON in
//! the `json` field of each `{json, bytes?}` message; `bytes` carries checkpoint bundles. Plain data, no
//! IO: defined once here so the page (which must not link burn) and the worker share one definition.

use serde::{Deserialize, Serialize};

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Cmd {
    /// Choose the backend: `auto` (WebGPU if the browser offers it, else CPU), `webgpu`, `cpu`.
    Init { backend: String },
    /// The settings of a named preset (`paper`, `small`, `tiny`) for an architecture and capacity;
    /// answered by `Event::Config`.
    Preset { name: String, arch: String, capacity: usize },
    /// Check a `wmlab_nn::TrainConfig` (JSON) and count its parameters; answered by `Event::Config`.
    Check { config: serde_json::Value },
    /// Start a new run with this `wmlab_nn::TrainConfig` (JSON).
    Start { config: serde_json::Value },
    /// Resume training from the checkpoint in `bytes`.
    Resume { run: bool },
    Pause,
    Continue,
    Stop,
    /// Evaluate the checkpoint in `bytes` (or the current model if none) on `n` test trials per task id.
    Evaluate { n: usize },
    /// Run the neural analyses (Fig. 5, A5, A6, A13) of the checkpoint in `bytes` (or the current model)
    /// on `n` test trials per task id; answered by `Event::Analysis`.
    Analyse { n: usize },
}

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum Event {
    /// The wasm module is running and listens for commands.
    Loaded,
    /// The backend is ready.
    Ready { backend: String, device: String },
    /// A full training configuration and the model's parameter count.
    Config { config: serde_json::Value, params: usize },
    /// One training step done.
    Step { step: usize, steps: usize, loss: f32, ms: f64 },
    /// A validation check (`wmlab_nn::ValReport` as JSON).
    Val { report: serde_json::Value },
    /// A checkpoint bundle in `bytes`: `kind` is `latest` (resume point) or `best` (by validation accuracy).
    Checkpoint { kind: String, step: usize },
    Paused { step: usize },
    Stopped { step: usize },
    Done { step: usize },
    /// Evaluation progress: trials done of total.
    EvalProgress { done: usize, total: usize },
    /// The evaluation's `ResultRecord` (JSON).
    Record { record: serde_json::Value },
    /// Analysis progress: `stage` (`hidden`, `tsne-units`, `tsne-sts`, `lesions`), done of total.
    AnalysisProgress { stage: String, done: usize, total: usize },
    /// The analysis report (`wmlab_core::analysis::NetworkAnalysis` as JSON).
    Analysis { report: serde_json::Value },
    /// Something went wrong; `fatal` means the run stopped (the last checkpoint stays valid).
    Error { message: String, fatal: bool },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_in_the_wire_format() {
        let c: Cmd = serde_json::from_str(r#"{"cmd":"preset","name":"tiny","arch":"gru","capacity":16}"#).unwrap();
        assert_eq!(c, Cmd::Preset { name: "tiny".into(), arch: "gru".into(), capacity: 16 });
        assert_eq!(serde_json::to_string(&Cmd::Pause).unwrap(), r#"{"cmd":"pause"}"#);
        let e = Event::Step { step: 3, steps: 8, loss: 1.5, ms: 2.0 };
        let text = serde_json::to_string(&e).unwrap();
        assert!(text.starts_with(r#"{"ev":"step""#));
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), e);
        assert!(serde_json::from_str::<Cmd>(r#"{"cmd":"explode"}"#).is_err());
    }
}
