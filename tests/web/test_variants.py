"""Team Dixit and Dixit Party at the web tables: options, messages, moves, bots and records."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from dixit_ai.agents import RandomAgent, register_agent
from dixit_ai.replay import replay_record
from dixit_ai.rules import RuleSet
from dixit_ai.web.messages import rules_help
from tests.web.conftest import create, join, server_offering
from tests.web.playing import play_and_check_every_message, play_out, record_of

TEAMS: dict[str, Any] = {"edition": "odyssey-2011", "seats": 6, "variant": "teams",
                         "score_limit": None}
PARTY: dict[str, Any] = {"edition": "odyssey-2011", "seats": 6, "variant": "party",
                         "score_limit": None}


def test_a_team_game_with_people_and_bots_plays_out_and_replays(client: TestClient) -> None:
    record = play_and_check_every_message(client, **TEAMS, seed=5)
    assert record.header["rules"]["teams"] is True and len(record.rounds) == 6
    # Partners share their team's score; every round one card per team is on the board.
    for seat in range(3):
        assert record.final_scores[seat] == record.final_scores[seat + 3]
    for round_ in record.rounds:
        assert len(round_.board) == 4
    # People passed the giving in even rounds (simple_move): some round shows a pass, i.e. a
    # designated seat that gave nothing while its partner gave.
    assert any(not round_.played[(round_.storyteller + 1) % 6] for round_ in record.rounds)


def test_a_party_game_with_people_and_bots_plays_out_and_replays(client: TestClient) -> None:
    record = play_and_check_every_message(client, **PARTY, seed=6)
    assert record.header["rules"]["mode"] == "party" and len(record.rounds) == 6
    for round_ in record.rounds:
        assert len(round_.board) == 6 and round_.red_token is not None
        assert len(round_.votes) == 6  # everyone votes, the storyteller included


def test_one_person_and_bots_play_a_team_and_a_party_game_over_the_api(
        client: TestClient) -> None:
    for table in (TEAMS, PARTY):
        made, ann = create(client, **table, seed=9)
        ann.send({"type": "start"})
        final = play_out([ann])
        assert final["game"]["phase"] == "over" and final["game"]["round"] == 6
        assert final["table"]["ends"] == "rounds" and final["table"]["n_rounds"] == 6
        replay_record(record_of(client, made["table_id"]))
        last = final["game"]["last_round"]
        for seat in range(6):
            assert sum(p["points"] for p in last["reasons"][seat]) == last["points"][seat]
        if table is PARTY:
            assert last["red_token"] is not None
            assert final["table"]["teams"] is None and final["table"]["mode"] == "party"
        else:
            assert final["table"]["teams"] == [[0, 3], [1, 4], [2, 5]]


def test_team_moves_the_rules_refuse_are_refused_over_the_api(client: TestClient) -> None:
    made, ann = create(client, **TEAMS, seed=2)
    bea = join(client, made["invite"], "Bea")  # seat 1: designated for its team in round 0
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]
    assert game["teams"] is True and game["partner"] == 3 and len(game["hand"]) == 4
    # The storyteller cannot pass (a pass is a play of no card).
    assert ann.send({"type": "tell", "card": game["hand"][0], "clue": "a tide"}).status_code == 200
    game = bea.wait_turn()["game"]
    assert game["phase"] == "play" and game["can_pass"] is True
    assert bea.send({"type": "play", "cards": []}).status_code == 200
    state = bea.wait(lambda s: s["game"]["phase"] != "play")
    assert state["game"]["my_cards"] == [] and state["game"]["can_pass"] is False


def test_a_bot_whose_partner_passes_gives_its_teams_card(client: TestClient) -> None:
    """Bea (seat 1) passes the giving to her partner, a bot (seat 4). The bot decided on the
    phase's first state, in which it had nothing to do, so its move was refused and its team
    forfeited the round; a pass now starts the bot's decision afresh."""
    from tests.web.conftest import manager_of

    made, ann = create(client, **TEAMS, seed=2)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]
    assert ann.send({"type": "tell", "card": game["hand"][0], "clue": "a tide"}).status_code == 200
    assert bea.wait_turn()["game"]["can_pass"] is True
    assert bea.send({"type": "play", "cards": []}).status_code == 200
    bea.wait(lambda s: s["game"]["phase"] != "play")
    session = manager_of(client).tables[made["table_id"]].session
    assert session is not None
    assert [failure for failure in session.failures if failure.seat == 4] == []
    assert len(session.state.played[4]) == 1 and session.state.played[1] == ()


