//! `wmlab compare`: several results (people, LLMs, networks) on one task, as the Compare page draws them
//! and with the same core code (`wmlab_core::compare`): the plots as SVG files, the curves and the
//! Table A3 scores as CSV.
//!
//! Layouts: `together` (one plot per panel, every run on it) and `per-run` (one plot per run and panel,
//! networks ordered as the paper's grid — RNN, GRU, LSTM, Transformer, then capacity — as WorM Figs. A2
//! and A7–A12 draw one panel per model).
//!
//! The folder: `together_<panel>.svg` (with the Compare page's small multiples beside it:
//! `summary_<panel>.svg`, each subject's accuracy per level pooled over x, and `level_<panel>_<level>.svg`,
//! one plot per level) or `run<k>_<panel>.svg` (k: the record's place on the command line, from 1), `curves.csv` (run, who, panel, label, x_name, x, y, and where known n, the 95 % interval
//! `ci_low`–`ci_high` — Wilson for answers, a bootstrap for scores — and `thin`: n under the minimum the
//! plots draw solid), `scores.csv` (Table A3: run, who,
//! effect, A, B, M_A, H_A, M_B, H_B, n and thin_points — the observations behind the matched points and
//! how many points rest on too few — note), `runs.csv` (run, title, file) and `significance.csv` (each
//! record's WorM task ids against chance and the memoryless baseline, `wmlab_core::chance`),
//! `agreement.csv` (error consistency κ of every pair of records on the trials both took, per task, with
//! its bootstrap interval), `noise_ceiling.csv` (the people's mean pairwise κ per task) and
//! `capacity.csv` (Cowan's K per CD task and set size, every record) and `span.csv` (per recall task
//! and list length the share of lists recalled whole, the span and the 50 % point). With
//! `--chance` the plots add the chance model and, where it is above chance, the memoryless model.
//! stdout: one JSON line saying what was written.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use wmlab_core::analysis::agreement;
use wmlab_core::chart_svg::svg;
use wmlab_core::compare::{self as cmp, Compared, Extras, Panel, Who};
use wmlab_core::people::StudyTask;
use wmlab_core::record::{ResultRecord, push_csv_row};
use wmlab_core::stats::MIN_POINT_N;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// One plot per panel with every run on it.
    Together,
    /// One plot per run and panel (WorM Figs. A2, A7–A12).
    PerRun,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Result records: JSON files (`wmlab eval --record`, `wmlab llm run`'s record, the app's downloads)
    /// or folders holding a `record.json` (a `wmlab sweep` run), or a several-model `wmlab llm run`'s
    /// folder (every model's record).
    #[arg(required = true, value_name = "RECORD")]
    pub records: Vec<PathBuf>,
    /// The task (VSR, CD-Color, nback-verbal …); default: the one most of the records have.
    #[arg(long)]
    pub task: Option<String>,
    #[arg(long, value_enum, default_value = "together")]
    pub layout: LayoutArg,
    /// Leave out the published human curves.
    #[arg(long)]
    pub no_human: bool,
    /// Leave out the published LLM numbers (N-back).
    #[arg(long)]
    pub no_published: bool,
    /// Draw the chance model, and the memoryless model (the best from the current frame alone) where
    /// it is above chance.
    #[arg(long)]
    pub chance: bool,
    /// Output folder (made if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Size of each plot in pixels.
    #[arg(long, default_value_t = 760)]
    pub width: u32,
    #[arg(long, default_value_t = 400)]
    pub height: u32,
    /// Print what was written as one JSON line (the default when stdout is not a terminal; at a
    /// terminal a sentence).
    #[arg(long)]
    pub json: bool,
}

/// A record file, or a folder's `record.json` (a `wmlab sweep` run).
fn read_record(path: &Path) -> anyhow::Result<ResultRecord> {
    crate::dataset::read_record(&if path.is_dir() { path.join("record.json") } else { path.to_path_buf() })
}

/// The records a path stands for: itself, or every model's folder of a several-model `wmlab llm run`
/// (a folder with `models.json` and no `record.json` of its own).
fn record_paths(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let listing = path.join("models.json");
    if !path.is_dir() || path.join("record.json").exists() || !listing.exists() {
        return Ok(vec![path.to_path_buf()]);
    }
    let text = std::fs::read_to_string(&listing).map_err(|e| anyhow::anyhow!("{}: {e}", listing.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: not a list of models ({e})", listing.display()))?;
    let folders: Vec<PathBuf> = v["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["folder"].as_str())
        .filter(|f| !f.is_empty() && !f.contains(['/', '\\']) && *f != "..")
        .map(|f| path.join(f))
        .collect();
    if folders.is_empty() {
        return Err(anyhow::anyhow!("{}: names no model folders", listing.display()));
    }
    Ok(folders)
}

/// A panel name as part of a file name: `VIR list_length=4` → `vir_list_length-4`.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let sep = match c {
            c if c.is_ascii_alphanumeric() => {
                out.push(c.to_ascii_lowercase());
                continue;
            }
            ' ' | '_' => '_',
            _ => '-',
        };
        // A run of separators keeps its first.
        if !out.is_empty() && !out.ends_with(['_', '-']) {
            out.push(sep);
        }
    }
    out.trim_end_matches(['-', '_']).to_string()
}

