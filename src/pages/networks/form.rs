//! The settings form: backend, memory, capacity and preset (each asks the worker for a whole new
//! configuration), the number fields, the trained task ids, the reference-code quirks and the full
//! settings as JSON. What a field accepts is decided by `wmlab_core::networks::{Field, Edit}`.

use leptos::prelude::*;
use wmlab_core::networks::{Arch, Edit, Field, Preset, TrainConfig};
use wmlab_core::nn_protocol::BackendPick;

use super::state::Net;

/// One number field: shows the settings' value, edits it on change.
fn number_field(net: Net, f: Field) -> impl IntoView {
    // A memo: the box is written only when its own value changes, so an answer that leaves it as it
    // was does not wipe what is being typed there.
    let shown = Memo::new(move |_| net.config.with(|c| c.as_ref().map(|c| f.show(c)).unwrap_or_default()));
    view! {
        <label>{f.label()} " " <input type="text" class="short" id=f.id() prop:value=move || shown.get()
            on:change=move |ev| net.edit(f.parse(&event_target_value(&ev)))/></label>
    }
}

/// One reference-code quirk as a box (all off = the paper's tasks).
fn quirk_box(net: Net, name: &'static str, what: &'static str) -> impl IntoView {
    let on = move || net.config.with(|c| c.as_ref().and_then(|c| c.quirks).is_some_and(|q| q.names().contains(&name)));
    let toggle = move |ev: leptos::ev::Event| {
        let checked = event_target_checked(&ev);
        if let Some(e) = net.config.with_untracked(|c| c.as_ref().map(|c| Edit::quirk(c, name, checked))) {
            net.edit(e);
        }
    };
    view! {
        <label class="small" title=what><input type="checkbox" id=format!("nn-quirk-{name}") prop:checked=on on:change=toggle/>
            " " {name}</label>
    }
}

/// "309137 parameters (Table A4: 0.3M)": beside Table A4's count for the paper preset (the others
/// change the encoder).
fn params_text(net: Net) -> String {
    net.config.with(|c| {
        let Some(c) = c else { return String::new() };
        let p = c.model.param_count();
        let paper = (c.preset == Preset::Paper.as_str())
            .then(|| wmlab_core::papers::table_a4_params(c.model.arch.as_str(), c.model.capacity))
            .flatten();
        match paper {
            Some(n) => format!("{p} parameters (Table A4: {}M)", n / 1e6),
            None => format!("{p} parameters"),
        }
    })
}

