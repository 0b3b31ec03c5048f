"""What decides a tournament: the set of agents (not the order they are listed in) and the deck
(not how its spec is spelt); runs of the first schedule version go on with their own schedule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.records import GameRecord
from dixit_ai.tournament import GamePlayer, ResumeError, analyse_folder, run_tournament
from dixit_ai.tournament.schedule import make_schedule, schedule_fingerprint
from dixit_ai.tournament.store import write_config
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 100, "rating_resamples": 10}


def standings(folder: Path) -> list[dict[str, object]]:
    return json.loads((folder / "results.json").read_text())["standings"]


def stored(folder: Path) -> dict[str, object]:
    return json.loads((folder / "config.json").read_text())


# ---------------------------------------------------------------------- the agents' order

def test_two_orders_give_identical_games_and_ratings(tmp_path):
    listed = random_config(name="t")
    reordered = random_config(name="t", agents=tuple(reversed(listed.agents)))
    assert listed.labels != reordered.labels
    first = run_tournament(listed, out=tmp_path / "a", **QUICK)
    second = run_tournament(reordered, out=tmp_path / "b", **QUICK)
    assert (first.folder / "games.jsonl").read_bytes() == (
        second.folder / "games.jsonl").read_bytes()
    assert standings(first.folder) == standings(second.folder)
    assert first.results is not None and second.results is not None
    assert [(s.agent, s.rating, s.sigma) for s in first.results.standings] == [
        (s.agent, s.rating, s.sigma) for s in second.results.standings]
    # config.json keeps the order the user gave (and so does a default run name)
    assert [a["label"] for a in stored(second.folder)["config"]["agents"]] == reordered.labels


def test_resume_with_the_agents_listed_in_another_order(tmp_path):
    config = random_config()
    whole = run_tournament(config, out=tmp_path / "whole", **QUICK)
    part = run_tournament(config, out=tmp_path / "part", stop_after=5, **QUICK)
    reordered = random_config(name=config.name, agents=tuple(reversed(config.agents)))
    rest = run_tournament(reordered, resume=part.folder, **QUICK)
    assert rest.already == 5 and rest.played == 7
    assert (part.folder / "games.jsonl").read_bytes() == (
        whole.folder / "games.jsonl").read_bytes()
    assert stored(part.folder)["config"] == config.to_dict()  # the run's own, unchanged


# ---------------------------------------------------------------------- runs of version 1

def start_version_1_run(folder: Path, n_played: int) -> list[str]:
    """A run folder as dixit-ai wrote it before schedule version 2 (tables drawn in the order
    the agents were listed), with its first ``n_played`` games; all its games' records."""
    config = random_config()
    schedule = make_schedule(config.labels, seats=4, n_games=config.games, seed=3, version=1)
    assert schedule != make_schedule(config.labels, seats=4, n_games=config.games, seed=3)
    folder.mkdir()
    write_config(folder, config, schedule, version=1)
    player = GamePlayer(config)
    lines = [player.play(game) for game in schedule]
    (folder / "games.jsonl").write_text("".join(line + "\n" for line in lines[:n_played]))
    return lines


def test_a_version_1_run_is_resumed_extended_and_analysed_with_its_own_schedule(tmp_path):
    folder = tmp_path / "old"
    old_lines = start_version_1_run(folder, 5)
    data = stored(folder)
    assert data["schedule"]["version"] == 1
    # the fingerprint is the one version 1 wrote: json [1, games], as before version 2
    run = run_tournament(random_config(), resume=folder, **QUICK)
    assert run.already == 5 and run.played == 7
    assert (folder / "games.jsonl").read_text().splitlines() == old_lines
    longer = random_config(games=16)
    extended = run_tournament(longer, resume=folder, **QUICK)
    assert extended.played == 4
    schedule = make_schedule(longer.labels, seats=4, n_games=16, seed=3, version=1)
    data = stored(folder)
    assert data["schedule"] == {"version": 1, "games": 16,
                                "fingerprint": schedule_fingerprint(schedule, 1)}
    for line, game in zip((folder / "games.jsonl").read_text().splitlines(), schedule,
                          strict=True):
        assert GameRecord.from_json(line).header["tournament"]["seats"] == list(game.seats)
    results, _ = analyse_folder(folder, out=tmp_path / "report", n_resamples=50,
                                rating_resamples=0)
    assert results.games == 16