fn opt(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.6}")).unwrap_or_default()
}

/// The run column of a series: `k` (1-based) for a chosen record, empty for references.
fn run_of(who: &Who) -> String {
    match who {
        Who::Subject(i) => (i + 1).to_string(),
        _ => String::new(),
    }
}

fn curves_rows(out: &mut String, panels: &[Panel], names: &[String]) {
    for p in panels {
        for s in &p.series {
            for c in &s.curves {
                for (i, (x, y)) in c.points.iter().enumerate() {
                    let (who, x, y) = (s.who.name(names), x.to_string(), y.to_string());
                    // n and the 95 % interval where the curve has them (not the published numbers).
                    let n = c.n.get(i).map(|n| n.to_string()).unwrap_or_default();
                    let (lo, hi) = match c.ci.get(i).copied().flatten() {
                        Some((lo, hi)) => (lo.to_string(), hi.to_string()),
                        None => Default::default(),
                    };
                    let thin = c.n.get(i).map(|&n| (n < MIN_POINT_N).to_string()).unwrap_or_default();
                    push_csv_row(
                        out,
                        &[
                            run_of(&s.who),
                            who,
                            p.name.clone(),
                            c.label.clone(),
                            c.x_name.clone(),
                            x,
                            y,
                            n,
                            lo,
                            hi,
                            thin,
                        ],
                    );
                }
            }
        }
    }
}

