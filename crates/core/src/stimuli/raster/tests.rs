//! The raster's tests: every shortcut against plain drawing, the golden bytes.

use super::*;
use crate::display::{self, Frame, palette};

thread_local! {
    /// When set, every fill tests every pixel (the definition the span renderer must equal).
    pub(crate) static EXACT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Frames composed from kept tiles so far (the tile path is taken, not only correct).
    pub(crate) static COMPOSED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Frames copied from the last frame left out of the memo so far.
    pub(crate) static RECENT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Rows of values copied from the frame before, not expanded, so far.
    pub(crate) static ROWS_COPIED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The tensor of every step of `frames`, through the memo (tiles included), against drawing each
/// frame afresh; returns how many were composed from tiles.
fn check_against_drawing<'a>(frames: impl IntoIterator<Item = &'a Frame>, what: &str) -> u64 {
    let before = COMPOSED.with(|c| c.get());
    let mut out = vec![f32::NAN; TENSOR_LEN];
    for (k, f) in frames.into_iter().enumerate() {
        tensor_into(f, &mut out);
        let mut drawn = vec![f32::NAN; TENSOR_LEN];
        downsample(&draw96(f), &mut drawn);
        assert_eq!(out, drawn, "{what}: frame {k}");
    }
    COMPOSED.with(|c| c.get()) - before
}

/// `reached` equals the scan over the 32 windows for every span, empty and reversed ones and the
/// extremes of `i32` included.
#[test]
fn reached_is_every_window_meeting_the_span() {
    let t = taps();
    let ends = (-8..BIG as i32 + 8).chain([i32::MIN, i32::MIN + 1, -1000, 1000, i32::MAX - 1, i32::MAX]);
    for lo in ends.clone() {
        for hi in ends.clone() {
            let meets = |o: &usize| t.start[*o] as i32 <= hi && t.start[*o] as i64 + 5 >= lo as i64;
            let plain = (0..SMALL).find(meets).zip((0..SMALL).rev().find(meets));
            assert_eq!(t.reached(lo, hi), plain, "{lo}..={hi}");
        }
    }
}

/// Frames composed from kept tiles equal drawn frames: the pattern tasks and SI over enough trials
/// that most of their frames are composed, and every other id.
#[test]
fn composed_tiles_equal_drawing_for_every_task() {
    for id in crate::TaskId::EVERY {
        let many = matches!(
            id,
            crate::TaskId::Vir | crate::TaskId::Vsr | crate::TaskId::VsRec | crate::TaskId::Cs | crate::TaskId::Si
        );
        let spec = crate::TaskSpec::new(id);
        let trials: Vec<_> = (0..if many { 150 } else { 20 }).map(|i| spec.trial(5, crate::Split::Train, i)).collect();
        let frames = trials.iter().flat_map(|t| t.steps.iter().map(|s| &s.frame));
        let composed = check_against_drawing(frames, id.as_str());
        if many {
            assert!(composed > 100, "{id}: {composed} frames composed from tiles");
        }
    }
}

/// Random frames from a small set of shapes (every kind, at the image's edges too, overlapping, in
/// any order, over two backgrounds): tiles are met again under other neighbours and in another
/// painting order, and the composed tensors still equal drawing.
#[test]
fn composed_tiles_equal_drawing_for_random_overlaps() {
    let mut rng = crate::rng::Rng::from_u64(7);
    let colours = [palette::RED, palette::GREEN, palette::BLACK, palette::WHITE];
    let mut vocabulary = Vec::new();
    for i in 0..24 {
        let (x, y) = ((i % 6) as f32 * 17.0 - 4.0, (i / 6) as f32 * 23.0 + 0.5 * (i % 2) as f32);
        let c = colours[i % 4];
        vocabulary.push(match i % 6 {
            0 => display::rect(x, y, x + 20.0, y + 12.0, Some(c), Some(palette::BLACK), 2.0),
            1 => display::round_rect(x, y, x + 13.0, y + 13.0, 3.0, Some(c), Some(palette::BLACK), 1.0),
            2 => display::line(x, y, x + 30.0, y + 9.0, c, 3.0),
            3 => display::arrow(x + 20.0, y + 20.0, x, y, c, 2.0, 0.3),
            4 => display::ellipse(x, y, x + 25.0, y + 15.0, None, Some(c), 2.0),
            _ => display::line(x + 0.3, y, x + 0.3, y + 40.0, c, 1.0),
        });
    }
    let mut frames = Vec::new();
    for k in 0..1500 {
        let mut f = if k % 5 == 0 { Frame { background: palette::BLACK, shapes: vec![] } } else { Frame::gray(vec![]) };
        for _ in 0..1 + rng.index(4) {
            f.push(vocabulary[rng.index(vocabulary.len())].clone());
        }
        frames.push(f);
    }
    let composed = check_against_drawing(&frames, "random overlaps");
    assert!(composed > 200, "{composed} frames composed from tiles");
}

