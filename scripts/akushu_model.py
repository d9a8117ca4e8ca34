#!/usr/bin/env python3
"""akushu's networks in numpy (and PyTorch, where it is installed).

    akushu model export models/cnn-human-5x32-gpu2 --out cnn.npz
    import sys; sys.path.insert(0, "scripts")
    import akushu_model as am, akushu_dataset as ad
    meta, weights = am.load("cnn.npz")             # meta["config"]: the model's config.json
    d = ad.read_split("data/paper", "test")
    out = am.forward(meta, weights, am.encode(d))   # policy, badness, value per position
    am.save("tuned.npz", meta, weights)              # then: akushu model import tuned.npz --out DIR

    python3 scripts/akushu_model.py forward cnn.npz data/paper --split test --limit 5   # JSON
    python3 scripts/akushu_model.py rewrite cnn.npz --out copy.npz   # load and write back

The file (`src/net/inference/export.rs` is the reference) is an ordinary `.npz`: `np.load` reads it.
It holds `meta`, the UTF-8 bytes of a JSON object (`format` "akushu-net", `version` 1,
`config`: the model's full config.json, `source`), and one float32 array per weight tensor:

    MLP   hidden.{i}.weight [in, out]   hidden.{i}.bias [out]   (ReLU after each)
          output.weight [in, 81]        output.bias [81]
    CNN   stem.weight [c, 14, 3, 3]     stem.bias [c]
          blocks.{i}.conv1.weight [c, c, 3, 3] (and .bias), blocks.{i}.conv2.weight (.bias)
          head.weight [1, c, 1, 1]      head.bias [1]
          value.project.weight [c, vc]  value.hidden.weight [vc, 64]  value.out.weight [64, 1]
          (each with .bias; only with a value head, config cnn.value_channels = vc > 0)
          ownership.weight [c, 1]       ownership.bias [1]   (only with cnn.ownership)
          score.weight [64, 1]          score.bias [1]       (only with cnn.score)

Dense weights are stored [inputs, outputs] (y = x W + b, as burn stores them); convolutions
[out, in, ky, kx] as PyTorch stores them. The networks (src/net/inference/mlp.rs, src/net/inference/cnn.rs):

    MLP: x -> relu(x W + b) per hidden layer -> logits = x W + b (81). Badness: sigmoid(logits)
         (config mlp.loss "bce", the paper's), or 1 - softmax over the legal points ("softmax").
    CNN: x = relu(conv3x3(planes)); per block x = relu(x + conv3x3(relu(conv3x3(x))));
         move logits = conv1x1(x) (81); policy = softmax over the legal points (illegal: 0),
         badness = 1 - policy (illegal: 1). Value head: relu(x_point W + b) per point, mean
         over the 81 points, relu(. W + b), . W + b = the win logit of the side to move,
         value = sigmoid(logit). Ownership head: tanh(x_point W + b) per point, the final
         owner from the side to move's view (+1 own). Score head: the value head's hidden
         layer (after its relu) . W + b, times 20 = the side to move's score lead in points
         at komi 6.5. Convolutions are zero-padded ("same").

Inputs, as src/net/inference/encode.rs builds them. The CNN reads 14 planes of 9x9 (row-major points,
A9 = 0 .. J1 = 80, the order of dataset cells), each 0 or 1:

     0 own stones (the side to move's)   1 opponent stones   2 empty points
     3 own chains with 1 liberty    4 ... 2 liberties    5 ... 3 or more liberties
     6 opponent chains with 1 liberty  7 ... 2 liberties   8 ... 3 or more liberties
     9 the ko point (simple ko forbids it)
    10 the last move   11 the move before (none for a pass or the game's start, and none
       at all for a network with config cnn.history = false)
    12 points legal for the side to move (empty, not the ko point, not suicide)
    13 all ones when black is to move

The MLP reads mlp.encoding: "paper" (81 values: 0 empty, 1 black, 2 white), "one-hot" (243:
own, opponent, empty planes) or "planes" (the CNN's 14 planes flattened, 1134).

PyTorch: `to_torch_state_dict(weights)` gives the state dict of a module laid out as below
(`torch_module(meta)` builds it), where Linear weights are [out, in]; `from_torch_state_dict`
takes one back. Names are the export's names:

    MLP  hidden: ModuleList of Linear      output: Linear(width, 81)
    CNN  stem: Conv2d(14, c, 3, padding=1)
         blocks: ModuleList of modules with conv1, conv2: Conv2d(c, c, 3, padding=1)
         head: Conv2d(c, 1, 1)
         value: module with project Linear(c, vc), hidden Linear(vc, 64), out Linear(64, 1)
         ownership: Linear(c, 1)    (the value and ownership Linears act on each point's c
         features: x.flatten(2).transpose(1, 2), shape [batch, 81, c])

`scripts/torch_train_bench.py`'s `Cnn` has this layout without the heads: a state dict of a
network without value or ownership head loads into it as it is. The PyTorch functions are
not exercised by the tests (torch is not installed where they run); the numpy ones are.

Needs numpy (`sh scripts/install-python.sh`). `tests/python_model.rs` checks the numpy forward
pass against akushu's evaluator and the round trip through `rewrite` and `model import`.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import akushu_dataset  # noqa: E402  (the dataset reader beside this file)

FORMAT = "akushu-net"
VERSION = 1
N = 9
NN = N * N
PLANES = 14


class ExportError(ValueError):
    """A file that is not an akushu model export this script reads."""


def load(path):
    """(meta, weights) of an export: meta the JSON dict, weights {name: float32 array}."""
    with np.load(path) as z:
        if "meta" not in z.files:
            raise ExportError(f"{path}: no `meta` array: not an akushu model export")
        meta = json.loads(z["meta"].tobytes().decode("utf-8"))
        if meta.get("format") != FORMAT or meta.get("version") != VERSION:
            raise ExportError(f"{path}: format {meta.get('format')} version {meta.get('version')}")
        weights = {k: z[k].astype(np.float32) for k in z.files if k != "meta"}
    return meta, weights


def save(path, meta, weights):
    """Writes an export `akushu model import` reads: `meta` and every weight as float32, C
    order (np.savez stores them uncompressed)."""
    arrays = {"meta": np.frombuffer(json.dumps(meta, indent=2).encode("utf-8"), dtype=np.uint8)}
    for k, v in weights.items():
        arrays[k] = np.ascontiguousarray(v, dtype=np.float32)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


# --- Inputs --------------------------------------------------------------------------------

def _neighbours():
    """The up-to-four neighbours of every point."""
    out = []
    for i in range(NN):
        r, c = divmod(i, N)
        out.append([(r + dr) * N + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < N and 0 <= c + dc < N])
    return out


NEIGHBOURS = _neighbours()


def liberties(cells):
    """Each point's chain's liberty count (0 at empty points), for one board of 81 cells."""
    libs = np.zeros(NN, dtype=np.int64)
    seen = np.zeros(NN, dtype=bool)
    for start in range(NN):
        if cells[start] == 0 or seen[start]:
            continue
        chain, empties, stack = [], set(), [start]
        seen[start] = True
        while stack:
            p = stack.pop()
            chain.append(p)
            for q in NEIGHBOURS[p]:
                if cells[q] == 0:
                    empties.add(q)
                elif cells[q] == cells[start] and not seen[q]:
                    seen[q] = True
                    stack.append(q)
        libs[chain] = len(empties)
    return libs


def legal(cells, to_move, ko):
    """Legal points for `to_move` (1 black, 2 white): empty, not the ko point, not suicide
    (a stone with an empty neighbour, joining a chain with another liberty, or capturing)."""
    libs = liberties(cells)
    out = np.zeros(NN, dtype=bool)
    for p in range(NN):
        if cells[p] != 0 or p == ko:
            continue
        out[p] = any(cells[q] == 0 or (cells[q] == to_move) == (libs[q] > 1)
                     for q in NEIGHBOURS[p])
    return out


def planes(cells, to_move, ko=255, last_moves=(255, 255), history=True):
    """The CNN's 14 input planes of one position, (14, 81) float32 (see the module doc).
    `ko` is the point simple ko forbids (255 none), `last_moves` newest first (81 pass,
    255 none): a dataset record's fields."""
    cells = np.asarray(cells)
    x = np.zeros((PLANES, NN), dtype=np.float32)
    own = cells == to_move
    opp = (cells != 0) & ~own
    x[0], x[1], x[2] = own, opp, cells == 0
    libs = np.clip(liberties(cells), 1, 3)
    for k in (1, 2, 3):
        x[2 + k] = own & (libs == k)
        x[5 + k] = opp & (libs == k)
    if ko < NN:
        x[9, ko] = 1
    if history:
        for j, m in enumerate(last_moves[:2]):
            if m < NN:
                x[10 + j, m] = 1
    x[12] = legal(cells, to_move, ko)
    if to_move == 1:
        x[13] = 1
    return x


