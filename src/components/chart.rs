//! The one chart component for charts given as data (`wmlab_core::chart::Chart`): lines with markers
//! and error bars, references thin and hollow, chance dashed, the legend to the right of the plot so it
//! never hides a point, category names on x where the chart has them. The builders that fill a `Chart`
//! live in the core (e.g. `papers::published_chart`), where native tests read them.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wmlab_core::chart::{Chart, Role};

use crate::components::plot::COLOURS;

const PLOT_W: u32 = 560;
const CANVAS_W: u32 = 800;
const CANVAS_H: u32 = 360;

fn draw(canvas: web_sys::HtmlCanvasElement, chart: &Chart) -> Result<usize, String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let (area, legend) = root.split_horizontally(PLOT_W);
    let ((x0, x1), (y0, y1)) = chart.bounds();
    let pad = if chart.categories.is_empty() { (x1 - x0) * 0.06 } else { 0.5 };
    let ypad = (y1 - y0) * 0.05;
    let cats = chart.categories.clone();
    let bottom = 40;
    let mut c = ChartBuilder::on(&area)
        .caption(&chart.title, ("sans-serif", 15))
        .margin(8)
        .x_label_area_size(bottom)
        .y_label_area_size(48)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), (y0 - ypad)..(y1 + ypad))
        .map_err(|x| e(&x))?;
    let mut mesh = c.configure_mesh();
    mesh.x_desc(chart.x_label.as_str()).y_desc(chart.y_label.as_str()).light_line_style(WHITE.mix(0.0));
    // Categories are numbered 1, 2, … on the axis; the key under the chart names them.
    let fmt_cat = |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cats.len() {
            format!("{}", i as usize + 1)
        } else {
            String::new()
        }
    };
    if !chart.categories.is_empty() {
        mesh.x_labels(chart.categories.len() * 2 + 1).x_label_formatter(&fmt_cat);
    }
    mesh.draw().map_err(|x| e(&x))?;
    for (k, s) in chart.series.iter().enumerate() {
        let colour = match s.role {
            Role::Chance => RGBColor(0x99, 0x99, 0x99),
            _ => COLOURS[k % COLOURS.len()],
        };
        let width = if s.role == Role::Subject { 2 } else { 1 };
        let style = colour.stroke_width(width);
        // Categories: the series side by side around each category (no lines between categories).
        let n = chart.series.len() as f64;
        let dodge = if cats.is_empty() { 0.0 } else { (k as f64 - (n - 1.0) / 2.0) * 0.5 / n.max(1.0) };
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (x + dodge, y)).collect();
        match (cats.is_empty(), s.role) {
            (false, _) => {}
            (true, Role::Chance) => {
                c.draw_series(DashedLineSeries::new(pts.iter().copied(), 6, 4, style)).map_err(|x| e(&x))?;
            }
            (true, _) => {
                c.draw_series(LineSeries::new(pts.iter().copied(), style)).map_err(|x| e(&x))?;
            }
        }
        let fill = if s.role == Role::Subject { colour.filled() } else { colour.stroke_width(1) };
        c.draw_series(pts.iter().map(|&(x, y)| Circle::new((x, y), 3, fill))).map_err(|x| e(&x))?;
        if s.err.len() == pts.len() {
            // Whiskers: the bar and its two caps, as paths in data space (caps 1 % of the x range wide).
            let cap = (x1 - x0 + 2.0 * pad) * 0.01;
            let bar = colour.stroke_width(1);
            for (&(x, y), &h) in pts.iter().zip(&s.err) {
                for path in [
                    vec![(x, y - h), (x, y + h)],
                    vec![(x - cap, y - h), (x + cap, y - h)],
                    vec![(x - cap, y + h), (x + cap, y + h)],
                ] {
                    c.draw_series(std::iter::once(PathElement::new(path, bar))).map_err(|x| e(&x))?;
                }
            }
        }
        let y = 40 + 20 * k as i32;
        legend.draw(&PathElement::new(vec![(4, y), (28, y)], colour.stroke_width(2))).map_err(|x| e(&x))?;
        let name: String =
            if s.name.chars().count() > 32 { s.name.chars().take(31).chain(['…']).collect() } else { s.name.clone() };
        legend.draw(&Text::new(name, (34, y - 7), ("sans-serif", 11).into_font().color(&BLACK))).map_err(|x| e(&x))?;
    }
    root.present().map_err(|x| e(&x))?;
    Ok(chart.series.len())
}

/// Record a draw's outcome on its canvas, for readers and the browser tests: `data-drawn="true"` (and
/// `data-series`, when the drawing counts its series) or `data-drawn="error"` with `data-error`. Every
/// chart component reports through this.
pub fn mark_drawn(c: &web_sys::HtmlCanvasElement, result: Result<Option<usize>, String>) {
    match result {
        Ok(series) => {
            if let Some(n) = series {
                let _ = c.set_attribute("data-series", &n.to_string());
            }
            let _ = c.set_attribute("data-drawn", "true");
        }
        Err(e) => {
            let _ = c.set_attribute("data-drawn", "error");
            let _ = c.set_attribute("data-error", &e);
        }
    }
}

/// A chart on a canvas `id`; `data-drawn` says `true` (with `data-series`) or `error` (with `data-error`).
#[component]
pub fn SpecChart(chart: Chart, id: String) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let title = chart.title.clone();
    let key =
        chart.categories.iter().enumerate().map(|(i, c)| format!("{} {c}", i + 1)).collect::<Vec<_>>().join(" · ");
    Effect::new(move |_| {
        if let Some(c) = canvas.get() {
            mark_drawn(&c, draw(c.clone(), &chart).map(Some));
        }
    });
    view! {
        <figure class="chart spec-chart">
            <canvas node_ref=canvas class="plot spec-plot" id=id width=CANVAS_W height=CANVAS_H role="img"
                aria-label=format!("chart: {title}")></canvas>
            {(!key.is_empty()).then(|| view! { <figcaption class="small spec-key">{key}</figcaption> })}
        </figure>
    }
}
