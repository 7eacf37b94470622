//! The N-back tests: prompts verbatim, dialogues, samples, the published numbers reproduced.

use super::*;
use crate::llm::{Dialogue, Message, Sample, SampleBody, Suite};
use crate::rng::Rng;
use crate::sdt::summarize;

fn run_perfect(d: &mut NbackDialogue) {
    while d.next_request().is_some() {
        let t = d.target(d.current());
        d.feed(&t.to_string());
    }
}

#[test]
fn a_slice_takes_a_block_of_each_n() {
    let all = samples(&NbackConfig::paper(Variant::Letters));
    let ns = |v: &[Sample]| v.iter().map(|s| s.conditions["n"].clone()).collect::<Vec<_>>();
    assert!(ns(&all[..3]).iter().all(|n| n == "1"), "the blocks come N by N");
    let three = crate::llm::spread_slice(all.clone(), 3);
    assert_eq!(ns(&three), ["1", "2", "3"]);
    assert_eq!(three[0].id, all[0].id, "each N's first block");
    let seven = crate::llm::spread_slice(all.clone(), 7);
    assert_eq!(ns(&seven), ["1", "1", "1", "2", "2", "3", "3"], "in turn, in the samples' order");
    assert_eq!(crate::llm::spread_slice(all.clone(), 0).len(), all.len());
    // A letters block asks its 24 trials, one request each (no prefill in the paper's protocol).
    assert_eq!(all[0].expected_requests(), 24);
}

#[test]
fn a_run_is_drawn_only_against_the_same_variant_and_protocol() {
    // Every published file belongs to exactly one (variant, protocol), and its blocks have that
    // variant's trials per block (GPT-4's 30×30 README run is never drawn beside 24-trial letters).
    let mut claimed = std::collections::BTreeMap::new();
    for v in Variant::ALL {
        for p in Protocol::ALL {
            for row in reported_for(v, p) {
                assert!(p.supports(v), "{v:?} {p:?}");
                assert_eq!(row.trials_per_block, v.published_shape().0, "{} drawn beside {v:?}", row.results_file);
                claimed.entry(row.results_file.clone()).or_insert((v, p));
                assert_eq!(claimed[&row.results_file], (v, p), "{} claimed twice", row.results_file);
            }
        }
    }
    let files: std::collections::BTreeSet<String> = reported_summary().into_iter().map(|r| r.results_file).collect();
    assert_eq!(files.len(), claimed.len(), "every published file is drawn beside some run: {files:?}");
    assert!(reported_for(Variant::Letters, Protocol::Readme).is_empty());
    assert_eq!(reported_for(Variant::Letters, Protocol::Noise)[0].results_file, "all_trials_verbal_noise.json");
    assert_eq!(reported_for(Variant::Letters30, Protocol::Readme)[0].model, "GPT-4");
}

#[test]
fn dprime_tests_on_the_published_verbal_blocks_match_scipy() {
    // GPT-3.5 verbal base, the notebook's per-block d′ (50 blocks per N). Expected values from
    // scipy.stats 1.17.1: kruskal(*groups); mannwhitneyu(.., method="asymptotic"), Bonferroni × 3;
    // wilcoxon(g, zero_method="wilcox", correction=False, method="approx").
    let per_block: Vec<(u8, f64)> = reported_blocks()
        .iter()
        .filter(|b| b.results_file == "all_trials_verbal.json")
        .map(|b| (b.n, b.dprime))
        .collect();
    let t = dprime_tests(&per_block);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-7 * b.abs().max(1e-300);
    assert_eq!(t.levels.iter().map(|l| (l.0, l.1)).collect::<Vec<_>>(), vec![(1, 50), (2, 50), (3, 50)]);
    let k = t.kruskal.unwrap();
    assert!(close(k.statistic, 97.53758910622581) && close(k.p, 6.606655121674553e-22), "{k:?}");
    let want = [
        (1, 2, 2451.5, 8.87971678577776e-17),
        (1, 3, 2487.0, 1.1015314151433916e-17),
        (2, 3, 1566.0, 0.028331214684948567),
    ];
    for ((a, b, r), (wa, wb, u, p)) in t.pairs.iter().zip(want) {
        let (r, adj) = r.as_ref().unwrap();
        assert_eq!((*a, *b), (wa, wb));
        assert!(close(r.statistic, u) && close(r.p, p) && close(*adj, (3.0 * p).min(1.0)), "{a} {b} {r:?}");
    }
    let want = [5.924665376131595e-10, 1.008408848217435e-09, 6.768700093079094e-09];
    for ((_, r), p) in t.against_zero.iter().zip(want) {
        let r = r.as_ref().unwrap();
        assert!(r.statistic == 0.0 && close(r.p, p), "{r:?}");
    }
    // One N level: no Kruskal–Wallis, said in words.
    let one = dprime_tests(&[(2, 1.0), (2, 1.5)]);
    assert!(one.kruskal.unwrap_err().to_string().contains("two N levels"));
    assert!(one.pairs.is_empty());
}

