"""``dixit-ai deck info | sheet | export``, through a parser built from ``register``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from PIL import Image

from dixit_ai.cli.deck import register
from dixit_ai.decks import OPENMOJI_ATTRIBUTION, load_deck, sheet_layout


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="dixit-ai")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    status: int = args.func(args)
    return status


def test_info(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "info", "dream:size=3,seed=2"]) == 0
    out = capsys.readouterr().out
    deck = load_deck("dream:size=3,seed=2")
    assert f"fingerprint:  {deck.fingerprint}" in out
    assert "size:         3 cards" in out
    assert OPENMOJI_ATTRIBUTION in out and "adaptations" in out and "CC BY-SA 4.0" in out


def test_info_json_with_a_card(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "info", "dream:size=3,seed=2", "--card", "1", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["size"] == 3 and info["license"] == "CC BY-SA 4.0"
    assert info["cards"][0]["captions"] == load_deck("dream:size=3,seed=2").captions(1)


def test_info_of_a_composite_lists_its_parts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Image.new("RGB", (8, 12), "red").save(tmp_path / "x.png")
    assert main(["deck", "info", f"dream:size=2,seed=2+folder:{tmp_path}"]) == 0
    out = capsys.readouterr().out
    assert "part:         ids 0-1" in out and "part:         ids 2-2" in out


def test_errors_exit_non_zero_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "info", "nonsense"]) == 2
    assert "unknown deck spec 'nonsense'" in capsys.readouterr().err
    assert main(["deck", "info", "dream:size=2", "--card", "7"]) == 2
    assert "no card 7" in capsys.readouterr().err


def test_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheets" / "sheet.png"
    assert main(["deck", "sheet", "dream:size=4,seed=2", "--out", str(out),
                 "--thumb-width", "50", "--columns", "2"]) == 0
    deck = load_deck("dream:size=4,seed=2")
    expected = sheet_layout(4, columns=2, thumb_width=50,
                            attribution=f"Licence: {deck.license}\n{deck.attribution}").size
    with Image.open(out) as sheet:
        assert sheet.size == expected
    assert "wrote" in capsys.readouterr().out
    assert main(["deck", "sheet", "dream:size=4,seed=2", "--out", str(out), "--cards", "1-2,0",
                 "--thumb-width", "50"]) == 0
    assert main(["deck", "sheet", "dream:size=4,seed=2", "--out", str(out), "--cards", "9"]) == 2


def test_sheet_checks_a_card_range_against_the_deck_before_building_it(tmp_path: Path) -> None:
    """'0-999999999' was built in memory (gigabytes) before any id was checked; under a memory
    limit of 1 GiB it is now refused at once, naming the deck's ids."""
    resource = pytest.importorskip("resource")
    limit = 1 << 30

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-m", "dixit_ai.cli", "deck", "sheet", "dream:size=4,seed=2",
         "--out", str(tmp_path / "sheet.png"), "--cards", "0-999999999"],
        capture_output=True, text=True, timeout=120, preexec_fn=limit_memory, check=False)
    assert done.returncode == 2, done.stderr
    assert "no card 999999999 in deck 'dream (size 4, seed 2)' (4 cards, ids 0-3)" in done.stderr
    assert not (tmp_path / "sheet.png").exists()


def test_sheet_card_errors_name_the_decks_ids(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheet.png"
    for cards, message in (("2-9", "no card 9 in deck"), ("3-1", "runs backwards"),
                           ("7", "no card 7 in deck")):
        assert main(["deck", "sheet", "dream:size=4,seed=2", "--out", str(out),
                     "--cards", cards]) == 2
        err = capsys.readouterr().err
        assert message in err, err
        assert "runs backwards" in err or "(4 cards, ids 0-3)" in err
    assert not out.exists()


def test_sheet_refuses_an_unknown_extension_before_making_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "newdir" / "sub" / "sheet.xyz"
    assert main(["deck", "sheet", "dream:size=4,seed=2", "--out", str(out)]) == 2
    assert "unknown image file extension '.xyz'; use .png" in capsys.readouterr().err
    assert not (tmp_path / "newdir").exists()


def test_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "exported"
    assert main(["deck", "export", "dream:size=2,seed=2", str(target), "--size", "80x120"]) == 0
    assert sorted(p.name for p in target.iterdir()) == [
        "0000.png", "0001.png", "captions.json", "deck.json", "descriptions.json"
    ]
    assert load_deck(f"folder:{target}").image(1, None).size == (80, 120)
    assert main(["deck", "export", "dream:size=2,seed=2", str(target)]) == 2
    assert "not empty; pass --overwrite to write into it" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["deck", "--help"], ["deck", "info", "--help"], ["deck", "sheet", "--help"],
             ["deck", "export", "--help"]]
)
def test_every_command_has_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_deck_without_a_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck"]) == 2
    assert "info" in capsys.readouterr().err


def test_info_names_what_a_folder_holds_besides_its_cards_and_escapes_its_text(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, a GIF, a HEIC photo, a subfolder or notes were left out without a word (an
    iPhone user saw fewer cards), and a caption's escape sequence reached the terminal."""
    folder = tmp_path / "mine"
    folder.mkdir()
    for i in range(3):
        Image.new("RGB", (40, 60), (i * 80, 40, 90)).save(folder / f"card{i}.png")
    Image.new("RGB", (40, 60), "red").save(folder / "anim.gif")
    (folder / "IMG_0001.HEIC").write_bytes(b"not really")
    (folder / "notes.txt").write_text("x")
    (folder / ".DS_Store").write_text("x")
    (folder / "sub").mkdir()
    (folder / "captions.json").write_text(json.dumps({"card0.png": "red\x1b[31m sky"}))
    assert main(["deck", "info", f"folder:{folder}", "--card", "0"]) == 0
    out = capsys.readouterr().out
    assert ("not cards:    4 in the folder (only PNG, JPEG and WebP files are cards): "
            "anim.gif, IMG_0001.HEIC, notes.txt, sub/; convert HEIC photos to JPEG to make "
            "them cards") in out
    assert "caption:    red\\x1b[31m sky" in out and "\x1b" not in out
    assert main(["deck", "info", f"folder:{folder}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == [
        "anim.gif", "IMG_0001.HEIC", "notes.txt", "sub/"]
    assert main(["deck", "info", "dream:size=1"]) == 0
    assert "size:         1 card\n" in capsys.readouterr().out
