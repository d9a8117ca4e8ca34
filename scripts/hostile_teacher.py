#!/usr/bin/env python3
"""A misbehaving teacher for `scripts/hostile-teacher-clock-analysis.py`: speaks KataGo's JSON
analysis protocol on stdin/stdout with the answers of tests/fixtures/teacher/fake_teacher.py
(they follow from the query: win rate from the number of moves, policy even over the empty
points, ownership on the stones), then misbehaves as HT_MODE says after HT_N good answers;
HT_ARG tunes some modes, and HT_SIGPIPE=1 makes a write to a closed pipe kill it, as it
kills a C++ teacher. Answers go out per batch of the queries ready at once (up to
HT_BATCH), in order, reversed or shuffled (seeded by HT_SEED) as HT_ORDER says.

    HT_MODE=die HT_N=20 hostile_teacher.py
"""
import json
import os
import random
import select
import signal
import sys
import time

MODE = os.environ.get("HT_MODE", "good")
N = int(os.environ.get("HT_N", "0"))
ORDER = os.environ.get("HT_ORDER", "in")
BATCH = int(os.environ.get("HT_BATCH", "64"))
ARG = os.environ.get("HT_ARG", "")
RNG = random.Random(int(os.environ.get("HT_SEED", "1")))
OUT = sys.stdout.buffer
# The answers themselves are the scripted test teacher's: they follow from the query.
sys.dont_write_bytecode = True  # no __pycache__ left in the fixtures
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "fixtures", "teacher"))
from fake_teacher import answer  # noqa: E402


def raw(data):
    try:
        OUT.write(data)
        OUT.flush()
    except BrokenPipeError:
        os._exit(0)


def out(obj):
    raw(((obj if isinstance(obj, str) else json.dumps(obj, allow_nan=True)) + "\n").encode())


def err(data):
    try:
        sys.stderr.buffer.write(data)
        sys.stderr.buffer.flush()
    except BrokenPipeError:
        pass


def batches():
    """Input lines in batches of what is ready (at most BATCH)."""
    buf = b""
    fd = sys.stdin.fileno()
    while True:
        batch = []
        while len(batch) < BATCH:
            while b"\n" in buf and len(batch) < BATCH:
                line, buf = buf.split(b"\n", 1)
                batch.append(line.decode())
            if len(batch) == BATCH:
                break
            ready, _, _ = select.select([fd], [], [], 0.02 if batch else None)
            if not ready:
                break
            chunk = os.read(fd, 65536)
            if not chunk:
                if batch:
                    yield batch
                return
            buf += chunk
        yield batch


def bad(a, q):
    """The answer to the first query past N under a corrupting mode; None: not corrupting."""
    r = a["rootInfo"]
    if MODE == "nan-winrate":
        r["winrate"] = float("nan")
    elif MODE == "inf-score":
        r["scoreLead"] = float("inf")
    elif MODE == "huge-score":
        r["scoreLead"] = 1e6
    elif MODE == "score-string":
        r["scoreLead"] = "3.5"
    elif MODE == "neg-visits":
        r["visits"] = -5
    elif MODE == "float-visits":
        r["visits"] = 2.5
    elif MODE == "string-visits":
        r["visits"] = "7"
    elif MODE == "winrate-high":
        r["winrate"] = 1.5
    elif MODE == "winrate-neg":
        r["winrate"] = -0.01
    elif MODE == "no-rootinfo":
        del a["rootInfo"]
    elif MODE == "no-winrate":
        del r["winrate"]
    elif MODE == "wrong-player":
        r["currentPlayer"] = "W" if r["currentPlayer"] == "B" else "B"
    elif MODE == "own-short":
        a["ownership"] = a["ownership"][:80]
    elif MODE == "own-long":
        a["ownership"] = a["ownership"] + [0.0]
    elif MODE == "own-range":
        a["ownership"][0] = 2.0
    elif MODE == "own-null":
        a["ownership"][3] = None
    elif MODE == "no-ownership":
        del a["ownership"]
    elif MODE == "pol-neg":
        a["policy"][[i for i, p in enumerate(a["policy"]) if p >= 0][0]] = -0.5
    elif MODE == "pol-sum-big":
        a["policy"] = [0.9 if p >= 0 else -1 for p in a["policy"]]
    elif MODE == "pol-zero":
        a["policy"] = [0.0 if p >= 0 else -1 for p in a["policy"]]
    elif MODE == "pol-all-illegal":
        a["policy"] = [-1] * 82
    elif MODE == "pol-81":
        a["policy"] = a["policy"][:81]
    elif MODE == "pol-361":
        a["policy"] = [0.0] * 361 + [1.0]
    elif MODE == "pol-string":
        a["policy"][5] = "x"
    elif MODE == "pol-above-one":
        legal = [i for i, p in enumerate(a["policy"]) if p >= 0]
        a["policy"] = [-1] * 82
        a["policy"][legal[0]], a["policy"][legal[1]] = 1.5, -0.5
    elif MODE == "id-number":
        a["id"] = 7
    elif MODE == "id-null":
        a["id"] = None
    elif MODE == "no-id":
        del a["id"]
    elif MODE == "error-no-id":
        return {"error": "could not parse json"}
    elif MODE == "error":
        return {"id": q["id"], "error": "Illegal move", "field": "moves"}
    elif MODE == "warning":
        return {"id": q["id"], "warning": "Unexpected or unused field", "field": "foo"}
    else:
        return None
    return a


