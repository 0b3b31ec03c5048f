"""The agent for models served over HTTP, against a fake chat-completions server on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from dixit_ai.agents import agent_spec, make_agent
from dixit_ai.agents.http_agent import (
    EndpointError,
    EndpointTimeout,
    HttpAgent,
    InvalidAnswerError,
    parse_answer,
)
from dixit_ai.agents.registry import _REGISTRY, register_agent
from dixit_ai.match import play_game
from dixit_ai.rules import Announce, RedToken, RuleSet, Vote, check_action, observe
from tests.bench.helpers import BENCH_DECK, FakeServer, fake_server


@pytest.fixture(scope="module")
def server() -> FakeServer:
    with fake_server(delay=1.5) as running:
        yield running


def agent(server: FakeServer, model: str, **options: object) -> HttpAgent:
    settings: dict[str, object] = {"base_url": server.base_url, "model": model,
                                   "deck": BENCH_DECK, "timeout": 5.0, "max_retries": 2,
                                   "image_size": 64, **options}
    return HttpAgent(name=f"http-{model}", **settings)  # type: ignore[arg-type]


def vote_state():
    """A 4-player round at the vote phase (cards of the test deck), and the voting seat."""
    from models.bench.tables import laid, round_start, told

    rules = RuleSet.edition("refresh-2021")
    deck = list(range(30))
    state = round_start(rules, [(0, 1), (2, 3, 4), (5, 6), (7, 8)], deck)
    state = laid(told(state, 0, "a whale"), [2, 5, 7], np.random.default_rng(3))
    return state, 1


def test_a_valid_answer_becomes_a_legal_move(server: FakeServer) -> None:
    state, seat = vote_state()
    player = agent(server, "valid")
    player.reset(seat=seat, rng=np.random.default_rng(0))
    before = len(server.requests)
    choice = player.vote(observe(state, seat))
    check_action(state, Vote(seat, choice.items))
    assert choice.info["attempts"] == 1
    (request,) = server.requests[before:]
    assert request["model"] == "valid" and request["response_format"] == {"type": "json_object"}
    content = request["messages"][1]["content"]
    images = [part for part in content if part["type"] == "image_url"]
    assert len(images) == 4  # the whole board, the agent's own card marked in the prompt
    assert images[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "are yours" in content[0]["text"] and "a whale" in content[0]["text"]


def test_an_invalid_answer_is_retried_with_the_reason(server: FakeServer) -> None:
    state, seat = vote_state()
    player = agent(server, "retry")
    player.reset(seat=seat, rng=np.random.default_rng(0))
    before = len(server.requests)
    choice = player.vote(observe(state, seat))
    assert choice.info["attempts"] == 2 and "99 is not between 1 and 4" in choice.info["refused"][0]
    first, second = server.requests[before:]
    assert len(first["messages"]) == 2
    feedback = second["messages"][-1]["content"]
    assert second["messages"][-2]["role"] == "assistant"
    assert "invalid" in feedback and "99 is not between 1 and 4" in feedback


@pytest.mark.parametrize("mode", ["invalid", "prose"])
def test_an_answer_invalid_every_time_raises(server: FakeServer, mode: str) -> None:
    state, seat = vote_state()
    player = agent(server, mode, max_retries=1)
    player.reset(seat=seat, rng=np.random.default_rng(0))
    before = len(server.requests)
    with pytest.raises(InvalidAnswerError) as error:
        player.vote(observe(state, seat))
    assert len(server.requests) - before == 2  # one request and one retry, then it gives up
    assert error.value.attempts == 2 and len(error.value.reasons) == 2


def test_a_slow_endpoint_times_out(server: FakeServer) -> None:
    state, seat = vote_state()
    player = agent(server, "slow", timeout=0.3, max_retries=0)
    player.reset(seat=seat, rng=np.random.default_rng(0))
    start = time.perf_counter()
    with pytest.raises(EndpointTimeout, match=r"did not answer within 0\.3 s"):
        player.vote(observe(state, seat))
    assert time.perf_counter() - start < 1.4


def test_a_game_records_the_failure_and_never_substitutes_a_move(server: FakeServer) -> None:
    players = [agent(server, "invalid", max_retries=1), make_agent("random"),
               make_agent("random")]
    record = play_game(players, edition="refresh-2021", deck=BENCH_DECK, seed=4)
    assert record.status == "aborted"
    (failure,) = record.failures
    assert failure.seat == 0 and failure.error == "InvalidAnswerError"
    assert "no valid answer" in failure.reason and failure.penalty == "abort"
    forfeit = play_game(players, edition="refresh-2021", deck=BENCH_DECK, seed=4,
                        on_failure="forfeit", max_rounds=2)
    assert forfeit.failures and {f.error for f in forfeit.failures} == {"InvalidAnswerError"}
    assert all(rnd.points[0] == 0 for rnd in forfeit.rounds)
    assert all(0 in rnd.forfeits for rnd in forfeit.rounds)
    slow = play_game([agent(server, "slow", timeout=0.2, max_retries=0),
                      make_agent("random"), make_agent("random")],
                     edition="refresh-2021", deck=BENCH_DECK, seed=4)
    assert slow.failures[0].error == "EndpointTimeout"


def test_a_whole_game_with_valid_answers(server: FakeServer) -> None:
    players = [agent(server, "valid"), agent(server, "retry"), make_agent("random")]
    record = play_game(players, edition="refresh-2021", deck=BENCH_DECK, seed=5, max_rounds=3)
    assert record.status == "truncated" and not record.failures
    assert next(r.clue for r in record.rounds if r.storyteller in (0, 1)) == "a quiet dream"
    notes = record.rounds[0].notes
    assert any(entry.get("vote", {}).get("attempts") for entry in notes.values())


def test_the_api_key_comes_from_the_environment(server: FakeServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    state, seat = vote_state()
    player = agent(server, "valid", api_key_env="DIXIT_TEST_KEY")
    player.reset(seat=seat, rng=np.random.default_rng(0))
    monkeypatch.delenv("DIXIT_TEST_KEY", raising=False)
    with pytest.raises(EndpointError, match="DIXIT_TEST_KEY is not set"):
        player.vote(observe(state, seat))
    monkeypatch.setenv("DIXIT_TEST_KEY", "sk-test-123")
    player.vote(observe(state, seat))
    assert server.headers[-1]["Authorization"] == "Bearer sk-test-123"
    assert "sk-test-123" not in str(player.describe())


def test_requests_in_flight_are_limited_per_endpoint() -> None:
    with fake_server() as busy:
        state, seat = vote_state()
        players = [agent(busy, "busy", concurrency=2) for _ in range(6)]
        view = observe(state, seat)
        threads = [threading.Thread(target=p.vote, args=(view,)) for p in players]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(busy.requests) == 6 and busy.max_in_flight == 2


def test_an_unreachable_endpoint_is_an_endpoint_error() -> None:
    player = HttpAgent(base_url="http://127.0.0.1:9/v1", model="x", deck=BENCH_DECK,
                       timeout=2, max_retries=0)
    state, seat = vote_state()
    with pytest.raises(EndpointError, match="could not be reached"):
        player.vote(observe(state, seat))


def test_parse_answer_and_settings() -> None:
    assert parse_answer('```json\n{"card": 2}\n```') == {"card": 2}
    with pytest.raises(ValueError, match="inside other text"):  # never extracted from prose
        parse_answer('Sure! {"card": 3, "clue": "x"} Hope it helps')
    with pytest.raises(ValueError, match="not a JSON object"):
        parse_answer("the second one")
    with pytest.raises(ValueError, match="JSON object"):
        parse_answer("[1, 2]")
    with pytest.raises(ValueError, match="base_url"):
        HttpAgent(base_url="localhost:8000", model="x")
    with pytest.raises(ValueError, match="max_retries"):
        HttpAgent(base_url="http://x", model="x", max_retries=-1)


def test_the_example_entry_is_registered_without_torch() -> None:
    spec = agent_spec("http-example")
    assert spec.entry_point == "dixit_ai.agents.http_agent:HttpAgent"
    assert {"base_url", "model", "api_key_env", "timeout", "max_retries", "concurrency"} <= set(
        spec.kwargs)
    player = make_agent("http-example")
    assert isinstance(player, HttpAgent) and player.describe()["model"]


def test_the_benchmark_reports_the_invalid_answer_rate(server: FakeServer, tmp_path: Path) -> None:
    from models.bench import BenchConfig, run_bench

    for mode in ("invalid", "retry"):
        register_agent(f"test-http-{mode}", "dixit_ai.agents.http_agent:HttpAgent",
                       overwrite=True, base_url=server.base_url, model=mode, deck="dream",
                       max_retries=1, image_size=48)
    try:
        run = run_bench(BenchConfig(models=["test-http-invalid", "test-http-retry"],
                                    tasks=["guess", "decoy", "tell"], items=2, deck=BENCH_DECK,
                                    bootstrap=50, reference_deals=1, out=str(tmp_path)),
                        progress=False, show=False, log=None)
    finally:
        _REGISTRY.pop("test-http-invalid", None)
        _REGISTRY.pop("test-http-retry", None)
    guess = run.results["guess"]["models"]
    assert guess["test-http-invalid"]["invalid_rate"] == 1.0
    assert guess["test-http-retry"]["invalid_rate"] == 0.0
    assert run.results["decoy"]["models"]["test-http-invalid"]["invalid_rate"] == 1.0
    assert run.results["tell"]["models"]["test-http-invalid"]["invalid_rate"] == 1.0
    assert run.results["tell"]["models"]["test-http-retry"]["invalid_rate"] == 0.0
    assert "InvalidAnswerError" in (run.folder / "records.jsonl").read_text()
    csv_text = (run.folder / "results.csv").read_text()
    assert "test-http-invalid,agent,guess,invalid_rate,caption,1" in csv_text


# ---------------------------------------------------------------------- Dixit Party


def party_states():
    """A 6-player Dixit Party game at the storyteller's announce, and at its red token."""
    from dixit_ai.agents import RandomAgent
    from dixit_ai.match import decide
    from dixit_ai.rules import Phase, apply_action, new_game

    rules = RuleSet.edition("odyssey-2011", mode="party")
    rng = np.random.default_rng(2)
    start = new_game(rules, 6, range(30), rng)
    state = start
    others = RandomAgent()
    others.reset(seat=0, rng=np.random.default_rng(1))
    while state.phase is not Phase.RED:
        action, _, _ = decide(others, observe(state, state.pending[0]))
        state = apply_action(state, action, rng)
    return start, state


