#!/usr/bin/env python3
"""Learning curves as one SVG (no dependencies): for each run directory given, the validation checks of
`wmlab train` (curve.jsonl, written by scripts/research/learning.sh) as three panels: mean scored validation
accuracy against trials seen, the same against minutes of training, and task ids above chance
(one-sided exact test, p < 0.01) against minutes.

    python3 scripts/research/learning-plot.py OUT.svg RUN_DIR[=LABEL] ...
"""
import html
import json
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def load(spec):
    path, _, label = spec.partition("=")
    label = label or path.rstrip("/").rsplit("/", 1)[-1]
    pts = []
    for line in open(path + "/curve.jsonl"):
        d = json.loads(line)
        sc = d.get("scored_accuracy") or {}
        if not sc:
            continue
        pts.append({
            "trials": d["trials"],
            "minutes": (d.get("elapsed_s") or 0) / 60,
            "mean": sum(sc.values()) / len(sc),
            "above": d.get("above_chance") or 0,
            "ids": len(sc),
        })
    return label, pts


def panel(x0, y0, w, h, title, xlabel, ylabel, series, xkey, ykey, ymax=None):
    out = [f'<g transform="translate({x0},{y0})">',
           f'<text x="{w/2}" y="-8" text-anchor="middle" font-weight="bold">{title}</text>',
           f'<rect x="0" y="0" width="{w}" height="{h}" fill="none" stroke="#444"/>']
    xs = [p[xkey] for _, pts in series for p in pts] or [1]
    ys = [p[ykey] for _, pts in series for p in pts] or [1]
    xmax = max(xs) * 1.02 or 1
    ymin = 0
    ymax = ymax if ymax is not None else max(ys) * 1.1
    ymax = ymax or 1
    for i in range(6):
        fx, fy = xmax * i / 5, ymin + (ymax - ymin) * i / 5
        px, py = w * i / 5, h - h * i / 5
        xt = f"{fx/1000:.0f}k" if xkey == "trials" and fx >= 1000 else f"{fx:.3g}"
        out.append(f'<text x="{px}" y="{h+14}" text-anchor="middle" font-size="10">{xt}</text>')
        out.append(f'<text x="-4" y="{py+3}" text-anchor="end" font-size="10">{fy:.3g}</text>')
        out.append(f'<line x1="0" x2="{w}" y1="{py}" y2="{py}" stroke="#ddd"/>')
    out.append(f'<text x="{w/2}" y="{h+30}" text-anchor="middle" font-size="11">{xlabel}</text>')
    out.append(f'<text transform="translate(-34,{h/2}) rotate(-90)" text-anchor="middle" font-size="11">{ylabel}</text>')
    for k, (label, pts) in enumerate(series):
        c = COLORS[k % len(COLORS)]
        coords = " ".join(f"{w * p[xkey] / xmax:.1f},{h - h * (p[ykey] - ymin) / (ymax - ymin):.1f}" for p in pts)
        out.append(f'<polyline points="{coords}" fill="none" stroke="{c}" stroke-width="1.8"/>')
    out.append("</g>")
    return out


def main():
    out_path, specs = sys.argv[1], sys.argv[2:]
    series = [load(s) for s in specs]
    pw, ph = 300, 220
    width, height = 3 * (pw + 70) + 40, ph + 90 + 18 * len(series)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    svg += panel(60, 30, pw, ph, "Mean validation accuracy (as scored)", "trials seen", "accuracy", series, "trials", "mean")
    svg += panel(60 + pw + 70, 30, pw, ph, "… against wall time", "minutes (2 CPU cores)", "accuracy", series, "minutes", "mean")
    most = max((p["ids"] for _, pts in series for p in pts), default=14)
    svg += panel(60 + 2 * (pw + 70), 30, pw, ph, "Task ids above chance (p &lt; 0.01)", "minutes (2 CPU cores)", "ids", series,
                 "minutes", "above", ymax=most)
    for k, (label, _) in enumerate(series):
        y = ph + 80 + 18 * k
        svg.append(f'<line x1="60" x2="85" y1="{y-4}" y2="{y-4}" stroke="{COLORS[k % len(COLORS)]}" stroke-width="3"/>')
        svg.append(f'<text x="92" y="{y}">{html.escape(label)}</text>')
    svg.append("</svg>")
    open(out_path, "w").write("\n".join(svg))


if __name__ == "__main__":
    main()
