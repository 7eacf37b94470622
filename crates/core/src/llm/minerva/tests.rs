//! Tests of the Minerva generator. Most use a synthetic word list (fast, no files); the snapshot and
//! real-word-list tests read `shared/` beside the repository (skipped with a note when it is absent).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;

const TEST_TOKENS: usize = 1500;

fn synthetic_words() -> &'static Vec<String> {
    static W: OnceLock<Vec<String>> = OnceLock::new();
    W.get_or_init(|| {
        let mut rng = Rng::from_u64(12345);
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        while out.len() < 30_000 {
            let n = rng.randint(3, 10);
            let w: String = (0..n).map(|_| (b'a' + rng.below(26) as u8) as char).collect();
            if seen.insert(w.clone()) {
                out.push(w);
            }
        }
        out
    })
}

fn test_config() -> MinervaConfig {
    MinervaConfig { seed: 7, context_tokens: TEST_TOKENS, ..Default::default() }
}

/// The paper set (and the extras) generated once with the synthetic list.
fn paper_set() -> &'static Vec<Sample> {
    static S: OnceLock<Vec<Sample>> = OnceLock::new();
    S.get_or_init(|| {
        let names: Vec<String> = TASKS.iter().chain(EXTRA_TASKS).map(|t| t.0.to_string()).collect();
        generate(&MinervaConfig { tasks: Some(names), ..test_config() }, synthetic_words(), &Tokenizer::cl100k())
    })
}

fn single(s: &Sample) -> &Single {
    match &s.body {
        SampleBody::Single(x) => x,
        _ => panic!("minerva samples are single"),
    }
}

fn user(s: &Sample) -> &str {
    let m = &single(s).messages;
    assert_eq!(m.len(), 2);
    assert_eq!(m[0], Message::system(SYSTEM_PROMPT));
    &m[1].content
}

/// The context part of a `Context:\n...\n\nInstruction:` prompt.
fn context_of(p: &str) -> &str {
    let start = p.strip_prefix("Context:\n").map(|_| "Context:\n".len()).expect("Context: prompt");
    let end = p.find("\n\nInstruction:\n").expect("instruction");
    &p[start..end]
}

fn instruction_of(p: &str) -> &str {
    let i = p.find("\n\nInstruction:\n").unwrap() + "\n\nInstruction:\n".len();
    &p[i..]
}

/// The double-quoted strings of a text.
fn quoted(s: &str) -> Vec<&str> {
    s.split('"').skip(1).step_by(2).collect()
}

fn items(ctx: &str) -> Vec<&str> {
    ctx.split(", ").collect()
}

fn lists(ctx: &str, label: &str) -> Vec<(usize, Vec<String>)> {
    ctx.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let rest = l.strip_prefix(label).expect("label");
            let (n, ws) = rest.split_once(": ").unwrap_or((rest.trim_end_matches(':'), ""));
            (n.parse().unwrap(), if ws.is_empty() { vec![] } else { ws.split(", ").map(String::from).collect() })
        })
        .collect()
}

fn ref_text(s: &Sample) -> &str {
    match &single(s).reference {
        Reference::Text(t) => t,
        r => panic!("{}: text reference expected, got {r:?}", s.id),
    }
}

fn by_task(task: &str) -> Vec<&'static Sample> {
    paper_set().iter().filter(|s| s.task == task).collect()
}

#[test]
fn minerva_sparse_sample_equals_rng_sample() {
    for (n, k) in [(10, 10), (50, 7), (1000, 999), (5, 0)] {
        let mut a = Rng::from_u64(n as u64 + k as u64);
        let mut b = a.clone();
        assert_eq!(sparse_sample(&mut a, n, k), b.sample(n, k));
    }
}

#[test]
fn minerva_table10_counts_total_1110() {
    let cfg = test_config();
    let total: usize = TASKS.iter().map(|t| t.2).sum();
    assert_eq!(total, 1110);
    let mut per_cat: BTreeMap<&str, usize> = BTreeMap::new();
    for &(task, cat, n) in TASKS.iter().chain(EXTRA_TASKS) {
        assert_eq!(task_count(&cfg, task), n, "{task}");
        assert_eq!(by_task(task).len(), n, "{task}");
        if TASKS.iter().any(|t| t.0 == task) {
            *per_cat.entry(cat).or_default() += n;
        }
        for (i, s) in by_task(task).iter().enumerate() {
            assert_eq!(s.id, format!("minerva/{task}/{i}"));
            assert_eq!(s.suite, Suite::Minerva);
            assert_eq!(s.conditions["category"], cat);
            assert_eq!(single(s).metrics, task_metrics(task));
        }
    }
    // Table 10 category totals.
    let expect = [
        ("search", 200),
        ("recall_and_edit", 105),
        ("match_and_compare", 175),
        ("spot_the_differences", 260),
        ("compute_on_sets_and_lists", 210),
        ("stateful_processing", 50),
        ("composite", 110),
    ];
    for (c, n) in expect {
        assert_eq!(per_cat[c], n, "{c}");
    }
    // The default configuration is the paper set.
    let ids: HashSet<&str> = paper_set().iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), 1110 + 70);
    // Scaling.
    let small = MinervaConfig { samples_per_cell: Some(1), ..cfg.clone() };
    assert_eq!(task_count(&small, "patch_the_difference"), 24);
    assert_eq!(task_count(&small, "compare_positions"), 25);
    let mut one = cfg;
    one.task_samples.insert("count".into(), 2);
    assert_eq!(task_count(&one, "count"), 10);
}

