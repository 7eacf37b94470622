//! The virtual chinrest (Li, Joo, Yeatman & Reinecke 2020, Sci. Rep. 10:904): how large a CSS pixel is
//! on the participant's screen and how far they sit from it, so that stimuli can be drawn, and
//! reported, in degrees of visual angle.
//!
//! Two measurements, each repeated so that the record can give an interval:
//! - **card**: the participant resizes a picture of a card until it matches a real bank or ID card
//!   held to the screen (ISO/IEC 7810 ID-1, [`CARD_WIDTH_MM`] wide): CSS px per mm = width / 85.6.
//! - **blind spot**: with the right eye covered, the participant fixates a square with the left eye
//!   while a ball moves left from it, and presses a key when the ball disappears. The blind spot sits
//!   [`BLIND_SPOT_DEG`] from fixation, so the distance is (ball offset in mm) / tan(13.5°).
//!
//! [`Chinrest`] is the procedure as a state machine the page drives with the participant's answers
//! (no clock: the ball's position is [`Chinrest::ball_offset`] of the elapsed ms the page passes in).
//! [`Calibration`] is its result: px/mm and distance with 95 % intervals, degrees of a stimulus, and
//! the stimulus side for a wanted angle, checked against the window ([`stimulus_side`]).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::record::Setting;

/// The width of an ID-1 card (bank cards, most ID cards; ISO/IEC 7810), mm.
pub const CARD_WIDTH_MM: f64 = 85.60;
/// The height of an ID-1 card, mm.
pub const CARD_HEIGHT_MM: f64 = 53.98;
/// The angle between fixation and the centre of the blind spot (Li et al. 2020), degrees.
pub const BLIND_SPOT_DEG: f64 = 13.5;
/// Card matches asked for.
pub const CARD_REPS: usize = 3;
/// Blind-spot runs asked for (the procedure's default in jsPsych's plugin).
pub const BLIND_REPS: usize = 5;
/// The card picture's width range on the slider, CSS px.
pub const CARD_PX_RANGE: (f64, f64) = (120.0, 900.0);
/// The ball's start, right of the square's centre → left of it, in mm on the screen.
pub const BALL_START_MM: f64 = 20.0;
/// The ball's speed, mm on the screen per second.
pub const BALL_SPEED_MM_S: f64 = 30.0;
/// Distances outside this range (mm) are not believed: the run is repeated.
pub const DISTANCE_RANGE_MM: (f64, f64) = (150.0, 2000.0);
/// What a study page keeps around the stimulus: CSS px of the window's width and height not available
/// to the stimulus square (margins, the progress line, the answer buttons).
pub const STAGE_MARGIN: (f64, f64) = (32.0, 190.0);
/// Without a visual angle, the stimulus side (CSS px) is as large as the window allows, within this.
pub const AUTO_SIDE_RANGE: (f64, f64) = (220.0, 680.0);

/// Two-sided 95 % Student t quantiles for 1–20 degrees of freedom.
const T975: [f64; 20] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086,
];

/// Mean and 95 % t interval of `xs` (a single value: an interval of zero width).
fn mean_interval(xs: &[f64]) -> (f64, (f64, f64)) {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n.max(1) as f64;
    if n < 2 {
        return (mean, (mean, mean));
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = T975.get(n - 2).copied().unwrap_or(1.96);
    let half = t * (var / n as f64).sqrt();
    (mean, (mean - half, mean + half))
}

/// Where the procedure stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChinrestStep {
    /// Match the card (0-based repetition).
    Card(usize),
    /// Find the blind spot (0-based repetition).
    BlindSpot(usize),
    /// Both measured.
    Done,
}

/// Why an answer was not taken (the participant is told, and does that part again).
#[derive(Clone, Debug, PartialEq)]
pub enum ChinrestRetry {
    /// A card width outside the slider's range (or not a number).
    CardOutOfRange,
    /// The ball's position at the key press implies a distance nobody sits at.
    Implausible {
        /// The distance it implies, mm.
        distance_mm: f64,
    },
    /// The ball reached the edge of the window without a key press.
    NoPress,
}

impl fmt::Display for ChinrestRetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChinrestRetry::CardOutOfRange => {
                f.write_str("That size is outside the slider's range; please match the card again.")
            }
            ChinrestRetry::Implausible { distance_mm } if *distance_mm < DISTANCE_RANGE_MM.0 => write!(
                f,
                "That press came very early (it would mean you sit {:.0} cm from the screen). Keep your eye on the \
                 square and press only when the red ball disappears. Let's try that one again.",
                distance_mm / 10.0
            ),
            ChinrestRetry::Implausible { distance_mm } => write!(
                f,
                "That press came very late (it would mean you sit {:.0} cm from the screen). Press as soon as the \
                 red ball disappears. Let's try that one again.",
                distance_mm / 10.0
            ),
            ChinrestRetry::NoPress => f.write_str(
                "The ball reached the edge. Cover your right eye, look only at the square, and press the space \
                 bar as soon as the red ball disappears. Let's try that one again.",
            ),
        }
    }
}

