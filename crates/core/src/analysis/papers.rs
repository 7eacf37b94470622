//! Every numbered figure and table of the four source papers (`../shared/seeds/`), what it shows, where
//! its published numbers come from, and where the app draws the same thing from a user's own results —
//! the data behind the Papers page. Nothing here is measured: it is a catalogue, checked by tests against
//! the embedded reference data (an entry that says its numbers are embedded must have them).
//!
//! The N-back README has no numbered figures; its entries are the results tables its repository's
//! notebooks print (`shared/data/nback/reported_results_summary.csv`, per block in
//! `reported_results_per_block.csv`). The LRT README's figures are named by their image files. Minerva
//! has no Table 9 (its numbering jumps from 8 to 10).

use serde::Serialize;

use crate::chart::{Chart, Role, Series};
use crate::llm::{latent, lrt, nback, pi, snapshot};
use crate::people::StudyTask;
use crate::people::reference::human_curves;
use crate::task::TaskId;

/// The four source documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Paper {
    /// WorM (NeurIPS 2023): people and networks on the 10 visual working-memory tasks.
    Worm,
    /// Gong et al. (AAAI 2024): language models on verbal and spatial N-back (entries: its notebooks' tables).
    Nback,
    /// The Little Retrieval Test (its README); figures named by their image files.
    Lrt,
    /// Minerva, a programmable memory test benchmark for language models (it has no Table 9).
    Minerva,
    /// Huang, Sun, Wang & Dredze (2025): tasks that need a latent state (no seed: read from their code).
    Latent,
    /// Wang & Sun (2025), PI-LLM: proactive interference (no seed: read from their code and project page).
    PiLlm,
}

impl Paper {
    /// The papers in the Papers page's order: the four seeds, then the two 2025 critiques of issue 69.
    pub const ALL: [Paper; 6] = [Paper::Worm, Paper::Nback, Paper::Lrt, Paper::Minerva, Paper::Latent, Paper::PiLlm];
    /// Short lowercase name used in the Papers page's element ids (`paper-worm`, `paper-chart-nback-…`).
    pub fn key(self) -> &'static str {
        match self {
            Paper::Worm => "worm",
            Paper::Nback => "nback",
            Paper::Lrt => "lrt",
            Paper::Minerva => "minerva",
            Paper::Latent => "latent",
            Paper::PiLlm => "pi-llm",
        }
    }
    /// The paper's full title, with its venue where it has one: the heading of its section on the Papers page.
    pub fn title(self) -> &'static str {
        match self {
            Paper::Worm => {
                "Decoding the Enigma: Benchmarking Humans and AIs on the Many Facets of Working Memory (WorM, NeurIPS 2023)"
            }
            Paper::Nback => "Working Memory Capacity of ChatGPT: An Empirical Study (Gong et al., AAAI 2024)",
            Paper::Lrt => "The Little Retrieval Test (LRT, README)",
            Paper::Minerva => "Minerva: A Programmable Memory Test Benchmark for Language Models",
            Paper::Latent => "Language Models Do Not Have Human-Like Working Memory (Huang, Sun, Wang & Dredze, 2025)",
            Paper::PiLlm => {
                "Unable to Forget: Proactive Interference Reveals Working Memory Limits in LLMs Beyond Context Length (PI-LLM, Wang & Sun, 2025)"
            }
        }
    }
    /// Where a reader finds the paper: its public label and address (arXiv, or the repository of a
    /// README-only test).
    pub fn link(self) -> (&'static str, &'static str) {
        match self {
            Paper::Worm => ("arXiv:2307.10768", "https://arxiv.org/abs/2307.10768"),
            Paper::Nback => ("arXiv:2305.03731", "https://arxiv.org/abs/2305.03731"),
            Paper::Lrt => {
                ("github.com/anadim/the-little-retrieval-test", "https://github.com/anadim/the-little-retrieval-test")
            }
            Paper::Minerva => ("arXiv:2502.03358", "https://arxiv.org/abs/2502.03358"),
            Paper::Latent => ("arXiv:2505.10571", "https://arxiv.org/abs/2505.10571"),
            Paper::PiLlm => ("arXiv:2506.08184", "https://arxiv.org/abs/2506.08184"),
        }
    }
    /// The seed file in `shared/seeds/`; `None` for the papers added after the seeds (read from their
    /// public code).
    pub fn seed(self) -> Option<&'static str> {
        match self {
            Paper::Nback => Some("000_9e9376e96cf182e3.txt"),
            Paper::Worm => Some("001_2abb5a2a6e6da9c1.txt"),
            Paper::Lrt => Some("002_38f3e01133bb6ab3.txt"),
            Paper::Minerva => Some("003_754aa2fdaf8db297.txt"),
            Paper::Latent | Paper::PiLlm => None,
        }
    }
}

/// Published numbers the app embeds and can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Embedded {
    /// The human curves of Fig. 4 (`shared/data/worm-human/worm_human_reference.csv`).
    WormHumanCurves,
    /// N-back mean ± SE per results file and N (`reported_results_summary.csv`); `true` = the files of
    /// the README protocol's 30×30 runs (GPT-4 and the open models), `false` = GPT-3.5's 50×24 runs.
    NbackSummary(bool),
    /// N-back per-block d′ (`reported_results_per_block.csv`), what the paper's tests run on.
    NbackPerBlock,
    /// LRT success rates read off `images/retrieval_accuracy.png`.
    LrtOrderedShuffled,
    /// LRT success rates read off `images/block_shuffle.png`.
    LrtBlockShuffle,
    /// A Minerva table's columns (the `source` of [`snapshot::REPORTED`]).
    MinervaTable(&'static str),
    /// WorM Table A3 ([`crate::analysis::PUBLISHED_A3`]).
    WormTableA3,
    /// WorM Table A4 ([`TABLE_A4`]).
    WormTableA4,
    /// A Minerva table of context-length sweeps ([`snapshot::LENGTH_SWEEPS`] whose source starts so).
    MinervaLengths(&'static str),
    /// A Minerva table of prompt variants ([`snapshot::PROMPT_VARIANTS`] whose source starts so).
    MinervaVariants(&'static str),
    /// Huang et al. Table 1: Number Guessing sums per model.
    LatentGuessing,
    /// Huang et al. Table 2: GPT-4o's Number Guessing sum by range.
    LatentRange,
    /// Huang et al. Table 4: Yes-No Deduction failures.
    LatentYesNo,
    /// Huang et al. Table 6: Math Magic accuracy without and with CoT.
    LatentMagic,
    /// PI-LLM: accuracy per updates level of the authors' models (their project page).
    PiCurves,
}

/// Where an entry's published numbers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Published {
    /// In the app: shown on the Papers page and drawn beside the user's results.
    Embedded(Embedded),
    /// Numbers in the paper's text or tables that the app does not carry yet.
    SeedText,
    /// Only in a picture.
    FigureOnly,
    /// A diagram or a list: no numbers.
    NoNumbers,
}

/// Where the app produces the same figure or table from the user's own results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Where {
    /// The Task gallery (`#/gallery`): any trial of any task, drawn frame by frame.
    Gallery,
    /// The Compare page, with this task chosen (people, LLM and network subjects beside the humans).
    Compare(&'static str),
    /// The LLMs page (`#/llm`): a language model run on the N-back, LRT and Minerva suites, or the WorM frames.
    Llm,
    /// The Networks page (`#/networks`): building, training and evaluating a network.
    Networks,
    /// Networks page, after "Analyse".
    NetworkAnalyses,
    /// The People page (`#/study`): participants' sessions, at the paper's timings.
    Study,
    /// Not made anywhere in the app ([`Where::route`] is `None`).
    Nowhere,
}

impl Where {
    /// The app route that opens it (`None` for [`Where::Nowhere`]).
    pub fn route(self) -> Option<String> {
        match self {
            Where::Gallery => Some("#/gallery".into()),
            Where::Compare(_) => Some("#/compare".into()),
            Where::Llm => Some("#/llm".into()),
            Where::Networks | Where::NetworkAnalyses => Some("#/networks".into()),
            Where::Study => Some("#/study".into()),
            Where::Nowhere => None,
        }
    }
    /// Its name as the Papers page shows it ("Compare", "Networks → Analyse"; "—" for [`Where::Nowhere`]).
    pub fn label(self) -> &'static str {
        match self {
            Where::Gallery => "Gallery",
            Where::Compare(_) => "Compare",
            Where::Llm => "LLMs",
            Where::Networks => "Networks",
            Where::NetworkAnalyses => "Networks → Analyse",
            Where::Study => "People",
            Where::Nowhere => "—",
        }
    }
}

