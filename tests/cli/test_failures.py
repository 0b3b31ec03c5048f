"""Issue 16, item 5: agent failures are printed (seat, round, reason), counted in the
tournament's table, kept out of its storytelling figures, and make the exit status 1 unless
the user chose ``--on-failure forfeit``.

The failing agent is an HTTP agent whose endpoint (127.0.0.1, port 9) refuses connections.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.helpers import dixit

DEAD_AGENT = """\
name: dead-http
entry_point: dixit_ai.agents.http_agent:HttpAgent
description: an HTTP agent whose endpoint is down
kwargs:
  base_url: http://127.0.0.1:9/v1
  model: none
  deck: dream
  timeout: 2
  max_retries: 0
"""
QUICK = ["--resamples", "50", "--rating-resamples", "0", "--workers", "1", "--no-progress"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    configs = tmp_path / "agent-configs"
    configs.mkdir()
    (configs / "dead.yaml").write_text(DEAD_AGENT)
    return {"DIXIT_AI_AGENT_CONFIGS": str(configs)}


def test_simulate_prints_each_failure_and_fails(tmp_path, env):
    result = dixit("simulate", "--agents", "dead-http,random,random,random", "--games", "2",
                   "--no-progress", cwd=tmp_path, env=env)
    assert result.returncode == 1, result.output
    assert "agent failures: 2" in result.stderr
    assert ("game 1 (seed 7896617691693857887), seat 0 (dead-http), round 1 (record: round 0), "
            "tell: EndpointError: http://127.0.0.1:9/v1 could not be reached") in result.stderr
    assert "Connection refused" in result.stderr and "[abort]" in result.stderr
    assert "   0  dead-http" in result.stdout  # the summary names each seat's agent


def test_simulate_with_forfeit_chosen_exits_0_and_still_prints(tmp_path, env):
    result = dixit("simulate", "--agents", "dead-http,random,random", "--players", "3",
                   "--games", "1", "--max-rounds", "5", "--on-failure", "forfeit",
                   "--no-progress", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "seat 0 (dead-http)" in line]
    assert len(lines) == 5 and all("[forfeit]" in line for line in lines)
    # No --out: no record was written, so the count does not send the reader to the records.
    assert "more (not shown, and no records were written: pass --out FILE to keep every " \
        "failure)" in result.stderr
    assert "every failure is in the records" not in result.stderr
    written = dixit("simulate", "--agents", "dead-http,random,random", "--players", "3",
                    "--games", "1", "--max-rounds", "5", "--on-failure", "forfeit",
                    "--no-progress", "--out", "games.jsonl", cwd=tmp_path, env=env)
    assert written.returncode == 0, written.output
    assert "more (every failure is in the records)" in written.stderr


CRASHING_AGENT = """\
name: crashing
entry_point: tests.bench.helpers:CrashingTeller
description: raises whenever it must tell
"""


def test_a_tournament_with_failures_fails_unless_forfeit_is_chosen(tmp_path, env):
    # (An HTTP agent whose endpoint is down stops a tournament instead: test_endpoint_outage.)
    (Path(env["DIXIT_AI_AGENT_CONFIGS"]) / "crashing.yaml").write_text(CRASHING_AGENT)
    # the agent's code is the tests' own: importable from the checkout, whatever the cwd
    env = {**env, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    args = ["tournament", "--agents", "crashing,random", "--players", "3", "--games", "3",
            "--max-rounds", "4", "--out", "runs", *QUICK]
    result = dixit(*args, cwd=tmp_path, env=env)
    assert result.returncode == 1, result.output
    assert ("seat 0 (crashing), round 1 (record: round 0), tell: RuntimeError: no idea"
            in result.stderr)
    assert "forfeited by default; pass --on-failure forfeit to accept them" in result.stderr
    header = next(line for line in result.stdout.splitlines() if "agent" in line)
    assert "failures" in header
    (folder,) = (tmp_path / "runs").iterdir()
    results = json.loads((folder / "results.json").read_text())
    dead = next(s for s in results["standings"] if s["agent"] == "crashing")
    records = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
    assert dead["failures"] == sum(len(r["failures"]) for r in records) > 0
    # Its storytelling turns were all forfeited: none is counted as played.
    assert dead["forfeited_turns"] > 0
    assert dead["storyteller_success"]["estimate"] is None  # n/a, not a success rate
    chosen = dixit(*args[:-len(QUICK)], "--on-failure", "forfeit", "--out", "again", *QUICK,
                   cwd=tmp_path, env=env)
    assert chosen.returncode == 0, chosen.output
    assert "seat 0 (crashing), round 1 (record: round 0), tell" in chosen.stderr
    # The choice is kept with the run: resuming it (here, with one more game) exits alike.
    (again,) = (tmp_path / "again").iterdir()
    resumed = dixit("tournament", "--resume", str(again), "--games", "4", *QUICK, cwd=tmp_path,
                    env=env)
    assert resumed.returncode == 0, resumed.output
    assert "played 1 game " in resumed.stderr and "agent failures" in resumed.stderr


def test_the_failure_policy_defaults_are_in_the_help(tmp_path):
    for command, default in (("tournament", "forfeit its move that round (the default)"),
                             ("bench", "forfeit (the default"),
                             ("simulate", "abort the game (default)")):
        text = " ".join(dixit(command, "--help", cwd=tmp_path).stdout.split())
        assert default in text, command


def test_bench_prints_invalid_answers_and_fails_unless_forfeit_is_chosen(tmp_path, env):
    pytest.importorskip("models.bench")
    args = ["bench", "--models", "dead-http", "--tasks", "guess", "--items", "2",
            "--bootstrap", "20", "--no-progress"]
    result = dixit(*args, cwd=tmp_path, env=env)
    assert result.returncode == 1, result.output
    assert "invalid answer(s), scored 0" in result.stderr
    assert "dead-http, guess item 0: EndpointError" in result.stderr
    chosen = dixit(*args, "--on-failure", "forfeit", cwd=tmp_path, env=env)
    assert chosen.returncode == 0, chosen.output
    assert "dead-http, guess item 0" in chosen.stderr
    aborted = dixit(*args, "--on-failure", "abort", "--out", "aborted", cwd=tmp_path, env=env)
    assert aborted.returncode == 1
    assert "stopped: dead-http failed a decision (--on-failure abort)" in aborted.stderr
    # the failure is recorded with the run, not only printed, and --analyse says it
    (folder,) = (tmp_path / "aborted").iterdir()
    header = json.loads((folder / "bench.json").read_text())
    assert header["finished"] is False
    assert header["aborted"].startswith("dead-http failed a decision (--on-failure abort): "
                                        "EndpointError")
    again = dixit("bench", "--analyse", str(folder), cwd=tmp_path, env=env)
    assert again.returncode == 2
    assert "the run was aborted: dead-http failed a decision" in again.stderr


def test_a_tournament_whose_every_game_aborted_lists_the_failures_and_offers_no_resume(
        tmp_path, env):
    """Before, it ended "continue with: dixit-ai tournament --resume RUN", and resuming played
    nothing and said the same again."""
    args = ["tournament", "--agents", "dead-http,random", "--players", "3", "--games", "2",
            "--on-failure", "abort", "--out", "runs", *QUICK]
    result = dixit(*args, cwd=tmp_path, env=env)
    assert result.returncode == 1, result.output
    (folder,) = (tmp_path / "runs").iterdir()
    for run in (result, dixit("tournament", "--resume", str(folder), *QUICK, cwd=tmp_path,
                              env=env)):
        assert run.returncode == 1, run.output
        assert "agent failures: 2" in run.stderr and "EndpointError" in run.stderr
        assert ("no game to analyse (2 aborted: 2 by dead-http): every game of the schedule "
                "is played, so resuming it plays nothing") in run.stderr
        assert "--resume" not in run.stderr
