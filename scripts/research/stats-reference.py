#!/usr/bin/env python3
"""Write the expected values of `wmlab stats` computed by SciPy, independently of the Rust code.

Output: crates/core/tests/data/stats_reference.jsonl, one JSON object per line:
{"request": <a wmlab stats input line>, "expected": <SciPy's answer in wmlab stats' output shape>}.
crates/core/tests/stats.rs and the CLI test feed every request to the Rust code and compare.

Run (needs scipy; not part of the test command, the file is committed):
    python3 -m venv /tmp/sp && /tmp/sp/bin/pip install scipy && /tmp/sp/bin/python scripts/research/stats-reference.py
"""
import json
import pathlib

import numpy as np
import scipy
from scipy import stats

rng = np.random.default_rng(20261124)


def r(xs):
    return [round(float(x), 6) for x in xs]


# Samples: small and large, with and without ties, d'-like values, accuracies on a grid (many ties).
dprime_n1 = r(rng.normal(3.5, 0.8, 30))
dprime_n2 = r(rng.normal(1.4, 0.7, 30))
dprime_n3 = r(rng.normal(1.1, 0.6, 30))
acc_grid_a = [round(x, 2) for x in rng.choice([0.5, 0.6, 0.7, 0.8, 0.9, 1.0], 24)]
acc_grid_b = [round(x, 2) for x in rng.choice([0.4, 0.5, 0.6, 0.7, 0.8], 19)]
small_a = [1.0, 2.0, 3.0, 4.0, 5.0]
small_b = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
tied_a = [1, 2, 2, 3, 3, 3, 4, 5]
tied_b = [2, 2, 3, 4, 4, 5, 6, 6, 7]
skewed = r(rng.exponential(1.0, 40))
paired_x = r(rng.normal(0.7, 0.1, 25))
paired_y = [round(x - d, 6) for x, d in zip(paired_x, rng.normal(0.03, 0.05, 25))]
# Wilcoxon with zero differences and tied |differences|.
wz_a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
wz_b = [1, 1, 1, 5, 3, 6, 9, 6, 12, 10, 8, 10]

cases = []


def tr(res):
    return {"statistic": float(res.statistic), "p": float(res.pvalue)}


def add(request, expected):
    cases.append({"request": request, "expected": expected})


for a, mu in [(small_a, 2.0), (dprime_n2, 0.0), (dprime_n3, 1.2), (acc_grid_a, 0.5), (skewed, 1.0)]:
    add({"test": "t1", "a": a, "mu": mu}, tr(stats.ttest_1samp(a, mu)))
for a, b in [(small_a, small_b), (dprime_n1, dprime_n2), (acc_grid_a, acc_grid_b), (tied_a, tied_b), (dprime_n2, dprime_n3)]:
    add({"test": "t_ind", "a": a, "b": b}, tr(stats.ttest_ind(a, b)))
    add({"test": "welch", "a": a, "b": b}, tr(stats.ttest_ind(a, b, equal_var=False)))
    add({"test": "mannwhitney", "a": a, "b": b},
        tr(stats.mannwhitneyu(a, b, alternative="two-sided", use_continuity=True, method="asymptotic")))
for a, b in [(paired_x, paired_y), (wz_a, wz_b), (dprime_n2, dprime_n3), (small_a, [2.0, 1.0, 3.5, 3.0, 6.0])]:
    add({"test": "wilcoxon", "a": a, "b": b},
        tr(stats.wilcoxon(a, b, zero_method="wilcox", correction=False, method="approx")))
# Against 0 (b omitted): the N-back paper's "Wilcoxon of d' against 0".
add({"test": "wilcoxon", "a": [round(x - 1.3, 6) for x in dprime_n2]},
    tr(stats.wilcoxon([round(x - 1.3, 6) for x in dprime_n2], zero_method="wilcox", correction=False, method="approx")))
for groups in [[dprime_n1, dprime_n2, dprime_n3], [tied_a, tied_b, small_a], [acc_grid_a, acc_grid_b]]:
    add({"test": "kruskal", "groups": groups}, tr(stats.kruskal(*groups)))
for k, n, p0 in [(8, 10, 0.5), (0, 10, 0.3), (112, 200, 0.5), (35, 200, 1 / 9), (25, 200, 0.125), (200, 200, 0.5), (3, 40, 0.04)]:
    add({"test": "binom", "k": k, "n": n, "p0": p0},
        {"p": float(stats.binomtest(k, n, p0, alternative="greater").pvalue)})
for a, level in [(small_a, 0.95), (dprime_n1, 0.95), (acc_grid_a, 0.99), (skewed, 0.9), ([0.2, 0.4], 0.95)]:
    m, sem = float(np.mean(a)), float(stats.sem(a))
    lo, hi = stats.t.interval(level, len(a) - 1, loc=m, scale=sem)
    add({"test": "ci_mean", "a": a, "level": level}, {"lo": float(lo), "hi": float(hi)})

out = pathlib.Path(__file__).resolve().parents[2] / "crates/core/tests/data/stats_reference.jsonl"
out.parent.mkdir(parents=True, exist_ok=True)
with out.open("w") as f:
    f.write(json.dumps({"generated_by": "scripts/research/stats-reference.py", "scipy": scipy.__version__, "numpy": np.__version__}) + "\n")
    for c in cases:
        f.write(json.dumps(c) + "\n")
print(f"{len(cases)} cases -> {out}")
