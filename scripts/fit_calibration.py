"""Fit the guess model (temperature, bias, vote correlation) to recorded games; draw a reliability
diagram.

Reads game records (JSON Lines written by ``dixit-ai simulate`` or the web table, or played here
with ``--play-games``), fits :class:`models.players.GuessModel` to every recorded vote by maximum
likelihood (:func:`models.players.calibration.fit_guess_model`), writes the parameters to
``--out`` (players load ``models/data/guess_model.json`` by default), and draws the reliability
diagram (predicted vs observed guess rate, ECE in the title) of the records' predictions. With
``--validate-games N`` it then plays N fresh games with the fitted model and draws the diagram of
their predictions: the calibration after fitting. Every file it writes (guess model and
population fit) records the voters whose votes it was fitted on (``voter_models``: each one's
embedder fingerprint and agent name): a storyteller using it is not held out from a panel
member among them (:func:`models.bench.panel.check_held_out`).

    python scripts/fit_calibration.py --records runs/games.jsonl
    python scripts/fit_calibration.py --play-games 40 --validate-games 40 --write-default
    python scripts/fit_calibration.py --smoke        # seconds, for CI

Cross-play and people. ``--voters other-models`` fits the guess model only to votes of seats whose
agent's embedder differs from ``--embedder`` (cross-play records: panel guessers at the table);
``--voters human`` only to the votes of people (web and ``dixit-ai play`` records): give the result
to a storyteller as ``calibration=FILE``. ``--population A B ...`` fits, for every member embedder,
its guess model to the votes of guessers on other models and writes the population file a
population storyteller reads (``population_calibration=FILE``). With games of two seeds or more,
half the seeds' games are held out (:func:`models.players.calibration.split_fit_held`: the games
grouped by seed, so a tournament deal falls on one side only, every other seed in sorted order held
out; the order of ``--records`` files changes nothing): the held-out ECE of the per-vote
predictions is printed per guesser (agent name) and pooled. ``--crossplay`` with ``--population``
plays leave-one-out tables instead (:mod:`models.players.crossplay`: each member's guessers against
storytellers that simulate the others) for ``--iterations`` rounds of playing and fitting, and
prints each fit's held-out ECE per left-out member, and per target the predicted and observed
rates; with ``--validate-games N`` it then plays N games per member with the last fit (seeds no
fitting table used), the held-out calibration of the fit it writes. This is how the shipped
population file is made.

    python scripts/fit_calibration.py --crossplay --population default lite1-minilm \
        lite1-mpnet --play-games 16 --iterations 3 --no-fit-bias --write-default-population

    python scripts/fit_calibration.py --play-games 20 --voters other-models \
        --agents clip-greedy panel-sibling panel-lite2-mpnet panel-lite1-minilm \
        panel-caption-reader --population default panel:sibling lite2-mpnet
    python scripts/fit_calibration.py --records web_games.jsonl --voters human --out human.json

``--tellers human`` keeps only the rounds people told: the guess model then says how the voters
vote on people's clues, and the beliefs line (every run prints it) says where a person's card
lies among the board, as a belief temperature for a guesser that faces people
(``belief_temperature``: in self-play the beliefs follow the bots' own storytellers).

    python scripts/fit_calibration.py --records web_games.jsonl --tellers human
"""

from __future__ import annotations

import csv
import io
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai import GameRecord, read_records, write_records
from dixit_ai.decks.cache import file_sha256
from dixit_ai.reporting import check_folder_path, new_run_dir, write_json, write_text
from models.players.calibration import (
    BIAS_GRID,
    as_found,
    ece_by_voter,
    fit_belief_temperature,
    fit_correlation,
    fit_guess_model,
    fit_population,
    human_tellers,
    human_voters,
    log_likelihood,
    observations_and_voters,
    other_model_voters,
    plot_reliability,
    predictions_of,
    reliability,
    split_fit_held,
    vote_predictions,
)
from models.players.cli import (
    apply_smoke,
    check_at_least,
    check_deck_option,
    check_table_agents,
    parse_args,
)
from models.players.experiments import play_table
from models.players.guess_files import DEFAULT_CALIBRATION
from models.players.guess_model import VOTERS_KEY, GuessModel
from models.players.panel_models import load_member_resources, refuse_ground_truth
from models.players.population_fit import DEFAULT_POPULATION_FILE
from models.players.records_deck import load_deck_fingerprint, records_deck
from models.players.simulation import MIN_TEMPERATURE

