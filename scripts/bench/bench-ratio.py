#!/usr/bin/env python3
"""WM Lab's stimulus generation against the published WorM generator, side by side (prints numbers; not a
test). `scripts/bench/bench.sh ratio` runs it after building both sides.

Each round starts `wmlab bench` (ours) and `scripts/bench/bench-reference.py` (theirs) at the same time, ours
pinned to core 0 and theirs to core 1 where there are two cores, with the same seconds per line, so a
slow spell of the machine falls on both sides of a round alike. Every line's ratio (our trials/s over
theirs; `joint-batch` over their `joint`, the reference has no batched line) is taken per round, and the
summary gives the median, the lowest and the highest ratio over the rounds, with each side's median
trials/s. On a noisy machine the spread says how far one run's ratio can be trusted.

    bench-ratio.py --ours BIN --python VENV_PYTHON --worm WORM_SRC [--rounds 5] [--seconds 4]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys

def parse(text):
    """trials/s per line of `wmlab bench`'s format: NAME frames/s F trials/s T (...), in the printed order."""
    out = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) >= 5 and p[1] == "frames/s" and p[3] == "trials/s":
            out[p[0]] = float(p[4])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", required=True, help="the wmlab binary (built with --profile native)")
    ap.add_argument("--python", required=True, help="the Python of the reference's venv")
    ap.add_argument("--worm", required=True, help="the unpacked WorM snapshot")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=4.0, help="per line, on both sides")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    pin = os.cpu_count() >= 2 and shutil.which("taskset") is not None
    core = lambda c: ["taskset", "-c", str(c)] if pin else []
    # per line, in the order `wmlab bench` prints them: (ours, theirs) trials/s of each round
    runs = {}
    for r in range(a.rounds):
        ours = subprocess.Popen(core(0) + [a.ours, "bench", "--seconds", str(a.seconds)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ref = subprocess.Popen(core(1) + [a.python, os.path.join(here, "bench-reference.py"), "--seconds",
                                          str(a.seconds), "--task", "all", "--worm", a.worm],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        (o_out, o_err), (r_out, r_err) = ours.communicate(), ref.communicate()
        if ours.returncode != 0 or ref.returncode != 0:
            sys.exit(f"round {r + 1}: a side failed\n--- ours ---\n{o_err}\n--- reference ---\n{r_err}")
        o, t = parse(o_out), parse(r_out)
        row = []
        for n, ours_n in o.items():
            theirs = t.get("joint" if n == "joint-batch" else n)
            if theirs:
                runs.setdefault(n, []).append((ours_n, theirs))
                row.append(f"{n} {ours_n / theirs:.1f}x")
        print(f"round {r + 1}: " + ", ".join(row), flush=True)
    print(f"\n{'line':15}{'ours trials/s':>14}{'theirs':>9}{'ratio median':>14}{'lowest':>9}{'highest':>9}"
          f"   ({a.rounds} rounds x {a.seconds:g} s per line, run at the same time)")
    for n, pairs in runs.items():
        v = [x / y for x, y in pairs]
        print(f"{n:15}{statistics.median(x for x, _ in pairs):14.0f}{statistics.median(y for _, y in pairs):9.0f}"
              f"{statistics.median(v):13.1f}x{min(v):8.1f}x{max(v):8.1f}x")


if __name__ == "__main__":
    main()
