//! A chart as data: what to draw, not how. Builders in the core fill it from results and published
//! numbers (e.g. [`crate::papers::published_chart`]); the app's one chart component draws it on a canvas
//! (the legend outside the plot area, so it never hides a point), and tests read it natively.

use serde::Serialize;

/// What a series is to the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user's own result (drawn strongest).
    Subject,
    /// Published numbers (thin lines, hollow markers).
    Reference,
    /// The chance level or model (dashed).
    Chance,
}

/// One line of points; `err[i]` is the half-width of the error bar at `points[i]` (same length, or empty).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    pub name: String,
    pub role: Role,
    pub points: Vec<(f64, f64)>,
    pub err: Vec<f64>,
}

/// A chart: axes, and the series on them. With `categories`, x is the index of a category
/// (0, 1, …) and the axis is labelled with the names.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    /// The y range to show (`None`: from the data, with 0 and 1 included for rates).
    pub y_range: Option<(f64, f64)>,
    pub series: Vec<Series>,
}

impl Chart {
    /// The x and y ranges that hold every point and error bar (and `y_range` where it is set).
    pub fn bounds(&self) -> ((f64, f64), (f64, f64)) {
        let mut x = (f64::INFINITY, f64::NEG_INFINITY);
        let mut y = self.y_range.unwrap_or((f64::INFINITY, f64::NEG_INFINITY));
        for s in &self.series {
            for (i, &(px, py)) in s.points.iter().enumerate() {
                let e = s.err.get(i).copied().unwrap_or(0.0);
                x = (x.0.min(px), x.1.max(px));
                if self.y_range.is_none() {
                    y = (y.0.min(py - e), y.1.max(py + e));
                }
            }
        }
        if !x.0.is_finite() {
            x = (0.0, 1.0);
        }
        if !y.0.is_finite() {
            y = (0.0, 1.0);
        }
        if x.1 - x.0 < 1e-9 {
            x = (x.0 - 1.0, x.1 + 1.0);
        }
        if y.1 - y.0 < 1e-9 {
            y = (y.0 - 1.0, y.1 + 1.0);
        }
        (x, y)
    }
}