/// How far the app reproduces an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Status {
    /// The app draws it from the user's results (beside the published numbers where they are embedded).
    Reproduced,
    /// Part of it (e.g. one model at a time, or the user's side without the published one).
    Partly,
    /// Not yet: the run or the drawing is missing.
    NotYet,
    /// Nothing to reproduce (a diagram, a parameter list the app applies).
    NoResult,
}

impl Status {
    /// The status in words, as the Papers page shows it: what the app does with the entry (it draws it
    /// from the user's results; the user's run is what reproduces it).
    pub fn label(self) -> &'static str {
        match self {
            Status::Reproduced => "drawn by the app",
            Status::Partly => "partly drawn",
            Status::NotYet => "not drawn yet",
            Status::NoResult => "nothing to draw",
        }
    }

    /// A stable key for element attributes and tests: `drawn`, `partly`, `not-yet`, `none`.
    pub fn key(self) -> &'static str {
        match self {
            Status::Reproduced => "drawn",
            Status::Partly => "partly",
            Status::NotYet => "not-yet",
            Status::NoResult => "none",
        }
    }
}

/// One figure or table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// The paper it belongs to.
    pub paper: Paper,
    /// As the paper numbers it ("Fig. 4", "Table A3", "Figure 2", or an image file).
    pub id: &'static str,
    /// Its caption, shortened ("The 10 working memory tasks").
    pub title: &'static str,
    /// What it shows.
    pub shows: &'static str,
    /// Where its published numbers are: embedded in the app, only in the text, only in a picture, or none.
    pub published: Published,
    /// Where the app makes the same figure or table from the user's results.
    pub place: Where,
    /// How far the app reproduces it.
    pub status: Status,
    /// The run that produces it, in words.
    pub run: &'static str,
}

const fn e(
    paper: Paper,
    id: &'static str,
    title: &'static str,
    shows: &'static str,
    published: Published,
    place: Where,
    status: Status,
    run: &'static str,
) -> Entry {
    Entry { paper, id, title, shows, published, place, status, run }
}

use Paper::{Latent, Lrt, Minerva, Nback, PiLlm, Worm};
use Published::{Embedded as Emb, FigureOnly, NoNumbers, SeedText};
use Status::{NoResult, Partly, Reproduced};

/// WorM Table A4: (architecture, hidden size, number of parameters as printed, rounded there).
pub const TABLE_A4: [(&str, usize, f64); 12] = [
    ("rnn", 96, 1.8e6),
    ("rnn", 256, 2.0e6),
    ("rnn", 1024, 3.5e6),
    ("gru", 96, 2.0e6),
    ("gru", 256, 2.5e6),
    ("gru", 1024, 6.5e6),
    ("lstm", 96, 2.0e6),
    ("lstm", 256, 2.5e6),
    ("lstm", 1024, 8.0e6),
    ("trf", 96, 2.5e6),
    ("trf", 256, 4.5e6),
    ("trf", 1024, 20.0e6),
];

/// Table A4's parameter count of the paper's model `arch`-`hidden` (`lstm`, 256), if it lists it.
pub fn table_a4_params(arch: &str, hidden: usize) -> Option<f64> {
    TABLE_A4.iter().find(|(a, h, _)| a.eq_ignore_ascii_case(arch) && *h == hidden).map(|r| r.2)
}

