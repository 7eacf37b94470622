//! Charts of an LLM run beside the papers' numbers (plotters-canvas). The numbers come from the
//! outcomes' scores (computed by the core) and the core's reported tables; this only groups and draws.
//! N-back: HR / FAR / accuracy and d′ vs N with GPT-3.5 and GPT-4 (Gong et al.); LRT: success rate vs
//! number of lines, ordered vs shuffled, with the published curves; Minerva: score per task (tasks in
//! category order) beside two of the paper's models. A drawn chart gets `data-drawn="true"`.

use std::collections::BTreeMap;

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wmlab_core::llm::{lrt, minerva, nback, snapshot, Suite};
use wmlab_llm::Outcome;

#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// A published reference (thin, hollow) rather than this run (thick, filled).
    pub reference: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LlmPanel {
    pub id: String,
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub y_range: (f64, f64),
    /// Category names for x = 0, 1, 2 … (Minerva tasks); `None` = numeric x.
    pub x_labels: Option<Vec<String>>,
    pub series: Vec<Series>,
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Mean of `metric` over error-free outcomes grouped by a numeric x.
fn by_x<'a>(outs: impl Iterator<Item = &'a Outcome>, x_of: impl Fn(&Outcome) -> Option<f64>, metric: &str) -> Vec<(f64, f64)> {
    let mut g: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for o in outs {
        if o.error.is_some() {
            continue;
        }
        if let (Some(x), Some(v)) = (x_of(o), o.scores.get(metric)) {
            if v.is_finite() {
                g.entry((x * 1000.0) as i64).or_default().push(*v);
            }
        }
    }
    g.into_iter().filter_map(|(x, v)| Some((x as f64 / 1000.0, mean(&v)?))).collect()
}

fn cond_num(o: &Outcome, name: &str) -> Option<f64> {
    o.conditions.get(name)?.parse().ok()
}

/// The reported-summary file of a variant's base protocol (GPT-3.5) and GPT-4 where it exists.
fn reported_files(variant: &str) -> Vec<(&'static str, &'static str)> {
    match variant {
        "letters" | "letters_30" => vec![("all_trials_verbal.json", "GPT-3.5"), ("all_trials_verbal_gpt-4.json", "GPT-4")],
        "grids_3x3" => vec![("all_trials_spatial_3*3.json", "GPT-3.5")],
        "grids_4x4" => vec![("all_trials_spatial_4*4.json", "GPT-3.5")],
        "grids_5x5" => vec![("all_trials_spatial_5*5.json", "GPT-3.5")],
        "grids_7x7" => vec![("all_trials_spatial_7*7.json", "GPT-3.5")],
        "grids_3x3_abstraction" => vec![("all_trials_spatial_abstraction.json", "GPT-3.5")],
        "grids_3x3_abstraction_2" => vec![("all_trials_spatial_abstraction_2.json", "GPT-3.5")],
        _ => vec![],
    }
}

