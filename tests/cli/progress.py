#!/usr/bin/env python3
"""progress.py BUILD SOURCE: long work shows a status line on stderr when
stderr is a terminal (a pseudo-terminal here), redrawn in place and erased
at the end, and never when it is not: sweep (its points counted), cost's
analysis, run's stages and the progress of scripts/measuring.py (which
scripts/validate.py draws). $VECBSP_PROGRESS=0 shows it at once, so that
no test waits the second it waits otherwise."""
import os
import pty
import subprocess
import sys

BUILD, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []


def on_terminal(cmd, env):
    """cmd's stderr through a pseudo-terminal (stdout through a pipe)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's other side closed
            break
        if not chunk:
            break
        seen += chunk
    out = proc.stdout.read()
    proc.wait()
    os.close(master)
    return proc.returncode, out.decode(), seen.decode(errors="replace")


def check(name, cmd, wants, env_extra=None):
    env = dict(os.environ, VECBSP_PROGRESS="0", VECBSP_CACHE=os.path.join(BUILD, "tests", "cli", "cache"),
               VECBSP_CC_OPT="-O0", **(env_extra or {}))
    status, out, err = on_terminal(cmd, env)
    if status != 0:
        failures.append(f"{name}: status {status}: {err[-300:]}")
        return
    for want in wants:
        if want not in err:
            failures.append(f"{name}: no {want!r} on the terminal: {err[-300:]!r}")
    if not err.endswith("\r\033[K"):
        failures.append(f"{name}: the status line is not erased at the end: {err[-80:]!r}")
    piped = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if "vecbsp: " in piped.stderr or "\r" in piped.stderr:
        failures.append(f"{name}: a status line on a pipe: {piped.stderr[:200]!r}")
    off = on_terminal(cmd, dict(env, VECBSP_PROGRESS="off"))[2]
    if "\r" in off:
        failures.append(f"{name}: a status line with VECBSP_PROGRESS=off: {off[:200]!r}")


vecbsp = os.path.join(BUILD, "vecbsp")
mss = [os.path.join(SOURCE, "examples", f) for f in ("mss4.vec", "mss5.vec")]
check("sweep", [vecbsp, "sweep", *mss, "--vary", "n=100:1000:100"],
      ["\r\033[Kvecbsp: sweep: predicting 0/20: mss4.vec at n = 100 (", "predicting 19/20: mss5.vec at n = 1000"])
check("cost", [vecbsp, "cost", mss[1], "-D", "n=1000"], ["\r\033[Kvecbsp: cost: analysing ("])
check("run", [vecbsp, "run", mss[1], "-D", "n=1000", "--random", "1", "-p", "2", "--plan", "best,regions=parallel"],
      ["vecbsp: run: planning (", "vecbsp: run: running on 2 processes ("])
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
check("measuring.py", [sys.executable, "-c", "import measuring; p = measuring.Progress('validate'); "
                       "p.show('threads p = 2: predicting', 3, 76, 'mss5 n=400000'); p.end()"],
      ["\r\033[Kvalidate: threads p = 2: predicting 3/76: mss5 n=400000 ("],
      {"PYTHONPATH": os.path.join(SOURCE, "scripts")})
for f in failures:
    print("FAIL:", f)
print("progress: ok" if not failures else f"progress: {len(failures)} failures")
sys.exit(1 if failures else 0)
