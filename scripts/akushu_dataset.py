#!/usr/bin/env python3
"""Read akushu datasets (`akushu dataset build`) into numpy arrays.

    import sys; sys.path.insert(0, "scripts")
    import akushu_dataset as ad
    d = ad.read_split("data/paper", "train")       # dict of numpy arrays, one row a position
    d["cells"].shape                                # (n, 81): 0 empty, 1 black, 2 white
    ad.target(d)                                    # (n, 81) the paper's 0/1 target
    ad.visit_shares(d)                              # (n, 82) self-play records: root visit shares

    python3 scripts/akushu_dataset.py data/paper --split test --index 12   # one record as JSON

The format is the one `src/dataset/format.rs` documents: a 64-byte header (magic
`AKUSHUDS`, version, record size, count, games, CRC-32, split code) and fixed-size records,
40 bytes (version 1, human games) or 240 (version 2, self-play: the search's visits, value,
simulations, final owners and margin appended). The reader checks the magic, version, record
size, length and CRC-32, as akushu's own reader does, and refuses a file that fails any.

Fields (one array each, row i = record i): cells (uint8, 81), to_move (1 black, 2 white),
played (0..80, 81 pass), ko (point or 255), move_number (uint16), last_moves (4, newest
first, 81 pass, 255 none), winner (0 unknown/draw, 1, 2), black_rank, white_rank (int8;
1k = 0, 1d = 1, -128 unknown), game (uint32, the row of the dataset's games.csv). Version 2
adds visits (uint16, 82: the points then pass), value (float32, NaN none), simulations
(uint32), ownership (uint8, 81: 0 none, 1 black, 2 white), ownership_known (bool) and
score (float32, black's area margin with komi; NaN when not counted).

Needs numpy (`sh scripts/install-python.sh`). `tests/python_reader.rs` checks it against
`akushu dataset show` on human and self-play datasets.
"""
import argparse
import json
import os
import zlib

import numpy as np

MAGIC = b"AKUSHUDS"
HEADER = 64
RECORD = {1: 40, 2: 240}
SPLITS = {"train": 0, "validation": 1, "test": 2}


class DatasetError(ValueError):
    """A split file that is not a whole akushu dataset file."""


def _unpack_2bit(raw, n_points=81):
    """(n, 21) bytes of 2-bit cells -> (n, 81) uint8."""
    shifts = np.array([0, 2, 4, 6], dtype=np.uint8)
    vals = (raw[:, :, None] >> shifts) & 3  # (n, 21, 4)
    return vals.reshape(len(raw), -1)[:, :n_points].astype(np.uint8)


def read_split(dataset_dir, split="train"):
    """Every record of `split` of the dataset in `dataset_dir`, as a dict of arrays."""
    path = os.path.join(dataset_dir, f"{split}.akd")
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER or data[:8] != MAGIC:
        raise DatasetError(f"{path}: not an akushu dataset file (bad magic)")
    h = np.frombuffer(data[:HEADER], dtype=np.uint8)
    version = int(np.frombuffer(data[8:12], "<u4")[0])
    size = int(np.frombuffer(data[12:16], "<u4")[0])
    count = int(np.frombuffer(data[16:24], "<u8")[0])
    crc = int(np.frombuffer(data[28:32], "<u4")[0])
    if version not in RECORD:
        raise DatasetError(f"{path}: format version {version} is not supported")
    if size != RECORD[version]:
        raise DatasetError(f"{path}: record size {size}, expected {RECORD[version]}")
    if int(h[32]) != SPLITS[split]:
        raise DatasetError(f"{path}: header says split {int(h[32])}, file name says {split}")
    body = data[HEADER:]
    if len(body) != count * size:
        raise DatasetError(f"{path}: {len(body)} record bytes, header promises {count * size}")
    if zlib.crc32(body) != crc:
        raise DatasetError(f"{path}: checksum mismatch: file is corrupt")
    r = np.frombuffer(body, dtype=np.uint8).reshape(count, size)
    out = {
        "cells": _unpack_2bit(r[:, 0:21]),
        "to_move": r[:, 21].copy(),
        "played": r[:, 22].copy(),
        "ko": r[:, 23].copy(),
        "move_number": r[:, 24:26].copy().view("<u2")[:, 0],
        "last_moves": r[:, 26:30].copy(),
        "winner": r[:, 30].copy(),
        "black_rank": r[:, 31].copy().view(np.int8),
        "white_rank": r[:, 32].copy().view(np.int8),
        "game": r[:, 36:40].copy().view("<u4")[:, 0],
    }
    if version == 2:
        s = r[:, 40:]
        out["visits"] = s[:, 0:164].copy().view("<u2")
        out["value"] = s[:, 164:168].copy().view("<f4")[:, 0]
        out["simulations"] = s[:, 168:172].copy().view("<u4")[:, 0]
        out["ownership_known"] = s[:, 193] == 1
        own = _unpack_2bit(s[:, 172:193])
        own[~out["ownership_known"]] = 0
        out["ownership"] = own
        out["score"] = s[:, 196:200].copy().view("<f4")[:, 0]
    return out


def target(d):
    """The paper's target: 0 at the move played, 1 at every other point, (n, 81) uint8."""
    t = np.ones((len(d["played"]), 81), dtype=np.uint8)
    rows = np.nonzero(d["played"] < 81)[0]
    t[rows, d["played"][rows]] = 0
    return t


def visit_shares(d):
    """Each self-play record's root visit shares over the 81 points and pass, (n, 82)."""
    v = d["visits"].astype(np.float64)
    total = v.sum(axis=1, keepdims=True)
    return np.divide(v, total, out=np.zeros_like(v), where=total > 0)


def record(d, i):
    """Record `i` as plain Python values (what the command line prints as JSON)."""
    out = {}
    for k, a in d.items():
        v = a[i]
        if isinstance(v, np.ndarray):
            out[k] = v.tolist()
        elif isinstance(v, np.floating):
            out[k] = None if np.isnan(v) else float(v)
        else:
            out[k] = v.item()
    return out


def main():
    ap = argparse.ArgumentParser(description="Print one record of an akushu dataset as JSON.")
    ap.add_argument("dataset", help="dataset directory (akushu dataset build --out)")
    ap.add_argument("--split", default="train", choices=list(SPLITS))
    ap.add_argument("--index", type=int, default=0)
    a = ap.parse_args()
    d = read_split(a.dataset, a.split)
    n = len(d["played"])
    if not 0 <= a.index < n:
        raise SystemExit(f"--index {a.index} is out of range: the {a.split} split holds {n}")
    print(json.dumps({"positions": n, "index": a.index, "record": record(d, a.index)}))


if __name__ == "__main__":
    main()
