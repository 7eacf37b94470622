use super::*;

/// The shipped vocabulary (public/data/pi-llm), read as the CLI and the page read it.
fn vocab() -> Vocabulary {
    let gz = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/pi-llm/categories.json.gz"))
        .expect("public/data/pi-llm/categories.json.gz");
    let text = String::from_utf8(crate::llm::snapshot::gunzip(&gz).unwrap()).unwrap();
    Vocabulary::from_json(&text).unwrap()
}

fn small(keys: usize, updates: usize) -> PiConfig {
    PiConfig { keys, updates: vec![updates], sessions: 2, ..Default::default() }
}

#[test]
fn the_vocabulary_is_the_authors() {
    let v = vocab();
    assert_eq!(v.categories.len(), 46);
    assert_eq!(v.min_values(), 400);
    assert!(v.categories.iter().any(|(k, vs)| k == "bird" && vs.iter().any(|x| x == "great tit")));
    // no value holds a character that ends a value read from a reply
    assert!(v.categories.iter().flat_map(|(_, vs)| vs).all(|x| !x.contains(value_end)));
    assert!(Vocabulary::from_json("[1]").is_err());
    assert!(Vocabulary::from_json("{}").is_err());
    assert!(Vocabulary::from_json("{\"a\": []}").is_err());
}

