use super::*;

#[test]
fn the_trick_always_ends_on_the_number_set_aside() {
    // Every move and every place the two middle inserts can take (the helper's enumeration: 1,008 cases).
    let mut cases = 0;
    for a in 1..=7 {
        for b in 1..=3 {
            for c in 1..=3 {
                for i in 1..=4 {
                    for j in 1..=5 {
                        let (last, aside) = magic_trick([3, 9, 1, 7], a, b, c, (i, j));
                        assert_eq!(last, aside, "a {a} b {b} c {c} inserts {i} {j}");
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 7 * 3 * 3 * 20);
}

#[test]
fn math_magic_replies_are_read_from_the_last_json() {
    assert!(magic_consistent("Sure. {\"final_number\": \"7\", \"put_aside_number\": \"7\"}"));
    assert!(magic_consistent("thinking {\"x\": 1} ... {\"final_number\": 4, \"put_aside_number\": 4}"));
    assert!(!magic_consistent("{\"final_number\": \"7\", \"put_aside_number\": \"3\"}"));
    assert!(!magic_consistent("{\"final_number\": \"12\", \"put_aside_number\": \"12\"}"));
    assert!(!magic_consistent("{\"final_number\": \"7\"}"));
    assert!(!magic_consistent("seven and seven"));
    assert!(!magic_consistent("}{"));
    let m = magic_messages(2, 1, 3, false);
    assert_eq!(m.len(), 20);
    assert_eq!(m[0], Message::user("You are a helpful assistant."));
    assert!(m[14].content.contains("Now I have 4 numbers"));
    assert!(m[17].content.ends_with("Repeat this 3 times."));
    assert!(m[19].content.ends_with("\"a_number_from_1_to_{10}\"}"), "{}", m[19].content);
    let cot = magic_messages(2, 1, 3, true);
    assert!(
        cot[19].content.contains("Let's think step by step. Output your analysis first. At the end, reply in JSON")
    );
}

#[test]
fn number_guessing_asks_each_number_apart_and_sums_the_yeses() {
    let m = guessing_messages(10, 4);
    assert_eq!(m.len(), 4);
    assert_eq!(m[1].content, "Think of an integer between 1 and 10, but don\u{2019}t say it to me.");
    assert_eq!(m[3].content, "Is the number you\u{2019}re thinking of 4? Answer Yes or No.");
    assert_eq!(parse_yes_no("Yes."), Some(true));
    assert_eq!(parse_yes_no("  no, it is not"), Some(false));
    assert_eq!(parse_yes_no("Nope"), None);
    assert_eq!(parse_yes_no("I cannot say"), None);
    // Holding 3: yes to 3 only → 1. Always no → 0. Yes half the time to two numbers → 1.
    let one: Vec<(u32, f64)> = (1..=10).map(|k| (k, f64::from(k == 3))).collect();
    assert_eq!(yes_sum(&one), Some(1.0));
    assert_eq!(yes_sum(&(1..=10).map(|k| (k, 0.0)).collect::<Vec<_>>()), Some(0.0));
    let half = [(2, 1.0), (2, 0.0), (5, 0.0), (5, 1.0), (7, 0.0), (7, 0.0)];
    assert_eq!(yes_sum(&half), Some(1.0));
    assert_eq!(yes_sum(&[]), None);
}

#[test]
fn a_deduction_stops_at_the_first_contradiction() {
    // Weight (property 2): heavier than Cat (6)? yes → above 6. Lighter than Dice-rank 3? yes → below 3:
    // contradiction at question 2.
    let qs = vec![
        Question { property: 2, target: 6, positive: true },
        Question { property: 2, target: 3, positive: false },
        Question { property: 0, target: 1, positive: true },
    ];
    let mut d = DeductionDialogue::new(qs.clone());
    assert_eq!(
        d.next_request().unwrap().last().unwrap().content,
        "Is the object heavier than Cat? Answer ONLY Yes or No."
    );
    d.feed("Yes.");
    assert!(!d.finished());
    d.feed("YES");
    assert!(d.finished() && d.next_request().is_none());
    assert_eq!(d.contradiction, Some((2, 2)));
    assert_eq!(d.scores()["pass"], 0.0);
    assert_eq!(d.scores()["consistent_answers"], 1.0);
    assert_eq!(d.describe(), "contradiction at question 2 (weight)");
    // Consistent: heavier than Cat? no (≤ 6); lighter than Watch (3)? no (≥ 3); anything on volume.
    let mut d = DeductionDialogue::new(qs.clone());
    for r in ["No", "no.", "maybe"] {
        d.feed(r);
    }
    assert!(d.finished() && d.contradiction.is_none());
    assert_eq!(d.answers, "nn?");
    let s = d.scores();
    assert_eq!((s["pass"], s["consistent_answers"], s["invalid_answers"]), (1.0, 3.0, 1.0));
    // The conversation: opening, then question, answer (normalised) in turn.
    assert_eq!(d.messages.len(), 2 + 3 * 2);
    assert_eq!(d.messages[3], Message::assistant("no"));
    // Equal bounds: "not heavier than Cat" and "not lighter than Cat" leave exactly Cat's rank.
    let same =
        vec![Question { property: 2, target: 6, positive: true }, Question { property: 2, target: 6, positive: false }];
    let mut d = DeductionDialogue::new(same.clone());
    d.feed("no");
    d.feed("no");
    assert!(d.contradiction.is_none());
    // …but "heavier than Cat" and "not heavier than Cat" cannot both hold.
    let mut d = DeductionDialogue::new(vec![same[0], same[0]]);
    d.feed("yes");
    d.feed("no");
    assert_eq!(d.contradiction, Some((2, 2)));
}

#[test]
fn samples_of_each_task() {
    let cfg = LatentConfig { trials: 3, questions: 12, range: 5, ..Default::default() };
    let ss = samples(&cfg).unwrap();
    assert_eq!(ss.len(), 5 + 3 + 3);
    assert_eq!(ss[0].id, "latent/number-guessing-n5/k1");
    assert!(ss.iter().all(|s| s.suite == Suite::Latent));
    let SampleBody::Deduction(d) = &ss[5].body else { panic!("{:?}", ss[5].body) };
    assert_eq!(d.questions.len(), 12);
    // rounds of the five properties: each property once in every five
    for round in d.questions.chunks(5) {
        let mut p: Vec<u8> = round.iter().map(|q| q.property).collect();
        p.sort();
        p.dedup();
        assert_eq!(p.len(), round.len());
    }
    assert_eq!(ss[5].expected_requests(), 12);
    assert_eq!(ss[8].id, "latent/math-magic/0");
    assert_eq!(samples(&cfg).unwrap(), ss, "seeded");
    assert_ne!(samples(&LatentConfig { seed: 1, ..cfg.clone() }).unwrap(), ss);
    let only = LatentConfig { tasks: vec![LatentTask::MathMagic], cot: true, ..cfg.clone() };
    assert!(samples(&only).unwrap().iter().all(|s| s.id.starts_with("latent/math-magic-cot/")));
    assert!(samples(&LatentConfig { tasks: vec![], ..cfg.clone() }).is_err());
    assert!(samples(&LatentConfig { range: 1, ..cfg.clone() }).is_err());
    assert!(samples(&LatentConfig { trials: 0, ..cfg }).is_err());
    // The metrics through the scorer a run uses.
    let r = Reference::Int(3);
    assert_eq!(crate::llm::metrics::score(Metric::SaysYes, &r, "Yes.").unwrap(), 1.0);
    assert_eq!(crate::llm::metrics::score(Metric::SaysYes, &r, "No.").unwrap(), 0.0);
    let ok = "{\"final_number\": \"2\", \"put_aside_number\": \"2\"}";
    assert_eq!(crate::llm::metrics::score(Metric::SameNumber, &r, ok).unwrap(), 1.0);
}
