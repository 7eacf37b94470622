//! How far the probe frame is from the first (memory) frame, as the networks see them (the 32×32×3
//! tensor), for "changed" (target 1) and "same" (target 0) probes of the yes/no ids. For the CD ids it
//! shows that a change is always visible to a pixel comparison (≥ 1.5 in L1) and a no-change probe is
//! the memory frame exactly (0): docs/learning.md, "Distance attention".
//!
//!     cargo run --release -p wmlab-core --example probe_difference
use wmlab_core::Split;
use wmlab_core::raster::tensor32;
use wmlab_core::task::{Target, TaskId, TaskSpec};
fn main() {
    for id in [
        TaskId::CdColor,
        TaskId::CdOrientation,
        TaskId::CdSize,
        TaskId::CdGap,
        TaskId::VsRec,
        TaskId::Sc,
        TaskId::Si,
        TaskId::Vir,
    ] {
        let spec = TaskSpec::new(id);
        let (mut dc, mut ds, mut nc, mut ns) = (0.0f64, 0.0f64, 0, 0);
        let mut minc = f64::MAX;
        for i in 0..400u64 {
            let tr = spec.trial(1, Split::Train, i);
            let first = tensor32(&tr.steps[0].frame);
            for (_, st) in tr.scored_steps() {
                let p = tensor32(&st.frame);
                let d: f64 = p.iter().zip(&first).map(|(a, b)| (a - b).abs() as f64).sum();
                let Target::Class(c) = st.target else { continue };
                if c == 1 {
                    dc += d;
                    nc += 1;
                    minc = minc.min(d);
                } else {
                    ds += d;
                    ns += 1;
                }
            }
        }
        println!(
            "{id:?}: mean L1(probe-first) target1 {:.2} (n {nc}, min {minc:.2})  target0 {:.2} (n {ns})",
            dc / nc.max(1) as f64,
            ds / ns.max(1) as f64
        );
    }
}
