"""In a real browser: the creator cannot give a seat to someone whose request lapsed (their
page stopped asking for the answer); the page says why and the request leaves the list."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from dixit_ai.web import social
from tests.web.test_browser import (  # noqa: F401 (browsers, server: fixtures)
    CHROMEDRIVER,
    CHROMIUM,
    By,
    WebDriverWait,
    browsers,
    screen,
    server,
)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
           "chromium-driver)")


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_creator_is_told_a_lapsed_requester_has_gone(
        server: str, browsers: Callable[[], Any],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(social, "_clock", clock)
    for _ in range(200):  # the bots may still be warming up
        response = httpx.post(f"{server}/api/tables", json={
            "name": "Ann", "seats": 3, "deck": "small", "bots": "random"})
        if response.status_code != 503:
            break
        time.sleep(0.1)
    assert response.status_code == 200, response.text
    made = response.json()
    bea = httpx.post(f"{server}/api/invites/{made['invite']}/join", json={"name": "Bea"}).json()
    ann = browsers()
    wait = WebDriverWait(ann, 20)
    ann.get(f"{server}/play#t={made['token']}")
    wait.until(lambda d: screen(d) == "lobby")
    asked = httpx.post(f"{server}/api/invites/{made['invite']}/reclaim",
                       json={"seat": 1, "name": "Mallory"})
    assert asked.status_code == 200, asked.text   # and never asks for the answer
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#reclaim-requests [data-approve]"))
    clock.now += social.RECLAIM_LAPSES_AFTER + 1
    ann.find_element(By.CSS_SELECTOR, "#reclaim-requests [data-approve]").click()
    wait.until(lambda d: "has gone" in d.find_element(By.ID, "toast").text)
    assert "Mallory" in ann.find_element(By.ID, "toast").text
    wait.until(lambda d: not d.find_element(By.ID, "reclaim-requests").is_displayed())
    assert httpx.get(f"{server}/api/state",
                     headers={"X-Seat-Token": bea["token"]}).status_code == 200
