#!/usr/bin/env python3
"""Stimulus-generation throughput of the *published* WorM generator, the baseline for `wmlab bench`
(prints numbers; not a test).

What it measures: one thread, per task id (SC SFR SI SMU STS VIR VSR VSRec CD-Color CD-Orientation CD-Size
CD-Gap CD-Conjunction CS) and then a `joint` line that takes one trial of each of the 14 ids in turn (equal
counts) until the time budget has passed. One trial =
  1. its metadata from the published `*_DataGen.gen_random_trials` (src/data/<task>.py), with the training
     condition grid of `get_multitask_dataloader` (src/utils/data_utils.py), balanced as the generator
     balances it: each call makes one trial per condition (K conditions -> K trials), which are handed out
     one by one in a shuffled order (the training DataLoader shuffles too);
  2. every frame drawn by the published `draw_trials_stim` (Pillow, cv2 for the SMU/CS arrows) at 96x96, in
     memory: `PIL.Image.Image.save` is replaced by a function that keeps the Image under its path (no PNG is
     encoded, nothing is written; no JSON is dumped, no folder made);
  3. the sequence built as the task's `*_Dataset.__getitem__` in src/data/dataset.py builds it (same frame
     order, same repeats: e.g. VSR's one probe image transformed L times, SMU's update frames
     `presentation_time` times), each frame "opened" (taken from that in-memory store) with
     `.convert('RGB')` and turned into a 3x32x32 float tensor by the dataset's transform
     `Compose([Resize((32, 32)), ToTensor()])`. The shared gray `blank.png` (VIR, CD, CS) and SC's
     `probe.png` are transformed once, before timing, as the datasets do in `__init__`, and reused.
Frames = the trial's real steps (`seq_len`); the padding to 20 black frames and `torch.stack` are not done
(the Rust side does not render padding either). Labels are not built. Line format = `wmlab bench`'s.
The seconds printed are the wall time less the metadata time of the trials that the line generated but did
not use (the rest of each task's last batch; each trial's share is timed at the generator's own
per-condition print). Without that, a short run would be charged for up to K-1 unused trials per id, and
the CD ids' set-size-12 arrays alone take 20-150 ms each to place (rejection sampling).

Equivalence choices:
  * Transform: torchvision 0.13's `Resize((32, 32))` on a PIL image is `img.resize((32, 32),
    Image.BILINEAR)` (Pillow's bilinear filter, whose support scales when downsampling), and `ToTensor()` is
    uint8 HWC -> float32 CHW / 255 with no normalisation. torch is not on PyPI as a CPU-only wheel (the
    CPU index is not reachable here; PyPI's torch brings several GB of CUDA libraries), so by default the
    script does exactly that with Pillow + numpy (`--transform numpy`). If torchvision is importable,
    `--transform torchvision` (or `auto`, the default, which prefers it) uses the published
    `transforms.Compose([transforms.Resize((32, 32)), transforms.ToTensor()])` itself. The transform used
    is printed on stderr.
  * Versions: the venv pins what the authors' requirements.txt lists (Pillow 9.5.0, numpy 1.24.3,
    opencv 4.7.0.72 (headless build), tqdm 4.65.0) on this machine's Python (3.11; bench.sh falls back to
    the newest versions where those have no wheel, e.g. Python >= 3.12). The versions used are printed on
    stderr. Pillow 13 / numpy 2.4 / opencv 5.0 gave the same SI, SC and CD-Color rates within noise.
  * `print` and `tqdm` inside the generator modules are silenced (module globals replaced), as the
    progress output would otherwise dominate one-trial calls; the silenced print records a timestamp.
  * SC's `draw_trials_stim` also draws the `gt_pattern` image for every trial (unused: data_utils sets
    show_gt_pattern=False); it is part of the published per-trial work, so it is counted.
  * The generator objects are built by calling the published `__init__` with `gen_random_trials=False`,
    which sets every drawing attribute and then raises NotImplementedError (caught); the per-split sample
    counts and data dirs that the `True` branch would set are then set by hand (train = K, one trial per
    condition; test = gen_test = 0).
  * Released-code bugs worked around (docs: shared/spec/reference-implementations.md §1.0): the
    datasets are not imported (dataset.py imports torch, and data_utils.py's `CS_Dataset` is a NameError),
    their `__getitem__` logic is re-done here; SC's `__getitem__` reads `set_size`, which the generator
    never stores, so `list_length` is used (as in the spec); SC's dataset passes `held_out_list_lengths`,
    which its `__init__` lacks, so the generator is built directly with data_utils' values.
    `Complex_Span_DataGen.draw_trials_stim` returns nothing when `write=False`, so every generator runs
    with `write=True` and the patched `save` keeps the images (this also draws the one blank/probe image
    per call that the generator saves at the end; a few microseconds, counted).

Setup (what `scripts/bench/bench.sh reference` does when missing):
    # the snapshot (84c867c) of https://github.com/ZhangLab-DeepNeuroCogLab/WorM, unpacked, e.g.
    git clone https://github.com/ZhangLab-DeepNeuroCogLab/WorM /tmp/WorM
    mkdir -p ~/.cache/wmlab/worm-src && git -C /tmp/WorM archive 84c867c | tar -x -C ~/.cache/wmlab/worm-src
    python3 -m venv ~/.cache/wmlab/venv-worm
    ~/.cache/wmlab/venv-worm/bin/pip install pillow==9.5.0 numpy==1.24.3 \
        opencv-python-headless==4.7.0.72 tqdm==4.65.0
Usage:
    taskset -c 1 ~/.cache/wmlab/venv-worm/bin/python scripts/bench/bench-reference.py \
        [--seconds S] [--task ID|all] [--worm PATH] [--seed N] [--transform auto|numpy|torchvision]
PATH defaults to ~/.cache/wmlab/worm-src (the folder holding src/). The published code is imported from
there; none of it is copied into this repository.
"""

