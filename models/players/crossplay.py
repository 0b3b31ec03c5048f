"""Fitting a population's guess models by leave-one-out cross-play.

A population storyteller (:mod:`models.players.population`) needs, for each simulated mind, a
guess model: how that member's similarities predict the votes of *other* minds on the clues such
a storyteller tells. Fitted to ordinary cross-play games (``clip-greedy`` players on the members'
models, each telling by simulating itself), it learns nothing: those tellers' clues are the
idiosyncrasies of their own embeddings, guessers on other models find them at about chance
(0.25-0.27 of votes on five-card boards, measured), and the fitted temperature runs to the top of
its range (the old shipped fit: 10 for both members). The clues a population storyteller tells
are another kind, and the fit must be made on them, without letting any storyteller simulate the
voters it is scored on.

**Leave-one-out tables.** For each member ``m``, five ``clip-greedy`` players on ``m``'s model
sit at a table; each tells as a population storyteller whose population is every *other*
member, aiming at the guess rates of ``targets`` seat by seat (seats rotate game by game). Every
vote at that table is cast by a mind the storyteller did not simulate. Member ``q``'s guess model
is then fitted (maximum likelihood, :func:`models.players.calibration.fit_population` with
``held_out=True``) to the votes of voters on models other than ``q`` that the round's storyteller
did not simulate.

**Iterations.** The tables of iteration ``i`` use the fit of iteration ``i - 1`` (the first uses
``start``), and are fitted again: the clues follow the guess models and the guess models the
clues, until they agree. The predictions recorded at iteration ``i``'s tables, made with the
previous fit, against the votes of the member their storytellers left out, are that fit's
held-out calibration: :attr:`CrossPlayFit.iterations` gives its ECE per held-out member.
The last fit's own held-out calibration needs tables played with it: ``validate`` games per
member, on seeds no fitting table used (:attr:`CrossPlayFit.validation`), also per target.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from models.players.population_fit import PopulationFit, load_population_fit

TARGETS = (0.1, 0.25, 0.5, 0.75, 0.9)
"""The guess rates the five storytellers of a leave-one-out table aim at, one per seat."""


@dataclass
class CrossPlayFit:
    """What :func:`fit_population_crossplay` produced.

    Attributes:
        fit: The last iteration's per-member guess models.
        records: Every game played, iteration by iteration, then the validation's
            (``header["crossplay"]`` says which iteration, ``label`` whether it is the
            validation, and which member was left out).
        iterations: Per iteration: the fitted members, the rounds played, and the held-out
            calibration of the fit the tables played with (``ece``, ``predicted``,
            ``observed`` and ``rounds`` per left-out member, and pooled; ``by_target``: pooled
            per storyteller target).
        validation: The last fit's held-out calibration on tables played with it (the same
            keys as an iteration's), or ``None`` when none were played.
    """

    fit: PopulationFit
    records: list[Any] = field(default_factory=list)
    iterations: list[dict[str, Any]] = field(default_factory=list)
    validation: dict[str, Any] | None = None

    def summary_lines(self) -> list[str]:
        """What a script prints: each iteration's held-out calibration, then the fit."""
        lines = [f"iteration {it['iteration']} ({it['games']} games, {it['rounds']} rounds): "
                 "held-out ECE of the fit these tables played with, per left-out member: "
                 + ", ".join(f"{k} {v['ece']:.3f} (predicted {v['predicted']:.2f}, observed "
                             f"{v['observed']:.2f}, {v['rounds']:.0f} rounds)"
                             for k, v in it["held_out_calibration"].items())
                 for it in self.iterations]
        lines += [f"  {e['name']:22s} temperature {e['temperature']:.4f} bias "
                  f"{e['bias']:+.3f} on {e['votes']} votes" for e in self.fit.members.values()]
        if self.validation is not None:
            v = self.validation
            lines.append(f"validation ({v['games']} games, {v['rounds']} rounds, played with the "
                         "fit above): held-out ECE per left-out member: " + ", ".join(
                             f"{k} {c['ece']:.3f}" for k, c in v["held_out_calibration"].items()))
        shapes = [(f"iteration {it['iteration']}", it) for it in self.iterations[-1:]]
        shapes += [("validation", self.validation)] if self.validation is not None else []
        lines += [f"  by target ({label}), predicted -> observed: " + ", ".join(
            f"{t:g}: {c['predicted']:.2f} -> {c['observed']:.2f}"
            for t, c in it["by_target"].items()) for label, it in shapes]
        return lines


