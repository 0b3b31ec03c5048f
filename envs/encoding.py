"""Observation modes and the flat ``Discrete`` action of the environments.

:class:`Encoding` turns what a seat may know (the rules' :class:`~dixit_ai.rules.View`, through
:class:`~envs.core.DixitCore`) into one of three observation modes, and maps a flat action index
back to the core's action:

- ``observation="ids"``: card ids as numbers (today's ``Dict``, the default);
- ``observation="onehot"``: every card slot one-hot over the deck, the clue one-hot over the clue
  vocabulary (one extra column: a clue outside it);
- ``observation="embedding"``: every card slot (hand, board, played, last board) and the clue as
  vectors of an embedder (:mod:`envs.vectors`), plus each hand and board slot's cosine similarity
  to the clue, raw and standardised over the slots (``*_similarity_z``, divided by 3 and clipped
  to ``[-1, 1]``): what a guesser must compare, given as a feature, so that a policy network
  reads one number per slot instead of discovering a dot product of two 384-d inputs.

Every mode also has ``scalars`` (phase one-hot, second-turn flag, storyteller flag, storyteller
one-hot relative to the seat, scores and last round's points relative to the seat, scaled) and
slot flags (``hand_present``, ``board_present``, ``board_own``: positions the seat may not vote
for). All values are ``float32`` in finite bounds (``[-1, max_card_id]`` for ids, ``[-1, 1]`` for
vectors and similarities, ``[0, 2]`` for scaled scores), so no normaliser is needed.

``flatten=True`` gives one flat ``Box`` (the fields concatenated in :meth:`Encoding.layout`
order), in PettingZoo classic form ``{"observation": Box, "action_mask": Box(int8)}``;
``classic=True`` alone gives ``{"observation": Dict(fields), "action_mask": ...}``; otherwise the
mask is the ``action_mask`` field of the ``Dict``, as today.

``actions="discrete"`` makes the action one ``Discrete(N)`` whose mask covers the whole decision:
on tell turns index ``i * C + j`` is hand card ``i`` with clue candidate ``j`` of the clue
proposer (``C = clues_per_card`` candidates per card: the vector table's most specific clues for
that card, or, without a table, the clue vocabulary itself); on play turns the hand index; on vote
turns the board position (``A - 1``: pass a second vote where one exists).

Options that would change nothing are refused (``ValueError``) rather than ignored:
``clues_per_card`` or ``clue_proposer`` without ``actions="discrete"``, ``flatten=True`` with
``classic=True``, and, without vectors, ``clue_proposer="spread"|"specific"`` or
``clues_per_card`` (the candidates are then the whole vocabulary) unless the proposer is a
function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from dixit_ai.rules import Announce, Phase, Tell, View
from envs.core import PHASE_INDEX, PHASES, DixitCore, Mask, Move
from envs.policies import clue_candidates, specificity
from envs.vectors import VectorTable

ObservationMode = Literal["ids", "onehot", "embedding"]
ActionMode = Literal["dict", "discrete"]
OBSERVATION_MODES = ("ids", "onehot", "embedding")
ACTION_MODES = ("dict", "discrete")
SCORE_CAP = 2.0
"""Scaled scores (``score / score_scale``) are clipped to ``[0, SCORE_CAP]``."""

Floats = npt.NDArray[np.float32]
CluePropose = Callable[[int], Sequence[str]]


def _check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, not {value!r}")
    return str(value)


class Encoding:
    """The observation and action formats of one environment (see the module docstring).

    Args:
        core: The environment's core.
        observation: ``"ids"``, ``"onehot"`` or ``"embedding"``.
        flatten: One flat ``Box`` observation (classic ``{"observation", "action_mask"}``).
        classic: PettingZoo classic form with the fields kept as a ``Dict`` (not with
            ``flatten``).
        actions: ``"dict"`` (``{"card", "clue"}``) or ``"discrete"``.
        table: Card and clue vectors (needed by ``"embedding"``; gives the clue proposer).
        clues_per_card: Clue candidates per hand card of the flat tell action (``None``: 8);
            ``actions="discrete"`` only, and with a table or a proposer function.
        clue_proposer: ``card id -> clues_per_card clues``, ``"spread"`` (the table's clues at
            spaced specificity ranks, :func:`~envs.policies.clue_candidates`) or
            ``"specific"`` (the table's most specific clues for the card); ``None``:
            ``"specific"`` with a table, the whole clue vocabulary for every card without one.
            ``actions="discrete"`` only; ``"spread"`` and ``"specific"`` need a table.

        embedding_dim: Show card and clue vectors in this many principal directions of the
            table (``None``: all); similarities are computed on the full vectors.

    Raises:
        ValueError: a bad option (the message names it and its choices).
    """

    def __init__(self, core: DixitCore, *, observation: str = "ids", flatten: bool = False,
                 classic: bool = False, actions: str = "dict", table: VectorTable | None = None,
                 clues_per_card: int | None = None,
                 clue_proposer: CluePropose | str | None = None,
                 embedding_dim: int | None = None) -> None:
        self.core = core
        self.mode: ObservationMode = _check_choice(  # type: ignore[assignment]
            "observation", observation, OBSERVATION_MODES)
        self.actions: ActionMode = _check_choice(  # type: ignore[assignment]
            "actions", actions, ACTION_MODES)
        for name, flag in (("flatten", flatten), ("classic", classic)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be True or False, not {flag!r}")
        if flatten and classic:
            raise ValueError("flatten=True and classic=True do not go together: flatten gives "
                             "the classic form with one flat Box observation, classic=True the "
                             "classic form with the fields kept as a Dict; choose one")
        self.flatten = flatten
        self.classic = classic or flatten
        self.legacy = self.mode == "ids" and not flatten and not classic
        if self.mode == "embedding" and table is None:
            raise ValueError("observation='embedding' needs a vector table")
        self.table = table
        """The full vectors: similarities, specificities and the clue proposer read them."""
        self.vector_table = table if table is None or embedding_dim is None else table.projected(
            embedding_dim)
        """The vectors shown in the observation's vector fields (``embedding_dim`` directions)."""
        self.n_players = core.n_players
        rules = core.rules
        self.score_scale = float(rules.score_limit or 30)
        self.vocabulary: tuple[str, ...] = (
            table.clues if table is not None else core.vocab or _default_words())
        self.vocabulary_index = (table.clue_row if table is not None
                                 else {clue: i for i, clue in enumerate(self.vocabulary)})
        self._candidate_z = np.zeros((0, 0), dtype=np.float32)
        self._setup_actions(clues_per_card, clue_proposer)
        self._deck_row = {card: i for i, card in enumerate(core.card_ids)}
        self._fields = self._field_spaces()
        self._slices: dict[str, slice] = {}
        offset = 0
        for key, size in self.layout():
            self._slices[key] = slice(offset, offset + size)
            offset += size
        self._size = offset

    # ------------------------------------------------------------------ actions

    def _setup_actions(self, given_per_card: int | None,
                       proposer: CluePropose | str | None) -> None:
        core = self.core
        self.clues_per_card = 0
        self.candidates: dict[int, tuple[str, ...]] = {}
        self.n_actions = core.n_actions
        if self.actions != "discrete":
            for name, value in (("clues_per_card", given_per_card), ("clue_proposer", proposer)):
                if value is not None:
                    raise ValueError(f"{name} is an option of actions='discrete' (the flat tell "
                                     f"action's clue candidates), not of actions="
                                     f"{self.actions!r}, where the action gives its own clue")
            return
        spread = proposer == "spread"
        if proposer is not None and proposer not in ("specific", "spread") and not callable(
                proposer):
            raise ValueError(f"clue_proposer must be 'specific', 'spread', a function or None, "
                             f"not {proposer!r}")
        if self.table is None and not callable(proposer):
            # Without vectors the candidates are the whole clue vocabulary, for every card.
            if proposer is not None:
                raise ValueError(f"clue_proposer={proposer!r} needs card and clue vectors "
                                 f"(observation='embedding', embeddings= or embedder=): without "
                                 f"them every card's tell candidates are the whole clue "
                                 f"vocabulary ({len(self.vocabulary)} words)")
            if given_per_card is not None:
                raise ValueError(f"clues_per_card needs card and clue vectors or a "
                                 f"clue_proposer function: without them every card's tell "
                                 f"candidates are the whole clue vocabulary "
                                 f"({len(self.vocabulary)} words), not {given_per_card!r}")
        clues_per_card = 8 if given_per_card is None else given_per_card
        if callable(proposer):
            if isinstance(clues_per_card, bool) or not isinstance(clues_per_card, int) or (
                    clues_per_card < 1):
                raise ValueError(f"clues_per_card must be a positive int, not {clues_per_card!r}")
            for card in core.card_ids:
                clues = tuple(proposer(card))
                if len(clues) != clues_per_card or not all(
                        isinstance(c, str) and c.strip() for c in clues):
                    raise ValueError(f"the clue proposer must give {clues_per_card} non-blank "
                                     f"clues per card; for card {card} it gave {clues[:3]!r}...")
                self.candidates[card] = clues
            self.clues_per_card = clues_per_card
        elif self.table is not None:
            indices, _ = clue_candidates(self.table, clues_per_card, spread=spread)
            clues = self.table.clues
            for card in core.card_ids:
                row = self.table.row.get(card)
                if row is None:
                    raise ValueError(f"card {card} of the deck is not in the vector table")
                self.candidates[card] = tuple(clues[int(i)] for i in indices[row])
            self.clues_per_card = clues_per_card
        else:
            words = self.vocabulary
            self.candidates = dict.fromkeys(core.card_ids, words)
            self.clues_per_card = len(words)
        if self.table is not None:
            rows = self.table.rows(core.card_ids)
            z = specificity(self.table)
            columns = np.asarray([[self.table.clue_row.get(c, -1) for c in self.candidates[card]]
                                  for card in core.card_ids])
            found = np.take_along_axis(z[rows], np.maximum(columns, 0), axis=1)
            # Scaled into [-1, 1] (z / 10); a proposed clue outside the vocabulary reads 0.
            scaled = np.clip(np.where(columns >= 0, found, 0.0) / 10.0, -1.0, 1.0)
            self._candidate_z = np.zeros((len(self.table.card_ids), self.clues_per_card),
                                         dtype=np.float32)
            self._candidate_z[rows] = scaled
        self.n_actions = max(core.hand_size * self.clues_per_card, core.n_actions)
        self._tell_masks: dict[int, Mask] = {}
        for size in range(core.hand_size + 1):
            mask = np.zeros(self.n_actions, dtype=np.int8)
            mask[: size * self.clues_per_card] = 1
            self._tell_masks[size] = mask

    def action_space(self) -> spaces.Space[Any]:
        """A new action space: the core's ``Dict``, or ``Discrete(N)``."""
        if self.actions == "dict":
            return self.core.action_space()
        return spaces.Discrete(self.n_actions)

    def mask(self, seat: int, acting: bool) -> Mask:
        """The ``int8`` mask of ``seat``'s actions (all zeros when it is not to act)."""
        core = self.core
        if self.actions == "dict":
            return core.action_mask(seat) if acting else core._no_mask.copy()
        if not acting or not core.is_acting(seat):
            return np.zeros(self.n_actions, dtype=np.int8)
        view = core.view(seat)
        if view.phase is Phase.TELL and core.party:
            # Dixit Party: the storyteller announces a vocabulary word, with no card.
            said: Mask = np.zeros(self.n_actions, dtype=np.int8)
            said[: min(len(self.vocabulary), self.n_actions)] = 1
            return said
        if view.phase is Phase.TELL:
            tell: Mask = self._tell_masks[len(view.hand)].copy()
            return tell
        mask = np.zeros(self.n_actions, dtype=np.int8)
        mask[: core.n_actions] = core.action_mask(seat)
        return mask

    def core_action(self, seat: int, action: Any) -> Any:
        """The core's action for an environment action (a flat index becomes card and clue)."""
        if self.actions == "dict" or isinstance(action, dict):
            return action
        core = self.core
        if isinstance(action, np.ndarray) and action.shape == (1,):
            action = action[0]
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            return action  # core.build names the problem
        index = int(action)
        if not 0 <= index < self.n_actions:
            return {"card": -1 - abs(index), "clue": "?"}
        if core.state.phase is Phase.TELL and seat in core.state.pending and core.party:
            if index >= len(self.vocabulary):
                return {"card": -1 - index, "clue": "?"}
            return {"card": 0, "clue": self.vocabulary[index], "clue_kind": "word"}
        if core.state.phase is Phase.TELL and seat in core.state.pending:
            hand = core.view(seat).hand
            position, candidate = divmod(index, self.clues_per_card)
            if position >= len(hand):
                return {"card": position, "clue": "?"}
            return {"card": position, "clue": self.candidates[hand[position]][candidate],
                    "clue_kind": "word"}
        return index

    def embeds(self, move: Move) -> bool:
        """Whether :meth:`admit` embeds ``move``'s clue (a tell, with embedding observations)."""
        return self.mode == "embedding" and isinstance(move, Tell | Announce) and bool(move.clue)

    def admit(self, move: Move) -> None:
        """Embed a told clue now, before ``move`` is applied (``observation="embedding"``).

        A clue outside the vector table's vocabulary is embedded on first sight; doing it here
        means a clue that cannot be embedded (no ``models`` extra for the text tower, or a
        table without an embedder) is refused by the tell itself, the game unchanged, rather
        than by the next observation after the tell was applied. The vector is remembered, so
        the observation that follows costs nothing more.

        Raises:
            ImportError, ValueError, EmbedderLoadError: whatever the table's embedder raises
                (the message names the extra to install), unchanged.
        """
        if not self.embeds(move):
            return
        assert isinstance(move, Tell | Announce)
        assert self.table is not None and self.vector_table is not None
        self.table.clue_vector(move.clue)
        if self.vector_table is not self.table:
            self.vector_table.clue_vector(move.clue)

    def action_for(self, seat: int, card: int, clue: str | None) -> int | None:
        """The flat index of telling ``card`` with ``clue`` (``None``: not a candidate)."""
        hand = self.core.view(seat).hand
        if card not in hand or clue not in self.candidates.get(card, ()):
            return None
        return hand.index(card) * self.clues_per_card + self.candidates[card].index(clue)

    # ------------------------------------------------------------------ observations

    def _field_spaces(self) -> dict[str, spaces.Box]:
        core = self.core
        n, hand, board, played = self.n_players, core.hand_size, core.board_size, core.played_size
        scalars = len(PHASES) + 2 + 3 * n + 1

        def box(shape: tuple[int, ...], low: float = 0.0, high: float = 1.0) -> spaces.Box:
            return spaces.Box(low=low, high=high, shape=shape, dtype=np.float32)

        fields: dict[str, spaces.Box] = {"scalars": box((scalars,), 0.0, SCORE_CAP)}
        slots = {"hand": hand, "board": board, "played": played, "last_board": board}
        if self.mode == "ids":
            top = float(core.max_card_id)
            for key, size in slots.items():
                fields[key] = box((size,), -1.0, top)
            fields["clue"] = box((1,), -1.0, float(len(self.vocabulary)))
        elif self.mode == "onehot":
            deck = len(core.card_ids)
            for key, size in slots.items():
                fields[key] = box((size * deck,))
            fields["clue"] = box((len(self.vocabulary) + 1,))
        else:
            assert self.vector_table is not None
            dim = self.vector_table.dim
            for key, size in slots.items():
                fields[key] = box((size * dim,), -1.0, 1.0)
            fields["clue"] = box((dim,), -1.0, 1.0)
            fields["hand_similarity"] = box((hand,), -1.0, 1.0)
            fields["board_similarity"] = box((board,), -1.0, 1.0)
            fields["hand_similarity_z"] = box((hand,), -1.0, 1.0)
            fields["board_similarity_z"] = box((board,), -1.0, 1.0)
            if self.actions == "discrete" and self.clues_per_card:
                fields["candidate_specificity"] = box((hand * self.clues_per_card,), -1.0, 1.0)
        fields["clue_present"] = box((1,))
        fields["hand_present"] = box((hand,))
        fields["board_present"] = box((board,))
        fields["board_own"] = box((board,))
        return fields

    def layout(self) -> list[tuple[str, int]]:
        """The fields of the flat observation, ``(name, size)`` in order."""
        return [(key, int(np.prod(space.shape))) for key, space in self._fields.items()]

    def observation_space(self) -> spaces.Space[Any]:
        """A new observation space in this encoding's format."""
        mask = spaces.Box(low=0, high=1, shape=(self.n_actions,), dtype=np.int8)
        if self.legacy:
            legacy = self.core.observation_space()
            return spaces.Dict({**legacy.spaces, "action_mask": mask})
        inner: spaces.Space[Any]
        if self.flatten:
            size = sum(size for _, size in self.layout())
            low = np.concatenate([s.low.ravel() for s in self._fields.values()])
            high = np.concatenate([s.high.ravel() for s in self._fields.values()])
            inner = spaces.Box(low=low, high=high, shape=(size,), dtype=np.float32)
        else:
            inner = spaces.Dict(dict(self._fields))
        if self.classic:
            return spaces.Dict({"observation": inner, "action_mask": mask})
        assert isinstance(inner, spaces.Dict)
        return spaces.Dict({**inner.spaces, "action_mask": mask})

    def observe(self, seat: int, acting: bool) -> Any:
        """``seat``'s observation in this encoding's format."""
        core = self.core
        if self.legacy:
            observation = core.observation(seat, acting)
            if self.actions == "discrete":
                observation["action_mask"] = self.mask(seat, acting)
            return observation
        mask = self.mask(seat, acting)
        if self.flatten:
            return {"observation": self.flat(seat), "action_mask": mask}
        fields = self.fields(seat)
        if self.classic:
            return {"observation": fields, "action_mask": mask}
        fields["action_mask"] = mask  # type: ignore[assignment]
        return fields

    def flat(self, seat: int) -> Floats:
        """``seat``'s flat observation (without the mask)."""
        return self.flat_of(self.core.view(seat), self.core.partial[seat])

    def fields(self, seat: int) -> dict[str, Floats]:
        """``seat``'s observation fields (``float32`` arrays, :meth:`layout` order)."""
        core = self.core
        return self.fields_of(core.view(seat), core.partial[seat])

    def fields_of(self, view: View, chosen: tuple[int, ...] = ()) -> dict[str, Floats]:
        """The observation fields of a view (and the seat's partial choice of this phase):
        views into one fresh flat array (:meth:`flat_of`)."""
        flat = self.flat_of(view, chosen)
        return {key: flat[part] for key, part in self._slices.items()}

    def flat_of(self, view: View, chosen: tuple[int, ...] = ()) -> Floats:
        """The flat observation of a view (fields in :meth:`layout` order), without the mask."""
        core = self.core
        slices = self._slices
        out = np.zeros(self._size, dtype=np.float32)
        seat = view.seat
        n = self.n_players
        phase = view.phase
        hand = view.hand
        board = view.board
        if chosen and phase is Phase.PLAY:
            played: tuple[int, ...] = chosen
        else:
            played = view.my_cards[-core.played_size:] if view.my_cards else ()
        last = view.last_round
        last_board = last.board if last is not None else ()

        at = slices["scalars"].start
        out[at + PHASE_INDEX[phase]] = 1.0
        at += len(PHASES)
        out[at] = 1.0 if chosen else 0.0
        out[at + 1] = 1.0 if view.storyteller == seat else 0.0
        out[at + 2 + (view.storyteller - seat) % n] = 1.0
        at += 2 + n
        scale, scores = self.score_scale, view.scores
        for k in range(n):
            out[at + k] = min(scores[(seat + k) % n] / scale, SCORE_CAP)
        if last is not None:
            for k in range(n):
                out[at + n + k] = min(last.points[(seat + k) % n] / 10.0, SCORE_CAP)
        out[slices["scalars"].stop - 1] = min(view.round, 100) / 100.0

        slots = (("hand", hand), ("board", board), ("played", played),
                 ("last_board", last_board))
        clue = view.clue
        if self.mode == "embedding":
            # Vector fields from the (possibly projected) vector table; similarities from the
            # full vectors, so that a projection never blurs the comparison of clue and cards.
            table, shown = self.table, self.vector_table
            assert table is not None and shown is not None
            vectors, full, dim = shown.card_vectors, table.card_vectors, shown.dim
            gathered: dict[str, npt.NDArray[np.intp]] = {}
            for key, cards in slots:
                if cards:
                    rows = table.rows(cards)
                    gathered[key] = rows
                    at = slices[key].start
                    out[at: at + len(cards) * dim] = vectors[rows].ravel()
            if clue:
                out[slices["clue"]] = shown.clue_vector(clue)
                clue_vector = table.clue_vector(clue)
                for key, similarity in (("hand", "hand_similarity"),
                                        ("board", "board_similarity")):
                    found = gathered.get(key)
                    if found is not None:
                        at = slices[similarity].start
                        sims = full[found] @ clue_vector
                        out[at: at + len(found)] = sims
                        # The same, standardised over the slots (cosine similarities of one clue
                        # differ by a few hundredths; this is the contrast a policy compares).
                        spread = sims.std() if len(sims) > 1 else 0.0
                        standard = (sims - sims.mean()) / max(float(spread), 1e-3)
                        at = slices[similarity + "_z"].start
                        out[at: at + len(found)] = np.clip(standard / 3.0, -1.0, 1.0)
            if "candidate_specificity" in slices and hand and phase is Phase.TELL:
                values = self._candidate_z[table.rows(hand)].ravel()
                at = slices["candidate_specificity"].start
                out[at: at + len(values)] = values
        elif self.mode == "onehot":
            deck = len(core.card_ids)
            deck_row = self._deck_row
            for key, cards in slots:
                at = slices[key].start
                for i, card in enumerate(cards):
                    out[at + i * deck + deck_row[card]] = 1.0
            if clue:
                at = slices["clue"].start
                out[at + self.vocabulary_index.get(clue, len(self.vocabulary))] = 1.0
        else:
            for key, cards in slots:
                part = slices[key]
                out[part] = -1.0
                out[part.start: part.start + len(cards)] = cards
            index = self.vocabulary_index.get(clue, len(self.vocabulary)) if clue else -1
            out[slices["clue"].start] = index
        if clue:
            out[slices["clue_present"].start] = 1.0
        at = slices["hand_present"].start
        out[at: at + len(hand)] = 1.0
        at = slices["board_present"].start
        out[at: at + len(board)] = 1.0
        if board:
            at = slices["board_own"].start
            for position in view.team_positions:
                out[at + position] = 1.0
        return out

    def view(self, seat: int) -> View:
        """The rules' view of ``seat`` (what the fields are made from)."""
        return self.core.view(seat)


def _default_words() -> tuple[str, ...]:
    from dixit_ai.agents.random_agent import CLUE_WORDS

    return tuple(CLUE_WORDS)
