//! Charts as data: what to draw, not how. Builders in the core (and in `wmlab-llm`) fill these from
//! results and published numbers — [`crate::papers::published_chart`], [`crate::analysis::record_charts`],
//! [`crate::compare::Panel::chart`], [`crate::analysis::figures`], `wmlab_llm::charts` — and the app's
//! chart module draws them on a canvas (a line/point chart with its legend outside the plot area, a heat
//! map, a grid of histograms). Native tests read the specs; the app only turns them into pixels.

use serde::Serialize;

/// An sRGB colour.
pub type Rgb = (u8, u8, u8);

/// The series colours of every chart in the app, in order.
pub const PALETTE: [Rgb; 8] = [
    (0x1f, 0x77, 0xb4),
    (0xd6, 0x27, 0x28),
    (0x2c, 0xa0, 0x2c),
    (0xff, 0x7f, 0x0e),
    (0x94, 0x67, 0xbd),
    (0x8c, 0x56, 0x4b),
    (0xe3, 0x77, 0xc2),
    (0x17, 0xbe, 0xcf),
];
/// Chance lines and models.
pub const GREY: Rgb = (0x99, 0x99, 0x99);
/// The published human numbers.
pub const INK: Rgb = (0x22, 0x22, 0x22);

/// The `i`-th palette colour (wrapping).
pub fn palette(i: usize) -> Rgb {
    PALETTE[i % PALETTE.len()]
}

/// `#rrggbb`, for swatches beside a chart.
pub fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// What a series is to the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user's own result (thick line, filled markers).
    Subject,
    /// Published numbers or a secondary line (thin line, hollow markers).
    Reference,
    /// The chance level or model (dashed, grey unless coloured).
    Chance,
}

/// A marker shape; one per curve label where a chart tells curves apart by shape (the Compare page).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Marker {
    /// A circle (`●` in keys).
    Circle,
    /// A triangle pointing up (`▲`).
    Triangle,
    /// A square (`■`).
    Square,
    /// A diagonal cross of two strokes (`✕`).
    Cross,
    /// A diamond: a square stood on its corner (`◆`).
    Diamond,
    /// A triangle pointing down (`▼`).
    TriangleDown,
    /// An upright cross of two strokes (`+`).
    Plus,
    /// A pentagon (`⬟`).
    Pentagon,
}

impl Marker {
    /// Every shape, in the order [`Marker::nth`] hands them out.
    pub const ALL: [Marker; 8] = [
        Marker::Circle,
        Marker::Triangle,
        Marker::Square,
        Marker::Cross,
        Marker::Diamond,
        Marker::TriangleDown,
        Marker::Plus,
        Marker::Pentagon,
    ];
    /// The `i`-th shape (wrapping).
    pub fn nth(i: usize) -> Marker {
        Marker::ALL[i % Marker::ALL.len()]
    }
    /// The shape as a character, for keys written under a chart.
    pub fn glyph(self) -> char {
        match self {
            Marker::Circle => '●',
            Marker::Triangle => '▲',
            Marker::Square => '■',
            Marker::Cross => '✕',
            Marker::Diamond => '◆',
            Marker::TriangleDown => '▼',
            Marker::Plus => '+',
            Marker::Pentagon => '⬟',
        }
    }
}

/// One line of points.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// The series' name in the legend.
    pub name: String,
    /// What the series is to the reader; sets its line weight and marker fill.
    pub role: Role,
    /// The points as (x, y) in data units (with the chart's `categories`, x is a category's index);
    /// non-finite points are not drawn.
    pub points: Vec<(f64, f64)>,
    /// Error bars: (x, low, high).
    pub bars: Vec<(f64, f64, f64)>,
    /// `None`: the palette colour of the series' index (grey for chance).
    pub colour: Option<Rgb>,
    /// The shape drawn at each point.
    pub marker: Marker,
    /// Whether the legend names this series (several curves of one subject share one entry).
    pub legend: bool,
    /// Whether points are joined (false: a scatter).
    pub line: bool,
    /// Per point, the observations behind it (empty: not known, e.g. published numbers); a point under
    /// the chart's `min_n` is drawn faint.
    pub n: Vec<u32>,
}

