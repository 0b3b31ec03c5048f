"""A training run shorter than ``--curve-every`` has no curve point: ``curve.png`` is not drawn
as empty axes, and stderr says why (before: empty axes, exit 0, nothing said)."""

from __future__ import annotations

from envs.training_run import Curve, plot


def test_no_point_draws_no_curve_and_says_why(tmp_path, capsys):
    plot({"guesser": Curve("guesser", 2000)}, tmp_path)
    err = capsys.readouterr().err
    assert "the guesser's learning curve has no point" in err and "every 2000" in err
    assert "curve.png not drawn" in err
    assert not (tmp_path / "curve.png").exists()
    assert (tmp_path / "curve.csv").read_text().splitlines() == [
        "role,timesteps,metric,decisions"]


def test_a_role_without_a_point_gets_a_no_data_panel(tmp_path, capsys):
    drawn = Curve("guesser", 10)
    drawn.rows.append({"timesteps": 10, "metric": 0.5, "decisions": 4})
    plot({"guesser": drawn, "storyteller": Curve("storyteller", 10)}, tmp_path)
    err = capsys.readouterr().err
    assert "the storyteller's learning curve has no point" in err and "no data" in err
    assert "guesser's" not in err
    assert (tmp_path / "curve.png").stat().st_size > 0
