//! `wmlab import --torch` and `wmlab export --torch`: the WorM authors' PyTorch checkpoints in and out.
//! A `.pt` file is read with `pytorch-reader` (burn's reader of the format: the zip archive and its
//! pickle, no PyTorch needed) and written as `torch.save` writes a `state_dict`: a zip archive (stored
//! entries aligned to 64 bytes) holding `data.pkl`, a protocol-2 pickle of an `OrderedDict` whose values
//! are `torch._utils._rebuild_tensor_v2` calls on float32 storages `data/0`, `data/1`, …, each a
//! tensor's little-endian bytes. The key mapping and the weight layouts are `wmlab_nn::torch`'s.
//! Built with the `nn` feature.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// A PyTorch `state_dict` of the authors' `WM_Model` (`torch.save(model.state_dict(), FILE)`; a
    /// checkpoint dict holding one under `--key` reads too).
    #[arg(long, value_name = "FILE.pt")]
    pub torch: PathBuf,
    /// The memory the file's model should have (default: what its keys say; a mismatch is refused).
    #[arg(long)]
    pub arch: Option<String>,
    /// The memory's capacity C (96, 256 or 1024 in the paper; default: the file's).
    #[arg(long)]
    pub capacity: Option<usize>,
    /// The key of the `state_dict` inside a checkpoint dict. Default: `model_state_dict` (what the
    /// authors' `train.py` saves) when the file has it, else the file is the `state_dict`.
    #[arg(long)]
    pub key: Option<String>,
    /// The WM Lab checkpoint to write (a `.wmlabnn` bundle, which the Networks page opens too).
    #[arg(long, value_name = "FILE.wmlabnn")]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A WM Lab checkpoint of the paper's model: a directory, a run directory (its best/) or a bundle.
    #[arg(long, value_name = "CHECKPOINT")]
    pub torch: PathBuf,
    /// The `.pt` file to write, loadable with `model.load_state_dict(torch.load(FILE))`.
    #[arg(long, value_name = "FILE.pt")]
    pub out: PathBuf,
}

#[cfg(feature = "nn")]
use wmlab_nn::torch::Named;

