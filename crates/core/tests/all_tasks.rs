//! Properties every task id must have: balanced conditions, bounded length, a scored answer of the
//! head's kind, frames that render, and independence of splits.

use std::collections::HashMap;

use wmlab_core::Split;
use wmlab_core::raster;
use wmlab_core::task::{HeadKind, MAX_STEPS, Response, Target, TaskId, TaskSpec};

#[test]
fn conditions_are_balanced_within_one_trial_per_cell() {
    for id in TaskId::EVERY {
        let spec = TaskSpec::new(id);
        let grid = spec.grid();
        let k = grid.len();
        // a count that is not a multiple of the grid size
        let n = 2 * k + k / 2 + 1;
        let mut counts: HashMap<String, usize> = HashMap::new();
        for i in 0..n as u64 {
            let t = spec.trial(3, Split::Train, i);
            let cell = &grid[i as usize % k];
            // the trial keeps every factor of its cell (SC's symmetric trials record offset 0)
            let got = t.conditions.pairs();
            for (name, v) in cell.pairs() {
                let sc_symmetric = name == "symmetry_offset" && t.conditions.symmetry_offset == Some(0);
                assert!(sc_symmetric || got.contains(&(name, v.clone())), "{id}: trial {i} lost {name}={v}");
            }
            *counts.entry(cell.label()).or_default() += 1;
        }
        let (lo, hi) = (counts.values().min().unwrap(), counts.values().max().unwrap());
        assert_eq!(counts.len(), k, "{id}: every cell used (cells must be distinct)");
        assert!(hi - lo <= 1, "{id}: cells within ±1 ({lo}..{hi})");
    }
}

#[test]
fn every_trial_fits_20_steps_and_asks_something_of_its_head_kind() {
    for id in TaskId::EVERY {
        let spec = TaskSpec::new(id);
        let k = spec.grid().len() as u64;
        for i in 0..(2 * k).max(40) {
            let t = spec.trial(11, Split::Val, i);
            assert!(!t.is_empty() && t.len() <= MAX_STEPS, "{id}: {} steps", t.len());
            assert!(t.scored_steps().count() >= 1, "{id}: nothing scored");
            for (step, s) in t.scored_steps() {
                match (id.head(), &s.target) {
                    (HeadKind::Binary, Target::Class(c)) => assert!(*c <= 1, "{id} step {step}: binary target {c}"),
                    (HeadKind::Classes(n), Target::Class(c)) => assert!(*c < n, "{id} step {step}: class {c} of {n}"),
                    (HeadKind::MultiLabel(n), Target::Set(v)) => assert!(v.iter().all(|&u| u < n)),
                    (h, t) => panic!("{id} step {step}: target {t:?} for head {h:?}"),
                }
                assert_ne!(s.response, Response::None, "{id}: a scored step must ask for a response");
            }
            for s in t.steps.iter().filter(|s| !s.scored) {
                // unscored steps carry no answer unless the reference-code option is on
                assert!(matches!(s.target, Target::None), "{id}: unscored step with a target");
            }
            assert_eq!(t.task, id);
        }
    }
}

#[test]
fn frames_render_and_memory_frames_differ_from_blanks_and_padding() {
    let blank = raster::tensor32(&wmlab_core::Frame::blank());
    let pad = raster::tensor32(&wmlab_core::Frame::padding());
    for id in TaskId::ALL {
        let t = TaskSpec::new(id).trial(1, Split::Test, 0);
        let first = raster::tensor32(&t.steps[0].frame);
        assert_eq!(first.len(), raster::TENSOR_LEN);
        assert!(first.iter().all(|v| (0.0..=1.0).contains(v)));
        assert_ne!(first, blank, "{id}: first frame is blank");
        assert_ne!(first, pad, "{id}: first frame is padding");
        assert_eq!(
            raster::tensor32(&t.frame_at(MAX_STEPS - 1)),
            if t.len() == MAX_STEPS { raster::tensor32(&t.steps[MAX_STEPS - 1].frame) } else { pad.clone() }
        );
        assert!(t.steps.iter().all(|s| s.words.is_empty()), "{id}: only LSR steps carry words");
    }
    // LSR's frames are words, for people (the rasterizer draws no text); a network reads every step's
    // word slots instead, and every step has them.
    let t = TaskSpec::new(TaskId::Lsr).trial(1, Split::Test, 0);
    assert!(
        t.steps.iter().all(|s| s.words.len() == 9 && s.words.iter().any(|&w| w != wmlab_core::tasks::lsr::NO_WORD))
    );
    assert!(
        t.steps.iter().all(|s| s.frame.shapes.iter().any(|x| matches!(x, wmlab_core::display::Shape::Text { .. })))
    );
}

#[test]
fn same_seed_same_trial_and_splits_differ() {
    for id in TaskId::EVERY {
        let spec = TaskSpec::new(id);
        let a = spec.trial(5, Split::Train, 17);
        assert_eq!(a, spec.trial(5, Split::Train, 17), "{id}: not deterministic");
        let others = [spec.trial(5, Split::Val, 17), spec.trial(5, Split::Test, 17), spec.trial(6, Split::Train, 17)];
        assert!(others.iter().all(|o| o != &a), "{id}: splits or seeds share a trial");
    }
}