pub fn settings_form(net: Net) -> impl IntoView {
    let tasks_shown =
        Memo::new(move |_| net.config.with(|c| c.as_ref().map(TrainConfig::tasks_text).unwrap_or_default()));
    let params_shown =
        Memo::new(move |_| net.config.with(|c| c.as_ref().map(TrainConfig::task_settings_text).unwrap_or_default()));
    view! {
        <fieldset class="form" disabled=move || net.phase.get().busy()>
            <legend>"Model and training"</legend>
            <label>"Backend "
                <select id="nn-backend-pick" prop:value=move || net.backend_pick.get().as_str() on:change=move |ev| {
                    let pick = BackendPick::parse(&event_target_value(&ev)).unwrap_or_default();
                    net.pick_backend(pick);
                }>
                    {BackendPick::ALL.into_iter().map(|b| view! { <option value=b.as_str()>{b.label()}</option> }).collect_view()}
                </select>
            </label>
            <label>"Memory "
                <select id="nn-arch" prop:value=move || net.arch.get().as_str() on:change=move |ev| {
                    if let Some(a) = Arch::parse(&event_target_value(&ev)) {
                        net.arch.set(a);
                        net.apply_preset();
                    }
                }>
                    {Arch::ALL.into_iter().map(|a| view! { <option value=a.as_str()>{a.label()}</option> }).collect_view()}
                </select>
            </label>
            <label>"Capacity "
                <input type="text" class="short" id="nn-capacity" list="nn-capacities" prop:value=move || net.capacity.get()
                    on:change=move |ev| { net.capacity.set(event_target_value(&ev)); net.apply_preset(); }/>
                <datalist id="nn-capacities"><option value="96"/><option value="256"/><option value="1024"/></datalist>
            </label>
            <label>"Preset "
                <select id="nn-preset" prop:value=move || net.preset.get().as_str() on:change=move |ev| {
                    if let Some(p) = Preset::parse(&event_target_value(&ev)) {
                        net.preset.set(p);
                        net.apply_preset();
                    }
                }>
                    {Preset::ALL.into_iter().map(|p| view! { <option value=p.as_str()>{p.label()}</option> }).collect_view()}
                </select>
            </label>
            <span class="small" id="nn-params">{move || params_text(net)}</span>
            <div class="row">{Field::ALL.into_iter().map(|f| number_field(net, f)).collect_view()}</div>
            <div class="row">
                <label>"Task ids "
                    <input type="text" id="nn-tasks" placeholder="all 14" size="40" prop:value=move || tasks_shown.get()
                        on:change=move |ev| net.edit(Edit::tasks(&event_target_value(&ev)))/></label>
                <span class="small">"Train a subset, e.g. " <code>"VSR"</code> " (the paper's VSR-alone ablation) or "
                    <code>"CD-Color,VIR,SC"</code> "; empty = all 14. Only these ids get a loss; evaluation tests these ids. "
                    <code>"LSR"</code> " (language serial recall, A3.1) trains alone: its model reads word vectors through a \
                    linear layer instead of frames through the ConvNet; " <code>"slots=16; list_lengths=2,4,8,16"</code>
                    " below gives the longer lists of A3.2."</span>
            </div>
            <div class="row">
                <label>"Task parameters "
                    <input type="text" id="nn-task-params" placeholder="the paper's" size="40" prop:value=move || params_shown.get()
                        on:change=move |ev| net.edit(Edit::task_settings(&event_target_value(&ev)))/></label>
                <span class="small">"e.g. " <code>"noise_mask=true"</code> " (change detection with noise retention frames, \
                    the paper's A3.4) or " <code>"set_sizes=2,4; retentions=6"</code> "; each goes to the tasks that have it. \
                    Checked against the trained tasks; kept in the checkpoint; evaluation uses the same."</span>
            </div>
            <div class="row">
                <label title="The paper's Table A1 trains each memory with a learned task embedding and with a frozen one (one-hot task ids)">
                    <input type="checkbox" id="nn-static-emb"
                        prop:checked=move || net.config.with(|c| c.as_ref().is_some_and(|c| c.model.frozen_task_embedding))
                        on:change=move |ev| net.edit(Ok(Edit::StaticEmbedding(event_target_checked(&ev))))/>
                    " static task embedding"</label>
                <span class="small">"Off = a learned task embedding (the paper's main models); on = frozen one-hot task ids \
                    (the paper's \"static\" models, Table A1)."</span>
            </div>
            <div class="row" id="nn-quirks">
                <span>"Reference-code behaviours "</span>
                {wmlab_core::Quirks::ALL.into_iter().map(|(name, what)| quirk_box(net, name, what)).collect_view()}
                <span class="small">"Off = the paper's tasks. On = what the WorM code does, to reproduce numbers made with it \
                    (hover for each). Kept in the checkpoint; evaluation uses the same."</span>
            </div>
            <details>
                <summary id="nn-json-summary">"All settings (JSON)"</summary>
                <p class="small">"Every field of the training and model configuration; edits are checked as they are made."</p>
                <textarea id="nn-config-json" rows="14" cols="70" prop:value=move || net.config_text.get()
                    on:change=move |ev| net.apply_json(&event_target_value(&ev))></textarea>
            </details>
        </fieldset>
    }
}
