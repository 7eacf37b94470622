//! What the participant page shows: its screens, the position in the study, and its signals, which
//! the controller (`ctl`) sets and the views (`mod`, `screens`) read.

use leptos::prelude::*;
use wmlab_core::people::TimingStats;
use wmlab_core::people::presenter::Awaiting;
use wmlab_core::record::ResultRecord;

#[derive(Clone, Debug, PartialEq)]
pub enum Screen {
    Loading,
    Error(String),
    Offer {
        done: usize,
        total: usize,
    },
    /// Extra instructions and/or the consent text, before the first trial.
    Welcome {
        info: Option<String>,
        consent: Option<String>,
    },
    /// The participant did not agree: nothing is recorded (the `declined=` URL, filled, if any).
    Declined(Option<String>),
    /// An MTurk HIT being previewed: what the study is; nothing starts until the worker accepts it.
    Preview,
    /// The study is not for this device or window: why, and the `screened=` URL (filled) if any.
    ScreenedOut {
        why: String,
        fixable: bool,
        url: Option<String>,
    },
    /// The same study is open in another tab of this browser: this one touches nothing.
    Elsewhere,
    Calibrating,
    /// The study's questionnaire.
    Survey(wmlab_core::people::survey::Questionnaire),
    /// The virtual chinrest (`chinrest=`): card, then blind spot.
    Chinrest,
    /// The stimulus cannot be drawn at the study's visual angle in this window: why; "Try again".
    NoFit(String),
    Instructions,
    Trial,
    Feedback,
    /// A trial was stopped (it restarts): the window lost focus, or (`resized`) changed size.
    Paused {
        resized: bool,
    },
    Done,
}

impl Screen {
    pub fn name(&self, practice: bool) -> &'static str {
        match self {
            Screen::Loading => "loading",
            Screen::Error(_) => "error",
            Screen::Offer { .. } => "offer",
            Screen::Welcome { .. } => "welcome",
            Screen::Declined(_) => "declined",
            Screen::Preview => "preview",
            Screen::ScreenedOut { .. } => "screened-out",
            Screen::Elsewhere => "elsewhere",
            Screen::Calibrating => "calibrating",
            Screen::Chinrest => "chinrest",
            Screen::Survey(_) => "survey",
            Screen::NoFit(_) => "no-fit",
            Screen::Instructions => "instructions",
            Screen::Trial if practice => "practice",
            Screen::Trial => "trial",
            Screen::Feedback => "feedback",
            Screen::Paused { .. } => "paused",
            Screen::Done => "done",
        }
    }
}

/// Where a finished participant goes, once their data are acknowledged.
#[derive(Clone, Debug, PartialEq)]
pub enum Exit {
    /// The study's completion URL (placeholders filled).
    Go(String),
    /// Back to MTurk: the assignment submitted as a form POST to `action` (MTurk's externalSubmit).
    Mturk { action: String, assignment: String, session: String },
}

impl Exit {
    /// Leave the study page for the platform.
    pub fn go(&self) {
        match self {
            Exit::Go(url) => {
                let _ = crate::platform::web::window().location().set_href(url);
            }
            Exit::Mturk { action, assignment, session } => {
                let fields = [("assignmentId", assignment.as_str()), ("wmlab_session", session.as_str())];
                crate::platform::web::post_form(action, &fields);
            }
        }
    }
}

/// What the page shows about the current position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cur {
    pub task: String,
    pub title: String,
    pub block: usize,
    pub blocks: usize,
    pub trial: usize,
    pub trials: usize,
    pub global: usize,
    pub step: usize,
    pub practice: bool,
    pub n_back: Option<u8>,
    /// The level (set size, list length) of a staircase trial; `None` outside adaptive blocks.
    pub level: Option<u32>,
    pub resumed: bool,
}

/// The page's signals.
#[derive(Clone, Copy)]
pub struct Ui {
    pub screen: RwSignal<Screen>,
    pub cur: RwSignal<Cur>,
    pub awaiting: RwSignal<Option<Awaiting>>,
    pub feedback: RwSignal<(Vec<bool>, f64)>,
    /// PI-LLM practice feedback: each key with its right (last) value, in the answer form's order.
    pub feedback_detail: RwSignal<Vec<(String, String)>>,
    pub pending: RwSignal<usize>,
    pub record: RwSignal<Option<ResultRecord>>,
    pub note: RwSignal<Option<String>>,
    pub px: RwSignal<f64>,
    pub timing: RwSignal<TimingStats>,
    /// Where the participant goes at the end (set as the session ends).
    pub exit: RwSignal<Option<Exit>>,
}

impl Ui {
    pub fn new() -> Ui {
        Ui {
            screen: RwSignal::new(Screen::Loading),
            cur: RwSignal::new(Cur::default()),
            awaiting: RwSignal::new(None),
            feedback: RwSignal::new((vec![], 0.0)),
            feedback_detail: RwSignal::new(Vec::new()),
            pending: RwSignal::new(0),
            record: RwSignal::new(None),
            note: RwSignal::new(None),
            px: RwSignal::new(480.0),
            timing: RwSignal::new(Default::default()),
            exit: RwSignal::new(None),
        }
    }
}
