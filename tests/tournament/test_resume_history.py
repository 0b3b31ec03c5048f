"""A resumed or extended run keeps when (and by which versions) it was started in its
``config.json``, and appends what each resume did to its ``history`` (before: an extension
rewrote ``created`` and ``versions`` with its own, and nothing recorded it)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from dixit_ai.tournament import run_tournament
from dixit_ai.tournament import store as tournament_store
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 20, "rating_resamples": 2}


def config_of(folder: Path) -> dict:
    return json.loads((folder / "config.json").read_text())


def test_resumes_and_extensions_are_recorded_beside_the_start(tmp_path, monkeypatch):
    config = random_config()
    first = run_tournament(config, out=tmp_path, stop_after=4, **QUICK)
    started = config_of(first.folder)
    # the run was started on another day by another version of a library
    started["created"] = "2020-01-01T00:00:00+00:00"
    started["versions"] = {**started["versions"], "numpy": "0.0-started"}
    (first.folder / "config.json").write_text(json.dumps(started))

    run_tournament(config, resume=first.folder, stop_after=2, **QUICK)
    resumed = config_of(first.folder)
    assert {k: v for k, v in resumed.items() if k != "history"} == started
    (entry,) = resumed["history"]
    assert entry["event"] == "resumed" and (entry["games"], entry["recorded"]) == (12, 4)
    assert entry["versions"] == tournament_store.package_versions() and entry["at"]

    more = dataclasses.replace(config, games=config.games + 4)
    run_tournament(more, resume=first.folder, **QUICK)
    extended = config_of(first.folder)
    assert extended["created"] == "2020-01-01T00:00:00+00:00"
    assert extended["versions"]["numpy"] == "0.0-started"
    assert extended["schedule"]["games"] == 16
    assert [e["event"] for e in extended["history"]] == ["resumed", "extended"]
    assert (extended["history"][1]["games"], extended["history"][1]["recorded"]) == (16, 6)
    # A resume of the finished run plays nothing, and adds nothing to its history.
    run_tournament(more, resume=first.folder, **QUICK)
    assert config_of(first.folder)["history"] == extended["history"]
