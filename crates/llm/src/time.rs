//! Waiting hints from response headers: `retry-after-ms`, `retry-after` (seconds or HTTP date),
//! OpenAI/Groq `x-ratelimit-reset-requests|tokens` (`1s`, `6m0s`, `20ms`), Anthropic
//! `anthropic-ratelimit-*-reset` (RFC 3339). Best effort: unparsable values are ignored.

use crate::HttpResponse;

/// How long the response asks the client to wait, in ms. `Retry-After` wins; otherwise the longest
/// rate-limit reset (only on 429, where the reset is what we wait for).
pub fn retry_after_ms(resp: &HttpResponse, now_ms: f64) -> Option<u64> {
    if let Some(v) = resp.header("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && v.is_finite()
        && v >= 0.0
    {
        return Some(v as u64);
    }
    if let Some(v) = resp.header("retry-after") {
        let v = v.trim();
        if let Ok(s) = v.parse::<f64>()
            && s.is_finite()
            && s >= 0.0
        {
            return Some((s * 1000.0) as u64);
        }
        if let Some(at) = parse_http_date(v) {
            return Some((at - now_ms).max(0.0) as u64);
        }
    }
    if resp.status != 429 {
        return None;
    }
    let mut best: Option<u64> = None;
    for (k, v) in &resp.headers {
        let ms = if k.starts_with("x-ratelimit-reset") {
            parse_go_duration(v)
        } else if k.starts_with("anthropic-ratelimit-") && k.ends_with("-reset") {
            parse_rfc3339(v).map(|at| (at - now_ms).max(0.0) as u64)
        } else {
            None
        };
        if let Some(ms) = ms {
            best = Some(best.map_or(ms, |b| b.max(ms)));
        }
    }
    best
}

/// `1s`, `6m0s`, `1m30.5s`, `20ms`, `2h`, or a bare number of seconds.
pub fn parse_go_duration(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Ok(x) = s.parse::<f64>() {
        return (x.is_finite() && x >= 0.0).then_some((x * 1000.0) as u64);
    }
    let mut total = 0.0;
    let mut num = String::new();
    let mut chars = s.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let x: f64 = num.parse().ok()?;
        num.clear();
        let unit = match c {
            'h' => 3_600_000.0,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                1.0
            }
            'm' => 60_000.0,
            's' => 1000.0,
            _ => return None,
        };
        total += x * unit;
        any = true;
    }
    if !num.is_empty() || !any {
        return None;
    }
    Some(total as u64)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn epoch_ms(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: f64) -> f64 {
    (days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60) as f64 * 1000.0 + s * 1000.0
}

/// `2025-01-02T03:04:05Z` or with fractional seconds / `+hh:mm` offset → epoch ms.
pub fn parse_rfc3339(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.len() < 20 {
        return None;
    }
    let n = |a: usize, b: usize| s.get(a..b)?.parse::<i64>().ok();
    let (y, mo, d, h, mi) = (n(0, 4)?, n(5, 7)?, n(8, 10)?, n(11, 13)?, n(14, 16)?);
    let rest = &s[17..];
    let end = rest.find(['Z', 'z', '+', '-']).unwrap_or(rest.len());
    let sec: f64 = rest[..end].parse().ok()?;
    let tz = &rest[end..];
    let offset_min = if tz.is_empty() || tz.eq_ignore_ascii_case("z") {
        0
    } else {
        let sign = if tz.starts_with('-') { -1 } else { 1 };
        let hh: i64 = tz.get(1..3)?.parse().ok()?;
        let mm: i64 = tz.get(4..6)?.parse().ok()?;
        sign * (hh * 60 + mm)
    };
    Some(epoch_ms(y, mo, d, h, mi, sec) - (offset_min * 60_000) as f64)
}

/// IMF-fixdate `Wed, 21 Oct 2015 07:28:00 GMT` → epoch ms.
pub fn parse_http_date(s: &str) -> Option<f64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    if parts.len() != 6 {
        return None;
    }
    let d: i64 = parts[1].parse().ok()?;
    const M: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let mo = M.iter().position(|m| parts[2].eq_ignore_ascii_case(m))? as i64 + 1;
    let y: i64 = parts[3].parse().ok()?;
    let t: Vec<i64> = parts[4].split(':').map(|x| x.parse().ok()).collect::<Option<_>>()?;
    if t.len() != 3 {
        return None;
    }
    Some(epoch_ms(y, mo, d, t[0], t[1], t[2] as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(status: u16, h: &[(&str, &str)]) -> HttpResponse {
        HttpResponse {
            status,
            headers: h.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            body: String::new(),
        }
    }

    #[test]
    fn parses_wait_hints() {
        assert_eq!(parse_go_duration("6m0s"), Some(360_000));
        assert_eq!(parse_go_duration("1m30.5s"), Some(90_500));
        assert_eq!(parse_go_duration("20ms"), Some(20));
        assert_eq!(parse_go_duration("2"), Some(2000));
        assert_eq!(parse_go_duration("soon"), None);
        assert_eq!(parse_rfc3339("1970-01-02T00:00:00Z"), Some(86_400_000.0));
        assert_eq!(parse_rfc3339("1970-01-01T01:00:00+01:00"), Some(0.0));
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:01:00 GMT"), Some(60_000.0));
        assert_eq!(parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT"), Some(1_445_412_480_000.0));
        assert_eq!(retry_after_ms(&resp(429, &[("retry-after", "2")]), 0.0), Some(2000));
        assert_eq!(retry_after_ms(&resp(429, &[("retry-after-ms", "150")]), 0.0), Some(150));
        assert_eq!(
            retry_after_ms(&resp(503, &[("retry-after", "Thu, 01 Jan 1970 00:01:00 GMT")]), 30_000.0),
            Some(30_000)
        );
        assert_eq!(
            retry_after_ms(
                &resp(429, &[("x-ratelimit-reset-requests", "1s"), ("x-ratelimit-reset-tokens", "6m0s")]),
                0.0
            ),
            Some(360_000)
        );
        assert_eq!(
            retry_after_ms(&resp(429, &[("anthropic-ratelimit-requests-reset", "1970-01-01T00:00:05Z")]), 1000.0),
            Some(4000)
        );
        assert_eq!(retry_after_ms(&resp(500, &[("x-ratelimit-reset-requests", "1s")]), 0.0), None);
    }
}
