"""The scripts refuse bad input found before their work with exit 2 and ``error: ...`` on
stderr (``refuse_input``), as every ``dixit-ai`` command does: a ``SystemExit("error: ...")``
exited 1, the status of a run that failed part-way, so a caller could not tell a typo from a
failed run.

Each case stops at the script's argument stage: nothing is loaded, played or written.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path
from typing import Any

import pytest

from models.players import cli
from tests.cli.helpers import refused

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.mark.parametrize(("name", "argv", "message"), [
    ("study_guesser_reading.py", ["--tellers", "a,b"],
     r"--tellers needs four agents \(five seats\), not 2: \['a', 'b'\]"),
    ("study_guesser_reading.py", ["--guessers", "clip-greedy,clip-greedy"],
     "--guessers must name distinct agents"),
    ("study_who_reads_whom.py", ["--tellers", ","], "--tellers: name at least one"),
    ("study_who_reads_whom.py", ["--guessers", "a,a"], r"--guessers names one twice: \['a', 'a'\]"),
    ("bench_storyteller_panel.py", ["--tell-cards", "some"],
     "--tell-cards must be one of .*, not 'some'"),
    ("study_decks.py", ["--deck-seeds", "x"], "--deck-seeds must be whole numbers, not 'x'"),
    ("fit_unseen_minds.py", ["--outside", "default-zeroshot"], "--out FILE is required"),
])
def test_a_script_refuses_bad_input_with_exit_2(name: str, argv: list[str], message: str,
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    main = runpy.run_path(str(SCRIPTS / name), run_name="refusal_test")["main"]
    refused(lambda: main([*argv, "--smoke"]), message, capsys)
    assert not list(tmp_path.iterdir())


def test_an_out_that_is_a_file_is_bad_input(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """study_who_reads_whom's ``--out`` that cannot hold a run folder: exit 2 (it was 1)."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    main = runpy.run_path(str(SCRIPTS / "study_who_reads_whom.py"), run_name="t")["main"]
    refused(lambda: main(["--smoke", "--tellers", "caption-teller", "--guessers", "random",
                           "--out", str(blocker)]), f"--out .*{re.escape(str(blocker))}",
             capsys)
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


