//! The one chart module: it draws the chart specs of `wmlab_core::chart` on canvases and does nothing
//! else. A [`Chart`] of lines or points (references thin and hollow, chance dashed, error bars, the
//! legend to the right of the plot so it never hides a point, categories numbered on x with a key
//! below), a [`Heatmap`] and a [`HistGrid`]. Every builder — the papers' published numbers, a record's
//! curves beside the people's, a comparison panel, an LLM run, a network's training curves and its
//! analyses — lives in the core or `wmlab-llm`, where native tests read the specs.
//!
//! Every canvas reports its outcome through [`mark_drawn`]: `data-drawn="true"` (with `data-series`, the
//! number of legend entries drawn) or `data-drawn="error"` with `data-error`.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wmlab_core::chart::{Chart, Heatmap, HistGrid, LEGEND_BELOW, Marker, Rgb, Role, legend_lines, palette};

type Area = DrawingArea<CanvasBackend, Shift>;

fn e2s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

fn text(area: &Area, s: &str, (x, y): (i32, i32), size: u32, h: HPos, v: VPos, rotate: bool) -> Result<(), String> {
    let mut style = TextStyle::from(("sans-serif", size).into_font()).color(&BLACK).pos(Pos::new(h, v));
    if rotate {
        style = style.transform(FontTransform::Rotate270);
    }
    area.draw(&Text::new(s.to_string(), (x, y), style)).map_err(e2s)
}

/// A marker of `shape` at a data point: filled, or an outline for references.
fn marker<DB: DrawingBackend + 'static>(
    shape: Marker,
    (x, y): (f64, f64),
    size: i32,
    colour: RGBAColor,
    filled: bool,
) -> DynElement<'static, DB, (f64, f64)> {
    let fill = if filled { colour.filled() } else { colour.stroke_width(1) };
    let line = colour.stroke_width(if filled { 2 } else { 1 });
    let s = size;
    let poly = move |pts: Vec<(i32, i32)>| {
        if filled {
            (EmptyElement::at((x, y)) + Polygon::new(pts, fill)).into_dyn()
        } else {
            let closed: Vec<(i32, i32)> = pts.iter().copied().chain(pts.first().copied()).collect();
            (EmptyElement::at((x, y)) + PathElement::new(closed, line)).into_dyn()
        }
    };
    match shape {
        Marker::Circle => Circle::new((x, y), s, fill).into_dyn(),
        Marker::Triangle => poly(vec![(0, -s - 1), (s + 1, s), (-s - 1, s)]),
        Marker::Square => poly(vec![(-s, -s), (s, -s), (s, s), (-s, s)]),
        Marker::Cross => Cross::new((x, y), s, line).into_dyn(),
        Marker::Diamond => poly(vec![(0, -s - 1), (s + 1, 0), (0, s + 1), (-s - 1, 0)]),
        Marker::TriangleDown => poly(vec![(-s - 1, -s), (s + 1, -s), (0, s + 1)]),
        Marker::Plus => (EmptyElement::at((x, y))
            + PathElement::new(vec![(-s - 1, 0), (s + 1, 0)], line)
            + PathElement::new(vec![(0, -s - 1), (0, s + 1)], line))
        .into_dyn(),
        Marker::Pentagon => poly(vec![(0, -s - 1), (s + 1, -1), (s - 1, s + 1), (-s + 1, s + 1), (-s - 1, -1)]),
    }
}

