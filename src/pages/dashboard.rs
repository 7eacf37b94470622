//! The researcher's dashboard: load many participants' results (WM Lab JSON records, or the long CSVs a
//! download or DataPipe gives: files, a folder, or dropped here; or this browser's own participants),
//! see who is excluded and why under rules the researcher sets, the group's mean ± SE per task beside
//! the WorM human curves, and download one long CSV of every trial of every participant. The logic is the
//! core's (`analysis::dashboard`); this page turns files into records and charts into pixels.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wmlab_core::analysis::dashboard::{Rules, exclusions, group_charts, long_csv, record_from_csv};
use wmlab_core::compare::{content_id, record_tasks};
use wmlab_core::people::StudyTask;
use wmlab_core::people::study::{datapipe_file, datapipe_latest};
use wmlab_core::psychds::dataset;
use wmlab_core::record::{ResultRecord, Setting, Subject};

use crate::components::chart::SpecChart;
use crate::platform::{history, web};

#[derive(Clone, Debug, PartialEq)]
struct Loaded {
    /// The file (or "this browser") it came from.
    source: String,
    /// `compare::content_id` of the record (the same result loaded twice is kept once).
    id: String,
    record: ResultRecord,
}

fn participant(r: &ResultRecord) -> String {
    match &r.subject {
        Subject::Person { id } => id.clone(),
        other => other.label(),
    }
}

/// Read one file as participants' records: `.csv` as the long CSV; anything else as one or more JSON
/// records one after another (a record file, JSON lines, or a JATOS result `.txt`, where the latest
/// record of a participant supersedes the earlier blocks).
fn read_records(name: &str, text: &str) -> Vec<Result<ResultRecord, String>> {
    let rs = if name.to_ascii_lowercase().ends_with(".csv") {
        record_from_csv(text).map(|r| vec![r]).map_err(String::from)
    } else {
        ResultRecord::from_json_documents(text).map_err(|e| e.to_string())
    };
    match rs {
        Err(e) => vec![Err(e)],
        Ok(rs) => rs
            .into_iter()
            .map(|r| match r.subject {
                Subject::Person { .. } => Ok(r),
                _ => Err(format!("it is a {} result, not a participant's", r.subject.kind())),
            })
            .collect(),
    }
}

/// Files the dashboard reads (a dropped folder holds other files too, which are skipped).
fn readable(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".json", ".csv", ".txt", ".jsonl"].iter().any(|ext| lower.ends_with(ext))
}

fn num(s: &str, what: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("{what}: “{}” is not a number of 0 or more.", s.trim()))
}

/// An exclusion rule typed as a number: its label, its field and a note beside it.
fn number_rule(id: &'static str, label: &'static str, sig: RwSignal<String>, note: &'static str) -> impl IntoView {
    view! {
        <label class="field" for=id>{label}</label>
        <div><input id=id type="text" prop:value=move || sig.get() on:input=move |ev| sig.set(event_target_value(&ev))/><span class="small">{note}</span></div>
    }
}

/// An exclusion rule that is on or off.
fn check_rule(field: &'static str, id: &'static str, sig: RwSignal<bool>, label: &'static str) -> impl IntoView {
    view! {
        <span class="field">{field}</span>
        <label class="check"><input id=id type="checkbox" prop:checked=move || sig.get() on:change=move |ev| sig.set(event_target_checked(&ev))/>{label}</label>
    }
}

