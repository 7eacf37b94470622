//! `wmlab predict`: a network's raw outputs on trials that `wmlab generate` wrote — how anyone checks a
//! model against another implementation. It reads one task's folder (`frames.npy` `[N, T, 3, 32, 32]`,
//! `trials.jsonl`), runs the checkpoint's model on the frames as they are in the file, and writes
//! float32 `[N, T, K]`: the trial's task head's logits (before sigmoid or softmax) at every step,
//! padding steps included. Built with the `nn` feature.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::train::BackendArg;

#[derive(Args, Debug)]
pub struct PredictArgs {
    /// A checkpoint directory, a run directory (its best/ is used) or a bundle file, as `wmlab eval`.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// One task's folder written by `wmlab generate` (frames.npy and trials.jsonl).
    #[arg(long, value_name = "DIR")]
    pub trials: PathBuf,
    /// The `.npy` file to write: float32 `[N, T, K]`.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: BackendArg,
    /// Trials per forward pass (the outputs do not depend on it).
    #[arg(long, default_value_t = 64)]
    pub batch: usize,
}

/// The trials of a `wmlab generate` folder: the task, each trial's length, and the frames.
#[cfg_attr(not(feature = "nn"), allow(dead_code))]
#[derive(Debug)]
pub struct Trials {
    pub task: wmlab_core::task::TaskId,
    pub seq_len: Vec<usize>,
    /// Steps per trial in the file (T).
    pub steps: usize,
    /// `[N, T, 3, 32, 32]` as in frames.npy.
    pub frames: Vec<f32>,
}

/// The shape of a little-endian float32 C-order `.npy` array and where its data start.
pub fn npy_f32_shape(bytes: &[u8]) -> anyhow::Result<(Vec<usize>, usize)> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(anyhow::anyhow!("not a .npy file (no \\x93NUMPY magic)"));
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(anyhow::anyhow!(".npy version {v} is not one this reads")),
    };
    let header = bytes.get(start..start + len).ok_or_else(|| anyhow::anyhow!("the .npy header is cut off"))?;
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text").map_err(anyhow::Error::msg)?;
    if !header.contains("'descr': '<f4'") || !header.contains("'fortran_order': False") {
        return Err(anyhow::anyhow!("a little-endian float32 array in C order is needed, not {}", header.trim()));
    }
    let dims = header
        .split("'shape': (")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .ok_or_else(|| anyhow::anyhow!("no shape in the .npy header {}", header.trim()))?;
    let shape = dims
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse::<usize>().map_err(|_| format!("a bad dimension {d:?} in the .npy header")))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    Ok((shape, start + len))
}

