//! Task parameters set from text (`TaskSpec::set`, as `--set KEY=VALUE` and links give them), and the
//! noise-masked change detection of WorM A3.4.

use wmlab_core::display::{Shape, noise_bytes};
use wmlab_core::raster;
use wmlab_core::task::{Phase, TaskParams};
use wmlab_core::{Split, TaskId, TaskSpec};

#[test]
fn parameters_are_set_from_text_or_refused_with_the_allowed_ones() {
    let mut cd = TaskSpec::new(TaskId::CdColor);
    assert!(cd.keys().contains(&"noise_mask".to_string()) && cd.keys().contains(&"set_sizes".to_string()));
    cd.set("set_sizes", "2, 4").unwrap();
    cd.set("noise_mask", "true").unwrap();
    let TaskParams::Cd(p) = &cd.params else { panic!() };
    assert_eq!((p.set_sizes.clone(), p.noise_mask), (vec![2, 4], true));
    assert_eq!(cd.grid().len(), 2 * 4, "2 set sizes × 4 retentions");
    let before = cd.clone();
    let e = cd.set("colour", "red").unwrap_err().to_string();
    assert!(e.starts_with("CD-Color has no parameter \"colour\"; its parameters:") && e.contains("noise_mask"), "{e}");
    assert_eq!(
        cd.set("noise_mask", "maybe").unwrap_err().to_string(),
        "CD-Color noise_mask: \"maybe\" is not true or false"
    );
    assert!(cd.set("set_sizes", "2,x").unwrap_err().to_string().contains("is not a comma list of numbers"));
    assert!(cd.set("set_sizes", "40").unwrap_err().to_string().contains("between 1 and 12"));
    assert!(
        cd.set("retentions", "70").unwrap_err().to_string().contains("a trial has at most 64"),
        "too long for any batch"
    );
    assert!(cd.set("set_sizes", "").unwrap_err().to_string().contains("one number or more"));
    assert_eq!(cd, before, "a refused value changes nothing");
    // Lenient: settings given for several tasks skip the keys a task lacks.
    let mut vsr = TaskSpec::new(TaskId::Vsr);
    let settings = vec![("noise_mask".to_string(), "true".to_string())];
    assert!(vsr.set_all(&settings, false).is_err());
    vsr.set_all(&settings, true).unwrap();
    assert_eq!(vsr, TaskSpec::new(TaskId::Vsr));
}

