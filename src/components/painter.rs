//! The canvas painter: draws a core display list crisply at any size, for people.
//!
//! Mapping (see `wmlab_core::display`): a point `p` goes to `(p + 0.5) * s / 96`, a Pillow box
//! `[x0, x1]` (both ends included) to `[x0 * s/96, (x1 + 1) * s/96)`. Outlines are drawn inside the
//! shape's bounds. The canvas backing store is sized for `devicePixelRatio`.

use std::f64::consts::PI;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use wmlab_core::display::{Frame, Rgb, SPACE, Shape};
use wmlab_core::raster::arrow_barbs;

/// Get the 2D context of a canvas.
pub fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas.get_context("2d").ok().flatten()?.dyn_into().ok()
}

/// Size the canvas to `css_px` × `css_px` CSS pixels at the device pixel ratio and paint `frame`.
pub fn paint(canvas: &HtmlCanvasElement, frame: &Frame, css_px: f64) {
    let dpr = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).clamp(1.0, 4.0);
    let backing = (css_px * dpr).round() as u32;
    if canvas.width() != backing {
        canvas.set_width(backing);
    }
    if canvas.height() != backing {
        canvas.set_height(backing);
    }
    let _ = canvas.style().set_property("width", &format!("{css_px}px"));
    let _ = canvas.style().set_property("height", &format!("{css_px}px"));
    let Some(ctx) = context(canvas) else { return };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    draw_frame(&ctx, frame, css_px);
}

fn css(c: Rgb) -> String {
    c.hex()
}

/// Draw `frame` into `ctx` over a square of side `s` (in the context's current units).
pub fn draw_frame(ctx: &CanvasRenderingContext2d, frame: &Frame, s: f64) {
    let k = s / SPACE as f64;
    ctx.set_fill_style_str(&css(frame.background));
    ctx.fill_rect(0.0, 0.0, s, s);
    for shape in &frame.shapes {
        draw_shape(ctx, shape, k);
    }
}

/// A point (pixel centre) in units → canvas coordinates.
fn pt(p: f32, k: f64) -> f64 {
    (p as f64 + 0.5) * k
}

/// A Pillow box → `(x, y, w, h)` in canvas coordinates.
fn boxed(x0: f32, y0: f32, x1: f32, y1: f32, k: f64) -> (f64, f64, f64, f64) {
    let (a, b) = (x0.min(x1) as f64 * k, y0.min(y1) as f64 * k);
    let (c, d) = ((x0.max(x1) as f64 + 1.0) * k, (y0.max(y1) as f64 + 1.0) * k);
    (a, b, c - a, d - b)
}

fn round_rect_path(ctx: &CanvasRenderingContext2d, (x, y, w, h): (f64, f64, f64, f64), r: f64) {
    let r = r.max(0.0).min(w / 2.0).min(h / 2.0);
    ctx.begin_path();
    ctx.move_to(x + r, y);
    let _ = ctx.arc_to(x + w, y, x + w, y + h, r);
    let _ = ctx.arc_to(x + w, y + h, x, y + h, r);
    let _ = ctx.arc_to(x, y + h, x, y, r);
    let _ = ctx.arc_to(x, y, x + w, y, r);
    ctx.close_path();
}

fn ellipse_path(ctx: &CanvasRenderingContext2d, (x, y, w, h): (f64, f64, f64, f64)) {
    ctx.begin_path();
    let _ = ctx.ellipse(x + w / 2.0, y + h / 2.0, (w / 2.0).max(0.0), (h / 2.0).max(0.0), 0.0, 0.0, 2.0 * PI);
}

/// The box shrunk by half a stroke, so a stroke of width `lw` lies inside the original bounds.
fn inset(b: (f64, f64, f64, f64), lw: f64) -> (f64, f64, f64, f64) {
    let d = (lw / 2.0).min(b.2 / 2.0).min(b.3 / 2.0);
    (b.0 + d, b.1 + d, b.2 - 2.0 * d, b.3 - 2.0 * d)
}

fn segment(ctx: &CanvasRenderingContext2d, a: (f64, f64), b: (f64, f64)) {
    ctx.move_to(a.0, a.1);
    ctx.line_to(b.0, b.1);
}

