"""Attacks on the library's search and on translating a recorded sentence (issue 26): a branch of
an undelayed branch of a delayed duel found by anyone; a crafted cursor, date or NUL character
that was a 500; a crafted name that made ``i18n.said`` take minutes or overflow the stack."""
from __future__ import annotations

import base64
import json

import pytest
from fastapi.testclient import TestClient

from duel import CARDS
from test_search import ADMIN, found, recorded
from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay import i18n
from ygoreplay.access import Access, digest
from ygoreplay.application import Records
from ygoreplay.service import create_app
from ygoreplay.store import Store


@pytest.fixture
def store(store_url):  # noqa: F811
    opened = Store(store_url, CARDS)
    yield opened
    opened.close()


def test_a_branch_of_an_undelayed_branch_of_a_delayed_running_duel_is_not_found(store):
    """The grandchild's first events are the delayed duel's, past its delay: a spectator's view
    of it is empty (``hidden_by_parent`` asks up the line) and the search must agree."""
    duel = recorded(store, "won-by-damage", delay_events=5, upto=12)
    records = Records(store)
    child = records.branch(duel, 10, "child")
    store.attach(child, "access", Access("public").to_dict())       # the organiser shows the branch now
    grandchild = records.branch(child, 10, "grandchild")
    assert records.access(grandchild).delay_events == 0
    assert child not in found(store)                                # its parent hides where it left
    assert grandchild not in found(store, q="grandchild")
    assert grandchild not in found(store)


def _cursor(created: object, stream: object) -> str:
    return base64.urlsafe_b64encode(json.dumps([created, stream]).encode()).decode().rstrip("=")


@pytest.mark.parametrize("params, where", [
    ({"cursor": _cursor(10 ** 30, "x")}, "cursor"),
    ({"cursor": _cursor(1, "a\x00b")}, "cursor"),
    ({"cursor": _cursor(1, "\ud800")}, "cursor"),
    ({"until": "9999-12-31"}, "until"),
    ({"player": "a\x00b"}, "player"),
    ({"title": "x\x00"}, "title"),
])
def test_a_forged_cursor_a_last_date_or_a_nul_is_400_not_500(store, params, where):
    with TestClient(create_app(store, digest(ADMIN)), raise_server_exceptions=False) as client:
        answer = client.get("/search", params=params)
    assert answer.status_code == 400, answer.text
    assert answer.json()["where"] == where


def test_a_nul_in_a_players_name_is_400_not_500(store):
    with TestClient(create_app(store, digest(ADMIN)), raise_server_exceptions=False) as client:
        answer = client.get("/players/a%00b")
    assert answer.status_code == 400, answer.text
    assert answer.json()["where"] == "name"


@pytest.mark.parametrize("english", [
    "a" + "  " * 60 + "Z",                                              # 40 s before the fix
    "Duel begins under " + "x, " * 300 + "Z",
])
def test_a_crafted_name_cannot_make_a_sentence_slow_to_translate(english):
    """Each placeholder was a lazy ``.*?``: a message of many copies of the text between two
    placeholders had every split tried. Now its value runs to the first copy: one pass."""
    i18n._said.cache_clear()
    with i18n.using("ja"):
        assert i18n.said(english) == english           # no template makes it: it stays English


def test_a_sentence_nested_in_its_own_values_does_not_overflow_the_stack():
    """A value that is itself a sentence is translated too; a crafted one nesting a sentence
    hundreds deep was a RecursionError (a 500, a crash of the command)."""
    i18n._said.cache_clear()
    english = "Chain Link 1: P activates " * 400 + "C"
    with i18n.using("ja"):
        shown = i18n.said(english)
    assert isinstance(shown, str) and shown != english


def test_a_sentence_still_translates_its_values():
    with i18n.using("ja"):
        made = i18n.said("Chain Link 1: Alice activates Pot of Greed")
    assert "Alice" in made and "Pot of Greed" in made and not made.startswith("Chain Link")


def test_an_underscore_in_q_is_a_letter_on_both_stores(store):
    """PostgreSQL matched each word of ``q`` with LIKE, where ``_`` stands for any character:
    ``ab_cd`` found a duel titled "abxcd" there and not on SQLite."""
    titled = recorded(store, "won-by-damage", title="abxcd")
    assert found(store, q="abxcd") == [titled]
    assert found(store, q="ab_cd") == []
