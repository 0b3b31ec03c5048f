"""Issue 16, item 7: with HF_HUB_OFFLINE unset and the hub out of reach, ``hf:`` and
``openclip:`` loads fail in seconds, in one line naming HF_HUB_OFFLINE=1 (no retry storm).

The hub is a loopback port where nothing listens (``HF_ENDPOINT=http://127.0.0.1:9``).
"""

from __future__ import annotations

import os
import time

import pytest

from tests.cli.helpers import dixit


@pytest.fixture
def unreachable_hub(monkeypatch) -> dict[str, str]:
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    assert "HF_HUB_OFFLINE" not in os.environ
    return {"HF_ENDPOINT": "http://127.0.0.1:9"}


@pytest.mark.parametrize("model", ["hf:openai/clip-vit-base-patch32",
                                   "openclip:ViT-B-32@laion2b_s34b_b79k"])
def test_an_unreachable_hub_fails_fast_in_one_line(model, unreachable_hub, tmp_path):
    pytest.importorskip("models.bench")
    started = time.monotonic()
    result = dixit("bench", "--models", model, "--tasks", "guess", "--items", "1",
                   "--no-progress", cwd=tmp_path, env=unreachable_hub, timeout=120)
    elapsed = time.monotonic() - started
    assert result.returncode == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr  # no pages of retry warnings
    assert "http://127.0.0.1:9, which cannot be reached" in lines[0]
    assert "set HF_HUB_OFFLINE=1" in lines[0] and "Retry" not in result.output
    assert elapsed < 20, f"took {elapsed:.1f} s"  # the probe gives up after 3 s
    assert not (tmp_path / "runs").exists()


def test_the_probe_only_runs_when_the_hub_is_needed(monkeypatch):
    from models import hf_backend

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hf_backend, "hub_unreachable", lambda: pytest.fail("probed"))
    hf_backend.require_hub("x")  # offline: the local cache decides, no probe
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setattr(hf_backend, "hub_unreachable", lambda: None)
    hf_backend.require_hub("x")  # reachable: nothing to say
