"""Protocol hygiene and the host's offer: binary frames, unknown types, ping/pong, one server per
database, errors for every bad request, decks and bounds."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dixit_ai.web.app import create_app
from dixit_ai.web.config import ServerConfig, load_server_config, server_config_from_options
from dixit_ai.web.store import DatabaseInUse
from tests.web.conftest import create, manager_of, server_offering
from tests.web.servers import ROOT, ServerProcess, free_port


def test_binary_frames_and_unknown_types_get_a_clear_error_and_ping_a_pong(
        client: TestClient) -> None:
    made, _ann = create(client)
    with client.websocket_connect("/ws") as socket:
        socket.send_bytes(b"\x00\x01")  # even as the hello
        error = socket.receive_json()
        assert error["type"] == "error" and error["status"] == 400
        assert "binary" in error["message"]
        socket.send_text(json.dumps({"type": "hello", "token": made["token"]}))
        assert socket.receive_json()["type"] == "state"
        socket.send_bytes(json.dumps({"type": "ping"}).encode())
        error = socket.receive_json()
        assert error["status"] == 400 and "binary" in error["message"]
        socket.send_text(json.dumps({"type": "ping", "ref": 3}))
        assert socket.receive_json() == {"type": "pong", "ref": 3}
        socket.send_text(json.dumps({"type": "teleport", "ref": 4}))
        error = socket.receive_json()
        assert error["ref"] == 4 and error["status"] == 400
        assert "unknown message type" in error["message"] and "tell" in error["message"]
        socket.send_text(json.dumps({"type": "ping", "ref": 5}))  # still open
        assert socket.receive_json() == {"type": "pong", "ref": 5}


def test_every_bad_request_is_a_json_error_with_its_status(client: TestClient) -> None:
    made, ann = create(client)
    for method, path, status in [("get", f"/api/tables/{made['table_id']}/cards/abc", 400),
                                 ("get", "/api/no-such-thing", 404),
                                 ("post", "/api/options", 405),
                                 ("get", "/api/watch/nope", 404),
                                 ("get", "/api/tables/nope/captions", 404),
                                 ("get", "/api/tables/nope/record.json", 404)]:
        response = getattr(client, method)(path)
        assert response.status_code == status, (path, response.text)
        assert isinstance(response.json()["error"], str) and response.json()["error"]
    assert ann.send({"type": "seen", "round": "x"}).status_code == 400


@pytest.mark.parametrize(("body", "words"), [
    ({"score_limit": 10**12}, "between 1 and 300"),
    ({"score_limit": 2.5}, "whole number"),
    ({"move_timer": 10**9}, "between 1 and 3600"),
    ({"move_timer": float("inf")}, "between 1 and 3600"),
    ({"leave_grace": -1}, "between 0 and 86400"),
    ({"rules": {"hand_size": 10**6}}, "between 0 and 300"),
    ({"rules": {"no_such_rule": 1}}, "unknown rule"),
    ({"score_limit": 1, "rules": {"storyteller_points": 0, "finder_points": 0,
                                  "all_or_none_points": 0, "bonus_cap": 0}},
     "no round can award a point"),  # bots would play it for ever
    ({"seats": "4"}, "integer"),
    ({"deck": "folder:/etc"}, "not offered"),
    ({"deck": "dream:size=300"}, "not offered"),
    ({"bots": ["clip-greedy"] * 3}, "not offered"),
    ({"experiment": "yes"}, "true or false"),
])
def test_numbers_out_of_bounds_and_decks_not_offered_are_refused(
        client: TestClient, body: dict[str, Any], words: str) -> None:
    request = {"name": "Ann", "deck": "small", **body}
    response = client.post("/api/tables", content=json.dumps(request).replace(
        "Infinity", "1e999"), headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert words in response.json()["error"], response.text
    assert manager_of(client).tables == {}


def test_the_form_offers_the_hosts_decks_and_bots_only(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert [d["name"] for d in options["decks"]] == ["small", "tiny", "mid"]
    assert [b["name"] for b in options["bots"]] == ["random"]
    assert options["bots"][0]["status"] == "ready"
    assert options["limits"]["score_limit"] == [1, 300]


def test_server_config_from_a_file_and_flags(tmp_path: Path) -> None:
    path = tmp_path / "serve.toml"
    path.write_text('idle_cleanup = 3600\nbots = ["random"]\n[decks]\nsmall = "dream:size=40"\n')
    config = load_server_config(path)
    assert config.decks == {"small": "dream:size=40"} and config.bots == ("random",)
    assert config.idle_cleanup == 3600
    merged = server_config_from_options(config=path, decks=["big=dream:size=90"])
    assert merged.decks == {"big": "dream:size=90"} and merged.idle_cleanup == 3600
    path.write_text("colour = 'red'\n")
    with pytest.raises(ValueError, match="unknown key"):
        load_server_config(path)
    with pytest.raises(ValueError, match="no agent named"):
        server_config_from_options(bots=["nobody"])
    with pytest.raises(ValueError, match="given twice"):
        server_config_from_options(decks=["a=dream", "a=dream:size=50"])
    with pytest.raises(ValueError, match="at least one deck"):
        ServerConfig(decks={})


@pytest.mark.parametrize(("line", "problem"), [
    ('bots = "random"', "bots must be a list of bot names"),
    ('bots = ["nobody"]', "no agent named 'nobody'"),
    ("bots = [3]", "bots must be a list of bot names"),
    ('decks = ["dream"]', "decks must be a table of NAME = SPEC entries"),
    ("decks = 3", "decks must be a table of NAME = SPEC entries"),
    ('idle_cleanup = "x"', "idle_cleanup must be a number of seconds"),
    ("reveal_seconds = false", "reveal_seconds must be a number of seconds"),
    ('allow_fixed_seeds = "yes"', "allow_fixed_seeds must be true or false"),
])
def test_a_bad_value_in_the_servers_file_is_refused_naming_it(tmp_path: Path, line: str,
                                                             problem: str) -> None:
    """Each value of the file is checked for its type: a bare bot name was read letter by
    letter (bots 'r', 'a', ...), a list of decks or a word for a number crashed, and "yes" was
    taken for true."""
    path = tmp_path / "serve.toml"
    path.write_text(line + "\n")
    with pytest.raises(ValueError, match=re.escape(problem)) as raised:
        load_server_config(path)
    assert str(path) in str(raised.value)


def test_one_server_per_database_refuses_before_restoring(
        tmp_path: Path, app_factory: Callable[..., TestClient]) -> None:
    first = app_factory("shared.sqlite3")
    create(first)
    second = TestClient(create_app(tmp_path / "shared.sqlite3", durable=False,
                                   server=server_offering()))
    with pytest.raises(DatabaseInUse, match="in use by another dixit-ai server"):
        second.__enter__()
    assert len(manager_of(first).tables) == 1  # the first goes on
    # The same with real servers: the second exits at once with the message.
    db = tmp_path / "real.sqlite3"
    server = ServerProcess(db)
    try:
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "dixit_ai.cli", "serve", "--db", str(db), "--port",
             str(free_port()), "--deck", "small=dream:size=40", "--bot", "random"],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
        assert result.returncode == 2, result.stdout + result.stderr
        assert "in use by another dixit-ai server" in result.stderr
        assert "restored" not in result.stdout + result.stderr
        assert time.monotonic() - started < 30
    finally:
        server.stop()


@pytest.mark.parametrize(("option", "named"), [
    ("folder:/cards/My Cards 2", ("My-Cards-2", "folder:/cards/My Cards 2")),
    ("folder:~/été/", ("été", "folder:~/été/")),
    ("dream", ("dream", "dream")),
    ("dream:size=60", ("dream", "dream:size=60")),   # its "=" is the spec's, not NAME=
    ("small=dream:size=60", ("small", "dream:size=60")),
])
def test_a_bare_deck_option_is_named_after_its_folder_or_kind(
        option: str, named: tuple[str, str]) -> None:
    """Before, every bare folder was named 'folder' (two were "given twice"), and a bare
    'dream:size=60' became a deck 'dream:size' of spec '60'."""
    from dixit_ai.web.config import parse_deck_option

    assert parse_deck_option(option) == named
    assert server_config_from_options(
        decks=["folder:/a/cards", "folder:/b/photos"]).decks == {
            "cards": "folder:/a/cards", "photos": "folder:/b/photos"}
    with pytest.raises(ValueError, match=r"name this deck, NAME=SPEC \(e.g. "
                                         r"mine=dream\+folder:/x\)"):
        parse_deck_option("dream+folder:/x")


def test_the_create_form_bounds_the_score_limit_as_the_server_does() -> None:
    """The form's field said at most 200 where the server takes 300 (the README's 1-300)."""
    from dixit_ai.web.table_config import SCORE_LIMIT_RANGE

    page = (Path(__file__).resolve().parents[2] / "dixit_ai" / "web" / "static"
            / "index.html").read_text()
    field = re.search(r'<input id="create-score-limit"[^>]*>', page)
    assert field is not None
    bounds = (int(re.search(r'min="(\d+)"', field.group()).group(1)),
              int(re.search(r'max="(\d+)"', field.group()).group(1)))
    assert bounds == SCORE_LIMIT_RANGE
    assert 'rel="icon"' in page   # no request for /favicon.ico, which answered 404