#[cfg(not(feature = "nn"))]
pub fn import(_: &ImportArgs) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`"))
}
#[cfg(not(feature = "nn"))]
pub fn export(_: &ExportArgs) -> anyhow::Result<()> {
    Err(anyhow::anyhow!("this wmlab was built without networks; rebuild with `cargo build -p wmlab-cli --features nn`"))
}

/// A `.pt` file's bytes as `torch.save(state_dict)` writes them, the entries in the order given.
#[cfg(feature = "nn")]
pub fn write_pt(entries: &[Named], archive: &str) -> Vec<u8> {
    let mut p = Pickle(vec![0x80, 2]);
    p.global("collections", "OrderedDict");
    p.0.extend_from_slice(b")R(");
    for (i, (name, shape, _)) in entries.iter().enumerate() {
        p.string(name);
        p.global("torch._utils", "_rebuild_tensor_v2");
        p.0.push(b'(');
        // The storage, as a persistent id: ('storage', torch.FloatStorage, key, location, numel).
        p.0.push(b'(');
        p.string("storage");
        p.global("torch", "FloatStorage");
        p.string(&i.to_string());
        p.string("cpu");
        p.int(shape.iter().product());
        p.0.extend_from_slice(b"tQ");
        p.int(0);
        p.tuple(shape);
        let mut stride = vec![1; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            stride[d] = stride[d + 1] * shape[d + 1];
        }
        p.tuple(&stride);
        p.0.push(0x89); // requires_grad = False
        p.global("collections", "OrderedDict"); // no backward hooks
        p.0.extend_from_slice(b")RtR");
    }
    p.0.extend_from_slice(b"u.");
    let mut files = vec![(format!("{archive}/data.pkl"), p.0), (format!("{archive}/byteorder"), b"little".to_vec())];
    for (i, (_, _, values)) in entries.iter().enumerate() {
        files.push((format!("{archive}/data/{i}"), values.iter().flat_map(|v| v.to_le_bytes()).collect()));
    }
    files.push((format!("{archive}/version"), b"3\n".to_vec()));
    wmlab_core::zip::write_aligned(&files, 64)
}

/// A pickle being written (only the opcodes a `state_dict` needs).
#[cfg(feature = "nn")]
struct Pickle(Vec<u8>);

#[cfg(feature = "nn")]
impl Pickle {
    fn global(&mut self, module: &str, name: &str) {
        self.0.push(b'c');
        self.0.extend_from_slice(format!("{module}\n{name}\n").as_bytes());
    }
    fn string(&mut self, s: &str) {
        self.0.push(b'X');
        self.0.extend_from_slice(&(s.len() as u32).to_le_bytes());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn int(&mut self, n: usize) {
        match n {
            0..=0xff => self.0.extend_from_slice(&[b'K', n as u8]),
            0x100..=0xffff => {
                self.0.push(b'M');
                self.0.extend_from_slice(&(n as u16).to_le_bytes());
            }
            _ => {
                self.0.push(b'J');
                self.0.extend_from_slice(&(n as i32).to_le_bytes());
            }
        }
    }
    fn tuple(&mut self, items: &[usize]) {
        self.0.push(b'(');
        for &n in items {
            self.int(n);
        }
        self.0.push(b't');
    }
}

/// The float tensors of a `.pt` file (under `key` when given), by name, as float32. Tensors of other
/// types (integer buffers such as a batch norm's counter) are left out.
#[cfg(feature = "nn")]
pub fn read_pt(path: &std::path::Path, key: Option<&str>) -> anyhow::Result<Vec<Named>> {
    use pytorch_reader::{DType, PytorchReader};
    let named = |e: String| format!("{}: {e}", path.display());
    let reader = match key {
        Some(k) => PytorchReader::with_top_level_key(path, k),
        None => PytorchReader::new(path),
    }
    .map_err(|e| named(format!("not a PyTorch file this can read ({e})")))
    .map_err(anyhow::Error::msg)?;
    let mut out = Vec::new();
    let mut keys = reader.keys();
    keys.sort();
    for k in keys {
        let Some(t) = reader.get(&k) else { continue };
        let bytes = t.read().map_err(|e| named(format!("{k}: {e}"))).map_err(anyhow::Error::msg)?;
        let values: Vec<f32> = match t.dtype() {
            DType::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            DType::F64 => {
                bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")) as f32).collect()
            }
            _ => continue,
        };
        out.push((k, t.shape().to_vec(), values));
    }
    if out.is_empty() {
        return Err(anyhow::Error::msg(named(
            "no float tensors in the file (is it a state_dict? a checkpoint dict needs --key)".into(),
        )));
    }
    // A state_dict of NaN became a model without a word: weights must be finite numbers.
    if let Some((k, _, v)) = out.iter().find(|(_, _, v)| v.iter().any(|x| !x.is_finite())) {
        let bad = v.iter().filter(|x| !x.is_finite()).count();
        return Err(anyhow::Error::msg(named(format!(
            "tensor {k} holds {bad} value(s) that are not finite numbers (NaN or infinity); a model cannot be made of it"
        ))));
    }
    Ok(out)
}

#[cfg(feature = "nn")]
pub fn import(a: &ImportArgs) -> anyhow::Result<()> {
    let dict = match &a.key {
        Some(k) => read_pt(&a.torch, Some(k))?,
        None => read_pt(&a.torch, Some("model_state_dict")).or_else(|_| read_pt(&a.torch, None))?,
    };
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", a.torch.display());
    let (arch, capacity) = wmlab_nn::torch::detect(&dict).map_err(|e| named(&e)).map_err(anyhow::Error::msg)?;
    let holds = format!("the file holds a {}-{capacity}", arch.as_str().to_uppercase());
    if let Some(want) = &a.arch {
        let want =
            wmlab_nn::Arch::parse(want).ok_or_else(|| anyhow::anyhow!("--arch {want}: one of rnn, gru, lstm, trf"))?;
        if want != arch {
            return Err(anyhow::Error::msg(named(&format!(
                "{holds}, not a {} (--arch)",
                want.as_str().to_uppercase()
            ))));
        }
    }
    if let Some(c) = a.capacity.filter(|&c| c != capacity) {
        return Err(anyhow::Error::msg(named(&format!("{holds}, not capacity {c} (--capacity)"))));
    }
    let dev = wmlab_nn::cpu_device();
    let ck = wmlab_nn::torch::import(&dict, arch, capacity, &dev).map_err(|e| named(&e)).map_err(anyhow::Error::msg)?;
    crate::write_atomic(&a.out, &ck.to_bundle())?;
    out!(
        "{}: {} tensors into the paper's {} ({} parameters) -> {}",
        a.torch.display(),
        dict.len(),
        ck.train.model.label(),
        ck.train.model.param_count(),
        a.out.display()
    );
    Ok(())
}

#[cfg(feature = "nn")]
pub fn export(a: &ExportArgs) -> anyhow::Result<()> {
    let (_, ck) = crate::train::open_checkpoint(&a.torch)?;
    let dev = wmlab_nn::cpu_device();
    let dict = wmlab_nn::torch::export(&ck, &dev).map_err(anyhow::Error::msg)?;
    crate::write_atomic(&a.out, &write_pt(&dict, "archive"))?;
    out!("{}: {} tensors of {} -> {}", a.torch.display(), dict.len(), ck.train.model.label(), a.out.display());
    Ok(())
}

#[cfg(all(test, feature = "nn"))]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("wmlab-torch-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    /// What `write_pt` writes reads back through pytorch-reader (an implementation of PyTorch's own
    /// loader) with every name, shape and value, in the order written; scalars and large sizes included.
    #[test]
    fn a_written_state_dict_reads_back_whole() {
        let big: Vec<f32> = (0..70_000).map(|i| i as f32 * 0.5 - 7.0).collect();
        let entries: Vec<Named> = vec![
            ("CNN_Encoder.0.weight".into(), vec![2, 3, 1, 1], vec![1.0, -2.0, 3.5, f32::MIN_POSITIVE, 0.0, -0.0]),
            ("MEM.bias_ih_l0".into(), vec![3], vec![0.25, 0.5, 0.75]),
            ("big".into(), vec![70_000], big.clone()),
            ("scalar".into(), vec![], vec![42.0]),
        ];
        let path = temp("w.pt");
        std::fs::write(&path, write_pt(&entries, "archive")).unwrap();
        let mut back = read_pt(&path, None).unwrap();
        let mut want = entries.clone();
        back.sort_by(|a, b| a.0.cmp(&b.0));
        want.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(back.len(), want.len());
        for (b, w) in back.iter().zip(&want) {
            assert_eq!((&b.0, &b.1), (&w.0, &w.1));
            assert_eq!(
                b.2.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                w.2.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{}",
                b.0
            );
        }
    }

    /// Issue 71: `import --torch` of a state_dict full of NaN wrote a model without a word.
    #[test]
    fn non_finite_weights_are_refused_by_name() {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let entries: Vec<Named> =
                vec![("ok".into(), vec![2], vec![1.0, 2.0]), ("MEM.weight_hh_l0".into(), vec![3], vec![0.5, bad, bad])];
            let path = temp("nan.pt");
            std::fs::write(&path, write_pt(&entries, "archive")).unwrap();
            let e = read_pt(&path, None).unwrap_err().to_string();
            assert!(e.contains("tensor MEM.weight_hh_l0 holds 2 value(s) that are not finite numbers"), "{e}");
        }
    }

    /// A file PyTorch itself wrote (a checkpoint dict from pytorch-reader's test data, MIT/Apache-2.0)
    /// reads under its key; without the key, or under a wrong one, the message says what to do.
    #[test]
    fn a_file_pytorch_wrote_reads_under_its_key() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/torch-checkpoint.pt");
        let dict = read_pt(&path, Some("model_state_dict")).unwrap();
        let names: Vec<&str> = dict.iter().map(|d| d.0.as_str()).collect();
        assert_eq!(names, ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]);
        let fc1 = dict.iter().find(|d| d.0 == "fc1.weight").unwrap();
        assert_eq!((fc1.1.as_slice(), fc1.2.len()), (&[10, 5][..], 50));
        let e = read_pt(&path, Some("nope")).unwrap_err().to_string();
        assert!(e.contains("torch-checkpoint.pt") && e.contains("nope"), "{e}");
        let garbage = temp("garbage.pt");
        std::fs::write(&garbage, b"not a zip, not a pickle").unwrap();
        let e = read_pt(&garbage, None).unwrap_err().to_string();
        assert!(e.contains("not a PyTorch file"), "{e}");
    }
}