#[test]
fn minerva_metrics_per_task() {
    use Metric::*;
    // one table for generated and snapshot samples
    for (task, _, _) in TASKS.iter().chain(EXTRA_TASKS.iter()) {
        assert_eq!(Some(task_metrics(task).as_slice()), crate::llm::snapshot::metrics_for(task), "{task}");
    }
    // the paper's Table 10 headline metric comes first
    let head = |t: &str| task_metrics(t)[0];
    assert_eq!(task_metrics("key_value_search"), vec![ExactMatch, ExactMatchStrict]);
    assert_eq!(head("count"), ExactMatch);
    assert!(task_metrics("count").contains(&CountAccuracy));
    assert_eq!(head("batch_key_value_search"), RougeLRecall);
    assert_eq!(head("compare_two_lists"), RougeLRecall);
    assert_eq!(head("replace_all"), RougeL);
    assert_eq!(head("quantity_state"), FinalAnswerExactMatch);
    assert_eq!(head("set_state"), Jaccard);
    assert_eq!(head("theory_of_mind"), TheoryOfMind);
}

#[test]
fn minerva_deterministic_per_seed_and_task_streams_independent() {
    let words = synthetic_words();
    let cfg = MinervaConfig {
        tasks: Some(vec!["key_value_search".into(), "quantity_state".into(), "theory_of_mind".into()]),
        samples_per_cell: Some(1),
        ..test_config()
    };
    let a = generate(&cfg, words, &Tokenizer::cl100k());
    let b = generate(&cfg, words, &Tokenizer::cl100k());
    assert_eq!(a, b);
    let c = generate(&MinervaConfig { seed: 8, ..cfg.clone() }, words, &Tokenizer::cl100k());
    assert_ne!(a, c);
    // A task's samples do not depend on which other tasks are generated.
    let alone = generate(
        &MinervaConfig { tasks: Some(vec!["quantity_state".into()]), ..cfg.clone() },
        words,
        &Tokenizer::cl100k(),
    );
    let within: Vec<Sample> = a.into_iter().filter(|s| s.task == "quantity_state").collect();
    assert_eq!(alone, within);
}

#[test]
fn minerva_search_references_by_construction() {
    for s in by_task("string_search_word").into_iter().chain(by_task("string_search_gibberish")) {
        let p = user(s);
        let ctx = items(context_of(p));
        let w = quoted(instruction_of(p))[0];
        assert_eq!(ref_text(s), yes_no(ctx.contains(&w)), "{}", s.id);
        assert_eq!(s.conditions["label"], ref_text(s));
        if ref_text(s) == "yes" {
            let q = DEPTHS.iter().find(|d| d.1 == s.conditions["context_depth"]).unwrap().0;
            assert_eq!(ctx[depth_index(ctx.len(), q)], w);
        }
    }
    for s in by_task("string_search_sequence") {
        let p = user(s);
        let ctx: Vec<String> = items(context_of(p)).into_iter().map(String::from).collect();
        let seq: Vec<String> = quoted(instruction_of(p))[0].split(", ").map(String::from).collect();
        assert_eq!(seq.len().to_string(), s.conditions["sequence_length"]);
        assert_eq!(ref_text(s), yes_no(contains_run(&ctx, &seq)), "{}", s.id);
    }
    for s in by_task("key_value_search") {
        let p = user(s);
        assert!(p.ends_with("the corresponding second word is:"));
        let pairs: Vec<(&str, &str)> = items(context_of(p)).iter().map(|x| x.split_once(": ").unwrap()).collect();
        let key = quoted(instruction_of(p))[1];
        let q = DEPTHS.iter().find(|d| d.1 == s.conditions["context_depth"]).unwrap().0;
        let i = depth_index(pairs.len(), q);
        assert_eq!(pairs[i].0, key);
        assert_eq!(ref_text(s), pairs[i].1);
    }
    for s in by_task("batch_key_value_search") {
        let p = user(s);
        let pairs: BTreeMap<&str, &str> = items(context_of(p)).iter().map(|x| x.split_once(": ").unwrap()).collect();
        let keys: Vec<&str> = quoted(instruction_of(p))[1].split(", ").collect();
        assert_eq!(keys.len().to_string(), s.conditions["n_words"]);
        let vals: Vec<&str> = keys.iter().map(|k| pairs[k]).collect();
        assert_eq!(ref_text(s), vals.join(", "));
    }
}