impl Series {
    /// A joined series with circles, named in the legend, coloured by its index.
    pub fn new(name: impl Into<String>, role: Role, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            role,
            points,
            bars: vec![],
            colour: None,
            marker: Marker::Circle,
            legend: true,
            line: true,
            n: Vec::new(),
        }
    }
    /// A subject's curve: its points, each point's interval (`ci[i]`, `None`: no bar) as error bars, and
    /// the observations behind each point (`n`, empty where unknown).
    pub fn with_intervals(
        name: impl Into<String>,
        role: Role,
        points: Vec<(f64, f64)>,
        ci: &[Option<(f64, f64)>],
        n: &[u32],
    ) -> Self {
        let bars = points.iter().zip(ci).filter_map(|(&(x, _), ci)| ci.map(|(lo, hi)| (x, lo, hi))).collect();
        Series { n: n.to_vec(), ..Series::new(name, role, points).bars(bars) }
    }
    /// Whether point `i` rests on fewer than `min_n` observations (never, where counts are unknown).
    pub fn thin(&self, i: usize, min_n: u32) -> bool {
        self.n.get(i).is_some_and(|&n| n < min_n)
    }
    /// Drawn in `c` instead of its index's palette colour.
    pub fn colour(mut self, c: Rgb) -> Self {
        self.colour = Some(c);
        self
    }
    /// Drawn with the shape `m`.
    pub fn marker(mut self, m: Marker) -> Self {
        self.marker = m;
        self
    }
    /// With these error bars, each (x, low, high), replacing any it had.
    pub fn bars(mut self, bars: Vec<(f64, f64, f64)>) -> Self {
        self.bars = bars;
        self
    }
    /// Symmetric error bars: `half[i]` either side of `points[i]`.
    pub fn err(self, half: &[f64]) -> Self {
        let bars = self.points.iter().zip(half).map(|(&(x, y), &h)| (x, y - h, y + h)).collect();
        self.bars(bars)
    }
    /// Not named in the legend.
    pub fn unlabelled(mut self) -> Self {
        self.legend = false;
        self
    }
    /// Points only, not joined.
    pub fn scatter(mut self) -> Self {
        self.line = false;
        self
    }
    /// The points that can be drawn (both coordinates finite).
    pub fn finite_points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite())
    }
    /// The colour it is drawn in, as the `k`-th series of its chart.
    pub fn colour_at(&self, k: usize) -> Rgb {
        match (self.colour, self.role) {
            (Some(c), _) => c,
            (None, Role::Chance) => GREY,
            (None, _) => palette(k),
        }
    }
}

/// A chart of lines or points: axes, and the series on them. With `categories`, x is the index of a
/// category (0, 1, …), the series stand side by side at each category, unjoined, and the axis numbers
/// the categories (a key under the chart names them).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Chart {
    /// The heading drawn above the plot.
    pub title: String,
    /// The caption of the x axis (may be empty).
    pub x_label: String,
    /// The caption of the y axis (may be empty).
    pub y_label: String,
    /// The names of the categories x indexes, in order; empty for a numeric x axis.
    pub categories: Vec<String>,
    /// The y range to show (`None`: from the data).
    pub y_range: Option<(f64, f64)>,
    /// The series, drawn in order; a series' index picks its palette colour ([`Series::colour_at`]).
    pub series: Vec<Series>,
    /// Points on fewer observations than this are drawn faint, and the legend says so (0: none).
    pub min_n: u32,
}

impl Chart {
    /// An empty chart with this title and axis captions: no series, no categories, y range from the data.
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> Self {
        Chart { title: title.into(), x_label: x_label.into(), y_label: y_label.into(), ..Default::default() }
    }

