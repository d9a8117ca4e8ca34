#!/usr/bin/env python3
"""Agreement with a teacher's top move: the share of labelled positions where each model's
top-rated legal point (`akushu eval --positions-csv`, column top1) is the point the teacher's
policy rates highest (pass left out).

    akushu eval --data LABELS --split test --exclude-seen --model A --model B --positions-csv pos.csv
    python3 scripts/teacher-agreement.py LABELS pos.csv
"""
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import akushu_dataset as ad  # noqa: E402

COLS = "ABCDEFGHJ"


def gtp(point):
    r, c = divmod(int(point), 9)
    return f"{COLS[c]}{9 - r}"


def main():
    labels, rows = sys.argv[1], sys.argv[2]
    d = ad.read_split(labels, "test")
    policy = np.nan_to_num(d["teacher_policy"][:, :81], nan=-1.0)
    best = {(int(g), int(m) + 1): gtp(np.argmax(p))
            for g, m, p in zip(d["game"], d["move_number"], policy)}
    agree, total = {}, {}
    with open(rows, newline="") as f:
        for r in csv.DictReader(f):
            key = (int(r["game"]), int(r["move"]))
            if key not in best:
                continue
            total[r["model"]] = total.get(r["model"], 0) + 1
            agree[r["model"]] = agree.get(r["model"], 0) + (r["top1"] == best[key])
    for m in total:
        print(f"{m}: agrees with the teacher's top move on {agree[m]} of {total[m]} "
              f"positions ({agree[m] / total[m]:.3f})")


if __name__ == "__main__":
    main()
