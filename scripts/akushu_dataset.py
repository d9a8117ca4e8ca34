#!/usr/bin/env python3
"""Read akushu datasets (`akushu dataset build`) into numpy arrays.

    import sys; sys.path.insert(0, "scripts")
    import akushu_dataset as ad
    d = ad.read_split("data/paper", "train")       # dict of numpy arrays, one row a position
    d["cells"].shape                                # (n, 81): 0 empty, 1 black, 2 white
    ad.target(d)                                    # (n, 81) the paper's 0/1 target
    ad.visit_shares(d)                              # (n, 82) self-play records: root visit shares

    python3 scripts/akushu_dataset.py data/paper --split test --index 12   # one record as JSON

The format is the one `src/dataset/format/mod.rs` documents: a 64-byte header (magic
`AKUSHUDS`, version, record size, count, games, CRC-32, split code) and fixed-size records,
40 bytes (version 1, human games), 240 (version 2, self-play: the search's visits, value,
simulations, final owners and margin appended) or 832 (version 3: a teacher's label after those). The reader checks the magic, version, record
size, length and CRC-32 and every record's fields (ranges, and that every chain has a
liberty), as akushu's own reader does, and refuses a file that fails any; a split whose
counts or checksum are not those the dataset's manifest.json records is named as copied in
from another dataset or format version. An empty split reads as empty arrays.

Fields (one array each, row i = record i): cells (uint8, 81), to_move (1 black, 2 white),
played (0..80, 81 pass), ko (point or 255), move_number (uint16), last_moves (4, newest
first, 81 pass, 255 none), winner (0 unknown/draw, 1, 2), black_rank, white_rank (int8;
1k = 0, 1d = 1, -128 unknown), game (uint32, the row of the dataset's games.csv). Version 2
adds visits (uint16, 82: the points then pass), value (float32, NaN none), simulations
(uint32), ownership (uint8, 81: 0 none, 1 black, 2 white), ownership_known (bool) and
score (float32, black's area margin with komi; NaN when not counted). Version 3 (a teacher's
labels, `akushu dataset label`) has those where search_known (bool) says the record had them,
and teacher_policy (float32, 82: shares, NaN where the teacher calls the move illegal),
teacher_winrate and teacher_score_lead (for the side to move), teacher_visits,
teacher_ownership (float32, 81: black's expected share, -1..1), per_move (bool), and
move_winrate / move_score_lead (float32, 82: the mover's value after each move, NaN where
not judged).

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
SPLITS = {"train": 0, "validation": 1, "test": 2}
PASS = 81
NO_POINT = 255


class DatasetError(ValueError):
    """A split file that is not a whole akushu dataset file, or a record akushu refuses."""


def _unpack_2bit(raw, n_points=81):
    """(n, 21) bytes of 2-bit cells -> (n, 81) uint8 (n may be 0)."""
    shifts = np.array([0, 2, 4, 6], dtype=np.uint8)
    vals = (raw[:, :, None] >> shifts) & 3  # (n, 21, 4)
    return vals.reshape(len(raw), raw.shape[1] * 4)[:, :n_points].astype(np.uint8)


def _refuse(path, bad, why):
    """Raises for the first record flagged in `bad` (bool, one per record); `why(i)` says
    what is wrong with record i, in the words of akushu's decoder."""
    rows = np.nonzero(bad)[0]
    if len(rows):
        i = int(rows[0])
        raise DatasetError(f"{path}: record {i}: {why(i)} ({len(rows)} bad records)")


def _dilate(m):
    """(n, 9, 9) bool: each point or one of its four neighbours set."""
    out = m.copy()
    out[:, 1:, :] |= m[:, :-1, :]
    out[:, :-1, :] |= m[:, 1:, :]
    out[:, :, 1:] |= m[:, :, :-1]
    out[:, :, :-1] |= m[:, :, 1:]
    return out


def _without_liberties(cells, block=1 << 18):
    """(n, 81) cells -> (n, 81) bool: stones whose chain has no empty neighbour. Liberties
    flow from the empty points through each colour's chains until nothing changes; a block
    of records at a time, so a split of millions needs no more than a few blocks' memory."""
    if len(cells) > block:
        return np.concatenate([_without_liberties(cells[i:i + block], block)
                               for i in range(0, len(cells), block)])
    board = cells.reshape(-1, 9, 9)
    empty = board == 0
    dead = np.zeros(board.shape, dtype=bool)
    for colour in (1, 2):
        stones = board == colour
        alive = stones & _dilate(empty)
        while True:
            grown = alive | (stones & _dilate(alive))
            if np.array_equal(grown, alive):
                break
            alive = grown
        dead |= stones & ~alive
    return dead.reshape(-1, 81)


