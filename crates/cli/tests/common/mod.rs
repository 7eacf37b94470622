//! What several CLI test binaries share.
#![allow(dead_code)]

/// The arguments of a one-step `wmlab train` of a small paper-architecture network (`arch`, capacity
/// 16, a narrow ConvNet, one trial per id) into `out`: what the PyTorch export and import tests start
/// from.
pub fn one_step_train<'a>(arch: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "train",
        "--arch",
        arch,
        "--capacity",
        "16",
        "--preset",
        "paper",
        "--conv",
        "4,4,8,8",
        "--per-task",
        "1",
        "--steps",
        "1",
        "--val-every",
        "1",
        "--val-per-task",
        "1",
        "--quiet",
        "--out",
        out,
    ]
}