def encode(d, history=True):
    """Planes and legal masks of every record of a dataset split (`akushu_dataset.read_split`):
    {"planes": (n, 14, 81) float32, "legal": (n, 81) bool, "cells": ..., "to_move": ...}."""
    n = len(d["cells"])
    x = np.stack([planes(d["cells"][i], int(d["to_move"][i]), int(d["ko"][i]),
                         d["last_moves"][i], history) for i in range(n)]) if n else \
        np.zeros((0, PLANES, NN), dtype=np.float32)
    return {"planes": x, "legal": x[:, 12] > 0, "cells": d["cells"], "to_move": d["to_move"]}


def mlp_input(encoding, inputs):
    """The MLP's input rows for config mlp.encoding, (n, width)."""
    if encoding == "paper":
        return inputs["cells"].astype(np.float64)
    if encoding == "one-hot":
        cells = inputs["cells"]
        own = cells == inputs["to_move"][:, None]
        return np.concatenate([own, (cells != 0) & ~own, cells == 0], axis=1).astype(np.float64)
    if encoding == "planes":
        return inputs["planes"].reshape(len(inputs["planes"]), -1).astype(np.float64)
    raise ExportError(f"unknown mlp.encoding {encoding}")


# --- Forward pass --------------------------------------------------------------------------

