"""Running tournaments: the same records for any worker count, resumes, and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dixit_ai.agents.random_agent import CLUE_WORDS
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from dixit_ai.tournament import (
    GamePlayer,
    ResumeError,
    TournamentConfig,
    load_config,
    make_schedule,
    run_tournament,
)
from tests.tournament.helpers import random_config

ROOT = Path(__file__).resolve().parents[2]
QUICK = {"progress": False, "n_resamples": 100, "rating_resamples": 10}


def files_of(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes()
            for name in ("games.jsonl", "results.json", "results.csv", "report.md")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """An uninterrupted run of :func:`random_config` in this process."""
    run = run_tournament(random_config(), out=tmp_path_factory.mktemp("reference"), **QUICK)
    return run.folder


def test_a_run_writes_records_keyed_by_schedule_index(reference):
    lines = (reference / "games.jsonl").read_text().splitlines()
    config = random_config()
    schedule = make_schedule(config.labels, seats=4, n_games=12, seed=3)
    assert len(lines) == 12
    for line, scheduled in zip(lines, schedule, strict=True):
        record = GameRecord.from_json(line)
        info = record.header["tournament"]
        assert info["game"] == scheduled.index and info["seats"] == list(scheduled.seats)
        assert record.seed == scheduled.seed
        assert [a["name"] for a in record.header["agents"]] == list(scheduled.seats)
        replay_record(record)  # the rules agree with every record
    stored = json.loads((reference / "config.json").read_text())
    assert stored["config"] == config.to_dict() and stored["schedule"]["games"] == 12
    assert reference.name.startswith("tournament__random-b-cautious__3__")


def test_two_workers_give_the_same_files(reference, tmp_path):
    run = run_tournament(random_config(), out=tmp_path, workers=2, **QUICK)
    assert files_of(run.folder) == files_of(reference)


def test_resume_after_an_interruption_and_a_torn_last_line(reference, tmp_path):
    config = random_config()
    first = run_tournament(config, out=tmp_path, stop_after=5, **QUICK)
    assert first.played == 5 and first.results is None
    assert not (first.folder / "results.json").exists()
    games = first.folder / "games.jsonl"
    torn = (reference / "games.jsonl").read_text().splitlines()[5][:300]
    # the crash came in the middle of writing game 5
    with open(games, "a", encoding="utf-8") as handle:
        handle.write(torn)
    second = run_tournament(config, resume=first.folder, stop_after=3, **QUICK)
    assert second.dropped_bytes == 300 and second.already == 5 and second.played == 3
    third = run_tournament(config, resume=first.folder, workers=2, **QUICK)
    assert third.already == 8 and third.played == 4 and third.dropped_bytes == 0
    assert files_of(first.folder) == files_of(reference)
    again = run_tournament(config, resume=first.folder, **QUICK)  # nothing left to play
    assert again.played == 0 and files_of(first.folder) == files_of(reference)


def live_processes_in_group(group: int) -> list[int]:
    """The processes (not zombies) of process group ``group``, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def kill_mid_run(out: Path) -> Path:
    """Start a 100-game tournament in a process of its own, kill the parent (only) once games
    are recorded, check its workers end with it, and return its run folder."""
    command = [sys.executable, "-m", "dixit_ai.cli", "tournament", "--agents",
               "random,b=random", "--players", "4", "--games", "100", "--seed", "3",
               "--out", str(out), "--no-progress", "--rating-resamples", "10",
               "--resamples", "100", "--workers", "2"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        games: list[Path] = []
        while time.monotonic() < deadline and process.poll() is None:
            games = list(out.glob("*/games.jsonl"))
            if games and games[0].read_bytes().count(b"\n") >= 3:
                break
            time.sleep(0.02)
        # the parent (one of the 2 workers), the spawned worker and the resource tracker
        assert len(live_processes_in_group(process.pid)) >= 3
        process.kill()  # the parent only
        process.wait()
        deadline = time.monotonic() + 20
        while live_processes_in_group(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert live_processes_in_group(process.pid) == [], "workers outlived their parent"
    finally:
        if live_processes_in_group(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert games, "the tournament never started"
    return games[0].parent


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_resume_after_a_kill(reference, tmp_path):
    """The parent is killed (as by the OOM killer); its workers end too, and the run resumes.

    Records are written in schedule order: on a loaded machine a slow early game holds back the
    others, and they may all be written at once, before the kill lands (the run then has nothing
    left to resume). Such a run is tried again, at most twice."""
    config = random_config(games=100, agents=("random", "b=random"))
    for attempt in range(3):
        folder = kill_mid_run(tmp_path / f"killed{attempt}")
        if (folder / "games.jsonl").read_bytes().count(b"\n") < 100:
            break
    resumed = run_tournament(config, resume=folder, **QUICK)
    assert resumed.already + resumed.played == 100 and resumed.played > 0
    whole = run_tournament(config, out=tmp_path / "whole", **QUICK)
    assert files_of(folder) == files_of(whole.folder)


def test_more_games_extend_a_finished_tournament_as_one_longer_run(reference, tmp_path):
    short = run_tournament(random_config(games=5), out=tmp_path, **QUICK)
    assert (short.folder / "report.md").exists()
    longer = run_tournament(random_config(), resume=short.folder, **QUICK)
    assert longer.already == 5 and longer.played == 7
    assert files_of(short.folder) == files_of(reference)  # 12 games, as if run at once
    stored = json.loads((short.folder / "config.json").read_text())
    assert stored["config"]["games"] == 12 and stored["schedule"]["games"] == 12
    with pytest.raises(ResumeError, match="games: 12 != 8"):  # fewer: never shortened
        run_tournament(random_config(games=8), resume=short.folder, **QUICK)


def test_reusing_agents_across_games_changes_nothing():
    config = random_config()
    schedule = make_schedule(config.labels, seats=4, n_games=8, seed=3)
    reused = GamePlayer(config)
    assert [reused.play(g) for g in schedule] == [GamePlayer(config).play(g) for g in schedule]


def test_clip_agents_reused_across_games_play_as_fresh_ones():
    """The property behind "any worker count, same records", for the embedding players.

    On vectors (no model to load): the players' logic is the shipped one.
    """
    pytest.importorskip("models.players")
    from tests.players.conftest import vector_resources

    resources = vector_resources(n_cards=84)
    shared = {"deck": resources, "calibration": None, "n_simulations": 8, "pair_clues": 2}
    config = TournamentConfig(
        agents=({"label": "greedy", "agent": "clip-greedy", "kwargs": shared},
                {"label": "expected", "agent": "clip-expected-self", "kwargs": shared}, "random"),
        players=4, games=8, seed=1, max_rounds=5)
    schedule = make_schedule(config.labels, seats=4, n_games=8, seed=1)
    reused = GamePlayer(config)
    played = [reused.play(g) for g in schedule]
    assert played == [GamePlayer(config).play(g) for g in schedule]
    assert any(r.clue not in CLUE_WORDS for r in GameRecord.from_json(played[0]).rounds)


# ---------------------------------------------------------------------- bad input

@pytest.mark.parametrize(("changes", "match"), [
    ({"agents": ("random", "nobody")}, r"no agent named 'nobody'; registered agents: .*random"),
    ({"agents": ("random",)}, r"at least 2 agents"),
    ({"agents": ("random", "random")}, r"'random' is entered twice"),
    ({"players": 9}, r"player"),
    ({"games": 0}, r"games must be an int of at least 1"),
    ({"seed": -1}, r"seed must be"),
    ({"edition": "monopoly"}, r"unknown edition"),
    ({"on_failure": "ignore"}, r"on_failure"),
    ({"deck": "dream:size=20"}, r"card"),
])
def test_bad_configs_are_refused_before_any_game(changes, match, tmp_path):
    with pytest.raises(ValueError, match=match):
        run_tournament(random_config(**changes), out=tmp_path, **QUICK)
    assert not list(tmp_path.iterdir())  # no run folder made


def test_a_value_an_agent_refuses_is_refused_before_anything(tmp_path):
    """Its constructor refuses it: a run folder made first would hold a run that no --resume
    could ever play."""
    bad = {"label": "bad", "agent": "random", "kwargs": {"second_vote_rate": 2.0}}
    config = random_config(agents=("random", bad))
    for workers in (1, 2):
        with pytest.raises(ValueError,
                           match=r"entry 'bad': second_vote_rate must be in \[0, 1\]"):
            run_tournament(config, out=tmp_path / str(workers), workers=workers, **QUICK)
    assert not list(tmp_path.iterdir())  # no run folder made


def test_a_keyword_an_agent_does_not_take_is_refused_before_anything(reference, tmp_path):
    bad = {"label": "bad", "agent": "random", "kwargs": {"no_such_option": 1}}
    config = random_config(agents=("random", bad))
    message = (r"entry 'bad': agent 'random' .*takes no keyword argument 'no_such_option'; "
               r"it takes: second_vote_rate, pass_rate")
    for workers in (1, 2):
        with pytest.raises(ValueError, match=message):
            run_tournament(config, out=tmp_path, workers=workers, **QUICK)
    assert not list(tmp_path.iterdir())  # no run folder made
    lines = (reference / "games.jsonl").read_text().splitlines()
    stored = json.loads((reference / "config.json").read_text())
    stored["config"]["agents"][1] = bad
    folder = copy_run(reference, tmp_path / "resumed", lines[:2])
    (folder / "config.json").write_text(json.dumps(stored))
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    for workers in (1, 2):
        with pytest.raises(ValueError, match=message):
            run_tournament(TournamentConfig.from_dict(stored["config"]), resume=folder,
                           workers=workers, **QUICK)
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before


def test_a_name_that_is_not_text_is_refused(tmp_path):
    data = {"name": 5, "agents": ["random", "b=random"], "players": 3, "games": 1}
    with pytest.raises(ValueError, match=r"t.yaml: 'name' must be text, not 5"):
        TournamentConfig.from_dict(data, source="t.yaml")
    with pytest.raises(ValueError, match=r"'deck' must be text, not 5"):
        TournamentConfig.from_dict({**data, "name": "x", "deck": 5}, source="t.yaml")
    with pytest.raises(ValueError, match=r"name must be text, not 5"):
        run_tournament(random_config(name=5), out=tmp_path, **QUICK)
    assert not list(tmp_path.iterdir())


def test_bad_agent_entries():
    with pytest.raises(ValueError, match="needs 'agent'"):
        TournamentConfig(agents=({"label": "x"}, "random"))
    with pytest.raises(ValueError, match="unknown key"):
        TournamentConfig(agents=({"agent": "random", "seats": 2}, "random"))
    with pytest.raises(ValueError, match="'label'"):
        TournamentConfig(agents=({"agent": "random", "kwargs": {"name": "x"}}, "random"))


def test_resume_refuses_what_is_not_this_tournament(reference, tmp_path):
    config = random_config()
    with pytest.raises(ResumeError, match="no such run folder"):
        run_tournament(config, resume=tmp_path / "missing", **QUICK)
    with pytest.raises(ResumeError, match=r"not a tournament run folder \(no config.json\)"):
        run_tournament(config, resume=tmp_path, **QUICK)
    with pytest.raises(ResumeError, match=r"more games.*games: 12 != 6.*never shortens"):
        run_tournament(random_config(games=6), resume=reference, **QUICK)
    with pytest.raises(ResumeError, match=r"another tournament.*agents"):
        run_tournament(random_config(agents=("random", "c=random")), resume=reference, **QUICK)


def copy_run(reference: Path, target: Path, lines: list[str]) -> Path:
    target.mkdir()
    (target / "config.json").write_bytes((reference / "config.json").read_bytes())
    (target / "games.jsonl").write_text("".join(line + "\n" for line in lines))
    return target


def test_resume_refuses_corrupt_records(reference, tmp_path):
    config = random_config()
    lines = (reference / "games.jsonl").read_text().splitlines()
    broken = copy_run(reference, tmp_path / "broken", [lines[0], lines[1][:-9], lines[2]])
    with pytest.raises(ResumeError, match=r"games.jsonl, line 2: not valid JSON"):
        run_tournament(config, resume=broken, **QUICK)
    twice = copy_run(reference, tmp_path / "twice", [lines[0], lines[1], lines[1]])
    with pytest.raises(ResumeError, match=r"line 3: game 1 is recorded twice"):
        run_tournament(config, resume=twice, **QUICK)
    record = json.loads(lines[1])
    record["header"]["seed"] += 1
    other = copy_run(reference, tmp_path / "other", [lines[0], json.dumps(record)])
    with pytest.raises(ResumeError, match=r"line 2: game 1 does not match the schedule"):
        run_tournament(config, resume=other, **QUICK)
    record = json.loads(lines[1])  # the same game of a tournament of the same schedule
    record["header"]["tournament"]["name"] = "another"
    renamed = copy_run(reference, tmp_path / "renamed", [lines[0], json.dumps(record)])
    with pytest.raises(ResumeError, match=r"line 2: game 1 is a record of tournament "
                                          r"'another', not of "):
        run_tournament(config, resume=renamed, **QUICK)
    stored = json.loads((reference / "config.json").read_text())
    stored["schedule"]["fingerprint"] = "0" * 64
    changed = copy_run(reference, tmp_path / "changed", lines[:2])
    (changed / "config.json").write_text(json.dumps(stored))
    with pytest.raises(ResumeError, match=r"the schedule recorded in it .* is not the one its "
                                          r"config gives; the run was started by this version "
                                          r"of dixit-ai, so its config was edited"):
        run_tournament(config, resume=changed, **QUICK)
    stored["versions"]["dixit-ai"] = "0.0.1"   # started by another version: either may be why
    (changed / "config.json").write_text(json.dumps(stored))
    with pytest.raises(ResumeError, match=r"its config was edited after the run started, or "
                                          r"another version of dixit-ai \(0.0.1; this is "):
        run_tournament(config, resume=changed, **QUICK)


def test_the_shipped_tournament_file():
    config = load_config(ROOT / "configs" / "tournaments" / "clip-four.yaml")
    config.validate()
    assert config.labels == ["clip-greedy", "clip-expected", "clip-obvious", "random"]
    assert (config.players, config.games, config.name) == (5, 500, "clip-four")
    assert os.path.basename(str(config.deck)) == "dream"


def test_the_package_imports_no_model_code():
    code = ("import sys, dixit_ai.tournament, dixit_ai.cli.tournament; "
            "heavy = {'torch', 'models', 'envs', 'ray', 'matplotlib', 'openskill'}; "
            "print(sorted(heavy & set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_agents_that_read_a_deck_get_the_tournaments_deck():
    from dixit_ai.agents import register_agent
    from dixit_ai.tournament.player import GamePlayer

    register_agent("tournament-deck-reader", "tests.test_play:_DeckReader", overwrite=True,
                   deck="dream")
    config = random_config(agents=("random", "tournament-deck-reader", "b=random"),
                           deck="dream:size=60,seed=2")
    player = GamePlayer(config)
    assert player._agent("tournament-deck-reader", 0).deck == "dream:size=60,seed=2"


def test_an_entry_naming_another_deck_than_the_tournaments_is_refused(tmp_path):
    """An entry's own ``deck`` (copied from an agent config, say) that is not the tournament's
    deck made the agent see other cards than the game's under the same ids: an HTTP model was
    sent another deck's images and played blind, silently. Refused before anything, naming
    both; the same deck spelt another way is accepted."""
    from dixit_ai.agents import register_agent

    register_agent("tournament-deck-reader", "tests.test_play:_DeckReader", overwrite=True,
                   deck="dream")
    entry = {"label": "reader", "agent": "tournament-deck-reader",
             "kwargs": {"deck": "dream:size=60,seed=2"}}
    config = random_config(agents=("random", entry, "b=random"))
    with pytest.raises(ValueError, match=r"entry 'reader': its deck 'dream:size=60,seed=2' is "
                                         r"not the tournament's deck 'dream'"):
        run_tournament(config, out=tmp_path, **QUICK)
    assert list(tmp_path.iterdir()) == []
    same = {**entry, "kwargs": {"deck": "dream:size=84,seed=0"}}
    run = run_tournament(random_config(agents=("random", same, "b=random"), games=3),
                         out=tmp_path, **QUICK)
    assert run.played == 3


@pytest.mark.parametrize("second, match", [
    ({"concurrency": 2}, r"entry 'vlm-b': .*concurrency 2 asked, but 4 is already in force"),
    ({"timeout": -1}, r"entry 'vlm-b': .*timeout"),
    ({"api_key_env": "DIXIT_AI_TEST_KEY", "base_url": "http://192.0.2.1:8000/v1"},
     r"entry 'vlm-b': .*http"),
], ids=["endpoint-limit", "timeout", "key-over-http"])
def test_http_entrants_that_cannot_be_made_are_refused_before_anything(second, match,
                                                                        tmp_path):
    """HTTP entrants are cheap to make (no request is sent): settings their constructor refuses
    (two entrants on one endpoint asking different concurrency limits, a bad timeout, a key
    sent over plain http) were found only once the run folder was made, as a failure of the
    run (exit 1, 'continue with --resume'); now before anything, as bad input."""
    settings = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "concurrency": 4,
                "timeout": 5}
    entries = ({"label": "vlm-a", "agent": "http-example", "kwargs": settings},
               {"label": "vlm-b", "agent": "http-example",
                "kwargs": {**settings, "model": "n", **second}})
    config = random_config(agents=("random", *entries), players=3, games=3)
    with pytest.raises(ValueError, match=match):
        run_tournament(config, out=tmp_path, **QUICK)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("workers", [1, 2])
def test_an_entrant_that_calls_sys_exit_is_recorded_as_failing(workers, tmp_path,
                                                               monkeypatch):
    """An entrant whose decision called sys.exit(0) ended the whole tournament at once with exit
    status 0: no game recorded, no report, no message. It is that entrant's failure, recorded
    like any other (forfeited here), and the other entrants play on."""
    from dixit_ai.agents import register_agent
    from dixit_ai.agents.registry import CONFIG_DIRS_VARIABLE

    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "quitting.yaml").write_text(
        "name: quitting-test\nentry_point: tests.tournament.quitting_agent:QuittingAgent\n")
    monkeypatch.setenv(CONFIG_DIRS_VARIABLE, str(folder))  # for the spawned workers
    register_agent("quitting-test", "tests.tournament.quitting_agent:QuittingAgent",
                   overwrite=True)  # here (this process may have read the folders already)
    config = random_config(agents=("random", "quitting-test", "b=random"), players=3, games=3,
                           max_rounds=2)
    run = run_tournament(config, out=tmp_path / "runs", workers=workers, **QUICK)
    assert run.played == 3 and run.results is not None
    quitter = run.results.standing("quitting-test")
    assert quitter.failures > 0 and run.results.standing("random").failures == 0
    records = [GameRecord.from_json(line)
               for line in (run.folder / "games.jsonl").read_text().splitlines()]
    failures = [f for record in records for f in record.failures]
    assert failures and {f.error for f in failures} == {"SystemExit"}
    assert all("sys.exit" in f.reason and f.phase == "vote" for f in failures)


@pytest.mark.parametrize("change, match", [
    (lambda r: r.update(final_scores=[99, *r["final_scores"][1:]]),
     r"final scores \[99, .*\] are not the scores after its last round"),
    (lambda r: r.update(winners=[s for s in range(4) if s not in r["winners"]][:1]),
     r"winners \[\d\] are not the seats with the top final score"),
    (lambda r: r["rounds"][0]["points"].__setitem__(0, r["rounds"][0]["points"][0] + 1),
     r"round 1's scores .* are not the scores before it plus its points"),
], ids=["final-scores", "winners", "points"])
def test_a_record_whose_totals_contradict_its_rounds_is_refused(change, match, reference,
                                                                tmp_path):
    """--analyse read final_scores and winners as written: a record changed by hand (or a
    corruption that kept the JSON valid) with final scores [99, ...] against rounds that add up
    to [33, ...] moved the leaderboard, without a word (only dixit-ai replay saw it). A record's
    totals are now checked against its own rounds, for an analysis and a resume alike."""
    from dixit_ai.jsonl import RecordFileError
    from dixit_ai.tournament.folder import analyse_folder

    lines = (reference / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    change(record)
    folder = copy_run(reference, tmp_path / "changed", [lines[0], json.dumps(record), *lines[2:]])
    with pytest.raises(RecordFileError, match=r"games.jsonl, line 2: game 1: " + match):
        analyse_folder(folder, out=tmp_path / "report")
    assert not (tmp_path / "report").exists()
    with pytest.raises(ResumeError, match=r"line 2: game 1: " + match):
        run_tournament(random_config(), resume=folder, **QUICK)
    alone = tmp_path / "alone.jsonl"
    alone.write_text("\n".join([lines[0], json.dumps(record)]) + "\n")
    with pytest.raises(RecordFileError, match=r"alone.jsonl, line 2: " + match):
        analyse_folder(alone, out=tmp_path / "report")