#[test]
fn embedded_blocks_have_the_published_shape() {
    for v in Variant::ALL {
        let (len, matches) = v.published_shape();
        for n in 1..=3u8 {
            let bs = blocks(v, n);
            assert_eq!(bs.len(), if v == Variant::Letters30 { 30 } else { 50 }, "{v:?} {n}");
            for b in &bs {
                assert_eq!(b.stimuli.len(), len);
                assert_eq!(b.conditions.matches('m').count(), matches);
                // Every labelled match follows the rule.
                for (i, c) in b.conditions.chars().enumerate() {
                    if c == 'm' {
                        assert!(i >= n as usize && v.rule().is_match(&b.stimuli[i - n as usize], &b.stimuli[i]));
                    }
                }
            }
        }
    }
    assert_eq!(blocks(Variant::Letters, 1)[0].conditions, "----mm--mm--m---mm---m--");
    assert_eq!(blocks(Variant::Letters, 4).len(), 0);
}

#[test]
fn embedded_blocks_show_the_i_eq_n_guard_quirk() {
    // Blocks with an unlabelled identity match (only possible at i == n): letters 4/2/0, letters_30 1/1/1.
    let count = |v: Variant, n: u8| {
        blocks(v, n)
            .iter()
            .filter(|b| {
                b.conditions
                    .chars()
                    .enumerate()
                    .any(|(i, c)| c == '-' && i >= n as usize && b.stimuli[i] == b.stimuli[i - n as usize])
            })
            .count()
    };
    assert_eq!([count(Variant::Letters, 1), count(Variant::Letters, 2), count(Variant::Letters, 3)], [4, 2, 0]);
    assert_eq!([count(Variant::Letters30, 1), count(Variant::Letters30, 2), count(Variant::Letters30, 3)], [1, 1, 1]);
}

#[test]
fn generator_exact_targets_and_no_accidental_matches() {
    let mut rng = Rng::from_u64(11);
    for v in Variant::ALL {
        let alphabet = v.alphabet();
        for n in 1..=4usize {
            for _ in 0..40 {
                let b = generate_block(&mut rng, n, 24, 8, &alphabet, v.rule()).unwrap();
                assert_eq!(b.conditions.matches('m').count(), 8);
                for (i, c) in b.conditions.chars().enumerate() {
                    if i >= n {
                        assert_eq!(c == 'm', v.rule().is_match(&b.stimuli[i - n], &b.stimuli[i]), "{v:?} {b:?}");
                    } else {
                        assert_eq!(c, '-');
                    }
                    assert!(alphabet.contains(&b.stimuli[i]));
                }
            }
        }
    }
    assert!(generate_block(&mut rng, 3, 10, 8, &Variant::Letters.alphabet(), MatchRule::Identity).is_err());
}

#[test]
fn readme_instruction_is_verbatim() {
    assert_eq!(
        readme_instruction(1),
        "Instruction: as a language model, you are asked to perform a 1-back task. A letter will be presented on every trial. Your task is to respond with 'm' whenever the letter presented is the same as the previous letter, and '-' whenever the letter presented is different from the previous letter. A strict rule is that you must not output anything other than 'm' or '-'. Now begins the task."
    );
    assert!(readme_instruction(2).contains("the same as the letter two trials ago, and '-' whenever the letter presented is different from the letter two trials ago."));
    assert!(readme_instruction(3).contains("3-back task") && readme_instruction(3).contains("three trials ago"));
}

