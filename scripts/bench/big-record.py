#!/usr/bin/env python3
"""A large result record for the hostile-input benchmarks: RECORD's trial rows repeated (each copy a new
trial number) until there are N, written to OUT.

    python3 scripts/bench/big-record.py docs/screenshots/records/network.json 300000 /tmp/big.json
    /usr/bin/time -f "%e s %M KB" wmlab compare /tmp/big.json --out /tmp/cmp
"""
import copy
import json
import sys

src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = json.load(open(src))
base, rows = r["trials"], []
while len(rows) < n:
    for t in base[: n - len(rows)]:
        t = copy.deepcopy(t)
        t["trial"] = len(rows)
        t["extra"] = {"index": len(rows)}
        rows.append(t)
r["trials"] = rows
json.dump(r, open(out, "w"))
