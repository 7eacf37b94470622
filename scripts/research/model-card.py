#!/usr/bin/env python3
"""Ship a trained network with the app: copies RUN_DIR's best checkpoint bundle to public/models/NAME.wmlabnn
and writes its model card twice, as NAME.md (for people) and as an entry of public/models/index.json (for
the Networks page). Everything on the card comes from the run's files: eval.json (`wmlab eval`, with chance
and p per task id), the checkpoint's train.json and state (steps, trials, wall time).

    python3 scripts/research/model-card.py RUN_DIR NAME --title "..." --hardware "..." [--notes "..."]

An effect counts as shown when the network's slope (Table A3's M_A) has the human slope's sign (H_A) and
the task is above chance (p < 0.01); the slope itself carries no test, so read the numbers beside it.
"""
import argparse
import json
import os
import shutil
import struct

EFFECT_NAMES = {
    ("VSR", "primacy"): "VSR primacy", ("VSR", "recency"): "VSR recency",
    ("SMU", "set_size"): "SMU set-size decline", ("VIR", "retention"): "VIR retention effect",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("name")
    ap.add_argument("--title", required=True)
    ap.add_argument("--hardware", required=True)
    ap.add_argument("--notes", default="")
    ap.add_argument("--models", default=os.path.join(os.path.dirname(__file__), "..", "..", "public", "models"))
    a = ap.parse_args()

    e = json.load(open(os.path.join(a.run, "eval.json")))
    level = e["significance_level"]  # the core's chance::LEVEL, as `wmlab eval` wrote it
    train = json.load(open(os.path.join(a.run, "best", "train.json")))
    bundle = os.path.join(a.run, "best", "checkpoint.wmlabnn")
    os.makedirs(a.models, exist_ok=True)
    dst = os.path.join(a.models, a.name + ".wmlabnn")
    shutil.copyfile(bundle, dst)
    size = os.path.getsize(dst)
    with open(dst, "rb") as f:
        head = f.read(12)
        header = json.loads(f.read(struct.unpack("<I", head[8:12])[0]))
    if header.get("weights_crc32") is None:
        raise SystemExit(f"{bundle} carries no weights checksum: rewrite it with this version's `wmlab train`")

    tests, effects = [], []
    for t in e["tasks"]:
        if t["accuracy"] is None:
            continue
        tests.append({k: t[k] for k in ("task", "accuracy", "chance", "responses", "p_above_chance",
                                        "memoryless", "p_above_memoryless")})
        above = t["p_above_chance"] < level
        for row in t["table_a3"]:
            if row.get("m_a") is None or row.get("h_a") is None:
                continue
            task, eff = row["task"], row["effect"]
            name = EFFECT_NAMES.get((task, eff)) or (f"{task} set-size decline" if task.startswith("CD") and eff == "set_size" else None)
            if name is None:
                continue
            same_sign = row["m_a"] * row["h_a"] > 0
            effects.append({
                "effect": name,
                "shown": bool(same_sign and above),
                "detail": f"network slope {row['m_a']:+.3f} vs human {row['h_a']:+.3f} (A = {row['a']:.2f})"
                + ("" if above else "; the task is not above chance"),
            })
    ids = e.get("trained_tasks") or [t["task"] for t in tests]
    n_above = sum(1 for t in tests if t["p_above_chance"] < level)
    n_memory = sum(1 for t in tests if t["p_above_memoryless"] < level)
    card = {
        "file": a.name + ".wmlabnn",
        "title": a.title,
        "model": e["model"],
        "params": e["params"],
        "preset": e.get("preset") or train.get("preset"),
        "tasks": ids,
        "steps": e["step"],
        "trials_seen": e["trials_seen"],
        "wall_time_s": e.get("train_seconds"),
        "hardware": a.hardware,
        "storage": f"f32 weights, {size / 1e6:.2f} MB (no quantisation needed)",
        "seed": train.get("seed"),
        "test_trials_per_task": e["trials_per_task"],
        "above_chance": f"{n_above} of {len(tests)}",
        "shows_memory": f"{n_memory} of {len(tests)}",
        "test": tests,
        "effects": effects,
        "notes": a.notes,
        "train_config": train,
        "weights_crc32": header["weights_crc32"],
    }
    index_path = os.path.join(a.models, "index.json")
    index = json.load(open(index_path)) if os.path.exists(index_path) else []
    index = [c for c in index if c["file"] != card["file"]] + [card]
    json.dump(index, open(index_path, "w"), indent=1)

    md = [f"# {a.title}", "",
          f"`{card['file']}` — {card['model']}, {card['params']:,} parameters, preset `{card['preset']}`, trained on "
          f"{', '.join(ids) if len(ids) < 14 else 'all 14 task ids'}.", "",
          f"- Trained with `wmlab train` ({card['steps']:,} steps, {card['trials_seen']:,} trials seen) in "
          f"{(card['wall_time_s'] or 0) / 60:.1f} min on {a.hardware}; seed {card['seed']}.",
          f"- Storage: {card['storage']}.",
          f"- Test: `wmlab eval --n {card['test_trials_per_task']}` (test split); **{card['above_chance']} ids above chance** "
          f"(one-sided exact test, p < {level}); **{card['shows_memory']} show memory** (also above the "
          f"best a subject seeing only the current frame can do, `core::chance::memoryless`).", ""]
    if a.notes:
        md += [a.notes, ""]
    md += ["| task | test accuracy | chance | responses | p (above chance) | memoryless | p (above memoryless) |",
           "|---|---|---|---|---|---|---|"]
    fmt_p = lambda p: '< 1e-300' if p == 0 else f'{p:.2g}'
    for t in tests:
        md.append(f"| {t['task']} | {t['accuracy']:.3f} | {t['chance']:.3f} | {t['responses']} | {fmt_p(t['p_above_chance'])} "
                  f"| {t['memoryless']:.3f} | {fmt_p(t['p_above_memoryless'])} |")
    md += ["", "Fig. 4 effects (network slope against the human slope, Table A3):", ""]
    md += [f"- {'✓' if x['shown'] else '✗'} {x['effect']}: {x['detail']}" for x in effects] or ["- none measurable"]
    md += ["", "Training configuration:", "", "```json", json.dumps(train, indent=1), "```", ""]
    open(os.path.join(a.models, a.name + ".md"), "w").write("\n".join(md))
    print(f"{dst}: {size} bytes; {card['above_chance']} ids above chance")


if __name__ == "__main__":
    main()