    /// The x and y ranges that hold every finite point and error bar (y: `y_range` where it is set);
    /// a range of one value is widened by 1 either way, no data gives 0–1.
    pub fn bounds(&self) -> ((f64, f64), (f64, f64)) {
        let mut x = (f64::INFINITY, f64::NEG_INFINITY);
        let mut y = (f64::INFINITY, f64::NEG_INFINITY);
        for s in &self.series {
            for (px, py) in s.finite_points() {
                x = (x.0.min(px), x.1.max(px));
                y = (y.0.min(py), y.1.max(py));
            }
            for &(bx, lo, hi) in s.bars.iter().filter(|b| b.0.is_finite() && b.1.is_finite() && b.2.is_finite()) {
                x = (x.0.min(bx), x.1.max(bx));
                y = (y.0.min(lo), y.1.max(hi));
            }
        }
        if let Some(r) = self.y_range {
            y = r;
        }
        let settle = |r: (f64, f64)| {
            if !r.0.is_finite() || !r.1.is_finite() {
                (0.0, 1.0)
            } else if r.1 - r.0 < 1e-9 {
                (r.0 - 1.0, r.1 + 1.0)
            } else {
                r
            }
        };
        (settle(x), settle(y))
    }

    /// Whether every x is a whole number (the axis then labels whole numbers only).
    pub fn whole_x(&self) -> bool {
        self.series.iter().flat_map(|s| s.finite_points()).all(|(x, _)| (x - x.round()).abs() < 1e-9)
    }

    /// How many drawable points rest on fewer than `min_n` observations.
    pub fn thin_points(&self) -> usize {
        self.series.iter().map(|s| self.thin_flags(s).into_iter().filter(|&t| t).count()).sum()
    }

    /// Per drawable point of `s` (both coordinates finite, in order): whether it is drawn faint.
    pub fn thin_flags(&self, s: &Series) -> Vec<bool> {
        s.points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.0.is_finite() && p.1.is_finite())
            .map(|(i, _)| s.thin(i, self.min_n))
            .collect()
    }

    /// Whether the error bar of `s` at `x` is drawn faint: its point's is.
    pub fn thin_bar(&self, s: &Series, x: f64) -> bool {
        s.points.iter().position(|p| p.0 == x).is_some_and(|i| s.thin(i, self.min_n))
    }

    /// The legend's line for faint points, where the chart has any.
    pub fn thin_note(&self) -> Option<String> {
        (self.thin_points() > 0).then(|| format!("faint: n < {}", self.min_n))
    }

    /// The legend's width on a chart `w` pixels wide: as wide as its longest name needs (about 6.2 px a
    /// character at 11 px, plus the key), within 30–45 % of the width (at most 240 px unless a name
    /// needs more), so names are cut only on narrow charts.
    pub fn legend_width(&self, w: f64) -> f64 {
        let longest = self.series.iter().filter(|s| s.legend).map(|s| s.name.chars().count()).max().unwrap_or(0);
        let needed = longest as f64 * 6.2 + 40.0;
        (w * 0.3).min(240.0).max(needed.min(w * 0.45))
    }

    /// The legend's text under a plot `w` pixels wide (the layout of narrow screens, below
    /// [`LEGEND_BELOW`]): each drawn entry's lines at the full width, the faint-point note last.
    pub fn legend_below(&self, w: f64) -> Vec<Vec<String>> {
        let max_chars = (((w - 44.0) / 6.2).max(8.0)) as usize;
        let mut lines: Vec<Vec<String>> = self
            .series
            .iter()
            .filter(|s| s.legend && s.finite_points().next().is_some())
            .map(|s| legend_lines(&s.name, max_chars))
            .collect();
        lines.extend(self.thin_note().map(|n| vec![n]));
        lines
    }

    /// The series the legend names and that have something to draw: what a reader counts.
    pub fn legend_entries(&self) -> usize {
        self.series.iter().filter(|s| s.legend && s.finite_points().next().is_some()).count()
    }
}

/// Charts drawn narrower than this (CSS pixels) put their legend under the plot, across its width,
/// instead of beside it: on a phone a legend beside the plot leaves the names a few characters each.
pub const LEGEND_BELOW: f64 = 560.0;

