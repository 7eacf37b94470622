//! Formatting shared by the pages: durations, scores, score pairs.

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