#[component]
pub fn Dashboard() -> impl IntoView {
    let loaded = RwSignal::new(Vec::<Loaded>::new());
    let errors = RwSignal::new(Vec::<String>::new());
    let busy = RwSignal::new(0u32);
    let min_practice = RwSignal::new("50".to_string());
    let min_rt = RwSignal::new("200".to_string());
    let max_blurs = RwSignal::new("3".to_string());
    let finished = RwSignal::new(true);
    let no_touch = RwSignal::new(false);
    let no_resize = RwSignal::new(false);
    let min_px = RwSignal::new("0".to_string());
    let min_deg = RwSignal::new("0".to_string());
    let no_bots = RwSignal::new(false);
    let no_paste = RwSignal::new(false);
    let max_fast = RwSignal::new(String::new());
    let task = RwSignal::new(String::new());

    let rules = Memo::new(move |_| -> Result<Rules, String> {
        Ok(Rules {
            min_practice_accuracy: num(&min_practice.get(), "Practice")? / 100.0,
            min_median_rt_ms: num(&min_rt.get(), "Response time")?,
            max_blurs: num(&max_blurs.get(), "Losses of focus")? as u32,
            require_finished: finished.get(),
            exclude_touch: no_touch.get(),
            exclude_window_changed: no_resize.get(),
            min_stimulus_px: num(&min_px.get(), "Stimulus size")?,
            min_stimulus_deg: num(&min_deg.get(), "Visual angle")?,
            exclude_automated: no_bots.get(),
            exclude_pasted: no_paste.get(),
            max_fast_share: match max_fast.get().trim() {
                "" => None,
                v => Some(num(v, "Fast answers")? / 100.0),
            },
        })
    });
    // Each participant with the reasons they are excluded (empty = included).
    let judged = Memo::new(move |_| {
        let r = rules.get().unwrap_or_default();
        loaded
            .get()
            .into_iter()
            .map(|l| {
                let why = exclusions(&l.record, &r);
                (l, why)
            })
            .collect::<Vec<_>>()
    });
    let included = Memo::new(move |_| {
        judged.get().into_iter().filter(|(_, why)| why.is_empty()).map(|(l, _)| l.record).collect::<Vec<_>>()
    });
    let tasks = Memo::new(move |_| {
        let mut t: Vec<StudyTask> = Vec::new();
        for r in included.get() {
            for x in record_tasks(&r) {
                if !t.contains(&x) {
                    t.push(x);
                }
            }
        }
        t.sort();
        t
    });
    Effect::new(move |_| {
        let ts = tasks.get();
        if !ts.iter().any(|t| t.as_str() == task.get_untracked()) {
            task.set(ts.first().map(|t| t.as_str().to_string()).unwrap_or_default());
        }
    });

    let add = move |items: Vec<(String, Result<ResultRecord, String>)>| {
        let mut errs = Vec::new();
        loaded.update(|v| {
            for (source, r) in items {
                match r {
                    Ok(record) => {
                        let id = content_id(&record);
                        if let Some(l) = v.iter_mut().find(|l| l.id == id) {
                            // The same data as a session's staged part, now as its final file: finished.
                            let is_final = matches!(datapipe_file(&source), Some((_, None)));
                            if is_final && matches!(datapipe_file(&l.source), Some((_, Some(_)))) {
                                l.source = source;
                                l.record.config.settings.remove("datapipe_part");
                                l.record.config.settings.remove("finished");
                            }
                            continue;
                        }
                        v.push(Loaded { source, id, record });
                    }
                    Err(e) => errs.push(format!("“{source}”: {e}")),
                }
            }
            // DataPipe's files of one session: its final file where it arrived, else its latest part
            // (a participant who dropped out), which did not finish.
            let names: Vec<String> = v.iter().map(|l| l.source.clone()).collect();
            let keep = datapipe_latest(&names.iter().map(String::as_str).collect::<Vec<_>>());
            let mut flags = keep.into_iter();
            v.retain(|_| flags.next().unwrap_or(true));
            for l in v.iter_mut() {
                if let Some((_, Some(part))) = datapipe_file(&l.source) {
                    l.record.config.settings.insert("finished".into(), Setting::Bool(false));
                    l.record.config.settings.insert("datapipe_part".into(), Setting::Int(part as i64));
                }
            }
        });
        errors.set(errs);
    };
    let read_files = move |files: Vec<web_sys::File>| {
        busy.update(|n| *n += 1);
        wasm_bindgen_futures::spawn_local(async move {
            let mut items = Vec::new();
            for f in files {
                let name = f.name();
                if !readable(&name) {
                    continue; // a folder holds other files too
                }
                let rs = if f.size() > 64.0 * 1024.0 * 1024.0 {
                    vec![Err("it is too large to be a participant's result (more than 64 MB)".to_string())]
                } else {
                    match JsFuture::from(f.text()).await {
                        Ok(v) => read_records(&name, &v.as_string().unwrap_or_default()),
                        Err(_) => vec![Err("it could not be read".to_string())],
                    }
                };
                items.extend(rs.into_iter().map(|r| (name.clone(), r)));
            }
            add(items);
            let _ = busy.try_update(|n| *n -= 1);
        });
    };
    let on_input = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(list) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        input.set_value("");
        read_files(files);
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        let Some(list) = ev.data_transfer().and_then(|d| d.files()) else { return };
        read_files((0..list.length()).filter_map(|i| list.get(i)).collect());
    };
    let from_history = move |_| {
        busy.update(|n| *n += 1);
        wasm_bindgen_futures::spawn_local(async move {
            let mut items = Vec::new();
            match history::list().await {
                Ok(entries) => {
                    for e in entries.into_iter().filter(|e| e.kind == "person") {
                        items.push(("this browser".to_string(), history::load(&e.id).await));
                    }
                }
                Err(e) => items.push(("this browser's history".to_string(), Err(e))),
            }
            add(items);
            let _ = busy.try_update(|n| *n -= 1);
        });
    };
    let download = move |_| {
        let all = judged.get_untracked();
        let rows: Vec<(&str, &ResultRecord, &[String])> =
            all.iter().map(|(l, why)| (l.source.as_str(), &l.record, why.as_slice())).collect();
        let res =
            long_csv(&rows).map_err(String::from).and_then(|t| web::download("wmlab-participants.csv", "text/csv", &t));
        if let Err(e) = res {
            errors.set(vec![format!("The download failed: {e}")]);
        }
    };
    let dataset_name = RwSignal::new("WM Lab study".to_string());
    let download_psychds = move |_| {
        let records: Vec<ResultRecord> = loaded.get_untracked().into_iter().map(|l| l.record).collect();
        let res = dataset(&records, dataset_name.get_untracked().trim()).map_err(String::from).and_then(|files| {
            let entries: Vec<(String, Vec<u8>)> =
                files.into_iter().map(|f| (format!("wmlab-psychds/{}", f.path), f.text.into_bytes())).collect();
            web::download_bytes("wmlab-psychds.zip", &wmlab_core::zip::write(&entries))
        });
        if let Err(e) = res {
            errors.set(vec![format!("The dataset could not be made: {e}")]);
        }
    };
    let clear = move |_| {
        loaded.set(Vec::new());
        errors.set(Vec::new());
    };

    // A folder picker: the attribute has no typed setter.
    let folder = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = folder.get() {
            let _ = el.set_attribute("webkitdirectory", "");
        }
    });

    let charts = Memo::new(move |_| {
        let Some(t) = StudyTask::parse(&task.get()) else { return Vec::new() };
        let inc = included.get();
        let refs: Vec<&ResultRecord> = inc.iter().collect();
        group_charts(&refs, t).into_iter().map(|(_, c)| c).collect::<Vec<_>>()
    });

    view! {
        <section id="dashboard" class="dashboard study-form"
            data-count=move || loaded.with(Vec::len) data-included=move || included.with(Vec::len)
            data-busy=move || busy.get()>
            <h1>"Participants"</h1>
            <p>"Load your participants' results — the JSON or CSV files they downloaded, the files your endpoint received, or a DataPipe / OSF folder of CSVs — to see who is excluded and why, the group's mean with error bars against the WorM human numbers, and one CSV of every trial. Nothing leaves this browser."</p>
            <fieldset>
                <legend>"Results"</legend>
                <div class="dash-drop" id="dash-drop" on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
                    <p>"Drop result files here, or "</p>
                    <label for="dash-file">"choose files "</label>
                    <input id="dash-file" type="file" multiple accept=".json,.csv,.txt,.jsonl,application/json,text/csv,text/plain" on:change=on_input/>
                    <label for="dash-folder">" or a folder "</label>
                    <input id="dash-folder" type="file" multiple node_ref=folder on:change=on_input/>
                </div>
                <div class="actions">
                    <button id="dash-from-history" on:click=from_history>"Add this browser's participants"</button>
                    <button id="dash-clear" on:click=clear>"Clear"</button>
                </div>
                {move || (!errors.get().is_empty()).then(|| view! {
                    <p class="error" id="dash-error" role="alert">{errors.get().join(" ")}</p>
                })}
            </fieldset>
            <fieldset class="grid2">
                <legend>"Exclusion rules"</legend>
                {number_rule("dash-rule-practice", "Practice: at least (% correct)", min_practice, " 0 = no rule")}
                {number_rule("dash-rule-rt", "Median response time: at least (ms)", min_rt, " faster means not looking")}
                {number_rule("dash-rule-blurs", "Losses of focus: at most", max_blurs, " another window or tab during a trial")}
                {check_rule("Unfinished sessions", "dash-rule-finished", finished, "exclude")}
                {check_rule("Phones and tablets", "dash-rule-touch", no_touch, "exclude (touch devices)")}
                {check_rule("Window changed size during a trial", "dash-rule-resize", no_resize, "exclude")}
                {number_rule("dash-rule-px", "Stimulus: at least (CSS px)", min_px, " the smallest drawn; 0 = no rule")}
                {number_rule("dash-rule-deg", "Stimulus: at least (degrees)", min_deg, " of visual angle, from the chinrest; sessions without it are left out; 0 = no rule")}
                {number_rule("dash-rule-fast", "Answers under 150 ms: at most (%)", max_fast, " too soon to have looked; empty = no rule")}
                {check_rule("Automated browsers", "dash-rule-bots", no_bots, "exclude (webdriver, headless)")}
                {check_rule("Pasted text (questionnaire)", "dash-rule-paste", no_paste, "exclude")}
                {move || rules.get().err().map(|e| view! { <p class="error" id="dash-rule-error">{e}</p> })}
            </fieldset>
            {move || (!loaded.with(Vec::is_empty)).then(|| view! {
                <h2>{move || format!("{} participants, {} included", loaded.with(Vec::len), included.with(Vec::len))}</h2>
                <table class="summary" id="dash-participants">
                    <thead><tr><th>"participant"</th><th>"from"</th><th>"tasks"</th><th>"trials"</th><th>"status"</th></tr></thead>
                    <tbody>
                        {move || judged.get().into_iter().map(|(l, why)| {
                            let excluded = !why.is_empty();
                            view! {
                                <tr class="dash-row" data-id=participant(&l.record) data-excluded=excluded.to_string()>
                                    <td>{participant(&l.record)}</td>
                                    <td>{l.source.clone()}</td>
                                    <td>{l.record.task.replace('+', ", ")}</td>
                                    <td>{l.record.trials.len()}</td>
                                    <td class="dash-reasons">{if excluded { format!("excluded: {}", why.join("; ")) } else { "included".to_string() }}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
                <div class="actions">
                    <button id="dash-download-csv" on:click=download>"Download one CSV of every trial (all participants, with the reasons)"</button>
                </div>
                <div class="actions">
                    <label for="dash-dataset-name">"Dataset name "</label>
                    <input id="dash-dataset-name" type="text" prop:value=move || dataset_name.get() on:input=move |ev| dataset_name.set(event_target_value(&ev))/>
                    <button id="dash-download-psychds" on:click=download_psychds>"Download a Psych-DS dataset (zip)"</button>
                    <span class="small">" dataset_description.json with every column described, one CSV per session named by the Psych-DS keywords (as wmlab dataset)"</span>
                </div>
                <h2>"The group against the WorM human numbers"</h2>
                <label for="dash-task">"Task "</label>
                <select id="dash-task" prop:value=move || task.get() on:change=move |ev| task.set(event_target_value(&ev))>
                    {move || tasks.get().into_iter().map(|t| view! { <option value=t.as_str()>{t.title()}</option> }).collect_view()}
                </select>
                <div id="dash-plots" data-count=move || charts.with(Vec::len)>
                    {move || charts.get().into_iter().enumerate().map(|(i, c)| {
                        let bars = c.series.iter().filter(|s| !s.bars.is_empty()).count();
                        let panel = c.title.clone();
                        view! {
                            <SpecChart chart=Signal::derive(move || c.clone()) id=format!("dash-plot-{i}") class="dash-plot"
                                data=vec![("data-panel", panel), ("data-bars", bars.to_string())]/>
                        }
                    }).collect_view()}
                </div>
                <p class="small">"Mean over the included participants of each one's own curve, ± one standard error across participants; the black curves are the WorM paper's human means."</p>
            })}
        </section>
    }
}