import argparse
import os
import random
import sys
import time

import numpy as np

IMG = 96  # --img_size (src/args.py)
RS = 32  # --rs_img_size
TASK_IDS = ["SC", "SFR", "SI", "SMU", "STS", "VIR", "VSR", "VSRec", "CD-Color", "CD-Orientation", "CD-Size",
            "CD-Gap", "CD-Conjunction", "CS"]
# Where generators would write; never created: `save` is patched and no other write path runs.
DATA = os.path.join("/nonexistent", "wmlab-worm-bench")

STORE = {}  # path -> PIL.Image, filled by the patched Image.save
STAMPS = []  # (message, time) of the generators' print calls, which are silenced
ORDER = random.Random(0)  # order in which a batch's trials are handed out (reseeded in main)


def _keep(self, fp, *args, **kwargs):
    STORE[fp] = self


def _stamp(*args, **kwargs):
    STAMPS.append((args[0] if args else "", time.perf_counter()))


def _no_tqdm(it, *args, **kwargs):
    return it


def make_transform(kind):
    from PIL import Image
    if kind in ("auto", "torchvision"):
        try:
            from torchvision import transforms
            return "torchvision", transforms.Compose([transforms.Resize((RS, RS)), transforms.ToTensor()])
        except ImportError:
            if kind == "torchvision":
                raise
    bilinear = Image.BILINEAR

    def transform(img):
        # Resize((32,32)) on PIL == img.resize((32,32), BILINEAR); ToTensor == HWC uint8 -> CHW float32 / 255.
        a = np.asarray(img.resize((RS, RS), bilinear))
        t = np.ascontiguousarray(a.transpose(2, 0, 1), dtype=np.float32)
        t /= 255
        return t

    return "numpy (PIL resize BILINEAR + /255)", transform


def build(cls, *args):
    """The published __init__ with gen_random_trials=False: every attribute is set, then it raises."""
    g = cls.__new__(cls)
    try:
        cls.__init__(g, *args)
    except NotImplementedError:
        pass
    g.write = True
    g.train_data_dir = os.path.join(g.task_data_path, "train")
    g.test_data_dir = os.path.join(g.task_data_path, "test")
    g.gen_test_data_dir = os.path.join(g.task_data_path, "gen_test")
    g.test_num_samples = 0
    g.gen_test_num_samples = 0
    return g


