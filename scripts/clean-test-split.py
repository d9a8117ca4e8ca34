#!/usr/bin/env python3
"""Writes a leakage-free copy of a dataset's test split.

A dataset built with `--split-by shuffle` (as the shipped models' `data/paper` and
`data/human` were) assigns splits by a seeded shuffle of the *accepted game list*, so two
such datasets built with different filters split the same game differently: a game in one dataset's test split may be in the other's training
split. This keeps only the test games of SRC that are in neither the train nor the
validation split of any EXCLUDE dataset (games matched by their OGS id), and writes them as
OUT/test.akd (same format, header and CRC-32 recomputed, games renumbered from 0) plus
OUT/games.csv (those games only) and OUT/clean.json.

    scripts/clean-test-split.py SRC OUT EXCLUDE [EXCLUDE ...]
    e.g. scripts/clean-test-split.py data/human data/human-clean data/paper
"""
import csv
import json
import os
import struct
import sys
import zlib

HEADER, RECORD = 64, 40


def split_ids(dataset, splits):
    with open(os.path.join(dataset, "games.csv"), newline="") as f:
        return {r["id"] for r in csv.DictReader(f) if r["split"] in splits}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    src, out, excludes = sys.argv[1], sys.argv[2], sys.argv[3:]
    seen = set()
    for e in excludes:
        seen |= split_ids(e, {"train", "validation"})
    with open(os.path.join(src, "games.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    kept_rows = [r for r in rows if r["split"] == "test" and r["id"] not in seen]
    # The kept games are renumbered 0.. in their order, in games.csv and in every record,
    # so that games.csv lists exactly the games the split holds (what `akushu eval` checks
    # against a model's training games).
    renumber = {int(r["game"]): new for new, r in enumerate(kept_rows)}
    keep = renumber.keys()
    total = sum(1 for r in rows if r["split"] == "test")
    with open(os.path.join(src, "test.akd"), "rb") as f:
        header = bytearray(f.read(HEADER))
        data = f.read()
    assert header[:8] == b"AKUSHUDS" and struct.unpack_from("<I", header, 12)[0] == RECORD
    count = struct.unpack_from("<Q", header, 16)[0]
    assert len(data) == count * RECORD, "truncated test split"
    kept = bytearray()
    for i in range(count):
        rec = data[i * RECORD:(i + 1) * RECORD]
        game = struct.unpack_from("<I", rec, 36)[0]
        if game in renumber:
            rec = bytearray(rec)
            struct.pack_into("<I", rec, 36, renumber[game])
            kept += rec
    n = len(kept) // RECORD
    struct.pack_into("<QII", header, 16, n, len(keep), zlib.crc32(kept) & 0xFFFFFFFF)
    os.makedirs(out, exist_ok=True)
    tmp = os.path.join(out, "test.akd.tmp")
    with open(tmp, "wb") as f:
        f.write(header + kept)
    os.replace(tmp, os.path.join(out, "test.akd"))
    tmp = os.path.join(out, "games.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in kept_rows:
            w.writerow({**r, "game": renumber[int(r["game"])]})
    os.replace(tmp, os.path.join(out, "games.csv"))
    summary = {"source": src, "excluded_train_validation_of": excludes,
               "test_games": total, "clean_games": len(keep),
               "test_positions": count, "clean_positions": n}
    with open(os.path.join(out, "clean.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
