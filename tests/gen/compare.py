#!/usr/bin/env python3
"""compare.py MANIFEST: the exact model against the counted profile, for
run-random.sh. MANIFEST has one line per comparison, fields separated by tabs:
  LABEL  MODEL-FILE  COUNTED-FILE  EVAL-FILE  true|false  REPRODUCE
where the fifth field says whether the model is only an upper bound,
MODEL-FILE is `vecbsp cost --model exact --json` output, COUNTED-FILE is
`vecbsp run --profile --json` output and EVAL-FILE what `vecbsp eval` printed.
Checks that the profiled run printed eval's result, that both list the same
number of supersteps and that every w and h (and, when both carry "procs",
every process's w, sent and received) are equal, or with "bound" that the
model's are at least the counted ones. Prints one FAIL paragraph per failing
line; exits 1 if any failed."""
import json
import sys

PROC_COUNTS = ("w", "sent", "received")


def load(path):
    with open(path) as f:
        return json.load(f)


def steps_text(steps):
    return " ".join("[%s %s]" % (s.get("w"), s.get("h")) for s in steps)


def procs_text(procs):
    return " ".join("(%s %s %s)" % tuple(p.get(k) for k in PROC_COUNTS) for p in procs)


def agrees(model, counted, bound):
    if not isinstance(model, (int, float)) or not isinstance(counted, (int, float)):
        return False
    return model >= counted if bound else model == counted


def step_problems(i, m, c, bound):
    """What differs in superstep i between the model's m and the counted c."""
    problems = []
    for key in ("w", "h"):
        if not agrees(m.get(key), c.get(key), bound):
            problems.append("superstep %d (%s, %s): %s model %s, counted %s"
                            % (i, m.get("where"), m.get("what"), key, m.get(key), c.get(key)))
    if "procs" in m and "procs" in c:
        mp, cp = m["procs"], c["procs"]
        if len(mp) != len(cp):
            problems.append("superstep %d: %d processes in the model, %d counted" % (i, len(mp), len(cp)))
        for k, (a, b) in enumerate(zip(mp, cp)):
            bad = [key for key in PROC_COUNTS if not agrees(a.get(key), b.get(key), bound)]
            if bad:
                problems.append("superstep %d process %d: %s model %s, counted %s"
                                % (i, k, "/".join(bad), procs_text([a]), procs_text([b])))
    return problems


def check(entry):
    """The problems of one manifest line (empty when it passes)."""
    try:
        model, counted = load(entry["model"]), load(entry["counted"])
    except (OSError, ValueError) as e:
        return ["unreadable output: %s" % e]
    with open(entry["eval"]) as f:
        want = f.read().rstrip("\n")
    problems = []
    if counted.get("result") != want:
        problems.append("the profiled run printed %r, eval %r" % (counted.get("result"), want))
    if model.get("supersteps_truncated"):
        problems.append("the model's superstep list is truncated")
    ms, cs = model.get("supersteps", []), counted.get("supersteps", [])
    if len(ms) != len(cs):
        problems.append("%d supersteps in the model, %d counted" % (len(ms), len(cs)))
    for i, (m, c) in enumerate(zip(ms, cs)):
        problems += step_problems(i, m, c, entry["bound"])
    if problems:
        problems.append("model   (w h): " + steps_text(ms))
        problems.append("counted (w h): " + steps_text(cs))
        for i, (m, c) in enumerate(zip(ms, cs)):
            if "procs" in m and "procs" in c and m["procs"] != c["procs"]:
                problems.append("superstep %d procs (w sent received): model %s; counted %s"
                                % (i, procs_text(m["procs"]), procs_text(c["procs"])))
    return problems


def main():
    failed = False
    keys = ("label", "model", "counted", "eval", "bound", "reproduce")
    with open(sys.argv[1]) as f:
        entries = [dict(zip(keys, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    for entry in entries:
        entry["bound"] = entry["bound"] == "true"
    for entry in entries:
        problems = check(entry)
        if problems:
            failed = True
            print("FAIL %s%s:" % (entry["label"], " (model as an upper bound)" if entry["bound"] else ""))
            for p in problems:
                print("    " + p)
            print("    reproduce: " + entry["reproduce"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
