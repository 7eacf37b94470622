//! The neural analyses of a trained network (`wmlab_core::analysis::NetworkAnalysis`, computed in the
//! networks worker) drawn with plotters-canvas: the sorted task-variance heat map (Fig. 5C), the t-SNE of
//! the units' TV vectors coloured by cluster (5B), the FTV histograms of every pair of tasks (5D), the
//! lesion heat map (A6), the STS probe-state embedding by answer and by rule (5A), the task-embedding
//! similarity with rows scaled to [0, 1] (A13), the VSR serial-position similarity (A5) and the
//! first-step state similarity across task ids. Every canvas gets `data-drawn="true"` when drawn.

use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use wmlab_core::analysis::NetworkAnalysis;

use super::chart::mark_drawn;
use super::plot::COLOURS;

type Area = DrawingArea<CanvasBackend, Shift>;
type DrawFn = fn(&NetworkAnalysis, &Area) -> Result<(), String>;

fn e2s<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

fn lerp(a: RGBColor, b: RGBColor, t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let m = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t).round() as u8;
    RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

/// 0 → white, 1 → dark blue.
fn sequential(v: f64) -> RGBColor {
    lerp(RGBColor(0xff, 0xff, 0xff), RGBColor(0x08, 0x30, 0x6b), v)
}

/// −1 → blue, 0 → white, 1 → red.
fn diverging(v: f64) -> RGBColor {
    if v >= 0.0 { lerp(WHITE, RGBColor(0xb2, 0x18, 0x2b), v) } else { lerp(WHITE, RGBColor(0x21, 0x66, 0xac), -v) }
}

fn text(area: &Area, s: &str, (x, y): (i32, i32), size: u32, h: HPos, v: VPos, rotate: bool) -> Result<(), String> {
    let mut style = TextStyle::from(("sans-serif", size).into_font()).color(&BLACK).pos(Pos::new(h, v));
    if rotate {
        style = style.transform(FontTransform::Rotate270);
    }
    area.draw(&Text::new(s.to_string(), (x, y), style)).map_err(e2s)
}

/// A matrix as coloured cells in the pixel box (left, top, w, h), with row names on the left and
/// optional column names (rotated) below; `values` writes each cell's number.
#[allow(clippy::too_many_arguments)]
fn heat(
    area: &Area,
    m: &[Vec<Option<f64>>],
    (left, top, w, h): (i32, i32, i32, i32),
    rows: &[String],
    cols: Option<&[String]>,
    colour: &dyn Fn(f64) -> RGBColor,
    values: bool,
) -> Result<(), String> {
    let nr = m.len().max(1) as i32;
    let nc = m.iter().map(|r| r.len()).max().unwrap_or(0).max(1) as i32;
    let (cw, ch) = (w as f64 / nc as f64, h as f64 / nr as f64);
    for (i, row) in m.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let x0 = left + (j as f64 * cw) as i32;
            let x1 = left + ((j + 1) as f64 * cw) as i32;
            let y0 = top + (i as f64 * ch) as i32;
            let y1 = top + ((i + 1) as f64 * ch) as i32;
            let fill = v.map(colour).unwrap_or(RGBColor(0xdd, 0xdd, 0xdd));
            area.draw(&Rectangle::new([(x0, y0), (x1.max(x0 + 1), y1.max(y0 + 1))], fill.filled())).map_err(e2s)?;
            if let (true, Some(v)) = (values, v) {
                text(area, &format!("{v:.2}"), ((x0 + x1) / 2, (y0 + y1) / 2), 10, HPos::Center, VPos::Center, false)?;
            }
        }
    }
    area.draw(&Rectangle::new([(left, top), (left + w, top + h)], BLACK.mix(0.4).stroke_width(1))).map_err(e2s)?;
    for (i, r) in rows.iter().enumerate() {
        text(area, r, (left - 4, top + ((i as f64 + 0.5) * ch) as i32), 11, HPos::Right, VPos::Center, false)?;
    }
    if let Some(cols) = cols {
        for (j, c) in cols.iter().enumerate() {
            text(area, c, (left + ((j as f64 + 0.5) * cw) as i32, top + h + 4), 11, HPos::Right, VPos::Center, true)?;
        }
    }
    Ok(())
}

fn title(area: &Area, s: &str) -> Result<(), String> {
    let (w, _) = area.dim_in_pixel();
    text(area, s, (w as i32 / 2, 4), 15, HPos::Center, VPos::Top, false)
}

fn families_of(r: &NetworkAnalysis, idx: &[usize]) -> String {
    idx.iter().filter_map(|&f| r.families.get(f).cloned()).collect::<Vec<_>>().join(", ")
}

