//! What a participant's display was: the browser, the system, the device class, the screen and the
//! window, the device pixel ratio and the pointers — read once at the start of a session from facts the
//! edge hands over ([`DisplayFacts`]), kept in the session, written into every row of the record — and
//! who may take a study on it (`devices=`, `min_window=`; [`Eligibility`]).
//!
//! Pure: the edge reads `navigator`, `screen`, `matchMedia` and the window; everything with a rule in it
//! (the user-agent parse, the device class, the screen-out reason) is here and natively tested.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::record::Setting;

/// The raw facts the edge reads from the browser at the start of a session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DisplayFacts {
    /// `navigator.userAgent` (kept up to [`MAX_UA_LEN`] characters).
    pub user_agent: String,
    /// `screen.width` × `screen.height`, CSS px.
    pub screen_w: u32,
    /// See `screen_w`.
    pub screen_h: u32,
    /// `innerWidth` × `innerHeight`, CSS px.
    pub window_w: u32,
    /// See `window_w`.
    pub window_h: u32,
    /// `outerWidth`, CSS px (0 where the browser does not say): with `window_w` an estimate of the zoom.
    #[serde(default)]
    pub outer_w: u32,
    /// `devicePixelRatio`.
    pub dpr: f64,
    /// `navigator.maxTouchPoints`.
    pub touch_points: u32,
    /// `matchMedia('(any-pointer: coarse)')`: a finger is among the pointers.
    pub coarse: bool,
    /// `matchMedia('(any-pointer: fine)')`: a mouse, trackpad or pen is among the pointers.
    pub fine: bool,
    /// `matchMedia('(hover: hover)')`: the primary pointer can hover (a mouse).
    pub hover: bool,
    /// `navigator.webdriver`: the browser says it is driven by automation (a bot, or a test).
    #[serde(default)]
    pub webdriver: bool,
}

/// The longest user-agent string kept.
pub const MAX_UA_LEN: usize = 512;

/// The kind of device, from the facts ([`DisplayFacts::device_class`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceClass {
    /// A computer with a mouse or trackpad (or a touch screen beside one).
    Desktop,
    /// A phone (a touch screen under 600 CSS px on its short side, or a mobile user agent).
    Phone,
    /// A tablet (a touch screen without a fine pointer, 600 CSS px or more on its short side; an iPad).
    Tablet,
}

impl DeviceClass {
    /// As written in records and links: `desktop`, `phone`, `tablet`.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceClass::Desktop => "desktop",
            DeviceClass::Phone => "phone",
            DeviceClass::Tablet => "tablet",
        }
    }
    /// Phones and tablets: the devices a finger works.
    pub fn is_touch(self) -> bool {
        !matches!(self, DeviceClass::Desktop)
    }
}

/// The browser and system a user-agent string names (best effort, as analytics tools read it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserAgent {
    /// Chrome, Edge, Firefox, Safari, Opera, Samsung Internet, HeadlessChrome, or `other`.
    pub browser: String,
    /// Its major.minor version where the string gives it (empty otherwise).
    pub version: String,
    /// Windows, macOS, iOS, iPadOS, Android, ChromeOS, Linux, or `other`.
    pub os: String,
}