def _position(path, r):
    """The 40 bytes every version starts with: the position and its context, checked as
    `decode` checks them (src/dataset/format/mod.rs)."""
    cells = _unpack_2bit(r[:, 0:21])
    bad = cells == 3
    _refuse(path, bad.any(axis=1),
            lambda i: f"cell {int(np.argmax(bad[i]))} is 3 (expected 0, 1 or 2)")
    _refuse(path, (r[:, 20] >> 2) != 0, lambda i: "padding bits of the last cell byte are set")
    d = {
        "cells": cells,
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
    to_move, played, ko, last = d["to_move"], d["played"], d["ko"], d["last_moves"]
    _refuse(path, (to_move < 1) | (to_move > 2),
            lambda i: f"to_move {to_move[i]} (expected 1 or 2)")
    _refuse(path, played > PASS,
            lambda i: f"played {played[i]} (expected a point or 81 = pass)")
    on_board = played < PASS
    occupied = np.zeros(len(played), dtype=bool)
    occupied[on_board] = cells[on_board, played[on_board]] != 0
    _refuse(path, occupied, lambda i: f"played point {played[i]} is occupied")
    _refuse(path, (ko != NO_POINT) & (ko >= 81),
            lambda i: f"ko {ko[i]} (expected a point or 255 = none)")
    _refuse(path, ((last != NO_POINT) & (last > PASS)).any(axis=1),
            lambda i: f"last moves {last[i].tolist()} (expected points, 81 = pass or 255)")
    _refuse(path, d["winner"] > 2, lambda i: f"winner {d['winner'][i]} (expected 0, 1 or 2)")
    dead = _without_liberties(cells)
    _refuse(path, dead.any(axis=1),
            lambda i: f"the stone at point {int(np.argmax(dead[i]))} has no liberties")
    return d


def _search(path, s):
    """The 200 bytes version 2 appends: the search's view and the game's outcome."""
    d = {
        "visits": s[:, 0:164].copy().view("<u2"),
        "value": s[:, 164:168].copy().view("<f4")[:, 0],
        "simulations": s[:, 168:172].copy().view("<u4")[:, 0],
    }
    value = d["value"]
    _refuse(path, ~np.isnan(value) & ((value < 0) | (value > 1)),
            lambda i: f"root value {value[i]} (expected 0..=1 or NaN)")
    flags = s[:, 193]
    _refuse(path, (flags > 1) | (s[:, 194] != 0) | (s[:, 195] != 0),
            lambda i: f"flags byte {flags[i]} or its reserved neighbours are not valid")
    known = flags == 1
    own = _unpack_2bit(s[:, 172:193])
    bad_owner = known[:, None] & (own == 3)
    _refuse(path, bad_owner.any(axis=1),
            lambda i: f"owner of point {int(np.argmax(bad_owner[i]))} is 3 (expected 0, 1 or 2)")
    own[~known] = 0
    d["ownership_known"] = known
    d["ownership"] = own
    d["score"] = s[:, 196:200].copy().view("<f4")[:, 0]
    _refuse(path, np.isinf(d["score"]), lambda i: f"score {d['score'][i]} is not finite")
    return d


def _labelled(path, s):
    """The 792 bytes version 3 keeps after the first 40: the search part (where its flag
    says it holds data) and a teacher's label (`akushu dataset label`)."""
    t = s[:, 200:]
    flags = t[:, 257]
    _refuse(path, (flags > 3) | (t[:, 258] != 0) | (t[:, 259] != 0),
            lambda i: f"flags byte {flags[i]} or its reserved neighbours are not valid")
    searched = (flags & 1) == 1
    d = {"search_known": searched}
    if searched.any():
        part = _search(path, s[searched, :200])
        for k, v in part.items():
            full = np.zeros((len(s),) + v.shape[1:], dtype=v.dtype)
            if v.dtype.kind == "f":
                full[:] = np.nan
            full[searched] = v
            d[k] = full
    policy = t[:, 0:164].copy().view("<u2").astype(np.float32)
    d["teacher_policy"] = np.where(policy == 65535, np.nan, policy / 65534.0)
    d["teacher_winrate"] = t[:, 164:168].copy().view("<f4")[:, 0]
    w = d["teacher_winrate"]
    _refuse(path, ~((w >= 0) & (w <= 1)), lambda i: f"root value {w[i]} (expected 0..=1 or NaN)")
    d["teacher_score_lead"] = t[:, 168:172].copy().view("<f4")[:, 0]
    sl = d["teacher_score_lead"]
    _refuse(path, ~np.isfinite(sl), lambda i: f"score {sl[i]} is not finite")
    d["teacher_visits"] = t[:, 172:176].copy().view("<u4")[:, 0]
    own = t[:, 176:257].view(np.int8)
    _refuse(path, (own == -128).any(axis=1),
            lambda i: f"owner of point {int(np.argmax(own[i] == -128))} is -128 (expected -127..127)")
    d["teacher_ownership"] = own.astype(np.float32) / 127.0
    per_move = (flags & 2) == 2
    d["per_move"] = per_move
    mw = t[:, 260:424].copy().view("<u2").astype(np.float32)
    ms = t[:, 424:588].copy().view("<i2").astype(np.float32)
    d["move_winrate"] = np.where((mw == 65535) | ~per_move[:, None], np.nan, mw / 65534.0)
    d["move_score_lead"] = np.where((ms == -32768) | ~per_move[:, None], np.nan, ms / 100.0)
    return d


# Each format version: its record size and its parts, in order, each (first byte, end
# byte, reader); a reader returns its fields and refuses what `decode` refuses. A new
# version is one more row here (and its parts' readers).
VERSIONS = {
    1: (40, [(0, 40, _position)]),
    2: (240, [(0, 40, _position), (40, 240, _search)]),
    3: (832, [(0, 40, _position), (40, 832, _labelled)]),
}
RECORD = {v: size for v, (size, _) in VERSIONS.items()}


def _check_manifest(dataset_dir, path, split, version, count, games, crc):
    """The split file against what the dataset's manifest.json records for it: a split
    copied in from another dataset, or from another format version, is named as such."""
    manifest = os.path.join(dataset_dir, "manifest.json")
    if not os.path.exists(manifest):
        return
    with open(manifest, encoding="utf-8") as f:
        m = json.load(f)
    listed = m.get("splits", {}).get(split)
    if m.get("format_version") != version:
        raise DatasetError(
            f"{path}: format version {version}, but {manifest} says the dataset is version "
            f"{m.get('format_version')}: the split was copied in from a dataset of another "
            "format version")
    if listed is None:
        raise DatasetError(f"{path}: {manifest} lists no {split} split")
    here = (count, games, crc)
    there = (listed.get("positions"), listed.get("games"), listed.get("crc32"))
    if here != there:
        raise DatasetError(
            f"{path}: {count} positions of {games} games with CRC-32 {crc}, but {manifest} "
            f"records {there[0]} positions of {there[1]} games with CRC-32 {there[2]}: the "
            "split is from another dataset")


def read_split(dataset_dir, split="train"):
    """Every record of `split` of the dataset in `dataset_dir`, as a dict of arrays; a file
    or record that akushu would refuse raises DatasetError naming the file (and record)."""
    if split not in SPLITS:
        raise DatasetError(f"split {split!r} is not one of {', '.join(SPLITS)}")
    path = os.path.join(dataset_dir, f"{split}.akd")
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER or data[:8] != MAGIC:
        raise DatasetError(f"{path}: not an akushu dataset file (bad magic)")
    version = int(np.frombuffer(data[8:12], "<u4")[0])
    size = int(np.frombuffer(data[12:16], "<u4")[0])
    count = int(np.frombuffer(data[16:24], "<u8")[0])
    games = int(np.frombuffer(data[24:28], "<u4")[0])
    crc = int(np.frombuffer(data[28:32], "<u4")[0])
    if version not in VERSIONS:
        raise DatasetError(
            f"{path}: format version {version} is not supported (this reader knows "
            f"{', '.join(map(str, VERSIONS))})")
    record_size, parts = VERSIONS[version]
    if size != record_size:
        raise DatasetError(f"{path}: record size {size}, expected {record_size}")
    if data[32] != SPLITS[split]:
        raise DatasetError(f"{path}: header says split {data[32]}, file name says {split}")
    body = data[HEADER:]
    if len(body) != count * size:
        raise DatasetError(f"{path}: {len(body)} record bytes, header promises {count * size}")
    if zlib.crc32(body) != crc:
        raise DatasetError(f"{path}: checksum mismatch: file is corrupt")
    _check_manifest(dataset_dir, path, split, version, count, games, crc)
    r = np.frombuffer(body, dtype=np.uint8).reshape(count, size)
    out = {}
    for first, end, reader in parts:
        out.update(reader(path, r[:, first:end]))
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
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            # JSON has no NaN: a missing value is null.
            out[k] = [None if np.isnan(x) else float(x) for x in v]
        elif isinstance(v, np.ndarray):
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
    try:
        d = read_split(a.dataset, a.split)
    except DatasetError as e:
        raise SystemExit(f"error: {e}") from None
    n = len(d["played"])
    if not 0 <= a.index < n:
        raise SystemExit(f"--index {a.index} is out of range: the {a.split} split holds {n}")
    print(json.dumps({"positions": n, "index": a.index, "record": record(d, a.index)}))


if __name__ == "__main__":
    main()