/// A legend entry's text in lines of at most `max_chars` characters: the name whole where it fits, else
/// split before its last ` · ` part (the n, a remark) onto a second line, each line cut with `…` only if
/// it is still too long.
pub fn legend_lines(name: &str, max_chars: usize) -> Vec<String> {
    let cut = |s: &str| {
        if s.chars().count() > max_chars {
            s.chars().take(max_chars.saturating_sub(1)).chain(['…']).collect()
        } else {
            s.to_string()
        }
    };
    match name.rsplit_once(" · ") {
        _ if name.chars().count() <= max_chars => vec![name.to_string()],
        Some((head, tail)) => vec![cut(head), cut(tail)],
        None => vec![cut(name)],
    }
}

/// A legend's count of observations behind a series' points: ` · n 12` or ` · n 4–12` (empty when
/// none are known).
pub fn n_span(n: impl IntoIterator<Item = u32>) -> String {
    let (lo, hi) = n.into_iter().fold((u32::MAX, 0), |(lo, hi), k| (lo.min(k), hi.max(k)));
    match (lo, hi) {
        (u32::MAX, _) => String::new(),
        (lo, hi) if lo == hi => format!(" · n {lo}"),
        (lo, hi) => format!(" · n {lo}–{hi}"),
    }
}

/// How a heat map's values become colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// 0 white → `full` dark blue.
    Sequential,
    /// −`full` blue → 0 white → `full` red.
    Diverging,
}

/// A matrix drawn as coloured cells (grey where a value is missing).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Heatmap {
    /// The heading drawn above the map.
    pub title: String,
    /// Row names, one per row of `cells`.
    pub rows: Vec<String>,
    /// Column names (drawn rotated below), or none.
    pub cols: Vec<String>,
    /// The values, `cells[row][column]`; `None` is drawn grey.
    pub cells: Vec<Vec<Option<f64>>>,
    /// How values become colours.
    pub scale: Scale,
    /// The value drawn at full colour (and its negative, on a diverging scale).
    pub full: f64,
    /// Square cells (a matrix of one set against itself).
    pub square: bool,
    /// Write each cell's value in it.
    pub values: bool,
    /// A strip of palette colours under the columns (e.g. each unit's cluster), with its caption.
    pub strip: Option<(Vec<usize>, String)>,
    /// A label along both axes (e.g. "serial position").
    pub axis_label: String,
}

impl Heatmap {
    /// A cell's colour: white at 0, the scale's end colour at `full` (clamped beyond).
    pub fn colour(&self, v: f64) -> Rgb {
        let t = if self.full > 0.0 { v / self.full } else { 0.0 };
        let lerp = |a: Rgb, b: Rgb, t: f64| {
            let t = t.clamp(0.0, 1.0);
            let m = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t).round() as u8;
            (m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
        };
        const WHITE: Rgb = (0xff, 0xff, 0xff);
        match self.scale {
            Scale::Sequential => lerp(WHITE, (0x08, 0x30, 0x6b), t),
            Scale::Diverging if t >= 0.0 => lerp(WHITE, (0xb2, 0x18, 0x2b), t),
            Scale::Diverging => lerp(WHITE, (0x21, 0x66, 0xac), -t),
        }
    }
}

