"""A panel spec naming no member ('--panel nosuch', '--panel random') is refused naming what was
typed, the members and the named panels; it said "no agent named 'panel-nosuch'" and listed every
registry agent, none of which but the panel-* ones a panel takes, and no named panel."""

from __future__ import annotations

import pytest

pytest.importorskip("models.players.panel")

from models.players.panel import PANELS, resolve_panel


@pytest.mark.parametrize("spec", ["nosuch", "random", "sibling,nosuch"])
def test_an_unknown_member_is_named_with_the_members_and_panels(spec: str) -> None:
    with pytest.raises(ValueError) as caught:
        resolve_panel(spec)
    message = str(caught.value)
    typed = spec.split(",")[-1]
    assert f"no panel member named {typed!r}" in message
    assert "panel-sibling" in message and "clip-greedy" not in message
    assert all(name in message for name in PANELS)
