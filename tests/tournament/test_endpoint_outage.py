"""An HTTP agent's server that dies mid-tournament stops the run, resumably: after
MAX_ENDPOINT_FAILURES decisions in a row that could not reach the endpoint, the game in play is
not recorded and the run stops; resumed once the server is back, it plays the rest, with no
forfeit recorded for the outage."""

from __future__ import annotations

from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from dixit_ai.agents import register_agent
from dixit_ai.cli import main
from dixit_ai.records import GameRecord
from dixit_ai.tournament import TournamentConfig, run_tournament
from dixit_ai.tournament.outage import MAX_ENDPOINT_FAILURES, EndpointOutage, OutageCount
from dixit_ai.tournament.player import GamePlayer
from tests.bench.helpers import BENCH_DECK, FakeServer

QUICK: dict[str, Any] = {"progress": False, "n_resamples": 10, "rating_resamples": 0,
                         "workers": 1}


@pytest.fixture
def server() -> Any:
    running = FakeServer().start()
    yield running
    running.stop()


def restart(dead: FakeServer) -> FakeServer:
    """The same server again, on the same port (the agent's base_url)."""
    port = dead.httpd.server_address[1]
    again = FakeServer()
    again.httpd.server_close()
    again.httpd = ThreadingHTTPServer(("127.0.0.1", port), dead.httpd.RequestHandlerClass)
    again.httpd.daemon_threads = True
    import threading

    again.thread = threading.Thread(target=again.httpd.serve_forever, daemon=True)
    return again.start()


def config(server: FakeServer, games: int = 4) -> TournamentConfig:
    register_agent("outage-http", "dixit_ai.agents.http_agent:HttpAgent", overwrite=True,
                   base_url=server.base_url, model="valid", deck=BENCH_DECK, timeout=2.0,
                   max_retries=0, image_size=64)
    return TournamentConfig(agents=("outage-http", "random"), players=3, games=games, seed=1,
                            deck=BENCH_DECK, max_rounds=2, on_failure="forfeit", name="outage")


def records(folder: Path) -> list[GameRecord]:
    return [GameRecord.from_json(line)
            for line in (folder / "games.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_dead_server_stops_the_run_and_resume_plays_the_rest(server: FakeServer,
                                                               tmp_path: Path,
                                                               workers: int) -> None:
    first = run_tournament(config(server), out=tmp_path, stop_after=1, **QUICK)
    assert first.played == 1
    server.stop()  # connections refused from now on
    with pytest.raises(EndpointOutage) as stopped:
        run_tournament(config(server), resume=first.folder, **{**QUICK, "workers": workers})
    message = str(stopped.value)
    assert f"outage-http: {MAX_ENDPOINT_FAILURES} decisions in a row could not get an answer" \
        in message
    assert "could not be reached" in message and "resume the run" in message
    assert len(records(first.folder)) == 1  # the game in play was not recorded
    back = restart(server)
    try:
        done = run_tournament(config(server), resume=first.folder, **QUICK)
    finally:
        back.stop()
    assert done.played == 3 and done.results is not None
    played = records(first.folder)
    assert sorted(r.header["tournament"]["game"] for r in played) == [0, 1, 2, 3]
    assert not any(r.failures for r in played)


def test_the_command_line_says_to_resume(server: FakeServer, tmp_path: Path, capsys) -> None:
    config(server)
    server.stop()
    code = main(["tournament", "--agents", "outage-http,random", "--players", "3", "--games",
                 "2", "--deck", BENCH_DECK, "--max-rounds", "2", "--workers", "1",
                 "--no-progress", "--out", str(tmp_path), "--resamples", "10",
                 "--rating-resamples", "0"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "decisions in a row could not get an answer from its endpoint" in err
    assert "continue with: dixit-ai tournament --resume" in err
    (folder,) = tmp_path.iterdir()
    assert not (folder / "games.jsonl").exists() or not records(folder)


def test_an_answer_starts_the_count_again() -> None:
    from dixit_ai.agents.http_transport import EndpointError

    def down() -> EndpointError:
        return EndpointError("down", unreachable=True)

    count = OutageCount(3)
    for _ in range(2):
        count.ended("a", down())
    count.ended("a", None)  # it answered: the endpoint is up
    count.ended("b", down())
    count.ended("b", ValueError("an invalid answer"))
    for _ in range(2):
        count.ended("a", down())
    count.ended("a", EndpointError("answered HTTP 401"))  # up, and refusing: no outage
    for _ in range(2):
        count.ended("a", down())
    with pytest.raises(EndpointOutage, match="a: 3 decisions in a row"):
        count.ended("a", down())


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "5"])
def test_a_bad_limit_is_refused(value: Any) -> None:
    with pytest.raises(ValueError, match="endpoint_failures must be an int of at least 1"):
        GamePlayer(TournamentConfig(agents=("random", "b=random"), players=3, games=1),
                   endpoint_failures=value)


def test_refused_and_5xx_are_outages_and_4xx_is_not() -> None:
    import io
    import urllib.error

    from dixit_ai.agents.http_agent import HttpAgent

    player = HttpAgent(base_url="http://127.0.0.1:9/v1", model="x", deck=BENCH_DECK)

    def answered(code: int) -> Any:
        return urllib.error.HTTPError("u", code, "m", {}, io.BytesIO(b"x"))  # type: ignore[arg-type]

    assert player._endpoint_error(answered(503), "u").unreachable  # type: ignore[union-attr]
    assert not player._endpoint_error(answered(401), "u").unreachable  # type: ignore[union-attr]
    refused = urllib.error.URLError(ConnectionRefusedError("refused"))
    assert player._endpoint_error(refused, "u").unreachable  # type: ignore[union-attr]
