//! End-to-end tests of the `wmlab` binary: run it as a user would and check the files it writes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const IDS: [&str; 14] = [
    "SC",
    "SFR",
    "SI",
    "SMU",
    "STS",
    "VIR",
    "VSR",
    "VSRec",
    "CD-Color",
    "CD-Orientation",
    "CD-Size",
    "CD-Gap",
    "CD-Conjunction",
    "CS",
];
const STEPS: usize = 20;
const TRIAL_FLOATS: usize = STEPS * 3 * 32 * 32;

fn wmlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wmlab")).args(args).output().expect("run wmlab")
}

fn ok(args: &[&str]) -> String {
    let out = wmlab(args);
    assert!(
        out.status.success(),
        "wmlab {args:?} failed ({:?}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8 stdout")
}

/// Runs and expects a failure whose stderr mentions every one of `needles`.
fn fails(args: &[&str], needles: &[&str]) {
    let out = wmlab(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "wmlab {args:?} should fail; stdout:\n{}", String::from_utf8_lossy(&out.stdout));
    for n in needles {
        assert!(err.contains(n), "wmlab {args:?}: stderr does not mention {n:?}:\n{err}");
    }
}

/// A fresh, unique directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let p = std::env::temp_dir().join(format!(
            "wmlab-cli-test-{}-{}-{name}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn path(&self) -> &Path {
        &self.0
    }
    fn s(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Parses an .npy v1.0 header; returns (header length, shape).
fn npy_header(bytes: &[u8]) -> (usize, Vec<usize>) {
    assert_eq!(&bytes[..6], b"\x93NUMPY", "npy magic");
    assert_eq!(&bytes[6..8], &[1, 0], "npy version 1.0");
    let n = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let total = 10 + n;
    assert_eq!(total % 64, 0, "data is 64-byte aligned");
    let dict = std::str::from_utf8(&bytes[10..total]).unwrap();
    assert!(dict.ends_with('\n'));
    assert!(dict.contains("'descr': '<f4'"), "{dict}");
    assert!(dict.contains("'fortran_order': False"), "{dict}");
    let open = dict.find("'shape': (").unwrap() + "'shape': (".len();
    let close = open + dict[open..].find(')').unwrap();
    let shape =
        dict[open..close].split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
    (total, shape)
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn png_size(path: &Path) -> (u32, u32) {
    let b = fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{} is a PNG", path.display());
    assert_eq!(&b[12..16], b"IHDR");
    (u32::from_be_bytes(b[16..20].try_into().unwrap()), u32::from_be_bytes(b[20..24].try_into().unwrap()))
}

fn png_rgb(path: &Path) -> Vec<u8> {
    let dec = png::Decoder::new(std::io::BufReader::new(fs::File::open(path).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    buf
}

/// Checks every file of one task's dataset directory; returns the parsed JSON lines.
fn check_dataset(
    dir: &Path,
    task: &str,
    split: &str,
    count: usize,
    seed: u64,
    png: Option<u32>,
) -> Vec<serde_json::Value> {
    // frames.npy
    let bytes = fs::read(dir.join("frames.npy")).unwrap();
    let (hlen, shape) = npy_header(&bytes);
    assert_eq!(shape, vec![count, STEPS, 3, 32, 32], "{task}");
    assert_eq!(bytes.len(), hlen + count * TRIAL_FLOATS * 4, "{task}: npy size");
    let floats = f32s(&bytes[hlen..]);
    assert!(floats.iter().all(|v| (0.0..=1.0).contains(v)), "{task}: values in [0,1]");

    // trials.jsonl
    let text = fs::read_to_string(dir.join("trials.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), count, "{task}: one line per trial");
    let mut real_frames = 0;
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["trial"], i as u64);
        assert_eq!(l["task"], task);
        assert_eq!(l["split"], split);
        assert_eq!(l["seed"], seed);
        let seq_len = l["seq_len"].as_u64().unwrap() as usize;
        assert!((1..=STEPS).contains(&seq_len), "{task} trial {i}: seq_len {seq_len}");
        let mask: Vec<bool> = l["mask"].as_array().unwrap().iter().map(|b| b.as_bool().unwrap()).collect();
        assert_eq!(mask.len(), STEPS);
        assert!(mask.iter().any(|&m| m), "{task} trial {i}: no scored step");
        assert!(mask[seq_len..].iter().all(|&m| !m), "{task} trial {i}: padded step scored");
        let targets = l["targets"].as_array().unwrap();
        assert_eq!(targets.len(), STEPS);
        for (t, target) in targets.iter().enumerate() {
            if mask[t] {
                assert!(target.is_u64() || target.is_array(), "{task} trial {i} step {t}: scored target {target}");
            }
            if t >= seq_len {
                assert!(target.is_null());
            }
        }
        assert_eq!(l["serial_positions"].as_array().unwrap().len(), STEPS);
        assert!(l["conditions"].is_object());
        // padded steps are the black frame; real steps are not (every in-trial frame has a background)
        let trial = &floats[i * TRIAL_FLOATS..(i + 1) * TRIAL_FLOATS];
        for t in 0..STEPS {
            let frame = &trial[t * 3072..(t + 1) * 3072];
            if t < seq_len {
                assert!(frame.iter().any(|&v| v > 0.0), "{task} trial {i} step {t}: real frame is black");
            } else {
                assert!(frame.iter().all(|&v| v == 0.0), "{task} trial {i} step {t}: padding is not black");
            }
        }
        real_frames += seq_len;
    }

    // png/
    let png_dir = dir.join("png");
    match png {
        None => assert!(!png_dir.exists() || fs::read_dir(&png_dir).unwrap().next().is_none()),
        Some(size) => {
            let names: Vec<String> =
                fs::read_dir(&png_dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            assert_eq!(names.len(), real_frames, "{task}: one PNG per real step");
            for (i, l) in lines.iter().enumerate() {
                let seq_len = l["seq_len"].as_u64().unwrap() as usize;
                for t in 0..seq_len {
                    let p = png_dir.join(format!("{split}_{i:06}_{t:02}.png"));
                    assert_eq!(png_size(&p), (size, size), "{}", p.display());
                }
            }
        }
    }

    // meta.json
    let meta: serde_json::Value = serde_json::from_str(&fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["task"], task);
    assert_eq!(meta["split"], split);
    assert_eq!(meta["count"], count as u64);
    assert_eq!(meta["seed"], seed);
    assert_eq!(meta["spec"]["id"], task);
    assert!(meta["wmlab_version"].is_string());
    assert_eq!(meta["shapes"]["frames"], serde_json::json!([count, 20, 3, 32, 32]));
    lines
}

#[test]
fn generate_single_tasks() {
    for (task, split, count, seed) in [("VIR", "test", 7, 3u64), ("SFR", "train", 5, 0), ("CD-Color", "val", 6, 42)] {
        let dir = TempDir::new(task);
        let stdout = ok(&[
            "generate",
            "--task",
            task,
            "--split",
            split,
            "--count",
            &count.to_string(),
            "--seed",
            &seed.to_string(),
            "--out",
            dir.s(),
        ]);
        assert!(stdout.contains(task), "{stdout}");
        check_dataset(dir.path(), task, split, count, seed, Some(96));
    }
}

#[test]
fn generate_all_tasks_into_subdirectories() {
    let dir = TempDir::new("all");
    ok(&[
        "generate",
        "--task",
        "all",
        "--split",
        "test",
        "--count",
        "3",
        "--seed",
        "5",
        "--out",
        dir.s(),
        "--png",
        "none",
        "-q",
    ]);
    for id in IDS {
        check_dataset(&dir.path().join(id), id, "test", 3, 5, None);
    }
}

/// Without a terminal (here stderr is a pipe) the progress bar is not lost: it is written as plain
/// lines, so a long job in a log shows that it moves (issue 71: 100k trials ran without a word).
#[test]
fn progress_without_a_terminal_is_written_as_lines() {
    let dir = TempDir::new("plain-progress");
    let out = wmlab(&["generate", "--task", "SC", "--split", "test", "--count", "3", "--out", dir.s()]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().any(|l| l.starts_with("wmlab: ") && l.contains("/3 trials")), "stderr:\n{err}");
    let quiet = wmlab(&["generate", "--task", "SC", "--split", "test", "--count", "3", "--out", dir.s(), "--quiet"]);
    assert!(
        quiet.status.success() && !String::from_utf8_lossy(&quiet.stderr).contains("wmlab: "),
        "--quiet says nothing"
    );
}

#[test]
fn png32_frames_are_the_tensors() {
    let dir = TempDir::new("png32");
    ok(&["generate", "--task", "VSRec", "--split", "test", "--count", "2", "--out", dir.s(), "--png", "32"]);
    let lines = check_dataset(dir.path(), "VSRec", "test", 2, 0, Some(32));
    let bytes = fs::read(dir.path().join("frames.npy")).unwrap();
    let (hlen, _) = npy_header(&bytes);
    let floats = f32s(&bytes[hlen..]);
    for (i, l) in lines.iter().enumerate() {
        for t in 0..l["seq_len"].as_u64().unwrap() as usize {
            let rgb = png_rgb(&dir.path().join(format!("png/test_{i:06}_{t:02}.png")));
            let tensor = &floats[(i * STEPS + t) * 3072..(i * STEPS + t + 1) * 3072];
            for p in 0..1024 {
                for c in 0..3 {
                    let want = (tensor[c * 1024 + p] * 255.0).round() as u8;
                    assert_eq!(rgb[p * 3 + c], want, "trial {i} step {t} pixel {p} channel {c}");
                }
            }
        }
    }
}

/// Trials are made by several threads in chunks and written in order: the files do not depend on the
/// number of threads (70 trials: two whole chunks of 32 and a part).
#[test]
fn generate_threads_write_the_same_files() {
    let one = TempDir::new("jobs1");
    let three = TempDir::new("jobs3");
    for (dir, jobs) in [(&one, "1"), (&three, "3")] {
        ok(&["generate", "--task", "SFR", "--split", "train", "--count", "70", "--seed", "4", "--out", dir.s()]
            .into_iter()
            .chain(["--png", "32", "--jobs", jobs, "--quiet"])
            .collect::<Vec<_>>());
    }
    for f in ["frames.npy", "trials.jsonl", "meta.json", "png/train_000069_00.png", "png/train_000033_01.png"] {
        let (a, b) = (fs::read(one.path().join(f)).unwrap(), fs::read(three.path().join(f)).unwrap());
        assert!(a == b, "{f} differs between --jobs 1 and --jobs 3");
    }
    // the last trial indices a u64 holds: chunk arithmetic must not overflow past START + COUNT
    let top = TempDir::new("top");
    let start = (u64::MAX - 11).to_string();
    ok(&["generate", "--task", "SI", "--split", "test", "--count", "10", "--start", &start, "--out", top.s()]
        .into_iter()
        .chain(["--png", "none", "--quiet"])
        .collect::<Vec<_>>());
    let lines = fs::read_to_string(top.path().join("trials.jsonl")).unwrap();
    let ids: Vec<u64> = lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["trial"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (u64::MAX - 11..u64::MAX - 1).collect::<Vec<_>>());

    let lines = fs::read_to_string(three.path().join("trials.jsonl")).unwrap();
    let ids: Vec<u64> = lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["trial"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (0..70).collect::<Vec<_>>());
}

#[test]
fn start_writes_the_same_trials_as_one_run() {
    let whole = TempDir::new("whole");
    let part = TempDir::new("part");
    ok(&[
        "generate",
        "--task",
        "CS",
        "--split",
        "train",
        "--count",
        "5",
        "--seed",
        "9",
        "--out",
        whole.s(),
        "--png",
        "none",
    ]);
    ok(&[
        "generate",
        "--task",
        "CS",
        "--split",
        "train",
        "--count",
        "2",
        "--start",
        "3",
        "--seed",
        "9",
        "--out",
        part.s(),
        "--png",
        "none",
    ]);
    let a = fs::read(whole.path().join("frames.npy")).unwrap();
    let b = fs::read(part.path().join("frames.npy")).unwrap();
    let (ha, _) = npy_header(&a);
    let (hb, shape) = npy_header(&b);
    assert_eq!(shape[0], 2);
    assert_eq!(&a[ha + 3 * TRIAL_FLOATS * 4..], &b[hb..]);
    let la: Vec<String> =
        fs::read_to_string(whole.path().join("trials.jsonl")).unwrap().lines().map(String::from).collect();
    let lb: Vec<String> =
        fs::read_to_string(part.path().join("trials.jsonl")).unwrap().lines().map(String::from).collect();
    assert_eq!(&la[3..], &lb[..]);
}

#[test]
fn bad_arguments_fail_with_a_message() {
    let dir = TempDir::new("bad");
    let out = dir.s();
    // unknown id: names it and lists every valid id
    let mut needles = vec!["unknown task id", "XYZ"];
    needles.extend(IDS);
    fails(&["generate", "--task", "XYZ", "--split", "test", "--count", "2", "--out", out], &needles);
    fails(&["generate", "--task", "vsrec", "--split", "test", "--count", "2", "--out", out], &["VSRec"]);
    fails(&["generate", "--task", "VIR", "--split", "test", "--count", "0", "--out", out], &["--count", "at least 1"]);
    fails(
        &["generate", "--task", "VIR", "--split", "test", "--count", "99999999", "--out", out],
        &["--count", "too large"],
    );
    fails(&["generate", "--task", "VIR", "--split", "test", "--count", "many", "--out", out], &["--count", "many"]);
    fails(&["generate", "--task", "VIR", "--split", "holdout", "--count", "2", "--out", out], &["--split", "holdout"]);
    fails(&["generate", "--task", "VIR", "--split", "test", "--count", "2"], &["--out"]);
    fails(&["generate", "--task", "VIR", "--split", "test", "--count", "2", "--out", out, "--png", "64"], &["--png"]);
    fails(&["hash", "--task", "NOPE", "--split", "test", "--count", "2"], &["unknown task id", "NOPE"]);
    fails(&["bench", "--seconds", "-1"], &["--seconds"]);
    fails(&["bench", "--task", "CD-Hue"], &["unknown task id", "CD-Color"]);
    fails(&["frobnicate"], &["frobnicate"]);
    // an output path that cannot be a directory
    let file = dir.path().join("a-file");
    fs::write(&file, "x").unwrap();
    fails(
        &["generate", "--task", "VIR", "--split", "test", "--count", "1", "--out", file.to_str().unwrap()],
        &["a-file"],
    );
}

#[test]
fn help_lists_the_commands_and_ids() {
    let h = ok(&["--help"]);
    for c in ["generate", "gallery", "bench", "hash"] {
        assert!(h.contains(c), "{h}");
    }
    let g = ok(&["generate", "--help"]);
    for w in ["frames.npy", "trials.jsonl", "meta.json", "--png", "CD-Conjunction", "all"] {
        assert!(g.contains(w), "{g}");
    }
}

fn hash(task: &str, split: &str, count: &str, seed: &str) -> String {
    let h = ok(&["hash", "--task", task, "--split", split, "--count", count, "--seed", seed]).trim().to_string();
    assert_eq!(h.len(), 16, "{h}");
    assert!(h.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{h}");
    h
}

#[test]
fn hash_is_stable_and_depends_on_seed_split_and_task() {
    let a = hash("VIR", "test", "4", "1");
    assert_eq!(a, hash("VIR", "test", "4", "1"));
    assert_ne!(a, hash("VIR", "test", "4", "2"));
    assert_ne!(a, hash("VIR", "train", "4", "1"));
    assert_ne!(a, hash("VIR", "test", "5", "1"));
    let all = hash("all", "test", "2", "1");
    assert_eq!(all, hash("all", "test", "2", "1"));
    assert_ne!(all, hash("all", "test", "2", "3"));
    let per_task: std::collections::HashSet<String> = IDS.iter().map(|id| hash(id, "val", "2", "7")).collect();
    assert_eq!(per_task.len(), IDS.len(), "every task hashes differently");
}

#[test]
fn gallery_writes_a_contact_sheet() {
    let dir = TempDir::new("gallery");
    let file = dir.path().join("g.png");
    let stdout = ok(&["gallery", "--out", file.to_str().unwrap(), "--seed", "3"]);
    for id in IDS {
        assert!(stdout.contains(id), "{stdout}");
    }
    // GAP | label (14 glyphs × 6 px × 2 − 2) | GAP | 20 frames of 96 with 19 GAPs | GAP; 14 rows of 96 with GAPs.
    let label = (14 * 6 - 1) * 2;
    let w = 4 + label + 4 + 20 * 96 + 19 * 4 + 4;
    let h = 4 + 14 * 96 + 13 * 4 + 4;
    assert_eq!(png_size(&file), (w as u32, h as u32));
    let rgb = png_rgb(&file);
    assert_eq!(rgb.len(), w * h * 3);
    // the label column has black text
    let label_col_dark = (0..h).any(|y| (4..4 + label).any(|x| rgb[(y * w + x) * 3] == 0));
    assert!(label_col_dark, "labels drawn");
    let x0 = 4 + label + 4;
    let first: Vec<&[u8]> =
        (4..4 + 96).flat_map(|y| (x0..x0 + 96).map(move |x| (y * w + x) * 3)).map(|i| &rgb[i..i + 3]).collect();
    let gray = first.iter().filter(|p| **p == [214, 214, 214]).count();
    let not_white = first.iter().filter(|p| **p != [255, 255, 255]).count();
    assert!(gray > 0 && not_white > 96, "a frame is drawn in the first cell (gray {gray}, non-white {not_white})");
}

#[test]
fn bench_prints_one_line_per_task_and_joint_lines() {
    let out = ok(&["bench", "--seconds", "0.05"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 16, "{out}");
    for (line, id) in lines.iter().zip(IDS) {
        assert_eq!(line.split_whitespace().next(), Some(id), "{line}");
    }
    assert_eq!(lines[14].split_whitespace().next(), Some("joint"), "{out}");
    assert_eq!(lines[15].split_whitespace().next(), Some("joint-batch"), "{out}");
    // runs of 10 trials per id: whole rounds of the 14 ids, at least one
    let trials: u64 = lines[15].split("(trials ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
    assert!(trials >= 140 && trials.is_multiple_of(140), "{out}");
    for l in &lines {
        assert!(l.contains("frames/s") && l.contains("trials/s"), "{l}");
        let fps: f64 = l.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(fps > 0.0, "{l}");
    }
    let one = ok(&["bench", "--seconds", "0", "--task", "CD-Gap"]);
    assert_eq!(one.lines().count(), 1, "{one}");
    assert!(one.starts_with("CD-Gap"), "{one}");
}

/// `wmlab stats` with piped stdin and stdout.
fn spawn_stats() -> std::process::Child {
    use std::process::Stdio;
    Command::new(env!("CARGO_BIN_EXE_wmlab")).arg("stats").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap()
}

/// `wmlab stats` end to end: every SciPy reference request through the binary, plus a bad line in the
/// middle that answers with an error on its own line while the rest go on.
#[test]
fn stats_answers_every_line_in_order_as_scipy_does() {
    use std::io::Write;
    let reference = include_str!("../../core/tests/data/stats_reference.jsonl");
    let cases: Vec<serde_json::Value> = reference.lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut input = String::new();
    for (i, c) in cases.iter().enumerate() {
        if i == 3 {
            input.push_str("{\"test\":\"t1\",\"a\":[1]}\n\n");
        }
        input.push_str(&c["request"].to_string());
        input.push('\n');
    }
    let mut child = spawn_stats();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), cases.len() + 1, "one line out per non-blank line in");
    assert!(lines[3]["error"].as_str().unwrap().contains("mu"), "{}", lines[3]);
    let answers = lines[..3].iter().chain(&lines[4..]);
    for (c, got) in cases.iter().zip(answers) {
        for (key, want) in c["expected"].as_object().unwrap() {
            let (g, w) = (got[key].as_f64().unwrap(), want.as_f64().unwrap());
            assert!((g - w).abs() <= 1e-9 + 1e-7 * w.abs(), "{}: {key} {g} vs SciPy {w}", c["request"]);
        }
    }
}

/// Each answer of `wmlab stats` comes out as its line is answered, while stdin is still open: a later
/// line that takes long (or a kill) does not hold back or lose the earlier answers.
#[test]
fn stats_answers_each_line_before_the_input_ends() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = spawn_stats();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"test\":\"t1\",\"a\":[1,2,3],\"mu\":0}\n").unwrap();
    stdin.flush().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the first answer while stdin is open");
    assert!(line.contains("\"statistic\""), "{line}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// `--quirks` reaches the generator: STS with cue steps scored writes more scored steps and says so in
/// meta.json; an unknown name is refused in words.
#[test]
fn generate_with_reference_quirks() {
    let scored = |dir: &TempDir| -> usize {
        fs::read_to_string(dir.path().join("trials.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["mask"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|m| m.as_bool() == Some(true))
                    .count()
            })
            .sum()
    };
    let (plain, quirky) = (TempDir::new("sts-plain"), TempDir::new("sts-quirk"));
    ok(&["generate", "--task", "STS", "--split", "test", "--count", "4", "--png", "none", "-q", "--out", plain.s()]);
    ok(&[
        "generate",
        "--task",
        "STS",
        "--split",
        "test",
        "--count",
        "4",
        "--png",
        "none",
        "-q",
        "--quirks",
        "sts-cue-steps",
        "--out",
        quirky.s(),
    ]);
    assert!(scored(&quirky) > scored(&plain), "{} vs {}", scored(&quirky), scored(&plain));
    let meta = fs::read_to_string(quirky.path().join("meta.json")).unwrap();
    assert!(meta.contains("\"score_cue_steps\": true"), "{meta}");
    fails(
        &["generate", "--task", "STS", "--split", "test", "--count", "1", "--quirks", "sts-cues", "--out", quirky.s()],
        &["unknown quirk", "sts-cue-steps"],
    );
}

/// `--set KEY=VALUE` reaches the generator: CD with noise masks writes retention frames that are not gray
/// and records the setting in meta.json; an unknown key or a bad value is refused before anything is
/// written, naming what is allowed.
#[test]
fn generate_with_task_parameters() {
    let out = TempDir::new("cd-noise");
    let args = |extra: &[&'static str]| {
        let mut v = vec!["generate", "--task", "CD-Color", "--split", "test", "--count", "24", "--png", "none", "-q"];
        v.extend_from_slice(extra);
        v
    };
    let mut a = args(&["--set", "noise_mask=true", "--set", "retentions=6", "--out"]);
    a.push(out.s());
    ok(&a);
    let meta = fs::read_to_string(out.path().join("meta.json")).unwrap();
    assert!(meta.contains("\"noise_mask\": true") && meta.contains("\"retentions\": [\n"), "{meta}");
    // Step 1 of the first trial is a retention frame: noise, not the uniform gray of a plain frame.
    let bytes = fs::read(out.path().join("frames.npy")).unwrap();
    let data = &bytes[bytes.len() - 24 * TRIAL_FLOATS * 4..];
    let step1: Vec<f32> = data[3 * 32 * 32 * 4..2 * 3 * 32 * 32 * 4]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let (lo, hi) = step1.iter().fold((1.0f32, 0.0f32), |(l, h), &v| (l.min(v), h.max(v)));
    assert!(hi - lo > 0.3, "a noise retention frame varies: {lo}..{hi}");
    let none = TempDir::new("cd-noise-refused");
    let mut a = args(&["--set", "noise=true", "--out"]);
    a.push(none.s());
    fails(&a, &["no parameter \"noise\"", "noise_mask"]);
    let mut a = args(&["--set", "noise_mask=sometimes", "--out"]);
    a.push(none.s());
    fails(&a, &["noise_mask", "not true or false"]);
    fails(
        &["generate", "--task", "VSR", "--split", "test", "--count", "1", "--set", "oops", "--out", none.s()],
        &["not KEY=VALUE"],
    );
    assert!(!none.path().join("meta.json").exists(), "nothing written");
    // With --task all a key goes to the ids that have it; a key none has is refused.
    let all = TempDir::new("all-noise");
    ok(&[
        "generate",
        "--task",
        "all",
        "--split",
        "test",
        "--count",
        "1",
        "--png",
        "none",
        "-q",
        "--set",
        "noise_mask=true",
        "--out",
        all.s(),
    ]);
    assert!(fs::read_to_string(all.path().join("CD-Gap/meta.json")).unwrap().contains("\"noise_mask\": true"));
    fails(
        &["generate", "--task", "all", "--split", "test", "--count", "1", "--set", "zzz=1", "--out", none.s()],
        &["no chosen task has a parameter \"zzz\""],
    );
}

/// Long lists (WorM A3.2): VSRec lists of 16 make 32-step trials; the export pads to 32 and says so in
/// meta.json; masks and targets have 32 entries. VSR (a 3×3 probe) refuses lists past 9.
#[test]
fn generate_long_lists() {
    let out = TempDir::new("long-lists");
    ok(&[
        "generate",
        "--task",
        "VSRec",
        "--split",
        "test",
        "--count",
        "6",
        "--png",
        "none",
        "-q",
        "--set",
        "list_lengths=8,16",
        "--out",
        out.s(),
    ]);
    let meta: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.path().join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["max_steps"], 32);
    assert_eq!(meta["shapes"]["frames"], serde_json::json!([6, 32, 3, 32, 32]));
    let bytes = fs::read(out.path().join("frames.npy")).unwrap();
    assert!(bytes.len() > 6 * 32 * 3 * 32 * 32 * 4, "32 steps of frames per trial");
    // VSRec's grid is list length × pattern difference (2 × 5 cells): trials 0–4 have L = 8, 5 on L = 16.
    let lines: Vec<serde_json::Value> = fs::read_to_string(out.path().join("trials.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let long = lines.iter().find(|l| l["seq_len"] == 32).expect("a trial of L = 16");
    let mask = long["mask"].as_array().unwrap();
    assert_eq!(mask.len(), 32);
    assert_eq!(mask.iter().filter(|m| m.as_bool().unwrap()).count(), 16);
    assert_eq!(long["serial_positions"][31], 16);
    let short = lines.iter().find(|l| l["seq_len"] == 16).unwrap();
    assert_eq!(short["targets"].as_array().unwrap().len(), 32, "every trial padded to the export's 32");
    let none = TempDir::new("long-vsr");
    fails(
        &[
            "generate",
            "--task",
            "VSR",
            "--split",
            "test",
            "--count",
            "1",
            "--set",
            "list_lengths=12",
            "--out",
            none.s(),
        ],
        &["between 1 and 9"],
    );
}

/// LSR's export names the words of every step's slots (a network reads their vectors, not the frames).
#[test]
fn generate_lsr_writes_the_word_slots() {
    let out = TempDir::new("lsr");
    ok(&["generate", "--task", "LSR", "--split", "test", "--count", "3", "--png", "none", "-q", "--out", out.s()]);
    let lines: Vec<serde_json::Value> = fs::read_to_string(out.path().join("trials.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for l in &lines {
        let n = l["seq_len"].as_u64().unwrap() as usize;
        let words = l["words"].as_array().unwrap();
        assert_eq!(words.len(), n, "one list of slots per real step");
        let first = words[0].as_array().unwrap();
        assert_eq!(first.len(), 9);
        assert!(first[0].is_string() && first[1..].iter().all(|w| w.is_null()), "a studied word in slot 1");
    }
}

/// `wmlab dataset`: a folder of records becomes a Psych-DS dataset — dataset_description.json naming
/// every column of every data file, and data/*_data.csv named by Psych-DS keywords; a file that is not a
/// record is refused by name and nothing is written.
#[test]
fn dataset_writes_a_psych_ds_folder() {
    use wmlab_core::record::{ResultRecord, RunConfig, Subject, TrialRow};
    use wmlab_core::task::Conditions;
    let dir = TempDir::new("dataset");
    let recs = dir.path().join("records");
    fs::create_dir_all(&recs).unwrap();
    for (name, id, task) in [("a.json", "P01", "VSR"), ("b.json", "P02", "CD-Color"), ("c.json", "P01", "SC")] {
        let mut r = ResultRecord::new(Subject::Person { id: id.into() }, task, RunConfig::default());
        r.trials.push(TrialRow {
            task: task.into(),
            trial: 0,
            conditions: Conditions { list_length: Some(4), ..Default::default() },
            targets: vec!["1".into()],
            responses: vec!["1".into()],
            correct: vec![true],
            rt_ms: vec![431.0],
            ..Default::default()
        });
        fs::write(recs.join(name), r.to_json().unwrap()).unwrap();
    }
    let out = dir.path().join("ds");
    let line = ok(&["dataset", "--name", "Pilot", "--out", out.to_str().unwrap(), recs.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    let files: Vec<&str> = doc["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(
        files,
        [
            "dataset_description.json",
            "data/study-wmlab_subject-P01_session-1_data.csv",
            "data/study-wmlab_subject-P02_session-1_data.csv",
            "data/study-wmlab_subject-P01_session-2_data.csv"
        ]
    );
    let desc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("dataset_description.json")).unwrap()).unwrap();
    assert_eq!((desc["@type"].as_str(), desc["name"].as_str()), (Some("Dataset"), Some("Pilot")));
    let vars: Vec<String> =
        desc["variableMeasured"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap().to_string()).collect();
    for f in &files[1..] {
        let csv = fs::read_to_string(out.join(f)).unwrap();
        assert_eq!(csv.lines().count(), 2, "{f}: a header and the one trial");
        for h in csv.lines().next().unwrap().split(',') {
            assert!(vars.iter().any(|v| v == h), "{h} is not in variableMeasured");
        }
    }
    fs::write(recs.join("d.json"), "{\"hello\": 1}").unwrap();
    let again = dir.path().join("ds2");
    fails(&["dataset", "--out", again.to_str().unwrap(), recs.to_str().unwrap()], &["d.json is not a result record"]);
    assert!(!again.exists(), "nothing written");
}

/// A closed stdout (`wmlab … | head -c 1`, the reader gone before the answer is written) ends the
/// program quietly with success; it panicked with "failed printing to stdout: Broken pipe" (issue 71).
#[test]
fn a_closed_stdout_is_no_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wmlab"))
        .args(["hash", "--task", "all", "--split", "test", "--count", "40"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run wmlab");
    // Close the read end before the hash (40 trials of 14 ids) is printed.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    assert!(out.status.success(), "{:?}: {err}", out.status);
}

/// `wmlab train` takes its numbers as the Networks page's form does (the same `Field::parse`): what the
/// page refuses is refused here, in the page's words, before anything is built or written.
#[cfg(feature = "nn")]
#[test]
fn train_refuses_what_the_settings_form_refuses() {
    let d = TempDir::new("refuse");
    for (flag, value, words) in [
        ("--per-task", "0", "Trials per task per step: \"0\" is not a whole number above 0."),
        ("--val-per-task", "0", "is not a whole number above 0"),
        ("--val-every", "0", "is not a whole number above 0"),
        ("--lr", "0", "Learning rate: \"0\" is not a positive number."),
        ("--lr", "nan", "is not a positive number"),
        ("--tasks", "VSR,XYZ", "\"XYZ\" is not a task id"),
    ] {
        fails(&["train", "--arch", "gru", "--preset", "tiny", "--out", d.s(), flag, value], &[flag, words]);
    }
    assert!(!d.path().join("train.json").exists(), "nothing written");
}