/// One chart on `area`: the plot on the left and the legend on the right, or (`below`, on narrow
/// screens: the legend's lines, [`Chart::legend_below`]) the legend under the plot across its width,
/// [`LEGEND_ROW`] pixels a line. Returns the legend entries drawn.
fn draw_chart(area: &Area, chart: &Chart, below: Option<&[Vec<String>]>) -> Result<usize, String> {
    let (w, h) = area.dim_in_pixel();
    let (plot, legend) = if let Some(lines) = below {
        area.split_vertically(h.saturating_sub(legend_height(lines)))
    } else {
        area.split_horizontally(w - chart.legend_width(w as f64) as u32)
    };
    let ((x0, x1), (y0, y1)) = chart.bounds();
    let cats = &chart.categories;
    let pad = if cats.is_empty() { (x1 - x0) * 0.06 } else { 0.5 };
    let ypad = (y1 - y0) * 0.04;
    let mut c = ChartBuilder::on(&plot)
        .caption(&chart.title, ("sans-serif", 14))
        .margin(8)
        .x_label_area_size(if chart.x_label.is_empty() { 24 } else { 38 })
        .y_label_area_size(48)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), (y0 - ypad)..(y1 + ypad))
        .map_err(e2s)?;
    let mut mesh = c.configure_mesh();
    mesh.x_desc(chart.x_label.as_str()).y_desc(chart.y_label.as_str()).light_line_style(WHITE.mix(0.0));
    // Categories are numbered 1, 2, … (the key under the chart names them); whole-number axes label
    // whole numbers only.
    let n_cats = cats.len();
    let fmt_cat = move |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n_cats {
            format!("{}", i as usize + 1)
        } else {
            String::new()
        }
    };
    let fmt_whole =
        |v: &f64| if (v - v.round()).abs() < 1e-6 { format!("{}", v.round() as i64) } else { String::new() };
    if !cats.is_empty() {
        mesh.x_labels(n_cats * 2 + 1).x_label_formatter(&fmt_cat);
    } else if chart.whole_x() && x1 - x0 <= 30.0 {
        mesh.x_labels(((x1 - x0).round() as usize + 1).clamp(2, 12)).x_label_formatter(&fmt_whole);
    }
    mesh.draw().map_err(e2s)?;

    let n = chart.series.len() as f64;
    let mut entries: Vec<(String, RGBColor, Role, Marker, bool)> = Vec::new();
    for (k, s) in chart.series.iter().enumerate() {
        let colour = rgb(s.colour_at(k));
        let style = colour.stroke_width(if s.role == Role::Subject { 2 } else { 1 });
        // Categories: the series side by side around each category, not joined.
        let dodge = if cats.is_empty() { 0.0 } else { (k as f64 - (n - 1.0) / 2.0) * 0.5 / n.max(1.0) };
        let pts: Vec<(f64, f64)> = s.finite_points().map(|(x, y)| (x + dodge, y)).collect();
        if pts.is_empty() {
            continue;
        }
        let joined = s.line && cats.is_empty();
        // Points on too few observations faint, the segments to them and their error bars too.
        let shade = |thin: bool| if thin { colour.mix(0.3) } else { colour.to_rgba() };
        let thin = chart.thin_flags(s);
        if joined && thin.iter().any(|&t| t) {
            let width = if s.role == Role::Subject { 2 } else { 1 };
            for (i, seg) in pts.windows(2).enumerate() {
                let style = shade(thin[i] || thin[i + 1]).stroke_width(width);
                if s.role == Role::Chance {
                    c.draw_series(DashedLineSeries::new(seg.iter().copied(), 6, 4, style)).map_err(e2s)?;
                } else {
                    c.draw_series(LineSeries::new(seg.iter().copied(), style)).map_err(e2s)?;
                }
            }
        } else if joined && s.role == Role::Chance {
            c.draw_series(DashedLineSeries::new(pts.iter().copied(), 6, 4, style)).map_err(e2s)?;
        } else if joined {
            c.draw_series(LineSeries::new(pts.iter().copied(), style)).map_err(e2s)?;
        }
        // Markers where they can be told apart (a long live curve is a line only).
        if !joined || pts.len() < 40 {
            let filled = s.role == Role::Subject;
            c.draw_series(pts.iter().zip(&thin).map(|(&p, &t)| marker(s.marker, p, 3, shade(t), filled)))
                .map_err(e2s)?;
        }
        // Whiskers: the bar and its two caps (1 % of the x range wide).
        let cap = (x1 - x0 + 2.0 * pad) * 0.01;
        for &(bx, lo, hi) in &s.bars {
            let style = shade(chart.thin_bar(s, bx));
            let x = bx + dodge;
            for path in [vec![(x, lo), (x, hi)], vec![(x - cap, lo), (x + cap, lo)], vec![(x - cap, hi), (x + cap, hi)]]
            {
                c.draw_series(std::iter::once(PathElement::new(path, style.stroke_width(1)))).map_err(e2s)?;
            }
        }
        if s.legend {
            entries.push((s.name.clone(), colour, s.role, s.marker, joined));
        }
    }
    let thin_note = chart.thin_note();
    let (lines, top, step) = if let Some(below_lines) = below {
        // `legend_below` gave the entries' lines, then the note's.
        let entry_lines = below_lines[..entries.len().min(below_lines.len())].to_vec();
        (entry_lines, 10, LEGEND_ROW)
    } else {
        let legend_w = legend.dim_in_pixel().0 as i32;
        let max_chars = ((legend_w - 36) / 6).max(8) as usize;
        // Long names wrap before their last " · " part (the n) onto a second line.
        let lines: Vec<Vec<String>> = entries.iter().map(|e| legend_lines(&e.0, max_chars)).collect();
        let rows = lines.iter().map(Vec::len).sum::<usize>() + usize::from(thin_note.is_some());
        (lines, 40, (((h as i32) - 50) / rows.max(1) as i32).clamp(12, 20))
    };
    let mut row = 0;
    for ((_, colour, role, shape, joined), text) in entries.iter().zip(&lines) {
        let y = top + step * row as i32;
        row += text.len();
        let style = colour.stroke_width(2);
        if *role == Role::Chance && *joined {
            for x in [4, 14, 24] {
                legend.draw(&PathElement::new(vec![(x, y), (x + 6, y)], style)).map_err(e2s)?;
            }
        } else if *joined {
            legend.draw(&PathElement::new(vec![(4, y), (28, y)], style)).map_err(e2s)?;
        }
        if !*joined || *shape != Marker::Circle {
            let m: DynElement<'static, CanvasBackend, (i32, i32)> = match shape {
                Marker::Circle => Circle::new((16, y), 4, colour.filled()).into_dyn(),
                _ => Text::new(shape.glyph().to_string(), (11, y - 7), ("sans-serif", 12).into_font().color(&colour))
                    .into_dyn(),
            };
            legend.draw(&m).map_err(e2s)?;
        }
        for (k, line) in text.iter().enumerate() {
            let font = ("sans-serif", 11).into_font().color(&BLACK);
            let x = if k > 0 { 42 } else { 34 };
            legend.draw(&Text::new(line.clone(), (x, y - 7 + step * k as i32), font)).map_err(e2s)?;
        }
    }
    if let Some(note) = thin_note {
        let y = top + step * row as i32;
        legend.draw(&Circle::new((16, y), 4, RGBColor(0x44, 0x44, 0x44).mix(0.3).filled())).map_err(e2s)?;
        legend.draw(&Text::new(note, (34, y - 7), ("sans-serif", 11).into_font().color(&BLACK))).map_err(e2s)?;
    }
    Ok(entries.len())
}