/// A shape's key words (a one-shape frame's key without its background word).
fn shape_words(s: &Shape) -> Vec<u32> {
    let mut key = Vec::new();
    frame_key(&Frame::gray(vec![s.clone()]), &mut key, &mut Vec::new());
    key[1..].to_vec()
}

/// A shape's entry in the shape table, if it has one.
fn shape_entry<'a>(tiles: &'a Tiles, s: &Shape) -> Option<&'a ShapeEntry> {
    let w = shape_words(s);
    tiles.shapes.iter().find(|e| e.len > 0 && e.words[..e.len as usize] == *w)
}

/// The first `n` of `candidates` whose shape-table set is `s`'s (as [`Tiles::intern`] places them).
fn shapes_in_set_of(s: &Shape, candidates: impl Iterator<Item = Shape>, n: usize) -> Vec<Shape> {
    let set = shape_set(fx(&shape_words(s)));
    let found: Vec<Shape> = candidates.filter(|c| shape_set(fx(&shape_words(c))) == set).take(n).collect();
    assert_eq!(found.len(), n, "{n} shapes in one set");
    found
}

/// [`Tiles::compose`] of a frame, with its key made here.
fn compose_alone(tiles: &mut Tiles, f: &Frame) -> Compose {
    let (mut key, mut starts) = (Vec::new(), Vec::new());
    frame_key(f, &mut key, &mut starts);
    tiles.compose(f, &key, &starts)
}

/// A shape met in frames that were composed from tiles stays in the shape table while shapes that
/// only ever come with a young one (CD's bars: they recur, but their arrays never compose) enter its
/// set and leave again: in the joint benchmark such bars took 13 of every 100 frames' worth of new
/// entries, pushing out the shapes of SI's, SFR's and SMU's frames, which were drawn again.
#[test]
fn shapes_of_composed_frames_outlast_shapes_that_never_compose() {
    let line = |x: f32| display::line(x, 10.0, x + 20.0, 40.0, palette::GREEN, 3.0);
    let one = |s: Shape| Frame::gray(vec![s]);
    let mut tiles = Tiles::new();
    let kept = line(5.0);
    let id_of = |tiles: &Tiles, s: &Shape| shape_entry(tiles, s).map(|e| e.id);
    for _ in 0..=MATURE {
        compose_alone(&mut tiles, &one(kept.clone()));
    }
    let id = id_of(&tiles, &kept).expect("a shape met in MATURE frames before is in the table");
    assert!(shape_entry(&tiles, &kept).is_some_and(|e| e.composed), "its frame was composed");
    // twice as many shapes as the set has ways, each met with a new shape every time (never composed)
    let same_set = shapes_in_set_of(&kept, (1..400_000).map(|i| line(5.0 + i as f32 / 256.0)), 2 * SHAPE_WAYS);
    let mut fresh = 0.0;
    for s in &same_set {
        for _ in 0..=MATURE {
            fresh += 1.0;
            let f =
                Frame::gray(vec![s.clone(), display::line(50.0, 50.0 + fresh / 256.0, 60.0, 70.0, palette::RED, 1.0)]);
            assert_eq!(compose_alone(&mut tiles, &f), Compose::Skipped, "a frame with a new shape is drawn");
        }
        assert!(id_of(&tiles, s).is_some(), "a shape met in MATURE frames before was not kept");
        assert_eq!(id_of(&tiles, &kept), Some(id), "the composed frame's shape was pushed out");
    }
    // when every way holds a composed frame's shape, the least recently used leaves as before
    for s in &same_set[..SHAPE_WAYS] {
        for _ in 0..=MATURE {
            compose_alone(&mut tiles, &one(s.clone()));
        }
    }
    assert_eq!(id_of(&tiles, &kept), None, "the least recently used composed shape stayed");
}

