"""Ctrl-C while the command line is still being read (building the parser imports every
command's module: a second or more on a loaded machine) stops with 130 and one line, as it
does once the command runs; it died with a KeyboardInterrupt traceback."""

from __future__ import annotations

import argparse

import pytest

from dixit_ai import cli
from dixit_ai.cli.common import EXIT_INTERRUPTED


def test_ctrl_c_while_the_parser_is_built(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted() -> argparse.ArgumentParser:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["simulate", "--games", "1"]) == EXIT_INTERRUPTED
    captured = capsys.readouterr()
    assert captured.err == "dixit-ai: interrupted\n" and captured.out == ""


def test_ctrl_c_while_the_arguments_are_read(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(self: argparse.ArgumentParser, *args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", interrupted)
    assert cli.main(["simulate", "--games", "1"]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "dixit-ai: interrupted\n"