def _conv(x, w, b):
    """`same` convolution of x (n, cin, 9, 9) with w (cout, cin, k, k): k*k shifted products."""
    k = w.shape[2]
    r = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (r, r), (r, r)))
    out = np.zeros((x.shape[0], w.shape[0], N, N))
    for ky in range(k):
        for kx in range(k):
            out += np.einsum("nchw,oc->nohw", xp[:, :, ky:ky + N, kx:kx + N], w[:, :, ky, kx])
    return out + b[None, :, None, None]


def _relu(x):
    return np.maximum(x, 0.0)


def _softmax_legal(logits, legal):
    z = np.where(legal, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.where(legal, np.exp(z), 0.0)
    return e / e.sum(axis=1, keepdims=True)


def forward(meta, weights, inputs):
    """The network on encoded positions (`encode`), in float64. Returns a dict of arrays:
    logits (n, 81); policy (n, 81): softmax over the legal points (CNN, and MLP trained with
    softmax), else None; badness (n, 81): what the search prunes by, as akushu rates it
    (1 - policy with illegal points 1, or the BCE MLP's sigmoid); value (n,): the side to
    move's win probability (NaN without a value head); ownership (n, 81) or None; score (n,):
    the side to move's score lead in points (NaN without a score head)."""
    cfg = meta["config"]
    w = {k: v.astype(np.float64) for k, v in weights.items()}
    legal_points = inputs["legal"]
    n = len(legal_points)
    value = np.full(n, np.nan)
    score = np.full(n, np.nan)
    ownership = None
    if cfg["model"] == "mlp":
        x = mlp_input(cfg["mlp"]["encoding"], inputs)
        i = 0
        while f"hidden.{i}.weight" in w:
            x = _relu(x @ w[f"hidden.{i}.weight"] + w[f"hidden.{i}.bias"])
            i += 1
        logits = x @ w["output.weight"] + w["output.bias"]
        if cfg["mlp"].get("loss", "bce") == "bce":
            return {"logits": logits, "policy": None, "badness": 1 / (1 + np.exp(-logits)),
                    "value": value, "ownership": None, "score": score}
    else:
        x = inputs["planes"].reshape(n, PLANES, N, N).astype(np.float64)
        if not cfg["cnn"].get("history", True):
            x[:, 10:12] = 0  # a network trained blind to the last moves is never shown them
        x = _relu(_conv(x, w["stem.weight"], w["stem.bias"]))
        i = 0
        while f"blocks.{i}.conv1.weight" in w:
            y = _relu(_conv(x, w[f"blocks.{i}.conv1.weight"], w[f"blocks.{i}.conv1.bias"]))
            x = _relu(x + _conv(y, w[f"blocks.{i}.conv2.weight"], w[f"blocks.{i}.conv2.bias"]))
            i += 1
        logits = _conv(x, w["head.weight"], w["head.bias"]).reshape(n, NN)
        points = x.reshape(n, x.shape[1], NN).transpose(0, 2, 1)  # (n, 81, c)
        if "value.project.weight" in w:
            f = _relu(points @ w["value.project.weight"] + w["value.project.bias"])
            h = _relu(f.mean(axis=1) @ w["value.hidden.weight"] + w["value.hidden.bias"])
            v = (h @ w["value.out.weight"] + w["value.out.bias"])[:, 0]
            value = 1 / (1 + np.exp(-v))
            if "score.weight" in w:
                score = (h @ w["score.weight"] + w["score.bias"])[:, 0] * 20.0
        if "ownership.weight" in w:
            ownership = np.tanh((points @ w["ownership.weight"] + w["ownership.bias"])[:, :, 0])
    policy = _softmax_legal(logits, legal_points)
    return {"logits": logits, "policy": policy,
            "badness": np.where(legal_points, 1 - policy, 1.0), "value": value,
            "ownership": ownership, "score": score}


# --- PyTorch -------------------------------------------------------------------------------

def to_torch_state_dict(weights):
    """The state dict of `torch_module(meta)` (needs torch): Linear weights transposed to
    PyTorch's [out, in], every other tensor as it is."""
    import torch
    return {k: torch.from_numpy(np.ascontiguousarray(v.T if v.ndim == 2 else v, np.float32))
            for k, v in weights.items()}


def from_torch_state_dict(state_dict):
    """Export weights from a state dict of a module laid out as `torch_module` builds it."""
    out = {}
    for k, t in state_dict.items():
        v = t.detach().cpu().numpy().astype(np.float32)
        out[k] = np.ascontiguousarray(v.T if v.ndim == 2 else v)
    return out


def torch_module(meta):
    """A PyTorch module of the export's shape (the layout in the module doc), whose forward
    takes planes (n, 14, 9, 9) or MLP inputs (n, width) and returns (logits, value logit or
    None, ownership logits or None, score lead / 20 or None). Load weights with `load_state_dict(to_torch_state_dict(w))`."""
    import torch
    from torch import nn

    cfg = meta["config"]
    if cfg["model"] == "mlp":
        widths = [{"paper": NN, "one-hot": 3 * NN, "planes": PLANES * NN}[cfg["mlp"]["encoding"]]]
        widths += cfg["mlp"]["hidden"]

        class Mlp(nn.Module):
            def __init__(self):
                super().__init__()
                self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
                self.output = nn.Linear(widths[-1], NN)

            def forward(self, x):
                for layer in self.hidden:
                    x = torch.relu(layer(x))
                return self.output(x), None, None, None

        return Mlp()
    c, vc = cfg["cnn"]["channels"], cfg["cnn"].get("value_channels", 0)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, padding=1)
            self.conv2 = nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))

    class Value(nn.Module):
        def __init__(self):
            super().__init__()
            self.project = nn.Linear(c, vc)
            self.hidden = nn.Linear(vc, 64)
            self.out = nn.Linear(64, 1)

        def forward(self, points):
            return self.out(self.features(points))

        def features(self, points):
            pooled = torch.relu(self.project(points)).mean(dim=1)
            return torch.relu(self.hidden(pooled))

    class Cnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(PLANES, c, 3, padding=1)
            self.blocks = nn.ModuleList(Block() for _ in range(cfg["cnn"]["blocks"]))
            self.head = nn.Conv2d(c, 1, 1)
            self.value = Value() if vc > 0 else None
            self.ownership = nn.Linear(c, 1) if cfg["cnn"].get("ownership") else None
            self.score = nn.Linear(64, 1) if cfg["cnn"].get("score") else None

        def forward(self, x):
            x = torch.relu(self.stem(x))
            for b in self.blocks:
                x = b(x)
            logits = self.head(x).flatten(1)
            points = x.flatten(2).transpose(1, 2)  # (n, 81, c)
            value = self.value(points) if self.value is not None else None
            own = self.ownership(points)[:, :, 0] if self.ownership is not None else None
            score = self.score(self.value.features(points)) if self.score is not None else None
            return logits, value, own, score

    return Cnn()


