//! The figures of a network analysis ([`NetworkAnalysis`]) as chart specs ([`crate::chart`]): what the
//! app draws for Fig. 5A–D, A5, A6 and A13, built here where native tests read them.

use crate::chart::{Chart, Heatmap, HistGrid, Role, Scale, Series, palette};

use super::report::{NetworkAnalysis, rows_to_unit};

fn families_of(r: &NetworkAnalysis, idx: &[usize]) -> String {
    idx.iter().filter_map(|&f| r.families.get(f).cloned()).collect::<Vec<_>>().join(", ")
}

fn somes(m: &[Vec<f64>]) -> Vec<Vec<Option<f64>>> {
    m.iter().map(|r| r.iter().map(|&v| Some(v)).collect()).collect()
}

/// One line per cluster: its size and the tasks it prefers.
pub fn cluster_lines(r: &NetworkAnalysis) -> Vec<String> {
    r.clusters
        .iter()
        .enumerate()
        .map(|(c, i)| format!("cluster {}: {} units, prefers {}", c + 1, i.size, families_of(r, &i.preferred)))
        .collect()
}

/// Fig. 5C: normalised TV, families × active units sorted by cluster, each unit's cluster in a strip.
pub fn tv_heatmap(r: &NetworkAnalysis) -> Heatmap {
    Heatmap {
        title: format!("Normalised task variance ({} active of {} units, sorted by cluster)", r.columns.len(), r.units),
        rows: r.families.clone(),
        cols: vec![],
        cells: somes(&r.tv_sorted),
        scale: Scale::Sequential,
        full: 1.0,
        square: false,
        values: false,
        strip: Some((r.column_cluster.clone(), "units (colour: cluster)".into())),
        axis_label: String::new(),
    }
}

/// Fig. 5B: the t-SNE of the units' normalised TV vectors, one colour per cluster.
pub fn tsne_chart(r: &NetworkAnalysis) -> Chart {
    let mut c = Chart::new(format!("t-SNE of units' task variance: {} clusters (best silhouette)", r.k), "", "");
    for (k, info) in r.clusters.iter().enumerate() {
        let pts = r.unit_xy.iter().zip(&r.column_cluster).filter(|&(_, &l)| l == k).map(|(p, _)| (p[0], p[1]));
        let name = format!("cluster {} ({} units): {}", k + 1, info.size, families_of(r, &info.preferred));
        c.series.push(Series::new(name, Role::Subject, pts.collect()).colour(palette(k)).scatter());
    }
    c
}

/// Fig. 5A: the STS probe states, coloured by the correct answer and by the rule in force.
pub fn sts_charts(r: &NetworkAnalysis) -> [Chart; 2] {
    let parts = [
        ("STS probe states by answer", &r.sts.answer, ["top / left", "bottom / right"]),
        ("by rule in force", &r.sts.rule, ["up / down", "left / right"]),
    ];
    parts.map(|(name, labels, names)| {
        let k = usize::from(name.starts_with("by rule"));
        let mut c = Chart::new(format!("{name} ({} of {} states)", r.sts.xy.len(), r.sts.total), "", "");
        for v in 0..2u8 {
            let pts = r.sts.xy.iter().zip(labels).filter(|&(_, &l)| l == v).map(|(p, _)| (p[0], p[1]));
            c.series.push(
                Series::new(names[v as usize], Role::Subject, pts.collect())
                    .colour(palette(v as usize + 2 * k))
                    .scatter(),
            );
        }
        c
    })
}

/// Fig. 5D: the FTV histogram of every ordered pair of families; cell (a, b) counts FTV(a, b) over
/// [−1, 1] (right: selective to a), the stored (b, a) histogram reversed.
pub fn ftv_grid(r: &NetworkAnalysis) -> HistGrid {
    let n = r.families.len();
    let cell = |a: usize, b: usize| {
        if a == b {
            return None;
        }
        let p = r.ftv.iter().find(|p| (p.a, p.b) == (a.min(b), a.max(b)))?;
        Some(if p.a == a { p.counts.clone() } else { p.counts.iter().rev().copied().collect() })
    };
    HistGrid {
        title: "Fractional task variance FTV(row, column), −1 … 1, for every pair of tasks".into(),
        names: r.families.clone(),
        cells: (0..n).map(|a| (0..n).map(|b| cell(a, b)).collect()).collect(),
    }
}

/// Fig. A6: the accuracy drop per cluster (rows) and task (columns) when the cluster's units are zeroed;
/// `None` when the analysis ran no lesions.
pub fn lesion_heatmap(r: &NetworkAnalysis) -> Option<Heatmap> {
    let l = r.lesion.as_ref()?;
    let full = l.drop.iter().flatten().flatten().fold(0.0f64, |a, &v| a.max(v.abs())).max(1e-9);
    let rows =
        r.clusters.iter().enumerate().map(|(c, i)| format!("cluster {} ({})", c + 1, families_of(r, &i.preferred)));
    Some(Heatmap {
        title: "Accuracy drop when a cluster is lesioned (intact − lesioned)".into(),
        rows: rows.collect(),
        cols: r.families.clone(),
        cells: l.drop.clone(),
        scale: Scale::Diverging,
        full,
        square: false,
        values: true,
        strip: None,
        axis_label: String::new(),
    })
}

fn similarity(title: &str, names: &[String], cells: Vec<Vec<Option<f64>>>, scale: Scale) -> Heatmap {
    Heatmap {
        title: title.into(),
        rows: names.to_vec(),
        cols: names.to_vec(),
        cells,
        scale,
        full: 1.0,
        square: true,
        values: false,
        strip: None,
        axis_label: String::new(),
    }
}

