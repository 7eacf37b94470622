//! A run's samples (Minerva data fetched only when a Minerva suite is ticked) and its result record.

use wmlab_core::llm::run::SuiteData;
use wmlab_core::llm::{Sample, minerva, pi, snapshot};
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

/// The samples of a spec: the core's [`wmlab_core::llm::run::LlmRun::samples`] over the data its
/// `needs` names, fetched here (Minerva's word list and tokenizer, snapshot files, PI-LLM's vocabulary)
/// only when a suite that reads it is ticked.
pub(super) async fn build_samples(spec: &RunSpec) -> Result<Vec<Sample>, String> {
    let needs = spec.run.needs();
    let words = if needs.words { Some(words().await?) } else { None };
    let tok = if needs.tokenizer { Some(tokenizer().await?) } else { None };
    let vocab = if needs.pi_vocabulary { Some(pi_vocabulary().await?) } else { None };
    let mut snapshot_files = std::collections::BTreeMap::new();
    for (cat, task) in &needs.snapshot_files {
        let path = format!("data/minerva/minerva_snapshot/{}", snapshot::file_path(cat, task));
        snapshot_files.insert(task.to_string(), crate::platform::web::fetch_bytes(&path).await?);
    }
    let data = SuiteData {
        words: words.as_deref().map(Vec::as_slice).unwrap_or_default(),
        tokenizer: tok.as_deref(),
        snapshot_files: &snapshot_files,
        pi_vocabulary: vocab.as_deref(),
    };
    spec.run.samples(&data).map_err(|e| format!("{e}."))
}

pub(super) fn record_of(spec: &RunSpec, outcomes: &[Outcome]) -> ResultRecord {
    if let Some(c) = &spec.run.vision {
        let mut r =
            wmlab_llm::record::to_vision_record(&spec.provider, &spec.options, c, outcomes, Some(spec.created.clone()));
        // The model in this tab: its runtime and the SHA-256 of its file.
        for (k, v) in spec.local.iter().flat_map(|l| l.settings()) {
            r.config.settings.insert(k.to_string(), v);
        }
        return r;
    }
    // The run's settings (the same the CLI writes for the same run), then the model in this tab's.
    let run_settings = spec.run.settings();
    let mut extra: Vec<(&str, Setting)> = run_settings.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    if let Some(l) = &spec.local {
        extra.extend(l.settings());
    }
    extra.push(("samples", Setting::Int(outcomes.len() as i64)));
    wmlab_llm::record::to_record(
        &spec.provider,
        &spec.options,
        &spec.label(),
        spec.run.lrt.as_ref().map_or(0, |l| l.1),
        &extra,
        outcomes,
        Some(spec.created.clone()),
    )
}
