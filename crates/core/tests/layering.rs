//! The core's layers (README, ARCHITECTURE) are its folders, lowest first: `stimuli/` (tasks, display
//! lists, the raster, seeded randomness), `results/` (records, chance, statistics, charts, files),
//! the subjects `people/`, `llm/` (the LLM suites) and `networks/` (training config, checkpoints, cards),
//! `analysis/` (analyses, Compare, the papers, share links) and `nn_protocol/` (the networks worker's
//! messages). A folder names modules of its own layer
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

/// The paths of a `use` tree, whole (`a::{b, c::{d as e}}` → `a::b`, `a::c::d`).
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        return if path.is_empty() { Vec::new() } else { vec![path.to_string()] };
    };
    let prefix = tree[..open].trim().trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    // Split the group at its top-level commas.
    let (mut parts, mut depth, mut from) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[from..]);
    parts
        .into_iter()
        .flat_map(expand)
        .map(|p| {
            if p == "self" {
                prefix.to_string()
            } else if prefix.is_empty() {
                p
            } else {
                format!("{prefix}::{p}")
            }
        })
        .collect()
}

/// Every crate path a file of module `module` (`["people", "session"]`) names, with its line: the
/// paths of its `use` items read whole (over lines and nested groups, `super::` and `self::` resolved
/// from the file's place) and the `crate::…` paths in its code, comments left out.
fn crate_paths(module: &[String], text: &str) -> Vec<(usize, String)> {
    let code: Vec<&str> = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect();
    let joined = code.join("\n");
    let line_of = |at: usize| joined[..at].matches('\n').count() + 1;
    let resolve = |p: &str| -> Option<String> {
        let mut base: Vec<String> = module.to_vec();
        let mut rest = p;
        if let Some(r) = rest.strip_prefix("crate::") {
            return Some(format!("crate::{r}"));
        }
        if let Some(r) = rest.strip_prefix("self::") {
            return Some(format!("crate::{}::{r}", base.join("::")));
        }
        if !rest.starts_with("super::") {
            return None;
        }
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        let head = base.join("::");
        Some(if head.is_empty() { format!("crate::{rest}") } else { format!("crate::{head}::{rest}") })
    };
    let mut out = Vec::new();
    // `use` items, whole.
    let mut at = 0;
    while let Some(i) = joined[at..].find("use ") {
        let start = at + i;
        at = start + 4;
        let before = joined[..start].chars().last();
        if before.is_some_and(|c| !(c.is_whitespace() || c == ';' || c == '{' || c == '}' || c == ')')) {
            continue;
        }
        let Some(end) = joined[start..].find(';') else { break };
        let tree: String = joined[start + 4..start + end].split_whitespace().collect::<Vec<_>>().join(" ");
        // A `use` item's tree is paths, groups and renames; the word in prose or a string is not.
        let is_tree = tree.chars().all(|c| c.is_alphanumeric() || "_:{},* ".contains(c))
            && tree.matches('{').count() == tree.matches('}').count()
            && tree.starts_with(|c: char| c.is_alphabetic() || c == '{' || c == ':');
        if !is_tree {
            continue;
        }
        for p in expand(&tree) {
            if let Some(full) = resolve(&p) {
                out.push((line_of(start), full));
            }
        }
    }
    // `crate::` paths in code.
    for (i, line) in code.iter().enumerate() {
        for (k, _) in line.match_indices("crate::") {
            let path: String =
                line[k..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            out.push((i + 1, path));
        }
    }
    out
}

/// Whether `path` (`crate::a::b`) is in module `module` of the crate root.
fn names_module(path: &str, module: &str) -> bool {
    path.strip_prefix("crate::")
        .and_then(|r| r.strip_prefix(module))
        .is_some_and(|r| r.is_empty() || r.starts_with("::"))
}

/// Lines of the files under `src/<dir>` (or the file `src/<dir>.rs`) that name `crate::<module>`, by
/// any path ([`crate_paths`]).
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
        let rel = f.strip_prefix(&src).unwrap().with_extension("");
        let mut place: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        if place.last().is_some_and(|m| m == "mod") {
            place.pop();
        }
        let lines: Vec<&str> = text.lines().collect();
        for (line, path) in crate_paths(&place, &text) {
            if names_module(&path, module) {
                hits.push(format!("{}:{line}: {} ({path})", f.display(), lines[line - 1].trim()));
            }
        }
    }
    hits.dedup();
    hits
}