#[test]
fn minerva_recall_edit_references_by_construction() {
    for s in by_task("snapshot_unique_words").into_iter().chain(by_task("snapshot_random_numbers")) {
        assert_eq!(ref_text(s), context_of(user(s)));
    }
    for s in by_task("replace_all").into_iter().chain(by_task("replace_all_x_to_null")) {
        let p = user(s);
        let ctx = items(context_of(p));
        let q = quoted(instruction_of(p));
        let density: f64 = s.conditions["density"].parse().unwrap();
        let n = ctx.iter().filter(|w| **w == q[0]).count();
        assert_eq!(n, (ctx.len() as f64 * density + 1e-9) as usize, "{}", s.id);
        let expect: Vec<&str> = if s.task == "replace_all" {
            ctx.iter().map(|w| if *w == q[0] { q[1] } else { *w }).collect()
        } else {
            ctx.iter().filter(|w| **w != q[0]).copied().collect()
        };
        assert_eq!(ref_text(s), expect.join(", "));
    }
    for s in by_task("overwrite_positions").into_iter().chain(by_task("overwrite_positions_nth_to_null")) {
        let p = user(s);
        let ctx = items(context_of(p));
        let nth: usize = s.conditions["nth"].parse().unwrap();
        let r = items(ref_text(s));
        if s.task == "overwrite_positions" {
            let y = quoted(instruction_of(p))[0];
            assert_eq!(r.len(), ctx.len());
            for i in 0..ctx.len() {
                assert_eq!(r[i], if (i + 1) % nth == 0 { y } else { ctx[i] });
            }
        } else {
            assert_eq!(r.len(), ctx.len() - ctx.len() / nth);
        }
    }
    for s in by_task("functional_updates") {
        let ctx: Vec<i64> = items(context_of(user(s))).iter().map(|x| x.parse().unwrap()).collect();
        let r: Vec<i64> = items(ref_text(s)).iter().map(|x| x.parse().unwrap()).collect();
        let f = |x: i64| match s.conditions["operation"].as_str() {
            "add" => x + 3,
            "subtract" => x - 1,
            _ => x * 2,
        };
        assert!(ctx.iter().all(|x| (0..=1000).contains(x)));
        assert_eq!(r, ctx.iter().map(|&x| f(x)).collect::<Vec<_>>());
    }
}

#[test]
fn minerva_match_compare_references_by_construction() {
    for s in by_task("compare_positions") {
        let p = user(s);
        let ctx = items(context_of(p));
        let q = quoted(instruction_of(p));
        let (i, j) = (ctx.iter().position(|w| *w == q[0]).unwrap(), ctx.iter().position(|w| *w == q[1]).unwrap());
        assert_ne!(i, j);
        assert_eq!(ref_text(s), yes_no(i < j));
        let d1: f64 = s.conditions["context_depth_1"].parse().unwrap();
        let d2: f64 = s.conditions["context_depth_2"].parse().unwrap();
        assert_eq!(ref_text(s), yes_no(d1 <= d2));
    }
    for s in by_task("count").into_iter().chain(by_task("find_duplicates")) {
        let p = user(s);
        let ctx = items(context_of(p));
        let rep: usize = s.conditions["repetition_count"].parse().unwrap();
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for w in &ctx {
            *counts.entry(w).or_default() += 1;
        }
        let dups: Vec<(&str, usize)> = counts.into_iter().filter(|(_, n)| *n > 1).collect();
        assert_eq!(dups.len(), 1, "{}", s.id);
        assert_eq!(dups[0].1, rep);
        if s.task == "count" {
            let w = quoted(instruction_of(p))[0];
            assert_eq!(w, dups[0].0);
            assert!(p.ends_with(&format!("\n\nAnswer: The word \"{w}\" appears")));
            assert_eq!(ref_text(s), rep.to_string());
        } else {
            assert_eq!(ref_text(s), dups[0].0);
            assert!(p.ends_with("\n\nThe repeated word is:"));
        }
    }
    for s in by_task("check_association") {
        let p = user(s);
        let att: BTreeMap<&str, &str> = items(context_of(p)).iter().map(|x| x.split_once(": ").unwrap()).collect();
        let n: usize = s.conditions["n_attribute"].parse().unwrap();
        assert!(att.values().all(|a| a.strip_prefix("ATT_").unwrap().parse::<usize>().unwrap() <= n));
        let q = quoted(instruction_of(p));
        assert_eq!(q[0], "word: ATT_N");
        assert_ne!(q[1], q[2]);
        assert_eq!(ref_text(s), yes_no(att[q[1]] == att[q[2]]));
    }
}

