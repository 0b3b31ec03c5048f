"""``--caption-mix`` of the default model's training: a bad mix is a ValueError naming the flag
and its limit (the script turns it into exit 2), where ``caption_indices`` raised SystemExit,
which a caller in Python could not catch as bad input and which exits 1 if left alone."""

from __future__ import annotations

import pytest

from models import train_default as td


@pytest.mark.parametrize("mix", ["5", "-1", "1.5", " ", "", "full", "0,4"])
def test_a_bad_caption_mix_is_a_value_error(mix: str) -> None:
    with pytest.raises(ValueError, match=r"--caption-mix must be one of all, .* or indices "
                                         r"0-3 such as 0,3, not"):
        td.caption_indices(mix)


@pytest.mark.parametrize(("mix", "indices"), [
    ("all", (0, 1, 2, 3)), ("short", (1, 2)), ("0,3", (0, 3)), ("3, 0", (3, 0)),
])
def test_a_good_caption_mix_gives_its_indices(mix: str, indices: tuple[int, ...]) -> None:
    assert td.caption_indices(mix) == indices


def test_the_script_refuses_a_bad_mix_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert td.main(["--caption-mix", "9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --caption-mix must be one of") and "Traceback" not in err
