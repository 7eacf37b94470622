//! # wmlab-core
//!
//! The pure core of WM Lab. It does no IO, reads no clock and uses no global RNG: every function is a
//! plain computation on its arguments, so the same inputs give the same bytes natively and in wasm32.
//!
//! Its folders are its layers, lowest first; a folder uses its own layer and lower ones, never higher
//! (`tests/layering.rs`):
//! - [`stimuli`]: task ids, trials and splits ([`task`]), one generator per WorM task ([`tasks`]), the
//!   display list of a frame ([`display`]) and its 32×32 network view ([`raster`]), seeded randomness
//!   ([`rng`]).
//! - [`results`]: the versioned result record shared by people, LLMs and networks ([`record`]), chance
//!   and significance ([`chance`]), statistics, charts as data, PNG/ZIP/Psych-DS files.
//! - the subjects: [`people`] (sessions, the presenter, scoring, timing), [`llm`] (the LLM suites'
//!   items, prompts, answer parsing and metrics; the HTTP runner is the `wmlab-llm` crate) and
//!   [`networks`] (the training config and the edits to it, checkpoints, model cards, training curves;
//!   the burn models are the `wmlab-nn` crate).
//! - [`analysis`]: what reads results of several subjects: the WorM paper's analyses, the Compare
//!   page's logic ([`compare`]), the papers' figures ([`papers`]), share links ([`share`]).
//! - [`nn_protocol`]: the messages between the Networks page and its worker.
//!
//! The layers' modules are re-exported here under their short names (`wmlab_core::task`).

// Outside its tests the core does not unwrap: a value that may be missing is handled, or its `expect`
// says why it cannot be.
#![cfg_attr(not(test), warn(clippy::unwrap_used))]
// Every public item says what it is (clippy's `-D warnings` in scripts/dev/test.sh makes this an error).
#![warn(missing_docs)]

/// `impl From<E> for String` giving the error's message, for the error types whose callers (the page,
/// the CLI) still pass messages on as strings. Defined before the modules so that each can use it.
macro_rules! message_into_string {
    ($($t:ty),+ $(,)?) => {
        $(impl From<$t> for String {
            fn from(e: $t) -> String {
                e.to_string()
            }
        })+
    };
}
pub(crate) use message_into_string;

pub mod analysis;
pub mod llm;
pub mod networks;
pub mod nn_protocol;
pub mod people;
pub mod results;
pub mod stimuli;

// Each layer's modules under their short names (`wmlab_core::task`, `crate::record`): the folders say
// where a module sits, the paths stay as they were.
pub use analysis::{compare, papers, share};
pub use results::{adaptive, chance, chart, chart_svg, png, psychds, record, sdt, stats, zip};
pub use stimuli::{display, font, hash, raster, rng, task, tasks};

/// The items of a list a person types: separated by commas, spaces or semicolons (`"2, 4;8 16"`), each
/// trimmed, empty ones skipped. Every number list the app and the CLI read (LRT block sizes, Minerva
/// sweeps, task parameters) splits this way.
pub fn list_items(text: &str) -> impl Iterator<Item = &str> {
    text.split([',', ' ', ';']).map(str::trim).filter(|p| !p.is_empty())
}

/// An entry of [`parse_settings`] that is not `KEY=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not KEY=VALUE (e.g. noise_mask=true; entries separated by ;)")]
pub struct NotKeyValue(pub String);

crate::message_into_string!(NotKeyValue);

/// Task parameters as a person types them, in one place for the CLI's `--set`, a study link's `set` and
/// the Networks page: `KEY=VALUE` entries separated by `;` (a value may be a comma list:
/// `noise_mask=true; list_lengths=2,4,8,16`), each trimmed; empty entries skipped. Whether a key and
/// its value fit a task is [`TaskSpec::set`]'s check.
pub fn parse_settings(text: &str) -> Result<Vec<(String, String)>, NotKeyValue> {
    let mut out = Vec::new();
    for entry in text.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        match entry.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
                out.push((k.trim().to_string(), v.trim().to_string()))
            }
            _ => return Err(NotKeyValue(entry.to_string())),
        }
    }
    Ok(out)
}

pub use display::{Frame, Rgb, Shape};
pub use rng::{Rng, Split};
pub use task::{Conditions, Phase, Quirks, Response, Step, Target, TaskId, TaskSpec, Trial};

/// The app and core version written into every record.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