class Task:
    """One task id: its generator, its condition grid (data_utils), and its dataset's sequence assembly."""

    def __init__(self, name, gen, gen_args, n_conditions, assemble, blank=None):
        self.name = name
        self.gen = gen
        self.gen_args = gen_args
        self.gen.train_num_samples = n_conditions  # one trial per condition per call
        self.assemble = assemble
        self.blank = blank
        self.n_conditions = n_conditions
        self.queue = []  # (trial, seconds its metadata took), next one last
        self.dir = gen.train_data_dir

    def refill(self):
        """One gen_random_trials call: one trial per condition, in the generator's order. Each trial's
        metadata time comes from the generator's own per-condition print (one per condition, each just
        before that condition's trial is made; the last ends at the 'Generating test trials' print)."""
        STAMPS.clear()
        start = time.perf_counter()
        trials = self.gen.gen_random_trials(*self.gen_args)["train"]
        end = time.perf_counter()
        msgs = [m for m, _ in STAMPS]
        if "Generating train trials" in msgs and "Generating test trials" in msgs:
            i0, i1 = msgs.index("Generating train trials"), msgs.index("Generating test trials")
            bounds = [t for _, t in STAMPS[i0 + 1:i1 + 1]]  # the train conditions' prints, then the split's end
        else:
            bounds = []
        if len(bounds) == len(trials) + 1 and len(trials) == self.n_conditions:
            secs = [bounds[i + 1] - bounds[i] for i in range(len(trials))]
        else:  # not expected with the 84c867c code; fall back to an even split
            secs = [(end - start) / max(len(trials), 1)] * len(trials)
        self.queue = list(zip(trials, secs))
        # Handed out in a random order (the training DataLoader shuffles too), so that the trials of a
        # partly used batch are a fair sample of the conditions (CD's set size 12 alone can cost 100 ms).
        ORDER.shuffle(self.queue)

    def trial(self, tf):
        if not self.queue:
            self.refill()
        t, _ = self.queue.pop()
        self.gen.draw_trials_stim({"train": [t], "test": [], "gen_test": []})
        n = self.assemble(self, t, tf)
        STORE.clear()
        return n

    def unused_metadata_secs(self):
        return sum(s for _, s in self.queue)

    def open(self, fname):
        # Image.open(os.path.join(self.imgset_path, fname)).convert('RGB'), from memory.
        return STORE[os.path.join(self.dir, fname)].convert("RGB")


# --- the *_Dataset.__getitem__ sequences (src/data/dataset.py), frames only ---------------------------------

def seq_sc(task, d, tf):
    seq = [tf(task.open(d["memory_stim_fnames"][i])) for i in range(d["list_length"])]  # 'set_size' in dataset
    seq.append(task.blank)  # probe.png, transformed once
    return len(seq)


def seq_sfr(task, d, tf):
    seq = [tf(task.open(d["memory_stim_fnames"][i])) for i in range(d["list_length"])]
    seq.append(tf(task.open(d["probe_stim_fnames"][0])))
    return len(seq)


def seq_si(task, d, tf):
    seq = [tf(task.open(d["memory_stim_fnames"][i])) for i in range(d["memory_length"])]
    seq.append(tf(task.open(d["probe_stim_fnames"][0])))
    return len(seq)


def seq_smu(task, d, tf):
    seq = [tf(task.open(d["memory_stim_fnames"][0]))]
    for i in range(d["num_updates"]):
        img = task.open(d["update_stim_fnames"][i])
        for _ in range(d["presentation_time"]):
            seq.append(tf(img))
    for i in range(d["set_size"]):
        seq.append(tf(task.open(d["probe_stim_fnames"][i])))
    return len(seq)


def seq_sts(task, d, tf):
    seq = [tf(task.open(d["stim_fnames"][i])) for i in range(d["trial_length"])]
    return len(seq)


def seq_vir(task, d, tf):
    seq = [tf(task.open(d["memory_stim_fnames"][i])) for i in range(d["list_length"])]
    seq.extend([task.blank] * d["retention_interval"])
    seq.append(tf(task.open(d["probe_stim_fnames"][0])))
    return len(seq)


def seq_vsr(task, d, tf):
    seq = [tf(task.open(d["memory_stim_fnames"][i])) for i in range(d["list_length"])]
    probe = task.open(d["probe_stim_fnames"][0])
    for _ in range(d["list_length"]):
        seq.append(tf(probe))
    return len(seq)