#[test]
fn system_prompts_match_the_notebooks() {
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Base, 3),
        "You are asked to perform a 3-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter three letters ago, and '-' (no quotation marks, just the dash sign) otherwise. Only 'm' and '-' are allowed responses. No explanations needed: please don't output any extra words!! The sequence will be presented one letter at a time. Now begins the task."
    );
    assert!(system_prompt(Variant::Letters, Protocol::Base, 1).contains("the same as the previous one, and '-'"));
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Base, 3),
        "You are asked to perform a 3-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the grid three trials ago, and respond with '-' (no quotation marks, just the dash sign) otherwise.  Only 'm' and '-' are allowed responses. No explanations needed: please don't output any extra words!! The sequence will be presented one grid at a time. Now begins the task."
    );
    let p4 = system_prompt(Variant::Grids4x4, Protocol::Base, 1);
    assert!(
        p4.contains("4*4 grids")
            && p4.contains("sixteen positions")
            && p4.contains("``` |X|_|_|_| |_|_|_|_| |_|_|_|_| |_|_|_|_| ```")
    );
    assert!(p4.contains("the same position as the previous grid,"));
    assert!(system_prompt(Variant::Grids7x7, Protocol::Base, 2).contains("forty-nine positions"));
    assert!(system_prompt(Variant::Letters, Protocol::Noise, 1).contains("accompanied with random noise symbols chosen from '#$%&*@^~'. Please ignore the noise symbols and focus on the letter only."));
    assert!(
        system_prompt(Variant::Grids3x3, Protocol::Noise, 1)
            .contains("``` |X|*|_| |_|_|@| |_|~|_| ``` because of the noise.")
    );
    assert!(
        system_prompt(Variant::Letters, Protocol::Cot, 1)
            .contains("'m: the previous letter was a, the current letter is a, so my response is m'")
    );
    assert!(
        system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 1)
            .contains("same row or column as the X in the previous grid")
    );
    assert!(system_prompt(Variant::Grids3x3Abstraction2, Protocol::Base, 1).contains("that does not count as a match"));
    assert_eq!(render_grid(3, 4), "``` |_|_|_| |X|_|_| |_|_|_| ```");
}

