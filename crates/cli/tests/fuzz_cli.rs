//! The fuzz suite's sibling for the CLI (issue 71), run as processes as a user runs them: the job
//! options written into a Slurm script (`sweep --slurm`), and — with the `nn` feature — trials folders
//! given to `predict` and PyTorch files given to `import --torch`, each a valid input damaged. Each
//! property: no panic (exit 0, or 1 with a message), no hang (a 60 s bound per process: a hang detector,
//! not a benchmark), and for the job script nothing of a value outside its quotes.

mod common;
#[path = "../../core/tests/damage/mod.rs"]
mod damage;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use damage::*;
use proptest::prelude::*;

fn tmp(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "wmlab-fuzz-cli-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `wmlab args`, killed after 60 s (then the property fails: a hang).
fn wmlab(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wmlab"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run wmlab");
    let t0 = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if t0.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            panic!("wmlab {args:?} ran past 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// Handled: success, or exit 1 with a message; never a panic (101) or a signal.
fn handled(args: &[&str], out: &Output) -> Result<(), TestCaseError> {
    let err = String::from_utf8_lossy(&out.stderr);
    prop_assert!(!err.contains("panicked"), "wmlab {args:?} panicked:\n{err}");
    match out.status.code() {
        Some(0) => Ok(()),
        Some(1) => {
            prop_assert!(err.trim().len() > 10, "wmlab {args:?} failed without a message");
            Ok(())
        }
        c => Err(TestCaseError::fail(format!("wmlab {args:?} ended with {c:?}:\n{err}"))),
    }
}

/// Option values with what a shell or Slurm reads specially: newlines, `$(…)`, quotes, `;`, `%`.
fn option_value() -> impl Strategy<Value = String> {
    let alphabet: Vec<char> = "abcXYZ019:-_.,%$()`'\";&| \n\r\t#".chars().collect();
    proptest::collection::vec(proptest::sample::select(alphabet), 1..24).prop_map(|v| v.into_iter().collect())
}

const PLAN: [&str; 12] =
    ["sweep", "--arch", "gru", "--capacity", "8", "--preset", "tiny", "--steps", "1", "--tasks", "VSR", "--slurm"];

/// The job script a plan with `extra` options writes into a fresh folder `name` (`None`: refused).
fn script(name: &str, extra: &[&str]) -> Result<Option<String>, TestCaseError> {
    let dir = tmp("sweep").join(name);
    let d = dir.to_string_lossy().into_owned();
    let args: Vec<&str> = PLAN.iter().copied().chain(["--out", &d]).chain(extra.iter().copied()).collect();
    let out = wmlab(&args);
    handled(&args, &out)?;
    let text = out.status.success().then(|| std::fs::read_to_string(dir.join("sweep.sbatch")).expect("sweep.sbatch"));
    std::fs::remove_dir_all(dir.parent().unwrap()).ok();
    Ok(text)
}

proptest! {
    #![proptest_config(config(24))]

    /// `--time`, `--partition` and the folder's name: refused, or taken only in their safe forms,
    /// and then the script has the lines of a plain one (nothing injected).
    #[test]
    fn job_options_are_refused_or_written_safely(time in option_value(), partition in option_value(),
        name in option_value()) {
        let plain = script("plain", &["--time", "1:00:00", "--partition", "gpu"])?.expect("a plain plan");
        let name = name.replace(['/', '\0'], "_");
        let (t, p) = (format!("--time={time}"), format!("--partition={partition}"));
        if let Some(s) = script(&name, &[&t, &p])? {
            prop_assert!(time.chars().all(|c| c.is_ascii_digit() || c == ':' || c == '-'), "--time {time:?} taken");
            prop_assert!(partition.chars().all(|c| c.is_ascii_alphanumeric() || ".,_-".contains(c)),
                "--partition {partition:?} taken");
            prop_assert!(!name.chars().any(|c| c.is_control() || c == '%'), "folder {name:?} taken");
            prop_assert_eq!(s.lines().count(), plain.lines().count(), "{}", s);
        }
    }
}

#[cfg(feature = "nn")]
mod nn {
    use super::*;
    use std::path::Path;

    fn model() -> String {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/models/wmlab-trf96-quick-vsr.wmlabnn");
        p.to_string_lossy().into_owned()
    }

    /// A VSR folder of 2 trials from `wmlab generate`, made once.
    fn trials() -> &'static Path {
        static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
        DIR.get_or_init(|| {
            let d = tmp("trials");
            let s = d.to_string_lossy().into_owned();
            let args =
                ["generate", "--task", "VSR", "--split", "test", "--count", "2", "--png", "none", "-q", "--out", &s];
            assert!(wmlab(&args).status.success());
            d
        })
    }

    /// The authors' `state_dict` of a GRU-16 (one training step, `wmlab export --torch`), made once;
    /// undamaged, `import --torch` takes it.
    fn state_dict() -> &'static [u8] {
        static PT: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        PT.get_or_init(|| {
            let d = tmp("state-dict");
            let (run, pt) =
                (d.join("run").to_string_lossy().into_owned(), d.join("m.pt").to_string_lossy().into_owned());
            let train = common::one_step_train("gru", &run);
            assert!(wmlab(&train).status.success());
            assert!(wmlab(&["export", "--torch", &run, "--out", &pt]).status.success());
            let back = d.join("back.wmlabnn").to_string_lossy().into_owned();
            let import = ["import", "--torch", &pt, "--arch", "gru", "--capacity", "16", "--out", &back];
            assert!(wmlab(&import).status.success(), "the undamaged file imports");
            std::fs::read(&pt).unwrap()
        })
    }

    proptest! {
        #![proptest_config(config(12))]

        /// A trials folder with its `trials.jsonl` or `frames.npy` damaged: predicted or refused.
        #[test]
        fn damaged_trials_folders_are_predicted_or_refused(ds in damages(), which in 0usize..2) {
            let dir = tmp("predict");
            for f in ["trials.jsonl", "frames.npy"] {
                let valid = std::fs::read(trials().join(f)).unwrap();
                let bytes = if (f == "frames.npy") == (which == 1) { damaged(&valid, &ds) } else { valid };
                std::fs::write(dir.join(f), bytes).unwrap();
            }
            let (d, out) = (dir.to_string_lossy().into_owned(), dir.join("out.npy").to_string_lossy().into_owned());
            let m = model();
            let args = ["predict", "--checkpoint", &m, "--trials", &d, "--out", &out];
            handled(&args, &wmlab(&args))?;
            std::fs::remove_dir_all(&dir).ok();
        }

        /// A PyTorch file damaged (its zip, its pickle, its tensors): imported or refused.
        #[test]
        fn damaged_pytorch_files_are_imported_or_refused(ds in damages()) {
            let dir = tmp("torch");
            let pt = dir.join("model.pt");
            std::fs::write(&pt, damaged(state_dict(), &ds)).unwrap();
            let (pt, out) = (pt.to_string_lossy().into_owned(), dir.join("m.wmlabnn").to_string_lossy().into_owned());
            let args = ["import", "--torch", &pt, "--arch", "gru", "--capacity", "16", "--out", &out];
            handled(&args, &wmlab(&args))?;
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}