fn version_after(ua: &str, token: &str) -> Option<String> {
    let at = ua.find(token)? + token.len();
    let v: String = ua[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let mut parts = v.split('.').filter(|p| !p.is_empty());
    let major = parts.next()?;
    Some(match parts.next() {
        Some(minor) => format!("{major}.{minor}"),
        None => major.to_string(),
    })
}

impl UserAgent {
    /// Read a `navigator.userAgent` string. Order matters: Edge and Opera also say Chrome, Chrome also
    /// says Safari, iOS browsers say Safari with their own token (`CriOS`, `FxiOS`).
    pub fn parse(ua: &str) -> UserAgent {
        let browsers: [(&str, &str); 10] = [
            ("Edg/", "Edge"),
            ("EdgA/", "Edge"),
            ("OPR/", "Opera"),
            ("SamsungBrowser/", "Samsung Internet"),
            ("Firefox/", "Firefox"),
            ("FxiOS/", "Firefox"),
            ("CriOS/", "Chrome"),
            // Headless Chromium (an automated browser: a sign of a bot) before the Chrome it also is.
            ("HeadlessChrome/", "HeadlessChrome"),
            ("Chrome/", "Chrome"),
            ("Version/", "Safari"),
        ];
        let (browser, version) = browsers
            .iter()
            .find_map(|(token, name)| {
                if *name == "Safari" && !ua.contains("Safari/") {
                    return None;
                }
                version_after(ua, token).map(|v| (name.to_string(), v))
            })
            .unwrap_or_else(|| ("other".into(), String::new()));
        let os = if ua.contains("iPad") {
            "iPadOS"
        } else if ua.contains("iPhone") || ua.contains("iPod") {
            "iOS"
        } else if ua.contains("Android") {
            "Android"
        } else if ua.contains("Windows") {
            "Windows"
        } else if ua.contains("CrOS") {
            "ChromeOS"
        } else if ua.contains("Mac OS X") || ua.contains("Macintosh") {
            "macOS"
        } else if ua.contains("Linux") || ua.contains("X11") {
            "Linux"
        } else {
            "other"
        };
        UserAgent { browser, version, os: os.into() }
    }
}

impl DisplayFacts {
    /// The facts with every number clamped to what a screen can be and the user agent cut to
    /// [`MAX_UA_LEN`] characters (the edge's numbers come from a page a participant controls).
    pub fn sanitized(mut self) -> DisplayFacts {
        let side = |v: u32| v.min(100_000);
        self.user_agent = self.user_agent.chars().filter(|c| !c.is_control()).take(MAX_UA_LEN).collect();
        (self.screen_w, self.screen_h) = (side(self.screen_w), side(self.screen_h));
        (self.window_w, self.window_h, self.outer_w) = (side(self.window_w), side(self.window_h), side(self.outer_w));
        self.touch_points = self.touch_points.min(1000);
        if !(self.dpr.is_finite() && self.dpr > 0.0) {
            self.dpr = 1.0;
        }
        self.dpr = self.dpr.min(100.0);
        self
    }

    /// Phone, tablet or desktop. A device with a fine pointer (mouse, trackpad) is a desktop unless its
    /// user agent says mobile; one with only a coarse pointer (a finger) is a phone under 600 CSS px on
    /// the screen's short side and a tablet from there; iPadOS, which says "Macintosh", is told apart by
    /// its touch points.
    pub fn device_class(&self) -> DeviceClass {
        let ua = &self.user_agent;
        let short = self.screen_w.min(self.screen_h);
        let ipad_as_mac = ua.contains("Macintosh") && self.touch_points > 1;
        if ua.contains("iPad") || ipad_as_mac {
            return DeviceClass::Tablet;
        }
        if ua.contains("iPhone") || ua.contains("iPod") || (ua.contains("Android") && ua.contains("Mobile")) {
            return DeviceClass::Phone;
        }
        let touch_only = self.coarse && !self.fine;
        if ua.contains("Android") || touch_only {
            return if short > 0 && short < 600 { DeviceClass::Phone } else { DeviceClass::Tablet };
        }
        DeviceClass::Desktop
    }

    /// The browser zoom where it can be told (`outerWidth / innerWidth` on a desktop whose window
    /// has no side panels): `None` elsewhere.
    pub fn zoom(&self) -> Option<f64> {
        if self.device_class() != DeviceClass::Desktop || self.outer_w == 0 || self.window_w == 0 {
            return None;
        }
        let z = self.outer_w as f64 / self.window_w as f64;
        ((0.25..=5.0).contains(&z)).then(|| (z * 100.0).round() / 100.0)
    }

    /// The facts as the record's columns: `device`, `browser`, `browser_version`, `os`, `screen`
    /// (`W×H`), `window` (at the start), `dpr`, `touch_points`, `webdriver`, `zoom` (where known).
    pub fn columns(&self) -> BTreeMap<String, Setting> {
        let ua = UserAgent::parse(&self.user_agent);
        let mut m = BTreeMap::new();
        let t = |s: String| Setting::Text(s);
        m.insert("device".into(), t(self.device_class().as_str().into()));
        m.insert("browser".into(), t(ua.browser));
        m.insert("browser_version".into(), t(ua.version));
        m.insert("os".into(), t(ua.os));
        m.insert("screen".into(), t(format!("{}x{}", self.screen_w, self.screen_h)));
        m.insert("window".into(), t(format!("{}x{}", self.window_w, self.window_h)));
        m.insert("dpr".into(), Setting::Num(self.dpr));
        m.insert("touch_points".into(), Setting::Int(self.touch_points as i64));
        m.insert("webdriver".into(), Setting::Bool(self.webdriver));
        if let Some(z) = self.zoom() {
            m.insert("zoom".into(), Setting::Num(z));
        }
        m
    }
}

/// Which devices may take a study (`devices=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Devices {
    /// Any device (the default).
    #[default]
    Any,
    /// Computers only (no phone, no tablet).
    Desktop,
    /// Phones and tablets only.
    Touch,
}

