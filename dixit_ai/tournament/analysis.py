"""Standings computed from game records alone: ratings, win rates, points, storytelling.

:func:`analyse` takes any game records (a tournament's ``games.jsonl``, or ``dixit-ai simulate
--out``'s), or their summaries (:mod:`dixit_ai.tournament.summary`), and returns, per agent:

- **rating**: OpenSkill Plackett-Luce (``openskill.models.PlackettLuce``, default parameters)
  updated game by game in schedule order, each game ranked by its final scores (equal scores
  tie). An agent that plays two seats of a game is rated on both: each seat is a separate entrant
  carrying the agent's rating, and the agent's rating moves by the sum of its seats' updates
  (its variance shrinks by the sum of their reductions);
- **win rate**: the share of its seat-games won, a tie of ``k`` winners giving each ``1/k``
  (chance: ``1/players``); in team games (Team Dixit) a seat wins when its team wins, a tie of
  ``k`` teams giving each partner ``1/k`` (chance: ``1/teams``), and the ratings rank the
  teams, each partner carrying its own rating;
- **mean points**: mean final score per seat-game;
- **points per storytelling turn**: the points it scored in the rounds it told;
- **storyteller success**: the share of its storytelling turns in which some but not all of the
  voters found its card (the turns that score).

A storytelling turn the agent *forfeited* (it failed, and the runner told for it under
``on_failure="forfeit"``) is not one of its turns: the two storytelling figures leave it out, and
``forfeits`` counts it with every other forfeited move; ``failures`` counts every recorded failure,
those of aborted games included.

Every figure carries a 95% percentile-bootstrap interval over **deals**: the games of one deal
(same seed, seats rotated) are resampled together, because they share the luck of the deal.
Records with no tournament entry are each their own deal unless they share a seed. The rating's
interval comes from re-running the ratings on each resample (in schedule order), so it uses
fewer resamples than the other figures (see :data:`RATING_RESAMPLES`).

Aborted games (an agent failed under ``on_failure="abort"``) are left out of the figures and
counted, each against the agent whose failure stopped it (``aborted_games``; its failure counts in
its ``failures``). An agent whose failures aborted every game it sat in stays in the standings,
last, with no figures; so does an entrant that had no seat (given as ``entrants``). Truncated
games (``max_rounds``) count, their winners being the seats with the top score.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dixit_ai.records import GameRecord
from dixit_ai.reporting import DEFAULT_LEVEL, DEFAULT_RESAMPLES, Interval, bootstrap
from dixit_ai.tournament.summary import GameSummary, summarize

RATING_RESAMPLES = 200
"""Bootstrap resamples of the ratings (each re-rates every game; the rest use 2000)."""

METRICS = ("win_rate", "mean_points", "storyteller_points", "storyteller_success")
"""The per-agent figures besides the rating, in report order."""

METRIC_TITLES = {
    "rating": "rating (OpenSkill mu)",
    "win_rate": "win rate",
    "mean_points": "mean points",
    "storyteller_points": "points / storytelling turn",
    "storyteller_success": "storyteller success",
}


@dataclass(frozen=True)
class AgentStanding:
    """One agent's figures (see the module docstring for their definitions).

    Attributes:
        agent: Its label.
        games: Games it played (a game in which it held two seats counts once).
        seat_games: Seats it held, over all games.
        rating: OpenSkill mu, with a bootstrap interval.
        sigma: OpenSkill sigma after all games.
        ordinal: ``mu - 3 * sigma`` (OpenSkill's conservative display rating).
        win_rate: Share of seat-games won (ties shared).
        mean_points: Mean final score per seat-game.
        storyteller_points: Mean points per storytelling turn.
        storyteller_success: Share of storytelling turns with some but not all voters finding.
        storytelling_turns: Its storytelling turns.
        failures: Decisions it failed (raised or illegal), as recorded.
        forfeited_turns: Storytelling turns it forfeited (left out of the storytelling figures).
        aborted_games: Games its failure stopped (``on_failure="abort"``; left out of every
            figure, its failures there counted in ``failures``).
    """

    agent: str
    games: int
    seat_games: int
    rating: Interval
    sigma: float
    ordinal: float
    win_rate: Interval
    mean_points: Interval
    storyteller_points: Interval
    storyteller_success: Interval
    storytelling_turns: int
    failures: int
    forfeited_turns: int = 0
    aborted_games: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent, "games": self.games, "seat_games": self.seat_games,
            "rating": self.rating.to_dict(), "sigma": self.sigma, "ordinal": self.ordinal,
            **{name: getattr(self, name).to_dict() for name in METRICS},
            "storytelling_turns": self.storytelling_turns, "failures": self.failures,
            "forfeited_turns": self.forfeited_turns, "aborted_games": self.aborted_games,
        }


@dataclass(frozen=True)
class TournamentResults:
    """What :func:`analyse` finds.

    Attributes:
        standings: One entry per agent, best rating first.
        games: Games analysed.
        aborted: Aborted games left out.
        truncated: Games among ``games`` cut short at ``max_rounds`` (their winners are the
            seats with the top score).
        deals: Distinct deals among the analysed games (the bootstrap's items).
        players: Seats per game (``None`` if the games differ).
        teams: Teams per game when every game is a team game (Team Dixit), else ``None``.
        seat_points: Mean final score per seat (what sitting first is worth, say).
        seat_win_rate: Win rate per seat (ties shared).
        level: The intervals' confidence level.
        n_resamples: Bootstrap resamples of the figures other than ratings.
        rating_resamples: Bootstrap resamples of the ratings.
        seed: The bootstrap's seed.
        dropped: Records left out because they could not be read (``--allow-partial``).
        source: The records file analysed, where known.
        settings: Where the bootstrap settings came from, for a recomputed report (the run's
            own, an option that overrides them, or the seed a bare records file gets).
        notes: Warnings the report states (games of the schedule missing from the records).
    """

    standings: list[AgentStanding]
    games: int
    aborted: int
    deals: int
    players: int | None
    teams: int | None = None
    truncated: int = 0
    seat_points: list[float] = field(default_factory=list)
    seat_win_rate: list[float] = field(default_factory=list)
    level: float = DEFAULT_LEVEL
    n_resamples: int = DEFAULT_RESAMPLES
    rating_resamples: int = RATING_RESAMPLES
    seed: int = 0
    dropped: int = 0
    source: str | None = None
    settings: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def agents(self) -> list[str]:
        """Agent labels, best first."""
        return [s.agent for s in self.standings]

    def standing(self, agent: str) -> AgentStanding:
        """The standing of ``agent``."""
        for s in self.standings:
            if s.agent == agent:
                return s
        raise KeyError(agent)

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games, "aborted": self.aborted, "truncated": self.truncated,
            "deals": self.deals,
            "players": self.players, **({"teams": self.teams} if self.teams else {}),
            "dropped_records": self.dropped, "source": self.source,
            "method": {
                "rating": "OpenSkill Plackett-Luce over final scores (ties shared), "
                          "games in schedule order",
                "intervals": f"{self.level:.0%} percentile bootstrap over deals",
                "n_resamples": self.n_resamples, "rating_resamples": self.rating_resamples,
                "seed": self.seed,
                **({"settings": self.settings} if self.settings else {}),
            },
            **({"notes": list(self.notes)} if self.notes else {}),
            "standings": [s.to_dict() for s in self.standings],
            "seats": {"mean_points": self.seat_points, "win_rate": self.seat_win_rate},
        }


def _order_key(position: int, game: GameSummary) -> tuple[int, int]:
    return (position, position) if game.game is None else (game.game, position)


def rate_games(games: Sequence[tuple[Sequence[str], Sequence[float]]], agents: Sequence[str],
               teams: Sequence[Sequence[int]] | None = None
               ) -> tuple[dict[str, float], dict[str, float]]:
    """OpenSkill Plackett-Luce ratings (mu, sigma by agent) after ``games`` in order.

    Each game is ``(seat labels, final scores)``, and ``teams`` gives each game's team per seat
    (:func:`teams_of`; by default each seat its own): the teams are ranked by their score, each
    partner carrying its own rating. See the module docstring for an agent that holds two
    seats. Agents that play no game keep the initial rating.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    mu = {agent: float(model.mu) for agent in agents}
    sigma = {agent: float(model.sigma) for agent in agents}
    for g, (labels, scores) in enumerate(games):
        team_of = list(range(len(labels))) if teams is None else list(teams[g])
        members = [[seat for seat in range(len(labels)) if team_of[seat] == team]
                   for team in sorted(set(team_of))]
        ranked = [[model.rating(mu=mu[labels[seat]], sigma=sigma[labels[seat]])
                   for seat in team] for team in members]
        updated = model.rate(ranked, scores=[max(float(scores[seat]) for seat in team)
                                             for team in members])
        moves: dict[str, list[tuple[float, float]]] = {}
        for team, rated in zip(members, updated, strict=True):
            for seat, rating in zip(team, rated, strict=True):
                moves.setdefault(labels[seat], []).append((float(rating.mu),
                                                           float(rating.sigma)))
        for label, seats in moves.items():
            if len(seats) == 1:
                mu[label], sigma[label] = seats[0]
                continue
            old_mu, old_var = mu[label], sigma[label] ** 2
            mu[label] = old_mu + sum(m - old_mu for m, _ in seats)
            variance = old_var - sum(old_var - s * s for _, s in seats)
            sigma[label] = math.sqrt(max(variance, 1e-6))
    return mu, sigma


def _check_one_ruleset(records: Sequence[GameSummary]) -> None:
    """Refuse records of more than one edition or rule set: their points and wins do not
    compare (a score limit of 30 against one of 10), so one table of them means nothing.

    Raises:
        ValueError: the editions or rule sets, with how many games each.
    """
    kinds: dict[str, int] = {}
    for record in records:
        kinds[record.ruleset] = kinds.get(record.ruleset, 0) + 1
    if len(kinds) > 1:
        editions = {key.partition(" ")[0] for key in kinds}
        what = "editions" if len(editions) > 1 else "rule sets"
        listed = "; ".join(f"{count} games of {key}" for key, count in kinds.items())
        raise ValueError(f"the records mix {len(kinds)} {what} ({listed}): points and wins do "
                         f"not compare across them; analyse each one's records apart")


def analyse(records: Iterable[GameRecord | GameSummary], *, n_resamples: int = DEFAULT_RESAMPLES,
            rating_resamples: int = RATING_RESAMPLES, level: float = DEFAULT_LEVEL,
            seed: int = 0, entrants: Iterable[str] = ()) -> TournamentResults:
    """Standings from game records (see the module docstring).

    Args:
        records: Game records, or their :func:`summarize` (the figures are the same; a
            caller that reads many records summarizes each as it reads it, so as not to hold
            them all), in any order (tournament records are sorted by schedule index).
        n_resamples: Bootstrap resamples for the win rate, points and storytelling figures.
        rating_resamples: Bootstrap resamples for the ratings (0: no rating interval).
        level: Confidence level of the intervals.
        seed: Seed of the bootstrap.
        entrants: The tournament's agents: one that sat in no game (too few games for every
            agent to have a seat) stands last, with no figures, rather than vanish.

    Raises:
        ValueError: no complete (or truncated) game to analyse.
    """
    summaries = (record if isinstance(record, GameSummary) else summarize(record)
                 for record in records)
    ordered = sorted(enumerate(summaries), key=lambda item: _order_key(*item))
    kept = [record for _, record in ordered if record.status != "aborted"]
    stopped = [record for _, record in ordered if record.status == "aborted"]
    aborted = len(stopped)
    # A failure that aborted a game is its agent's failure all the same (the game is left out
    # of the figures, not the failure out of the table).
    stopped_failures: Counter[str] = Counter()
    stopped_by: Counter[str] = Counter()
    for record in stopped:
        labels = record.labels
        for seat in record.failure_seats:
            if 0 <= seat < len(labels):
                stopped_failures[labels[seat]] += 1
        culprit = record.culprit
        if culprit is not None and 0 <= culprit < len(labels):
            stopped_by[labels[culprit]] += 1
    if not kept:
        by = ", ".join(f"{count} by {label}" for label, count in sorted(stopped_by.items()))
        raise NoGameToAnalyse(f"no game to analyse ({aborted} aborted{': ' + by if by else ''})"
                         if aborted else "no game to analyse")
    _check_one_ruleset(kept)
    labels_per_game = [record.labels for record in kept]
    agents = sorted({label for labels in labels_per_game for label in labels}
                    | set(stopped_failures) | set(stopped_by) | set(entrants))
    column = {agent: i for i, agent in enumerate(agents)}
    n_games, n_agents = len(kept), len(agents)

    deal_index: dict[tuple[str, int], int] = {}
    game_deal = np.array([deal_index.setdefault(r.deal, len(deal_index)) for r in kept])
    n_deals = len(deal_index)

    # Per game and agent: seats, points, win shares, storytelling turns / points / successes.
    tallies = {name: np.zeros((n_games, n_agents)) for name in
               ("seats", "points", "wins", "turns", "story_points", "successes")}
    failures = np.zeros(n_agents, dtype=int)
    forfeited = np.zeros(n_agents, dtype=int)
    players = {record.n_players for record in kept}
    width = max(players)
    seat_points = np.zeros(width)
    seat_wins = np.zeros(width)
    seat_games = np.zeros(width)
    for g, (record, labels) in enumerate(zip(kept, labels_per_game, strict=True)):
        shares = record.shares
        for seat, label in enumerate(labels):
            a = column[label]
            tallies["seats"][g, a] += 1
            tallies["points"][g, a] += record.final_scores[seat]
            tallies["wins"][g, a] += shares[seat]
            seat_points[seat] += record.final_scores[seat]
            seat_wins[seat] += shares[seat]
            seat_games[seat] += 1
        for storyteller, forfeit, story_points, success in record.turns:
            a = column[labels[storyteller]]
            if forfeit:  # the runner told, not the agent
                forfeited[a] += 1
                continue
            tallies["turns"][g, a] += 1
            tallies["story_points"][g, a] += story_points
            tallies["successes"][g, a] += success
        for seat in record.failure_seats:
            failures[column[labels[seat]]] += 1

    # Sum each tally over the games of each deal: the bootstrap resamples deals.
    per_deal = {name: np.zeros((n_deals, n_agents)) for name in tallies}
    for name, values in tallies.items():
        np.add.at(per_deal[name], game_deal, values)
    ratios = {
        "win_rate": ("wins", "seats"),
        "mean_points": ("points", "seats"),
        "storyteller_points": ("story_points", "turns"),
        "storyteller_success": ("successes", "turns"),
    }

    def ratio(numerator: str, denominator: str) -> Any:
        def statistic(idx: np.ndarray) -> np.ndarray:  # idx: (resamples, deals)
            num = per_deal[numerator][idx].sum(axis=-2)
            den = per_deal[denominator][idx].sum(axis=-2)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        return statistic

    intervals: dict[str, list[Interval]] = {}
    for offset, (name, (numerator, denominator)) in enumerate(ratios.items()):
        with warnings.catch_warnings():  # an agent that never told: NaN, not a warning
            warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
            estimate, low, high = bootstrap(ratio(numerator, denominator), n_deals,
                                            n_resamples=n_resamples, level=level,
                                            seed=seed + offset, batched=True)
        intervals[name] = [Interval(float(e), float(lo), float(hi))
                           for e, lo, hi in zip(estimate, low, high, strict=True)]

    games = [(labels, record.final_scores) for labels, record in zip(labels_per_game, kept,
                                                                     strict=True)]
    deal_games: list[list[int]] = [[] for _ in range(n_deals)]
    for g, d in enumerate(game_deal):
        deal_games[int(d)].append(g)
    team_ofs = [record.team_of for record in kept]
    mu, sigma = rate_games(games, agents, team_ofs)

    def rating_statistic(idx: np.ndarray) -> np.ndarray:
        chosen = [g for d in np.sort(idx) for g in deal_games[int(d)]]
        sample_mu, _ = rate_games([games[g] for g in chosen], agents,
                                  [team_ofs[g] for g in chosen])
        present = tallies["seats"][chosen].sum(axis=0) > 0
        return np.where(present, [sample_mu[a] for a in agents], np.nan)

    if rating_resamples > 0:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
            _, low, high = bootstrap(rating_statistic, n_deals, n_resamples=rating_resamples,
                                     level=level, seed=seed + len(ratios))
    else:
        low = high = np.full(n_agents, np.nan)
    standings = []
    for agent in agents:
        a = column[agent]
        rated = tallies["seats"][:, a].sum() > 0  # else no analysed game: no rating either
        standings.append(AgentStanding(
            agent=agent,
            games=int((tallies["seats"][:, a] > 0).sum()),
            seat_games=int(tallies["seats"][:, a].sum()),
            rating=(Interval(mu[agent], float(low[a]), float(high[a])) if rated
                    else Interval(math.nan, math.nan, math.nan)),
            sigma=sigma[agent],
            ordinal=mu[agent] - 3.0 * sigma[agent],
            win_rate=intervals["win_rate"][a],
            mean_points=intervals["mean_points"][a],
            storyteller_points=intervals["storyteller_points"][a],
            storyteller_success=intervals["storyteller_success"][a],
            storytelling_turns=int(tallies["turns"][:, a].sum()),
            failures=int(failures[a]) + stopped_failures[agent],
            forfeited_turns=int(forfeited[a]),
            aborted_games=stopped_by[agent],
        ))
    standings.sort(key=lambda s: (-_finite(s.rating.estimate), -_finite(s.win_rate.estimate),
                                  s.agent))
    team_counts = {len(set(record.team_of)) for record in kept}
    all_teams = len(team_counts) == 1 and all(len(set(record.team_of)) < record.n_players
                                              for record in kept)
    return TournamentResults(
        standings=standings, games=n_games, aborted=aborted, deals=n_deals,
        truncated=sum(record.status == "truncated" for record in kept),
        players=width if len(players) == 1 else None,
        teams=team_counts.pop() if all_teams else None,
        seat_points=[float(x) for x in seat_points / np.maximum(seat_games, 1)],
        seat_win_rate=[float(x) for x in seat_wins / np.maximum(seat_games, 1)],
        level=level, n_resamples=n_resamples, rating_resamples=rating_resamples, seed=seed,
    )


class NoGameToAnalyse(ValueError):
    """No complete (or truncated) game among the records: none, or every one aborted."""


def _finite(value: float) -> float:
    return value if math.isfinite(value) else -math.inf