/// A square grid of small histograms: cell (row a, column b) shows `cells[a][b]` (counts over equal
/// bins), none on the diagonal or where missing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistGrid {
    /// The heading drawn above the grid.
    pub title: String,
    /// The names of the rows, which are also the columns' names, in the same order.
    pub names: Vec<String>,
    /// `cells[a][b]`: the histogram of cell (row a, column b) as counts per bin, lowest bin first;
    /// `None` on the diagonal and where there is nothing to show.
    pub cells: Vec<Vec<Option<Vec<u32>>>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_hold_points_and_bars_and_ignore_non_finite() {
        let mut c = Chart::new("t", "x", "y");
        c.series.push(
            Series::new("a", Role::Subject, vec![(1.0, 0.5), (3.0, f64::NAN), (2.0, 0.7)]).bars(vec![(2.0, 0.2, 0.9)]),
        );
        assert_eq!(c.bounds(), ((1.0, 2.0), (0.2, 0.9)));
        c.y_range = Some((0.0, 1.0));
        assert_eq!(c.bounds().1, (0.0, 1.0));
        assert_eq!(Chart::new("e", "", "").bounds(), ((0.0, 1.0), (0.0, 1.0)));
        let one = Chart { series: vec![Series::new("p", Role::Subject, vec![(4.0, 0.5)])], ..Chart::new("", "", "") };
        assert_eq!(one.bounds(), ((3.0, 5.0), (-0.5, 1.5)));
    }

    #[test]
    fn legend_counts_named_series_with_points_and_colours_follow_roles() {
        let mut c = Chart::new("t", "x", "y");
        c.series.push(Series::new("a", Role::Subject, vec![(1.0, 0.5)]));
        c.series.push(Series::new("a, second curve", Role::Subject, vec![(1.0, 0.6)]).unlabelled());
        c.series.push(Series::new("empty", Role::Reference, vec![(1.0, f64::NAN)]));
        c.series.push(Series::new("chance", Role::Chance, vec![(1.0, 0.5)]));
        assert_eq!(c.legend_entries(), 2);
        assert_eq!(c.series[0].colour_at(0), PALETTE[0]);
        assert_eq!(c.series[3].colour_at(3), GREY);
        assert_eq!(c.series[3].clone().colour(INK).colour_at(3), INK);
        assert!(c.whole_x());
        assert_eq!(Series::new("e", Role::Subject, vec![(1.0, 0.5)]).err(&[0.1]).bars, vec![(1.0, 0.4, 0.6)]);
        assert_eq!(hex(PALETTE[0]), "#1f77b4");
        assert_eq!(Marker::nth(9), Marker::Triangle);
    }

    #[test]
    fn a_curve_brings_its_intervals_and_counts_and_thin_points_are_named() {
        let s = Series::with_intervals(
            "me",
            Role::Subject,
            vec![(1.0, 0.9), (2.0, 0.5)],
            &[Some((0.7, 0.97)), None],
            &[20, 4],
        );
        assert_eq!(s.bars, vec![(1.0, 0.7, 0.97)], "a point without an interval has no bar");
        assert!(!s.thin(0, 10) && s.thin(1, 10) && !s.thin(1, 0) && !s.thin(5, 10));
        let mut c = Chart::new("t", "x", "y");
        c.series.push(s);
        assert_eq!((c.thin_points(), c.thin_note()), (0, None), "min_n 0 draws nothing faint");
        c.min_n = 10;
        assert_eq!((c.thin_points(), c.thin_note().as_deref()), (1, Some("faint: n < 10")));
        assert_eq!((n_span([4, 20]), n_span([7, 7]), n_span([])), (" · n 4–20".into(), " · n 7".into(), String::new()));
        assert_eq!(legend_lines("me · n 4", 20), ["me · n 4"]);
        assert_eq!(legend_lines("vision-fake (openai) (llm) · n 1", 28), ["vision-fake (openai) (llm)", "n 1"]);
        assert_eq!(legend_lines("a-very-long-model-name · n 12", 10), ["a-very-lo…", "n 12"]);
        assert_eq!(legend_lines("abcdefghijkl", 5), ["abcd…"]);
        // Under the plot on a phone: the drawn entries at the full width, the faint note last; a series
        // with nothing finite to draw is not named.
        let long = "vision-fake-long-name (openai) (llm) · n 4–12";
        c.series.push(Series::new(long, Role::Subject, vec![(1.0, 0.5)]));
        c.series.push(Series::new("empty", Role::Subject, vec![(1.0, f64::NAN)]));
        let below = c.legend_below(370.0);
        assert_eq!(below.len(), 3, "{below:?}");
        assert_eq!(below[1], [long], "a 370 px row holds {} characters", long.chars().count());
        assert_eq!(below[2], ["faint: n < 10"]);
        assert_eq!(c.legend_below(200.0)[1].len(), 2, "narrower: the n moves to a second line");
    }
}
