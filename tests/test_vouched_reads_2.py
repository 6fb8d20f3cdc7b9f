"""Every read of stored rows goes through the store's one decision of what its signed anchors
vouch for (issue 25, tenth pass: "a second way in skips the checks of the first"), continued
from ``test_vouched_reads``: each alteration is made in a real store's rows, and what it must
not show or count is asked of every face that reads it."""
from __future__ import annotations

from fastapi.testclient import TestClient

from duel import CARDS
from test_live_vouched import _retitle
from test_search import ADMIN, COUNTERS, _code_of, first, recorded
from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.access import digest
from ygoreplay.application import Records
from ygoreplay.library_search import card_stats
from ygoreplay.service import create_app
from ygoreplay.store import Store


# -- a card's numbers -------------------------------------------------------------------------------

def test_a_cards_numbers_leave_out_an_altered_public_duel_and_its_branch_as_the_search_does(store_url):
    """``/cards/{code}/stats`` counts a duel only where ``Store.listed`` (the search's and the
    list of duels' decision) names it: not a public duel whose header was altered in the
    database, nor its public branch (whose first events are that duel's)."""
    position, event = first(COUNTERS, "activated")
    code = _code_of(COUNTERS, event.card)
    with Store(store_url, CARDS) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        altered, other = recorded(store, COUNTERS), recorded(store, COUNTERS)
        branch = Records(store).branch(altered, position)             # public, as its parent, with the activation
        one = card_stats(store, code)
        assert one["duels"] == 3 and one["activated"] == 3 and one["won_by_user"] + one["lost_by_user"] == 2
        _retitle(store_url, altered)
        stats = client.get(f"/cards/{code}/stats").json()
        assert {k: stats[k] for k in ("duels", "activated")} == {"duels": 1, "activated": 1}
        assert stats["activations"] * 3 == one["activations"] and stats["won_by_user"] + stats["lost_by_user"] == 1
        assert branch not in {r["id"] for r in client.get("/search", params={"card": str(code)}).json()["results"]}
