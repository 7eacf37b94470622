//! The Networks page's state: one `Copy` bundle of signals ([`Net`]) with the worker's events and the
//! page's actions as methods, so the sections (settings, files, evaluation) share it without threading
//! thirty signals through props. The settings are typed ([`TrainConfig`]); what a field accepts, the
//! presets, the checks and the parameter count are the core's (`networks::{Field, Edit, TrainConfig}`),
//! where native tests reach them: the page settles every edit at once, without asking the worker.

use leptos::prelude::*;
use wmlab_core::analysis::NetworkAnalysis;
use wmlab_core::networks::{
    Arch, BundleHeader, CheckpointKind, Edit, ModelCard, Preset, RunCurves, SettingsError, TrainConfig,
};
use wmlab_core::nn_protocol::workers::{
    Action, Browser, Do, Launch, ProbeCache, ProbeOutcome, Slot, WorkerChoice, probe_key,
};
use wmlab_core::nn_protocol::{Backend, BackendPick};
use wmlab_core::record::ResultRecord;

use crate::app::AppState;
use crate::platform::nn_worker::{self as nnw, Cmd, Event, NnWorker};
use crate::platform::web;
use wmlab_app::storage::{LocalStorage, Store, keys};

/// Where the page keeps the run's curves in IndexedDB (beside the checkpoints).
pub const RUN_KEY: &str = "nn/run";
/// Timed steps per backend in a probe (after one warm-up step).
const PROBE_STEPS: usize = 3;
/// Kept points of the per-step loss curve (older points are thinned by half when exceeded).
const MAX_LOSS_POINTS: usize = 3000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The worker is loading or initialising its backend.
    Starting,
    /// Under Auto, before a run: a few steps of its model timed on each backend.
    Probing,
    Ready,
    Training,
    Paused,
    Stopped,
    Done,
    Failed,
}

impl Phase {
    /// The page's `data-phase` (tests wait on it).
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Probing => "probing",
            Phase::Ready => "ready",
            Phase::Training => "training",
            Phase::Paused => "paused",
            Phase::Stopped => "stopped",
            Phase::Done => "done",
            Phase::Failed => "failed",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Phase::Starting => "Starting the training worker…",
            Phase::Probing => "Timing a few steps of this model on each backend…",
            Phase::Ready => "Ready.",
            Phase::Training => "Training…",
            Phase::Paused => "Paused.",
            Phase::Stopped => "Stopped.",
            Phase::Done => "Finished.",
            Phase::Failed => "The training worker is not available.",
        }
    }
    /// The worker is busy with a run (or starting): settings and files are locked.
    pub fn busy(self) -> bool {
        matches!(self, Phase::Training | Phase::Starting | Phase::Probing)
    }
}

