//! The core's layers (README, ARCHITECTURE): `people/` never imports `llm/` (the LLM suites may use the
//! people's scoring, not the other way), and nothing below them (tasks, the display list, the raster,
//! records, statistics) imports either.

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

#[test]
fn the_lower_layers_import_neither_people_nor_the_llm_suites() {
    for dir in ["task", "tasks", "display", "raster", "record", "stats", "sdt", "rng", "adaptive"] {
        for module in ["people", "llm"] {
            assert_eq!(uses(dir, module), Vec::<String>::new(), "{dir} uses {module}");
        }
    }
}