@pytest.mark.parametrize(("call", "message"), [
    (lambda: cli.refuse_bad_population_options("every", 1.0),
     "--aim must be one of mean, each, rms, not 'every'"),
    (lambda: cli.refuse_bad_population_options("mean", 0.0),
     "--temperature-scale must be a positive finite number"),
    (lambda: cli.refuse_bad_population_options("mean", 1.0, float("nan")),
     "--tolerance must be at least 0, not nan"),
    (lambda: cli.registry_storytellers(["caption-teller", "caption-teller"]),
     "--also names a storyteller twice"),
    (lambda: cli.registry_storytellers(["no-such-teller"]), "--also: .*no-such-teller"),
])
def test_the_shared_checks_refuse_with_exit_2(call: Any, message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    refused(call, message, capsys)


def test_export_script_refuses_a_head_open_clip_cannot_hold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A head open_clip cannot represent, found before the folder is made, is bad input (exit
    2, as ``dixit-ai train export-openclip`` says it), not a failed run (1)."""
    import models.openclip_export as export

    def refuse_head(out: Any, head_path: Any, **kwargs: Any) -> Any:
        raise export.ExportError(f"open_clip cannot represent the head {head_path} faithfully")

    monkeypatch.setattr(export, "export_default_openclip", refuse_head)
    main = runpy.run_path(str(SCRIPTS / "export_default_openclip.py"), run_name="t")["main"]
    refused(lambda: main(["--out", str(tmp_path / "x"), "--head", "h.npz"]),
             "open_clip cannot represent the head h.npz", capsys)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("error", "after_announce", "status"), [
    (FileNotFoundError("no head at h.npz"), False, 2),   # was a traceback
    (ImportError("No module named 'open_clip'"), False, 2),   # was a traceback
    (ValueError("a weight that does not fit"), True, 1),   # part-way: the run failed
])
def test_export_script_tells_bad_input_from_a_failed_export(
        error: Exception, after_announce: bool, status: int, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import models.openclip_export as export

    def fail(out: Any, head_path: Any, *, announce: Any = None, **kwargs: Any) -> Any:
        if after_announce:
            announce(Path(out))
        raise error

    monkeypatch.setattr(export, "export_default_openclip", fail)
    main = runpy.run_path(str(SCRIPTS / "export_default_openclip.py"), run_name="t")["main"]
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(["--out", str(tmp_path / "x"), "--head", "h.npz"])
    if status == 2:
        assert done.value.code == 2
        assert f"error: {error}" in capsys.readouterr().err
    else:  # SystemExit("error: ...") prints the message and exits 1
        assert done.value.code == f"error: {error}"


@pytest.mark.parametrize(("argv", "message"), [
    (["--analyse", "{tmp}", "--items", "5"], "takes only --json and --bootstrap, not --items"),
    (["--analyse", "{tmp}"], "--analyse .*: no bench.json there"),
    (["--out", "{tmp}/file"], "--out .*file"),
])
def test_bench_storyteller_panel_refuses_a_bad_run_or_folder_with_exit_2(
        argv: list[str], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Its ``--analyse`` and ``--out`` refusals (models.bench) exited 1."""
    (tmp_path / "file").write_text("")
    main = runpy.run_path(str(SCRIPTS / "bench_storyteller_panel.py"), run_name="t")["main"]
    refused(lambda: main([a.format(tmp=tmp_path) for a in argv]), message, capsys)
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


@pytest.mark.parametrize(("name", "argv", "message"), [
    ("study_decks.py", ["--deck-seeds", "7002", "--items", "0"],
     "--items must be at least 1, not 0"),
    ("study_decks.py", ["--deck-seeds", "7002", "--deals", "0"],
     "--deals must be at least 1, not 0"),
    ("study_decks.py", ["--deck-seeds", "7002", "--items", "100001"],
     "--items must be at most 100,000, not 100,001"),
    ("fit_unseen_minds.py", ["--outside", "default-zeroshot", "--out", "{tmp}/m.json",
                             "--items", "0"], "--items must be at least 1, not 0"),
    ("fit_unseen_minds.py", ["--outside", "default-zeroshot", "--out", "{tmp}/m.json",
                             "--deals", "0"], "--deals must be at least 1, not 0"),
    ("bench_storyteller_panel.py", ["--items", "0", "--out", "{tmp}/runs"],
     "--items must be at least 1, not 0"),
    ("bench_storyteller_panel.py", ["--items", "100001", "--out", "{tmp}/runs"],
     "--items must be at most 100,000, not 100,001"),
    ("study_who_reads_whom.py", ["--items", "100001", "--out", "{tmp}/runs"],
     "--items must be at most 100,000, not 100,001"),
    ("study_guesser_reading.py", ["--games", "10000001", "--out", "{tmp}/runs"],
     "--games must be at most 10,000,000, not 10,000,001"),
])
def test_a_count_out_of_range_is_refused_before_the_run(
        name: str, argv: list[str], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each of these played or fitted first (a population fit, a run folder), then died with a
    traceback (``items must be an integer of at least 1``), or ran out of memory."""
    main = runpy.run_path(str(SCRIPTS / name), run_name="t")["main"]
    refused(lambda: main(["--smoke", *[a.format(tmp=tmp_path) for a in argv],
                           "--runs-dir", str(tmp_path / "runs")]
                          if name in ("study_decks.py", "fit_unseen_minds.py")
                          else ["--smoke", *[a.format(tmp=tmp_path) for a in argv]]),
             message, capsys)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("name", "argv", "message"), [
    ("study_table_reading.py", ["--games", "10000001"],
     "--games must be at most 10,000,000, not 10,000,001"),
    ("study_table_reading.py", ["--bootstrap", "100001"],
     "--bootstrap must be at most 100,000, not 100,001"),
    ("study_table_reading.py", ["--panel", "a,b"], r"--panel needs four members, not 2"),
    ("study_candidate_clues.py", ["--items", "0"], "--items must be at least 1, not 0"),
    ("study_candidate_clues.py", ["--items", "100001"],
     "--items must be at most 100,000, not 100,001"),
    ("study_candidate_clues.py", ["--simulations", "0"], "--simulations must be at least 1"),
    ("study_candidate_clues.py", ["--bootstrap", "0"], "--bootstrap must be at least 1"),
])
def test_the_studies_refuse_counts_out_of_range(name: str, argv: list[str], message: str,
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """study_table_reading ran out of memory drawing 10**11 games' seeds (a traceback) and took
    a panel of two until a traceback; study_candidate_clues --items 0 died in numpy."""
    main = runpy.run_path(str(SCRIPTS / name), run_name="t")["main"]
    out = ["--out", str(tmp_path / "runs")] if name == "study_table_reading.py" else []
    refused(lambda: main(["--smoke", *argv, *out]), message, capsys)
    assert not list(tmp_path.iterdir())