/// Reads a folder written by `wmlab generate` for one task.
pub fn read_trials(dir: &Path) -> anyhow::Result<Trials> {
    let jsonl = dir.join("trials.jsonl");
    let text = std::fs::read_to_string(&jsonl).map_err(|e| anyhow::anyhow!("{}: {e}", jsonl.display()))?;
    let (mut task, mut seq_len) = (None, Vec::new());
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| anyhow::anyhow!("{} line {}: {e}", jsonl.display(), i + 1))?;
        let name = v["task"].as_str().unwrap_or_default();
        let id = wmlab_core::task::TaskId::parse(name)
            .ok_or_else(|| anyhow::anyhow!("{} line {}: no task {name:?}", jsonl.display(), i + 1))?;
        match task {
            None => task = Some(id),
            Some(t) if t != id => {
                return Err(anyhow::anyhow!(
                    "{}: trials of {} and {}; predict reads one task's folder (its head has one width)",
                    jsonl.display(),
                    t.as_str(),
                    id.as_str()
                ));
            }
            Some(_) => {}
        }
        let n =
            v["seq_len"].as_u64().ok_or_else(|| anyhow::anyhow!("{} line {}: no seq_len", jsonl.display(), i + 1))?;
        if n == 0 {
            return Err(anyhow::anyhow!(
                "{} line {}: seq_len 0 (a trial has at least one step)",
                jsonl.display(),
                i + 1
            ));
        }
        seq_len.push(n as usize);
    }
    let task = task.ok_or_else(|| anyhow::anyhow!("{}: no trials", jsonl.display()))?;
    if task == wmlab_core::task::TaskId::Lsr {
        return Err(anyhow::anyhow!("LSR trials are word vectors, not frames: predict reads frames.npy"));
    }
    let npy = dir.join("frames.npy");
    // What the file is, and its header, before its data are read: a link to /dev/zero or a sparse file
    // of gigabytes was read whole before any check.
    let meta = std::fs::metadata(&npy).map_err(|e| anyhow::anyhow!("{}: {e}", npy.display()))?;
    if !meta.is_file() {
        return Err(anyhow::anyhow!("{}: not a regular file (a device or a folder)", npy.display()));
    }
    let head = {
        use std::io::Read;
        let mut head = Vec::new();
        let f = std::fs::File::open(&npy).map_err(|e| anyhow::anyhow!("{}: {e}", npy.display()))?;
        f.take(1 << 16).read_to_end(&mut head).map_err(|e| anyhow::anyhow!("{}: {e}", npy.display()))?;
        head
    };
    let (shape, at) = npy_f32_shape(&head).map_err(|e| anyhow::anyhow!("{}: {e}", npy.display()))?;
    let want = shape.iter().try_fold(4u64, |acc, &d| acc.checked_mul(d as u64)).and_then(|b| b.checked_add(at as u64));
    if want != Some(meta.len()) {
        return Err(anyhow::anyhow!(
            "{}: {} bytes, where the header's shape {shape:?} needs {}",
            npy.display(),
            meta.len(),
            want.map_or("more than can be counted".to_string(), |w| w.to_string())
        ));
    }
    let bytes = std::fs::read(&npy).map_err(|e| anyhow::anyhow!("{}: {e}", npy.display()))?;
    let [n, steps, 3, 32, 32] = shape[..] else {
        return Err(anyhow::anyhow!("{}: shape {shape:?}, not [N, T, 3, 32, 32]", npy.display()));
    };
    if n != seq_len.len() {
        return Err(anyhow::anyhow!("{}: {n} trials, trials.jsonl {}", npy.display(), seq_len.len()));
    }
    if let Some(&long) = seq_len.iter().find(|&&l| l > steps) {
        return Err(anyhow::anyhow!("{}: a trial of {long} steps in frames of {steps}", jsonl.display()));
    }
    let data = &bytes[at..];
    if data.len() != n * steps * 3 * 32 * 32 * 4 {
        return Err(anyhow::anyhow!("{}: {} bytes of data for shape {shape:?}", npy.display(), data.len()));
    }
    let frames: Vec<f32> = data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // A NaN or an infinity in a frame gave finite outputs (PyTorch's model gives NaN): refused, with where.
    if let Some(k) = frames.iter().position(|v| !v.is_finite()) {
        let per_trial = steps * 3 * 32 * 32;
        return Err(anyhow::anyhow!(
            "{}: trial {}, step {} holds {} (frame values must be finite numbers)",
            npy.display(),
            k / per_trial,
            k % per_trial / (3 * 32 * 32),
            frames[k]
        ));
    }
    Ok(Trials { task, seq_len, steps, frames })
}

#[cfg(not(feature = "nn"))]
pub fn run(a: &PredictArgs) -> anyhow::Result<()> {
    // The folder is read (and refused in words) all the same; the model needs the networks.
    read_trials(&a.trials)?;
    Err(anyhow::anyhow!("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`"))
}