/// Pixels a legend line takes under a plot.
const LEGEND_ROW: i32 = 16;

/// The height of a legend of `lines` under a plot.
fn legend_height(lines: &[Vec<String>]) -> u32 {
    (lines.iter().map(Vec::len).sum::<usize>() as i32 * LEGEND_ROW + 8).max(0) as u32
}

/// A matrix as coloured cells: row names on the left, column names rotated below, an optional strip of
/// palette colours under the columns.
fn draw_heatmap(area: &Area, m: &Heatmap) -> Result<usize, String> {
    let (w, h) = area.dim_in_pixel();
    text(area, &m.title, (w as i32 / 2, 4), 14, HPos::Center, VPos::Top, false)?;
    let axis = !m.axis_label.is_empty();
    let longest = m.rows.iter().map(|r| r.chars().count()).max().unwrap_or(2) as i32;
    let left = (12 + longest * 6).clamp(40, 260) + if axis { 18 } else { 0 };
    let top = if axis { 36 } else { 28 };
    let bottom = if !m.cols.is_empty() {
        16 + 6 * m.cols.iter().map(|c| c.chars().count()).max().unwrap_or(2) as i32 + if axis { 18 } else { 0 }
    } else if m.strip.is_some() {
        40
    } else {
        10
    };
    let (mut pw, mut ph) = (w as i32 - left - 10, h as i32 - top - bottom);
    if m.square {
        pw = pw.min(ph);
        ph = pw;
    }
    let nr = m.cells.len().max(1) as f64;
    let nc = m.cells.iter().map(|r| r.len()).max().unwrap_or(0).max(1) as f64;
    let (cw, ch) = (pw as f64 / nc, ph as f64 / nr);
    let at = |i: usize, size: f64, origin: i32| origin + (i as f64 * size) as i32;
    for (i, row) in m.cells.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let (x0, x1, y0, y1) = (at(j, cw, left), at(j + 1, cw, left), at(i, ch, top), at(i + 1, ch, top));
            let fill = v.map(|v| rgb(m.colour(v))).unwrap_or(RGBColor(0xdd, 0xdd, 0xdd));
            area.draw(&Rectangle::new([(x0, y0), (x1.max(x0 + 1), y1.max(y0 + 1))], fill.filled())).map_err(e2s)?;
            if let (true, Some(v)) = (m.values, v) {
                text(area, &format!("{v:.2}"), ((x0 + x1) / 2, (y0 + y1) / 2), 10, HPos::Center, VPos::Center, false)?;
            }
        }
    }
    area.draw(&Rectangle::new([(left, top), (left + pw, top + ph)], BLACK.mix(0.4).stroke_width(1))).map_err(e2s)?;
    for (i, r) in m.rows.iter().enumerate() {
        text(area, r, (left - 4, top + ((i as f64 + 0.5) * ch) as i32), 11, HPos::Right, VPos::Center, false)?;
    }
    for (j, c) in m.cols.iter().enumerate() {
        text(area, c, (left + ((j as f64 + 0.5) * cw) as i32, top + ph + 4), 11, HPos::Right, VPos::Center, true)?;
    }
    if let Some((strip, caption)) = &m.strip {
        for (j, &c) in strip.iter().enumerate() {
            let (x0, x1) = (at(j, cw, left), at(j + 1, cw, left));
            let cell = [(x0, top + ph + 4), (x1.max(x0 + 1), top + ph + 16)];
            area.draw(&Rectangle::new(cell, rgb(palette(c)).filled())).map_err(e2s)?;
        }
        text(area, caption, (left + pw / 2, top + ph + 20), 11, HPos::Center, VPos::Top, false)?;
    }
    if axis {
        text(area, &m.axis_label, (left + pw / 2, h as i32 - 14), 12, HPos::Center, VPos::Center, false)?;
        text(area, &m.axis_label, (10, top + ph / 2), 12, HPos::Center, VPos::Center, true)?;
    }
    Ok(1)
}