# --- Command line --------------------------------------------------------------------------

def _list(a):
    return None if a is None else [None if np.isnan(x) else float(x) for x in np.ravel(a)]


def main():
    ap = argparse.ArgumentParser(description="akushu model exports in numpy.")
    sub = ap.add_subparsers(dest="command", required=True)
    f = sub.add_parser("forward", help="the network on a dataset split, as JSON lines")
    f.add_argument("export")
    f.add_argument("dataset", help="dataset directory (akushu dataset build --out)")
    f.add_argument("--split", default="test", choices=list(akushu_dataset.SPLITS))
    f.add_argument("--limit", type=int, default=0, help="first N positions (0 = all)")
    r = sub.add_parser("rewrite", help="load an export and write it back (a round trip)")
    r.add_argument("export")
    r.add_argument("--out", required=True)
    a = ap.parse_args()
    meta, weights = load(a.export)
    if a.command == "rewrite":
        save(a.out, meta, weights)
        return
    d = akushu_dataset.read_split(a.dataset, a.split)
    if a.limit:
        d = {k: v[:a.limit] for k, v in d.items()}
    out = forward(meta, weights, encode(d))
    for i in range(len(d["cells"])):
        print(json.dumps({"index": i, "badness": _list(out["badness"][i]),
                          "value": _list(out["value"][i:i + 1])[0],
                          "score": _list(out["score"][i:i + 1])[0]}))


if __name__ == "__main__":
    main()
