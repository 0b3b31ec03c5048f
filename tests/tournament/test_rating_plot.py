"""A rating's percentile-bootstrap interval need not hold its estimate (the ratings re-rated on
a resample are biased); the ratings plot draws it all the same, where writing the report failed
with matplotlib's "'xerr' must not contain negative values" after every game was played."""

from __future__ import annotations

from dixit_ai.tournament import run_tournament
from tests.tournament.helpers import random_config


def test_a_rating_interval_beside_its_estimate_is_plotted(tmp_path):
    config = random_config(games=12, max_rounds=3)
    run = run_tournament(config, out=tmp_path / "runs", workers=1, progress=False,
                         n_resamples=50, rating_resamples=5)
    assert run.results is not None
    outside = [s for s in run.results.standings
               if not s.rating.low <= s.rating.estimate <= s.rating.high]
    assert outside  # the case at hand: an estimate outside its interval
    assert (run.folder / "ratings.png").stat().st_size > 0
    report = (run.folder / "report.md").read_text()
    shown = outside[0].rating
    assert f"{shown.estimate:.1f} [{shown.low:.1f}, {shown.high:.1f}]" in report
