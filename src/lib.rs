//! The app's code that needs no page: built for wasm32 into the app, and natively so that plain
//! `cargo test -p wmlab-app --lib` reaches it. Today: [`storage`] (the browser's localStorage behind a
//! small trait, every key the app uses, and the test flags). The pages, components and the rest of the
//! browser glue live in the binary (`src/main.rs`), which builds for wasm32 only.

pub mod storage;