fn draw_shape(ctx: &CanvasRenderingContext2d, shape: &Shape, k: f64) {
    match shape {
        &Shape::Rect { x0, y0, x1, y1, fill, outline, width } => {
            let b = boxed(x0, y0, x1, y1, k);
            if let Some(f) = fill {
                ctx.set_fill_style_str(&css(f));
                ctx.fill_rect(b.0, b.1, b.2, b.3);
            }
            if let Some(o) = outline {
                let lw = (width.max(1.0) as f64 * k).min(b.2 / 2.0).min(b.3 / 2.0);
                let i = inset(b, lw);
                ctx.set_stroke_style_str(&css(o));
                ctx.set_line_width(lw);
                ctx.set_line_join("miter");
                ctx.stroke_rect(i.0, i.1, i.2, i.3);
            }
        }
        &Shape::RoundRect { x0, y0, x1, y1, radius, fill, outline, width } => {
            let b = boxed(x0, y0, x1, y1, k);
            let r = radius as f64 * k;
            if let Some(f) = fill {
                ctx.set_fill_style_str(&css(f));
                round_rect_path(ctx, b, r);
                ctx.fill();
            }
            if let Some(o) = outline {
                let lw = (width.max(1.0) as f64 * k).min(b.2 / 2.0).min(b.3 / 2.0);
                ctx.set_stroke_style_str(&css(o));
                ctx.set_line_width(lw);
                round_rect_path(ctx, inset(b, lw), (r - lw / 2.0).max(0.0));
                ctx.stroke();
            }
        }
        &Shape::Ellipse { x0, y0, x1, y1, fill, outline, width } => {
            let b = boxed(x0, y0, x1, y1, k);
            if let Some(f) = fill {
                ctx.set_fill_style_str(&css(f));
                ellipse_path(ctx, b);
                ctx.fill();
            }
            if let Some(o) = outline {
                let lw = (width.max(1.0) as f64 * k).min(b.2 / 2.0).min(b.3 / 2.0);
                ctx.set_stroke_style_str(&css(o));
                ctx.set_line_width(lw);
                ellipse_path(ctx, inset(b, lw));
                ctx.stroke();
            }
        }
        &Shape::Line { x0, y0, x1, y1, color, width } => {
            ctx.set_stroke_style_str(&css(color));
            ctx.set_line_width(width.max(1.0) as f64 * k);
            ctx.set_line_cap("butt");
            ctx.begin_path();
            segment(ctx, (pt(x0, k), pt(y0, k)), (pt(x1, k), pt(y1, k)));
            ctx.stroke();
        }
        &Shape::Arrow { x0, y0, x1, y1, color, width, tip } => {
            ctx.set_stroke_style_str(&css(color));
            ctx.set_line_width(width.max(1.0) as f64 * k);
            ctx.set_line_cap("butt");
            ctx.set_line_join("miter");
            let tip_pt = (pt(x1, k), pt(y1, k));
            ctx.begin_path();
            segment(ctx, (pt(x0, k), pt(y0, k)), tip_pt);
            for (bx, by) in arrow_barbs(x0, y0, x1, y1, tip) {
                segment(ctx, tip_pt, (pt(bx, k), pt(by, k)));
            }
            ctx.stroke();
        }
        Shape::Text { x, y, size, text, color } => {
            ctx.set_fill_style_str(&css(*color));
            ctx.set_font(&format!("{}px system-ui, -apple-system, 'Segoe UI', sans-serif", *size as f64 * k));
            ctx.set_text_align("center");
            ctx.set_text_baseline("middle");
            let _ = ctx.fill_text(text, pt(*x, k), pt(*y, k));
        }
        Shape::Noise { seed } => draw_noise(ctx, *seed, k),
    }
}

/// A noise frame: its 96×96 pixels put on a small canvas, scaled up without smoothing (each noise pixel
/// a crisp square, as the network sees it before downsampling).
fn draw_noise(ctx: &CanvasRenderingContext2d, seed: u64, k: f64) {
    let n = SPACE as u32;
    let rgb = wmlab_core::display::noise_bytes(seed);
    let mut rgba = Vec::with_capacity(rgb.len() / 3 * 4);
    for p in rgb.chunks_exact(3) {
        rgba.extend_from_slice(&[p[0], p[1], p[2], 255]);
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Some(small) = doc.create_element("canvas").ok().and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok()) else {
        return;
    };
    small.set_width(n);
    small.set_height(n);
    let (Some(sctx), Ok(img)) =
        (context(&small), web_sys::ImageData::new_with_u8_clamped_array(wasm_bindgen::Clamped(&rgba), n))
    else {
        return;
    };
    let _ = sctx.put_image_data(&img, 0.0, 0.0);
    ctx.set_image_smoothing_enabled(false);
    let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&small, 0.0, 0.0, n as f64 * k, n as f64 * k);
    ctx.set_image_smoothing_enabled(true);
}
