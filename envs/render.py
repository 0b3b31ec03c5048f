"""Rendering a Dixit table: a text board (``"ansi"``) and a picture (``"rgb_array"``).

Both show what every player at the table sees: the round, the storyteller, the clue, the board
once it is laid, who has still to act, the last round's reveal (owners, votes, points) and the
score track. Hands, and owners and votes before the reveal, are never shown.

The picture draws the board's cards from the deck's images where the deck has them (a deck spec
or a ``Deck`` with ``image``), and numbered placeholders otherwise. Images are loaded only when a
frame is drawn, never in ``step``.
"""

from __future__ import annotations

import colorsys
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from dixit_ai.fonts import text_font
from dixit_ai.rules import Phase
from envs.core import DixitCore

CARD_SIZE = (72, 108)
"""Width and height of a card in the picture, in pixels."""

_GAP = 10
_MARGIN = 16
_LINE = 18
_BACKGROUND = (245, 240, 228)
_INK = (40, 36, 30)


def agent_name(seat: int) -> str:
    """The agent name of ``seat`` (``"player_3"``)."""
    return f"player_{seat}"


def render_text(core: DixitCore) -> str:
    """The table as text: clue, board positions, votes after the reveal, score track."""
    state = core.state
    rules = core.rules
    lines = [f"Dixit {rules.name}, {core.n_players} players, round {state.round}, "
             f"phase {state.phase.value}"]
    if core.ended_by is not None:
        event = core.ended_by
        lines.append(f"Game ended: illegal action by {event.agent} ({event.reason})")
    elif state.is_over:
        winners = ", ".join(agent_name(seat) for seat in state.winners)
        lines.append(f"Game over. Winner(s): {winners}")
    else:
        lines.append(f"Storyteller: {agent_name(state.storyteller)}")
    if state.clue is not None:
        lines.append(f"Clue: {state.clue!r}")
    if state.phase is Phase.VOTE:
        lines.append("Board: " + "  ".join(f"[{i}] #{card}" for i, card in enumerate(state.board)))
    if state.pending and core.ended_by is None:
        lines.append("To act: " + ", ".join(agent_name(seat) for seat in state.pending))
    last = state.last_round
    if last is not None:
        lines.append(f"Last round (round {last.round}): {agent_name(last.storyteller)} told "
                     f"{last.clue!r}")
        voters: dict[int, list[str]] = {}
        for seat, positions in enumerate(last.votes):
            for position in positions:
                voters.setdefault(position, []).append(agent_name(seat))
        for position, (card, owner) in enumerate(zip(last.board, last.board_owner, strict=True)):
            mark = " (storyteller)" if owner == last.storyteller else ""
            votes = ", ".join(voters.get(position, [])) or "-"
            lines.append(f"  [{position}] #{card} {agent_name(owner)}{mark}  votes: {votes}")
        lines.append("  points: " + ", ".join(
            f"{agent_name(seat)} +{points}" for seat, points in enumerate(last.points)))
    limit = rules.score_limit
    top = max(max(state.scores), limit or 0, 1)
    lines.append("Scores" + (f" (to {limit})" if limit is not None else "") + ":")
    for seat, score in enumerate(state.scores):
        bar = "#" * round(30 * score / top)
        lines.append(f"  {agent_name(seat):>10} {score:>3} {bar}")
    return "\n".join(lines) + "\n"


class CardImages:
    """Card pictures for :func:`render_image`: the deck's images, or numbered placeholders.

    Args:
        deck: What the environment was configured with: a deck spec (loaded with
            ``dixit_ai.decks.load_deck`` on first use, if that package is importable), a
            ``Deck`` (anything with ``image``), or card ids (placeholders only).
        size: Card width and height in pixels.
    """

    def __init__(self, deck: Any, size: tuple[int, int] = CARD_SIZE) -> None:
        self.source = deck
        self.size = size
        self._deck: Any = None
        self._tried = False
        self._cache: dict[int, Image.Image] = {}

    def _load_deck(self) -> Any:
        if not self._tried:
            self._tried = True
            if hasattr(self.source, "image"):
                self._deck = self.source
            elif isinstance(self.source, str):
                try:
                    from dixit_ai.decks import load_deck

                    self._deck = load_deck(self.source)
                except Exception:  # no deck package yet, or no images: placeholders
                    self._deck = None
        return self._deck

    def card(self, card_id: int) -> Image.Image:
        """The picture of ``card_id`` at :attr:`size`."""
        image = self._cache.get(card_id)
        if image is None:
            image = self._from_deck(card_id) or placeholder(card_id, self.size)
            self._cache[card_id] = image
        return image

    def _from_deck(self, card_id: int) -> Image.Image | None:
        deck = self._load_deck()
        if deck is None:
            return None
        try:
            try:
                image = deck.image(card_id, size=self.size)
            except TypeError:
                image = deck.image(card_id)
            picture: Image.Image = image.convert("RGB")
        except Exception:
            return None
        if picture.size != self.size:
            picture = picture.resize(self.size)
        return picture


