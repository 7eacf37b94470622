//! The comparison chart: one panel of `wmlab_core::compare` (subjects, the published references and the
//! chance model on the paper's axes) drawn on a canvas, the legend to the right of the plot so it never
//! hides a point. Used by the Compare page and by the Results page's empty state.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wmlab_core::compare::{Panel, Who};

use crate::components::chart::mark_drawn;
use crate::components::plot::{COLOURS, bounds};

pub fn subject_colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

pub fn who_colour(who: &Who, published_index: usize) -> RGBColor {
    match who {
        Who::Subject(i) => subject_colour(*i),
        Who::Human => RGBColor(0x22, 0x22, 0x22),
        Who::Chance => RGBColor(0x99, 0x99, 0x99),
        Who::Published(_) => [RGBColor(0x7f, 0x7f, 0x00), RGBColor(0x55, 0x55, 0x55)][published_index % 2],
    }
}

pub fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

pub fn who_name(who: &Who, names: &[String]) -> String {
    match who {
        Who::Subject(i) => names.get(*i).cloned().unwrap_or_else(|| format!("result {}", i + 1)),
        Who::Human => "people (WorM)".into(),
        Who::Chance => "chance model".into(),
        Who::Published(m) => format!("{m} (published)"),
    }
}

/// Marker shapes, one per curve label of a panel (filled for the chosen results, hollow for references).
const MARKS: [&str; 8] = ["●", "▲", "■", "✕", "◆", "▼", "+", "⬟"];
/// Canvas size: the plot, then the legend to its right.
const PLOT_W: u32 = 560;
const CANVAS_W: u32 = 780;
const CANVAS_H: u32 = 360;