/// Fig. 5C: normalised TV, families × active units sorted by cluster, with a cluster strip below.
fn draw_tv(r: &NetworkAnalysis, area: &Area) -> Result<(), String> {
    title(
        area,
        &format!("Normalised task variance ({} active of {} units, sorted by cluster)", r.columns.len(), r.units),
    )?;
    let (w, h) = area.dim_in_pixel();
    let (left, top, pw, ph) = (60, 28, w as i32 - 80, h as i32 - 70);
    let m: Vec<Vec<Option<f64>>> = r.tv_sorted.iter().map(|row| row.iter().map(|&v| Some(v)).collect()).collect();
    heat(area, &m, (left, top, pw, ph), &r.families, None, &sequential, false)?;
    let n = r.column_cluster.len().max(1) as f64;
    for (j, &c) in r.column_cluster.iter().enumerate() {
        let x0 = left + (j as f64 * pw as f64 / n) as i32;
        let x1 = left + ((j + 1) as f64 * pw as f64 / n) as i32;
        area.draw(&Rectangle::new(
            [(x0, top + ph + 4), (x1.max(x0 + 1), top + ph + 16)],
            COLOURS[c % COLOURS.len()].filled(),
        ))
        .map_err(e2s)?;
    }
    text(area, "units (colour: cluster)", (left + pw / 2, top + ph + 20), 11, HPos::Center, VPos::Top, false)
}