/// A square grid of small histograms, names on the left and (rotated) below.
fn draw_hist_grid(area: &Area, g: &HistGrid) -> Result<usize, String> {
    let (w, h) = area.dim_in_pixel();
    text(area, &g.title, (w as i32 / 2, 4), 14, HPos::Center, VPos::Top, false)?;
    let n = g.names.len().max(1) as i32;
    let (left, top) = (60, 28);
    let cell = ((w as i32 - left - 10).min(h as i32 - top - 70) / n).max(8);
    for (a, name) in g.names.iter().enumerate() {
        let a32 = a as i32;
        text(area, name, (left - 4, top + cell * a32 + cell / 2), 11, HPos::Right, VPos::Center, false)?;
        text(area, name, (left + cell * a32 + cell / 2, top + cell * n + 4), 11, HPos::Right, VPos::Center, true)?;
        for b in 0..g.names.len() {
            let (x0, y0) = (left + cell * b as i32, top + cell * a32);
            area.draw(&Rectangle::new([(x0, y0), (x0 + cell, y0 + cell)], BLACK.mix(0.2).stroke_width(1)))
                .map_err(e2s)?;
            let Some(counts) = g.cells.get(a).and_then(|r| r.get(b)).and_then(|c| c.as_ref()) else { continue };
            let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
            let bw = (cell - 4) as f64 / counts.len().max(1) as f64;
            for (i, &k) in counts.iter().enumerate().filter(|(_, k)| **k > 0) {
                let bx0 = x0 + 2 + (i as f64 * bw) as i32;
                let bx1 = x0 + 2 + ((i + 1) as f64 * bw) as i32;
                let bh = (((cell - 4) as f64 * k as f64 / max) as i32).max(1);
                let bar = [(bx0, y0 + cell - 2 - bh), (bx1.max(bx0 + 1), y0 + cell - 2)];
                area.draw(&Rectangle::new(bar, rgb(palette(0)).filled())).map_err(e2s)?;
            }
        }
    }
    Ok(1)
}

