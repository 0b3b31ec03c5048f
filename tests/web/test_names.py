"""People's names at a table: names that show alike are one name, and names that mix alphabets
(to pass for someone else) are refused (dixit_ai.web.names)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from dixit_ai.web.config import WebError
from dixit_ai.web.names import mixed_scripts, person_name, same_name
from tests.web.conftest import create, join

CYRILLIC_A = "\u0410"          # drawn as Latin A
CYRILLIC_ACE = "\u0410\u0441\u0435"  # A, es, ie: drawn as "Ace"
GREEK_KATE = "\u039a\u03b1te"   # Greek capital kappa and small alpha, then Latin: "Kate"


@pytest.mark.parametrize("name", [
    "Zoë", "José Ñúñez", "O'Brien-Smith 2", "Алиса", "Ελένη", "山田 Taro たろう", "김민수 Kim",
    "王小明 Wang", "Nguyễn Văn An", "محمد", "שרה", "देवनागरी", "😀 Sam"])
def test_names_of_one_alphabet_or_of_a_usual_mix_pass(name: str) -> None:
    assert mixed_scripts(name) is None
    assert person_name(name) == name


@pytest.mark.parametrize(("name", "scripts"), [
    (f"{CYRILLIC_A}lice", {"CYRILLIC": CYRILLIC_A, "LATIN": "lice"}),
    (GREEK_KATE, {"GREEK": "\u039a\u03b1", "LATIN": "te"}),
    ("Ann\u0430", {"LATIN": "Ann", "CYRILLIC": "\u0430"}),
    ("Алиса Smith", {"CYRILLIC": "Алиса", "LATIN": "Smith"}),
    ("山田 Алиса", {"HAN": "山田", "CYRILLIC": "Алиса"}),
])
def test_a_name_mixing_alphabets_is_refused_and_the_message_names_them(
        name: str, scripts: dict[str, str]) -> None:
    assert mixed_scripts(name) == scripts
    with pytest.raises(WebError, match="mixes the letters of 2 alphabets") as refused:
        person_name(name)
    assert refused.value.status == 400
    for script, letters in scripts.items():
        assert f"{script.title()} {letters!r}" in str(refused.value)


def test_look_alike_letters_show_as_the_latin_ones() -> None:
    assert same_name("Ace", CYRILLIC_ACE) and same_name("ACE", CYRILLIC_ACE.upper())
    assert same_name("Kate", GREEK_KATE)
    assert not same_name("Ace", "Acé") and not same_name("Алиса", "Alice")


def test_a_whole_name_in_look_alike_letters_cannot_join_beside_the_name_it_copies(
        client: TestClient) -> None:
    """Before, "Ace" in Cyrillic letters could sit beside "Ace": two seats that read the same."""
    made, ann = create(client)
    join(client, made["invite"], "Ace")
    response = client.post(f"/api/invites/{made['invite']}/join", json={"name": CYRILLIC_ACE})
    assert response.status_code == 409, response.text
    assert "'Ace' already sits at this table" in response.json()["error"]
    response = client.post(f"/api/invites/{made['invite']}/join",
                           json={"name": f"{CYRILLIC_A}nn"})   # mixed: refused before the table
    assert response.status_code == 400, response.text
    assert "mixes the letters of 2 alphabets" in response.json()["error"]
    assert [s["name"] for s in ann.state()["table"]["seats"]] == ["Ann", "Ace", None, None]
    join(client, made["invite"], "Алиса")   # another name in another alphabet sits
    assert [s["name"] for s in ann.state()["table"]["seats"]] == ["Ann", "Ace", "Алиса", None]


def test_a_seat_request_is_named_as_a_newcomer_is(client: TestClient) -> None:
    """The creator sees the asker's name beside the seat asked for: it is checked as a
    newcomer's (one alphabet, not of a bot's form)."""
    made, ann = create(client)
    join(client, made["invite"], "Ace")
    url = f"/api/invites/{made['invite']}/reclaim"
    for name, message in [(f"{CYRILLIC_A}ce", "mixes the letters of 2 alphabets"),
                          ("random bot 1", "the form bots are named by")]:
        response = client.post(url, json={"seat": 1, "name": name})
        assert response.status_code == 400 and message in response.json()["error"]
    assert ann.state()["you"]["reclaim_requests"] == []
    assert client.post(url, json={"seat": 1, "name": "Ace"}).status_code == 200
