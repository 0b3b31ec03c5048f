"""Analysing a run holds no more than one game record at a time: each record is reduced to the
few numbers the figures need as it is read (20,000 small records took 1.1 GB when all were held),
and the figures are those of the records themselves."""

from __future__ import annotations

import gc
import weakref

from dixit_ai.records import GameRecord
from dixit_ai.tournament import analysis, run_tournament
from dixit_ai.tournament.folder import analyse_folder, load_run_records
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 50, "rating_resamples": 5}


def _live_records(monkeypatch):
    """Count the GameRecords alive whenever one is made."""
    alive: list[weakref.ref[GameRecord]] = []
    most = [0]
    made = GameRecord.from_json.__func__  # type: ignore[attr-defined]

    def from_json(cls, text):
        record = made(cls, text)
        alive.append(weakref.ref(record))
        # The young generation only: a record holds no cycles, and a full collection in the
        # suite's process took most of the test's time.
        gc.collect(0)
        most[0] = max(most[0], sum(ref() is not None for ref in alive))
        return record

    monkeypatch.setattr(GameRecord, "from_json", classmethod(from_json))
    return most


def test_a_run_folder_is_analysed_one_record_at_a_time(tmp_path, monkeypatch):
    config = random_config(games=12, max_rounds=3, on_failure="forfeit")
    run = run_tournament(config, out=tmp_path / "runs", workers=1, report=False, **QUICK)
    _, records = load_run_records(run.folder)
    expected = analysis.analyse(records, n_resamples=50, rating_resamples=5, seed=config.seed)
    del records
    most = _live_records(monkeypatch)
    results, _ = analyse_folder(run.folder, out=tmp_path / "r", n_resamples=50,
                                rating_resamples=5)
    assert most[0] <= 2
    assert results.standings == expected.standings
    assert (results.games, results.deals, results.aborted, results.seat_points,
            results.seat_win_rate) == (expected.games, expected.deals, expected.aborted,
                                       expected.seat_points, expected.seat_win_rate)


def test_a_records_file_is_analysed_one_record_at_a_time(tmp_path, monkeypatch):
    config = random_config(games=8, max_rounds=2)
    run = run_tournament(config, out=tmp_path / "runs", workers=1, report=False, **QUICK)
    lines = (run.folder / "games.jsonl").read_text().splitlines()
    bare = tmp_path / "some.jsonl"
    bare.write_text("\n".join(reversed(lines)) + "\n")
    expected = analysis.analyse([GameRecord.from_json(line) for line in reversed(lines)],
                                n_resamples=50, rating_resamples=5, seed=0)
    most = _live_records(monkeypatch)
    results, _ = analyse_folder(bare, out=tmp_path / "r", n_resamples=50, rating_resamples=5)
    assert most[0] <= 2
    assert results.to_dict()["standings"] == expected.to_dict()["standings"]
    assert results.seat_points == expected.seat_points


def test_summaries_give_the_figures_of_the_records(tmp_path):
    config = random_config(games=12, max_rounds=3, on_failure="abort")
    run = run_tournament(config, out=tmp_path / "runs", workers=1, report=False, **QUICK)
    _, records = load_run_records(run.folder)
    whole = analysis.analyse(records, n_resamples=50, rating_resamples=5, seed=1)
    reduced = analysis.analyse([analysis.summarize(r) for r in records], n_resamples=50,
                               rating_resamples=5, seed=1)
    assert reduced == whole


def test_the_command_line_reads_the_run_back_one_record_at_a_time(tmp_path, monkeypatch,
                                                                  capsys):
    """After a run the command printed its failures from every record, loaded all at once."""
    from dixit_ai.agents import register_agent
    from dixit_ai.agents.registry import CONFIG_DIRS_VARIABLE
    from dixit_ai.cli import main
    from dixit_ai.cli.common import failure_lines

    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "quitting.yaml").write_text(
        "name: quitting-test\nentry_point: tests.tournament.quitting_agent:QuittingAgent\n")
    monkeypatch.setenv(CONFIG_DIRS_VARIABLE, str(folder))
    register_agent("quitting-test", "tests.tournament.quitting_agent:QuittingAgent",
                   overwrite=True)
    most = _live_records(monkeypatch)
    out = tmp_path / "runs"
    assert main(["tournament", "--agents", "random,quitting-test,b=random", "--players", "3",
                 "--games", "9", "--max-rounds", "2", "--workers", "1", "--no-progress",
                 "--resamples", "10", "--rating-resamples", "0", "--out", str(out)]) == 1
    assert most[0] <= 2
    err = capsys.readouterr().err
    (run,) = out.iterdir()
    records = [GameRecord.from_json(line)
               for line in (run / "games.jsonl").read_text().splitlines()]
    expected = failure_lines(records)
    assert expected and expected[0].startswith("agent failures: ")
    assert "\n".join(expected) in err
