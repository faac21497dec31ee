#!/usr/bin/env python3
"""curve_check.py MACHINE.json [P]: checks a machine file's memory curves
(docs/cost-model.md, "The memory curve") against their kernels' recorded
times: every share recomputed here by the rule the docs give, and, with P,
one curve on one process and one on min(P, cores) when that is more.
Used by tests/bsp/probe_check.py (a fresh probe) and tests/cost/refit.sh."""
import json
import statistics
import sys

FOOTPRINTS = [0.125, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 8]


def rising(v):
    """v least-squares non-decreasing: adjacent violators pooled."""
    blocks = []
    for x in v:
        blocks.append([x, 1])
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] > blocks[-1][0] * blocks[-2][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    return [total / count for total, count in blocks for _ in range(count)]


def shares(footprint, seconds, part, part_price):
    """Each point's share where over 5% slower than in the cache (none if the kernel's price is at most its
    other words'), the last 1, and the price from memory: the median time from 2 cache sizes on."""
    t = rising(seconds)
    price = statistics.median(x for f, x in zip(footprint, t) if f >= 2)
    s = [max(0, min(1, (x - y) / (price - part_price))) if x > 1.05 * t[0] and price > part_price else 0
         for x, y in zip(t, part)]
    return rising(s)[:-1] + [1], price


def problems(m, p=None):
    """What is wrong with m's curves, as a list of messages."""
    curves, wrong = m.get("memory_curves", []), []
    if p is not None and sorted(c["p"] for c in curves) != sorted({1, min(p, m["cores"])}):
        wrong.append(f"curves on {[c['p'] for c in curves]} processes, not on 1 and min(p, cores)")
    for c in curves:
        f, per = c["footprint"], c.get("seconds_per_element")
        if per is None:
            wrong.append(f"p = {c['p']}: no seconds_per_element")
            continue
        if f != FOOTPRINTS:
            wrong.append(f"footprints {f}")
        if not all(len(per[k]) == len(f) == len(c[k]) and all(x > 0 for x in per[k]) for k in ("loads", "stores")):
            wrong.append(f"p = {c['p']}: not a positive time and a share for each footprint")
            continue
        loads, price = shares(f, per["loads"], [0] * len(f), 0)
        stores, _ = shares(f, per["stores"], [x * price for x in loads], price)
        for name, want in (("loads", loads), ("stores", stores)):
            if not all(abs(x - y) < 1e-9 for x, y in zip(c[name], want)):
                wrong.append(f"p = {c['p']}: {name} {c[name]}, not {want}")
    return wrong


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        found = problems(json.load(f), int(sys.argv[2]) if len(sys.argv) > 2 else None)
    sys.exit("curve_check: " + "; ".join(found) if found else 0)
