//! Formatting shared by the pages: durations, scores, score pairs, the n behind a score.

use leptos::prelude::*;

/// A duration in words (`42s`, `3m 05s`, `1h 02m`).
pub fn fmt_ms(ms: f64) -> String {
    let s = (ms / 1000.0).round() as i64;
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// A score to 3 decimals, or a dash.
pub fn fmt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.3}")).unwrap_or_else(|| "—".into())
}

/// "subject / human" of a score's two quantities.
pub fn pair(m: Option<f64>, h: Option<f64>) -> String {
    if m.is_none() && h.is_none() { "—".into() } else { format!("{} / {}", fmt(m), fmt(h)) }
}

/// The n behind a Table A3 row's scores, flagged where some of its points rest on too few observations.
pub fn n_cell(n: Option<u32>, thin: u32) -> impl IntoView + use<> {
    let title = if thin > 0 {
        format!(
            "{thin} of the points behind this score rest on fewer than {} observations: evaluate on more trials",
            wmlab_core::stats::MIN_POINT_N
        )
    } else {
        "answers or trials behind the points that meet a human point".to_string()
    };
    let is_thin = thin > 0;
    view! {
        <td class="num a3-n" class:thin=is_thin title=title data-thin=thin>
            {n.map_or("—".to_string(), |n| n.to_string())}{if is_thin { " ⚠" } else { "" }}</td>
    }
}