#[derive(Clone, Copy)]
pub struct Net {
    pub phase: RwSignal<Phase>,
    pub error: RwSignal<Option<String>>,
    pub notice: RwSignal<Option<String>>,
    pub backend_pick: RwSignal<BackendPick>,
    pub backend: RwSignal<Option<Backend>>,
    pub device: RwSignal<String>,
    /// The threads the worker's kernels run on (its `Ready`).
    pub threads: RwSignal<usize>,
    /// Which worker runs (the single-threaded or the threaded CPU one): decided in the core.
    choice: StoredValue<WorkerChoice>,
    /// The backend the running worker was last asked for (`Init`).
    init_pick: StoredValue<BackendPick>,
    /// A run being started under Auto: the backends' probe, then the start (decided in the core).
    launch: StoredValue<Option<Launch>>,
    probe_seq: StoredValue<u64>,
    /// The backends' figures behind Auto's choice for the latest run (measured, or from this browser's
    /// store).
    pub probe: RwSignal<Option<ProbeOutcome>>,
    /// Whether `probe` was measured for this run (false: read from the store).
    pub probe_measured: RwSignal<bool>,
    pub arch: RwSignal<Arch>,
    pub capacity: RwSignal<String>,
    pub preset: RwSignal<Preset>,
    /// The settings in use (`None` only before the page has made the first preset's).
    pub config: RwSignal<Option<TrainConfig>>,
    /// The JSON box's text: the settings, or what the user typed there that did not read.
    pub config_text: RwSignal<String>,
    pub step: RwSignal<usize>,
    pub steps: RwSignal<usize>,
    pub ms_per_step: RwSignal<Option<f64>>,
    pub curves: RwSignal<RunCurves>,
    /// The stored resume point's header.
    pub saved: RwSignal<Option<BundleHeader>>,
    pub has_best: RwSignal<bool>,
    pub eval_n: RwSignal<String>,
    pub eval_progress: RwSignal<Option<(usize, usize)>>,
    /// The history entry whose trials "Evaluate on these trials" takes (its id; empty: none chosen).
    pub trials_of: RwSignal<String>,
    pub record: RwSignal<Option<ResultRecord>>,
    /// Neural analyses (Fig. 5, A5, A6, A13): trials per task, progress (stage, done, total), the report.
    pub analyse_n: RwSignal<String>,
    pub analyse_progress: RwSignal<Option<(String, usize, usize)>>,
    pub analysis: RwSignal<Option<NetworkAnalysis>>,
    /// Shipped pretrained models (`models/index.json`), the one picked, whether its weights are loading.
    pub pretrained: RwSignal<Vec<ModelCard>>,
    pub pretrained_pick: RwSignal<usize>,
    pub pretrained_loading: RwSignal<bool>,
    worker: StoredValue<Option<NnWorker>>,
    /// A checkpoint file waiting for the worker's `Verified` before it is stored: the request's number,
    /// the file's name and bytes, and its header.
    pending: StoredValue<Option<(u64, String, Vec<u8>, BundleHeader)>>,
    verify_seq: StoredValue<u64>,
    /// Whether the running worker has said `Loaded` (before it, messages to it are lost).
    worker_loaded: StoredValue<bool>,
    /// The app's state (an evaluation opens in Results).
    pub app: AppState,
}

fn thin(v: &mut Vec<(f64, f64)>) {
    if v.len() > MAX_LOSS_POINTS {
        *v = v.chunks(2).map(|c| (c[0].0, c.iter().map(|p| p.1).sum::<f64>() / c.len() as f64)).collect();
    }
}

impl Net {
    pub fn new() -> Net {
        // A pick carried over a reload the page made itself, else the one the user chose last time.
        let remembered = LocalStorage.get(keys::NN_BACKEND).and_then(|v| BackendPick::parse(&v));
        let pick = nnw::take_pick_after_reload().or(remembered).unwrap_or(BackendPick::Auto);
        Net {
            phase: RwSignal::new(Phase::Starting),
            error: RwSignal::new(None),
            notice: RwSignal::new(None),
            backend_pick: RwSignal::new(pick),
            init_pick: StoredValue::new(pick),
            launch: StoredValue::new(None),
            probe_seq: StoredValue::new(0),
            probe: RwSignal::new(None),
            probe_measured: RwSignal::new(false),
            backend: RwSignal::new(None),
            device: RwSignal::new(String::new()),
            threads: RwSignal::new(1),
            choice: StoredValue::new(WorkerChoice::new(Browser {
                isolated: nnw::cross_origin_isolated(),
                webgpu: nnw::has_webgpu(),
            })),
            // The quick preset's measured best (docs/learning.md): the causal Transformer, 96 units.
            arch: RwSignal::new(Arch::Trf),
            capacity: RwSignal::new("96".into()),
            preset: RwSignal::new(Preset::Quick),
            config: RwSignal::new(None),
            config_text: RwSignal::new(String::new()),
            step: RwSignal::new(0),
            steps: RwSignal::new(0),
            ms_per_step: RwSignal::new(None),
            curves: RwSignal::new(RunCurves::default()),
            saved: RwSignal::new(None),
            has_best: RwSignal::new(false),
            eval_n: RwSignal::new(default_eval_n().to_string()),
            eval_progress: RwSignal::new(None),
            trials_of: RwSignal::new(String::new()),
            record: RwSignal::new(None),
            analyse_n: RwSignal::new("10".into()),
            analyse_progress: RwSignal::new(None),
            analysis: RwSignal::new(None),
            pretrained: RwSignal::new(Vec::new()),
            pretrained_pick: RwSignal::new(0),
            pretrained_loading: RwSignal::new(false),
            worker: StoredValue::new(None),
            pending: StoredValue::new(None),
            verify_seq: StoredValue::new(0),
            worker_loaded: StoredValue::new(false),
            app: expect_context::<AppState>(),
        }
    }

