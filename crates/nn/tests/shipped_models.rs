//! The pretrained models shipped under `public/models/`: every file in `index.json` loads, its card
//! says what the checkpoint holds (model, parameters, preset, steps, trained ids, attention), and the
//! card's test accuracies are what the model scores on the same test trials (`wmlab eval --n 200`:
//! trial indices 0..200 of the test split per id).

use std::path::PathBuf;

use wmlab_core::TaskId;
use wmlab_core::chance::record_significance;
use wmlab_nn::eval::evaluate_checkpoint;
use wmlab_nn::{Checkpoint, cpu_device};

fn models_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/models")
}

fn cards() -> Vec<serde_json::Value> {
    let path = models_dir().join("index.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str::<Vec<serde_json::Value>>(&text).expect("index.json is a list of cards")
}

fn load(card: &serde_json::Value) -> Checkpoint {
    let file = models_dir().join(card["file"].as_str().unwrap());
    Checkpoint::load_path(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

#[test]
fn every_card_matches_its_checkpoint() {
    let cards = cards();
    assert!(cards.len() >= 2, "a joint model and a VSR-only model are shipped");
    assert!(cards.iter().any(|c| c["tasks"].as_array().unwrap().len() == 14));
    assert!(cards.iter().any(|c| c["tasks"].as_array().unwrap() == &vec![serde_json::json!("VSR")]));
    for card in &cards {
        let ck = load(card);
        let name = card["file"].as_str().unwrap();
        assert_eq!(card["model"], ck.train.model.label(), "{name}");
        assert_eq!(card["params"].as_u64().unwrap() as usize, ck.train.model.param_count(), "{name}");
        assert_eq!(card["preset"].as_str().unwrap(), ck.train.preset, "{name}");
        assert_eq!(card["steps"].as_u64().unwrap() as usize, ck.state.step, "{name}");
        let ids: Vec<String> = ck.train.task_ids().iter().map(|t| t.as_str().to_string()).collect();
        let card_ids: Vec<String> =
            card["tasks"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().into()).collect();
        assert_eq!(card_ids, ids, "{name}");
        let size = std::fs::metadata(models_dir().join(name)).unwrap().len();
        assert!(size < 4_000_000, "{name}: {size} bytes; keep shipped models small");
        // The card's test rows cover exactly the trained ids.
        let tested: Vec<String> =
            card["test"].as_array().unwrap().iter().map(|t| t["task"].as_str().unwrap().into()).collect();
        assert_eq!(tested, ids, "{name}");
    }
}

/// Re-evaluates the VSR-only model on its 200 test trials (as the card was made) and the distance
/// joint model on CD-Color, SMU and VSR (each id's trials are its own; the others are left out to keep
/// the test short): the accuracies are the card's.
#[test]
fn card_accuracies_are_what_the_models_score() {
    let dev = cpu_device();
    let cards = cards();
    let mut checked = 0;
    for card in &cards {
        let name = card["file"].as_str().unwrap();
        let mut ck = load(card);
        let ids: Vec<TaskId> = if ck.train.is_subset() {
            ck.train.task_ids()
        } else if ck.train.model.attention == Some(wmlab_nn::Attention::Distance) {
            vec![TaskId::Smu, TaskId::Vsr, TaskId::CdColor]
        } else {
            continue;
        };
        ck.train = ck.train.clone().with_tasks(Some(ids.clone()));
        let n = card["test_trials_per_task"].as_u64().unwrap() as usize;
        let rec = pollster::block_on(evaluate_checkpoint(&ck, "flex", n, &dev, &mut |_, _| true)).unwrap().unwrap();
        let sig = record_significance(&rec);
        for id in ids {
            let want = card["test"].as_array().unwrap().iter().find(|t| t["task"] == id.as_str()).unwrap();
            let got = sig.iter().find(|s| s.task == id.as_str()).unwrap();
            assert_eq!(got.responses, want["responses"].as_u64().unwrap(), "{name} {id}");
            let (a, b) = (got.accuracy, want["accuracy"].as_f64().unwrap());
            assert!((a - b).abs() < 0.011, "{name} {id}: scores {a}, card says {b}");
        }
        checked += 1;
    }
    assert!(checked >= 2, "the VSR model and the distance joint model are re-scored");
}

/// The memoryless control (`wmlab eval --memoryless`): the same test trials with every memory frame
/// blank. A model that shows no memory (the VSR-only model: its 0.18 is the memoryless 1/L) scores the
/// same without them; one that does (the LSR model; the distance joint model on CD-Color) falls to the
/// memoryless baseline.
#[test]
fn memoryless_control_separates_memory_from_the_probe() {
    use wmlab_nn::eval::{Trials, evaluate_checkpoint_on};
    let dev = cpu_device();
    let n = 100;
    let mut seen = Vec::new();
    for card in &cards() {
        let name = card["file"].as_str().unwrap().to_string();
        let mut ck = load(card);
        let id = if ck.train.is_subset() {
            ck.train.task_ids()[0]
        } else if ck.train.model.attention == Some(wmlab_nn::Attention::Distance) {
            TaskId::CdColor
        } else {
            continue;
        };
        ck.train = ck.train.clone().with_tasks(Some(vec![id]));
        let score = |which| {
            let rec = pollster::block_on(evaluate_checkpoint_on(&ck, "flex", n, &dev, which, &mut |_, _| true));
            let rec = rec.unwrap().unwrap();
            record_significance(&rec).into_iter().find(|s| s.task == id.as_str()).unwrap()
        };
        let (full, blank) = (score(Trials::AsGenerated), score(Trials::MemoryBlanked));
        eprintln!(
            "{name} {id}: accuracy {:.3}, memory frames blank {:.3}, memoryless baseline {:.3}",
            full.accuracy, blank.accuracy, full.memoryless
        );
        assert_eq!(full.responses, blank.responses, "{name}: the same items");
        let shows = full.shows_memory(wmlab_core::chance::LEVEL);
        if shows {
            assert!(blank.accuracy < full.accuracy - 0.05, "{name} {id}: memory shown, so blanking it costs");
        } else {
            assert!((blank.accuracy - full.accuracy).abs() < 0.05, "{name} {id}: no memory shown, none lost");
        }
        assert!(blank.accuracy < full.memoryless + 0.06, "{name} {id}: the probe alone gives at most the baseline");
        seen.push((id, shows));
    }
    assert!(seen.contains(&(TaskId::Vsr, false)) && seen.iter().any(|&(_, s)| s), "{seen:?}");
}