#[cfg(feature = "nn")]
pub fn run(a: &PredictArgs) -> anyhow::Result<()> {
    use wmlab_core::raster::TENSOR_LEN;
    use wmlab_nn::model::ModelInput;

    let trials = read_trials(&a.trials)?;
    let (path, ck) = crate::train::open_checkpoint(&a.checkpoint)?;
    let dev = crate::train::device(a.backend)?.without_autodiff();
    let model = ck.model(&dev)?;
    let (n, t) = (trials.seq_len.len(), trials.steps);
    let head = trials.task.head_index();
    let per = a.batch.max(1);
    let mut out: Vec<f32> = Vec::new();
    let mut width = 0;
    for first in (0..n).step_by(per) {
        let b = per.min(n - first);
        let batch = wmlab_nn::Batch {
            size: b,
            steps: t,
            frames: trials.frames[first * t * TENSOR_LEN..(first + b) * t * TENSOR_LEN].to_vec(),
            word_slots: 0,
            words: Vec::new(),
            tasks: vec![trials.task; b],
            seq_len: trials.seq_len[first..first + b].to_vec(),
            heads: Vec::new(),
        };
        let input = ModelInput::from_batch(&batch, &dev);
        let logits = model.forward(&input).swap_remove(head);
        width = logits.dims()[2];
        let host = pollster::block_on(wmlab_nn::loss::logits_to_host(vec![logits])).map_err(anyhow::Error::msg)?;
        out.extend_from_slice(&host[0]);
    }
    let mut bytes = crate::npy::header_f32(&[n, t, width]);
    bytes.extend(out.iter().flat_map(|x| x.to_le_bytes()));
    crate::write_atomic(&a.out, &bytes)?;
    eprintln!(
        "{} from {} on {} {} trials: [{n}, {t}, {width}] logits of its {} head in {}",
        ck.train.model.label(),
        path.display(),
        n,
        trials.task.as_str(),
        trials.task.as_str(),
        a.out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trials folder of `n` VSR trials of `steps` frames, `data` edited by `edit`.
    fn folder(name: &str, n: usize, steps: usize, seq: usize, edit: impl Fn(&mut Vec<u8>)) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("wmlab-predict-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lines: String = (0..n).map(|_| format!("{{\"task\":\"VSR\",\"seq_len\":{seq}}}\n")).collect();
        std::fs::write(dir.join("trials.jsonl"), lines).unwrap();
        let mut bytes = crate::npy::header_f32(&[n, steps, 3, 32, 32]);
        bytes.extend(std::iter::repeat_n(0u8, n * steps * 3 * 32 * 32 * 4));
        edit(&mut bytes);
        std::fs::write(dir.join("frames.npy"), bytes).unwrap();
        dir
    }

    /// Issue 71: NaN frames gave finite outputs, seq_len 0 was accepted, and frames.npy was read whole
    /// before any check (a link to /dev/zero, a sparse file of gigabytes).
    #[test]
    fn bad_frames_and_lengths_are_refused_before_the_model_runs() {
        let ok = folder("ok", 2, 4, 4, |_| {});
        assert_eq!(read_trials(&ok).unwrap().frames.len(), 2 * 4 * 3072);
        let nan = folder("nan", 2, 4, 4, |b| {
            let at = b.len() - 4 * 3072 * 2 + 5 * 4;
            b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        });
        let e = read_trials(&nan).unwrap_err().to_string();
        assert!(e.contains("trial 1, step 2 holds NaN"), "{e}");
        let zero = folder("zero", 1, 4, 0, |_| {});
        assert!(read_trials(&zero).unwrap_err().to_string().contains("seq_len 0"));
        let long = folder("long", 1, 4, 4, |b| b.extend([0u8; 4096]));
        assert!(read_trials(&long).unwrap_err().to_string().contains("bytes, where the header's shape"));
        #[cfg(unix)]
        {
            let dev = folder("dev", 1, 4, 4, |_| {});
            std::fs::remove_file(dev.join("frames.npy")).unwrap();
            std::os::unix::fs::symlink("/dev/zero", dev.join("frames.npy")).unwrap();
            assert!(read_trials(&dev).unwrap_err().to_string().contains("not a regular file"));
            std::fs::remove_dir_all(&dev).ok();
        }
        for d in [ok, nan, zero, long] {
            std::fs::remove_dir_all(&d).ok();
        }
    }
}