    pub fn send(self, cmd: Cmd, bytes: Option<&[u8]>) {
        self.worker.with_value(|w| {
            if let Some(w) = w {
                w.send(&cmd, bytes)
            }
        })
    }

    /// Whether a model is there to evaluate or analyse (a stored run or best checkpoint).
    pub fn has_model(self) -> bool {
        self.saved.with(Option::is_some) || self.has_best.get()
    }

    // ---- settings ----

    /// The chosen preset's settings for the chosen memory and capacity become the settings in use.
    pub fn apply_preset(self) {
        let cap = self.capacity.get_untracked().trim().parse::<usize>().unwrap_or(0);
        if cap == 0 {
            self.error.set(Some("Capacity must be a whole number above 0 (the paper uses 96, 256 and 1024).".into()));
            return;
        }
        let (preset, arch) = (self.preset.get_untracked(), self.arch.get_untracked());
        self.settle(TrainConfig::preset(preset, arch, cap));
    }

    /// `c`, fitted to its tasks, becomes the settings in use if it can be trained; otherwise the reason
    /// is shown and the settings in use stay.
    fn settle(self, mut c: TrainConfig) {
        c.fit_edited();
        match c.check() {
            Ok(()) => {
                self.error.set(None);
                self.show(c);
            }
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }

    /// Show `c` as the settings in use.
    fn show(self, c: TrainConfig) {
        self.steps.set(c.steps);
        self.config_text.set(c.to_json_pretty());
        self.config.set(Some(c));
    }

    /// A person's edit of one field or option: the settings in use with it, if they can be trained.
    pub fn edit(self, edit: Result<Edit, SettingsError>) {
        match edit {
            Ok(e) => {
                let Some(mut c) = self.config.get_untracked() else { return };
                e.apply(&mut c);
                self.settle(c);
            }
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }

    /// Settings typed or pasted as JSON.
    pub fn apply_json(self, text: &str) {
        match TrainConfig::from_json(text) {
            Ok(c) => self.settle(c),
            Err(e) => self.error.set(Some(e.to_string())),
        }
    }

    // ---- the worker ----

    pub fn on_event(self, ev: Event, bytes: Option<Vec<u8>>) {
        // A message the worker sent before the page was left (and the worker stopped) can still be
        // delivered after the page's signals are gone: nothing is left to update.
        if self.phase.is_disposed() {
            return;
        }
        match ev {
            Event::Loaded => {
                self.worker_loaded.set_value(true);
                self.send(Cmd::Init { backend: self.init_pick.get_value() }, None);
                // A file chosen before this worker could read messages (they are lost until it has
                // loaded), or sent to a worker since replaced (Auto's probing, a backend switch, a
                // threaded worker giving way): this one checks it.
                self.pending.with_value(|p| {
                    if let Some((seq, _, buf, _)) = p {
                        self.send(Cmd::Verify { seq: *seq }, Some(buf));
                    }
                });
            }
            Event::Ready { backend, device, threads } => {
                let launching = self.launch.with_value(Option::is_some);
                // Auto in a browser whose `navigator.gpu` gave no adapter may move to the threaded worker
                // (a launch moves between workers itself).
                let pick = self.init_pick.get_value();
                if !launching
                    && let Some(Action::Switch { threaded }) = self.choice.try_update_value(|c| c.ready(pick, backend))
                {
                    self.switch_worker(threaded);
                    return;
                }
                self.backend.set(Some(backend));
                self.device.set(device);
                self.threads.set(threads);
                if launching {
                    // Asked for WebGPU, the single-threaded worker came up on its CPU: no adapter.
                    if backend == Backend::Cpu && !self.choice.with_value(WorkerChoice::threaded) {
                        self.launch.update_value(|l| {
                            if let Some(l) = l.as_mut().filter(|l| l.probing() == Some(Backend::Webgpu)) {
                                l.unavailable("the browser gave no WebGPU adapter");
                            }
                        });
                    }
                    self.phase.set(Phase::Probing);
                    return self.drive_launch(Some(backend));
                }
                if self.phase.get_untracked() == Phase::Starting {
                    self.phase.set(Phase::Ready);
                }
            }
            Event::Step { step, steps, loss, ms } => {
                self.step.set(step);
                self.steps.set(steps);
                self.ms_per_step.update(|m| *m = Some(m.map_or(ms, |old| 0.9 * old + 0.1 * ms)));
                self.curves.update(|c| {
                    c.losses.push((step as f64, loss as f64));
                    thin(&mut c.losses);
                });
            }
            Event::Probed { timing, seq } => {
                if seq != self.probe_seq.get_value() {
                    return;
                }
                self.launch.update_value(|l| {
                    if let Some(l) = l {
                        l.probed(timing)
                    }
                });
                self.drive_launch(self.backend.get_untracked());
            }
            Event::Val { report } => self.curves.update(|c| c.vals.push(report)),
            Event::Checkpoint { kind, .. } => {
                if let Some(b) = bytes {
                    self.persist(kind, b);
                }
            }
            Event::Paused { step } => self.halt(step, Phase::Paused),
            Event::Stopped { step } => self.halt(step, Phase::Stopped),
            Event::Done { step } => {
                self.halt(step, Phase::Done);
                self.notice.set(Some("Training finished. Evaluate the best model below.".into()));
            }
            Event::EvalProgress { done, total } => self.eval_progress.set(Some((done, total))),
            Event::Record { record } => {
                self.eval_progress.set(None);
                let mut r = *record;
                r.created = Some(web::now_iso());
                // Analyses of the same model made before this evaluation stay with its record.
                r.analyses = self.analysis.with_untracked(|a| a.as_ref().and_then(|a| serde_json::to_value(a).ok()));
                crate::platform::history::add_later(r.clone());
                self.record.set(Some(r));
            }
            Event::AnalysisProgress { stage, done, total } => self.analyse_progress.set(Some((stage, done, total))),
            Event::Analysis { report } => {
                self.analyse_progress.set(None);
                // Saved into the evaluation's record too (travels in exports; dropped from share links).
                if let Ok(v) = serde_json::to_value(&*report) {
                    self.record.update(|r| {
                        if let Some(r) = r {
                            r.analyses = Some(v);
                        }
                    });
                }
                self.analysis.set(Some(*report));
            }
            Event::Verified { seq, error } => {
                let Some(Some((_, name, buf, header))) =
                    self.pending.try_update_value(|p| p.take_if(|(s, ..)| *s == seq))
                else {
                    return;
                };
                match error {
                    None => self.store_bundle(name, buf, header),
                    Some(e) => {
                        self.notice.set(None);
                        self.error.set(Some(format!("{name} is not a usable checkpoint: {e}")));
                    }
                }
            }
            Event::Error { message, fatal } => {
                if fatal {
                    self.launch.set_value(None);
                }
                self.eval_progress.set(None);
                self.analyse_progress.set(None);
                let phase = self.phase.get_untracked();
                if fatal && phase.busy() {
                    self.phase.set(if phase == Phase::Starting { Phase::Failed } else { Phase::Stopped });
                }
                self.error.set(Some(message));
            }
        }
    }

    fn halt(self, step: usize, phase: Phase) {
        self.step.set(step);
        self.phase.set(phase);
    }

    /// Keep a checkpoint and the curves; a failure (storage full, private mode) is reported, not fatal.
    fn persist(self, kind: CheckpointKind, bytes: Vec<u8>) {
        match kind {
            CheckpointKind::Best => self.has_best.set(true),
            CheckpointKind::Latest => {
                if let Ok((h, _)) = BundleHeader::read(&bytes) {
                    self.saved.set(Some(h));
                }
            }
        }
        let curves = serde_json::to_string(&self.curves.get_untracked()).unwrap_or_default();
        nnw::store_checkpoint(kind, bytes, curves, self.notice);
    }

    /// Start the worker for the backend pick (its events come to [`Net::on_event`]): the threaded CPU
    /// worker where the pick and the page allow it, else the WebGPU one (with its one-thread CPU).
    pub fn start_worker(self) {
        let pick = self.backend_pick.get_untracked();
        let threaded = self.choice.try_update_value(|c| c.start(pick)).unwrap_or(false);
        self.spawn_worker(threaded);
    }

    /// The running worker failed: the core says whether another worker takes over (a threaded worker
    /// that could not start gives way to the single-threaded one) or the page shows the error.
    /// `error` is the page's text for a failure that no other worker takes over.
    fn worker_failed(self, message: String, error: String) {
        // A worker's error event can come after the page was left (and its signals are gone).
        if self.phase.is_disposed() {
            return;
        }
        // A run being launched is not started: Train again plans afresh with what was learnt here.
        if self.launch.try_update_value(Option::take).flatten().is_some() {
            self.phase.set(Phase::Starting);
        }
        let starting = self.phase.get_untracked() == Phase::Starting;
        match self.choice.try_update_value(|c| c.failed(starting)) {
            Some(Action::Switch { threaded }) => {
                // A browser or host where the threaded worker cannot start (no module workers, the file
                // missing): the single-threaded one still trains.
                self.stop_worker();
                self.notice.set(Some(format!(
                    "The multi-threaded CPU worker could not start ({message}); the CPU runs on one thread."
                )));
                self.spawn_worker(threaded);
            }
            // A worker that was running died (a bug: a panic in the wasm): a fresh one takes over, as
            // after Cancel; the checkpoints live in IndexedDB and are untouched.
            _ if !starting => {
                self.error.set(Some(format!(
                    "{error} A fresh worker was started; the saved checkpoints are kept (resume or evaluate \
                     them again)."
                )));
                self.restart_worker();
            }
            _ => {
                self.error.set(Some(error));
                self.phase.set(Phase::Failed);
            }
        }
    }

    /// Ask the worker to load `buf` as an evaluation would; [`Event::Verified`] then stores it (or
    /// says why not).
    pub(super) fn verify_then_store(self, name: String, buf: Vec<u8>, header: BundleHeader) {
        let seq = self.verify_seq.try_update_value(|s| {
            *s += 1;
            *s
        });
        let Some(seq) = seq else { return };
        // A worker still loading would lose the message: it is sent when the worker says `Loaded`.
        if self.worker_loaded.get_value() {
            self.send(Cmd::Verify { seq }, Some(&buf));
        }
        self.notice.set(Some(format!("Checking {name} (its weights are loaded into the model it describes)…")));
        self.pending.set_value(Some((seq, name, buf, header)));
    }

    /// Test support (only with `localStorage.wmlab_test = '1'`): `window.__wmlab_nn_crash()` makes the
    /// worker panic, so a browser test can check the message and the restart.
    pub fn install_test_hook(self) {
        if !wmlab_app::storage::TestFlags::read(&wmlab_app::storage::LocalStorage).hook {
            return;
        }
        let crash = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            // After the page is left its values are gone: then nothing to crash.
            let _ = self.worker.try_with_value(|w| w.as_ref().map(|w| w.send(&Cmd::Crash, None)));
        });
        let _ = js_sys::Reflect::set(
            &crate::platform::web::window(),
            &wasm_bindgen::JsValue::from_str("__wmlab_nn_crash"),
            crash.as_ref(),
        );
        crash.forget();
    }