pub fn panels(outcomes: &[Outcome]) -> Vec<LlmPanel> {
    let mut out = Vec::new();
    let nb: Vec<&Outcome> = outcomes.iter().filter(|o| o.suite == Suite::Nback).collect();
    if !nb.is_empty() {
        let variant = nb[0].conditions.get("variant").cloned().unwrap_or_default();
        let n_of = |o: &Outcome| cond_num(o, "n");
        let reported = nback::reported_summary();
        let mut rates = Vec::new();
        let mut dp = Vec::new();
        for (metric, label) in [("hit_rate", "HR"), ("false_alarm_rate", "FAR"), ("accuracy", "accuracy")] {
            rates.push(Series { label: format!("this run: {label}"), points: by_x(nb.iter().copied(), n_of, metric), reference: false });
        }
        dp.push(Series { label: "this run: d′".into(), points: by_x(nb.iter().copied(), n_of, "dprime"), reference: false });
        for (file, model) in reported_files(&variant) {
            let mut rows: Vec<&nback::ReportedSummary> = reported.iter().filter(|r| r.results_file == file).collect();
            rows.sort_by_key(|r| r.n);
            rows.dedup_by_key(|r| r.n);
            if rows.is_empty() {
                continue;
            }
            for (label, f) in [
                ("HR", (|r: &nback::ReportedSummary| r.hit_rate.0) as fn(&nback::ReportedSummary) -> f64),
                ("FAR", |r| r.false_alarm_rate.0),
                ("accuracy", |r| r.accuracy.0),
            ] {
                rates.push(Series {
                    label: format!("{model}: {label}"),
                    points: rows.iter().map(|r| (r.n as f64, f(r) / 100.0)).collect(),
                    reference: true,
                });
            }
            dp.push(Series { label: format!("{model}: d′"), points: rows.iter().map(|r| (r.n as f64, r.dprime.0)).collect(), reference: true });
        }
        out.push(LlmPanel {
            id: "nback-rates".into(),
            title: format!("N-back ({variant}): rates vs N"),
            x_desc: "N".into(),
            y_desc: "rate".into(),
            y_range: (0.0, 1.0),
            x_labels: None,
            series: rates,
        });
        let ys = dp.iter().flat_map(|s| s.points.iter().map(|p| p.1));
        let (lo, hi) = ys.fold((0.0f64, 1.0f64), |(a, b), y| (a.min(y), b.max(y)));
        out.push(LlmPanel {
            id: "nback-dprime".into(),
            title: format!("N-back ({variant}): d′ vs N"),
            x_desc: "N".into(),
            y_desc: "d′".into(),
            y_range: (lo.floor(), hi.ceil()),
            x_labels: None,
            series: dp,
        });
    }

    let lr: Vec<&Outcome> = outcomes.iter().filter(|o| o.suite == Suite::Lrt).collect();
    if !lr.is_empty() {
        let mut series = Vec::new();
        let mut orders: Vec<String> = lr.iter().filter_map(|o| o.conditions.get("order").cloned()).collect();
        orders.sort();
        orders.dedup();
        for order in &orders {
            let pts = by_x(lr.iter().copied().filter(|o| o.conditions.get("order") == Some(order)), |o| cond_num(o, "lines"), "first_integer");
            series.push(Series { label: format!("this run: {order}"), points: pts, reference: false });
        }
        for (model, order, rates) in lrt::REPORTED {
            series.push(Series {
                label: format!("{model}: {order}"),
                points: lrt::DEFAULT_LINES.iter().zip(rates.iter()).map(|(x, y)| (*x as f64, *y)).collect(),
                reference: true,
            });
        }
        out.push(LlmPanel {
            id: "lrt".into(),
            title: "Little Retrieval Test: success vs lines".into(),
            x_desc: "lines".into(),
            y_desc: "success rate".into(),
            y_range: (0.0, 1.0),
            x_labels: None,
            series,
        });
    }

    let mv: Vec<&Outcome> = outcomes.iter().filter(|o| o.suite == Suite::Minerva).collect();
    if !mv.is_empty() {
        // Tasks in the snapshot's (category-grouped) order.
        let mut tasks: Vec<&str> = snapshot::FILES.iter().map(|f| f.1).filter(|t| mv.iter().any(|o| o.task == *t)).collect();
        for o in &mv {
            if !tasks.contains(&o.task.as_str()) {
                tasks.push(&o.task);
            }
        }
        let mut series = Vec::new();
        for source in ["snapshot", "generated"] {
            let mut mine = Vec::new();
            for (i, t) in tasks.iter().enumerate() {
                let metric = minerva::task_metrics(t).first().map(|m| m.as_str()).unwrap_or("exact_match");
                let vals: Vec<f64> = mv
                    .iter()
                    .filter(|o| o.task == *t && o.error.is_none())
                    .filter(|o| o.conditions.get("source").map_or("generated", |s| s.as_str()) == source)
                    .filter_map(|o| o.scores.get(metric).copied())
                    .filter(|v| v.is_finite())
                    .collect();
                if let Some(m) = mean(&vals) {
                    mine.push((i as f64, m));
                }
            }
            if mv.iter().any(|o| o.conditions.get("source").map_or("generated", |s| s.as_str()) == source) {
                series.push(Series { label: format!("this run ({source})"), points: mine, reference: false });
            }
        }
        for model in ["gpt-4o", "llama-3.1-8b"] {
            let pts: Vec<(f64, f64)> =
                tasks.iter().enumerate().filter_map(|(i, t)| snapshot::reported_value(model, t).map(|v| (i as f64, v))).collect();
            series.push(Series { label: format!("paper: {model}"), points: pts, reference: true });
        }
        let cats: Vec<String> = tasks.iter().map(|t| minerva::task_category(t).unwrap_or("?").to_string()).collect();
        let mut cat_list = cats.clone();
        cat_list.dedup();
        out.push(LlmPanel {
            id: "minerva".into(),
            title: format!("Minerva: headline score per task ({})", cat_list.join(", ").replace('_', " ")),
            x_desc: "task".into(),
            y_desc: "score".into(),
            y_range: (0.0, 1.0),
            x_labels: Some(tasks.iter().map(|t| t.to_string()).collect()),
            series,
        });
    }
    out
}

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
        let style = if s.reference { colour.stroke_width(2) } else { colour.filled() };
        let r = if s.reference { 4 } else { 5 };
        let drawn = chart.draw_series(s.points.iter().map(|&(x, y)| Circle::new((x, y), r, style))).map_err(|e| e.to_string())?;
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
            match draw(c.clone(), &p) {
                Ok(()) => {
                    let _ = c.set_attribute("data-drawn", "true");
                }
                Err(e) => {
                    let _ = c.set_attribute("data-drawn", "error");
                    let _ = c.set_attribute("data-error", &e);
                }
            }
        }
    });
    let own = panel.series.iter().filter(|s| !s.reference).map(|s| s.points.len()).sum::<usize>();
    view! {
        <figure class="chart">
            <canvas node_ref=canvas class="plot llm-plot" id=format!("llm-plot-{}", panel.id) data-points=own
                width="560" height="360" role="img" aria-label=panel.title.clone()></canvas>
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
    }
    .into_any()
}
