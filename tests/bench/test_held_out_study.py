"""The whole-games study (scripts/study_table_reading.py) checks every storyteller against the
panel members at its tables before any game: one that is not held out from them is refused (exit
2), and the members each was held out from are printed and written with the figures."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dixit_ai.agents import RandomAgent


class _Described(RandomAgent):
    """A random player that describes itself as ``extra`` says."""

    def __init__(self, name: str, extra: dict[str, Any]) -> None:
        super().__init__(name=name)
        self.extra = extra

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), **self.extra}


PANEL = {f"m{k}": {"embedder": f"fp-{k}"} for k in range(4)}


def _study(monkeypatch, tmp_path, tellers: dict[str, dict[str, Any]]) -> Any:
    from scripts import study_table_reading as study

    described = {**PANEL, **tellers}
    monkeypatch.setattr(study, "_agents", {})
    monkeypatch.setattr(study, "_agent", lambda name, smoke, key: _Described(
        name, described[name]))
    return study


def _argv(tmp_path: Path, tellers: str) -> list[str]:
    return ["--smoke", "--tables", "panel", "--storytellers", tellers, "--panel",
            ",".join(PANEL), "--out", str(tmp_path / "runs"), "--json",
            str(tmp_path / "figures.json")]


@pytest.mark.parametrize("teller, message", [
    ({"simulation_embedders": ["fp-1"], "simulation_fits": []},
     r"simulates with the model of panel member\(s\) m1"),
    ({"simulation_embedders": [], "simulation_fits": [
        {"kind": "calibration", "file": "f.json", "voters": [
            {"fingerprint": "fp-2", "name": "x"}]}]},
     r"f\.json, fitted on votes of panel member\(s\) m2"),
    ({"simulation_embedders": None}, "does not say which models")])
def test_the_whole_games_study_refuses_a_storyteller_not_held_out(
        teller, message, monkeypatch, tmp_path, capsys):
    study = _study(monkeypatch, tmp_path, {"teller": teller})
    assert study.main(_argv(tmp_path, "teller")) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: storyteller 'teller'") and re.search(message, err)
    assert not (tmp_path / "runs").exists() and not (tmp_path / "figures.json").exists()


def test_the_whole_games_study_says_which_members_were_held_out(monkeypatch, tmp_path, capsys):
    none = {"simulation_embedders": [], "simulation_fits": []}
    study = _study(monkeypatch, tmp_path, {"teller": none, "caption-teller": none})
    assert study.main(_argv(tmp_path, "teller,caption-teller")) == 0
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert figures["held_out"] == {"teller": list(PANEL), "caption-teller": list(PANEL)}
    assert "  teller: held out from m0, m1, m2, m3" in capsys.readouterr().out
