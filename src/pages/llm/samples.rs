//! A run's samples (Minerva data fetched only when a Minerva suite is ticked) and its result record.

use wmlab_core::llm::{Sample, latent, lrt, minerva, nback, pi, snapshot};
use wmlab_core::record::{ResultRecord, Setting};
use wmlab_llm::Outcome;

use crate::platform::llm_store::RunSpec;

thread_local! {
    static WORDS: std::cell::RefCell<Option<std::rc::Rc<Vec<String>>>> = const { std::cell::RefCell::new(None) };
}

/// The dwyl word list, fetched and gunzipped once per page load.
async fn words() -> Result<std::rc::Rc<Vec<String>>, String> {
    if let Some(w) = WORDS.with(|w| w.borrow().clone()) {
        return Ok(w);
    }
    let gz = crate::platform::web::fetch_bytes("data/minerva/words_alpha_dwyl_2019-03-13.txt.gz").await?;
    let text = String::from_utf8(snapshot::gunzip(&gz)?).map_err(|_| "The word list is not UTF-8 text.".to_string())?;
    let list: Vec<String> =
        text.lines().map(|l| l.trim_end_matches('\r')).filter(|w| !w.is_empty()).map(str::to_string).collect();
    let rc = std::rc::Rc::new(list);
    WORDS.with(|w| *w.borrow_mut() = Some(rc.clone()));
    Ok(rc)
}

thread_local! {
    /// The page's cl100k tokenizer, made once per page load (the core keeps none).
    static TOKENIZER: std::cell::RefCell<Option<std::rc::Rc<minerva::Tokenizer>>> = const { std::cell::RefCell::new(None) };
}

/// The cl100k tokenizer the Minerva generator measures contexts with: its ranks are not built into the
/// app (about 1.7 MB of wasm); they are fetched once per page load when a generated Minerva suite runs.
async fn tokenizer() -> Result<std::rc::Rc<minerva::Tokenizer>, String> {
    if let Some(t) = TOKENIZER.with(|t| t.borrow().clone()) {
        return Ok(t);
    }
    let gz = crate::platform::web::fetch_bytes("data/cl100k_base.tiktoken.gz").await?;
    let text =
        String::from_utf8(snapshot::gunzip(&gz)?).map_err(|_| "The token ranks file is not UTF-8 text.".to_string())?;
    let t = std::rc::Rc::new(minerva::Tokenizer::from_ranks(&text)?);
    TOKENIZER.with(|slot| *slot.borrow_mut() = Some(t.clone()));
    Ok(t)
}

thread_local! {
    static PI_WORDS: std::cell::RefCell<Option<std::rc::Rc<pi::Vocabulary>>> = const { std::cell::RefCell::new(None) };
}

/// PI-LLM's vocabulary, fetched once per page load when the suite runs.
async fn pi_vocabulary() -> Result<std::rc::Rc<pi::Vocabulary>, String> {
    if let Some(v) = PI_WORDS.with(|v| v.borrow().clone()) {
        return Ok(v);
    }
    let gz = crate::platform::web::fetch_bytes(pi::VOCABULARY_PATH).await?;
    let text = String::from_utf8(snapshot::gunzip(&gz)?)
        .map_err(|_| "The PI-LLM vocabulary is not UTF-8 text.".to_string())?;
    let v = std::rc::Rc::new(pi::Vocabulary::from_json(&text)?);
    PI_WORDS.with(|slot| *slot.borrow_mut() = Some(v.clone()));
    Ok(v)
}

