//! People, for researchers: build a study link from a form. The link is
//! `…/take.html#/take?<StudyConfig::to_query()>` (the participant's page alone, `src/participant.rs`),
//! checked live by reading it back with `StudyConfig::from_query` (the same parser the participant's
//! page uses), so a link this page offers always starts. Below: sessions saved in this browser, with
//! CSV / JSON downloads.

use leptos::prelude::*;
use wmlab_core::people::{BlockOrder, Session, StudyConfig, StudyTask};

use crate::platform::outbox;
use crate::platform::web;

fn checkbox(id: String, label: String, sig: RwSignal<bool>) -> impl IntoView {
    view! {
        <label class="check">
            <input type="checkbox" id=id prop:checked=move || sig.get() on:change=move |ev| sig.set(event_target_checked(&ev))/>
            " " {label}
        </label>
    }
}

fn text_field(
    id: &'static str,
    label: &'static str,
    placeholder: &'static str,
    sig: RwSignal<String>,
) -> impl IntoView {
    view! {
        <label class="field" for=id>{label}</label>
        <input type="text" id=id placeholder=placeholder prop:value=move || sig.get() on:input=move |ev| sig.set(event_target_value(&ev))/>
    }
}

fn text_area(id: &'static str, label: &'static str, sig: RwSignal<String>) -> impl IntoView {
    view! {
        <label class="field" for=id>{label}</label>
        <textarea id=id rows="4" prop:value=move || sig.get() on:input=move |ev| sig.set(event_target_value(&ev))></textarea>
    }
}

