#!/usr/bin/env python3
"""monotone.py VECBSP [--quick]: no prediction falls while its counts grow.

Every example, and all segment sums, costed at growing sizes (n, or m = n,
by factors of 1.5 from 1 to past the last-level cache) by the exact model for
the built-in machines and for one whose memory units a fit left at 0 (as the
probe's fit once did: read as their twins in cache), and by the paper
model, at p = 1, 2 and 4: the predicted seconds never fall from
one size to the next (beyond rounding). The planner's choice is the one
`cost` reports: the cheapest plan at each size. --quick (for the
sanitizer build, where the analysis is 15 times slower): the exact model at
p = 2 only, for the machine that priced memory at 0, by factors of 2."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = [("examples/mss1.vec", 1 << 9), ("examples/mss2.vec", 1 << 9), ("examples/mss3.vec", 1 << 9),
            ("examples/mss4.vec", 1 << 15), ("examples/mss5.vec", 1 << 23), ("examples/matvec1.vec", 1 << 12),
            ("examples/matvec2.vec", 1 << 12), ("tests/cost/programs/segment-sums.vec", 1 << 10)]


def predictions(vecbsp, path, largest, model, machine, p, factor):
    """(size, seconds) at sizes from 1 by factors of factor: one sweep, whose
    every point is the prediction `cost` makes there."""
    varies = [x for name in (["n", "m"] if "matvec" in path else ["n"])
              for x in ("--vary", f"{name}=1:{largest}:*{factor}")]
    out = subprocess.run([vecbsp, "sweep", os.path.join(ROOT, path), *varies, "--model", model, "--machine", machine,
                          "-p", str(p), "--json"], capture_output=True, text=True, check=True).stdout
    return [(row["params"]["n"], row["predicted"]) for row in json.loads(out)["rows"]]


# A machine whose fit priced memory at nothing, as the probe's once did,
# and the words in cache dearly (so that moving them to memory, as the
# footprint grows past the cache, would predict less time).
FREE_MEMORY = {"name": "free-memory", "p": 2, "g": 1.87, "l": 3979, "s": 3.9e9, "cache_bytes": 33554432,
               "calibration": {"op": 0, "div": 3.8e-10, "elem": 1e-11, "load": 1e-9, "store": 1e-9,
                               "load_mem": 0, "store_mem": 0, "unpack": 1e-9, "unpack_mem": 0, "vector": 1.6e-9,
                               "mul": 8.2e-11, "lat_fast": 2.5e-10, "lat_select": 7.4e-10, "lat_mul": 7.4e-10,
                               "lat_div": 2.9e-9, "exit": 1.3e-8, "word": 1e-9, "word_mem": 0, "barrier": 1e-6}}


def falls_of(vecbsp, path, largest, model, machine, p, factor):
    """The steps of growing size at which the prediction falls, and how many steps."""
    points = predictions(vecbsp, path, largest, model, machine, p, factor)
    steps = [(n0, t0, n1, t1) for (n0, t0), (n1, t1) in zip(points, points[1:])]
    return [s for s in steps if s[3] < s[1] * (1 - 1e-9)], len(steps)


def main():
    vecbsp = sys.argv[1]
    quick = sys.argv[2:] == ["--quick"]
    falls = checked = 0
    free = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(FREE_MEMORY, free)
    free.close()
    try:
        for path, largest in PROGRAMS:
            # The paper model reads no calibration: one machine is enough.
            cases = [("exact", m) for m in ("local", "sunhpc3500", free.name)] + [("paper", "sunhpc3500")]
            for model, machine in [("exact", free.name)] if quick else cases:
                for p in (2,) if quick else (1, 2, 4):
                    fell, steps = falls_of(vecbsp, path, largest, model, machine, p, 2 if quick else 1.5)
                    checked += steps
                    falls += len(fell)
                    for n0, t0, n1, t1 in fell:
                        print(f"FAIL {path} {model} {machine} p={p}: {t0:.6g} s at n = {n0}, {t1:.6g} s at n = {n1}")
    finally:
        os.unlink(free.name)
    print(f"{checked} steps of growing size, {falls} falls")
    sys.exit(1 if falls else 0)


main()