def held_out_calibration(records: Sequence[Any], bins: int = 10) -> dict[str, dict[str, float]]:
    """ECE of the recorded predictions against the observed guess rates, per left-out member
    (``header["crossplay"]["left_out"]``) and pooled."""
    from models.players.calibration import predicted_rounds, reliability

    rows: dict[str, list[tuple[float, float]]] = {}
    for record, _, predicted, observed in predicted_rounds(records):
        name = str(record.header.get("crossplay", {}).get("left_out", "?"))
        rows.setdefault(name, []).append((predicted, observed))
    rows["pooled"] = [pair for key in list(rows) for pair in rows[key]]
    out = {}
    for name, pairs in rows.items():
        if not pairs:
            continue
        predictions, observations = zip(*pairs, strict=True)
        result = reliability(list(predictions), list(observations), bins)
        out[name] = {"ece": float(result.ece), "predicted": float(np.mean(predictions)),
                     "observed": float(np.mean(observations)), "rounds": float(len(pairs))}
    return out


def held_out_by_target(records: Sequence[Any]) -> dict[float, dict[str, float]]:
    """Pooled over the left-out members, per target the round's storyteller aimed at (its tell
    note's ``target_guess_rate``): mean predicted and observed guess rate, and rounds. A fit can
    be right on average and wrong at every target; this shows the shape."""
    from models.players.calibration import predicted_rounds

    rows: dict[float, list[tuple[float, float]]] = {}
    for _, rnd, predicted, observed in predicted_rounds(records):
        note = rnd.notes.get(str(rnd.storyteller), {}).get("tell", {})
        target = note.get("target_guess_rate") if isinstance(note, dict) else None
        if target is not None:
            rows.setdefault(float(target), []).append((predicted, observed))
    return {t: {"predicted": float(np.mean([p for p, _ in pairs])),
                "observed": float(np.mean([o for _, o in pairs])), "rounds": float(len(pairs))}
            for t, pairs in sorted(rows.items())}


