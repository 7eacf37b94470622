//! Task gallery: pick a task and a condition cell, generate a trial from a seed, and step through it
//! frame by frame, with the correct answers and the network's 32×32 view.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wmlab_core::{Response, Rng, Step, Target, TaskId, TaskSpec, Trial};

use crate::app::AppState;
use crate::components::stage::{NetworkView, Stage};
use crate::platform::web;

/// The demo result answers this many passes over the task's condition grid.
const DEMO_PASSES: u64 = 2;
const DEMO_MAX_TRIALS: u64 = 96;

fn phase_name(step: &Step) -> String {
    format!("{:?}", step.phase).to_lowercase()
}

/// The correct answer at a step in plain words.
pub fn answer_text(step: &Step) -> String {
    if !step.scored {
        return "not scored".into();
    }
    let ans = match (&step.target, &step.response) {
        (Target::Class(c), Response::Binary { labels }) => {
            let label = labels.get(*c as usize).cloned().unwrap_or_default();
            format!("answer: {label} (class {c})")
        }
        (Target::Class(c), Response::Choice { n }) => format!("answer: option {} of {n} (class {c})", c + 1),
        (Target::Class(c), _) => format!("answer: class {c}"),
        (Target::Set(v), _) => {
            let cells = v.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ");
            format!("answer: the cells {{{cells}}}")
        }
        (Target::None, _) => "answer: none".into(),
    };
    match step.serial_position {
        Some(p) => format!("{ans} · asks about item {p}"),
        None => ans,
    }
}