fn draw(canvas: web_sys::HtmlCanvasElement, panel: &Panel, names: &[String]) -> Result<usize, String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    // The plot on the left, the legend on the right (so it never hides a point).
    let (area, legend) = root.split_horizontally(PLOT_W);
    let (x0, x1, y0, y1) =
        bounds(panel.series.iter().flat_map(|s| s.curves.iter().flat_map(|c| c.points.iter().copied())));
    let pad = (x1 - x0) * 0.08;
    let ypad = (y1 - y0) * 0.04;
    // Every x of these panels is a whole number (positions, sizes, counts, N): label whole numbers only.
    let x_labels = ((x1 - x0).round() as usize + 1).clamp(2, 12);
    let mut chart = ChartBuilder::on(&area)
        .caption(&panel.name, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), (y0 - ypad)..(y1 + ypad * 2.0))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(panel.x_name.replace('_', " "))
        .y_desc(panel.y_name.as_str())
        .x_labels(x_labels)
        .x_label_formatter(&|v| {
            if (v - v.round()).abs() < 1e-6 { format!("{}", v.round() as i64) } else { String::new() }
        })
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| e.to_string())?;
    let mut drawn = 0;
    let mut published = 0;
    let mut entries: Vec<(String, RGBColor, u32, bool)> = Vec::new();
    for s in &panel.series {
        let colour = who_colour(&s.who, published);
        if matches!(s.who, Who::Published(_)) {
            published += 1;
        }
        let reference = !matches!(s.who, Who::Subject(_));
        let width = if reference { 1 } else { 2 };
        let style = colour.stroke_width(width);
        let name = who_name(&s.who, names);
        let mut labelled = false;
        for c in &s.curves {
            if c.points.is_empty() {
                continue;
            }
            let pts = c.points.clone();
            if s.who == Who::Chance {
                chart
                    .draw_series(DashedLineSeries::new(pts.iter().copied(), 6, 4, style))
                    .map_err(|e| e.to_string())?;
            } else {
                chart.draw_series(LineSeries::new(pts.iter().copied(), style)).map_err(|e| e.to_string())?;
            }
            if !labelled {
                entries.push((name.clone(), colour, width, s.who == Who::Chance));
                labelled = true;
            }
            let k = panel.labels.iter().position(|l| *l == c.label).unwrap_or(0) % MARKS.len();
            let fill = if reference { colour.stroke_width(1) } else { colour.filled() };
            let line = colour.stroke_width(if reference { 1 } else { 2 });
            // Outline points of the polygon shapes (pixels around the point).
            let shape =
                |pts: &[(i32, i32)]| -> Vec<(i32, i32)> { pts.iter().copied().chain(pts.first().copied()).collect() };
            let poly = move |x: f64, y: f64, pts: Vec<(i32, i32)>| {
                if reference {
                    (EmptyElement::at((x, y)) + PathElement::new(shape(&pts), line)).into_dyn()
                } else {
                    (EmptyElement::at((x, y)) + Polygon::new(pts, fill)).into_dyn()
                }
            };
            chart
                .draw_series(pts.iter().map(|&(x, y)| {
                    match k {
                        0 => Circle::new((x, y), 4, fill).into_dyn(),
                        1 => poly(x, y, vec![(0, -5), (5, 4), (-5, 4)]),
                        2 => poly(x, y, vec![(-4, -4), (4, -4), (4, 4), (-4, 4)]),
                        3 => Cross::new((x, y), 4, line).into_dyn(),
                        4 => poly(x, y, vec![(0, -5), (5, 0), (0, 5), (-5, 0)]),
                        5 => poly(x, y, vec![(-5, -4), (5, -4), (0, 5)]),
                        6 => (EmptyElement::at((x, y))
                            + PathElement::new(vec![(-5, 0), (5, 0)], line)
                            + PathElement::new(vec![(0, -5), (0, 5)], line))
                        .into_dyn(),
                        _ => poly(x, y, vec![(0, -5), (5, -1), (3, 5), (-3, 5), (-5, -1)]),
                    }
                }))
                .map_err(|e| e.to_string())?;
        }
        if labelled {
            drawn += 1;
        }
    }
    let font = ("sans-serif", 12).into_font().color(&BLACK);
    for (i, (name, colour, width, dashed)) in entries.into_iter().enumerate() {
        let y = 44 + 22 * i as i32;
        let style = colour.stroke_width(width.max(2));
        if dashed {
            for x in [4, 14, 24] {
                legend.draw(&PathElement::new(vec![(x, y), (x + 6, y)], style)).map_err(|e| e.to_string())?;
            }
        } else {
            legend.draw(&PathElement::new(vec![(4, y), (30, y)], style)).map_err(|e| e.to_string())?;
        }
        let short: String =
            if name.chars().count() > 28 { name.chars().take(27).chain(['…']).collect() } else { name };
        legend.draw(&Text::new(short, (36, y - 7), font.clone())).map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(drawn)
}

#[component]
pub fn CmpChart(panel: Panel, index: usize, names: Vec<String>) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let p = panel.clone();
    Effect::new(move |_| {
        if let Some(c) = canvas.get() {
            mark_drawn(&c, draw(c.clone(), &p, &names).map(Some));
        }
    });
    let who = panel.series.iter().map(|s| s.who.key()).collect::<Vec<_>>().join(" ");
    let subjects = panel.subjects().iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let key = (panel.labels.len() > 1 || panel.labels.first().is_some_and(|l| l != "all")).then(|| {
        panel
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{} {}", MARKS[i % MARKS.len()], l.replace('_', " ")))
            .collect::<Vec<_>>()
            .join("   ")
    });
    view! {
        <figure class="chart cmp-chart">
            <canvas node_ref=canvas class="plot cmp-plot" id=format!("cmp-plot-{index}") data-panel=panel.name.clone()
                data-who=who data-subjects=subjects width=CANVAS_W height=CANVAS_H role="img"
                aria-label=format!("comparison chart: {}", panel.name)></canvas>
            {key.map(|k| view! { <figcaption class="small cmp-key">"Markers: " {k}</figcaption> })}
        </figure>
    }
}