    fn spawn_worker(self, threaded: bool) {
        match NnWorker::spawn(threaded, move |ev, bytes| self.on_event(ev, bytes)) {
            Ok(w) => {
                w.on_error(move |m| self.worker_failed(m.clone(), format!("The networks worker stopped: {m}")));
                self.worker_loaded.set_value(false);
                self.worker.set_value(Some(w));
            }
            Err(e) => self.worker_failed(e.clone(), e),
        }
    }

    /// A new backend pick: initialise it in the running worker, or start the other worker when the pick
    /// needs it (the CPU on an isolated page runs in the threaded one).
    pub fn pick_backend(self, pick: BackendPick) {
        // Kept for the next visit; a browser that will not store it just asks again.
        let _ = LocalStorage.set(keys::NN_BACKEND, pick.as_str());
        self.backend_pick.set(pick);
        self.init_pick.set_value(pick);
        let Some(Action::Switch { threaded }) = self.choice.try_update_value(|c| c.pick(pick)) else {
            self.send(Cmd::Init { backend: pick }, None);
            return;
        };
        if matches!(self.phase.get_untracked(), Phase::Paused) {
            // The run in memory goes with the old worker; its checkpoint from the pause stays.
            self.notice.set(Some(
                "The paused run's checkpoint is kept: \"Resume training\" continues it on the new backend.".into(),
            ));
        }
        self.switch_worker(threaded);
    }