#[component]
pub fn Study() -> impl IntoView {
    let tasks: Vec<(StudyTask, RwSignal<bool>)> =
        StudyTask::all().into_iter().map(|t| (t, RwSignal::new(false))).collect();
    let tpc = RwSignal::new("1".to_string());
    let order = RwSignal::new("fixed".to_string());
    let seed = RwSignal::new(String::new());
    let practice = RwSignal::new(true);
    let pt = RwSignal::new("3".to_string());
    let levels: Vec<(u8, RwSignal<bool>)> = (1..=3).map(|n| (n, RwSignal::new(true))).collect();
    let nbb = RwSignal::new("1".to_string());
    let pid = RwSignal::new(String::new());
    let done = RwSignal::new(String::new());
    let endpoint = RwSignal::new(String::new());
    let datapipe = RwSignal::new(String::new());
    let results = RwSignal::new(false);
    let fs = RwSignal::new(false);
    let consent = RwSignal::new(String::new());
    let consent_url = RwSignal::new(String::new());
    let info = RwSignal::new(String::new());
    let info_url = RwSignal::new(String::new());
    let params = RwSignal::new(String::new());
    let adaptive = RwSignal::new(String::new());
    let declined = RwSignal::new(String::new());
    let screened = RwSignal::new(String::new());
    let devices = RwSignal::new("any".to_string());
    let min_window = RwSignal::new(String::new());
    let chinrest = RwSignal::new(false);
    let demographics = RwSignal::new(false);
    let survey_url = RwSignal::new(String::new());
    let survey_at = RwSignal::new("start".to_string());
    let visual_angle = RwSignal::new(String::new());
    let platform = RwSignal::new("none".to_string());
    let conditions = RwSignal::new(String::new());
    let condition_sets = RwSignal::new(String::new());

    let tasks2 = tasks.clone();
    let tasks4 = tasks.clone();
    // Before any task is chosen there is nothing wrong yet: a hint, not an error.
    let none_chosen = Memo::new(move |_| tasks4.iter().all(|(_, s)| !s.get()));
    let levels2 = levels.clone();
    // The query as the form says; numbers go in as typed so the parser can name what is wrong.
    let query = Memo::new(move |_| {
        let mut cfg = StudyConfig::new(tasks2.iter().filter(|(_, s)| s.get()).map(|(t, _)| *t).collect());
        cfg.block_order = if order.get() == "random" { BlockOrder::Random } else { BlockOrder::Fixed };
        cfg.practice = practice.get();
        cfg.nback_ns = levels2.iter().filter(|(_, s)| s.get()).map(|(n, _)| *n).collect();
        cfg.show_results = results.get();
        cfg.fullscreen = fs.get();
        let q = cfg.to_query();
        // Replace the typed fields (as text) so bad values reach the parser unchanged.
        let enc = |v: &str| wmlab_core::people::study::percent_encode(v.trim());
        let mut parts: Vec<String> = q
            .split('&')
            .filter(|p| !["tpc=", "pt=", "nbb="].iter().any(|k| p.starts_with(k)))
            .map(str::to_string)
            .collect();
        parts.insert(1, format!("tpc={}", enc(&tpc.get())));
        parts.push(format!("pt={}", enc(&pt.get())));
        parts.push(format!("nbb={}", enc(&nbb.get())));
        for (k, v) in [
            ("seed", seed.get()),
            ("pid", pid.get()),
            ("done", done.get()),
            ("declined", declined.get()),
            ("screened", screened.get()),
            ("min_window", min_window.get()),
            ("visual_angle", visual_angle.get()),
            ("survey_url", survey_url.get()),
            ("endpoint", endpoint.get()),
            ("datapipe", datapipe.get()),
            ("consent", consent.get()),
            ("consent_url", consent_url.get()),
            ("info", info.get()),
            ("info_url", info_url.get()),
            ("set", params.get()),
            ("adaptive", adaptive.get()),
            ("conditions", conditions.get()),
            ("condition_sets", condition_sets.get()),
        ] {
            if !v.trim().is_empty() {
                parts.push(format!("{k}={}", enc(&v)));
            }
        }
        if chinrest.get() && visual_angle.get().trim().is_empty() {
            parts.push("chinrest=1".into());
        }
        if demographics.get() {
            parts.push("survey=demographics".into());
        }
        if survey_at.get() == "end" && (demographics.get() || !survey_url.get().trim().is_empty()) {
            parts.push("survey_at=end".into());
        }
        if devices.get() != "any" {
            parts.push(format!("devices={}", enc(&devices.get())));
        }
        parts.join("&")
    });
    // The platform's own placeholders go into the link as the platform wants them (it fills them in
    // before the participant opens it); the link is checked with sample values in their place.
    let checked = Memo::new(move |_| {
        let (literal, sample) = platform_tail(&platform.get());
        let q = query.get();
        let with_sample = if sample.is_empty() { q.clone() } else { format!("{q}&{sample}") };
        let canonical = StudyConfig::from_query(&with_sample).map(|c| c.link_query()).map_err(|e| e.to_string())?;
        // The sample values out again (the canonical link names the participant `pid`), the
        // platform's placeholders in.
        let samples: Vec<String> =
            sample.split('&').filter(|p| !p.is_empty()).map(|p| p.replacen("PROLIFIC_PID=", "pid=", 1)).collect();
        let kept: Vec<&str> = canonical.split('&').filter(|p| !samples.iter().any(|x| x == p)).collect();
        let canonical = kept.join("&");
        Ok::<String, String>(if literal.is_empty() { canonical } else { format!("{canonical}&{literal}") })
    });
    // The participant's page alone (take.html): a participant downloads a fraction of the whole app.
    let link = move || {
        checked
            .get()
            .ok()
            .map(|q| format!("{}#/take?{q}", wmlab_core::people::study::participant_page(&web::base_url())))
    };
    let copied = RwSignal::new(false);
    let copy = move |_| {
        if let Some(l) = link() {
            let _ = web::window().navigator().clipboard().write_text(&l);
            copied.set(true);
        }
    };
    let tasks3 = tasks.clone();
    let select_all = move |on: bool| {
        for (_, s) in &tasks3 {
            s.set(on);
        }
    };
    let (t_all, t_none) = (select_all.clone(), select_all);

    view! {
        <section id="study" class="study">
            <h1>"People: build a study link"</h1>
            <p>"Choose the tasks and settings; send the link to your participants. Everything runs in the participant's browser; data go to the address you give (or are downloaded)."</p>
            <p>"Collected the results? " <a href="#/dashboard" id="to-dashboard">"Open the participants dashboard"</a> " to see exclusions, the group against the human numbers, one CSV of all trials and a Psych-DS dataset."</p>
            <form class="study-form" on:submit=|ev| ev.prevent_default()>
                <fieldset>
                    <legend>"Tasks"</legend>
                    <div class="task-grid">
                        {tasks.iter().map(|(t, s)| checkbox(format!("task-{}", t.as_str()), format!("{} ({})", t.title(), t.as_str()), *s)).collect_view()}
                    </div>
                    <button type="button" id="tasks-all" on:click=move |_| t_all(true)>"All"</button>
                    <button type="button" id="tasks-none" on:click=move |_| t_none(false)>"None"</button>
                </fieldset>
                <fieldset class="grid2">
                    <legend>"Design"</legend>
                    {text_field("tpc", "Trials per condition (1–200)", "1", tpc)}
                    <label class="field" for="order">"Block order"</label>
                    <select id="order" on:change=move |ev| order.set(event_target_value(&ev))>
                        <option value="fixed" selected=true>"fixed (as listed)"</option>
                        <option value="random">"random (seeded)"</option>
                    </select>
                    {text_field("seed", "Seed (empty: from the participant id, or a random one per session when there is none)", "e.g. 7", seed)}
                    <span class="field">"Practice"</span>
                    {checkbox("practice".into(), "practice block with feedback before each task".into(), practice)}
                    {text_field("pt", "Practice trials per task (1–10)", "3", pt)}
                    <span class="field">"N-back levels"</span>
                    <div>{levels.iter().map(|(n, s)| checkbox(format!("n-{n}"), format!("N = {n}"), *s)).collect_view()}</div>
                    {text_field("nbb", "N-back blocks per level (1–10)", "1", nbb)}
                    {text_field("adaptive", "Adaptive (optional): tasks whose main block is a staircase instead of the fixed grid — CD's set size converging on 75 % right, VSR / VSRec / LSR's list length on half the lists recalled whole, N-back's N on half the blocks passed (one block per step, in place of the levels below); comma list of the chosen ones, or all", "CD-Color,VSR", adaptive)}
                    {text_field("conditions", "Counterbalanced task orders (optional; orders of the chosen tasks separated by |; each participant takes one: assigned by DataPipe when its id is given, else by the participant id, balanced only on average)", "VIR,SC|SC,VIR", conditions)}
                    {text_field("condition_sets", "Counterbalanced task parameters (optional; parameter sets separated by |, crossed with the orders)", "list_lengths=4|list_lengths=16", condition_sets)}
                    {text_field("set", "Task parameters (optional; KEY=VALUE entries separated by ;, e.g. noise_mask=true or list_lengths=2,4,8,16; each goes to the chosen tasks that have it; try them in the Gallery)", "the paper's", params)}
                </fieldset>
                <fieldset class="grid2">
                    <legend>"Participants and data"</legend>
                    {text_field("pid", "Participant id (optional; Prolific adds PROLIFIC_PID itself)", "P01", pid)}
                    {text_field("done", "Completion URL (redirect at the end)", "https://app.prolific.com/submissions/complete?cc=…", done)}
                    {text_field("endpoint", "Endpoint URL (records are POSTed here as JSON)", "https://example.org/collect", endpoint)}
                    {text_field("datapipe", "DataPipe experiment id (optional: each session's CSV goes to your OSF through pipe.jspsych.org at the end)", "ABCDEF123456", datapipe)}
                    <span class="field">"Options"</span>
                    <div>
                        {checkbox("results".into(), "show participants their results".into(), results)}
                        {checkbox("fs".into(), "offer full screen".into(), fs)}
                    </div>
                </fieldset>
                <fieldset class="grid2">
                    <legend>"Recruitment platform and who may take part"</legend>
                    <label class="field" for="platform">"Platform"</label>
                    <div>
                        <select id="platform" on:change=move |ev| platform.set(event_target_value(&ev))>
                            <option value="none" selected=true>"none (or the platform adds its own parameters)"</option>
                            <option value="prolific">"Prolific (PROLIFIC_PID, STUDY_ID, SESSION_ID)"</option>
                            <option value="sona">"SONA (the participant's code as the id)"</option>
                            <option value="mturk">"MTurk (the HIT is submitted back to MTurk)"</option>
                        </select>
                        <p class="small" id="platform-note">{move || platform_note(&platform.get())}</p>
                    </div>
                    {text_field("declined", "No-consent URL (where a participant who does not agree is sent; optional)", "https://app.prolific.com/submissions/complete?cc=…", declined)}
                    {text_field("screened", "Screen-out URL (where a participant whose device or window does not fit is sent; optional)", "https://app.prolific.com/submissions/complete?cc=…", screened)}
                    <label class="field" for="devices">"Devices"</label>
                    <select id="devices" on:change=move |ev| devices.set(event_target_value(&ev))>
                        <option value="any" selected=true>"any"</option>
                        <option value="desktop">"computers only (no phones or tablets)"</option>
                        <option value="touch">"phones and tablets only"</option>
                    </select>
                    {text_field("min_window", "Smallest window (WIDTHxHEIGHT in CSS px; optional)", "1000x700", min_window)}
                    <span class="field">"Virtual chinrest"</span>
                    <label class="check"><input id="chinrest" type="checkbox" prop:checked=move || chinrest.get() on:change=move |ev| chinrest.set(event_target_checked(&ev))/>
                        " measure each participant's screen (a card) and viewing distance (the blind spot) before the first task; recorded, and each trial's stimulus in degrees"</label>
                    {text_field("visual_angle", "Stimulus size in degrees of visual angle (turns the chinrest on; a window that cannot hold it is refused; optional)", "10", visual_angle)}
                    <p class="small">"URLs may hold placeholders the participant's page fills in: {pid} (the participant id), {session} (the session's own id), and any panel id or kept parameter of the link, e.g. {STUDY_ID}."</p>
                </fieldset>
                <fieldset class="grid2">
                    <legend>"Questionnaire"</legend>
                    <span class="field">"About the participant"</span>
                    <label class="check"><input id="survey-demographics" type="checkbox" prop:checked=move || demographics.get() on:change=move |ev| demographics.set(event_target_checked(&ev))/>
                        " age, gender, handedness, corrected vision and colour vision (all required)"</label>
                    {text_field("survey_url", "Your own questions: a JSON file on this site (optional; see study/questions-example.json)", "study/questions-example.json", survey_url)}
                    <label class="field" for="survey_at">"Shown"</label>
                    <select id="survey_at" on:change=move |ev| survey_at.set(event_target_value(&ev))>
                        <option value="start" selected=true>"before the first task (after consent)"</option>
                        <option value="end">"after the last task"</option>
                    </select>
                </fieldset>
                <fieldset class="grid2">
                    <legend>"Consent and instructions (shown before the first trial)"</legend>
                    {text_area("consent", "Consent text: participants must agree before they start; the time of the agreement and a hash of the text are recorded", consent)}
                    {text_field("consent_url", "…or a file with it on this site (a path, e.g. consent.txt; for long texts)", "consent.txt", consent_url)}
                    {text_area("info", "Extra instructions", info)}
                    {text_field("info_url", "…or a file with them on this site", "instructions.txt", info_url)}
                </fieldset>
            </form>
            <h2>"Study link"</h2>
            {move || match checked.get() {
                Ok(_) => {
                    let l = link().unwrap_or_default();
                    view! {
                        <div class="share">
                            <input id="study-link" type="text" readonly prop:value=l.clone()/>
                            <button id="copy-study-link" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy" }}</button>
                            <a id="try-link" href=l target="_blank">"Try it"</a>
                        </div>
                    }.into_any()
                }
                Err(_) if none_chosen.get() => view! {
                    <p class="small" id="study-form-hint">"Choose at least one task above; the link appears here."</p>
                }.into_any(),
                Err(e) => view! { <p class="error" id="study-form-error" role="alert">{e}</p> }.into_any(),
            }}
            {move || (results.get() && !done.get().trim().is_empty()).then(|| view! {
                <p class="notice" id="study-results-note">"With the results shown, participants see them at the end and go on to the completion URL with a “Continue” button (no automatic redirect)."</p>
            })}
            <SavedSessions/>
        </section>
    }
}

