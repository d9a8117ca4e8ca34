#!/usr/bin/env python3
"""Drives `akushu analysis` with KaTrain's own engine client, headless.

KaTrain (PyPI `katrain`) talks to its engine through `katrain.core.engine.KataGoEngine`:
it starts the engine command, writes JSON queries from one thread and reads responses on
another, and hands each result to the game node (`GameNode.set_analysis`), exactly as the
GUI does. This script builds a short 9x9 game as KaTrain's game nodes, asks KaTrain to
analyse its positions through that client (with ownership, policy and partial reports),
terminates a long query as KaTrain does when the user moves on, shuts the engine down
and prints one JSON summary of what KaTrain stored, for tests/katrain_client.rs to check.

Usage: python katrain_client.py AKUSHU_BINARY [--engine SPEC] [--visits N]
Needs the katrain package (`sh scripts/install-katrain.sh` makes a virtual environment
with it); no display is opened.
"""

import argparse
import json
import os
import shlex
import sys
import tempfile
import time

# Kivy reads these at import: no command-line parsing, no log files, no console noise.
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="akushu-kivy-"))

from katrain.core.engine import KataGoEngine  # noqa: E402
from katrain.core.game_node import GameNode  # noqa: E402
from pysgf import Move  # noqa: E402


class HeadlessKaTrain:
    """The two things KataGoEngine needs from the application: a log and a callable for
    popups. Errors are kept, so the summary can report them."""

    def __init__(self):
        self.errors = []
        self.lines = []

    def log(self, message, level=0):
        self.lines.append(str(message))
        if "rror" in str(message) or "ailed" in str(message):
            self.errors.append(str(message))

    def __call__(self, *args, **kwargs):
        self.errors.append(f"popup {args}")


def game(moves):
    """KaTrain's nodes for a 9x9 game under Chinese rules, komi 6.5: the root, then one
    node per move."""
    root = GameNode(properties={"SZ": "9", "KM": "6.5", "RU": "chinese"})
    nodes = [root]
    player = "B"
    for gtp in moves:
        nodes.append(nodes[-1].play(Move.from_gtp(gtp, player=player)))
        player = "W" if player == "B" else "B"
    return nodes


def wait(predicate, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("akushu")
    ap.add_argument("--engine", default="uct:sims=1000")
    ap.add_argument("--visits", type=int, default=400)
    args = ap.parse_args()

    app = HeadlessKaTrain()
    command = f"{shlex.quote(args.akushu)} analysis --engine {shlex.quote(args.engine)}"
    config = {
        "backend": "custom",
        "altcommand": command,
        "allow_recovery": False,
        "max_visits": args.visits,
        "fast_visits": args.visits // 4,
        "max_time": 30.0,
        "wide_root_noise": 0.0,
        "_enable_ownership": True,
    }
    engine = KataGoEngine(app, config)
    nodes = game(["E5", "C3", "G7", "C6", "D4"])
    partials = {"n": 0}
    # Every position of the game, as KaTrain analyses a loaded record.
    for node in nodes:
        node.analyze(engine, report_every=None)
    # A long query with partial reports, then terminated as KaTrain does when the user
    # moves on (terminate_query also stops KaTrain listening for its results).
    long_node = nodes[-1].play(Move.from_gtp("F4", player="W"))

    def on_partial(result, partial):
        if partial:
            partials["n"] += 1

    engine.request_analysis(
        long_node, callback=on_partial, visits=10_000_000, report_every=0.1, priority=-1
    )
    done = wait(lambda: all(n.analysis_complete for n in nodes), 120)
    got_partial = wait(lambda: partials["n"] >= 2, 60)
    with engine.thread_lock:
        long_ids = list(engine.queries.keys())
    for qid in long_ids:
        engine.terminate_query(qid, ignore_further_results=False)
    finished = wait(lambda: engine.is_idle(), 30)
    process = engine.katago_process
    engine.shutdown(finish=False)
    exited = wait(lambda: process is None or process.poll() is not None, 10)

    def node_summary(node):
        a = node.analysis
        moves = sorted(a["moves"].values(), key=lambda m: m.get("order", 999))
        return {
            "complete": node.analysis_complete,
            "visits": node.root_visits,
            "score": node.score,
            "winrate": a["root"]["winrate"] if a["root"] else None,
            "candidates": [m["move"] for m in moves[:5]],
            "candidate_visits": [m.get("visits") for m in moves[:5]],
            "ownership": len(a["ownership"] or []),
            "policy": len(a["policy"] or []),
        }

    print(
        json.dumps(
            {
                "all_complete": done,
                "partial_reports": partials["n"],
                "got_partial": got_partial,
                "terminated_and_idle": finished,
                "engine_exited": exited,
                "errors": app.errors,
                "nodes": [node_summary(n) for n in nodes],
            }
        )
    )


if __name__ == "__main__":
    sys.exit(main())
