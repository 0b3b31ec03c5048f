"""The plain-HTTP endpoints are bounded like the sockets: a seat's requests (``/api/state``,
``/api/action``, ``/api/history``), an address's spectator states (``/api/watch``) and its
look-ups of tables not in memory (``record.json``), and the history is built once per round."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

import pytest
from fastapi.testclient import TestClient

import dixit_ai.web.manager as manager_module
from dixit_ai.cli import main
from dixit_ai.web.config import ServerConfig, load_server_config
from tests.web.conftest import create, join, manager_of, server_offering
from tests.web.playing import play_out


def test_a_seat_flooding_the_http_api_is_refused_past_its_limit_and_nothing_is_done(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(http_requests_per_minute=20))
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    built: list[int] = []
    manager_of(client).listeners.append(lambda table, seat, message: built.append(seat))
    for _ in range(10):
        assert ann.state()["type"] == "state"
    for _ in range(5):
        assert client.get("/api/history", headers=ann.headers).status_code == 200
    for _ in range(5):   # refused moves count too: each takes the table's lock
        assert ann.send({"type": "vote", "positions": [0]}).status_code == 409
    assert built.count(0) == 10   # one state built per request until then
    refused = client.get("/api/state", headers=ann.headers)
    assert refused.status_code == 429
    assert "at most 20 every 60 seconds" in refused.json()["error"]
    assert "one seat" in refused.json()["error"]
    assert client.get("/api/history", headers=ann.headers).status_code == 429
    start = ann.send({"type": "start"})
    assert start.status_code == 429          # refused before the lock: nothing changed
    assert built.count(0) == 10              # no state was built for the refused requests
    assert manager_of(client).tables[made["table_id"]].status == "lobby"
    # Another seat of the same table (and its moves) is not held back by Ann's flood.
    assert bea.state()["table"]["status"] == "lobby"
    assert bea.send({"type": "leave"}).status_code == 200


def test_no_http_limit_at_zero(app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(http_requests_per_minute=0))
    _made, ann = create(client)
    for _ in range(60):
        assert client.get("/api/state", headers=ann.headers).status_code == 200


def test_the_default_limit_lets_a_game_be_played_over_http(
        app_factory: Callable[..., TestClient]) -> None:
    assert ServerConfig().http_requests_per_minute == 1200
    client = app_factory()   # the test servers keep the default
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    assert play_out([ann, bea])["game"]["phase"] == "over"


@pytest.mark.parametrize("value", [-1, True, 1.5, "10"])
def test_a_bad_http_limit_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="http_requests_per_minute must be a whole number"):
        ServerConfig(http_requests_per_minute=value)  # type: ignore[arg-type]


def test_the_http_limit_is_read_from_the_config_file(tmp_path: Any) -> None:
    path = tmp_path / "server.toml"
    path.write_text("http_requests_per_minute = 300\n", encoding="utf-8")
    assert load_server_config(path).http_requests_per_minute == 300


def test_spectator_states_over_http_are_limited_per_address(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(http_requests_per_minute=5))
    made, _ann = create(client)
    other, _ = create(client)
    for _ in range(5):
        assert client.get(f"/api/watch/{made['watch']}").status_code == 200
    refused = client.get(f"/api/watch/{made['watch']}")
    assert refused.status_code == 429 and "at most 5 every 60 seconds" in refused.json()["error"]
    # Counted per table watched: another table's state still comes.
    assert client.get(f"/api/watch/{other['watch']}").status_code == 200


def test_records_of_tables_not_in_memory_are_looked_up_within_the_address_limit(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(seat_requests_per_minute=3))
    manager = manager_of(client)
    lookups: list[str] = []
    load_record = manager.store.load_record

    def counted(table_id: str) -> str | None:
        lookups.append(table_id)
        return load_record(table_id)

    manager.store.load_record = counted  # type: ignore[method-assign]
    for index in range(3):
        assert client.get(f"/api/tables/nope{index}/record.json").status_code == 404
    refused = client.get("/api/tables/nope9/record.json")
    assert refused.status_code == 429
    assert "at most 3 every 60 seconds" in refused.json()["error"]
    assert lookups == ["nope0", "nope1", "nope2"]   # the refused one never reached the database
    # A table in memory is answered from memory, whatever the count.
    made, _ann = create(client)
    assert client.get(f"/api/tables/{made['table_id']}/record.json").status_code == 404
    assert "not over yet" in client.get(
        f"/api/tables/{made['table_id']}/record.json").json()["error"]


def test_the_history_is_built_once_per_round(app_factory: Callable[..., TestClient],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    client = app_factory()
    made, ann = create(client, score_limit=12)
    ann.send({"type": "start"})
    play_out([ann])
    manager = manager_of(client)
    table = manager.tables[made["table_id"]]
    assert table.session is not None
    rounds = len(table.session.state.results)
    assert rounds >= 3
    fresh = [manager_module.round_payload(table.session.rules, table.session.n_players, result)
             for result in table.session.state.results]
    built: list[int] = []
    real = manager_module.round_payload

    def counted(*args: Any) -> dict[str, Any]:
        built.append(1)
        return real(*args)

    monkeypatch.setattr(manager_module, "round_payload", counted)
    first = client.get("/api/history", headers=ann.headers).json()["rounds"]
    for _ in range(5):
        assert client.get("/api/history", headers=ann.headers).json()["rounds"] == first
        assert client.get(f"/api/watch/{made['watch']}").json()["history"] == first
    assert first == fresh
    assert len(built) <= rounds   # built at most once per round, not once per request


def test_serve_help_names_every_key_of_the_config_file(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    missing = [f.name for f in fields(ServerConfig) if f.name not in text]
    assert missing == []


def test_card_requests_that_render_a_deck_again_are_limited_per_address(
        app_factory: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    # Two decks that do not fit the image cache together: each card asked of the other deck
    # rendered its whole deck again, in the threads the bots decide in.
    import dixit_ai.web.cards as cards

    monkeypatch.setattr(cards, "MAX_CACHED_IMAGES", 50)
    client = app_factory(server=server_offering(tables_per_minute=4))
    manager = manager_of(client)
    renders: list[str] = []
    real = manager._deck

    def counted(spec: str) -> Any:
        renders.append(spec)
        return real(spec)

    first, _ = create(client, deck="small")
    second, _ = create(client, deck="mid")
    manager._deck = counted  # type: ignore[method-assign]
    urls = [f"/api/tables/{made['table_id']}/cards/"
            f"{manager.tables[made['table_id']].card_ids[0]}" for made in (first, second)]
    answers = [client.get(urls[index % 2]).status_code for index in range(6)]
    assert answers[:2] == [200, 200]      # each deck rendered once: fine
    refused = client.get(urls[0])
    assert refused.status_code == 429
    assert "deck renders" in refused.json()["error"]
    assert len(renders) <= 4 and 429 in answers