/// Full strings copied from the notebook cells (`experiments/*.ipynb`, JSON-unescaped).
#[test]
fn variant_prompts_are_verbatim() {
    let g1 = "``` |X|_|_| |_|_|_| |_|_|_| ```";
    // verbal_with_noise.ipynb
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Noise, 1),
        "You are asked to perform a 1-back task. You will see a sequence of letters. The sequence will be presented one letter at a time, accompanied with random noise symbols chosen from '#$%&*@^~'. Please ignore the noise symbols and focus on the letter only. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the previous one, and '-' (no quotation marks, just the dash sign) otherwise. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Noise, 2),
        "You are asked to perform a 2-back task. You will see a sequence of letters. The sequence will be presented one letter at a time, accompanied with random noise symbols chosen from '#$%&*@^~'. Please ignore the noise symbols and focus on the letter only. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter two trials ago, and '-' (no quotation marks, just the dash sign) otherwise. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Noise, 3),
        "You are asked to perform a 3-back task. You will see a sequence of letters. The sequence will be presented one letter at a time, accompanied with random noise symbols chosen from '#$%&*@^~'. Please ignore the noise symbols and focus on the letter only. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter three trials ago, and '-' (no quotation marks, just the dash sign) otherwise. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    // verbal_with_feedback.ipynb
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Feedback, 1),
        "You are asked to perform a 1-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the previous one, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one letter at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Feedback, 2),
        "You are asked to perform a 2-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter two letters ago, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one letter at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed - please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Feedback, 3),
        "You are asked to perform a 3-back task. You will see a sequence of letters. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter three letters ago, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one letter at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    // verbal_think_by_step.ipynb
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Cot, 1),
        "\n          You are asked to perform a 1-back task. You will see a sequence of letters. The sequence will be presented one letter at a time.\n          Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the previous one, and '-' (no quotation marks, just the dash sign) otherwise. \n          Please think step by step and provide your thinking steps after responding with 'm' or '-'.\n          Here are examples of how to format your response:\n          1. 'm: the previous letter was a, the current letter is a, so my response is m'.\n          2. '-: the previous letter was a, the current letter is b, so my response is -'.\n          Now begins the task.\n         "
    );
    assert_eq!(
        system_prompt(Variant::Letters, Protocol::Cot, 2),
        "\n          You are asked to perform a 2-back task. You will see a sequence of letters. The sequence will be presented one letter at a time.\n          Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the current letter is the same as the letter two letters ago, and '-' (no quotation marks, just the dash sign) otherwise. \n          Please think step by step and provide your thinking steps after responding with 'm' or '-'.\n          Here are examples of how to format your response:\n          1. 'm: the letter two letters ago was a, the current letter is a, so my response is m'.\n          2. '-: the letter two letters ago was a, the current letter is b, so my response is -'.\n          Now begins the task.\n         "
    );
    // spatial_with_noise.ipynb
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Noise, 1),
        "You are asked to perform a 1-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions, accompanied with random noise symbols chosen from '#$%&*@^~' placed at random locations. Please ignore the noise symbols and focus on the location of the letter X only.  For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```, but you will actually see something like ``` |X|*|_| |_|_|@| |_|~|_| ``` because of the noise. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the previous grid, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Noise, 2),
        "You are asked to perform a 2-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions, accompanied with random noise symbols chosen from '#$%&*@^~' placed at random locations. Please ignore the noise symbols and focus on the location of the letter X only.  For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```, but you will actually see something like ``` |X|*|_| |_|_|@| |_|~|_| ``` because of the noise. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the grid two trials ago, and respond with '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed - please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Noise, 3),
        system_prompt(Variant::Grids3x3, Protocol::Noise, 2)
            .replace("2-back", "3-back")
            .replace("two trials", "three trials")
    );
    // spatial_with_feedback.ipynb
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Feedback, 1),
        "You are asked to perform a 1-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the previous grid, and '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Feedback on whether your last response was correct or incorrect will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Feedback, 2),
        "You are asked to perform a 2-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the grid two trials ago, and respond with '-' (no quotation marks, just the dash sign) otherwise. The sequence will be presented one grid at a time. Feedback on whether your last response was correct or wrong will also be presented. Please take advantage of feedback information to improve your performance. Note that you are only allowed to respond with 'm' or '-'. No explanations needed - please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Feedback, 3),
        system_prompt(Variant::Grids3x3, Protocol::Feedback, 2)
            .replace("2-back", "3-back")
            .replace("two trials", "three trials")
    );
    // spatial_think_by_step.ipynb
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Cot, 1),
        "\n          You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at the top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. The sequence will be presented one grid at a time.\n          Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the previous grid, and '-' (no quotation marks, just the dash sign) otherwise.\n          Please think step by step and provide your thinking steps after responding with 'm' or '-'.\n          Here are examples of how to format your response:\n          1. '-: this is the first grid, so my response is -'.\n          2. 'm: X was at the top middle in the previous grid, X is at the top middle in the current grid, so my response is m'.\n          3. '-: X was at the bottom right in the previous grid, X is at the top middle in the current grid, so my response is -'.\n          Now begins the task.\n         "
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3, Protocol::Cot, 2),
        "\n          You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at the top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. The sequence will be presented one grid at a time.\n          Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X is in the same position as the grid two trials ago, and '-' (no quotation marks, just the dash sign) otherwise.\n          Please think step by step and provide your thinking steps after responding with 'm' or '-'.\n          Here are examples of how to format your response:\n          1. '-: this is the first grid, so my response is -'.\n          2. 'm: X was at the top middle in the grid two trials ago, X is at the top middle in the current grid, so my response is m'.\n          3. '-: X was at the bottom right in the grid two trials ago, X is at the top middle in the current grid, so my response is -'.\n          Now begins the task.\n         "
    );
    // spatial_abstraction.ipynb
    let abs1 = "You are asked to perform a 1-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in the previous grid, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in ``` |X|_|_| |_|_|_| |_|_|_| ``` is in the same row as the X in ``` |_|X|_| |_|_|_| |_|_|_| ``` and ``` |_|_|X| |_|_|_| |_|_|_| ```, and in the same column as the X in ``` |_|_|_| |X|_|_| |_|_|_| ``` and ``` |_|_|_| |_|_|_| |X|_|_| ```. Note that ``` |X|_|_| |_|_|_| |_|_|_| ``` is also in the same row and column as ``` |X|_|_| |_|_|_| |_|_|_| ``` itself. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task.";
    assert_eq!(system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 1), abs1);
    assert_eq!(
        system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 2),
        "You are asked to perform a 2-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in the grid two trials ago, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in ``` |X|_|_| |_|_|_| |_|_|_| ``` is in the same row as the X in ``` |_|X|_| |_|_|_| |_|_|_| ``` and ``` |_|_|X| |_|_|_| |_|_|_| ```, and in the same column as the X in ``` |_|_|_| |X|_|_| |_|_|_| ``` and ``` |_|_|_| |_|_|_| |X|_|_| ```. Note that ``` |X|_|_| |_|_|_| |_|_|_| ``` is also in the same row and column as ``` |X|_|_| |_|_|_| |_|_|_| ``` itself. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 3),
        abs1.replace("1-back", "3-back").replace("X in the previous grid,", "X in the grid three trials ago,")
    );
    // spatial_abstraction_2.ipynb
    let note1 = format!("Note that {g1} is also in the same row and column as {g1} itself.");
    let note2 = format!(
        "Note that if the X in the previous grid was at the identical location to the X in the current grid, that does not count as a match: for example, {g1} is not a match to {g1} itself."
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3Abstraction2, Protocol::Base, 1),
        "You are asked to perform a 1-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in the previous grid, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in ``` |X|_|_| |_|_|_| |_|_|_| ``` is in the same row as the X in ``` |_|X|_| |_|_|_| |_|_|_| ``` and ``` |_|_|X| |_|_|_| |_|_|_| ```, and in the same column as the X in ``` |_|_|_| |X|_|_| |_|_|_| ``` and ``` |_|_|_| |_|_|_| |X|_|_| ```. Note that if the X in the previous grid was at the identical location to the X in the current grid, that does not count as a match: for example, ``` |X|_|_| |_|_|_| |_|_|_| ``` is not a match to ``` |X|_|_| |_|_|_| |_|_|_| ``` itself. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3Abstraction2, Protocol::Base, 2),
        "You are asked to perform a 2-back task. You will see a sequence of 3*3 grids. Each grid has a letter X in one of the nine positions. For example, a grid with X at top left corner would be ``` |X|_|_| |_|_|_| |_|_|_| ```. Your task is to respond with 'm' (no quotation marks, just the letter m) whenever the X in the current grid is in the same row or column as the X in the grid two trials ago, and '-' (no quotation marks, just the dash sign) otherwise. For example, the X in ``` |X|_|_| |_|_|_| |_|_|_| ``` is in the same row as the X in ``` |_|X|_| |_|_|_| |_|_|_| ``` and ``` |_|_|X| |_|_|_| |_|_|_| ```, and in the same column as the X in ``` |_|_|_| |X|_|_| |_|_|_| ``` and ``` |_|_|_| |_|_|_| |X|_|_| ```. Note that if the X in the previous grid was at the identical location to the X in the current grid, that does not count as a match: for example, ``` |X|_|_| |_|_|_| |_|_|_| ``` is not a match to ``` |X|_|_| |_|_|_| |_|_|_| ``` itself. The sequence will be presented one grid at a time. Note that you are only allowed to respond with 'm' or '-'. No explanations needed: please don't output any extra words!! Now begins the task."
    );
    assert_eq!(
        system_prompt(Variant::Grids3x3Abstraction2, Protocol::Base, 2),
        system_prompt(Variant::Grids3x3Abstraction, Protocol::Base, 2).replace(&note1, &note2)
    );
    // Invalid-response messages.
    assert_eq!(
        INVALID_RESPONSE,
        "Invalid response! You must respond ONLY with 'm' or '-'. Please try again. Response:"
    );
    assert_eq!(
        INVALID_RESPONSE_VERBAL_FEEDBACK,
        "Invalid response! You must respond ONLY with 'm' or '-'. Please give your response:"
    );
    assert_eq!(
        INVALID_RESPONSE_SPATIAL_NOISE,
        "Invalid response! You must respond ONLY with 'm' or '-'. Please try again. Your response:"
    );
    let retry = |v: Variant, p: Protocol, n: u8| {
        let b = &blocks(v, n)[0];
        let mut d = NbackDialogue::new(v, n, 0, b, &DialogueOptions::new(p)).unwrap();
        d.feed("?");
        d.next_request().unwrap().last().unwrap().content.clone()
    };
    for n in 1..=3 {
        assert_eq!(retry(Variant::Letters, Protocol::Noise, n), INVALID_RESPONSE);
        assert_eq!(retry(Variant::Letters, Protocol::Feedback, n), INVALID_RESPONSE_VERBAL_FEEDBACK);
        assert_eq!(retry(Variant::Letters, Protocol::Cot, n), INVALID_RESPONSE);
        assert_eq!(retry(Variant::Grids3x3, Protocol::Noise, n), INVALID_RESPONSE_SPATIAL_NOISE);
        assert_eq!(retry(Variant::Grids3x3, Protocol::Feedback, n), INVALID_RESPONSE);
        assert_eq!(retry(Variant::Grids3x3, Protocol::Cot, n), INVALID_RESPONSE);
        assert_eq!(retry(Variant::Grids3x3Abstraction, Protocol::Base, n), INVALID_RESPONSE);
        assert_eq!(retry(Variant::Grids3x3Abstraction2, Protocol::Base, n), INVALID_RESPONSE);
    }
    // User turns: bare grid, except the abstraction 3-back cells ("Current input: " + grid).
    for v in [Variant::Grids3x3Abstraction, Variant::Grids3x3Abstraction2] {
        for n in 1..=3u8 {
            let b = &blocks(v, n)[0];
            let d = NbackDialogue::new(v, n, 0, b, &DialogueOptions::new(Protocol::Base)).unwrap();
            let grid = render_grid(3, b.stimuli[0].parse().unwrap());
            let want = if n == 3 { format!("Current input: {grid}") } else { grid };
            assert_eq!(d.next_request().unwrap()[1].content, want);
        }
    }
}