/// The procedure: card matches, then blind-spot runs; what was answered so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chinrest {
    /// The card widths the participant matched, CSS px.
    pub card_px: Vec<f64>,
    /// The ball's offset from the square's centre when the participant pressed, CSS px.
    pub ball_px: Vec<f64>,
}

impl Chinrest {
    /// The next thing to ask.
    pub fn step(&self) -> ChinrestStep {
        if self.card_px.len() < CARD_REPS {
            ChinrestStep::Card(self.card_px.len())
        } else if self.ball_px.len() < BLIND_REPS {
            ChinrestStep::BlindSpot(self.ball_px.len())
        } else {
            ChinrestStep::Done
        }
    }

    /// Where the card picture's slider starts for repetition `rep`: each repetition starts elsewhere
    /// (alternately too small and too large), so the matches do not copy one another.
    pub fn card_start(rep: usize) -> f64 {
        [200.0, 560.0, 260.0, 480.0][rep % 4]
    }

    /// CSS px per mm from the card matches so far (`None` before the first).
    pub fn px_per_mm(&self) -> Option<f64> {
        (!self.card_px.is_empty()).then(|| mean_interval(&self.card_px).0 / CARD_WIDTH_MM)
    }

    /// The participant says the picture (`width_css_px` wide) matches the card.
    pub fn card(&mut self, width_css_px: f64) -> Result<(), ChinrestRetry> {
        let (lo, hi) = CARD_PX_RANGE;
        if !matches!(self.step(), ChinrestStep::Card(_)) || !(lo..=hi).contains(&width_css_px) {
            return Err(ChinrestRetry::CardOutOfRange);
        }
        self.card_px.push(width_css_px);
        Ok(())
    }

    /// The ball's offset left of the square's centre (CSS px) `elapsed_ms` after it set off.
    pub fn ball_offset(&self, elapsed_ms: f64) -> f64 {
        let ppm = self.px_per_mm().unwrap_or(96.0 / 25.4);
        (BALL_START_MM + BALL_SPEED_MM_S * elapsed_ms.max(0.0) / 1000.0) * ppm
    }

    /// The participant pressed when the ball was `offset_css_px` left of the square's centre.
    pub fn press(&mut self, offset_css_px: f64) -> Result<(), ChinrestRetry> {
        let Some(ppm) = self.px_per_mm().filter(|_| matches!(self.step(), ChinrestStep::BlindSpot(_))) else {
            return Err(ChinrestRetry::NoPress);
        };
        let distance_mm = distance_mm(offset_css_px, ppm);
        if !(DISTANCE_RANGE_MM.0..=DISTANCE_RANGE_MM.1).contains(&distance_mm) {
            return Err(ChinrestRetry::Implausible { distance_mm });
        }
        self.ball_px.push(offset_css_px);
        Ok(())
    }

    /// The result, once both parts are done.
    pub fn calibration(&self) -> Option<Calibration> {
        if self.step() != ChinrestStep::Done {
            return None;
        }
        let (px_per_mm, px_per_mm_ci) = mean_interval(&self.card_px);
        let (px_per_mm, px_per_mm_ci) =
            (px_per_mm / CARD_WIDTH_MM, (px_per_mm_ci.0 / CARD_WIDTH_MM, px_per_mm_ci.1 / CARD_WIDTH_MM));
        let d: Vec<f64> = self.ball_px.iter().map(|&o| distance_mm(o, px_per_mm)).collect();
        let (distance_mm, distance_ci_mm) = mean_interval(&d);
        Some(Calibration {
            px_per_mm,
            px_per_mm_ci,
            distance_mm,
            distance_ci_mm,
            card_px: self.card_px.clone(),
            ball_px: self.ball_px.clone(),
        })
    }
}

/// The viewing distance (mm) a blind spot `offset_css_px` from fixation implies at `px_per_mm`.
pub fn distance_mm(offset_css_px: f64, px_per_mm: f64) -> f64 {
    offset_css_px / px_per_mm / BLIND_SPOT_DEG.to_radians().tan()
}

/// A participant's calibration: screen scale and viewing distance, each with a 95 % interval over the
/// repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// CSS px per mm on the screen.
    pub px_per_mm: f64,
    /// Its 95 % t interval over the card matches.
    pub px_per_mm_ci: (f64, f64),
    /// The eye's distance from the screen, mm.
    pub distance_mm: f64,
    /// Its 95 % t interval over the blind-spot runs (at the mean px/mm).
    pub distance_ci_mm: (f64, f64),
    /// The card matches, CSS px.
    pub card_px: Vec<f64>,
    /// The blind-spot offsets, CSS px.
    pub ball_px: Vec<f64>,
}

