//! Which networks worker the page runs: the single-threaded one (Trunk's build: WebGPU, and the CPU on one
//! thread) or the threaded CPU one (`scripts/dev/build-threaded-worker.sh`), which needs a cross-origin
//! isolated page. The page (`src/pages/networks/state.rs`) feeds this the browser's facts and the
//! workers' events and does what it answers; the decisions live here, where native tests reach them.
//!
//! Under `Auto` the page does not guess which backend is faster: [`Launch`] times a few training steps
//! of the run's model on each backend the browser has (WebGPU, and the CPU in the threaded worker where
//! the page is cross-origin isolated) and starts the run on the faster. The figures are kept per browser
//! and model size ([`ProbeCache`]), so the probe runs once for each.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Backend, BackendPick};
use crate::networks::{Encoder, TrainConfig};

/// What the page knows about its browser, fixed for the page's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Browser {
    /// `crossOriginIsolated`: shared memory between workers, which the threaded worker needs.
    pub isolated: bool,
    /// `navigator.gpu` exists (an adapter may still be refused).
    pub webgpu: bool,
}

/// What the page does after a worker event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Keep the running worker.
    Keep,
    /// Start a fresh worker of this kind (`true`: the threaded one) in place of the running one.
    Switch {
        /// `true`: the threaded CPU worker; `false`: the single-threaded one.
        threaded: bool,
    },
    /// The running worker failed for good: say so (the page shows the error).
    Fail,
}

/// The choice of worker and what was learnt about the browser while running them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerChoice {
    browser: Browser,
    /// The running (or starting) worker is the threaded one.
    threaded: bool,
    /// `navigator.gpu` gave no adapter (the single-threaded worker fell back to its CPU).
    webgpu_unusable: bool,
    /// The threaded worker failed to start here: not tried again.
    threaded_failed: bool,
}

impl WorkerChoice {
    /// A page's choice before any worker ran: WebGPU presumed usable where the browser has it, the threaded
    /// worker not yet tried.
    pub fn new(browser: Browser) -> WorkerChoice {
        WorkerChoice { browser, threaded: false, webgpu_unusable: false, threaded_failed: false }
    }

    /// Whether `pick` runs on the threaded worker here.
    pub fn wants_threaded(&self, pick: BackendPick) -> bool {
        !self.threaded_failed
            && pick.threaded_worker(self.browser.isolated, self.browser.webgpu && !self.webgpu_unusable)
    }

    /// The kind of worker to start for `pick` (remembered as the running one).
    pub fn start(&mut self, pick: BackendPick) -> bool {
        self.threaded = self.wants_threaded(pick);
        self.threaded
    }

    /// Whether the running worker is the threaded one.
    pub fn threaded(&self) -> bool {
        self.threaded
    }

    /// A new pick: `Keep` (the running worker initialises it) or `Switch` to the other worker.
    pub fn pick(&mut self, pick: BackendPick) -> Action {
        let threaded = self.wants_threaded(pick);
        if threaded == self.threaded {
            return Action::Keep;
        }
        self.threaded = threaded;
        Action::Switch { threaded }
    }

    /// The running worker is ready on `backend`. Under `Auto`, a single-threaded worker that came up on
    /// the CPU means the browser gave no WebGPU adapter: on an isolated page the threaded worker has
    /// every core.
    pub fn ready(&mut self, pick: BackendPick, backend: Backend) -> Action {
        if backend == Backend::Cpu && !self.threaded && !self.webgpu_unusable && pick == BackendPick::Auto {
            self.webgpu_unusable = true;
            if self.wants_threaded(pick) {
                self.threaded = true;
                return Action::Switch { threaded: true };
            }
        }
        Action::Keep
    }

    /// The page starts a worker of this kind for a [`Launch`] (which knows why).
    pub fn force(&mut self, threaded: bool) {
        self.threaded = threaded;
    }

    /// Where each backend runs here, fastest-to-reach first: WebGPU in the single-threaded worker (when
    /// the browser has it and it gave an adapter), the CPU in the threaded worker where the page allows
    /// it, else in the single-threaded one.
    pub fn slots(&self) -> Vec<Slot> {
        let mut slots = Vec::new();
        if self.browser.webgpu && !self.webgpu_unusable {
            slots.push(Slot { threaded: false, backend: Backend::Webgpu });
        }
        slots.push(Slot { threaded: self.browser.isolated && !self.threaded_failed, backend: Backend::Cpu });
        slots
    }

