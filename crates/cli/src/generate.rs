//! `wmlab generate`: a dataset of trials 0..N of one task and split, for ML use.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::{Value, json};
use wmlab_core::raster::{self, BIG, SMALL, TENSOR_LEN};
use wmlab_core::task::{HeadKind, MAX_STEPS};
use wmlab_core::{Conditions, Split, Target, TaskSpec, Trial};

use crate::{GenerateArgs, PngMode, TaskSel, npy, pngout};

fn io_err(path: &Path, e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("writing {}: {e}", path.display())
}

pub fn run(a: &GenerateArgs) -> anyhow::Result<()> {
    let ids = a.task.ids();
    if a.start.checked_add(a.count).is_none() {
        return Err(anyhow::anyhow!("--start {} + --count {} overflows", a.start, a.count));
    }
    // Every task's parameters before any work: a bad --set stops here, naming what is allowed.
    // One task: every key must be its own (the message names it); several: each key goes to those with it.
    let mut specs: Vec<TaskSpec> = ids.iter().map(|&id| TaskSpec::with_quirks(id, a.quirks)).collect();
    match &mut specs[..] {
        [one] => one.set_all(&a.set, false)?,
        all => TaskSpec::set_on_all(all, &a.set, "chosen")?,
    }
    let total = a.count * ids.len() as u64;
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(total), crate::progress::stderr_target())
    };
    bar.set_style(
        ProgressStyle::with_template("{msg:>14} [{bar:40}] {pos}/{len} trials  {per_sec}  eta {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    for (&id, spec) in ids.iter().zip(specs) {
        let dir = match a.task {
            TaskSel::All => a.out.join(id.as_str()),
            TaskSel::One(_) => a.out.clone(),
        };
        bar.set_message(id.as_str());
        let (frames, pngs) = one_task(&spec, a, &dir, &bar)?;
        bar.suspend(|| {
            out!("{:<15} {} trials, {} real frames, {} PNGs -> {}", id.as_str(), a.count, frames, pngs, dir.display())
        });
    }
    bar.finish_and_clear();
    Ok(())
}

/// One line of trials.jsonl (fields in this order).
#[derive(Serialize)]
pub struct TrialLine<'a> {
    pub trial: u64,
    pub task: &'static str,
    pub split: &'static str,
    pub seed: u64,
    pub seq_len: usize,
    /// `max_steps` entries (20 unless task parameters make longer trials): a class index, a sorted set
    /// of units (SFR), or null (unscored or padded step).
    pub targets: Vec<Option<&'a Target>>,
    pub mask: Vec<bool>,
    pub conditions: &'a Conditions,
    /// `max_steps` entries: the 1-based serial position a probe step asks about, else null.
    pub serial_positions: Vec<Option<u8>>,
    /// LSR only: per real step, the word in each slot (null = an empty, zero slot); a network reads
    /// these as word vectors (`public/data/lsr/vectors.bin`), not the frames.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<Vec<Option<&'static str>>>,
}