/// The whole-item reading catches what a line-by-line one missed: a `use crate::{…}` group wrapped
/// over lines, nested groups, `super::super::` and `self::`.
#[test]
fn use_items_are_read_whole() {
    let module = ["people".to_string(), "session".to_string()];
    let text = "use crate::{\n    results::record,\n    llm::{nback, lrt as l},\n};\nuse super::super::llm::score;\n\
                use self::inner::x;\n// use crate::llm::commented;\nfn f() { crate::analysis::go(); }\n";
    let paths: Vec<String> = crate_paths(&module, text).into_iter().map(|(_, p)| p).collect();
    for want in [
        "crate::results::record",
        "crate::llm::nback",
        "crate::llm::lrt",
        "crate::llm::score",
        "crate::people::session::inner::x",
        "crate::analysis::go",
    ] {
        assert!(paths.iter().any(|p| p == want), "{want} not in {paths:?}");
    }
    assert!(!paths.iter().any(|p| p.contains("commented")));
    let lines: Vec<usize> = crate_paths(&module, text).into_iter().map(|(l, _)| l).collect();
    assert_eq!(lines[..5], [1, 1, 1, 5, 6], "each path at its `use` item's first line");
    assert!(names_module("crate::llm::x", "llm") && !names_module("crate::llmx", "llm"));
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
    ("subjects", &["people", "llm", "networks"]),
    ("analysis", &["analysis"]),
    ("protocol", &["nn_protocol"]),
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

/// Every Rust source file of the workspace's crates (the app's and each member's `src/`).
fn workspace_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for top in ["src", "crates/core/src", "crates/llm/src", "crates/nn/src", "crates/cli/src", "crates/nn-worker/src"] {
        rust_files(&root.join(top), &mut files);
    }
    files
}

/// One module style across the workspace's sources: a module with submodules is `foo/mod.rs`, never
/// `foo.rs` beside a folder `foo/`.
#[test]
fn one_module_style() {
    let both: Vec<String> = workspace_sources()
        .into_iter()
        .filter(|f| {
            f.with_extension("").is_dir()
                && f.file_name().is_some_and(|n| n != "mod.rs" && n != "lib.rs" && n != "main.rs")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert_eq!(both, Vec::<String>::new(), "move each to <name>/mod.rs");
}

/// No source file over 1,500 lines: a file that grows past it is several things (split it into a
/// folder, one part a file).
#[test]
fn no_file_over_1500_lines() {
    let mut long = Vec::new();
    for f in workspace_sources() {
        let n = std::fs::read_to_string(&f).unwrap().lines().count();
        if n > 1500 {
            long.push(format!("{} ({n} lines)", f.display()));
        }
    }
    assert_eq!(long, Vec::<String>::new());
}

/// The core's and the LLM crate's public functions return typed errors (invariant 15): no public
/// `Result<_, String>`, whose `?` would flatten an error into text unseen.
#[test]
fn no_public_result_of_string() {
    let mut found = Vec::new();
    let library = |f: &Path| ["core", "llm"].iter().any(|c| f.to_string_lossy().contains(&format!("crates/{c}/src")));
    for f in workspace_sources().into_iter().filter(|f| library(f)) {
        let text = std::fs::read_to_string(&f).unwrap();
        for (at, _) in text.match_indices("pub ").filter(|(at, _)| {
            let rest = &text[at + 4..];
            rest.starts_with("fn ") || rest.starts_with("async fn ") || rest.starts_with("const fn ")
        }) {
            let end = text[at..].find(['{', ';']).map_or(text.len(), |e| at + e);
            let sig: String = text[at..end].split_whitespace().collect::<Vec<_>>().join(" ");
            if sig.ends_with(", String>") && sig.contains("-> Result<") {
                found.push(format!("{}: {sig}", f.display()));
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
}
