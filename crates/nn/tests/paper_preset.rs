//! The `paper` preset trains as the WorM authors' code trains: their initialisation (biases 0, the
//! gates' weights Xavier-normal over the stacked matrices), Adam's epsilon 1e-8, the plateau schedule
//! once per epoch, and a fresh shuffle of the training split every epoch.

use burn::module::{Module, ModuleVisitor, Param};
use burn::prelude::*;
use wmlab_nn::batch::{epoch_order, shuffled_index};
use wmlab_nn::cpu_device;
use wmlab_nn::model::{Arch, Memory};
use wmlab_nn::train::{TrainConfig, Trainer};

fn std_of(t: Tensor<2>) -> f64 {
    let v = t.into_data().try_into_vec::<f32>().unwrap();
    let n = v.len() as f64;
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
    (v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n).sqrt()
}

/// Every rank-1 parameter (the biases) of a module.
struct Biases(Vec<Vec<f32>>);

impl ModuleVisitor for Biases {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if D == 1 {
            self.0.push(param.val().into_data().try_into_vec::<f32>().unwrap());
        }
    }
}

#[test]
fn paper_preset_initialises_as_the_authors_and_sets_their_optimizer() {
    let cfg = TrainConfig::preset(wmlab_nn::Preset::Paper, Arch::Lstm, 96);
    assert_eq!(cfg.adam_epsilon, Some(1e-8));
    assert_eq!(cfg.reference_init, Some(true));
    assert_eq!(cfg.shuffle_epochs, Some(true));
    assert_eq!(cfg.val_every, 8640, "one validation, so one plateau step, per epoch of 86,400 / 10 steps");
    let tr = Trainer::new(cfg, cpu_device().autodiff());
    let mut biases = Biases(Vec::new());
    tr.model().visit(&mut biases);
    assert_eq!(biases.0.len(), 4 + 1 + 8 + 10, "the biases of the convs, the projection, the gates and the heads");
    assert!(biases.0.iter().all(|b| b.iter().all(|&x| x == 0.0)), "every bias is 0");
    let Memory::Lstm(lstm) = &tr.model().memory else { panic!("an LSTM") };
    // weight_ih [4·96, 512]: std √(2 / (512 + 384)) = 0.0472 (per gate it would be √(2 / 608) = 0.0574);
    // weight_hh [4·96, 96]: √(2 / 480) = 0.0645 (per gate √(2 / 192) = 0.102).
    let ih = std_of(lstm.input_gate.input_transform.weight.val());
    let hh = std_of(lstm.cell_gate.hidden_transform.weight.val());
    assert!((ih - 0.0472).abs() < 0.003, "input weights' std {ih}");
    assert!((hh - 0.0645).abs() < 0.005, "hidden weights' std {hh}");
    // The other presets keep burn's per-gate Xavier and its biases.
    let tiny = Trainer::new(TrainConfig::preset(wmlab_nn::Preset::Tiny, Arch::Lstm, 96), cpu_device().autodiff());
    let mut b = Biases(Vec::new());
    tiny.model().visit(&mut b);
    assert!(b.0.iter().any(|v| v.iter().any(|&x| x != 0.0)));
}

#[test]
fn each_epoch_walks_the_split_in_a_fresh_order() {
    let n = 1000u64;
    let epoch = |e: u64, task: u64| (0..n).map(|k| shuffled_index(86, task, e * n + k, n)).collect::<Vec<_>>();
    let first = epoch(0, 3);
    let mut sorted = first.clone();
    sorted.sort();
    assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "an epoch visits every trial once");
    assert_ne!(first, epoch(1, 3), "the next epoch has another order");
    assert_ne!(first, epoch(0, 4), "another task id has another order");
    assert_eq!(first, epoch(0, 3), "the same seed, task and epoch give the same order");
    assert_ne!(first, (0..n).collect::<Vec<_>>(), "shuffled");
    assert_eq!(epoch_order(86, 3, 0, n).iter().map(|&i| i as u64).collect::<Vec<_>>(), first);
}
