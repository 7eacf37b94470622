//! Accuracy-per-condition charts with plotters-canvas: a subject's curves (`people::subject_curves`)
//! over the WorM human reference (`people::human_curves`), one chart per panel. The core computes the
//! curves; this only draws them. A drawn chart gets `data-drawn="true"`.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wmlab_core::people::{Curve, StudyTask, human_curves, subject_curves};
use wmlab_core::record::ResultRecord;

use super::chart::mark_drawn;

/// One panel: its name and (curve, is_human) series.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub name: String,
    pub x_name: String,
    pub series: Vec<(Curve, bool)>,
}

/// The study tasks a record holds rows for (WorM ids and N-back kinds), in first-seen order.
pub fn record_tasks(record: &ResultRecord) -> Vec<StudyTask> {
    let mut out: Vec<StudyTask> = Vec::new();
    for r in &record.trials {
        if let Some(t) = StudyTask::parse(&r.task)
            && !out.contains(&t)
        {
            out.push(t);
        }
    }
    out
}

/// Panels of every task in the record: subject curves, with the human curves of the same panel.
pub fn panels(record: &ResultRecord) -> Vec<Panel> {
    let mut out: Vec<Panel> = Vec::new();
    for task in record_tasks(record) {
        let subject = subject_curves(record, task);
        let human = human_curves(task);
        for c in subject.into_iter().map(|c| (c, false)).chain(human.into_iter().map(|c| (c, true))) {
            match out.iter_mut().find(|p| p.name == c.0.panel) {
                Some(p) => p.series.push(c),
                None => {
                    if c.1 {
                        // Human panels without any subject data are left out.
                        continue;
                    }
                    out.push(Panel { name: c.0.panel.clone(), x_name: c.0.x_name.clone(), series: vec![c] })
                }
            }
        }
    }
    out.retain(|p| p.series.iter().any(|(c, _)| !c.points.is_empty()));
    out
}

/// The series colours of every chart in the app (the People and LLM plots share them).
pub const COLOURS: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The x and y range of curve points on the paper's axes: y always spans 0–1 (rates) and grows to hold
/// larger values (d′); x holds every point, one unit either side when all share one x, 0–1 when none.
pub fn bounds(points: impl Iterator<Item = (f64, f64)>) -> (f64, f64, f64, f64) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0f64, 1.0f64);
    for (x, y) in points {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if (x1 - x0).abs() < 1e-9 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    (x0, x1, y0, y1)
}

fn draw(canvas: web_sys::HtmlCanvasElement, panel: &Panel) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (x0, x1, y0, y1) = bounds(panel.series.iter().flat_map(|(c, _)| c.points.iter().copied()));
    let pad = (x1 - x0) * 0.08;
    let y_desc = if panel.series.iter().any(|(c, _)| c.label == "dprime") { "value" } else { "accuracy" };
    let mut chart = ChartBuilder::on(&root)
        .caption(&panel.name, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), (y0 - 0.02)..(y1 + 0.05))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(panel.x_name.replace('_', " "))
        .y_desc(y_desc)
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| e.to_string())?;
    // One colour per label, so "you" and "people" of the same series share it; people are thin with
    // hollow circles, the subject thick with filled circles.
    let mut labels: Vec<String> = Vec::new();
    for (c, _) in &panel.series {
        if !labels.contains(&c.label) {
            labels.push(c.label.clone());
        }
    }
    for (c, human) in &panel.series {
        if c.points.is_empty() {
            continue;
        }
        let colour = COLOURS[labels.iter().position(|l| *l == c.label).unwrap_or(0) % COLOURS.len()];
        let width = if *human { 1 } else { 3 };
        let who = if *human { "people (WorM)" } else { "this result" };
        let label = if c.label == "all" { who.to_string() } else { format!("{who}: {}", c.label) };
        chart
            .draw_series(LineSeries::new(c.points.iter().copied(), colour.stroke_width(width)))
            .map_err(|e| e.to_string())?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(width)));
        let style = if *human { colour.stroke_width(1) } else { colour.filled() };
        chart.draw_series(c.points.iter().map(|&(x, y)| Circle::new((x, y), 3, style))).map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 11))
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

#[component]
pub fn Chart(panel: Panel, #[prop(default = 0)] index: usize) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let p = panel.clone();
    Effect::new(move |_| {
        if let Some(c) = canvas.get() {
            mark_drawn(&c, draw(c.clone(), &p).map(|()| None));
        }
    });
    view! {
        <figure class="chart">
            <canvas node_ref=canvas class="plot" id=format!("plot-{index}") data-panel=panel.name.clone()
                width="520" height="340" role="img" aria-label=format!("accuracy chart: {}", panel.name)></canvas>
        </figure>
    }
}

/// Every panel of a record, or nothing when it has no trial rows of a known task.
#[component]
pub fn Charts(record: ResultRecord) -> impl IntoView {
    let ps = panels(&record);
    if ps.is_empty() {
        return view! { <p class="small" id="charts-empty">"No per-condition curves for this result."</p> }.into_any();
    }
    let n = ps.len();
    view! {
        <div class="charts" id="charts" data-panels=n>
            {ps.into_iter().enumerate().map(|(i, p)| view! { <Chart panel=p index=i/> }).collect_view()}
        </div>
        <p class="small">"Thick lines: this result. Thin lines: people in the WorM study (where published)."</p>
    }
    .into_any()
}
