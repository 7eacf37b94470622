//! The neural analyses of a trained network (`wmlab_core::analysis::NetworkAnalysis`, computed in the
//! networks worker) as figures: the chart specs come from `wmlab_core::analysis::figures` (Fig. 5A–D,
//! A5, A6, A13 and the first-step similarity); this only lays them out on canvases.

use leptos::prelude::*;
use wmlab_core::analysis::NetworkAnalysis;
use wmlab_core::analysis::figures as fig;

use super::chart::{Figure, FigureCanvas};

/// The analyses a record carries (JSON of `NetworkAnalysis`), or why they do not read.
pub fn record_analyses(report: serde_json::Value) -> AnyView {
    match serde_json::from_value::<NetworkAnalysis>(report) {
        Ok(r) => view! { <NnAnalysis report=r/> }.into_any(),
        Err(e) => {
            view! { <p class="error" id="nn-analysis-error">{format!("The analysis could not be read: {e}")}</p> }
                .into_any()
        }
    }
}

/// All figures of one analysis report.
#[component]
pub fn NnAnalysis(report: NetworkAnalysis) -> impl IntoView {
    let r = &report;
    let lesion_h = 100 + 28 * r.k.max(1) as u32;
    let sil = r.silhouettes.iter().map(|(k, s)| format!("k={k}: {s:.2}")).collect::<Vec<_>>().join(", ");
    let figures: [(&str, u32, u32, Figure); 8] = [
        ("nn-an-tv", 720, 300, Figure::Heatmap(fig::tv_heatmap(r))),
        ("nn-an-tsne", 720, 420, Figure::Charts(vec![fig::tsne_chart(r)])),
        ("nn-an-ftv", 720, 760, Figure::HistGrid(fig::ftv_grid(r))),
        (
            "nn-an-lesion",
            720,
            lesion_h,
            fig::lesion_heatmap(r).map_or(Figure::Empty("No lesion results.".into()), Figure::Heatmap),
        ),
        ("nn-an-sts", 900, 360, Figure::Charts(fig::sts_charts(r).to_vec())),
        ("nn-an-emb", 480, 480, Figure::Heatmap(fig::embedding_heatmap(r))),
        (
            "nn-an-a5",
            480,
            480,
            fig::positions_heatmap(r).map_or(Figure::Empty("No VSR trials in this analysis.".into()), Figure::Heatmap),
        ),
        ("nn-an-first", 480, 480, Figure::Heatmap(fig::first_step_heatmap(r))),
    ];
    view! {
        <div class="nn-analysis-figures">
            <p class="small">{format!("{} units, {} active; clusters by k-means on normalised TV, k with the best mean silhouette ({sil}).", r.units, r.columns.len())}</p>
            <ul class="small" id="nn-an-clusters">{fig::cluster_lines(r).into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}</ul>
            {figures.into_iter().map(|(id, width, height, figure)| view! {
                <FigureCanvas figure=figure id=id width=width height=height/>
            }).collect_view()}
        </div>
    }
}
