"""Train the default model's alignment head; see :mod:`models.train_default` (``--help``).

    python scripts/train_default_model.py --write-head   # writes models/weights/default_head.npz
    python scripts/train_default_model.py --smoke        # a few seconds, for CI
"""

from __future__ import annotations

from models.train_default import main

if __name__ == "__main__":
    raise SystemExit(main())