#[test]
fn base_protocol_flow_and_perfect_scores() {
    let b = &blocks(Variant::Letters, 1)[0];
    let mut d = NbackDialogue::new(Variant::Letters, 1, 0, b, &DialogueOptions::new(Protocol::Base)).unwrap();
    let req = d.next_request().unwrap();
    assert_eq!(req.len(), 2);
    assert_eq!(req[0].role, super::super::Role::System);
    assert_eq!(req[1], Message::user("q"));
    d.feed("- (dash)");
    let req = d.next_request().unwrap();
    assert_eq!(req[2], Message::assistant("-"));
    assert_eq!(req[3], Message::user("v"));
    let mut d = NbackDialogue::new(Variant::Letters, 1, 0, b, &DialogueOptions::new(Protocol::Base)).unwrap();
    run_perfect(&mut d);
    assert!(d.next_request().is_none());
    assert_eq!(d.answers(), b.conditions);
    let s = d.scores();
    assert_eq!((s.hit_rate, s.false_alarm_rate, s.accuracy), (1.0, 0.0, 1.0));
    assert!((s.dprime - 4.6527).abs() < 1e-4);
    assert_eq!(d.messages.len(), 1 + 2 * 24);
}

/// Without the history (issue 69, after Huang et al. 2025): each request is the instructions, the
/// model's last note (cut to its cap) and the current stimulus — never an earlier stimulus or
/// reply; with no note at all, the stimulus alone. Ids, conditions and serde say which.
#[test]
fn without_the_history_a_request_holds_the_last_note_and_the_current_stimulus_only() {
    let b = &blocks(Variant::Letters, 2)[0];
    let mut opts = DialogueOptions::new(Protocol::Base);
    opts.history = History::Note { tokens: 8 };
    let mut d = NbackDialogue::new(Variant::Letters, 2, 0, b, &opts).unwrap();
    let req = d.next_request().unwrap();
    assert_eq!(req.len(), 2);
    assert!(req[0].content.starts_with(&system_prompt(Variant::Letters, Protocol::Base, 2)));
    assert!(req[0].content.contains("NOTE:") && req[0].content.contains("at most 8 tokens"), "{}", req[0].content);
    assert_eq!(req[1].content, format!("Your note from the previous step: (none yet)\n\n{}", b.stimuli[0]));
    d.feed("-\nNOTE: saw q; keep the last two letters and compare them with every new one please");
    assert_eq!(d.trials[0].note.as_deref(), Some("saw q; keep the last two letters"), "8 tokens kept");
    let req = d.next_request().unwrap();
    assert_eq!(req.len(), 2, "no earlier turn is sent");
    assert_eq!(
        req[1].content,
        format!("Your note from the previous step: saw q; keep the last two letters\n\n{}", b.stimuli[1])
    );
    // A retry stays within the trial's request; a reply with no note leaves an empty one.
    d.feed("perhaps");
    assert_eq!(d.next_request().unwrap().len(), 4);
    d.feed("m");
    assert_eq!(d.trials[1].note.as_deref(), Some(""));
    assert!(d.next_request().unwrap()[1].content.contains("previous step: (none yet)"));
    // Round trip mid-block, and an old dialogue without the field is the full history.
    let back: NbackDialogue = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
    let full = NbackDialogue::new(Variant::Letters, 2, 0, b, &DialogueOptions::new(Protocol::Base)).unwrap();
    assert!(!serde_json::to_string(&full).unwrap().contains("history"));

    // No history: the stimulus alone after the instructions, at every trial.
    opts.history = History::None;
    let mut d = NbackDialogue::new(Variant::Letters, 2, 0, b, &opts).unwrap();
    for i in 0..b.stimuli.len() {
        let req = d.next_request().unwrap();
        assert_eq!((req.len(), req[1].content.as_str()), (2, b.stimuli[i].as_str()), "trial {i}");
        d.feed("-");
    }
    assert!(d.finished() && d.trials.iter().all(|t| t.note.is_none()));
    // The README protocol: instruction, memory and turn in one user message; pre-filled trials unseen.
    let b30 = &blocks(Variant::Letters30, 2)[0];
    let mut readme = DialogueOptions::new(Protocol::Readme);
    readme.history = History::None;
    let d = NbackDialogue::new(Variant::Letters30, 2, 0, b30, &readme).unwrap();
    let req = d.next_request().unwrap();
    assert_eq!(req.len(), 1);
    assert!(req[0].content.starts_with(&readme_instruction(2)) && req[0].content.ends_with(&b30.stimuli[6]));

    let mut cfg = NbackConfig::paper(Variant::Letters);
    cfg.options.history = History::Note { tokens: 32 };
    let s = &samples(&cfg)[0];
    assert_eq!(s.id, "nback/letters_note32-1back/0");
    assert_eq!(s.conditions["history"], "note32");
    assert_eq!((note_tokens("abcd efghi"), cut_note("a bb ccccc", 2)), (3, "a bb".to_string()));
    assert_eq!((History::parse("note", 5), History::parse("x", 5)), (Some(History::Note { tokens: 5 }), None));
}

