"""Running a benchmark: models answer every item; each answer is written as a record.

The run folder gets ``bench.json`` (the settings, the models as they describe themselves, the
reference population, versions; written with the folder, marked ``"finished": false`` until the
last record), ``records.jsonl`` (one line per model and item: what it was shown, what it
answered, how it scored), then :func:`models.bench.analysis.analyse` computes every
figure from those two files (``results.csv``, ``results.json``, plots, ``report.md``), which is
what ``dixit-ai bench --analyse RUN_FOLDER`` redoes.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.reporting import progress_interval, run_folder, write_json
from dixit_ai.rules import RuleSet, Tell, Vote
from dixit_ai.versions import package_versions
from models.bench.config import BenchConfig
from models.bench.contestants import Contestant, load_contestant, ready_to_embed
from models.bench.items import DeckFacts, GuessItem, ItemSets, item_seed
from models.bench.tables import ask, laid, round_start, told
from models.bench.timing import InferenceTimer
from models.evaluation import QUERY_KINDS, TIE, target_rank

EDITION = "refresh-2021"
"""The rules of every bench table (one vote per guesser at every table size used)."""


class BenchAborted(RuntimeError):
    """An agent failed a decision under ``on_failure="abort"``: the benchmark stopped (the
    message names the run folder, which keeps the records so far)."""


class BenchInterrupted(KeyboardInterrupt):
    """The benchmark was interrupted (Ctrl-C) after its run folder was made.

    Attributes:
        folder: The run folder: ``bench.json`` (marked ``"finished": false``) and the records
            written so far, which ``dixit-ai bench --analyse`` reads.
        records: How many records were written.
    """

    def __init__(self, folder: Path, records: int) -> None:
        super().__init__(f"interrupted; the {records} record(s) so far are in {folder}")
        self.folder = folder
        self.records = records


@dataclass
class BenchRun:
    """What :func:`run_bench` returns: the run folder, the results and the timings."""

    folder: Path
    results: dict[str, Any]
    timing: dict[str, Any]


class _Recorder:
    """Appends records to ``records.jsonl`` as items are answered: each line is flushed to the
    operating system as it is written (a killed process loses none of the records written),
    and the file is fsynced when it is closed (the tournament fsyncs each game: a benchmark
    writes thousands of small records, which a per-record fsync would slow down)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle = path.open("w", encoding="utf-8")
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        self.handle.write(json.dumps(record, sort_keys=False) + "\n")
        self.handle.flush()
        self.count += 1

    def close(self) -> None:
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()



