//! The per-sample log viewer: a table of outcomes (task, conditions, extracted answer, reference,
//! scores, error) with filters (task, failures only); a click opens the sample: the prompt or the
//! conversation, the raw reply, the extracted answer, the reference and the scores.
//!
//! Model and prompt text is only ever put in text nodes (Leptos escapes it), never parsed as HTML.

use leptos::prelude::*;
use wmlab_core::llm::metrics::format_reference;
use wmlab_core::llm::{Message, Role, Sample, SampleBody};
use wmlab_llm::Outcome;

/// Rows shown at most (the exports hold everything).
const MAX_ROWS: usize = 400;

fn conditions(o: &Outcome) -> String {
    o.conditions.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

fn scores(o: &Outcome) -> String {
    o.scores.iter().map(|(k, v)| format!("{k} {v:.3}")).collect::<Vec<_>>().join(" · ")
}

fn reference(o: &Outcome) -> String {
    match (&o.reference, &o.targets) {
        (Some(r), _) => format_reference(r),
        (None, Some(t)) => t.clone(),
        _ => String::new(),
    }
}

fn answer(o: &Outcome) -> String {
    o.answer.clone().or_else(|| o.answers.clone()).unwrap_or_default()
}

fn role(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

fn messages_view(msgs: Vec<Message>) -> impl IntoView {
    let n = msgs.len();
    view! {
        <ol class="llm-messages" data-count=n>
            {msgs.into_iter().map(|m| view! {
                <li class=format!("msg {}", role(m.role))>
                    <span class="role">{role(m.role)}</span>
                    <pre class="text">{m.content}</pre>
                </li>
            }).collect_view()}
        </ol>
    }
}

fn detail(o: Outcome, sample: Option<Sample>) -> impl IntoView {
    let msgs = if !o.messages.is_empty() {
        o.messages.clone()
    } else {
        match sample.map(|s| s.body) {
            Some(SampleBody::Single(s)) => s.messages,
            _ => Vec::new(),
        }
    };
    let trials = o.trials.clone();
    let has_trials = !trials.is_empty();
    let reply = o.reply.clone();
    let err = o.error.clone();
    view! {
        <div class="llm-detail" id="llm-detail" data-sample=o.sample_id.clone()>
            <h3>{o.sample_id.clone()}</h3>
            <dl class="meta">
                <dt>"Task"</dt><dd>{o.task.clone()}</dd>
                <dt>"Conditions"</dt><dd>{conditions(&o)}</dd>
                <dt>"Extracted answer"</dt><dd id="llm-detail-answer"><code>{answer(&o)}</code></dd>
                <dt>"Reference"</dt><dd id="llm-detail-reference"><code>{reference(&o)}</code></dd>
                <dt>"Scores"</dt><dd id="llm-detail-scores">{scores(&o)}</dd>
                <dt>"Requests"</dt><dd>{o.requests} " (" {o.cache_hits} " from the cache, " {o.retries} " retries) · "
                    {o.tokens_in} " tokens in, " {o.tokens_out} " out · " {format!("{:.0} ms", o.latency_ms)}</dd>
                {(!o.score_errors.is_empty()).then(|| view! { <dt>"Scoring notes"</dt><dd>{o.score_errors.join("; ")}</dd> })}
            </dl>
            {err.map(|e| view! { <p class="error llm-sample-error">{format!("{}: {}", e.kind.as_str(), e.message)}</p> })}
            {reply.map(|r| view! { <h4>"Reply"</h4><pre class="text" id="llm-detail-reply">{r}</pre> })}
            {has_trials.then(|| view! {
                <h4>"Trials"</h4>
                <table class="llm-trials">
                    <thead><tr><th>"#"</th><th>"answer"</th><th>"replies"</th></tr></thead>
                    <tbody>
                        {trials.into_iter().enumerate().map(|(i, t)| view! {
                            <tr>
                                <td class="num">{i + 1}</td>
                                <td><code>{t.answer.map(String::from).unwrap_or_else(|| "?".into())}</code>{t.prefilled.then_some(" (pre-filled)")}</td>
                                <td><pre class="text">{t.replies.join("\n---\n")}</pre></td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            })}
            {(!msgs.is_empty()).then(|| view! { <h4>"Prompt / conversation"</h4> {messages_view(msgs)} })}
        </div>
    }
}

#[component]
pub fn LlmLog(outcomes: RwSignal<Vec<Outcome>>, samples: StoredValue<Vec<Sample>>) -> impl IntoView {
    let task = RwSignal::new(String::new());
    let failures = RwSignal::new(false);
    let selected = RwSignal::new(None::<String>);
    let tasks = Memo::new(move |_| {
        let mut t: Vec<String> = Vec::new();
        outcomes.with(|os| {
            for o in os {
                if !t.contains(&o.task) {
                    t.push(o.task.clone());
                }
            }
        });
        t
    });
    let rows = move || {
        let want = task.get();
        let fail = failures.get();
        outcomes.with(|os| {
            let shown: Vec<&Outcome> =
                os.iter().filter(|o| (want.is_empty() || o.task == want) && (!fail || o.error.is_some())).collect();
            let total = shown.len();
            let body = shown
                .into_iter()
                .take(MAX_ROWS)
                .map(|o| {
                    let id = o.sample_id.clone();
                    let id2 = id.clone();
                    let headline = o
                        .scores
                        .get("accuracy")
                        .or_else(|| o.scores.values().next())
                        .map(|v| format!("{v:.3}"))
                        .unwrap_or_default();
                    let err =
                        o.error.as_ref().map(|e| format!("{}: {}", e.kind.as_str(), e.message)).unwrap_or_default();
                    let kind = o.error.as_ref().map(|e| e.kind.as_str()).unwrap_or("");
                    view! {
                        <tr class="llm-row" data-sample=id.clone() data-task=o.task.clone() data-error=kind
                            data-score=headline.clone()
                            class:failed=o.error.is_some()
                            class:selected=move || selected.with(|s| s.as_deref() == Some(id2.as_str()))
                            on:click=move |_| selected.set(Some(id.clone()))>
                            <td>{o.task.clone()}</td>
                            <td class="small">{conditions(o)}</td>
                            <td><code>{answer(o).chars().take(80).collect::<String>()}</code></td>
                            <td><code>{reference(o).chars().take(80).collect::<String>()}</code></td>
                            <td class="num">{headline.clone()}</td>
                            <td class="small">{scores(o)}</td>
                            <td class=if err.is_empty() { "small" } else { "small error" }>{err.clone()}</td>
                        </tr>
                    }
                })
                .collect_view();
            (body, total)
        })
    };
    let open = move || {
        let id = selected.get()?;
        let o = outcomes.with(|os| os.iter().find(|o| o.sample_id == id).cloned())?;
        let s = samples.with_value(|ss| ss.iter().find(|s| s.id == id).cloned());
        Some(detail(o, s))
    };
    view! {
        <div class="llm-log">
            <div class="filters">
                <label>"Task "
                    <select id="llm-filter-task" on:change=move |ev| task.set(event_target_value(&ev)) prop:value=move || task.get()>
                        <option value="">"all"</option>
                        {move || tasks.get().into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label class="check"><input type="checkbox" id="llm-filter-failures"
                    prop:checked=move || failures.get() on:change=move |ev| failures.set(event_target_checked(&ev))/>"failures only"</label>
            </div>
            {move || {
                let (body, total) = rows();
                view! {
                    <table class="summary llm-table" id="llm-log" data-rows=total>
                        <thead><tr>
                            <th>"Task"</th><th>"Conditions"</th><th>"Answer"</th><th>"Reference"</th>
                            <th class="num">"Score"</th><th>"All scores"</th><th>"Error"</th>
                        </tr></thead>
                        <tbody>{body}</tbody>
                    </table>
                    {(total > MAX_ROWS).then(|| view! { <p class="small">{format!("Showing the first {MAX_ROWS} of {total} rows; the exports hold all of them.")}</p> })}
                }
            }}
            {open}
        </div>
    }
}