/// Every entry, papers in [`Paper::ALL`] order, each paper's entries in the paper's order.
pub const ENTRIES: &[Entry] = &[
    e(
        Worm,
        "Fig. 1",
        "The 10 working memory tasks",
        "one schematic trial of each task",
        NoNumbers,
        Where::Gallery,
        NoResult,
        "The Gallery draws any trial of any task id, frame by frame.",
    ),
    e(
        Worm,
        "Fig. 2",
        "Task taxonomy",
        "domains, functionalities and characteristics of each task",
        NoNumbers,
        Where::Nowhere,
        NoResult,
        "Static task metadata; not drawn.",
    ),
    e(
        Worm,
        "Fig. 3",
        "The working memory models",
        "ConvNet → task embedding → RNN/GRU/LSTM/Transformer → heads",
        NoNumbers,
        Where::Networks,
        NoResult,
        "The Networks page builds this model (any architecture and capacity).",
    ),
    e(
        Worm,
        "Fig. 4",
        "Behavioural benchmarks: models vs humans",
        "accuracy vs serial position, retention, load, set size, resolution and features on VSR, VIR, CS, SMU, VSRec, CD",
        Emb(Embedded::WormHumanCurves),
        Where::Compare("VSR"),
        Reproduced,
        "People: take the task; networks: evaluate a checkpoint; the Compare page draws either beside the human curves (pick the task there).",
    ),
    e(
        Worm,
        "Fig. 5",
        "Neural correlates and task-specialised clusters",
        "task variance clusters, STS hidden-state t-SNE, FTV",
        FigureOnly,
        Where::NetworkAnalyses,
        Reproduced,
        "Train or load a network, then Analyse: task variance, clusters, t-SNE and FTV are drawn.",
    ),
    e(
        Worm,
        "Fig. A1",
        "Detailed schematic of each experiment",
        "every time step of one trial per task",
        NoNumbers,
        Where::Gallery,
        NoResult,
        "The Gallery steps through a trial's frames.",
    ),
    e(
        Worm,
        "Table A1",
        "Hyper-parameters",
        "optimiser, learning rate, batch, scheduler, capacities",
        SeedText,
        Where::Networks,
        NoResult,
        "The `paper` preset on the Networks page (and `wmlab train --preset paper`) uses them; `wmlab sweep --grid \
         table-a1` trains and evaluates the whole grid (4 memories × 3 capacities × batch 140/70 × 3 learning rates) \
         into one resumable folder, one record per run; `--task-embedding learned,static` (or the Networks page's \
         \"static task embedding\" box) adds the frozen embedding.",
    ),
    e(
        Worm,
        "Table A2",
        "Time mapping between model steps and human timings",
        "ms per phase for each task",
        SeedText,
        Where::Study,
        NoResult,
        "People sessions run at these timings (core people::timing); nothing to plot.",
    ),
    e(
        Worm,
        "Table A3",
        "Quantitative scores: humans vs models",
        "slope difference A and accuracy difference B per effect, with t-tests against chance",
        Emb(Embedded::WormTableA3),
        Where::Networks,
        Reproduced,
        "Evaluate a network: its Table A3 (A, B, pooled CD, asterisks) is under the curves, beside the paper's value for the same architecture and capacity.",
    ),
    e(
        Worm,
        "Fig. A2",
        "Ablations: VSR alone, language serial recall, long lists",
        "VSR accuracy of single-task, LSR and longer-list variants",
        FigureOnly,
        Where::Networks,
        Reproduced,
        "Train with task ids `VSR` (the VSR-alone ablation, A3.3) or `LSR` (language serial recall, A3.1: words as \
         vectors through a linear layer in place of the ConvNet; trained alone, as in the paper). Longer lists \
         (A3.2): task parameters `slots=16; list_lengths=2,4,8,16` on LSR, or `list_lengths=2,4,8,16` on VSRec, SFR \
         or VIR (trials up to 32 steps; the batch and the Transformer's positions follow; VSR's 3×3 probe holds \
         9). The Compare page's \"one plot per run\" layout (or `wmlab compare --layout per-run`) draws the runs \
         side by side, each named by its task subset and parameters (\"VSR only\", \"LSR only\", \
         \"list_lengths=2,4,8,16\"). The paper's word vectors (300-d word2vec) are not shipped by any registry: \
         LSR reads 50-d vectors of 1,000 common words made with all-MiniLM-L6-v2 (scripts/research/lsr-embeddings.py).",
    ),
    e(
        Worm,
        "Fig. A3",
        "Short retention intervals in VIR",
        "VIR accuracy at retention 0–6",
        FigureOnly,
        Where::Networks,
        Partly,
        "Any VIR evaluation (Networks page, Results): the VIR panels draw a curve for each retention interval 0, 2, 4, \
         5, 6 of the paper's grid, and a line gives the accuracy per interval with a Kruskal–Wallis test across them \
         (the paper reports no significant difference for LSTM-1024); its curves are a picture only.",
    ),
    e(
        Worm,
        "Table A4",
        "Model capacities and parameter counts",
        "parameters of the 12 architectures",
        Emb(Embedded::WormTableA4),
        Where::Networks,
        Reproduced,
        "The Networks page prints the chosen model's parameter count beside Table A4's; wmlab-nn's tests check the paper preset's counts against it.",
    ),
    e(
        Worm,
        "Fig. A4",
        "Training curves of every architecture",
        "validation accuracy vs epoch",
        FigureOnly,
        Where::Compare("VSR"),
        Reproduced,
        "Evaluate each network (on the Networks page, or `wmlab eval --record`, or `wmlab sweep`): its record carries \
         its validation curve, and the Compare page draws the chosen networks' curves together against trials seen \
         (the paper's x axis is epochs of 1.4M trials); runs are named by memory, capacity, preset, steps and task \
         subset. The paper's curves are a picture only.",
    ),
    e(
        Worm,
        "Fig. A5",
        "Similarity between serial positions in VSR",
        "cosine similarity of hidden states between serial positions",
        FigureOnly,
        Where::NetworkAnalyses,
        Reproduced,
        "Analyse a network: the serial-position similarity matrix is drawn.",
    ),
    e(
        Worm,
        "Fig. A6",
        "Lesioning neural clusters",
        "accuracy drop per task when each cluster is silenced",
        FigureOnly,
        Where::NetworkAnalyses,
        Reproduced,
        "Analyse a network: the lesion matrix is drawn.",
    ),
    e(
        Worm,
        "Fig. A7",
        "VSR accuracy vs list length, every architecture",
        "per model, accuracy vs serial position for each list length",
        FigureOnly,
        Where::Compare("VSR"),
        Reproduced,
        "Evaluate each network (Networks page, `wmlab eval --record` or `wmlab sweep`), choose them on the Compare page (VSR) and pick the layout \"one plot per run\": one panel per model with a curve per list length, the networks in the paper's order (RNN, GRU, LSTM, Transformer, then capacity), each beside the people; `wmlab compare --task VSR --layout per-run` writes the same plots as SVG. The paper's panels are pictures only.",
    ),
    e(
        Worm,
        "Fig. A8",
        "VIR accuracy vs retention, every architecture",
        "accuracy vs probed position at retention 0 and 5",
        FigureOnly,
        Where::Compare("VIR"),
        Reproduced,
        "As Fig. A7, on VIR: one plot per model and list length, a curve per retention interval (0 and 5 among them), beside the people.",
    ),
    e(
        Worm,
        "Fig. A9",
        "CS accuracy vs domain conflicts, every architecture",
        "accuracy vs distractor load per storage–distractor pair",
        FigureOnly,
        Where::Compare("CS"),
        Reproduced,
        "As Fig. A7, on CS: one plot per model, accuracy against distractors per storage–distractor pair (chance: the app's 1/8 and the paper's 0.04 line are both drawn).",
    ),
    e(
        Worm,
        "Fig. A10",
        "SMU accuracy vs set size, every architecture",
        "accuracy vs set size 1–8",
        FigureOnly,
        Where::Compare("SMU"),
        Reproduced,
        "As Fig. A7, on SMU: one plot per model, accuracy against set size, beside the people.",
    ),
    e(
        Worm,
        "Fig. A11",
        "VSRec accuracy vs memory resolution, every architecture",
        "accuracy vs serial position per pattern difference",
        FigureOnly,
        Where::Compare("VSRec"),
        Reproduced,
        "As Fig. A7, on VSRec: one plot per model and list length, a curve per pattern difference, beside the people.",
    ),
    e(
        Worm,
        "Fig. A12",
        "CD accuracy vs features and conjunctions, every architecture",
        "accuracy vs set size for the five CD conditions",
        FigureOnly,
        Where::Compare("CD-Color"),
        Reproduced,
        "As Fig. A7, on each CD id: one plot per model, accuracy against set size (retention 18, as the paper), beside the people.",
    ),
    e(
        Worm,
        "Fig. A13",
        "Task similarity from task embeddings",
        "cosine similarity of the 14 task embeddings, rows scaled to [0, 1]",
        FigureOnly,
        Where::NetworkAnalyses,
        Reproduced,
        "Analyse a network: the embedding similarity matrix is drawn.",
    ),
    e(
        Worm,
        "Fig. A14",
        "Per-task training curves of LSTM-1024",
        "validation accuracy per task id vs epoch",
        FigureOnly,
        Where::Networks,
        Reproduced,
        "Train any network: the per-task validation curves are drawn live (14 series).",
    ),
    e(
        Nback,
        "Results: GPT-3.5 (50 blocks of 24)",
        "Verbal and spatial N-back, every variant",
        "HR, FAR, accuracy and d′ (mean ± SE) at N = 1, 2, 3",
        Emb(Embedded::NbackSummary(false)),
        Where::Llm,
        Reproduced,
        "LLM page, N-back with the same variant and protocol: the charts draw the run beside these rows.",
    ),
    e(
        Nback,
        "Results: README protocol (30 blocks of 30)",
        "GPT-4 and the open models",
        "HR, FAR, accuracy and d′ at N = 1, 2, 3",
        Emb(Embedded::NbackSummary(true)),
        Where::Llm,
        Reproduced,
        "LLM page, N-back variant letters_30 with the readme protocol.",
    ),
    e(
        Nback,
        "Statistics on d′",
        "Kruskal–Wallis across N, Mann–Whitney post hoc, Wilcoxon against 0",
        "the tests of analysis_across_exps.ipynb on per-block d′",
        Emb(Embedded::NbackPerBlock),
        Where::Llm,
        Reproduced,
        "LLM page: the table under the N-back charts runs them on the run's blocks and on the published ones.",
    ),
    e(
        Lrt,
        "images/retrieval_accuracy.png",
        "Retrieval accuracy vs input size",
        "success rate vs number of lines, ordered and shuffled, two Claude models",
        Emb(Embedded::LrtOrderedShuffled),
        Where::Llm,
        Reproduced,
        "LLM page, Little Retrieval Test with ordered and shuffled (B = 1) lines at 500–6500 lines.",
    ),
    e(
        Lrt,
        "images/block_shuffle.png",
        "Block-shuffled retrieval",
        "success rate vs lines for blocks of 10 and 250",
        Emb(Embedded::LrtBlockShuffle),
        Where::Llm,
        Reproduced,
        "LLM page, LRT with block sizes 10, 250 (one run draws each B as its own series).",
    ),
    e(
        Minerva,
        "Table 1",
        "The memory tests",
        "every atomic and composite test",
        NoNumbers,
        Where::Llm,
        NoResult,
        "The LLM page lists every Minerva test for the generator and the snapshot.",
    ),
    e(
        Minerva,
        "Figure 1",
        "Overall performance by category",
        "nine models' mean score per test category (4k snapshot)",
        FigureOnly,
        Where::Llm,
        Partly,
        "LLM page, any Minerva run over two categories or more: the run's mean headline score per category, beside \
         gpt-4o's and llama-3.1-8b's over the same tasks where Tables 2–6 give numbers (the figure itself is a picture).",
    ),
    e(
        Minerva,
        "Table 2",
        "Search tasks",
        "exact match / ROUGE-L recall of nine models",
        Emb(Embedded::MinervaTable("Table 2")),
        Where::Llm,
        Reproduced,
        "LLM page, Minerva snapshot (or generator) search tasks: per-task scores beside two of these models.",
    ),
    e(
        Minerva,
        "Table 3",
        "Gibberish-context ablation",
        "string search in gibberish context",
        Emb(Embedded::MinervaTable("Table 3")),
        Where::Llm,
        Partly,
        "The generator's string_search_gibberish; the snapshot-gibberish column has no snapshot file.",
    ),
    e(
        Minerva,
        "Figure 2",
        "String search (subsequence) errors",
        "false positives and negatives vs subsequence length",
        FigureOnly,
        Where::Llm,
        Partly,
        "LLM page, a Minerva run with string_search_sequence: false negatives (present, answered no) and false \
         positives (absent, answered yes) by subsequence length; the published curves are a picture only.",
    ),
    e(
        Minerva,
        "Table 4",
        "Compute on sets and lists",
        "group membership, association, iterate",
        Emb(Embedded::MinervaTable("Table 4")),
        Where::Llm,
        Reproduced,
        "LLM page, Minerva sets-and-lists tasks.",
    ),
    e(
        Minerva,
        "Figure 3",
        "Recall and edit",
        "per-task scores of nine models",
        FigureOnly,
        Where::Llm,
        Partly,
        "LLM page, Minerva recall-and-edit tasks: the run's scores (published values only in the picture).",
    ),
    e(
        Minerva,
        "Figure 4",
        "Match and compare",
        "per-task scores of nine models",
        FigureOnly,
        Where::Llm,
        Partly,
        "LLM page, Minerva match-and-compare tasks.",
    ),
    e(
        Minerva,
        "Figure 5",
        "Spot the differences",
        "per-task scores of nine models",
        FigureOnly,
        Where::Llm,
        Partly,
        "LLM page, Minerva spot-the-differences tasks.",
    ),
    e(
        Minerva,
        "Table 5",
        "Stateful processing",
        "quantity state and set state",
        Emb(Embedded::MinervaTable("Table 5")),
        Where::Llm,
        Reproduced,
        "LLM page, Minerva stateful tasks.",
    ),
    e(
        Minerva,
        "Table 6",
        "Composite tests",
        "processing data blocks and theory of mind",
        Emb(Embedded::MinervaTable("Table 6")),
        Where::Llm,
        Reproduced,
        "LLM page, Minerva composite tasks.",
    ),
    e(
        Minerva,
        "Figure 6",
        "Number of operation steps",
        "quantity and set state vs steps",
        FigureOnly,
        Where::Llm,
        Partly,
        "LLM page, Minerva generator with a list of operation steps (or `wmlab llm run --suite minerva --steps \
         50,100,200,400`): score against steps for the stateful tasks; the published curves are a picture only.",
    ),
    e(
        Minerva,
        "Table 7",
        "Context length",
        "functional updates and count at 500–16k tokens",
        Emb(Embedded::MinervaLengths("Table 7")),
        Where::Llm,
        Reproduced,
        "LLM page, Minerva generator with a list of context lengths (or `wmlab llm run --suite minerva --context-tokens \
         500,1000,2000,4000,8000`): each task's score against length, drawn beside this table's models.",
    ),
    e(
        Minerva,
        "Table 8",
        "Prompt variation",
        "string search and group association, instruction 1 vs 2",
        Emb(Embedded::MinervaVariants("Table 8")),
        Where::Llm,
        Reproduced,
        "LLM page, Minerva generator with string search (word) and group association, instruction wording `1, 2` (or \
         `wmlab llm run --suite minerva --prompt-variants 1,2`): both wordings on the same trials, drawn beside this \
         table's models with the 95 % intervals.",
    ),
    e(
        Minerva,
        "Table 10",
        "Task overview",
        "parameters, examples and metric of every test (1110 cases)",
        SeedText,
        Where::Llm,
        NoResult,
        "The generator's default grid is this table (core llm::minerva).",
    ),
    e(
        Minerva,
        "Table 11",
        "Context length, three more tasks",
        "string search, replace all, iterate at several lengths",
        Emb(Embedded::MinervaLengths("Table 11")),
        Where::Llm,
        Reproduced,
        "As Table 7: a context sweep of string_search_word, replace_all or iterate_last is drawn beside this table.",
    ),
    e(
        Minerva,
        "Table 12",
        "Prompt variation, three more tasks",
        "replace all, check association, quantity state",
        Emb(Embedded::MinervaVariants("Table 12")),
        Where::Llm,
        Partly,
        "As Table 8, with replace all and quantity state. Check association is not offered: the seed's text of its \
         second wording is cut off (\"Given the context …\").",
    ),
    e(
        Latent,
        "Table 1",
        "Number Guessing",
        "Σ over k of P(yes | \"is it k?\"), range 1–10, 17 models (1 = holds one number)",
        Emb(Embedded::LatentGuessing),
        Where::Llm,
        Reproduced,
        "LLMs: tick Latent state, Number Guessing, with Repeats for the probabilities; its chart gives the sum.",
    ),
    e(
        Latent,
        "Table 2",
        "Number Guessing by range",
        "GPT-4o-2024-08-06's sum at ranges 2–40",
        Emb(Embedded::LatentRange),
        Where::Llm,
        Partly,
        "LLMs: one run per range (Number range field); each run's chart gives its sum.",
    ),
    e(
        Latent,
        "Table 4",
        "Yes-No Deduction",
        "trials of 200 with a contradiction within 250 questions, by property; hint and named-object ablations",
        Emb(Embedded::LatentYesNo),
        Where::Llm,
        Partly,
        "LLMs: Yes-No Deduction gives each trial's contradiction and the pass rate; the ablations are not built.",
    ),
    e(
        Latent,
        "Table 6",
        "Math Magic",
        "tricks whose last number is the one set aside, of 150, without and with CoT",
        Emb(Embedded::LatentMagic),
        Where::Llm,
        Reproduced,
        "LLMs: Math Magic, with or without its CoT box.",
    ),
    e(
        PiLlm,
        "Fig. 1",
        "Accuracy against updates per key",
        "46 keys, 2–400 updates each, random order; accuracy falls log-linearly",
        Emb(Embedded::PiCurves),
        Where::Llm,
        Reproduced,
        "LLMs: tick PI-LLM; its chart draws accuracy on log10 updates with the fitted slope and IES beside four published curves. People take the same task from a study link.",
    ),
];

