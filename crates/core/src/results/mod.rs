//! The results layer: what any subject's run leaves and how it is scored in general. The versioned
//! result record ([`record`]), chance and significance per task ([`chance`], with the memoryless
//! baseline), hypothesis tests ([`stats`]), signal-detection scoring ([`sdt`]), staircases
//! ([`adaptive`]), charts as data and as SVG ([`chart`], [`chart_svg`]), and the files results leave
//! in ([`png`], [`zip`], [`psychds`]). It uses the stimuli layer only; people, LLM suites and analyses
//! sit above it (`crates/core/tests/layering.rs`).

pub mod adaptive;
pub mod chance;
pub mod chart;
pub mod chart_svg;
pub mod png;
pub mod psychds;
pub mod record;
pub mod sdt;
pub mod stats;
pub mod zip;
