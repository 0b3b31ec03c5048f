"""The benchmark scripts refuse bad input before they measure anything: exit 2, the flag and
its limit named, no traceback, nothing written; never an empty or shortened table with exit 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *args],
                          capture_output=True, text=True, check=False, timeout=300)


SCALAR_ONLY = ("--no-batched", "--no-variants", "--editions", "refresh-2021")


@pytest.mark.parametrize(("args", "named"), [
    (("--games", "0"), "--games must be at least 1, not 0"),
    (("--repeats", "0"), "--repeats must be at least 1, not 0"),
    (("--players", "9"), "--players 9: no chosen edition is for 9 players (refresh-2021 3-8)"),
])
def test_bench_rules_refuses_bad_counts(args: tuple[str, ...], named: str) -> None:
    result = script("bench_rules.py", *SCALAR_ONLY, "--games", "1", "--repeats", "1", *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr
    assert "refresh-2021" not in result.stdout  # nothing measured


def test_bench_rules_refuses_an_unwritable_json_before_measuring(tmp_path: Path) -> None:
    out = tmp_path / "missing" / "bench.json"
    result = script("bench_rules.py", *SCALAR_ONLY, "--players", "5", "--games", "1",
                    "--repeats", "1", "--json", str(out))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"--json {out}: the folder {out.parent} does not exist" in result.stderr
    assert "refresh-2021" not in result.stdout and not out.parent.exists()


@pytest.mark.parametrize(("flag", "value", "least"), [
    ("--cards", "0", 1), ("--width", "0", 1), ("--repeats", "0", 1), ("--repeats", "-4", 1),
    ("--seed", "-1", 0),
])
def test_bench_decks_refuses_bad_counts(flag: str, value: str, least: int) -> None:
    result = script("bench_decks.py", "--cards", "2", "--repeats", "1", flag, value)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{flag} must be at least {least}, not {value}" in result.stderr
    assert "Traceback" not in result.stderr and "rendering speed" not in result.stdout


@pytest.mark.parametrize(("args", "named"), [
    (("--games", "0"), "--games must be at least 1, not 0"),
    (("--repeats", "0"), "--repeats must be at least 1, not 0"),
    (("--cells", "refresh-2021:3", "nosuch"), "--cells 'nosuch': write EDITION:PLAYERS"),
    (("--cells", "refresh-2021:3", "nosuch:4"), "--cells nosuch:4: unknown edition 'nosuch'"),
    (("--cells", "refresh-2021:3", "original-2008:9"),
     "--cells original-2008:9: original-2008 is for 3-6 players, not 9"),
])
def test_bench_envs_refuses_bad_settings(args: tuple[str, ...], named: str) -> None:
    result = script("bench_envs.py", "--games", "1", "--repeats", "1", *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr
    assert "refresh-2021" not in result.stdout  # no row measured before the refusal


def test_bench_envs_refuses_an_unwritable_json_before_measuring(tmp_path: Path) -> None:
    out = tmp_path / "missing" / "envs.json"
    result = script("bench_envs.py", "--games", "1", "--repeats", "1", "--cells",
                    "refresh-2021:3", "--json", str(out))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"--json {out}: the folder {out.parent} does not exist" in result.stderr
    assert "refresh-2021" not in result.stdout and not out.parent.exists()


@pytest.mark.parametrize(("args", "named"), [
    (("--decisions", "0"), "--decisions must be at least 1, not 0"),
    (("--games", "0"), "--games must be at least 1, not 0"),
    (("--simulations", "0"), "--simulations must be at least 1, not 0"),
    (("--agent", "random"), "--agent random is not a CLIP player: it has no embeddings to time"),
    (("--agent", "nosuch"), "no agent named 'nosuch'"),
    (("--table", "odyssey-2024:13"), "--table: odyssey-2024 seats 3 to 12 players, not 13"),
    (("--table", "refresh-2021:5,odyssey-2024:4"), "--table takes one EDITION:PLAYERS"),
    (("--table", "nosuch:5"), "--table: unknown edition 'nosuch'"),
])
def test_bench_players_refuses_bad_counts_before_timing(args: tuple[str, ...],
                                                        named: str) -> None:
    """A count of 0 ended in a traceback after the model had loaded (a StatisticsError, or an
    unbound story); an agent that is no CLIP player or not registered, in a traceback."""
    result = script("bench_players.py", *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr


def test_bench_startup_refuses_no_repeat() -> None:
    """``--repeat 0`` ended in a traceback (min() of an empty sequence) after the warm-up run."""
    result = script("bench_startup.py", "--repeat", "0")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--repeat must be at least 1, not 0" in result.stderr
    assert "Traceback" not in result.stderr and "warm" not in result.stdout


@pytest.mark.parametrize("flag", ["--learner-steps", "--clip-steps"])
def test_bench_envs_learner_refuses_no_steps(flag: str) -> None:
    """``--learner --learner-steps 0`` measured every row, then died dividing by zero (exit 1);
    ``--clip-steps 0`` reported a rate of 0 steps/s for the clip row."""
    result = script("bench_envs.py", "--learner", flag, "0")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{flag} must be at least 1, not 0" in result.stderr
    assert "Traceback" not in result.stderr and "steps/s" not in result.stdout


def test_bench_startup_refuses_an_unknown_agent() -> None:
    """``--agent bogus`` printed the child process's registry traceback (exit 1) after the
    header; it is refused before any process is started."""
    result = script("bench_startup.py", "--agent", "bogus")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--agent bogus: no agent named 'bogus'" in result.stderr
    assert "Traceback" not in result.stderr and "warm" not in result.stdout


@pytest.mark.parametrize(("flag", "value"), [("--repeat", "0"), ("--threads", "0"),
                                             ("--threads", "-2")])
def test_bench_embed_refuses_bad_counts(tmp_path: Path, flag: str, value: str) -> None:
    """``--repeat 0`` gave ratios of NaN (no timing at all) and ``--threads 0`` torch's error
    after the model was loaded; both are refused before anything is made or measured."""
    result = script("bench_embed.py", "--smoke", "--runs-dir", str(tmp_path), flag, value)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{flag} must be at least 1, not {value}" in result.stderr
    assert "Traceback" not in result.stderr and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "named"), [
    (("--batched-games", "0"), "--batched-games must be at least 1, not 0"),
    (("--seconds", "0"), "--seconds must be above 0, not 0"),
    (("--seconds", "-1"), "--seconds must be above 0, not -1"),
    (("--no-batched",), "--batched-only and --no-batched together measure nothing"),
])
def test_bench_rules_refuses_bad_batched_settings(args: tuple[str, ...], named: str) -> None:
    result = script("bench_rules.py", "--batched-only", *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr
    assert "batched engine" not in result.stdout  # nothing measured


def test_bench_rules_refuses_no_edition() -> None:
    result = script("bench_rules.py", "--no-batched", "--editions", "--games", "1")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--editions names no edition" in result.stderr
