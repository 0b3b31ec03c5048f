"""The model card of a fine-tuning run (``MODEL_CARD.md``): its figures, the command that runs
its settings again, and the card itself, from ``finetune_card.json``'s contents."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["command_line", "format_figures", "render_card"]


def _cell(row: dict[str, Any] | None, key: str) -> str:
    if not row:
        return "-"
    return f"{row[key]:.3f} [{row['low']:.3f}, {row['high']:.3f}]"


def format_figures(figures: dict[str, Any]) -> str:
    """The before/after table (Markdown)."""
    lines = [
        "| | held-out boards top-1 | held-out retrieval top-1 (among all) | held-out MRR | "
        "training cards retrieval top-1 |",
        "|---|---|---|---|---|",
    ]
    for when in ("before", "after"):
        held, train = figures[when]["held_out"], figures[when]["train"]
        lines.append(
            f"| {when} | {_cell(held.get('boards'), 'accuracy')} | "
            f"{_cell(held['retrieval'], 'top1')} | {held['retrieval']['mrr']:.3f} | "
            f"{_cell(train['retrieval'], 'top1')} |"
        )
    return "\n".join(lines)


def command_line(settings: dict[str, Any]) -> str:
    """The command that runs these settings again: every setting that is not the default (the
    output folder left out: a new run folder, as ``--out`` must be new or empty)."""
    import shlex

    from models.finetune import FinetuneArgs  # the settings' own module (which imports this)

    defaults = dataclasses.asdict(FinetuneArgs())
    parts = ["dixit-ai train finetune", "--model", shlex.quote(str(settings["model"])),
             "--deck", shlex.quote(str(settings["deck"]))]
    for name, value in settings.items():
        if name in ("model", "deck", "out", "smoke", "exp_name", "runs_dir") or value is None \
                or value == defaults.get(name):
            continue
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            parts += [flag] if value else []
        else:
            parts += [flag, shlex.quote(str(value))]
    return " ".join(parts)


def render_card(card: dict[str, Any]) -> str:
    """The Markdown model card of a fine-tuning run."""
    s, d = card["settings"], card["deck"]
    board = card.get("evaluation_board_size", s["board_size"])
    held = card["figures"]["after"]["held_out"]
    chance_board = held["boards"]["chance"] if "boards" in held else float("nan")
    return f"""# Model card: {card['model']} fine-tuned on {d['spec']}

**Load it with** {' or '.join(f'`{n}`' for n in card['load_with'])}
(checked: reloaded vectors within {card['reload_check']['max_abs_difference']:.1e} of the trained
model's).

**Base model.** `{card['model']}` (fingerprint `{card.get('base_fingerprint', 'not recorded')}`);
this model's fingerprint: `{card.get('model_fingerprint', 'not recorded')}`.

**Data.** Deck `{d['spec']}` ({d['name']}; fingerprint `{d['fingerprint']}`; license:
{d['license'] or 'not stated'}; attribution: {d['attribution'] or 'not stated'}):
{d['cards']} cards, {d['captioned']} with captions ({d['without_captions']} without, skipped),
split by seed {s['seed']} into {d['train']} training and {d['held_out']} held-out cards.

**Training.** Mode `{s['mode']}`{f" (last {s['layers']} blocks)" if s['mode'] == 'last-layers'
else ''}: {card['trained_weights']:,} of {card['total_weights']:,} weights train;
{card['loss']} loss over batches of {s['batch_size']} (card, random caption) pairs, logit scale
{'fixed' if s['fixed_scale'] else 'learnable'} ({card['logit_scale']['before']:.2f} ->
{card['logit_scale']['after']:.2f}); {s['steps']} steps of AdamW (learning rate
{s['learning_rate']}, weight decay {s['weight_decay']}, warm-up {s['warmup']:.0%}, cosine), seed
{s['seed']}, on {card['device']}, {card['seconds']} s. Loss {card['loss_first_last'][0]:.3f} ->
{card['loss_first_last'][1]:.3f} (history.csv).

**Evaluation.** Held-out boards: {s['boards_per_card']} boards of {board} held-out cards
per held-out card, the clue one of its captions, chance {chance_board:.3f}; retrieval: each card's
first caption ranks all cards of its split; accuracy [95% bootstrap interval over cards].

{format_figures(card['figures'])}

**Command.** `{card.get('command') or command_line(s)}`

Versions: {', '.join(f'{k} {v}' for k, v in card['versions'].items())}.
"""