TEMPERATURE_SEARCH = (MIN_TEMPERATURE, 1.0)
"""Where the guess model's temperature is searched (log scale); a fit at either end is warned
about: the likelihood may still rise beyond it."""
SMOKE = {"deck": "dream:size=40", "play_games": 2, "validate_games": 0}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


@dataclass
class Args:
    records: list[str] = field(default_factory=list,
                               metadata={"help": "JSON Lines files of game records to fit to"})
    play_games: int = field(default=0, metadata={
        "help": "first play this many games of --agents (their records are fitted too)"})
    agents: list[str] = field(default_factory=lambda: ["clip-greedy"] * 5, metadata={
        "help": "registry names, one per seat, for --play-games and --validate-games"})
    edition: str = field(default="refresh-2021", metadata={"help": "edition of played games"})
    deck: str = field(default="dream", metadata={"help": "deck spec of played games"})
    embedder: str = field(default="default", metadata={
        "help": "model whose similarities are fitted"})
    seed: int = field(default=0, metadata={"help": "seed of the played games"})
    fit_bias: bool = field(default=True, metadata={
        "help": "fit the bias as well as the temperature"})
    bins: int = field(default=10, metadata={"help": "bins of the reliability diagram"})
    out: str = field(default="", metadata={
        "help": "where to write the fitted parameters (default: in the run folder)"})
    write_default: bool = field(default=False, metadata={
        "help": f"also write {DEFAULT_CALIBRATION.name}, which players load by default"})
    validate_games: int = field(default=0, metadata={
        "help": "play this many fresh games with the fitted model; diagram of their predictions "
                "(--crossplay: games per member, with the last fit)"})
    runs_dir: str = field(default="runs", metadata={"help": "where the run folder goes"})
    smoke: bool = field(default=False, metadata={"help": "tiny deck, vocabulary and budget"})
    voters: str = field(default="all", metadata={
        "help": "whose votes are fitted: all, other-models (embedder differs from --embedder) "
                "or human"})
    tellers: str = field(default="all", metadata={
        "help": "whose stories are fitted: all, or human (the rounds people told: how voters "
                "vote on people's clues, and the beliefs about where a person's card lies)"})
    population: list[str] = field(default_factory=list, metadata={
        "help": "member embedders whose guess models are fitted to other models' votes"})
    population_out: str = field(default="", metadata={
        "help": "where the population file goes (default: in the run folder)"})
    write_default_population: bool = field(default=False, metadata={
        "help": "also write models/data/population.json (population storytellers' default)"})
    crossplay: bool = field(default=False, metadata={
        "help": "fit --population on leave-one-out cross-play tables played here (--play-games "
                "per member and iteration): the fit population storytellers need"})
    iterations: int = field(default=3, metadata={"help": "--crossplay iterations"})


@dataclass
class Inputs:
    """What ``--records`` held, checked.

    Attributes:
        records: The records of every file, in order.
        files: Per file: its path, SHA-256 and number of records (what the run was fitted on).
        deck: The deck spec the similarities are computed on (``None``: no records; the played
            games' ``--deck``).
        deck_fingerprint: The fingerprint every record's deck carries (``None``: no records).
    """

    records: list[GameRecord]
    files: list[dict[str, Any]]
    deck: str | None
    deck_fingerprint: str | None