impl Devices {
    /// `any`, `desktop` or `touch`.
    pub fn parse(v: &str) -> Option<Devices> {
        match v.to_ascii_lowercase().as_str() {
            "any" => Some(Devices::Any),
            "desktop" => Some(Devices::Desktop),
            "touch" | "mobile" => Some(Devices::Touch),
            _ => None,
        }
    }
    /// As written in links.
    pub fn as_str(self) -> &'static str {
        match self {
            Devices::Any => "any",
            Devices::Desktop => "desktop",
            Devices::Touch => "touch",
        }
    }
}

/// Who may take a study: the device rule and the smallest window (CSS px), checked before consent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Eligibility {
    /// `devices=`.
    pub devices: Devices,
    /// `min_window=W×H`: the window's inner size at least this (None: no rule).
    pub min_window: Option<(u32, u32)>,
}

/// Why a participant cannot take the study on this device: said to them in plain words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScreenOut {
    /// The study is for computers and this is a phone or tablet.
    NeedsDesktop(DeviceClass),
    /// The study is for phones and tablets and this is a computer.
    NeedsTouch,
    /// The window is smaller than the study needs (even after the participant was asked to enlarge it).
    WindowTooSmall {
        /// The window's size.
        have: (u32, u32),
        /// What the study needs.
        need: (u32, u32),
    },
}

impl ScreenOut {
    /// A short machine name for the record and tests: `device`, `window`.
    pub fn code(&self) -> &'static str {
        match self {
            ScreenOut::NeedsDesktop(_) | ScreenOut::NeedsTouch => "device",
            ScreenOut::WindowTooSmall { .. } => "window",
        }
    }
    /// Whether the participant can fix it where they are (a larger window, full screen).
    pub fn fixable(&self) -> bool {
        matches!(self, ScreenOut::WindowTooSmall { .. })
    }
}

impl fmt::Display for ScreenOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScreenOut::NeedsDesktop(c) => write!(
                f,
                "This study must be taken on a computer with a mouse or trackpad, and this looks like a {}. \
                 Please open the study's link on a computer.",
                c.as_str()
            ),
            ScreenOut::NeedsTouch => write!(
                f,
                "This study must be taken on a phone or tablet, and this looks like a computer. \
                 Please open the study's link on a phone or tablet."
            ),
            ScreenOut::WindowTooSmall { have, need } => write!(
                f,
                "This study needs a browser window of at least {}×{} pixels, and yours is {}×{}. \
                 Please make the window larger (or full screen), then try again.",
                need.0, need.1, have.0, have.1
            ),
        }
    }
}

impl Eligibility {
    /// `None` when the device and its window may take the study; else why not.
    pub fn check(&self, facts: &DisplayFacts) -> Option<ScreenOut> {
        let class = facts.device_class();
        match self.devices {
            Devices::Desktop if class.is_touch() => return Some(ScreenOut::NeedsDesktop(class)),
            Devices::Touch if !class.is_touch() => return Some(ScreenOut::NeedsTouch),
            _ => {}
        }
        if let Some(need) = self.min_window {
            let have = (facts.window_w, facts.window_h);
            if have.0 < need.0 || have.1 < need.1 {
                return Some(ScreenOut::WindowTooSmall { have, need });
            }
        }
        None
    }
}

/// `min_window=W×H` (also `WxH`), each side 100–10000 CSS px.
pub fn parse_window(v: &str) -> Option<(u32, u32)> {
    let (w, h) = v.split_once(['x', 'X', '×'])?;
    let side = |s: &str| s.trim().parse::<u32>().ok().filter(|n| (100..=10_000).contains(n));
    Some((side(w)?, side(h)?))
}

