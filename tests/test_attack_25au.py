"""Attacks on issue 25's eighteenth pass (``attack25au``): the reads, through a second way in.

* A witnessed duel's flags (a rule broken and kept, MATCH-08) are each view's own: a view's fold
  flags what its information decides, and a rule whose check needs a card the view does not see
  is undecided (``rules.base.fail``). The library's ``flagged`` badge (``/search``,
  ``/players/{name}``, the library page, ``ygoreplay search``) was the record's verdict instead
  (``library.seen``, written by every append and every reindex): at a public paper table Yugi
  reveals Dark Magician, then Sets a card from his hand (the hand is hidden again, ZONE-14); the
  spectator's and Kaiba's views hold a face-down card they cannot name and no flag, but the search
  badged the duel ``flagged`` (SUM-04: "Dark Magician is Level 7 and needs 2 Tribute(s)"), telling
  every reader which card the Set one is. The index now counts a flag only where the spectator's own fold flags it too
  (``views.flag_seen``: the event judged again on the board as the spectator knows it), and its
  version is 9 (every store's index is made anew on its next writable open).

Tried and found holding (no change): the resident helper forwards only read-only commands and
runs them as ``main`` would, through the same ``open_duel`` (``Source.seen``: a what-if's cut)
and ``--view``; ``show``/``log``/``play``/``export``/``lp-sheet`` of a stored what-if branch cut
for every view but the judge's; the LP sheet's head is the view's chain, never the record's; a
player's append answers no receipt, and its refusals name cards only as its view does
(``DeviceNames.refused``, ``unseen``); ``/state``, ``/diff``, ``/cards``, ``/events``,
``/frames``, ``/follow``, board pictures and ``replay.ygr`` all read ``LiveDuel.visible`` (delay,
branch cut); a match's duel files are each seated (``access.seated``) and released only with the
duel; the match's views withhold decklists and swaps, its sentences give counts; the round page
reads each duel as far as a spectator may (``_seen``) and hides a private match's table; link
previews are made for public duels as a spectator sees them; the card rows of the index follow
``can_see`` and a what-if writes none; a reveal is shown to everyone in this model (no event
shows a card to one player only), and a Set card shuffle renames by zone (``_Names.deal``).
"""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from duel import CARDS, DARK_MAGICIAN
from test_search import _drop_index
from ygoreplay.access import digest
from ygoreplay.library_search import parse, search
from ygoreplay.service import create_app
from ygoreplay.store import Store

ADMIN = "attack25au-organiser-token-0123456789abcdef01234"
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
#: A paper table, recorded from the public side: no decklist, no Deck order, no hand known.
SETUP = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"], "witnessed": True},
         *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
         *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
         {"kind": "turn_started", "player": 0, "turn": 1},
         {"kind": "phase_entered", "phase": "draw"}, {"kind": "phase_entered", "phase": "standby"},
         {"kind": "phase_entered", "phase": "main1"}]
#: Yugi shows Dark Magician from his hand (the hand is mixed again for every other reader right
#: after), then Sets that card with no Tribute: SUM-04 in the record, which knows which it is.
SET_REVEALED = [{"kind": "card_revealed", "player": 0, "cards": ["p0.m0"], "shows": {"p0.m0": DARK_MAGICIAN},
                 "cause": "p0.m0"},
                {"kind": "monster_set", "player": 0, "card": "p0.m0", "zone": 2}]
#: Two Normal Summons in one turn (SUM-01, a rule every reader's fold decides), Giant Soldier of Stone.
TWO_SUMMONS = [{"kind": "normal_summoned", "player": 0, "card": f"p0.m{i}", "zone": i, "shows": {f"p0.m{i}": 13039848}}
               for i in (1, 2)]

@pytest.fixture
def served(tmp_path):
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    store = Store(url, CARDS)
    with TestClient(create_app(store, digest(ADMIN))) as client:
        yield url, store, client
    store.close()


def _table(client, *events: dict) -> tuple[str, dict]:
    """A public witnessed duel with ``events`` entered by the table's recorder, and its tokens."""
    duel = client.post("/duels", json={"title": "table 3", "mode": "witnessed", "visibility": "public"},
                       headers=ORGANISER).json()
    tokens = {role: {"Authorization": f"Bearer {token}"} for role, token in duel["tokens"].items()}
    written = client.post(f"/duels/{duel['id']}/events", json=[*SETUP, *events], headers=tokens["recorder"])
    assert written.status_code == 200, written.text
    return duel["id"], tokens


def _flags(client, duel_id: str, headers: dict | None = None) -> list[str]:
    frames = client.get(f"/duels/{duel_id}/frames", headers=headers or {}).json()["frames"]
    return [flag["rule"] for frame in frames for flag in frame.get("flags") or ()]


def _badges(client, duel_id: str, **params: str) -> list[str]:
    rows = client.get("/search", params=params).json()["results"]
    return next(row["badges"] for row in rows if row["id"] == duel_id)


def test_the_search_badges_no_flag_that_rests_on_a_set_card_a_spectator_does_not_see(served):
    """The judge's view flags the Set Dark Magician (SUM-04); the spectator's and Kaiba's show no
    flag (a face-down card of Yugi's: undecided); the search's badge, which anyone reads, says
    what they do (on main: ``flagged``), whether the index was written by the append or made anew.
    A second Normal Summon (SUM-01) is every view's flag: its duel keeps the badge."""
    url, store, client = served
    public, _ = _table(client, *TWO_SUMMONS)
    assert "SUM-01" in _flags(client, public) and "flagged" in _badges(client, public)
    duel_id, tokens = _table(client, *SET_REVEALED)
    assert "SUM-04" in _flags(client, duel_id, tokens["judge"])
    assert _flags(client, duel_id) == [] and _flags(client, duel_id, tokens["p1"]) == []
    assert "witnessed" in _badges(client, duel_id)
    assert "flagged" not in _badges(client, duel_id)
    assert "flagged" not in _badges(client, duel_id, player="Yugi", source="table")
    _drop_index(store)                                     # made anew from the store (``library._replayed``)
    with Store(url, CARDS) as reopened:
        rows = search(reopened, parse({"source": "table"}, CARDS))["results"]
    badges = {row["id"]: row["badges"] for row in rows}
    assert "flagged" not in badges[duel_id] and "flagged" in badges[public]

