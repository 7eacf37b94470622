#!/usr/bin/env python3
"""One Markdown row per run directory of scripts/research/learning.sh: configuration, steps, trials, wall time, and
the test result (`wmlab eval --n 200`): task ids above chance (p < 0.01) and which.

    python3 scripts/research/learning-table.py RUN_DIR[=LABEL] ...
"""
import json
import sys

print("| run | model | encoder | lr | clip | curriculum | steps | trials | train time | ids above chance (test) | which |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for spec in sys.argv[1:]:
    path, _, label = spec.partition("=")
    label = label or path.rstrip("/").rsplit("/", 1)[-1]
    e = json.load(open(path + "/eval.json"))
    t = json.load(open(path + "/train.json"))
    curve = [json.loads(l) for l in open(path + "/curve.jsonl")]
    last = curve[-1]
    m = t["model"]
    enc = m.get("encoder") or "conv"
    if enc == "conv":
        enc = f"conv {'/'.join(map(str, m['conv']))}, grid {m.get('spatial') or 1}"
    rows = [x for x in e["tasks"] if x["accuracy"] is not None]
    above = [x["task"] for x in rows if x["p_above_chance"] < e["significance_level"]]
    secs = last.get("elapsed_s")
    print(f"| {label} | {e['model']} | {enc} | {t['lr']:g} | {t.get('grad_clip') or '–'} | {t.get('curriculum') or '–'} | "
          f"{last['step']} (best {e['step']}) | {last['step'] * t['per_task'] * len(rows):,} | "
          f"{(secs or 0) / 60:.1f} min | **{len(above)}/{len(rows)}** | {', '.join(above)} |")