#[test]
fn minerva_spot_differences_references_by_construction() {
    for s in by_task("compare_two_lists") {
        let p = user(s);
        let ls = lists(context_of(p), "List ");
        assert_eq!(ls.len(), 2);
        let (a, b) = (&ls[0].1, &ls[1].1);
        assert_eq!(a.len(), b.len());
        let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        assert_eq!(diff.len().to_string(), s.conditions["n_difference"]);
        let want: BTreeSet<&str> = diff
            .iter()
            .map(|&i| if s.conditions["chosen_list"] == "first" { a[i].as_str() } else { b[i].as_str() })
            .collect();
        assert_eq!(items(ref_text(s)).into_iter().collect::<BTreeSet<_>>(), want);
        assert!(b.iter().filter(|w| !a.contains(w)).count() == diff.len(), "replacements are new words");
    }
    for s in by_task("identify_odd_group") {
        let ls = lists(context_of(user(s)), "List ");
        assert!(ls.len() >= 2);
        let sets: Vec<BTreeSet<&String>> = ls.iter().map(|(_, l)| l.iter().collect()).collect();
        let odd: Vec<usize> =
            (0..sets.len()).filter(|&i| sets.iter().filter(|t| **t == sets[i]).count() == 1).collect();
        assert_eq!(odd.len(), 1, "{}", s.id);
        assert_eq!(ref_text(s), format!("List {}", ls[odd[0]].0));
        assert_eq!(ls[0].1.len().to_string(), s.conditions["n_words"]);
    }
    for s in by_task("patch_the_difference") {
        let p = user(s);
        let ctx = items(context_of(p));
        let l: usize = s.conditions["pattern_length"].parse().unwrap();
        let nth: usize = s.conditions["nth"].parse().unwrap();
        let pattern = &ctx[..l];
        for (i, w) in ctx.iter().enumerate() {
            assert_eq!(*w, pattern[i % l]);
        }
        assert_eq!(ref_text(s), pattern[(ctx.len() - 1 + nth) % l]);
        assert!(!(l == 2 && s.conditions["start"] == "0.5"));
    }
}

#[test]
fn minerva_sets_lists_references_by_construction() {
    for s in by_task("group_membership") {
        let p = user(s);
        let ls = lists(context_of(p), "List ");
        assert_eq!(ls.len().to_string(), s.conditions["n_list"]);
        let w = quoted(instruction_of(p))[0];
        let holder: Vec<usize> = ls.iter().filter(|(_, l)| l.iter().any(|x| x == w)).map(|(n, _)| *n).collect();
        match holder.as_slice() {
            [] => assert_eq!(ref_text(s), "no"),
            [n] => assert_eq!(ref_text(s), format!("List {n}")),
            _ => panic!("word in two lists"),
        }
    }
    for s in by_task("group_association") {
        let p = user(s);
        let ls = lists(context_of(p), "List ");
        let q = quoted(instruction_of(p));
        let find = |w: &str| ls.iter().find(|(_, l)| l.iter().any(|x| x == w)).unwrap().0;
        assert_ne!(q[0], q[1]);
        assert_eq!(ref_text(s), yes_no(find(q[0]) == find(q[1])));
    }
    for s in by_task("alternating_group_association") {
        let p = user(s);
        let ctx = context_of(p);
        let ls = lists(ctx, "Role ");
        let n: usize = s.conditions["n_roles"].parse().unwrap();
        assert_eq!(ls.len(), n * 10);
        let q = quoted(instruction_of(p));
        let find = |w: &str| ls.iter().find(|(_, l)| l.iter().any(|x| x == w)).unwrap().0;
        assert_eq!(ref_text(s), yes_no(find(q[0]) == find(q[1])));
    }
    for s in by_task("iterate_last").into_iter().chain(by_task("iterate_first")) {
        let ls = lists(context_of(user(s)), "List ");
        let want: Vec<&str> = ls
            .iter()
            .map(|(_, l)| if s.task == "iterate_last" { l.last().unwrap() } else { l.first().unwrap() }.as_str())
            .collect();
        assert_eq!(ref_text(s), want.join(", "));
    }
    for s in by_task("processing_data_blocks") {
        let p = user(s);
        let ls = lists(context_of(p), "Role ");
        let q = quoted(instruction_of(p));
        let role: usize = q[0].strip_prefix("Role ").unwrap().parse().unwrap();
        let seq: Vec<&str> =
            ls.iter().filter(|(r, _)| *r == role).flat_map(|(_, l)| l.iter().map(String::as_str)).collect();
        let i = seq.iter().position(|w| *w == q[1]).unwrap();
        assert!(i + 1 < seq.len());
        assert_eq!(ref_text(s), seq[i + 1..].join(", "));
    }
}