impl<'a> TrialLine<'a> {
    pub fn new(i: u64, t: &'a Trial, split: Split, seed: u64, max_steps: usize) -> Self {
        TrialLine {
            trial: i,
            task: t.task.as_str(),
            split: split.as_str(),
            seed,
            seq_len: t.len(),
            targets: (0..max_steps).map(|k| t.steps.get(k).map(|s| &s.target)).collect(),
            mask: t.mask(max_steps),
            conditions: &t.conditions,
            serial_positions: (0..max_steps).map(|k| t.steps.get(k).and_then(|s| s.serial_position)).collect(),
            words: t
                .steps
                .iter()
                .filter(|s| !s.words.is_empty())
                .map(|s| {
                    let vocab = wmlab_core::tasks::lsr::words();
                    s.words.iter().map(|&w| vocab.get(w as usize).copied()).collect()
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct Meta<'a> {
    task: &'static str,
    title: &'static str,
    ordinal: u8,
    split: &'static str,
    count: u64,
    start: u64,
    seed: u64,
    wmlab_version: &'static str,
    spec: &'a TaskSpec,
    head: HeadKind,
    grid: Vec<Conditions>,
    max_steps: usize,
    real_frames: u64,
    shapes: Value,
    files: Value,
}

/// Write one task's files into `dir`; returns (real frames, PNGs written).
/// Trials per unit of work of the generating threads.
const CHUNK: u64 = 32;

/// A run of consecutive trials, made by one thread: their frames as `.npy` bytes, their lines of
/// trials.jsonl, and counts.
struct Chunk {
    npy: Vec<u8>,
    jsonl: String,
    trials: u64,
    frames: u64,
    pngs: u64,
}

fn make_chunk(
    spec: &TaskSpec,
    a: &GenerateArgs,
    split: Split,
    max_steps: usize,
    png_dir: &Path,
    trials: std::ops::Range<u64>,
) -> anyhow::Result<Chunk> {
    let id = spec.id;
    // The padding frame is the same for every padded step.
    let pad_tensor = raster::tensor32(&wmlab_core::Frame::padding());
    let mut tensor = vec![0.0f32; TENSOR_LEN];
    let mut c = Chunk {
        npy: Vec::with_capacity((trials.end - trials.start) as usize * max_steps * TENSOR_LEN * 4),
        jsonl: String::new(),
        trials: trials.end - trials.start,
        frames: 0,
        pngs: 0,
    };
    for i in trials {
        let trial = spec.trial(a.seed, split, i);
        if trial.len() > max_steps {
            return Err(anyhow::anyhow!(
                "{id} trial {i} has {} steps, more than the {max_steps} of the export",
                trial.len()
            ));
        }
        for t in 0..max_steps {
            let data: &[f32] = if t < trial.len() {
                let frame = trial.frame_at(t);
                let name = || png_dir.join(format!("{}_{:06}_{:02}.png", split.as_str(), i, t));
                c.frames += 1;
                match a.png {
                    PngMode::None => raster::tensor_into(&frame, &mut tensor),
                    PngMode::Px96 => {
                        let img = raster::draw96(&frame);
                        raster::downsample(&img, &mut tensor);
                        pngout::write(&name(), BIG as u32, BIG as u32, &img.px, true)?;
                        c.pngs += 1;
                    }
                    PngMode::Px32 => {
                        raster::tensor_into(&frame, &mut tensor);
                        pngout::write(&name(), SMALL as u32, SMALL as u32, &raster::tensor_to_rgb8(&tensor), true)?;
                        c.pngs += 1;
                    }
                }
                &tensor
            } else {
                &pad_tensor
            };
            for v in data {
                c.npy.extend_from_slice(&v.to_le_bytes());
            }
        }
        let line =
            serde_json::to_string(&TrialLine::new(i, &trial, split, a.seed, max_steps)).expect("trial line serialises");
        c.jsonl.push_str(&line);
        c.jsonl.push('\n');
    }
    Ok(c)
}

fn one_task(spec: &TaskSpec, a: &GenerateArgs, dir: &Path, bar: &ProgressBar) -> anyhow::Result<(u64, u64)> {
    let (id, spec) = (spec.id, spec.clone());
    let split = a.split.split();
    fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let png_dir = dir.join("png");
    if a.png != PngMode::None {
        fs::create_dir_all(&png_dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", png_dir.display()))?;
    }

    // Padded to 20 steps, or to the longest trial the task's parameters make (long lists, A3.2).
    let max_steps = spec.longest_trial().max(MAX_STEPS);
    let shape = [a.count as usize, max_steps, 3, SMALL, SMALL];
    let npy_path = dir.join("frames.npy");
    let mut npy_w = BufWriter::with_capacity(1 << 20, File::create(&npy_path).map_err(|e| io_err(&npy_path, e))?);
    npy_w.write_all(&npy::header_f32(&shape)).map_err(|e| io_err(&npy_path, e))?;
    let jsonl_path = dir.join("trials.jsonl");
    let mut jsonl_w = BufWriter::new(File::create(&jsonl_path).map_err(|e| io_err(&jsonl_path, e))?);

    // Trials are made in chunks by `jobs` threads and written in order by this one: the files are the
    // same bytes whatever the number of threads (a test checks).
    let chunks = a.count.div_ceil(CHUNK);
    let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = a.jobs.unwrap_or_else(cores).min(chunks as usize).max(1);
    let next = std::sync::atomic::AtomicU64::new(0);
    let (tx, rx) = std::sync::mpsc::sync_channel::<(u64, anyhow::Result<Chunk>)>(2 * jobs);
    let (mut frames, mut pngs) = (0u64, 0u64);
    let written: anyhow::Result<()> = std::thread::scope(|scope| {
        for _ in 0..jobs {
            let (tx, next, spec) = (tx.clone(), &next, &spec);
            let png_dir = &png_dir;
            scope.spawn(move || {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= chunks {
                        return;
                    }
                    // (offsets within the run first: start + count is checked not to overflow)
                    let first = a.start + k * CHUNK;
                    let last = a.start + ((k + 1) * CHUNK).min(a.count);
                    // A panic becomes this chunk's error: the other threads stop as for any failure,
                    // so the writer never waits for a chunk that will not come while buffering later ones.
                    let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        make_chunk(spec, a, split, max_steps, png_dir, first..last)
                    }));
                    let chunk = made.unwrap_or_else(|p| {
                        let why = p
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "a panic".into());
                        Err(anyhow::anyhow!("{id}: trials {first}..{last} could not be made: {why}"))
                    });
                    let failed = chunk.is_err();
                    if tx.send((k, chunk)).is_err() || failed {
                        // the writer has stopped, or this chunk failed: the writer reports it
                        next.store(chunks, std::sync::atomic::Ordering::Relaxed);
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = std::collections::BTreeMap::new();
        let mut want = 0u64;
        for (k, chunk) in rx {
            waiting.insert(k, chunk);
            while let Some(c) = waiting.remove(&want) {
                // a failed chunk is reported when its turn comes, so the first failure in trial order wins
                let c = c?;
                npy_w.write_all(&c.npy).map_err(|e| io_err(&npy_path, e))?;
                jsonl_w.write_all(c.jsonl.as_bytes()).map_err(|e| io_err(&jsonl_path, e))?;
                (frames, pngs) = (frames + c.frames, pngs + c.pngs);
                bar.inc(c.trials);
                want += 1;
            }
        }
        if want < chunks {
            // workers stopped after a failure in a later chunk, before this one was made
            if let Some((_, Err(e))) = waiting.into_iter().find(|(_, c)| c.is_err()) {
                return Err(e);
            }
            return Err(anyhow::anyhow!("{id}: trials were lost while generating (a worker thread stopped)"));
        }
        Ok(())
    });
    written?;
    npy_w.flush().map_err(|e| io_err(&npy_path, e))?;
    jsonl_w.flush().map_err(|e| io_err(&jsonl_path, e))?;

    let meta = Meta {
        task: id.as_str(),
        title: id.title(),
        ordinal: id.ordinal(),
        split: split.as_str(),
        count: a.count,
        start: a.start,
        seed: a.seed,
        wmlab_version: wmlab_core::VERSION,
        spec: &spec,
        head: id.head(),
        grid: spec.grid(),
        max_steps,
        real_frames: frames,
        shapes: json!({
            "frames": shape,
            "frames_dtype": "float32",
            "frames_range": [0.0, 1.0],
            "frames_layout": "trial, step, channel (RGB), row, column; steps after seq_len are black padding",
            "png": a.png.as_str(),
            "png_size": match a.png { PngMode::None => Value::Null, PngMode::Px96 => json!([BIG, BIG]), PngMode::Px32 => json!([SMALL, SMALL]) },
        }),
        files: json!({
            "frames": "frames.npy",
            "trials": "trials.jsonl",
            "png": match a.png { PngMode::None => Value::Null, _ => json!(format!("png/{}_{{trial:06}}_{{step:02}}.png", split.as_str())) },
        }),
    };
    let meta_path = dir.join("meta.json");
    let text = serde_json::to_string_pretty(&meta).expect("meta serialises");
    fs::write(&meta_path, text + "\n").map_err(|e| io_err(&meta_path, e))?;
    Ok((frames, pngs))
}
