"""A reader that goes away (``dixit-ai ... | head``) is not bad input: the command stops quietly
with 141, as one killed by SIGPIPE would (it printed 'error: [Errno 32] Broken pipe', exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dixit_ai.cli.common import EXIT_BROKEN_PIPE


@pytest.mark.parametrize("argv", [["agents"], ["simulate", "--games", "30", "--seed", "0"]])
def test_a_closed_pipe_stops_quietly(argv):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line
    done = subprocess.run([sys.executable, "-m", "dixit_ai.cli", *argv], stdout=write,
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    os.close(write)
    assert done.returncode == EXIT_BROKEN_PIPE, done.stderr
    assert "Broken pipe" not in done.stderr and "Traceback" not in done.stderr
