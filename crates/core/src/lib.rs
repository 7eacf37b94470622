//! # wmlab-core
//!
//! The pure core of WM Lab. It does no IO, reads no clock and uses no global RNG: every function is a
//! plain computation on its arguments, so the same inputs give the same bytes natively and in wasm32.
//!
//! - [`task`]: the 14 task ids, trials, steps, conditions, balanced seeded splits.
//! - [`tasks`]: one module per WorM task with its parameters, condition grid and generator.
//! - [`display`]: the display list (one per frame) in the 96-unit space.
//! - [`raster`]: the display list drawn for networks (32×32×3 tensor).
//! - [`record`]: the versioned result record shared by people, LLMs and networks; CSV/JSON export.
//! - [`share`]: share links that carry a record in the URL fragment.
//! - [`rng`]: seeded randomness.

// Outside its tests the core does not unwrap: a value that may be missing is handled, or its `expect`
// says why it cannot be.
#![cfg_attr(not(test), warn(clippy::unwrap_used))]

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

pub mod adaptive;
pub mod analysis;
pub mod chance;
pub mod chart;
pub mod chart_svg;
pub mod compare;
pub mod display;
pub mod font;
pub mod hash;
pub mod llm;
pub mod nn_messages;
pub mod papers;
pub mod people;
pub mod png;
pub mod psychds;
pub mod raster;
pub mod record;
pub mod rng;
pub mod sdt;
pub mod share;
pub mod stats;
pub mod task;
pub mod tasks;
pub mod zip;

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