#[test]
fn task_ids_round_trip_and_heads() {
    let names: Vec<&str> = TaskId::ALL.iter().map(|t| t.as_str()).collect();
    assert_eq!(
        names.join(" "),
        "SC SFR SI SMU STS VIR VSR VSRec CD-Color CD-Orientation CD-Size CD-Gap CD-Conjunction CS"
    );
    for (i, id) in TaskId::ALL.into_iter().enumerate() {
        assert_eq!(id.ordinal() as usize, i);
        assert_eq!(TaskId::parse(id.as_str()), Some(id));
        assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{}\"", id.as_str()));
    }
    let units: Vec<u16> = [0usize, 1, 2, 3, 4, 5, 6, 7, 8, 13].iter().map(|&i| TaskId::ALL[i].head().units()).collect();
    assert_eq!(units, vec![1, 100, 1, 9, 3, 1, 9, 1, 1, 21]);
    let heads: std::collections::HashSet<usize> = TaskId::ALL.iter().map(|t| t.head_index()).collect();
    assert_eq!(heads.len(), 10, "five CD ids share one head");
    // LSR comes after the 14: its own random stream, VSR's task-embedding row and recall head.
    assert_eq!(TaskId::EVERY[..14], TaskId::ALL);
    assert_eq!(TaskId::Lsr.ordinal(), 14);
    assert_eq!(TaskId::parse("LSR"), Some(TaskId::Lsr));
    assert_eq!((TaskId::Lsr.embedding_row(), TaskId::Lsr.head_index()), (6, 6));
}

#[test]
fn short_runs_of_trials_mix_both_answers() {
    // a training step draws 10 consecutive trials per task; a participant's block may have one trial
    // per condition: either way both answers must occur
    for id in [TaskId::CdColor, TaskId::CdConjunction, TaskId::Vir, TaskId::Sc, TaskId::Si] {
        let spec = TaskSpec::new(id);
        for start in [0u64, 7, 100] {
            let answers: Vec<Target> = (start..start + 10)
                .map(|i| spec.trial(9, Split::Train, i).scored_steps().last().unwrap().1.target.clone())
                .collect();
            assert!(
                answers.contains(&Target::Class(0)) && answers.contains(&Target::Class(1)),
                "{id} from {start}: {answers:?}"
            );
        }
    }
}

/// The curriculum's easier half of each grid: never empty, VSR keeps the short lists, and the moved
/// indices stay in easy cells with balanced answers.
#[test]
fn easy_cells_are_the_easier_half() {
    use wmlab_core::task::{TaskId, TaskSpec, balanced_flip};
    for id in TaskId::ALL {
        let spec = TaskSpec::new(id);
        let grid = spec.grid();
        let easy = spec.easy_cells();
        assert!(!easy.is_empty() && easy.len() <= grid.len(), "{id}");
        if grid.len() > 1 && easy.len() < grid.len() {
            assert!(easy.len() * 3 >= grid.len(), "{id}: {} of {}", easy.len(), grid.len());
        }
        let k = grid.len() as u64;
        let mut flips = 0;
        for i in 0..(4 * k) {
            let j = spec.easy_index(i, &easy);
            assert!(easy.contains(&((j % k) as usize)), "{id}: index {i} → {j}");
            flips += balanced_flip(j, k) as u64;
        }
        assert!(flips.abs_diff(2 * k) <= k / 2 + 1, "{id}: {flips} of {}", 4 * k);
    }
    let vsr = TaskSpec::new(TaskId::Vsr);
    let lens: Vec<u8> = vsr.easy_cells().iter().map(|&i| vsr.grid()[i].list_length.unwrap()).collect();
    assert_eq!(lens, vec![2, 3, 4, 5]);
}

/// Each reference-code quirk changes its own task and nothing else; names parse both ways.
#[test]
fn quirks_change_their_task_only() {
    use wmlab_core::Quirks;
    let all = Quirks::parse("cd-size, cs-all-steps,sts-cue-steps").unwrap();
    assert_eq!(all.names(), vec!["cd-size", "cs-all-steps", "sts-cue-steps"]);
    assert_eq!(Quirks::parse(&all.names().join(",")).unwrap(), all);
    assert!(Quirks::parse("none").unwrap().is_none() && Quirks::parse("").unwrap().is_none());
    assert!(Quirks::parse("cd-size,typo").unwrap_err().to_string().contains("unknown quirk \"typo\""));
    let mut q = all;
    q.set("cs-all-steps", false).unwrap();
    assert_eq!(q.names(), vec!["cd-size", "sts-cue-steps"]);
    assert!(q.set("typo", true).is_err() && q.names().len() == 2);
    let scored = |t: &wmlab_core::Trial| t.steps.iter().filter(|s| s.scored).count();
    for id in TaskId::ALL {
        let (plain, quirky) = (TaskSpec::new(id), TaskSpec::with_quirks(id, all));
        let trials = |s: &TaskSpec| (0..40).map(|i| s.trial(1, Split::Test, i)).collect::<Vec<_>>();
        let (a, b) = (trials(&plain), trials(&quirky));
        match id {
            // Size changes (CD-Size, and CD-Conjunction's size trials) draw the changed bar differently.
            TaskId::CdSize | TaskId::CdConjunction => {
                assert!(a.iter().zip(&b).any(|(x, y)| x.steps != y.steps), "{id:?}")
            }
            // More steps scored ("no response" / cue steps), in every trial.
            TaskId::Cs | TaskId::Sts => {
                for (x, y) in a.iter().zip(&b) {
                    assert!(scored(y) > scored(x), "{id:?}: {} vs {}", scored(y), scored(x));
                }
            }
            _ => assert!(a == b, "{id:?} must not change"),
        }
    }
}