def test_party_announce_is_a_clue_without_any_card(server: FakeServer) -> None:
    start, _ = party_states()
    teller = start.storyteller
    view = observe(start, teller)
    assert view.hand == ()  # the storyteller has not looked at the hand
    player = agent(server, "valid")
    player.reset(seat=teller, rng=np.random.default_rng(0))
    before = len(server.requests)
    said = player.announce(view)
    assert said.clue == "a quiet dream" and said.info["attempts"] == 1
    check_action(start, Announce(teller, said.clue, said.clue_kind))
    (request,) = server.requests[before:]
    content = request["messages"][1]["content"]
    assert not [part for part in content if part["type"] == "image_url"]  # no card is shown
    assert "Dixit Party" in request["messages"][0]["content"]
    assert "before looking at your hand" in content[0]["text"]


def test_party_answers_are_checked_retried_and_then_refused(server: FakeServer) -> None:
    start, red = party_states()
    teller = start.storyteller
    retrying = agent(server, "retry")
    retrying.reset(seat=teller, rng=np.random.default_rng(0))
    said = retrying.announce(observe(start, teller))  # {"card": 99} has no clue: asked again
    assert said.info["attempts"] == 2 and "clue must be text" in said.info["refused"][0]
    place = retrying.red_token(observe(red, red.storyteller))  # card 99 refused, then card 1
    assert place.items == (0,) and "99 is not between 1 and 6" in place.info["refused"][0]
    check_action(red, RedToken(red.storyteller, place.items[0]))
    for decision, view in (("announce", observe(start, teller)),
                           ("red_token", observe(red, red.storyteller))):
        stubborn = agent(server, "invalid", max_retries=1)
        stubborn.reset(seat=teller, rng=np.random.default_rng(0))
        before = len(server.requests)
        with pytest.raises(InvalidAnswerError) as error:
            getattr(stubborn, decision)(view)
        assert len(server.requests) - before == 2 and error.value.attempts == 2
    with pytest.raises(ValueError, match="red phase"):  # only the storyteller, only then
        agent(server, "valid").red_token(observe(red, (red.storyteller + 1) % 6))
    base = observe(vote_state()[0], 0)
    with pytest.raises(ValueError, match="not Party"):
        agent(server, "valid").announce(base)


def test_a_whole_party_game_with_http_players(server: FakeServer) -> None:
    players = [agent(server, "valid"), agent(server, "retry"), *["random"] * 4]
    record = play_game(players, edition="odyssey-2011", mode="party", deck=BENCH_DECK,
                       seed=3)
    assert record.status == "complete" and not record.failures and len(record.rounds) == 6
    told = [r for r in record.rounds if r.storyteller in (0, 1)]
    assert told and all(r.clue == "a quiet dream" and r.red_token == 0 for r in told)
    from dixit_ai.replay import replay_record

    replay_record(record)