def test_a_run_whose_schedule_version_is_wrong_or_unknown_is_refused(tmp_path):
    folder = tmp_path / "old"
    start_version_1_run(folder, 3)
    data = stored(folder)
    data["schedule"]["version"] = 2  # a version 1 schedule claimed as version 2: no mixing
    (folder / "config.json").write_text(json.dumps(data))
    before = (folder / "games.jsonl").read_bytes()
    with pytest.raises(ResumeError, match=r"the schedule recorded in it \(version 2\) is not "
                                          r"the one its config gives"):
        run_tournament(random_config(), resume=folder, **QUICK)
    data["schedule"]["version"] = 99
    (folder / "config.json").write_text(json.dumps(data))
    with pytest.raises(ResumeError, match=r"schedule version 99 is not one this version of "
                                          r"dixit-ai computes \(1, 2, 3, 4\)"):
        run_tournament(random_config(), resume=folder, **QUICK)
    assert (folder / "games.jsonl").read_bytes() == before


# ---------------------------------------------------------------------- the deck's spelling

@pytest.mark.parametrize(("started", "resumed"), [
    ("dream", "dream:size=84,seed=0"),
    ("dream:size=84,seed=0", "dream"),
    ("dream:seed=0", "dream: size = 84 , seed = 0"),
])
def test_resume_accepts_the_same_deck_spelt_another_way(started, resumed, tmp_path):
    part = run_tournament(random_config(deck=started, games=6), out=tmp_path, stop_after=2,
                          **QUICK)
    rest = run_tournament(random_config(deck=resumed, games=6), resume=part.folder, **QUICK)
    assert rest.already == 2 and rest.played == 4
    assert stored(part.folder)["config"]["deck"] == started  # the run's own spelling
    decks = {json.dumps(GameRecord.from_json(line).header["deck"], sort_keys=True)
             for line in (part.folder / "games.jsonl").read_text().splitlines()}
    assert len(decks) == 1 and '"spec": "dream:size=84,seed=0"' in decks.pop()


def test_resume_refuses_another_deck_naming_both(tmp_path):
    part = run_tournament(random_config(games=6), out=tmp_path, stop_after=2, **QUICK)
    before = (part.folder / "games.jsonl").read_bytes()
    with pytest.raises(ResumeError, match=r"deck: 'dream' \(dream:size=84,seed=0\) != "
                                          r"'dream:seed=1' \(dream:size=84,seed=1\)"):
        run_tournament(random_config(games=6, deck="dream:seed=1"), resume=part.folder,
                       **QUICK)
    assert (part.folder / "games.jsonl").read_bytes() == before


def test_the_command_resumes_with_an_equivalent_deck_and_refuses_another(tmp_path, capsys):
    args = ["tournament", "--agents", "random,b=random", "--players", "3", "--games", "3",
            "--seed", "1", "--no-progress", "--resamples", "50", "--rating-resamples", "0"]
    assert main([*args, "--deck", "dream:size=84,seed=0", "--out", str(tmp_path)]) == 0
    (folder,) = tmp_path.glob("tournament__*")
    capsys.readouterr()
    assert main(["tournament", "--resume", str(folder), "--deck", "dream", "--no-progress"]) == 0
    assert "played 0 games" in capsys.readouterr().err
    assert main(["tournament", "--resume", str(folder), "--deck", "dream:size=90",
                 "--no-progress"]) == 2
    assert ("deck: 'dream:size=84,seed=0' (dream:size=84,seed=0) != 'dream:size=90' "
            "(dream:size=90,seed=0)") in capsys.readouterr().err
