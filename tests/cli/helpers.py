"""Running the console script ``dixit-ai`` as a user would: a subprocess in a folder of its own."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def console_script() -> str:
    """The installed ``dixit-ai`` script (next to this Python, else on PATH)."""
    beside = Path(sys.executable).with_name("dixit-ai")
    found = str(beside) if beside.exists() else shutil.which("dixit-ai")
    assert found, "the dixit-ai console script is not installed"
    return found


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def dixit(*args: str, cwd: Path, env: dict[str, str] | None = None,
          timeout: float = 240) -> Result:
    """Run ``dixit-ai ARGS`` in ``cwd``; the environment gains ``env``."""
    environment = {**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})}
    done = subprocess.run([console_script(), *args], cwd=cwd, capture_output=True, text=True,
                          env=environment, timeout=timeout)
    return Result(done.returncode, done.stdout, done.stderr)


def files_in(folder: Path) -> set[str]:
    """Every file under ``folder``, as paths relative to it."""
    return {str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()}


def refused(call: Any, message: str, capsys: Any) -> None:
    """``call`` ends with exit 2 (bad input found before the work, where a failed run is 1), with
    ``error: ...`` matching the regular expression ``message`` on stderr."""
    import pytest

    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        call()
    err = capsys.readouterr().err
    assert done.value.code == 2, (done.value.code, err)
    assert err.startswith("error: ") and re.search(message, err), err