/// One trial's view: the stimulus's size and the window when it was shown, and the pointers used.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrialView {
    /// The stimulus square's side in CSS px.
    pub css_px: f64,
    /// The canvas's side in device px (CSS px × device pixel ratio, as drawn).
    pub device_px: u32,
    /// The window's inner size, CSS px.
    pub window_w: u32,
    /// See `window_w`.
    pub window_h: u32,
    /// `devicePixelRatio` during the trial.
    pub dpr: f64,
    /// The pointer types (`mouse`, `touch`, `pen`) that answered, in order of first use; empty: keys only.
    #[serde(default)]
    pub pointers: Vec<String>,
    /// Pointer moves over the page during the trial (a person's mouse wanders; a script may jump).
    #[serde(default)]
    pub pointer_moves: u32,
    /// Time on the block's instruction screen before this, its first trial (ms); `None` for later trials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions_ms: Option<f64>,
}

impl TrialView {
    /// The view as row columns: `canvas_css_px`, `canvas_device_px`, `trial_window`, `trial_dpr`,
    /// `pointer` (the pointer types used, `+`-joined; `keyboard` when none), `pointer_moves`,
    /// `instructions_ms` (a block's first trial).
    pub fn columns(&self) -> BTreeMap<String, Setting> {
        let mut m = BTreeMap::new();
        if self.css_px.is_finite() {
            m.insert("canvas_css_px".into(), Setting::Num(self.css_px));
        }
        m.insert("canvas_device_px".into(), Setting::Int(self.device_px as i64));
        m.insert("trial_window".into(), Setting::Text(format!("{}x{}", self.window_w, self.window_h)));
        if self.dpr.is_finite() {
            m.insert("trial_dpr".into(), Setting::Num(self.dpr));
        }
        let p = if self.pointers.is_empty() { "keyboard".to_string() } else { self.pointers.join("+") };
        m.insert("pointer".into(), Setting::Text(p));
        m.insert("pointer_moves".into(), Setting::Int(self.pointer_moves as i64));
        if let Some(ms) = self.instructions_ms.filter(|v| v.is_finite() && *v >= 0.0) {
            m.insert("instructions_ms".into(), Setting::Num(ms.round()));
        }
        m
    }
}

