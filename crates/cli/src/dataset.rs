//! `wmlab dataset`: result records (downloaded from the app, `wmlab eval --record`, an LLM run's record)
//! as one Psych-DS dataset folder — `dataset_description.json` and `data/*_data.csv`
//! (`wmlab_core::psychds`). Prints one JSON line: the files written.

use std::path::{Path, PathBuf};

use clap::Args;
use wmlab_core::psychds::dataset;
use wmlab_core::record::ResultRecord;

#[derive(Args, Debug)]
pub struct DatasetArgs {
    /// Result records: JSON files, or folders whose `*.json` files are records (read in name order).
    #[arg(required = true, value_name = "RECORD")]
    pub records: Vec<PathBuf>,
    /// The dataset's name (dataset_description.json `name`).
    #[arg(long, default_value = "WM Lab study")]
    pub name: String,
    /// Output folder (made if missing; files of the same names are replaced).
    #[arg(long)]
    pub out: PathBuf,
}

fn record_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "json"))
                .collect();
            inside.sort();
            if inside.is_empty() {
                return Err(anyhow::anyhow!("{} holds no .json files", p.display()));
            }
            out.extend(inside);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// A result record from a JSON file, refused in words naming the file (`wmlab dataset`, `wmlab compare`).
pub fn read_record(file: &Path) -> anyhow::Result<ResultRecord> {
    let text = std::fs::read_to_string(file).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
    ResultRecord::from_json(&text).map_err(|e| anyhow::anyhow!("{} is not a result record: {e}", file.display()))
}

pub fn run(a: &DatasetArgs) -> anyhow::Result<()> {
    let files = record_files(&a.records)?;
    let records = files.iter().map(|f| read_record(f)).collect::<Result<Vec<_>, _>>()?;
    let out = dataset(&records, &a.name)?;
    for f in &out {
        let p = a.out.join(&f.path);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("cannot make {}: {e}", dir.display()))?;
        }
        std::fs::write(&p, &f.text).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
    }
    let written: Vec<&str> = out.iter().map(|f| f.path.as_str()).collect();
    out!("{}", serde_json::json!({ "out": a.out.display().to_string(), "files": written }));
    Ok(())
}
