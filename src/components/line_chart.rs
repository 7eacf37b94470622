//! A generic line chart (plotters-canvas) that redraws when its data changes: used for the live training
//! curves of the Networks page. Colours come from the app's one palette (`plot::COLOURS`). A drawn
//! chart gets `data-drawn="true"` and `data-series` = the number of non-empty series.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

use super::chart::mark_drawn;
use super::plot::COLOURS;

#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// Thin line (secondary series); otherwise thick.
    pub thin: bool,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct LineChart {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    /// Fixed y range; `None` fits the data.
    pub y_range: Option<(f64, f64)>,
    pub lines: Vec<Line>,
}

fn draw(canvas: web_sys::HtmlCanvasElement, c: &LineChart) -> Result<usize, String> {
    let root = CanvasBackend::with_canvas_object(canvas).ok_or("no canvas")?.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let pts = || c.lines.iter().flat_map(|l| l.points.iter().copied()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut x0, mut x1) = (f64::MAX, f64::MIN);
    let (mut y0, mut y1) = (f64::MAX, f64::MIN);
    for (x, y) in pts() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 - x0 < 1e-9 {
        x1 = x0 + 1.0;
    }
    if let Some((a, b)) = c.y_range {
        (y0, y1) = (a, b);
    } else {
        let pad = ((y1 - y0) * 0.05).max(1e-6);
        (y0, y1) = (y0 - pad, y1 + pad);
    }
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, ("sans-serif", 15))
        .margin(8)
        .x_label_area_size(34)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(c.x_desc.as_str())
        .y_desc(c.y_desc.as_str())
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| e.to_string())?;
    let mut drawn = 0;
    for (i, l) in c.lines.iter().enumerate() {
        let points: Vec<(f64, f64)> = l.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
        if points.is_empty() {
            continue;
        }
        drawn += 1;
        let colour = COLOURS[i % COLOURS.len()];
        let width = if l.thin { 1 } else { 2 };
        chart
            .draw_series(LineSeries::new(points.iter().copied(), colour.stroke_width(width)))
            .map_err(|e| e.to_string())?
            .label(l.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(width)));
        if points.len() < 40 {
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 2, colour.filled()))).map_err(|e| e.to_string())?;
        }
    }
    if drawn > 0 {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 10))
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(drawn)
}

/// A chart that redraws whenever `data` changes.
#[component]
pub fn LiveChart(
    id: &'static str,
    data: Signal<LineChart>,
    #[prop(default = 560)] width: u32,
    #[prop(default = 320)] height: u32,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let chart = data.get();
        if let Some(c) = canvas.get() {
            mark_drawn(&c, draw(c.clone(), &chart).map(Some));
        }
    });
    view! {
        <figure class="chart">
            <canvas node_ref=canvas class="plot" id=id width=width height=height role="img"
                aria-label=move || data.with(|d| d.title.clone())></canvas>
        </figure>
    }
}
