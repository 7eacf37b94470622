//! Which networks worker the page runs: the single-threaded one (Trunk's build: WebGPU, and the CPU on one
//! thread) or the threaded CPU one (`scripts/dev/build-threaded-worker.sh`), which needs a cross-origin
//! isolated page. The page (`src/pages/networks/state.rs`) feeds this the browser's facts and the
//! workers' events and does what it answers; the decisions live here, where native tests reach them.

use super::{Backend, BackendPick};

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
    Switch { threaded: bool },
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
}
