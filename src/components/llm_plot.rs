//! Charts of an LLM run beside the papers' numbers (plotters-canvas). What each chart shows — series,
//! references of the same variant/protocol/block size, notes, the N-back tests — is built and tested in
//! `wmlab_llm::charts`; this only draws it. A drawn chart gets `data-drawn="true"`.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wmlab_core::llm::nback::DprimeTests;
use wmlab_llm::Outcome;
use wmlab_llm::charts::{LlmPanel, nback_tests, panels};

use super::chart::mark_drawn;
use super::plot::COLOURS;

fn draw(canvas: web_sys::HtmlCanvasElement, p: &LlmPanel) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let xs = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0));
    let (mut x0, mut x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if p.x_labels.is_some() {
        x0 = -0.5;
        x1 = p.x_labels.as_ref().map_or(1.0, |l| l.len() as f64 - 0.5);
    } else {
        if (x1 - x0).abs() < 1e-9 {
            x0 -= 1.0;
            x1 += 1.0;
        }
        let pad = (x1 - x0) * 0.06;
        x0 -= pad;
        x1 += pad;
    }
    let (y0, y1) = p.y_range;
    let bottom = if p.x_labels.is_some() { 90 } else { 36 };
    let mut chart = ChartBuilder::on(&root)
        .caption(&p.title, ("sans-serif", 14))
        .margin(8)
        .x_label_area_size(bottom)
        .y_label_area_size(44)
        .build_cartesian_2d(x0..x1, (y0 - 0.02)..(y1 + 0.05))
        .map_err(|e| e.to_string())?;
    let labels = p.x_labels.clone();
    let fmt = move |x: &f64| match &labels {
        Some(l) => {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                l.get(i as usize).map(|s| s.chars().take(16).collect()).unwrap_or_default()
            } else {
                String::new()
            }
        }
        None => {
            if (x - x.round()).abs() < 1e-9 {
                format!("{}", x.round() as i64)
            } else {
                format!("{x:.1}")
            }
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&p.x_desc).y_desc(&p.y_desc).light_line_style(WHITE.mix(0.0)).x_label_formatter(&fmt);
    if let Some(l) = &p.x_labels {
        mesh.x_labels(l.len() * 2 + 1).x_label_style(("sans-serif", 10).into_font().transform(FontTransform::Rotate90));
    }
    mesh.draw().map_err(|e| e.to_string())?;
    for (i, s) in p.series.iter().enumerate() {
        if s.points.is_empty() {
            continue;
        }
        let colour = COLOURS[i % COLOURS.len()];
        let width = if s.reference { 1 } else { 3 };
        if p.x_labels.is_none() {
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), colour.stroke_width(width)))
                .map_err(|e| e.to_string())?
                .label(s.label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(width)));
        }
        for &(_, x, lo, hi) in p.intervals.iter().filter(|iv| iv.0 == i) {
            let bar = colour.stroke_width(2);
            chart
                .draw_series([
                    PathElement::new(vec![(x, lo), (x, hi)], bar),
                    PathElement::new(vec![(x - 0.15, lo), (x + 0.15, lo)], bar),
                    PathElement::new(vec![(x - 0.15, hi), (x + 0.15, hi)], bar),
                ])
                .map_err(|e| e.to_string())?;
        }
        let style = if s.reference { colour.stroke_width(2) } else { colour.filled() };
        let r = if s.reference { 4 } else { 5 };
        let drawn = chart
            .draw_series(s.points.iter().map(|&(x, y)| Circle::new((x, y), r, style)))
            .map_err(|e| e.to_string())?;
        if p.x_labels.is_some() {
            drawn.label(s.label.clone()).legend(move |(x, y)| Circle::new((x + 9, y), 4, style));
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 10))
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

#[component]
fn LlmChart(panel: LlmPanel) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let p = panel.clone();
    Effect::new(move |_| {
        if let Some(c) = canvas.get() {
            mark_drawn(&c, draw(c.clone(), &p).map(|()| None));
        }
    });
    let own = panel.series.iter().filter(|s| !s.reference).map(|s| s.points.len()).sum::<usize>();
    let note = panel
        .note
        .clone()
        .map(|n| view! { <figcaption class="small chart-note" id=format!("llm-note-{}", panel.id)>{n}</figcaption> });
    view! {
        <figure class="chart">
            <canvas node_ref=canvas class="plot llm-plot" id=format!("llm-plot-{}", panel.id) data-points=own
                width="560" height="360" role="img" aria-label=panel.title.clone()></canvas>
            {note}
        </figure>
    }
}

