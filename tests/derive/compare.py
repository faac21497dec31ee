#!/usr/bin/env python3
"""compare.py VECBSP: `vecbsp compare`.

Formulations that agree exit 0; a wrong one gives a counterexample that
`vecbsp eval` confirms independently (each program run alone on the
printed -D and --input arguments gives the value compare printed, and the
values differ), shrunk to at most 4 elements; programs that cannot be
compared are errors; the exact crossover is the first size at which
`vecbsp cost` itself says the other program is cheaper."""
import json
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import check, finish, program, run

# The maximum prefix sum is not the maximum segment sum.
prefix_max = program("prefix_max.vec", "param n\ninput x : [n]int\nmain = fold max (map (fold (+)) (inits x))\n")
mss1, mss2, mss3 = (f"examples/mss{k}.vec" for k in (1, 2, 3))

# Agreeing formulations: exit 0, "agree". mss (1)-(3) take the largest sum
# of a non-empty segment, (4) and (5) count the empty one too (the mss
# paper's max with 0): they agree among themselves.
for group in ((mss1, mss2, mss3), ("examples/mss4.vec", "examples/mss5.vec")):
    done = run("compare", *group, "--json")
    check(done.returncode == 0, f"{group} agree: exit {done.returncode}: {done.stderr}")
    if done.returncode == 0:
        report = json.loads(done.stdout)
        check(report["agree"] is True and report["cases"] >= 100, f"{group}: {report}")

# ... and differ on an all-negative input, where the empty segment wins.
done = run("compare", mss1, "examples/mss5.vec", "--json")
check(done.returncode == 1, f"mss1 against mss5: exit {done.returncode}")
if done.returncode == 1:
    cx = json.loads(done.stdout)["counterexample"]
    x = json.loads(cx["inputs"]["x"])
    values = [r.get("value") for r in cx["results"]]
    check(len(x) >= 1 and all(v < 0 for v in x) and values == [str(max(x)), "0"],
          f"mss1 against mss5: {cx}")

# A wrong formulation: exit 1, a counterexample that eval confirms.
done = run("compare", mss1, prefix_max, "--json")
check(done.returncode == 1, f"mss1 against the maximum prefix sum: exit {done.returncode}: {done.stderr}")
if done.returncode == 1:
    cx = json.loads(done.stdout)["counterexample"]
    inputs = [json.loads(v) for v in cx["inputs"].values()]  # int vectors: literal syntax is JSON
    check(all(len(v) <= 4 for v in inputs), f"counterexample not shrunk to 4 elements or fewer: {cx}")
    values = []
    for path, result in zip((mss1, prefix_max), cx["results"]):
        out = run("eval", path, *shlex.split(cx["args"]))
        check(out.returncode == 0, f"eval {path} {cx['args']}: {out.stderr}")
        values.append(out.stdout.strip())
        check(out.stdout.strip() == result.get("value"), f"eval {path} {cx['args']} gave {out.stdout.strip()}, "
              f"compare said {result}")
    check(len(set(values)) == 2, f"the counterexample does not tell them apart: {values}")

# The text form says where they differ and how to see it.
done = run("compare", mss1, prefix_max)
check(done.returncode == 1 and done.stdout.startswith("differ: ") and "vecbsp eval FILE" in done.stdout,
      f"text form of a disagreement: {done.stdout}")

# Programs that cannot compute the same thing are errors (status 1, one line).
other = program("other.vec", "param m\ninput x : [m]int\nmain = fold (+) x\n")
floats = program("floats.vec", "param n\ninput x : [n]float\nmain = fold (+) x\n")
for b, words in ((other, "param"), (floats, "input 'x' is vec int in")):
    done = run("compare", prefix_max, b)
    check(done.returncode == 1 and "error:" in done.stderr and words in done.stderr and not done.stdout,
          f"compare with {b}: {done.returncode} {done.stderr!r}")
done = run("compare", prefix_max)
check(done.returncode == 1 and "two programs" in done.stderr, f"one program: {done.stderr!r}")
# An input of n - 1 elements has none at n = 0: that size is skipped, not an error.
shorter = program("shorter.vec", "param n\ninput x : [n - 1]int\nmain = length x\n")
mapped = program("mapped.vec", "param n\ninput x : [n - 1]int\nmain = length (map (\\y -> y) x)\n")
done = run("compare", shorter, mapped, "--json")
check(done.returncode == 0 and json.loads(done.stdout)["agree"], f"inputs of n - 1: {done.returncode} {done.stderr!r}")
# The same input declared with other lengths: an error at the first size where they differ.
done = run("compare", shorter, program("longer.vec", "param n\ninput x : [n]int\nmain = length x\n"))
check(done.returncode == 1 and "error: the input 'x' has other shapes in" in done.stderr and "at -D n=1" in done.stderr,
      f"inputs of other lengths: {done.returncode} {done.stderr!r}")

# Floats agree within a tolerance: a sum, and a third of the sum of thrice.
left = program("left.vec", "param n\ninput x : [n]float\nmain = fold (+) x\n")
thrice = program("thrice.vec", "param n\ninput x : [n]float\nmain = fold (+) (map (\\y -> y * 3.0) x) / 3.0\n")
done = run("compare", left, thrice)
check(done.returncode == 0, f"float sums grouped differently: {done.stdout} {done.stderr}")

# The exact crossover: the first n at which cost itself ranks them the other way.
done = run("compare", "examples/mss4.vec", "examples/mss5.vec", "--model", "paper", "--vary", "n=100:3000:100", "--json")
check(done.returncode == 0, f"compare --vary: {done.stderr}")
if done.returncode == 0:
    report = json.loads(done.stdout)
    check(report["agreement"]["agree"], "mss4 and mss5 agree")
    for c in report["crossovers"]:
        n = c["cheaper_from"]["n"]
        costs = {}
        for k in (n - 1, n):
            for path in ("examples/mss4.vec", "examples/mss5.vec"):
                out = run("cost", path, "--model", "paper", "-D", f"n={k}", "--json")
                costs[(k, os.path.basename(path))] = json.loads(out.stdout)["seconds"]
        was, becomes = c["was_cheapest"], c["becomes_cheapest"]
        check(costs[(n, becomes)] < costs[(n, was)] and costs[(n - 1, becomes)] >= costs[(n - 1, was)],
              f"crossover at n = {n}: {costs}")
    # The leading terms (from the closed forms): n^2 and n, whose c*N^d is
    # what cost's analysis predicts at a large N, within 1%.
    leading = {row["program"]: row for row in report["leading"]}
    for name, power, big in (("mss4.vec", 2, 20000), ("mss5.vec", 1, 100000000)):
        lead = leading.get(name, {})
        check(lead.get("power") == power and lead.get("of") == "n", f"leading term of {name}: {lead}")
        out = run("cost", f"examples/{name}", "--model", "paper", "-D", f"n={big}", "--json")
        at = json.loads(out.stdout)["seconds"]
        check(abs(lead.get("coefficient", 0) * big ** power - at) <= 0.01 * at,
              f"{name}: {lead} at n = {big} against {at} s")

finish()
