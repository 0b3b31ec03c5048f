"""What a training run of ``scripts/train_rl.py`` writes: its folder, its learning curve and its
checkpoints' bytes (:class:`envs.learned.PolicyAgent` reads the checkpoints).

- :func:`new_run_dir`: the run's own new folder, ``{out}/{exp_name}__{seed}__{time}`` (``-2``,
  ``-3``, ... when a run started in the same second has the name), the one every script's run
  folder is made by (:func:`dixit_ai.reporting.new_run_dir`, named here too);
- :class:`Curve` and :func:`plot`: the learner's outcomes over training, ``curve.csv`` and
  ``curve.png``;
- :func:`normalise_checkpoint`: sb3's zip rewritten so that identical runs write identical bytes.
"""

from __future__ import annotations

import csv
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.files import atomic_writer
from dixit_ai.reporting import new_run_dir

__all__ = ["ZIP_EPOCH", "Curve", "new_run_dir", "normalise_checkpoint", "plot"]


class Curve:
    """The learning curve: the learner's role outcomes, read from each finished round."""

    def __init__(self, role: str, every: int) -> None:
        self.role, self.every = role, every
        self.rows: list[dict[str, float]] = []
        self.window: list[float] = []
        self.next_point = every

    def observe(self, info: dict[str, Any], seat: int) -> None:
        """Record the learner's role outcomes in the rounds scored during a step."""
        for result in info.get("rounds", ()):
            if self.role == "storyteller" and result.storyteller == seat:
                self.window.append(float(result.points[seat]))
            elif self.role == "guesser" and result.storyteller != seat:
                for position in result.votes[seat]:
                    self.window.append(float(result.board_owner[position] == result.storyteller))

    def point(self, steps: int) -> None:
        """A point of the curve once ``every`` more steps were taken."""
        if steps >= self.next_point and self.window:
            recent = self.window[-500:]
            self.rows.append({"timesteps": steps, "metric": float(np.mean(recent)),
                              "decisions": float(len(recent))})
            self.next_point += self.every


def plot(curves: dict[str, Curve], run_dir: Path) -> None:
    """``curve.csv`` and ``curve.png``. A role without a point of its curve (a run shorter than
    ``--curve-every`` learner steps) gets a "no data" panel, and no ``curve.png`` is drawn when
    no role has a point; either is said on stderr (``curve.csv`` then holds only its header)."""
    with open(run_dir / "curve.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["role", "timesteps", "metric", "decisions"])
        for role, curve in curves.items():
            for row in curve.rows:
                writer.writerow([role, int(row["timesteps"]), f"{row['metric']:.4f}",
                                 int(row["decisions"])])
    empty = [role for role, curve in curves.items() if not curve.rows]
    for role in empty:
        every = curves[role].every
        print(f"note: the {role}'s learning curve has no point: a point is taken every "
              f"{every} learner steps (--curve-every) once the role has decided; "
              + ("curve.png not drawn" if len(empty) == len(curves) else
                 "its panel of curve.png says no data"), file=sys.stderr)
    if len(empty) == len(curves):
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dixit_ai.reporting import save_figure

    figure, axes = plt.subplots(1, len(curves), figsize=(5 * len(curves), 3.5), squeeze=False)
    labels = {"guesser": "guessing accuracy (last 500 votes)",
              "storyteller": "storyteller points per tell (last 500)"}

    for axis, (role, curve) in zip(axes[0], curves.items(), strict=True):
        axis.plot([r["timesteps"] for r in curve.rows], [r["metric"] for r in curve.rows])
        axis.set_xlabel("learner steps")
        axis.set_ylabel(labels[role])
        axis.set_title(f"MaskablePPO {role} vs embedding opponents")
        if not curve.rows:
            axis.text(0.5, 0.5, f"no data (fewer than {curve.every} steps)", ha="center",
                      va="center", transform=axis.transAxes)
    figure.tight_layout()
    save_figure(figure, run_dir / "curve.png", dpi=100)
    plt.close(figure)


ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
"""The date of every entry of a written checkpoint (torch's own .pth entries carry it already)."""


def normalise_checkpoint(path: Path) -> None:
    """Rewrite sb3's zip at ``path`` so that identical runs write identical bytes.

    Two runs with the same options and seed learn the same weights (``policy.pth`` and the
    optimizer's state are byte-identical), but sb3's zip differed: the entries ``data``,
    ``_stable_baselines3_version`` and ``system_info.txt`` are dated at the save, and ``data``
    holds ``start_time`` (the wall clock, ns) and readable reprs of the policy and buffer classes'
    methods with memory addresses (``<function ... at 0x7f...>``; sb3 reads only their
    ``:serialized:`` value). Every entry is rewritten, in sb3's order and with its compression,
    dated ``ZIP_EPOCH``; ``start_time`` becomes 0 (``learn`` sets it again) and the addresses are
    dropped. ``MaskablePPO.load`` and :class:`envs.learned.PolicyAgent` load the result.
    """
    with zipfile.ZipFile(path) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist()]
    with atomic_writer(path, "wb") as handle, zipfile.ZipFile(handle, "w") as archive:
        for info, content in entries:
            if info.filename == "data":
                data = json.loads(content)
                if "start_time" in data:
                    data["start_time"] = 0
                for value in data.values():
                    if isinstance(value, dict) and ":serialized:" in value:
                        for key, text in value.items():
                            if key != ":serialized:" and isinstance(text, str):
                                value[key] = re.sub(r" at 0x[0-9a-fA-F]+", "", text)
                content = json.dumps(data, indent=4).encode()
            fixed = zipfile.ZipInfo(info.filename, date_time=ZIP_EPOCH)
            fixed.compress_type, fixed.create_system = info.compress_type, 3
            fixed.external_attr = 0o644 << 16
            archive.writestr(fixed, content)
