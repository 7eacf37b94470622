//! The core's layers (README, ARCHITECTURE) are its folders, lowest first: `stimuli/` (tasks, display
//! lists, the raster, seeded randomness), `results/` (records, chance, statistics, charts, files),
//! the subjects `people/` and `llm/` (the LLM suites), `analysis/` (analyses, Compare, the papers, share
//! links) and `nn_messages/` (the networks worker's protocol). A folder names modules of its own layer
//! or lower, never higher — by the folder's path (`crate::results::record`) or by the short name
//! `lib.rs` re-exports (`crate::record`); and `people/` never imports `llm/` (the LLM suites may use the
//! people's scoring, not the other way).

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

/// The core's folders by layer, lowest first.
const LAYERS: &[(&str, &[&str])] = &[
    ("stimuli", &["stimuli"]),
    ("results", &["results"]),
    ("subjects", &["people", "llm"]),
    ("analysis", &["analysis"]),
    ("protocol", &["nn_messages"]),
];

fn lib_rs() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap()
}

/// The names by which code reaches `folder`: the folder itself and the modules `lib.rs` re-exports from
/// it (`pub use results::{record, stats};`).
fn names(folder: &str) -> Vec<String> {
    let mut out = vec![folder.to_string()];
    for line in lib_rs().lines() {
        if let Some(list) = line.trim().strip_prefix(&format!("pub use {folder}::{{")) {
            let list = list.trim_end_matches("};");
            out.extend(list.split(',').map(|m| m.trim().to_string()).filter(|m| !m.is_empty()));
        }
    }
    out
}

#[test]
fn no_folder_imports_a_higher_layer() {
    let mut wrong = Vec::new();
    for (i, (_, folders)) in LAYERS.iter().enumerate() {
        for folder in *folders {
            for (layer, higher) in &LAYERS[i + 1..] {
                for h in higher.iter().flat_map(|h| names(h)) {
                    wrong.extend(uses(folder, &h).into_iter().map(|l| format!("{folder} ({layer} is higher) {l}")));
                }
            }
        }
    }
    assert_eq!(wrong, Vec::<String>::new());
    // The check sees an import of a lower layer where there is one, by either path.
    assert!(uses("analysis", "people").iter().any(|l| l.contains("subject_curves")));
    assert!(names("results").contains(&"record".to_string()));
    assert!(!uses("people", "record").is_empty());
}

#[test]
fn the_core_is_its_layer_folders() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let placed: Vec<&str> = LAYERS.iter().flat_map(|(_, f)| f.iter().copied()).collect();
    let mut seen = Vec::new();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            assert!(placed.contains(&name.as_str()), "src/{name}/ is in no layer of tests/layering.rs");
            seen.push(name);
        } else {
            assert_eq!(name, "lib.rs", "a module outside the layer folders: src/{name}");
        }
    }
    for f in &placed {
        assert!(seen.iter().any(|s| s == f), "tests/layering.rs names src/{f}/, which is not there");
        assert!(lib_rs().contains(&format!("pub mod {f};")), "lib.rs does not declare {f}");
    }
}
