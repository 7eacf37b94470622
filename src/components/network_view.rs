//! The network's view of a frame: the 32×32×3 tensor from `wmlab_core::raster`, drawn pixel for pixel
//! (the canvas is scaled up by CSS with `image-rendering: pixelated`).

use wasm_bindgen::Clamped;
use web_sys::{HtmlCanvasElement, ImageData};
use wmlab_core::display::Frame;
use wmlab_core::raster::{SMALL, tensor_to_rgb8, tensor32};

use super::painter::context;

pub fn paint_tensor(canvas: &HtmlCanvasElement, frame: &Frame) {
    let rgb = tensor_to_rgb8(&tensor32(frame));
    let mut rgba = Vec::with_capacity(SMALL * SMALL * 4);
    for p in rgb.chunks_exact(3) {
        rgba.extend_from_slice(&[p[0], p[1], p[2], 255]);
    }
    canvas.set_width(SMALL as u32);
    canvas.set_height(SMALL as u32);
    let Some(ctx) = context(canvas) else { return };
    if let Ok(img) = ImageData::new_with_u8_clamped_array(Clamped(&rgba[..]), SMALL as u32) {
        let _ = ctx.put_image_data(&img, 0.0, 0.0);
    }
}