def test_party_moves_over_the_api(client: TestClient) -> None:
    _made, ann = create(client, **PARTY, seed=4)
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]
    assert game["mode"] == "party" and game["phase"] == "tell" and game["hand"] == []
    response = ann.send({"type": "tell", "card": 0, "clue": "x"})
    assert response.status_code == 409 and "announce" in response.json()["error"].lower()
    response = ann.send({"type": "announce", "clue": "x", "card": 3})
    assert response.status_code == 400 and "no card" in response.json()["error"]
    assert ann.send({"type": "announce", "clue": "a quiet harbour"}).status_code == 200
    game = ann.wait_turn()["game"]
    assert game["phase"] == "play" and len(game["hand"]) == 5
    assert ann.send({"type": "play", "cards": game["hand"][:1]}).status_code == 200
    game = ann.wait_turn()["game"]
    assert game["phase"] == "vote" and game["legal_vote_positions"] == list(range(6))
    mine = game["my_positions"][0]
    assert ann.send({"type": "red", "position": 0}).status_code == 409  # not yet
    assert ann.send({"type": "vote", "positions": [mine]}).status_code == 200  # own card: legal
    game = ann.wait_turn()["game"]
    assert game["phase"] == "red" and game["legal_red_positions"] == list(range(6))
    for bad in (6, -1, True, "1"):
        response = ann.send({"type": "red", "position": bad})
        assert response.status_code in (400, 409), bad
    assert ann.send({"type": "red", "position": 2}).status_code == 200
    last = ann.wait(lambda s: s["game"]["last_round"] is not None)["game"]["last_round"]
    assert last["red_token"] == 2 and last["votes"]["0"] == [mine]


@pytest.mark.parametrize(("body", "message"), [
    ({"variant": "teams", "edition": "refresh-2021", "seats": 6}, "odyssey"),
    ({"variant": "teams", "edition": "odyssey-2011", "seats": 7}, "even"),
    ({"variant": "teams", "edition": "odyssey-2011", "seats": 4}, "at least 6"),
    ({"variant": "party", "edition": "odyssey-2011", "seats": 5}, "6-12"),
    ({"variant": "duo", "edition": "odyssey-2011", "seats": 6}, "variant must be one of"),
    ({"variant": "teams", "rules": {"teams": True}, "edition": "odyssey-2011", "seats": 6},
     "not both"),
    ({"rules": {"teams": "yes"}, "edition": "odyssey-2011", "seats": 6}, "true or false"),
    ({"rules": {"mode": "solo"}, "edition": "odyssey-2011", "seats": 6}, "mode must be"),
    ({"variant": "party", "edition": "odyssey-2011", "seats": 6, "rounds_per_player": 11},
     "between 1 and 10"),
    ({"variant": "party", "edition": "odyssey-2011", "seats": 6, "rounds_per_player": 0},
     "between 1 and 10"),
    ({"rules": {"teams_allowed": True, "teams": True}, "edition": "refresh-2021", "seats": 6},
     "fact of the edition"),
    ({"rules": {"min_party_players": 3}, "edition": "odyssey-2011", "seats": 6},
     "fact of the edition"),
])
def test_variant_options_are_bounded_and_validated(client: TestClient, body: dict[str, Any],
                                                   message: str) -> None:
    before = client.get("/api/tables/none/record.json").status_code
    response = client.post("/api/tables", json={"name": "Ann", "deck": "small",
                                                "score_limit": None, **body})
    assert response.status_code == 400 and message in response.json()["error"], response.text
    assert client.get("/api/tables/none/record.json").status_code == before


class BaseOnlyAgent:
    """A bot of the basic game only: it has no ``announce`` or ``red_token``."""

    name = "base-only"

    def __init__(self) -> None:
        self.inner = RandomAgent()

    def reset(self, *, seat: int, rng: Any) -> None:
        self.inner.reset(seat=seat, rng=rng)

    def tell(self, view: Any) -> Any:
        return self.inner.tell(view)

    def play(self, view: Any) -> Any:
        return self.inner.play(view)

    def vote(self, view: Any) -> Any:
        return self.inner.vote(view)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}


