"""Where the deck cache lives, atomic writes, and carrying on when it cannot be written."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import dixit_ai.decks.cache as cache_module
from dixit_ai.decks import cache_root, deck_cache_dir, load_deck
from dixit_ai.decks.cache import atomic_write_bytes, atomic_write_json, read_json


def test_cache_folder_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "explicit"
    assert deck_cache_dir() == tmp_path / "explicit" / "decks"
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", "")
    assert deck_cache_dir() == tmp_path / "xdg" / "dixit-ai" / "decks"
    monkeypatch.delenv("DIXIT_AI_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert deck_cache_dir() == tmp_path / "home" / ".cache" / "dixit-ai" / "decks"


def test_atomic_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    assert atomic_write_bytes(tmp_path / "a" / "b.bin", b"123")
    assert atomic_write_json(tmp_path / "a" / "c.json", {"x": [1, 2]})
    assert atomic_write_bytes(tmp_path / "a" / "b.bin", b"456")  # replaces
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b.bin", "c.json"]
    assert (tmp_path / "a" / "b.bin").read_bytes() == b"456"
    assert read_json(tmp_path / "a" / "c.json") == {"x": [1, 2]}
    (tmp_path / "a" / "bad.json").write_text("{half")
    assert read_json(tmp_path / "a" / "bad.json") is None
    assert read_json(tmp_path / "missing.json") is None


def test_an_unwritable_cache_warns_once_and_decks_still_work(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(cache_module, "_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deck = load_deck("dream:size=2,seed=77")
        assert deck.image(0).size == (400, 600)
        assert len(deck.fingerprint) == 64
    assert [w.category for w in caught] == [RuntimeWarning]
    assert "cannot write its cache" in str(caught[0].message)


def test_concurrent_processes_share_the_cache_safely(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    code = (
        "from dixit_ai.decks import load_deck; "
        "print(load_deck('dream:size=4,seed=31').fingerprint)"
    )
    env = {**os.environ, "DIXIT_AI_CACHE_DIR": str(tmp_path / "shared")}
    processes = [
        subprocess.Popen([sys.executable, "-c", code], cwd=root, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    outputs = [process.communicate(timeout=120) for process in processes]
    assert all(process.returncode == 0 for process in processes), outputs
    fingerprints = {out.strip() for out, _ in outputs}
    assert len(fingerprints) == 1
    assert not [p for p in (tmp_path / "shared").rglob("*") if p.name.endswith(".tmp")]
    env_fingerprint = load_deck("dream:size=4,seed=31").fingerprint
    assert fingerprints == {env_fingerprint}
