"""Issue 25 (twenty-second pass): a card's numbers over HTTP read every public duel of the card on
each anonymous request. The service keeps the answer by what it was read from (the store's
committed mark, the next release of a delayed duel of the card): asked again it reads none of
them, and a public duel landing, a visibility changed or a delay releasing more is counted at
once, a private duel never. And ``POST /duels`` refuses a field ``delay`` does not have."""
from __future__ import annotations

import time

import pytest
import ygoreplay.library_search as library_search
from duel import CARDS
from test_search import ADMIN, COUNTERS, _code_of, client, first, recorded  # noqa: F401  (client: on this store)
from ygoreplay.access import Access
from ygoreplay.cache import Cache
from ygoreplay.library_search import card_stats
from ygoreplay.store import Store

CODE = _code_of(COUNTERS, first(COUNTERS, "activated")[1].card)
ASKED = 4       # times a card's numbers are asked with nothing committed between


@pytest.fixture
def store(tmp_path):
    """A SQLite store: what is committed to its file is this test's alone (a PostgreSQL database's
    snapshot, the mark a kept answer is read by there, moves with every test's commits)."""
    opened = Store(str(tmp_path / "duels.sqlite"), CARDS)
    yield opened
    opened.close()


def _counting(monkeypatch) -> list[int]:
    """How many times the public duels of a card are read (``_listed_rows``), as a list's length."""
    reads: list[int] = []
    listed_rows = library_search._listed_rows

    def counted(*args, **kwargs):
        reads.append(1)
        return listed_rows(*args, **kwargs)
    monkeypatch.setattr(library_search, "_listed_rows", counted)
    return reads


def test_a_cards_numbers_are_read_again_only_once_something_is_committed(store, client, monkeypatch):
    shown = recorded(store, COUNTERS)
    reads = _counting(monkeypatch)
    answers = [client.get(f"/cards/{CODE}/stats").json() for _ in range(ASKED)]
    assert answers == answers[:1] * ASKED and answers[0]["duels"] == 1
    # read once a connection of the store's pool (SQLite's mark is a connection's), not once an ask
    assert len(reads) < ASKED
    recorded(store, COUNTERS, "private")                    # a private duel lands: never counted
    assert client.get(f"/cards/{CODE}/stats").json() == answers[0]
    recorded(store, COUNTERS)                               # a public one lands: counted at once
    assert client.get(f"/cards/{CODE}/stats").json()["duels"] == 2
    store.attach(shown, "access", Access("private").to_dict())     # made private: gone at once
    assert client.get(f"/cards/{CODE}/stats").json()["duels"] == 1


def test_a_kept_answer_gives_way_when_a_delay_releases_more(store, monkeypatch):
    recorded(store, COUNTERS, upto=first(COUNTERS, "activated")[0] + 2, delay_seconds=3600.0)
    kept, now = Cache(16, 1 << 20), time.time()
    reads = _counting(monkeypatch)
    assert [card_stats(store, CODE, now=now + 60 * i, cache=kept)["duels"] for i in range(ASKED)] == [0] * ASKED
    assert len(reads) < ASKED                               # nothing released between: kept
    assert card_stats(store, CODE, now=now + 3601, cache=kept)["duels"] == 1
    assert card_stats(store, CODE, now=now + 3601) == card_stats(store, CODE, now=now + 3601, cache=kept)


def test_a_delay_with_a_field_it_does_not_have_is_refused_naming_it(client):
    headers = {"Authorization": f"Bearer {ADMIN}"}
    answer = client.post("/duels", json={"visibility": "public", "delay": {"events": 2, "secnds": 30}},
                         headers=headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()["where"] == "delay.secnds" and "delay.secnds" in answer.json()["error"]
    assert client.post("/duels", json={"delay": {"events": 2, "seconds": 30}}, headers=headers).status_code == 201
    schema = client.get("/openapi.json").json()["paths"]["/duels"]["post"]["requestBody"]["content"]
    assert schema["application/json"]["schema"]["properties"]["delay"]["additionalProperties"] is False