#[test]
fn a_stream_updates_each_key_as_asked_never_twice_in_a_row() {
    let v = vocab();
    for (keys, updates) in [(46, 2), (5, 40), (2, 17), (46, 24)] {
        let cfg = small(keys, updates);
        let s = stream(&v, &cfg, updates, 0);
        assert_eq!(s.keys.len(), keys);
        assert_eq!(s.updates.len(), keys * updates);
        for k in 0..keys {
            assert_eq!(s.updates_of(k), updates);
            // a key's values are distinct and from its category
            let vals: Vec<&String> = s.updates.iter().filter(|(i, _)| *i as usize == k).map(|(_, v)| v).collect();
            let mut d = vals.clone();
            d.sort();
            d.dedup();
            assert_eq!(d.len(), updates);
            let cat = &v.categories.iter().find(|(c, _)| *c == s.keys[k]).unwrap().1;
            assert!(vals.iter().all(|x| cat.contains(x)));
        }
        assert!(s.updates.windows(2).all(|w| w[0].0 != w[1].0), "a key twice in a row");
        // the answer is each key's last update
        let last = s.last_values();
        for (k, name) in s.keys.iter().enumerate() {
            let l = s.updates.iter().rev().find(|(i, _)| *i as usize == k).unwrap();
            assert_eq!(&last[name], &l.1);
        }
        // the same draw for the same seed, another for another session or seed
        assert_eq!(stream(&v, &cfg, updates, 0), s);
        assert_ne!(stream(&v, &cfg, updates, 1), s);
        assert_ne!(stream(&v, &PiConfig { seed: 9, ..cfg.clone() }, updates, 0), s);
    }
    let seq = PiConfig { order: Order::Sequential, ..small(3, 4) };
    let s = stream(&v, &seq, 4, 0);
    let ks: Vec<u16> = s.updates.iter().map(|u| u.0).collect();
    assert_eq!(ks, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
}

#[test]
fn long_values_run_together_capitalised() {
    let v = vocab();
    let cfg = PiConfig { value_len: 3, ..small(4, 5) };
    let s = stream(&v, &cfg, 5, 0);
    for (_, x) in &s.updates {
        assert!(!x.contains(' '), "{x}");
        assert!(x.chars().next().unwrap().is_uppercase(), "{x}");
    }
    assert!(prompt(&s, 3).ends_with("breaking it into pieces."));
}

#[test]
fn the_prompt_is_the_authors_turn() {
    let s = Stream {
        keys: vec!["bird".into(), "sport".into()],
        updates: vec![(0, "emu".into()), (1, "judo".into()), (0, "kea".into())],
    };
    let p = prompt(&s, 1);
    assert_eq!(
        p,
        "As my secretary, I need you to carefully read a text stream where the values of multiple keys are being \
         continuously updated.The 2 keys to track include bird, sport. I will ask you to identify the value of each \
         key later.\n\nThe text stream starts on the next line.\n bird: emu; sport: judo; bird: kea; \n\nWhat are the \
         current value of each key (bird, sport) you are tracking? End your response with: 'The current value of \
         <key> is <value>.'"
    );
}

fn keys(k: &[&str]) -> Vec<String> {
    k.iter().map(|s| s.to_string()).collect()
}

#[test]
fn replies_are_read_by_the_keys_asked() {
    let k = keys(&["bird", "water body", "body", "African place"]);
    let r = read_reply(
        "Sure! The current value of bird is emu.\nThe current value of water body is 'light water'.\n\
         The current value of **body** is \"knee\".\nThe final value for the key African place was Jos, I think.",
        &k,
    );
    assert_eq!(r["bird"], "emu");
    assert_eq!(r["water body"], "light water");
    assert_eq!(r["body"], "knee");
    assert_eq!(r["African place"], "jos");
    // the last statement of a key wins
    let r = read_reply("The current value of bird is emu. Wait: the current value of bird is kea.", &k);
    assert_eq!(r["bird"], "kea");
    // key: value lines count only where the reply speaks of current values
    assert!(read_reply("bird: emu\nbody: knee", &k).is_empty());
    let r = read_reply("The current values are:\n- bird: emu\n- water body: sea\n2. body: knee", &k);
    assert_eq!((r["bird"].as_str(), r["water body"].as_str(), r["body"].as_str()), ("emu", "sea", "knee"));
    assert!(read_reply("", &k).is_empty());
    assert!(read_reply("value of", &k).is_empty());
    assert!(read_reply("the value of bird is", &k).is_empty());
}

#[test]
fn a_person_and_a_model_are_scored_alike() {
    let truth: BTreeMap<String, String> =
        [("bird", "kea"), ("sport", "judo")].iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let typed: BTreeMap<String, String> =
        [("bird", " Kea "), ("sport", "karate")].iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(score_values(&truth, &typed), 0.5);
    assert_eq!(score_values(&truth, &BTreeMap::new()), 0.0);
    let reference = truth.iter().map(|(k, v)| (k.clone(), vec![v.clone()])).collect();
    assert_eq!(score_reply(&reference, "The current value of bird is KEA. The current value of sport is karate."), 0.5);
    assert_eq!(score_reply(&reference, "The current value of bird is kea. The current value of sport is judo."), 1.0);
    // the same through the metric a run uses
    let r = Reference::Agents(reference);
    assert_eq!(crate::llm::metrics::score(Metric::LastValues, &r, "The current value of sport is judo.").unwrap(), 0.5);
    assert!(crate::llm::metrics::score(Metric::LastValues, &Reference::Int(3), "x").is_err());
}

#[test]
fn samples_cover_each_level_and_answer_themselves() {
    let v = vocab();
    let cfg = PiConfig { keys: 4, updates: vec![2, 8], sessions: 3, ..Default::default() };
    let ss = samples(&v, &cfg).unwrap();
    assert_eq!(ss.len(), 6);
    assert_eq!(ss[0].id, "pi-llm/k4-u2/0");
    assert_eq!(ss[5].id, "pi-llm/k4-u8/2");
    for s in &ss {
        assert_eq!(s.suite, Suite::Pi);
        let SampleBody::Single(one) = &s.body else { panic!() };
        let Reference::Agents(r) = &one.reference else { panic!() };
        // the reply the prompt asks for, built from the reference, scores 1; its first values score less
        let perfect: String = r.iter().map(|(k, v)| format!("The current value of {k} is {}.\n", v[0])).collect();
        assert_eq!(crate::llm::metrics::score(Metric::LastValues, &one.reference, &perfect).unwrap(), 1.0);
        assert!(one.messages[0].content.contains("End your response with"));
    }
    assert!(samples(&v, &PiConfig { keys: 47, ..cfg.clone() }).is_err());
    assert!(samples(&v, &PiConfig { updates: vec![401], ..cfg.clone() }).is_err());
    assert!(samples(&v, &PiConfig { updates: vec![], ..cfg.clone() }).is_err());
    assert!(samples(&v, &PiConfig { sessions: 0, ..cfg.clone() }).is_err());
    assert!(samples(&v, &PiConfig { value_len: 0, ..cfg.clone() }).is_err());
    assert!(samples(&v, &PiConfig { value_len: 2, updates: vec![500], ..cfg }).is_ok());
}

#[test]
fn the_log_fit_of_the_published_rows() {
    // A line exactly on log10: slope −0.25 a decade, intercept 1.
    let pts: Vec<(f64, f64)> = [1.0, 10.0, 100.0].iter().map(|&u: &f64| (u, 1.0 - 0.25 * u.log10())).collect();
    let f = log_fit(&pts).unwrap();
    assert!((f.slope + 0.25).abs() < 1e-12 && (f.intercept - 1.0).abs() < 1e-12, "{f:?}");
    assert!((f.ies - 0.75).abs() < 1e-12, "{f:?}");
    assert!(log_fit(&[(2.0, 1.0), (2.0, 0.5)]).is_none());
    // gpt-4.1's published row falls about a quarter a decade (the authors' homepage)
    let (_, row) = published::REPORTED.iter().find(|(m, _)| *m == "gpt-4.1").unwrap();
    let pts: Vec<(f64, f64)> = PAPER_UPDATES.iter().zip(row).map(|(&u, &a)| (u as f64, a)).collect();
    let f = log_fit(&pts).unwrap();
    assert!((-0.3..-0.2).contains(&f.slope), "{f:?}");
}

#[test]
fn the_peoples_vocabulary_is_the_authors_and_their_streams_are_the_suites() {
    let v = vocab();
    let category = |key: &'static str| -> &'static str {
        match key {
            "animal" => "quodruped",
            "body part" => "body",
            "job" => "profession",
            "tool" => "tools",
            "home" => "furnishing",
            "vehicle" => "land vehicle",
            k => k,
        }
    };
    for (key, values) in crate::people::pi::VOCABULARY {
        let (_, authors) = v.categories.iter().find(|(c, _)| c == category(key)).expect(key);
        for x in values {
            assert!(authors.iter().any(|a| a == x), "{key}: {x} is not the authors'");
        }
    }
    // A person's stream is the suite's stream of the same settings on the people's vocabulary.
    let people = Vocabulary { categories: crate::people::pi::vocabulary() };
    let cfg = PiConfig { keys: crate::people::pi::KEYS, updates: vec![8], sessions: 4, seed: 77, ..Default::default() };
    cfg.check(&people).unwrap();
    for session in 0..4 {
        let person = crate::people::pi::PiTrial::new(77, 8, session as u32, false);
        assert_eq!(person.stream, stream(&people, &cfg, 8, session));
        // And both are scored by the one scorer.
        let typed: BTreeMap<String, String> = person.stream.last_values();
        assert_eq!(score_values(&typed, &typed), 1.0);
    }
}
