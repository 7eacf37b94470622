//! The record of a run from the runner's side: who answered and how it was asked ([`run_info`]); the
//! rest (trial rows, summaries, repeats) is the core's [`wmlab_core::llm::record`].

use std::collections::BTreeMap;

use wmlab_core::llm::outcome::Outcome;
use wmlab_core::llm::record::{self as core_record, RunInfo};
use wmlab_core::llm::vision::VisionConfig;
use wmlab_core::record::{ResultRecord, Setting, credential_like};

pub use wmlab_core::llm::record::{REPEAT_SD, summaries, trial_row};

use crate::provider::ProviderConfig;
use crate::runner::RunOptions;

/// The provider's name, the model and the settings a record keeps of how it was asked (no key; names
/// safe for the core's check).
pub fn run_info(provider: &ProviderConfig, options: &RunOptions) -> RunInfo {
    let mut s: BTreeMap<String, Setting> = BTreeMap::new();
    s.insert("provider".into(), Setting::Text(provider.kind.as_str().into()));
    s.insert("base_url".into(), Setting::Text(provider.base_url.clone()));
    s.insert("model".into(), Setting::Text(provider.model.clone()));
    if let Some(t) = provider.temperature {
        s.insert("temperature".into(), Setting::Num(t));
    }
    if let Some(n) = provider.max_tokens {
        s.insert("max_tokens".into(), Setting::Int(n as i64));
    }
    if let Some(p) = provider.top_p {
        s.insert("top_p".into(), Setting::Num(p));
    }
    if let Some(seed) = provider.seed {
        s.insert("sampling_seed".into(), Setting::Int(seed));
    }
    if let Some(r) = provider.reasoning {
        s.insert("reasoning".into(), Setting::Text(r.label()));
    }
    s.insert("concurrency".into(), Setting::Int(options.concurrency as i64));
    s.insert("max_retries".into(), Setting::Int(options.max_retries as i64));
    s.insert("timeout_ms".into(), Setting::Int(options.timeout_ms as i64));
    s.retain(|k, _| !credential_like(k));
    RunInfo { provider: provider.kind.as_str().into(), model: provider.model.clone(), settings: s }
}

/// [`core_record::to_vision_record`] of a run with this provider.
pub fn to_vision_record(
    provider: &ProviderConfig,
    options: &RunOptions,
    cfg: &VisionConfig,
    outcomes: &[Outcome],
    created: Option<String>,
) -> ResultRecord {
    core_record::to_vision_record(&run_info(provider, options), cfg, outcomes, created)
}

/// [`core_record::to_record`] of a run with this provider.
pub fn to_record(
    provider: &ProviderConfig,
    options: &RunOptions,
    task: &str,
    seed: u64,
    extra_settings: &[(&str, Setting)],
    outcomes: &[Outcome],
    created: Option<String>,
) -> ResultRecord {
    core_record::to_record(&run_info(provider, options), task, seed, extra_settings, outcomes, created)
}

/// ISO 8601 UTC text of epoch milliseconds (for `created`).
pub fn iso8601(epoch_ms: f64) -> String {
    let secs = (epoch_ms / 1000.0).floor() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // civil_from_days (H. Hinnant)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_445_412_480_000.0), "2015-10-21T07:28:00Z");
    }

    #[test]
    fn settings_names_pass_the_credential_check() {
        let mut p = ProviderConfig::new(crate::provider::ProviderKind::OpenAi, "http://127.0.0.1:1/v1", "m");
        p.max_tokens = Some(16);
        let s = run_info(&p, &RunOptions::default()).settings;
        assert!(s.contains_key("max_tokens"));
        assert!(s.keys().all(|k| !credential_like(k)));
    }
}
