"""Shared test fixtures: import path, CLI runners, temporary folders, EHQ-3000 location."""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import ehq_ref  # noqa: E402  (after the path is set)

KIT = os.path.join(ROOT, "ehq_ref.py")
EXAMPLES = os.path.join(ROOT, "examples")
EHQ3000 = os.environ.get("EHQ3000_PATH") or os.path.join(os.path.dirname(ROOT), "shared", "data",
                                                         "EHQ-3000.json")
EHQ3000_LF_SHA256 = "419dc3c1175f51fdb6f5f52f2ad8bf05aa3e8cc6c5fbc8c94a931bbb0faf86c3"

needs_ehq3000 = unittest.skipUnless(os.path.exists(EHQ3000), f"EHQ-3000 not found at {EHQ3000}")


class Result:
    """What a CLI invocation produced."""

    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def json(self):
        return ehq_ref.loads_strict(self.out)

    def __repr__(self):
        return f"Result(code={self.code}, out={self.out[:200]!r}, err={self.err[:400]!r})"


def run_cli(*args):
    """Run ehq_ref.main in-process, capturing stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = ehq_ref.main([str(a) for a in args])
        except SystemExit as exit_:
            code = exit_.code
    return Result(code, out.getvalue(), err.getvalue())


def run_process(*args, cwd=None, env=None, timeout=120):
    """Run ``python ehq_ref.py ARGS`` in a subprocess (the way users run it)."""
    proc = subprocess.run([sys.executable, KIT, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


class TempDirTestCase(unittest.TestCase):
    """A test case with a fresh temporary folder in ``self.tmp``."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ehq_ref_test_")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write(self, name, text):
        target = self.path(name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(target, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as handle:
            handle.write(text)
        return target