def placeholder(card_id: int, size: tuple[int, int]) -> Image.Image:
    """A numbered card of a colour derived from its id."""
    hue = (card_id * 0.61803398875) % 1.0
    red, green, blue = colorsys.hsv_to_rgb(hue, 0.35, 0.9)
    colour = (int(red * 255), int(green * 255), int(blue * 255))
    image = Image.new("RGB", size, colour)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, size[0] - 1, size[1] - 1), outline=_INK, width=2)
    text = f"#{card_id}"
    font = text_font(max(10, size[0] // 4))
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    draw.text(((size[0] - (right - left)) / 2, (size[1] - (bottom - top)) / 2), text,
              fill=_INK, font=font)
    return image


def frame_size(core: DixitCore, card: tuple[int, int] = CARD_SIZE) -> tuple[int, int]:
    """Width and height of the picture for this game (the same for every frame)."""
    columns = _columns(core)
    rows = -(-core.board_size // columns)
    width = max(2 * _MARGIN + columns * (card[0] + _GAP) - _GAP, 420)
    height = (2 * _MARGIN + 4 * _LINE + rows * (card[1] + _GAP + 2 * _LINE)
              + (core.n_players + 1) * _LINE)
    return width, height


def _fit(text: str, limit: int = 64) -> str:
    """``text``, cut to ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _columns(core: DixitCore) -> int:
    return core.board_size if core.board_size <= 8 else -(-core.board_size // 2)


def render_image(core: DixitCore, images: CardImages) -> np.ndarray:
    """The table as an ``(height, width, 3)`` ``uint8`` picture.

    In the vote phase the board shows the cards face up; otherwise it shows the last revealed
    board, each card with its owner and the votes it drew. Below: the clue and the score track.
    """
    state = core.state
    width, height = frame_size(core, images.size)
    image = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = text_font(13)
    y = _MARGIN
    title = (f"{core.rules.name} - round {state.round} - {state.phase.value} - storyteller "
             f"{agent_name(state.storyteller)}")
    if core.ended_by is not None:
        title = f"{core.rules.name} - ended: illegal action by {core.ended_by.agent}"
    elif state.is_over:
        title = f"{core.rules.name} - game over - winner(s) " + ", ".join(
            agent_name(seat) for seat in state.winners)
    draw.text((_MARGIN, y), title, fill=_INK, font=font)
    y += _LINE
    clue = state.clue
    last = state.last_round
    draw.text((_MARGIN, y), _fit(f"clue: {clue!r}" if clue is not None else "clue: (not told yet)"),
              fill=_INK, font=font)
    y += _LINE
    if state.phase is Phase.VOTE:
        board: tuple[int, ...] = state.board
        captions = [f"[{i}]" for i in range(len(board))]
        notes = ["" for _ in board]
        heading = "the board: vote!"
    elif last is not None:
        board = last.board
        captions = [f"[{i}] {agent_name(owner)}" + ("*" if owner == last.storyteller else "")
                    for i, owner in enumerate(last.board_owner)]
        counts = [0] * len(board)
        for positions in last.votes:
            for position in positions:
                counts[position] += 1
        notes = [f"votes: {count}" for count in counts]
        heading = f"last round ({last.clue!r}; * the storyteller's card)"
    else:
        board, captions, notes = (), [], []
        heading = "the board (cards are played face down)"
    draw.text((_MARGIN, y), _fit(heading), fill=_INK, font=font)
    y += 2 * _LINE
    columns = _columns(core)
    card_w, card_h = images.size
    for i in range(core.board_size):
        row, column = divmod(i, columns)
        x = _MARGIN + column * (card_w + _GAP)
        top = y + row * (card_h + _GAP + 2 * _LINE)
        if i < len(board):
            image.paste(images.card(board[i]), (x, top))
            draw.text((x, top + card_h + 2), captions[i], fill=_INK, font=font)
            draw.text((x, top + card_h + 2 + _LINE - 4), notes[i], fill=_INK, font=font)
        else:
            draw.rectangle((x, top, x + card_w - 1, top + card_h - 1), outline=(180, 170, 150))
    rows = -(-core.board_size // columns)
    y += rows * (card_h + _GAP + 2 * _LINE)
    limit = core.rules.score_limit
    top_score = max(max(state.scores), limit or 0, 1)
    draw.text((_MARGIN, y), "scores" + (f" (to {limit})" if limit else ""), fill=_INK, font=font)
    bar_left, bar_width = _MARGIN + 110, width - 2 * _MARGIN - 110
    for seat, score in enumerate(state.scores):
        y += _LINE
        draw.text((_MARGIN, y), f"{agent_name(seat)} {score}", fill=_INK, font=font)
        length = int(bar_width * score / top_score)
        if length:
            draw.rectangle((bar_left, y + 3, bar_left + length, y + _LINE - 4), fill=(90, 120, 170))
    frame: np.ndarray = np.array(image, dtype=np.uint8)
    return frame
