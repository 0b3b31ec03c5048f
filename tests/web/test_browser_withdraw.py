"""In a real browser: a person who asked the creator for a seat and then leaves the page
withdraws the request; the creator's list drops it at once (not after the 120 s lapse)."""

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
    Select,
    WebDriverWait,
    browsers,
    screen,
    server,
)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
           "chromium-driver)")


def test_a_requester_who_leaves_the_page_leaves_the_creators_list(
        server: str, browsers: Callable[[], Any],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(social, "_clock", lambda: 1000.0)  # no request lapses in this test
    for _ in range(200):  # the bots may still be warming up
        response = httpx.post(f"{server}/api/tables", json={
            "name": "Ann", "seats": 3, "deck": "small", "bots": "random"}, timeout=60)
        if response.status_code != 503:
            break
        time.sleep(0.1)
    assert response.status_code == 200, response.text
    made = response.json()
    joined = httpx.post(f"{server}/api/invites/{made['invite']}/join", json={"name": "Bea"},
                        timeout=60)
    assert joined.status_code == 200, joined.text
    ann, cy = browsers(), browsers()
    wait_ann, wait_cy = WebDriverWait(ann, 20), WebDriverWait(cy, 20)
    ann.get(f"{server}/play#t={made['token']}")
    wait_ann.until(lambda d: screen(d) == "lobby")

    cy.get(f"{server}/join/{made['invite']}")
    cy.find_element(By.CSS_SELECTOR, "#recover summary").click()
    wait_cy.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#recover-seat option")) == 2)
    Select(cy.find_element(By.ID, "recover-seat")).select_by_visible_text("Bea")
    cy.find_element(By.ID, "ask-name").send_keys("Cy")
    cy.find_element(By.ID, "ask-submit").click()
    wait_cy.until(lambda d: "waiting" in d.find_element(By.ID, "ask-status").text)
    wait_ann.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#reclaim-requests [data-approve]"))
    assert "Cy" in ann.find_element(By.ID, "reclaim-requests").text

    cy.get("about:blank")  # Cy leaves the page
    wait_ann.until(lambda d: not d.find_element(By.ID, "reclaim-requests").is_displayed())
    state = httpx.get(f"{server}/api/state", headers={"X-Seat-Token": made["token"]},
                      timeout=60).json()
    assert state["you"]["reclaim_requests"] == []