/// Two shapes of one frame entering the same set both stay: the second does not take the place of the
/// first (not yet marked as met in a composed frame) while ways used by no shape of the frame are left.
#[test]
fn shapes_entering_one_set_in_one_frame_both_stay() {
    let line = |x: f32| display::line(x, 10.0, x + 20.0, 40.0, palette::GREEN, 3.0);
    let same_set = shapes_in_set_of(&line(5.0), (1..400_000).map(|i| line(5.0 + i as f32 / 4096.0)), SHAPE_WAYS + 1);
    let mut tiles = Tiles::new();
    let in_table = |tiles: &Tiles, s: &Shape| shape_entry(tiles, s).is_some();
    // three ways hold composed frames' shapes; the fourth is empty
    let (kept, rest) = (&same_set[..SHAPE_WAYS - 1], &same_set[SHAPE_WAYS - 1..]);
    for s in kept {
        for _ in 0..=MATURE {
            compose_alone(&mut tiles, &Frame::gray(vec![s.clone()]));
        }
    }
    let (x, y) = (&rest[0], &rest[1]);
    let mut fresh = 0.0;
    let mut with_new = |tiles: &mut Tiles, shapes: &[&Shape]| {
        fresh += 1.0;
        let mut f = Frame::gray(shapes.iter().map(|&s| s.clone()).collect());
        f.push(display::line(50.0, 50.0 + fresh / 256.0, 60.0, 70.0, palette::RED, 1.0));
        compose_alone(tiles, &f);
    };
    // x and y together, each time with a new shape: both enter the table in the same frame, x first
    // into the empty way, and y must not take x's place (never met in a composed frame, but this one's)
    for _ in 0..=MATURE {
        with_new(&mut tiles, &[x, y]);
    }
    assert!(in_table(&tiles, x) && in_table(&tiles, y), "a shape entering the set took the place of the other");
}

/// A shape that paints nothing in the image, met for the first time in a frame of shapes all known,
/// neither stops the frame being composed nor is marked as met in a composed frame (it has no entry).
#[test]
fn a_new_shape_outside_the_image_joins_a_composed_frame() {
    let inside = display::rect(10.0, 10.0, 40.0, 30.0, Some(palette::RED), Some(palette::BLACK), 2.0);
    // met in MATURE frames before (over other backgrounds, so that none is a memo hit)
    for background in [palette::BLACK, palette::WHITE, palette::GREEN] {
        check_against_drawing([&Frame { background, shapes: vec![inside.clone()] }], "a shape met again");
    }
    let before = COMPOSED.with(|c| c.get());
    for k in 0..3 {
        let outside = display::line(-60.0 - k as f32, 5.0, -30.0, 20.0, palette::GREEN, 3.0);
        let f = Frame::gray(vec![inside.clone(), outside]);
        check_against_drawing([&f], "a known shape and a new one outside the image");
    }
    assert_eq!(COMPOSED.with(|c| c.get()), before + 3, "frames with a new shape outside the image were drawn");
    let composed = |s: &Shape| MEMO.with(|m| shape_entry(&m.borrow().tiles, s).map(|e| e.composed));
    assert_eq!(composed(&inside), Some(true), "the known shape is marked as met in a composed frame");
    let outside = display::line(-60.0, 5.0, -30.0, 20.0, palette::GREEN, 3.0);
    assert_eq!(composed(&outside), None, "a shape met once entered the table");
}