/// The samples of a spec (Minerva data is fetched only when a Minerva suite is ticked).
pub(super) async fn build_samples(spec: &RunSpec) -> Result<Vec<Sample>, String> {
    // At most `slice` samples a suite, spread over its conditions (N-back: a block of each N).
    // Each item then `repeats` times.
    let cap =
        |v: Vec<Sample>| wmlab_core::llm::with_repeats(wmlab_core::llm::spread_slice(v, spec.slice), spec.repeats);
    let mut all = Vec::new();
    if let Some(c) = &spec.nback {
        all.extend(cap(nback::samples(c)));
    }
    if let Some(c) = &spec.lrt {
        all.extend(cap(lrt::samples(c, spec.lrt_seed)));
    }
    if let Some(c) = &spec.latent {
        all.extend(cap(latent::samples(c).map_err(|e| format!("{e}."))?));
    }
    if let Some(c) = &spec.pi {
        let vocab = pi_vocabulary().await?;
        all.extend(cap(pi::samples(&vocab, c).map_err(|e| format!("{e}."))?));
    }
    if let Some(s) = &spec.snapshot {
        let mut v = Vec::new();
        for &i in &s.files {
            let Some(&(cat, task)) = snapshot::FILES.get(i) else { continue };
            if spec.slice > 0 && v.len() >= spec.slice {
                break;
            }
            let path = format!("data/minerva/minerva_snapshot/{}", snapshot::file_path(cat, task));
            let gz = crate::platform::web::fetch_bytes(&path).await?;
            let mut ss =
                snapshot::parse_gz_file(cat, task, &gz).map_err(|e| format!("Minerva snapshot {task}: {e}"))?;
            if s.limit > 0 {
                ss.truncate(s.limit);
            }
            v.extend(ss);
        }
        all.extend(cap(v));
    }
    if let Some(c) = &spec.vision {
        all.extend(cap(wmlab_core::llm::vision::samples(c)?));
    }
    if let Some(g) = &spec.generated {
        let w = words().await?;
        let tok = tokenizer().await?;
        let cfg = minerva::MinervaConfig {
            seed: g.seed,
            context_tokens: g.context_tokens,
            tasks: Some(g.tasks.clone()),
            samples_per_cell: Some(g.samples_per_cell),
            ..Default::default()
        };
        all.extend(cap(minerva::generate_sweep(&cfg, &g.sweep(), &w, &tok)));
    }
    Ok(all)
}

pub(super) fn record_of(spec: &RunSpec, outcomes: &[Outcome]) -> ResultRecord {
    if let Some(c) = &spec.vision {
        let mut r =
            wmlab_llm::record::to_vision_record(&spec.provider, &spec.options, c, outcomes, Some(spec.created.clone()));
        // The model in this tab: its runtime and the SHA-256 of its file.
        for (k, v) in spec.local.iter().flat_map(|l| l.settings()) {
            r.config.settings.insert(k.to_string(), v);
        }
        return r;
    }
    let mut extra: Vec<(&str, Setting)> =
        vec![("suites", Setting::Text(spec.label())), ("slice", Setting::Int(spec.slice as i64))];
    if spec.repeats > 1 {
        extra.push(("repeats", Setting::Int(spec.repeats as i64)));
    }
    if let Some(c) = &spec.nback {
        extra.push(("nback_variant", Setting::Text(c.variant.as_str().into())));
        extra.push(("nback_protocol", Setting::Text(c.options.protocol.as_str().into())));
        extra.push(("nback_history", Setting::Text(c.options.history.name())));
    }
    if let Some(c) = &spec.pi {
        extra.extend(c.settings());
    }
    if let Some(c) = &spec.latent {
        extra.extend(c.settings());
    }
    if let Some(l) = &spec.local {
        extra.extend(l.settings());
    }
    if let Some(g) = &spec.generated {
        extra.push(("minerva_context_tokens", Setting::Int(g.context_tokens as i64)));
        if !g.contexts.is_empty() {
            let list: Vec<String> = g.contexts.iter().map(usize::to_string).collect();
            extra.push(("minerva_context_sweep", Setting::Text(list.join(","))));
        }
        if !g.steps.is_empty() {
            let list: Vec<String> = g.steps.iter().map(usize::to_string).collect();
            extra.push(("minerva_steps", Setting::Text(list.join(","))));
        }
        if !g.variants.is_empty() {
            let list: Vec<String> = g.variants.iter().map(u8::to_string).collect();
            extra.push(("minerva_prompt_variants", Setting::Text(list.join(","))));
        }
        extra.push(("minerva_seed", Setting::Int(g.seed as i64)));
    }
    wmlab_llm::record::to_record(
        &spec.provider,
        &spec.options,
        &spec.label(),
        spec.lrt_seed,
        &extra,
        outcomes,
        Some(spec.created.clone()),
    )
}
