//! The raster's one test seam. Every shortcut (spans, sprites, the memo, tiles, the incremental
//! resampler) must give the bytes of plain drawing; the tests switch plain drawing on here
//! ([`exact`]) and count which shortcuts were taken ([`count`]). Outside tests both are constants the
//! compiler removes.

/// A shortcut a test checks was taken.
#[derive(Clone, Copy)]
pub(super) enum Counter {
    /// A frame composed from kept tiles.
    Composed,
    /// A frame copied from the last one left out of the memo.
    Recent,
    /// A row of values copied from the frame before.
    RowsCopied,
}

/// Whether every fill tests every pixel (the definition the span renderer must equal).
#[cfg(test)]
pub(super) fn exact() -> bool {
    super::tests::EXACT.with(|e| e.get())
}

#[cfg(not(test))]
#[inline(always)]
pub(super) fn exact() -> bool {
    false
}

/// Count a shortcut taken.
#[cfg(test)]
pub(super) fn count(c: Counter) {
    use super::tests::{COMPOSED, RECENT, ROWS_COPIED};
    let cell = match c {
        Counter::Composed => &COMPOSED,
        Counter::Recent => &RECENT,
        Counter::RowsCopied => &ROWS_COPIED,
    };
    cell.with(|n| n.set(n.get() + 1));
}

#[cfg(not(test))]
#[inline(always)]
pub(super) fn count(_: Counter) {}
