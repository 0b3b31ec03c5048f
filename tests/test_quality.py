"""Code quality gates that CI runs with the tests: ruff everywhere, mypy --strict on the core and
mypy on the rest."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_is_clean() -> None:
    result = run(sys.executable, "-m", "ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_files_are_opened_with_their_encoding() -> None:
    """Records, reports and runs' files are UTF-8 whatever the locale: every open(),
    read_text() and write_text() in text mode names its encoding (ruff's PLW1514, a preview
    rule, selected alone so that no other preview behaviour applies)."""
    result = run(sys.executable, "-m", "ruff", "check", "--no-cache", "--preview",
                 "--select", "PLW1514", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_the_typed_layers(tmp_path: Path) -> None:
    packages = ["-p", "dixit_ai.rules"]
    if (ROOT / "envs" / "__init__.py").exists():
        packages += ["-p", "envs"]
    result = run(sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "--strict", *packages)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_on_everything_else(tmp_path: Path) -> None:
    """The other layers, the scripts and the examples type-check too (not strictly: their
    numerical code keeps ``Any`` where numpy and torch give no useful type)."""
    result = run(sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "dixit_ai", "models",
                 "envs", "scripts", "examples")
    assert result.returncode == 0, result.stdout + result.stderr


def test_rules_core_imports_nothing_heavy() -> None:
    code = ("import sys, dixit_ai.rules; "
            "heavy = {'torch', 'gymnasium', 'pettingzoo', 'PIL', 'envs', 'models'}; "
            "print(sorted(heavy & set(sys.modules)))")
    result = run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_core_and_the_command_line_import_no_optional_heavyweights() -> None:
    """The core installs without torch, the web stack or Ray: they load only when used."""
    code = ("import sys, dixit_ai, dixit_ai.tournament, dixit_ai.web, dixit_ai.reporting, "
            "dixit_ai.agents.http_agent; from dixit_ai.cli import build_parser; build_parser(); "
            "heavy = {'torch', 'open_clip', 'transformers', 'fastapi', 'uvicorn', 'ray', "
            "'gymnasium', 'pettingzoo', 'envs'}; "
            "print(sorted(heavy & set(sys.modules)))")
    result = run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_python_floor_is_the_one_ruff_and_mypy_check_against() -> None:
    """requires-python, ruff's target and mypy's python_version name one Python: a floor the
    checkers do not read lets code in that the floor cannot run (``tomllib`` on 3.10)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    floor = config["project"]["requires-python"]
    assert floor.startswith(">="), floor
    major, minor = (int(part) for part in floor[2:].split("."))
    assert config["tool"]["ruff"]["target-version"] == f"py{major}{minor}"
    assert config["tool"]["mypy"]["python_version"] == f"{major}.{minor}"
    assert sys.version_info >= (major, minor)