#[component]
pub fn Gallery() -> impl IntoView {
    let state = expect_context::<AppState>();
    let g = state.gallery;
    // The task with the typed parameters; a bad entry is shown and the paper's task drawn meanwhile.
    let checked = Memo::new(move |_| {
        let mut spec = TaskSpec::new(g.task.get());
        let settings = wmlab_core::parse_settings(&g.params.get())?;
        spec.set_all(&settings, false)?;
        Ok::<TaskSpec, String>(spec)
    });
    let spec = Memo::new(move |_| checked.get().unwrap_or_else(|_| TaskSpec::new(g.task.get())));
    let grid = Memo::new(move |_| spec.with(|s| s.grid()));
    // The flip bit (which answer a balanced task draws) follows the seed's parity.
    let trial = Memo::new(move |_| {
        let cells = grid.get();
        let cell = cells.get(g.cell.get()).cloned().unwrap_or_default();
        let seed = g.seed.get();
        spec.with(|s| s.trial_in(&cell, &mut Rng::from_u64(seed), seed % 2 == 1))
    });
    let len = move || trial.with(|t| t.len());
    let step = move || g.step.get().min(len().saturating_sub(1));
    let frame = Signal::derive(move || trial.with(|t: &Trial| t.frame_at(step())));
    let key = Signal::derive(move || format!("{}:{}:{}:{}", g.task.get().as_str(), g.cell.get(), g.seed.get(), step()));

    let go = move |delta: i64| {
        let n = len() as i64;
        let s = (step() as i64 + delta).clamp(0, (n - 1).max(0));
        g.step.set(s as usize);
    };
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        let typing = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|e| matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
            .unwrap_or(false);
        if typing {
            return;
        }
        match ev.key().as_str() {
            "ArrowRight" => {
                ev.prevent_default();
                go(1)
            }
            "ArrowLeft" => {
                ev.prevent_default();
                go(-1)
            }
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());

    let on_task = move |ev: leptos::ev::Event| {
        if let Some(t) = TaskId::parse(&event_target_value(&ev)) {
            g.task.set(t);
            g.cell.set(0);
            g.step.set(0);
        }
    };
    let on_cell = move |ev: leptos::ev::Event| {
        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
            g.cell.set(i);
            g.step.set(0);
        }
    };
    let on_seed = move |ev: leptos::ev::Event| {
        if let Ok(s) = event_target_value(&ev).trim().parse::<u64>() {
            g.seed.set(s);
            g.step.set(0);
        }
    };
    let new_trial = move |_| {
        g.seed.update(|s| *s = s.wrapping_add(1));
        g.step.set(0);
    };
    let make_demo = move |_| {
        let task = g.task.get_untracked();
        let k = grid.with_untracked(|c| c.len() as u64).max(1);
        let n = (k * DEMO_PASSES).min(DEMO_MAX_TRIALS.max(k));
        let record = crate::demo::demo_record(task, g.seed.get_untracked(), n);
        state.result.set(Some(record));
        state.error.set(None);
        web::set_hash("/results");
    };

    let steps_list = move || {
        trial.with(|t| {
            t.steps
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let scored = s.scored;
                    let title = format!("step {} · {} · {}", i + 1, phase_name(s), answer_text(s));
                    view! {
                        <button class="pip" class:scored=scored class:current=move || step() == i
                            title=title on:click=move |_| g.step.set(i)>
                            {i + 1}
                        </button>
                    }
                })
                .collect_view()
        })
    };

    view! {
        <section class="gallery" id="gallery"
            data-task=move || g.task.get().as_str()
            data-step=move || step().to_string()
            data-steps=move || len().to_string()>
            <h1>"Task gallery"</h1>
            <p class="hint">"Pick a task and a condition, then step through the trial with the buttons or the ← → keys."</p>
            <div class="controls">
                <label>"Task "
                    <select id="task-select" on:change=on_task prop:value=move || g.task.get().as_str()>
                        {TaskId::EVERY.iter().map(|t| {
                            let id = t.as_str();
                            view! { <option value=id selected=move || g.task.get() == *t>{format!("{id} — {}", t.title())}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label>"Condition "
                    <select id="cell-select" on:change=on_cell prop:value=move || g.cell.get().to_string()>
                        {move || grid.get().iter().enumerate().map(|(i, c)| {
                            view! { <option value=i.to_string() selected=move || g.cell.get() == i>{c.label()}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label>"Seed "
                    <input id="seed" type="number" min="0" step="1"
                        prop:value=move || g.seed.get().to_string() on:change=on_seed/>
                </label>
                <button id="new-trial" on:click=new_trial>"New trial"</button>
            </div>
            <div class="controls">
                <label>"Task parameters "
                    <input id="gallery-params" type="text" size="40" placeholder="the paper's"
                        prop:value=move || g.params.get()
                        on:change=move |ev| { g.params.set(event_target_value(&ev)); g.cell.set(0); g.step.set(0); }/>
                </label>
                <span class="small" id="gallery-params-keys">{move || format!(
                    "KEY=VALUE entries separated by ; (e.g. list_lengths=2,4,8,16 or noise_mask=true), as wmlab generate --set \
                     and a study link's set=. Parameters of {}: {}.",
                    g.task.get().as_str(), TaskSpec::new(g.task.get()).keys().join(", "))}</span>
            </div>
            {move || checked.get().err().map(|e| view! {
                <p class="error" id="gallery-params-error" role="alert">{format!("Task parameters: {e}. The paper's task is shown.")}</p>
            })}
            <div class="viewer">
                <div class="big">
                    <Stage frame=frame key=key size=480.0/>
                    <div class="stepper">
                        <button id="prev" on:click=move |_| go(-1) disabled=move || { step() == 0 }>"← Prev"</button>
                        <span id="step-counter">{move || format!("step {} / {}", step() + 1, len())}</span>
                        <button id="next" on:click=move |_| go(1) disabled=move || { step() + 1 >= len() }>"Next →"</button>
                    </div>
                    <div class="pips">{steps_list}</div>
                </div>
                <aside class="side">
                    <h2>"This step"</h2>
                    <dl>
                        <dt>"Phase"</dt>
                        <dd id="phase">{move || trial.with(|t| t.steps.get(step()).map(phase_name).unwrap_or_default())}</dd>
                        <dt>"Answer"</dt>
                        <dd id="answer">{move || trial.with(|t| t.steps.get(step()).map(answer_text).unwrap_or_default())}</dd>
                    </dl>
                    <h2>"This trial"</h2>
                    <dl>
                        <dt>"Task"</dt>
                        <dd>{move || format!("{} — {}", g.task.get().as_str(), g.task.get().title())}</dd>
                        <dt>"Conditions"</dt>
                        <dd id="conditions">{move || trial.with(|t| t.conditions.label())}</dd>
                        <dt>"Scored steps"</dt>
                        <dd>{move || trial.with(|t| format!("{} of {}", t.scored_steps().count(), t.len()))}</dd>
                    </dl>
                    <h2>"What a network sees"</h2>
                    <Show when=move || g.task.get() != TaskId::Lsr fallback=move || view! {
                        <ol class="word-slots" id="net-words">
                            {move || trial.with(|t| t.steps.get(step()).map(|s| s.words.iter().map(|&w| {
                                let word = wmlab_core::tasks::lsr::words().get(w as usize).copied().unwrap_or("—");
                                view! { <li>{word}</li> }
                            }).collect_view()))}
                        </ol>
                        <p class="small">"LSR's networks read word slots, not pixels: each slot is a 50-d word vector \
                            (zeros for —), through a linear layer in place of the ConvNet (WorM A3.1)."</p>
                    }>
                        <NetworkView frame=frame key=key/>
                        <p class="small">"32 × 32 pixels, the input of the networks."</p>
                    </Show>
                    <h2>"Try the results page"</h2>
                    <p class="small">"A simulated observer answers "
                        {move || (grid.with(|c| c.len() as u64) * DEMO_PASSES).min(DEMO_MAX_TRIALS.max(grid.with(|c| c.len() as u64)))}
                        " trials of this task (seed as above), missing about one answer in five."</p>
                    <button id="make-demo" on:click=make_demo>"Make a demo result"</button>
                </aside>
            </div>
        </section>
    }
}