impl Calibration {
    /// Degrees of visual angle a square `side_css_px` wide subtends, centred on the line of sight.
    pub fn degrees(&self, side_css_px: f64) -> f64 {
        2.0 * (side_css_px / self.px_per_mm / 2.0 / self.distance_mm).atan().to_degrees()
    }

    /// Degrees per CSS px at the centre of the screen.
    pub fn deg_per_px(&self) -> f64 {
        self.degrees(1.0)
    }

    /// The side (CSS px) a square must have to subtend `deg` degrees.
    pub fn side_for(&self, deg: f64) -> f64 {
        2.0 * self.distance_mm * (deg / 2.0).to_radians().tan() * self.px_per_mm
    }

    /// What the record keeps: `chinrest_px_per_mm` (and `_lo`, `_hi`), `chinrest_distance_mm` (and
    /// `_lo`, `_hi`), `deg_per_px`, and the answers (`chinrest_card_px`, `chinrest_ball_px`).
    pub fn settings(&self) -> BTreeMap<String, Setting> {
        let r = |v: f64, d: i32| (v * 10f64.powi(d)).round() / 10f64.powi(d);
        let list = |v: &[f64]| v.iter().map(|x| format!("{}", r(*x, 1))).collect::<Vec<_>>().join(",");
        let mut m = BTreeMap::new();
        m.insert("chinrest_px_per_mm".into(), Setting::Num(r(self.px_per_mm, 4)));
        m.insert("chinrest_px_per_mm_lo".into(), Setting::Num(r(self.px_per_mm_ci.0, 4)));
        m.insert("chinrest_px_per_mm_hi".into(), Setting::Num(r(self.px_per_mm_ci.1, 4)));
        m.insert("chinrest_distance_mm".into(), Setting::Num(r(self.distance_mm, 1)));
        m.insert("chinrest_distance_mm_lo".into(), Setting::Num(r(self.distance_ci_mm.0, 1)));
        m.insert("chinrest_distance_mm_hi".into(), Setting::Num(r(self.distance_ci_mm.1, 1)));
        m.insert("deg_per_px".into(), Setting::Num(r(self.deg_per_px(), 6)));
        m.insert("chinrest_card_px".into(), Setting::Text(list(&self.card_px)));
        m.insert("chinrest_ball_px".into(), Setting::Text(list(&self.ball_px)));
        m
    }
}

/// The stimulus cannot be drawn at the wanted angle in this window.
#[derive(Clone, Debug, PartialEq)]
pub struct NoFit {
    /// The wanted angle, degrees.
    pub deg: f64,
    /// The side it needs, CSS px.
    pub need_px: f64,
    /// The largest side this window allows, CSS px.
    pub have_px: f64,
    /// The measured distance, mm.
    pub distance_mm: f64,
}

impl fmt::Display for NoFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "The pictures must be {:.0} pixels wide here ({} degrees of your view at the {:.0} cm you sit from the \
             screen), but this window leaves room for {:.0}. Please make the window larger (or use full screen), \
             or sit a little further back and measure again, then press “Try again”.",
            self.need_px,
            self.deg,
            self.distance_mm / 10.0,
            self.have_px.max(0.0)
        )
    }
}

