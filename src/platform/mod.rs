//! The browser's IO, in one place: storage (localStorage sessions and the LLM page's run log and cache,
//! IndexedDB for checkpoints and the results history), the participant outbox and JATOS, the networks
//! worker, the model in the tab (`local_llm`), downloads, fetches and the clock. Pages and components call
//! these; the core never does IO.

pub mod history;
pub mod idb;
pub mod llm_store;
pub mod local_llm;
pub mod nn_worker;
pub mod outbox;
pub mod tabs;
pub mod web;
