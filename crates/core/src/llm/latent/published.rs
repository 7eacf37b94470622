//! The published numbers of Huang, Sun, Wang & Dredze (the ICLR 2026 submission, as arXiv v2/v3; the
//! PDF in penguinnnnn/LLM-Working-Memory at commit 33a854e). Each model was run once: Number Guessing
//! 200 answers per k, Yes-No Deduction 200 trials, Math Magic 150 trials.

/// Table 1: Number Guessing, range 1–10: Σ_k P(yes | k) (1 for a model that holds one number).
pub const NUMBER_GUESSING_SUM: [(&str, f64); 17] = [
    ("GPT-4o-Mini-2024-07-18", 0.0),
    ("GPT-4o-2024-05-13", 0.0),
    ("GPT-4o-2024-08-06", 1.085),
    ("GPT-4o-2024-11-20", 0.0),
    ("GPT-4.1-2025-04-14", 0.0),
    ("o1-Mini", 0.005),
    ("o3-Mini", 0.205),
    ("o4-Mini", 0.030),
    ("LLaMA-3.3-70B", 0.045),
    ("LLaMA-3.1-8B", 0.980),
    ("LLaMA-3.1-70B", 0.465),
    ("LLaMA-3.1-405B", 1.195),
    ("Qwen2.5-7B", 0.0),
    ("Qwen2.5-72B", 0.0),
    ("QwQ-32B", 0.005),
    ("DeepSeek-V3", 0.0),
    ("DeepSeek-R1", 0.640),
];

/// Table 2: GPT-4o-2024-08-06's Number Guessing sum by range N.
pub const NUMBER_GUESSING_BY_RANGE: [(u32, f64); 9] =
    [(2, 0.0), (3, 2.180), (5, 1.600), (7, 0.920), (9, 2.025), (10, 1.085), (20, 0.080), (30, 0.0), (40, 0.005)];

/// Table 4: Yes-No Deduction, trials (of 200) with a contradiction within 250 questions.
pub const YES_NO_FAILURES: [(&str, u32); 5] = [
    ("GPT-4o-Mini", 200),
    ("GPT-4o", 173),
    ("GPT-4o, hint", 194),
    ("GPT-4o, object named in every question", 158),
    ("GPT-4o, hint and object named", 145),
];

/// Table 6: Math Magic accuracy (of 150 trials): (model, without CoT, with CoT or as a reasoning model);
/// `None` where the paper prints none.
pub const MATH_MAGIC: [(&str, Option<f64>, Option<f64>); 17] = [
    ("4o-Mini", Some(0.0), Some(0.033)),
    ("4o-0513", Some(0.027), Some(0.173)),
    ("4o-0806", Some(0.020), Some(0.207)),
    ("4o-1120", Some(0.0), None),
    ("GPT-4.1", None, None),
    ("LLaMA-3.3-70B", Some(0.047), Some(0.167)),
    ("LLaMA-3.1-8B", Some(0.133), None),
    ("LLaMA-3.1-70B", Some(0.047), None),
    ("LLaMA-3.1-405B", Some(0.260), None),
    ("Qwen2.5-7B", Some(0.053), Some(0.327)),
    ("Qwen2.5-72B", Some(0.013), Some(0.247)),
    ("DeepSeek-V3", Some(0.027), Some(0.320)),
    ("o1-Mini", None, Some(0.500)),
    ("o3-Mini", None, Some(0.967)),
    ("o4-Mini", None, Some(0.360)),
    ("QwQ-32B", None, Some(0.900)),
    ("DeepSeek-R1", None, Some(1.0)),
];
