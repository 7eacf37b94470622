//! Checkpoints are checked before anything trusts them: a header describing an impossible or absurd
//! model, another format, flipped bits, trailing bytes and a runaway file size are refused with a
//! message (no panic, no huge allocation), and the message says "checkpoint".

use wmlab_core::networks::{BUNDLE_MAGIC, BundleHeader};
use wmlab_nn::BuildModel;
use wmlab_nn::checkpoint::MAX_BUNDLE_BYTES;
use wmlab_nn::model::{Arch, ModelConfig};
use wmlab_nn::train::{TrainConfig, TrainState};
use wmlab_nn::{Checkpoint, cpu_device};

fn checkpoint(arch: Arch, optimizer: bool) -> Vec<u8> {
    let device = cpu_device();
    device.seed(3);
    let cfg = TrainConfig::new(ModelConfig::tiny(arch, 16).with_trf_heads(4));
    let model = cfg.model.init(&device);
    let ck = Checkpoint::from_model(&model, cfg, TrainState::default()).unwrap();
    let ck = if optimizer { ck.with_optimizer(Some(vec![1, 2, 3, 4])) } else { ck };
    ck.to_bundle()
}

/// The same file with its header changed by `edit`.
fn edited(bytes: &[u8], edit: impl FnOnce(&mut BundleHeader)) -> Vec<u8> {
    let (mut h, start) = BundleHeader::read(bytes).unwrap();
    edit(&mut h);
    let json = serde_json::to_vec(&h).unwrap();
    let mut out = BUNDLE_MAGIC.to_vec();
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&bytes[start..]);
    out
}

fn refused(bytes: &[u8], want: &str) {
    match Checkpoint::from_bundle(bytes) {
        Ok(_) => panic!("accepted; wanted a refusal saying {want:?}"),
        Err(e) => {
            let e = e.to_string();
            assert!(e.contains(want), "{e:?} does not say {want:?}");
            assert!(e.contains("checkpoint"), "{e:?} does not say it is about a checkpoint");
        }
    }
}

#[test]
fn impossible_and_absurd_models_are_refused_before_building() {
    let trf = checkpoint(Arch::Trf, false);
    assert!(Checkpoint::from_bundle(&trf).unwrap().model(&cpu_device()).is_ok());
    refused(&edited(&trf, |h| h.train.model.trf_heads = 7), "divisible by the 7 heads");
    refused(&edited(&trf, |h| h.train.model.trf_heads = 0), "heads");
    refused(&edited(&trf, |h| h.train.model.trf_layers = 100_000_000), "Transformer layers 100000000 is over");
    refused(&edited(&trf, |h| h.train.model.capacity = 0), "impossible model");
    refused(&edited(&trf, |h| h.train.model.conv = [8, 0, 16, 32]), "sizes must be positive");
    refused(&edited(&trf, |h| h.train.model.capacity = 1 << 40), "capacity");
    refused(&edited(&trf, |h| h.train.model.trf_dropout = 7.0), "dropout");
}

#[test]
fn other_formats_flipped_bits_and_trailing_bytes_are_refused() {
    for optimizer in [false, true] {
        let bytes = checkpoint(Arch::Gru, optimizer);
        assert!(Checkpoint::from_bundle(&bytes).is_ok());
        refused(&edited(&bytes, |h| h.format = "wmlab-nn-checkpoint-9".into()), "not one this version");
        let mut flipped = bytes.clone();
        let at = bytes.len() - if optimizer { 10 } else { 5 };
        flipped[at] ^= 1;
        refused(&flipped, "checksum");
        let mut longer = bytes.clone();
        longer.extend_from_slice(&vec![0; 4096]);
        // Both formats give the weights' length (format 1 since its files have carried it).
        refused(&longer, "4096 bytes past its end");
    }
}

#[test]
fn a_runaway_file_is_refused_by_its_size_before_it_is_read() {
    let dir = std::env::temp_dir().join(format!("wmlab-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zeros.wmlabnn");
    // A sparse file: no disk is written, and reading it whole would take 2 GB of memory.
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(MAX_BUNDLE_BYTES * 2).unwrap();
    let t = std::time::Instant::now();
    let e = Checkpoint::load_path(&path).unwrap_err().to_string();
    assert!(e.contains("zeros.wmlabnn") && e.contains("checkpoint") && e.contains("bytes"), "{e}");
    assert!(t.elapsed().as_secs_f64() < 1.0, "refused without reading");
    let small = dir.join("small.wmlabnn");
    std::fs::write(&small, edited(&checkpoint(Arch::Trf, false), |h| h.train.model.trf_heads = 7)).unwrap();
    let e = Checkpoint::load_path(&small).unwrap_err().to_string();
    assert!(e.contains("small.wmlabnn") && e.contains("impossible model"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Weights that do not fit the model the header describes (a header edited, or joined to another
/// model's weights, with the checksum made to match): refused when the model is built, never a panic
/// later in a forward pass.
#[test]
fn weights_of_another_model_are_refused_when_loaded() {
    let dev = cpu_device();
    let gru = checkpoint(Arch::Gru, false);
    let trf = checkpoint(Arch::Trf, false);
    let other = |h: &mut BundleHeader| {
        let (t, _) = BundleHeader::read(&trf).unwrap();
        h.train.model = t.train.model;
    };
    for (what, bytes) in [
        ("capacity", edited(&gru, |h| h.train.model.capacity = 24)),
        ("arch", edited(&gru, |h| h.train.model.arch = wmlab_core::networks::Arch::Lstm)),
        ("conv", edited(&gru, |h| h.train.model.conv = [16, 16, 16, 16])),
        ("another model", edited(&gru, other)),
    ] {
        let ck = Checkpoint::from_bundle(&bytes).unwrap_or_else(|e| panic!("{what}: the header alone is fine: {e}"));
        match ck.model(&dev) {
            Ok(_) => panic!("{what}: weights of another shape were accepted"),
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains("checkpoint") && e.contains("do not fit"), "{what}: {e}");
                assert!(e.len() < 600, "{what}: one short message, not one per tensor: {e}");
            }
        }
    }
}