/// Fig. 5B: t-SNE of the units' normalised TV vectors, one colour per cluster, legend with preferred tasks.
fn draw_tsne(r: &NetworkAnalysis, area: &Area) -> Result<(), String> {
    let (lo_x, hi_x, lo_y, hi_y) = bounds(&r.unit_xy);
    let mut chart = ChartBuilder::on(area)
        .caption(format!("t-SNE of units' task variance: {} clusters (best silhouette)", r.k), ("sans-serif", 15))
        .margin(8)
        .x_label_area_size(20)
        .y_label_area_size(44)
        .build_cartesian_2d(lo_x..hi_x, lo_y..hi_y)
        .map_err(e2s)?;
    chart.configure_mesh().disable_mesh().draw().map_err(e2s)?;
    for (c, info) in r.clusters.iter().enumerate() {
        let colour = COLOURS[c % COLOURS.len()];
        let pts: Vec<(f64, f64)> =
            r.unit_xy.iter().zip(&r.column_cluster).filter(|&(_, &l)| l == c).map(|(p, _)| (p[0], p[1])).collect();
        chart
            .draw_series(pts.into_iter().map(move |p| Circle::new(p, 4, colour.filled())))
            .map_err(e2s)?
            .label(format!("cluster {} ({} units): {}", c + 1, info.size, families_of(r, &info.preferred)))
            .legend(move |(x, y)| Circle::new((x + 6, y), 4, colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 11))
        .draw()
        .map_err(e2s)
}

fn bounds(xy: &[[f64; 2]]) -> (f64, f64, f64, f64) {
    let (mut a, mut b, mut c, mut d) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in xy {
        a = a.min(p[0]);
        b = b.max(p[0]);
        c = c.min(p[1]);
        d = d.max(p[1]);
    }
    if a > b {
        return (-1.0, 1.0, -1.0, 1.0);
    }
    let px = ((b - a) * 0.08).max(1e-6);
    let py = ((d - c) * 0.08).max(1e-6);
    (a - px, b + px, c - py, d + py)
}

/// Fig. 5D: FTV histograms of every pair of families; cell (row a, column b) shows FTV(a, b) over
/// [−1, 1] (right: selective to a).
fn draw_ftv(r: &NetworkAnalysis, area: &Area) -> Result<(), String> {
    title(area, "Fractional task variance FTV(row, column), −1 … 1, for every pair of tasks")?;
    let (w, h) = area.dim_in_pixel();
    let nf = r.families.len().max(1) as i32;
    let (left, top) = (60, 28);
    let cell = ((w as i32 - left - 10).min(h as i32 - top - 70) / nf).max(8);
    for a in 0..nf as usize {
        text(area, &r.families[a], (left - 4, top + cell * a as i32 + cell / 2), 11, HPos::Right, VPos::Center, false)?;
        text(
            area,
            &r.families[a],
            (left + cell * a as i32 + cell / 2, top + cell * nf + 4),
            11,
            HPos::Right,
            VPos::Center,
            true,
        )?;
        for b in 0..nf as usize {
            let (x0, y0) = (left + cell * b as i32, top + cell * a as i32);
            area.draw(&Rectangle::new([(x0, y0), (x0 + cell, y0 + cell)], BLACK.mix(0.2).stroke_width(1)))
                .map_err(e2s)?;
            if a == b {
                continue;
            }
            let counts: Vec<u32> = match r.ftv.iter().find(|p| (p.a, p.b) == (a.min(b), a.max(b))) {
                Some(p) if p.a == a => p.counts.clone(),
                Some(p) => p.counts.iter().rev().copied().collect(),
                None => continue,
            };
            let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
            let bw = (cell - 4) as f64 / counts.len().max(1) as f64;
            for (i, &k) in counts.iter().enumerate() {
                if k == 0 {
                    continue;
                }
                let bx0 = x0 + 2 + (i as f64 * bw) as i32;
                let bx1 = x0 + 2 + ((i + 1) as f64 * bw) as i32;
                let bh = ((cell - 4) as f64 * k as f64 / max) as i32;
                area.draw(&Rectangle::new(
                    [(bx0, y0 + cell - 2 - bh.max(1)), (bx1.max(bx0 + 1), y0 + cell - 2)],
                    COLOURS[0].filled(),
                ))
                .map_err(e2s)?;
            }
        }
    }
    Ok(())
}

/// Fig. A6: accuracy drop per cluster (rows) and task (columns) when the cluster's units are zeroed.
fn draw_lesion(r: &NetworkAnalysis, area: &Area) -> Result<(), String> {
    title(area, "Accuracy drop when a cluster is lesioned (intact − lesioned)")?;
    let Some(l) = &r.lesion else { return text(area, "no lesion results", (20, 40), 12, HPos::Left, VPos::Top, false) };
    let (w, h) = area.dim_in_pixel();
    let scale = l.drop.iter().flatten().flatten().fold(0.0f64, |a, &v| a.max(v.abs())).max(1e-9);
    let rows: Vec<String> = r
        .clusters
        .iter()
        .enumerate()
        .map(|(c, i)| format!("cluster {} ({})", c + 1, families_of(r, &i.preferred)))
        .collect();
    let left = 10 + rows.iter().map(|s| s.len() as i32 * 6).max().unwrap_or(60).min(260);
    heat(
        area,
        &l.drop,
        (left, 28, w as i32 - left - 10, h as i32 - 28 - 60),
        &rows,
        Some(&r.families),
        &|v| diverging(v / scale),
        true,
    )
}

/// Fig. 5A: STS probe states, coloured by correct answer and by rule.
fn draw_sts(r: &NetworkAnalysis, area: &Area) -> Result<(), String> {
    let parts = area.split_evenly((1, 2));
    let (lo_x, hi_x, lo_y, hi_y) = bounds(&r.sts.xy);
    for (k, part) in parts.iter().enumerate() {
        let (name, labels, names): (&str, &[u8], [&str; 2]) = if k == 0 {
            ("STS probe states by answer", &r.sts.answer, ["top / left", "bottom / right"])
        } else {
            ("by rule in force", &r.sts.rule, ["up / down", "left / right"])
        };
        let mut chart = ChartBuilder::on(part)
            .caption(format!("{name} ({} of {} states)", r.sts.xy.len(), r.sts.total), ("sans-serif", 14))
            .margin(8)
            .x_label_area_size(20)
            .y_label_area_size(44)
            .build_cartesian_2d(lo_x..hi_x, lo_y..hi_y)
            .map_err(e2s)?;
        chart.configure_mesh().disable_mesh().draw().map_err(e2s)?;
        for v in 0..2u8 {
            let colour = COLOURS[(v as usize + 2 * k) % COLOURS.len()];
            let pts: Vec<(f64, f64)> =
                r.sts.xy.iter().zip(labels).filter(|&(_, &l)| l == v).map(|(p, _)| (p[0], p[1])).collect();
            chart
                .draw_series(pts.into_iter().map(move |p| Circle::new(p, 3, colour.filled())))
                .map_err(e2s)?
                .label(names[v as usize])
                .legend(move |(x, y)| Circle::new((x + 6, y), 3, colour.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 11))
            .draw()
            .map_err(e2s)?;
    }
    Ok(())
}

fn draw_cos(
    area: &Area,
    name: &str,
    names: &[String],
    m: &[Vec<f64>],
    colour: &dyn Fn(f64) -> RGBColor,
) -> Result<(), String> {
    title(area, name)?;
    let (w, h) = area.dim_in_pixel();
    let m: Vec<Vec<Option<f64>>> = m.iter().map(|r| r.iter().map(|&v| Some(v)).collect()).collect();
    let (left, top) = (110, 28);
    let side = (w as i32 - left - 10).min(h as i32 - top - 110);
    heat(area, &m, (left, top, side, side), names, Some(names), colour, false)
}

/// Fig. A13: the task embeddings' cosine similarities, each row scaled to [0, 1] as the paper draws it
/// (the raw matrix stays in the report).
fn draw_emb(r: &NetworkAnalysis, area: &Area) -> Result<(), String> {
    let m = wmlab_core::analysis::rows_to_unit(&r.task_embedding_cos);
    draw_cos(area, "Fig. A13: task-embedding similarity (rows scaled to 0–1)", &r.tasks, &m, &sequential)
}

/// Fig. A5: the VSR serial-position matrix, the mean cosine similarity of the hidden states at the
/// presentation steps of every pair of serial positions (grey where no trial had both positions).
fn draw_positions(r: &NetworkAnalysis, area: &Area) -> Result<(), String> {
    title(area, "Fig. A5: VSR states, similarity between serial positions")?;
    let m = &r.vsr_position_similarity;
    if m.is_empty() {
        return text(area, "No VSR trials in this analysis.", (20, 60), 13, HPos::Left, VPos::Top, false);
    }
    let (w, h) = area.dim_in_pixel();
    let names: Vec<String> = (1..=m.len()).map(|k| k.to_string()).collect();
    let (left, top) = (60, 40);
    let side = (w as i32 - left - 20).min(h as i32 - top - 50);
    heat(area, m, (left, top, side, side), &names, Some(&names), &diverging, true)?;
    text(area, "serial position", (left + side / 2, top + side + 24), 12, HPos::Center, VPos::Top, false)?;
    text(area, "serial position", (14, top + side / 2), 12, HPos::Center, VPos::Center, true)
}

/// The mean state at each task's first step, compared across task ids (not a figure of the paper: it
/// shows whether the task embedding already sets the tasks apart before anything is seen).
fn draw_first(r: &NetworkAnalysis, area: &Area) -> Result<(), String> {
    draw_cos(area, "First-step hidden-state cosine similarity", &r.tasks, &r.first_item_cos, &diverging)
}

#[component]
fn Figure(report: Rc<NetworkAnalysis>, id: &'static str, width: u32, height: u32, draw: DrawFn) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let Some(c) = canvas.get() else { return };
        let res = CanvasBackend::with_canvas_object(c.clone()).ok_or_else(|| "no canvas".to_string()).and_then(|b| {
            let root = b.into_drawing_area();
            root.fill(&WHITE).map_err(e2s)?;
            draw(&report, &root)?;
            root.present().map_err(e2s)
        });
        mark_drawn(&c, res.map(|()| None));
    });
    view! { <canvas node_ref=canvas id=id width=width height=height class="chart"></canvas> }
}