/// A figure to draw on one canvas.
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    /// Charts side by side (usually one).
    Charts(Vec<Chart>),
    Heatmap(Heatmap),
    HistGrid(HistGrid),
    /// Nothing to draw: a line of text in its place.
    Empty(String),
}

/// How a figure is laid out on its canvas: the canvas's size in pixels and, for charts, whether they
/// stand stacked with their legends under them (narrow screens) and each one's height there.
#[derive(Clone, Debug, PartialEq)]
struct Layout {
    w: u32,
    h: u32,
    /// The stacked charts, top to bottom: each one's height and its legend's lines; empty: side by
    /// side, legends beside.
    stacked: Vec<(u32, Vec<Vec<String>>)>,
}

/// The layout of `figure` drawn `width` × `height` where `avail` CSS pixels are free (0: unknown).
/// Charts are drawn at the width the page gives them, one canvas pixel a CSS pixel, so their text stays
/// at its size however narrow the screen; below [`LEGEND_BELOW`] a chart they stand one above the other,
/// each legend under its plot. Heat maps and histogram grids keep their size and shrink as pictures.
fn layout(figure: &Figure, width: u32, height: u32, avail: u32) -> Layout {
    let whole = Layout { w: width, h: height, stacked: Vec::new() };
    let Figure::Charts(charts) = figure else { return whole };
    if avail == 0 || avail >= width || charts.is_empty() {
        return whole;
    }
    if f64::from(avail) / charts.len() as f64 >= LEGEND_BELOW {
        return Layout { w: avail, h: height, stacked: Vec::new() };
    }
    let plot_h = (f64::from(avail) * 0.72).clamp(200.0, f64::from(height)) as u32;
    let stacked: Vec<(u32, Vec<Vec<String>>)> = charts
        .iter()
        .map(|c| {
            let lines = c.legend_below(f64::from(avail));
            (plot_h + legend_height(&lines), lines)
        })
        .collect();
    Layout { w: avail, h: stacked.iter().map(|s| s.0).sum(), stacked }
}

fn paint(canvas: web_sys::HtmlCanvasElement, figure: &Figure, layout: &Layout) -> Result<usize, String> {
    canvas.set_width(layout.w);
    canvas.set_height(layout.h);
    let root = CanvasBackend::with_canvas_object(canvas).ok_or("no canvas")?.into_drawing_area();
    root.fill(&WHITE).map_err(e2s)?;
    let n = match figure {
        Figure::Charts(charts) if !layout.stacked.is_empty() => {
            let (mut n, mut rest) = (0, root.clone());
            for (chart, (h, lines)) in charts.iter().zip(&layout.stacked) {
                let (area, below) = rest.split_vertically(*h);
                n += draw_chart(&area, chart, Some(lines))?;
                rest = below;
            }
            n
        }
        Figure::Charts(charts) => {
            let mut n = 0;
            for (area, chart) in root.split_evenly((1, charts.len().max(1))).iter().zip(charts) {
                n += draw_chart(area, chart, None)?;
            }
            n
        }
        Figure::Heatmap(m) => draw_heatmap(&root, m)?,
        Figure::HistGrid(g) => draw_hist_grid(&root, g)?,
        Figure::Empty(msg) => {
            text(&root, msg, (20, 40), 13, HPos::Left, VPos::Top, false)?;
            0
        }
    };
    root.present().map_err(e2s)?;
    Ok(n)
}