    /// The running worker failed (to load, or later). A threaded worker that fails while `starting`
    /// gives way to the single-threaded one, for good; any other failure is the page's error.
    pub fn failed(&mut self, starting: bool) -> Action {
        if self.threaded && starting {
            self.threaded_failed = true;
            self.threaded = false;
            return Action::Switch { threaded: false };
        }
        Action::Fail
    }
}

/// A backend in a worker: which worker (`threaded`: the threaded CPU one) and which backend in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    /// In the threaded CPU worker (else the single-threaded one).
    pub threaded: bool,
    /// The backend in that worker.
    pub backend: Backend,
}

/// One backend's figure from a probe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// The backend timed.
    pub backend: Backend,
    /// The threads its kernels ran on (the CPU in the threaded worker: the pool's size).
    pub threads: usize,
    /// Milliseconds per training step after a warm-up step; `None` when the backend failed.
    pub ms_per_step: Option<f64>,
    /// The losses of the probe's steps (warm-up first): a fresh run from the same seed on each
    /// backend, so they agree within float rounding.
    #[serde(default)]
    pub losses: Vec<f32>,
    /// Why the backend could not be timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Timing {
    /// A backend that could not be timed, and why.
    pub fn failed(backend: Backend, threads: usize, error: impl Into<String>) -> Timing {
        Timing { backend, threads, ms_per_step: None, losses: Vec::new(), error: Some(error.into()) }
    }
}

/// What a probe found for one model size: each backend's figure and the one chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeOutcome {
    /// Each backend's figure, in the order they were timed.
    pub timings: Vec<Timing>,
    /// The backend the run starts on: the fastest, or the CPU when none has a figure.
    pub chosen: Backend,
}

impl ProbeOutcome {
    /// "WebGPU 85 ms/step · CPU (4 threads) 240 ms/step: WebGPU chosen".
    pub fn describe(&self) -> String {
        let figures: Vec<String> = self
            .timings
            .iter()
            .map(|t| {
                let name = match (t.backend, t.threads) {
                    (Backend::Cpu, 1) => "CPU (1 thread)".to_string(),
                    (Backend::Cpu, n) => format!("CPU ({n} threads)"),
                    (Backend::Webgpu, _) => "WebGPU".to_string(),
                };
                match t.ms_per_step {
                    Some(ms) => format!("{name} {ms:.0} ms/step"),
                    None => format!("{name} failed ({})", t.error.as_deref().unwrap_or("no figure")),
                }
            })
            .collect();
        let chosen = if self.chosen == Backend::Webgpu { "WebGPU" } else { "the CPU" };
        format!("{}: {chosen} chosen", figures.join(" · "))
    }
}

/// What the probe is keyed by: the model's size and shape and the batch (what the step's cost depends
/// on), e.g. `lstm-256-conv64.128.256.512-b140`.
pub fn probe_key(s: &TrainConfig) -> String {
    let m = &s.model;
    let encoder = match m.encoder.unwrap_or(Encoder::Conv) {
        Encoder::Conv => format!("conv{}", m.conv.map(|c| c.to_string()).join(".")),
        Encoder::Pixels => "pixels".to_string(),
        Encoder::Words => "words".to_string(),
    };
    let spatial = m.spatial.filter(|&g| g > 1).map(|g| format!("-g{g}")).unwrap_or_default();
    format!("{}-{}-{encoder}{spatial}-b{}", m.arch.as_str(), m.capacity, s.trials_per_step())
}

/// The probes this browser ran, by [`probe_key`] (kept in its local storage as JSON).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeCache(pub BTreeMap<String, ProbeOutcome>);

impl ProbeCache {
    /// The stored cache; anything unreadable (an older format, a hand edit) counts as empty: the probe
    /// simply runs again.
    pub fn from_json(text: &str) -> ProbeCache {
        serde_json::from_str(text).unwrap_or_default()
    }
    /// The cache as JSON for local storage.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
    /// The figures for the model of `key` ([`probe_key`]), if this browser has probed it.
    pub fn get(&self, key: &str) -> Option<&ProbeOutcome> {
        self.0.get(key)
    }
    /// Keep `outcome` under `key`; at most `MAX` model sizes are kept (the oldest keys by name go).
    pub fn insert(&mut self, key: String, outcome: ProbeOutcome) {
        const MAX: usize = 32;
        self.0.insert(key.clone(), outcome);
        while self.0.len() > MAX {
            let Some(k) = self.0.keys().find(|k| **k != key).cloned() else { break };
            self.0.remove(&k);
        }
    }
}