register_agent("base-only", "tests.web.test_variants:BaseOnlyAgent", overwrite=True)


def test_party_tables_refuse_bots_without_party_decisions(app_factory: Any) -> None:
    client = app_factory(server=server_offering("random", "base-only"))
    body = {"name": "Ann", "deck": "small", **PARTY}
    for bots, takeover in (("base-only", "random"), ("random", "base-only")):
        response = client.post("/api/tables", json={**body, "bots": bots,
                                                    "takeover_bot": takeover})
        assert response.status_code == 400, response.text
        assert "'base-only' cannot play Dixit Party (no announce() or red_token())" in (
            response.json()["error"])
    assert client.post("/api/tables", json={**body, "bots": "random"}).status_code == 200
    party = {b["name"]: b["party"] for b in client.get("/api/options").json()["bots"]}
    assert party == {"random": True, "base-only": False}  # the form offers only Party bots
    base_only = next(b for b in client.get("/api/options").json()["bots"]
                     if b["name"] == "base-only")
    assert "cannot play Dixit Party" in base_only["party_problem"] and base_only["available"]
    # The same bot may sit at a team table (it has every decision of the basic game).
    response = client.post("/api/tables", json={"name": "Ann", "deck": "small", **TEAMS,
                                                "bots": "base-only"})
    assert response.status_code == 200, response.text


def test_rounds_per_player_and_help_with_the_modes_numbers(client: TestClient) -> None:
    _made, ann = create(client, **PARTY, rounds_per_player=2, seed=1)
    table = ann.state()["table"]
    assert table["n_rounds"] == 12 and table["ends"] == "rounds"
    rules = RuleSet.edition("odyssey-2011", mode="party", rounds_per_player=2)
    assert table["rules_help"] == rules_help(rules, 6)
    assert any("at most 5" in line for line in table["rules_help"])
    assert any("twice" in line or "2 times" in line for line in table["rules_help"])
    team_help = rules_help(RuleSet.edition("odyssey-2011", teams=True), 8)
    assert any("4 teams of 2" in line for line in team_help)
    assert any("at most 3 a round" in line for line in team_help)
    assert any("5 cards are shuffled" in line for line in team_help)
    options = client.get("/api/options").json()
    odyssey = next(e for e in options["editions"] if e["name"] == "odyssey-2011")
    assert odyssey["variants"]["teams"]["min_players"] == 6
    assert odyssey["variants"]["party"]["min_players"] == 6
    refresh = next(e for e in options["editions"] if e["name"] == "refresh-2021")
    assert refresh["variants"] == {}


class PartyOnlyAgent(RandomAgent):
    """A Dixit Party bot with a prepare step whose ``tell`` raises (as party-embedding's)."""

    name = "party-only"

    def tell(self, view: Any) -> Any:
        raise RuntimeError("party-only plays Dixit Party only")


def prepare_nothing(**_options: Any) -> None:
    """The prepare step of :class:`PartyOnlyAgent` (what makes the server rehearse it)."""


register_agent("party-only", "tests.web.test_variants:PartyOnlyAgent", overwrite=True,
               prepare="tests.web.test_variants:prepare_nothing")


def test_a_party_only_bot_warms_up_on_a_party_round_and_plays(app_factory: Any) -> None:
    client = app_factory(server=server_offering("random", "party-only"))
    bots = {b["name"]: b for b in client.get("/api/options").json()["bots"]}
    # Ready for Party tables only: its basic-game rehearsal failed, and the form says why.
    only = bots["party-only"]
    assert only["party"] is True and only["party_problem"] is None
    assert only["status"] == "failed" and only["available"] is False
    assert "plays Dixit Party only" in only["problem"]
    response = client.post("/api/tables", json={"name": "Ann", "deck": "small",
                                                "bots": "party-only"})
    assert response.status_code == 503 and "plays Dixit Party only" in response.json()["error"]
    made, ann = create(client, **PARTY, bots="party-only", seed=8)
    ann.send({"type": "start"})
    final = play_out([ann])
    record = record_of(client, made["table_id"])
    assert not record.failures and final["game"]["phase"] == "over"
    replay_record(record)