/// Record a draw's outcome on its canvas, for readers and the browser tests: `data-drawn="true"` (and
/// `data-series`) or `data-drawn="error"` with `data-error`.
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

/// A figure on a canvas `id` that redraws whenever `figure` changes; `data` are extra attributes set on
/// the canvas (what the page's tests and readers look up), `caption` a line under it. Categories of a
/// chart get a key under it.
#[component]
pub fn FigureCanvas(
    #[prop(into)] figure: Signal<Figure>,
    #[prop(into)] id: String,
    #[prop(default = "")] class: &'static str,
    #[prop(default = 800)] width: u32,
    #[prop(default = 360)] height: u32,
    #[prop(optional)] data: Vec<(&'static str, String)>,
    #[prop(default = None)] caption: Option<String>,
    #[prop(default = None)] caption_id: Option<String>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let frame = NodeRef::<leptos::html::Div>::new();
    // The width the page gives the canvas: measured at each draw, and a redraw when it changes (a phone
    // turned, a window resized).
    let avail = move || frame.get_untracked().map(|f| f.client_width().max(0) as u32).unwrap_or(0);
    let drawn_at = StoredValue::new(0u32);
    let resized = RwSignal::new(0u32);
    // A ResizeObserver rather than the window's resize: a chart in a closed <details> is measured when
    // it opens, too.
    let observer = StoredValue::new_local(None::<(web_sys::ResizeObserver, Closure<dyn FnMut()>)>);
    Effect::new(move |_| {
        let Some(f) = frame.get() else { return };
        let seen = Closure::<dyn FnMut()>::new(move || {
            if avail() != drawn_at.get_value() {
                let _ = resized.try_update(|k| *k += 1);
            }
        });
        if let Ok(ro) = web_sys::ResizeObserver::new(seen.as_ref().unchecked_ref()) {
            ro.observe(&f);
            observer.set_value(Some((ro, seen)));
        }
    });
    on_cleanup(move || {
        observer.try_with_value(|o| o.as_ref().map(|(ro, _)| ro.disconnect()));
    });
    Effect::new(move |_| {
        let f = figure.get();
        resized.track();
        if let Some(c) = canvas.get() {
            for (k, v) in &data {
                let _ = c.set_attribute(k, v);
            }
            // Points drawn faint (too few observations) and error bars drawn, for readers and tests.
            if let Figure::Charts(charts) = &f {
                let thin: usize = charts.iter().map(Chart::thin_points).sum();
                let bars: usize = charts.iter().flat_map(|c| &c.series).map(|s| s.bars.len()).sum();
                let _ = c.set_attribute("data-thin", &thin.to_string());
                let _ = c.set_attribute("data-bars", &bars.to_string());
            }
            let at = avail();
            drawn_at.set_value(at);
            let layout = layout(&f, width, height, at);
            let _ = c.set_attribute("data-legend", if layout.stacked.is_empty() { "beside" } else { "below" });
            mark_drawn(&c, paint(c.clone(), &f, &layout).map(Some));
        }
    });
    let label = move || {
        figure.with(|f| match f {
            Figure::Charts(c) => c.iter().map(|c| c.title.clone()).collect::<Vec<_>>().join("; "),
            Figure::Heatmap(m) => m.title.clone(),
            Figure::HistGrid(g) => g.title.clone(),
            Figure::Empty(s) => s.clone(),
        })
    };
    let key = move || {
        figure.with(|f| match f {
            Figure::Charts(c) => c
                .iter()
                .flat_map(|c| c.categories.iter().enumerate().map(|(i, c)| format!("{} {c}", i + 1)))
                .collect::<Vec<_>>()
                .join(" · "),
            _ => String::new(),
        })
    };
    view! {
        <figure class="chart" style=format!("flex: 0 1 {width}px")>
            <div class="plot-frame" node_ref=frame style=format!("max-width: {width}px")>
                <canvas node_ref=canvas class=format!("plot {class}") id=id width=width height=height role="img"
                    aria-label=label></canvas>
            </div>
            {move || { let k = key(); (!k.is_empty()).then(|| view! { <figcaption class="small spec-key">{k}</figcaption> }) }}
            {caption.map(|c| view! { <figcaption class="small chart-note" id=caption_id>{c}</figcaption> })}
        </figure>
    }
}