/// The page's next move in a [`Launch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Do {
    /// Start a fresh worker of this kind (`true`: the threaded one) in place of the running one; its
    /// `Ready` comes back to [`Launch::next`].
    Switch {
        /// `true`: the threaded CPU worker; `false`: the single-threaded one.
        threaded: bool,
    },
    /// Initialise the running worker on this backend; its `Ready` comes back to [`Launch::next`].
    Init(BackendPick),
    /// Time a few steps of the run's model on this backend in the running worker; the answer goes to
    /// [`Launch::probed`].
    Probe(Backend),
    /// Start the run in the running worker.
    Start,
}

/// Starting a run under `Auto`: probe each backend not yet timed for this model (or take the cached
/// figures), then move to the faster and start.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// Backends still to time, in order.
    todo: Vec<Slot>,
    timings: Vec<(Slot, Timing)>,
    /// Where the run starts, once decided.
    target: Option<Slot>,
    /// Figures taken from the cache rather than measured now.
    cached: Option<ProbeOutcome>,
}

impl Launch {
    /// The launch of a run in a page whose workers `choice` describes, with the figures cached for its
    /// model, if any. One backend only (no WebGPU): nothing to time.
    pub fn plan(choice: &WorkerChoice, cached: Option<&ProbeOutcome>) -> Launch {
        let slots = choice.slots();
        let from_cache = cached.and_then(|c| slots.iter().find(|s| s.backend == c.chosen).map(|s| (*s, c.clone())));
        let (todo, target, cached) = match from_cache {
            Some((slot, c)) => (Vec::new(), Some(slot), Some(c)),
            None if slots.len() == 1 => (Vec::new(), Some(slots[0]), None),
            None => {
                // The running worker's backend first (no switch before the first probe).
                let mut todo = slots;
                todo.sort_by_key(|s| s.threaded != choice.threaded());
                (todo, None, None)
            }
        };
        Launch { todo, timings: Vec::new(), target, cached }
    }

    /// Whether this launch measures anything (false: cached figures, or one backend).
    pub fn probes(&self) -> bool {
        !self.todo.is_empty() || !self.timings.is_empty()
    }

    /// What to do with the running worker, which runs `current` (its kind and its ready backend).
    pub fn next(&mut self, current: Slot) -> Do {
        let want = match self.todo.first() {
            Some(s) => *s,
            None => *self.target.get_or_insert_with(|| decide(&self.timings)),
        };
        if current.threaded != want.threaded {
            return Do::Switch { threaded: want.threaded };
        }
        if self.todo.is_empty() {
            return if current.backend == want.backend { Do::Start } else { Do::Init(want.backend.pick()) };
        }
        match (want.backend, current.backend) {
            // The single-threaded worker times its CPU beside its WebGPU device, without re-initialising.
            (Backend::Cpu, _) => Do::Probe(Backend::Cpu),
            (Backend::Webgpu, Backend::Webgpu) => Do::Probe(Backend::Webgpu),
            (Backend::Webgpu, Backend::Cpu) => Do::Init(BackendPick::Webgpu),
        }
    }

    /// The running worker answered the probe of the first backend still to time.
    pub fn probed(&mut self, timing: Timing) {
        if let Some(slot) = (!self.todo.is_empty()).then(|| self.todo.remove(0)) {
            self.timings.push((slot, timing));
        }
    }

    /// The backend still to time cannot be (WebGPU refused an adapter, its worker failed): it counts as
    /// failed with `error`.
    pub fn unavailable(&mut self, error: &str) {
        if let Some(slot) = self.todo.first().copied() {
            self.probed(Timing::failed(slot.backend, 1, error));
        }
    }

    /// The backend being timed, if any.
    pub fn probing(&self) -> Option<Backend> {
        self.todo.first().map(|s| s.backend)
    }

    /// The figures: measured now (to cache), or the cached ones; `None` before all are in.
    pub fn outcome(&self) -> Option<ProbeOutcome> {
        if let Some(c) = &self.cached {
            return Some(c.clone());
        }
        if !self.todo.is_empty() || self.timings.is_empty() {
            return None;
        }
        let chosen = self.target.unwrap_or_else(|| decide(&self.timings)).backend;
        Some(ProbeOutcome { timings: self.timings.iter().map(|(_, t)| t.clone()).collect(), chosen })
    }
}

