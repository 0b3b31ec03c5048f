"""An entrant whose reset() raises, or whose description a record cannot hold, stops the
tournament before that game is played, with a message naming the seat, the entrant and the method
(and the field): it ended the run with a raw traceback (after playing the game, for the
description), whatever the number of workers."""

from __future__ import annotations

import pytest

from dixit_ai.cli import main
from dixit_ai.tournament import run_tournament
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 100, "rating_resamples": 10}

ENTRANTS = {
    "resetting-test": ("ResettingBadly",
                       r"seat \d: agent 'resetting-test' \(ResettingBadly\): reset\(\) raised "
                       "RuntimeError: reset broke"),
    "describing-test": ("DescribingNumpy",
                        r"seat \d: agent 'describing-test' \(DescribingNumpy\): "
                        r"describe\(\)\['temp'\] is a numpy float32"),
}


@pytest.fixture
def entrants(tmp_path, monkeypatch):
    """The broken entrants, registered here and (through a folder) in spawned workers."""
    from dixit_ai.agents import register_agent
    from dixit_ai.agents.registry import CONFIG_DIRS_VARIABLE

    folder = tmp_path / "agents"
    folder.mkdir()
    for name, (kind, _) in ENTRANTS.items():
        point = f"tests.tournament.quitting_agent:{kind}"
        (folder / f"{name}.yaml").write_text(f"name: {name}\nentry_point: {point}\n")
        register_agent(name, point, overwrite=True)
    monkeypatch.setenv(CONFIG_DIRS_VARIABLE, str(folder))


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("name", sorted(ENTRANTS))
def test_a_broken_entrant_stops_the_run_naming_seat_agent_and_method(name, workers, entrants,
                                                                     tmp_path):
    config = random_config(agents=("random", name, "b=random"), players=3, games=3,
                           max_rounds=2)
    with pytest.raises(ValueError, match=ENTRANTS[name][1]):
        run_tournament(config, out=tmp_path / "runs", workers=workers, **QUICK)
    (folder,) = (tmp_path / "runs").iterdir()
    games = folder / "games.jsonl"
    assert not games.exists() or games.read_text() == ""


def test_the_command_line_says_so_without_a_traceback(entrants, tmp_path, capsys):
    status = main(["tournament", "--agents", "random,resetting-test,b=random", "--players", "3",
                   "--games", "2", "--workers", "1", "--no-progress", "--out",
                   str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == 1
    assert "reset() raised RuntimeError: reset broke" in err and "--resume" in err
    assert "Traceback" not in err