pub fn run(a: &CompareArgs) -> anyhow::Result<()> {
    let paths = a.records.iter().map(|p| record_paths(p)).collect::<Result<Vec<_>, _>>()?;
    let items: Vec<Compared> =
        paths.iter().flatten().map(|p| read_record(p).map(Compared::new)).collect::<Result<Vec<_>, _>>()?;
    let records: Vec<&ResultRecord> = items.iter().map(|c| &c.record).collect();
    let task = match &a.task {
        Some(t) => StudyTask::parse(t)
            .ok_or_else(|| {
                let all: Vec<&str> = StudyTask::all().into_iter().map(|t| t.as_str()).collect();
                format!("unknown task '{t}'; tasks: {}", all.join(", "))
            })
            .map_err(anyhow::Error::msg)?,
        None => cmp::common_task(&items)
            .ok_or_else(|| anyhow::anyhow!("none of the records has trial rows of a task that can be compared"))?,
    };
    let subjects: Vec<_> = items.iter().map(|c| c.curves(task)).collect();
    let without: Vec<String> = a
        .records
        .iter()
        .zip(&subjects)
        .filter(|(_, s)| s.iter().all(|c| c.points.is_empty()))
        .map(|(p, _)| p.display().to_string())
        .collect();
    if without.len() == records.len() {
        return Err(anyhow::anyhow!("none of the records has rows of {task}"));
    }
    let extras = Extras { human: !a.no_human, chance: a.chance, published: !a.no_published };
    std::fs::create_dir_all(&a.out).map_err(|e| anyhow::anyhow!("cannot make {}: {e}", a.out.display()))?;
    let write = |name: &str, text: &str| {
        let p = a.out.join(name);
        std::fs::write(&p, text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))
    };

    let mut files: Vec<String> = Vec::new();
    let mut curves = String::from("run,who,panel,label,x_name,x,y,n,ci_low,ci_high,thin\n");
    let mut runs = String::from("run,title,file\n");
    let names;
    match a.layout {
        LayoutArg::Together => {
            names = cmp::subject_names(&records);
            let panels = cmp::panels(task, &subjects, extras);
            for p in &panels {
                let file = format!("together_{}.svg", slug(&p.name));
                write(&file, &svg(&p.chart(&names), a.width, a.height))?;
                files.push(file.clone());
                for i in p.subjects() {
                    push_csv_row(&mut runs, &[(i + 1).to_string(), names[i].clone(), file.clone()]);
                }
                // The Compare page's default small multiples: the pooled summary and a plot per level.
                if let Some(c) = p.summary_chart(&names) {
                    let file = format!("summary_{}.svg", slug(&p.name));
                    write(&file, &svg(&c, a.width, a.height))?;
                    files.push(file);
                }
                if p.labels.len() > 1 {
                    for (c, label) in p.level_charts(&names).iter().zip(&p.labels) {
                        let file = format!("level_{}_{}.svg", slug(&p.name), slug(label));
                        write(&file, &svg(c, a.width, a.height))?;
                        files.push(file);
                    }
                }
            }
            curves_rows(&mut curves, &panels, &names);
        }
        LayoutArg::PerRun => {
            names = cmp::run_titles(&records);
            for run in cmp::run_panels(task, &subjects, extras, &cmp::run_order(&records), &names) {
                for p in &run.panels {
                    let mut chart = p.chart(&names);
                    chart.title = format!("{} — {}", run.title, p.name);
                    let file = format!("run{}_{}.svg", run.subject + 1, slug(&p.name));
                    write(&file, &svg(&chart, a.width, a.height))?;
                    files.push(file.clone());
                    push_csv_row(&mut runs, &[(run.subject + 1).to_string(), run.title.clone(), file.clone()]);
                }
                curves_rows(&mut curves, &run.panels, &names);
            }
        }
    }
    let mut scores = String::from("run,who,effect,A,B,M_A,H_A,M_B,H_B,n,thin_points,note\n");
    for (who, rows) in cmp::score_table(task, &subjects) {
        for r in rows {
            let mut row = vec![run_of(&who), who.name(&names), r.effect.clone()];
            row.extend([r.a, r.b, r.m_a, r.h_a, r.m_b, r.h_b].map(opt));
            row.extend([r.n.map(|n| n.to_string()).unwrap_or_default(), r.thin_points.to_string()]);
            row.push(r.note.clone());
            push_csv_row(&mut scores, &row);
        }
    }
    // Every chosen record against chance and the memoryless baseline: the one function the Results and
    // Networks pages use, for people, LLMs and networks alike.
    let mut significance = String::from(
        "run,who,task,accuracy,chance,memoryless,responses,correct,p_above_chance,p_above_memoryless,above_chance,shows_memory\n",
    );
    let record_names = cmp::subject_names(&records);
    for (i, r) in records.iter().enumerate() {
        for s in wmlab_core::chance::record_significance(r) {
            let mut row = vec![(i + 1).to_string(), record_names[i].clone(), s.task.clone()];
            row.extend([s.accuracy, s.chance, s.memoryless].map(|v| format!("{v:.6}")));
            row.extend([s.responses, s.correct].map(|v| v.to_string()));
            row.extend([s.p_above_chance, s.p_above_memoryless].map(|v| format!("{v:.6e}")));
            let level = wmlab_core::chance::LEVEL;
            row.extend([s.above_chance(level), s.shows_memory(level)].map(|v| v.to_string()));
            push_csv_row(&mut significance, &row);
        }
    }
    // Item-level agreement (error consistency κ) of every pair of records on the trials both took, per
    // task, and the people's noise ceiling: the matrix Compare draws (issue 48).
    let rated: Vec<agreement::Rated> = records.iter().map(|r| agreement::Rated::of(r)).collect();
    let mut agreement = String::from(agreement::CSV_HEADER);
    let mut ceiling = String::from("task,pairs,mean_kappa,sd_kappa\n");
    for t in agreement::shared_tasks(&rated) {
        let Some(m) = agreement::agreement_matrix(&rated, &t, 1000, 48) else { continue };
        for row in agreement::csv_rows(&m, &record_names) {
            push_csv_row(&mut agreement, &row);
        }
        if let Some(c) = &m.ceiling {
            push_csv_row(&mut ceiling, &[t, c.pairs.to_string(), format!("{:.6}", c.mean), format!("{:.6}", c.sd)]);
        }
    }
    write("curves.csv", &curves)?;
    write("scores.csv", &scores)?;
    write("significance.csv", &significance)?;
    // Cowan's K per CD task and set size for every record (issue 48, `wmlab_core::analysis::capacity`).
    let mut capacity = String::from(
        "run,who,task,set_size,change_trials,same_trials,hit_rate,false_alarm_rate,cowan_k,cowan_k_low,cowan_k_high\n",
    );
    for (i, r) in records.iter().enumerate() {
        for k in wmlab_core::analysis::capacity::cowan_k(&r.trials) {
            let mut row = vec![(i + 1).to_string(), record_names[i].clone(), k.task.clone(), k.set_size.to_string()];
            row.extend([k.changes, k.sames].map(|v| v.to_string()));
            row.extend([k.hit_rate, k.false_alarm_rate, k.k, k.k_low, k.k_high].map(|v| format!("{v:.6}")));
            push_csv_row(&mut capacity, &row);
        }
    }
    // Span per recall task and list length: lists recalled whole, the span and the 50 % point.
    let mut spans = String::from(
        "run,who,task,list_length,lists,recalled_whole,span,fifty_point,recalled_whole_low,recalled_whole_high\n",
    );
    for (i, r) in records.iter().enumerate() {
        for s in wmlab_core::analysis::capacity::span(&r.trials) {
            for (&(l, n, whole), &(low, high)) in s.per_length.iter().zip(&s.per_length_interval) {
                let mut row = vec![(i + 1).to_string(), record_names[i].clone(), s.task.clone(), l.to_string()];
                row.extend([n.to_string(), format!("{whole:.6}")]);
                row.push(s.span.map(|v| v.to_string()).unwrap_or_default());
                row.push(s.fifty.map(|v| format!("{v:.4}")).unwrap_or_default());
                row.extend([low, high].map(|v| format!("{v:.6}")));
                push_csv_row(&mut spans, &row);
            }
        }
    }
    // Every record's capacity in its tasks' standard units: the function Results and Compare use.
    let mut measures = String::from("run,who,task,measure,at,value,ci_low,ci_high,trials\n");
    for (i, r) in records.iter().enumerate() {
        for m in wmlab_core::analysis::capacity::measures(r) {
            let mut row = vec![(i + 1).to_string(), record_names[i].clone(), m.task, m.measure, m.at];
            row.push(format!("{:.6}", m.value));
            row.extend(
                [m.interval.map(|c| c.0), m.interval.map(|c| c.1)]
                    .map(|v| v.map(|x| format!("{x:.6}")).unwrap_or_default()),
            );
            row.push(m.trials.to_string());
            push_csv_row(&mut measures, &row);
        }
    }
    write("measures.csv", &measures)?;
    write("agreement.csv", &agreement)?;
    write("capacity.csv", &capacity)?;
    write("span.csv", &spans)?;
    write("noise_ceiling.csv", &ceiling)?;
    write("runs.csv", &runs)?;
    let line = serde_json::json!({
        "task": task.as_str(),
        "layout": match a.layout { LayoutArg::Together => "together", LayoutArg::PerRun => "per-run" },
        "runs": names,
        "plots": files,
        "without_task": without,
        "out": a.out.display().to_string(),
    });
    if a.json || !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        out!("{line}");
    } else {
        out!("{}", written_text(&line));
    }
    Ok(())
}