/// One chart on a canvas `id` (see [`FigureCanvas`]). With `download` (a file name without its
/// extension), two buttons under it offer the chart at print size: `#{id}-svg` as SVG and `#{id}-png` as
/// a 300 dpi PNG (fonts drawn into the picture).
#[component]
pub fn SpecChart(
    #[prop(into)] chart: Signal<Chart>,
    #[prop(into)] id: String,
    #[prop(default = "")] class: &'static str,
    #[prop(default = 800)] width: u32,
    #[prop(default = 360)] height: u32,
    #[prop(optional)] data: Vec<(&'static str, String)>,
    #[prop(default = None)] caption: Option<String>,
    #[prop(default = None)] caption_id: Option<String>,
    #[prop(default = None)] download: Option<String>,
) -> impl IntoView {
    let figure = Signal::derive(move || Figure::Charts(vec![chart.get()]));
    match download {
        None => view! { <FigureCanvas figure id class width height data caption caption_id/> }.into_any(),
        Some(stem) => {
            let buttons = figure_downloads(chart, &id, stem);
            view! { <div class="chart-box" style=format!("flex: 0 1 {width}px")><FigureCanvas figure id class width height data caption caption_id/>{buttons}</div> }
                .into_any()
        }
    }
}

/// The print-size downloads of a chart (see [`SpecChart`]); a failure is said beside the buttons.
fn figure_downloads(chart: Signal<Chart>, id: &str, stem: String) -> impl IntoView + use<> {
    use wmlab_core::chart_svg::{PRINT_SCALE, PRINT_SIZE, print_svg};
    let failed = RwSignal::new(None::<String>);
    let svg_name = format!("{stem}.svg");
    let png_name = format!("{stem}.png");
    let save_svg = move |_| {
        let text = print_svg(&chart.get_untracked());
        failed.set(crate::platform::web::download(&svg_name, "image/svg+xml", &text).err());
    };
    let save_png = move |_| {
        let text = print_svg(&chart.get_untracked());
        let name = png_name.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let r =
                crate::platform::web::download_svg_as_png(&name, &text, PRINT_SIZE.0, PRINT_SIZE.1, PRINT_SCALE).await;
            let _ = failed.try_set(r.err());
        });
    };
    view! {
        <div class="figure-downloads small">
            <button class="secondary small-button" id=format!("{id}-svg") on:click=save_svg
                title="7 × 4.2 in; text set in the reader's sans-serif font">"SVG"</button>
            <button class="secondary small-button" id=format!("{id}-png") on:click=save_png
                title="2,100 × 1,260 px: 7 × 4.2 in at 300 dpi, fonts drawn in">"PNG (300 dpi)"</button>
            {move || failed.get().map(|e| view! { <span class="error">{e}</span> })}
        </div>
    }
}

