"""``dixit-ai serve`` without the [web] extra: a clear message naming the extra to install."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from dixit_ai.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_serve_names_the_web_extra_when_fastapi_is_missing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "fastapi" else real(name, *a))
    assert main(["serve", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "fastapi" in err and "pip install 'dixit-ai[web]'" in err


def test_the_cli_does_not_import_the_web_stack() -> None:
    code = ("import sys, dixit_ai.cli; dixit_ai.cli.build_parser(); "
            "print(sorted({'fastapi', 'uvicorn', 'starlette'} & set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_serve_help_mentions_the_database(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "--db" in out and "--host" in out and "--port" in out


def test_serve_lists_the_hosts_offer_and_refuses_a_bad_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("fastapi", reason="the [web] extra")
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    for flag in ("--deck", "--bot", "--config", "--idle-cleanup", "--reveal-seconds"):
        assert flag in out
    status = main(["serve", "--db", str(tmp_path / "x.sqlite3"), "--bot", "nobody"])
    assert status != 0 and "no agent named 'nobody'" in capsys.readouterr().err
    status = main(["serve", "--db", str(tmp_path / "x.sqlite3"), "--deck", "=dream"])
    assert status != 0 and "NAME=SPEC" in capsys.readouterr().err


def _listening_port() -> socket.socket:
    """A socket listening on a free loopback port (the caller closes it)."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    return taken


def _no_server(*args: object, **kwargs: object) -> None:
    raise AssertionError("the server was started")


@pytest.mark.parametrize(("deck", "message"), [
    ("x=nosuch", "dixit-ai serve: error: --deck x=nosuch: unknown deck spec 'nosuch'"),
    # Before, a 2-card deck was offered, and the host learnt it was of no use only when a
    # table was refused.
    ("two=dream:size=2", "--deck two=dream:size=2: 2 cards is too small for any game (the "
                         "smallest, odyssey-2011 with 3 players, needs 21)"),
])
def test_serve_refuses_a_bad_deck_before_creating_the_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], deck: str, message: str) -> None:
    uvicorn = pytest.importorskip("uvicorn", reason="the [web] extra")
    monkeypatch.setattr(uvicorn, "run", _no_server)
    status = main(["serve", "--db", str(tmp_path / "a.db"), "--deck", deck, "--port", "18765"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert message in err
    assert "Traceback" not in err and not list(tmp_path.iterdir())  # no a.db, no a.db.lock


def test_serve_refuses_a_port_in_use_before_creating_the_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    uvicorn = pytest.importorskip("uvicorn", reason="the [web] extra")
    monkeypatch.setattr(uvicorn, "run", _no_server)
    with _listening_port() as taken:
        port = taken.getsockname()[1]
        status = main(["serve", "--db", str(tmp_path / "a.db"), "--port", str(port)])
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"cannot listen on 127.0.0.1:{port} (Address already in use)" in err
    assert "--port" in err and not list(tmp_path.iterdir())


def test_a_server_that_does_not_start_leaves_no_new_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    uvicorn = pytest.importorskip("uvicorn", reason="the [web] extra")

    def fails_at_startup(*args: object, **kwargs: object) -> None:
        (tmp_path / "a.db").write_bytes(b"")  # what the startup hook had created
        sys.exit(3)  # uvicorn's status when the server did not start

    monkeypatch.setattr(uvicorn, "run", fails_at_startup)
    with _listening_port() as free:
        port = free.getsockname()[1]
    assert main(["serve", "--db", str(tmp_path / "a.db"), "--port", str(port)]) == 1
    assert "the server did not start" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_served_socket_closes_on_a_message_too_large_to_read(tmp_path: Path) -> None:
    """``dixit-ai serve`` caps what uvicorn reads of one WebSocket message: a message over the
    app's limit but under the cap gets the app's 413 error (the socket stays open); one over the
    cap closes the socket (1009) before it is read whole (uvicorn's default reads 16 MiB)."""
    import json

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from dixit_ai.web.app import MAX_REQUEST_BYTES, MAX_SOCKET_FRAME_BYTES
    from tests.web.servers import ServerProcess

    server = ServerProcess(tmp_path / "tables.sqlite3")
    try:
        url = server.url.replace("http://", "ws://") + "/ws"
        with connect(url, max_size=None) as socket_:
            socket_.send("x" * (MAX_REQUEST_BYTES + 1))
            reply = json.loads(socket_.recv(timeout=10))
            assert reply["type"] == "error" and "too large" in reply["message"]
            socket_.send("x" * (MAX_REQUEST_BYTES + 1))  # still open, still answered
            assert "too large" in json.loads(socket_.recv(timeout=10))["message"]
        with connect(url, max_size=None) as socket_:
            socket_.send("x" * (MAX_SOCKET_FRAME_BYTES + 1))
            with pytest.raises(ConnectionClosed) as closed:
                socket_.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    finally:
        server.stop()