#[test]
fn expand_divides_exactly_as_the_table() {
    for v in 0..=255u8 {
        let mut out = vec![f32::NAN; TENSOR_LEN];
        expand(&[v; TENSOR_LEN], &mut out);
        assert!(out.iter().all(|x| x.to_bits() == UNIT[v as usize].to_bits()), "{v}");
    }
}

/// Drawing a trial's frames through the memo (three times: the second pass keeps what the first met,
/// the third is all hits) gives what drawing and downsampling each frame gives, for every task id;
/// rows shared with the frame before are copied from it (and a frame rendered alone in between does
/// not count as the frame before).
#[test]
fn memo_tensors_equal_drawn_tensors() {
    let copied = ROWS_COPIED.with(|c| c.get());
    let mut repeated = 0;
    for id in crate::TaskId::EVERY {
        let spec = crate::TaskSpec::new(id);
        for i in 0..24 {
            let t = spec.trial(3, crate::Split::Train, i);
            for _ in 0..3 {
                let mut out = vec![f32::NAN; t.len() * TENSOR_LEN];
                tensors_into(
                    t.steps.iter().enumerate().map(|(k, s)| {
                        if k % 3 == 2 {
                            // another frame rendered alone, between two of the trial's
                            tensor_into(&t.steps[0].frame, &mut vec![0.0; TENSOR_LEN]);
                        }
                        &s.frame
                    }),
                    &mut out,
                );
                for (k, s) in t.steps.iter().enumerate() {
                    let mut drawn = vec![f32::NAN; TENSOR_LEN];
                    downsample(&draw96(&s.frame), &mut drawn);
                    assert_eq!(out[k * TENSOR_LEN..(k + 1) * TENSOR_LEN], drawn[..], "{id} step {k}");
                }
            }
            repeated += t.steps.windows(2).filter(|w| w[0].frame == w[1].frame).count();
        }
    }
    assert!(repeated > 10, "repeated frames were met ({repeated})");
    let copied = ROWS_COPIED.with(|c| c.get()) - copied;
    assert!(copied > 10_000, "rows copied from the frame before ({copied})");
}

/// Frames that paint apart are resampled from the plain background (the old box cleared first),
/// frames that overlap by difference from the last one: both give the drawn tensor, in any order,
/// including a change of background between them.
#[test]
fn resampling_from_the_background_equals_drawing() {
    let bar = |x: f32, y: f32, c: Rgb| display::line(x, y, x + 9.0, y + 4.0, c, 3.0);
    let mut frames = Vec::new();
    for i in 0..40 {
        let (a, b) = ((i * 37 % 80) as f32, (i * 53 % 80) as f32);
        // one small shape far from the last one's, then several spread out, then a near one
        frames.push(Frame::gray(vec![bar(a, b, palette::GREEN)]));
        frames.push(Frame::gray(vec![bar(80.0 - a, 80.0 - b, palette::GREEN), bar(a, 3.0, palette::RED)]));
        frames.push(Frame::gray(vec![bar(a + 1.0, b, palette::GREEN)]));
        if i % 7 == 0 {
            frames.push(Frame::blank());
            frames.push(Frame { background: palette::BLACK, shapes: vec![bar(b, a, palette::WHITE)] });
        }
    }
    check_against_drawing(&frames, "apart and overlapping frames");
}

