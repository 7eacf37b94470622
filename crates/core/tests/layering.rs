//! The core's layers (README, ARCHITECTURE), lowest first: leaves (rng, font, sdt, charts as data),
//! stimuli (tasks, display lists, the raster, hashes, PNG/ZIP), results (records, statistics, chance,
//! staircases), subjects (`people/`, the LLM suites `llm/`), analysis (analyses, Compare, the papers,
//! share links, the worker protocol). A module names modules of its own layer or lower, never higher;
//! and `people/` never imports `llm/` (the LLM suites may use the people's scoring, not the other way).

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Lines of the files under `src/<dir>` (or the file `src/<dir>.rs`) that name `crate::<module>`
/// (as a path, or in a one-line `use crate::{…}` group) outside comments.
fn uses(dir: &str, module: &str) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let d = src.join(dir);
    if d.is_dir() {
        rust_files(&d, &mut files);
    }
    let f = src.join(format!("{dir}.rs"));
    if f.is_file() {
        files.push(f);
    }
    assert!(!files.is_empty(), "no source for {dir}");
    let mut hits = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let word = |at: usize| {
                let after = code[at + module.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            };
            let path = code.match_indices(&format!("crate::{module}")).any(|(i, m)| word(i + m.len() - module.len()));
            let group = code.find("use crate::{").is_some_and(|g| {
                code[g..].match_indices(module).any(|(i, _)| {
                    let at = g + i;
                    let before = code[..at].chars().last();
                    matches!(before, Some('{' | ' ' | ',')) && word(at)
                })
            });
            if path || group {
                hits.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    hits
}

#[test]
fn people_does_not_import_the_llm_suites() {
    assert_eq!(uses("people", "llm"), Vec::<String>::new());
    // The check sees a use where there is one: the visual suite scores answers as a person's.
    assert!(uses("llm", "people").iter().any(|l| l.contains("score_answers")));
}

/// The core's top-level modules by layer, lowest first.
const LAYERS: &[(&str, &[&str])] = &[
    ("leaves", &["rng", "font", "sdt", "chart", "chart_svg"]),
    ("stimuli", &["display", "task", "tasks", "raster", "hash", "png", "zip"]),
    ("results", &["record", "stats", "chance", "adaptive", "psychds"]),
    ("subjects", &["people", "llm"]),
    ("analysis", &["analysis", "compare", "papers", "share", "nn_messages"]),
];

#[test]
fn no_module_imports_a_higher_layer() {
    let mut wrong = Vec::new();
    for (i, (_, modules)) in LAYERS.iter().enumerate() {
        for module in *modules {
            for (layer, higher) in &LAYERS[i + 1..] {
                for h in *higher {
                    wrong.extend(uses(module, h).into_iter().map(|l| format!("{module} ({layer} is higher) {l}")));
                }
            }
        }
    }
    assert_eq!(wrong, Vec::<String>::new());
    // The check sees an import of a lower layer where there is one.
    assert!(uses("analysis", "people").iter().any(|l| l.contains("subject_curves")));
}

#[test]
fn every_module_of_the_core_has_a_layer() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ").or_else(|| l.trim().strip_prefix("mod ")))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert!(declared.len() > 10, "{declared:?}");
    let placed: Vec<&str> = LAYERS.iter().flat_map(|(_, m)| m.iter().copied()).collect();
    for m in &declared {
        assert!(placed.contains(m), "core module `{m}` is in no layer of tests/layering.rs");
    }
    for m in &placed {
        assert!(declared.contains(m), "tests/layering.rs names `{m}`, which lib.rs does not declare");
    }
}
