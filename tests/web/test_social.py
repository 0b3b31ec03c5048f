"""Emoji reactions, the list of my tables, and seats reclaimed through the table's creator."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from dixit_ai.web.social import REACTION_LIMIT, REACTIONS
from tests.web.conftest import Seat, create, join
from tests.web.playing import until


def test_reactions_reach_the_table_with_the_senders_name_and_nothing_else(
        client: TestClient) -> None:
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    with client.websocket_connect("/ws") as bea_socket, \
            client.websocket_connect("/ws") as watcher:
        bea_socket.send_text(json.dumps({"type": "hello", "token": bea.token}))
        until(bea_socket, "state")
        watcher.send_text(json.dumps({"type": "hello", "watch": made["watch"]}))
        until(watcher, "state")
        assert ann.send({"type": "react", "reaction": "laugh"}).status_code == 200
        for socket in (bea_socket, watcher):
            got = until(socket, "reaction")
            assert got == {"type": "reaction", "reaction": "laugh",
                           "emoji": REACTIONS["laugh"], "from": "Ann", "seat": 0}
        watcher.send_text(json.dumps({"type": "react", "reaction": "clap", "ref": 3}))
        got = until(bea_socket, "reaction")
        assert got["from"] == "a spectator" and got["seat"] is None and got["emoji"]
        assert until(watcher, "reaction")["reaction"] == "clap"


def test_unknown_reactions_and_too_many_are_refused(client: TestClient) -> None:
    made, ann = create(client)
    response = ann.send({"type": "react", "reaction": "<script>"})
    assert response.status_code == 400
    assert "unknown reaction" in response.json()["error"] and "laugh" in response.json()["error"]
    for _ in range(REACTION_LIMIT):
        assert ann.send({"type": "react", "reaction": "heart"}).status_code == 200
    response = ann.send({"type": "react", "reaction": "heart"})
    assert response.status_code == 429
    assert f"at most {REACTION_LIMIT} every" in response.json()["error"]
    bea = join(client, made["invite"], "Bea")  # the limit is per sender
    assert bea.send({"type": "react", "reaction": "heart"}).status_code == 200
    with client.websocket_connect("/ws") as watcher:
        watcher.send_text(json.dumps({"type": "hello", "watch": made["watch"]}))
        until(watcher, "state")
        for _ in range(REACTION_LIMIT + 1):
            watcher.send_text(json.dumps({"type": "react", "reaction": "wow"}))
        error = until(watcher, "error")
        assert error["status"] == 429


def test_my_tables_lists_valid_tokens_only_with_title_status_and_seat(
        client: TestClient) -> None:
    made, ann = create(client, title="Friday")
    other, _dee = create(client, title="Sunday")
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    response = client.post("/api/my-tables", json={
        "tokens": [ann.token, bea.token, "stale-token", other["token"]]})
    assert response.status_code == 200, response.text
    tables = response.json()["tables"]
    assert tables == [
        {"token": ann.token, "title": "Friday", "status": "playing", "seat": 0},
        {"token": bea.token, "title": "Friday", "status": "playing", "seat": 1},
        {"token": other["token"], "title": "Sunday", "status": "lobby", "seat": 0}]
    for body in ({}, {"tokens": "x"}, {"tokens": [1]}, {"tokens": ["t"] * 101}):
        bad = client.post("/api/my-tables", json=body)
        assert bad.status_code == 400 and bad.json()["error"], body


def test_a_seat_is_reclaimed_through_the_creator(client: TestClient) -> None:
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    url = f"/api/invites/{made['invite']}/reclaim"
    for body, status in [({"seat": 0, "name": "X"}, 409), ({"seat": 2, "name": "X"}, 409),
                         ({"seat": 9, "name": "X"}, 400), ({"seat": 1}, 400)]:
        assert client.post(url, json=body).status_code == status, body
    asked = client.post(url, json={"seat": 1, "name": "Bea again"})
    assert asked.status_code == 200, asked.text
    secret = asked.json()["request"]
    assert client.get(f"/api/reclaims/{secret}").json()["status"] == "pending"
    requests = ann.state()["you"]["reclaim_requests"]
    assert [(r["seat"], r["name"], r["seat_name"]) for r in requests] == [
        (1, "Bea again", "Bea")]
    assert bea.state()["you"]["reclaim_requests"] == []  # only the creator sees them
    assert secret not in json.dumps(ann.state())
    answer = {"type": "reclaim_answer", "request": requests[0]["id"], "approve": True}
    refused = bea.send(answer)
    assert refused.status_code == 403 and "creator" in refused.json()["error"]
    assert ann.send({**answer, "request": "nope"}).status_code == 404
    assert ann.send(answer).status_code == 200
    got = client.get(f"/api/reclaims/{secret}").json()
    assert got["status"] == "approved" and got["seat"] == 1
    new = Seat(client, got["token"], 1)
    assert new.state()["you"]["name"] == "Bea"
    assert client.get("/api/state", headers=bea.headers).status_code == 401  # the old token
    assert client.get(f"/api/reclaims/{secret}").json() == {"status": "collected", "seat": 1}
    assert ann.state()["you"]["reclaim_requests"] == []
    assert ann.send(answer).status_code == 404  # answered once


def test_a_refused_reclaim_tells_the_requester_and_changes_nothing(client: TestClient) -> None:
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    secret = client.post(f"/api/invites/{made['invite']}/reclaim",
                         json={"seat": 1, "name": "Mallory"}).json()["request"]
    with client.websocket_connect("/ws") as ann_socket:
        ann_socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
        state = until(ann_socket, "state")
        request = state["you"]["reclaim_requests"][0]
        ann_socket.send_text(json.dumps({"type": "reclaim_answer", "request": request["id"],
                                         "approve": False, "ref": 1}))
        assert until(ann_socket, "ack")["ref"] == 1
    assert client.get(f"/api/reclaims/{secret}").json() == {"status": "refused", "seat": 1}
    assert bea.state()["you"]["seat"] == 1  # Bea keeps her seat
    assert client.get("/api/reclaims/unknown").status_code == 404