if os.environ.get("HT_SIGPIPE"):
    # As a C or C++ teacher (KataGo) is: a write to a closed pipe kills it.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
# The modes that misbehave at once; the answers of the batch before are sent first.
PASSIVE = {"good", "good-after", "delay", "linger", "stderr-flood", "stderr-flood-start",
           "during", "split-writes"}


def send(replies):
    if ORDER == "reverse":
        replies.reverse()
    elif ORDER == "shuffle":
        RNG.shuffle(replies)
    for r in replies:
        out(r)
    replies.clear()


answered = 0
if MODE == "banner":
    out("KataGo v1.15.3 ready")
if MODE == "die-at-start":
    sys.exit(5)
if MODE == "stderr-flood-start":
    err(b"log line\n" * (int(ARG or "4") << 17))
for batch in batches():
    replies = []
    for line in batch:
        q = json.loads(line)
        action = q.get("action")
        if action == "query_version":
            if MODE == "version-error":
                out({"id": q["id"], "error": "unknown action", "field": "action"})
            elif MODE == "version-number":
                out({"id": q["id"], "action": "query_version", "version": 17})
            elif MODE == "version-wrong-id":
                out({"id": "x", "action": "query_version", "version": "1"})
            elif MODE == "version-silent":
                pass
            else:
                out({"id": q["id"], "action": "query_version", "version": "hostile-1",
                     "git_hash": "b0b"})
            continue
        if action == "query_models":
            if MODE == "models-error":
                out({"id": q["id"], "error": "unknown action", "field": "action"})
            elif MODE == "models-garbage":
                out({"id": q["id"], "action": "query_models", "models": "none"})
            else:
                out({"id": q["id"], "action": "query_models", "models": [{"name": "hostile-net"}]})
            continue
        if MODE == "stderr-flood":
            # ARG KiB of stderr (default 64) before every answer: MiBs over a run.
            err((b"warn: " + b"y" * 1017 + b"\n") * int(ARG or "64"))
        if answered >= N:
            if MODE not in PASSIVE:
                send(replies)
            if MODE == "die":
                sys.exit(3)
            if MODE == "exit0":
                sys.exit(0)
            if MODE == "kill9":
                os.kill(os.getpid(), signal.SIGKILL)
            if MODE == "partial-die":
                raw(json.dumps(answer(q))[:40].encode())
                sys.exit(0)
            if MODE == "close-stdout":
                OUT.flush()
                os.close(1)
                time.sleep(3600)
            if MODE == "hang":
                time.sleep(3600)
            if MODE == "endless":
                chunk = b"x" * (1 << 20)
                while True:
                    raw(chunk)
            if MODE == "endless-stderr":
                chunk = b"e" * (1 << 20)
                for _ in range(int(ARG or "64")):
                    err(chunk)
                MODE = "good-after"
            if MODE == "stderr-nonutf8-flood":
                err(b"\xff\xfe bad bytes \xc3\x28\n")
                err((b"after " + b"z" * 1000 + b"\n") * 4096)
                MODE = "good-after"
            if MODE == "nonutf8":
                raw(b'{"id":"\xff\xfe"}\n')
                continue
            if MODE == "huge-line":
                a = answer(q)
                a["padding"] = "p" * (int(ARG or "40") << 20)
                out(a)
                answered += 1
                MODE = "good-after"
                continue
            if MODE == "blank-line":
                out("")
                MODE = "good-after"
            if MODE == "stall":
                time.sleep(float(ARG or "1"))
                MODE = "good-after"
            if MODE == "dup":
                a = answer(q)
                out(a)
                out(a)
                answered += 1
                continue
            if MODE == "unasked":
                a = answer(q)
                a["id"] = "999:0"
                out(a)
                continue
            if MODE == "during":
                for k in range(int(ARG or "2")):
                    d = answer(q)
                    d["isDuringSearch"] = True
                    d["rootInfo"]["winrate"] = 7.0  # garbage in a partial report is ignored
                    out(d)
            if MODE == "during-only":
                d = answer(q)
                d["isDuringSearch"] = True
                out(d)
                continue
            if MODE == "split-writes":
                text = (json.dumps(answer(q)) + "\n").encode()
                for k in range(0, len(text), 97):
                    raw(text[k:k + 97])
                    time.sleep(0.001)
                answered += 1
                continue
            corrupt = bad(answer(q), q)
            if corrupt is not None:
                out(corrupt)
                MODE = "good-after"
                continue
        replies.append(answer(q))
        answered += 1
    if MODE == "delay":
        time.sleep(float(ARG or "0.05"))
    send(replies)
if MODE == "linger":
    # Keeps running after its input closed: the labeller must not wait for it forever.
    time.sleep(3600)