/// What `wmlab compare` wrote, in words: the task, the runs, the plots and where.
fn written_text(line: &serde_json::Value) -> String {
    let list = |k: &str| line[k].as_array().map(|v| v.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>());
    let runs = list("runs").unwrap_or_default();
    let plots = list("plots").unwrap_or_default();
    let mut text = format!(
        "{} compared for {} run(s): {}\n{} plot(s) and the CSV files (curves, scores, significance, agreement, \
         capacity, span, measures) in {}",
        line["task"].as_str().unwrap_or("?"),
        runs.len(),
        runs.join("; "),
        plots.len(),
        line["out"].as_str().unwrap_or("?"),
    );
    if let Some(w) = list("without_task").filter(|w| !w.is_empty()) {
        text.push_str(&format!("\nwithout rows of the task (left out): {}", w.join(", ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panel_names_become_file_names() {
        assert_eq!(slug("VIR list_length=4"), "vir_list_length-4");
        assert_eq!(slug("VSR"), "vsr");
        assert_eq!(slug("nback-verbal dprime"), "nback-verbal_dprime");
        assert_eq!(slug("CD-Color (set size)"), "cd-color_set_size");
        // Cells with commas or quotes are quoted as RFC 4180 says (the records' own CSV writer).
        let mut row = String::new();
        push_csv_row(&mut row, &["a, \"b\"".to_string()]);
        assert_eq!(row, "\"a, \"\"b\"\"\"\n");
        let said = written_text(&serde_json::json!({"task": "VSR", "runs": ["p1 (person)", "GRU-16 (network)"],
            "plots": ["a.svg", "b.svg"], "out": "cmp", "without_task": ["x.json"]}));
        assert_eq!(
            said.lines().collect::<Vec<_>>(),
            [
                "VSR compared for 2 run(s): p1 (person); GRU-16 (network)",
                "2 plot(s) and the CSV files (curves, scores, significance, agreement, capacity, span, measures) in cmp",
                "without rows of the task (left out): x.json",
            ]
        );
    }
}