def seq_vsrec(task, d, tf):
    seq = [tf(task.open(d["memory_stim_fnames"][i])) for i in range(d["list_length"])]
    for i in range(d["list_length"]):
        seq.append(tf(task.open(d["probe_stim_fnames"][i])))
    return len(seq)


def seq_cd(task, d, tf):
    seq = [tf(task.open(d["memory_stim_fnames"][0]))]
    seq.extend([task.blank] * d["retention_interval"])
    seq.append(tf(task.open(d["probe_stim_fnames"][0])))
    return len(seq)


def seq_cs(task, d, tf):
    nd = d["num_distractor"]
    b = task.blank
    seq = []
    for part in (1, 2):
        seq.extend(tf(task.open(d["memory_stim_%d_fnames" % part][i])) for i in range(3))
        dist = [tf(task.open(f)) for f in d["distractor_stim_%d_fnames" % part][:nd]]
        if nd == 0:
            seq.extend([b] * 5)
        elif nd == 1:
            seq.extend([b, b, dist[0], b, b])
        elif nd == 3:
            seq.extend([dist[0], b, dist[1], b, dist[2]])
        elif nd == 5:
            seq.extend(dist)
    for i in range(2):
        seq.append(tf(task.open(d["probe_stim_fnames"][i])))
    return len(seq)  # 18


def make_tasks(worm, tf):
    src = os.path.join(worm, "src")
    if not os.path.isdir(os.path.join(src, "data")):
        sys.exit(f"no WorM checkout at {worm} (expected {src}/data); see this script's docstring")
    sys.path.insert(0, worm)
    from PIL import Image
    Image.Image.save = _keep
    import importlib
    mods = {}
    for m in ["spatial_coordination", "spatial_free_recall", "spatial_integration", "spatial_memory_updating",
              "spatial_task_switching", "visual_item_recognition", "visual_serial_recall_recognition",
              "color_orientation_size_gap_change_detection", "complex_span"]:
        mod = importlib.import_module("src.data." + m)
        mod.print = _stamp
        mod.tqdm = _no_tqdm
        mods[m] = mod

    def once(img):
        return tf(img.convert("RGB"))

    tasks = {}
    # Condition grids: get_multitask_dataloader in src/utils/data_utils.py (training datasets).
    g = build(mods["spatial_coordination"].Spatial_Coordination_DataGen,
              DATA, 10, [10, 12, 14, 16, 18], [2, 4, 6, 8], False, [], [], 0, IMG, True)
    tasks["SC"] = Task("SC", g, ([10, 12, 14, 16, 18], [], [2, 4, 6, 8]), 5, seq_sc, once(g.draw_probe_stim()))

    sfr_ll = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 18]
    g = build(mods["spatial_free_recall"].Spatial_Free_Recall_DataGen,
              DATA, 10, [30], sfr_ll, False, [], [], 0, IMG, True)
    tasks["SFR"] = Task("SFR", g, ([30], [], sfr_ll, []), 12, seq_sfr)

    g = build(mods["spatial_integration"].Spatial_Integration_DataGen,
              DATA, [4], [12], [1, 2, 3, 4, 6, 12], [1, 2, 3, 4], False, [], [], [], [], 0, IMG, True)
    tasks["SI"] = Task("SI", g, ([4], [12], [1, 2, 3, 4, 6, 12], [], [1, 2, 3, 4]), 6, seq_si)

    g = build(mods["spatial_memory_updating"].Spatial_Memory_Updating_DataGen,
              DATA, 3, [1, 2, 3, 4, 5, 6, 7, 8], [1], [8], False, [], [], 0, IMG, True)
    tasks["SMU"] = Task("SMU", g, ([1, 2, 3, 4, 5, 6, 7, 8], [], [8], [1]), 8, seq_smu)

    g = build(mods["spatial_task_switching"].Spatial_Task_Switching_DataGen,
              DATA, "Cued", [20], False, [], 0, IMG, True)
    tasks["STS"] = Task("STS", g, ([20], []), 1, seq_sts)

    g = build(mods["visual_item_recognition"].Visual_Item_Recognition_DataGen,
              DATA, 6, [4, 6, 8, 10], [4], [0, 2, 4, 5, 6], False, [], [], [], 0, IMG, True)
    tasks["VIR"] = Task("VIR", g, ([4, 6, 8, 10], [], [4], [0, 2, 4, 5, 6], []), 20, seq_vir,
                        once(g.draw_blank_stim()))

    vsr = mods["visual_serial_recall_recognition"].Visual_Serial_Recall_Recognition_DataGen
    ll = [2, 3, 4, 5, 6, 7, 8, 9]
    g = build(vsr, DATA, 6, "Recall", ll, [], False, [], [], 0, IMG, True)
    tasks["VSR"] = Task("VSR", g, (ll, [], []), 8, seq_vsr)
    g = build(vsr, DATA, 6, "Recognition", ll, [2, 4, 6, 8, 10], False, [], [], 0, IMG, True)
    tasks["VSRec"] = Task("VSRec", g, (ll, [], [2, 4, 6, 8, 10]), 8, seq_vsrec)

    cd = mods["color_orientation_size_gap_change_detection"] \
        .Color_Orientation_Size_Gap_Conjunction_Change_Detection_DataGen
    for variant in ["Color", "Orientation", "Size", "Gap", "Conjunction"]:
        g = build(cd, DATA, variant, [2, 4, 6, 8, 10, 12], [0, 6, 12, 18], False, [], [], 0, IMG, True)
        tasks["CD-" + variant] = Task("CD-" + variant, g, ([2, 4, 6, 8, 10, 12], [], [0, 6, 12, 18], []), 6,
                                      seq_cd, once(g.draw_blank_stim()))

    g = build(mods["complex_span"].Complex_Span_DataGen,
              DATA, [2], [0, 1, 3, 5], 4, [10], [20], [4], False, 0, IMG, True)
    tasks["CS"] = Task("CS", g, ([2], [0, 1, 3, 5], [10], [20], [4]), 16, seq_cs, once(g.draw_blank_stim()))
    return tasks