/// A frame met once is not kept (most frames are), one met twice is, whether in a row or apart; and a
/// frame met again and again between frames met twice keeps its memo place: each new frame that lands
/// in its set takes a way met less (a direct-mapped memo would lose it to the first one). All exact.
#[test]
fn memo_keeps_frames_met_again_and_the_most_met_longest() {
    let frame = |x: f32| {
        let mut f = Frame::blank();
        f.push(display::line(x, 10.0, 30.0, 40.0, palette::GREEN, 3.0));
        f
    };
    let set_of = |f: &Frame| memo_set(frame_key(f, &mut Vec::new(), &mut Vec::new()));
    let kept = |f: &Frame| {
        let mut key = Vec::new();
        frame_key(f, &mut key, &mut Vec::new());
        MEMO.with(|m| m.borrow().slots.iter().flatten().any(|s| s.key == key))
    };
    let (a, b, c) = (frame(-1.0), frame(-2.0), frame(-3.0));
    check_against_drawing([&a], "a frame met once");
    assert!(!kept(&a), "a frame met once was kept");
    let copied = RECENT.with(|c| c.get());
    check_against_drawing([&a], "a frame met twice in a row");
    assert!(kept(&a), "a frame met twice in a row was not kept");
    assert_eq!(RECENT.with(|c| c.get()), copied + 1, "a frame met twice in a row was drawn again, not copied");
    check_against_drawing([&b, &c, &b], "frames met twice apart");
    assert!(kept(&b) && !kept(&c), "a frame met twice apart was not kept, or one met once was");
    let again = frame(1.0);
    // frames that fall in the same set
    let twice: Vec<Frame> =
        (2..200_000).map(|i| frame(i as f32 / 64.0)).filter(|f| set_of(f) == set_of(&again)).take(60).collect();
    assert_eq!(twice.len(), 60);
    for _ in 0..4 {
        tensor32(&again);
    }
    for f in &twice {
        check_against_drawing([f, f], "a frame met twice");
        assert!(kept(f), "a frame met twice was not kept");
        assert!(kept(&again), "the frame met again and again was pushed out by a frame met twice");
        check_against_drawing([&again], "the frame met again");
    }
}

