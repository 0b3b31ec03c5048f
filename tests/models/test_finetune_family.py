"""Fine-tuning refuses a member of the model family in one line that says why (its towers are
frozen), instead of looking it up on the hub."""

from __future__ import annotations

import pytest


def test_family_members_are_not_fine_tuned_as_hub_models():
    from models.finetune import FinetuneError
    from models.finetune_model import TrainableModel

    for name in ("lite1-mpnet", "caption-reader", "lite2-mpnet:/some/head.npz"):
        with pytest.raises(FinetuneError, match="model family") as caught:
            TrainableModel(name, "cpu")
        assert "hub" not in str(caught.value) and "HF_HUB_OFFLINE" not in str(caught.value)
