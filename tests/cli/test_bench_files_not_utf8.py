"""``dixit-ai bench`` given a file that is not UTF-8 text (a ``--config`` YAML, or the
``bench.json`` of an ``--analyse`` run folder) refuses it naming the file: exit 2. The message
was Python's bare "'utf-8' codec can't decode byte 0xff", with no file named."""

from __future__ import annotations

from pathlib import Path

import pytest

from dixit_ai.cli import main


def test_a_config_that_is_not_utf8_is_named(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("models.bench")
    config = tmp_path / "bench.yaml"
    config.write_bytes(b"\xff\xfeitems: 3\n")
    assert main(["bench", "--config", str(config), "--out", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert f"{config}: not UTF-8 text" in err, err
    assert not (tmp_path / "runs").exists()


def test_a_run_header_that_is_not_utf8_is_named(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("models.bench")
    run = tmp_path / "run"
    run.mkdir()
    (run / "bench.json").write_bytes(b"\xff\xfe{}")
    (run / "records.jsonl").write_text("")
    assert main(["bench", "--analyse", str(run), "--out", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'bench.json'}: not UTF-8 text" in err, err
    assert not (tmp_path / "report").exists()
