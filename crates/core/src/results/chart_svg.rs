//! A [`Chart`] as an SVG document: the same chart spec the app draws on a canvas, written as text for
//! the CLI (`wmlab compare`) and for downloads — pure, so native tests read what it writes.
//!
//! It follows the canvas drawing: the legend to the right of the plot (never over a point), subjects
//! thick with filled markers, references thin with hollow markers, chance dashed, error bars with caps,
//! categories numbered on x with a key below. Axis ticks are "nice" numbers (1, 2 or 5 × 10ᵏ).

use std::fmt::Write;

use crate::chart::{Chart, Marker, Rgb, Role, hex, legend_lines};

/// The opacity of a point on too few observations (and of its error bar).
const FAINT: &str = r#" opacity="0.3""#;

/// Escape text for an SVG text node or attribute.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Up to about `n` evenly spaced round values covering `lo..=hi`.
pub fn nice_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo || n == 0 {
        return Vec::new();
    }
    let raw = (hi - lo) / n as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).map(|v| if v.abs() < step * 1e-9 { 0.0 } else { v }).collect()
}

fn num(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// The marker `shape` at pixel (x, y), radius `r`, as an SVG element.
fn marker(shape: Marker, x: f64, y: f64, r: f64, colour: Rgb, filled: bool) -> String {
    let c = hex(colour);
    let paint = if filled { format!(r#"fill="{c}" stroke="{c}""#) } else { format!(r#"fill="white" stroke="{c}""#) };
    let poly = |pts: &[(f64, f64)]| {
        let p: Vec<String> = pts.iter().map(|(dx, dy)| format!("{:.1},{:.1}", x + dx * r, y + dy * r)).collect();
        format!(r#"<polygon points="{}" {paint}/>"#, p.join(" "))
    };
    let lines = |segs: &[((f64, f64), (f64, f64))]| {
        segs.iter()
            .map(|((a, b), (cx, cy))| {
                format!(
                    r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="1.5"/>"#,
                    x + a * r,
                    y + b * r,
                    x + cx * r,
                    y + cy * r
                )
            })
            .collect::<String>()
    };
    match shape {
        Marker::Circle => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" {paint}/>"#),
        Marker::Triangle => poly(&[(0.0, -1.2), (1.1, 0.8), (-1.1, 0.8)]),
        Marker::TriangleDown => poly(&[(0.0, 1.2), (1.1, -0.8), (-1.1, -0.8)]),
        Marker::Square => poly(&[(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]),
        Marker::Diamond => poly(&[(0.0, -1.3), (1.1, 0.0), (0.0, 1.3), (-1.1, 0.0)]),
        Marker::Pentagon => {
            let pts: Vec<(f64, f64)> = (0..5)
                .map(|k| {
                    let a = -std::f64::consts::FRAC_PI_2 + k as f64 * 2.0 * std::f64::consts::PI / 5.0;
                    (1.2 * a.cos(), 1.2 * a.sin())
                })
                .collect();
            poly(&pts)
        }
        Marker::Cross => lines(&[((-1.0, -1.0), (1.0, 1.0)), ((-1.0, 1.0), (1.0, -1.0))]),
        Marker::Plus => lines(&[((-1.2, 0.0), (1.2, 0.0)), ((0.0, -1.2), (0.0, 1.2))]),
    }
}

/// A figure's size for print, in CSS pixels: a paper's full text width (7 in at 100 px an inch).
pub const PRINT_SIZE: (u32, u32) = (700, 420);
/// The PNG export draws the print-size SVG this many times larger: 2,100 × 1,260 px, 7 × 4.2 in at 300 dpi.
pub const PRINT_SCALE: u32 = 3;

/// The chart as an SVG document at [`PRINT_SIZE`].
pub fn print_svg(chart: &Chart) -> String {
    svg(chart, PRINT_SIZE.0, PRINT_SIZE.1)
}

/// The chart as a standalone SVG document of `width` × `height` pixels.
pub fn svg(chart: &Chart, width: u32, height: u32) -> String {
    let (w, h) = (width as f64, height as f64);
    let cats = &chart.categories;
    let key_h = if cats.is_empty() { 0.0 } else { 14.0 * cats.len().div_ceil(3) as f64 + 6.0 };
    let legend_w = chart.legend_width(w);
    let (left, right, top, bottom) = (58.0, w - legend_w - 10.0, 30.0, h - 44.0 - key_h);
    let ((x0, x1), (y0, y1)) = chart.bounds();
    let pad = if cats.is_empty() { (x1 - x0) * 0.06 } else { 0.5 };
    let ypad = (y1 - y0) * 0.04;
    let (vx0, vx1, vy0, vy1) = (x0 - pad, x1 + pad, y0 - ypad, y1 + ypad);
    let px = |x: f64| left + (x - vx0) / (vx1 - vx0) * (right - left);
    let py = |y: f64| bottom - (y - vy0) / (vy1 - vy0) * (bottom - top);

    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = write!(o, r#"<rect width="{width}" height="{height}" fill="white"/>"#);
    let _ = write!(
        o,
        r#"<text x="{:.1}" y="18" font-size="14" text-anchor="middle">{}</text>"#,
        (left + right) / 2.0,
        esc(&chart.title)
    );
    // Axes, ticks and their labels.
    let _ = write!(o, r##"<path d="M{left:.1},{top:.1} V{bottom:.1} H{right:.1}" fill="none" stroke="#222"/>"##);
    let xt: Vec<(f64, String)> = if !cats.is_empty() {
        (0..cats.len()).map(|i| (i as f64, (i + 1).to_string())).collect()
    } else if chart.whole_x() && x1 - x0 <= 30.0 {
        let step = ((x1 - x0) / 10.0).ceil().max(1.0);
        let mut v = Vec::new();
        let mut x = x0.round();
        while x <= x1 + 1e-9 {
            v.push((x, num(x)));
            x += step;
        }
        v
    } else {
        nice_ticks(vx0, vx1, 6).into_iter().map(|x| (x, num(x))).collect()
    };
    for (x, label) in xt {
        let p = px(x);
        let _ =
            write!(o, r##"<line x1="{p:.1}" y1="{bottom:.1}" x2="{p:.1}" y2="{:.1}" stroke="#222"/>"##, bottom + 4.0);
        let _ = write!(
            o,
            r#"<text x="{p:.1}" y="{:.1}" font-size="11" text-anchor="middle">{}</text>"#,
            bottom + 16.0,
            esc(&label)
        );
    }
    for y in nice_ticks(vy0, vy1, 6) {
        let p = py(y);
        let _ = write!(o, r##"<line x1="{:.1}" y1="{p:.1}" x2="{left:.1}" y2="{p:.1}" stroke="#222"/>"##, left - 4.0);
        let _ = write!(o, r##"<line x1="{left:.1}" y1="{p:.1}" x2="{right:.1}" y2="{p:.1}" stroke="#eee"/>"##);
        let _ = write!(
            o,
            r#"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="end">{}</text>"#,
            left - 7.0,
            p + 4.0,
            num(y)
        );
    }
    let _ = write!(
        o,
        r#"<text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle">{}</text>"#,
        (left + right) / 2.0,
        bottom + 34.0,
        esc(&chart.x_label)
    );
    let _ = write!(
        o,
        r#"<text transform="translate(14,{:.1}) rotate(-90)" font-size="12" text-anchor="middle">{}</text>"#,
        (top + bottom) / 2.0,
        esc(&chart.y_label)
    );
    if !cats.is_empty() {
        for (i, c) in cats.iter().enumerate() {
            let (col, row) = (i % 3, i / 3);
            let _ = write!(
                o,
                r#"<text x="{:.1}" y="{:.1}" font-size="10">{} {}</text>"#,
                left + col as f64 * (right - left) / 3.0,
                bottom + 50.0 + row as f64 * 14.0,
                i + 1,
                esc(c)
            );
        }
    }

    // Series: lines, error bars, markers.
    let n = chart.series.len() as f64;
    let mut legend: Vec<(String, Rgb, Role, Marker, bool)> = Vec::new();
    for (k, s) in chart.series.iter().enumerate() {
        let colour = s.colour_at(k);
        let dodge = if cats.is_empty() { 0.0 } else { (k as f64 - (n - 1.0) / 2.0) * 0.5 / n.max(1.0) };
        let thin = chart.thin_flags(s);
        let pts: Vec<(f64, f64)> = s.finite_points().map(|(x, y)| (px(x + dodge), py(y))).collect();
        if pts.is_empty() {
            continue;
        }
        let _ = write!(o, r#"<g class="series" data-name="{}" data-role="{:?}">"#, esc(&s.name), s.role);
        let joined = s.line && cats.is_empty();
        if joined {
            let width = if s.role == Role::Subject { 2 } else { 1 };
            let dash = if s.role == Role::Chance { r#" stroke-dasharray="6 4""# } else { "" };
            // One polyline per run of segments of the same shade: a segment to a thin point is faint.
            let shade: Vec<bool> = (0..pts.len().saturating_sub(1)).map(|i| thin[i] || thin[i + 1]).collect();
            let mut start = 0;
            while start + 1 < pts.len() {
                let faint = shade[start];
                let mut end = start + 1;
                while end < shade.len() && shade[end] == faint {
                    end += 1;
                }
                let d: Vec<String> = pts[start..=end].iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                let _ = write!(
                    o,
                    r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{width}"{dash}{}/>"#,
                    d.join(" "),
                    hex(colour),
                    if faint { FAINT } else { "" }
                );
                start = end;
            }
        }
        let cap = (right - left) * 0.01;
        for &(bx, lo, hi) in s.bars.iter().filter(|b| b.0.is_finite() && b.1.is_finite() && b.2.is_finite()) {
            let (x, a, b) = (px(bx + dodge), py(lo), py(hi));
            // A bar is as faint as its point.
            let faint = chart.thin_bar(s, bx);
            let _ = write!(
                o,
                r#"<path d="M{x:.1},{a:.1} V{b:.1} M{:.1},{a:.1} H{:.1} M{:.1},{b:.1} H{:.1}" stroke="{}" fill="none"{}/>"#,
                x - cap,
                x + cap,
                x - cap,
                x + cap,
                hex(colour),
                if faint { FAINT } else { "" }
            );
        }
        if !joined || pts.len() < 40 {
            for (&(x, y), &thin) in pts.iter().zip(&thin) {
                let m = marker(s.marker, x, y, 3.5, colour, s.role == Role::Subject);
                if thin {
                    let _ = write!(o, r#"<g class="thin"{FAINT}>{m}</g>"#);
                } else {
                    o.push_str(&m);
                }
            }
        }
        o.push_str("</g>");
        if s.legend {
            legend.push((s.name.clone(), colour, s.role, s.marker, joined));
        }
    }

    // The legend, right of the plot; faint points named last.
    let lx = w - legend_w;
    let thin_note = chart.thin_note();
    let max_chars = (((legend_w - 36.0) / 6.0).max(8.0)) as usize;
    let lines: Vec<Vec<String>> = legend.iter().map(|e| legend_lines(&e.0, max_chars)).collect();
    let rows = lines.iter().map(Vec::len).sum::<usize>() + usize::from(thin_note.is_some());
    let step = ((h - 50.0) / rows.max(1) as f64).clamp(12.0, 20.0);
    let mut row = 0;
    for ((_, colour, role, shape, joined), text) in legend.iter().zip(&lines) {
        let y = 40.0 + step * row as f64;
        row += text.len();
        if *joined {
            let dash = if *role == Role::Chance { r#" stroke-dasharray="6 4""# } else { "" };
            let _ = write!(
                o,
                r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{}" stroke-width="2"{dash}/>"#,
                lx + 4.0,
                lx + 28.0,
                hex(*colour)
            );
        }
        o.push_str(&marker(*shape, lx + 16.0, y, 3.5, *colour, *role == Role::Subject));
        for (k, line) in text.iter().enumerate() {
            let (x, yy) = (lx + 34.0 + if k > 0 { 8.0 } else { 0.0 }, y + 4.0 + step * k as f64);
            let _ = write!(o, r#"<text x="{x:.1}" y="{yy:.1}" font-size="11">{}</text>"#, esc(line));
        }
    }
    if let Some(note) = thin_note {
        let y = 40.0 + step * row as f64;
        let _ = write!(o, r#"<g{FAINT}>{}</g>"#, marker(Marker::Circle, lx + 16.0, y, 3.5, (0x44, 0x44, 0x44), true));
        let _ = write!(o, r#"<text x="{:.1}" y="{:.1}" font-size="11">{}</text>"#, lx + 34.0, y + 4.0, esc(&note));
    }
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{INK, Series};

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(nice_ticks(0.0, 1.0, 5), [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
        assert_eq!(nice_ticks(-0.04, 1.04, 5), [0.0, 0.5, 1.0]);
        assert_eq!(nice_ticks(3.0, 1.0, 5), Vec::<f64>::new());
        assert_eq!(num(0.6000000000000001), "0.6");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(12.0), "12");
    }

    #[test]
    fn every_series_point_and_legend_entry_is_written_and_text_is_escaped() {
        let mut c = Chart::new("VSR <all> & more", "serial position", "accuracy");
        c.series.push(
            Series::new("LSTM-96 \"paper\"", Role::Subject, vec![(1.0, 0.9), (2.0, 0.8), (3.0, f64::NAN)])
                .marker(Marker::Triangle),
        );
        c.series.push(Series::new("people (WorM)", Role::Reference, vec![(1.0, 0.95), (2.0, 0.7)]).colour(INK));
        c.series.push(Series::new("chance model", Role::Chance, vec![(1.0, 0.11), (2.0, 0.11)]));
        c.series.push(Series::new("hidden", Role::Subject, vec![(1.0, 0.5)]).unlabelled().err(&[0.1]));
        c.y_range = Some((0.0, 1.0));
        let s = svg(&c, 640, 360);
        assert!(s.starts_with("<svg ") && s.ends_with("</svg>\n"));
        assert!(s.contains("VSR &lt;all&gt; &amp; more") && s.contains("LSTM-96 &quot;paper&quot;"));
        assert_eq!(s.matches(r#"<g class="series""#).count(), 4);
        // Two finite points of the subject (the NaN is skipped), two of the people, two of chance: a line
        // each; the hidden series' one point has no segment to draw.
        assert_eq!(s.matches("<polyline").count(), 3);
        assert_eq!(s.matches("stroke-dasharray").count(), 2, "the chance line and its legend entry");
        // The legend names the three labelled series, not the unlabelled one.
        for name in ["LSTM-96 &quot;paper&quot;", "people (WorM)", "chance model"] {
            assert_eq!(s.matches(&format!(">{name}</text>")).count(), 1, "{name}");
        }
        assert!(!s.contains(">hidden</text>"));
        // The subject's triangles are filled in its colour, the people's circles hollow.
        assert!(s.contains(&format!(r#"fill="{0}" stroke="{0}""#, hex(crate::chart::PALETTE[0]))));
        assert!(s.contains(&format!(r#"fill="white" stroke="{}""#, hex(INK))));
        // The error bar of the hidden series.
        assert!(s.contains("<path d=\"M"));
        // y ticks 0 … 1.
        for t in ["0", "0.2", "0.4", "0.6", "0.8", "1"] {
            assert!(s.contains(&format!(r#"text-anchor="end">{t}</text>"#)), "{t}");
        }
    }

    #[test]
    fn a_print_figure_names_every_series_whole() {
        let mut c = Chart::new("VSR · list length 6", "serial position", "accuracy");
        let long = "LSTM-256 (network) · paper preset · n 40–52";
        c.series.push(Series::new(long, Role::Subject, vec![(1.0, 0.9), (2.0, 0.5)]));
        c.series.push(Series::new("people (WorM)", Role::Reference, vec![(1.0, 0.95), (2.0, 0.7)]));
        let s = print_svg(&c);
        assert!(s.contains(r#"width="700" height="420""#));
        assert!(s.contains(&format!(">{}</text>", esc(long))), "not cut: {s}");
    }

    #[test]
    fn thin_points_are_faint_and_named_in_the_legend() {
        let mut c = Chart::new("VSR", "serial position", "accuracy");
        let mut s = Series::new("me · n 3–40", Role::Subject, vec![(1.0, 0.9), (2.0, 0.5)]);
        s.n = vec![40, 3];
        c.series.push(s.bars(vec![(1.0, 0.8, 0.95), (2.0, 0.1, 0.9)]));
        let plain = svg(&c, 640, 360);
        assert!(!plain.contains("opacity") && !plain.contains("faint:"), "min_n 0: nothing faint");
        c.min_n = 10;
        let s = svg(&c, 640, 360);
        assert_eq!(s.matches(r#"<g class="thin" opacity="0.3">"#).count(), 1, "the point on 3");
        assert_eq!(s.matches(r#"fill="none" opacity="0.3"/>"#).count(), 1, "its error bar");
        assert_eq!(s.matches(r#"stroke-width="2" opacity="0.3"/>"#).count(), 1, "the segment to it");
        assert!(s.contains(">faint: n &lt; 10</text>"));
    }

    #[test]
    fn categories_are_numbered_with_a_key() {
        let mut c = Chart::new("t", "", "score");
        c.categories = vec!["search".into(), "recall & edit".into()];
        c.series.push(Series::new("run", Role::Subject, vec![(0.0, 0.5), (1.0, 0.7)]));
        let s = svg(&c, 500, 300);
        assert!(s.contains(">1 search</text>") && s.contains(">2 recall &amp; edit</text>"));
        assert_eq!(s.matches("<polyline").count(), 0, "categories are not joined");
        assert_eq!(s.matches("<circle").count(), 3, "two points and the legend's marker");
    }
}
