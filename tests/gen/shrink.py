#!/usr/bin/env python3
"""shrink.py VECBSP FILE.vec MODE ARGS...: a smaller program that fails the
same way, printed on stdout (for turning what run-random.sh finds into a
regression test by hand). MODE is
  run    vecbsp run ARGS prints something else than vecbsp eval (or one of
         them fails alone); ARGS are run's (-p, --backend, --plan, -D, --random)
  model  the exact model's supersteps differ from run --profile's
         (compare.py's rule); ARGS as for run
Greedy: it tries, biggest cut first, dropping a declaration, replacing a
parenthesised group by one of the groups inside it or deleting it (an
applied lambda, an argument), and only when none of those fails, replacing
a group by a small atom; keeps the first candidate that `vecbsp check`
accepts and that still fails, and starts again. Each candidate that type
checks costs a compilation (about a second), so a big program takes minutes;
progress goes to stderr."""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

ATOMS = ["0", "1", "n", "x", "true", "0.5", "[1]", "[x]", "(0, 0)", "hd x"]
EVAL_OPTS = ("-D", "--random")  # the arguments eval and cost take too


def groups(line):
    """(start, end) of every balanced parenthesised group in line."""
    found, stack = [], []
    for i, ch in enumerate(line):
        if ch == "(":
            stack.append(i)
        elif ch == ")" and stack:
            found.append((stack.pop(), i + 1))
    return found


def candidates(program, atoms):
    """Smaller variants of program, smallest first: with atoms, the groups
    replaced by those; without, declarations dropped and groups hoisted or
    deleted."""
    lines = program.split("\n")
    out = set()
    for k, line in enumerate(lines):
        if line.startswith(("def ", "input ")) and not atoms:
            out.add("\n".join(lines[:k] + lines[k + 1:]))
        if not line.startswith(("def ", "main ")):
            continue
        body_at = line.index("=") + 1
        spans = [(s, e) for s, e in groups(line) if s >= body_at] + [(body_at + 1, len(line))]
        for s, e in spans:
            inner = [line[a:b] for a, b in groups(line) if s < a and b <= e]
            for repl in atoms or inner + [""]:
                new = line[:s] + repl + line[e:]
                if new != line:
                    out.add("\n".join(lines[:k] + [new] + lines[k + 1:]))
    return sorted(out, key=len)


def run(vecbsp, *args):
    p = subprocess.run([vecbsp, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def eval_args(args):
    out = []
    for i, a in enumerate(args):
        if a in EVAL_OPTS:
            out += [a, args[i + 1]]
    return out


def fails_run(vecbsp, path, args):
    erc, eout, eerr = run(vecbsp, "eval", path, *eval_args(args))
    rrc, rout, rerr = run(vecbsp, "run", path, *args)
    if erc == 0 or rrc == 0:
        return (erc, eout) != (rrc, rout)
    return not ("error:" in eerr and "error:" in rerr)


def fails_model(vecbsp, path, args):
    erc, eout, _ = run(vecbsp, "eval", path, *eval_args(args))
    if erc != 0:
        return False
    cost_args = [a for i, a in enumerate(args) if "--backend" not in (a, args[i - 1] if i else "")]
    crc, cout, _ = run(vecbsp, "cost", "--model", "exact", "--json", path, *cost_args)
    prc, pout, _ = run(vecbsp, "run", "--profile", "--json", path, *args)
    if crc != 0 or prc != 0:
        return crc != prc
    with tempfile.TemporaryDirectory() as d:
        files = {}
        for name, text in (("model", cout), ("counted", pout), ("eval", eout)):
            files[name] = os.path.join(d, name)
            with open(files[name], "w") as f:
                f.write(text)
        text = re.sub(r"#.*", "", open(path).read())
        bound = bool(re.search(r"(^|[^A-Za-z0-9_])if\s|[^(](&&|\|\|)", text))
        return bool(compare.check(dict(files, bound=bound)))


def main():
    if len(sys.argv) < 4 or sys.argv[3] not in ("run", "model"):
        sys.exit(__doc__)
    vecbsp, path, mode, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    failing = fails_run if mode == "run" else fails_model
    program = "\n".join(l for l in open(path).read().split("\n") if not l.startswith("#")).strip()
    with tempfile.TemporaryDirectory() as d:
        os.environ["VECBSP_CACHE"] = os.path.join(d, "cache")
        trial = os.path.join(d, "trial.vec")

        def still_fails(text):
            with open(trial, "w") as f:
                f.write(text + "\n")
            return run(vecbsp, "check", trial)[0] == 0 and failing(vecbsp, trial, args)

        if not still_fails(program):
            sys.exit("shrink.py: the program does not fail that way")
        tried = set()
        shrunk = True
        while shrunk:
            shrunk = False
            for c in candidates(program, None) + candidates(program, ATOMS):
                if len(c) < len(program) and c not in tried:
                    tried.add(c)
                    if still_fails(c):
                        program, shrunk = c, True
                        print("# %d characters" % len(program), file=sys.stderr)
                        break
    print(program)


if __name__ == "__main__":
    main()