/// A platform's own parameters for the study link: as the platform fills them in (literal) and with
/// sample values for checking the link (`none` and MTurk, which adds its own: nothing).
fn platform_tail(platform: &str) -> (&'static str, &'static str) {
    match platform {
        "prolific" => (
            "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
            "PROLIFIC_PID=p1&STUDY_ID=s1&SESSION_ID=e1",
        ),
        "sona" => ("pid=%SURVEY_CODE%", "pid=12345"),
        _ => ("", ""),
    }
}

fn platform_note(platform: &str) -> &'static str {
    match platform {
        "prolific" => {
            "Prolific fills in the three ids. Give its completion code in the completion URL              (…/submissions/complete?cc=CODE), and its other codes in the no-consent and screen-out URLs."
        }
        "sona" => {
            "SONA puts the participant's code where the link says %SURVEY_CODE%. Give SONA's client-side              completion URL as the completion URL with survey_code={pid} at its end, so SONA grants the credit."
        }
        "mturk" => {
            "Use the link as the HIT's external URL: MTurk adds assignmentId, hitId, workerId and turkSubmitTo              before the #. Workers previewing the HIT see what it is; at the end the HIT is submitted to MTurk              once the data have arrived. Leave the completion URL empty."
        }
        _ => "",
    }
}