def fit_population_crossplay(
    members: Sequence[Any],
    *,
    deck: str = "dream",
    edition: str = "refresh-2021",
    games: int = 4,
    iterations: int = 2,
    seed: int = 0,
    start: str | Path | None = "default",
    fit_bias: bool = False,
    targets: Sequence[float] = TARGETS,
    agent_options: dict[str, Any] | None = None,
    folder: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    validate: int = 0,
) -> CrossPlayFit:
    """Fit the members' guess models on leave-one-out cross-play tables (module docstring).

    Args:
        members: Embedder names (at least two; none may read the cards' captions), or ready
            :class:`~models.players.resources.PlayerResources` over one deck (tests, studies).
        deck: The deck spec of the games (with ready members: ignored, their cards are dealt).
        edition: The games' edition.
        games: Games per member per iteration.
        iterations: Rounds of playing and fitting.
        seed: Seeds every game.
        start: The population file the first tables play with (``"default"``: the shipped
            one; members it lacks use the built-in guess model).
        fit_bias: Fit each member's bias too (else only its temperature: see the README's
            measurement of both).
        targets: The storytellers' target guess rates, one per seat.
        agent_options: Extra ``clip-greedy`` keyword arguments (smaller budgets for tests).
        folder: Where each iteration's population file is written (``None``: a temporary
            folder, removed before returning).
        progress: Receives a line per table played.
        validate: Games per member played with the last fit, on seeds no fitting table used,
            for its own held-out calibration (``0``: none).

    Raises:
        ValueError: fewer than two members, a member named twice, no games or iterations, a
            negative ``validate``, or no target.
    """
    import tempfile

    from dixit_ai import play_game
    from dixit_ai.agents import make_agent
    from dixit_ai.match import game_seeds
    from models.players.agent import ClipAgent
    from models.players.calibration import fit_population
    from models.players.panel_models import load_member_resources, refuse_ground_truth
    from models.players.resources import PlayerResources

    ready = [m for m in members if isinstance(m, PlayerResources)]
    if ready and len(ready) != len(members):
        raise ValueError("give every member as an embedder name or every one as resources")
    names = [m.fingerprint if isinstance(m, PlayerResources) else str(m) for m in members]
    if len(names) < 2:
        raise ValueError(f"leave-one-out cross-play needs at least two members, not {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"members {names} name one twice")
    if games < 1 or iterations < 1:
        raise ValueError(f"games ({games}) and iterations ({iterations}) must be at least 1")
    if validate < 0:
        raise ValueError(f"validate ({validate}) must be at least 0 games per member")
    if not targets:
        raise ValueError("give at least one target guess rate")
    for member in members:
        refuse_ground_truth(member)
    options = dict(agent_options or {})
    if folder is None:  # the iterations' files are read only while their tables play
        with tempfile.TemporaryDirectory(prefix="crossplay-") as scratch:
            return fit_population_crossplay(
                members, deck=deck, edition=edition, games=games, iterations=iterations,
                seed=seed, start=start, fit_bias=fit_bias, targets=targets,
                agent_options=agent_options, folder=scratch, progress=progress,
                validate=validate)
    where = Path(folder)
    where.mkdir(parents=True, exist_ok=True)
    current = load_population_fit(start) if start is not None else None
    if current is None:
        current = PopulationFit({}, {"fitted_on": "nothing: the built-in guess model"})
    size = options.get("vocabulary_size")
    resources = (list(zip(names, ready, strict=True)) if ready else
                 [(n, load_member_resources(n, deck, vocabulary_size=size)) for n in names])
    game_deck: Any = list(ready[0].card_ids) if ready else deck

    def storyteller(k: int, target: float, path: Path) -> Any:
        """A clip-greedy player on member k's model simulating every other member."""
        if ready:
            return ClipAgent(name=f"crossplay-{k}", deck=ready[k],
                             population=[r for j, r in enumerate(ready) if j != k],
                             population_calibration=str(path), target_guess_rate=target,
                             **{"calibration": None, **options})
        return make_agent("clip-greedy", embedder=names[k], deck=deck,
                          calibration="default" if names[k] == "default" else None,
                          population=",".join(n for j, n in enumerate(names) if j != k),
                          population_calibration=str(path), target_guess_rate=target,
                          **options)

    def play_tables(iteration: int, path: Path, n_games: int, label: str) -> list[Any]:
        """Every member's leave-one-out table, ``n_games`` games each, with the fit at path."""
        played = []
        for k, left_out in enumerate(names):
            others = ",".join(n for n in names if n != left_out)
            seats = [storyteller(k, float(targets[s % len(targets)]), path) for s in range(5)]
            for index, game_seed in enumerate(game_seeds(seed * 1009 + iteration * 101 + k,
                                                         n_games)):
                shift = index % len(seats)
                record = play_game(seats[shift:] + seats[:shift], edition=edition,
                                   deck=game_deck, seed=game_seed, writable=True)
                record.header["crossplay"] = {"iteration": iteration, "left_out": left_out,
                                              "population": others, "label": label}
                played.append(record)
            if progress is not None:
                progress(f"cross-play {label}: {n_games} games of {left_out} guessers against "
                         f"storytellers simulating {others}")
        return played

    def calibration_of(played: list[Any]) -> dict[str, Any]:
        return {"games": len(played), "rounds": sum(len(r.rounds) for r in played),
                "held_out_calibration": held_out_calibration(played),
                "by_target": held_out_by_target(played)}

    out = CrossPlayFit(current)
    for iteration in range(iterations):
        path = where / f"population_iteration{iteration}.json"
        current.save(path)
        played = play_tables(iteration, path, games,
                             f"iteration {iteration + 1}/{iterations}")
        calibration = calibration_of(played)
        current, notes = fit_population(played, resources, fit_bias=fit_bias, held_out=True)
        current.notes.update({"crossplay_iteration": iteration + 1, "member_names": names,
                              "games_per_member": games, "seed": seed})
        out.records.extend(played)
        out.iterations.append({"iteration": iteration + 1, **calibration,
                               "fitted": current.members, "unfitted": notes["unfitted"]})
        out.fit = current
    if validate:  # the seeds of the iteration after the last: no fitting table played them
        path = where / "population_validation.json"
        current.save(path)
        played = play_tables(iterations, path, validate, "validation of the last fit")
        out.records.extend(played)
        out.validation = calibration_of(played)
    return out
