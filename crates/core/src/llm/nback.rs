//! N-back for language models (in progress).
use serde::{Deserialize, Serialize};

/// Placeholder until the N-back protocol lands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NbackDialogue {}