def measure(tasks, tf, budget):
    """Trials round robin over `tasks` until `budget` seconds have passed (whole rounds, at least one).
    The seconds reported are the wall time less the metadata time of the trials generated in this line but
    not handed out (the rest of the last gen_random_trials batch of each task, see Task.refill)."""
    for t in tasks:
        t.queue = []
    trials = frames = 0
    start = time.perf_counter()
    while True:
        for t in tasks:
            frames += t.trial(tf)
            trials += 1
        if time.perf_counter() - start >= budget:
            break
    wall = time.perf_counter() - start
    unused = sum(t.unused_metadata_secs() for t in tasks)
    for t in tasks:
        t.queue = []
    return trials, frames, wall - unused


def line(name, trials, frames, secs):
    s = max(secs, 1e-9)
    return (f"{name:<15}frames/s {frames / s:>7.0f}   trials/s {trials / s:>6.0f}   "
            f"(trials {trials}, frames {frames}, {secs:.2f} s)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds per line (at least one trial each)")
    ap.add_argument("--task", default="all", help="one task id, or all (every id plus the joint mix)")
    ap.add_argument("--worm", default=os.path.expanduser("~/.cache/wmlab/worm-src"),
                    help="the WorM checkout (the folder that holds src/)")
    ap.add_argument("--seed", type=int, default=0, help="seed of Python's random and numpy's global RNG")
    ap.add_argument("--transform", choices=["auto", "numpy", "torchvision"], default="auto")
    a = ap.parse_args()

    random.seed(a.seed)
    np.random.seed(a.seed)
    ORDER.seed(a.seed)
    kind, tf = make_transform(a.transform)
    tasks = make_tasks(os.path.expanduser(a.worm), tf)
    ids = {i.lower(): i for i in TASK_IDS}
    if a.task.lower() == "all":
        sel = TASK_IDS
    elif a.task.lower() in ids:
        sel = [ids[a.task.lower()]]
    else:
        sys.exit(f"unknown task id {a.task!r}; one of: all {' '.join(TASK_IDS)}")
    import PIL
    import cv2
    print(f"# published WorM generator ({a.worm}), Pillow {PIL.__version__}, numpy {np.__version__}, "
          f"cv2 {cv2.__version__}, transform: {kind}", file=sys.stderr, flush=True)
    for name in sel:
        print(line(name, *measure([tasks[name]], tf, a.seconds)), flush=True)
    if len(sel) > 1:
        print(line("joint", *measure([tasks[n] for n in TASK_IDS], tf, a.seconds)), flush=True)


if __name__ == "__main__":
    main()