def run_bench(config: BenchConfig, *, progress: bool = True, show: bool = True,
              log: Callable[[str], None] | None = print,
              on_failure: str = "forfeit",
              announce: Callable[[Path], None] | None = None) -> BenchRun:
    """Run a benchmark and analyse it; returns the run folder, results and timings.

    Args:
        config: The settings (checked first: nothing runs, and no folder is made, on a bad
            setting).
        progress: Show a progress bar.
        show: Print the leaderboard.
        log: Where one-line messages go (``None``: nowhere).
        on_failure: What an agent's failed decision (an error, an illegal move) costs:
            ``"forfeit"`` (the default: the item scores 0, is recorded as invalid and counted in
            the invalid-answer rate) or ``"abort"`` (the benchmark stops at the first one,
            raising :class:`BenchAborted`; the records so far stay in the run folder).
        announce: Called with the run folder once it is made: the settings, the deck and the
            models were checked and loaded (every embedder able to embed the clues the run
            will give it: :func:`ready_to_embed`), and the work (writing the records) begins.

    Raises:
        ValueError: a bad setting (unknown model or task, items < 1, ...), or a model that
            cannot load or embed what the run needs (:class:`~models.base.EmbedderLoadError`,
            naming the extra to install).
        BenchAborted: a failed decision under ``on_failure="abort"``.
        BenchInterrupted: Ctrl-C once the run folder was made (it names the folder, whose
            ``bench.json`` says ``"finished": false`` until the records are complete).
    """
    from dixit_ai.decks import load_deck
    from models.bench.analysis import analyse

    say = log or (lambda _message: None)
    if on_failure not in ("abort", "forfeit"):
        raise ValueError(f"on_failure must be 'abort' or 'forfeit', not {on_failure!r}")
    specs = config.validate()
    started = time.perf_counter()
    deck = load_deck(config.deck)
    facts = DeckFacts.of(deck)
    item_sets = ItemSets(facts, seed=config.seed, items=config.items,
                         board_size=config.board_size, reference_deals=config.reference_deals,
                         tell_cards=config.tell_cards)
    rules = RuleSet.edition(EDITION)

    with InferenceTimer() as timer:
        load_start = time.perf_counter()
        contestants = [load_contestant(spec, config, deck) for spec in specs]
        for contestant in contestants:
            contestant.abort_on_failure = on_failure == "abort"
        agents = [c for c in contestants if c.is_agent]
        reference = None
        if "decoy" in config.tasks or "tell" in config.tasks:
            from models.bench.reference import ReferencePopulation
            from models.registry import load_embedder

            reference = ReferencePopulation(
                load_embedder(config.reference, device=config.device), deck)
            if reference.calibrated is False:
                say(f"note: the reference population's guess model is not calibrated for "
                    f"{config.reference}: it was fitted for {reference.fitted_for}, on "
                    "another similarity scale (its decoy and tell figures are not those of "
                    "calibrated guessers)")
        panel = None
        if config.panel and "tell" in config.tasks:
            from models.bench.panel import PanelTable

            panel = PanelTable(config.panel, deck, seed=config.seed)
        load_seconds = time.perf_counter() - load_start

        guess_items = item_sets.guess_items() if "guess" in config.tasks else {}
        tell_items = (item_sets.tell_items()
                      if "tell" in config.tasks or ("guess" in config.tasks and agents) else [])
        decoy_items = item_sets.decoy_items() if "decoy" in config.tasks else []
        # Every embedder can embed what the run will ask of it before the run folder is made
        # (a missing extra is bad input, not a failed run): the clues of the guess and decoy
        # items, and, where agents tell, clues known only once told.
        check_start = time.perf_counter()
        told = bool(agents and tell_items)
        guess_clues = [item.clue for kind in guess_items.values() for item in kind]
        decoy_clues = [item.clue for item in decoy_items]
        # The clues known ahead are embedded now, so that a model that cannot embed them
        # (vectors that are not finite: a broken checkpoint) is refused before the folder too.
        for contestant in contestants:
            if contestant.embedder is not None:
                ready_to_embed(contestant.embedder, guess_clues + decoy_clues,
                               told=told and "guess" in config.tasks,
                               who=f"the model under test {contestant.label!r}")
                contestant.prepare_texts(guess_clues + decoy_clues)
        if reference is not None:
            ready_to_embed(reference.embedder, decoy_clues,
                           told=told and "tell" in config.tasks,
                           who=f"the reference population ({config.reference})")
            reference.prepare(decoy_clues)
        load_seconds += time.perf_counter() - check_start
        # A storyteller that simulates a panel member is refused before the folder too.
        held_out = ({c.label: panel.check_held_out(c.label, c.agent.describe()) for c in agents}
                    if panel is not None and reference is not None and "tell" in config.tasks
                    else {})
        # The guess task also asks every contestant about every agent's stories.
        guesses = (sum(len(v) for v in guess_items.values()) + len(agents) * len(tell_items)
                   if "guess" in config.tasks else 0)
        total = (len(agents) * len(tell_items) + len(contestants) * guesses
                 + len(contestants) * len(decoy_items))

        def header() -> dict[str, Any]:
            # Every storyteller's story items are guess items too (``story:<label>``): before
            # the tell task is done their number is at most one per tell item (a failed tell, or
            # a card with no caption board, makes none); once told, the number made.
            guess_counts = {k: len(v) for k, v in guess_items.items()}
            stories = "guess" in config.tasks and bool(agents)
            told_all = all(f"story:{c.label}" in guess_items for c in agents)
            if stories and not told_all:
                guess_counts |= {f"story:{c.label}": len(tell_items) for c in agents}
            counted = {"stories": "counted" if told_all else "at most"} if stories else {}
            return {
                "format": 1,
                "config": config.to_dict(),
                "edition": EDITION,
                "deck": {"spec": config.deck, "name": deck.name, "fingerprint": deck.fingerprint,
                         "size": len(deck)},
                "models": [c.describe() for c in contestants],
                "reference": reference.describe() if reference is not None else None,
                "panel": panel.describe() if panel is not None else None,
                "items": {"guess": guess_counts, "decoy": len(decoy_items),
                          "tell": len(tell_items), **counted},
                "versions": package_versions(),
            }

        folder = run_folder("bench", config.name, config.seed, root=config.out)
        if announce is not None:
            announce(folder)
        # The header goes in with the folder, marked unfinished: a run stopped midway (Ctrl-C,
        # an abort) is still a run folder whose records `dixit-ai bench --analyse` reads.
        write_json(folder / "bench.json", {**header(), "finished": False})
        recorder = _Recorder(folder / "records.jsonl")
        bar = _progress(total, progress)
        try:
            stories = _tell(agents, tell_items, rules, config, deck, reference, recorder, bar,
                            panel, held_out)
            if "guess" in config.tasks:
                for storyteller in agents:
                    kind = f"story:{storyteller.label}"
                    guess_items[kind] = item_sets.story_items(kind, stories[storyteller.label])
                # The stories' items are known now: a run stopped from here on counts them.
                write_json(folder / "bench.json", {**header(), "finished": False})
                _guess(contestants, guess_items, rules, config, deck, recorder, bar)
            if decoy_items:
                assert reference is not None
                _decoy(contestants, decoy_items, rules, config, deck, reference, recorder, bar)
        except KeyboardInterrupt:
            raise BenchInterrupted(folder, recorder.count) from None
        except BenchAborted as error:
            # The failure that stopped the run is recorded with it, not only printed.
            write_json(folder / "bench.json", {**header(), "finished": False,
                                               "aborted": str(error)})
            raise BenchAborted(f"{error}; the {recorder.count} record(s) so far are in "
                               f"{folder}, and its bench.json says what failed") from error
        finally:
            bar.close()
            recorder.close()

    total_seconds = time.perf_counter() - started
    timing = {
        **timer.to_dict(),
        "load_s": round(load_seconds, 4),
        "total_s": round(total_seconds, 4),
        "decisions_s": {c.label: round(c.decision_seconds, 4) for c in contestants},
        "records": recorder.count,
    }
    try:
        write_json(folder / "bench.json", header())  # finished: the unfinished mark goes
        write_json(folder / "timing.json", timing)
        say(f"inference {timing['inference_s']:.2f} s of {total_seconds:.2f} s "
            f"({timing['items_encoded']} images/texts encoded; the rest were shipped with the "
            "package or cached)")
        results = analyse(folder, show=show)
    except KeyboardInterrupt:
        raise BenchInterrupted(folder, recorder.count) from None
    say(f"run folder: {folder}")
    return BenchRun(folder, results, timing)


