"""An embedding-model bot (clip-greedy) at a web table: it gets the table's deck, decides off the
event loop, and its decisions (with the storyteller's predicted guess rate) reach the record."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from dixit_ai.agents import agent_spec, register_agent
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from dixit_ai.web.manager import bot_problem
from tests.web.conftest import create, manager_of, server_offering
from tests.web.playing import play_out

pytestmark = [
    pytest.mark.slow,  # embeds the test deck's cards with the default model (cold cache)
    pytest.mark.skipif(bot_problem("clip-greedy") is not None,
                       reason=str(bot_problem("clip-greedy"))),
]


def test_a_clip_bot_plays_a_web_table(app_factory: Callable[..., TestClient]) -> None:
    # clip-greedy with a small clue vocabulary: the test embeds 64 clues, not thousands.
    spec = agent_spec("clip-greedy")
    register_agent("clip-greedy-small", spec.entry_point, extra=spec.extra, overwrite=True,
                   prepare=spec.prepare,
                   **{**spec.kwargs, "vocabulary_size": 64, "n_simulations": 16})
    client = app_factory(server=server_offering("clip-greedy-small", "random"))
    made, ann = create(client, seats=3, bots=["clip-greedy-small", "random"], score_limit=4,
                       seed=5)
    assert ann.send({"type": "start"}).status_code == 200
    play_out([ann], timeout=120)
    table = manager_of(client).tables[made["table_id"]]
    assert table.minds[1].agent.deck == "dream:size=40"  # type: ignore[attr-defined]
    record = GameRecord.from_json(client.get(
        f"/api/tables/{made['table_id']}/record.json").text)
    replay_record(record)
    assert record.header["agents"][1]["class"] == "ClipAgent"
    assert not record.failures
    told = [r for r in record.rounds if r.storyteller == 1]
    assert all(r.predicted_guess_rate is not None for r in told)


@pytest.mark.skipif(bot_problem("party-embedding") is not None,
                    reason=str(bot_problem("party-embedding")))
def test_party_embedding_bots_play_a_party_table(app_factory: Callable[..., TestClient]) -> None:
    # party-embedding's tell raises (Party only): the warm-up rehearses a Party round instead.
    spec = agent_spec("party-embedding")
    register_agent("party-embedding-small", spec.entry_point, extra=spec.extra, overwrite=True,
                   prepare=spec.prepare, **{**spec.kwargs, "vocabulary_size": 64})
    client = app_factory(server=server_offering("party-embedding-small", "random"))
    made, ann = create(client, edition="odyssey-2011", seats=6, variant="party",
                       score_limit=None, bots="party-embedding-small", seed=5)
    assert ann.send({"type": "start"}).status_code == 200
    final = play_out([ann], timeout=120)
    assert final["game"]["phase"] == "over"
    record = GameRecord.from_json(client.get(
        f"/api/tables/{made['table_id']}/record.json").text)
    replay_record(record)
    assert record.header["agents"][1]["class"] == "PartyAgent" and not record.failures
    assert all(r.red_token is not None for r in record.rounds) and len(record.rounds) == 6


def test_a_default_server_offers_the_odyssey_bot(app_factory: Callable[..., TestClient]) -> None:
    # clip-sharp, offered by default, plays an Odyssey table as its registry entry says: its
    # storyteller simulates sharp voters, its guessers cast second votes by fitted beliefs.
    from dixit_ai.web.config import ServerConfig

    if bot_problem("clip-sharp") is not None:
        pytest.skip(str(bot_problem("clip-sharp")))
    assert "clip-sharp" in ServerConfig().offered_bots()
    spec = agent_spec("clip-sharp")
    register_agent("clip-sharp-small", spec.entry_point, extra=spec.extra, overwrite=True,
                   prepare=spec.prepare,
                   **{**spec.kwargs, "vocabulary_size": 64, "n_simulations": 16})
    client = app_factory(server=server_offering("clip-sharp-small", "random"))
    made, ann = create(client, seats=4, edition="odyssey-2024",
                       bots=["clip-sharp-small", "clip-sharp-small", "random"], score_limit=6,
                       seed=5)
    assert ann.send({"type": "start"}).status_code == 200
    play_out([ann], timeout=120)
    record = GameRecord.from_json(client.get(
        f"/api/tables/{made['table_id']}/record.json").text)
    replay_record(record)
    assert not record.failures
    for seat in (1, 2):
        agent = record.header["agents"][seat]
        assert agent["sharp_voters"] is True
        assert agent["belief_temperature"] == spec.kwargs["belief_temperature"]
    told = [r for r in record.rounds if r.storyteller in (1, 2)]
    assert told and all(r.predicted_guess_rate is not None for r in told)
    second_votes = [len(r.votes[seat]) == 2 for r in record.rounds for seat in (1, 2)
                    if seat in r.votes]
    assert any(second_votes)