def read_inputs(args: Args, overrides: dict[str, object]) -> Inputs:
    """Check the options and outputs and read ``--records``, before anything is played or
    written.

    Returns:
        The records of ``--records``, their files' hashes and their deck.

    Raises:
        ValueError: a value out of range, an unknown agent, edition or deck, a file that cannot
            be read or holds no records, records of more than one deck (or of another deck than
            the games played here), an output that is a folder, nothing to fit; the message
            names the flag and its limit.
    """
    if args.voters not in ("all", "other-models", "human"):
        raise ValueError(f"--voters must be all, other-models or human, not {args.voters!r}")
    if args.tellers not in ("all", "human"):
        raise ValueError(f"--tellers must be all or human, not {args.tellers!r}")
    check_at_least(args, (("play_games", 0), ("validate_games", 0), ("bins", 1),
                          ("iterations", 1)))
    if args.crossplay:
        if len(args.population) < 2:
            raise ValueError("--crossplay needs --population with two members or more")
        if args.records:
            raise ValueError("--crossplay plays its own tables; it does not read --records")
    check_outputs(args)
    if args.play_games or args.validate_games or args.crossplay:
        check_deck_option(args.deck)
    if (args.play_games or args.validate_games) and not args.crossplay:
        check_table_agents(args.edition, args.agents, args.deck, overrides)
    records: list[GameRecord] = []
    files: list[dict[str, Any]] = []
    by_file: list[tuple[str, list[GameRecord]]] = []
    for path in args.records:
        try:
            found = list(read_records(path))
            digest = file_sha256(path)
        except OSError as error:
            raise ValueError(f"--records {path}: {error.strerror or error}") from None
        if not found and not args.play_games:
            raise ValueError(f"--records {path} holds no game records")
        records += found
        files.append({"path": str(path), "sha256": digest, "games": len(found)})
        by_file.append((str(path), found))
    if not args.crossplay and not records and not args.play_games:
        raise ValueError("no records: give --records FILE or --play-games N")
    deck, fingerprint = (records_deck(by_file, args.deck, played=bool(args.play_games))
                         if records else (None, None))
    return Inputs(records, files, deck, fingerprint)


def check_outputs(args: Args) -> None:
    """Refuse an output path that cannot be written as a file (a folder, or a path under a
    file), or a ``--runs-dir`` that cannot hold the run's folder (a file, or a path under one),
    before anything is played or fitted.

    Raises:
        ValueError: the message names the flag and the path.
    """
    check_folder_path(args.runs_dir, "--runs-dir")
    for flag, value in (("--out", args.out), ("--population-out", args.population_out)):
        if not value:
            continue
        path = Path(value)
        if path.is_dir():
            raise ValueError(f"{flag} {value} is a folder: give the path of the file to write")
        parent = next((p for p in path.parents if p.exists()), None)
        if parent is not None and not parent.is_dir():
            raise ValueError(f"{flag} {value}: {parent} is not a folder")


def new_run(args: Args, started: float) -> Path:
    """Make the run's own folder, ``RUNS_DIR/fit_calibration__SEED__TIME`` (``TIME``: the second
    ``started``; ``-2``, ``-3``, ... when a run started in the same second has the name)."""
    return new_run_dir(args.runs_dir, "fit_calibration", args.seed, now=started)


def belief_figures(observations: list[Any]) -> dict[str, float]:
    """How reliable the voters' most similar card is: the share of votes whose most similar
    votable card was the storyteller's, and the belief temperature that predicts the
    storyteller's card best (:func:`models.players.calibration.fit_belief_temperature`), with
    its mean log-likelihood and that of beliefs at the floor's temperature."""
    temperature = fit_belief_temperature(observations, temperature_range=TEMPERATURE_SEARCH)
    truth = as_found(observations)
    return {
        "temperature": temperature,
        "top_card_right": float(np.mean([int(np.argmax(o.sims)) == o.storyteller_index
                                         for o in observations])),
        "log_likelihood": log_likelihood(truth, temperature, 0.0),
        "log_likelihood_at_floor": log_likelihood(truth, TEMPERATURE_SEARCH[0], 0.0),
    }