#[test]
fn minerva_stateful_references_replay() {
    for s in by_task("quantity_state") {
        let p = user(s);
        let body = p.strip_prefix("Context:\n\nBegin with the number ").unwrap();
        let (start, rest) = body.split_once(". Perform the following operations:\n").unwrap();
        let mut v: i64 = start.parse().unwrap();
        let ops = &rest[..rest.find("\n\nInstruction:").unwrap()];
        let mut n = 0;
        for (i, line) in ops.lines().enumerate() {
            let (num, op) = line.split_once(". ").unwrap();
            assert_eq!(num.parse::<usize>().unwrap(), i + 1);
            if let Some(k) = op.strip_prefix("Add ") {
                v += k.parse::<i64>().unwrap();
            } else {
                v -= op.strip_prefix("Subtract ").unwrap().parse::<i64>().unwrap();
            }
            n += 1;
        }
        assert_eq!(n, 200);
        assert_eq!(single(s).reference, Reference::Int(v));
        assert!(p.ends_with("\n\nFINAL ANSWER:"));
    }
    for s in by_task("set_state") {
        let p = user(s);
        let ops = p.strip_prefix("Agent actions:\n\n").unwrap();
        let ops = &ops[..ops.find("\n\n\nInstruction:").unwrap()];
        let size: usize = s.conditions["state_size"].parse().unwrap();
        let mut st: Vec<String> = Vec::new();
        for line in ops.lines() {
            let line = line.strip_suffix('.').unwrap();
            if let Some(ws) = line.strip_prefix("Agent draws the following words: ") {
                st.extend(ws.split(", ").map(String::from));
            } else {
                let ws: Vec<&str> =
                    line.strip_prefix("Agent discards the following words: ").unwrap().split(", ").collect();
                for w in &ws {
                    assert!(st.iter().any(|x| x == w));
                }
                st.retain(|x| !ws.contains(&x.as_str()));
            }
            assert!(st.len() <= size);
        }
        assert_eq!(ops.lines().count(), 101);
        assert_eq!(single(s).reference, Reference::List(st));
    }
    for s in by_task("theory_of_mind") {
        let p = user(s);
        let ops = p.strip_prefix("Agents actions:\n\n").unwrap();
        let ops = &ops[..ops.find("\n\n\nInstruction:").unwrap()];
        let mut st: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut actions = 0;
        for line in ops.lines() {
            let line = line.strip_suffix('.').unwrap();
            let (agent, rest) = line.split_at(7);
            let agent = agent.to_string();
            let rest = rest.trim_start();
            if let Some(ws) = rest.strip_prefix("starts with the following words: ") {
                st.insert(agent, ws.split(", ").map(String::from).collect());
                continue;
            }
            actions += 1;
            if let Some(ws) = rest.strip_prefix("draws the following words: ") {
                st.get_mut(&agent).unwrap().extend(ws.split(", ").map(String::from));
            } else if let Some(ws) = rest.strip_prefix("discards the following words: ") {
                let ws: Vec<&str> = ws.split(", ").collect();
                st.get_mut(&agent).unwrap().retain(|x| !ws.contains(&x.as_str()));
            } else {
                let q = quoted(rest);
                let other = rest.split(" with ").nth(1).unwrap()[..7].to_string();
                let give: Vec<String> = q[0].split(", ").map(String::from).collect();
                let get: Vec<String> = q[1].split(", ").map(String::from).collect();
                for w in &give {
                    assert!(st[&agent].contains(w));
                }
                for w in &get {
                    assert!(st[&other].contains(w));
                }
                st.get_mut(&agent).unwrap().retain(|x| !give.contains(x));
                st.get_mut(&other).unwrap().retain(|x| !get.contains(x));
                st.get_mut(&agent).unwrap().extend(get);
                st.get_mut(&other).unwrap().extend(give);
            }
        }
        assert_eq!(actions, 100);
        assert_eq!(st.len().to_string(), s.conditions["n_agents"]);
        assert_eq!(single(s).reference, Reference::Agents(st));
    }
}

/// Tasks whose prompt context is the trimmed generator output itself (no edits after trimming).
const TRIMMED_FLAT: &[&str] = &[
    "string_search_word",
    "string_search_gibberish",
    "string_search_sequence",
    "key_value_search",
    "batch_key_value_search",
    "snapshot_unique_words",
    "snapshot_random_numbers",
    "overwrite_positions",
    "overwrite_positions_nth_to_null",
    "functional_updates",
    "compare_positions",
    "check_association",
];

#[test]
fn minerva_contexts_within_token_budget_and_whole_items() {
    let words: HashSet<&str> = synthetic_words().iter().map(String::as_str).collect();
    let max = TEST_TOKENS;
    for s in paper_set() {
        let p = user(s);
        if TRIMMED_FLAT.contains(&s.task.as_str()) {
            let ctx = context_of(p);
            assert!(count_tokens(ctx) <= max, "{}: {} tokens", s.id, count_tokens(ctx));
            // The trim kept whole items only, and nearly filled the budget.
            assert!(count_tokens(ctx) + 12 >= max, "{}: only {} tokens", s.id, count_tokens(ctx));
            for it in items(ctx) {
                let whole = match s.task.as_str() {
                    "snapshot_random_numbers" | "functional_updates" => it.parse::<u32>().is_ok(),
                    "string_search_gibberish" => (2..=9).contains(&it.len()),
                    "key_value_search" | "batch_key_value_search" => {
                        let (k, v) = it.split_once(": ").unwrap();
                        words.contains(k) && words.contains(v)
                    }
                    "check_association" => words.contains(it.split_once(": ").unwrap().0),
                    _ => words.contains(it),
                };
                assert!(whole, "{}: partial item {it:?}", s.id);
            }
        }
        // Lists and roles: the words are one trimmed context split round-robin / in chunks, so the words
        // alone fit the budget; the "List k: " labels come on top, as in the reference.
        if ["group_membership", "group_association", "iterate_last", "iterate_first"].contains(&s.task.as_str()) {
            let ls = lists(context_of(p), "List ");
            let n = ls.len();
            let mut flat = Vec::new();
            let longest = ls.iter().map(|l| l.1.len()).max().unwrap();
            for i in 0..longest {
                for (_, l) in &ls {
                    if let Some(w) = l.get(i) {
                        flat.push(w.as_str());
                    }
                }
            }
            assert!(count_tokens(&flat.join(", ")) <= max, "{}", s.id);
            assert!(count_tokens(context_of(p)) <= max + 6 * n, "{}", s.id);
        }
        if s.task == "compare_two_lists" {
            let ls = lists(context_of(p), "List ");
            assert!(count_tokens(&ls[0].1.join(", ")) <= max / 2);
        }
    }
}

