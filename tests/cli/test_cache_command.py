"""``dixit-ai cache info/clear`` cover the reassembled towers, and ``clear`` reports what it really
removed: a file it could not remove is named and the exit status is 1."""

from __future__ import annotations

import json
import os

import pytest

from dixit_ai.cli import main

FP = "default-64db98694c1089516cd43c76899936a4d9a467d1"
TOWER = "all-mpnet-base-v2-eb8d12eec2a0"


def _fill(root):
    """An entry in each part, named as dixit-ai names them, and a stale staging folder."""
    for part, name in (("decks", "dream-seed0-2c0ed424094c8af8/card.png"),
                       ("embeddings", f"{FP}/texts/s.npz"),
                       ("towers", f"{TOWER}/model.safetensors")):
        path = root / part / name
        path.parent.mkdir(parents=True)
        path.write_bytes(b"x" * 1000)
    (root / "towers" / f".{TOWER}.lock").touch()
    stale = root / "towers" / f".{TOWER}.0badc0de.tmp"
    stale.mkdir()
    (stale / "model.safetensors").write_bytes(b"y" * 500)


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path))
    _fill(tmp_path)
    return tmp_path


def test_info_shows_the_towers(root, capsys):
    assert main(["cache", "info", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["towers"]["bytes"] == 1500
    assert report["towers"]["path"] == str(root / "towers")
    assert main(["cache", "info"]) == 0
    assert f"towers:     1.5 KB  ({root / 'towers'})" in capsys.readouterr().out


def test_clear_only_towers_and_everything(root, capsys):
    assert main(["cache", "clear", "--only", "towers"]) == 0
    assert f"cleared towers: 1.5 KB ({root / 'towers'})" in capsys.readouterr().out
    assert not (root / "towers").exists() and (root / "decks").exists()
    _fill_towers = root / "towers" / f"{TOWER}" / "f"
    _fill_towers.parent.mkdir(parents=True)
    _fill_towers.write_bytes(b"z" * 10)
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert "cleared towers: 10 B" in out and "cleared decks: 1000 B" in out
    assert sorted(os.listdir(root)) == []


def test_clear_names_what_it_could_not_remove_and_fails(root, monkeypatch, capsys):
    import dixit_ai.decks.cache as decks_cache

    stuck = root / "embeddings" / FP / "texts" / "s.npz"
    real_unlink = os.unlink

    def unlink(path, *args, **kwargs):
        if os.fspath(path) == str(stuck):
            raise PermissionError(13, "Permission denied", str(path))
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(decks_cache.os, "unlink", unlink)
    assert main(["cache", "clear"]) == 1
    captured = capsys.readouterr()
    assert "cleared embeddings: 0 B" in captured.out
    assert "cleared decks: 1000 B" in captured.out
    assert str(stuck) in captured.err and "Permission denied" in captured.err
    assert stuck.exists()
    assert main(["cache", "clear", "--fingerprint", FP]) == 1
    assert str(stuck) in capsys.readouterr().err


def test_clear_leaves_what_dixit_ai_did_not_write(root, capsys):
    """The cache root is the user's choice: a project folder whose decks/ holds the user's own
    cards must survive emptying the cache (it was removed with the rest)."""
    mine = root / "decks" / "my-cards" / "a.txt"
    mine.parent.mkdir()
    mine.write_text("precious")
    notes = root / "embeddings" / "notes.md"
    notes.write_text("mine")
    assert main(["cache", "clear"]) == 0
    captured = capsys.readouterr()
    assert "cleared decks: 1000 B" in captured.out and "cleared towers: 1.5 KB" in captured.out
    assert mine.read_text() == "precious" and notes.read_text() == "mine"
    assert ("left 1 item(s) that are not dixit-ai's cache entries: "
            f"{root / 'decks' / 'my-cards'}") in captured.err
    assert sorted(os.listdir(root)) == ["decks", "embeddings"]
    assert os.listdir(root / "decks") == ["my-cards"] and os.listdir(root / "embeddings") == [
        "notes.md"]
