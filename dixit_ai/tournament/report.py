"""A tournament's report: leaderboard in the terminal, CSV, JSON, plots and Markdown.

Everything here formats a :class:`~dixit_ai.tournament.analysis.TournamentResults`; the numbers
come from the records (see :mod:`dixit_ai.tournament.analysis`), so rerunning the report on the
same ``games.jsonl`` writes the same files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dixit_ai.reporting import (
    Interval,
    markdown_table,
    plot_intervals,
    print_table,
    write_csv,
    write_json,
    write_text,
)
from dixit_ai.tournament.analysis import METRICS, TournamentResults

RESULTS_CSV = "results.csv"
RESULTS_JSON = "results.json"
RATINGS_PLOT = "ratings.png"
WIN_RATE_PLOT = "win_rate.png"
REPORT_MD = "report.md"

FEW_DEALS = 10
"""Below this many deals (or games, items: the units an interval resamples), a report says that
its intervals are not reliable (:func:`few_note`)."""


def few_note(count: int, unit: str) -> str:
    """``" (only 3 deals: the intervals are not reliable)"`` below :data:`FEW_DEALS` ``unit``
    (a plural noun: ``"deals"``, ``"games"``) resampled, else ``""``."""
    if count >= FEW_DEALS:
        return ""
    shown = unit.removesuffix("s") if count == 1 else unit
    return f" (only {count} {shown}: the intervals are not reliable)"

MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#!~&|])")
"""The characters of a label or name that would make Markdown (or HTML) in report.md."""


def markdown_text(text: str, *, in_table: bool = False) -> str:
    """``text`` as plain text in Markdown: each character that could start emphasis, a link,
    code, HTML, an entity, a heading or a table cell is escaped with a backslash (CommonMark
    escapes any ASCII punctuation so). In a table cell ``|`` is left as it is: the table
    escapes it (:func:`~dixit_ai.reporting.markdown_table`), and escaping it twice would split
    the cell."""
    def escape(found: re.Match[str]) -> str:
        char = found.group(1)
        return char if in_table and char == "|" else "\\" + char

    return MARKDOWN_SPECIAL.sub(escape, text)


def _table_text(text: str) -> str:
    return markdown_text(text, in_table=True)


LEADERBOARD_COLUMNS = ("#", "agent", "rating", "win rate", "mean points", "points/story",
                       "story success", "games", "failures")


def _interval(value: Interval, digits: int) -> str:
    """``estimate [low, high]``; the estimate alone where there is no interval (the ratings
    with ``--rating-resamples 0``)."""
    if value.low != value.low or value.high != value.high:  # NaN bounds: no interval
        return "n/a" if value.estimate != value.estimate else f"{value.estimate:.{digits}f}"
    return value.format(digits)


def leaderboard_rows(results: TournamentResults, *,
                     label: Callable[[str], str] = str) -> list[list[Any]]:
    """One row per agent, best first, formatted for a table (each agent's label through
    ``label``)."""
    return [[rank, label(s.agent), _interval(s.rating, 1), _interval(s.win_rate, 2),
             _interval(s.mean_points, 1), _interval(s.storyteller_points, 2),
             _interval(s.storyteller_success, 2), s.games, s.failures]
            for rank, s in enumerate(results.standings, start=1)]


def summary_line(results: TournamentResults, *, label: Callable[[str], str] = str) -> str:
    """How many games and deals, and what the intervals are (each agent's label through
    ``label``)."""
    teams = f" in {results.teams} teams" if results.teams else ""
    players = f"{results.players} players{teams}, " if results.players else ""
    aborted = ""
    if results.aborted:
        by = ", ".join(f"{s.aborted_games} by {label(s.agent)}'s failures"
                       for s in results.standings if s.aborted_games)
        aborted = f", {results.aborted} aborted games left out" + (f" ({by})" if by else "")
    if results.truncated:
        aborted += (f", {results.truncated} cut short at max_rounds (won by the top scores)"
                    if results.truncated < results.games else
                    ", every one cut short at max_rounds (won by the top scores)")
    if results.dropped:
        aborted += (f", {results.dropped} unreadable record{'s' if results.dropped != 1 else ''}"
                    " dropped (--allow-partial)")
    deals = f"{results.deals} deal{'s' if results.deals != 1 else ''}"
    few = few_note(results.deals, "deals")
    return (f"{results.games} game{'s' if results.games != 1 else ''} ({players}{deals})"
            f"{aborted}; {results.level:.0%} bootstrap intervals over deals{few}")


def print_leaderboard(results: TournamentResults, *, title: str = "Tournament",
                      file: Any = None) -> None:
    """The leaderboard as a rich table, and a summary line under it."""
    print_table(f"{title}: {summary_line(results)}", LEADERBOARD_COLUMNS,
                leaderboard_rows(results), file=file, min_width=140)
    failures = {s.agent: s for s in results.standings if s.failures}
    if failures:
        print("agent failures (recorded; see games.jsonl): "
              + ", ".join(f"{agent} {s.failures}" + _failure_details(s)
                          for agent, s in failures.items()), file=file)


def _failure_details(standing: Any) -> str:
    details = []
    if standing.forfeited_turns:
        details.append(f"{standing.forfeited_turns} storytelling turns forfeited, not counted")
    if standing.aborted_games:
        details.append(f"{standing.aborted_games} game"
                       f"{'s' if standing.aborted_games != 1 else ''} aborted, left out")
    return f" ({'; '.join(details)})" if details else ""


def csv_rows(results: TournamentResults) -> list[dict[str, Any]]:
    """One flat row per agent: each interval as estimate, low and high columns."""
    rows = []
    for rank, s in enumerate(results.standings, start=1):
        row: dict[str, Any] = {"rank": rank, "agent": s.agent, "games": s.games,
                               "seat_games": s.seat_games}
        for name in ("rating", *METRICS):
            value: Interval = getattr(s, name)
            row[name], row[f"{name}_low"], row[f"{name}_high"] = (value.estimate, value.low,
                                                                  value.high)
        row.update(sigma=s.sigma, ordinal=s.ordinal, storytelling_turns=s.storytelling_turns,
                   failures=s.failures, forfeited_turns=s.forfeited_turns,
                   aborted_games=s.aborted_games)
        rows.append(row)
    return rows


def _plotted(value: Interval) -> Interval:
    """``value`` as its error bar can draw it: a percentile-bootstrap interval of a rating may
    lie beside its estimate (ratings re-rated on resamples are biased), and an error bar
    reaches from the estimate; its bar then reaches to the estimate (the tables state the
    interval itself)."""
    if value.low != value.low or value.high != value.high:  # no interval
        return value
    return Interval(value.estimate, min(value.low, value.estimate),
                    max(value.high, value.estimate))


def write_report(folder: str | Path, results: TournamentResults, *,
                 config: Mapping[str, Any] | None = None, title: str = "Tournament",
                 agents: Sequence[str] | None = None) -> dict[str, Path]:
    """Write ``results.csv``, ``results.json``, the plots and ``report.md`` into ``folder``.

    ``agents``: one line per agent for the report's "Agents" section (its definition and
    description: what model it used), or ``None`` (no section).

    Returns:
        The written files by kind (``csv``, ``json``, ``ratings_plot``, ``win_rate_plot``,
        ``report``).
    """
    folder = Path(folder)
    labels = results.agents
    paths = {
        "csv": write_csv(folder / RESULTS_CSV, csv_rows(results)),
        "json": write_json(folder / RESULTS_JSON,
                           {"config": dict(config) if config else None, **results.to_dict()}),
        "ratings_plot": plot_intervals(
            folder / RATINGS_PLOT, labels, [_plotted(s.rating) for s in results.standings],
            title=f"{title}: OpenSkill rating ({results.level:.0%} bootstrap interval)",
            xlabel="OpenSkill Plackett-Luce mu (initial 25)"),
        "win_rate_plot": plot_intervals(
            folder / WIN_RATE_PLOT, labels, [s.win_rate for s in results.standings],
            title=f"{title}: win rate ({results.level:.0%} bootstrap interval)",
            xlabel=("share of seat-games won (a team's win counts for each partner; ties "
                    "shared)" if results.teams else "share of seat-games won (ties shared)"),
            reference=(1.0 / results.teams if results.teams else
                       1.0 / results.players if results.players else None)),
    }
    paths["report"] = write_text(folder / REPORT_MD, markdown_report(
        results, config=config, title=title, agents=agents))
    return paths


def markdown_report(results: TournamentResults, *, config: Mapping[str, Any] | None = None,
                    title: str = "Tournament", agents: Sequence[str] | None = None) -> str:
    """The Markdown report (it embeds the two plots by their file names); ``agents``: the
    lines of its "Agents" section (see :func:`write_report`)."""
    lines = [f"# {markdown_text(title)}", "", summary_line(results, label=markdown_text) + ".",
             ""]
    if results.source:
        lines += [f"Records: `{results.source}`.", ""]
    for note in results.notes:
        lines += [f"**{note}**", ""]
    if config:
        listed = ", ".join(
            markdown_text(entry["label"] if entry["label"] == entry["agent"]
                          and not entry["kwargs"]
                          else f"{entry['label']} ({entry['agent']}, {entry['kwargs']})")
            for entry in config.get("agents", []))
        lines += [
            f"- agents: {listed}",
            f"- edition: {config.get('edition')}, {config.get('players')} players, deck "
            f"{config.get('deck')}, rule overrides: {config.get('rules') or 'none'}"
            + (f", at most {config['max_rounds']} rounds a game" if config.get("max_rounds")
               else ""),
            f"- games: {config.get('games')}, seed {config.get('seed')}, on failure: "
            f"{config.get('on_failure')}",
            "",
        ]
    lines += ["## Leaderboard", "",
              markdown_table(LEADERBOARD_COLUMNS, leaderboard_rows(results, label=_table_text)),
              f"![ratings]({RATINGS_PLOT})", "", f"![win rate]({WIN_RATE_PLOT})", "",
              *(["## Agents", "", *(f"- {markdown_text(line)}" for line in agents), ""]
                if agents else []),
              "## How these are computed", "",
              "- **rating**: OpenSkill Plackett-Luce, updated game by game in schedule order, "
              "each game ranked by its final scores (equal scores tie).",
              "- **win rate**: share of seat-games won, ties shared"
              + (f"; a seat wins when its team wins (chance {1 / results.teams:.3f}: "
                 f"{results.teams} teams)." if results.teams else
                 f" (chance {1 / results.players:.3f})." if results.players else "."),
              "- **points/story**: points scored per storytelling turn; **story success**: "
              "share of storytelling turns in which some but not all voters found the card; "
              "a storytelling turn the agent forfeited (it failed) is left out of both.",
              "- **failures**: decisions the agent failed (an error or an illegal move), as "
              "recorded in the games (those of aborted games too: an aborted game is left out "
              "of every figure, and counted against the agent whose failure stopped it).",
              f"- intervals: {results.level:.0%} percentile bootstrap over deals (the games "
              f"of one deal are resampled together); {results.n_resamples} resamples, "
              f"{results.rating_resamples} for the ratings"
              + (" (no rating interval)" if results.rating_resamples == 0 else "")
              + f"; seed {results.seed}."
              + (f" {results.settings}." if results.settings else ""),
              "", "## By seat", "",
              markdown_table(("seat", "mean points", "win rate"),
                             [[seat, points, rate] for seat, (points, rate) in enumerate(
                                 zip(results.seat_points, results.seat_win_rate, strict=True))]),
              "## Details", "",
              markdown_table(("agent", "games", "seat-games", "storytelling turns",
                              "forfeited turns", "sigma", "ordinal", "failures",
                              "aborted games"),
                             [[_table_text(s.agent), s.games, s.seat_games, s.storytelling_turns,
                               s.forfeited_turns, s.sigma, s.ordinal, s.failures,
                               s.aborted_games]
                              for s in results.standings]),
              "Recompute with `dixit-ai tournament --analyse RECORDS --out FOLDER`.", ""]
    return "\n".join(lines)
