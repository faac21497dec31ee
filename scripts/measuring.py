"""measuring.py: what the scripts that measure vecbsp share
(scripts/validate.py, bench/exec/plans.py, bench/exec/speedup.py): a work
directory with a compile cache of its own, removed at exit; the environment
mpirun needs here (as root, more ranks than cores); the machine's
steadiness just now; the spread of repeated times; a validation's
summary of errors and ranking; a progress line on a terminal."""
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


class Workspace:
    """A work directory (removed at exit) and the environment commands run in."""

    def __init__(self, build, prefix):
        self.build = build
        self.dir = tempfile.mkdtemp(prefix=prefix)
        atexit.register(shutil.rmtree, self.dir, True)
        self.env = dict(os.environ, VECBSP_CACHE=os.path.join(self.dir, "cache"), OMPI_ALLOW_RUN_AS_ROOT="1",
                        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")

    def run(self, cmd, **env):
        """cmd's stdout; a failure raises subprocess.CalledProcessError."""
        return subprocess.run(cmd, env=dict(self.env, **env), check=True, capture_output=True, text=True).stdout

    def steadiness(self, backend="threads", p=2, seconds=0.2):
        """A fixed loop timed back to back for seconds on p processes, just
        now (bspprobe --steadiness): its slow_share (the share of timings
        over slow_factor times its fast time) and canary_seconds (that fast
        time); None if it could not run."""
        probe = "bspprobe" if backend == "threads" else "bspprobe-mpi"
        cmd = [os.path.join(self.build, "bsprun"), "--backend=" + backend, "-n", str(p),
               os.path.join(self.build, probe), "--steadiness", str(seconds)]
        try:
            return json.loads(self.run(cmd)).get("steadiness")
        except (subprocess.CalledProcessError, ValueError):
            return None

    def slow_share(self, backend="threads", p=2):
        """The share of the timings of a fixed loop that were slow just now
        (steadiness); None if it could not run."""
        st = self.steadiness(backend, p)
        return st.get("slow_share") if st else None


class Progress:
    """A status line on stderr, redrawn in place, only when stderr is a
    terminal (and $VECBSP_PROGRESS is not "off"), as vecbsp draws its own:
    "validate: WHAT DONE/TOTAL: DETAIL (12 s)"."""

    def __init__(self, name):
        self.name = name
        self.on = sys.stderr.isatty() and os.environ.get("VECBSP_PROGRESS") != "off"
        self.start = time.monotonic()

    def show(self, what, done=None, total=None, detail=""):
        if not self.on:
            return
        count = f" {done}/{total}" if total else ""
        line = f"{self.name}: {what}{count}{': ' + detail if detail else ''} ({time.monotonic() - self.start:.0f} s)"
        sys.stderr.write("\r\033[K" + line[:shutil.get_terminal_size().columns - 1])
        sys.stderr.flush()

    def say(self, text):
        """A line that stays, printed over the status line."""
        if self.on:
            sys.stderr.write("\r\033[K")
        print(text, file=sys.stderr, flush=True)

    def end(self):
        if self.on:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def steady(share):
    """Whether a slow_share is that of a steady machine (5% slow timings at most)."""
    return share is not None and share <= 0.05


def check_steady(check, fastest):
    """Whether a steadiness check (Workspace.steadiness) was steady: it ran,
    no more than 5% of its timings were slow, and its loop's fast time was
    within its slow_factor of `fastest`, the fastest of the checks it is
    compared with (else it was made wholly in a slow spell), as
    steady_check_holds (src/cli/steady.c) decides for sweep --measure."""
    return bool(check) and steady(check["slow_share"]) and check["canary_seconds"] <= check["slow_factor"] * fastest


def spread(ts):
    """How far repeated times lie apart: (max - min) / min."""
    return (max(ts) - min(ts)) / min(ts)


def ranking(rows, model):
    """Pairs of rows whose measured times differ by more than 10%, and how many the model orders right."""
    pairs = right = 0
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            lo, hi = sorted((a["measured"], b["measured"]))
            if hi > 1.1 * lo:
                pairs += 1
                right += (a[model] < b[model]) == (a["measured"] < b["measured"])
    return pairs, right


def summary(rows, model):
    """The median and largest |error| of the rows under model ("exact", "paper"), how many are over 25%, the
    same median and largest over the rows measured steady (None if there are none), and its ranking."""
    errs = [abs(r[model + "_error"]) for r in rows]
    steady_errs = [abs(r[model + "_error"]) for r in rows if not r["unsteady"]]
    pairs, right = ranking(rows, model)
    return {"median": statistics.median(errs), "largest": max(errs), "over25": sum(e > 0.25 for e in errs),
            "steady_median": statistics.median(steady_errs) if steady_errs else None,
            "steady_largest": max(steady_errs, default=None), "pairs": pairs, "right": right}