/// Every chart the outcomes allow.
#[component]
pub fn LlmCharts(outcomes: Vec<Outcome>) -> impl IntoView {
    let ps = panels(&outcomes);
    if ps.is_empty() {
        return view! { <p class="small" id="llm-charts-empty">"No charts yet."</p> }.into_any();
    }
    let n = ps.len();
    view! {
        <div class="charts" id="llm-charts" data-panels=n>
            {ps.into_iter().map(|p| view! { <LlmChart panel=p/> }).collect_view()}
        </div>
        <p class="small">"Thick lines and filled dots: this run. Thin lines and rings: the papers' published numbers."</p>
        {nback_tests(&outcomes).map(|(mine, published)| view! { <NbackTests mine=mine published=published/> })}
    }
    .into_any()
}

fn p_text(p: f64) -> String {
    if p < 1e-4 { format!("{p:.1e}") } else { format!("{p:.4}") }
}

fn test_cell(r: &Result<wmlab_core::stats::TestResult, String>, stat: &str) -> String {
    match r {
        Ok(t) => format!("{stat} = {:.2}, p = {}", t.statistic, p_text(t.p)),
        Err(e) => e.clone(),
    }
}

/// One column of the tests table: a subject's Kruskal–Wallis, post hoc and Wilcoxon rows, as text.
fn test_rows(t: &DprimeTests) -> Vec<(String, String)> {
    let mut rows = vec![(
        "d′ per N (blocks)".to_string(),
        t.levels.iter().map(|(n, k, m)| format!("{n}-back {m:.2} ({k})")).collect::<Vec<_>>().join(" · "),
    )];
    rows.push(("Kruskal–Wallis across N".into(), test_cell(&t.kruskal, "H")));
    for (a, b, r) in &t.pairs {
        let cell = match r {
            Ok((u, adj)) => format!("U = {:.1}, p = {} (Bonferroni {})", u.statistic, p_text(u.p), p_text(*adj)),
            Err(e) => e.clone(),
        };
        rows.push((format!("Mann–Whitney {a}- vs {b}-back"), cell));
    }
    for (n, r) in &t.against_zero {
        rows.push((format!("Wilcoxon {n}-back d′ vs 0"), test_cell(r, "W")));
    }
    rows
}

/// The N-back paper's tests on d′ (notebook definition), for this run and the published blocks of the
/// same variant and protocol.
#[component]
fn NbackTests(mine: DprimeTests, published: Option<(String, DprimeTests)>) -> impl IntoView {
    let ours = test_rows(&mine);
    // Rows matched by name: the run may have fewer N levels than the published blocks.
    let theirs: std::collections::BTreeMap<String, String> =
        published.as_ref().map(|(_, t)| test_rows(t).into_iter().collect()).unwrap_or_default();
    let has_published = published.is_some();
    let head = published.as_ref().map(|(m, _)| format!("published ({m})"));
    view! {
        <details class="nback-tests" id="llm-nback-tests" open>
            <summary>"Statistics on d′, as the N-back paper tests it"</summary>
            <table class="results-table">
                <thead><tr><th>"test"</th><th>"this run"</th>{head.map(|h| view! { <th>{h}</th> })}</tr></thead>
                <tbody>
                    {ours.into_iter().map(|(name, cell)| {
                        let other = has_published.then(|| theirs.get(&name).cloned().unwrap_or_default());
                        view! { <tr><td>{name}</td><td>{cell}</td>{other.map(|o| view! { <td>{o}</td> })}</tr> }
                    }).collect_view()}
                </tbody>
            </table>
            <p class="small">"Two-sided tests, normal approximations with tie correction (Mann–Whitney also with \
                continuity correction), as scipy.stats computes them; the same code answers `wmlab stats`."</p>
        </details>
    }
}