def search_bound_warnings(model: GuessModel, fit_bias: bool) -> list[str]:
    """Warnings for a fitted parameter at the end of its search range (the likelihood may
    still rise beyond it: the estimate is a bound, not a maximum)."""
    found = []
    low, high = TEMPERATURE_SEARCH
    for bound, side in ((low, "lower"), (high, "upper")):
        if math.isclose(model.temperature, bound, rel_tol=1e-9):
            found.append(f"the fitted temperature {model.temperature:.4g} is the {side} end of "
                         f"its search range [{low:g}, {high:g}]: the estimate hit the bound"
                         + ("; these voters may vote deterministically, as clip guessers "
                            "with vote_temperature 0 do: a storyteller among them can "
                            "simulate them with no noise (sharp_voters: true, clip-sharp)"
                            if side == "lower" else ""))
    if fit_bias and not BIAS_GRID[0] < model.bias < BIAS_GRID[1]:
        found.append(f"the fitted bias {model.bias:.3f} is at or beyond the bias search grid "
                     f"[{BIAS_GRID[0]:g}, {BIAS_GRID[1]:g}]: the estimate hit the bound")
    return found


def main(argv: list[str] | None = None,
         announce: Callable[[Path], None] | None = None) -> int:
    """Fit and write; the exit status. ``announce`` is called with the run folder once the
    options, the records and the models are checked and loaded, as the folder is made: an error
    before is bad input (2, nothing written), one after a failure of the run. No votes to fit
    is bad input in the records given (2, nothing written), a failed run (1, naming the folder
    that holds them) in games played here (``--play-games``)."""
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    cross_play = args.voters != "all" or bool(args.population)
    # Cross-play tables keep every agent's own embedder.
    overrides: dict[str, object] = {} if cross_play else {"embedder": args.embedder}
    if args.smoke:  # what the command line gave stays as given
        apply_smoke(args, SMOKE)
        overrides.update(vocabulary_size=300, n_simulations=16, pair_clues=0)
    size = 300 if args.smoke else None
    try:
        inputs = read_inputs(args, overrides)
        deck = inputs.deck or args.deck
        # The models, before anything is played or written: one that does not load is bad input.
        for name in args.population if args.crossplay else ():
            refuse_ground_truth(name)
        resources = (None if args.crossplay else
                     load_member_resources(args.embedder, deck, vocabulary_size=size))
        members = [(name, load_member_resources(name, deck, vocabulary_size=size))
                   for name in args.population]
    except (ValueError, OSError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    records = inputs.records
    settings = {"args": asdict(args), "agent_options": dict(overrides)}
    # The run is named by the second it started; its folder (its own, even beside a run started
    # in the same second) is made when its first file is written, and announced then.
    started, run = time.time(), None

    def new_announced_run() -> Path:
        folder = new_run(args, started)
        if announce is not None:
            announce(folder)
        return folder

    if args.crossplay:
        return _crossplay(args, new_announced_run(), overrides)

    if args.play_games:
        played = play_table(args.agents, n_games=args.play_games, seed=args.seed,
                            edition=args.edition, deck=args.deck, overrides=overrides)
        run = new_announced_run()
        write_records(run / "fit_games.jsonl", played)
        records += played
        inputs.files.append({"path": str(run / "fit_games.jsonl"),
                             "sha256": file_sha256(run / "fit_games.jsonl"),
                             "games": len(played), "played_here": True})

    assert resources is not None
    fit_records, held_records = split_fit_held(records)
    voters = {"all": None, "human": human_voters,
              "other-models": other_model_voters(resources.fingerprint)}[args.voters]
    tellers = human_tellers if args.tellers == "human" else None
    observations, voter_models = observations_and_voters(fit_records, resources.cards,
                                                         resources.texts, voters, tellers)
    if not observations:
        held_note = (f"{len(held_records)} game(s) held out, not fitted" if held_records
                     else "none held out")
        whose = f"--voters {args.voters}" + (f", --tellers {args.tellers}"
                                             if args.tellers != "all" else "")
        message = (f"no votes to fit ({whose}) in the {len(fit_records)} fitted "
                   f"game(s) of {len(records)} ({held_note})")
        if run is None:  # only the records given were read: bad input, nothing written
            print(f"error: {message}", file=sys.stderr)
            return 2
        # The games were played (work done, kept in the run folder): a failed run.
        print(f"error: {message}; {run} is left partial: it holds the {args.play_games} games "
              f"played (fit_games.jsonl) and no fit; choose --voters who voted in them, or "
              "give more games", file=sys.stderr)
        return 1
    run = run or new_announced_run()
    model = fit_guess_model(observations, fit_bias=args.fit_bias,
                            temperature_range=TEMPERATURE_SEARCH)
    bound_warnings = search_bound_warnings(model, args.fit_bias)
    for line in bound_warnings:
        print(f"warning: {line}", file=sys.stderr)
    search = {"temperature": list(TEMPERATURE_SEARCH),
              "bias": list(BIAS_GRID) if args.fit_bias else [0.0, 0.0]}
    deck_fingerprint = inputs.deck_fingerprint or load_deck_fingerprint(deck)
    correlation, between = fit_correlation(fit_records, resources.cards, resources.texts, model)
    if args.voters != "all":  # guessers of other minds: their noise is not shared
        correlation = 0.0
    model = GuessModel(model.temperature, model.bias, correlation)
    beliefs = belief_figures(observations)
    before = GuessModel()
    summary = {
        "votes": len(observations), "rounds": sum(len(r.rounds) for r in records),
        "games": len(records), "fitted_games": len(fit_records),
        "held_out_games": len(held_records),
        "held_out_seeds": sorted({record.seed for record in held_records}),
        "voters": args.voters, "tellers": args.tellers,
        VOTERS_KEY: voter_models,
        "embedder": resources.fingerprint, "deck": deck, "deck_fingerprint": deck_fingerprint,
        "inputs": inputs.files, **settings, "search": search, "warnings": bound_warnings,
        "fitted": {"temperature": model.temperature, "bias": model.bias,
                   "correlation": model.correlation, "correlation_evidence": between},
        "beliefs": beliefs,
        "log_likelihood": {"fitted": log_likelihood(observations, model.temperature, model.bias),
                           "built-in": log_likelihood(observations, before.temperature,
                                                      before.bias)},
    }
    out = Path(args.out) if args.out else run / "guess_model.json"
    notes = {"embedder": resources.fingerprint, "votes": len(observations), "deck": deck,
             "deck_fingerprint": deck_fingerprint, "voters": args.voters,
             "tellers": args.tellers, VOTERS_KEY: voter_models, "inputs": inputs.files,
             **settings, "search": search, "warnings": bound_warnings}
    model.save(out, **notes)
    if args.write_default:
        model.save(DEFAULT_CALIBRATION, **notes)
    print(f"fitted temperature {model.temperature:.4f}, bias {model.bias:.3f} "
          f"on {len(observations)} votes; correlation {model.correlation:.2f} (rounds with 2 to "
          f"n-1 finders: {between['between_observed']:.0f} observed, "
          f"{between['between_independent']:.1f} if votes were independent); wrote {out}")
    told = " (rounds people told)" if args.tellers == "human" else ""
    print(f"beliefs{told}: the storyteller's card is the voter's most similar in "
          f"{beliefs['top_card_right']:.3f} of votes; the temperature at which the voters' "
          f"similarities best predict it is {beliefs['temperature']:.4f} (a guesser's "
          f"belief_temperature; the votes' own temperature is {model.temperature:.4g})")

    if held_records:
        held = ece_by_voter(vote_predictions(held_records, resources.cards, resources.texts,
                                             model, voters, tellers), args.bins)
        summary["held_out_ece_by_voter"] = held
        print(f"held-out ECE of the fitted model ({len(held_records)} games), per guesser:")
        for name, cell in held.items():
            print(f"  {name:28s} ECE {cell['ece']:.3f}  predicted {cell['predicted']:.3f} "
                  f"observed {cell['observed']:.3f}  ({cell['votes']:.0f} votes)")
    if args.population:
        fit, fit_notes = fit_population(fit_records, members, fit_bias=args.fit_bias)
        population_out = (Path(args.population_out) if args.population_out
                          else run / "population.json")
        fit.save(population_out)
        if args.write_default_population:
            fit.save(DEFAULT_POPULATION_FILE)
        summary["population"] = {"members": fit.members, **fit_notes}
        print(f"population guess models (fitted to other models' votes) -> {population_out}")
        for name, member in members:
            entry = fit.members.get(member.fingerprint)
            if entry is None:
                print(f"  {name}: no votes by other models; not fitted")
                continue
            line = (f"  {name:22s} temperature {entry['temperature']:.4f} bias "
                    f"{entry['bias']:+.3f} on {entry['votes']} votes")
            if held_records:
                keep = other_model_voters(member.fingerprint)
                held = ece_by_voter(vote_predictions(
                    held_records, member.cards, member.texts,
                    fit.model_for(member.fingerprint, GuessModel()), keep), args.bins)
                entry["held_out_ece_by_voter"] = held
                line += "; held-out ECE " + ", ".join(
                    f"{k} {v['ece']:.3f}" for k, v in held.items())
            print(line)
    predicted, observed, _ = predictions_of(records)
    if predicted:
        result = reliability(predicted, observed, args.bins)
        plot_reliability(result, run / "reliability_records.png",
                         f"{args.embedder}: the records' own predictions (before fitting)")
        summary["ece_records"] = result.ece
        print(f"ECE of the records' own predictions (the guess models they were played with), "
              f"over the {len(predicted)} rounds of the records: {result.ece:.3f}")
    if args.validate_games:
        fresh = play_table(args.agents, n_games=args.validate_games, seed=args.seed + 1,
                           edition=args.edition, deck=args.deck,
                           overrides={**overrides, "calibration": str(out)})
        write_records(run / "validation_games.jsonl", fresh)
        predicted, observed, _ = predictions_of(fresh)
        result = reliability(predicted, observed, args.bins)
        plot_reliability(result, run / "reliability.png",
                         f"{args.embedder}: fresh games with the fitted guess model")
        summary["ece_after"] = result.ece
        summary["validation_rounds"] = len(predicted)
        print(f"ECE after fitting, over the {len(predicted)} rounds of {args.validate_games} "
              f"fresh validation games: {result.ece:.3f}")
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer)
        writer.writerow(["predicted", "observed"])
        writer.writerows(zip(predicted, observed, strict=True))
        write_text(run / "validation_rounds.csv", buffer.getvalue())
    write_json(run / "summary.json", summary)
    print(f"run folder: {run}")
    return 0


def _crossplay(args: Args, run: Path, overrides: dict[str, object]) -> int:
    """``--crossplay``: the population's guess models from leave-one-out cross-play tables."""
    from models.players.crossplay import fit_population_crossplay

    games = args.play_games or 4
    result = fit_population_crossplay(
        args.population, deck=args.deck, edition=args.edition, games=games,
        iterations=args.iterations, seed=args.seed, start=None, fit_bias=args.fit_bias,
        agent_options={k: v for k, v in overrides.items() if k != "embedder"}, folder=run,
        progress=print, validate=args.validate_games)
    write_records(run / "crossplay_games.jsonl", result.records)
    out = Path(args.population_out) if args.population_out else run / "population.json"
    result.fit.save(out)
    if args.write_default_population:
        result.fit.save(DEFAULT_POPULATION_FILE)
    print("\n".join(result.summary_lines()))
    summary = {"crossplay": True, "members": args.population, "games_per_member": games,
               "iterations": result.iterations, "validation": result.validation,
               "population_file": str(out), "args": asdict(args),
               "agent_options": dict(overrides)}
    write_json(run / "summary.json", summary)
    print(f"population guess models (leave-one-out cross-play) -> {out}")
    print(f"run folder: {run}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