/// The memo's key tells apart frames that draw differently, down to a coordinate's sign of zero and
/// one colour byte, and ignores text (which the rasterizer skips).
#[test]
fn memo_key_is_exact() {
    let base = |x: f32, c: Rgb| {
        let mut f = Frame::blank();
        f.push(display::arrow(x, 10.0, 30.0, 10.0, c, 2.0, 0.3));
        f
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    frame_key(&base(0.0, palette::RED), &mut a, &mut Vec::new());
    frame_key(&base(-0.0, palette::RED), &mut b, &mut Vec::new());
    assert_ne!(a, b);
    frame_key(&base(0.0, Rgb(0xee, 0x1d, 0x24)), &mut b, &mut Vec::new());
    assert_ne!(a, b);
    let mut t = base(0.0, palette::RED);
    t.push(display::text(5.0, 5.0, 8.0, "hello", palette::BLACK));
    frame_key(&t, &mut b, &mut Vec::new());
    assert_eq!(a, b);
    // a frame whose slot another frame took (each is met twice, so each is kept) is drawn again,
    // correctly, and a hot copy of a slot's earlier frame is not taken for the frame in it now
    let frames: Vec<Frame> = (0..(2 * MEMO_SLOTS)).map(|x| base(x as f32 / 64.0, palette::RED)).collect();
    for round in 0..2 {
        for f in &frames {
            check_against_drawing([f, f], if round == 0 { "a frame kept" } else { "a frame pushed out, met again" });
        }
    }
}

fn draw_exact(f: &Frame) -> Image96 {
    EXACT.with(|e| e.set(true));
    let img = draw96(f);
    EXACT.with(|e| e.set(false));
    img
}

#[test]
fn span_renderer_equals_per_pixel_definition() {
    let mut rng = crate::rng::Rng::from_u64(77);
    // tenths (mostly not multiples of 1/8: the span path) and eighths (the sprite path)
    let coord = |r: &mut crate::rng::Rng, eighths: bool| {
        if eighths { r.randint(-160, 920) as f32 / 8.0 } else { r.randint(-200, 1150) as f32 / 10.0 }
    };
    for i in 0..800 {
        let mut f = Frame::blank();
        let e = i % 2 == 1;
        for _ in 0..6 {
            let (a, b, c, d) = (coord(&mut rng, e), coord(&mut rng, e), coord(&mut rng, e), coord(&mut rng, e));
            let (x0, x1, y0, y1) = (a.min(c), a.max(c), b.min(d), b.max(d));
            let w = rng.randint(1, 4) as f32;
            let fill = if rng.coin() { Some(palette::RED) } else { None };
            let outline = if rng.coin() { Some(palette::BLACK) } else { None };
            f.push(match rng.below(5) {
                0 => display::rect(x0, y0, x1, y1, fill, outline, w),
                1 => display::round_rect(x0, y0, x1, y1, rng.randint(0, 6) as f32, fill, outline, w),
                2 => display::ellipse(x0, y0, x1, y1, fill, outline, w),
                3 => display::line(a, b, c, d, palette::GREEN, w),
                _ => display::arrow(a, b, c, d, palette::ARROW, w, 0.4),
            });
        }
        let img = draw96(&f);
        assert_eq!(img.px, draw_exact(&f).px, "{f:?}");
        let (mut a, mut b) = (vec![0.0; TENSOR_LEN], vec![0.0; TENSOR_LEN]);
        downsample(&img, &mut a);
        downsample_full(&img, &mut b);
        assert_eq!(a, b, "dirty-region downsample differs");
    }
}

#[test]
fn pillow_rectangles_include_both_ends() {
    let mut f = Frame::blank();
    f.push(display::rect(10.0, 20.0, 19.0, 29.0, Some(palette::RED), None, 1.0));
    let img = draw96(&f);
    let reds = (0..BIG * BIG).filter(|i| img.get(i % BIG, i / BIG) == palette::RED).count();
    assert_eq!(reds, 100);
    assert_eq!(img.get(10, 20), palette::RED);
    assert_eq!(img.get(19, 29), palette::RED);
    assert_eq!(img.get(20, 29), palette::GRAY);
}

#[test]
fn outline_is_inside_the_box() {
    let mut f = Frame::blank();
    f.push(display::rect(10.0, 10.0, 19.0, 19.0, Some(palette::WHITE), Some(palette::BLACK), 2.0));
    let img = draw96(&f);
    assert_eq!(img.get(10, 15), palette::BLACK);
    assert_eq!(img.get(11, 15), palette::BLACK);
    assert_eq!(img.get(12, 15), palette::WHITE);
    assert_eq!(img.get(9, 15), palette::GRAY);
}

#[test]
fn width3_horizontal_line_covers_three_rows() {
    let mut f = Frame::blank();
    f.push(display::line(10.0, 50.0, 20.0, 50.0, palette::BLACK, 3.0));
    let img = draw96(&f);
    for y in 49..=51 {
        for x in 10..=20 {
            assert_eq!(img.get(x, y), palette::BLACK, "({x},{y})");
        }
    }
    assert_eq!(img.get(15, 48), palette::GRAY);
    assert_eq!(img.get(21, 50), palette::GRAY);
}

#[test]
fn uniform_frame_downsamples_to_its_colour() {
    let t = tensor32(&Frame::blank());
    assert!(t.iter().all(|&v| (v - 214.0 / 255.0).abs() < 1e-6));
    let t = tensor32(&Frame::padding());
    assert!(t.iter().all(|&v| v == 0.0));
}

#[test]
fn downsample_weights_sum_to_one_and_average_blocks() {
    // a white 3x3 block aligned to output pixel (5,5) on black spreads symmetrically
    let mut f = Frame::padding();
    f.push(display::rect(15.0, 15.0, 17.0, 17.0, Some(palette::WHITE), None, 1.0));
    let t = tensor32(&f);
    let at = |x: usize, y: usize| t[y * SMALL + x];
    assert!(at(5, 5) > 0.4);
    assert!((at(4, 5) - at(6, 5)).abs() < 1e-6);
    assert!((at(5, 4) - at(5, 6)).abs() < 1e-6);
    assert_eq!(at(8, 8), 0.0);
}