/// A pointer type as the browser names it (`PointerEvent.pointerType`), or `None` for anything else.
pub fn pointer_kind(t: &str) -> Option<&'static str> {
    match t {
        "mouse" => Some("mouse"),
        "touch" => Some("touch"),
        "pen" => Some("pen"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHROME_WIN: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
                              Chrome/131.0.0.0 Safari/537.36";
    const EDGE: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
                        Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86";
    const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like \
                          Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
    const IPAD_AS_MAC: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like \
                               Gecko) Version/17.5 Safari/605.1.15";
    const ANDROID: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) \
                           Chrome/131.0.6778.81 Mobile Safari/537.36";
    const FIREFOX_LINUX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    const HEADLESS: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                            HeadlessChrome/131.0.0.0 Safari/537.36";

    fn facts(ua: &str, screen: (u32, u32), coarse: bool, fine: bool, touch_points: u32) -> DisplayFacts {
        DisplayFacts {
            user_agent: ua.into(),
            screen_w: screen.0,
            screen_h: screen.1,
            window_w: screen.0,
            window_h: screen.1.saturating_sub(100),
            outer_w: screen.0,
            dpr: 2.0,
            touch_points,
            coarse,
            fine,
            hover: fine,
            webdriver: false,
        }
    }

    #[test]
    fn user_agents_name_browser_version_and_system() {
        let cases = [
            (CHROME_WIN, "Chrome", "131.0", "Windows"),
            (EDGE, "Edge", "131.0", "Windows"),
            (IPHONE, "Safari", "18.1", "iOS"),
            (IPAD_AS_MAC, "Safari", "17.5", "macOS"),
            (ANDROID, "Chrome", "131.0", "Android"),
            (FIREFOX_LINUX, "Firefox", "133.0", "Linux"),
            (HEADLESS, "HeadlessChrome", "131.0", "Linux"),
            ("", "other", "", "other"),
        ];
        for (ua, browser, version, os) in cases {
            let p = UserAgent::parse(ua);
            assert_eq!((p.browser.as_str(), p.version.as_str(), p.os.as_str()), (browser, version, os), "{ua}");
        }
    }

    #[test]
    fn device_classes_from_pointers_screen_and_agent() {
        assert_eq!(facts(CHROME_WIN, (1920, 1080), false, true, 0).device_class(), DeviceClass::Desktop);
        // A touch-screen laptop has a fine pointer too: still a desktop.
        assert_eq!(facts(CHROME_WIN, (1366, 768), true, true, 10).device_class(), DeviceClass::Desktop);
        assert_eq!(facts(IPHONE, (390, 844), true, false, 5).device_class(), DeviceClass::Phone);
        assert_eq!(facts(ANDROID, (412, 915), true, false, 5).device_class(), DeviceClass::Phone);
        assert_eq!(facts(IPAD_AS_MAC, (820, 1180), true, false, 5).device_class(), DeviceClass::Tablet);
        assert_eq!(facts(IPAD_AS_MAC, (1440, 900), false, true, 0).device_class(), DeviceClass::Desktop, "a Mac");
        // An emulated phone in a desktop browser (a user agent that says nothing): the pointers decide.
        assert_eq!(facts(HEADLESS, (390, 844), true, false, 1).device_class(), DeviceClass::Phone);
        assert_eq!(facts(HEADLESS, (800, 1280), true, false, 1).device_class(), DeviceClass::Tablet);
    }

    #[test]
    fn eligibility_screens_out_in_words() {
        let phone = facts(IPHONE, (390, 844), true, false, 5);
        let desk = facts(CHROME_WIN, (1920, 1080), false, true, 0);
        let need_desktop = Eligibility { devices: Devices::Desktop, min_window: None };
        let e = need_desktop.check(&phone).unwrap();
        assert_eq!(e.code(), "device");
        assert!(e.to_string().contains("on a computer") && e.to_string().contains("phone"), "{e}");
        assert!(need_desktop.check(&desk).is_none());
        let need_touch = Eligibility { devices: Devices::Touch, min_window: None };
        assert_eq!(need_touch.check(&desk), Some(ScreenOut::NeedsTouch));
        assert!(need_touch.check(&phone).is_none());
        let big = Eligibility { devices: Devices::Any, min_window: Some((1000, 700)) };
        let e = big.check(&phone).unwrap();
        assert!(e.fixable() && e.to_string().contains("1000×700") && e.to_string().contains("390×744"), "{e}");
        assert!(big.check(&desk).is_none());
        assert!(Eligibility::default().check(&phone).is_none());
    }

    #[test]
    fn window_sizes_and_device_words_parse() {
        assert_eq!(parse_window("1024x700"), Some((1024, 700)));
        assert_eq!(parse_window("800×600"), Some((800, 600)));
        for bad in ["1024", "x700", "99x700", "1024x100000", "ax b", "-1x5"] {
            assert_eq!(parse_window(bad), None, "{bad}");
        }
        assert_eq!(Devices::parse("Desktop"), Some(Devices::Desktop));
        assert_eq!(Devices::parse("touch"), Some(Devices::Touch));
        assert_eq!(Devices::parse("tv"), None);
    }

    #[test]
    fn columns_say_what_was_seen_and_hostile_numbers_are_clamped() {
        let mut f = facts(CHROME_WIN, (1920, 1080), false, true, 0);
        f.outer_w = 2112;
        f.window_w = 1920;
        let c = f.columns();
        assert_eq!(c["device"], Setting::Text("desktop".into()));
        assert_eq!(c["browser"], Setting::Text("Chrome".into()));
        assert_eq!(c["screen"], Setting::Text("1920x1080".into()));
        assert_eq!(c["zoom"], Setting::Num(1.1));
        assert!(!facts(IPHONE, (390, 844), true, false, 5).columns().contains_key("zoom"), "no zoom on phones");
        let hostile = DisplayFacts {
            user_agent: format!("a\u{1b}[2J{}", "x".repeat(5000)),
            screen_w: u32::MAX,
            dpr: f64::NAN,
            ..Default::default()
        }
        .sanitized();
        assert_eq!(hostile.user_agent.chars().count(), MAX_UA_LEN);
        assert!(!hostile.user_agent.contains('\u{1b}'));
        assert_eq!((hostile.screen_w, hostile.dpr), (100_000, 1.0));
        let v = TrialView {
            css_px: 480.0,
            device_px: 960,
            window_w: 1000,
            window_h: 800,
            dpr: 2.0,
            instructions_ms: Some(1234.4),
            ..Default::default()
        };
        let c = v.columns();
        assert_eq!(c["pointer"], Setting::Text("keyboard".into()));
        assert_eq!(c["canvas_device_px"], Setting::Int(960));
        assert_eq!((c["pointer_moves"].clone(), c["instructions_ms"].clone()), (Setting::Int(0), Setting::Num(1234.0)));
        assert_eq!(pointer_kind("touch"), Some("touch"));
        assert_eq!(pointer_kind("<script>"), None);
    }
}