// ----- the published snapshot and the real word list --------------------------------------------------

/// The snapshot and word list the app ships (`public/data/minerva`, copied from `shared/data/minerva`).
/// Always in the repository: a missing file is a failure, not a skip.
fn data_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/data/minerva");
    assert!(d.is_dir(), "{} is missing: the Minerva data ship with the repository", d.display());
    d
}

/// Gunzip with miniz_oxide (gzip header, raw deflate, trailer ignored).
fn gunzip(data: &[u8]) -> Vec<u8> {
    assert_eq!(&data[..2], &[0x1f, 0x8b]);
    let flags = data[3];
    let mut pos = 10;
    if flags & 4 != 0 {
        pos += 2 + u16::from_le_bytes([data[pos], data[pos + 1]]) as usize;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            pos += data[pos..].iter().position(|&b| b == 0).unwrap() + 1;
        }
    }
    if flags & 2 != 0 {
        pos += 2;
    }
    miniz_oxide::inflate::decompress_to_vec(&data[pos..]).expect("inflate")
}

fn snapshot_entries(dir: &Path, category: &str, task: &str) -> Vec<serde_json::Value> {
    let path = dir.join("minerva_snapshot").join(category).join(format!("{task}.jsonl.gz"));
    let raw = gunzip(&std::fs::read(&path).unwrap());
    String::from_utf8(raw).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Replace quoted strings by `"X"` and digit runs by `N` (the variable parts of an instruction).
fn normalize(s: &str) -> String {
    let mut out = String::new();
    let mut in_quote = false;
    let mut last_digit = false;
    for c in s.chars() {
        if c == '"' {
            if !in_quote {
                out.push_str("\"X\"");
            }
            in_quote = !in_quote;
            last_digit = false;
            continue;
        }
        if in_quote {
            continue;
        }
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('N');
            }
            last_digit = true;
        } else {
            out.push(c);
            last_digit = false;
        }
    }
    out
}

/// The prompt's structure: its head (first line, and what the second line starts with) and the
/// normalized tail from the newlines before "Instruction:" to the end.
fn shape(p: &str) -> (String, String, String) {
    let mut lines = p.split('\n');
    let first = lines.next().unwrap().to_string();
    let second = lines.next().unwrap_or("");
    let kind = ["List ", "Role ", "Agent", "Begin"]
        .iter()
        .find(|k| second.starts_with(**k))
        .map_or(if second.is_empty() { "" } else { "word" }, |k| k);
    let i = p.find("Instruction:\n").unwrap();
    let j = p[..i].trim_end_matches('\n').len();
    (first, kind.to_string(), normalize(&p[j..]))
}