def _progress(total: int, enabled: bool) -> Any:
    """The bench's bar on stderr: redrawn ten times a second on a terminal, once a minute in a
    log file or a pipe (:func:`dixit_ai.reporting.progress_interval`)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="bench", unit="item", disable=not enabled, leave=False,
                file=sys.stderr, mininterval=progress_interval(sys.stderr))


@dataclass(frozen=True)
class _Question:
    """One decision asked of an agent: a state, the seat, and the seed of its generator."""

    state: Any
    seat: int
    seed: np.random.SeedSequence


def _ask_all(contestant: Contestant, questions: list[_Question], bar: Any
             ) -> list[tuple[Any, dict[str, Any], float | None, str | None]]:
    """Ask every question (in parallel for HTTP agents); answers in question order."""

    def answer(agent: Any, question: _Question) -> Any:
        agent.reset(seat=question.seat, rng=np.random.default_rng(question.seed))
        result = ask(agent, question.state, question.seat)
        if result[3] is not None and contestant.abort_on_failure:
            raise BenchAborted(f"{contestant.label} failed a decision (--on-failure abort): "
                               f"{result[3]}")
        return result

    start = time.perf_counter()
    answers: list[Any] = [None] * len(questions)
    try:
        if not contestant.workers:
            for k, question in enumerate(questions):
                answers[k] = answer(contestant.agent, question)
                bar.update(1)
            return answers
        import queue
        from concurrent.futures import ThreadPoolExecutor

        idle: queue.Queue[Any] = queue.Queue()
        for agent in [contestant.agent, *contestant.workers]:
            idle.put(agent)

        def job(k: int) -> None:
            agent = idle.get()
            try:
                answers[k] = answer(agent, questions[k])
            finally:
                idle.put(agent)
                bar.update(1)

        with ThreadPoolExecutor(max_workers=1 + len(contestant.workers)) as pool:
            list(pool.map(job, range(len(questions))))
        return answers
    finally:
        contestant.decision_seconds += time.perf_counter() - start


def _seed(config: BenchConfig, task: str, index: int, kind: str) -> np.random.SeedSequence:
    return item_seed(config.seed, task, index, f"{kind}/agent")


# ---------------------------------------------------------------------- tell


def _tell(agents: list[Contestant], items: list[Any], rules: RuleSet, config: BenchConfig,
          deck: Any, reference: Any, recorder: _Recorder, bar: Any, panel: Any = None,
          held_out: dict[str, list[str]] | None = None
          ) -> dict[str, list[tuple[int, int, str] | None]]:
    """Every agent tells on every tell item; returns ``(item, card, clue)`` per agent.

    With a panel (:class:`models.bench.panel.PanelTable`), each story is also played on real
    boards against the panel's guessers; ``held_out`` is each storyteller's held-out members
    (:meth:`~models.bench.panel.PanelTable.check_held_out`, which refused, before the run
    folder was made, a storyteller whose simulation uses a member's model).
    """
    held_out = held_out or {}
    stories: dict[str, list[tuple[int, int, str] | None]] = {}
    deck_ids = [int(c) for c in deck.card_ids]
    questions = [_Question(round_start(rules, [item.hand, *item.deals[0]], deck_ids), 0,
                           _seed(config, "tell", item.index, "tell")) for item in items]
    scored = reference is not None and "tell" in config.tasks
    for contestant in agents:
        answers = _ask_all(contestant, questions, bar)
        description = contestant.agent.describe()
        target = (description.get("target_guess_rate")
                  if description.get("mode", "target") == "target" else None)
        if scored:
            reference.prepare([a.clue for a, _, _, _ in answers if isinstance(a, Tell)])
        told_list: list[tuple[int, int, str] | None] = []
        for item, (action, _notes, predicted, error) in zip(items, answers, strict=True):
            record: dict[str, Any] = {
                "task": "tell", "model": contestant.label, "item": item.index,
                "hand": list(item.hand), "card": None, "clue": None,
                "predicted": None if predicted is None else float(predicted),
                "target": None if target is None else float(target),
                "observed": None, "success": None, "invalid": error is not None,
                "error": error}
            if isinstance(action, Tell):
                record["card"], record["clue"] = int(action.card), action.clue
                told_list.append((item.index, int(action.card), action.clue))
                if scored:
                    observed, success = reference.story_outcome(action.clue, action.card,
                                                                item.deals)
                    record["observed"], record["success"] = observed, success
                    if panel is not None:
                        record["panel"] = panel.story_outcome(action.clue, action.card,
                                                              item.deals, item.index)
                        record["held_out"] = held_out[contestant.label]
            else:
                told_list.append(None)
            if "tell" in config.tasks:
                recorder.write(record)
        stories[contestant.label] = told_list
    return stories


# ---------------------------------------------------------------------- guess


def _guess(contestants: list[Contestant], items: dict[str, list[GuessItem]], rules: RuleSet,
           config: BenchConfig, deck: Any, recorder: _Recorder, bar: Any) -> None:
    deck_ids = [int(c) for c in deck.card_ids]
    kinds = [k for k in QUERY_KINDS if k in items] + [k for k in items if k not in QUERY_KINDS]
    flat = [item for kind in kinds for item in items[kind]]
    questions: list[_Question] = []
    if any(c.is_agent for c in contestants):
        for item in flat:
            hands = [(item.target,), (item.own_card, *item.own_hand),
                     *[(d,) for d in item.distractors]]
            state = told(round_start(rules, hands, deck_ids), item.target, item.clue)
            state = laid(state, [item.own_card, *item.distractors], np.random.default_rng(
                item_seed(config.seed, "guess", item.index, item.kind)))
            questions.append(_Question(state, 1, _seed(config, "guess", item.index, item.kind)))
    for contestant in contestants:
        if contestant.is_agent:
            records = [_guess_agent(item, question, answer) for item, question, answer in
                       zip(flat, questions, _ask_all(contestant, questions, bar), strict=True)]
        else:
            start = time.perf_counter()
            contestant.prepare_texts([item.clue for item in flat])
            records = []
            for item in flat:
                records.append(_guess_embedder(
                    contestant, item, item_seed(config.seed, "guess", item.index,
                                                f"{item.kind}/tie")))
                bar.update(1)
            contestant.decision_seconds += time.perf_counter() - start
        for item, record in zip(flat, records, strict=True):
            recorder.write({"task": "guess", "model": contestant.label, "kind": item.kind,
                            "item": item.index, "clue": item.clue, "target": item.target,
                            **record})


def _guess_embedder(contestant: Contestant, item: GuessItem,
                    seed: np.random.SeedSequence) -> dict[str, Any]:
    """Score one board by cosine. Ties are broken at random, in expectation: top-1 shares the
    point among the cards tied first, and the reciprocal rank is its expectation over the
    orders of the cards tied with the target (a model that ties every board scores chance in
    both, not MRR 1 because the target is listed first); ``answer`` is one of the cards tied
    first, drawn with ``seed``."""
    cards = item.cards
    sims = contestant.scores(item.clue, cards)
    tied = np.flatnonzero(sims >= sims.max() - TIE)
    standing = target_rank(sims, 0)
    answer = int(tied[0]) if len(tied) == 1 else int(np.random.default_rng(seed).choice(tied))
    return {"board": list(cards), "answer": int(cards[answer]),
            "scores": [round(float(s), 6) for s in sims], "correct": standing.top1,
            "rank": standing.rank, "reciprocal_rank": standing.reciprocal_rank,
            "invalid": False, "error": None}


def _guess_agent(item: GuessItem, question: _Question, answer: Any) -> dict[str, Any]:
    action, _notes, _predicted, error = answer
    state = question.state
    chosen = None
    if isinstance(action, Vote):
        chosen = int(state.board[action.positions[0]])
    return {"board": list(state.board), "own_card": item.own_card, "answer": chosen,
            "scores": None, "correct": 1.0 if chosen == item.target else 0.0, "rank": None,
            "invalid": error is not None, "error": error}


# ---------------------------------------------------------------------- decoy


def _decoy(contestants: list[Contestant], items: list[Any], rules: RuleSet,
           config: BenchConfig, deck: Any, reference: Any, recorder: _Recorder, bar: Any
           ) -> None:
    deck_ids = [int(c) for c in deck.card_ids]
    reference.prepare([item.clue for item in items])
    outcomes = [[reference.decoy_outcome(item.clue, item.storyteller_card, card, item.deals)
                 for card in item.hand] for item in items]
    questions = [_Question(
        told(round_start(rules, [(item.storyteller_card,), item.hand, *item.deals[0]],
                         deck_ids), item.storyteller_card, item.clue),
        1, _seed(config, "decoy", item.index, "decoy")) for item in items]
    for contestant in contestants:
        choices: list[int | None] = []
        errors: list[str | None] = []
        if contestant.is_agent:
            for action, _notes, _predicted, error in _ask_all(contestant, questions, bar):
                choices.append(int(action.cards[0]) if action is not None else None)
                errors.append(error)
        else:
            start = time.perf_counter()
            contestant.prepare_texts([item.clue for item in items])
            for item in items:
                sims = contestant.scores(item.clue, item.hand)
                choices.append(int(item.hand[int(np.argmax(sims))]))
                errors.append(None)
                bar.update(1)
            contestant.decision_seconds += time.perf_counter() - start
        for item, outcome, choice, error in zip(items, outcomes, choices, errors, strict=True):
            shares = [round(s, 6) for s, _ in outcome]
            drawn = [round(a, 6) for _, a in outcome]
            chosen = item.hand.index(choice) if choice is not None else None
            recorder.write({
                "task": "decoy", "model": contestant.label, "item": item.index,
                "clue": item.clue, "storyteller_card": item.storyteller_card,
                "hand": list(item.hand), "choice": choice, "shares": shares,
                "drew_vote": drawn,
                "share": shares[chosen] if chosen is not None else 0.0,
                "drew": drawn[chosen] if chosen is not None else 0.0,
                "invalid": error is not None, "error": error})