/// Sessions saved in this browser (someone took a study here): downloads for each.
#[component]
fn SavedSessions() -> impl IntoView {
    let rows: Vec<(String, Session)> = outbox::session_keys()
        .into_iter()
        .filter_map(|k| outbox::get(&k).and_then(|t| Session::from_json(&t).ok()).map(|s| (k, s)))
        .collect();
    if rows.is_empty() {
        return view! { <p class="small" id="saved-empty">"No sessions have been taken in this browser."</p> }
            .into_any();
    }
    let note = RwSignal::new(None::<String>);
    let items = rows
        .into_iter()
        .enumerate()
        .map(|(i, (_k, s))| {
            let (done, total) = s.progress();
            let rec = s.to_record(None);
            let who = rec.subject.label();
            let (r1, r2) = (rec.clone(), rec);
            let dl = move |r: &wmlab_core::record::ResultRecord, csv: bool| {
                let res = if csv {
                    r.to_csv()
                        .map_err(|e| e.to_string())
                        .and_then(|t| web::download("wmlab-people.csv", "text/csv", &t))
                } else {
                    r.to_json()
                        .map_err(|e| e.to_string())
                        .and_then(|t| web::download("wmlab-people.json", "application/json", &t))
                };
                if let Err(e) = res {
                    note.set(Some(format!("The download failed: {e}.")));
                }
            };
            view! {
                <tr>
                    <td>{who}</td>
                    <td>{s.config.tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")}</td>
                    <td class="num">{format!("{done} / {total}")}</td>
                    <td>
                        <button id=format!("saved-csv-{i}") on:click=move |_| dl(&r1, true)>"CSV"</button>
                        <button id=format!("saved-json-{i}") on:click=move |_| dl(&r2, false)>"JSON"</button>
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h2>"Sessions in this browser"</h2>
        {move || note.get().map(|n| view! { <p class="error">{n}</p> })}
        <table class="summary" id="saved-sessions">
            <thead><tr><th>"Participant"</th><th>"Tasks"</th><th class="num">"Rounds"</th><th>"Download"</th></tr></thead>
            <tbody>{items}</tbody>
        </table>
    }
    .into_any()
}