/// Fig. A13: the task embeddings' cosine similarities, each row scaled to [0, 1] as the paper draws it
/// (the raw matrix stays in the report).
pub fn embedding_heatmap(r: &NetworkAnalysis) -> Heatmap {
    let m = somes(&rows_to_unit(&r.task_embedding_cos));
    similarity("Fig. A13: task-embedding similarity (rows scaled to 0–1)", &r.tasks, m, Scale::Sequential)
}

/// Fig. A5: the mean cosine similarity of VSR hidden states at every pair of serial positions (missing
/// where no trial had both); `None` without VSR trials.
pub fn positions_heatmap(r: &NetworkAnalysis) -> Option<Heatmap> {
    let m = &r.vsr_position_similarity;
    if m.is_empty() {
        return None;
    }
    let names: Vec<String> = (1..=m.len()).map(|k| k.to_string()).collect();
    let mut h =
        similarity("Fig. A5: VSR states, similarity between serial positions", &names, m.clone(), Scale::Diverging);
    h.values = true;
    h.axis_label = "serial position".into();
    Some(h)
}

/// The mean state at each task's first step compared across task ids (not a figure of the paper: it
/// shows whether the task embedding sets the tasks apart before anything is seen).
pub fn first_step_heatmap(r: &NetworkAnalysis) -> Heatmap {
    similarity("First-step hidden-state cosine similarity", &r.tasks, somes(&r.first_item_cos), Scale::Diverging)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::{ClusterInfo, FtvPair, LesionReport, StsEmbedding};

    fn report() -> NetworkAnalysis {
        NetworkAnalysis {
            families: vec!["A".into(), "B".into(), "C".into()],
            units: 4,
            columns: vec![0, 2, 3],
            column_cluster: vec![0, 0, 1],
            tv_sorted: vec![vec![1.0, 0.5, 0.0], vec![0.2, 1.0, 0.1], vec![0.0, 0.0, 1.0]],
            k: 2,
            silhouettes: vec![(2, 0.4)],
            clusters: vec![
                ClusterInfo { size: 2, profile: vec![0.7, 0.6, 0.0], preferred: vec![0, 1] },
                ClusterInfo { size: 1, profile: vec![0.0, 0.1, 1.0], preferred: vec![2] },
            ],
            unit_xy: vec![[0.0, 0.0], [1.0, 0.5], [3.0, 2.0]],
            ftv: vec![FtvPair { a: 0, b: 2, counts: vec![1, 0, 3] }],
            sts: StsEmbedding { xy: vec![[0.0, 1.0], [1.0, 0.0]], answer: vec![0, 1], rule: vec![1, 1], total: 9 },
            tasks: vec!["A".into(), "B".into()],
            task_embedding_cos: vec![vec![1.0, 0.2], vec![0.2, 1.0]],
            first_item_cos: vec![vec![1.0, -0.5], vec![-0.5, 1.0]],
            vsr_position_similarity: vec![],
            lesion: Some(LesionReport {
                base: vec![Some(0.9); 3],
                lesioned: vec![vec![Some(0.5), Some(0.9), None]; 2],
                drop: vec![vec![Some(0.4), Some(0.0), None], vec![Some(-0.1), Some(0.2), None]],
            }),
        }
    }

    #[test]
    fn figures_carry_the_reports_numbers() {
        let r = report();
        let tv = tv_heatmap(&r);
        assert_eq!((tv.rows.len(), tv.cells[0].len()), (3, 3));
        assert_eq!(tv.strip.as_ref().unwrap().0, vec![0, 0, 1]);
        let t = tsne_chart(&r);
        assert_eq!(t.series.iter().map(|s| s.points.len()).collect::<Vec<_>>(), [2, 1]);
        assert!(t.series.iter().all(|s| !s.line));
        assert_eq!(t.series[0].name, "cluster 1 (2 units): A, B");
        let [by_answer, by_rule] = sts_charts(&r);
        assert_eq!(by_answer.series.iter().map(|s| s.points.len()).collect::<Vec<_>>(), [1, 1]);
        assert_eq!(by_rule.series.iter().map(|s| s.points.len()).collect::<Vec<_>>(), [0, 2]);
        assert!(by_answer.title.contains("2 of 9"));
        // FTV: (A, C) as stored, (C, A) reversed; none on the diagonal or for pairs without units.
        let g = ftv_grid(&r);
        assert_eq!(g.cells[0][2], Some(vec![1, 0, 3]));
        assert_eq!(g.cells[2][0], Some(vec![3, 0, 1]));
        assert_eq!((g.cells[1][1].clone(), g.cells[0][1].clone()), (None, None));
        let l = lesion_heatmap(&r).unwrap();
        assert_eq!(l.full, 0.4);
        assert_eq!(l.rows[1], "cluster 2 (C)");
        assert_eq!(l.colour(0.4), (0xb2, 0x18, 0x2b));
        assert_eq!(l.colour(0.0), (0xff, 0xff, 0xff));
        assert_eq!(l.colour(-0.4), (0x21, 0x66, 0xac));
        // A13 rows scaled to 0–1.
        assert_eq!(embedding_heatmap(&r).cells[0], vec![Some(1.0), Some(0.0)]);
        assert!(positions_heatmap(&r).is_none());
        assert!(first_step_heatmap(&r).square);
        assert_eq!(cluster_lines(&r)[1], "cluster 2: 1 units, prefers C");
    }
}