/// All figures of one analysis report (JSON of `NetworkAnalysis`).
#[component]
pub fn NnAnalysis(report: serde_json::Value) -> impl IntoView {
    let r = match serde_json::from_value::<NetworkAnalysis>(report) {
        Ok(r) => Rc::new(r),
        Err(e) => return view! { <p class="error" id="nn-analysis-error">{format!("The analysis could not be read: {e}")}</p> }.into_any(),
    };
    let lesion_h = 100 + 28 * r.k.max(1) as u32;
    let clusters = r
        .clusters
        .iter()
        .enumerate()
        .map(|(c, i)| format!("cluster {}: {} units, prefers {}", c + 1, i.size, families_of(&r, &i.preferred)))
        .collect::<Vec<_>>();
    let sil = r.silhouettes.iter().map(|(k, s)| format!("k={k}: {s:.2}")).collect::<Vec<_>>().join(", ");
    view! {
        <div class="nn-analysis-figures">
            <p class="small">{format!("{} units, {} active; clusters by k-means on normalised TV, k with the best mean silhouette ({sil}).", r.units, r.columns.len())}</p>
            <ul class="small" id="nn-an-clusters">{clusters.into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}</ul>
            <Figure report=r.clone() id="nn-an-tv" width=720 height=300 draw=draw_tv/>
            <Figure report=r.clone() id="nn-an-tsne" width=720 height=420 draw=draw_tsne/>
            <Figure report=r.clone() id="nn-an-ftv" width=720 height=760 draw=draw_ftv/>
            <Figure report=r.clone() id="nn-an-lesion" width=720 height=lesion_h draw=draw_lesion/>
            <Figure report=r.clone() id="nn-an-sts" width=720 height=360 draw=draw_sts/>
            <Figure report=r.clone() id="nn-an-emb" width=480 height=480 draw=draw_emb/>
            <Figure report=r.clone() id="nn-an-a5" width=480 height=480 draw=draw_positions/>
            <Figure report=r.clone() id="nn-an-first" width=480 height=480 draw=draw_first/>
        </div>
    }
    .into_any()
}
