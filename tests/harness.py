"""harness.py: what the Python tests of the command line share: vecbsp (the
first argument) run on arguments, checks that collect failures, files
written to a temporary directory that is removed at exit. A test in a
folder below imports it after `sys.path.insert(0, <tests>)`."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

VECBSP = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="vecbsp-test-")
atexit.register(shutil.rmtree, tmp, True)
failed = []


def run(*args):
    return subprocess.run([VECBSP, *args], capture_output=True, text=True)


def check(ok, what):
    if not ok:
        failed.append(what)
        print("FAIL:", what)


def program(name, text):
    """A file of the temporary directory holding text; its path."""
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def finish():
    sys.exit(1 if failed else 0)
