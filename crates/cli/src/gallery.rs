//! `wmlab gallery`: one PNG contact sheet, a row per task id with the 96 px frames of one trial.

use wmlab_core::raster::{self, BIG};
use wmlab_core::task::MAX_STEPS;
use wmlab_core::{TaskId, TaskSpec, Trial};

use crate::{GalleryArgs, pngout};
use wmlab_core::font;

/// Gap between frames, rows and around the sheet.
pub const GAP: usize = 4;
/// Label glyph scale (5×7 glyphs drawn at 10×14).
pub const LABEL_SCALE: usize = 2;

/// The label column's width: the longest id.
pub fn label_width() -> usize {
    TaskId::ALL.iter().map(|t| font::text_width(t.as_str(), LABEL_SCALE)).max().unwrap_or(0)
}

/// Sheet size in pixels: GAP | label | GAP | 20 frames with GAP between | GAP, and 14 rows with GAPs.
pub fn sheet_size() -> (usize, usize) {
    let rows = TaskId::ALL.len();
    let w = GAP + label_width() + GAP + MAX_STEPS * BIG + (MAX_STEPS - 1) * GAP + GAP;
    let h = GAP + rows * BIG + (rows - 1) * GAP + GAP;
    (w, h)
}

fn pick(spec: &TaskSpec, a: &GalleryArgs) -> (u64, Trial) {
    let split = a.split.split();
    if let Some(i) = a.index {
        return (i, spec.trial(a.seed, split, i));
    }
    // One trial per condition cell; keep the longest (the last one on ties, usually the largest set).
    let k = spec.grid().len() as u64;
    let mut best: Option<(u64, Trial)> = None;
    for i in 0..k.max(1) {
        let t = spec.trial(a.seed, split, i);
        if best.as_ref().is_none_or(|(_, b)| t.len() >= b.len()) {
            best = Some((i, t));
        }
    }
    best.expect("at least one trial")
}

pub fn run(a: &GalleryArgs) -> anyhow::Result<()> {
    let (w, h) = sheet_size();
    let mut px = vec![255u8; w * h * 3];
    let x0 = GAP + label_width() + GAP;
    for (row, &id) in TaskId::ALL.iter().enumerate() {
        let y0 = GAP + row * (BIG + GAP);
        let spec = TaskSpec::new(id);
        let (index, trial) = pick(&spec, a);
        font::draw_text(&mut px, w, GAP, y0 + (BIG - font::H * LABEL_SCALE) / 2, id.as_str(), LABEL_SCALE, [0, 0, 0]);
        for (t, step) in trial.steps.iter().enumerate().take(MAX_STEPS) {
            let img = raster::draw96(&step.frame);
            let fx = x0 + t * (BIG + GAP);
            for y in 0..BIG {
                let src = &img.px[y * BIG * 3..(y + 1) * BIG * 3];
                let dst = ((y0 + y) * w + fx) * 3;
                px[dst..dst + BIG * 3].copy_from_slice(src);
            }
        }
        out!(
            "row {:>2}  {:<15} trial {:>3}  steps {:>2}  {}",
            row,
            id.as_str(),
            index,
            trial.len(),
            trial.conditions.label()
        );
    }
    if let Some(parent) = a.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
    }
    pngout::write(&a.out, w as u32, h as u32, &px, false)?;
    out!("wrote {} ({w}x{h}, split {}, seed {})", a.out.display(), a.split.split().as_str(), a.seed);
    Ok(())
}