/// A record's per-condition curves beside the people's (`analysis::record_charts`), one chart per panel
/// (`#plot-i`, `data-panel` = its name), or a line saying there are none.
#[component]
pub fn RecordCharts(record: wmlab_core::record::ResultRecord) -> impl IntoView {
    let charts = wmlab_core::analysis::record_charts(&record);
    if charts.is_empty() {
        return view! { <p class="small" id="charts-empty">"No per-condition curves for this result."</p> }.into_any();
    }
    let n = charts.len();
    view! {
        <div class="charts" id="charts" data-panels=n>
            {charts.into_iter().enumerate().map(|(i, (panel, c))| {
                let data = vec![("data-panel", panel)];
                let download = Some(figure_stem(&c.title));
                view! { <SpecChart chart=c id=format!("plot-{i}") width=720 height=340 data download/> }
            }).collect_view()}
        </div>
        <p class="small" id="charts-explained">"Thick lines, filled dots: this result, with 95 % intervals (Wilson for answers \
            right or wrong, a bootstrap of the mean for scores) and the n behind each point in the legend; a point on fewer \
            than 10 is drawn faint. Thin lines, rings: people in the WorM study (where published; the source gives no \
            standard errors)."</p>
    }
    .into_any()
}

/// A file name for a figure: `wmlab-` and the words of `title` in lower case, joined by `-`.
pub fn figure_stem(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    format!("wmlab-{}", words.join("-"))
}

/// One comparison panel (`wmlab_core::compare::Panel`) as a chart, `#cmp-plot-i` with the panel, the
/// subjects and references drawn (`data-who`) and the chosen results (`data-subjects`), the marker key
/// under it, and its print-size downloads.
#[component]
pub fn CmpChart(panel: wmlab_core::compare::Panel, index: usize, names: Vec<String>) -> impl IntoView {
    let who = panel.series.iter().map(|s| s.who.key()).collect::<Vec<_>>().join(" ");
    let subjects = panel.subjects().iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let data = vec![("data-panel", panel.name.clone()), ("data-who", who), ("data-subjects", subjects)];
    let caption = panel.marker_key().map(|k| format!("Markers: {k}"));
    let download = Some(figure_stem(&panel.name));
    view! {
        <SpecChart chart=panel.chart(&names) id=format!("cmp-plot-{index}") class="cmp-plot" width=780 data caption download/>
    }
}

/// One comparison panel as small multiples (`Panel::summary_chart`, then `Panel::level_charts`): a
/// `div.cmp-panel` (`data-panel`, `data-levels`) holding the summary `#cmp-sum-i` and one chart per
/// level `#cmp-level-i-k` (`data-level`, `data-who`), each with its downloads.
#[component]
pub fn CmpLevels(panel: wmlab_core::compare::Panel, index: usize, names: Vec<String>) -> impl IntoView {
    let summary = panel.summary_chart(&names);
    let levels = panel.level_charts(&names);
    let n = levels.len();
    let one = panel.labels.len() <= 1;
    let level_views = levels
        .into_iter()
        .enumerate()
        .map(|(k, c)| {
            let label = if one { String::new() } else { panel.labels.get(k).cloned().unwrap_or_default() };
            let who = panel
                .series
                .iter()
                .filter(|s| s.curves.iter().any(|c| (one || c.label == label) && !c.points.is_empty()))
                .map(|s| s.who.key())
                .collect::<Vec<_>>()
                .join(" ");
            let data = vec![("data-panel", panel.name.clone()), ("data-level", label), ("data-who", who)];
            let download = Some(figure_stem(&c.title));
            view! { <SpecChart chart=c id=format!("cmp-level-{index}-{k}") class="cmp-level" width=500 height=300 data download/> }
        })
        .collect_view();
    let summary_view = summary.map(|c| {
        let download = Some(figure_stem(&c.title));
        let data = vec![("data-panel", panel.name.clone())];
        view! { <SpecChart chart=c id=format!("cmp-sum-{index}") class="cmp-summary" width=500 height=300 data download/> }
    });
    view! {
        <div class="cmp-panel" data-panel=panel.name.clone() data-levels=n>
            {summary_view}
            <div class="charts cmp-levels">{level_views}</div>
        </div>
    }
}
