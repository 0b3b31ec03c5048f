"""``dixit-ai play`` and ``dixit-ai simulate`` check every seat's agent for the packages it needs
before anything else, as ``tournament`` and ``bench`` do: a seat whose agent needs a package that
is not installed is refused (exit 2, the message naming the package and the command that
installs it) before the deck is loaded, an agent made, a card embedded or a person prompted, and
nothing is written.

The agent is a registered entry whose ``requires`` names a distribution that is not installed
(its entry point is the random agent, so without the check the game would go on).
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata

import pytest

from dixit_ai.agents import registry
from dixit_ai.cli import main
from dixit_ai.cli import play as play_command
from dixit_ai.cli import simulate as simulate_command
from dixit_ai.cli.common import EXIT_USAGE

AGENT = "needs-an-absent-package"
ABSENT = "dixit-ai-test-no-such-distribution"
INSTALL = f"pip install {ABSENT}"
MESSAGE = f"error: agent {AGENT!r} needs {ABSENT}, which is not installed: {INSTALL}"


class Started(Exception):
    """Something ran that the check must come before (caught by no command)."""


@pytest.fixture
def needy_agent() -> Iterator[str]:
    """A registered agent whose ``requires`` names a distribution that is not installed."""
    with pytest.raises(metadata.PackageNotFoundError):
        metadata.version(ABSENT)
    registry.list_agents()  # the configuration folders are read first, as in a command
    registry.register_agent(AGENT, "dixit_ai.agents.random_agent:RandomAgent",
                            requires=[ABSENT], requires_install=INSTALL)
    try:
        yield AGENT
    finally:
        registry._REGISTRY.pop(AGENT, None)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record and stop the first step that must not come before the check: loading the deck,
    preparing or making an agent, prompting a person."""
    steps: list[str] = []

    def stop(step: str):
        def called(*args, **kwargs):
            steps.append(step)
            raise Started(step)
        return called

    for module in (play_command, simulate_command):
        monkeypatch.setattr(module, "load_deck", stop("load_deck"))
        monkeypatch.setattr(module, "make_agent_for_deck", stop("make_agent_for_deck"))
    monkeypatch.setattr(simulate_command, "prepare_agents", stop("prepare_agents"))
    monkeypatch.setattr("builtins.input", stop("input"))
    return steps


def test_play_refuses_a_seat_whose_agent_lacks_a_package(needy_agent, started, tmp_path,
                                                         capsys):
    out, images = tmp_path / "game.json", tmp_path / "cards"
    status = main(["play", "--seats", f"human,random,{needy_agent},random", "--seed", "3",
                   "--images", str(images), "--out", str(out)])
    captured = capsys.readouterr()
    assert status == EXIT_USAGE
    assert f"dixit-ai play: {MESSAGE}" in captured.err
    assert started == []
    assert captured.out == ""  # no table was set up
    assert not out.exists() and not images.exists()
    assert list(tmp_path.iterdir()) == []


def test_simulate_refuses_an_agent_that_lacks_a_package(needy_agent, started, tmp_path,
                                                        capsys):
    out = tmp_path / "games.jsonl"
    status = main(["simulate", "--agents", f"random,{needy_agent},random", "--players", "3",
                   "--games", "2", "--out", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert status == EXIT_USAGE
    assert f"dixit-ai simulate: {MESSAGE}" in captured.err
    assert started == []
    assert captured.out == ""
    assert list(tmp_path.iterdir()) == []


def test_simulate_refuses_it_for_every_seat(needy_agent, started, tmp_path, capsys):
    """One name for all seats: the check names the agent once."""
    status = main(["simulate", "--agents", needy_agent, "--players", "4", "--games", "1",
                   "--no-progress"])
    err = capsys.readouterr().err
    assert status == EXIT_USAGE
    assert err.count(f"agent {AGENT!r} needs") == 1
    assert started == []


def test_an_unknown_seat_is_still_named_before_anything_runs(started, tmp_path, capsys):
    status = main(["play", "--seats", "human,random,no-such-agent-here", "--images",
                   str(tmp_path / "cards"), "--out", str(tmp_path / "game.json")])
    err = capsys.readouterr().err
    assert status == EXIT_USAGE
    assert "no agent named 'no-such-agent-here'" in err
    assert started == []
    assert list(tmp_path.iterdir()) == []