    /// Replace the running worker by a fresh one (the threaded CPU one when `threaded`); the page waits
    /// for its `Ready` (phase `Starting`). An evaluation or analysis under way ends with the old worker.
    fn switch_worker(self, threaded: bool) {
        self.stop_worker();
        self.backend.set(None);
        self.device.set(String::new());
        self.threads.set(1);
        self.eval_progress.set(None);
        self.analyse_progress.set(None);
        self.phase.set(Phase::Starting);
        self.spawn_worker(threaded);
    }

    pub fn stop_worker(self) {
        if let Some(Some(w)) = self.worker.try_get_value() {
            w.terminate();
        }
    }

    /// Cancel a running evaluation or analysis: the worker computes without reading messages until it is
    /// done, so it is stopped and a fresh one started (it loads from the wasm cache); the checkpoints live
    /// in IndexedDB and are untouched. The page waits for the new worker's `Ready` (phase `Starting`).
    pub fn cancel_work(self) {
        self.notice.set(Some("Cancelled. The saved checkpoints are kept.".into()));
        self.restart_worker();
    }

    /// Stop the worker and start a fresh one of the same pick; work under way ends with the old one.
    fn restart_worker(self) {
        self.stop_worker();
        self.launch.set_value(None);
        self.init_pick.set_value(self.backend_pick.get_untracked());
        self.eval_progress.set(None);
        self.analyse_progress.set(None);
        self.phase.set(Phase::Starting);
        self.start_worker();
    }

