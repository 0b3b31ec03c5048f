"""``dixit-ai bench`` settings under which the run would write no record (or a panel would play
nothing) are bad input: exit 2, a message naming the problem and what to do, no run folder.

The tell task scores agents' stories: embedders (``default``, ``oracle:default``...) tell none.
A tell-only run of embedders alone once made its run folder, then failed (exit 1) on an empty
``records.jsonl``; the guess and decoy tasks play embedders and agents alike.
"""

from __future__ import annotations

import pytest

from tests.cli.helpers import dixit
from tests.cli.test_bench_without_torch import SITECUSTOMIZE

NO_AGENT = "the tell task plays agents' stories and the models given"
ADVICE = "add an agent such as clip-greedy"


@pytest.fixture(params=["with torch", "without torch"])
def env(request, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of the command: as installed, or where torch cannot be imported."""
    if request.param == "with torch":
        return {}
    folder = tmp_path_factory.mktemp("no-torch")
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return {"PYTHONPATH": str(folder), "DIXIT_AI_CACHE_DIR": str(folder / "cache")}


def refused(result, tmp_path) -> None:
    assert result.returncode == 2, result.output
    assert "Traceback" not in result.output and "failed" not in result.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("models", "shown"), [
    ("default", "(default)"),
    ("default,oracle:default", "(default, oracle:default)"),
])
def test_the_tell_task_of_embedders_alone_is_refused(tmp_path, env, models, shown):
    result = dixit("bench", "--models", models, "--tasks", "tell", "--items", "2",
                   "--no-progress", cwd=tmp_path, env=env)
    refused(result, tmp_path)
    assert f"{NO_AGENT} {shown} hold no agent" in result.stderr
    assert ADVICE in result.stderr and "--tasks guess,decoy" in result.stderr


def test_a_config_file_of_the_tell_task_and_embedders_alone_is_refused(tmp_path, env):
    (tmp_path / "bench.yaml").write_text("models: [default]\ntasks: tell\nitems: 2\n")
    result = dixit("bench", "--config", "bench.yaml", "--no-progress", cwd=tmp_path, env=env)
    refused(result, tmp_path)
    assert f"{NO_AGENT} (default) hold no agent" in result.stderr


def test_a_panel_with_no_agent_to_tell_is_refused(tmp_path):
    """The guess task gives records, but the panel would hear no story."""
    result = dixit("bench", "--models", "default", "--tasks", "guess,tell", "--panel", "panel",
                   "--items", "2", "--no-progress", cwd=tmp_path)
    refused(result, tmp_path)
    assert ("a panel ('panel') plays agents' stories in the tell task and the models given "
            "(default) hold no agent") in result.stderr
    assert ADVICE in result.stderr


@pytest.mark.parametrize(("models", "tasks"), [
    ("default", "guess"),
    ("random", "decoy"),
    ("default", "guess,tell"),
])
def test_tasks_that_play_the_models_given_still_run(tmp_path, models, tasks):
    result = dixit("bench", "--models", models, "--tasks", tasks, "--items", "1",
                   "--bootstrap", "20", "--no-progress", "--out", "runs", cwd=tmp_path)
    assert result.returncode == 0, result.output
    (records,) = (tmp_path / "runs").glob("bench__*/records.jsonl")
    assert records.read_text(encoding="utf-8").strip()
