#!/usr/bin/env python3
"""interrupt.py BUILD: an interrupted vecbsp leaves nothing behind.

vecbsp is copied into a directory of its own, beside wrappers of bspcc and
bsprun (vecbsp runs the tools beside itself) that create a marker file at a
known point: the program compiled but not yet placed in the cache, a
program running, the probe measured. At the marker the test sends SIGINT
or SIGTERM; vecbsp must end by that signal, its temporary directory must be
empty (no vecbsp-out.*, vecbsp-err.*, vecbsp-times.*, vecbsp-cc.*,
vecbsp-probe.*) and its cache must hold only whole entries (an executable
and its C source, nothing temporary). No timing is asserted: the test only
waits for the marker and for vecbsp to end (bounded, for a hang).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1])
failures = []

# A program that runs until stopped at n = 10^6 (10^12 steps).
FOREVER = "param n\ninput v : [n]int\nmain = fold (+) (map (\\x -> fold (+) (map (\\y -> (x * y) % 7) v)) v)\n"

WRAPPER = """#!/bin/sh
# The real {tool}, with a marker at the point MODE names.
case "$MODE" in
  {tool}-then-wait) "$REAL_{TOOL}" "$@" || exit; touch "$MARK"; exec sleep 600 ;;
  {tool}-marked) touch "$MARK"; exec "$REAL_{TOOL}" "$@" ;;
  *) exec "$REAL_{TOOL}" "$@" ;;
esac
"""


def setup(root):
    bindir = os.path.join(root, "bin")
    os.makedirs(bindir)
    os.makedirs(os.path.join(root, "tmp"))
    shutil.copy2(os.path.join(BUILD, "vecbsp"), bindir)
    os.symlink(os.path.join(BUILD, "bspprobe"), os.path.join(bindir, "bspprobe"))
    for tool in ("bspcc", "bsprun"):
        path = os.path.join(bindir, tool)
        with open(path, "w") as f:
            f.write(WRAPPER.format(tool=tool, TOOL=tool.upper()))
        os.chmod(path, 0o755)
    with open(os.path.join(root, "forever.vec"), "w") as f:
        f.write(FOREVER)


def environment(root, mode):
    env = dict(os.environ)
    env.update(TMPDIR=os.path.join(root, "tmp"), VECBSP_CACHE=os.path.join(root, "cache"), MODE=mode,
               MARK=os.path.join(root, "mark"), REAL_BSPCC=os.path.join(BUILD, "bspcc"),
               REAL_BSPRUN=os.path.join(BUILD, "bsprun"), VECBSP_CC_OPT="-O0")
    return env


def left_behind(root):
    """Files an interrupted run must not leave: anything in TMPDIR, and in
    the cache anything but whole entries (X and X.c) and machine files."""
    found = [os.path.join("tmp", f) for f in os.listdir(os.path.join(root, "tmp"))]
    cache = os.path.join(root, "cache")
    names = set(os.listdir(cache)) if os.path.isdir(cache) else set()
    for name in names:
        if name.startswith("machine-") and name.endswith(".json"):
            continue
        whole = name[:-2] if name.endswith(".c") else name
        if "tmp" in name or whole not in names or whole + ".c" not in names:
            found.append(os.path.join("cache", name))
    return sorted(found)


def case(name, mode, args, sig):
    root = tempfile.mkdtemp(prefix="vecbsp-interrupt-test.")
    try:
        setup(root)
        env = environment(root, mode)
        proc = subprocess.Popen([os.path.join(root, "bin", "vecbsp")] + args, cwd=root, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while not os.path.exists(env["MARK"]) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if not os.path.exists(env["MARK"]):
            proc.kill()
            failures.append(f"{name}: the marker never appeared: {proc.communicate()[1].decode()}")
            return
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            print(subprocess.run(["ps", "-eo", "pid,pgid,ppid,stat,wchan:20,args"], capture_output=True, text=True).stdout)
            print(subprocess.run(f"for t in $(pgrep -f {root}); do echo $t; cat /proc/$t/cmdline | tr '\\0' ' '; echo; grep -E 'SigIgn|SigBlk|SigCgt|ShdPnd|SigPnd' /proc/$t/status; done", shell=True, capture_output=True, text=True).stdout)
            proc.kill()
            failures.append(f"{name}: vecbsp did not end after {sig.name}")
            return
        if proc.returncode != -sig:
            failures.append(f"{name}: vecbsp ended with {proc.returncode}, not by {sig.name}: {err.decode()}")
        if left_behind(root):
            failures.append(f"{name}: left behind {left_behind(root)}")
        print(f"{name}: {sig.name} at the marker, nothing left behind")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def whole_run():
    """The baseline: a run that ends leaves a whole cache entry and no temporary file."""
    root = tempfile.mkdtemp(prefix="vecbsp-interrupt-test.")
    try:
        setup(root)
        done = subprocess.run([os.path.join(root, "bin", "vecbsp"), "run", "forever.vec", "-D", "n=3", "--input",
                               "v=[1,2,3]", "-p", "2"],
                              cwd=root, env=environment(root, "plain"), capture_output=True, text=True)
        entries = [f for f in os.listdir(os.path.join(root, "cache")) if not f.endswith(".c")]
        x = sum((a * b) % 7 for a in (1, 2, 3) for b in (1, 2, 3))
        if done.returncode != 0 or done.stdout.strip() != str(x) or len(entries) != 1 or left_behind(root):
            failures.append(f"a whole run: {done.stdout} {done.stderr} entries {entries} left {left_behind(root)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


whole_run()
run = ["run", "forever.vec", "-D", "n=1000000", "--random", "1", "-p", "2"]
case("run, the program running", "bsprun-marked", run, signal.SIGINT)
case("run, the program running", "bsprun-marked", run, signal.SIGTERM)
case("run, compiled but not yet in the cache", "bspcc-then-wait", run, signal.SIGINT)
case("probe, measured", "bsprun-then-wait", ["probe", "--quick", "-p", "1", "-o", "m.json"], signal.SIGINT)
for f in failures:
    print("FAIL:", f)
print("interrupt: ok" if not failures else f"interrupt: {len(failures)} failures")
sys.exit(1 if failures else 0)