#[test]
fn readme_protocol_prefills_six_and_retries_once() {
    let b = &blocks(Variant::Letters30, 2)[0];
    let mut d = NbackDialogue::new(Variant::Letters30, 2, 0, b, &DialogueOptions::new(Protocol::Readme)).unwrap();
    assert_eq!(d.current(), 6);
    let req = d.next_request().unwrap();
    assert_eq!(req[0], Message::user(readme_instruction(2)));
    assert_eq!(req.len(), 1 + 2 * 6 + 1);
    assert_eq!(req[2].content, b.conditions[0..1]);
    assert_eq!(req[13], Message::user(b.stimuli[6].clone()));
    d.feed("I think so");
    let req = d.next_request().unwrap();
    assert_eq!(req[req.len() - 1], Message::user(README_RETRY));
    assert_eq!(d.current(), 6);
    d.feed("still no");
    assert_eq!(d.current(), 7);
    assert_eq!(d.trials[6].answer, None);
    assert_eq!(d.trials[6].replies.len(), 2);
    assert_eq!(&d.answers()[..7], format!("{}?", &b.conditions[..6]));
    let s = d.scores();
    assert_eq!((s.trials, s.unusable), (7, 1));
    assert_eq!(d.scores_excluding_prefill().trials, 1);
}

