#!/usr/bin/env python3
"""processes.py VECBSP: a plan that sends nothing (every region on process
0) runs on one process whatever -p says, on threads, MPI and hybrid (one
rank of one thread, whatever --nodes says), and prints eval's result; a
plan that sends runs on all of them, and so does any plan whose supersteps
are counted (--profile compares every process's counts with the model's
at p). On one process, a plan runs as the program made for one process:
after a run at -p 1, the run at -p 2 compiles nothing new (the compiled
programs are cached by their C text), while a plan that sends does."""
import json
import os
import subprocess
import sys
import tempfile

vecbsp = sys.argv[1]
program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "mss5.vec")
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
failures = []
want = subprocess.run([vecbsp, "eval", program, "-D", "n=1000", "--random", "4"], env=env, check=True,
                      capture_output=True, text=True).stdout.strip()
# (backend, plan, extra flags, processes expected at -p 2)
cases = [("threads", "best,regions=sequential", [], 1), ("mpi", "best,regions=sequential", [], 1),
         ("hybrid", "best,regions=sequential", ["--nodes", "2"], 1),
         ("threads", "best,regions=parallel,inputs=block", [], 2),
         ("hybrid", "best,regions=parallel,inputs=block", ["--nodes", "2"], 2),
         ("threads", "best,regions=sequential", ["--profile"], 2)]
for backend, plan, extra, processes in cases:
    done = subprocess.run([vecbsp, "run", program, "-D", "n=1000", "--random", "4", "-p", "2", "--backend", backend,
                           "--plan", plan, "--json", *extra], env=env, capture_output=True, text=True)
    what = f"run --backend {backend} --plan {plan} {' '.join(extra)}"
    if done.returncode != 0:
        failures.append(f"{what}: {done.stderr}")
        continue
    out = json.loads(done.stdout)
    if (out["result"], out["p"], out["processes"]) != (want, 2, processes):
        failures.append(f"{what}: result {out['result']} on {out['processes']} processes for p = {out['p']}; "
                        f"eval {want}, expected on {processes}")
# On a machine with levels (hybrid, 2 ranks of 2 threads), the plan for one
# process is flat: a machine's levels are for all its workers.
levels = os.path.join(os.path.dirname(os.path.abspath(__file__)), "levels-2x2.json")
done = subprocess.run([vecbsp, "run", program, "-D", "n=1000", "--random", "4", "-p", "4", "--backend", "hybrid",
                       "--nodes", "2", "--machine", levels, "--plan", "best,regions=sequential", "--json"],
                      env=env, capture_output=True, text=True)
if done.returncode != 0:
    failures.append(f"hybrid on levels-2x2.json, sending nothing: {done.stderr}")
elif (json.loads(done.stdout)["result"], json.loads(done.stdout)["processes"]) != (want, 1):
    failures.append(f"hybrid on levels-2x2.json, sending nothing: {done.stdout}; eval {want}, expected on 1 process")


def compiled_after(cache, *runs):
    """The programs in cache after each run of mss5 (run's arguments after -p)."""
    counts = []
    for args in runs:
        subprocess.run([vecbsp, "run", program, "-D", "n=1000", "--random", "4", *args], check=True,
                       capture_output=True, env=dict(env, VECBSP_CACHE=cache))
        counts.append(len([f for f in os.listdir(cache) if f.endswith(".c")]))
    return counts


for backend in ("threads", "mpi"):
    with tempfile.TemporaryDirectory() as cache:
        one = ["--plan", "best,regions=sequential", "--backend", backend]
        sends = ["--plan", "best,regions=parallel,inputs=block", "--backend", backend]
        counts = compiled_after(cache, ["-p", "1", *one], ["-p", "2", *one], ["-p", "2", *sends])
        if counts != [1, 1, 2]:
            failures.append(f"{backend}: programs compiled after -p 1, -p 2 sending nothing, -p 2 sending: "
                            f"{counts}, expected [1, 1, 2]")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
