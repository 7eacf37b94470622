//! The worker's loop: commands arrive on a channel fed by `onmessage`; training advances one step at a
//! time and yields to the event loop between steps.

use std::cell::RefCell;
use std::rc::Rc;

use burn::prelude::Device;
use futures::StreamExt;
use futures::channel::mpsc;
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};
use wmlab_core::networks::training_curve;
use wmlab_core::people::replay::Replay;
use wmlab_core::record::TrainPoint;
use wmlab_nn::{Checkpoint, TrainConfig, Trainer, WormModel};

use crate::protocol::workers::Timing;
use crate::protocol::{Backend, BackendPick, Cmd, Event};
use wmlab_core::networks::CheckpointKind;

/// A command with its optional checkpoint bytes.
struct Msg {
    cmd: Result<Cmd, String>,
    bytes: Option<Vec<u8>>,
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

pub(crate) fn post(ev: &Event, bytes: Option<&[u8]>) {
    let obj = Object::new();
    let json = serde_json::to_string(ev)
        .unwrap_or_else(|e| format!("{{\"ev\":\"error\",\"message\":\"{e}\",\"fatal\":true}}"));
    let _ = Reflect::set(&obj, &"json".into(), &json.into());
    if let Some(b) = bytes {
        let arr = Uint8Array::from(b);
        let _ = Reflect::set(&obj, &"bytes".into(), &arr);
        let transfer = js_sys::Array::of1(&arr.buffer());
        let _ = scope().post_message_with_transfer(&obj, &transfer);
    } else {
        let _ = scope().post_message(&obj);
    }
}

pub(crate) fn error(message: impl Into<String>, fatal: bool) {
    post(&Event::Error { message: message.into(), fatal }, None);
}

fn now_ms() -> f64 {
    scope().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// Let the worker's event loop run (deliver messages) before the next step.
async fn yield_now() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

fn parse(data: &JsValue) -> Msg {
    let json = Reflect::get(data, &"json".into()).ok().and_then(|v| v.as_string());
    let bytes = Reflect::get(data, &"bytes".into())
        .ok()
        .filter(|v| v.is_instance_of::<Uint8Array>())
        .map(|v| v.unchecked_into::<Uint8Array>().to_vec());
    let cmd = match json {
        Some(j) => serde_json::from_str::<Cmd>(&j).map_err(|e| format!("unknown command {j}: {e}")),
        None => Err("a message without a `json` field".to_string()),
    };
    Msg { cmd, bytes }
}

pub fn start() {
    let (tx, rx) = mpsc::unbounded::<Msg>();
    let tx = Rc::new(RefCell::new(tx));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let _ = tx.borrow_mut().unbounded_send(parse(&e.data()));
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    wasm_bindgen_futures::spawn_local(run(rx));
    post(&Event::Loaded, None);
}

#[cfg(feature = "gpu")]
async fn init_device(pick: BackendPick) -> Result<(Device, Backend), String> {
    if pick != BackendPick::Cpu {
        match Device::wgpu_options().init_async().await {
            Ok(d) => return Ok((d, Backend::Webgpu)),
            Err(e) if pick == BackendPick::Webgpu => {
                return Err(format!("WebGPU is not available in this browser: {e:?}"));
            }
            Err(_) => {}
        }
    }
    Ok((Device::flex(), Backend::Cpu))
}

/// The threaded worker has the CPU only: the page sends WebGPU picks to the other worker.
#[cfg(not(feature = "gpu"))]
async fn init_device(pick: BackendPick) -> Result<(Device, Backend), String> {
    if pick == BackendPick::Webgpu {
        return Err("this worker (the threaded CPU one) has no WebGPU".to_string());
    }
    Ok((Device::flex(), Backend::Cpu))
}

/// The threads the CPU kernels run on: rayon's pool in the threaded worker, else one.
fn threads(backend: Backend) -> usize {
    #[cfg(feature = "threads")]
    if backend == Backend::Cpu {
        return rayon::current_num_threads();
    }
    let _ = backend;
    1
}

struct State {
    device: Option<(Device, Backend)>,
    /// The WebGPU device once made: burn registers one per worker, and asking for it again (a pick of
    /// WebGPU after Auto chose it, or after the CPU) fails while the first is registered.
    webgpu: Option<Device>,
    trainer: Option<Trainer>,
    running: bool,
    /// Steps between `latest` checkpoints sent to the page.
    checkpoint_every: usize,
    /// When the last `latest` checkpoint was sent (ms, the worker's clock).
    last_latest_ms: f64,
}

/// Least time between two `latest` checkpoints while training (pause, stop and the end always send one):
/// a run validated every few steps would otherwise serialise the model and rewrite the page's stored
/// run many times a second.
const LATEST_EVERY_MS: f64 = 5_000.0;

/// Time a probe spends on one backend's timed steps before it stops early (after at least one).
const PROBE_BUDGET_MS: f64 = 3_000.0;

impl State {
    async fn send_checkpoint(&mut self, kind: CheckpointKind) {
        if kind == CheckpointKind::Latest {
            self.last_latest_ms = now_ms();
        }
        let Some(t) = &self.trainer else { return };
        let ck = if kind == CheckpointKind::Best {
            t.best.clone().ok_or_else(|| "no best model yet".to_string())
        } else {
            t.checkpoint_async().await.map_err(String::from)
        };
        match ck {
            Ok(ck) => post(&Event::Checkpoint { kind, step: ck.state.step }, Some(&ck.to_bundle())),
            Err(e) => error(format!("could not save a checkpoint: {e}"), false),
        }
    }

    /// The device for `pick`: the WebGPU one made before if any, else a new one.
    async fn init(&mut self, pick: BackendPick) -> Result<(Device, Backend), String> {
        if pick != BackendPick::Cpu
            && let Some(d) = &self.webgpu
        {
            return Ok((d.clone(), Backend::Webgpu));
        }
        let (d, backend) = init_device(pick).await?;
        if backend == Backend::Webgpu {
            self.webgpu = Some(d.clone());
        }
        Ok((d, backend))
    }

    fn device(&self) -> Result<Device, String> {
        self.device.as_ref().map(|d| d.0.clone()).ok_or_else(|| "the backend is not initialised".to_string())
    }

    async fn handle(&mut self, msg: Msg) {
        let cmd = match msg.cmd {
            Ok(c) => c,
            Err(e) => return error(e, false),
        };
        match cmd {
            Cmd::Verify { seq } => {
                let loaded = msg
                    .bytes
                    .ok_or_else(|| "no checkpoint was sent".to_string())
                    .and_then(|b| Checkpoint::from_bundle(&b).map_err(String::from))
                    .and_then(|ck| ck.model(&Device::flex()).map(|_| ()).map_err(String::from));
                post(&Event::Verified { seq, error: loaded.err() }, None);
            }
            Cmd::Crash => panic!("the page asked the worker to crash (test support)"),
            Cmd::Init { backend } => match self.init(backend).await {
                Ok((d, backend)) => {
                    let device = format!("{d:?}");
                    self.device = Some((d, backend));
                    post(&Event::Ready { backend, device, threads: threads(backend) }, None);
                }
                Err(e) => error(e, true),
            },
            Cmd::Probe { config, backend, steps, seq } => {
                let timing = self.probe(*config, backend, steps).await;
                post(&Event::Probed { timing, seq }, None);
            }
            Cmd::Start { config } => {
                let mut config = *config;
                config.fit_edited();
                if let Err(e) = config.check() {
                    return error(e, true);
                }
                let Ok(device) = self.device() else { return error("the backend is not initialised", true) };
                self.checkpoint_every = config.val_every.max(1);
                self.trainer = Some(Trainer::new(config, device.autodiff()));
                self.running = true;
            }
            Cmd::Resume { run } => {
                let Some(bytes) = msg.bytes else { return error("no checkpoint to resume from", true) };
                let ck = match Checkpoint::from_bundle(&bytes) {
                    // Adam's state is left out on resume in the browser: burn restores it on its
                    // default device (WebGPU when present) and moving it to the training device needs a
                    // blocking readback, which the browser forbids. The run continues with fresh
                    // moments (weights, schedule and step count are kept); `wmlab train --resume`
                    // restores Adam's state exactly.
                    Ok(c) => c.with_optimizer(None),
                    Err(e) => return error(format!("the checkpoint could not be read: {e}"), true),
                };
                let Ok(device) = self.device() else { return error("the backend is not initialised", true) };
                match Trainer::resume(&ck, device.autodiff()) {
                    Ok(t) => {
                        self.checkpoint_every = t.config.val_every.max(1);
                        self.trainer = Some(t);
                        let done = self.trainer.as_ref().is_some_and(|t| t.done());
                        self.running = run && !done;
                        if !self.running {
                            let step = self.trainer.as_ref().map(|t| t.state.step).unwrap_or(0);
                            // A finished run has nothing to resume: say so, rather than "paused".
                            post(&if done { Event::Done { step } } else { Event::Paused { step } }, None);
                        }
                    }
                    Err(e) => error(format!("the checkpoint does not fit its model: {e}"), true),
                }
            }
            Cmd::Pause => {
                self.running = false;
                self.send_checkpoint(CheckpointKind::Latest).await;
                let step = self.trainer.as_ref().map(|t| t.state.step).unwrap_or(0);
                post(&Event::Paused { step }, None);
            }
            Cmd::Continue => {
                if self.trainer.as_ref().is_some_and(|t| !t.done()) {
                    self.running = true;
                }
            }
            Cmd::Stop => {
                self.running = false;
                self.send_checkpoint(CheckpointKind::Latest).await;
                let step = self.trainer.as_ref().map(|t| t.state.step).unwrap_or(0);
                post(&Event::Stopped { step }, None);
            }
            Cmd::Evaluate { n } => self.evaluate(EvalTrials::Test(n), msg.bytes).await,
            Cmd::EvaluateTrialsOf { replay, subject } => {
                self.evaluate(EvalTrials::Of(&replay, &subject), msg.bytes).await
            }
            Cmd::Analyse { n } => self.analyse(n, msg.bytes).await,
        }
    }

    /// Time a fresh run of `config` on `backend`: one warm-up step (shaders, allocations), then up to
    /// `steps` timed steps, fewer when they pass [`PROBE_BUDGET_MS`]. Every step trains on the run's
    /// first batch: a new batch has new trial lengths, hence new shapes, which a GPU backend compiles
    /// kernels for (seconds each on a software adapter), and a run soon has kernels for every length it
    /// meets; the steady state is what decides. Each step waits for its loss, so the time is the
    /// device's too.
    async fn probe(&self, mut config: TrainConfig, backend: Backend, steps: usize) -> Timing {
        let failed = |error: String| Timing::failed(backend, threads(backend), error);
        config.fit_edited();
        if let Err(e) = config.check() {
            return failed(e.to_string());
        }
        let device = match (&self.device, backend) {
            (Some((d, b)), _) if *b == backend => d.clone(),
            (_, Backend::Cpu) => Device::flex(),
            _ => return failed("this worker is not running on WebGPU".to_string()),
        };
        let steps = steps.max(1);
        let mut t = Trainer::new(config.with_steps(steps + 1), device.autodiff());
        let batch = t.train_batch(0);
        let mut losses = Vec::new();
        let mut timed = 0;
        let mut t0 = now_ms();
        while timed < steps {
            match t.step_on(&batch).await {
                Ok(loss) => losses.push(loss),
                Err(e) => return failed(format!("{e}")),
            }
            if losses.len() == 1 {
                t0 = now_ms();
            } else {
                timed += 1;
                if now_ms() - t0 > PROBE_BUDGET_MS {
                    break;
                }
            }
            yield_now().await;
        }
        let ms = (now_ms() - t0) / timed.max(1) as f64;
        Timing { backend, threads: threads(backend), ms_per_step: Some(ms), losses, error: None }
    }

    /// The model to evaluate or analyse: the checkpoint in `bytes`, else the run in memory; with its
    /// config (steps = the trained steps) and the device. `what` names the action in messages.
    fn subject_model(
        &self,
        bytes: Option<Vec<u8>>,
        what: &str,
    ) -> Result<(Device, WormModel, TrainConfig, Vec<TrainPoint>), String> {
        let device = self.device()?;
        match bytes {
            Some(b) => {
                let ck = Checkpoint::from_bundle(&b).map_err(|e| format!("the checkpoint could not be read: {e}"))?;
                let model = ck.model(&device).map_err(|e| format!("the checkpoint could not be read: {e}"))?;
                let curve = training_curve(&ck.state.history, ck.train.trials_per_step());
                Ok((device, model, ck.train.with_steps(ck.state.step), curve))
            }
            None => match &self.trainer {
                Some(t) => {
                    let curve = training_curve(&t.state.history, t.config.trials_per_step());
                    Ok((device, t.model().clone(), t.config.clone().with_steps(t.state.step), curve))
                }
                None => Err(format!("nothing to {what}: train a model or load a checkpoint first")),
            },
        }
    }

    /// The checkpoint in `bytes` (or the current model) on `n` fresh test trials per task id, or on
    /// another subject's very trials (`wmlab_nn::eval::evaluate_replay`).
    async fn evaluate(&mut self, trials: EvalTrials<'_>, bytes: Option<Vec<u8>>) {
        let (device, model, train, curve) = match self.subject_model(bytes, "evaluate") {
            Ok(m) => m,
            Err(e) => return error(e, false),
        };
        let backend = self.device.as_ref().map_or("", |d| d.1.as_str());
        let mut progress = |done: usize, total: usize| {
            post(&Event::EvalProgress { done, total }, None);
            true
        };
        let chunk = 8;
        let r = match trials {
            EvalTrials::Test(n) => {
                wmlab_nn::eval::evaluate_record(&model, &train, backend, n.max(1), chunk, &device, &mut progress).await
            }
            EvalTrials::Of(replay, subject) => {
                let r = wmlab_nn::eval::evaluate_replay(
                    &model,
                    &train,
                    backend,
                    replay,
                    subject,
                    chunk,
                    &device,
                    &mut progress,
                );
                r.await
            }
        };
        post_evaluation(r, curve);
    }

    /// The neural analyses of the checkpoint in `bytes` (or the current model): `crate::analyse`.
    async fn analyse(&mut self, n: usize, bytes: Option<Vec<u8>>) {
        let (device, model, train, _) = match self.subject_model(bytes, "analyse") {
            Ok(m) => m,
            Err(e) => return error(e, false),
        };
        crate::analyse::analyse(&model, &train, n, &device).await;
    }

    /// One training step (and a validation check when due).
    async fn step(&mut self) {
        let Some(t) = self.trainer.as_mut() else {
            self.running = false;
            return;
        };
        let t0 = now_ms();
        match t.train_step().await {
            Ok(loss) => {
                let (step, steps) = (t.state.step, t.config.steps);
                post(&Event::Step { step, steps, loss, ms: now_ms() - t0 }, None);
            }
            Err(e) => {
                self.running = false;
                return error(format!("{e}"), true);
            }
        }
        let t = self.trainer.as_mut().expect("trainer");
        if t.check_due() {
            match t.validate().await {
                Ok(report) => {
                    let best = report.best;
                    post(&Event::Val { report }, None);
                    if best {
                        self.send_checkpoint(CheckpointKind::Best).await;
                    }
                }
                Err(e) => {
                    self.running = false;
                    return error(format!("{e}"), true);
                }
            }
        }
        let t = self.trainer.as_ref().expect("trainer");
        let step = t.state.step;
        if t.done() {
            self.running = false;
            self.send_checkpoint(CheckpointKind::Latest).await;
            post(&Event::Done { step }, None);
        } else if step.is_multiple_of(self.checkpoint_every) && now_ms() - self.last_latest_ms >= LATEST_EVERY_MS {
            self.send_checkpoint(CheckpointKind::Latest).await;
        }
    }
}

async fn run(mut rx: mpsc::UnboundedReceiver<Msg>) {
    let mut st =
        State { device: None, webgpu: None, trainer: None, running: false, checkpoint_every: 50, last_latest_ms: 0.0 };
    loop {
        if st.running {
            // Handle whatever arrived during the last step, then step.
            while let Ok(msg) = rx.try_recv() {
                st.handle(msg).await;
            }
            if st.running {
                st.step().await;
            }
            yield_now().await;
        } else {
            match rx.next().await {
                Some(msg) => st.handle(msg).await,
                None => return,
            }
        }
    }
}

/// Which trials an evaluation takes.
enum EvalTrials<'a> {
    /// `n` fresh test trials per task id.
    Test(usize),
    /// Another subject's very trials, and whose they are.
    Of(&'a Replay, &'a str),
}

/// An evaluation's record (with the model's training curve) to the page, or why there is none.
fn post_evaluation(r: Result<Option<wmlab_core::record::ResultRecord>, wmlab_nn::NnError>, curve: Vec<TrainPoint>) {
    match r {
        Ok(Some(mut record)) => {
            record.training = curve;
            post(&Event::Record { record: Box::new(record) }, None)
        }
        Ok(None) => error("evaluation cancelled", false),
        Err(e) => error(format!("evaluation failed: {e}"), false),
    }
}