#[test]
fn retries_are_bounded() {
    let b = &blocks(Variant::Grids3x3, 1)[0];
    let mut d = NbackDialogue::new(Variant::Grids3x3, 1, 0, b, &DialogueOptions::new(Protocol::Cot)).unwrap();
    let mut calls = 0;
    while d.next_request().is_some() {
        d.feed("I cannot answer");
        calls += 1;
        assert!(calls <= 24 * 4);
    }
    assert_eq!(calls, 24 * 4);
    assert_eq!(d.answers(), "?".repeat(24));
    assert_eq!(d.scores().unusable, 24);
    // CoT: only the extracted char stays in the history.
    let mut d = NbackDialogue::new(Variant::Grids3x3, 1, 0, b, &DialogueOptions::new(Protocol::Cot)).unwrap();
    d.feed("x");
    assert_eq!(d.next_request().unwrap().last().unwrap().content, INVALID_RESPONSE);
    d.feed("-: this is the first grid, so my response is -");
    let req = d.next_request().unwrap();
    assert_eq!(req[req.len() - 2], Message::assistant("-"));
    assert_eq!(d.trials[0].replies.len(), 2);
}

#[test]
fn feedback_and_noise_turns() {
    let b = &blocks(Variant::Letters, 1)[0];
    let mut d = NbackDialogue::new(Variant::Letters, 1, 0, b, &DialogueOptions::new(Protocol::Feedback)).unwrap();
    assert_eq!(d.next_request().unwrap()[1].content, "Current input: q. Your response:");
    d.feed("m");
    assert_eq!(
        d.next_request().unwrap()[3].content,
        "Feedback: your last response was wrong. Current input: v. Your response:"
    );
    d.feed("-");
    assert_eq!(
        d.next_request().unwrap()[5].content,
        "Feedback: your last response was correct. Current input: b. Your response:"
    );
    let g = &blocks(Variant::Grids3x3, 1)[0];
    let d = NbackDialogue::new(Variant::Grids3x3, 1, 0, g, &DialogueOptions::new(Protocol::Feedback)).unwrap();
    assert!(d.next_request().unwrap()[1].content.ends_with(" ```. Response:"));

    let d = NbackDialogue::new(Variant::Letters, 1, 0, b, &DialogueOptions::new(Protocol::Noise)).unwrap();
    for (s, x) in d.shown.iter().zip(&b.stimuli) {
        let letters: Vec<char> = s.chars().filter(|c| !NOISE_SYMBOLS.contains(*c)).collect();
        assert_eq!(letters, x.chars().collect::<Vec<_>>());
        let k = s.chars().count() - 1;
        assert!((3..=6).contains(&k));
        let set: std::collections::HashSet<char> = s.chars().collect();
        assert_eq!(set.len(), k + 1);
    }
    let d = NbackDialogue::new(Variant::Grids3x3, 1, 0, g, &DialogueOptions::new(Protocol::Noise)).unwrap();
    for (s, x) in d.shown.iter().zip(&g.stimuli) {
        let cells: Vec<char> = s.chars().filter(|c| *c != '|' && *c != ' ' && *c != '`').collect();
        assert_eq!(cells.len(), 9);
        assert_eq!(cells.iter().position(|c| *c == 'X').unwrap() + 1, x.parse::<usize>().unwrap());
        let noise = cells.iter().filter(|c| NOISE_SYMBOLS.contains(**c)).count();
        assert!((1..=3).contains(&noise));
    }
}