    /// Read what this browser keeps of an earlier run: the resume point, whether a best model is there,
    /// the curves.
    pub fn load_stored(self) {
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(Some(b)) = nnw::load_bytes(CheckpointKind::Latest.key()).await
                && let Ok((h, _)) = BundleHeader::read(&b)
            {
                let _ = self.saved.try_set(Some(h));
            }
            if let Ok(Some(_)) = nnw::load_bytes(CheckpointKind::Best.key()).await {
                let _ = self.has_best.try_set(true);
            }
            if let Ok(Some(t)) = nnw::load_text(RUN_KEY).await
                && let Ok(c) = serde_json::from_str::<RunCurves>(&t)
            {
                let _ = self.curves.try_set(c);
            }
        });
    }

    // ---- a run ----

    /// Train a new model: under Auto, first the backends' probe (or the figures this browser keeps
    /// for this model size) and a move to the faster; then [`Net::begin`].
    pub fn start(self) {
        self.error.set(None);
        self.notice.set(None);
        self.record.set(None);
        self.analysis.set(None);
        let Some(c) = self.config.get_untracked() else {
            return self.error.set(Some("The settings are not loaded yet.".into()));
        };
        if self.backend_pick.get_untracked() != BackendPick::Auto {
            self.probe.set(None);
            return self.begin(c);
        }
        let cache = ProbeCache::from_json(&LocalStorage.get(keys::NN_PROBES).unwrap_or_default());
        let launch = self.choice.with_value(|w| Launch::plan(w, cache.get(&probe_key(&c))));
        self.probe_measured.set(launch.probes());
        self.launch.set_value(Some(launch));
        self.phase.set(Phase::Probing);
        self.drive_launch(self.backend.get_untracked());
    }

    /// The launch's next move, the running worker being ready on `backend` (`None`: not ready yet).
    fn drive_launch(self, backend: Option<Backend>) {
        let Some(backend) = backend else { return };
        let current = Slot { threaded: self.choice.with_value(WorkerChoice::threaded), backend };
        let Some(next) = self.launch.try_update_value(|l| l.as_mut().map(|l| l.next(current))).flatten() else {
            return;
        };
        match next {
            Do::Switch { threaded } => {
                self.choice.update_value(|c| c.force(threaded));
                // Auto: the single-threaded worker comes up on WebGPU where it can (else its CPU, which
                // the launch then counts as WebGPU's failure), the threaded one on its CPU.
                self.init_pick.set_value(BackendPick::Auto);
                self.switch_worker(threaded);
                self.phase.set(Phase::Probing);
            }
            Do::Init(pick) => {
                // WebGPU through Auto, so a browser without an adapter answers on its CPU, not an error.
                let pick = if pick == BackendPick::Webgpu { BackendPick::Auto } else { pick };
                self.init_pick.set_value(pick);
                self.backend.set(None);
                self.send(Cmd::Init { backend: pick }, None);
            }
            Do::Probe(probe) => {
                let Some(c) = self.config.get_untracked() else { return };
                let seq = self.probe_seq.try_update_value(|s| {
                    *s += 1;
                    *s
                });
                self.send(
                    Cmd::Probe { config: Box::new(c), backend: probe, steps: PROBE_STEPS, seq: seq.unwrap_or(0) },
                    None,
                );
            }
            Do::Start => {
                let Some(launch) = self.launch.try_update_value(Option::take).flatten() else { return };
                let outcome = launch.outcome();
                if launch.probes()
                    && let (Some(o), Some(c)) = (&outcome, self.config.get_untracked())
                {
                    let mut cache = ProbeCache::from_json(&LocalStorage.get(keys::NN_PROBES).unwrap_or_default());
                    cache.insert(probe_key(&c), o.clone());
                    // A full or refused store only means the probe runs again next time.
                    let _ = LocalStorage.set(keys::NN_PROBES, &cache.to_json());
                }
                self.probe.set(outcome);
                match self.config.get_untracked() {
                    Some(c) => self.begin(c),
                    None => self.phase.set(Phase::Ready),
                }
            }
        }
    }

    /// Start the run in the running worker on its backend.
    fn begin(self, c: TrainConfig) {
        let backend = self.backend.get_untracked().map(|b| b.as_str().to_string()).unwrap_or_default();
        self.curves.set(RunCurves { backend, ..Default::default() });
        self.has_best.set(false);
        self.step.set(0);
        self.ms_per_step.set(None);
        self.phase.set(Phase::Training);
        wasm_bindgen_futures::spawn_local(async move {
            let _ = nnw::delete(CheckpointKind::Best.key()).await;
        });
        self.send(Cmd::Start { config: Box::new(c) }, None);
    }

    pub fn resume(self) {
        self.error.set(None);
        self.phase.set(Phase::Training);
        self.send(Cmd::Continue, None);
    }

    /// Resume the run stored in this browser.
    pub fn resume_saved(self) {
        self.error.set(None);
        wasm_bindgen_futures::spawn_local(async move {
            match nnw::load_bytes(CheckpointKind::Latest.key()).await {
                Ok(Some(b)) => {
                    if let Ok((h, _)) = BundleHeader::read(&b) {
                        self.steps.set(h.steps());
                        self.step.set(h.step());
                        self.show(h.train);
                    }
                    self.phase.set(Phase::Training);
                    self.send(Cmd::Resume { run: true }, Some(&b));
                }
                Ok(None) => self.error.set(Some("No saved run in this browser.".into())),
                Err(e) => self.error.set(Some(format!("The saved run could not be read: {e}"))),
            }
        });
    }

    pub fn discard(self) {
        wasm_bindgen_futures::spawn_local(async move {
            for k in [CheckpointKind::Latest.key(), CheckpointKind::Best.key(), RUN_KEY] {
                let _ = nnw::delete(k).await;
            }
            self.saved.set(None);
            self.has_best.set(false);
            self.curves.set(RunCurves::default());
        });
    }

    /// "step 40 of 300 · 120 ms/step · 233 trials/s · about 31 s left".
    pub fn status_text(self) -> String {
        let (s, n) = (self.step.get(), self.steps.get());
        let mut t = format!("step {s} of {n}");
        let per_step = self.config.with(|c| c.as_ref().map(TrainConfig::trials_per_step));
        if let (Some(ms), Some(trials)) = (self.ms_per_step.get(), per_step) {
            t.push_str(&format!(" · {:.0} ms/step · {:.1} trials/s", ms, trials as f64 * 1000.0 / ms.max(1e-3)));
            if self.phase.get() == Phase::Training && n > s {
                t.push_str(&format!(" · about {} left", crate::components::format::fmt_ms(ms * (n - s) as f64)));
            }
        }
        t
    }
}

/// The default test trials per task: enough for every condition cell of every task id
/// ([`wmlab_core::analysis::enough_eval_trials`], the default task parameters).
pub fn default_eval_n() -> usize {
    let specs: Vec<wmlab_core::TaskSpec> =
        wmlab_core::TaskId::ALL.iter().map(|&id| wmlab_core::TaskSpec::new(id)).collect();
    wmlab_core::analysis::enough_eval_trials(&specs)
}