/// The entries of one paper, in its order.
pub fn entries(paper: Paper) -> Vec<&'static Entry> {
    ENTRIES.iter().filter(|e| e.paper == paper).collect()
}

/// A table of published numbers, as text cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table {
    /// Where the numbers come from, in words: the embedded file or the paper's table, and the code that holds it.
    pub source: String,
    /// Column headings.
    pub header: Vec<String>,
    /// The rows, as formatted text cells in `header`'s order.
    pub rows: Vec<Vec<String>>,
}

fn f2(x: f64) -> String {
    format!("{x:.2}")
}

/// The published numbers of an embedded source.
pub fn published_table(what: Embedded) -> Table {
    match what {
        Embedded::WormHumanCurves => {
            let mut rows = Vec::new();
            for id in TaskId::ALL {
                for c in human_curves(StudyTask::Worm(id)) {
                    let pts = c.points.iter().map(|(x, y)| format!("{x}: {y:.3}")).collect::<Vec<_>>().join(", ");
                    rows.push(vec![id.as_str().to_string(), c.panel.clone(), c.label.clone(), c.x_name.clone(), pts]);
                }
            }
            Table {
                source: "shared/data/worm-human/worm_human_reference.csv (Fig. 4 human curves)".into(),
                header: ["task", "panel", "curve", "x", "accuracy at each x"].map(String::from).to_vec(),
                rows,
            }
        }
        Embedded::NbackSummary(readme) => {
            let rows = nback::reported_summary()
                .into_iter()
                .filter(|r| (r.trials_per_block == 30) == readme)
                .map(|r| {
                    let ms = |(m, s): (f64, f64)| format!("{m:.2} ± {s:.2}");
                    vec![
                        r.model.clone(),
                        r.results_file.clone(),
                        r.n.to_string(),
                        format!("{} × {}", r.blocks_used, r.trials_per_block),
                        ms(r.hit_rate),
                        ms(r.false_alarm_rate),
                        ms(r.accuracy),
                        ms(r.dprime),
                    ]
                })
                .collect();
            Table {
                source:
                    "shared/data/nback/reported_results_summary.csv (recomputed from the repository's results files)"
                        .into(),
                header: ["model", "results file", "N", "blocks × trials", "HR %", "FAR %", "accuracy %", "d′"]
                    .map(String::from)
                    .to_vec(),
                rows,
            }
        }
        Embedded::NbackPerBlock => {
            let blocks = nback::reported_blocks();
            let mut files: Vec<String> = vec![];
            for b in &blocks {
                if !files.contains(&b.results_file) {
                    files.push(b.results_file.clone());
                }
            }
            let rows = files
                .iter()
                .filter_map(|f| {
                    let t = nback::reported_file_tests(f)?;
                    let k = match &t.kruskal {
                        Ok(r) => format!("H = {:.2}, p = {:.2e}", r.statistic, r.p),
                        Err(e) => e.to_string(),
                    };
                    Some(vec![f.clone(), t.levels.iter().map(|l| l.1.to_string()).collect::<Vec<_>>().join(" / "), k])
                })
                .collect();
            Table {
                source: "shared/data/nback/reported_results_per_block.csv; H computed here by core::stats".into(),
                header: ["results file", "blocks per N", "Kruskal–Wallis on d′ across N"].map(String::from).to_vec(),
                rows,
            }
        }
        Embedded::LrtOrderedShuffled | Embedded::LrtBlockShuffle => {
            let mut header = vec!["model / order".to_string()];
            header.extend(lrt::DEFAULT_LINES.iter().map(|n| format!("{n} lines")));
            let rows: Vec<Vec<String>> = if what == Embedded::LrtOrderedShuffled {
                lrt::REPORTED
                    .iter()
                    .map(|(m, o, r)| std::iter::once(format!("{m}: {o}")).chain(r.iter().map(|v| f2(*v))).collect())
                    .collect()
            } else {
                lrt::REPORTED_BLOCK_SHUFFLE
                    .iter()
                    .map(|(b, r)| {
                        std::iter::once(format!("shuffled, B = {b}")).chain(r.iter().map(|v| f2(*v))).collect()
                    })
                    .collect()
            };
            Table { source: "read off the README's figure (±0.01), core llm::lrt::REPORTED".into(), header, rows }
        }
        Embedded::MinervaTable(source) => {
            let mut header = vec!["task".to_string(), "metric".to_string()];
            header.extend(snapshot::MODELS.iter().map(|m| m.to_string()));
            let rows = snapshot::REPORTED
                .iter()
                .filter(|c| c.2.starts_with(source))
                .map(|(task, metric, _, v)| {
                    let mut row = vec![task.to_string(), metric.as_str().to_string()];
                    row.extend(v.iter().map(|x| f2(*x)));
                    row
                })
                .collect();
            Table { source: format!("Minerva {source}, core llm::snapshot::REPORTED"), header, rows }
        }
        Embedded::WormTableA4 => Table {
            source: "WorM Table A4 (rounded as printed)".into(),
            header: ["model", "hidden size", "parameters"].map(String::from).to_vec(),
            rows: TABLE_A4
                .iter()
                .map(|(a, h, n)| {
                    vec![format!("{}-{h}", a.to_ascii_uppercase()), h.to_string(), format!("{}M", n / 1e6)]
                })
                .collect(),
        },
        Embedded::MinervaLengths(source) => {
            let mut rows = Vec::new();
            for sw in snapshot::LENGTH_SWEEPS.iter().filter(|s| s.source.starts_with(source)) {
                for (model, values) in sw.rows {
                    let at = sw
                        .lengths
                        .iter()
                        .zip(*values)
                        .map(|(l, v)| format!("{l}: {v:.2}"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    rows.push(vec![sw.source.into(), sw.task.into(), sw.metric.as_str().into(), model.to_string(), at]);
                }
            }
            Table {
                source: format!("Minerva {source}, core llm::snapshot::LENGTH_SWEEPS"),
                header: ["sub-table", "task", "metric", "model", "score at each context length (tokens)"]
                    .map(String::from)
                    .to_vec(),
                rows,
            }
        }
        Embedded::MinervaVariants(source) => {
            let mut rows = Vec::new();
            for pv in snapshot::PROMPT_VARIANTS.iter().filter(|s| s.source.starts_with(source)) {
                for (model, vars) in pv.rows {
                    let ci = |(v, lo, hi): (f64, f64, f64)| format!("{v:.2} ({lo:.2}, {hi:.2})");
                    rows.push(vec![
                        pv.source.into(),
                        format!("{} ({})", pv.name, pv.task),
                        pv.metric.as_str().into(),
                        model.to_string(),
                        ci(vars[0]),
                        ci(vars[1]),
                    ]);
                }
            }
            Table {
                source: format!("Minerva {source}, core llm::snapshot::PROMPT_VARIANTS"),
                header: ["sub-table", "task", "metric", "model", "variant 1 (95 % CI)", "variant 2 (95 % CI)"]
                    .map(String::from)
                    .to_vec(),
                rows,
            }
        }
        Embedded::LatentGuessing => Table {
            source: "Huang et al. Table 1, core llm::latent::published::NUMBER_GUESSING_SUM".into(),
            header: vec!["model".into(), "Σ P(yes)".into()],
            rows: latent::published::NUMBER_GUESSING_SUM
                .iter()
                .map(|(m, v)| vec![m.to_string(), format!("{v:.3}")])
                .collect(),
        },
        Embedded::LatentRange => Table {
            source: "Huang et al. Table 2 (GPT-4o-2024-08-06), core llm::latent::published::NUMBER_GUESSING_BY_RANGE"
                .into(),
            header: vec!["range".into(), "Σ P(yes)".into()],
            rows: latent::published::NUMBER_GUESSING_BY_RANGE
                .iter()
                .map(|(n, v)| vec![format!("1–{n}"), format!("{v:.3}")])
                .collect(),
        },
        Embedded::LatentYesNo => Table {
            source: "Huang et al. Table 4, core llm::latent::published::YES_NO_FAILURES".into(),
            header: vec!["condition".into(), "failures of 200".into()],
            rows: latent::published::YES_NO_FAILURES.iter().map(|(m, v)| vec![m.to_string(), v.to_string()]).collect(),
        },
        Embedded::LatentMagic => Table {
            source: "Huang et al. Table 6, core llm::latent::published::MATH_MAGIC (– : not printed)".into(),
            header: vec!["model".into(), "no CoT".into(), "CoT or reasoning".into()],
            rows: latent::published::MATH_MAGIC
                .iter()
                .map(|(m, a, b)| {
                    let f = |x: &Option<f64>| x.map(|v| format!("{v:.3}")).unwrap_or_else(|| "–".into());
                    vec![m.to_string(), f(a), f(b)]
                })
                .collect(),
        },
        Embedded::PiCurves => {
            let mut header = vec!["model".to_string()];
            header.extend(pi::PAPER_UPDATES.iter().map(|u| u.to_string()));
            Table {
                source: "PI-LLM project page (REAL_ACC, 46 keys), core llm::pi::published::REPORTED".into(),
                header,
                rows: pi::published::REPORTED
                    .iter()
                    .map(|(m, row)| {
                        let mut r = vec![m.to_string()];
                        r.extend(row.iter().map(|v| format!("{v:.2}")));
                        r
                    })
                    .collect(),
            }
        }
        Embedded::WormTableA3 => {
            use crate::analysis::{A3_MODELS, PUBLISHED_A3};
            let mut header = vec!["task".to_string(), "effect".to_string(), "score".to_string()];
            header.extend(A3_MODELS.iter().map(|m| m.to_string()));
            let rows = PUBLISHED_A3
                .iter()
                .map(|(t, e, s, v)| {
                    let mut row = vec![t.to_string(), e.replace('_', " "), s.to_ascii_uppercase().to_string()];
                    row.extend(v.iter().map(|x| format!("{x:.3}*")));
                    row
                })
                .collect();
            Table { source: "WorM Table A3 (every value starred: p < 0.01 against chance)".into(), header, rows }
        }
    }
}

/// The published numbers of an embedded source as a chart, where a chart says more than the table:
/// N-back d′ against N per results file (± SE), LRT success against the number of lines, and a Minerva
/// table's scores per task and model. (The WorM human curves are drawn on the Compare page, one task at
/// a time; Table A3 and the per-block tests stay tables.)
pub fn published_chart(what: Embedded) -> Option<Chart> {
    let reference =
        |name: String, points: Vec<(f64, f64)>, err: Vec<f64>| Series::new(name, Role::Reference, points).err(&err);
    match what {
        Embedded::NbackSummary(readme) => {
            let rows: Vec<_> =
                nback::reported_summary().into_iter().filter(|r| (r.trials_per_block == 30) == readme).collect();
            // One series per results file and number of blocks (GPT-3.5's verbal file is also summarised over
            // its first 30 blocks, as the paper's cross-model figure does).
            let mut keys: Vec<(String, usize, String)> = vec![];
            for r in &rows {
                if !keys.iter().any(|(f, b, _)| *f == r.results_file && *b == r.blocks_used) {
                    keys.push((r.results_file.clone(), r.blocks_used, r.model.clone()));
                }
            }
            let most = |f: &str| rows.iter().filter(|r| r.results_file == f).map(|r| r.blocks_used).max().unwrap_or(0);
            let series = keys
                .into_iter()
                .map(|(f, b, m)| {
                    let mine: Vec<_> = rows.iter().filter(|r| r.results_file == f && r.blocks_used == b).collect();
                    let first = if b < most(&f) { format!(", first {b} blocks") } else { String::new() };
                    let variant = f.trim_end_matches(".json").trim_start_matches("all_trials_");
                    let name = format!("{m}: {variant}{first}");
                    let points = mine.iter().map(|r| (r.n as f64, r.dprime.0)).collect();
                    reference(name, points, mine.iter().map(|r| r.dprime.1).collect())
                })
                .collect();
            Some(Chart {
                title: if readme {
                    "N-back d′ (README runs, 30 blocks × 30 trials)"
                } else {
                    "N-back d′ (GPT-3.5, 50 blocks × 24 trials)"
                }
                .into(),
                x_label: "N".into(),
                y_label: "d′ (mean ± SE over blocks)".into(),
                categories: vec![],
                y_range: None,
                series,
                min_n: 0,
            })
        }
        Embedded::LrtOrderedShuffled | Embedded::LrtBlockShuffle => {
            let x = |r: &[f64; 10]| lrt::DEFAULT_LINES.iter().zip(r).map(|(&n, &v)| (n as f64, v)).collect::<Vec<_>>();
            let series = if what == Embedded::LrtOrderedShuffled {
                lrt::REPORTED.iter().map(|(m, o, r)| reference(format!("{m}: {o}"), x(r), vec![])).collect()
            } else {
                lrt::REPORTED_BLOCK_SHUFFLE
                    .iter()
                    .map(|(b, r)| reference(format!("shuffled, B = {b}"), x(r), vec![]))
                    .collect()
            };
            Some(Chart {
                title: "LRT: retrieval success against context length".into(),
                x_label: "lines in the context".into(),
                y_label: "success rate".into(),
                categories: vec![],
                y_range: Some((0.0, 1.0)),
                series,
                min_n: 0,
            })
        }
        Embedded::MinervaTable(source) => {
            let cols: Vec<_> = snapshot::REPORTED.iter().filter(|c| c.2.starts_with(source)).collect();
            let categories = cols.iter().map(|c| c.0.to_string()).collect();
            let series = snapshot::MODELS
                .iter()
                .enumerate()
                .map(|(m, name)| {
                    reference(
                        name.to_string(),
                        cols.iter().enumerate().map(|(i, c)| (i as f64, c.3[m])).collect(),
                        vec![],
                    )
                })
                .collect();
            Some(Chart {
                title: format!("Minerva {source}: score per task and model"),
                x_label: "task".into(),
                y_label: "score (as the table: accuracy, IoU, …)".into(),
                categories,
                y_range: None,
                series,
                min_n: 0,
            })
        }
        Embedded::MinervaLengths(source) => {
            let sweeps: Vec<_> = snapshot::LENGTH_SWEEPS.iter().filter(|s| s.source.starts_with(source)).collect();
            let series = sweeps
                .iter()
                .flat_map(|sw| {
                    sw.rows.iter().map(move |(m, v)| {
                        let points = sw.lengths.iter().zip(*v).map(|(&l, &y)| ((l as f64).log2(), y)).collect();
                        reference(format!("{}: {m}", sw.task), points, vec![])
                    })
                })
                .collect();
            Some(Chart {
                title: format!("Minerva {source}: score against context length"),
                x_label: "context length, log₂ tokens (9 = 500, 12 ≈ 4K, 15 ≈ 32K)".into(),
                y_label: "score".into(),
                categories: vec![],
                y_range: Some((0.0, 1.0)),
                series,
                min_n: 0,
            })
        }
        Embedded::MinervaVariants(source) => {
            // x: one category per (sub-table, model); one series per variant, with the printed CIs.
            let tables: Vec<_> = snapshot::PROMPT_VARIANTS.iter().filter(|s| s.source.starts_with(source)).collect();
            let mut categories = Vec::new();
            let mut per: [(Vec<(f64, f64)>, Vec<f64>); 2] = Default::default();
            for pv in &tables {
                for (model, vars) in pv.rows {
                    let x = categories.len() as f64;
                    categories.push(format!("{}: {model}", pv.name));
                    for (k, &(v, lo, hi)) in vars.iter().enumerate() {
                        per[k].0.push((x, v));
                        per[k].1.push(((v - lo).max(hi - v)).max(0.0));
                    }
                }
            }
            let [(p1, e1), (p2, e2)] = per;
            Some(Chart {
                title: format!("Minerva {source}: two wordings of the instruction"),
                x_label: "task and model".into(),
                y_label: "score (± the printed 95 % CI, widest side)".into(),
                categories,
                y_range: Some((0.0, 1.0)),
                series: vec![reference("variant 1".into(), p1, e1), reference("variant 2".into(), p2, e2)],
                min_n: 0,
            })
        }
        Embedded::LatentGuessing => {
            let rows = &latent::published::NUMBER_GUESSING_SUM;
            Some(Chart {
                title: "Number Guessing: Σ P(yes) per model (1 = holds one number)".into(),
                x_label: "model".into(),
                y_label: "Σ P(yes)".into(),
                categories: rows.iter().map(|r| r.0.to_string()).collect(),
                y_range: Some((0.0, 1.5)),
                series: vec![reference(
                    "Huang et al. Table 1".into(),
                    rows.iter().enumerate().map(|(i, r)| (i as f64, r.1)).collect(),
                    vec![],
                )],
                min_n: 0,
            })
        }
        Embedded::PiCurves => Some(Chart {
            title: "PI-LLM: accuracy against updates per key (46 keys)".into(),
            x_label: "updates per key, log10 (0.3 = 2, 2.6 = 400)".into(),
            y_label: "keys right".into(),
            categories: vec![],
            y_range: Some((0.0, 1.0)),
            series: pi::published::REPORTED
                .iter()
                .map(|(m, row)| {
                    let pts = pi::PAPER_UPDATES.iter().zip(row).map(|(&u, &a)| ((u as f64).log10(), a)).collect();
                    reference(m.to_string(), pts, vec![])
                })
                .collect(),
            min_n: 0,
        }),
        Embedded::WormHumanCurves
        | Embedded::NbackPerBlock
        | Embedded::WormTableA3
        | Embedded::WormTableA4
        | Embedded::LatentRange
        | Embedded::LatentYesNo
        | Embedded::LatentMagic => None,
    }
}

/// Per paper, how many entries are reproduced, partly, not yet, and with no result.
pub fn summary(paper: Paper) -> [(Status, usize); 4] {
    let n = |s: Status| ENTRIES.iter().filter(|e| e.paper == paper && e.status == s).count();
    [Status::Reproduced, Status::Partly, Status::NotYet, Status::NoResult].map(|s| (s, n(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_charts_carry_the_numbers_of_their_tables() {
        let embedded: Vec<Embedded> = ENTRIES
            .iter()
            .filter_map(|e| match e.published {
                Published::Embedded(w) => Some(w),
                _ => None,
            })
            .collect();
        let mut charts = 0;
        for w in embedded {
            let (Some(chart), table) = (published_chart(w), published_table(w)) else { continue };
            charts += 1;
            assert!(!chart.series.is_empty(), "{w:?}");
            // Every number drawn is a number of the table (to its printed 2 or 3 decimals), and every point is
            // finite.
            let cells: Vec<String> = table.rows.iter().flatten().cloned().collect::<Vec<_>>();
            for s in &chart.series {
                assert!(s.bars.is_empty() || s.bars.len() == s.points.len(), "{w:?} {}", s.name);
                for &(x, y) in &s.points {
                    assert!(x.is_finite() && y.is_finite(), "{w:?} {}", s.name);
                    let shown = format!("{y:.2}");
                    let three = format!("{y:.3}");
                    assert!(
                        cells.iter().any(|c| c.contains(&shown) || c.contains(&three)),
                        "{w:?} {}: {shown} not in the table",
                        s.name
                    );
                }
                if !chart.categories.is_empty() {
                    assert_eq!(s.points.len(), chart.categories.len(), "{w:?}");
                }
            }
            let ((x0, x1), (y0, y1)) = chart.bounds();
            assert!(x0 < x1 && y0 < y1);
        }
        assert!(charts >= 5, "N-back ×2, LRT ×2 and the Minerva tables have charts: {charts}");
        // N-back: GPT-3.5's curve falls from N = 1 to N = 3, as the paper reports.
        let c = published_chart(Embedded::NbackSummary(false)).unwrap();
        let s = &c.series[0];
        assert_eq!(s.points.iter().map(|p| p.0).collect::<Vec<_>>(), vec![1.0, 2.0, 3.0]);
        assert!(s.points[0].1 > s.points[2].1, "{s:?}");
    }

    #[test]
    fn every_paper_lists_its_numbered_figures_and_tables_once() {
        // WorM: Figs. 1–5, A1–A14 and Tables A1–A4; Minerva: Tables 1–8, 10–12 and Figures 1–6.
        let ids = |p: Paper| entries(p).iter().map(|e| e.id).collect::<Vec<_>>();
        let worm = ids(Paper::Worm);
        assert_eq!(worm.len(), 23, "{worm:?}");
        for i in 1..=5 {
            assert!(worm.contains(&format!("Fig. {i}").as_str()), "Fig. {i}");
        }
        for i in 1..=14 {
            assert!(worm.contains(&format!("Fig. A{i}").as_str()), "Fig. A{i}");
        }
        for i in 1..=4 {
            assert!(worm.contains(&format!("Table A{i}").as_str()), "Table A{i}");
        }
        let minerva = ids(Paper::Minerva);
        assert_eq!(minerva.len(), 17);
        for i in (1..=8).chain(10..=12) {
            assert!(minerva.contains(&format!("Table {i}").as_str()), "Table {i}");
        }
        for i in 1..=6 {
            assert!(minerva.contains(&format!("Figure {i}").as_str()), "Figure {i}");
        }
        for p in Paper::ALL {
            let mut v = ids(p);
            assert!(!v.is_empty(), "{p:?}");
            v.sort();
            v.dedup();
            assert_eq!(v.len(), entries(p).len(), "{p:?}: an id twice");
        }
    }

    #[test]
    fn embedded_numbers_are_there_and_reproduced_entries_say_where() {
        for e in ENTRIES {
            if let Published::Embedded(what) = e.published {
                let t = published_table(what);
                assert!(!t.rows.is_empty(), "{}: no published rows", e.id);
                assert!(t.rows.iter().all(|r| r.len() == t.header.len()), "{}: ragged", e.id);
            }
            if matches!(e.status, Status::Reproduced | Status::Partly) {
                assert!(e.place.route().is_some(), "{} is reproduced somewhere", e.id);
            }
        }
        let a3 = ENTRIES.iter().find(|e| e.paper == Paper::Worm && e.id == "Table A3").unwrap();
        assert_eq!(a3.published, Published::Embedded(Embedded::WormTableA3));
        assert_eq!(published_table(Embedded::WormTableA3).rows.len(), crate::analysis::PUBLISHED_A3.len());
        // Minerva's numeric tables 2–6 are all embedded, each with its own columns.
        for t in ["Table 2", "Table 3", "Table 4", "Table 5", "Table 6"] {
            let e = ENTRIES.iter().find(|e| e.paper == Paper::Minerva && e.id == t).unwrap();
            assert_eq!(e.published, Published::Embedded(Embedded::MinervaTable(t)));
        }
        let t2 = published_table(Embedded::MinervaTable("Table 2"));
        assert_eq!(t2.rows.len(), 4);
        assert_eq!(t2.rows[0][..3], ["string_search_word", "exact_match", "0.94"].map(String::from));
        // GPT-3.5's rows and the README protocol's rows split the N-back summary between them.
        let (a, b) =
            (published_table(Embedded::NbackSummary(false)).rows, published_table(Embedded::NbackSummary(true)).rows);
        assert_eq!(a.len() + b.len(), nback::reported_summary().len());
        assert!(b.iter().any(|r| r[0] == "GPT-4") && !a.iter().any(|r| r[0] == "GPT-4"));
    }
}
