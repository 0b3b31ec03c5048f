"""``dixit-ai cache info | clear`` where the cache root is a file, not a folder: a clear error
(exit 2) naming it and the variable that chose it, not a report of an empty cache or of
'cleared 0 B'."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from dixit_ai.cli import cache as cache_cli


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dixit-ai")
    cache_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    status: int = args.func(args)
    return status


@pytest.mark.parametrize("argv", [["cache", "info"], ["cache", "info", "--json"],
                                  ["cache", "clear"], ["cache", "clear", "--only", "decks"]])
def test_a_cache_root_that_is_a_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                argv: list[str]) -> None:
    root = tmp_path / "cache"
    root.write_text("not a folder")
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(root))
    with pytest.raises(ValueError, match=r"cache root .*cache is not a folder.*DIXIT_AI_CACHE_DIR"):
        _run(argv)
    assert root.read_text() == "not a folder"