fn json_condition(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
fn minerva_templates_match_snapshot() {
    let dir = data_dir();
    for &(task, category, n) in TASKS.iter().chain(EXTRA_TASKS) {
        let snap = snapshot_entries(&dir, category, task);
        assert_eq!(snap.len(), n, "{task}: snapshot count");
        let mine = by_task(task);
        let want: BTreeSet<(String, String, String)> =
            snap.iter().map(|e| shape(e["prompt"].as_str().unwrap())).collect();
        let got: BTreeSet<(String, String, String)> = mine.iter().map(|s| shape(user(s))).collect();
        assert_eq!(got, want, "{task}: prompt shape differs from the snapshot");
        // Reference kinds.
        let kind = |v: &serde_json::Value| match v {
            serde_json::Value::String(_) => "text",
            serde_json::Value::Number(_) => "int",
            serde_json::Value::Array(_) => "list",
            serde_json::Value::Object(_) => "agents",
            _ => "other",
        };
        let snap_kinds: BTreeSet<&str> = snap.iter().map(|e| kind(&e["reference"])).collect();
        let my_kinds: BTreeSet<&str> =
            mine.iter().map(|s| kind(&serde_json::to_value(&single(s).reference).unwrap())).collect();
        assert_eq!(my_kinds, snap_kinds, "{task}: reference kind");
        // Condition keys and values of the snapshot (context_length aside: tests run a shorter context).
        for e in &snap {
            assert_eq!(e["category"], category, "{task}");
        }
        let mut snap_conds: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for e in &snap {
            for (k, v) in e.as_object().unwrap() {
                if !["id", "prompt", "reference", "task", "category", "context_length"].contains(&k.as_str()) {
                    snap_conds.entry(k.clone()).or_default().insert(json_condition(v));
                }
            }
        }
        for (k, vals) in snap_conds {
            let mine_vals: BTreeSet<String> =
                mine.iter().map(|s| s.conditions.get(&k).cloned().unwrap_or_default()).collect();
            assert_eq!(mine_vals, vals, "{task}: condition {k}");
        }
    }
}

fn real_words(dir: &Path) -> Vec<String> {
    let raw = gunzip(&std::fs::read(dir.join("words_alpha_dwyl_2019-03-13.txt.gz")).unwrap());
    String::from_utf8(raw)
        .unwrap()
        .lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn minerva_real_word_list_matches_snapshot_sizes() {
    let dir = data_dir();
    let words = real_words(&dir);
    assert_eq!(words.len(), 370_099);
    // The snapshot's own contexts are within 4000 cl100k tokens and nearly fill them.
    for (cat, task) in [
        ("recall_and_edit", "snapshot_unique_words"),
        ("search", "key_value_search"),
        ("recall_and_edit", "snapshot_random_numbers"),
    ] {
        for e in snapshot_entries(&dir, cat, task) {
            let n = count_tokens(context_of(e["prompt"].as_str().unwrap()));
            assert!((3985..=4000).contains(&n), "{task}: snapshot context of {n} tokens");
        }
    }
    let cfg = MinervaConfig {
        seed: 1,
        tasks: Some(vec![
            "snapshot_unique_words".into(),
            "key_value_search".into(),
            "snapshot_random_numbers".into(),
            "group_membership".into(),
        ]),
        samples_per_cell: Some(2),
        ..Default::default()
    };
    let samples = generate(&cfg, &words, &Tokenizer::cl100k());
    for s in &samples {
        let ctx = context_of(user(s));
        let n = items(ctx).len();
        match s.task.as_str() {
            // Snapshot: 1,047–1,074 unique words; ~530–539 pairs; ~1,333 numbers.
            "snapshot_unique_words" => assert!((1000..=1120).contains(&n), "{n} words"),
            "key_value_search" => assert!((500..=570).contains(&n), "{n} pairs"),
            "snapshot_random_numbers" => assert!((1300..=1360).contains(&n), "{n} numbers"),
            _ => {}
        }
        if s.task != "group_membership" {
            let t = count_tokens(ctx);
            assert!((3985..=4000).contains(&t), "{}: {t} tokens", s.id);
        }
        assert_eq!(s.conditions["context_length"], "4000");
    }
}

/// The full paper set on the real word list (slow in debug builds: run with `--release --ignored`).
#[test]
#[ignore]
fn minerva_real_word_list_full_paper_set() {
    let dir = data_dir();
    let words = real_words(&dir);
    let t = std::time::Instant::now();
    let samples = generate(&MinervaConfig::default(), &words, &Tokenizer::cl100k());
    eprintln!("generated {} samples in {:?}", samples.len(), t.elapsed());
    for &(task, _, _) in TASKS {
        let t = std::time::Instant::now();
        generate(&MinervaConfig { tasks: Some(vec![task.into()]), ..Default::default() }, &words, &Tokenizer::cl100k());
        eprintln!("  {task}: {:?}", t.elapsed());
    }
    assert_eq!(samples.len(), 1110);
    for task in ["string_search_word", "group_membership", "processing_data_blocks", "theory_of_mind"] {
        let s = samples.iter().find(|s| s.task == task).unwrap();
        let p = user(s);
        eprintln!("--- {task}: {}…{}", &p[..120.min(p.len())], &p[p.len() - 300.min(p.len())..]);
    }
}

#[test]
fn a_sweep_runs_each_task_at_every_point_with_unique_ids() {
    let w = synthetic_words();
    let tasks: Vec<String> = ["count", "quantity_state", "set_state"].map(String::from).to_vec();
    let config = MinervaConfig { tasks: Some(tasks.clone()), samples_per_cell: Some(1), ..test_config() };
    // One value on each axis: exactly `generate`.
    let one = Sweep { contexts: vec![800], steps: vec![20], variants: vec![] };
    let plain =
        generate(&MinervaConfig { context_tokens: 800, steps: Some(20), ..config.clone() }, w, &Tokenizer::cl100k());
    assert_eq!(generate_sweep(&config, &one, w, &Tokenizer::cl100k()), plain);
    assert_eq!(
        generate_sweep(&config, &Sweep::default(), w, &Tokenizer::cl100k()),
        generate(&config, w, &Tokenizer::cl100k())
    );
    // Two contexts × three step counts: count at both contexts, each stateful task at every step count.
    let sweep = Sweep { contexts: vec![500, 1000], steps: vec![10, 20, 40], variants: vec![] };
    let all = generate_sweep(&config, &sweep, w, &Tokenizer::cl100k());
    let ids: HashSet<&str> = all.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), all.len(), "ids are unique resume keys");
    let points = |task: &str, key: &str| -> BTreeSet<String> {
        all.iter().filter(|s| s.task == task).map(|s| s.conditions[key].clone()).collect()
    };
    assert_eq!(points("count", "context_length"), ["1000", "500"].map(String::from).into());
    for t in ["quantity_state", "set_state"] {
        assert_eq!(points(t, "step"), ["10", "20", "40"].map(String::from).into(), "{t}");
    }
    let count_500 = all.iter().filter(|s| s.task == "count" && s.id.starts_with("minerva/count@ctx=500/")).count();
    assert_eq!(
        count_500,
        generate(
            &MinervaConfig { context_tokens: 500, tasks: Some(vec!["count".into()]), ..config.clone() },
            w,
            &Tokenizer::cl100k()
        )
        .len()
    );
    assert!(all.iter().any(|s| s.id == "minerva/set_state@steps=40/0"));
    // The samples at a point are the single run's at that point (same prompts), only the id differs.
    let at = generate(
        &MinervaConfig { steps: Some(40), tasks: Some(vec!["set_state".into()]), ..config.clone() },
        w,
        &Tokenizer::cl100k(),
    );
    let swept: Vec<&Sample> = all.iter().filter(|s| s.id.starts_with("minerva/set_state@steps=40/")).collect();
    assert_eq!(swept.len(), at.len());
    assert!(swept.iter().zip(&at).all(|(a, b)| a.body == b.body && a.conditions == b.conditions));
}

