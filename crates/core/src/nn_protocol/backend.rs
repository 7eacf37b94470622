//! The backend the page asks the networks worker for ([`BackendPick`]) and the one it runs on
//! ([`Backend`]).

use serde::{Deserialize, Serialize};

/// The backend the page asks the worker for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendPick {
    /// WebGPU if the browser offers it, else the CPU.
    #[default]
    Auto,
    /// burn's WebGPU backend on the browser's adapter (a fatal error when there is none).
    Webgpu,
    /// burn's flex CPU backend (on every core in the threaded worker, where the page is cross-origin isolated).
    Cpu,
}

impl BackendPick {
    /// Every pick, in the order the Networks page lists them.
    pub const ALL: [BackendPick; 3] = [BackendPick::Auto, BackendPick::Webgpu, BackendPick::Cpu];
    /// The name in JSON and in the page's backend menu (`auto`).
    pub fn as_str(self) -> &'static str {
        match self {
            BackendPick::Auto => "auto",
            BackendPick::Webgpu => "webgpu",
            BackendPick::Cpu => "cpu",
        }
    }
    /// Case does not matter (`CPU`, `cpu`).
    pub fn parse(s: &str) -> Option<BackendPick> {
        BackendPick::ALL.into_iter().find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
    }
    /// Whether this pick runs on the threaded CPU worker rather than the WebGPU one (whose CPU fallback
    /// has one thread): only on a cross-origin isolated page (`isolated`: shared memory between workers),
    /// and only for the CPU — picked, or `Auto` in a browser without WebGPU (`webgpu`: `navigator.gpu`).
    pub fn threaded_worker(self, isolated: bool, webgpu: bool) -> bool {
        isolated
            && match self {
                BackendPick::Cpu => true,
                BackendPick::Auto => !webgpu,
                BackendPick::Webgpu => false,
            }
    }
    /// As the page's backend menu offers it.
    pub fn label(self) -> &'static str {
        match self {
            BackendPick::Auto => "WebGPU if available, else CPU",
            BackendPick::Webgpu => "WebGPU",
            BackendPick::Cpu => "CPU",
        }
    }
}

/// The backend the worker runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// burn's WebGPU backend on the browser's GPU adapter.
    Webgpu,
    /// burn's flex CPU backend in wasm: one thread, or every core in the threaded worker.
    Cpu,
}

impl Backend {
    /// The name in JSON and in records (`webgpu`, `cpu`).
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Webgpu => "webgpu",
            Backend::Cpu => "cpu",
        }
    }
    /// As the page shows it (`CPU (flex, in wasm)`).
    pub fn label(self) -> &'static str {
        match self {
            Backend::Webgpu => "WebGPU",
            Backend::Cpu => "CPU (flex, in wasm)",
        }
    }
    /// The pick that asks for this backend.
    pub fn pick(self) -> BackendPick {
        match self {
            Backend::Webgpu => BackendPick::Webgpu,
            Backend::Cpu => BackendPick::Cpu,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cpu_picks_on_an_isolated_page_take_the_threaded_worker() {
        use BackendPick::*;
        assert!(Cpu.threaded_worker(true, true));
        assert!(Cpu.threaded_worker(true, false));
        assert!(Auto.threaded_worker(true, false));
        // Auto prefers WebGPU where the browser has it; an explicit WebGPU pick never goes threaded.
        assert!(!Auto.threaded_worker(true, true));
        assert!(!Webgpu.threaded_worker(true, false));
        // Without cross-origin isolation there is no shared memory: always the single-threaded worker.
        for p in BackendPick::ALL {
            assert!(!p.threaded_worker(false, false));
            assert!(!p.threaded_worker(false, true));
        }
    }

    #[test]
    fn backends_read_back_from_their_names() {
        for b in BackendPick::ALL {
            assert_eq!(BackendPick::parse(b.as_str()), Some(b));
            assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{}\"", b.as_str()));
        }
        assert_eq!(serde_json::to_string(&Backend::Webgpu).unwrap(), "\"webgpu\"");
    }
}