#[test]
fn serde_round_trip_mid_dialogue_equals_replay() {
    let b = &blocks(Variant::Letters, 2)[3];
    let opts = DialogueOptions { seed: 5, ..DialogueOptions::new(Protocol::Noise) };
    let mut d = NbackDialogue::new(Variant::Letters, 2, 3, b, &opts).unwrap();
    for (k, r) in ["m", "??", "-", "- because", "oops", "m"].iter().enumerate() {
        d.feed(r);
        if k == 3 {
            let json = serde_json::to_string(&SampleBody::Dialogue(d.clone())).unwrap();
            let back: SampleBody = serde_json::from_str(&json).unwrap();
            assert_eq!(back, SampleBody::Dialogue(d.clone()));
        }
    }
    let json = serde_json::to_string(&d).unwrap();
    let back: NbackDialogue = serde_json::from_str(&json).unwrap();
    assert_eq!(back, d);
    let mut replay = NbackDialogue::new(Variant::Letters, 2, 3, b, &opts).unwrap();
    for r in d.replies() {
        replay.feed(&r);
    }
    assert_eq!(replay, d);
}

#[test]
fn samples_ids_and_conditions() {
    let s = samples(&NbackConfig::paper(Variant::Letters));
    assert_eq!(s.len(), 150);
    assert_eq!(s[0].id, "nback/letters-1back/0");
    assert_eq!(s[149].id, "nback/letters-3back/49");
    assert_eq!(s[0].conditions["n"], "1");
    assert_eq!(s[0].suite, Suite::Nback);
    let mut c = NbackConfig::paper(Variant::Grids3x3);
    c.options.protocol = Protocol::Noise;
    c.ns = vec![2];
    c.blocks = Some(vec![1, 4, 9]);
    c.limit = Some(2);
    let s = samples(&c);
    assert_eq!(
        s.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(),
        ["nback/grids_3x3_noise-2back/1", "nback/grids_3x3_noise-2back/4"]
    );
    let s30 = samples(&NbackConfig::paper(Variant::Letters30));
    assert_eq!(s30.len(), 90);
    c.options.protocol = Protocol::Readme;
    assert!(c.validate().is_err() && samples(&c).is_empty());
    let mut g = NbackConfig::paper(Variant::Grids3x3Abstraction2);
    g.ns = vec![4];
    g.source = BlockSource::Generated { count: 5, len: 24, matches: 8, seed: 3 };
    let s = samples(&g);
    assert_eq!(s.len(), 5);
    assert_eq!(s[0].id, "nback/grids_3x3_abstraction_2_gen3-4back/0");
    assert_eq!(samples(&g), s, "deterministic");
}

#[test]
fn reported_per_block_dprime_is_reproduced() {
    let rows = reported_blocks();
    assert_eq!(rows.len(), 2580);
    for r in &rows {
        let s = r.scores();
        assert!((s.dprime_notebook - r.dprime).abs() < 6e-5, "{r:?} -> {}", s.dprime_notebook);
    }
}

#[test]
fn reported_summary_is_reproduced() {
    let rows = reported_blocks();
    let summary = reported_summary();
    assert_eq!(summary.len(), 63);
    let close = |a: f64, b: f64| (a - b).abs() <= 0.0051;
    for r in &summary {
        let blocks: Vec<SdtScores> = rows
            .iter()
            .filter(|b| b.results_file == r.results_file && b.n == r.n && b.block < r.blocks_used)
            .map(|b| b.scores())
            .collect();
        assert_eq!(blocks.len(), r.blocks_used, "{r:?}");
        let m = summarize(&blocks);
        let pct = |x: crate::sdt::MeanSe| (x.mean * 100.0, x.se * 100.0);
        for (got, want, what) in [
            (pct(m.hit_rate), r.hit_rate, "HR"),
            (pct(m.false_alarm_rate), r.false_alarm_rate, "FAR"),
            (pct(m.accuracy), r.accuracy, "Acc"),
            ((m.dprime_notebook.mean, m.dprime_notebook.se), r.dprime, "d'"),
        ] {
            assert!(
                close(got.0, want.0) && close(got.1, want.1),
                "{} N={} {what}: {got:?} vs {want:?}",
                r.results_file,
                r.n
            );
        }
    }
    // The headline numbers: GPT-3.5 verbal base d' 3.53±.11 / 1.43±.10 / 1.11±.09.
    let want = [(3.53, 0.11), (1.43, 0.10), (1.11, 0.09)];
    for (n, w) in (1..=3u8).zip(want) {
        let bl: Vec<SdtScores> = rows
            .iter()
            .filter(|b| b.results_file == "all_trials_verbal.json" && b.n == n)
            .map(|b| b.scores())
            .collect();
        let m = summarize(&bl).dprime_notebook;
        assert!(close(m.mean, w.0) && close(m.se, w.1), "N={n}: {m:?}");
    }
}
