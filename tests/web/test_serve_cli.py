"""``dixit-ai serve`` without the [web] extra: a clear message naming the extra to install."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from dixit_ai.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_serve_names_the_web_extra_when_fastapi_is_missing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "fastapi" else real(name, *a))
    assert main(["serve", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "fastapi" in err and "pip install 'dixit-ai[web]'" in err


def test_the_cli_does_not_import_the_web_stack() -> None:
    code = ("import sys, dixit_ai.cli; dixit_ai.cli.build_parser(); "
            "print(sorted({'fastapi', 'uvicorn', 'starlette'} & set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_serve_help_mentions_the_database(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "--db" in out and "--host" in out and "--port" in out


def test_serve_lists_the_hosts_offer_and_refuses_a_bad_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("fastapi", reason="the [web] extra")
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    for flag in ("--deck", "--bot", "--config", "--idle-cleanup", "--reveal-seconds"):
        assert flag in out
    status = main(["serve", "--db", str(tmp_path / "x.sqlite3"), "--bot", "nobody"])
    assert status != 0 and "no agent named 'nobody'" in capsys.readouterr().err
    status = main(["serve", "--db", str(tmp_path / "x.sqlite3"), "--deck", "=dream"])
    assert status != 0 and "NAME=SPEC" in capsys.readouterr().err
