//! The stimuli layer, the lowest: what a trial shows and how it is drawn, the same for every subject.
//! Task ids, trials and splits ([`task`]), one generator per WorM task ([`tasks`]), the display list of
//! a frame ([`display`]), its 32×32 network view ([`raster`]), seeded randomness ([`rng`]), the label
//! font ([`font`]) and the determinism hash ([`hash`]). Nothing here knows of results, subjects or
//! analyses (`crates/core/tests/layering.rs`).

pub mod display;
pub mod font;
pub mod hash;
pub mod raster;
pub mod rng;
pub mod task;
pub mod tasks;