#[test]
fn noise_masked_change_detection_keeps_the_arrays_and_masks_the_retention() {
    let plain = TaskSpec::new(TaskId::CdOrientation);
    let mut noisy = plain.clone();
    noisy.set("noise_mask", "on").unwrap();
    let mut seeds = Vec::new();
    for i in 0..8 {
        let (a, b) = (plain.trial(3, Split::Test, i), noisy.trial(3, Split::Test, i));
        assert_eq!(a.steps.len(), b.steps.len());
        assert_eq!(a.conditions, b.conditions);
        for (sa, sb) in a.steps.iter().zip(&b.steps) {
            if sa.phase == Phase::Retention {
                assert!(sa.frame.shapes.is_empty(), "gray without the mask");
                let [Shape::Noise { seed }] = sb.frame.shapes[..] else {
                    panic!("one noise shape: {:?}", sb.frame.shapes)
                };
                seeds.push(seed);
            } else {
                assert_eq!(sa.frame, sb.frame, "memory and probe arrays are unchanged by the mask");
            }
        }
        // Seeded: the same trial again is the same noise.
        assert_eq!(noisy.trial(3, Split::Test, i), b);
    }
    let mut distinct = seeds.clone();
    distinct.sort();
    distinct.dedup();
    assert!(seeds.len() > 10 && distinct.len() == seeds.len(), "every retention frame its own noise");
    // Drawn for the network: every pixel is noise, and the 32×32 tensor is not the gray frame.
    let bytes = noise_bytes(seeds[0]);
    assert_eq!(bytes.len(), 96 * 96 * 3);
    let mean = bytes.iter().map(|&b| b as f64).sum::<f64>() / bytes.len() as f64;
    assert!((mean - 127.5).abs() < 4.0, "uniform 0–255: mean {mean}");
    let noise_step = noisy.trial(3, Split::Test, 6).steps.into_iter().find(|s| s.phase == Phase::Retention).unwrap();
    let t = raster::tensor32(&noise_step.frame);
    let spread = t.iter().fold((1.0f32, 0.0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    assert!(spread.1 - spread.0 > 0.3, "the downsampled noise still varies: {spread:?}");
}

/// Longer lists (WorM A3.2): list lengths up to 16 make trials of 32 steps, past the paper's 20; every
/// cell keeps its balance and its masks; VSR, whose probe holds 9 slots, refuses more than 9.
#[test]
fn long_lists_make_long_trials_with_balanced_cells_and_masks() {
    use wmlab_core::task::{MAX_STEPS, STEP_LIMIT};
    let mut vsrec = TaskSpec::new(TaskId::VsRec);
    assert_eq!(vsrec.longest_trial(), 18, "the paper's grid: L = 9, 2L steps");
    vsrec.set("list_lengths", "2,4,8,16").unwrap();
    assert_eq!(vsrec.longest_trial(), 32);
    let k = vsrec.grid().len() as u64;
    assert_eq!(k, 4 * 5, "4 list lengths × 5 pattern differences");
    let mut per_length = std::collections::BTreeMap::new();
    for i in 0..3 * k {
        let t = vsrec.trial(5, Split::Train, i);
        let l = t.conditions.list_length.unwrap() as usize;
        *per_length.entry(l).or_insert(0) += 1;
        assert_eq!(t.len(), 2 * l);
        let mask = t.mask(MAX_STEPS);
        assert_eq!(mask.len(), MAX_STEPS.max(2 * l), "padded to 20, or the trial's own length");
        assert_eq!(mask.iter().filter(|&&m| m).count(), l, "one scored probe per item");
        assert!(mask[..l].iter().all(|&m| !m) && mask[l..2 * l].iter().all(|&m| m));
        let positions: Vec<u8> = t.scored_steps().map(|(_, s)| s.serial_position.unwrap()).collect();
        assert_eq!(positions, (1..=l as u8).collect::<Vec<_>>());
    }
    assert_eq!(per_length.values().copied().collect::<Vec<_>>(), vec![15; 4], "balanced: {per_length:?}");
    // The same index gives the same trial (seeded), long or not.
    assert_eq!(vsrec.trial(5, Split::Train, 7), vsrec.trial(5, Split::Train, 7));
    let mut vsr = TaskSpec::new(TaskId::Vsr);
    let e = vsr.set("list_lengths", "2,12").unwrap_err().to_string();
    assert!(e.contains("between 1 and 9") && e.contains("VSRec"), "{e}");
    // SC mirrors L/2 cells: a list shorter than a symmetry offset is refused in words, not a crash.
    let mut sc = TaskSpec::new(TaskId::Sc);
    assert!(sc.set("list_lengths", "2").unwrap_err().to_string().contains("symmetry offset"));
    sc.set("list_lengths", "8,24").unwrap();
    let mut sfr = TaskSpec::new(TaskId::Sfr);
    sfr.set("list_lengths", "25").unwrap();
    assert!(sfr.longest_trial() > MAX_STEPS && sfr.longest_trial() <= STEP_LIMIT);
}

/// No value a person can type for any parameter crashes or hangs the generator: `set` either takes it
/// (and then every condition cell builds a trial) or refuses it in words. Each case runs on its own
/// thread with a time limit, so a generator that would loop forever fails this test instead of hanging it.
#[test]
fn no_parameter_value_crashes_or_hangs() {
    use std::sync::mpsc;
    use std::time::Duration;
    let values = ["0", "1", "2", "3", "7", "16", "40", "255", "2,16", "true", "false"];
    let mut bad = Vec::new();
    for id in TaskId::EVERY {
        for key in TaskSpec::new(id).keys() {
            for v in values {
                let (tx, rx) = mpsc::channel();
                let k = key.clone();
                std::thread::spawn(move || {
                    let result = std::panic::catch_unwind(|| {
                        let mut spec = TaskSpec::new(id);
                        if spec.set(&k, v).is_ok() {
                            for i in 0..2 * spec.grid().len() as u64 {
                                spec.trial(1, Split::Train, i);
                            }
                        }
                    });
                    let _ = tx.send(result.is_ok());
                });
                match rx.recv_timeout(Duration::from_secs(60)) {
                    Ok(true) => {}
                    Ok(false) => bad.push(format!("{id} {key}={v} panics")),
                    Err(_) => bad.push(format!("{id} {key}={v} does not finish in 60 s")),
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:?}");
}

/// Values that make no trial (or none the task means), lists far longer than any grid and repeated
/// entries are refused with the reason; a refused value changes nothing.
#[test]
fn values_that_make_no_trial_and_runaway_lists_are_refused() {
    let cases = [
        (TaskId::Smu, "set_sizes", "0", "between 1 and 14"),
        (TaskId::Smu, "set_sizes", "3,40", "between 1 and 14"),
        (TaskId::Sts, "length", "0", "between 2 and 20"),
        (TaskId::Sts, "switch_percent", "200", "0 to 100"),
        (TaskId::Cs, "storage_items", "0", "at least 1"),
        (TaskId::CdColor, "set_sizes", "2,4,2", "2 is listed twice"),
    ];
    for (id, key, value, want) in cases {
        let mut spec = TaskSpec::new(id);
        let before = spec.clone();
        let e = spec.set(key, value).unwrap_err().to_string();
        assert!(e.contains(want) && e.starts_with(id.as_str()), "{id} {key}={value}: {e}");
        assert_eq!(spec, before);
    }
    let long: Vec<String> = (0..3000).map(|i| (i % 9 + 1).to_string()).collect();
    let mut vsrec = TaskSpec::new(TaskId::VsRec);
    let e = vsrec.set("list_lengths", &long.join(",")).unwrap_err().to_string();
    assert!(e.contains("3000 entries, more than the 64"), "{e}");
    // What the paper uses still sets.
    TaskSpec::new(TaskId::Smu).set("set_sizes", "1,2,3,4,5,6,7,8").unwrap();
    TaskSpec::new(TaskId::Sts).set("switch_percent", "100").unwrap();
}
