#!/usr/bin/env python3
"""Reference figures for akushu's pentanomial statistics, computed independently.

Follows fishtest's formulas (server/fishtest/stats: stat_util.get_elo, LLRcalc.LLR_logistic
with MLE_expected and the secular equation, sprt bounds log(beta/(1-alpha)) and
log((1-beta)/alpha)) in plain Python: the secular equation is solved by a safeguarded
Newton iteration (fishtest uses scipy's brentq; akushu bisection), so a shared mistake in
the solver cannot hide.

Writes JSON to stdout: fixed simulated pair streams (seeded with Python's random module,
whose Mersenne Twister stream is fixed across versions), each with its SPRT settings, the
pair at which the test decides (or the stream's end), the decision, the LLR there, and the
Elo with its 95% half width from the counts there; plus the trinomial LLR of a few W/D/L
counts. Usage: python3 scripts/pentanomial_sprt.py > tests/fixtures/arena/pentanomial_sprt.json
"""

import json
import math
import random

Z975 = 1.959963984540054


def L(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of(x):
    x = min(max(x, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / x - 1)


def regularize(results):
    return [r if r != 0 else 1e-3 for r in results]


def get_elo(results):
    r = regularize(results)
    l = len(r)
    n = sum(r)
    games = n * (l - 1) / 2
    mu = sum(r[i] * i / 2 for i in range(l)) / games
    unit = (l - 1) / 2 * mu
    var = sum(r[i] * (i / 2 - unit) ** 2 for i in range(l)) / games
    se = math.sqrt(var) / math.sqrt(games)
    lo, hi = elo_of(mu - Z975 * se), elo_of(mu + Z975 * se)
    return elo_of(mu), (hi - lo) / 2


def secular(pdf):
    """Root of sum p*a/(1+x*a) = 0 on (-1/max a, -1/min a), safeguarded Newton."""
    lo = -1 / max(a for a, _ in pdf)
    hi = -1 / min(a for a, _ in pdf)
    x = 0.0
    for _ in range(200):
        f = sum(p * a / (1 + x * a) for a, p in pdf)
        d = -sum(p * a * a / (1 + x * a) ** 2 for a, p in pdf)
        if f > 0:
            lo = x
        else:
            hi = x
        step = x - f / d
        if not (lo < step < hi):
            step = (lo + hi) / 2
        if abs(step - x) < 1e-16:
            x = step
            break
        x = step
    return x


def llr_logistic(elo0, elo1, results):
    r = regularize(results)
    n = sum(r)
    count = len(r)
    pdf = [(i / (count - 1), r[i] / n) for i in range(count)]
    total = 0.0
    xs = []
    for s in (L(elo0), L(elo1)):
        xs.append((s, secular([(a - s, p) for a, p in pdf])))
    (s0, x0), (s1, x1) = xs
    for a, p in pdf:
        q0 = p / (1 + x0 * (a - s0))
        q1 = p / (1 + x1 * (a - s1))
        total += p * (math.log(q1) - math.log(q0))
    return n * total


def run(elo0, elo1, alpha, beta, stream):
    lower = math.log(beta / (1 - alpha))
    upper = math.log((1 - beta) / alpha)
    counts = [0] * 5
    llr = 0.0
    decision = "undecided"
    pairs = 0
    for ch in stream:
        counts[int(ch)] += 1
        pairs += 1
        llr = llr_logistic(elo0, elo1, counts)
        if llr >= upper:
            decision = "H1"
            break
        if llr <= lower:
            decision = "H0"
            break
    elo, half = get_elo(counts)
    return {
        "pairs": pairs,
        "decision": decision,
        "llr": llr,
        "counts": counts,
        "elo": elo,
        "elo95": half,
    }


def stream(seed, probs, length):
    rng = random.Random(seed)
    out = []
    for _ in range(length):
        u = rng.random()
        acc = 0.0
        k = 4
        for i, p in enumerate(probs):
            acc += p
            if u < acc:
                k = i
                break
        out.append(str(k))
    return "".join(out)


CASES = [
    # (seed, pentanomial probabilities, length, elo0, elo1, alpha, beta)
    (1, [0.10, 0.20, 0.40, 0.20, 0.10], 3000, 0.0, 35.0, 0.05, 0.05),
    (2, [0.05, 0.15, 0.40, 0.25, 0.15], 3000, 0.0, 35.0, 0.05, 0.05),
    (3, [0.15, 0.25, 0.35, 0.15, 0.10], 3000, 0.0, 35.0, 0.05, 0.05),
    (4, [0.02, 0.10, 0.30, 0.33, 0.25], 3000, 0.0, 50.0, 0.05, 0.10),
    (5, [0.30, 0.05, 0.30, 0.05, 0.30], 3000, -10.0, 10.0, 0.05, 0.05),
    (6, [0.10, 0.20, 0.40, 0.20, 0.10], 40, 0.0, 35.0, 0.05, 0.05),
]


def main():
    cases = []
    for seed, probs, length, elo0, elo1, alpha, beta in CASES:
        s = stream(seed, probs, length)
        case = {
            "elo0": elo0,
            "elo1": elo1,
            "alpha": alpha,
            "beta": beta,
            "stream": s,
        }
        case.update(run(elo0, elo1, alpha, beta, s))
        cases.append(case)
    trinomial = []
    for counts in ([40, 10, 50], [0, 0, 12], [60, 0, 40], [30, 5, 35]):
        trinomial.append(
            {"counts": counts, "elo0": 0.0, "elo1": 35.0, "llr": llr_logistic(0.0, 35.0, counts)}
        )
    print(json.dumps({"pairs": cases, "trinomial": trinomial}, indent=1))


if __name__ == "__main__":
    main()