/// The stimulus square's side (CSS px) in a window `window` (inner width, height in CSS px): at `deg`
/// degrees of visual angle with a calibration, else as large as the window allows within
/// [`AUTO_SIDE_RANGE`]. A wanted angle the window cannot hold is refused ([`NoFit`]).
pub fn stimulus_side(window: (f64, f64), want: Option<(f64, &Calibration)>) -> Result<f64, NoFit> {
    let room = (window.0 - STAGE_MARGIN.0).min(window.1 - STAGE_MARGIN.1);
    match want {
        None => Ok(room.clamp(AUTO_SIDE_RANGE.0, AUTO_SIDE_RANGE.1).floor()),
        Some((deg, cal)) => {
            let need = cal.side_for(deg).round();
            if need <= room {
                Ok(need)
            } else {
                Err(NoFit { deg, need_px: need, have_px: room.floor(), distance_mm: cal.distance_mm })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A participant whose screen has `ppm` CSS px per mm, sitting `dist` mm away, with small errors.
    fn scripted(ppm: f64, dist: f64) -> Chinrest {
        let mut c = Chinrest::default();
        for e in [-1.0, 2.0, -0.5] {
            assert!(matches!(c.step(), ChinrestStep::Card(_)));
            c.card(CARD_WIDTH_MM * ppm + e).unwrap();
        }
        let off = dist * BLIND_SPOT_DEG.to_radians().tan() * ppm;
        for e in [-6.0, 4.0, 0.0, 9.0, -7.0] {
            assert!(matches!(c.step(), ChinrestStep::BlindSpot(_)));
            c.press(off + e).unwrap();
        }
        c
    }

    #[test]
    fn a_scripted_participant_is_measured_within_its_interval() {
        let c = scripted(3.78, 600.0);
        assert_eq!(c.step(), ChinrestStep::Done);
        let cal = c.calibration().unwrap();
        assert!((cal.px_per_mm - 3.78).abs() < 0.01, "{cal:?}");
        assert!(cal.px_per_mm_ci.0 < 3.78 && 3.78 < cal.px_per_mm_ci.1, "{cal:?}");
        assert!((cal.distance_mm - 600.0).abs() < 5.0, "{cal:?}");
        assert!(cal.distance_ci_mm.0 < 600.0 && 600.0 < cal.distance_ci_mm.1, "{cal:?}");
        // 1 cm at 60 cm is 0.955°; a 10° square is 2·600·tan 5° mm = 105 mm = 397 px.
        assert!((cal.degrees(37.8) - 0.9548).abs() < 0.01, "{}", cal.degrees(37.8));
        assert!((cal.side_for(10.0) - 396.8).abs() < 3.0, "{}", cal.side_for(10.0));
        assert!((cal.degrees(cal.side_for(7.5)) - 7.5).abs() < 1e-9);
        let s = cal.settings();
        assert!(matches!(s["chinrest_distance_mm"], Setting::Num(d) if (d - 600.0).abs() < 5.0));
        assert!(matches!(s["deg_per_px"], Setting::Num(d) if (d - 0.02526).abs() < 0.0005), "{:?}", s["deg_per_px"]);
        assert_eq!(s["chinrest_card_px"], Setting::Text("322.6,325.6,323.1".into()));
    }

    #[test]
    fn implausible_answers_are_asked_again_and_say_why() {
        let mut c = Chinrest::default();
        assert_eq!(c.press(100.0), Err(ChinrestRetry::NoPress), "no blind spot before the card");
        assert_eq!(c.card(50.0), Err(ChinrestRetry::CardOutOfRange));
        assert_eq!(c.card(f64::NAN), Err(ChinrestRetry::CardOutOfRange));
        for _ in 0..CARD_REPS {
            c.card(CARD_WIDTH_MM * 4.0).unwrap();
        }
        assert_eq!(c.card(340.0), Err(ChinrestRetry::CardOutOfRange), "no fourth card");
        // 10 px at 4 px/mm: 10 mm from fixation is 10 cm away — an early press.
        let e = c.press(10.0).unwrap_err();
        assert!(e.to_string().contains("very early"), "{e}");
        assert!(c.press(5000.0).unwrap_err().to_string().contains("very late"));
        assert!(c.press(f64::NAN).is_err());
        assert_eq!(c.ball_px.len(), 0, "refused answers are not kept");
        assert!(ChinrestRetry::NoPress.to_string().contains("reached the edge"));
        // The ball starts 20 mm out and moves 30 mm/s.
        assert!((c.ball_offset(0.0) - 80.0).abs() < 1e-9 && (c.ball_offset(1000.0) - 200.0).abs() < 1e-9);
        assert_ne!(Chinrest::card_start(0), Chinrest::card_start(1));
    }

    #[test]
    fn a_window_that_cannot_hold_the_angle_is_refused_in_words() {
        let cal = scripted(3.78, 600.0).calibration().unwrap();
        assert_eq!(stimulus_side((1366.0, 800.0), None), Ok(610.0));
        assert_eq!(stimulus_side((300.0, 400.0), None), Ok(220.0), "never under the floor without an angle");
        let side = stimulus_side((1366.0, 800.0), Some((10.0, &cal))).unwrap();
        assert!((side - 397.0).abs() <= 3.0, "{side}");
        let e = stimulus_side((500.0, 500.0), Some((10.0, &cal))).unwrap_err();
        assert_eq!(e.have_px, 310.0);
        let text = e.to_string();
        assert!(text.contains("10 degrees") && text.contains("60 cm") && text.contains("room for 310"), "{text}");
    }

    #[test]
    fn intervals_follow_student_t() {
        let (m, (lo, hi)) = mean_interval(&[1.0, 2.0, 3.0]);
        // sd 1, n 3: 2 ± 4.303/√3.
        assert_eq!(m, 2.0);
        assert!((hi - 2.0 - 4.303 / 3f64.sqrt()).abs() < 1e-12 && (2.0 - lo - 4.303 / 3f64.sqrt()).abs() < 1e-12);
        assert_eq!(mean_interval(&[5.0]), (5.0, (5.0, 5.0)));
    }
}
