"""A web bot that cannot be made, or whose description fails at the end, never stalls a table
or loses its record: the failure is recorded (the bot's seat forfeits), or the table says why it
stopped."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dixit_ai.agents import RandomAgent, register_agent
from dixit_ai.replay import replay_record
from dixit_ai.web.bots import BotMind
from dixit_ai.web.session import Session
from tests.web.conftest import create, manager_of, server_offering, simple_move
from tests.web.playing import play_out, record_of


class UnmadeAgent(RandomAgent):
    """A bot that reads a file when it is made, and the file is gone (as ``policy: PATH``)."""

    def __init__(self, **options: Any) -> None:
        raise FileNotFoundError("[Errno 2] No such file or directory: 'weights.json'")


class UndescribedAgent(RandomAgent):
    """A bot that plays, but cannot describe itself (its resources fail to load)."""

    def describe(self) -> dict[str, Any]:
        raise OSError("the model files are gone")


register_agent("unmade-bot", "tests.web.test_bot_failures:UnmadeAgent", overwrite=True)
register_agent("undescribed-bot", "tests.web.test_bot_failures:UndescribedAgent",
               overwrite=True)


def test_a_bot_that_cannot_be_made_forfeits_and_the_table_goes_on(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering("random", "unmade-bot"))
    made, ann = create(client, seats=3, bots=["unmade-bot", "random"], score_limit=5)
    ann.send({"type": "start"})
    final = play_out([ann])  # the healthy bot and the person play on: the table never stalls
    assert final["game"]["phase"] == "over"
    record = record_of(client, made["table_id"])
    assert record.failures and all(f.seat == 1 for f in record.failures)
    assert all(f.penalty == "forfeit" and "FileNotFoundError" in f.reason
               and "weights.json" in f.reason for f in record.failures)
    assert record.header["agents"][1]["name"] == "unmade-bot"
    assert "FileNotFoundError" in record.header["agents"][1]["describe_error"]
    replay_record(record)


def test_a_bot_that_cannot_describe_itself_does_not_lose_the_record(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering("random", "undescribed-bot"))
    made, ann = create(client, seats=3, bots=["undescribed-bot", "random"], score_limit=5)
    ann.send({"type": "start"})
    play_out([ann])
    record = record_of(client, made["table_id"])
    assert record.failures == []
    described = record.header["agents"][1]
    assert described["name"] == "undescribed-bot"
    assert described["describe_error"] == "OSError: the model files are gone"
    replay_record(record)


def test_bots_that_stop_tell_the_table(app_factory: Callable[..., TestClient],
                                       monkeypatch: pytest.MonkeyPatch,
                                       caplog: pytest.LogCaptureFixture) -> None:
    client = app_factory()
    made, ann = create(client, seats=3, bots=["random", "random"])

    def broken_decide(self: Any, *args: Any) -> Any:
        # An error's text can name hidden cards (as a rules error about a hand does).
        raise KeyError("a bug in the bots' loop: card 17 is not in seat 2's hand")

    monkeypatch.setattr(BotMind, "decide", broken_decide)
    with caplog.at_level(logging.ERROR, logger="dixit_ai.web"):
        ann.send({"type": "start"})
        state = ann.wait(lambda s: s["table"]["broken"] is not None or 0 in s["game"]["pending"])
        if state["table"]["broken"] is None:  # the person tells first: then the bots' turn
            ann.send(simple_move(state["game"]))
            state = ann.wait(lambda s: s["table"]["broken"] is not None)
    assert "the bots stopped" in state["table"]["broken"]
    assert "KeyError" in state["table"]["broken"]
    assert "card 17" not in state["table"]["broken"]  # what everyone sees names no card
    assert "card 17" in caplog.text  # the server log keeps the details
    assert manager_of(client).tables[made["table_id"]].broken == state["table"]["broken"]
    assert "the bots stopped" in caplog.text
    response = ann.send({"type": "leave"})
    assert response.status_code == 503 and "the bots stopped" in response.json()["error"]


def test_a_table_that_cannot_be_restored_names_no_card(app_factory: Callable[..., TestClient],
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    """A damaged event log marks its table broken on restart; the message everyone at the
    table sees says so without the error's text, which can name a hand's cards."""
    client = app_factory("damaged.sqlite3")
    made, ann = create(client, seats=3, bots=["random", "random"])
    ann.send({"type": "start"})
    state = ann.wait(lambda s: s["game"] is not None)
    if 0 in state["game"]["pending"]:
        ann.send(simple_move(state["game"]))
    ann.wait(lambda s: s["event"] >= 2)  # a move after the start, to replay on restart
    client.__exit__(None, None, None)

    def damaged(self: Any, event: Any) -> Any:
        raise ValueError("card 17 is not in seat 2's hand")

    monkeypatch.setattr(Session, "apply", damaged)
    with caplog.at_level(logging.ERROR, logger="dixit_ai.web"):
        again = app_factory("damaged.sqlite3")
    broken = manager_of(again).tables[made["table_id"]].broken
    assert broken is not None and "could not be restored" in broken
    assert "card 17" not in broken
    assert "card 17" in caplog.text
    response = again.post("/api/action", json={"type": "leave"},
                          headers={"X-Seat-Token": made["token"]})
    assert response.status_code == 503 and "card 17" not in response.text