/// The faster backend timed; the CPU when none has a figure (it always runs).
fn decide(timings: &[(Slot, Timing)]) -> Slot {
    timings
        .iter()
        .filter_map(|(s, t)| t.ms_per_step.filter(|ms| ms.is_finite()).map(|ms| (*s, ms)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| s)
        .or_else(|| timings.iter().map(|(s, _)| *s).find(|s| s.backend == Backend::Cpu))
        .unwrap_or(Slot { threaded: false, backend: Backend::Cpu })
}

#[cfg(test)]
mod tests {
    use super::*;
    use BackendPick::*;

    const ISOLATED_GPU: Browser = Browser { isolated: true, webgpu: true };
    const ISOLATED: Browser = Browser { isolated: true, webgpu: false };
    const PLAIN_GPU: Browser = Browser { isolated: false, webgpu: true };

    #[test]
    fn the_cpu_on_an_isolated_page_switches_to_the_threaded_worker_and_back() {
        let mut w = WorkerChoice::new(ISOLATED_GPU);
        assert!(!w.start(Auto));
        assert_eq!(w.ready(Auto, Backend::Webgpu), Action::Keep);
        assert_eq!(w.pick(Cpu), Action::Switch { threaded: true });
        assert!(w.threaded());
        assert_eq!(w.ready(Cpu, Backend::Cpu), Action::Keep);
        assert_eq!(w.pick(Cpu), Action::Keep);
        assert_eq!(w.pick(Webgpu), Action::Switch { threaded: false });
        assert_eq!(w.pick(Auto), Action::Keep);
    }

    #[test]
    fn without_isolation_every_pick_stays_in_the_single_threaded_worker() {
        let mut w = WorkerChoice::new(PLAIN_GPU);
        assert!(!w.start(Cpu));
        for p in BackendPick::ALL {
            assert_eq!(w.pick(p), Action::Keep);
        }
        // WebGPU refused: nothing to switch to without shared memory.
        assert_eq!(w.ready(Auto, Backend::Cpu), Action::Keep);
    }

    #[test]
    fn auto_without_an_adapter_moves_to_the_threaded_worker_once() {
        let mut w = WorkerChoice::new(ISOLATED_GPU);
        assert!(!w.start(Auto));
        assert_eq!(w.ready(Auto, Backend::Cpu), Action::Switch { threaded: true });
        assert!(w.threaded());
        assert_eq!(w.ready(Auto, Backend::Cpu), Action::Keep);
        // Auto now counts WebGPU as absent; an explicit WebGPU pick still gets the other worker.
        assert_eq!(w.pick(Auto), Action::Keep);
        assert_eq!(w.pick(Webgpu), Action::Switch { threaded: false });
        // A browser without navigator.gpu starts Auto threaded at once.
        assert!(WorkerChoice::new(ISOLATED).start(Auto));
    }

    #[test]
    fn a_threaded_worker_that_fails_to_start_is_not_tried_again() {
        let mut w = WorkerChoice::new(ISOLATED_GPU);
        assert!(w.start(Cpu));
        assert_eq!(w.failed(true), Action::Switch { threaded: false });
        assert!(!w.threaded());
        assert_eq!(w.pick(Webgpu), Action::Keep);
        assert_eq!(w.pick(Cpu), Action::Keep);
        assert!(!w.start(Cpu));
        // A failure after the start, or of the single-threaded worker, is the page's error.
        assert_eq!(w.failed(true), Action::Fail);
        let mut w = WorkerChoice::new(ISOLATED_GPU);
        w.start(Cpu);
        assert_eq!(w.failed(false), Action::Fail);
    }

    fn timing(backend: Backend, threads: usize, ms: f64) -> Timing {
        Timing { backend, threads, ms_per_step: Some(ms), losses: vec![2.5, 2.4], error: None }
    }
    const GPU: Slot = Slot { threaded: false, backend: Backend::Webgpu };
    const CPU1: Slot = Slot { threaded: false, backend: Backend::Cpu };
    const CPU_N: Slot = Slot { threaded: true, backend: Backend::Cpu };

    #[test]
    fn a_plain_page_times_both_backends_in_one_worker_and_starts_on_the_faster() {
        let mut w = WorkerChoice::new(PLAIN_GPU);
        w.start(Auto);
        let mut l = Launch::plan(&w, None);
        assert!(l.probes());
        assert_eq!(l.next(GPU), Do::Probe(Backend::Webgpu));
        assert_eq!(l.probing(), Some(Backend::Webgpu));
        l.probed(timing(Backend::Webgpu, 1, 200.0));
        assert_eq!(l.outcome(), None, "the CPU is still to time");
        // The CPU is timed beside the WebGPU device, in the same worker.
        assert_eq!(l.next(GPU), Do::Probe(Backend::Cpu));
        l.probed(timing(Backend::Cpu, 1, 50.0));
        assert_eq!(l.next(GPU), Do::Init(BackendPick::Cpu));
        assert_eq!(l.next(CPU1), Do::Start);
        let o = l.outcome().unwrap();
        assert_eq!(o.chosen, Backend::Cpu);
        assert_eq!(o.describe(), "WebGPU 200 ms/step · CPU (1 thread) 50 ms/step: the CPU chosen");
    }

    #[test]
    fn an_isolated_page_times_the_cpu_in_the_threaded_worker_and_comes_back_for_webgpu() {
        let mut w = WorkerChoice::new(ISOLATED_GPU);
        assert!(!w.start(Auto));
        let mut l = Launch::plan(&w, None);
        assert_eq!(l.next(GPU), Do::Probe(Backend::Webgpu));
        l.probed(timing(Backend::Webgpu, 1, 80.0));
        assert_eq!(l.next(GPU), Do::Switch { threaded: true });
        w.force(true);
        assert!(w.threaded());
        assert_eq!(l.next(CPU_N), Do::Probe(Backend::Cpu));
        l.probed(timing(Backend::Cpu, 4, 300.0));
        assert_eq!(l.next(CPU_N), Do::Switch { threaded: false });
        assert_eq!(l.next(GPU), Do::Start);
        let o = l.outcome().unwrap();
        assert_eq!(o.chosen, Backend::Webgpu);
        assert_eq!(o.describe(), "WebGPU 80 ms/step · CPU (4 threads) 300 ms/step: WebGPU chosen");

        // The same model later: the cached figures decide at once, no probe.
        let mut l = Launch::plan(&w, Some(&ProbeOutcome { chosen: Backend::Cpu, ..o }));
        assert!(!l.probes());
        assert_eq!(l.next(CPU_N), Do::Start);
        assert_eq!(l.outcome().map(|o| o.chosen), Some(Backend::Cpu));
    }

    #[test]
    fn with_one_backend_or_a_failed_one_nothing_is_guessed() {
        // No WebGPU: the CPU, without timing anything.
        let mut w = WorkerChoice::new(Browser { isolated: false, webgpu: false });
        w.start(Auto);
        let mut l = Launch::plan(&w, None);
        assert!(!l.probes());
        assert_eq!(l.next(CPU1), Do::Start);
        assert_eq!(l.outcome(), None);
        // A cached WebGPU choice from a browser that has lost its adapter: the CPU all the same.
        let cached = ProbeOutcome { timings: vec![timing(Backend::Webgpu, 1, 10.0)], chosen: Backend::Webgpu };
        assert_eq!(Launch::plan(&w, Some(&cached)).next(CPU1), Do::Start);

        // WebGPU fails while timed: the CPU is chosen, and the failure is in the figures.
        let mut w = WorkerChoice::new(PLAIN_GPU);
        w.start(Auto);
        let mut l = Launch::plan(&w, None);
        assert_eq!(l.next(GPU), Do::Probe(Backend::Webgpu));
        l.unavailable("out of memory");
        assert_eq!(l.next(GPU), Do::Probe(Backend::Cpu));
        l.probed(timing(Backend::Cpu, 1, 900.0));
        assert_eq!(l.next(GPU), Do::Init(BackendPick::Cpu));
        let o = l.outcome().unwrap();
        assert_eq!(o.chosen, Backend::Cpu);
        assert!(
            o.describe().starts_with("WebGPU failed (out of memory) · CPU (1 thread) 900 ms/step"),
            "{}",
            o.describe()
        );
        // A worker that came up on the CPU though WebGPU is to be timed is asked for WebGPU first.
        let mut l = Launch::plan(&w, None);
        assert_eq!(l.next(CPU1), Do::Init(BackendPick::Webgpu));
    }

    #[test]
    fn probes_are_kept_per_model_size_and_a_bad_store_is_empty() {
        let mut s = crate::networks::choices::tests::settings(96, 10);
        let key = probe_key(&s);
        assert!(key.starts_with("gru-96-"), "{key}");
        s.per_task += 1;
        assert_ne!(probe_key(&s), key, "the batch is part of the key");
        let o = ProbeOutcome { timings: vec![timing(Backend::Webgpu, 1, 12.5)], chosen: Backend::Webgpu };
        let mut c = ProbeCache::default();
        c.insert(key.clone(), o.clone());
        let back = ProbeCache::from_json(&c.to_json());
        assert_eq!(back.get(&key), Some(&o));
        assert_eq!(ProbeCache::from_json("{not json"), ProbeCache::default());
        for i in 0..40 {
            c.insert(format!("k{i:02}"), o.clone());
        }
        assert_eq!(c.0.len(), 32);
        assert!(c.get("k39").is_some(), "the newest is kept");
    }
}