#[test]
fn the_second_wording_changes_only_the_instruction_of_the_tables_8_and_12_tasks() {
    let w = synthetic_words();
    let tasks: Vec<String> = ["string_search_word", "group_association", "replace_all", "quantity_state", "count"]
        .map(String::from)
        .to_vec();
    let config = MinervaConfig { tasks: Some(tasks), samples_per_cell: Some(1), steps: Some(5), ..test_config() };
    let sweep = Sweep { variants: vec![1, 2], ..Default::default() };
    let all = generate_sweep(&config, &sweep, w, &Tokenizer::cl100k());
    let ids: HashSet<&str> = all.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), all.len(), "ids are unique resume keys");
    // count has no second wording: once, untagged, without the condition.
    let count: Vec<&Sample> = all.iter().filter(|s| s.task == "count").collect();
    assert!(
        !count.is_empty()
            && count.iter().all(|s| !s.id.contains("@var") && !s.conditions.contains_key("prompt_variant"))
    );
    let user = |s: &Sample| match &s.body {
        crate::llm::SampleBody::Single(one) => one.messages.last().unwrap().content.clone(),
        _ => unreachable!(),
    };
    for (task, first, second) in [
        ("string_search_word", "Given the context, determine if the word", "Is the word"),
        ("group_association", "determine if the word", "check if the words"),
        ("replace_all", "Repeat the previous context and replace", "Copy the previous context but replace"),
        ("quantity_state", "Your task is to determine the final result", "Determine the final result after"),
    ] {
        let of = |v: &str| -> Vec<&Sample> {
            all.iter()
                .filter(|s| s.task == task && s.conditions.get("prompt_variant").map(String::as_str) == Some(v))
                .collect()
        };
        let (one, two) = (of("1"), of("2"));
        assert!(!one.is_empty() && one.len() == two.len(), "{task}");
        for (a, b) in one.iter().zip(&two) {
            assert!(a.id.contains("@var=1/") && b.id.contains("@var=2/"), "{}", a.id);
            let (pa, pb) = (user(a), user(b));
            assert!(pa.contains(first) && !pa.contains(second), "{task}: {pa}");
            assert!(pb.contains(second) && !pb.contains(first), "{task}: {pb}");
            // The same trial: the context before the instruction and the answer are the same.
            assert_eq!(pa.split("Instruction").next(), pb.split("Instruction").next(), "{task}");
            let refs = |s: &Sample| match &s.body {
                crate::llm::SampleBody::Single(one) => format!("{:?}", one.reference),
                _ => unreachable!(),
            };
            assert_eq!(refs(a), refs(b));
        }
    }
    // One wording: the plain run, with the condition set.
    let one = generate_sweep(&config, &Sweep { variants: vec![2], ..Default::default() }, w, &Tokenizer::cl100k());
    assert_eq!(one, generate(&MinervaConfig { prompt_variant: Some(2), ..config.clone() }, w, &Tokenizer::cl100k()));
    assert!(one.iter().filter(|s| s.task == "replace_all").all(|s| s.conditions["prompt_variant"] == "2"));
    assert_eq!(Sweep::parse_variants("2, 1 2"), Ok(vec![2, 1]));
    assert!(Sweep::parse_variants("3").unwrap_err().to_string().contains("not 1 or 2"));
}

#[test]
fn sweep_lists_read_and_say_why_not() {
    assert_eq!(Sweep::parse_list("500, 1000;2000 1000", 100, "Context tokens"), Ok(vec![500, 1000, 2000]));
    assert_eq!(Sweep::parse_list("", 1, "Steps"), Ok(vec![]));
    let e = Sweep::parse_list("50, ten", 1, "Steps").unwrap_err().to_string();
    assert_eq!(e, "Steps: \"ten\" is not a whole number of 1 or more (give one, or a comma list)");
    assert!(Sweep::parse_list("0", 1, "Steps").is_err());
}
